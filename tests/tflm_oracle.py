"""The live oracle: measure any .tflite model's arena with TFLM itself.

Runs the PyPI `tflite-micro` interpreter (a test dependency) and reads its
RecordingMicroAllocator report, so a new model needs no hand-copied numbers:

    measure("model.tflite")          -> {"total", "head", "tail", "categories", "ok", "error"}
    min_arena_bisect("model.tflite") -> smallest arena (bytes) that allocates
    min_arena_search("model.tflite", guess) -> the same, fewer probes when it is near guess
    min_arena_fast("model.tflite", guess)   -> the same, searched in one long-lived child and
                                              confirmed (N allocates, N-1 does not) in fresh ones
    probe("model.tflite", n)         -> the child's exit status at an n-byte arena

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


def _failure_text(text):
    """What TFLM said when it refused a model: its log and the exception, without the
    allocator's report lines."""
    lines = [l.strip() for l in text.splitlines()
             if l.strip() and not l.startswith("[RecordingMicroAllocator]")]
    return "\n".join(lines)


def measure(path, arena_bytes=2 * 1024 * 1024):
    returncode, text = _run(path, arena_bytes, report=True)
    result = parse_report(text)
    result["ok"] = returncode == 0
    result["error"] = None if returncode == 0 else (_failure_text(text) or "exit status %d" % returncode)
    return result


# Exit status of a probe: 0 allocated, 3 TFLM refused the arena (an exception in the
# child); anything else (a negative status is a signal, e.g. -11 for SIGSEGV) is a crash.
ALLOCATED, REFUSED = 0, 3


def probe(path, arena_bytes):
    """The child's exit status for one construction + AllocateTensors at arena_bytes."""
    return _run(path, arena_bytes, report=False)[0]


def allocates(path, arena_bytes):
    """True iff construction + AllocateTensors succeed; a crash counts as failure."""
    return probe(path, arena_bytes) == ALLOCATED


