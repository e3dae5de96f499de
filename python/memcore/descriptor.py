"""The model descriptor: what a board needs besides the model file to make the host's check.

`memcore export MODEL --device D -o model.json` writes it; micropython/memcore_boot.py
reads it on the board.  Compact JSON, one object, schema "memcore.model/3":

    model, format, file_bytes, file_crc32   the model file it describes (the board refuses
                                            a descriptor whose file on the board differs)
    memcore_version, api_version            of the host that wrote it
    device                                  the profile's name
    board                                   the board as the C check takes it (mc_board_set's
                                            names: target, regions, rates, power ...)
    config                                  the deployment (mc_check_config_set's names:
                                            kernels, regions, batch, budgets), without the
                                            available bytes, which the board measures
    weights_placement                       "flash" (read in place) or "ram" (loaded)
    fallback                                for firmware without the C module, which cannot
                                            read the model: the head's buffers (sizes,
                                            lifetimes as TFLM's scopes + 1), what TFLM needs
                                            beyond its head, the model file loaded into the
                                            arena's region (model_in_arena_bytes: the whole
                                            file, 0 when read in place), and the verdict's
                                            parts that do not depend on the memory free
                                            (other regions, the latency and battery
                                            budgets); for a model with an offline memory
                                            plan, TFLM's head around the file's offsets
                                            (offline_plan_head_bytes)
    host                                    the host's own numbers, to cross-check

A board with the C module reads the model file itself and uses only board and config;
the fallback plans the buffers and adds up what the host could not know.
"""
import json
import os
import zlib

import memcore
from memcore import _lowlevel as ll
from memcore.check import check
from memcore.errors import MemcoreError
from memcore.targets import kernels_code, target_code

SCHEMA = "memcore.model/3"
PLACEMENTS = ("ram", "flash")
ALIGNMENT = 16  # TFLM's arena alignment

# The host's numbers the board's report repeats, for cross-checking.
HOST_FIELDS = ("arena_tflm_bytes", "arena_best_bytes", "arena_lower_bound_bytes", "runtime_overhead_bytes",
               "runtime_bytes", "recommended_arena_bytes", "required_bytes", "available_bytes", "headroom_bytes",
               "verdict")


def _crc32(path):
    crc = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            crc = zlib.crc32(chunk, crc)
    return crc


def describe(model, profile=None, placement=None, kernels="optimised", batch=1, available_bytes=None, budgets=None):
    """The descriptor of a memcore Model (memcore.load) on `profile` (a device profile;
    default: the esp32's) against `budgets` (memcore.check.Budgets: the board checks the
    same latency, duty cycle and battery), as plain JSON values."""
    if profile is None:
        from memcore.profiles import profile as named_profile
        profile = named_profile("esp32")
    placement = placement or profile.default_weights_placement()
    if placement not in PLACEMENTS:
        raise MemcoreError("weights placement must be 'ram' or 'flash', got %r" % (placement,))
    report = check(model, profile, batch, kernels, placement, suggest=False, available_bytes=available_bytes,
                   budgets=budgets)
    config = dict(report.config)
    del config["available_bytes"]  # what the board measures
    sizes, first, last, _ = ll.tflm_buffers(model.c_graph(), target_code(profile.target), kernels_code(kernels),
                                            0, model.path)
    arena_region = config["arena_region"]
    others = [r for name, r in report.resources.items() if name in ("ram", "psram", "flash") and name != arena_region]
    budgets = [r for name, r in report.resources.items() if name in ("latency", "battery")]
    f = report.fields
    fallback = {
        "alignment": ALIGNMENT,
        "buffers": {"sizes": sizes, "first_use": first, "last_use": last},
        "batch": batch,
        "weights_bytes": f["weights_bytes"],
        "model_in_arena_bytes": f["loaded_model_bytes"] if config["weights_region"] == arena_region else 0,
        "runtime_bytes": f["runtime_bytes"],
        "runtime_overhead_bytes": f["runtime_overhead_bytes"],
        "other_memory_fits": all(r.fits for r in others),
        "budgets_fit": all(r.fits for r in budgets),
    }
    if model.offline_offsets:  # TFLM's head follows the file's offsets, which the buffers omit
        fallback["offline_plan_head_bytes"] = f["arena_tflm_bytes"]
    host = {name: f[name] for name in HOST_FIELDS}
    if available_bytes is None:
        for name in ("available_bytes", "headroom_bytes", "verdict"):
            del host[name]  # the profile's, not a board's: nothing to cross-check
    version, api = memcore.version()
    is_file = os.path.isfile(model.path)
    return {
        "schema": SCHEMA,
        "model": os.path.basename(model.path),
        "format": model.format,
        "file_bytes": os.path.getsize(model.path) if is_file else None,
        "file_crc32": _crc32(model.path) if is_file else None,
        "memcore_version": version,
        "api_version": api,
        "device": profile.name,
        "board": profile.board(),
        "config": config,
        "weights_placement": placement,
        "fallback": fallback,
        "host": host,
    }


def dumps(descriptor):
    """Compact JSON text: no spaces, one line, ends with a newline."""
    return json.dumps(descriptor, separators=(",", ":")) + "\n"


def loads(text, source="descriptor"):
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise MemcoreError("%s: not a memcore model descriptor (schema %r)"
                           % (source, data.get("schema") if isinstance(data, dict) else None))
    return data


def load(path):
    with open(path, encoding="utf-8") as f:
        return loads(f.read(), path)
