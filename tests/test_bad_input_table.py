"""docs/bad-input.md, row by row: each kind of bad input and exactly what the user gets.

Each test below runs what its row shows (the CLI in a scratch folder, so file names are
as typed; or the Python call) and asserts the exact text.  The last test reads the table
and checks that every named test exists and contains every message its row quotes, so
the table cannot drift from the tests.
"""
import ast
import contextlib
import importlib.util
import io
import json
import math
import pathlib
import re
import socket
import sys
import threading

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import memcore
from cli_helpers import memcore_cli
from memcore import MemcoreError

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "models" / "tiny_mlp_float32.tflite"
TINY_INT8 = ROOT / "tests" / "models" / "tiny_mlp_int8.tflite"
TABLE = ROOT / "docs" / "bad-input.md"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def error_line(*argv):
    """(exit code, the one line on stderr) of a failing `memcore` command."""
    code, out, err = memcore_cli(*argv)
    assert out == ""
    return code, err.strip().splitlines()[-1]


def _onnx(name, nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    pathlib.Path(name).write_bytes(model.SerializeToString())


def _value(name, shape, elem_type=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem_type, shape)


# --- model files --------------------------------------------------------------

def test_truncated_file(here):
    (here / "truncated.tflite").write_bytes(TINY.read_bytes()[:890])
    assert error_line("check", "truncated.tflite") == (2, "memcore check: error: truncated.tflite: truncated or corrupted TFLite flatbuffer: an offset or length at byte 52 points past the end of the file (890 bytes)")  # noqa: E501


def test_empty_and_missing_files(here):
    (here / "empty.tflite").write_bytes(b"")
    assert error_line("check", "empty.tflite") == (2, "memcore check: error: empty.tflite: the file is empty")
    assert error_line("check", "missing.tflite") == (
        2, "memcore check: error: missing.tflite: cannot read the file: No such file or directory "
           "(hint: check the path; ls shows what is there)")


def test_wrong_format_png(here):
    (here / "picture.tflite").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    assert error_line("check", "picture.tflite") == (2, "memcore check: error: picture.tflite: not a TFLite flatbuffer (no TFL3 identifier at byte 4); the file is truncated, corrupted or in another format")  # noqa: E501


def test_wrong_format_text(here):
    (here / "notes.onnx").write_text("this is a text file, not a model\n")
    code, line = error_line("check", "notes.onnx")
    # protobuf's own words after the message type differ between its releases
    # (": Wire format was corrupt" in some); memcore's are the rest
    assert code == 2 and line.startswith("memcore check: error: notes.onnx: neither a TFLite flatbuffer nor an ONNX protobuf (truncated, corrupted or another format: Error parsing message with type 'onnx.ModelProto'") and line.endswith(")"), line  # noqa: E501


def test_corrupted_bytes(here):
    data = bytearray(TINY.read_bytes())
    data[100:400] = b"\xff" * 300
    (here / "corrupted.tflite").write_bytes(bytes(data))
    assert error_line("check", "corrupted.tflite") == (2, "memcore check: error: corrupted.tflite: truncated or corrupted TFLite flatbuffer: an offset or length at byte 156 points past the end of the file (1780 bytes)")  # noqa: E501


def test_unsupported_operator(here):
    _onnx("einsum.onnx", [helper.make_node("Einsum", ["x", "x"], ["y"], equation="bij,bik->bjk")],
          [_value("x", [1, 4, 8])], [_value("y", [1, 8, 8])])
    assert error_line("check", "einsum.onnx") == (
        2, "memcore check: error: einsum.onnx: unsupported operator node 0 '' (Einsum)")


def test_dynamic_shape(here):
    _onnx("dynamic.onnx", [helper.make_node("Relu", ["x"], ["y"])], [_value("x", ["batch", 4])],
          [_value("y", ["batch", 4])])
    assert error_line("check", "dynamic.onnx") == (2, "memcore check: error: dynamic.onnx: tensor 'x' has a dynamic or unknown dimension 'batch'; memcore needs static shapes: give them with --input-shape NAME=1,3,96,96 (or fix them when exporting)")  # noqa: E501


def test_several_subgraphs(here):
    branch = helper.make_graph(
        [helper.make_node("Constant", [], ["v"], value=numpy_helper.from_array(np.ones(1, np.float32)))],
        "b", [], [_value("v", [1])])
    _onnx("if.onnx", [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
          [_value("c", [], TensorProto.BOOL)], [_value("y", [1])])
    assert error_line("check", "if.onnx") == (2, "memcore check: error: if.onnx: node '' (If) holds subgraphs (control flow); memcore plans single-graph models only")  # noqa: E501


def test_tensor_too_big_for_64_bits(here):
    pytest.importorskip("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    spec = importlib.util.spec_from_file_location("make_seeds", ROOT / "fuzz" / "make_seeds.py")
    seeds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seeds)
    d = 2**31 - 1
    (here / "huge.tflite").write_bytes(seeds.one_op_tflite(seeds.schema.BuiltinOperator.RELU, (d, d, d), (d, d, d)))
    assert error_line("check", "huge.tflite") == (2, "memcore check: error: huge.tflite: tensor 0 (x) of shape [2147483647, 2147483647, 2147483647] is too large: its size does not fit in 64 bits")  # noqa: E501


# --- arguments --------------------------------------------------------------

def test_overflow_2_62_parameters_at_4_bytes():
    with pytest.raises(MemcoreError) as info:
        memcore.budget(2**62, 4, 1, 0, 0, 10**6)
    assert type(info.value) is MemcoreError
    assert str(info.value) == "budget(parameters=4611686018427387904, bytes_per_parameter=4.0, batch=1, activation_bytes_per_example=0, runtime_bytes=0, limit_bytes=1000000): a size does not fit in 64 bits"  # noqa: E501


def test_negative_batch_python():
    with pytest.raises(MemcoreError) as info:
        memcore.budget(10, 4, -1, 8, 0, 100)
    assert str(info.value) == "batch must not be negative, got -1"


def test_negative_batch_cli():
    assert error_line("check", TINY_INT8, "--batch", "-1") == (
        2, "memcore check: error: argument --batch/-b: must be at least 1, got -1")


def test_nan_rate_python():
    with pytest.raises(MemcoreError) as info:
        memcore.latency(1000, 1000, 1e9, math.nan)
    assert str(info.value) == "operations_per_second must be finite, got nan"


def test_nan_rate_in_a_device_file(here):
    (here / "nan.toml").write_text(
        '[my-board]\ndescription = "x"\navailable_bytes = 900_000\nops_per_second_reference = 2e7\n'
        'ops_per_second_optimised = nan\nlatency_budget_seconds = 0.05\n'
        '[my-board.regions.ram]\nsize_bytes = 1_048_576\nread_bytes_per_second = 1e9\n')
    assert error_line("check", TINY_INT8, "--device", "my-board", "--device-file", "nan.toml") == (
        2, "memcore check: error: nan.toml: device 'my-board': ops_per_second_optimised must be finite, got nan")
    # `memcore devices` once crashed formatting the NaN rate; now the same line.
    assert error_line("devices", "--device-file", "nan.toml") == (
        2, "memcore devices: error: nan.toml: device 'my-board': ops_per_second_optimised must be finite, got nan")


def test_unknown_device():
    assert error_line("check", TINY_INT8, "--device", "nosuch") == (2, "memcore check: error: unknown device 'nosuch'; known: esp32, esp32-psram, esp32s3, nucleo-l4r5zi, cortex-m4 (see `memcore devices`)")  # noqa: E501


def test_bad_device_file_toml(here):
    (here / "bad.toml").write_text("[my-board\ndescription = 'x'\n")
    assert error_line("check", TINY_INT8, "--device-file", "bad.toml") == (
        2, "memcore check: error: bad.toml: not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 10)")  # noqa: E501


# --- the board (a fake one behind socket://, firmware_tests/fakeboard.py) -----------------

def _fakeboard():
    sys.path.insert(0, str(ROOT / "firmware_tests"))
    try:
        import fakeboard
    finally:
        sys.path.remove(str(ROOT / "firmware_tests"))
    return fakeboard


def _budget_lines(version=None):
    """The lines a correct board prints for the budget vectors."""
    from memcore import vectors
    host_version, api = memcore.version()
    lines = ["@memcore " + json.dumps({"schema": "memcore.board/1", "memcore_version": version or host_version,
                                       "api_version": api, "implementation": "fallback", "float_bits": 64,
                                       "firmware": "fake", "platform": "fake"})]
    data = vectors.load(ROOT / "tests" / "vectors" / "budget.json")
    for case in data["cases"]:
        lines.append("@memcore " + json.dumps(dict({"schema": "memcore.vector-result/1", "file": "budget",
                                                    "case": case["name"]},
                                                   **vectors.outcome(memcore, data["function"], case))))
    lines.append("@memcore " + json.dumps({"schema": "memcore.vector-end/1", "cases": len(lines) - 1}))
    return lines


def _fake_board_url(mode, version=None):
    """socket:// URL of a FakeBoard in a thread that prints the budget vectors' results."""
    FakeBoard = _fakeboard().FakeBoard
    lines = _budget_lines(version)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def serve():
        conn, _ = server.accept()
        try:
            FakeBoard(lambda: conn.recv(1), conn.sendall, mode, lines).run()
        except OSError:
            pass
        conn.close()
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return "socket://127.0.0.1:%d" % server.getsockname()[1]


@pytest.fixture
def source_tree(monkeypatch):
    """`memcore hil` finds the shared vectors through the source tree it runs from; point
    it at this checkout, so these tests also pass against an installed (non-editable)
    memcore, as in .ci/steps/40-py-asan.sh and 50-python-tests.sh."""
    import memcore.hil.parity
    monkeypatch.setattr(memcore.hil.parity, "repo_root", lambda: ROOT)


def _hil(url, tmp_path):
    return memcore_cli("hil", "--port", url, "--no-deploy", "--vectors", "budget", "--timeout", "5",
                       "--transcripts", tmp_path)


def _one_line(text):
    return " ".join(text.split())


def test_board_not_answering(tmp_path, source_tree):
    code, out, err = _hil(_fake_board_url("silent"), tmp_path)
    assert code == 2 and out == ""
    line = re.sub(r"\[transcript: .*\]", "[transcript: …]", err.strip())
    assert line == "memcore hil: error: timed out waiting for the raw REPL prompt [transcript: …]"


def test_board_rebooted_mid_run(tmp_path, source_tree):
    code, out, err = _hil(_fake_board_url("reset"), tmp_path)
    assert code == 2 and err == ""
    text = _one_line(out)
    # The results that arrived before the reset are kept and compared.
    assert "run did not complete: 5 cases compared, 6 differences" in text
    assert _one_line("BoardRebooted: board rebooted (saw b'ets Jun  8 2016')") in text


def test_version_mismatch(tmp_path, source_tree):
    code, out, err = _hil(_fake_board_url("normal", version="0.0.9"), tmp_path)
    assert code == 2 and err == ""
    assert "board runs another memcore: not compared: 0 cases compared, 0 differences" in out
    host, api = memcore.version()
    assert "error: board runs memcore 0.0.9 (API %d), host %s (API %d): not compared" % (api, host, api) in out


# --- hostile boards (firmware_tests/fakeboard.py replaying a script on a pty) ---------------

def _hil_script(rows, tmp_path):
    """`memcore hil` against a board that prints `rows` (strings, or {"repeat"...} floods)."""
    board = _fakeboard().FakeBoardOnPty({"run": [r + "\r\n" if isinstance(r, str) else r for r in rows]})
    try:
        code, out, err = memcore_cli("hil", "--port", board.name, "--no-deploy", "--vectors", "budget",
                                     "--timeout", "20", "--transcripts", tmp_path)
    finally:
        board.close()
    assert "Traceback" not in out + err
    return code, _one_line(out), err


def _forged(line):
    return line.replace('"required_bytes": 68,', '"required_bytes": 69,')


def test_board_result_duplicated_by_a_forged_line(tmp_path, source_tree):
    good = _budget_lines()
    code, out, err = _hil_script([good[0], _forged(good[1]), good[1]] + good[2:], tmp_path)
    assert code == 2 and err == ""
    assert "the board's lines broke the protocol: 11 cases compared, 1 differences" in out
    assert ("ProtocolError: transcript line 7: case 'spec1-batch2' of 'budget' reported again (first on line 6)"
            in out)


def test_board_result_forged_inside_a_printed_line(tmp_path, source_tree):
    good = _budget_lines()
    code, out, err = _hil_script([good[0], _forged(good[1]), "print: " + good[1]] + good[2:], tmp_path)
    assert code == 2 and err == ""
    assert "board and host differ: 11 cases compared, 1 differences" in out
    assert "1 line(s) of console noise ignored" in out


def test_board_result_field_of_the_wrong_type(tmp_path, source_tree):
    good = _budget_lines()
    code, out, err = _hil_script([good[0], good[1].replace('"file": "budget"', '"file": ["budget"]')] + good[2:],
                                 tmp_path)
    assert code == 2
    assert ("ProtocolError: transcript line 6: memcore.vector-result/1 line: field 'file' must be a string of "
            "at most 4096 characters, got ['budget']") in out


def test_board_result_nested_100000_deep(tmp_path, source_tree):
    good = _budget_lines()
    deep = good[1][:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    code, out, err = _hil_script([good[0], deep] + good[2:], tmp_path)
    assert code == 2
    assert "ProtocolError: transcript line 6: line of 200275 characters, longer than the 65536 allowed" in out
    shallow = good[1][:-1] + ', "x": ' + "[" * 9 + "]" * 9 + "}"
    code, out, err = _hil_script([good[0], shallow] + good[2:], tmp_path)
    assert code == 2 and "transcript line 6: JSON nested more than 8 deep" in out


def test_board_text_with_rich_markup(tmp_path, source_tree):
    good = _budget_lines()
    code, out, err = _hil_script([good[0].replace('"firmware": "fake"', '"firmware": "[/][red]forged"'),
                                  good[1].replace('"spec1-batch2"', '"[bold]x[/bold]"')] + good[2:], tmp_path)
    assert code == 2 and err == ""
    assert "[/][red]forged" in out and "[bold]x[/bold]" in out


def test_board_flooding_the_line(tmp_path, source_tree):
    good = _budget_lines()
    code, out, err = _hil_script([good[0], {"repeat": "flood " * 10 + "\r\n", "bytes": 3_000_000}] + good[1:],
                                 tmp_path)
    assert code == 2
    assert "ProtocolError: the code printed 3003016 bytes, more than the 1048576 the harness keeps; the rest was dropped" in out  # noqa: E501


def _monitor(boot, tmp_path, seconds=0.5):
    board = _fakeboard().FakeBoardOnPty({"boot": boot, "after": "listen", "reset_first": True})
    try:
        code, out, err = memcore_cli("monitor", "--port", board.name, "--reset", "--seconds", seconds,
                                     "--transcripts", tmp_path)
    finally:
        board.close()
    assert "Traceback" not in out + err
    return code, out, re.sub(r"\[transcript: .*\]", "[transcript: …]", err.strip())


def test_monitor_forged_fits_after_a_real_does_not_fit(tmp_path):
    fakeboard = _fakeboard()
    fits, does_not_fit = fakeboard.BOOT_REPORTS
    code, out, err = _monitor([fakeboard.ROM_LOG.decode(), "@memcore " + json.dumps(does_not_fit) + "\r\n",
                               "@memcore " + json.dumps(dict(fits, model="person-detect")) + "\r\n"], tmp_path)
    assert code == 2
    assert err == ("memcore monitor: error: transcript line 9: a second report in one boot (the boot check's is "
                   "line 8): not the board's verdict [transcript: …]")
    assert "does not fit" in out


def test_monitor_model_name_with_rich_markup(tmp_path):
    fakeboard = _fakeboard()
    report = dict(fakeboard.BOOT_REPORTS[1], model="[/][green]fits")
    code, out, err = _monitor([fakeboard.ROM_LOG.decode(), "@memcore " + json.dumps(report) + "\r\n"], tmp_path)
    assert code == 1 and err == ""
    assert "boot report: [/][green]fits — does not fit" in out


# --- hostile device files --------------------------------------------------------------------

def _device_file(name, extra="", **keys):
    table = {"description": '"x"', "available_bytes": "900_000", "ops_per_second_reference": "2e7",
             "ops_per_second_optimised": "2e8", "latency_budget_seconds": "0.05"}
    table.update(keys)
    pathlib.Path(name).write_text(
        "[my-board]\n" + "".join("%s = %s\n" % kv for kv in table.items()) + extra
        + "[my-board.regions.ram]\nsize_bytes = 1_048_576\nread_bytes_per_second = 1e9\n"
          "[my-board.regions.flash]\nsize_bytes = 4_194_304\nread_bytes_per_second = 4e7\n")
    return error_line("check", TINY_INT8, "--device", "my-board", "--device-file", name)


def test_device_file_nested_3000_deep(here):
    assert _device_file("deep.toml", "a = " + "[" * 3000 + "]" * 3000 + "\n") == (
        2, "memcore check: error: deep.toml: brackets or braces nested more than 4 deep; a device file needs 2")


def test_device_file_region_of_the_wrong_type(here):
    assert _device_file("list.toml", arena_region="[]") == (2, "memcore check: error: list.toml: device 'my-board': arena_region must be the name of one of its regions (ram, flash), got []")  # noqa: E501


def test_device_file_arena_in_flash(here):
    assert _device_file("flash.toml", arena_region='"flash"', available_bytes="100_000") == (2, "memcore check: error: flash.toml: device 'my-board': arena_region 'flash' cannot hold the activation arena: flash is read-only (use ram or psram or memory)")  # noqa: E501


def test_device_file_more_free_at_boot_than_in_all(here):
    assert _device_file("boot.toml", available_bytes_at_boot="1_000_000") == (2, "memcore check: error: boot.toml: device 'my-board': available_bytes_at_boot 1000000 is more than available_bytes 900000 (what is free at boot is part of what the heap grows to)")  # noqa: E501


def test_device_file_description_not_text(here):
    assert _device_file("desc.toml", description="[]") == (2, "memcore check: error: desc.toml: device 'my-board': description must be one line of text of at most 200 characters, got []")  # noqa: E501


def test_device_file_unknown_key(here):
    code, line = _device_file("typo.toml", "avaliable_bytes_at_boot = 1\n")
    assert code == 2
    assert line.startswith("memcore check: error: typo.toml: device 'my-board': unknown key 'avaliable_bytes_at_boot' (known: description, available_bytes, ")  # noqa: E501


# --- tampered descriptors on the board script -------------------------------------------------

def _boot_check(here, tamper):
    """The one line memcore_boot.main() prints for a tampered kws_dscnn_int8 descriptor."""
    from memcore import descriptor
    d = descriptor.describe(memcore.load(str(ROOT / "tests" / "models" / "kws_dscnn_int8.tflite")))
    tamper(d)
    (here / "model.json").write_text(json.dumps(d))
    sys.path.insert(0, str(ROOT / "micropython"))
    try:
        import memcore_boot
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report = memcore_boot.main("model.json")
    finally:
        sys.path.remove(str(ROOT / "micropython"))
    (line,) = out.getvalue().splitlines()
    assert report is None, line
    return line


def test_descriptor_with_another_weights_placement(here):
    def psram(d):
        d.update(weights_placement="psram")
        d["fallback"].update(weights_bytes=1_000_000, model_in_arena_bytes=0)
    assert _boot_check(here, psram) == '@memcore {"schema":"memcore.report-error/1","error":"ValueError: weights_placement must be \\"ram\\" or \\"flash\\", got \'psram\'"}'  # noqa: E501


def test_descriptor_of_the_wrong_shape(here):
    assert _boot_check(here, lambda d: d.update(fallback=[1])) == '@memcore {"schema":"memcore.report-error/1","error":"ValueError: fallback must be an object, got [1]"}'  # noqa: E501
    assert _boot_check(here, lambda d: d.update(host=[1])) == '@memcore {"schema":"memcore.report-error/1","error":"ValueError: host must be an object, got [1]"}'  # noqa: E501


def test_descriptor_too_big_for_the_board(here):
    def ten_megabytes(d):
        d["model"] = ""
        d["model"] = "m" * (10_000_000 - len(json.dumps(d)))
    assert _boot_check(here, ten_megabytes) == '@memcore {"schema":"memcore.report-error/1","error":"ValueError: model.json is 10000000 bytes; the board reads at most 32768"}'  # noqa: E501
    def many(d):
        d["fallback"]["buffers"] = {"sizes": [16] * 600, "first_use": [0] * 600, "last_use": [0] * 600}
    assert _boot_check(here, many) == '@memcore {"schema":"memcore.report-error/1","error":"ValueError: buffers.sizes has 600 entries; the board checks at most 512"}'  # noqa: E501


def _micropython(folder, code, scripts=True):
    """stdout of MicroPython (the PyPI unix port, 110 KiB heap) running `code` in `folder`
    (with the device scripts copied there first, unless `scripts` is False)."""
    import subprocess
    for p in (ROOT / "micropython").glob("*.py") if scripts else ():
        (folder / p.name).write_text(p.read_text())
    proc = subprocess.run([sys.executable, "-m", "micropython_unix", "-X", "heapsize=110K", "-c", code],
                          cwd=folder, capture_output=True, text=True, timeout=60,
                          env={"MICROPYPATH": ".", "PATH": "/usr/bin:/bin"})
    return proc.stdout + proc.stderr


def test_boot_without_a_working_boot_check(tmp_path):
    """boot.py goes on booting whatever happens to the check's own script."""
    for p in (ROOT / "micropython").glob("*.py"):
        (tmp_path / p.name).write_text(p.read_text())
    (tmp_path / "memcore_boot.py").write_text("def check(:\n")
    out = _micropython(tmp_path, "exec(open('boot.py').read())\nprint('booted')", scripts=False)
    assert out.splitlines() == ['@memcore {"schema":"memcore.report-error/1","error":"boot.py: SyntaxError: invalid syntax"}', "booted"]  # noqa: E501
    (tmp_path / "memcore_boot.py").unlink()
    out = _micropython(tmp_path, "exec(open('boot.py').read())\nprint('booted')", scripts=False)
    assert out.splitlines() == ['@memcore {"schema":"memcore.report-error/1","error":"boot.py: ImportError: no module named \'memcore_boot\'"}', "booted"]  # noqa: E501


def test_app_raising_importerror_is_the_apps_error(tmp_path):
    from memcore import descriptor
    d = descriptor.describe(memcore.load(str(ROOT / "tests" / "models" / "tiny_mlp_int8.tflite")))
    (tmp_path / "model.json").write_text(json.dumps(d))
    (tmp_path / "app.py").write_text("import tflm_runtime_not_installed\n")
    out = _micropython(tmp_path, "exec(open('boot.py').read())\nexec(open('main.py').read())")
    assert "memcore: app.py failed: ImportError: no module named 'tflm_runtime_not_installed'" in out
    assert "no app.py to start" not in out
    (tmp_path / "app.py").unlink()
    out = _micropython(tmp_path, "exec(open('boot.py').read())\nexec(open('main.py').read())")
    assert "memcore: the model fits (" in out and "bytes of headroom); no app.py to start" in out


# --- hostile ONNX files ----------------------------------------------------------------------

def _conv_onnx(name, group, weight_in):
    w = numpy_helper.from_array(np.ones((4, weight_in, 3, 3), np.float32), "w")
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], group=group)], "g",
                              [_value("x", [1, 4, 8, 8])], [_value("y", [1, 4, 6, 6])], [w])
    pathlib.Path(name).write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                                   .SerializeToString())


