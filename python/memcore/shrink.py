"""`shrink`: a copy of a TFLite model that carries memcore's arena plan, so that stock TFLM
on the board needs less RAM.

TFLM plans its arena at boot with its own greedy planner, unless the file carries an
offline plan (the `OfflineMemoryAllocation` metadata, micro_allocation_info.cc): then it
puts each listed tensor at the file's offset and places the rest (the kernels' scratch
buffers) around them.  shrink writes the offsets of memcore's `best` plan (the C core's
MC_PLAN_BEST) for the tensors, reads the written file back with the C reader, and asks the
C core what TFLM's arena becomes with it (mc_tflm_plan places the scratch buffers as
TFLM will).  It writes the plan only when that head is smaller than what the file gives
TFLM now; otherwise the copy is the file unchanged.

Operators stay in the file's order: reordering them is not done (yet); the only change
to the file is the metadata entry and its buffer (memcore.tflite_write keeps every other
byte).
"""
from dataclasses import dataclass, field
from typing import Dict, Optional

from memcore import _lowlevel as ll
from memcore.errors import MemcoreError
from memcore.planner import plan
from memcore.targets import kernels_code, target_code
from memcore.tflite import load_tflite
from memcore.tflite_write import OFFLINE_PLAN, with_metadata, with_offline_plan
from memcore.tflm import TflmArena, tflm_arena


@dataclass(frozen=True)
class Shrunk:
    """What shrink wrote, and TFLM's arena for the file before and after (the C core's
    numbers for `target` and `kernels`)."""
    model_path: str
    target: str
    kernels: str
    before: TflmArena
    after: TflmArena
    data: bytes                   # the file to write
    changed: bool                 # False: the file as it was (already at its best)
    replaced_plan: bool           # the file had an offline plan, and it was replaced
    plan: str                     # which plan the file carries: "best", "best-tensors", "none" or "file"
    offsets: Dict[int, int] = field(default_factory=dict)   # the written offsets, by tensor

    @property
    def saved_bytes(self):
        """What the recommended arena shrank by."""
        return self.before.recommended_arena_bytes - self.after.recommended_arena_bytes

    @property
    def saved_head_bytes(self):
        return self.before.head_bytes - self.after.head_bytes


def _same_graph(a, b):
    return (a.tensors, a.operators, a.inputs, a.outputs) == (b.tensors, b.operators, b.inputs, b.outputs)


def _candidate(original, data, offsets, path, target, kernels):
    """The file `data` with `offsets` written in, read back by the C reader; (bytes,
    TFLM's arena for it).  Refuses a file that reads back as another graph or with
    other offsets than the ones written."""
    written = with_offline_plan(data, offsets, path) if offsets is not None else data
    model = load_tflite(path, written)
    if offsets is None and model.offline_offsets:
        raise MemcoreError("%s: the copy without the offline plan still reads back with one; not written" % path)
    if not _same_graph(model, original):
        raise MemcoreError("%s: the written copy reads back as another graph; not written" % path)
    if offsets is not None and model.offline_offsets != dict(enumerate(offsets)):
        raise MemcoreError("%s: the written copy reads back with other offsets than written; not written" % path)
    return written, tflm_arena(model, target, kernels)


def shrink(path, target: str = "esp32", kernels: str = "optimised", data: Optional[bytes] = None) -> Shrunk:
    """The copy of the TFLite model at `path` that needs the smallest arena on `target`
    with `kernels`, among: the file as it is, and the file with memcore's plan written
    in (best over TFLM's buffers with the kernels' scratch, or over the tensors alone;
    without the file's own plan, when it has one)."""
    target_code(target)
    kernels_code(kernels)
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    if data[4:8] != b"TFL3":
        raise MemcoreError("%s: memcore shrink writes TFLite files; this is not one (no TFL3 identifier at "
                           "byte 4)" % path)
    model = load_tflite(path, data)
    if model.subgraph_count != 1:
        raise MemcoreError("%s: the model has %d subgraphs; memcore shrink writes plans for single-subgraph "
                           "models only (TFLM's offline plan lists every subgraph's tensors in one list)"
                           % (path, model.subgraph_count))
    before = tflm_arena(model, target, kernels)
    had_plan = bool(model.offline_offsets)
    # memcore's plans are made without the file's plan: TFLM's buffers as it would see them
    base = with_metadata(data, OFFLINE_PLAN, None, path) if had_plan else data
    base_model = load_tflite(path, base) if had_plan else model
    n = len(model.tensors)
    sizes, first, last, owner = ll.tflm_buffers(base_model.c_graph(), target_code(target), kernels_code(kernels), 0,
                                                path)
    candidates = []
    if sizes:
        best = plan(sizes, first, last, strategy="best")
        with_scratch = {o: at for o, at in zip(owner, best.offsets) if o >= 0}
        candidates.append(("best", with_scratch))
        tensors_only = base_model.plan("best").offsets
        if tensors_only != with_scratch:
            candidates.append(("best-tensors", tensors_only))
    if had_plan:   # TFLM's own plan may beat both the file's and memcore's
        candidates.append(("none", None))
    chosen = ("file", data, before, {})
    for name, offsets in candidates:
        full = None
        if offsets is not None:
            full = [-1] * n
            for t, at in offsets.items():
                full[t] = at
        written, arena = _candidate(model, base if full is None else data, full, path, target, kernels)
        if arena.head_bytes < chosen[2].head_bytes:
            chosen = (name, written, arena, offsets or {})
    name, written, after, offsets = chosen
    if name != "file" and (after.recommended_arena_bytes >= before.recommended_arena_bytes
                           or after.tail_bytes != before.tail_bytes):
        name, written, after, offsets = "file", data, before, {}
    return Shrunk(model_path=path, target=target, kernels=kernels, before=before, after=after, data=written,
                  changed=name != "file", replaced_plan=had_plan and name != "file", plan=name, offsets=offsets)


__all__ = ["Shrunk", "shrink"]
