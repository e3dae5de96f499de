"""Hostile inputs for everything memcore reads from outside, and the outcome each must get.

One generator per kind of untrusted input; each attempt ends in one outcome:

  accepted           a valid input, read and answered (or a mutant that happens to be valid)
  refused            a clean refusal: MemcoreError, a HilError, an error report, exit 2
  traceback          any other exception, or a traceback in a command's output   -> a bug
  false_ok           an input built to be invalid (or a board that lied) passed  -> a bug
  fits_for_tampered  a tampered input got the verdict "fits"                      -> a bug

The tests in this folder run each category with a small count and assert that the last
three never happen; bench/adversarial.py runs the same generators with larger counts.
Every generator is seeded: the same count and seed give the same attempts.
"""
import collections
import contextlib
import copy
import io
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import memcore
from memcore import MemcoreError, descriptor
from memcore.hil import lines

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "models"
FIRMWARE_TESTS = ROOT / "firmware_tests"
DEVICE_DIR = ROOT / "micropython"
BAD = ("traceback", "false_ok", "fits_for_tampered")
OUTCOMES = ("accepted", "refused") + BAD


class Tally:
    """Attempts and outcomes per category, and the bad ones with what happened."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)
        self.bad = collections.defaultdict(list)
        self.seconds = collections.Counter()

    def add(self, category, outcome, name, detail=""):
        assert outcome in OUTCOMES, outcome
        self.counts[category][outcome] += 1
        if outcome in BAD:
            self.bad[category].append("%s: %s: %s" % (name, outcome, str(detail)[-600:]))

    def table(self):
        rows = ["%-26s %8s " % ("category", "attempts") + " ".join("%9s" % o[:9] for o in OUTCOMES) + "  seconds"]
        for category in sorted(self.counts):
            c = self.counts[category]
            rows.append("%-26s %8d " % (category, sum(c.values())) + " ".join("%9d" % c[o] for o in OUTCOMES)
                        + "  %7.1f" % self.seconds[category])
        return "\n".join(rows)


def assert_clean(tally, category):
    """No traceback, no false "ok", no "fits" for a tampered input in `category`."""
    assert sum(tally.counts[category].values()) > 0, "no attempts in %s" % category
    assert tally.bad[category] == [], "\n\n".join(tally.bad[category][:5])


@contextlib.contextmanager
def timed(tally, category):
    start = time.monotonic()
    try:
        yield
    finally:
        tally.seconds[category] += time.monotonic() - start


def _traceback_text(exc):
    import traceback
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-1500:]


# ---- model files ---------------------------------------------------------------------------

def _use_model(path):
    """Load, plan and check a model file: what `memcore check` does with it."""
    from memcore.check import check
    from memcore.profiles import profile
    model = memcore.load(path)
    model.plan("tflm")
    check(model, profile("esp32"))
    return model


def _mutate_bytes(data, rng):
    data = bytearray(data)
    how = rng.choice(("flip", "span", "word", "truncate", "splice"))
    if how == "flip":
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif how == "span":
        i = rng.randrange(len(data))
        n = rng.randint(1, 64)
        data[i:i + n] = bytes([rng.choice((0, 0xFF, rng.randrange(256)))]) * len(data[i:i + n])
    elif how == "word":
        i = rng.randrange(max(1, len(data) // 4)) * 4
        value = rng.choice((0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, rng.randrange(1 << 32)))
        data[i:i + 4] = value.to_bytes(4, "little")
    elif how == "truncate":
        data = data[:rng.randrange(len(data))]
    else:
        i, j = sorted(rng.randrange(len(data)) for _ in range(2))
        data[j:j] = data[i:j][:256]
    return bytes(data), how


def tflite_mutants(tally, count, seed=1, folder=None):
    """Byte-level mutants of the real TFLite models: a Model or a MemcoreError, nothing else."""
    rng = random.Random(seed)
    bases = [(p.name, p.read_bytes()) for p in sorted(MODELS.glob("*.tflite")) if p.stat().st_size < 60_000]
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "tflite mutants"):
        for k in range(count):
            name, data = rng.choice(bases)
            mutant, how = _mutate_bytes(data, rng)
            path = folder / ("mutant-%d.tflite" % k)
            path.write_bytes(mutant)
            _model_outcome(tally, "tflite mutants", "%s %s #%d" % (name, how, k), path, must_refuse=False)


def _model_outcome(tally, category, name, path, must_refuse):
    try:
        _use_model(str(path))
    except MemcoreError as exc:
        if str(path) not in str(exc) and os.path.basename(str(path)) not in str(exc):
            tally.add(category, "traceback", name, "MemcoreError without the file's name: %s" % exc)
        else:
            tally.add(category, "refused", name)
        return
    except Exception as exc:  # noqa: BLE001 - any other exception is the finding
        tally.add(category, "traceback", name, _traceback_text(exc))
        return
    tally.add(category, "false_ok" if must_refuse else "accepted", name, "loaded")


def _vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _w(name, *shape):
    return numpy_helper.from_array(np.ones(shape, np.float32), name)


def onnx_bases():
    """Small valid ONNX graphs (name -> (nodes, inputs, outputs, initializers))."""
    return {
        "conv-pool": ([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
                       helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                       helper.make_node("GlobalAveragePool", ["p"], ["g"]),
                       helper.make_node("Flatten", ["g"], ["y"])],
                      [_vi("x", [1, 4, 8, 8])], [_vi("y", [1, 6])], [_w("w", 6, 4, 3, 3)]),
        "grouped-conv": ([helper.make_node("Conv", ["x", "w"], ["y"], group=2)],
                         [_vi("x", [1, 4, 6, 6])], [_vi("y", [1, 4, 4, 4])], [_w("w", 4, 2, 3, 3)]),
        "depthwise": ([helper.make_node("Conv", ["x", "w"], ["y"], group=4)],
                      [_vi("x", [1, 4, 6, 6])], [_vi("y", [1, 4, 4, 4])], [_w("w", 4, 1, 3, 3)]),
        "gemm-relu-matmul": ([helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
                              helper.make_node("Relu", ["h"], ["r"]),
                              helper.make_node("MatMul", ["r", "w2"], ["y"])],
                             [_vi("x", [1, 4])], [_vi("y", [1, 2])], [_w("w", 3, 4), _w("b", 3), _w("w2", 3, 2)]),
        "add-concat": ([helper.make_node("Add", ["x", "x"], ["a"]),
                        helper.make_node("Concat", ["a", "x"], ["y"], axis=1)],
                       [_vi("x", [1, 4])], [_vi("y", [1, 8])], []),
    }


def onnx_bytes(nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _onnx_structured(rng, nodes, inputs, outputs, inits, folder):
    """One invalid-by-construction change: (what, nodes, inputs, outputs, inits)."""
    nodes = [copy.deepcopy(n) for n in nodes]
    inits = [copy.deepcopy(i) for i in inits]
    convs = [n for n in nodes if n.op_type == "Conv"]
    choices = ["duplicate output", "writes an initializer" if inits else "writes an input", "writes an input",
               "two writers", "external absolute", "external escape", "external missing", "overflow"]
    if convs:
        choices += ["group", "group", "stride", "pads", "kernel_shape"]
    what = rng.choice(choices)
    if what == "group":
        node = rng.choice(convs)
        value = rng.choice((0, -1, -3, 3, 5, 7, 2 ** 31 - 1, -2 ** 31))
        _set_attr(node, "group", value)
        what += " %d" % value
    elif what == "stride":
        _set_attr(rng.choice(convs), "strides", rng.choice(([0, 0], [-1, 1], [1], [1, 1, 1])))
    elif what == "pads":
        _set_attr(rng.choice(convs), "pads", rng.choice(([-1, 0, 0, 0], [1, 1], [0, 0, 0, -5])))
    elif what == "kernel_shape":
        _set_attr(rng.choice(convs), "kernel_shape", rng.choice(([5, 5], [1, 3], [0, 0])))
    elif what == "duplicate output":
        node = rng.choice(nodes)
        node.output.append(node.output[0])
    elif what == "writes an initializer":
        rng.choice(nodes).output[0] = rng.choice(inits).name
    elif what == "writes an input":
        node = rng.choice(nodes[1:] or nodes)
        node.output[0] = inputs[0].name
    elif what == "two writers":
        if len(nodes) > 1:
            a, b = rng.sample(nodes, 2)
        else:
            a, b = nodes[0], copy.deepcopy(nodes[0])
            nodes.append(b)
        b.output[0] = a.output[0]
    elif what.startswith("external"):
        init = rng.choice(inits) if inits else None
        if init is None:
            init = _w("e", 2)
            inits.append(init)
            nodes.append(helper.make_node("Add", [outputs[0].name, "e"], ["e_out"]))
        location = {"external absolute": rng.choice(("/etc/hostname", str(folder / "w.bin"))),
                    "external escape": rng.choice(("../w.bin", "sub/../../w.bin", "..\\w.bin")),
                    "external missing": "no-such-file.bin"}[what]
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        entry = init.external_data.add()
        entry.key, entry.value = "location", location
    elif what == "overflow":
        inputs = [_vi(inputs[0].name, [2 ** 31 - 1] * 3)]
    return what, nodes, inputs, outputs, inits


def _set_attr(node, name, value):
    for a in list(node.attribute):
        if a.name == name:
            node.attribute.remove(a)
    node.attribute.append(helper.make_attribute(name, value))


def onnx_mutants(tally, count, seed=2, folder=None):
    """Half invalid by construction (must be refused, naming the file), half random byte
    mutants (a Model or a MemcoreError)."""
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    model_dir = folder / "models"
    model_dir.mkdir(exist_ok=True)
    (folder / "w.bin").write_bytes(b"\0" * 4096)   # what an escaping path would read
    bases = onnx_bases()
    with timed(tally, "onnx mutants"):
        for k in range(count):
            base = rng.choice(sorted(bases))
            nodes, inputs, outputs, inits = bases[base]
            path = model_dir / ("mutant-%d.onnx" % k)
            if k % 2 == 0:
                what, n2, i2, o2, w2 = _onnx_structured(rng, nodes, inputs, outputs, inits, folder)
                path.write_bytes(onnx_bytes(n2, i2, o2, w2, opset=18 if "output" in what else 13))
                _model_outcome(tally, "onnx mutants", "%s: %s #%d" % (base, what, k), path, must_refuse=True)
            else:
                mutant, how = _mutate_bytes(onnx_bytes(nodes, inputs, outputs, inits), rng)
                path.write_bytes(mutant)
                _model_outcome(tally, "onnx mutants", "%s: bytes %s #%d" % (base, how, k), path,
                               must_refuse=False)


# ---- device files ----------------------------------------------------------------------------

BOARD = {
    "description": "STM32H743 board, bare-metal TFLM", "available_bytes": 900_000,
    "available_bytes_at_boot": 800_000, "ops_per_second_reference": 2e7, "ops_per_second_optimised": 2e8,
    "latency_budget_seconds": 0.05, "overhead_seconds": 50e-6, "pointer_bytes": 4, "arena_region": "ram",
    "weights_region": "flash",
    "regions": {"ram": {"size_bytes": 1_048_576, "read_bytes_per_second": 1.6e9},
                "flash": {"size_bytes": 2_097_152, "read_bytes_per_second": 8e8}},
}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return {float("inf"): "inf", float("-inf"): "-inf"}.get(v, "nan" if v != v else repr(v))
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string reads JSON's escapes
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s = %s" % (json.dumps(k), toml_value(x)) for k, x in v.items()) + "}"
    raise TypeError(v)


def board_toml(name, board):
    out = ["[%s]" % json.dumps(name)]
    for key, value in board.items():
        out.append("%s = %s" % (json.dumps(key), toml_value(value)))
    return "\n".join(out) + "\n"


_HOSTILE_VALUES = [[], [1], {"a": 1}, "text", "", True, -1, 0, 2 ** 70, -2 ** 63, 1e300, float("nan"),
                   float("inf"), -0.5, [[[[[[1]]]]]]]


def device_file_attempts(rng, count):
    """(name, TOML text, must_refuse, tampered) for hostile device files."""
    keys = [k for k in BOARD if k != "regions"]
    for k in range(count):
        board = copy.deepcopy(BOARD)
        how = rng.choice(("key", "key", "key", "region", "arena flash", "boot above total", "unknown key",
                          "missing", "deep", "description", "markup", "region name", "huge text"))
        text = None
        must_refuse, tampered = True, True
        if how == "key":
            key = rng.choice(keys)
            value = rng.choice(_HOSTILE_VALUES)
            board[key] = value
            how = "%s = %s" % (key, toml_value(value)[:30])
            if (key == "overhead_seconds" and value == 0 and value is not False
                    or key == "description" and value == "text"):
                must_refuse = tampered = False  # no fixed cost per request, a plain description: valid
        elif how == "region":
            region = rng.choice(("ram", "flash"))
            key = rng.choice(("size_bytes", "read_bytes_per_second", "extra"))
            board["regions"][region][key] = rng.choice(_HOSTILE_VALUES)
            how = "regions.%s.%s = %s" % (region, key, toml_value(board["regions"][region][key])[:30])
        elif how == "arena flash":
            board["arena_region"] = "flash"
            board["available_bytes"] = board["available_bytes_at_boot"] = 10_000
        elif how == "boot above total":
            board["available_bytes_at_boot"] = board["available_bytes"] + rng.randint(1, 10 ** 6)
        elif how == "unknown key":
            board[rng.choice(("avaliable_bytes", "arena", "Regions", "weights"))] = 1
        elif how == "missing":
            del board[rng.choice(("description", "available_bytes", "regions"))]  # required keys (a budget is optional)
        elif how == "deep":
            depth = rng.choice((5, 50, 3000))
            text = board_toml("my-board", board) + "a = " + "[" * depth + "]" * depth + "\n"
        elif how == "description":
            board["description"] = rng.choice(([], {"x": 1}, "", "line\nbreak", "nul\x00", "x" * 10_000))
        elif how == "markup":
            board["description"] = rng.choice(("[/]", "[red]red[/red]", "[bold", "[link=x]y[/link]"))
            must_refuse = tampered = False   # a valid profile: shown as written
        elif how == "region name":
            board["regions"][rng.choice(("sram", "RAM", "", "ram.x"))] = {"size_bytes": 1, "read_bytes_per_second": 1}
        elif how == "huge text":
            text = "[b]\n" + "x = 1\n" * 300_000
        yield "%s #%d" % (how, k), text or board_toml("my-board", board), must_refuse, tampered


def device_files(tally, count, seed=3, folder=None, cli_every=8):
    """Hostile --device-file TOML: a profile or one MemcoreError naming the file, device and
    key; every cli_every-th one through `memcore check`, which must never say FITS for a
    tampered profile nor print a traceback."""
    from memcore.profiles import profiles_from_toml
    from cli_helpers import memcore_cli
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    tiny = MODELS / "tiny_mlp_int8.tflite"
    with timed(tally, "device files"):
        for k, (name, text, must_refuse, tampered) in enumerate(device_file_attempts(rng, count)):
            path = folder / ("board-%d.toml" % k)
            path.write_text(text)
            try:
                found = profiles_from_toml(text, str(path))
                outcome = "false_ok" if must_refuse else "accepted"
                detail = "accepted: %r" % (found,)
            except MemcoreError as exc:
                outcome, detail = "refused", str(exc)
                if str(path) not in detail:
                    outcome, detail = "traceback", "error without the file's name: " + detail
            except Exception as exc:  # noqa: BLE001
                outcome, detail = "traceback", _traceback_text(exc)
            if outcome in ("accepted", "refused") and k % cli_every == 0:
                code, out, err = memcore_cli("check", tiny, "--device", "my-board", "--device-file", path)
                if "Traceback" in out + err:
                    outcome, detail = "traceback", err
                elif tampered and ("FITS" in out and "DOES NOT FIT" not in out):
                    outcome, detail = "fits_for_tampered", out
                elif must_refuse and (code != 2 or len(err.strip().splitlines()) != 1):
                    outcome, detail = "false_ok", "exit %d: %s" % (code, err or out)
                elif not must_refuse and "[" in BOARD["description"] + text and code in (0, 1):
                    code2, out2, err2 = memcore_cli("devices", "--device-file", path)
                    if code2 != 0 or "Traceback" in out2 + err2:
                        outcome, detail = "traceback", err2
            tally.add("device files", outcome, name, detail)


# ---- model descriptors on the board ---------------------------------------------------------

def base_descriptors():
    return [descriptor.describe(memcore.load(str(MODELS / name)), placement=placement)
            for name, placement in (("kws_dscnn_int8.tflite", "ram"), ("mnist_cnn_int8.tflite", "flash"))]


def _set_path(d, path, value):
    for key in path[:-1]:
        d = d[key]
    d[path[-1]] = value


def descriptor_attempts(rng, count, bases, small=False):
    """(name, file text) of tampered descriptors, each invalid by construction: the board
    must answer with an error report, never a verdict.  `small` keeps every file within
    what a 110 KiB heap reads (for MicroPython)."""
    for k in range(count):
        d = copy.deepcopy(rng.choice(bases))
        fb = d["fallback"]
        n = len(fb["buffers"]["sizes"])
        how = rng.choice(("placement", "placement", "type", "type", "type", "negative", "lengths", "order",
                          "alignment", "schema", "too many", "huge text", "deep", "not json", "missing"))
        text = None
        if how == "placement":
            value = rng.choice(("RAM", "psram", "Flash", "", None, 1, ["ram"], {"x": "ram"}, True, " ram"))
            d["weights_placement"] = value
            fb["weights_bytes"] = 1_000_000
            how = "placement %r" % (value,)
        elif how == "type":
            path = rng.choice((("fallback",), ("host",), ("board",), ("config",), ("fallback", "buffers"),
                               ("fallback", "weights_bytes"), ("fallback", "runtime_bytes"),
                               ("fallback", "runtime_overhead_bytes"), ("fallback", "batch"), ("model",),
                               ("host", "arena_tflm_bytes"), ("fallback", "buffers", "sizes"),
                               ("fallback", "buffers", "first_use"), ("fallback", "alignment"),
                               ("fallback", "other_memory_fits"), ("fallback", "budgets_fit")))
            value = rng.choice(([1], "12", 1.5, True, {"a": 1}, [[1]]))
            if path == ("model",) and isinstance(value, str):
                value = 12
            if path in (("host",), ("board",), ("config",)) and isinstance(value, dict):
                value = [value]  # any object of scalars is a valid host, board or config table
            if path[-1] in ("other_memory_fits", "budgets_fit") and value is True:
                value = "true"  # True is a valid flag
            _set_path(d, path, value)
            how = "%s = %r" % (".".join(path), value)
        elif how == "negative":
            key = rng.choice(("sizes", "first_use", "last_use"))
            fb["buffers"][key][rng.randrange(n)] = rng.choice((-1, -2 ** 40, 2 ** 60))
            how += " " + key
        elif how == "lengths":
            fb["buffers"][rng.choice(("sizes", "first_use", "last_use"))].append(1)
        elif how == "order":
            i = rng.randrange(n)
            fb["buffers"]["first_use"][i] = fb["buffers"]["last_use"][i] + 1
        elif how == "alignment":
            fb["alignment"] = rng.choice((0, 3, -16, 2 ** 20, 48))
        elif how == "schema":
            d["schema"] = rng.choice(("memcore.model/1", None, 1, "MEMCORE.MODEL/2"))
        elif how == "too many":
            m = 600 if small else rng.choice((600, 20_000))
            fb["buffers"] = {"sizes": [16] * m, "first_use": [0] * m, "last_use": [0] * m}
        elif how == "huge text":
            d["model"] = "m" * (40_000 if small else rng.choice((40_000, 10_000_000)))
        elif how == "deep":
            depth = rng.choice((100, 5000, 16_000))
            text = '{"schema":"memcore.model/2","model":' + "[" * depth + "]" * depth + "}"
        elif how == "not json":
            text = rng.choice(("", "{", "null", "[]", '{"schema":"memcore.model/2"', "\xff\xfe"))
        elif how == "missing":
            del d[rng.choice(("fallback", "board", "config"))]
        yield "%s #%d" % (how, k), text if text is not None else json.dumps(d)


def _descriptor_outcome(lines_out, tampered=True):
    """(outcome, detail) of what the board script printed for one tampered descriptor."""
    reports = [l for l in lines_out if l.startswith(lines.PREFIX)]
    if any("Traceback" in l for l in lines_out):
        return "traceback", "\n".join(lines_out)
    if len(reports) != 1:
        return "traceback", "%d report lines: %r" % (len(reports), lines_out[:3])
    try:
        obj = lines.parse_line(reports[0])
    except lines.BadLine as exc:
        return "traceback", "a report line the host refuses: %s" % exc
    if obj["schema"] == lines.REPORT_ERROR:
        return "refused", obj["error"]
    if obj["verdict"] == "fits":
        return "fits_for_tampered", reports[0]
    return "false_ok", reports[0]


def descriptors_on_cpython(tally, count, seed=4, folder=None):
    """Tampered descriptors through memcore_boot.main() on CPython with the C core."""
    sys.path.insert(0, str(DEVICE_DIR))
    try:
        import memcore_boot
    finally:
        sys.path.remove(str(DEVICE_DIR))
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    bases = base_descriptors()
    with timed(tally, "descriptors (CPython)"):
        for k, (name, text) in enumerate(descriptor_attempts(rng, count, bases)):
            path = folder / ("d-%d.json" % k)
            path.write_text(text)
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    memcore_boot.main(str(path))
            except BaseException as exc:  # noqa: BLE001 - main() must never raise
                tally.add("descriptors (CPython)", "traceback", name, _traceback_text(exc))
                continue
            outcome, detail = _descriptor_outcome(out.getvalue().splitlines())
            tally.add("descriptors (CPython)", outcome, name, detail)


def micropython_command():
    return [sys.executable, "-m", "micropython_unix"]


def board_folder(folder):
    """A folder laid out like a board's filesystem after `mpremote cp`."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for p in DEVICE_DIR.glob("*.py"):
        (folder / p.name).write_text(p.read_text())
    return folder


