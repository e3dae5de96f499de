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
import os
from dataclasses import replace

import onnx
from onnx import numpy_helper, shape_inference

from memcore.graph import DTYPE_BYTES, Model, Operator, Tensor, bad_model
from memcore.opcount import count_operations

# ONNX TensorProto.DataType name -> memcore dtype
_DTYPES = {
    "FLOAT": "float32", "FLOAT16": "float16", "BFLOAT16": "bfloat16", "DOUBLE": "float64",
    "INT4": "int4", "INT8": "int8", "UINT8": "uint8", "BOOL": "bool", "INT16": "int16",
    "UINT16": "uint16", "INT32": "int32", "UINT32": "uint32", "INT64": "int64", "UINT64": "uint64",
    "COMPLEX64": "complex64", "COMPLEX128": "complex128",
}

_ELEMENTWISE = {
    "Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV", "Max": "MAXIMUM", "Min": "MINIMUM",
    "Pow": "POW", "Relu": "RELU", "LeakyRelu": "LEAKY_RELU", "PRelu": "PRELU", "Elu": "ELU",
    "Sigmoid": "LOGISTIC", "Tanh": "TANH", "HardSwish": "HARD_SWISH", "Gelu": "GELU",
    "Exp": "EXP", "Log": "LOG", "Sqrt": "SQRT", "Abs": "ABS", "Neg": "NEG", "Floor": "FLOOR",
    "Ceil": "CEIL", "Round": "ROUND", "Softmax": "SOFTMAX", "LogSoftmax": "LOG_SOFTMAX",
    "Clip": "RELU6", "Cast": "CAST", "QuantizeLinear": "QUANTIZE", "DequantizeLinear": "DEQUANTIZE",
}
_MOVES = {
    "Reshape": "RESHAPE", "Flatten": "RESHAPE", "Identity": "RESHAPE", "Squeeze": "SQUEEZE",
    "Unsqueeze": "EXPAND_DIMS", "Concat": "CONCATENATION", "Pad": "PAD", "Transpose": "TRANSPOSE",
    "Slice": "STRIDED_SLICE", "Gather": "GATHER", "Split": "SPLIT", "Shape": "SHAPE",
    "Tile": "TILE", "Expand": "BROADCAST_TO", "DepthToSpace": "DEPTH_TO_SPACE",
    "SpaceToDepth": "SPACE_TO_DEPTH",
}
_POOLS = {"MaxPool": "MAX_POOL_2D", "AveragePool": "AVERAGE_POOL_2D", "LpPool": "L2_POOL_2D"}
_DTYPE_OF_CODE = {}  # TensorProto element type code -> memcore dtype, filled as met

MAX_NODES = 200_000
MAX_TENSORS = 500_000
_INT64_BYTES = 2 ** 63

_REDUCES = {"GlobalAveragePool": "MEAN", "GlobalMaxPool": "REDUCE_MAX", "ReduceMean": "MEAN",
            "ReduceSum": "SUM", "ReduceMax": "REDUCE_MAX", "ReduceMin": "REDUCE_MIN"}


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
    return _Builder(path, proto.graph).model()


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


# TFLite's builtin options, as mc_op_t.options holds them (schema order); the codes of
# their BuiltinOptions tables, and of ActivationFunctionType and Padding.
_OPTIONS_TYPE = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 2, "AVERAGE_POOL_2D": 5, "MAX_POOL_2D": 5, "L2_POOL_2D": 5,
                 "FULLY_CONNECTED": 8, "SOFTMAX": 9, "CONCATENATION": 10, "ADD": 11, "RESHAPE": 17, "MUL": 21,
                 "PAD": 22, "TRANSPOSE": 26, "MEAN": 27, "SUM": 27, "REDUCE_MAX": 27, "REDUCE_MIN": 27, "SUB": 28}
_NONE, _RELU, _RELU_N1_TO_1, _RELU6 = 0, 1, 2, 3
_SAME, _VALID = 0, 1
_ACTIVATION_NAMES = {_RELU: "RELU", _RELU_N1_TO_1: "RELU_N1_TO_1", _RELU6: "RELU6"}
# kinds the converter fuses a following ReLU / ReLU6 / ReLU-N1-to-1 into
_FUSES_ACTIVATION = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL",
                               "AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D", "CONCATENATION"})
_NCHW_TO_NHWC = (0, 2, 3, 1)          # a 4-D activation's dims, channels last
_AXIS_TO_NHWC = {0: 0, 1: 3, 2: 1, 3: 2}


def _float_bits(value):
    import struct
    return struct.unpack("<i", struct.pack("<f", value))[0]