def test_onnx_conv_group_invalid(here):
    _conv_onnx("group0.onnx", 0, 4)
    assert error_line("check", "group0.onnx") == (
        2, "memcore check: error: group0.onnx: node 0 '' (Conv): attribute 'group' must be at least 1, got 0")
    _conv_onnx("group3.onnx", 3, 1)
    assert error_line("check", "group3.onnx") == (2, "memcore check: error: group3.onnx: node 0 '' (Conv): group 3 does not split 4 input channels into groups of 1 (weight shape [4, 1, 3, 3]) and 4 output channels evenly")  # noqa: E501


def test_onnx_tensor_written_twice(here):
    _onnx("twice.onnx", [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Sigmoid", ["x"], ["y"])],
          [_value("x", [1, 4])], [_value("y", [1, 4])])
    assert error_line("check", "twice.onnx") == (2, "memcore check: error: twice.onnx: node 1 '' (Sigmoid) writes tensor 'y', which is already written by node 0 '' (Relu)")  # noqa: E501


def test_onnx_node_writing_an_initializer(here):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["c"]), helper.make_node("Add", ["x", "c"], ["y"])],
                              "g", [_value("x", [1, 4])], [_value("y", [1, 4])],
                              [numpy_helper.from_array(np.ones((1, 4), np.float32), "c")])
    pathlib.Path("init.onnx").write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                                          .SerializeToString())
    assert error_line("check", "init.onnx") == (
        2, "memcore check: error: init.onnx: node 0 '' (Relu) writes tensor 'c', which is already an initializer")
    _onnx("input.onnx", [helper.make_node("Relu", ["y"], ["x"]), helper.make_node("Relu", ["x"], ["y"])],
          [_value("x", [1, 4])], [_value("y", [1, 4])])
    assert error_line("check", "input.onnx") == (
        2, "memcore check: error: input.onnx: node 0 '' (Relu) writes tensor 'x', which is already a graph input")


