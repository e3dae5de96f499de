"""The neutral graph as the C core holds it (mc_graph_t), and the one place its
problems become messages.

A TFLite file is read by the C reader straight into an mc_graph_t (read_tflite); an
ONNX model, imported in Python, is turned into one (from_model).  Either way the C core
validates it (mc_graph_validate) before anything is computed from it, and every
problem the C reports — a truncated file, a cycle, a tensor read before it is
written — is worded here, once, naming the operator and the tensor.
"""
import functools

from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError

DTYPE_CODES = {
    "float32": lib.MC_DTYPE_FLOAT32, "float16": lib.MC_DTYPE_FLOAT16, "int32": lib.MC_DTYPE_INT32,
    "uint8": lib.MC_DTYPE_UINT8, "int64": lib.MC_DTYPE_INT64, "string": lib.MC_DTYPE_STRING,
    "bool": lib.MC_DTYPE_BOOL, "int16": lib.MC_DTYPE_INT16, "complex64": lib.MC_DTYPE_COMPLEX64,
    "int8": lib.MC_DTYPE_INT8, "float64": lib.MC_DTYPE_FLOAT64, "complex128": lib.MC_DTYPE_COMPLEX128,
    "uint64": lib.MC_DTYPE_UINT64, "resource": lib.MC_DTYPE_RESOURCE, "variant": lib.MC_DTYPE_VARIANT,
    "uint32": lib.MC_DTYPE_UINT32, "uint16": lib.MC_DTYPE_UINT16, "int4": lib.MC_DTYPE_INT4,
    "bfloat16": lib.MC_DTYPE_BFLOAT16,
}
DTYPE_NAMES = {code: name for name, code in DTYPE_CODES.items()}
CUSTOM = 32  # TFLite's builtin code of a custom operator


@functools.lru_cache(maxsize=None)  # once per code, not once per operator of a large model
def op_name(code):
    """TFLite's name for a builtin operator code, from the C core's table."""
    name = lib.mc_op_name(code)
    return ffi.string(name).decode() if name != ffi.NULL else "builtin code %d" % code


_CODES = {}


def op_code(name):
    """The builtin operator code of a TFLite operator name ("CONV_2D" -> 3)."""
    if not _CODES:
        code = 0
        while True:
            text = lib.mc_op_name(code)
            if text == ffi.NULL and code > 255:
                break
            if text != ffi.NULL:
                _CODES[ffi.string(text).decode()] = code
            code += 1
    if name not in _CODES:
        raise MemcoreError("unknown TFLite operator %r" % (name,))
    return _CODES[name]


def tensor_shape(tensor):
    """A C tensor's shape, whatever width the reader kept its dims at (mc_tensor_dim);
    a rank past MC_MAX_DIMS (a graph the check refuses) shows the first MC_MAX_DIMS."""
    address = ffi.addressof(tensor)
    return tuple(lib.mc_tensor_dim(address, i) for i in range(max(0, min(tensor.rank, lib.MC_MAX_DIMS))))


def tensor_bytes(tensor):
    """A C tensor's byte size as TFLM computes it (mc_tensor_bytes), or -1 where its
    shape or type gives none (the check refuses such a graph, naming why)."""
    out = ffi.new("int64_t *")
    return out[0] if lib.mc_tensor_bytes(ffi.addressof(tensor), out) == lib.MC_PROBLEM_NONE else -1


