"""A small TFLite flatbuffer writer for tests and measurements: graphs built operator by
operator, with exactly the shapes, types, quantization and options a case needs.

    b = ModelBuilder()
    x = b.tensor([1, 8, 8, 3], "int8", scale=[0.5], zero_point=[-1])
    w = b.tensor([4, 3, 3, 3], "int8", data=bytes(108), scale=[0.1] * 4, zero_point=[0] * 4)
    y = b.tensor([1, 8, 8, 4], "int8", scale=[0.5], zero_point=[0])
    b.op("CONV_2D", [x, w, -1], [y], padding=0, stride_w=1, stride_h=1)
    data = b.build(inputs=[x], outputs=[y])

Options are given by their schema field names in snake case (the `tflite` package's
generated accessors tell the field order, types and defaults), so the writer knows no
option by hand.  Only what TFLite's schema says is written; nothing is validated: a test
may build a broken graph on purpose.
"""
import importlib
import inspect
import re
import struct

import flatbuffers
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

OP_CODES = {k: v for k, v in vars(BuiltinOperator).items() if not k.startswith("_")}
OPTION_CODES = {k: v for k, v in vars(BuiltinOptions).items() if not k.startswith("_")}
TYPE_CODES = {k.lower(): v for k, v in vars(TensorType).items() if not k.startswith("_")}

# The builtin options table of each operator, where its name does not follow from the
# operator's (schema.fbs, union BuiltinOptions and the operators that use them).
_OPTIONS_OF = {
    "CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions", "MAX_POOL_2D": "Pool2DOptions", "L2_POOL_2D": "Pool2DOptions",
    "MEAN": "ReducerOptions", "SUM": "ReducerOptions", "REDUCE_MAX": "ReducerOptions",
    "REDUCE_MIN": "ReducerOptions", "REDUCE_PROD": "ReducerOptions", "REDUCE_ALL": "ReducerOptions",
    "REDUCE_ANY": "ReducerOptions", "CONCATENATION": "ConcatenationOptions",
    "FULLY_CONNECTED": "FullyConnectedOptions", "SOFTMAX": "SoftmaxOptions",
    "L2_NORMALIZATION": "L2NormOptions", "RESHAPE": "ReshapeOptions", "ADD": "AddOptions",
    "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions", "PAD": "PadOptions",
    "PADV2": "PadV2Options", "GATHER": "GatherOptions", "TRANSPOSE": "TransposeOptions",
    "BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions", "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions",
    "SPACE_TO_DEPTH": "SpaceToDepthOptions", "DEPTH_TO_SPACE": "DepthToSpaceOptions",
    "STRIDED_SLICE": "StridedSliceOptions", "SLICE": "SliceOptions", "SPLIT": "SplitOptions",
    "SPLIT_V": "SplitVOptions", "SQUEEZE": "SqueezeOptions", "EXPAND_DIMS": "ExpandDimsOptions",
    "PACK": "PackOptions", "UNPACK": "UnpackOptions", "CAST": "CastOptions",
    "ARG_MAX": "ArgMaxOptions", "ARG_MIN": "ArgMinOptions", "LEAKY_RELU": "LeakyReluOptions",
    "MIRROR_PAD": "MirrorPadOptions", "RESIZE_BILINEAR": "ResizeBilinearOptions",
    "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions", "TRANSPOSE_CONV": "TransposeConvOptions",
    "SVDF": "SVDFOptions", "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTMOptions",
    "BATCH_MATMUL": "BatchMatMulOptions", "CUMSUM": "CumsumOptions", "SHAPE": "ShapeOptions",
    "FILL": "FillOptions", "SQUARED_DIFFERENCE": "SquaredDifferenceOptions",
    "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
    "EQUAL": "EqualOptions", "NOT_EQUAL": "NotEqualOptions", "LESS": "LessOptions",
    "LESS_EQUAL": "LessEqualOptions", "GREATER": "GreaterOptions", "GREATER_EQUAL": "GreaterEqualOptions",
    "SELECT_V2": "SelectV2Options", "ZEROS_LIKE": "ZerosLikeOptions", "FLOOR_DIV": "FloorDivOptions",
    "FLOOR_MOD": "FloorModOptions", "HARD_SWISH": "HardSwishOptions", "REVERSE_V2": "ReverseV2Options",
    "GATHER_ND": "GatherNdOptions", "ADD_N": "AddNOptions", "LOG_SOFTMAX": "LogSoftmaxOptions",
    "DEQUANTIZE": "DequantizeOptions", "QUANTIZE": "QuantizeOptions", "ABS": "AbsOptions",
    "NEG": "NegOptions", "EXP": "ExpOptions", "RSQRT": None, "SQUARE": "SquareOptions",
    "LOGICAL_OR": "LogicalOrOptions", "LOGICAL_AND": "LogicalAndOptions", "LOGICAL_NOT": "LogicalNotOptions",
    "BROADCAST_TO": "BroadcastToOptions", "EMBEDDING_LOOKUP": None,
    "DYNAMIC_UPDATE_SLICE": "DynamicUpdateSliceOptions", "PRELU": None,
}