_MARK = "--- next descriptor ---"


def descriptors_on_micropython(tally, count, seed=5, folder=None, heap="110K"):
    """Tampered descriptors through memcore_boot.main() on MicroPython in a 110 KiB heap,
    all in one process: each must print exactly one report line, an error report."""
    rng = random.Random(seed)
    folder = board_folder(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    attempts = list(descriptor_attempts(rng, count, base_descriptors(), small=True))
    for k, (_, text) in enumerate(attempts):
        (folder / ("d-%d.json" % k)).write_text(text)
    code = ("import gc, memcore_boot\nfor k in range(%d):\n    print(%r)\n    memcore_boot.main('d-%%d.json' %% k)\n"
            "    gc.collect()\nprint(%r)\n" % (len(attempts), _MARK, _MARK))
    with timed(tally, "descriptors (MicroPython)"):
        proc = subprocess.run(micropython_command() + ["-X", "heapsize=%s" % heap, "-c", code], cwd=folder,
                              capture_output=True, text=True, timeout=300,
                              env={"MICROPYPATH": ".", "PATH": "/usr/bin:/bin"})
        chunks = (proc.stdout + proc.stderr).split(_MARK + "\n")[1:]
        for k, (name, _) in enumerate(attempts):
            if k >= len(chunks):
                tally.add("descriptors (MicroPython)", "traceback", name, "the process stopped: " + proc.stderr)
                continue
            outcome, detail = _descriptor_outcome(chunks[k].splitlines())
            tally.add("descriptors (MicroPython)", outcome, name, detail)


# ---- boards: scripted fake boards replayed by firmware_tests/fakeboard.py ---------------------

def _fakeboard():
    sys.path.insert(0, str(FIRMWARE_TESTS))
    try:
        import boardkit
        import fakeboard
    finally:
        sys.path.remove(str(FIRMWARE_TESTS))
    return fakeboard, boardkit


def _with_lines(rows):
    return [r + "\r\n" for r in rows]


def hil_scripts(rng, count):
    """(name, script) of hostile vector runs: every one must end not "ok"."""
    _, boardkit = _fakeboard()
    good = boardkit.host_lines()
    header, results, end = good[0], good[1:-1], good[-1]
    objs = [json.loads(r[len(lines.PREFIX):]) for r in results]

    def line(obj):
        return lines.PREFIX + json.dumps(obj)

    def wrong_copy(i):
        """Result i with a wrong value: a field changed, or an error made a result (error
        texts are not compared: host and board word them apart)."""
        o = copy.deepcopy(objs[i])
        if "fields" in o:
            name = sorted(o["fields"])[0]
            v = o["fields"][name]
            o["fields"][name] = (v + 1) if type(v) is int else ("x" if isinstance(v, str) else 12345)
        else:
            del o["error"]
            o["fields"] = {"value": 1}
        return line(o)

    kinds = ["forged duplicate", "exact duplicate", "forged mid-line", "missing case", "field type",
             "fields type", "value type", "deep", "long line", "markup", "unknown schema", "unknown key",
             "duplicate key", "end count", "no end", "two headers", "result after end", "bad utf-8",
             "report line", "header type", "wrong value", "result before header", "nan", "bool for int"]
    for k in range(count):
        kind = kinds[k % len(kinds)] if k < len(kinds) else rng.choice(kinds)
        rows = list(results)
        head, tail = [header], [end]
        i = rng.randrange(len(rows))
        if kind == "forged duplicate":  # a wrong value, then a later line with the right one
            rows[i:i + 1] = [wrong_copy(i), results[i]]
        elif kind == "exact duplicate":
            rows.insert(i, results[i])
        elif kind == "forged mid-line":  # a wrong value, then the right one inside a printed string
            rows[i:i + 1] = [wrong_copy(i), "print('" + results[i] + "')"]
        elif kind == "missing case":
            del rows[i]
            tail = [lines.PREFIX + json.dumps({"schema": lines.END, "cases": len(rows)})]
        elif kind == "field type":
            o = copy.deepcopy(objs[i])
            o[rng.choice(("file", "case"))] = rng.choice(([o["file"]], {"a": 1}, 7, None))
            rows[i] = line(o)
        elif kind == "fields type":
            o = copy.deepcopy(objs[i])
            o.pop("error", None)
            o["fields"] = rng.choice(("abc", [1, 2], 3, None))
            rows[i] = line(o)
        elif kind == "value type":
            o = copy.deepcopy(objs[i])
            o.pop("error", None)
            o["fields"] = {"required_bytes": {"nested": 1}}
            rows[i] = line(o)
        elif kind == "deep":
            depth = rng.choice((9, 1000, 100_000))
            rows[i] = rows[i][:-1] + ',"x":' + "[" * depth + "]" * depth + "}"
        elif kind == "long line":
            rows[i] = rows[i][:-1] + ',"pad":"' + "x" * rng.choice((70_000, 1_000_000)) + '"}'
        elif kind == "markup":
            o = copy.deepcopy(objs[i])
            o["case"] = rng.choice(("[/]", "[red]x[/red]", "[bold", "[link=file:///etc/passwd]x[/link]"))
            rows[i] = line(o)
            head = [header.replace('"firmware": "fake"', '"firmware": "[/][red]forged[/red]"')]
        elif kind == "unknown schema":
            rows.insert(i, line({"schema": "memcore.vector-result/2", "file": "budget", "case": "x", "fields": {}}))
        elif kind == "unknown key":
            o = copy.deepcopy(objs[i])
            o["verdict"] = "ok"
            rows[i] = line(o)
        elif kind == "duplicate key":
            rows[i] = rows[i][:-1] + ', "file": "budget"}'
        elif kind == "end count":
            tail = [lines.PREFIX + json.dumps({"schema": lines.END, "cases": len(rows) + 1})]
        elif kind == "no end":
            tail = []
        elif kind == "two headers":
            rows.insert(i, header)
        elif kind == "result after end":
            tail = [end, results[i]]
        elif kind == "bad utf-8":
            rows[i] = {"hex": rows[i].encode().replace(b'"case": "', b'"case": "\xff\xfe').hex()}
        elif kind == "report line":
            fakeboard, _ = _fakeboard()
            rows.insert(i, lines.PREFIX + json.dumps(fakeboard.BOOT_REPORTS[0]))
        elif kind == "header type":
            head = [header.replace('"float_bits": 64', '"float_bits": ' + rng.choice(('[64]', '"64"', '16', '64.0')))]
        elif kind == "wrong value":
            rows[i] = wrong_copy(i)
        elif kind == "result before header":
            head = [results[i], header]
            del rows[i]
        elif kind == "nan":
            o = copy.deepcopy(objs[i])
            if "fields" in o:
                o["fields"][sorted(o["fields"])[0]] = float("nan")
            else:
                o = {"schema": lines.RESULT, "file": o["file"], "case": o["case"], "fields": {"value": float("nan")}}
            rows[i] = line(o)
        elif kind == "bool for int":
            o = copy.deepcopy(objs[i])
            ints = [n for n, v in o.get("fields", {}).items() if type(v) is int and v in (0, 1)]
            if ints:
                o["fields"][ints[0]] = bool(o["fields"][ints[0]])
            else:
                o = {"schema": lines.RESULT, "file": o["file"], "case": o["case"], "fields": {"value": True}}
            rows[i] = line(o)
        body = [r if isinstance(r, dict) else r + "\r\n" for r in head + rows + tail]
        yield "%s #%d" % (kind, k), {"run": body}


def hil_boards(tally, count, seed=6, folder=None):
    """Hostile vector runs replayed by the fake board behind socket://: the parity report
    must never be "ok", nothing may raise, and what the board sent is shown as text."""
    from rich.console import Console
    from memcore.hil import SerialBoard
    from memcore.hil.parity import compare, run_on_board, vector_names
    from memcore.hil.report import render
    rng = random.Random(seed)
    names = vector_names(ROOT / "tests" / "vectors")
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "hil boards"):
        for name, script in hil_scripts(rng, count):
            port = _fakeboard()[0].FakeBoardOnPty(script)
            board = SerialBoard(port.name, transcript_dir=folder, step_timeout_s=5.0)
            try:
                board.open("adversarial")
                report = compare(run_on_board(board, names, ROOT / "tests" / "vectors", timeout_s=10,
                                              deploy_files=False), names, ROOT / "tests" / "vectors")
                out = io.StringIO()
                render(report, Console(file=out, width=200))
                report.write(folder / "report.json")
            except Exception as exc:  # noqa: BLE001
                tally.add("hil boards", "traceback", name, _traceback_text(exc))
                continue
            finally:
                board.close()
                port.close()
            text = out.getvalue()
            if report.ok:
                tally.add("hil boards", "false_ok", name, text[-800:])
            elif name.startswith("markup") and "[/]" not in text and "[red]" not in text and "[bold" not in text:
                tally.add("hil boards", "traceback", name, "the board's markup was interpreted: " + text[-800:])
            elif report.status == "malformed" and not report.error.startswith("transcript line "):
                tally.add("hil boards", "traceback", name, "a malformed run without its line: %s" % report.error)
            else:
                tally.add("hil boards", "refused", name, report.status)


