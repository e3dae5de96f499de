"""TensorFlow Lite Micro's whole tensor arena for a model: head, tail, the smallest arena
that works, and what to give it.

Every number comes from the C core (mc_tflm_model_arena): its op table knows what each
operator kind's kernel allocates on each target, and it replays AllocateTensors() on a
model of TFLM's arena allocator.  This module converts the model into the core's graph
and the results into Python values.

Targets, not pointer widths: "host64" (the PyPI tflite-micro interpreter, measured),
"armhf", "cortex-m" (measured TFLM builds), "riscv32", "esp32" (derived from the closest
measured ABI; `target_info(name).note` says from what and why).
"""
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from memcore import _lowlevel as ll
from memcore import cgraph as _cgraph
from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError
from memcore.graph import Model

TARGETS = ("host64", "armhf", "cortex-m", "riscv32", "esp32")
KERNELS = ("reference", "optimised")

# RecordingMicroAllocator's names for the categories, in mc_tflm_category_t order.
CATEGORY_NAMES = (
    "TfLiteEvalTensor data",
    "Persistent TfLiteTensor data",
    "Persistent TfLiteTensor quantization data",
    "Persistent buffer data",
    "TfLiteTensor variable buffer data",
    "NodeAndRegistration struct",
)


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    tflm_version: str
    optimised_kernels: str       # what kernels="optimised" selects ("" when none)
    pointer_bytes: int
    enum_bytes: int
    int64_alignment: int
    compression: bool
    measured: bool
    derived_from: Optional[str]  # the measured target its tables come from
    note: str                    # how it was measured, or why and from what it is derived


def _target_code(name):
    if name not in TARGETS:
        raise MemcoreError("target must be one of %s, got %r" % (", ".join(TARGETS), name))
    code = ffi.new("mc_target_t *")
    ll._check(lib.mc_target_by_name(name.encode(), code), "target %r" % name)
    return code[0]


def target_info(name: str) -> Target:
    out = ffi.new("mc_target_info_t *")
    ll._check(lib.mc_target_info(_target_code(name), out), "target_info(%r)" % name)
    text = lambda p: ffi.string(p).decode()  # noqa: E731
    return Target(name=text(out.name), description=text(out.description),
                  tflm_version=text(out.tflm_version), optimised_kernels=text(out.optimised_kernels),
                  pointer_bytes=out.pointer_bytes, enum_bytes=out.enum_bytes,
                  int64_alignment=out.int64_alignment, compression=bool(out.compression),
                  measured=bool(out.measured),
                  derived_from=TARGETS[out.derived_from] if out.derived_from >= 0 else None,
                  note=text(out.note))


@dataclass(frozen=True)
class TflmBuffer:
    """One buffer TFLM plans in the head."""
    bytes: int
    offset: int                  # where TFLM's GreedyMemoryPlanner puts it
    first_use: int               # TFLM scopes
    last_use: int
    tensor: Optional[int]        # the tensor, or None for a kernel's scratch buffer
    op: Optional[int]            # the operator that requested a scratch buffer


@dataclass(frozen=True)
class TflmArena:
    head_bytes: int               # activations and scratch buffers, TFLM's planner
    tail_bytes: int               # persistent runtime structures
    total_bytes: int              # head + tail: what TFLM reports after AllocateTensors
    minimum_arena_bytes: int      # the smallest arena AllocateTensors() succeeds in
    recommended_arena_bytes: int  # pass this as the arena size (>= the minimum, always)
    lower_bound_bytes: int        # most head bytes live at once
    target: str
    kernels: str
    measured: bool                # the target's tables were measured (not derived)
    # RecordingMicroAllocator's categories: name -> (used bytes incl. padding, requested, count)
    categories: Dict[str, Tuple[int, int, int]]
    unrecorded_bytes: int         # tail it does not categorise: allocator objects, options, handles
    buffers: Tuple[TflmBuffer, ...]
    upper_bound: bool             # unknown operators were costed with a bound: every size
                                  # is an upper bound, not TFLM's number
    unknown_ops: Tuple[str, ...]  # the operator kinds TFLM does not run (costed with the bound)

    @property
    def scratch_buffers(self):
        return tuple(b for b in self.buffers if b.tensor is None)