_SCALARS = {"Bool": "Bool", "Int8": "Int8", "Uint8": "Uint8", "Int16": "Int16", "Uint16": "Uint16",
            "Int32": "Int32", "Uint32": "Uint32", "Int64": "Int64", "Uint64": "Uint64",
            "Float32": "Float32", "Float64": "Float64"}


def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def option_fields(table_name):
    """[(slot, snake name, scalar type or None for vectors/tables, default)] of an
    options table in schema order, read from the `tflite` package's accessors."""
    cls = getattr(importlib.import_module("tflite." + table_name), table_name)
    src = inspect.getsource(cls)
    out = []
    for m in re.finditer(r"def (\w+)\(self(?:, j)?\):\n\s+o = flatbuffers.number_types.UOffsetTFlags"
                         r"\.py_type\(self._tab.Offset\((\d+)\)\)\n\s+if o != 0:\n(.*?)\n\s+return (.*?)\n",
                         src, re.S):
        name, slot, body, default = m.groups()
        if name.endswith(("AsNumpy", "Length", "IsNone")):
            continue
        t = re.search(r"number_types\.(\w+)Flags, o \+ self._tab.Pos\)", body)
        scalar = _SCALARS.get(t.group(1)) if t and "Vector" not in body else None
        try:
            value = {"True": True, "False": False}.get(default, None)
            if value is None:
                value = float(default) if "." in default else int(default)
        except ValueError:
            value = 0
        if any(f[0] == int(slot) for f in out):
            continue
        out.append((int(slot), _snake(name), scalar, value))
    return out


def options_table(kind):
    name = _OPTIONS_OF.get(kind, kind.title().replace("_", "") + "Options")
    if name is None or name not in OPTION_CODES:
        return None
    return name


