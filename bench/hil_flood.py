"""How fast the harness drains a board that floods the line, and how much it keeps.

    python bench/hil_flood.py [--megabytes 1,10,100]

A fake board (firmware_tests/fakeboard.py, a process on a pseudo-terminal, as the
simulated board runs) answers the vector runner with N MB of console noise, then every
result line.  Printed per size: seconds to the end of the run, MB/s, the run's outcome
(a flood past the 1 MiB the harness keeps fails with a ProtocolError, never "ok") and the
harness process's peak memory.  The fake board writes as fast as the pty takes it.
"""
import argparse
import json
import pathlib
import resource
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware_tests"))

from boardkit import HERE, host_lines  # noqa: E402
from memcore.hil import SimulatedBoard  # noqa: E402
from memcore.hil.parity import compare, run_on_board, vector_names  # noqa: E402


def flood(megabytes, folder):
    good = host_lines()
    script = {"run": [good[0] + "\r\n", {"repeat": "noise " * 12 + "\r\n", "bytes": int(megabytes * 1e6)}, "\r\n"]
              + [line + "\r\n" for line in good[1:]]}
    path = pathlib.Path(folder) / "flood.json"
    path.write_text(json.dumps(script))
    board = SimulatedBoard(argv=[sys.executable, str(HERE / "fakeboard.py"), "script", str(path)],
                           transcript_dir=folder)
    try:
        board.open("flood")
        start = time.monotonic()
        report = compare(run_on_board(board, vector_names(), timeout_s=600, deploy_files=False), vector_names())
        seconds = time.monotonic() - start
    finally:
        board.close()
    return seconds, report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", default="1,10,100")
    args = parser.parse_args()
    print("%8s %9s %8s %-12s %-14s %s" % ("MB", "seconds", "MB/s", "status", "error", "peak RSS MB"))
    with tempfile.TemporaryDirectory() as folder:
        for mb in (float(m) for m in args.megabytes.split(",")):
            seconds, report = flood(mb, folder)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print("%8g %9.2f %8.1f %-12s %-14s %.0f" % (mb, seconds, mb / seconds, report.status,
                                                      report.error_kind, peak))


if __name__ == "__main__":
    main()
