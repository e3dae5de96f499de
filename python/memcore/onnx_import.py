"""The ONNX reader: an .onnx protobuf into memcore's neutral graph, as it will be deployed.

Named onnx_import so it never shadows the `onnx` package it uses.  Shapes come from
onnx.shape_inference (strict), so every activation has a static shape or the file is
refused (`--input-shape NAME=1,3,96,96` fixes a dynamic one).  What a board runs is the
TFLite conversion of the model, so the graph is planned as the converter writes it
(docs/onnx.md): ONNX operators become TFLite's builtin kinds (Conv with one group per
input channel is a DEPTHWISE_CONV_2D, Gemm or MatMul by a constant matrix a
FULLY_CONNECTED, GlobalAveragePool a MEAN, ...); a QDQ-quantised graph's
QuantizeLinear/DequantizeLinear pairs go and the tensors between them are int8; batch
norms fold into the layer before them and ReLU/ReLU6 fuse into it; the activations the
converter makes channels-last are NHWC and the filters are in TFLite's layouts (conv
OHWI, depthwise 1HWO, fully connected (out, in)); every operator carries its builtin
options in schema order (padding, strides, fused activation, dilations, ...), so the C
op table sizes the kernels' scratch for ONNX models as for TFLite files.  What was
rewritten, and what was left as it was, is Model.conversion.

The file is untrusted: every tensor is written by at most one node and never by a node
when it is an initializer or graph input; attributes are checked (a Conv's group divides
its channels, strides and dilations are positive, ...); a tensor whose bytes do not fit
in 64 bits is refused by name; external data must be a file inside the model's own
folder.  Limits: MAX_NODES nodes and MAX_TENSORS tensors (load time is linear, about
25 us per node: a 100,000-node chain loads in about 2.5 s), refused before any work.
"""
import onnx
from onnx import shape_inference

from memcore.graph import Model, bad_model
from memcore.onnx_builder import Builder
from memcore.onnx_shapes import check_shapes

MAX_NODES = 200_000
MAX_TENSORS = 500_000


def load_onnx(path, data: bytes, input_shapes=None) -> Model:
    try:
        proto = onnx.load_model_from_string(data)
    except Exception as e:  # protobuf's DecodeError, or anything else on damaged bytes
        raise bad_model(path, "neither a TFLite flatbuffer nor an ONNX protobuf "
                              "(truncated, corrupted or another format: %s)" % e) from None
    if not proto.HasField("graph") or len(proto.graph.node) == 0:
        raise bad_model(path, "neither a TFLite flatbuffer nor an ONNX model with a graph")
    g = proto.graph
    if len(g.node) > MAX_NODES:
        raise bad_model(path, "%d nodes; memcore reads models of at most %d" % (len(g.node), MAX_NODES))
    tensors = len(g.initializer) + len(g.input) + sum(len(n.output) for n in g.node)
    if tensors > MAX_TENSORS:
        raise bad_model(path, "%d tensors; memcore reads models of at most %d" % (tensors, MAX_TENSORS))
    _check_writers(path, g)
    if input_shapes:
        _set_input_shapes(path, g, input_shapes)
    for node in proto.graph.node:
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            raise bad_model(path, "node %r (%s) holds subgraphs (control flow); memcore plans "
                                  "single-graph models only" % (node.name, node.op_type))
    try:
        proto = shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)
    except Exception as e:
        raise bad_model(path, "ONNX shape inference failed: %s" % (str(e).strip().splitlines() or [e])[0]) from None
    check_shapes(path, proto.graph)
    return Builder(path, proto.graph).model()


def _set_input_shapes(path, g, shapes):
    """Fix the graph inputs' dimensions (`--input-shape NAME=1,3,96,96`) before shape
    inference: a dynamic dimension takes the given value, a static one must agree."""
    inputs = {vi.name: vi for vi in g.input if vi.name not in {i.name for i in g.initializer}}
    for name, shape in shapes.items():
        if name not in inputs:
            raise bad_model(path, "--input-shape %s: the graph has no input of that name (its inputs: %s)"
                            % (name, ", ".join(inputs) or "none"))
        tt = inputs[name].type.tensor_type
        dims = tt.shape.dim if tt.HasField("shape") else None
        if dims is not None and len(dims) and len(dims) != len(shape):
            raise bad_model(path, "--input-shape %s=%s: the input has rank %d, not %d"
                            % (name, ",".join(map(str, shape)), len(dims), len(shape)))
        if dims is not None:
            for k, (d, value) in enumerate(zip(dims, shape)):
                if d.HasField("dim_value") and d.dim_value > 0 and d.dim_value != value:
                    raise bad_model(path, "--input-shape %s=%s: dimension %d is fixed at %d in the model"
                                    % (name, ",".join(map(str, shape)), k, d.dim_value))
        del tt.shape.dim[:]
        for value in shape:
            tt.shape.dim.add().dim_value = value


def _check_writers(path, g):
    """Each tensor has one source: an initializer, a graph input or one node's output."""
    source = {}
    for init in g.initializer:
        if init.name in source:
            raise bad_model(path, "initializer %r is defined twice" % init.name)
        source[init.name] = "an initializer"
    for vi in g.input:
        if vi.name in source and source[vi.name] != "an initializer":  # an input may have a default
            raise bad_model(path, "graph input %r is listed twice" % vi.name)
        source.setdefault(vi.name, "a graph input")
    for k, node in enumerate(g.node):
        for name in node.output:
            if not name:
                continue  # an optional output left out
            if name in source:
                raise bad_model(path, "node %d %r (%s) writes tensor %r, which is already %s"
                                % (k, node.name, node.op_type, name, source[name]))
            source[name] = "written by node %d %r (%s)" % (k, node.name, node.op_type)
    seen = set()
    for vi in g.output:
        if vi.name in seen:
            raise bad_model(path, "graph output %r is listed twice" % vi.name)
        seen.add(vi.name)

