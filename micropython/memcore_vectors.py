"""Runs the shared vectors (tests/vectors/*.json, copied to the board) against the memcore
in use and prints one machine-readable line per case.  Runs on MicroPython and CPython.

    import memcore_vectors
    memcore_vectors.main(["memcore_vectors_data/budget.json", ...])   # or a folder

Every line is `@memcore ` + one JSON object whose "schema" says what it is (format in
micropython/README.md; the HIL harness parses exactly this):

    @memcore {"schema":"memcore.board/1","memcore_version":"0.1.0","api_version":7,
              "implementation":"c-module","float_bits":32,"firmware":"...","platform":"esp32"}
    @memcore {"schema":"memcore.vector-result/1","file":"budget","case":"spec1-batch2",
              "fields":{"required_bytes":68,...}}
    @memcore {"schema":"memcore.vector-result/1","file":"budget","case":"negative-batch",
              "error":"batch: a count or size is negative"}
    @memcore {"schema":"memcore.vector-end/1","cases":64,"errors":20}

Floats are written with repr (the shortest text that reads back to the same value), so
nothing is lost; integers exactly; infinity as Infinity (what Python's json reads).
"""
import gc
import json
import sys

# memcore.mpy's code is one block of the heap on most boards (50 KB on a Cortex-M3): the
# garbage of compiling this file and what ran before is collected first, so that it fits
gc.collect()
try:
    import memcore
except ImportError:
    import memcore_fallback as memcore

PREFIX = "@memcore "
HEADER = "memcore.board/1"
RESULT = "memcore.vector-result/1"
END = "memcore.vector-end/1"
DEFAULT_DIRS = ("memcore_vectors_data", "vectors", "tests/vectors")

# Every result field, per function; a function returning a plain value gives {"value": v}.
FIELDS = {
    "budget": ("required_bytes", "headroom_bytes", "parameter_bytes", "activation_bytes", "runtime_bytes",
               "dominant", "fits", "max_batch"),
    "latency": ("fetch_seconds", "compute_seconds", "setup_seconds", "total_seconds", "dominant",
                "saving_if_compute_doubled", "saving_if_bandwidth_doubled",
                "saving_seconds_if_compute_doubled", "saving_seconds_if_bandwidth_doubled"),
    "roofline": ("intensity", "bound", "crossover_batch", "ceiling"),
    "plan": ("arena_bytes", "offsets", "lower_bound_bytes", "strategy", "proven_optimal", "steps"),
    "mlp_training": ("parameters", "gradients", "optimizer_state", "activations", "total", "total_bytes",
                     "activation_share"),
}


# ---- JSON with exact floats, keys in the order given ----------------------------------

def encode(value):
    """JSON text of value; dicts may be given as a list of (key, value) pairs to keep order."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        value = [(k, value[k]) for k in sorted(value)]
        return "{" + ",".join(json.dumps(k) + ":" + encode(v) for k, v in value) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(v) for v in value) + "]"
    return json.dumps(str(value))


class Object:
    """A JSON object whose keys print in the order given: (key, value) pairs."""

    def __init__(self, items):
        self.items = items


def pairs(*items):
    return Object(items)


def _encode_object(items):
    return "{" + ",".join(json.dumps(k) + ":" + (_encode_object(v.items) if isinstance(v, Object) else encode(v))
                          for k, v in items) + "}"


def emit(obj, out=None):
    """Prints (or appends to the list `out`) one `@memcore ` line for an Object or pairs."""
    line = PREFIX + _encode_object(obj.items if isinstance(obj, Object) else obj)
    if out is None:
        print(line)
    else:
        out.append(line)
    return line


# ---- what is running ---------------------------------------------------------------

def implementation(module=None):
    return getattr(module or memcore, "IMPLEMENTATION", "c-module")


def float_bits():
    """32 on single-precision firmware (most microcontroller ports), 64 on double."""
    return 64 if 1.0 + 2.0 ** -40 != 1.0 else 32


def firmware():
    impl = sys.implementation
    if impl.name == "micropython":
        # sys.version is "3.4.0; MicroPython v1.28.0 on 2026-04-06"; _machine names the board.
        text = sys.version.split("; ", 1)[-1]
        machine = getattr(impl, "_machine", None)
        return text + ("; " + machine if machine else "")
    return "%s %s" % (impl.name, ".".join(str(v) for v in impl.version[:3]))


def header(module=None):
    module = module or memcore
    version, api = module.version()
    return pairs(("schema", HEADER), ("memcore_version", version), ("api_version", api),
                 ("implementation", implementation(module)), ("float_bits", float_bits()),
                 ("firmware", firmware()), ("platform", sys.platform))


# ---- running the cases ----------------------------------------------------------------

def outcome(module, function, case):
    """("fields", {...}) or ("error", text) for one case."""
    try:
        result = getattr(module, function)(**case["args"])
    except (ValueError, TypeError) as exc:
        return "error", str(exc)
    names = FIELDS.get(function)
    if names is None:
        return "fields", pairs(("value", result))
    return "fields", pairs(*[(name, _plain(getattr(result, name))) for name in names])


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _stem(path):
    name = path.replace("\\", "/").split("/")[-1]
    return name[:-5] if name.endswith(".json") else name


def _listdir(folder):
    import os
    try:
        return ["%s/%s" % (folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".json")]
    except OSError:
        return None


def vector_files(paths=None):
    """The vector files to run: a list of paths, one folder, or the first default folder."""
    if isinstance(paths, str):
        found = _listdir(paths)
        return found if found is not None else [paths]
    if paths:
        return list(paths)
    for folder in DEFAULT_DIRS:
        found = _listdir(folder)
        if found:
            return found
    return []


def run(paths=None, module=None, out=None):
    """Runs every case of every file; prints (or appends to `out`) the header, one line per
    case and the end line.  Returns the number of cases."""
    import gc
    module = module or memcore
    emit(header(module), out)
    cases = errors = 0
    for path in vector_files(paths):
        with open(path) as f:
            data = json.load(f)
        function = data["function"]
        stem = _stem(path)
        for case in data["cases"]:
            kind, value = outcome(module, function, case)
            cases += 1
            errors += kind == "error"
            emit((("schema", RESULT), ("file", stem), ("case", case["name"]), (kind, value)), out)
        data = None
        gc.collect()
    emit((("schema", END), ("cases", cases), ("errors", errors)), out)
    return cases


def main(paths=None):
    return run(paths)


if __name__ == "__main__":
    main(sys.argv[1:] or None)
