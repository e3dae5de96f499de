"""One exit-status table for every command: 0 fits, 1 does not fit, 3 misses a budget the
user gave, 2 bad input or a board error; in each command's --help, and given per command."""
import json
import pathlib
import re

import pytest

import memcore
from cli_helpers import memcore_cli
from memcore.cli import build_parser
from memcore.hil import lines
from test_bad_input_table import _fakeboard

ROOT = pathlib.Path(__file__).resolve().parents[1]
KWS = ROOT / "examples" / "kws_dscnn_int8.tflite"
# Read in place from flash, KWS fits the esp32 (loaded, its 49 KiB file does not): the
# budgets below decide its verdict, not its memory.
IN_FLASH = ("--weights-in", "flash")
COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)


def board_report(**check_args):
    """The boot report a board with the C module prints for KWS on the esp32: the host's
    check (the board runs the same C check) with the board script's own fields."""
    data = memcore.check(str(KWS), device="esp32", weights_in="flash", **check_args).to_json()
    report = {k: v for k, v in data.items() if k in lines.SCHEMAS[lines.REPORT] or k == "schema"}
    report.update({"implementation": "c-module", "firmware": "MicroPython v1.99.0-fake", "source": "model",
                   "gc_free_bytes": 110000, "idf_largest_free_bytes": None, "check_seconds": 0.02})
    return lines.validate(report)


def monitor(tmp_path, *reports, seconds=1.0):
    fakeboard = _fakeboard()
    boot = [fakeboard.ROM_LOG.decode()] + ["@memcore %s\r\n" % json.dumps(r) for r in reports]
    board = fakeboard.FakeBoardOnPty({"boot": boot, "after": "listen", "reset_first": True})
    try:
        code, out, err = memcore_cli("monitor", "--port", board.name, "--reset", "--seconds", seconds,
                                     "--count", max(1, len(reports)), "--transcripts", tmp_path)
    finally:
        board.close()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("budget, verdict, status, words", [
    ({}, "fits", 0, "fits"),
    ({"max_latency": 0.05}, "misses_budget", 3, "fits, but misses its budget"),
    ({"batch": 8}, "does_not_fit", 1, "does not fit"),
])
def test_monitor_shows_each_verdict_with_the_checks_exit_status(tmp_path, budget, verdict, status, words):
    report = board_report(**budget)
    assert report["verdict"] == verdict
    code, out, err = monitor(tmp_path, report)
    assert (code, err) == (status, "")
    assert "boot report: kws_dscnn_int8.tflite — " + words in out
    # the same configuration on the host gives the same status
    argv = ["check", KWS, "--device", "esp32", *IN_FLASH] \
        + (["--max-latency", "50ms"] if "max_latency" in budget else []) + (["--batch", "8"] if "batch" in budget else [])
    assert memcore_cli(*argv)[0] == status


def test_monitor_without_a_report_is_a_board_error(tmp_path):
    code, out, err = memcore_cli("monitor", "--port", "loop://", "--seconds", "0.2", "--transcripts", tmp_path)
    assert code == 2
    assert err.startswith("memcore monitor: error: no boot report received")


def test_monitor_board_check_failure_is_a_board_error(tmp_path):
    code, out, err = monitor(tmp_path, {"schema": lines.REPORT_ERROR, "error": "MemoryError: out of memory",
                                        "model": "kws.tflite"})
    assert code == 2
    assert "boot check failed: MemoryError: out of memory" in out


def test_every_command_prints_the_one_table_in_its_help():
    assert len(COMMANDS) >= 12
    for name in COMMANDS:
        code, out, err = memcore_cli(name, "--help")
        assert code == 0, name
        text = re.sub(r"\s+", " ", out)
        for line in ("0 fits (and meets every budget you gave)", "1 does not fit in memory or flash",
                     "3 fits, but misses a latency or battery budget you gave",
                     "2 bad input (arguments, model, device file, a malformed or forged board report) or a board "
                     "error"):
            assert line in text, (name, line)
        assert "`memcore %s`" % name in text, name


def test_every_command_exits_2_on_bad_input(tmp_path):
    """Each command, given a file that is not a model (or a port that is not there)."""
    junk = tmp_path / "junk.tflite"
    junk.write_bytes(b"not a model")
    argv = {"check": [junk], "compare": [junk], "ops": [junk], "plan": [junk], "roofline": [junk, "--device", "esp32"],
            "report": [junk, "-o", tmp_path / "r.html"], "export": [junk], "devices": ["--device-file", junk],
            "verdicts": ["--no-such-option"], "monitor": ["--port", "/dev/ttyUSB-memcore-none"],
            "hil": ["--port", "/dev/ttyUSB-memcore-none"], "sim": ["--firmware", junk],
            "shrink": [junk, "-o", tmp_path / "s.tflite"],
            "firmware-module": ["--arch", "armv7m", "-o", tmp_path / "mpy", "--micropython-src", junk]}
    assert set(argv) == set(COMMANDS)
    for name, args in argv.items():
        code, out, err = memcore_cli(name, *args)
        assert code == 2, (name, out, err)
        assert "Traceback" not in err


def test_compare_exits_with_the_best_boards_verdict(tmp_path):
    resnet = ROOT / "tests" / "models" / "resnet8_float32.tflite"
    assert memcore_cli("compare", KWS)[0] == 0                          # fits every board
    code, out, err = memcore_cli("compare", resnet, "--batch", "64")    # 12 MiB: no board holds it
    assert code == 1 and "no board runs it: it does not fit on any" in out
    code, out, err = memcore_cli("compare", KWS, "--max-latency", "1ms")  # fits, none that fast
    assert code == 3 and "no board runs it within the budgets given" in out
    assert memcore_cli("compare", KWS, "--max-latency", "1ms", "--json")[0] == 3


