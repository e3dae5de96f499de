"""The ONNX reader's builder: a shape-inferred ONNX graph into memcore's neutral graph, as
the TFLite converter would deploy it (docs/onnx.md).  The rewrites are in
memcore.onnx_rewrites, the lowering of each node to TFLite operators in
memcore.onnx_operators; this module holds the tensors (constants, activations, external
data) and reads the nodes' attributes."""
import os
from dataclasses import replace

import onnx
from onnx import numpy_helper

from memcore.graph import DTYPE_BYTES, Model, Tensor, bad_model
from memcore.onnx_operators import Operators
from memcore.onnx_rewrites import Rewrites
from memcore.onnx_tables import (DTYPE_OF_CODE, DTYPES, INT64_BYTES, NCHW_TO_NHWC, NO_INPUT_OPS, NONE,
                                 elements)


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
        self.fused = NONE
        self.bias = None            # a bias the rewrites gave it (a folded batch norm, a fused Add)



class Builder(Rewrites, Operators):
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
            if (not n.inputs or not n.inputs[0]) and n.op not in NO_INPUT_OPS:
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

    # ---- tensors -----------------------------------------------------------------------

    def _add(self, name, shape, dtype, constant, channels=0, axis=0):
        index = len(self.tensors)
        size = elements(shape) * DTYPE_BYTES[dtype]
        if size >= INT64_BYTES:
            raise bad_model(self.path, "tensor %r of shape %s does not fit in 64 bits of bytes" % (name, list(shape)))
        self.tensors.append(Tensor(index=index, name=name, shape=shape, dtype=dtype, bytes=size,
                                   is_constant=constant, quantization_channels=channels,
                                   quantization_dimension=axis, has_zero_point=channels > 0))
        self.by_name[name] = index
        return index

    def _dtype(self, name, elem_type):
        known = DTYPE_OF_CODE.get(elem_type)
        if known:
            return known
        try:
            onnx_name = onnx.TensorProto.DataType.Name(elem_type) if elem_type else "UNDEFINED"
        except ValueError:  # a code newer than this onnx, or a corrupted one
            onnx_name = "code %d" % elem_type
        if onnx_name not in DTYPES:
            raise bad_model(self.path, "tensor %r has type %s, which has no fixed element size"
                            % (name, onnx_name))
        DTYPE_OF_CODE[elem_type] = DTYPES[onnx_name]
        return DTYPES[onnx_name]

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
            size = elements(shape) * DTYPE_BYTES[dtype]
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
            shape = tuple(shape[i] for i in NCHW_TO_NHWC)
        dtype = self.dtype.get(name) or self._dtype(name, tt.elem_type)
        return self._add(name, shape, dtype, False, 1 if name in self.dtype else 0)

    # ---- attributes --------------------------------------------------------------------

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
                # (below 2^31: TFLite's builtin options, which carry them, are 32-bit)
                if len(values) != length or any(v < least or v >= 2 ** 31 for v in values):
                    raise bad_model(self.path, "%s: attribute %r must be %d integers from %d to 2^31 - 1, got %s"
                                    % (where, name, length, least, list(values)))

    def _ints(self, where, attrs, name, default):
        value = attrs.get(name, default)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) for v in value):
            raise bad_model(self.path, "%s: attribute %r must be a list of integers, got %r"
                            % (where, name, value))
        return tuple(value)



def _check_external(path, name, tensor_proto, size_bytes):
    """External data is a file in the model's own folder (never an absolute path, never
    `..` out of it), long enough for the tensor.  Resolved against the model's folder,
    never the working directory; only its size is read."""
    info = {e.key: e.value for e in tensor_proto.external_data}
    where = "constant tensor %r: external data" % name
    location = info.get("location", "")
    if not location:
        raise bad_model(path, "%s has no location" % where)
    # A NUL makes every os.path call raise ValueError, and no file name holds control
    # characters: refused before the location reaches the filesystem.
    if any(ord(c) < 32 or ord(c) == 127 for c in location):
        raise bad_model(path, "%s %r is not a file name (it holds a control character)" % (where, location))
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
    try:
        file_bytes = os.path.getsize(target)
    except OSError as e:  # gone or unreadable since isfile()
        raise bad_model(path, "%s %r cannot be read: %s" % (where, location, e.strerror)) from None
    if length is None:
        length = file_bytes - offset
    if offset < 0 or length != size_bytes or offset + length > file_bytes:
        raise bad_model(path, "%s needs %d bytes at offset %d of %r, which holds %d bytes (length %s)"
                        % (where, size_bytes, offset, location, file_bytes, info.get("length", "not given")))
