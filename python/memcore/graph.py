"""The neutral graph every importer produces, and what is computed from it.

Importers (memcore.tflite, memcore.onnx_import) turn a model file into a `Model`:
tensors with shape, dtype, bytes and whether they are constant; operators in execution
order with their input/output tensor indices and operation counts.  Everything after
that (lifetimes, arena plans, TFLM's arena, reports) reads only this module's types.

Counting conventions, in one place:

- `Tensor.bytes` is TFLM's: product of the shape (a scalar has element count 1) times
  the dtype's element size (`DTYPE_BYTES`; int4 is stored one value per byte, as TFLM
  does).
- `Model.parameter_count` is the number of values in constant tensors (weights, biases
  and small constant operands such as a RESHAPE's target shape); `Model.weight_bytes`
  their bytes: data a microcontroller keeps in flash.  `Model.activation_bytes` sums
  the non-constant, non-variable tensors: data that must be in RAM (before reuse).
- `Operator.macs` counts multiply-accumulates, which only convolution, depthwise
  convolution and fully connected (matrix multiply) perform:
    conv            output elements x kernel_h x kernel_w x input channels / groups
    depthwise conv  output elements x kernel_h x kernel_w
    fully connected output elements x input features
  `Operator.other_ops` counts the remaining arithmetic, one per element visited:
    pooling         output elements x kernel_h x kernel_w (compare or add)
    global pooling  input elements
    element-wise    output elements (ADD, SUB, MUL, activations, softmax, ...)
    data movement   0 (RESHAPE, CONCATENATION, PAD, ...)
  Total operations = 2 x macs + other_ops.  These match the ground truth's
  `total_macs` (which counts only the MAC layers).
- Lifetimes use TFLM's scopes (memcore.h, mc_tflm_buffers): scope 0 is before the
  first operator, operator k runs at scope k + 1; graph outputs are live to the end.
"""
from dataclasses import dataclass, field, fields
from typing import Dict, Mapping, Optional, Tuple

from memcore import _lowlevel as ll
from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError, os_error_hint, with_hint
from memcore.planner import Plan, plan as _plan

# Element sizes in bytes, as TFLM's TfLiteTypeSizeOf (int4 is unpacked: one per byte).
DTYPE_BYTES = {
    "float32": 4, "float16": 2, "bfloat16": 2, "float64": 8,
    "int4": 1, "int8": 1, "uint8": 1, "bool": 1,
    "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
    "complex64": 8, "complex128": 16,
}


