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

The operators may also be run in another order (the C core's mc_reorder: the
topological order whose `best` head is smallest, searched over the sets of operators
already run).  The reordered copy lists the same operator tables in the new order and
carries the plan for that order; it is kept only when TFLM's head for it is smaller
than for the file's order with memcore's plan, so a model whose order is already at its
best keeps it.  Apart from the operators vector and the metadata entry every byte stays
(memcore.tflite_write keeps the original as one block).
"""
from dataclasses import dataclass, field, replace
from typing import Dict, Optional, Tuple

from memcore import _lowlevel as ll
from memcore.errors import MemcoreError
from memcore.planner import plan
from memcore.targets import kernels_code, target_code
from memcore.tflite import load_tflite
from memcore.tflite_write import OFFLINE_PLAN, with_metadata, with_offline_plan, with_operator_order
from memcore.tflm import TflmArena, tflm_arena


#: downsets the order search keeps per level (mc_reorder's width)
REORDER_WIDTH = ll.lib.MC_REORDER_DEFAULT_WIDTH


@dataclass(frozen=True)
class Reorder:
    """The C core's search for the operator order (mc_reorder_t): heads are
    memcore's `best` plan of TFLM's buffers (with the kernels' scratch)."""
    file_head_bytes: int          # in the file's order
    head_bytes: int               # in the order found (the file's when none is smaller)
    file_peak_bytes: int          # bytes live at the peak, file's order
    peak_bytes: int               # the same, chosen order
    searched_peak_bytes: int      # the least peak found; of any order when exact
    exact: bool
    states: int
    steps: int


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
    file_order: Optional[TflmArena] = None   # TFLM's arena with the plan in the file's order
    order: Tuple[int, ...] = ()   # the operators' order written: order[k] is the file's index
    reorder: Optional[Reorder] = None        # what the search found (None: not searched)

    @property
    def reordered(self):
        return self.order != tuple(range(len(self.order)))

    @property
    def saved_bytes(self):
        """What the recommended arena shrank by."""
        return self.before.recommended_arena_bytes - self.after.recommended_arena_bytes

    @property
    def saved_head_bytes(self):
        return self.before.head_bytes - self.after.head_bytes


def _same_graph(a, b):
    return (a.tensors, a.operators, a.inputs, a.outputs) == (b.tensors, b.operators, b.inputs, b.outputs)


def _candidate(expected, data, offsets, path, target, kernels):
    """The file `data` with `offsets` written in, read back by the C reader; (bytes,
    TFLM's arena for it).  Refuses a file that reads back as another graph than
    `expected` or with other offsets than the ones written."""
    written = with_offline_plan(data, offsets, path) if offsets is not None else data
    model = load_tflite(path, written)
    if offsets is None and model.offline_offsets:
        raise MemcoreError("%s: the copy without the offline plan still reads back with one; not written" % path)
    if not _same_graph(model, expected):
        raise MemcoreError("%s: the written copy reads back as another graph; not written" % path)
    if offsets is not None and model.offline_offsets != dict(enumerate(offsets)):
        raise MemcoreError("%s: the written copy reads back with other offsets than written; not written" % path)
    return written, tflm_arena(model, target, kernels)


def _plans(model, path, target, kernels):
    """memcore's plans of TFLM's buffers for `model` (read without an offline plan):
    [(name, {tensor: offset})], best over the buffers with the kernels' scratch, and
    best over the tensors alone when it differs."""
    sizes, first, last, owner = ll.tflm_buffers(model.c_graph(), target_code(target), kernels_code(kernels), 0,
                                                path)
    if not sizes:
        return []
    best = plan(sizes, first, last, strategy="best")
    with_scratch = {o: at for o, at in zip(owner, best.offsets) if o >= 0}
    tensors_only = model.plan("best").offsets
    return [("best", with_scratch)] + ([("best-tensors", tensors_only)] if tensors_only != with_scratch else [])


def _smallest(chosen, expected, data, candidates, path, target, kernels):
    """The candidate (name, {tensor: offset} or None) written on `data` whose TFLM head
    is smallest, if smaller than `chosen`'s: (name, bytes, arena, offsets)."""
    n = len(expected.tensors)
    for name, offsets in candidates:
        full = None
        if offsets is not None:
            full = [-1] * n
            for t, at in offsets.items():
                full[t] = at
        written, arena = _candidate(expected, data, full, path, target, kernels)
        if arena.head_bytes < chosen[2].head_bytes:
            chosen = (name, written, arena, offsets or {})
    return chosen


def _reordered(model, data, order, path):
    """`data` with its operators in `order`, read back by the C reader: (bytes, model).
    Refuses a copy that reads back as anything but the same graph with its operators
    permuted (the reader also refuses an operator that reads a tensor before any
    operator writes it)."""
    written = with_operator_order(data, order, path)
    reread = load_tflite(path, written)
    if ((reread.tensors, reread.inputs, reread.outputs) != (model.tensors, model.inputs, model.outputs)
            or list(reread.operators) != [replace(model.operators[i], index=k) for k, i in enumerate(order)]):
        raise MemcoreError("%s: the reordered copy reads back as another graph; not written" % path)
    return written, reread


def shrink(path, target: str = "esp32", kernels: str = "optimised", data: Optional[bytes] = None,
           reorder: bool = True, width: int = REORDER_WIDTH) -> Shrunk:
    """The copy of the TFLite model at `path` that needs the smallest arena on `target`
    with `kernels`, among: the file as it is, and the file with memcore's plan written
    in (best over TFLM's buffers with the kernels' scratch, or over the tensors alone;
    without the file's own plan, when it has one); with `reorder`, also its operators
    in the order mc_reorder finds (keeping at most `width` downsets per level) with
    memcore's plan for that order."""
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
    candidates = [(name, offsets) for name, offsets in _plans(base_model, path, target, kernels)]
    if had_plan:   # TFLM's own plan may beat both the file's and memcore's
        candidates.append(("none", None))
    chosen = ("file", data, before, {})
    chosen = _smallest(chosen, model, data, [c for c in candidates if c[1] is not None], path, target, kernels)
    chosen = _smallest(chosen, model, base, [c for c in candidates if c[1] is None], path, target, kernels)
    name, written, after, offsets = chosen
    if name != "file" and (after.recommended_arena_bytes >= before.recommended_arena_bytes
                           or after.tail_bytes != before.tail_bytes):
        name, written, after, offsets = "file", data, before, {}
    file_order = after
    order = tuple(range(len(model.operators)))
    found = None
    if reorder and len(model.operators) > 1:
        new_order, raw = ll.reorder(base_model.c_graph(), target_code(target), kernels_code(kernels), 0, width,
                                    ll.lib.MC_PLAN_DEFAULT_STEPS, path)
        found = Reorder(raw.file_head_bytes, raw.head_bytes, raw.file_peak_bytes, raw.peak_bytes,
                        raw.searched_peak_bytes, bool(raw.exact), raw.states, raw.steps)
        if raw.changed:
            reordered_data, reordered_model = _reordered(base_model, base, new_order, path)
            best = _smallest((name, written, after, offsets), reordered_model, reordered_data,
                             _plans(reordered_model, path, target, kernels), path, target, kernels)
            # kept only when TFLM's head and recommended arena are smaller than in the file's
            # order (the tail may move by a few bytes: TFLM's persistent allocations follow
            # the operators' order, and memcore's model of them does too)
            if (best[2] is not after and best[2].head_bytes < after.head_bytes
                    and best[2].recommended_arena_bytes < after.recommended_arena_bytes):
                name, written, after, offsets = best
                order = tuple(new_order)
    return Shrunk(model_path=path, target=target, kernels=kernels, before=before, after=after, data=written,
                  changed=name != "file", replaced_plan=had_plan and name != "file", plan=name, offsets=offsets,
                  file_order=file_order, order=order, reorder=found)


__all__ = ["REORDER_WIDTH", "Reorder", "Shrunk", "shrink"]
