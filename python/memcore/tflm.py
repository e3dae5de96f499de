"""TensorFlow Lite Micro's whole tensor arena for a model: head, tail, and what to give it.

TFLM splits its arena in two.  The head (from the start) holds the activations and the
kernels' scratch buffers, placed by its GreedyMemoryPlanner; the tail (down from the
16-aligned end) holds the runtime's own structures, allocated in a fixed order.  The
C core knows both, per target (csrc/src/tflm_model.c, memcore.h §11); this module
turns a Model into its call and the result into plain values.
"""
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from memcore import _lowlevel as ll
from memcore._memcore import lib
from memcore.errors import MemcoreError
from memcore.graph import Model
from memcore.planner import plan as _plan
from memcore.targets import kernels_code, target_code

ARENA_ALIGNMENT = 16  # MicroArenaBufferAlignment()

TENSORS = "TfLiteEvalTensor data"
NODES = "NodeAndRegistration struct"
BUFFERS = "Persistent buffer data"
PERSISTENT_TENSORS = "Persistent TfLiteTensor data"
QUANTIZATION = "Persistent TfLiteTensor quantization data"

# pointer_bytes= of earlier versions: the target each width stood for.
_TARGET_OF_POINTER_BYTES = {8: "host64", 4: "esp32"}


@dataclass(frozen=True)
class TflmArena:
    head_bytes: int               # activations and kernel scratch, TFLM's planner
    tail_bytes: int               # persistent runtime structures
    total_bytes: int              # head + tail: what TFLM reports after AllocateTensors
    minimum_arena_bytes: int      # the smallest arena AllocateTensors accepts
    recommended_arena_bytes: int  # pass this as the arena size (>= the minimum)
    target: str
    kernels: str
    upper_bound: bool             # some operators costed with estimates that err high
    # RecordingMicroAllocator's categories: name -> (used bytes incl. padding, requested, count)
    categories: Dict[str, Tuple[int, int, int]]

    @property
    def measured(self):
        """Whether the target's numbers were measured (the 64-bit host) or derived."""
        return self.target == "host64"

    @property
    def planning_bytes(self):
        """Kept for callers of the first version: the transient peak is the minimum."""
        return self.minimum_arena_bytes


def tflm_arena(model: Model, target: Optional[str] = None, kernels: str = "reference",
               pointer_bytes: Optional[int] = None, allow_unknown_ops: bool = False) -> TflmArena:
    """TFLM's arena for `model` on `target` ("host64", "armhf", "cortex-m", "riscv32",
    "esp32") with `kernels` ("reference" or "optimised").  pointer_bytes=8/4 is the
    older spelling of target="host64"/"esp32"."""
    if target is None:
        if pointer_bytes is not None and pointer_bytes not in _TARGET_OF_POINTER_BYTES:
            raise MemcoreError("pointer_bytes must be 4 or 8, got %r" % (pointer_bytes,))
        target = _TARGET_OF_POINTER_BYTES.get(pointer_bytes, "host64")
    t, k = target_code(target), kernels_code(kernels)
    flags = lib.MC_TFLM_ALLOW_UNKNOWN if allow_unknown_ops else 0
    graph = model.c_graph()
    if model.subgraph_count != 1:
        raise MemcoreError("%s: TFLM's arena is modelled for one subgraph, the model has %d"
                           % (model.path, model.subgraph_count))
    sizes, first, last, _ = ll.tflm_buffers(graph, t, k, flags, model.path)
    head = _plan(sizes, first, last, alignment=ARENA_ALIGNMENT, strategy="tflm")
    r = ll.tflm_model(graph, t, k, flags, head.arena_bytes, len(sizes), model.path)
    names = {lib.MC_TFLM_EVAL_TENSORS: TENSORS, lib.MC_TFLM_NODES: NODES,
             lib.MC_TFLM_PERSISTENT_BUFFERS: BUFFERS, lib.MC_TFLM_PERSISTENT_TENSORS: PERSISTENT_TENSORS,
             lib.MC_TFLM_QUANTIZATION: QUANTIZATION}
    categories = {name: (r.categories[c].used_bytes, r.categories[c].requested_bytes, r.categories[c].count)
                  for c, name in names.items() if r.categories[c].count}
    return TflmArena(head_bytes=r.head_bytes, tail_bytes=r.tail_bytes, total_bytes=r.total_bytes,
                     minimum_arena_bytes=r.minimum_arena_bytes,
                     recommended_arena_bytes=r.recommended_arena_bytes, target=target, kernels=kernels,
                     upper_bound=bool(r.upper_bound),
                     categories=categories)


__all__ = ["TflmArena", "tflm_arena"]
