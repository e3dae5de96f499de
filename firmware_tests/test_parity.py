"""Every shared vector gives the same answer on the board as on the host (SPEC 8).

The board runs micropython/memcore_vectors.py on the memcore it has: the C module when the
firmware has it compiled in, otherwise micropython/memcore_fallback.py.  One run for the
module; one test per case, so a difference names its case."""
import json
import sys

import pytest

from boardkit import HERE, VECTOR_DIR
from memcore import vectors
from memcore.cli import main
from memcore.hil import SimulatedBoard
from memcore.hil.parity import compare, parity, vector_names, BoardRun

CASES = [(p.stem, c["name"]) for p in sorted(VECTOR_DIR.glob("*.json")) for c in vectors.load(p)["cases"]]


@pytest.fixture(scope="module")
def report(board):
    return parity(board, timeout_s=120)


def test_the_run_completed_and_the_versions_match(report):
    assert report.status in ("ok", "differences"), report.error
    assert report.board["implementation"] in ("c-module", "native-mpy", "fallback")
    assert report.board["float_bits"] in (32, 64)


@pytest.mark.parametrize("file,case", CASES, ids=["%s:%s" % c for c in CASES])
def test_board_agrees_with_host(report, file, case):
    diffs = [d for d in report.differences if (d.file, d.case) == (file, case)]
    assert diffs == []


def test_report_file_and_table(report, tmp_path):
    path = tmp_path / "parity.json"
    report.write(path)
    data = json.loads(path.read_text())
    assert data["schema"] == "memcore.parity/1" and data["cases"] == len(CASES)
    assert data["differences"] == [] and data["transcript"]


def _lines_run(lines):
    run = BoardRun()
    run.take("\r\n".join(lines).encode())
    return run


def test_differences_are_found_field_by_field_and_shown():
    from boardkit import host_lines
    lines = [l.replace('"required_bytes": 68,', '"required_bytes": 69,') for l in host_lines()]
    result = compare(_lines_run(lines), vector_names())
    assert result.status == "differences"
    assert [(d.file, d.case, d.field, d.host, d.board) for d in result.differences] == [
        ("budget", "spec1-batch2", "required_bytes", 68, 69)]


def _scaled_floats(factor):
    from boardkit import host_lines
    header, *rest = host_lines()
    results = [json.loads(l[len("@memcore "):]) for l in rest]
    for r in results:
        for name, value in r.get("fields", {}).items():
            if isinstance(value, float) and value not in (0.0, float("inf")):
                r["fields"][name] = value * factor
    return header, ["@memcore " + json.dumps(r) for r in results]


def _single(header):
    return header.replace('"float_bits": 64', '"float_bits": 32')


def test_floats_are_compared_within_the_boards_precision():
    # 2**-23: twice what rounding a double to single does (2**-24), within the rule's 2**-22
    header, lines = _scaled_floats(1 + 2.0 ** -23)
    assert compare(_lines_run([_single(header)] + lines), vector_names()).status == "ok"
    double = compare(_lines_run([header] + lines), vector_names())
    assert double.status == "differences" and all(isinstance(d.host, float) for d in double.differences)


def test_floats_beyond_single_precision_are_differences():
    header, lines = _scaled_floats(1 + 2.0 ** -21)
    result = compare(_lines_run([_single(header)] + lines), vector_names())
    assert result.status == "differences" and result.differences
    assert all(isinstance(d.host, float) for d in result.differences)


CROSSOVER_CASE = "crossover-exactly-on-a-batch-with-a-decimal-balance"


def _crossover_lines(crossover, bound):
    """The host's lines with the roofline case whose balance (0.2) single precision cannot
    hold reported with another crossover batch and bound."""
    from boardkit import host_lines
    header, *rest = host_lines()
    out = []
    for line in rest:
        r = json.loads(line[len("@memcore "):])
        if r.get("case") == CROSSOVER_CASE:
            assert r["fields"]["crossover_batch"] == 50 and r["fields"]["bound"] == "compute"
            r["fields"]["crossover_batch"], r["fields"]["bound"] = crossover, bound
        out.append("@memcore " + json.dumps(r))
    return header, out


def test_integers_derived_from_floats_may_move_as_far_as_single_precision_moves_the_floats():
    # 0.2 is 0.2000000030 in single precision: the balance is reached at batch 51, not 50
    header, lines = _crossover_lines(51, "memory")
    assert compare(_lines_run([_single(header)] + lines), vector_names()).status == "ok"
    double = compare(_lines_run([header] + lines), vector_names())
    assert [(d.case, d.field) for d in double.differences] == [(CROSSOVER_CASE, "bound"),
                                                               (CROSSOVER_CASE, "crossover_batch")]


def test_integers_derived_from_floats_may_not_move_further():
    header, lines = _crossover_lines(52, "memory")
    result = compare(_lines_run([_single(header)] + lines), vector_names())
    assert [(d.case, d.field, d.host, d.board) for d in result.differences] == [
        (CROSSOVER_CASE, "crossover_batch", 50, 52)]


def test_integers_not_derived_from_floats_are_exact_on_single_precision_boards():
    from boardkit import host_lines
    header, *rest = host_lines()
    lines = [l.replace('"required_bytes": 68,', '"required_bytes": 69,') for l in rest]
    result = compare(_lines_run([_single(header)] + lines), vector_names())
    assert [(d.case, d.field, d.host, d.board) for d in result.differences] == [
        ("spec1-batch2", "required_bytes", 68, 69)]


def test_board_with_another_memcore_version_is_reported_not_diffed():
    from boardkit import host_lines
    lines = [l.replace('"memcore_version": "', '"memcore_version": "0.0.9-') for l in host_lines()]
    lines = [l.replace('"required_bytes": 68,', '"required_bytes": 69,') for l in lines]
    result = compare(_lines_run(lines), vector_names())
    assert result.status == "version_mismatch" and result.differences == []
    assert "0.0.9-" in result.error


def _fake(mode, fake_lines_file, tmp_path):
    board = SimulatedBoard(argv=[sys.executable, str(HERE / "fakeboard.py"), mode, str(fake_lines_file)],
                           transcript_dir=tmp_path)
    board.spawn()
    return board


@pytest.mark.parametrize("mode,rc,text", [("normal", 0, "0 differences"), ("wrong", 2, "required_bytes"),
                                          ("oldboard", 2, "another memcore")])
def test_cli_exit_status_and_table(mode, rc, text, fake_lines_file, tmp_path, capsys):
    board = _fake(mode, fake_lines_file, tmp_path)
    try:
        got = main(["hil", "--port", board.port_name, "--no-deploy", "--timeout", "10",
                    "--transcripts", str(tmp_path), "--report", str(tmp_path / "r.json")])
    finally:
        board.close()
    out = capsys.readouterr().out
    assert got == rc, out
    assert text in out
    status = json.loads((tmp_path / "r.json").read_text())["status"]
    assert status == {"normal": "ok", "wrong": "differences", "oldboard": "version_mismatch"}[mode]


def test_cli_on_the_simulated_board(board_options, tmp_path, capsys, real_board):
    if real_board:
        pytest.skip("the module's parity run covers a real board")
    args = ["hil", "--heapsize", board_options["heapsize"], "--transcripts", str(tmp_path),
            "--report", str(tmp_path / "r.json")]
    if board_options["micropython"]:
        args += ["--micropython", board_options["micropython"]]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "board and host agree" in out and "0 differences" in out
