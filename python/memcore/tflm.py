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
from memcore._memcore import ffi, lib
from memcore.cgraph import op_name
from memcore.errors import MemcoreError
from memcore.graph import Model
from memcore.targets import TARGET_NAMES, kernels_code, target_code

ARENA_ALIGNMENT = 16  # MicroArenaBufferAlignment()

TENSORS = "TfLiteEvalTensor data"
NODES = "NodeAndRegistration struct"
BUFFERS = "Persistent buffer data"
PERSISTENT_TENSORS = "Persistent TfLiteTensor data"
QUANTIZATION = "Persistent TfLiteTensor quantization data"
VARIABLES = "TfLiteTensor variable buffer data"

# pointer_bytes= of earlier versions: the target each width stood for.
_TARGET_OF_POINTER_BYTES = {8: "host64", 4: "esp32"}


# Each target in words, and how its tables were measured or why they are derived: the
# host's to print (the C core keeps the facts, the board never reports these).
_TARGET_WORDS = {
    "host64": ("64-bit Linux (LP64): the PyPI tflite-micro interpreter",
               "measured with the interpreter's RecordingMicroAllocator"),
    "armhf": ("32-bit Arm Linux (ILP32, 4-byte enums)",
              "TFLM built with arm-linux-gnueabihf-g++, compression on, run under qemu-arm"),
    "cortex-m": ("Arm Cortex-M, arm-none-eabi (1-byte enums)",
                 "reference kernels: TFLM built with arm-none-eabi-g++, compression on, run on an "
                 "emulated Cortex-M3; CMSIS-NN's sizes are from its sources, not measured"),
    "riscv32": ("RV32 ILP32",
                "derived from armhf: RV32 ILP32 lays structs out as armhf does (4-byte pointers and "
                "enums, 8-aligned 8-byte types)"),
    "esp32": ("Xtensa ESP32, esp-tflite-micro",
              "measured on Xtensa: esp-tflite-micro 99f49e14 (its own TFLM, compression off) with "
              "ESP-NN d45b843c's plain-ESP32 C kernels, built with xtensa-lx106-elf-g++ 12.2 "
              "(-mlongcalls and ESP-IDF's other flags) and run under qemu-system-xtensa (LX106 "
              "core: the ESP32's data layout)"),
}


@dataclass(frozen=True)
class Target:
    """A target's TFLM build as the C core's tables know it (mc_target_info), with the
    words that describe it."""
    name: str
    description: str
    tflm_version: str
    optimised_kernels: str       # what kernels="optimised" selects ("" when none)
    pointer_bytes: int
    enum_bytes: int
    int64_alignment: int
    compression: bool
    measured: bool
    derived_from: Optional[str]  # the measured target its tables are taken from
    note: str                    # how it was measured, or what it is derived from and why


def target_info(name: str) -> Target:
    out = ffi.new("mc_target_info_t *")
    ll._check(lib.mc_target_info(target_code(name), out), "target_info(%r)" % name)
    text = lambda p: ffi.string(p).decode()  # noqa: E731
    description, note = _TARGET_WORDS[name]
    return Target(name=name, description=description, tflm_version=text(out.tflm_version),
                  optimised_kernels=text(out.optimised_kernels), pointer_bytes=out.pointer_bytes,
                  enum_bytes=out.enum_bytes, int64_alignment=out.int64_alignment,
                  compression=bool(out.compression), measured=bool(out.measured),
                  derived_from=TARGET_NAMES[out.derived_from] if out.derived_from >= 0 else None,
                  note=note)


def unknown_ops(model: Model, target: str = "host64", kernels: str = "reference") -> Tuple[str, ...]:
    """The operator kinds of `model` that TFLM does not run on `target` with `kernels`,
    or whose kernel's allocations the op table does not hold, in order of appearance."""
    graph = model.c_graph()
    n = ffi.new("int64_t *")
    codes = ffi.new("int32_t[]", max(1, len(model.operators)))
    ll._check(lib.mc_tflm_unknown_ops(graph.graph, target_code(target), kernels_code(kernels), codes,
                                      len(model.operators), n), "%s: unknown operators" % model.path)
    return tuple(op_name(codes[i]) for i in range(min(n[0], len(model.operators))))


