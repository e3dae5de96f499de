"""TensorFlow Lite Micro's whole tensor arena for a model: head, tail, and what to give it.

TFLM splits its arena in two.  The head (non-persistent, from the start) holds the
activations, placed by its GreedyMemoryPlanner: `Model.plan("tflm")` reproduces it.
The tail (persistent, down from the 16-aligned end) holds the runtime's own structures,
allocated in a fixed order.  This module knows that order and the size of every
structure for a pointer width; the C core (mc_tflm_arena) runs the allocations with
their alignment padding and adds up.

Sources.  Pointer width 8: measured with the PyPI `tflite-micro` interpreter
(0.dev20261023182759, x86-64, RecordingMicroAllocator) by truncating the 8 shared models
after every operator (74 graphs) and reading print_allocations(); every value below
reproduced head and tail of all 74 to the byte, and each is consistent with the struct
named beside it.  Pointer width 4 (ESP32, Cortex-M): derived from the same structs'
layouts with 4-byte pointers and size_t, NOT measured; calibrate on the target.

Operator kinds without measured constants are estimated with DEFAULT_* (conservative:
larger than any measured kind) and listed in TflmArena.estimated_kinds.
"""
from dataclasses import dataclass
from typing import Dict, Tuple

from memcore import _lowlevel as ll
from memcore.errors import MemcoreError
from memcore.graph import Model

ARENA_ALIGNMENT = 16  # MicroArenaBufferAlignment()

# Per-pointer-width struct sizes in bytes.
STRUCTS = {
    8: {
        # RecordingSingleArenaBufferAllocator, GreedyMemoryPlanner, RecordingMicroAllocator,
        # MicroBuiltinDataAllocator (16) and SubgraphAllocations (16 per subgraph), all placed
        # in the tail at construction.  Fitted: the one free constant, identical on all 74
        # measured graphs.
        "allocator_objects": 488,
        "eval_tensor": 24,        # TfLiteEvalTensor {data ptr, dims ptr, type}: 8+8+4, padded
        "node_and_registration": 64,  # TfLiteNode (6 ptrs + int = 56) + TFLMRegistration* 8
        "tflite_tensor": 64,      # persistent TfLiteTensor (static-memory build)
        "affine_quantization": 24,  # TfLiteAffineQuantization {scale*, zero_point*, int32}
        "scratch_request": 16,    # ScratchBufferRequest {size_t bytes; int node; int subgraph}
        "allocation_info": 32,    # AllocationInfo {size_t, void**, 3 ints, bool}
        "subgraph_offset": 8,     # size_t per subgraph
    },
    4: {
        # Every member of the allocator objects is a pointer or size_t: half of 488,
        # rounded up to the 8-byte alignment of the tail.  Derived, not measured.
        "allocator_objects": 248,
        "eval_tensor": 12,        # 4+4+4
        "node_and_registration": 32,  # TfLiteNode 6*4+4 = 28, + 4
        "tflite_tensor": 40,      # type, data, dims, params(8), allocation_type, bytes,
                                  # quantization(8), is_variable: 37 -> 40
        "affine_quantization": 12,
        "scratch_request": 12,
        "allocation_info": 24,    # 4+4+4*3+1 = 21 -> 24
        "subgraph_offset": 4,
    },
}

# Builtin options struct (size, alignment) per op, parsed by flatbuffer_conversions.cc
# into MicroBuiltinDataAllocator; no pointers, so the same on both widths.
BUILTIN_DATA = {
    "CONV_2D": (28, 4),            # TfLiteConvParams: 7 ints/enums
    "DEPTHWISE_CONV_2D": (28, 4),  # TfLiteDepthwiseConvParams: 7 ints/enums
    "AVERAGE_POOL_2D": (40, 4),    # TfLitePoolParams: 6 ints + TfLitePaddingValues (16)
    "MAX_POOL_2D": (40, 4),
    # Measured 32 B and 8-aligned (it costs 36 when the tail sits at 4 mod 8): this build's
    # TfLiteFullyConnectedParams carries an 8-byte member beyond the declared fields.
    "FULLY_CONNECTED": (32, 8),
    "SOFTMAX": (4, 4),             # TfLiteSoftmaxParams {float beta}
    "RESHAPE": (36, 4),            # TfLiteReshapeParams {int shape[8]; int num_dimensions}
    "ADD": (8, 4),                 # TfLiteAddParams {activation; bool pot_scale_int16}
    "LOGISTIC": (0, 1),            # no options
}