def monitor_scripts(rng, count):
    """(name, boot chunks, must_fail) for `memcore monitor`: the exit status must not be 0."""
    fakeboard, _ = _fakeboard()
    fits, does_not = fakeboard.BOOT_REPORTS
    rom = fakeboard.ROM_LOG.decode()

    def rep(obj):
        return lines.PREFIX + json.dumps(obj) + "\r\n"

    kinds = ["forged fits after does_not_fit", "markup model", "malformed report", "inconsistent sums",
             "deep", "long line", "error report", "unknown field", "forged with a reboot-less banner",
             "bad utf-8", "flood without newlines", "duplicate key"]
    for k in range(count):
        kind = kinds[k % len(kinds)] if k < len(kinds) else rng.choice(kinds)
        boot = [rom]
        if kind == "forged fits after does_not_fit":
            boot += [rep(does_not), "app: " * rng.randint(0, 1) + "\r\n", rep(dict(fits, model=does_not["model"]))]
        elif kind == "markup model":
            boot += [rep(dict(does_not, model=rng.choice(("[/]", "[green]fits[/green]", "[bold", "[/red]x"))))]
        elif kind == "malformed report":
            boot += [rep(dict(does_not, verdict=rng.choice(("FITS", True, None, ["fits"]))))]
        elif kind == "inconsistent sums":
            boot += [rep(dict(does_not, verdict="fits"))]
        elif kind == "deep":
            boot += [lines.PREFIX + '{"schema":"memcore.report/1","model":' + "[" * 100000 + "]" * 100000 + "}\r\n"]
        elif kind == "long line":
            boot += [rep(dict(fits, model="x" * 300_000))]
        elif kind == "error report":
            boot += [rep({"schema": lines.REPORT_ERROR, "error": "ValueError: weights.placement must be ..."})]
        elif kind == "unknown field":
            boot += [rep(dict(fits, forged=True))]
        elif kind == "forged with a reboot-less banner":
            boot += [rep(does_not), "MicroPython forged banner in the middle of a line\r\n", rep(fits)]
        elif kind == "bad utf-8":
            boot += [{"hex": rep(fits).encode().replace(b'"kws-small"', b'"\xff\xfe"').hex()}, rep(does_not)]
        elif kind == "flood without newlines":
            boot += [rep(does_not), {"repeat": "z", "bytes": 2_000_000}, "\r\n", rep(fits)]
        elif kind == "duplicate key":
            boot += [rep(does_not).replace('"verdict": "does_not_fit"', '"verdict": "does_not_fit", "verdict": "fits"')]
        yield "%s #%d" % (kind, k), boot


