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
ERROR_SCHEMA = "memcore.report-error/1"
PREFIX = "@memcore "
DESCRIPTOR_SCHEMA = "memcore.model/1"
GRANULE = 16  # bytes: the resolution of the largest-block search (the GC's block size)

# The last report, for main.py after boot.py ran the check (None: it could not be made),
# and whether a check ran at all since the board started.
last_report = None
checked = False


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


# ---- the descriptor is untrusted: every field the check uses is validated first --------

#: bounds for a board with a 110 KiB heap: the file is read whole and its lists kept
MAX_DESCRIPTOR_BYTES = 32 * 1024
MAX_BUFFERS = 512
MAX_BYTES = 1 << 48          # any byte count (256 TiB): far past any board, well inside 64 bits
MAX_SCOPE = 1 << 20          # operator scopes
MAX_TEXT = 128               # characters of the model's name
PLACEMENTS = ("ram", "flash")


def _fail(what, value):
    text = repr(value)
    raise ValueError("%s, got %s" % (what, text if len(text) <= 40 else text[:40] + "..."))


def _count(value, name, most=MAX_BYTES):
    if type(value) is not int or value < 0 or value > most:
        _fail("%s must be an integer from 0 to %d" % (name, most), value)
    return value


def _table(d, name):
    value = d.get(name)
    if type(value) is not dict:
        _fail("%s must be an object" % name, value)
    return value


def _counts(buffers, name):
    values = buffers.get(name)
    if type(values) is not list:
        _fail("buffers.%s must be a list" % name, values)
    if len(values) > MAX_BUFFERS:
        raise ValueError("buffers.%s has %d entries; the board checks at most %d" % (name, len(values), MAX_BUFFERS))
    most = MAX_BYTES if name == "sizes" else MAX_SCOPE
    for i in range(len(values)):
        v = values[i]
        if type(v) is not int or v < 0 or v > most:
            _fail("buffers.%s[%d] must be an integer from 0 to %d" % (name, i, most), v)
    return values


def validate(d):
    """The values the check uses, from a descriptor that has been checked field by field:
    (model, sizes, first_use, last_use, alignment, weights bytes, placement, overhead bytes,
    tail bytes, host arena tflm, host arena best).  ValueError names the first bad field."""
    if type(d) is not dict or d.get("schema") != DESCRIPTOR_SCHEMA:
        raise ValueError("not a memcore model descriptor (schema %s)" % DESCRIPTOR_SCHEMA)
    model = d.get("model")
    if model is not None and (type(model) is not str or len(model) > MAX_TEXT):
        _fail("model must be a name of at most %d characters" % MAX_TEXT, model)
    buffers = _table(d, "buffers")
    sizes, first, last = _counts(buffers, "sizes"), _counts(buffers, "first_use"), _counts(buffers, "last_use")
    if not len(sizes) == len(first) == len(last):
        raise ValueError("buffers.sizes, first_use and last_use must be as long as each other, got %d, %d and %d"
                         % (len(sizes), len(first), len(last)))
    for i in range(len(first)):
        if first[i] > last[i]:
            raise ValueError("buffer %d is first used at %d, after its last use %d" % (i, first[i], last[i]))
    alignment = d.get("alignment", 16)
    if type(alignment) is not int or not 1 <= alignment <= 4096 or alignment & (alignment - 1):
        _fail("alignment must be a power of two from 1 to 4096", alignment)
    weights = _table(d, "weights")
    weights_bytes = _count(weights.get("bytes"), "weights.bytes")
    placement = weights.get("placement")
    if type(placement) is not str or placement not in PLACEMENTS:
        _fail('weights.placement must be "ram" or "flash"', placement)
    runtime = _table(d, "runtime")
    overhead = _count(runtime.get("overhead_bytes"), "runtime.overhead_bytes")
    tail = _count(runtime.get("tail_bytes"), "runtime.tail_bytes")
    host = d.get("host", {})
    if type(host) is not dict:
        _fail("host must be an object", host)
    host_tflm = host.get("arena_tflm_bytes")
    host_best = host.get("arena_best_bytes")
    for name, value in (("host.arena_tflm_bytes", host_tflm), ("host.arena_best_bytes", host_best)):
        if value is not None:
            _count(value, name)
    return model, sizes, first, last, alignment, weights_bytes, placement, overhead, tail, host_tflm, host_best