def test_onnx_tensor_too_big_for_64_bits(here):
    d = 2**31 - 1
    _onnx("huge.onnx", [helper.make_node("Relu", ["x"], ["y"])], [_value("x", [d, d, d])], [_value("y", [d, d, d])])
    assert error_line("check", "huge.onnx") == (2, "memcore check: error: huge.onnx: tensor 'x' of shape [2147483647, 2147483647, 2147483647] does not fit in 64 bits of bytes")  # noqa: E501


def _external_onnx(path, location):
    from onnx import external_data_helper
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    external_data_helper.set_external_data(w, location)
    w.ClearField("raw_data")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [_value("x", [1, 4])],
                              [_value("y", [1, 4])], [w])
    pathlib.Path(path).write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                                   .SerializeToString())


def test_onnx_external_data(here):
    (here / "models").mkdir()
    (here / "models" / "w.bin").write_bytes(b"\0" * 64)
    (here / "w.bin").write_bytes(b"\0" * 8)  # another w.bin in the working directory is never read
    _external_onnx("models/ext.onnx", "w.bin")
    code, out, err = memcore_cli("check", "models/ext.onnx")
    assert code in (0, 1) and err == ""
    _external_onnx("abs.onnx", "/etc/passwd")
    assert error_line("check", "abs.onnx") == (2, "memcore check: error: abs.onnx: constant tensor 'w': external data '/etc/passwd' is an absolute path; it must be a file in the model's folder")  # noqa: E501
    _external_onnx("models/up.onnx", "../w.bin")
    assert error_line("check", "models/up.onnx") == (2, "memcore check: error: models/up.onnx: constant tensor 'w': external data '../w.bin' leaves the model's folder")  # noqa: E501
    _external_onnx("models/gone.onnx", "gone.bin")
    code, line = error_line("check", "models/gone.onnx")
    assert code == 2 and line.startswith("memcore check: error: models/gone.onnx: constant tensor 'w': external data 'gone.bin' is not a file in the model's folder ")  # noqa: E501