@pytest.mark.parametrize("argv, status", [([], 0), (["--batch", "64"], 1), (["--max-latency", "1ms"], 3)])
def test_report_exits_with_the_verdict_on_its_device(tmp_path, argv, status):
    page = tmp_path / "r.html"
    code, out, err = memcore_cli("report", KWS, "-o", page, "--device", "esp32", *IN_FLASH, *argv)
    assert code == status == memcore_cli("check", KWS, "--device", "esp32", *IN_FLASH, *argv)[0], err
    assert page.stat().st_size > 10_000


@pytest.mark.parametrize("text", ["50", "0.05", "0", "1e-3"])
def test_a_time_without_its_unit_is_an_error_that_says_so(text):
    code, out, err = memcore_cli("check", KWS, "--max-latency", text)
    assert code == 2
    assert "needs a unit, got the bare number %r: write %sms or %ss" % (text, text, text) in err
    code, out, err = memcore_cli("check", KWS, "--battery", "2Wh", "--battery-life", text)
    assert code == 2 and "needs a unit" in err


@pytest.mark.parametrize("text, seconds", [("50ms", 0.05), ("0.05s", 0.05), ("50 ms", 0.05), ("2s", 2.0),
                                           ("250us", 250e-6)])
def test_a_time_with_its_unit_is_the_budget(text, seconds):
    code, out, err = memcore_cli("check", KWS, *IN_FLASH, "--max-latency", text, "--json")
    data = json.loads(out)
    assert data["budgets"]["latency_seconds"] == pytest.approx(seconds)
    assert data["resources"]["latency"]["limit"] == pytest.approx(seconds)
    assert code == (0 if seconds > data["latency"]["total_seconds"] else 3)


def test_budgets_only_from_the_user(tmp_path):
    """No built-in profile carries a budget; a device file's is used and named as the source."""
    for name in memcore.profiles.builtin_profiles():
        code, out, err = memcore_cli("check", KWS, "--device", name, "--json")
        data = json.loads(out)
        assert "latency" not in data["resources"] and "battery" not in data["resources"], name
        assert data["budgets"]["sources"] == {} and data["latency_budget_seconds"] is None, name
    board = tmp_path / "boards.toml"
    board.write_text((ROOT / "python" / "memcore" / "data" / "devices.toml").read_text(encoding="utf-8")
                     .split("\n[esp32-psram]")[0].replace("[esp32", "[my-esp32")
                     .replace("model_partition = \"vfs\"", "model_partition = \"vfs\"\nlatency_budget_seconds = 0.05",
                              1), encoding="utf-8")
    code, out, err = memcore_cli("check", KWS, "--device", "my-esp32", "--device-file", board, *IN_FLASH, "--json")
    data = json.loads(out)
    assert code == 3 and data["budgets"]["sources"] == {"latency_seconds": "device file %s" % board}
    code, out, err = memcore_cli("check", KWS, "--device", "my-esp32", "--device-file", board, *IN_FLASH)
    assert "budgets: latency 50.0 ms (device file %s)" % board in out
    # the command line overrides it, and says so
    code, out, err = memcore_cli("check", KWS, "--device", "my-esp32", "--device-file", board, *IN_FLASH,
                                 "--max-latency", "none", "--json")
    assert code == 0 and json.loads(out)["budgets"]["sources"] == {}
    code, out, err = memcore_cli("check", KWS, "--device", "esp32", "--per-hour", "60", "--battery", "220mAh@3V",
                                 "--battery-life", "1y", "--json")
    assert json.loads(out)["budgets"]["sources"] == {"inferences_per_hour": "--per-hour", "battery_joules": "--battery",
                                                     "battery_life_seconds": "--battery-life"}


def test_the_docs_table_is_the_one_the_commands_print():
    from memcore import exit_status
    doc = (ROOT / "docs" / "exit-status.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([0-3]) \| (.+) \|$", doc, re.M)
    printed = re.findall(r"^  ([0-3])  (.+)$", exit_status.TABLE, re.M)
    assert rows == printed and len(rows) == 4
    listed = set(re.findall(r"`([\w-]+)`", "".join(re.findall(r"^\| (`[^|]+) \|", doc, re.M))))
    assert listed == set(COMMANDS)
    assert "docs/exit-status.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_commands_without_a_verdict_exit_0_even_for_a_model_that_does_not_fit(tmp_path):
    resnet = ROOT / "tests" / "models" / "resnet8_float32.tflite"
    assert memcore_cli("check", resnet, "--device", "esp32")[0] == 1      # it does not fit the esp32
    for argv in (["ops", resnet, "--device", "esp32"], ["plan", resnet, "--device", "esp32"],
                 ["roofline", resnet, "--device", "esp32", "--max-latency", "1ms"], ["devices"], ["verdicts"],
                 ["export", resnet, "--device", "esp32", "-o", tmp_path / "model.json"]):
        code, out, err = memcore_cli(*argv)
        assert code == 0, (argv, err)


def test_a_bug_is_status_2_never_a_verdict(monkeypatch):
    import memcore.commands.check as check_command
    monkeypatch.setattr(check_command, "report_data", lambda *a: {}["misses_budget"])
    code, out, err = memcore_cli("check", KWS)
    assert code == 2
    assert "KeyError: 'misses_budget'" in err and "memcore check: error: internal error" in err


def test_compare_says_where_its_budgets_came_from():
    code, out, err = memcore_cli("compare", KWS, "--max-latency", "100ms")
    assert "budgets: latency 100 ms (--max-latency)" in out.splitlines()
    code, out, err = memcore_cli("compare", KWS)
    assert any(line.startswith("budgets: none given") for line in out.splitlines())
