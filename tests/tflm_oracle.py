"""The live oracle: measure any .tflite model's arena with TFLM itself.

Runs the PyPI `tflite-micro` interpreter (a test dependency) and reads its
RecordingMicroAllocator report, so a new model needs no hand-copied numbers:

    measure("model.tflite")          -> {"total", "head", "tail", "categories", "ok"}
    min_arena_bisect("model.tflite") -> smallest arena (bytes) that allocates

Every probe runs in a child process: the interpreter's constructor does both
MicroInterpreter construction and AllocateTensors(), and some too-small arenas make it
segfault rather than fail (seen on tiny_mlp_int8 at 1781, 1789 and 1791 bytes).  The
report is printed from C++ and lands on stderr when piped, so both streams are parsed.
"""
import os
import re
import subprocess
import sys

PYTHON = os.environ.get("TFLM_PYTHON", sys.executable)

_CHILD = r"""
import sys
from tflite_micro.python.tflite_micro import runtime
path, arena = sys.argv[1], int(sys.argv[2])
try:
    interpreter = runtime.Interpreter.from_file(path, arena_size=arena)
except Exception as e:
    sys.stderr.write("ALLOC_FAIL %r\n" % (e,))
    sys.exit(3)
if len(sys.argv) > 3:
    interpreter.print_allocations()
"""

_TOTALS = re.compile(r"\[RecordingMicroAllocator\] Arena allocation (total|head|tail) (\d+) bytes")
_CATEGORY = re.compile(r"\[RecordingMicroAllocator\] '([^']+)' used (\d+) bytes with alignment overhead "
                       r"\(requested (\d+) bytes for (\d+) ([^)]*)\)")


def _run(path, arena_bytes, report, timeout=120):
    args = [PYTHON, "-c", _CHILD, os.fspath(path), str(int(arena_bytes))] + (["report"] if report else [])
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + "\n" + done.stderr


def parse_report(text):
    """{"total", "head", "tail": bytes, "categories": {name: (used, requested, count)}}"""
    out = {"categories": {}}
    for line in text.splitlines():
        m = _TOTALS.search(line)
        if m:
            out[m.group(1)] = int(m.group(2))
            continue
        m = _CATEGORY.search(line)
        if m:
            out["categories"][m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return out


def measure(path, arena_bytes=2 * 1024 * 1024):
    returncode, text = _run(path, arena_bytes, report=True)
    result = parse_report(text)
    result["ok"] = returncode == 0
    return result


def allocates(path, arena_bytes):
    """True iff construction + AllocateTensors succeed; a crash counts as failure."""
    return _run(path, arena_bytes, report=False)[0] == 0


def min_arena_bisect(path, lo=0, hi=None):
    """Smallest arena size, to the byte, for which allocation succeeds."""
    if hi is None:
        hi = measure(path)["total"] + 4096
    while not allocates(path, hi):
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if allocates(path, mid):
            hi = mid
        else:
            lo = mid
    return hi