@dataclass(frozen=True)
class TflmArena:
    head_bytes: int               # activations and kernel scratch, TFLM's planner
    tail_bytes: int               # persistent runtime structures
    total_bytes: int              # head + tail: what TFLM reports after AllocateTensors
    minimum_arena_bytes: int      # the smallest arena AllocateTensors accepts
    recommended_arena_bytes: int  # pass this as the arena size (>= the minimum)
    target: str
    kernels: str
    upper_bound: bool             # unknown operators costed with a bound: every size is
                                  # an upper bound, not TFLM's number
    # RecordingMicroAllocator's categories: name -> (used bytes incl. padding, requested, count)
    categories: Dict[str, Tuple[int, int, int]]
    unknown_ops: int = 0          # operators costed with the bound
    # The head's buffers as TFLM plans them: (bytes, first, last scope + 1, owner) where
    # owner is a tensor index or -1 - k for a scratch buffer of operator k.
    buffers: Tuple[Tuple[int, int, int, int], ...] = ()
    # Each buffer's offset from the model's offline plan (OfflineMemoryAllocation), or -1
    # where TFLM's planner placed it; all -1 for a model without one.
    fixed_offsets: Tuple[int, ...] = ()
    offsets: Tuple[int, ...] = ()  # each buffer's offset in TFLM's head

    @property
    def measured(self):
        """Whether the target's tables were measured (not derived from another ABI)."""
        return target_info(self.target).measured

    @property
    def scratch_buffer_bytes(self):
        return sum(b[0] for b in self.buffers if b[3] < 0)

    @property
    def planning_bytes(self):
        """Kept for callers of the first version: the transient peak is the minimum."""
        return self.minimum_arena_bytes


def tflm_arena(model: Model, target: Optional[str] = None, kernels: str = "reference",
               pointer_bytes: Optional[int] = None, allow_unknown_ops: bool = False,
               resource_variables: Optional[int] = None) -> TflmArena:
    """TFLM's arena for `model` on `target` ("host64", "armhf", "cortex-m", "riscv32",
    "esp32") with `kernels` ("reference" or "optimised").  pointer_bytes=8/4 is the
    older spelling of target="host64"/"esp32".  resource_variables: how many the
    firmware's MicroResourceVariables holds (0: the interpreter has none); None, as
    TFLM's Python interpreter does, one per distinct VAR_HANDLE shared name."""
    if target is None:
        if pointer_bytes is not None and pointer_bytes not in _TARGET_OF_POINTER_BYTES:
            raise MemcoreError("pointer_bytes must be 4 or 8, got %r" % (pointer_bytes,))
        target = _TARGET_OF_POINTER_BYTES.get(pointer_bytes, "host64")
    t, k = target_code(target), kernels_code(kernels)
    flags = lib.MC_TFLM_ALLOW_UNKNOWN if allow_unknown_ops else 0
    if resource_variables is not None:
        if not 0 <= resource_variables <= lib.MC_TFLM_MAX_RESOURCE_VARIABLES:
            raise MemcoreError("resource_variables must be 0 to %d, got %r"
                               % (lib.MC_TFLM_MAX_RESOURCE_VARIABLES, resource_variables))
        flags |= (resource_variables + 1) << lib.MC_TFLM_RESOURCE_SHIFT
    graph = model.c_graph()
    sizes, first, last, owner = ll.tflm_buffers(graph, t, k, flags, model.path)
    fixed, offsets, head = ll.tflm_plan(graph, sizes, first, last, owner, model.path)
    r = ll.tflm_model(graph, t, k, flags, head.arena_bytes, len(sizes), model.path)
    names = {lib.MC_TFLM_EVAL_TENSORS: TENSORS, lib.MC_TFLM_NODES: NODES,
             lib.MC_TFLM_PERSISTENT_BUFFERS: BUFFERS, lib.MC_TFLM_PERSISTENT_TENSORS: PERSISTENT_TENSORS,
             lib.MC_TFLM_QUANTIZATION: QUANTIZATION, lib.MC_TFLM_VARIABLES: VARIABLES}
    # As print_allocations() shows them: categories with used or requested bytes.
    categories = {name: (r.categories[c].used_bytes, r.categories[c].requested_bytes, r.categories[c].count)
                  for c, name in names.items()
                  if r.categories[c].used_bytes or r.categories[c].requested_bytes}
    return TflmArena(head_bytes=r.head_bytes, tail_bytes=r.tail_bytes, total_bytes=r.total_bytes,
                     minimum_arena_bytes=r.minimum_arena_bytes,
                     recommended_arena_bytes=r.recommended_arena_bytes, target=target, kernels=kernels,
                     upper_bound=bool(r.upper_bound),
                     categories=categories, unknown_ops=r.unknown_ops,
                     buffers=tuple(zip(sizes, first, last, owner)), fixed_offsets=tuple(fixed),
                     offsets=tuple(offsets))


__all__ = ["Target", "TflmArena", "target_info", "tflm_arena", "unknown_ops"]