class CGraph:
    """An mc_graph_t and the memory its arrays point into.

    `names` gives tensor names (for messages); `file` is the model's bytes when the
    names and custom operator codes live there."""

    def __init__(self, graph, keepalive, names=None, file=None):
        self.graph = graph
        self._keepalive = keepalive
        self._names = names
        self.file = file

    def tensor_name(self, t):
        if self._names is not None:
            return self._names[t]
        tensor = self.graph.tensors[t]
        if self.file is None or tensor.name_offset < 0:
            return ""
        return bytes(self.file[tensor.name_offset:tensor.name_offset + tensor.name_bytes]).decode(
            "utf-8", "replace")

    def op_kind(self, k):
        op = self.graph.ops[k]
        if op.kind == CUSTOM and op.options[1] >= 0 and self.file is not None:
            # a CUSTOM operator's code's name: where it starts in the file and its length
            custom = bytes(self.file[op.options[1]:op.options[1] + op.options[2]])
            return "custom operator %r" % custom.decode("utf-8", "replace")
        return op_name(op.kind)

    def validate(self, source):
        """Raises MemcoreError naming `source` unless the graph is valid (mc_graph_validate)."""
        need = ffi.new("int64_t *")
        rc = lib.mc_graph_validate_scratch_bytes(self.graph.n_tensors, need)
        if rc != lib.MC_OK:
            raise MemcoreError("%s: the model has %d tensors; memcore's limit is %d"
                               % (source, self.graph.n_tensors, lib.MC_MAX_TENSORS))
        scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
        problem = ffi.new("mc_problem_t *")
        rc = lib.mc_graph_validate(self.graph, scratch, need[0], problem)
        if rc != lib.MC_OK:
            raise MemcoreError("%s: %s" % (source, describe(rc, problem, self)))


def _tensor(graph, t):
    if graph is None or t < 0:
        return "tensor %d" % t
    name = graph.tensor_name(t)
    return "tensor %d (%s)" % (t, name) if name else "tensor %d" % t


def _op(graph, k):
    if graph is None or k < 0 or k >= graph.graph.n_ops:
        return "operator %d" % k
    return "operator %d (%s)" % (k, graph.op_kind(k))