def read_descriptor(path):
    """The descriptor at `path`, parsed; its size is checked before it is read."""
    import os
    size = os.stat(path)[6]
    if size > MAX_DESCRIPTOR_BYTES:
        raise ValueError("%s is %d bytes; the board reads at most %d" % (path, size, MAX_DESCRIPTOR_BYTES))
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError("%s: not JSON" % path)
    text = None
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
    tests).  Prints the report line when `report`, and returns the report as a dict.
    A descriptor that fails validation raises ValueError before anything is computed."""
    global last_report, checked
    checked = True
    last_report = None
    mc = module or memcore
    start = _ticks()
    d = read_descriptor(descriptor) if isinstance(descriptor, str) else descriptor
    (model, sizes, first, last, alignment, weights_bytes, placement, overhead, tail, host_tflm,
     host_best) = validate(d)
    d = None
    tflm = mc.plan(sizes, first, last, alignment, "tflm")
    best = mc.plan(sizes, first, last, alignment, "best")
    arena_tflm, arena_best, lower = tflm.arena_bytes, best.arena_bytes, tflm.lower_bound_bytes
    tflm = best = sizes = first = last = None
    free = idf = None
    if available is None:
        available, free, idf = measure()
        if available is None:
            available = 0
    weights_in_ram = weights_bytes if placement == "ram" else 0
    need = mc.budget(weights_in_ram, 1, 1, arena_tflm, overhead, available)
    version = mc.version()[0]
    fields = [
        ("schema", SCHEMA),
        ("model", model),
        ("device", device or device_name()),
        ("memcore_version", version),
        ("implementation", getattr(mc, "IMPLEMENTATION", "c")),
        ("firmware", firmware()),
        ("weights_bytes", weights_bytes),
        ("weights_placement", placement),
        ("arena_tflm_bytes", arena_tflm),
        ("arena_best_bytes", arena_best),
        ("arena_lower_bound_bytes", lower),
        ("runtime_overhead_bytes", tail),
        ("recommended_arena_bytes", arena_tflm + overhead),
        ("required_bytes", need.required_bytes),
        ("available_bytes", available),
        ("headroom_bytes", need.headroom_bytes),
        ("verdict", "fits" if need.fits else "does_not_fit"),
        ("gc_free_bytes", free),
        ("idf_largest_free_bytes", idf),
        # The board's plan against the host's, from the descriptor: a difference means
        # another memcore, or a descriptor from another model.
        ("host_agrees", host_tflm == arena_tflm and host_best == arena_best),
        ("check_seconds", _seconds_since(start)),
    ]
    result = dict(fields)
    if report:
        line = PREFIX + _encode(fields)
        fields = None
        print(line)
    last_report = result
    return result


def error_line(exc):
    """The one report line of a check that could not be made: what went wrong, briefly."""
    try:
        text = "%s: %s" % (type(exc).__name__, exc)
        if len(text) > 200:
            text = text[:200] + "..."
        return PREFIX + '{"schema":"%s","error":%s}' % (ERROR_SCHEMA, json.dumps(text))
    except Exception:  # no memory left even for the message
        return PREFIX + '{"schema":"%s","error":"the check failed; no memory to say why"}' % ERROR_SCHEMA


def main(path="model.json"):
    """The boot check as boot.py runs it: exactly one report line, whatever the
    descriptor holds; returns the report, or None when the check could not be made."""
    global last_report, checked
    try:
        return check(path)  # prints its line last: nothing after it can fail
    except Exception as exc:  # a missing or hostile descriptor, no memory: say so and stay up
        last_report = None
        checked = True
        print(error_line(exc))
        return None


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "model.json")