@dataclass(frozen=True)
class Tensor:
    index: int                       # position in Model.tensors
    name: str
    shape: Tuple[int, ...]           # static shape; () is a scalar
    dtype: str                       # a key of DTYPE_BYTES
    bytes: int                       # element count x element size
    is_constant: bool                # has data in the file: flash on a microcontroller
    is_variable: bool = False        # state kept between invocations (TFLM allocates it apart)
    quantization_channels: int = 0   # number of quantization scales (0: not quantized)
    has_zero_point: bool = False     # the quantization also carries zero points
    quantization_dimension: int = 0  # the axis per-channel scales run along

    @property
    def elements(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    @property
    def needs_allocating(self) -> bool:
        """True when the activation arena must hold it (TFLM's rule: no data in the
        file, not a variable, not empty)."""
        return not self.is_constant and not self.is_variable and self.bytes != 0


@dataclass(frozen=True)
class Operator:
    index: int                       # position in execution order
    kind: str                        # TFLite builtin name: "CONV_2D", "ADD", ...
    inputs: Tuple[int, ...]          # tensor indices; -1 is an absent optional input
    outputs: Tuple[int, ...]
    macs: int = 0                    # multiply-accumulates (see the module docstring)
    other_ops: int = 0               # non-MAC arithmetic (see the module docstring)
    weight_bytes: int = 0            # bytes of its constant inputs
    # Op-specific facts the runtime-overhead model needs, by key:
    #   "output_channels"  conv / depthwise / fully connected: output channels
    #   "per_channel"      the filter has more than one quantization scale
    #   "kernel_hw", "stride_hw"  convolution and pooling windows
    attributes: Mapping[str, object] = field(default_factory=dict)
    code: int = -1                   # TFLite BuiltinOperator code (-1: the kind's, looked up)
    version: int = 1                 # the operator code's version
    options_type: int = 0            # TFLite BuiltinOptions code of `options`
    options: Tuple[int, ...] = ()    # builtin options as scalars in schema order (mc_op_t.options)
    intermediates: Tuple[int, ...] = ()

    @property
    def operations(self) -> int:
        return 2 * self.macs + self.other_ops


@dataclass(frozen=True)
class Model:
    path: str
    format: str                      # "tflite" or "onnx"
    tensors: Tuple[Tensor, ...]
    operators: Tuple[Operator, ...]  # execution order
    inputs: Tuple[int, ...]          # graph input tensor indices
    outputs: Tuple[int, ...]         # graph output tensor indices
    subgraph_count: int = 1
    file_bytes: Optional[int] = None  # the model file's size, when it is the file deployed (TFLite)
    # Set when this graph is an estimate made from another file (memcore.quantise.as_int8):
    # that file's path.
    estimated_from: Optional[str] = None
    # How an imported graph was planned for deployment (ONNX: the rewrites the TFLite
    # converter would make, and what was left as it is), in words, one per line.
    conversion: Tuple[str, ...] = ()
    # The C core's copy of the graph (memcore.cgraph.CGraph), kept from the C reader for
    # TFLite files and built on first use for models imported in Python.
    _cgraph: object = field(default=None, compare=False, repr=False)

    def c_graph(self):
        """The graph as the C core reads it (memcore.cgraph.CGraph)."""
        if self._cgraph is None:
            from memcore.cgraph import from_model
            object.__setattr__(self, "_cgraph", from_model(self))
        return self._cgraph

    @property
    def parameter_count(self) -> int:
        return sum(t.elements for t in self.tensors if t.is_constant)

    @property
    def weight_bytes(self) -> int:
        return sum(t.bytes for t in self.tensors if t.is_constant)

    @property
    def activation_bytes(self) -> int:
        """All activation tensors added up, with no reuse: the naive RAM figure that
        an arena plan improves on."""
        return sum(t.bytes for t in self.tensors if not t.is_constant and not t.is_variable)

    @property
    def macs(self) -> int:
        return sum(op.macs for op in self.operators)

    @property
    def operations(self) -> int:
        return sum(op.operations for op in self.operators)

    @property
    def planned_tensors(self) -> Tuple[int, ...]:
        """Indices of the tensors the activation arena holds, in TFLM's order (with an
        offline plan, the variable tensors it places too)."""
        fixed = self.offline_offsets
        return tuple(t.index for t in self.tensors
                     if t.needs_allocating or (t.is_variable and fixed.get(t.index, -1) != -1))

    @property
    def offline_offsets(self) -> Dict[int, int]:
        """The file's offline memory plan (OfflineMemoryAllocation metadata): {tensor
        index: offset} for every tensor, -1 where TFLM plans it itself; {} without one."""
        if self.format != "tflite":
            return {}
        g = self.c_graph().graph
        if not g.flags & lib.MC_GRAPH_OFFLINE_PLAN or g.offline_offsets == ffi.NULL:
            return {}
        return dict(enumerate(g.offline_offsets[0:g.n_tensors]))

    def _tensor_buffers(self):
        """The activation tensors of TFLM's head, with TFLM's lifetimes shifted by one
        (the C core's mc_tflm_buffers; kernel scratch buffers left out)."""
        from memcore.targets import KERNELS, TARGETS
        sizes, first, last, owner = ll.tflm_buffers(self.c_graph(), TARGETS["host64"], KERNELS["reference"],
                                                    lib.MC_TFLM_ALLOW_UNKNOWN, self.path)
        return [(o, s, f, l) for s, f, l, o in zip(sizes, first, last, owner) if o >= 0]

    def lifetimes(self) -> Dict[int, Tuple[int, int]]:
        """{tensor index: (first scope, last scope)} for every planned tensor, with
        TFLM's rules (computed by the C core): scope 0 is before the first operator,
        operator k runs at scope k + 1.  A planned tensor no operator touches gets
        (-1, -1), as in TFLM."""
        return {t: (f - 1, l - 1) for t, _, f, l in self._tensor_buffers()}

    def plan(self, strategy: str = "tflm", alignment: int = 16, budget_steps: Optional[int] = None) -> Plan:
        """The activation arena: `Plan.offsets` is {tensor index: byte offset} for
        every planned tensor (see `planned_tensors`); `arena_bytes` for "tflm" is
        TFLM's reported head when the kernels ask for no scratch buffers; `budget_steps`
        as for memcore.plan."""
        buffers = self._tensor_buffers()
        sizes, first, last = [s for _, s, _, _ in buffers], [f for _, _, f, _ in buffers], [l for _, _, _, l in buffers]
        if strategy == "tflm" and alignment == 16:  # around the file's offline plan, when it has one
            _, offsets, raw = ll.tflm_plan(self.c_graph(), sizes, first, last, [t for t, _, _, _ in buffers],
                                           self.path)
            return Plan(raw.arena_bytes, dict(zip([t for t, _, _, _ in buffers], offsets)), raw.lower_bound_bytes,
                        strategy, bool(raw.proven_optimal), raw.steps)
        raw = _plan(sizes, first, last, alignment=alignment, strategy=strategy, budget_steps=budget_steps)
        return Plan(raw.arena_bytes, dict(zip([t for t, _, _, _ in buffers], raw.offsets)), raw.lower_bound_bytes,
                    strategy, raw.proven_optimal, raw.steps)

    def tensor(self, name: str) -> Optional[Tensor]:
        for t in self.tensors:
            if t.name == name:
                return t
        return None


def positional(cls):
    """A constructor of the frozen dataclass `cls` from every one of its fields, in
    order, that skips the generated __init__ (which sets each field through
    object.__setattr__): an Operator in 2.4 us instead of 5.4, which counts when an
    importer makes 200,000 of them.  The instance equals the one __init__ makes."""
    names = tuple(f.name for f in fields(cls))
    new = object.__new__

    def make(*values):
        obj = new(cls)
        obj.__dict__.update(zip(names, values))
        return obj
    return make


def bad_model(path, problem: str) -> MemcoreError:
    """The one error an importer raises: names the file and the problem."""
    return MemcoreError("%s: %s" % (path, problem))


def load(path, input_shapes=None) -> Model:
    """Reads a .tflite or .onnx file into a Model.  The format is recognised from the
    file's content (a TFLite flatbuffer carries "TFL3" at byte 4), not its name.
    `input_shapes` ({graph input name: shape}) fixes an ONNX model's dynamic dimensions."""
    import os

    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise with_hint(bad_model(path, "cannot read the file: %s" % e.strerror), os_error_hint(e, path)) from None
    if len(data) == 0:
        raise bad_model(path, "the file is empty")
    if data[4:8] == b"TFL3":
        if input_shapes:
            raise bad_model(path, "--input-shape is for an ONNX model's dynamic dimensions; a TFLite file's "
                                  "input shapes are fixed when it is converted")
        from memcore.tflite import load_tflite
        return load_tflite(path, data)
    if path.lower().endswith(".tflite"):
        raise bad_model(path, "not a TFLite flatbuffer (no TFL3 identifier at byte 4); "
                              "the file is truncated, corrupted or in another format")
    from memcore.cgraph import from_model
    from memcore.onnx_import import load_onnx
    model = load_onnx(path, data, input_shapes)
    # The same dataflow rules as a TFLite file's, checked by the same C (cycles, tensors
    # read before they are written, tensors written twice, ...).
    from_model(model).validate(path)
    return model
