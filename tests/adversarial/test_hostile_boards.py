"""Scripted hostile boards, replayed by firmware_tests/fakeboard.py: `memcore hil` never
reports "ok" for a board that lied or broke the protocol, `memcore monitor` never exits 0
for a forged or malformed report, nothing raises, the board's text is never markup."""
import hostile
from hostile import assert_clean


def test_hostile_vector_runs(tally, tmp_path):
    hostile.hil_boards(tally, 48, folder=tmp_path)
    assert_clean(tally, "hil boards")


def test_hostile_boot_output_on_the_monitor(tally, tmp_path):
    hostile.monitor_boards(tally, 17, folder=tmp_path)
    assert_clean(tally, "monitor boards")


def test_the_host_checks_the_fields_the_board_prints(tmp_path):
    """lines.SCHEMAS is what the host accepts: exactly the fields the board scripts print
    (a field added on one side only would make every real board's line "malformed")."""
    import json
    import sys
    import memcore
    from memcore import descriptor
    from memcore.hil import lines
    sys.path.insert(0, str(hostile.DEVICE_DIR))
    try:
        import memcore_boot
        import memcore_vectors
        d = descriptor.describe(memcore.load(str(hostile.MODELS / "tiny_mlp_int8.tflite")))
        report = memcore_boot.check(d, available=50_000, device="host", report=False, module=memcore)
        out = []
        memcore_vectors.run([str(hostile.ROOT / "tests" / "vectors" / "budget.json")], memcore, out)
    finally:
        sys.path.remove(str(hostile.DEVICE_DIR))
    # A descriptor-only board prints the board script's fields and a subset of the C
    # check's; a board with the C module prints all of the C check's (named by the C core).
    from memcore import _lowlevel as ll
    schema = lines.SCHEMAS[lines.REPORT]
    assert set(report) - {"schema"} <= set(schema)
    assert {name for name, (_, _, required) in schema.items() if required} <= set(report)
    assert set(ll.check_field_kinds()) <= set(schema)
    assert lines.validate(json.loads(json.dumps(report))) and report["verdict"] == "fits"
    header, *results, end = [lines.parse_line(line) for line in out]
    assert set(header) - {"schema"} == set(lines.SCHEMAS[lines.HEADER])
    assert {k for r in results for k in r} - {"schema"} == set(lines.SCHEMAS[lines.RESULT])
    assert set(end) - {"schema"} == set(lines.SCHEMAS[lines.END])


def test_monitor_json_names_the_forged_report(tmp_path):
    """--json: the forged second report is in "problems" with its transcript line, never in
    "reports", and the exit status is 2."""
    import json
    from cli_helpers import cli_json
    fakeboard, _ = hostile._fakeboard()
    fits, does_not_fit = fakeboard.BOOT_REPORTS
    code, data, err = hostile.monitor_on([fakeboard.ROM_LOG.decode(), "@memcore " + json.dumps(does_not_fit) + "\r\n",
                                          "@memcore " + json.dumps(fits) + "\r\n"], tmp_path, 0.5, cli_json)
    assert code == 2
    assert data["reports"] == [does_not_fit]
    assert [p["line"] for p in data["problems"]] == [9]
    assert "second report in one boot" in data["problems"][0]["problem"]


def _lying_run(tmp_path, measured_bits):
    """A vector run whose header claims 32-bit floats, its values off by 2^-23 (within
    single precision's tolerance, beyond double's), on a fake board whose floats are
    `measured_bits` wide."""
    import json
    from memcore.hil import SerialBoard
    from memcore.hil.parity import compare, run_on_board, vector_names
    fakeboard, boardkit = hostile._fakeboard()
    header, *results, end = boardkit.host_lines()
    lines = [header.replace('"float_bits": 64', '"float_bits": 32')]
    for line in results:
        o = json.loads(line[len("@memcore "):])
        for name, value in o.get("fields", {}).items():
            if type(value) is float and value not in (0.0, float("inf")):
                o["fields"][name] = value * (1 + 2.0 ** -23)
        lines.append("@memcore " + json.dumps(o))
    vector_dir = hostile.ROOT / "tests" / "vectors"
    names = vector_names(vector_dir)
    port = fakeboard.FakeBoardOnPty({"run": [r + "\r\n" for r in lines + [end]], "float_bits": measured_bits})
    board = SerialBoard(port.name, transcript_dir=tmp_path, step_timeout_s=5.0)
    try:
        board.open("float-width")
        return compare(run_on_board(board, names, vector_dir, timeout_s=10, deploy_files=False), names, vector_dir)
    finally:
        board.close()
        port.close()


def test_hil_measures_the_float_width_a_header_claims(tmp_path):
    """A 64-bit board claiming 32-bit floats once passed as "ok" with values only single
    precision excuses; the harness has the board compute 1 + 2^-40 - 1 and refuses the
    header; on a board that is 32-bit the same run is "ok"."""
    report = _lying_run(tmp_path, 64)
    assert report.status == "malformed" and report.error == (
        "the board's header says 32-bit floats, but it computes with 64-bit ones (measured on the board): not "
        "compared")
    report = _lying_run(tmp_path, 32)
    assert report.status == "ok" and report.float_rel == 2.0 ** -22
