"""The ONNX reader: an .onnx protobuf into memcore's neutral graph.

Named onnx_import so it never shadows the `onnx` package it uses.  Shapes come from
onnx.shape_inference (strict), so every activation has a static shape or the file is
refused.  ONNX operators map onto TFLite's builtin kinds (the neutral vocabulary): Conv
with one group per input channel is a DEPTHWISE_CONV_2D, Gemm or MatMul by a constant
matrix is a FULLY_CONNECTED, GlobalAveragePool a MEAN, and so on.  Weights are stored
in the filter layouts TFLite uses before counting, so the counting convention of
memcore.opcount applies unchanged.  Activations stay channels-first (NCHW).

The file is untrusted: every tensor is written by at most one node and never by a node
when it is an initializer or graph input; attributes are checked (a Conv's group divides
its channels, strides and dilations are positive, ...); a tensor whose bytes do not fit
in 64 bits is refused by name; external data must be a file inside the model's own
folder.  Limits: MAX_NODES nodes and MAX_TENSORS tensors (load time is linear, about
25 us per node: a 100,000-node chain loads in about 2.5 s), refused before any work.
"""
import os

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


def load_onnx(path, data: bytes) -> Model:
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
    for node in proto.graph.node:
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            raise bad_model(path, "node %r (%s) holds subgraphs (control flow); memcore plans "
                                  "single-graph models only" % (node.name, node.op_type))
    try:
        proto = shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)
    except Exception as e:
        raise bad_model(path, "ONNX shape inference failed: %s" % (str(e).strip().splitlines() or [e])[0]) from None
    return _Builder(path, proto.graph).model()


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


