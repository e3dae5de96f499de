"""A memcore Model as the C core's neutral graph (memcore.h section 8, mc_graph_t).

Only converts: names to codes (through the C core's op table), tensors and operators
into cffi structs.  The returned object keeps every buffer alive for as long as the
graph is used.
"""
from memcore import _lowlevel as ll
from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError

# TFLite TensorType codes (schema.fbs), as mc_dtype_t numbers them.
DTYPE_CODES = {
    "float32": 0, "float16": 1, "int32": 2, "uint8": 3, "int64": 4, "string": 5, "bool": 6,
    "int16": 7, "complex64": 8, "int8": 9, "float64": 10, "complex128": 11, "uint64": 12,
    "resource": 13, "variant": 14, "uint32": 15, "uint16": 16, "int4": 17, "bfloat16": 18,
}


def op_code(name):
    """The TFLite builtin code of an operator name, or None when TFLite has no such op."""
    code = ffi.new("int32_t *")
    if lib.mc_tflm_op_code(name.encode(), code) != lib.MC_OK:
        return None
    return code[0]


def op_name(code):
    return ffi.string(lib.mc_tflm_op_name(code)).decode() or "builtin code %d" % code


class CGraph:
    """mc_graph_t for `model`; `.ptr` is the `const mc_graph_t *`."""

    def __init__(self, model):
        tensors = ffi.new("mc_tensor_t[]", max(1, len(model.tensors)))
        for i, t in enumerate(model.tensors):
            c = tensors[i]
            if len(t.shape) > lib.MC_MAX_DIMS:
                raise MemcoreError("%s: tensor %d (%s) has rank %d; TFLM stops at %d"
                                   % (model.path, i, t.name, len(t.shape), lib.MC_MAX_DIMS))
            c.bytes = t.bytes
            c.name_offset = -1
            c.rank = len(t.shape)
            for d, n in enumerate(t.shape):
                c.dims[d] = n
            c.dtype = DTYPE_CODES[t.dtype]
            c.quant_channels = t.quantization_channels
            c.quant_dimension = getattr(t, "quantized_dimension", 0)
            c.flags = ((lib.MC_TENSOR_CONSTANT if t.is_constant else 0)
                       | (lib.MC_TENSOR_VARIABLE if t.is_variable else 0)
                       | (lib.MC_TENSOR_ZERO_POINT if t.has_zero_point else 0))
        flat = []
        ops = ffi.new("mc_op_t[]", max(1, len(model.operators)))
        for k, op in enumerate(model.operators):
            c = ops[k]
            code = op_code(op.kind)
            if code is None:
                raise MemcoreError("%s: operator %d (%s) is not a TFLite builtin operator"
                                   % (model.path, k, op.kind))
            c.kind = code
            c.version = getattr(op, "version", 1)
            c.options_type = getattr(op, "options_type", 0)
            for i, v in enumerate(tuple(getattr(op, "options", ()))[:lib.MC_OP_OPTIONS]):
                c.options[i] = v
            c.first_input = len(flat)
            c.n_inputs = len(op.inputs)
            flat.extend(op.inputs)
            c.first_output = len(flat)
            c.n_outputs = len(op.outputs)
            flat.extend(op.outputs)
            c.first_intermediate = len(flat)
            c.n_intermediates = 0
        op_tensors = ffi.new("int32_t[]", flat or [0])
        inputs = ffi.new("int32_t[]", list(model.inputs) or [0])
        outputs = ffi.new("int32_t[]", list(model.outputs) or [0])
        g = ffi.new("mc_graph_t *")
        g.tensors, g.ops, g.op_tensors, g.inputs, g.outputs = tensors, ops, op_tensors, inputs, outputs
        g.n_tensors, g.n_ops, g.n_op_tensors = len(model.tensors), len(model.operators), len(flat)
        g.n_inputs, g.n_outputs = len(model.inputs), len(model.outputs)
        g.n_subgraphs = getattr(model, "subgraph_count", 1)
        self._keep = (tensors, ops, op_tensors, inputs, outputs)
        self.ptr = g
        ll.count("tensors", len(model.tensors))