def describe(rc, problem, graph=None, file_bytes=None):
    """One line for a failed read or validation: what is wrong, and where.  `graph`
    (a CGraph, when one exists) supplies operator kinds and tensor names."""
    kind = problem.kind
    text = ffi.string(lib.mc_problem_text(kind)).decode()
    p = lib
    if kind == p.MC_PROBLEM_NONE:
        return ffi.string(lib.mc_strerror(rc)).decode()
    if kind == p.MC_PROBLEM_PAST_END:
        size = " (%d bytes)" % file_bytes if file_bytes is not None else ""
        return "truncated or corrupted TFLite flatbuffer: an offset or length at byte %d points past the " \
               "end of the file%s" % (problem.at, size)
    if kind == p.MC_PROBLEM_BAD_TABLE:
        return "corrupted TFLite flatbuffer: the table at byte %d is malformed" % problem.at
    if kind == p.MC_PROBLEM_SCHEMA_VERSION:
        return "TFLite schema version %d, not 3: not a model TFLM reads" % problem.value
    if kind in (p.MC_PROBLEM_NOT_TFLITE, p.MC_PROBLEM_NO_SUBGRAPH):
        return text
    if kind == p.MC_PROBLEM_BAD_OPCODE:
        return "operator %d %s (code index %d)" % (problem.op, text, problem.value)
    if kind in (p.MC_PROBLEM_BAD_BUFFER, p.MC_PROBLEM_BUFFER_PAST_END):
        return "%s %s (buffer %d)" % (_tensor(graph, problem.tensor), text, problem.value)
    if kind == p.MC_PROBLEM_BAD_TENSOR_INDEX:
        n = graph.graph.n_tensors if graph is not None else None
        where = _op(graph, problem.op) if problem.op >= 0 else "the graph's inputs or outputs"
        return "%s refers to tensor %d, but the graph has %s tensors" % (
            where, problem.value, n if n is not None else "fewer")
    if kind == p.MC_PROBLEM_BAD_RANK:
        return "%s has %d dimensions; memcore reads at most %d" % (
            _tensor(graph, problem.tensor), problem.value, lib.MC_MAX_DIMS)
    if kind == p.MC_PROBLEM_SIZE_OVERFLOW and problem.tensor < 0:  # an operator's buffers or counts
        return "%s %s" % (_op(graph, problem.op), text)
    if kind in (p.MC_PROBLEM_DYNAMIC_SHAPE, p.MC_PROBLEM_SIZE_OVERFLOW, p.MC_PROBLEM_BAD_BYTES,
                p.MC_PROBLEM_SPARSE, p.MC_PROBLEM_EXTERNAL_DATA, p.MC_PROBLEM_ARENA_TOO_LARGE):
        shape = ""
        if graph is not None and 0 <= problem.tensor < graph.graph.n_tensors:
            t = graph.graph.tensors[problem.tensor]
            shape = " of shape %s" % list(tensor_shape(t))
        return "%s%s %s" % (_tensor(graph, problem.tensor), shape, text)
    if kind == p.MC_PROBLEM_BAD_DTYPE:
        return "%s has type %s, which has no fixed element size TFLM can allocate" % (
            _tensor(graph, problem.tensor), DTYPE_NAMES.get(problem.value, "code %d" % problem.value))
    if kind in (p.MC_PROBLEM_NO_OUTPUTS, p.MC_PROBLEM_BAD_OPERATOR):
        return "%s %s" % (_op(graph, problem.op), text)
    if kind in (p.MC_PROBLEM_WRITES_CONSTANT, p.MC_PROBLEM_WRITES_INPUT):
        return "%s %s, %s" % (_op(graph, problem.op), text, _tensor(graph, problem.tensor))
    if kind == p.MC_PROBLEM_KERNEL_REFUSES and problem.value >= 0:
        return _prepare_refusal(graph, problem)
    if kind in (p.MC_PROBLEM_KERNEL_REFUSES, p.MC_PROBLEM_MISSING_INPUT):
        return "%s %s" % (_op(graph, problem.op), text)
    if kind == p.MC_PROBLEM_ARENA_TOO_LARGE and problem.tensor < 0:
        return "the scratch buffer of %s (%d bytes) %s" % (_op(graph, problem.op), problem.value, text)
    if kind == p.MC_PROBLEM_WRITTEN_TWICE:
        return "%s is written by two operators: %s and %s" % (
            _tensor(graph, problem.tensor), _op(graph, problem.op), _op(graph, problem.other))
    if kind == p.MC_PROBLEM_CYCLE:
        if problem.other == problem.op:
            return "%s reads its own output, %s: the graph has a cycle" % (
                _op(graph, problem.op), _tensor(graph, problem.tensor))
        return "%s reads %s, which the later %s writes: the graph has a cycle" % (
            _op(graph, problem.op), _tensor(graph, problem.tensor), _op(graph, problem.other))
    if kind == p.MC_PROBLEM_READ_UNWRITTEN:
        return "%s reads %s before any operator writes it (it is not a graph input, a constant or a variable)" % (
            _op(graph, problem.op), _tensor(graph, problem.tensor))
    if kind == p.MC_PROBLEM_OUTPUT_UNWRITTEN:
        return "graph output %s is never written by any operator" % _tensor(graph, problem.tensor)
    if kind == p.MC_PROBLEM_RESOURCE_VARIABLES:
        return "%s names resource variable %d of %d, but the interpreter is built with %d " \
               "(MicroResourceVariables): TFLM's VAR_HANDLE refuses it in Prepare (var_handle.cc)" % (
                   _op(graph, problem.op), problem.value + 1, problem.other, problem.value)
    if kind == p.MC_PROBLEM_INTERMEDIATE_SIZE:
        return "%s lists %s of %d bytes as an intermediate: TFLM's allocator refuses any intermediate " \
               "that is not 0 bytes (micro_allocation_info.cc)" % (
                   _op(graph, problem.op), _tensor(graph, problem.tensor), problem.value)
    if kind == p.MC_PROBLEM_SUBGRAPHS and problem.op >= 0:
        return "%s calls subgraph %d, which the model does not have, or which nests control flow " \
               "deeper than %d levels" % (_op(graph, problem.op), problem.value, p.MC_MAX_NESTING)
    if kind == p.MC_PROBLEM_SUBGRAPHS:
        return "the model has %d subgraphs (control flow such as IF or WHILE) and its graph does " \
               "not say which tensors and operators are whose" % problem.value
    if kind == p.MC_PROBLEM_OFFLINE_PLAN:
        fmt = "TFLM's format (OfflineMemoryAllocation) is version 1, subgraph 0, then one offset per tensor"
        if problem.at == 0:
            return "the model has an offline memory plan of version %d; %s" % (problem.value, fmt)
        if problem.at == 1:
            return "the model has an offline memory plan for subgraph %d; %s" % (problem.value, fmt)
        if problem.at == 2:
            return "the model has an offline memory plan of %d offsets for its %d tensors; TFLM refuses it too" % (
                problem.value, problem.other)
        return "the model has an offline memory plan whose buffer (%d) is missing or shorter than its header " \
               "and offsets; %s" % (problem.value, fmt)
    if kind == p.MC_PROBLEM_PLAN_OFFSET:
        why = "is not a multiple of 16 bytes" if 0 <= problem.value < 2**31 and problem.value % 16 else \
            "is below -1" if problem.value < -1 else "ends past the 2 GiB TFLM's planner addresses"
        return "%s has offline offset %d, which %s" % (_tensor(graph, problem.tensor), problem.value, why)
    if kind == p.MC_PROBLEM_PLAN_OVERLAP:
        when = "before the first operator" if problem.op < 0 else "while %s runs" % _op(graph, problem.op)
        offsets = ""
        if graph is not None and graph.graph.offline_offsets != ffi.NULL:
            at = graph.graph.offline_offsets
            offsets = " (offsets %d and %d, %d and %d bytes)" % (
                at[problem.tensor], at[problem.value], tensor_bytes(graph.graph.tensors[problem.tensor]),
                tensor_bytes(graph.graph.tensors[problem.value]))
        return "the offline memory plan puts %s and %s at overlapping offsets%s, and both are live %s: " \
               "TFLM would corrupt one with the other (it does not check)" % (
                   _tensor(graph, problem.tensor), _tensor(graph, problem.value), offsets, when)
    if kind == p.MC_PROBLEM_UNKNOWN_OP:
        unknown = [k for k in range(graph.graph.n_ops) if not lib.mc_tflm_supports(graph.graph.ops[k].kind)] \
            if graph is not None else [problem.op]
        if not unknown:
            # TFLM registers the kind; what memcore lacks is the vendor library's kernel.
            return ("memcore does not model the optimised kernel TFLM runs for %s on this target "
                    "(--kernels reference is modelled; --allow-unknown-ops checks it as an upper bound)"
                    % _op(graph, problem.op))
        return "TFLM does not run %s: %s (--allow-unknown-ops checks it anyway, as an upper bound)" % (
            "this operator" if len(unknown) == 1 else "these %d operators" % len(unknown),
            ", ".join(_op(graph, k) for k in unknown[:20]) + (", ..." if len(unknown) > 20 else ""))
    if kind == p.MC_PROBLEM_TOO_LARGE:
        return "the model has %d tensors, operators or operator inputs; memcore's limits are %d tensors, " \
               "%d operators and %d operator inputs and outputs" % (
                   problem.value, lib.MC_MAX_TENSORS, lib.MC_MAX_OPS, lib.MC_MAX_OP_TENSORS)
    return text