def unknown_ops(model: Model, target: str = "host64", kernels: str = "reference") -> Tuple[str, ...]:
    """The operator kinds of `model` that TFLM does not run on `target` with `kernels`
    (or whose kernel memcore does not model), in order of appearance."""
    return _unknown(_cgraph.from_model(model), model, _target_code(target), KERNELS.index(kernels))


def _unknown(graph, model, code, kernels):
    n = ffi.new("int64_t *")
    codes = ffi.new("int32_t[]", max(1, len(model.operators)))
    ll._check(lib.mc_tflm_unknown_ops(graph.graph, code, kernels, codes, len(model.operators), n),
              "%s: unknown operators" % model.path)
    return tuple(_cgraph.op_name(codes[i]) for i in range(min(n[0], len(model.operators))))


def tflm_arena(model: Model, target: str = "host64", kernels: str = "reference",
               allow_unknown: bool = False) -> TflmArena:
    """TFLM's arena for `model` on `target` with the "reference" or "optimised" kernels.
    Operators TFLM does not run are an error naming them; allow_unknown=True costs them
    with an upper bound instead (the result says upper_bound)."""
    if kernels not in KERNELS:
        raise MemcoreError("kernels must be 'reference' or 'optimised', got %r" % (kernels,))
    code = _target_code(target)
    if model.subgraph_count != 1:
        raise MemcoreError("%s: TFLM's arena is modelled for one subgraph, the model has %d"
                           % (model.path, model.subgraph_count))
    graph = _cgraph.from_model(model)
    unknown = _unknown(graph, model, code, KERNELS.index(kernels))
    if unknown and not allow_unknown:
        raise MemcoreError("%s: TFLM (%s) does not run %s: %s; allow unknown operators for an "
                           "upper bound" % (model.path, target, "this operator" if len(unknown) == 1
                                            else "these operators", ", ".join(unknown)))
    need = ffi.new("int64_t *")
    ll._check(lib.mc_tflm_model_scratch_bytes(graph.graph, need), "%s: TFLM arena scratch" % model.path)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    out = ffi.new("mc_tflm_model_arena_t *")
    flags = lib.MC_TFLM_ALLOW_UNKNOWN if allow_unknown else 0
    ll._check(lib.mc_tflm_model_arena(graph.graph, code, KERNELS.index(kernels), flags, scratch,
                                      need[0], out),
              "%s: TFLM arena (%s, %s kernels)" % (model.path, target, kernels))
    categories = {}
    for i, name in enumerate(CATEGORY_NAMES):
        u = out.categories[i]
        if u.used_bytes > 0 or u.requested_bytes > 0:  # as print_allocations() shows them
            categories[name] = (u.used_bytes, u.requested_bytes, u.count)
    buffers = tuple(TflmBuffer(bytes=b.bytes, offset=b.offset, first_use=b.first_use,
                               last_use=b.last_use, tensor=b.tensor if b.tensor >= 0 else None,
                               op=b.op if b.op >= 0 else None)
                    for b in (out.buffers[i] for i in range(out.n_buffers)))
    return TflmArena(head_bytes=out.head_bytes, tail_bytes=out.tail_bytes, total_bytes=out.total_bytes,
                     minimum_arena_bytes=out.minimum_arena_bytes,
                     recommended_arena_bytes=out.recommended_arena_bytes,
                     lower_bound_bytes=out.lower_bound_bytes, target=target, kernels=kernels,
                     measured=target_info(target).measured, categories=categories,
                     unrecorded_bytes=out.categories[lib.MC_TFLM_UNRECORDED].used_bytes,
                     buffers=buffers, upper_bound=bool(out.upper_bound), unknown_ops=unknown)
