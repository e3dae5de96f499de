"""`memcore monitor` shows the boot reports a board prints, and its reboots."""
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from boardkit import HERE, REPO
from memcore.cli import build_parser, main
from memcore.hil import SimulatedBoard


def test_monitor_shows_boot_reports_and_the_reboot(tmp_path, fake_lines_file, capsys):
    board = SimulatedBoard(argv=[sys.executable, str(HERE / "fakeboard.py"), "boot", str(fake_lines_file)],
                           transcript_dir=tmp_path)
    try:
        # the monitor must be listening before the board boots: opening a port drops old
        # input; import every command first so that the monitor opens its port at once
        build_parser()
        threading.Timer(1.0, board.spawn).start()
        start = time.monotonic()
        rc = main(["monitor", "--port", board.port_name, "--count", "2", "--seconds", "10",
                   "--transcripts", str(tmp_path)])
        assert time.monotonic() - start < 5
    finally:
        board.close()
    out = capsys.readouterr().out
    assert rc == 1  # one of the two models does not fit
    assert "kws-small" in out and "fits" in out and "41,234 B" in out
    assert "person-detect" in out and "does not fit" in out and "-198,766 B" in out
    assert "board rebooted" in out and "POWERON_RESET" in out


def test_monitor_without_reports_says_so(tmp_path, capsys):
    rc = main(["monitor", "--port", "loop://", "--seconds", "0.2", "--transcripts", str(tmp_path)])
    assert rc == 2   # no verdict from the board is a board error, never "does not fit"
    assert "no boot report received" in capsys.readouterr().err


@pytest.mark.parametrize("model, budget, heap, status, words", [
    ("kws_dscnn_int8.tflite", None, "300K", 0, "fits"),
    ("kws_dscnn_int8.tflite", "50ms", "300K", 3, "fits, but misses its budget"),
    ("resnet8_float32.tflite", None, "300K", 1, "does not fit"),   # 304 KiB of weights in RAM
])
def test_monitor_gives_each_boot_verdict_with_the_checks_status(tmp_path, capsys, board_options, real_board, model,
                                                                 budget, heap, status, words):
    """The deploy path end to end on a simulated board: export (with the user's budget),
    the boot scripts on its filesystem, `memcore sim`, then `memcore monitor`."""
    if real_board:
        pytest.skip("starts a simulated board of its own")
    fs = tmp_path / "fs"
    fs.mkdir()
    for name in ("boot.py", "main.py", "memcore_boot.py", "memcore_vectors.py", "memcore_fallback.py",
                 "memcore_exact.py"):
        shutil.copy(REPO / "micropython" / name, fs / name)
    export = ["export", REPO / "tests" / "models" / model, "--device", "esp32", "-o", fs / "model.json"]
    assert main([str(a) for a in export + (["--max-latency", budget] if budget else [])]) == 0
    port_file = tmp_path / "port.txt"
    sim = subprocess.Popen([sys.executable, "-m", "memcore", "sim", "--fs", str(fs), "--heapsize", heap,
                            "--port-file", str(port_file)]
                           + (["--micropython", board_options["micropython"]] if board_options["micropython"] else []),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        rc = main(["monitor", "--port", port_file.read_text().strip(), "--reset", "--count", "1", "--seconds", "30",
                   "--quiet", "--transcripts", str(tmp_path)])
    finally:
        sim.send_signal(signal.SIGINT)
        sim.wait(30)
    out = capsys.readouterr().out
    assert rc == status, out
    assert re.search(r"^boot report: %s — %s$" % (re.escape(model), re.escape(words)), out, re.M), out
