"""Text from a model file, a board or the command line never steers the terminal: control
characters (ESC's clear-screen and window-title sequences, a carriage return over a line,
an 8-bit CSI, a right-to-left override) are spelled as escapes wherever memcore prints it."""
import json

from onnx import helper

import hostile
from cli_helpers import memcore_cli

STEERING = "\x1b\x07\x9b\u202e\r"


def _raw(text):
    return [c for c in STEERING if c in text]


def _onnx_with_a_tensor_named(tmp_path, name):
    path = tmp_path / "named.onnx"
    nodes = [helper.make_node("Relu", ["x"], [name]), helper.make_node("Relu", [name], ["y"])]
    path.write_bytes(hostile.onnx_bytes(nodes, [hostile._vi("x", [1, 4])], [hostile._vi("y", [1, 4])], []))
    return path


def test_plan_shows_a_hostile_tensor_name_spelled(tmp_path):
    name = "\x1b[2J\x1b]0;owned\x07h"
    code, out, err = memcore_cli("plan", _onnx_with_a_tensor_named(tmp_path, name))
    assert code == 0 and _raw(out + err) == []
    assert "\\x1b[2J\\x1b]0;owned\\x07h" in out


def test_json_output_keeps_the_name_as_escapes(tmp_path):
    name = "\x9b2J\u202eh"
    code, out, err = memcore_cli("plan", _onnx_with_a_tensor_named(tmp_path, name), "--json")
    assert code == 0 and _raw(out) == []
    assert name in [b["name"] for b in json.loads(out)["buffers"]]   # the same JSON, read back


def test_an_error_line_quoting_a_hostile_file_name(tmp_path):
    code, out, err = memcore_cli("check", tmp_path / "\x1b[2Jmodel\rFITS.tflite")
    assert code == 2 and _raw(err) == [] and len(err.strip().splitlines()) == 1
    assert "\\x1b[2Jmodel\\x0dFITS.tflite" in err


def test_monitor_shows_a_hostile_model_name_and_console_line_spelled(tmp_path):
    fakeboard, _ = hostile._fakeboard()
    _, does_not_fit = fakeboard.BOOT_REPORTS
    report = dict(does_not_fit, model="\x1b[2J\x1b]0;owned\x07kws")
    code, out, err = hostile.monitor_on([fakeboard.ROM_LOG.decode(), "\x1b[1A\x1b[2Kfits\r\n",
                                         "@memcore " + json.dumps(report) + "\r\n"], tmp_path, 0.5)
    assert code == 1 and _raw(out + err) == []
    assert "boot report: \\x1b[2J\\x1b]0;owned\\x07kws" in out and "\\x1b[1A\\x1b[2Kfits" in out


def test_check_shows_a_hostile_model_file_name_spelled(tmp_path):
    path = tmp_path / "\x1b]0;owned\x07\u202emodel.tflite"
    path.write_bytes((hostile.MODELS / "tiny_mlp_int8.tflite").read_bytes())
    code, out, err = memcore_cli("check", path)
    assert code in (0, 1) and _raw(out + err) == []
    assert "\\x1b]0;owned\\x07\\u202emodel.tflite" in out