def monitor_boards(tally, count, seed=7, folder=None, seconds=0.6):
    """Hostile boot output through `memcore monitor`: never exit 0, never a traceback, the
    board's text never read as markup."""
    from cli_helpers import memcore_cli
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "monitor boards"):
        for name, boot in monitor_scripts(rng, count):
            port = _fakeboard()[0].FakeBoardOnPty({"boot": boot, "after": "listen", "reset_first": True})
            try:
                code, out, err = memcore_cli("monitor", "--port", port.name, "--reset", "--seconds", str(seconds),
                                             "--transcripts", folder)
            except Exception as exc:  # noqa: BLE001
                tally.add("monitor boards", "traceback", name, _traceback_text(exc))
                continue
            finally:
                port.close()
            if "Traceback" in out + err:
                tally.add("monitor boards", "traceback", name, err[-800:])
            elif code == 0:
                tally.add("monitor boards", "false_ok", name, out[-800:])
            elif name.startswith("markup") and not any(m in out for m in ("[/]", "[green]", "[bold", "[/red]")):
                tally.add("monitor boards", "traceback", name, "markup interpreted: " + out[-800:])
            elif name.startswith("forged") and code != 2:
                tally.add("monitor boards", "false_ok", name, "the forged report passed as a verdict: " + out)
            else:
                tally.add("monitor boards", "refused", name, "exit %d" % code)