# Operators that generate their output from attributes alone (no input to read).
_NO_INPUT_OPS = ("RandomNormal", "RandomUniform")


class _Node:
    """One ONNX node on its way to a TFLite operator."""

    def __init__(self, k, node, attrs):
        self.k = k
        self.node = node
        self.op = node.op_type
        self.inputs = list(node.input)
        self.outputs = [o for o in node.output if o]
        self.attrs = attrs
        self.where = "node %d %r (%s)" % (k, node.name, node.op_type)
        self.keep = True
        self.fused = _NONE
        self.bias = None            # a bias the rewrites gave it (a folded batch norm, a fused Add)


class _Builder:
    """An ONNX graph as the TFLite converter would deploy it (docs/onnx.md): Q/DQ pairs
    removed and the tensors between them int8, batch norms folded into the layer before
    them, ReLU/ReLU6 fused into it, MatMul + Add one fully connected layer, explicit
    padding as SAME or VALID (or a PAD operator), activations channels-last and filters
    in TFLite's layouts, every operator's builtin options filled.  What it changed, and
    what it left as it was, is listed in Model.conversion."""

    def __init__(self, path, graph):
        self.path = path
        self.graph = graph
        self.tensors = []
        self.by_name = {}
        self.types = {}
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            self.types[vi.name] = vi.type
        self.constants = {}         # name -> TensorProto (initializers and Constant nodes)
        self.alias = {}             # a removed node's output -> the tensor that stands for it
        self.dtype = {}             # tensor -> the dtype the rewrites gave it (int8 between Q and DQ)
        self.quant = {}             # constant -> (channels, axis) of its quantization scales
        self.synthetic = {}         # name -> (shape, dtype) of constants the rewrites made
        self.notes = []
        self.counts = {}

    def _count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def resolve(self, name):
        while name in self.alias:
            name = self.alias[name]
        return name

    def model(self):
        g = self.graph
        for init in g.initializer:
            self.constants[init.name] = init
        nodes = []
        for node in g.node:
            if node.op_type == "Constant":
                value = next((a.t for a in node.attribute if a.name == "value"), None)
                if value is None:
                    raise bad_model(self.path, "Constant node %r has no tensor value" % node.name)
                if not node.output:
                    raise bad_model(self.path, "Constant node %r has no output" % node.name)
                self.constants[node.output[0]] = value
                continue
            k = len(nodes)
            n = _Node(k, node, self._attributes("node %d %r (%s)" % (k, node.name, node.op_type), node))
            # Every rewrite and lowering reads a node's first input and output.
            if not n.outputs:
                raise bad_model(self.path, "%s has no output" % n.where)
            if (not n.inputs or not n.inputs[0]) and n.op not in _NO_INPUT_OPS:
                raise bad_model(self.path, "%s has no first input" % n.where)
            nodes.append(n)
        self.graph_inputs = [vi.name for vi in g.input if vi.name not in self.constants]
        self.graph_outputs = {vi.name for vi in g.output}
        self._rewrite(nodes)
        self._layouts(nodes)
        inputs = tuple(self._activation(name) for name in self.graph_inputs)
        operators = []
        for n in nodes:
            if n.keep:
                for op in self._operators(n):
                    operators.append(replace(op, index=len(operators)))
        outputs = tuple(self._activation(self.resolve(vi.name)) for vi in g.output)
        return Model(path=self.path, format="onnx", tensors=tuple(self.tensors), operators=tuple(operators),
                     inputs=inputs, outputs=outputs, conversion=tuple(self._conversion_notes()))

    # ---- the converter's rewrites ------------------------------------------------------

    def _is_constant(self, name):
        return self.resolve(name) in self.constants or self.resolve(name) in self.synthetic

    def _consumers(self, nodes):
        count = {}
        for n in nodes:
            if n.keep:
                for name in n.inputs:
                    if name:
                        r = self.resolve(name)
                        count[r] = count.get(r, 0) + 1
        return count

    def _producers(self, nodes):
        return {self.resolve(o): n for n in nodes if n.keep for o in n.outputs}

    def _is_output(self, name):
        return any(self.resolve(o) == self.resolve(name) for o in self.graph_outputs)

    def _remove(self, n, into):
        """Drop node n; its (first) output is now `into`."""
        n.keep = False
        for o in n.outputs:
            if self._is_output(o) and o != into and self._is_output(into):
                raise bad_model(self.path, "%s: two graph outputs would be the same tensor" % n.where)
            self.alias[o] = into

    def _rewrite(self, nodes):
        graph_inputs = set(self.graph_inputs)
        # Identity and inference-time Dropout pass their input on.
        for n in nodes:
            if n.op in ("Identity", "Dropout") and n.inputs and not self._is_output(n.outputs[0]):
                self._remove(n, self.resolve(n.inputs[0]))
                self._count("identity")
        # Q/DQ: the tensors they join are one int8 tensor; Q at a float graph input and
        # DQ at a graph output stay, as the converter's QUANTIZE and DEQUANTIZE.
        for n in nodes:
            if n.op not in ("QuantizeLinear", "DequantizeLinear") or not n.keep:
                continue
            if len(n.inputs) < 2:
                raise bad_model(self.path, "%s needs an input and a scale" % n.where)
            x = self.resolve(n.inputs[0])
            scale = self.resolve(n.inputs[1])
            channels = 1
            if scale in self.constants:
                channels = max(1, _elements(tuple(int(d) for d in self.constants[scale].dims)))
            if n.op == "DequantizeLinear":
                if x in self.constants:
                    self.quant[x] = (channels, self._int(n.where, n.attrs, "axis", 1))
                    self._remove(n, x)
                elif self._is_output(n.outputs[0]):
                    continue
                else:
                    self._remove(n, x)
                self._count("qdq")
            else:
                quantized = "int8"
                zero = self.resolve(n.inputs[2]) if len(n.inputs) > 2 and n.inputs[2] else None
                if zero in self.constants and self.constants[zero].data_type == onnx.TensorProto.INT16:
                    quantized = "int16"
                if x in graph_inputs:
                    continue
                if x in self.constants:
                    self.quant[x] = (channels, self._int(n.where, n.attrs, "axis", 1))
                self.dtype[x] = quantized
                self._remove(n, x)
                self._count("qdq")
        # Batch norm after a convolution or a fully connected layer folds into it;
        # anywhere else it is the MUL and ADD the converter writes.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if n.op != "BatchNormalization" or not n.keep:
                continue
            x = self.resolve(n.inputs[0])
            p = producers.get(x)
            if p is not None and p.op in ("Conv", "Gemm") and p.keep and consumers.get(x) == 1 \
                    and not self._is_output(x) and p.fused == _NONE:
                if len(p.inputs) < 3 or not p.inputs[2]:
                    p.bias = self._synthetic("%s/folded_bias" % p.outputs[0], (self._channels(p),), x)
                self._remove(n, x)
                self._count("batch_norm")
        # A ReLU, ReLU6 or ReLU-N1-to-1 after a layer that can carry it is fused into it.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if not n.keep or n.op not in ("Relu", "Clip"):
                continue
            code = _RELU if n.op == "Relu" else self._clip_activation(n)
            x = self.resolve(n.inputs[0])
            p = producers.get(x)
            if code is None or p is None or not p.keep or consumers.get(x) != 1 or self._is_output(x) \
                    or p.fused != _NONE or self._kind_of(p) not in _FUSES_ACTIVATION:
                if code is not None:
                    self.notes.append("kept %s as a separate %s operator (nothing before it could carry it)"
                                      % (n.where, _ACTIVATION_NAMES[code]))
                continue
            p.fused = code
            out = self.resolve(n.outputs[0])
            if out in self.dtype:   # quantised after the activation: the fused layer's output is
                self.dtype[x] = self.dtype[out]
            self._remove(n, x)
            self._count("activation")
        # MatMul by a constant matrix, then Add of a constant vector: one fully connected
        # layer with a bias.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if not n.keep or n.op != "Add" or len(n.inputs) != 2:
                continue
            for a, b in ((0, 1), (1, 0)):
                x, bias = self.resolve(n.inputs[a]), self.resolve(n.inputs[b])
                p = producers.get(x)
                if p is not None and p.op == "MatMul" and p.bias is None and self._kind_of(p) == "FULLY_CONNECTED" \
                        and self._is_constant(bias) and len(self._shape_of(bias)) == 1 \
                        and consumers.get(x) == 1 and not self._is_output(x):
                    p.bias = bias
                    self._remove(n, x)
                    self._count("matmul_add")
                    break

    def _clip_activation(self, n):
        low, high = n.attrs.get("min"), n.attrs.get("max")
        for i, slot in ((1, "low"), (2, "high")):
            if len(n.inputs) > i and n.inputs[i]:
                name = self.resolve(n.inputs[i])
                if name not in self.constants:
                    return None
                value = self._scalar(name)
                if value is None:
                    return None
                low, high = (value, high) if slot == "low" else (low, value)
        if low == 0 and high is None:
            return _RELU
        if low == 0 and high == 6:
            return _RELU6
        if low == -1 and high == 1:
            return _RELU_N1_TO_1
        return None

    def _scalar(self, name):
        """The first value of the embedded constant `name` (a Clip bound), or None if it
        has none to read here; raises naming the file if its data does not match its
        shape.  External data is not read for this: the bound only chooses a fusion."""
        proto = self.constants[name]
        if proto.data_location == onnx.TensorProto.EXTERNAL:
            return None
        values = self._embedded_array(name, proto).reshape(-1)
        if values.size == 0 or values.dtype.kind not in "biuf":
            return None
        return float(values[0])

    def _shape_of(self, name):
        name = self.resolve(name)
        if name in self.synthetic:
            return self.synthetic[name][0]
        if name in self.constants:
            return tuple(int(d) for d in self.constants[name].dims)
        t = self.types.get(name)
        if t is None or not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            return ()
        return tuple(d.dim_value for d in t.tensor_type.shape.dim)

    def _channels(self, p):
        shape = self._shape_of(p.inputs[1])
        if p.op == "Conv":
            return shape[0] if shape else 1
        trans = self._int(p.where, p.attrs, "transB", 0) == 1
        return (shape[0] if trans else shape[-1]) if shape else 1

    def _synthetic(self, name, shape, like):
        self.synthetic[name] = (tuple(shape), "int32" if self.dtype.get(like) == "int8" else "float32")
        return name

    def _kind_of(self, n):
        if n.op == "Conv":
            w = self._shape_of(n.inputs[1]) if len(n.inputs) > 1 else ()
            channels = self._shape_of(n.inputs[0])
            group = n.attrs.get("group", 1)
            if len(w) == 4 and len(channels) == 4 and group > 1 and group == channels[1] and w[1] == 1:
                return "DEPTHWISE_CONV_2D"
            return "CONV_2D"
        if n.op in ("Gemm", "MatMul"):
            return "FULLY_CONNECTED" if len(n.inputs) > 1 and self._is_constant(n.inputs[1]) \
                and len(self._shape_of(n.inputs[1])) == 2 else "BATCH_MATMUL"
        return (_POOLS.get(n.op) or _REDUCES.get(n.op) or _ELEMENTWISE.get(n.op) or _MOVES.get(n.op)
                or ("CONCATENATION" if n.op == "Concat" else None))

    def _conversion_notes(self):
        words = {"qdq": "QuantizeLinear/DequantizeLinear nodes removed (the tensors between them int8)",
                 "batch_norm": "batch norms folded into the layer before them",
                 "activation": "activations fused into the layer before them",
                 "matmul_add": "MatMul + Add pairs made one fully connected layer with a bias",
                 "identity": "Identity/Dropout nodes removed",
                 "pad": "explicit paddings written as a PAD operator before a VALID layer"}
        out = ["planned as the TFLite converter would convert it: channels-last activations, filters in "
               "TFLite's layouts, builtin options filled"]
        out += ["%d %s" % (n, words[what]) for what, n in sorted(self.counts.items())]
        return out + self.notes

    # ---- tensors -----------------------------------------------------------------------

    def _add(self, name, shape, dtype, constant, channels=0, axis=0):
        index = len(self.tensors)
        size = _elements(shape) * DTYPE_BYTES[dtype]
        if size >= _INT64_BYTES:
            raise bad_model(self.path, "tensor %r of shape %s does not fit in 64 bits of bytes" % (name, list(shape)))
        self.tensors.append(Tensor(index=index, name=name, shape=shape, dtype=dtype, bytes=size,
                                   is_constant=constant, quantization_channels=channels,
                                   quantization_dimension=axis, has_zero_point=channels > 0))
        self.by_name[name] = index
        return index

    def _dtype(self, name, elem_type):
        known = _DTYPE_OF_CODE.get(elem_type)
        if known:
            return known
        try:
            onnx_name = onnx.TensorProto.DataType.Name(elem_type) if elem_type else "UNDEFINED"
        except ValueError:  # a code newer than this onnx, or a corrupted one
            onnx_name = "code %d" % elem_type
        if onnx_name not in _DTYPES:
            raise bad_model(self.path, "tensor %r has type %s, which has no fixed element size"
                            % (name, onnx_name))
        _DTYPE_OF_CODE[elem_type] = _DTYPES[onnx_name]
        return _DTYPES[onnx_name]

    def _tensor(self, name, layout=None):
        """The tensor `name` stands for: a constant (in `layout`: a permutation of its
        dims, as its consumer's TFLite kind wants them) or an activation."""
        name = self.resolve(name)
        index = self.by_name.get(name)
        if index is not None:
            return index
        if name in self.synthetic:
            shape, dtype = self.synthetic[name]
            return self._add(name, shape, dtype, True)
        if name in self.constants:
            return self._constant(name, self.constants[name], layout)
        return self._activation(name)

    def _embedded_array(self, name, tensor_proto):
        try:
            return numpy_helper.to_array(tensor_proto)
        except Exception as e:  # data that does not match the dims or the type
            raise bad_model(self.path, "constant tensor %r: its data does not match its shape %s (%s)"
                            % (name, list(tensor_proto.dims), e)) from None

    def _constant(self, name, tensor_proto, layout):
        if tensor_proto.data_location == onnx.TensorProto.EXTERNAL:
            dtype = self._dtype(name, tensor_proto.data_type)
            shape = tuple(int(d) for d in tensor_proto.dims)
            if any(d < 0 for d in shape):
                raise bad_model(self.path, "constant tensor %r has a negative dimension %s" % (name, list(shape)))
            size = _elements(shape) * DTYPE_BYTES[dtype]
            _check_external(self.path, name, tensor_proto, size)
        else:
            array = self._embedded_array(name, tensor_proto)
            shape = tuple(int(d) for d in array.shape)
            dtype = self._dtype(name, tensor_proto.data_type)
        if dtype == "uint8" and name in self.quant:
            dtype = "int8"  # the converter's integer-only models are int8
        dtype = self.dtype.get(name, dtype)
        channels, axis = self.quant.get(name, (0, 0))
        if layout is not None and len(shape) == len(layout):
            shape = tuple(shape[i] for i in layout)
            axis = layout.index(axis) if axis < len(layout) else axis
        return self._add(name, shape, dtype, True, channels, axis)

    def _activation(self, name):
        index = self.by_name.get(name)
        if index is not None:
            return index
        t = self.types.get(name)
        if t is None or not t.HasField("tensor_type"):
            raise bad_model(self.path, "tensor %r has an unknown shape (shape inference gave none)" % name)
        tt = t.tensor_type
        if not tt.HasField("shape"):
            raise bad_model(self.path, "tensor %r has an unknown rank" % name)
        dims = tt.shape.dim
        shape = tuple(d.dim_value for d in dims)
        if 0 in shape or any(v < 0 for v in shape):  # an unset dim_value reads 0: look closer
            for d in dims:
                if not d.HasField("dim_value") or d.dim_value < 0:
                    raise bad_model(self.path, "tensor %r has a dynamic or unknown dimension %r; memcore "
                                               "needs static shapes: give them with --input-shape "
                                               "NAME=1,3,96,96 (or fix them when exporting)"
                                    % (name, d.dim_param or "?"))
        if len(shape) == 4 and name in getattr(self, "channels_last", ()):
            shape = tuple(shape[i] for i in _NCHW_TO_NHWC)
        dtype = self.dtype.get(name) or self._dtype(name, tt.elem_type)
        return self._add(name, shape, dtype, False, 1 if name in self.dtype else 0)

    # ---- operators ---------------------------------------------------------------------

    def _padding(self, n, shape_hw, kernel_hw, strides, dilations):
        """SAME or VALID for an ONNX node's padding, or None when it is neither (a PAD
        operator then goes before it)."""
        auto = n.attrs.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto == "VALID":
            return _VALID
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            return _SAME
        pads = self._ints(n.where, n.attrs, "pads", (0, 0, 0, 0))
        if not any(pads):
            return _VALID
        same = []
        for size, k, s, d in zip(shape_hw, kernel_hw, strides, dilations):
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            same.append((total // 2, total - total // 2))
        if (pads[0], pads[2]) == same[0] and (pads[1], pads[3]) == same[1]:
            return _SAME
        return None

    def _layouts(self, nodes):
        """Which 4-D activations the converter makes channels-last: those a spatial
        operator (convolution, pooling, batch norm, ...) reads or writes, and those that
        share a layout with them through element-wise operators.  A 4-D tensor only a
        MatMul, Transpose or Reshape touches keeps its dims."""
        spatial = {"Conv", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
                   "BatchNormalization", "DepthToSpace", "SpaceToDepth"}
        same = set(_ELEMENTWISE) | {"Concat", "Pad", "Clip", "Identity", "Dropout"}
        self.channels_last = set()
        for n in nodes:
            if n.keep and n.op in spatial:
                for name in n.inputs[:1] + n.outputs:
                    self.channels_last.add(self.resolve(name))
        changed = True
        while changed:
            changed = False
            for n in nodes:
                if not n.keep or n.op not in same:
                    continue
                names = [self.resolve(x) for x in n.inputs + n.outputs if x and not self._is_constant(x)]
                if any(x in self.channels_last for x in names):
                    for x in names:
                        if x not in self.channels_last and len(self._shape_of(x)) == 4:
                            self.channels_last.add(x)
                            changed = True

    def _operators(self, n):
        """The TFLite operators of node n: usually one; a PAD before a layer whose padding
        is neither SAME nor VALID; a batch norm no layer could take is a MUL and an ADD."""
        self.pending = []
        op = self._operator(n)
        return self.pending + [op]

    def _operator(self, n):
        where = n.where
        attrs = n.attrs
        t = self.tensors
        inputs = [None] * len(n.inputs)

        def make(i, layout=None):
            if inputs[i] is None:
                inputs[i] = self._tensor(n.inputs[i], layout) if n.inputs[i] else -1
            return inputs[i]

        if n.op in ("Conv", "Gemm", "MatMul") and (len(n.inputs) < 2 or not all(n.inputs[:2])):
            raise bad_model(self.path, "%s needs a data and a weight input, got %d inputs" % (where, len(n.inputs)))
        outputs = tuple(self._activation(self.resolve(o)) for o in n.outputs)
        out = t[outputs[0]]
        filt, attributes, kind, options = (), {}, None, ()
        op = n.op
        act = n.fused
        if op == "Conv":
            w = self._shape_of(n.inputs[1])
            if len(w) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, weight shape %s"
                                % (where, list(w)))
            o, i_per_group, kh, kw = w
            in_shape = self._shape_of(n.inputs[0])
            if len(in_shape) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, input shape %s"
                                % (where, list(in_shape)))
            group = self._int(where, attrs, "group", 1)
            channels_in = in_shape[1]
            if group < 1:
                raise bad_model(self.path, "%s: attribute 'group' must be at least 1, got %d" % (where, group))
            if channels_in % group or o % group or i_per_group * group != channels_in:
                raise bad_model(self.path, "%s: group %d does not split %d input channels into groups of %d "
                                           "(weight shape %s) and %d output channels evenly"
                                % (where, group, channels_in, i_per_group, list(w), o))
            self._window(where, attrs, (kh, kw))
            strides = self._ints(where, attrs, "strides", (1, 1))
            dilations = self._ints(where, attrs, "dilations", (1, 1))
            make(0)
            padding = self._padding(n, in_shape[2:], (kh, kw), strides, dilations)
            if padding is None:
                inputs[0] = self._pad_before(n, inputs[0])
                padding = _VALID
            depthwise = group > 1 and group == channels_in and i_per_group == 1
            make(1, (1, 2, 3, 0) if depthwise else (0, 2, 3, 1))  # 1HWO / OHWI from OIHW
            filt = t[inputs[1]].shape
            if depthwise:
                kind = "DEPTHWISE_CONV_2D"
                options = (padding, strides[1], strides[0], o // channels_in, act, dilations[1], dilations[0])
            else:
                kind = "CONV_2D"
                options = (padding, strides[1], strides[0], act, dilations[1], dilations[0], 0)
            attributes = {"output_channels": o, "per_channel": t[inputs[1]].quantization_channels > 1,
                          "kernel_hw": (kh, kw), "stride_hw": strides}
        elif op in ("Gemm", "MatMul"):
            w = self._shape_of(n.inputs[1])
            if op == "Gemm":
                for flag in ("transA", "transB"):
                    if self._int(where, attrs, flag, 0) not in (0, 1):
                        raise bad_model(self.path, "%s: attribute %r must be 0 or 1, got %d"
                                        % (where, flag, attrs[flag]))
            if self._is_constant(n.inputs[1]) and len(w) == 2:
                transposed = op == "Gemm" and self._int(where, attrs, "transB", 0) == 1
                make(1, (0, 1) if transposed else (1, 0))  # TFLite's (out, in)
                filt = t[inputs[1]].shape
                kind = "FULLY_CONNECTED"
                options = (act, 0, 0, 0, 0)
                attributes = {"output_channels": filt[0], "per_channel": t[inputs[1]].quantization_channels > 1}
            elif op == "MatMul":
                kind = "BATCH_MATMUL"
                options = (0, 0, 0)
            else:
                raise bad_model(self.path, "%s: Gemm by a non-constant matrix is not supported" % where)
        elif op in _POOLS:
            kind = _POOLS[op]
            kernel = self._ints(where, attrs, "kernel_shape", ())
            if len(kernel) != 2:
                raise bad_model(self.path, "%s: only 2-D pooling is supported" % where)
            self._window(where, attrs, kernel)
            strides = self._ints(where, attrs, "strides", (1, 1))
            make(0)
            padding = self._padding(n, self._shape_of(n.inputs[0])[2:], kernel, strides, (1, 1))
            if padding is None:
                inputs[0] = self._pad_before(n, inputs[0])
                padding = _VALID
            options = (padding, strides[1], strides[0], kernel[1], kernel[0], act)
            attributes = {"kernel_hw": kernel, "stride_hw": strides}
        elif op in _REDUCES:
            kind = _REDUCES[op]
            make(0)
            rank = len(t[inputs[0]].shape)
            if op.startswith("Global"):
                axes, keep = (1, 2) if rank == 4 else tuple(range(2, rank)), 1
            else:
                axes = attrs.get("axes")
                axes = tuple(axes) if isinstance(axes, (list, tuple)) else tuple(range(rank))
                if self.resolve(n.inputs[0]) in self.channels_last and rank == 4:
                    axes = tuple(_AXIS_TO_NHWC[a % 4] for a in axes)
                keep = self._int(where, attrs, "keepdims", 1)
            # the converter's reduction axes: a small int32 constant operand
            axes_name = self._synthetic_axes("%s/axes" % n.outputs[0], len(axes))
            inputs = inputs[:1] + [self._tensor(axes_name)]
            options = (keep,)
        elif op == "BatchNormalization":
            return self._batch_norm(n, make)
        elif op == "Concat":
            kind = "CONCATENATION"
            axis = self._int(where, attrs, "axis", 1)
            rank = len(out.shape)
            if rank == 4 and self.resolve(n.outputs[0]) in self.channels_last:
                axis = _AXIS_TO_NHWC[axis % 4]
            options = (axis, act)
        elif op == "Clip":
            kind = _ACTIVATION_NAMES.get(self._clip_activation(n), "MAXIMUM")
            if kind == "MAXIMUM":
                self.notes.append("%s: a clip to other bounds than ReLU's, ReLU6's or ReLU-N1-to-1's counted as "
                                  "one MAXIMUM (the converter writes MAXIMUM and MINIMUM)" % where)
            inputs = [make(0)]
        elif op in _ELEMENTWISE:
            kind = _ELEMENTWISE[op]
            if kind in ("ADD", "SUB"):
                options = (act, 0)
            elif kind == "MUL":
                options = (act,)
            elif kind == "SOFTMAX":
                options = (_float_bits(1.0),)
            elif kind in ("QUANTIZE", "DEQUANTIZE"):
                # the converter keeps the scale and zero point as the tensor's quantisation
                # parameters, not as operands: one input
                inputs = [make(0)]
        elif op in _MOVES:
            kind = _MOVES[op]
        else:
            raise bad_model(self.path, "unsupported operator %s" % where)
        for i in range(len(inputs)):
            if inputs[i] is None:
                make(i)
        if n.bias is not None:
            inputs = inputs[:2] + [self._tensor(n.bias)] + inputs[3:]
        first = t[inputs[0]] if inputs and inputs[0] >= 0 else None
        macs, other = count_operations(kind, first.shape if first else (), out.shape, filt, attributes)
        return self._op(kind, inputs, outputs, macs, other, attributes, options)

    def _op(self, kind, inputs, outputs, macs, other, attributes=None, options=()):
        from memcore.cgraph import op_code
        t = self.tensors
        inputs = tuple(inputs)
        weights = sum(t[i].bytes for i in inputs if i >= 0 and t[i].is_constant)
        return Operator(index=0, kind=kind, inputs=inputs, outputs=tuple(outputs), macs=macs, other_ops=other,
                        weight_bytes=weights, attributes=attributes or {}, code=op_code(kind),
                        options_type=_OPTIONS_TYPE.get(kind, 0), options=tuple(options))

    def _synthetic_axes(self, name, count):
        self.synthetic[name] = ((count,), "int32")
        return name

    def _pad_before(self, n, x):
        """A PAD operator before `n`, whose padding is neither SAME nor VALID; returns
        the padded tensor."""
        pads = self._ints(n.where, n.attrs, "pads", (0, 0, 0, 0))
        src = self.tensors[x]
        shape = list(src.shape)
        if len(shape) == 4:  # channels-last: H is 1, W is 2
            shape[1] += pads[0] + pads[2]
            shape[2] += pads[1] + pads[3]
        name = "%s/padded" % n.outputs[0]
        padded = self._add(name, tuple(shape), src.dtype, False, src.quantization_channels)
        paddings = self._add(name + "/paddings", (len(shape), 2), "int32", True)
        self.pending.append(self._op("PAD", (x, paddings), (padded,), 0, 0))
        self._count("pad")
        return padded

    def _batch_norm(self, n, make):
        """A batch norm no layer could take: the MUL by a per-channel scale and the ADD
        of a per-channel shift the converter writes."""
        x = make(0)
        shape = self.tensors[x].shape
        channels = shape[-1] if self.resolve(n.inputs[0]) in self.channels_last else (shape[1] if len(shape) > 1
                                                                                      else 1)
        dtype = "int8" if self.tensors[x].dtype == "int8" else "float32"
        scale = self._add("%s/scale" % n.outputs[0], (channels,), dtype, True)
        shift = self._add("%s/shift" % n.outputs[0], (channels,), dtype, True)
        scaled = self._add("%s/scaled" % n.outputs[0], shape, self.tensors[x].dtype, False,
                           self.tensors[x].quantization_channels)
        y = self._activation(self.resolve(n.outputs[0]))
        elements = _elements(shape)
        self.pending.append(self._op("MUL", (x, scale), (scaled,), 0, elements, options=(_NONE,)))
        self.notes.append("%s: a batch norm no layer before it could take, written as MUL and ADD" % n.where)
        return self._op("ADD", (scaled, shift), (y,), 0, elements, options=(n.fused, 0))

    def _attributes(self, where, node):
        attrs = {}
        for a in node.attribute:
            try:
                value = onnx.helper.get_attribute_value(a)
            except Exception:  # an attribute type code this onnx does not know
                value = None
            if value is None:
                raise bad_model(self.path, "%s: attribute %r has no value of a known type" % (where, a.name))
            attrs[a.name] = value
        return attrs

    def _int(self, where, attrs, name, default):
        value = attrs.get(name, default)
        if not isinstance(value, int):
            raise bad_model(self.path, "%s: attribute %r must be an integer, got %r" % (where, name, value))
        return value

    def _window(self, where, attrs, kernel_hw):
        """A 2-D window's attributes: kernel_shape (when given) matches, strides and
        dilations are positive, pads are not negative."""
        if "kernel_shape" in attrs and self._ints(where, attrs, "kernel_shape", ()) != tuple(kernel_hw):
            raise bad_model(self.path, "%s: kernel_shape %s does not match the window %s"
                            % (where, list(attrs["kernel_shape"]), list(kernel_hw)))
        if any(k < 1 for k in kernel_hw):
            raise bad_model(self.path, "%s: kernel %s must be at least 1 by 1" % (where, list(kernel_hw)))
        for name, least, length in (("strides", 1, 2), ("dilations", 1, 2), ("pads", 0, 4)):
            if name in attrs:
                values = self._ints(where, attrs, name, ())
                if len(values) != length or any(v < least for v in values):
                    raise bad_model(self.path, "%s: attribute %r must be %d integers of at least %d, got %s"
                                    % (where, name, length, least, list(values)))

    def _ints(self, where, attrs, name, default):
        value = attrs.get(name, default)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) for v in value):
            raise bad_model(self.path, "%s: attribute %r must be a list of integers, got %r"
                            % (where, name, value))
        return tuple(value)


