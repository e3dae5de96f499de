"""`memcore monitor` shows the boot reports a board prints, and its reboots."""
import sys
import threading
import time

from boardkit import HERE
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
