"""The model descriptor: what a board needs to check a model without reading the model.

`memcore export MODEL -o model.json` writes it; micropython/memcore_boot.py reads it on
the board, plans the arena there with the board's own memcore, and compares with the
memory it really has.  Compact JSON, one object (a few hundred bytes plus three short
lists per activation buffer), so it parses in a few KB of MicroPython heap:

    schema            "memcore.model/1"
    model             file name; format "tflite" | "onnx"; file_bytes
    memcore_version, api_version   of the host that wrote it
    weights           {"bytes": constant tensors' bytes, "placement": "ram" | "flash",
                       "tensors": how many}
    parameters, operations, macs   per inference
    alignment         the arena alignment (TFLM: 16)
    buffers           {"sizes": [...], "first_use": [...], "last_use": [...]}: the activation
                      tensors TFLM plans, in its order, lifetimes as operator scopes + 1
                      (TFLM's "never used" -1 becomes 0; a uniform shift changes no plan)
    runtime           TFLM beyond the planned arena, for `pointer_bytes`: "tail_bytes" (its
                      persistent allocations) and "overhead_bytes" (recommended arena - head:
                      the tail plus what it needs while planning)
    host              the host's own numbers for cross-checking: arena_tflm_bytes,
                      arena_best_bytes, arena_lower_bound_bytes, runtime_overhead_bytes,
                      recommended_arena_bytes, required_bytes; with an available size also
                      available_bytes, headroom_bytes and verdict ("fits" | "does_not_fit")
"""
import json
import os

import memcore
from memcore.errors import MemcoreError

SCHEMA = "memcore.model/1"
PLACEMENTS = ("ram", "flash")


def describe(model, placement="ram", pointer_bytes=4, alignment=16, available_bytes=None):
    """The descriptor of a memcore Model (memcore.load) as plain JSON values."""
    if placement not in PLACEMENTS:
        raise MemcoreError("weights placement must be 'ram' or 'flash', got %r" % (placement,))
    lifetimes = model.lifetimes()
    indices = list(lifetimes)
    sizes = [model.tensors[i].bytes for i in indices]
    first = [lifetimes[i][0] + 1 for i in indices]
    last = [lifetimes[i][1] + 1 for i in indices]
    tflm = memcore.plan(sizes, first, last, alignment=alignment, strategy="tflm")
    best = memcore.plan(sizes, first, last, alignment=alignment, strategy="best")
    arena = memcore.tflm_arena(model, pointer_bytes=pointer_bytes)
    overhead = arena.recommended_arena_bytes - arena.head_bytes
    weights_in_ram = model.weight_bytes if placement == "ram" else 0
    need = memcore.budget(weights_in_ram, 1, 1, tflm.arena_bytes, overhead,
                          available_bytes if available_bytes is not None else 0)
    host = {
        "arena_tflm_bytes": tflm.arena_bytes,
        "arena_best_bytes": best.arena_bytes,
        "arena_lower_bound_bytes": tflm.lower_bound_bytes,
        "runtime_overhead_bytes": arena.tail_bytes,
        "recommended_arena_bytes": tflm.arena_bytes + overhead,
        "required_bytes": need.required_bytes,
    }
    if available_bytes is not None:
        host.update(available_bytes=available_bytes, headroom_bytes=need.headroom_bytes,
                    verdict="fits" if need.fits else "does_not_fit")
    version, api = memcore.version()
    return {
        "schema": SCHEMA,
        "model": os.path.basename(model.path),
        "format": model.format,
        "file_bytes": os.path.getsize(model.path) if os.path.isfile(model.path) else None,
        "memcore_version": version,
        "api_version": api,
        "weights": {"bytes": model.weight_bytes, "placement": placement,
                    "tensors": sum(1 for t in model.tensors if t.is_constant)},
        "parameters": model.parameter_count,
        "operations": model.operations,
        "macs": model.macs,
        "alignment": alignment,
        "buffers": {"sizes": sizes, "first_use": first, "last_use": last},
        "runtime": {"pointer_bytes": pointer_bytes, "tail_bytes": arena.tail_bytes, "overhead_bytes": overhead},
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
