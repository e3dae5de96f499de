"""The TFLite reader: a .tflite flatbuffer into memcore's neutral graph.

Built on the maintained `tflite` package (the schema's generated flatbuffer accessors),
not a hand-rolled byte parser.  The flatbuffer is read lazily, so a truncated or
corrupted file shows up as an exception from deep inside the accessors, or as absurd
numbers; both become one MemcoreError naming the file.
"""
import importlib
import inspect
import re
import struct

import tflite as _schema
from tflite.BuiltinOperator import BuiltinOperator as _BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions as _BuiltinOptions
from tflite.TensorType import TensorType as _TensorType

from memcore.errors import MemcoreError
from memcore.graph import DTYPE_BYTES, Model, Operator, Tensor, bad_model
from memcore.opcount import count_operations, is_supported

_OP_NAMES = {v: k for k, v in vars(_BuiltinOperator).items() if not k.startswith("_")}
_TYPE_NAMES = {v: k.lower() for k, v in vars(_TensorType).items() if not k.startswith("_")}
_OPTION_NAMES = {v: k for k, v in vars(_BuiltinOptions).items() if not k.startswith("_")}
_MAX_DIM = 2 ** 31 - 1  # TFLite dims are int32
_MAX_OPTIONS = 8        # MC_OP_OPTIONS


def load_tflite(path, data: bytes) -> Model:
    try:
        return _read(path, data)
    except MemcoreError:
        raise
    except Exception as e:  # the accessors fail in many ways on damaged bytes
        raise bad_model(path, "corrupted or truncated TFLite flatbuffer (%s: %s)"
                        % (type(e).__name__, e)) from None


def _read(path, data):
    if len(data) < 8 or int.from_bytes(data[0:4], "little") >= len(data):
        raise bad_model(path, "truncated TFLite flatbuffer (%d bytes)" % len(data))
    model = _schema.Model.GetRootAsModel(data, 0)
    n_subgraphs = model.SubgraphsLength()
    if n_subgraphs == 0:
        raise bad_model(path, "the model has no subgraph")
    if n_subgraphs > 1:
        raise bad_model(path, "the model has %d subgraphs (control flow such as IF or WHILE); "
                              "memcore plans single-subgraph models only" % n_subgraphs)
    graph = model.Subgraphs(0)
    tensors = tuple(_tensor(path, model, graph.Tensors(i), i) for i in range(graph.TensorsLength()))
    n = len(tensors)

    def index(i, where, optional=False):
        i = int(i)
        if (optional and i == -1) or 0 <= i < n:
            return i
        raise bad_model(path, "%s refers to tensor %d, but the graph has %d tensors" % (where, i, n))

    operators = []
    for k in range(graph.OperatorsLength()):
        op = graph.Operators(k)
        kind = _op_name(path, model, op, k)
        inputs = tuple(index(op.Inputs(j), "operator %d (%s)" % (k, kind), optional=True)
                       for j in range(op.InputsLength()))
        outputs = tuple(index(op.Outputs(j), "operator %d (%s)" % (k, kind))
                        for j in range(op.OutputsLength()))
        operators.append(_operator(path, k, kind, op, inputs, outputs, tensors))
    graph_inputs = tuple(index(graph.Inputs(j), "graph input") for j in range(graph.InputsLength()))
    graph_outputs = tuple(index(graph.Outputs(j), "graph output") for j in range(graph.OutputsLength()))
    return Model(path=path, format="tflite", tensors=tensors, operators=tuple(operators),
                 inputs=graph_inputs, outputs=graph_outputs, subgraph_count=n_subgraphs)


