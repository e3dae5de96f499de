"""The TFLite reader: a .tflite flatbuffer into memcore's neutral graph.

The bytes go to the C core's reader (csrc/src/tflite_reader.c, the same one the board
runs on a model file in its filesystem), which checks every offset and length before
following it; the C core then validates the dataflow (cycles, tensors read before they
are written, ...).  This module only turns the C graph into memcore's Python Model:
names from the file, operator names and operation counts from the C core.  Whether
TFLM runs every operator is the check's question (an unknown operator is refused there,
or costed as an upper bound with --allow-unknown-ops), not the reader's.
"""
from memcore import _lowlevel as ll
from memcore.cgraph import DTYPE_NAMES, read_tflite
from memcore.errors import MemcoreError
from memcore.graph import Model, Operator, Tensor, bad_model

# Builtin options (mc_op_t.options, schema order) the operation counts read.
_CONV_STRIDE = (2, 1)     # Conv2DOptions / DepthwiseConv2DOptions / TransposeConvOptions: stride_h, stride_w
_POOL = (4, 3, 2, 1)      # Pool2DOptions: filter_height, filter_width, stride_h, stride_w


def load_tflite(path, data: bytes) -> Model:
    graph = read_tflite(data, path)
    graph.validate(path)
    g = graph.graph
    if g.n_subgraphs != 1:
        raise bad_model(path, "the model has %d subgraphs (control flow such as IF or WHILE); "
                              "memcore plans single-subgraph models only" % g.n_subgraphs)
    if g.flags & 1:
        raise bad_model(path, "the model carries an offline memory plan (OfflineMemoryAllocation "
                              "metadata), which memcore does not model")
    tensors = tuple(_tensor(graph, i) for i in range(g.n_tensors))
    operators = tuple(_operator(path, graph, k, tensors) for k in range(g.n_ops))
    return Model(path=path, format="tflite", tensors=tensors, operators=operators,
                 inputs=tuple(g.inputs[0:g.n_inputs]), outputs=tuple(g.outputs[0:g.n_outputs]),
                 subgraph_count=g.n_subgraphs, file_bytes=len(data), _cgraph=graph)


def _tensor(graph, i):
    t = graph.graph.tensors[i]
    return Tensor(index=i, name=graph.tensor_name(i), shape=tuple(t.dims[0:t.rank]),
                  dtype=DTYPE_NAMES[t.dtype], bytes=t.bytes, is_constant=bool(t.flags & 1),
                  is_variable=bool(t.flags & 2), quantization_channels=t.quant_channels,
                  has_zero_point=bool(t.flags & 4), quantization_dimension=t.quant_dimension)


def _operator(path, graph, k, tensors):
    op = graph.graph.ops[k]
    flat = graph.graph.op_tensors
    kind = graph.op_kind(k)
    inputs = tuple(flat[op.first_input:op.first_input + op.n_inputs])
    outputs = tuple(flat[op.first_output:op.first_output + op.n_outputs])
    intermediates = tuple(flat[op.first_intermediate:op.first_intermediate + op.n_intermediates])
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
    # The arithmetic is the C core's (mc_op_counts), as the check counts it.
    # Shapes that each fit can still multiply past 64 bits (a mutated dimension).
    macs, other = ll.op_counts(graph, k, "%s: operator %d (%s): counting its operations" % (path, k, kind))
    weights = [tensors[i] for i in inputs if i >= 0 and tensors[i].is_constant]
    return Operator(index=k, kind=kind, inputs=inputs, outputs=outputs, macs=macs, other_ops=other,
                    weight_bytes=sum(t.bytes for t in weights), attributes=attributes, code=op.kind,
                    version=op.version, options_type=op.options_type, options=options,
                    intermediates=intermediates)


__all__ = ["load_tflite", "MemcoreError"]