# The TFLM source file of each kernel whose Prepare checks the C core holds
# (csrc/src/tflm_prepare.c), for the words of a refusal.
KERNEL_FILES = {
    "CEIL": "ceil.cc", "ROUND": "round.cc", "EXP": "exp.cc",
    "DEQUANTIZE": "dequantize_common.cc",
    "ADD_N": "add_n.cc", "BATCH_MATMUL": "batch_matmul.cc", "CONCATENATION": "concatenation.cc",
    "CONV_2D": "conv_common.cc", "DEPTHWISE_CONV_2D": "depthwise_conv_common.cc",
    "FULLY_CONNECTED": "fully_connected.cc", "TRANSPOSE_CONV": "transpose_conv.cc", "CUMSUM": "cumsum.cc",
    "GATHER": "gather.cc", "GATHER_ND": "gather_nd.cc",
    "L2_NORMALIZATION": "l2norm.cc", "AVERAGE_POOL_2D": "pooling_common.cc", "MAX_POOL_2D": "pooling_common.cc",
    "PRELU": "prelu_common.cc", "MEAN": "reduce_common.cc", "SUM": "reduce_common.cc",
    "REDUCE_MAX": "reduce_common.cc", "REDUCE_MIN": "reduce_common.cc", "REDUCE_ALL": "reduce_common.cc",
    "REVERSE_V2": "reverse.cc", "SELECT_V2": "select.cc", "SOFTMAX": "softmax_common.cc",
    "TRANSPOSE": "transpose_common.cc", "PAD": "pad_common.cc", "PADV2": "pad_common.cc",
    "STRIDED_SLICE": "strided_slice_common.cc", "RESIZE_BILINEAR": "resize_bilinear.cc",
    "RESIZE_NEAREST_NEIGHBOR": "resize_nearest_neighbor.cc", "DEPTH_TO_SPACE": "depth_to_space.cc",
    "SPACE_TO_DEPTH": "space_to_depth.cc", "BATCH_TO_SPACE_ND": "batch_to_space_nd.cc",
    "SPACE_TO_BATCH_ND": "space_to_batch_nd.cc", "BROADCAST_TO": "broadcast_to.cc",
    "DYNAMIC_UPDATE_SLICE": "dynamic_update_slice.cc",
}
_ROLES = {1: "input 0", 2: "input 1", 3: "input 2", 4: "output 0"}