# Kernel OpData allocated by each kernel's Init() (AllocatePersistentBuffer, 16-aligned,
# "Persistent buffer data"), per pointer width.
KERNEL_DATA = {
    8: {
        "CONV_2D": 80, "DEPTHWISE_CONV_2D": 80,    # OpDataConv
        "AVERAGE_POOL_2D": 32, "MAX_POOL_2D": 32,  # OpDataPooling (no pointers)
        "FULLY_CONNECTED": 72,                     # OpDataFullyConnected
        "SOFTMAX": 80,                             # SoftmaxParams
        "ADD": 60,                                 # OpDataAdd (no pointers)
        "LOGISTIC": 16,                            # OpDataLogistic (no pointers)
        "RESHAPE": 0,                              # no Init data
    },
    4: {
        "CONV_2D": 72, "DEPTHWISE_CONV_2D": 72,    # two int32* fields shrink by 4 each
        "AVERAGE_POOL_2D": 32, "MAX_POOL_2D": 32,
        "FULLY_CONNECTED": 64,                     # pointer fields shrink
        "SOFTMAX": 64,                             # a double and several pointers
        "ADD": 60, "LOGISTIC": 16, "RESHAPE": 0,
    },
}

# Kinds not measured: larger than every measured one, so the arena errs high.
DEFAULT_BUILTIN_DATA = (64, 8)
DEFAULT_KERNEL_DATA = 128

# Kernels whose Prepare() allocates per-channel output multiplier and shift (int32 each).
# CONV and DEPTHWISE do it for float models too; FULLY_CONNECTED only when its filter is
# quantized per channel.
_PER_CHANNEL_ALWAYS = ("CONV_2D", "DEPTHWISE_CONV_2D")

_PLANNER_BYTES_PER_BUFFER = 40  # GreedyMemoryPlanner::per_buffer_size(): 16+4+4+12+4, no pointers
_MAX_SCRATCH_PER_OP = 12        # kMaxScratchBuffersPerOp

TENSORS = "TfLiteEvalTensor data"
NODES = "NodeAndRegistration struct"
BUFFERS = "Persistent buffer data"
PERSISTENT_TENSORS = "Persistent TfLiteTensor data"
QUANTIZATION = "Persistent TfLiteTensor quantization data"


@dataclass(frozen=True)
class TflmArena:
    head_bytes: int               # activations, TFLM's planner (= Model.plan("tflm"))
    tail_bytes: int               # persistent runtime structures
    total_bytes: int              # head + tail: what TFLM reports after AllocateTensors
    planning_bytes: int           # transient peak while TFLM plans the head
    recommended_arena_bytes: int  # pass this as the arena size: max(total, planning)
    pointer_bytes: int
    measured: bool                # constants measured for this width (8) or derived (4)
    # RecordingMicroAllocator's categories: name -> (used bytes incl. padding, requested, count)
    categories: Dict[str, Tuple[int, int, int]]
    estimated_kinds: Tuple[str, ...]  # op kinds costed with the DEFAULT_* estimates