class _Builder:
    def __init__(self, path, graph):
        self.path = path
        self.graph = graph
        self.tensors = []
        self.by_name = {}
        self.types = {}
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            self.types[vi.name] = vi.type

    def model(self):
        g = self.graph
        for init in g.initializer:
            self._constant(init.name, init)
        for node in g.node:
            if node.op_type == "Constant":
                value = next((a.t for a in node.attribute if a.name == "value"), None)
                if value is None:
                    raise bad_model(self.path, "Constant node %r has no tensor value" % node.name)
                if not node.output:
                    raise bad_model(self.path, "Constant node %r has no output" % node.name)
                self._constant(node.output[0], value)
        inputs = tuple(self._activation(vi.name) for vi in g.input if vi.name not in self.by_name)
        operators = []
        for node in g.node:
            if node.op_type == "Constant":
                continue
            operators.append(self._operator(len(operators), node))
        outputs = tuple(self._activation(vi.name) for vi in g.output)
        return Model(path=self.path, format="onnx", tensors=tuple(self.tensors),
                     operators=tuple(operators), inputs=inputs, outputs=outputs)

    def _add(self, name, shape, dtype, constant):
        index = len(self.tensors)
        size = _elements(shape) * DTYPE_BYTES[dtype]
        if size >= _INT64_BYTES:
            raise bad_model(self.path, "tensor %r of shape %s does not fit in 64 bits of bytes" % (name, list(shape)))
        self.tensors.append(Tensor(index=index, name=name, shape=shape, dtype=dtype, bytes=size,
                                   is_constant=constant))
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

    def _constant(self, name, tensor_proto):
        if tensor_proto.data_location == onnx.TensorProto.EXTERNAL:
            dtype = self._dtype(name, tensor_proto.data_type)
            shape = tuple(int(d) for d in tensor_proto.dims)
            if any(d < 0 for d in shape):
                raise bad_model(self.path, "constant tensor %r has a negative dimension %s" % (name, list(shape)))
            index = self._add(name, shape, dtype, True)
            _check_external(self.path, name, tensor_proto, self.tensors[index].bytes)
            return index
        try:
            array = numpy_helper.to_array(tensor_proto)
        except Exception as e:  # data that does not match the dims or the type
            raise bad_model(self.path, "constant tensor %r: its data does not match its shape %s (%s)"
                            % (name, list(tensor_proto.dims), e)) from None
        return self._add(name, tuple(int(d) for d in array.shape),
                         self._dtype(name, tensor_proto.data_type), True)

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
                    raise bad_model(self.path, "tensor %r has a dynamic or unknown dimension %r; "
                                               "memcore needs static shapes (fix the batch size "
                                               "when exporting)" % (name, d.dim_param or "?"))
        return self._add(name, shape, self._dtype(name, tt.elem_type), False)

    def _operator(self, k, node):
        where = "node %d %r (%s)" % (k, node.name, node.op_type)
        inputs = tuple(self._activation(n) if n else -1 for n in node.input)
        outputs = tuple(self._activation(n) for n in node.output if n)
        attrs = self._attributes(where, node)
        t = self.tensors
        if not outputs:
            raise bad_model(self.path, "%s has no output" % where)
        if node.op_type in ("Conv", "Gemm", "MatMul") and (len(inputs) < 2 or min(inputs[:2]) < 0):
            raise bad_model(self.path, "%s needs a data and a weight input, got %d inputs"
                            % (where, len(inputs)))
        first = t[inputs[0]] if inputs and inputs[0] >= 0 else None
        out = t[outputs[0]]
        filt, attributes, kind = (), {}, None
        op = node.op_type
        if op == "Conv":
            w = t[inputs[1]]
            if len(w.shape) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, weight shape %s"
                                % (where, list(w.shape)))
            o, i_per_group, kh, kw = w.shape
            if len(first.shape) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, input shape %s"
                                % (where, list(first.shape)))
            group = self._int(where, attrs, "group", 1)
            channels_in = first.shape[1]
            if group < 1:
                raise bad_model(self.path, "%s: attribute 'group' must be at least 1, got %d" % (where, group))
            if channels_in % group or o % group or i_per_group * group != channels_in:
                raise bad_model(self.path, "%s: group %d does not split %d input channels into groups of %d "
                                           "(weight shape %s) and %d output channels evenly"
                                % (where, group, channels_in, i_per_group, list(w.shape), o))
            self._window(where, attrs, (kh, kw))
            if group > 1 and group == channels_in and i_per_group == 1:
                kind, filt = "DEPTHWISE_CONV_2D", (1, kh, kw, o)
            else:
                kind, filt = "CONV_2D", (o, kh, kw, i_per_group)
            attributes = {"output_channels": o, "per_channel": False, "kernel_hw": (kh, kw),
                          "stride_hw": self._ints(where, attrs, "strides", (1, 1))}
        elif op in ("Gemm", "MatMul"):
            w = t[inputs[1]]
            if op == "Gemm":
                for flag in ("transA", "transB"):
                    if self._int(where, attrs, flag, 0) not in (0, 1):
                        raise bad_model(self.path, "%s: attribute %r must be 0 or 1, got %d"
                                        % (where, flag, attrs[flag]))
            if w.is_constant and len(w.shape) == 2:
                transposed = op == "Gemm" and self._int(where, attrs, "transB", 0) == 1
                n_out, n_in = (w.shape[0], w.shape[1]) if transposed else (w.shape[1], w.shape[0])
                kind, filt = "FULLY_CONNECTED", (n_out, n_in)
                attributes = {"output_channels": n_out, "per_channel": False}
            elif op == "MatMul":
                kind = "BATCH_MATMUL"
            else:
                raise bad_model(self.path, "%s: Gemm by a non-constant matrix is not supported" % where)
        elif op in _POOLS:
            kind = _POOLS[op]
            kernel = self._ints(where, attrs, "kernel_shape", ())
            if len(kernel) != 2:
                raise bad_model(self.path, "%s: only 2-D pooling is supported" % where)
            self._window(where, attrs, kernel)
            attributes = {"kernel_hw": kernel, "stride_hw": self._ints(where, attrs, "strides", (1, 1))}
        elif op in _REDUCES:
            kind = _REDUCES[op]
            if len(inputs) < 2 and first is not None:
                # TFLite's reductions take their axes as a constant int32 tensor, which
                # TFLM's kernels read in Prepare: the converted model has one, so this
                # graph gets it too (ONNX gives axes as an attribute, or all of them, or
                # the spatial ones for the global pools).
                if op.startswith("Global"):
                    n_axes = max(0, len(first.shape) - 2)
                else:
                    axes = attrs.get("axes")
                    n_axes = len(axes) if isinstance(axes, (list, tuple)) else len(first.shape)
                inputs = inputs[:1] + (self._add(node.output[0] + "/axes", (n_axes,), "int32", True),)
        elif op in _ELEMENTWISE:
            kind = _ELEMENTWISE[op]
        elif op in _MOVES:
            kind = _MOVES[op]
        else:
            raise bad_model(self.path, "unsupported operator %s" % where)
        macs, other = count_operations(kind, first.shape if first else (), out.shape, filt, attributes)
        weights = sum(t[i].bytes for i in inputs if i >= 0 and t[i].is_constant)
        return Operator(index=k, kind=kind, inputs=inputs, outputs=outputs, macs=macs, other_ops=other,
                        weight_bytes=weights, attributes=attributes)

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