class ModelBuilder:
    def __init__(self):
        self.tensors = []      # dicts
        self.ops = []          # (kind, inputs, outputs, options dict, intermediates)
        self.buffers = [b""]   # buffer 0 is the empty sentinel

    def tensor(self, shape, dtype="float32", data=None, scale=None, zero_point=None,
               quantized_dimension=0, name=None, is_variable=False, shape_signature=None):
        buffer = 0
        if data is not None:
            self.buffers.append(bytes(data))
            buffer = len(self.buffers) - 1
        self.tensors.append(dict(shape=list(shape), dtype=dtype, buffer=buffer,
                                 name=name or "t%d" % len(self.tensors), scale=scale,
                                 zero_point=zero_point, qdim=quantized_dimension,
                                 is_variable=is_variable, shape_signature=shape_signature))
        return len(self.tensors) - 1

    def const(self, shape, dtype, values=None, **quant):
        """A constant tensor; values default to zeros of the right byte size."""
        n = 1
        for d in shape:
            n *= d
        fmt = {"float32": "f", "int32": "i", "int64": "q", "int8": "b", "uint8": "B",
               "int16": "h", "bool": "?", "float16": "e"}[dtype]
        if values is None:
            values = [0] * n
        return self.tensor(shape, dtype, data=struct.pack("<%d%s" % (len(values), fmt), *values), **quant)

    def op(self, kind, inputs, outputs, intermediates=(), **options):
        self.ops.append((kind, list(inputs), list(outputs), options, list(intermediates)))

    # -- serialisation -------------------------------------------------------------

    def build(self, inputs, outputs):
        fb = flatbuffers.Builder(1024)

        def ivec(values, start):
            start(fb, len(values))
            for v in reversed(values):
                fb.PrependInt32(v)
            return fb.EndVector()

        def vec(values, prepend):
            fb.StartVector(4 if prepend != "PrependInt64" and prepend != "PrependFloat64" else 8,
                           len(values), 4 if prepend != "PrependInt64" else 8)
            for v in reversed(values):
                getattr(fb, prepend)(v)
            return fb.EndVector()

        # Buffers.
        buffer_offsets = []
        for data in self.buffers:
            data_off = None
            if data:
                fb.StartVector(1, len(data), 16)
                for byte in reversed(data):
                    fb.PrependUint8(byte)
                data_off = fb.EndVector()
            fb.StartObject(3)
            if data_off is not None:
                fb.PrependUOffsetTRelativeSlot(0, data_off, 0)
            buffer_offsets.append(fb.EndObject())

        # Tensors.
        tensor_offsets = []
        for t in self.tensors:
            name = fb.CreateString(t["name"])
            shape = vec(t["shape"], "PrependInt32")
            signature = vec(t["shape_signature"], "PrependInt32") if t["shape_signature"] else None
            quant = None
            if t["scale"] is not None:
                scale = vec([float(s) for s in t["scale"]], "PrependFloat32")
                zp = vec([int(z) for z in t["zero_point"]], "PrependInt64") if t["zero_point"] is not None else None
                fb.StartObject(7)
                fb.PrependUOffsetTRelativeSlot(2, scale, 0)
                if zp is not None:
                    fb.PrependUOffsetTRelativeSlot(3, zp, 0)
                fb.PrependInt32Slot(6, t["qdim"], 0)
                quant = fb.EndObject()
            fb.StartObject(10)
            fb.PrependUOffsetTRelativeSlot(0, shape, 0)
            fb.PrependInt8Slot(1, TYPE_CODES[t["dtype"]], -1)
            fb.PrependUint32Slot(2, t["buffer"], 0xFFFFFFFF)
            fb.PrependUOffsetTRelativeSlot(3, name, 0)
            if quant is not None:
                fb.PrependUOffsetTRelativeSlot(4, quant, 0)
            if t["is_variable"]:
                fb.PrependBoolSlot(5, True, False)
            if signature is not None:
                fb.PrependUOffsetTRelativeSlot(7, signature, 0)
            tensor_offsets.append(fb.EndObject())

        # Operator codes, one per kind in first-use order.
        kinds = []
        for kind, *_ in self.ops:
            if kind not in kinds:
                kinds.append(kind)
        code_offsets = []
        for kind in kinds:
            code = OP_CODES[kind]
            fb.StartObject(4)
            fb.PrependInt8Slot(0, min(code, 127), 0)
            fb.PrependInt32Slot(2, 1, 1)
            fb.PrependInt32Slot(3, code, 0)
            code_offsets.append(fb.EndObject())

        # Operators.
        op_offsets = []
        for kind, ins, outs, options, inter in self.ops:
            table = options_table(kind)
            opt_off = None
            if table is not None:
                fields = option_fields(table)
                vectors = {}
                for slot, name, scalar, _ in fields:
                    if scalar is None and name in options:
                        vectors[slot] = vec(list(options[name]), "PrependInt32")
                fb.StartObject(max([(s - 4) // 2 + 1 for s, *_ in fields] or [0]))
                known = {f[1] for f in fields}
                for bad in set(options) - known:
                    raise KeyError("%s has no option %r (has %s)" % (table, bad, sorted(known)))
                for slot, name, scalar, default in fields:
                    i = (slot - 4) // 2
                    if scalar is None:
                        if slot in vectors:
                            fb.PrependUOffsetTRelativeSlot(i, vectors[slot], 0)
                    elif name in options:
                        # Forced even when equal to the default, as converters often do.
                        getattr(fb, "Prepend%s" % scalar)(options[name])
                        fb.Slot(i)
                opt_off = fb.EndObject()
            iv = vec(ins, "PrependInt32")
            ov = vec(outs, "PrependInt32")
            mv = vec(inter, "PrependInt32") if inter else None
            fb.StartObject(14)
            fb.PrependUint32Slot(0, kinds.index(kind), 0)
            fb.PrependUOffsetTRelativeSlot(1, iv, 0)
            fb.PrependUOffsetTRelativeSlot(2, ov, 0)
            if opt_off is not None:
                fb.PrependUint8Slot(3, OPTION_CODES[table], 0)
                fb.PrependUOffsetTRelativeSlot(4, opt_off, 0)
            if mv is not None:
                fb.PrependUOffsetTRelativeSlot(8, mv, 0)
            op_offsets.append(fb.EndObject())

        def table_vec(offsets):
            fb.StartVector(4, len(offsets), 4)
            for o in reversed(offsets):
                fb.PrependUOffsetTRelative(o)
            return fb.EndVector()

        tv = table_vec(tensor_offsets)
        inv = vec(list(inputs), "PrependInt32")
        outv = vec(list(outputs), "PrependInt32")
        opv = table_vec(op_offsets)
        sg_name = fb.CreateString("main")
        fb.StartObject(5)
        fb.PrependUOffsetTRelativeSlot(0, tv, 0)
        fb.PrependUOffsetTRelativeSlot(1, inv, 0)
        fb.PrependUOffsetTRelativeSlot(2, outv, 0)
        fb.PrependUOffsetTRelativeSlot(3, opv, 0)
        fb.PrependUOffsetTRelativeSlot(4, sg_name, 0)
        subgraph = fb.EndObject()

        codes = table_vec(code_offsets)
        subgraphs = table_vec([subgraph])
        buffers = table_vec(buffer_offsets)
        desc = fb.CreateString("memcore test model")
        fb.StartObject(8)
        fb.PrependUint32Slot(0, 3, 0)
        fb.PrependUOffsetTRelativeSlot(1, codes, 0)
        fb.PrependUOffsetTRelativeSlot(2, subgraphs, 0)
        fb.PrependUOffsetTRelativeSlot(3, desc, 0)
        fb.PrependUOffsetTRelativeSlot(4, buffers, 0)
        model = fb.EndObject()
        fb.Finish(model, file_identifier=b"TFL3")
        return bytes(fb.Output())
