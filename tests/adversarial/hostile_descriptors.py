"""Tampered model descriptors through the board script (memcore_boot.main), on CPython with
the C core and on MicroPython in a 110 KiB heap: an error report each, never a verdict."""
import contextlib
import copy
import io
import json
import pathlib
import random
import subprocess
import sys
import tempfile

import memcore
from memcore import descriptor
from memcore.hil import lines

from hostile_tally import DEVICE_DIR, MODELS, timed, traceback_text


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
            text = '{"schema":"memcore.model/3","model":' + "[" * depth + "]" * depth + "}"
        elif how == "not json":
            text = rng.choice(("", "{", "null", "[]", '{"schema":"memcore.model/3"', "\xff\xfe"))
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
                tally.add("descriptors (CPython)", "traceback", name, traceback_text(exc))
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