def _tensor(path, model, t, i):
    name = (t.Name() or b"").decode("utf-8", "replace")
    where = "tensor %d (%s)" % (i, name)
    type_name = _TYPE_NAMES.get(t.Type())
    if type_name not in DTYPE_BYTES:
        raise bad_model(path, "%s has type %s, which has no fixed element size"
                        % (where, type_name or "code %d" % t.Type()))
    shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
    signature = tuple(int(d) for d in t.ShapeSignatureAsNumpy()) if t.ShapeSignatureLength() else ()
    if any(d < 0 for d in shape + signature):
        raise bad_model(path, "%s has a dynamic or unknown shape %s; memcore needs static shapes"
                        % (where, list(signature or shape)))
    if any(d > _MAX_DIM for d in shape):
        raise bad_model(path, "%s has an impossible dimension in shape %s" % (where, list(shape)))
    elements = 1
    for d in shape:
        elements *= d
    if elements * DTYPE_BYTES[type_name] > 2 ** 63 - 1:
        raise bad_model(path, "%s of shape %s does not fit in 64 bits of bytes" % (where, list(shape)))
    buffer_index = t.Buffer()
    if not 0 <= buffer_index < max(1, model.BuffersLength()):
        raise bad_model(path, "%s refers to buffer %d, but the file has %d buffers"
                        % (where, buffer_index, model.BuffersLength()))
    buffer = model.Buffers(buffer_index) if model.BuffersLength() else None
    # Data either inline, or (files over 2 GB) at an offset past the flatbuffer; either
    # way the tensor is a constant the runtime reads from the file, not from the arena.
    is_constant = buffer is not None and (buffer.DataLength() > 0 or buffer.Offset() > 1)
    if buffer is not None and buffer.DataLength() > 0:
        buffer.DataAsNumpy()  # touch it: a truncated file fails here, not later
    q = t.Quantization()
    channels = q.ScaleLength() if q is not None else 0
    has_zero_point = q is not None and q.ZeroPointLength() > 0
    return Tensor(index=i, name=name, shape=shape, dtype=type_name,
                  bytes=elements * DTYPE_BYTES[type_name], is_constant=bool(is_constant),
                  is_variable=bool(t.IsVariable()), quantization_channels=channels,
                  has_zero_point=has_zero_point,
                  quantized_dimension=int(q.QuantizedDimension()) if q is not None else 0)


def _op_name(path, model, op, k):
    if not 0 <= op.OpcodeIndex() < model.OperatorCodesLength():
        raise bad_model(path, "operator %d refers to operator code %d, but the file has %d"
                        % (k, op.OpcodeIndex(), model.OperatorCodesLength()))
    code = model.OperatorCodes(op.OpcodeIndex())
    # Schema 3a moved builtin codes past 127 to a new field; old files only set the
    # deprecated one.  The larger of the two is the real code in both cases.
    builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
    name = _OP_NAMES.get(builtin, "builtin code %d" % builtin)
    if name == "CUSTOM":
        custom = (code.CustomCode() or b"?").decode("utf-8", "replace")
        raise bad_model(path, "unsupported operator %d: custom operator %r" % (k, custom))
    if not is_supported(name):
        raise bad_model(path, "unsupported operator %d: %s" % (k, name))
    return name


_FIELDS = {}


