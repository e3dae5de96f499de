"""The TFLite reader: a .tflite flatbuffer into memcore's neutral graph.

The bytes go to the C core's reader (csrc/src/tflite_reader.c, the same one the board
runs on a model file in its filesystem), which checks every offset and length before
following it; the C core then validates the dataflow (cycles, tensors read before they
are written, ...).  This module only turns the C graph into memcore's Python Model:
names from the file, operator names and operation counts from the C core.  Whether
TFLM runs every operator is the check's question (an unknown operator is refused there,
or costed as an upper bound with --allow-unknown-ops), not the reader's.
"""
import gc

from memcore import _lowlevel as ll
from memcore._memcore import lib
from memcore.cgraph import DTYPE_NAMES, read_tflite, tensor_bytes, tensor_shape
from memcore.errors import MemcoreError
from memcore.graph import Model, Operator, Tensor, bad_model, positional

# Builtin options (mc_op_t.options, schema order) the operation counts read.
_CONV_STRIDE = (2, 1)     # Conv2DOptions / DepthwiseConv2DOptions / TransposeConvOptions: stride_h, stride_w
_POOL = (4, 3, 2, 1)      # Pool2DOptions: filter_height, filter_width, stride_h, stride_w


def load_tflite(path, data: bytes) -> Model:
    # A large model is hundreds of thousands of new objects, none in a reference cycle:
    # the cyclic collector would sweep them again and again (a sixth of the load time at
    # 100,000 tensors) for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(path, data)
    finally:
        if collecting:
            gc.enable()


def _load(path, data):
    graph = read_tflite(data, path)
    graph.validate(path)
    g = graph.graph
    tensors = tuple(_tensor(graph, g.tensors[i], i) for i in range(g.n_tensors))
    # The arithmetic is the C core's, as the check counts it.  Shapes that each fit can
    # still multiply past 64 bits (a mutated dimension): the error names the operator.
    counts = ll.op_counts(graph, lambda k: "%s: counting the operations of %s"
                          % (path, "the operators" if k is None else "operator %d (%s)" % (k, graph.op_kind(k))))
    # One conversion of the C arrays, not one per operator (100,000 of them in a big model).
    # Lists the reader found in place index the file's own int32 words (as TFLM reads them).
    if g.flags & lib.MC_GRAPH_IN_FILE:
        flat = memoryview(data)[:len(data) // 4 * 4].cast("i")
    else:
        flat = g.op_tensors[0:g.n_op_tensors] if g.n_op_tensors else []
    operators = tuple(_operator(graph, k, tensors, flat, counts[0][k], counts[1][k]) for k in range(g.n_ops))
    return Model(path=path, format="tflite", tensors=tensors, operators=operators,
                 inputs=tuple(g.inputs[0:g.n_inputs]), outputs=tuple(g.outputs[0:g.n_outputs]),
                 subgraph_count=g.n_subgraphs, file_bytes=len(data), _cgraph=graph)


_new_tensor = positional(Tensor)
_new_operator = positional(Operator)


def _tensor(graph, t, i):
    flags = t.flags
    return _new_tensor(i, graph.tensor_name(i), tensor_shape(t), DTYPE_NAMES[t.dtype], tensor_bytes(t),
                       bool(flags & 1), bool(flags & 2), t.quant_channels, bool(flags & 4), t.quant_dimension)


def _operator(graph, k, tensors, flat, macs, other):
    op = graph.graph.ops[k]
    kind = graph.op_kind(k)
    first_input, first_output, first_intermediate = op.first_input, op.first_output, op.first_intermediate
    inputs = tuple(flat[first_input:first_input + op.n_inputs])
    outputs = tuple(flat[first_output:first_output + op.n_outputs])
    intermediates = tuple(flat[first_intermediate:first_intermediate + op.n_intermediates])
    options = tuple(op.options[0:8])
    attributes = {}
    if kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"):
        attributes["stride_hw"] = tuple(options[i] for i in _CONV_STRIDE)
    if kind in ("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"):
        attributes["kernel_hw"] = (options[_POOL[0]], options[_POOL[1]])
        attributes["stride_hw"] = (options[_POOL[2]], options[_POOL[3]])
    filt = tensors[inputs[1]] if len(inputs) > 1 and inputs[1] >= 0 else None
    # TFLite layouts: conv filter OHWI, depthwise 1HWO, fully connected (O, I),
    # transpose conv OHWI.
    if kind in ("CONV_2D", "TRANSPOSE_CONV", "FULLY_CONNECTED", "DEPTHWISE_CONV_2D") and filt is not None \
            and filt.shape:
        attributes["output_channels"] = filt.shape[-1] if kind == "DEPTHWISE_CONV_2D" else filt.shape[0]
        attributes["per_channel"] = filt.quantization_channels > 1
        if kind != "FULLY_CONNECTED" and len(filt.shape) == 4:
            attributes["kernel_hw"] = (filt.shape[1], filt.shape[2])
    weights = [tensors[i] for i in inputs if i >= 0 and tensors[i].is_constant]
    # Operator's fields, in order
    return _new_operator(k, kind, inputs, outputs, macs, other, sum(t.bytes for t in weights), attributes, op.kind,
                         op.version, op.options_type, options, intermediates)


__all__ = ["load_tflite", "MemcoreError"]
