"""The boot-time fit check: will this board's model fit in the memory it has free *now*?

    import memcore_boot
    report = memcore_boot.check("model.json")     # prints one `@memcore {...}` line
    if report["verdict"] == "fits": ...            # only then load the model

Reads the descriptor written by `memcore export MODEL -o model.json`, plans the activation
arena on the board with memcore (the C module, or the pure-Python fallback on stock
firmware), measures the memory really available and prints one report line,
schema "memcore.report/1" (fields in micropython/README.md; the host's `memcore check
--json` uses the same names).  Runs on MicroPython and CPython.

Available memory is the largest single block the heap can hand out right now, found by
trying allocations (a bisection on bytearray sizes).  gc.mem_free() is only an upper bound:
it adds up free blocks that may be scattered, and on ESP32 it counts heap that MicroPython
could still grow into from the ESP-IDF heap, whose own largest free block
(esp32.idf_heap_info) bounds what one growth step can add.
"""
import gc
import json
import sys
import time

try:
    import memcore
except ImportError:
    import memcore_fallback as memcore

SCHEMA = "memcore.report/1"
PREFIX = "@memcore "
DESCRIPTOR_SCHEMA = "memcore.model/1"
GRANULE = 16  # bytes: the resolution of the largest-block search (the GC's block size)

# The last report, for main.py after boot.py ran the check.
last_report = None


def _ticks():
    try:
        return time.ticks_us(), True
    except AttributeError:
        return time.perf_counter(), False


def _seconds_since(start):
    now, micro = _ticks()
    if micro:
        return time.ticks_diff(now, start[0]) / 1e6
    return now - start[0]


def device_name():
    try:
        import os
        return os.uname().machine
    except (ImportError, AttributeError):
        impl = sys.implementation
        return getattr(impl, "_machine", None) or sys.platform


def firmware():
    impl = sys.implementation
    if impl.name == "micropython":
        return sys.version.split("; ", 1)[-1]
    return "%s %s" % (impl.name, ".".join(str(v) for v in impl.version[:3]))


def idf_largest_free_block():
    """The ESP-IDF heap's largest free block for data (bytes), or None off ESP32."""
    try:
        import esp32
    except ImportError:
        return None
    try:
        return max(info[2] for info in esp32.idf_heap_info(esp32.HEAP_DATA))
    except (AttributeError, ValueError):
        return None


def largest_block(upper):
    """The largest bytearray the heap can allocate now, to GRANULE bytes, at most `upper`."""
    lo, hi = 0, upper
    while hi - lo > GRANULE:
        mid = (lo + hi) // 2
        try:
            block = bytearray(mid)
        except MemoryError:
            hi = mid
            continue
        block = None
        lo = mid
        gc.collect()
    return lo


def measure():
    """(available, gc free, IDF largest free block or None) in bytes: available is the
    largest block the heap can give the model now (a successful allocation, not a sum)."""
    gc.collect()
    try:
        free = gc.mem_free()
    except AttributeError:  # CPython: no MicroPython heap to measure
        return None, None, None
    idf = idf_largest_free_block()
    return largest_block(free), free, idf


def read_descriptor(path):
    with open(path) as f:
        data = json.load(f)
    if not isinstance(data, dict) or data.get("schema") != DESCRIPTOR_SCHEMA:
        raise ValueError("%s: not a memcore model descriptor" % path)
    return data


def _encode(report):
    # Key order fixed, so the line reads the same on every board.
    from memcore_vectors import encode
    import json as _json
    return "{" + ",".join(_json.dumps(k) + ":" + encode(v) for k, v in report) + "}"


def check(descriptor="model.json", available=None, device=None, report=True, module=None):
    """Runs the fit check for the descriptor at path `descriptor` (or an already-read
    dict); `available` overrides the measured bytes and `module` the memcore in use (for
    tests).  Prints the report line when `report`, and returns the report as a dict."""
    global last_report
    mc = module or memcore
    start = _ticks()
    d = read_descriptor(descriptor) if isinstance(descriptor, str) else descriptor
    buffers = d["buffers"]
    alignment = d.get("alignment", 16)
    tflm = mc.plan(buffers["sizes"], buffers["first_use"], buffers["last_use"], alignment, "tflm")
    best = mc.plan(buffers["sizes"], buffers["first_use"], buffers["last_use"], alignment, "best")
    arena_tflm, arena_best, lower = tflm.arena_bytes, best.arena_bytes, tflm.lower_bound_bytes
    tflm = best = buffers = None
    weights = d["weights"]
    placement = weights.get("placement", "ram")
    runtime = d["runtime"]
    overhead = runtime["overhead_bytes"]
    host = d.get("host") or {}
    model = d.get("model")
    d = None
    free = idf = None
    if available is None:
        available, free, idf = measure()
        if available is None:
            available = 0
    weights_in_ram = weights["bytes"] if placement == "ram" else 0
    need = mc.budget(weights_in_ram, 1, 1, arena_tflm, overhead, available)
    version = mc.version()[0]
    fields = [
        ("schema", SCHEMA),
        ("model", model),
        ("device", device or device_name()),
        ("memcore_version", version),
        ("implementation", getattr(mc, "IMPLEMENTATION", "c")),
        ("firmware", firmware()),
        ("weights_bytes", weights["bytes"]),
        ("weights_placement", placement),
        ("arena_tflm_bytes", arena_tflm),
        ("arena_best_bytes", arena_best),
        ("arena_lower_bound_bytes", lower),
        ("runtime_overhead_bytes", runtime["tail_bytes"]),
        ("recommended_arena_bytes", arena_tflm + overhead),
        ("required_bytes", need.required_bytes),
        ("available_bytes", available),
        ("headroom_bytes", need.headroom_bytes),
        ("verdict", "fits" if need.fits else "does_not_fit"),
        ("gc_free_bytes", free),
        ("idf_largest_free_bytes", idf),
        # The board's plan against the host's, from the descriptor: a difference means
        # another memcore, or a descriptor from another model.
        ("host_agrees", host.get("arena_tflm_bytes") == arena_tflm and host.get("arena_best_bytes") == arena_best),
        ("check_seconds", _seconds_since(start)),
    ]
    if report:
        print(PREFIX + _encode(fields))
    last_report = dict(fields)
    return last_report


def main(path="model.json"):
    try:
        return check(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        # No descriptor, or a bad one: say so on the same channel and stay up.
        print(PREFIX + '{"schema":"memcore.report-error/1","error":%s}' % json.dumps(
            "%s: %s" % (type(exc).__name__, exc)))
        return None


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "model.json")