def _scalar_accessors(table_name):
    """The scalar fields of an options table in schema order: [(accessor, is_float)],
    from the `tflite` package's generated accessors (vtable slot 4 + 2i is field i);
    a vector or table field is None, kept so later fields keep their position."""
    if table_name not in _FIELDS:
        cls = getattr(importlib.import_module("tflite." + table_name), table_name)
        slots = {}
        for name, fn in vars(cls).items():
            if name.startswith("_") or name.endswith(("AsNumpy", "Length", "IsNone")):
                continue
            try:
                src = inspect.getsource(fn)
            except (OSError, TypeError):
                continue
            m = re.search(r"self\._tab\.Offset\((\d+)\)", src)
            if not m:
                continue
            t = re.search(r"number_types\.(\w+)Flags, o \+ self\._tab\.Pos\)", src)
            scalar = t is not None and "Vector" not in src and "(self)" in src.split("\n")[0]
            slots[int(m.group(1))] = (getattr(cls, name), t.group(1).startswith("Float")) if scalar else None
        fields = [slots.get(4 + 2 * i) for i in range(max([(k - 4) // 2 + 1 for k in slots] or [0]))]
        _FIELDS[table_name] = fields[:_MAX_OPTIONS]
    return _FIELDS[table_name]


def _raw_options(op):
    """(options_type, scalar fields) of an operator, as mc_op_t holds them."""
    code = op.BuiltinOptionsType()
    table = op.BuiltinOptions()
    name = _OPTION_NAMES.get(code)
    if not code or name is None:
        return 0, ()
    try:
        fields = _scalar_accessors(name)
    except (ImportError, AttributeError):
        return code, ()
    if table is None:
        return code, ()
    obj = getattr(importlib.import_module("tflite." + name), name)()
    obj.Init(table.Bytes, table.Pos)
    values = []
    for field in fields:
        if field is None:
            values.append(0)
            continue
        accessor, is_float = field
        value = accessor(obj)  # the schema's default when the file omits the field
        if is_float:
            value = struct.unpack("<i", struct.pack("<f", float(value)))[0]
        values.append(int(value))
    return code, tuple(values)


def _options(op, kind):
    """The builtin options memcore needs, as plain values."""
    table = op.BuiltinOptions()
    if table is None:
        return {}
    if kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"):
        cls = {"CONV_2D": _schema.Conv2DOptions, "DEPTHWISE_CONV_2D": _schema.DepthwiseConv2DOptions,
               "TRANSPOSE_CONV": _schema.TransposeConvOptions}[kind]
        o = cls()
        o.Init(table.Bytes, table.Pos)
        return {"stride_hw": (o.StrideH(), o.StrideW())}
    if kind in ("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"):
        o = _schema.Pool2DOptions()
        o.Init(table.Bytes, table.Pos)
        return {"kernel_hw": (o.FilterHeight(), o.FilterWidth()), "stride_hw": (o.StrideH(), o.StrideW())}
    return {}


def _operator(path, k, kind, op, inputs, outputs, tensors):
    attributes = _options(op, kind)
    present = [tensors[i] for i in inputs if i >= 0]
    weights = [t for t in present if t.is_constant]
    filt = tensors[inputs[1]] if len(inputs) > 1 and inputs[1] >= 0 else None
    # TFLite layouts: conv filter OHWI, depthwise 1HWO, fully connected (O, I),
    # transpose conv OHWI.
    if kind in ("CONV_2D", "TRANSPOSE_CONV", "FULLY_CONNECTED", "DEPTHWISE_CONV_2D"):
        if filt is None or not filt.shape:
            raise bad_model(path, "operator %d (%s) has no filter tensor" % (k, kind))
        if kind == "FULLY_CONNECTED" and len(filt.shape) != 2:
            raise bad_model(path, "operator %d (%s) has a filter of shape %s, not (out, in)"
                            % (k, kind, list(filt.shape)))
        if kind != "FULLY_CONNECTED" and len(filt.shape) != 4:
            raise bad_model(path, "operator %d (%s) has a filter of shape %s, not 4-D"
                            % (k, kind, list(filt.shape)))
        attributes["output_channels"] = filt.shape[3] if kind == "DEPTHWISE_CONV_2D" else filt.shape[0]
        attributes["per_channel"] = filt.quantization_channels > 1
        if kind != "FULLY_CONNECTED":
            attributes["kernel_hw"] = (filt.shape[1], filt.shape[2])
    if kind == "TRANSPOSE_CONV":
        # inputs: output shape, filter, data
        data_in = tensors[inputs[2]]
        macs, other = data_in.elements * filt.shape[1] * filt.shape[2] * filt.shape[0], 0
    else:
        first_in = present[0] if present else None
        out = tensors[outputs[0]] if outputs else None
        macs, other = count_operations(kind, first_in.shape if first_in else (),
                                       out.shape if out else (),
                                       filt.shape if filt is not None else (), attributes)
    options_type, options = _raw_options(op)
    return Operator(index=k, kind=kind, inputs=inputs, outputs=outputs, macs=macs, other_ops=other,
                    weight_bytes=sum(t.bytes for t in weights), attributes=attributes,
                    options=options, options_type=options_type)