def _dtypes(mask):
    return [name for code, name in sorted(DTYPE_NAMES.items()) if mask >> code & 1]


def _ranks(mask):
    ranks = [r for r in range(lib.MC_MAX_DIMS + 1) if mask >> r & 1]
    if len(ranks) == 1:
        return "rank %d" % ranks[0]
    if ranks[0] == 0:
        return "rank at most %d" % ranks[-1]
    return "rank %d or more" % ranks[0] if ranks[-1] == lib.MC_MAX_DIMS else "rank %d to %d" % (ranks[0], ranks[-1])


def _prepare_refusal(graph, problem):
    """The words of a kernel's Prepare check the operator fails (mc_tflm_prepare_check)."""
    c = ffi.new("mc_tflm_prepare_check_t *")
    if lib.mc_tflm_prepare_check(problem.value, c) != lib.MC_OK:
        return "%s is refused by TFLM's kernel in Prepare" % _op(graph, problem.op)
    kind = op_name(c.code)
    where = "TFLM's %s kernel (%s) refuses it in Prepare" % (kind, KERNEL_FILES.get(kind, "its kernel"))
    op = graph.graph.ops[problem.op] if graph is not None and 0 <= problem.op < graph.graph.n_ops else None
    if c.kind == lib.MC_CHECK_INPUTS:
        n = " %d" % op.n_inputs if op is not None else ""
        return "%s: %s: it has%s inputs; the kernel takes at most %d" % (_op(graph, problem.op), where, n, c.allowed)
    t = graph.graph.tensors[problem.tensor] if graph is not None and problem.tensor >= 0 else None
    who = "%s, %s," % (_ROLES.get(c.role, "a tensor"), _tensor(graph, problem.tensor))
    if c.kind == lib.MC_CHECK_RANK:
        has = " has rank %d" % t.rank if t is not None else " has another rank"
        what = "%s%s; the kernel takes %s" % (who, has, _ranks(c.allowed))
    else:
        has = " is %s" % DTYPE_NAMES.get(t.dtype, "of type %d" % t.dtype) if t is not None else " has another type"
        allowed = _dtypes(c.allowed)
        what = "%s%s; the kernel takes %s" % (who, has, " or ".join(allowed) + (" only" if len(allowed) == 1 else ""))
    if c.when_role != lib.MC_CHECK_ALWAYS:
        what = "with %s %s, %s" % (_ROLES[c.when_role], " or ".join(_dtypes(c.when_dtypes)), what)
    return "%s: %s: %s" % (_op(graph, problem.op), where, what)