def test_onnx_model_past_the_node_limit(here, monkeypatch):
    from memcore import onnx_import
    monkeypatch.setattr(onnx_import, "MAX_NODES", 3)
    _onnx("long.onnx", [helper.make_node("Relu", ["t%d" % i], ["t%d" % (i + 1)]) for i in range(4)],
          [_value("t0", [1, 4])], [_value("t4", [1, 4])])
    assert error_line("check", "long.onnx") == (2, "memcore check: error: long.onnx: 4 nodes; memcore reads models of at most 3")  # noqa: E501


# --- the table itself -----------------------------------------------------------

def _rows():
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and "::" in cells[-1]:
            rows.append(cells)
    return rows


def _strings_in(path, test_name):
    """Every string constant in the test function (adjacent literals already joined)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == test_name:
            return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return None


def test_every_row_names_a_test_that_asserts_its_message():
    rows = _rows()
    assert len(rows) >= 14
    kinds = " ".join(r[0].lower() for r in rows)
    for kind in ("truncated", "wrong format", "corrupted", "unsupported operator", "dynamic shape",
                 "several subgraphs", "overflow", "negative batch", "nan", "unknown device", "toml",
                 "not answering", "rebooted", "version mismatch"):
        assert kind in kinds, kind
    for row in rows:
        test_ids = re.findall(r"`([\w/]+\.py::\w+)`", row[-1])
        assert test_ids, row[0]
        strings = []
        for test_id in test_ids:
            file, name = test_id.split("::")
            found = _strings_in(ROOT / file, name)
            assert found is not None, "%s names %s, which does not exist" % (row[0], test_id)
            strings += found
        # Every message the row quotes (paths and versions elided with …) is in its tests.
        cell = row[-2]
        quotes = re.findall(r"``(.+?)``", cell) + re.findall(r"`([^`]+)`", re.sub(r"``.+?``", "", cell))
        for quoted in (q for q in quotes if len(q) >= 25):
            pieces = [p.strip() for p in quoted.split("…") if p.strip()]
            assert all(any(p in s for s in strings) for p in pieces), (row[0], quoted)
