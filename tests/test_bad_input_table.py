"""docs/bad-input.md, row by row: each kind of bad input and exactly what the user gets.

Each test below runs what its row shows (the CLI in a scratch folder, so file names are
as typed; or the Python call) and asserts the exact text.  The last test reads the table
and checks that every named test exists and contains every message its row quotes, so
the table cannot drift from the tests.
"""
import ast
import importlib.util
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
        2, "memcore check: error: missing.tflite: cannot read the file: No such file or directory")


def test_wrong_format_png(here):
    (here / "picture.tflite").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    assert error_line("check", "picture.tflite") == (2, "memcore check: error: picture.tflite: not a TFLite flatbuffer (no TFL3 identifier at byte 4); the file is truncated, corrupted or in another format")  # noqa: E501


def test_wrong_format_text(here):
    (here / "notes.onnx").write_text("this is a text file, not a model\n")
    assert error_line("check", "notes.onnx") == (2, "memcore check: error: notes.onnx: neither a TFLite flatbuffer nor an ONNX protobuf (truncated, corrupted or another format: Error parsing message with type 'onnx.ModelProto': Wire format was corrupt)")  # noqa: E501


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
    assert error_line("check", "dynamic.onnx") == (2, "memcore check: error: dynamic.onnx: tensor 'x' has a dynamic or unknown dimension 'batch'; memcore needs static shapes (fix the batch size when exporting)")  # noqa: E501


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
    assert error_line("check", TINY_INT8, "--device", "nosuch") == (2, "memcore check: error: unknown device 'nosuch'; known: datacentre, server, phone, microcontroller, esp32, esp32-psram, esp32s3, cortex-m4 (see `memcore devices`)")  # noqa: E501


def test_bad_device_file_toml(here):
    (here / "bad.toml").write_text("[my-board\ndescription = 'x'\n")
    assert error_line("check", TINY_INT8, "--device-file", "bad.toml") == (
        2, "memcore check: error: bad.toml: not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 10)")  # noqa: E501


# --- the board (a fake one behind socket://, firmware_tests/fakeboard.py) -----------------

def _fake_board_url(mode, version=None):
    """socket:// URL of a FakeBoard in a thread that prints the budget vectors' results."""
    sys.path.insert(0, str(ROOT / "firmware_tests"))
    try:
        from fakeboard import FakeBoard
    finally:
        sys.path.remove(str(ROOT / "firmware_tests"))
    from memcore import vectors
    host_version, api = memcore.version()
    lines = ["@memcore " + json.dumps({"schema": "memcore.board/1", "memcore_version": version or host_version,
                                       "api_version": api, "implementation": "python", "float_bits": 64,
                                       "firmware": "fake", "platform": "fake"})]
    data = vectors.load(ROOT / "tests" / "vectors" / "budget.json")
    for case in data["cases"]:
        lines.append("@memcore " + json.dumps(dict({"schema": "memcore.vector-result/1", "file": "budget",
                                                    "case": case["name"]},
                                                   **vectors.outcome(memcore, data["function"], case))))
    lines.append("@memcore " + json.dumps({"schema": "memcore.vector-end/1", "cases": len(lines) - 1}))
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
    assert code == 1 and err == ""
    text = _one_line(out)
    # The results that arrived before the reset are kept and compared.
    assert "run did not complete: 5 cases compared, 6 differences" in text
    assert _one_line("BoardRebooted: board rebooted (saw b'ets Jun  8 2016')") in text


def test_version_mismatch(tmp_path, source_tree):
    code, out, err = _hil(_fake_board_url("normal", version="0.0.9"), tmp_path)
    assert code == 1 and err == ""
    assert "board runs another memcore: not compared: 0 cases compared, 0 differences" in out
    host, api = memcore.version()
    assert "error: board runs memcore 0.0.9 (API %d), host %s (API %d): not compared" % (api, host, api) in out


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
