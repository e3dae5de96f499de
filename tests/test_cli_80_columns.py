"""Readable at 80 columns: plan's long tensor names shortened in the middle (whole in
JSON), suggested commands never hard-wrapped on a terminal, every table plain in a pipe."""
import json
import re
import subprocess
import sys

from cli_helpers import child_env, memcore_cli, model, read_pty

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_terminal(*argv, columns=80):
    """`python -m memcore ARGV` on a pseudo-terminal `columns` wide: (status, text as shown)."""
    cmd = [sys.executable, "-m", "memcore", *map(str, argv)]
    env = child_env()
    env.pop("NO_COLOR", None)
    code, out = read_pty(cmd, dict(env, COLUMNS=str(columns), LINES="50", TERM="xterm-256color"))
    return code, ANSI.sub("", out.decode("utf-8")).replace("\r\n", "\n")


def test_suggested_commands_are_never_wrapped_on_a_terminal():
    code, json_out, _ = memcore_cli("check", model("resnet8_float32.tflite"), "--device", "esp32", "--json")
    commands = [s["command"] for s in json.loads(json_out)["suggestions"]]
    assert any(len(c) > 80 for c in commands)      # longer than the terminal: the case that wrapped
    code, text = on_terminal("check", model("resnet8_float32.tflite"), "--device", "esp32")
    assert code == 1
    lines = text.split("\n")
    for command in commands:
        assert "  $ " + command in lines, command   # whole, on one line, nothing after it


def test_plan_shortens_long_names_in_the_middle_and_json_keeps_them_whole():
    code, out, err = memcore_cli("plan", model("kws_dscnn_int8.tflite"))
    assert code == 0
    rows = out.split("\n")
    table = rows[1:rows.index(next(r for r in rows if r.startswith("#: the tensor's index")))]
    assert len(table) > 10 and max(len(r) for r in table) <= 80, max(table, key=len)
    _, data, _ = memcore_cli("plan", model("kws_dscnn_int8.tflite"), "--json")
    names = [b["name"] for b in json.loads(data)["buffers"]]
    assert max(len(n) for n in names) > 300    # fused Keras names, whole in JSON
    long_name = max(names, key=len)
    short = next(r.split()[1] for r in table if "…" in r and long_name.startswith(r.split()[1].split("…")[0]))
    head, tail = short.split("…")
    assert long_name.startswith(head) and long_name.endswith(tail) and len(short) == 24
    assert "shortened in the middle (…); --json has them whole" in out


def test_hil_into_a_file_is_plain_lines(tmp_path):
    report = tmp_path / "hil.txt"
    with open(report, "w") as f:
        run = subprocess.run([sys.executable, "-m", "memcore", "hil", "--vectors", "budget", "--transcripts",
                              str(tmp_path)], stdout=f, stderr=subprocess.PIPE, env=child_env(), timeout=300)
    text = report.read_text(encoding="utf-8")
    assert run.returncode == 0, run.stderr
    assert "board and host agree" in text
    assert not ANSI.search(text) and not re.search("[─━│┃┏┓┗┛┡┩└┘├┤┼╇]", text)
    assert all(line == line.rstrip() for line in text.split("\n"))
    header = next(line for line in text.split("\n") if line.startswith("vector file"))
    assert header.split() == ["vector", "file", "cases", "agreed", "differing", "missing", "exact", "rounded",
                              "moved"]