def min_arena_bisect(path, lo=0, hi=None, probes=None):
    """Smallest arena size, to the byte, for which allocation succeeds.  With a list as
    `probes`, every probe's (arena bytes, exit status) is appended to it."""
    def ok(n):
        status = probe(path, n)
        if probes is not None:
            probes.append((n, status))
        return status == ALLOCATED

    if hi is None:
        hi = measure(path)["total"] + 4096
    while not ok(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def min_arena_search(path, guess, probes=None, probe_fn=None):
    """Smallest arena size, to the byte, for which allocation succeeds, found by galloping
    away from `guess` (steps 16, 32, 64 ... bytes) until the answer is bracketed, then
    bisecting.  The same answer as min_arena_bisect, in about 8 probes instead of 17 when
    the minimum is within a few hundred bytes of the guess (it usually is of the total).
    probe_fn(n) -> exit status replaces a fresh child per probe."""
    def ok(n):
        status = (probe_fn or (lambda m: probe(path, m)))(n)
        if probes is not None:
            probes.append((n, status))
        return status == ALLOCATED

    step = 16
    if ok(guess):
        hi, lo = guess, guess - step
        while lo > 0 and ok(lo):
            hi, step = lo, step * 2
            lo = max(0, hi - step)
    else:
        lo, hi = guess, guess + step
        while not ok(hi):
            lo, step = hi, step * 2
            hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


_WORKER = r"""
import sys
from tflite_micro.python.tflite_micro import runtime
data = open(sys.argv[1], "rb").read()
for line in sys.stdin:
    try:
        interpreter = runtime.Interpreter.from_bytes(data, arena_size=int(line))
        status = 0
    except Exception:
        status = 3
    interpreter = None
    sys.stdout.write("%d\n" % status)
    sys.stdout.flush()
"""


class ProbeWorker:
    """One child that constructs an interpreter per arena size it is sent: a probe costs
    milliseconds instead of a process start.  A crash ends the child; it is restarted for
    the next probe and the crash is reported as that probe's status."""

    def __init__(self, path):
        self.path, self.child = os.fspath(path), None

    def __call__(self, arena_bytes):
        if self.child is None:
            self.child = subprocess.Popen([PYTHON, "-c", _WORKER, self.path], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.child.stdin.write("%d\n" % arena_bytes)
        self.child.stdin.flush()
        line = self.child.stdout.readline()
        if line:
            return int(line)
        status = self.child.wait()
        self.child = None
        return status if status not in (ALLOCATED, REFUSED) else -1

    def close(self):
        if self.child is not None:
            self.child.stdin.close()
            self.child.wait()
            self.child = None


def min_arena_fast(path, guess, probes=None):
    """min_arena_search in one long-lived child; every probe that crashed there is repeated
    in a fresh child (whose status counts), and the answer's defining pair of probes
    (N allocates, N-1 does not) is repeated in fresh children too.  If a fresh child ever
    disagrees with the worker, the whole search is redone with fresh children.  Returns
    (minimum, how): how is "worker" or "fresh"."""
    worker = ProbeWorker(path)
    fresh_status = {}
    disagreed = []

    def worker_then_fresh(n):
        status = worker(n)
        if status in (ALLOCATED, REFUSED):
            return status
        fresh_status[n] = probe(path, n)
        if fresh_status[n] == ALLOCATED:
            disagreed.append(n)
        return fresh_status[n]

    search = []
    try:
        minimum = min_arena_search(path, guess, search, probe_fn=worker_then_fresh)
    finally:
        worker.close()
    for n in (minimum, minimum - 1):
        if n not in fresh_status:
            fresh_status[n] = probe(path, n)
    if probes is not None:
        probes.extend(search)
    if not disagreed and fresh_status[minimum] == ALLOCATED and fresh_status[minimum - 1] != ALLOCATED:
        return minimum, "worker"
    fresh = []
    minimum = min_arena_search(path, guess, fresh)
    if probes is not None:
        probes.extend(fresh)
    return minimum, "fresh"


_OUTPUTS = r"""
import sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime
path, arena, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
interpreter = runtime.Interpreter.from_file(path, arena_size=arena)
rng = np.random.default_rng(seed)
i, inputs = 0, []
while True:
    try:
        d = interpreter.get_input_details(i)
    except Exception:
        break
    dtype = np.dtype(d["dtype"])
    shape = tuple(int(n) for n in d["shape"])
    if dtype.kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
    elif dtype == np.bool_:
        x = rng.integers(0, 2, shape).astype(np.bool_)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, shape).astype(dtype)
    interpreter.set_input(x, i)
    inputs.append(x)
    i += 1
interpreter.invoke()
outputs, k = [], 0
while True:
    try:
        interpreter.get_output_details(k)
    except Exception:
        break
    outputs.append(np.array(interpreter.get_output(k)))
    k += 1
np.savez(out, *outputs)
"""


def outputs(path, seed, out_file, arena_bytes=2 * 1024 * 1024):
    """The model's outputs (a list of numpy arrays) for random inputs drawn from `seed`,
    computed by TFLM in a child process (the arrays pass through `out_file`, an .npz)."""
    import numpy as np
    args = [PYTHON, "-c", _OUTPUTS, os.fspath(path), str(int(arena_bytes)), str(seed), os.fspath(out_file)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("TFLM could not run %s: %s" % (path, _failure_text(done.stdout + done.stderr)))
    with np.load(out_file) as z:
        return [z["arr_%d" % i] for i in range(len(z.files))]


def assert_runs_as_memcore_says(source, out, after, folder):
    """TFLM on `out` (a file memcore wrote from `source`): measures memcore's head and
    total (`after`, memcore's TflmArena for `out`), allocates at memcore's recommended
    arena and not 16 B below its minimum (each probe in its own process), and computes
    `source`'s outputs bit for bit on two random inputs.  Returns the measurement."""
    measured = measure(out)
    assert measured["ok"], measured["error"]
    assert (measured["head"], measured["total"]) == (after.head_bytes, after.total_bytes)
    assert probe(out, after.recommended_arena_bytes) == ALLOCATED
    assert probe(out, after.minimum_arena_bytes - 16) != ALLOCATED
    for seed in (1, 2):
        want = outputs(source, seed, folder / "want.npz")
        got = outputs(out, seed, folder / "got.npz", arena_bytes=after.recommended_arena_bytes)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
    return measured