def read_tflite(data, source):
    """The C reader over a .tflite file's bytes: a CGraph, or MemcoreError naming
    `source` and the problem.  Structure only: validate() checks the dataflow."""
    buffer = ffi.from_buffer(data)
    src = ffi.new("mc_source_t *")
    src.read = ffi.NULL
    src.data = ffi.cast("const uint8_t *", buffer)
    src.file_bytes = len(data)
    size = ffi.new("mc_tflite_size_t *")
    problem = ffi.new("mc_problem_t *")
    rc = lib.mc_tflite_size(src, size, problem)
    if rc != lib.MC_OK:
        raise MemcoreError("%s: %s" % (source, describe(rc, problem, file_bytes=len(data))))
    scratch = ffi.new("int64_t[]", max(1, (size.scratch_bytes + 7) // 8))
    graph = ffi.new("mc_graph_t *")
    rc = lib.mc_tflite_read(src, scratch, size.scratch_bytes, graph, problem)
    partial = CGraph(graph, (scratch, buffer, src), file=data)
    if rc != lib.MC_OK:
        # The arrays are filled up to the failure; names of earlier tensors are valid,
        # but the graph itself is not: describe without it.
        raise MemcoreError("%s: %s" % (source, describe(rc, problem, file_bytes=len(data))))
    return partial


def _saturate16(value):
    """A field the graph only shows, within 16 bits, as the C reader keeps a file's."""
    return max(-2**15, min(2**15 - 1, value))


def from_model(model):
    """The mc_graph_t of a memcore Model built in Python (the ONNX importer's), so the
    C core validates and checks it exactly as it does a TFLite file."""
    tensors = model.tensors
    n = len(tensors)
    c_tensors = ffi.new("mc_tensor_t[]", max(1, n))
    c_dims = ffi.new("int32_t[]", max(1, sum(len(t.shape) for t in tensors)))
    at = 0
    for i, t in enumerate(tensors):
        c = c_tensors[i]
        if len(t.shape) > lib.MC_MAX_DIMS:
            raise MemcoreError("%s: tensor %d (%s) has %d dimensions; memcore reads at most %d"
                               % (model.path, i, t.name, len(t.shape), lib.MC_MAX_DIMS))
        c.rank = len(t.shape)
        for d, size in enumerate(t.shape):
            if not -2**31 <= size < 2**31:
                raise MemcoreError("%s: tensor %d (%s) has an impossible dimension in shape %s"
                                   % (model.path, i, t.name, list(t.shape)))
            c_dims[at + d] = size
        c.dims = c_dims + at
        at += len(t.shape)
        c.dtype = DTYPE_CODES.get(t.dtype, lib.MC_DTYPE_STRING)
        c.name_offset = -1
        c.quant_channels = t.quantization_channels
        c.quant_dimension = _saturate16(t.quantization_dimension)
        c.flags = ((lib.MC_TENSOR_CONSTANT if t.is_constant else 0) |
                   (lib.MC_TENSOR_VARIABLE if t.is_variable else 0) |
                   (lib.MC_TENSOR_ZERO_POINT if t.has_zero_point else 0))
    ops = model.operators
    flat = []
    c_ops = ffi.new("mc_op_t[]", max(1, len(ops)))
    c_options = ffi.new("int32_t[]", max(1, len(ops)) * lib.MC_OP_OPTIONS)
    for k, op in enumerate(ops):
        c = c_ops[k]
        c.kind = op.code if op.code >= 0 else op_code(op.kind)
        c.version = _saturate16(op.version)
        c.options_type = op.options_type
        for f, value in enumerate(op.options[:lib.MC_OP_OPTIONS]):
            if not -2**31 <= value < 2**31:  # an ONNX attribute (a stride, ...) the builder let through
                raise MemcoreError("%s: operator %d (%s): builtin option %d is %d, which does not fit in 32 bits"
                                   % (model.path, k, op.kind, f, value))
            c_options[k * lib.MC_OP_OPTIONS + f] = value
        c.options = c_options + k * lib.MC_OP_OPTIONS
        c.first_input, c.n_inputs = len(flat), len(op.inputs)
        flat.extend(op.inputs)
        c.first_output, c.n_outputs = len(flat), len(op.outputs)
        flat.extend(op.outputs)
        c.first_intermediate, c.n_intermediates = len(flat), len(op.intermediates)
        flat.extend(op.intermediates)
    c_flat = ffi.new("int32_t[]", flat or [0])
    c_in = ffi.new("int32_t[]", list(model.inputs) or [0])
    c_out = ffi.new("int32_t[]", list(model.outputs) or [0])
    graph = ffi.new("mc_graph_t *")
    graph.tensors, graph.ops, graph.op_tensors = c_tensors, c_ops, c_flat
    graph.inputs, graph.outputs = c_in, c_out
    graph.n_tensors, graph.n_ops, graph.n_op_tensors = n, len(ops), len(flat)
    graph.n_inputs, graph.n_outputs = len(model.inputs), len(model.outputs)
    graph.n_subgraphs = model.subgraph_count
    graph.flags = 0
    return CGraph(graph, (c_tensors, c_dims, c_ops, c_options, c_flat, c_in, c_out), names=[t.name for t in tensors])


__all__ = ["CGraph", "DTYPE_CODES", "DTYPE_NAMES", "describe", "from_model", "op_code", "op_name", "read_tflite"]
