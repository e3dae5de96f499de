"""The boot-time fit check: will this board's model fit in the memory it has free *now*?

    import memcore_boot
    report = memcore_boot.check("model.tflite")   # prints one `@memcore {...}` line
    if report["verdict"] == "fits": ...            # only then load the model

With memcore's C module in the firmware, the board checks the model file itself: the C
core reads it from the filesystem a window at a time and makes the whole check the host's
`memcore check` makes (the same C), against the memory it measures free now.  The device
and deployment come from the descriptor `memcore export MODEL --device D -o model.json`
wrote beside it (model.json for model.tflite); without one, the board checks its memory
only, with its own target and the weights read into RAM.

Stock firmware (no C module) cannot read the model: it checks with the descriptor alone —
the activation buffers it plans with the pure-Python fallback, and what the host computed
for the rest (descriptor_check) — and refuses a descriptor whose model file on the board
has another size or CRC-32.  With the C module and no model file, the C module plans the
descriptor's buffers the same way.

Each route imports only what it needs: the C module when the firmware has it (nothing to
compile, whether the board reads model.tflite or only model.json), memcore_fallback only
on firmware without the module.  The memory is measured before the descriptor is read.

Either way it prints one report line, schema "memcore.report/1", with the field names of
the host's `memcore check --json` (the C core's, csrc/src/fields.c).  Runs on MicroPython
and CPython.

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

# The C module when the firmware has it: nothing to compile, nothing else imported, the
# memory measured as the application will find it.  Stock firmware needs the fallback,
# compiled here, first, its compiler's garbage collected before and after so that its
# code stays together at the bottom of the heap; the check measures after it, because
# that code stays loaded while the board runs: measured before it, the report promised
# the model memory the fallback then holds (on the QEMU Cortex-M3 board with an ESP32's
# 110 KiB heap, 53,552 B measured before, 37,431 B left after the check).
gc.collect()
try:
    import memcore
except ImportError:
    import memcore_fallback as memcore
gc.collect()
# the report line's encoder, compiled now too: nothing is compiled once the memory is measured
from memcore_vectors import encode  # noqa: E402
gc.collect()

SCHEMA = "memcore.report/1"
ERROR_SCHEMA = "memcore.report-error/1"
PREFIX = "@memcore "
DESCRIPTOR_SCHEMA = "memcore.model/3"
GRANULE = 16  # bytes: the resolution of the largest-block search (the GC's block size)


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


#: a board's and a deployment's fields: names of the C core's tables, scalar values
MAX_FIELDS = 64


def _scalars(d, name):
    table = _table(d, name)
    if len(table) > MAX_FIELDS:
        raise ValueError("%s has %d fields; at most %d" % (name, len(table), MAX_FIELDS))
    for key in table:
        value = table[key]
        if type(key) is not str or not 0 < len(key) <= 64:
            _fail("%s keys must be field names" % name, key)
        if type(value) not in (int, float, bool, str) or (type(value) is str and len(value) > 64):
            _fail("%s.%s must be a number, a bool or a short name" % (name, key), value)
    return table


def _flag(table, name):
    value = table.get(name)
    if type(value) is not bool:
        _fail("%s must be true or false" % name, value)
    return value


def validate(d, with_fallback=True):
    """The descriptor's values, every field the check uses checked first: a dict with
    model, file_bytes, file_crc32, board, config, placement (all a board whose C module
    reads the model file itself takes: without `with_fallback`), and the fallback's sizes,
    first_use, last_use, alignment, batch, weights_bytes, model_in_arena_bytes,
    runtime_bytes, runtime_overhead_bytes, other_memory_fits, budgets_fit, offline_head
    (TFLM's head of a model with an offline plan, or None), and the host's host_tflm,
    host_best.  ValueError names the first bad field."""
    if type(d) is not dict or d.get("schema") != DESCRIPTOR_SCHEMA:
        raise ValueError("not a memcore model descriptor (schema %s: export it again with this memcore)"
                         % DESCRIPTOR_SCHEMA)
    model = d.get("model")
    if model is not None and (type(model) is not str or len(model) > MAX_TEXT):
        _fail("model must be a name of at most %d characters" % MAX_TEXT, model)
    out = {"model": model}
    for name in ("file_bytes", "file_crc32"):
        value = d.get(name)
        out[name] = None if value is None else _count(value, name, 0xffffffff if name == "file_crc32" else MAX_BYTES)
    out["board"] = _scalars(d, "board")
    out["config"] = _scalars(d, "config")
    placement = d.get("weights_placement")
    if type(placement) is not str or placement not in PLACEMENTS:
        _fail('weights_placement must be "ram" or "flash"', placement)
    out["placement"] = placement
    if not with_fallback:  # the fallback's lists grow with the model: the stock firmware's
        return out
    fallback = _table(d, "fallback")
    buffers = _table(fallback, "buffers")
    sizes, first, last = _counts(buffers, "sizes"), _counts(buffers, "first_use"), _counts(buffers, "last_use")
    if not len(sizes) == len(first) == len(last):
        raise ValueError("buffers.sizes, first_use and last_use must be as long as each other, got %d, %d and %d"
                         % (len(sizes), len(first), len(last)))
    for i in range(len(first)):
        if first[i] > last[i]:
            raise ValueError("buffer %d is first used at %d, after its last use %d" % (i, first[i], last[i]))
    out["sizes"], out["first_use"], out["last_use"] = sizes, first, last
    alignment = fallback.get("alignment", 16)
    if type(alignment) is not int or not 1 <= alignment <= 4096 or alignment & (alignment - 1):
        _fail("alignment must be a power of two from 1 to 4096", alignment)
    out["alignment"] = alignment
    out["batch"] = _count(fallback.get("batch"), "fallback.batch", 1 << 20)
    if out["batch"] < 1:
        _fail("fallback.batch must be at least 1", out["batch"])
    for name in ("weights_bytes", "model_in_arena_bytes", "runtime_bytes", "runtime_overhead_bytes"):
        out[name] = _count(fallback.get(name), "fallback." + name)
    # Loaded, the whole model file is (TFLM reads it in place): at least its weights.
    loaded = out["model_in_arena_bytes"]
    if 0 < loaded < out["weights_bytes"]:
        _fail("fallback.model_in_arena_bytes must be 0 or at least the weights' bytes", loaded)
    if (loaded != 0) != (placement == "ram") and out["weights_bytes"] != 0:
        raise ValueError("weights_placement %r disagrees with fallback.model_in_arena_bytes" % placement)
    head = fallback.get("offline_plan_head_bytes")
    out["offline_head"] = None if head is None else _count(head, "fallback.offline_plan_head_bytes")
    out["other_memory_fits"] = _flag(fallback, "other_memory_fits")
    out["budgets_fit"] = _flag(fallback, "budgets_fit")
    host = d.get("host", {})
    if type(host) is not dict:
        _fail("host must be an object", host)
    for key, name in (("host_tflm", "arena_tflm_bytes"), ("host_best", "arena_best_bytes")):
        value = host.get(name)
        out[key] = None if value is None else _count(value, "host." + name)
    return out


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
    return "{" + ",".join(json.dumps(k) + ":" + encode(v) for k, v in report) + "}"


def reads_models(mc):
    """Whether `mc` is memcore's C module for MicroPython, which reads model files (the
    fallback cannot; on CPython `memcore` is the host package, another API)."""
    return sys.implementation.name == "micropython" and \
        getattr(mc, "IMPLEMENTATION", "c-module") in ("c-module", "native-mpy") and \
        hasattr(mc, "check")


def guess_target():
    """The board's TFLM target when no descriptor says it: from the platform MicroPython
    reports (names as the C core's mc_target_name)."""
    platform = sys.platform
    machine = device_name()
    if platform == "esp32":
        return "esp32"
    if "RV32" in machine or "riscv" in machine.lower():
        return "riscv32"
    if platform in ("linux", "darwin", "win32"):
        return "host64" if sys.maxsize > 2 ** 32 else "armhf"
    return "cortex-m"


def _file_crc32(path, size):
    """(bytes, CRC-32) of the file at path, read in small chunks (never held whole)."""
    import binascii
    crc, total = 0, 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(512)
            if not chunk:
                break
            total += len(chunk)
            crc = binascii.crc32(chunk, crc)
            if total > size:  # longer than described: no need to read on
                break
    return total, crc & 0xffffffff


def _same_model(v, path):
    """ValueError unless the model file at path is the one the descriptor describes."""
    import os
    try:
        size = os.stat(path)[6]
    except OSError:
        return  # no model file here: the descriptor is all the board has
    if v["file_bytes"] is not None and size != v["file_bytes"]:
        raise ValueError("the descriptor describes %s of %d bytes, but %s here is %d bytes: export it again"
                         % (v["model"], v["file_bytes"], path, size))
    if v["file_crc32"] is not None:
        _, crc = _file_crc32(path, size)
        if crc != v["file_crc32"]:
            raise ValueError("the descriptor describes %s with CRC-32 %d, but %s here has %d: export it again"
                             % (v["model"], v["file_crc32"], path, crc))


def _descriptor_path(model):
    """model.json for model.tflite."""
    dot = model.rfind(".")
    return (model[:dot] if dot > model.rfind("/") else model) + ".json"


def _exists(path):
    import os
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _measure(available):
    free = idf = None
    if available is None:
        available, free, idf = measure()
        if available is None:
            available = 0
    return available, free, idf


def _emit(fields, report):
    global last_report
    result = dict(fields)
    if report:
        line = PREFIX + _encode(fields)
        fields = None
        print(line)
    last_report = result
    return result


def _header(model, device, mc, source):
    return [
        ("schema", SCHEMA),
        ("model", model),
        ("device", device or device_name()),
        ("memcore_version", mc.version()[0]),
        ("implementation", getattr(mc, "IMPLEMENTATION", "c-module")),
        ("firmware", firmware()),
        ("source", source),
    ]


def descriptor_check(arena_tflm_bytes, batch, runtime_bytes, model_in_arena_bytes, available_bytes,
                     other_memory_fits, budgets_fit):
    """The board's part of the C check for a board that cannot read the model: the
    descriptor gives what the host computed (memcore export) and the board adds the
    memory it has free.  Returns (recommended_arena_bytes, required_bytes, headroom_bytes,
    verdict), as mc_check_graph computes them:
      recommended = batch x TFLM's head + what TFLM needs beyond it (once per interpreter)
      required    = recommended + the model file loaded into the arena's region
      headroom    = available - required
      verdict     "does_not_fit" when memory is short here or in another region,
                  "misses_budget" when it fits but misses the latency or battery budget."""
    recommended = batch * arena_tflm_bytes + runtime_bytes
    required = recommended + model_in_arena_bytes
    headroom = available_bytes - required
    if headroom < 0 or not other_memory_fits:
        verdict = "does_not_fit"
    elif not budgets_fit:
        verdict = "misses_budget"
    else:
        verdict = "fits"
    return recommended, required, headroom, verdict


def check_descriptor(descriptor, available=None, device=None, report=True, module=None, model_path=None):
    """The check from a descriptor alone (firmware without the C module, or no model file on
    the board): plans its buffers, adds what the host computed (descriptor_check, the
    arithmetic the C check does) to the memory free now.  The memory is measured before
    the fallback is imported (stock firmware), so its compilation cannot shrink it."""
    mc = module or memcore
    start = _ticks()
    # Measured before the descriptor is read (its parsing garbage is not the model's loss).
    available, free, idf = _measure(available)
    d = read_descriptor(descriptor) if isinstance(descriptor, str) else descriptor
    v = validate(d)
    d = None
    _same_model(v, model_path or v["model"] or "")
    tflm = mc.plan(v["sizes"], v["first_use"], v["last_use"], v["alignment"], "tflm")
    arena_tflm, lower = tflm.arena_bytes, tflm.lower_bound_bytes
    tflm = None
    if arena_tflm > lower and getattr(mc, "IMPLEMENTATION", None) == "fallback":
        # best may need the fallback's exact search: compiled now, before best's plan
        # builds its lists (compiling takes ~24 KB for a moment on the 64-bit unix port;
        # inside plan, among those lists, a 110 KiB heap could not give it, and compiled
        # for every model it would cost the application memory after release():
        # micropython/README.md).  release() unloads it.
        gc.collect()
        try:
            import memcore_exact  # noqa: F401
        except ImportError:  # not on the board: plan says so if it needs it
            pass
    best = mc.plan(v["sizes"], v["first_use"], v["last_use"], v["alignment"], "best")
    arena_best = best.arena_bytes
    if v["offline_head"] is not None:  # TFLM places the buffers around the model's offline plan
        arena_tflm = v["offline_head"]
    tflm = best = None
    v["sizes"] = v["first_use"] = v["last_use"] = None
    recommended, required, headroom, verdict = descriptor_check(
        arena_tflm, v["batch"], v["runtime_bytes"], v["model_in_arena_bytes"], available,
        v["other_memory_fits"], v["budgets_fit"])
    fields = _header(v["model"], device, mc, "descriptor") + [
        ("weights_bytes", v["weights_bytes"]),
        ("weights_placement", v["placement"]),
        ("loaded_model_bytes", v["model_in_arena_bytes"]),
        ("arena_tflm_bytes", arena_tflm),
        ("arena_best_bytes", arena_best),
        ("arena_lower_bound_bytes", lower),
        ("runtime_overhead_bytes", v["runtime_overhead_bytes"]),
        ("runtime_bytes", v["runtime_bytes"]),
        ("recommended_arena_bytes", recommended),
        ("required_bytes", required),
        ("available_bytes", available),
        ("headroom_bytes", headroom),
        ("verdict", verdict),
        ("gc_free_bytes", free),
        ("idf_largest_free_bytes", idf),
        # The board's plan against the host's, from the descriptor: a difference means
        # another memcore, or a descriptor from another model.
        ("host_agrees", v["host_tflm"] == arena_tflm and v["host_best"] == arena_best),
        ("check_seconds", _seconds_since(start)),
    ]
    return _emit(fields, report)


def check(model="model.tflite", available=None, device=None, report=True, module=None, profile=None):
    """Runs the fit check and prints its report line when `report`; returns the report as
    a dict.  `model` is the model file (the C module checks it itself), or a descriptor
    (a path ending .json, or a dict) for the descriptor-only check.  `profile` is the
    descriptor with the device and deployment (default: model.json beside model.tflite);
    `available` overrides the measured bytes, `module` the memcore in use (for tests).
    A bad descriptor or model raises ValueError before anything is printed."""
    global last_report, checked
    checked = True
    last_report = None
    if isinstance(model, dict) or model.endswith(".json"):
        return check_descriptor(model, available, device, report, module)
    mc = module or memcore
    start = _ticks()
    if profile is None and _exists(_descriptor_path(model)):
        profile = _descriptor_path(model)
    if not reads_models(mc):
        # Stock firmware: the model cannot be read here, the descriptor must stand in.
        if profile is None:
            raise ValueError("this firmware has no memcore C module to read %s; export a descriptor beside it: "
                             "memcore export %s --device <board> -o %s" % (model, model, _descriptor_path(model)))
        return check_descriptor(profile, available, device, report, mc, model_path=model)
    if profile is not None:
        v = validate(read_descriptor(profile) if isinstance(profile, str) else profile, False)
        board, config, placement = v["board"], dict(v["config"]), v["placement"]
        v = None
    else:
        # No descriptor: the board checks its memory only, with the weights read into RAM
        # as MicroPython reads a model file.
        board, config, placement = {"target": guess_target()}, {"weights_region": "ram"}, "ram"
    available, free, idf = _measure(available)
    config["available_bytes"] = available
    result = mc.check(model, board, config)
    board = config = None
    name = model[model.rfind("/") + 1:]
    fields = _header(name, device, mc, "model") + [("weights_placement", placement)]
    for key in result:
        fields.append((key, result[key]))
    result = None
    fields += [("gc_free_bytes", free), ("idf_largest_free_bytes", idf), ("check_seconds", _seconds_since(start))]
    return _emit(fields, report)


#: what the check loads besides this module, which the application does not need
CHECK_ONLY_MODULES = ("memcore_fallback", "memcore_exact")


def release():
    """Unload the fallback, which only the check needed, so that the application gets
    back the memory its code takes; main.py calls it before it starts app.py.  What
    compiling it interned (its names) stays: MicroPython never frees interned strings."""
    for name in CHECK_ONLY_MODULES:
        if name in sys.modules:
            del sys.modules[name]
    gc.collect()


def error_line(exc):
    """The one report line of a check that could not be made: what went wrong, briefly."""
    try:
        text = "%s: %s" % (type(exc).__name__, exc)
        if len(text) > 200:
            text = text[:200] + "..."
        return PREFIX + '{"schema":"%s","error":%s}' % (ERROR_SCHEMA, json.dumps(text))
    except Exception:  # no memory left even for the message
        return PREFIX + '{"schema":"%s","error":"the check failed; no memory to say why"}' % ERROR_SCHEMA


def main(path=None):
    """The boot check as boot.py runs it: exactly one report line, whatever the model or
    descriptor holds; returns the report, or None when the check could not be made.
    Without a path: model.tflite when the board has it, else the descriptor model.json."""
    global last_report, checked
    try:
        if path is None:
            path = "model.tflite" if _exists("model.tflite") else "model.json"
        return check(path)  # prints its line last: nothing after it can fail
    except Exception as exc:  # a missing or hostile descriptor, no memory: say so and stay up
        last_report = None
        checked = True
        print(error_line(exc))
        return None


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