def _elements(shape):
    count = 1
    for d in shape:
        count *= d
    return count


def _check_external(path, name, tensor_proto, size_bytes):
    """External data is a file in the model's own folder (never an absolute path, never
    `..` out of it), long enough for the tensor.  Resolved against the model's folder,
    never the working directory; only its size is read."""
    info = {e.key: e.value for e in tensor_proto.external_data}
    where = "constant tensor %r: external data" % name
    location = info.get("location", "")
    if not location:
        raise bad_model(path, "%s has no location" % where)
    if os.path.isabs(location) or location.startswith(("/", "\\")) or os.path.splitdrive(location)[0]:
        raise bad_model(path, "%s %r is an absolute path; it must be a file in the model's folder"
                        % (where, location))
    parts = location.replace("\\", "/").split("/")
    if ".." in parts:
        raise bad_model(path, "%s %r leaves the model's folder" % (where, location))
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    target = os.path.realpath(os.path.join(folder, location))
    if os.path.commonpath([folder, target]) != folder:
        raise bad_model(path, "%s %r leaves the model's folder (a link to %s)" % (where, location, target))
    if not os.path.isfile(target):
        raise bad_model(path, "%s %r is not a file in the model's folder %s" % (where, location, folder))
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        raise bad_model(path, "%s: offset and length must be integers, got %r and %r"
                        % (where, info.get("offset"), info.get("length"))) from None
    file_bytes = os.path.getsize(target)
    if length is None:
        length = file_bytes - offset
    if offset < 0 or length != size_bytes or offset + length > file_bytes:
        raise bad_model(path, "%s needs %d bytes at offset %d of %r, which holds %d bytes (length %s)"
                        % (where, size_bytes, offset, location, file_bytes, info.get("length", "not given")))