def _requests(model: Model, pointer_bytes: int):
    """The tail's allocation sequence: [(bytes, alignment, category or None)], and how
    many of them happen before the head is planned."""
    s = STRUCTS[pointer_bytes]
    kernel = KERNEL_DATA[pointer_bytes]
    kinds = [op.kind for op in model.operators]
    requests = [
        (s["allocator_objects"], 8, None),
        (s["eval_tensor"] * len(model.tensors), 8, TENSORS),
        (s["node_and_registration"] * len(model.operators), 8, NODES),
    ]
    # PrepareNodeAndRegistrationDataFromFlatbuffer: every op's options, in op order.
    for kind in kinds:
        size, alignment = BUILTIN_DATA.get(kind, DEFAULT_BUILTIN_DATA)
        if size:
            requests.append((size, alignment, None))
    # InitSubgraphs: every kernel's Init(), in op order.
    for kind in kinds:
        size = kernel.get(kind, DEFAULT_KERNEL_DATA)
        if size:
            requests.append((size, ARENA_ALIGNMENT, BUFFERS))
    # PrepareSubgraphs: every kernel's Prepare().
    for op in model.operators:
        channels = op.attributes.get("output_channels")
        if channels is None:
            continue
        if op.kind in _PER_CHANNEL_ALWAYS or op.attributes.get("per_channel") or op.kind not in kernel:
            requests.append((4 * channels, ARENA_ALIGNMENT, BUFFERS))
            requests.append((4 * channels, ARENA_ALIGNMENT, BUFFERS))
    before_planning = len(requests)
    # MicroInterpreter::AllocateTensors after planning: input then output TfLiteTensors.
    for indices in (model.inputs, model.outputs):
        requests.append((pointer_bytes * len(indices), ARENA_ALIGNMENT, BUFFERS))
        for i in indices:
            t = model.tensors[i]
            requests.append((s["tflite_tensor"], 8, PERSISTENT_TENSORS))
            if t.quantization_channels > 0 and t.has_zero_point:
                requests.append((s["affine_quantization"], pointer_bytes, QUANTIZATION))
                requests.append((4 + 4 * t.quantization_channels, 4, QUANTIZATION))
    return requests, before_planning


def _planning_requests(model: Model, pointer_bytes: int, planned_buffers: int):
    """Temporaries CommitStaticMemoryPlan takes from the head side while planning."""
    s = STRUCTS[pointer_bytes]
    return [
        (s["scratch_request"] * _MAX_SCRATCH_PER_OP, 8),
        (s["subgraph_offset"] * model.subgraph_count, 8),
        (s["allocation_info"] * len(model.tensors), ARENA_ALIGNMENT),
        (_PLANNER_BYTES_PER_BUFFER * planned_buffers, 1),
    ]


def tflm_arena(model: Model, pointer_bytes: int = 8) -> TflmArena:
    """TFLM's arena for `model` on a target with `pointer_bytes`-byte pointers (8: a
    64-bit host, measured; 4: ESP32 / Cortex-M, derived)."""
    if pointer_bytes not in STRUCTS:
        raise MemcoreError("pointer_bytes must be 4 or 8, got %r" % (pointer_bytes,))
    if model.subgraph_count != 1:
        raise MemcoreError("%s: TFLM's arena is modelled for one subgraph, the model has %d"
                           % (model.path, model.subgraph_count))
    head = model.plan("tflm", alignment=ARENA_ALIGNMENT)
    requests, before_planning = _requests(model, pointer_bytes)
    raw = ll.tflm_arena(head.arena_bytes, [(b, a) for b, a, _ in requests], before_planning,
                        _planning_requests(model, pointer_bytes, len(head.offsets)))
    used, _ = ll.bump_allocate([(b, a) for b, a, _ in requests])
    categories = {}
    for (nbytes, _, category), used_bytes in zip(requests, used):
        if category is None:
            continue
        u, r, c = categories.get(category, (0, 0, 0))
        categories[category] = (u + used_bytes, r + nbytes, c + 1)
    for name, per in ((TENSORS, len(model.tensors)), (NODES, len(model.operators))):
        if name in categories:  # TFLM counts these per struct, not per allocation
            u, r, _ = categories[name]
            categories[name] = (u, r, per)
    estimated = tuple(sorted({k for k in (op.kind for op in model.operators)
                              if k not in KERNEL_DATA[pointer_bytes] or k not in BUILTIN_DATA}))
    return TflmArena(head_bytes=raw.head_bytes, tail_bytes=raw.tail_bytes, total_bytes=raw.total_bytes,
                     planning_bytes=raw.planning_bytes,
                     recommended_arena_bytes=raw.recommended_arena_bytes, pointer_bytes=pointer_bytes,
                     measured=pointer_bytes == 8, categories=categories, estimated_kinds=estimated)
