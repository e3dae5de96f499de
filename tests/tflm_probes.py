"""One small model per operator kind of the op table (and per type where the kernel's
allocations differ), built with tests/tflite_build.py: what the op table is checked
against TFLM with, kind by kind.

    for name, data in probes(): ...   # (probe name, .tflite bytes)

Each probe is a valid graph TFLM's Prepare accepts: shapes, types and quantization
parameters as the kernel checks them.
"""
from tflite_build import ModelBuilder

F32 = "float32"


def _q(b, shape, dtype="int8", scale=0.05, zp=0, **kw):
    return b.tensor(shape, dtype, scale=[scale], zero_point=[zp], **kw)


def _act(b, shape, dtype):
    return _q(b, shape, dtype) if dtype == "int8" else b.tensor(shape, dtype)


def unary(kind, dtype=F32, shape=(1, 8), out_dtype=None, out_quant=None, **options):
    b = ModelBuilder()
    x = _act(b, shape, dtype)
    od = out_dtype or dtype
    if od == "int8":
        scale, zp = out_quant or (0.05, 0)
        y = _q(b, shape, scale=scale, zp=zp)
    else:
        y = b.tensor(shape, od)
    b.op(kind, [x], [y], **options)
    return b.build([x], [y])


def binary(kind, dtype=F32, shape=(1, 8), out_dtype=None, **options):
    b = ModelBuilder()
    x = _act(b, shape, dtype)
    z = _act(b, shape, dtype)
    od = out_dtype or dtype
    y = _act(b, shape, od) if od != "bool" else b.tensor(shape, "bool")
    b.op(kind, [x, z], [y], **options)
    return b.build([x, z], [y])


def conv(dtype=F32, per_channel=True, bias=True):
    b = ModelBuilder()
    x = _act(b, [1, 8, 8, 3], dtype)
    if dtype == "int8":
        w = b.const([4, 3, 3, 3], "int8", scale=[0.01] * (4 if per_channel else 1),
                    zero_point=[0] * (4 if per_channel else 1))
        bb = b.const([4], "int32", scale=[0.0005] * 4, zero_point=[0] * 4) if bias else -1
    else:
        w = b.const([4, 3, 3, 3], F32)
        bb = b.const([4], F32) if bias else -1
    y = _act(b, [1, 8, 8, 4], dtype)
    b.op("CONV_2D", [x, w, bb], [y], padding=0, stride_w=1, stride_h=1)
    return b.build([x], [y])


def depthwise(dtype=F32):
    b = ModelBuilder()
    x = _act(b, [1, 8, 8, 4], dtype)
    if dtype == "int8":
        w = b.const([1, 3, 3, 4], "int8", scale=[0.01] * 4, zero_point=[0] * 4, quantized_dimension=3)
        bb = b.const([4], "int32", scale=[0.0005] * 4, zero_point=[0] * 4)
    else:
        w, bb = b.const([1, 3, 3, 4], F32), b.const([4], F32)
    y = _act(b, [1, 8, 8, 4], dtype)
    b.op("DEPTHWISE_CONV_2D", [x, w, bb], [y], padding=0, stride_w=1, stride_h=1, depth_multiplier=1)
    return b.build([x], [y])


def fully_connected(dtype=F32, per_channel=False, batch=1):
    b = ModelBuilder()
    x = _act(b, [batch, 16], dtype)
    if dtype == "int8":
        n = 8 if per_channel else 1
        w = b.const([8, 16], "int8", scale=[0.01] * n, zero_point=[0] * n)
        bb = b.const([8], "int32", scale=[0.0005] * n, zero_point=[0] * n)
    else:
        w, bb = b.const([8, 16], F32), b.const([8], F32)
    y = _act(b, [batch, 8], dtype)
    b.op("FULLY_CONNECTED", [x, w, bb], [y])
    return b.build([x], [y])


def transpose_conv(dtype=F32):
    b = ModelBuilder()
    shape = b.const([4], "int32", [1, 8, 8, 2])
    if dtype == "int8":
        w = b.const([2, 3, 3, 4], "int8", scale=[0.01] * 2, zero_point=[0] * 2)
    else:
        w = b.const([2, 3, 3, 4], F32)
    x = _act(b, [1, 4, 4, 4], dtype)
    y = _act(b, [1, 8, 8, 2], dtype)
    b.op("TRANSPOSE_CONV", [shape, w, x], [y], padding=0, stride_w=2, stride_h=2)
    return b.build([x], [y])


def pool(kind, dtype=F32):
    b = ModelBuilder()
    x = _act(b, [1, 8, 8, 4], dtype)
    y = _act(b, [1, 4, 4, 4], dtype)
    b.op(kind, [x], [y], padding=1, stride_w=2, stride_h=2, filter_width=2, filter_height=2)
    return b.build([x], [y])


def reduce(kind, dtype=F32):
    b = ModelBuilder()
    x = _act(b, [1, 4, 4, 8], dtype) if dtype != "bool" else b.tensor([1, 4, 4, 8], "bool")
    axis = b.const([2], "int32", [1, 2])
    y = _act(b, [1, 1, 1, 8], dtype) if dtype != "bool" else b.tensor([1, 1, 1, 8], "bool")
    b.op(kind, [x, axis], [y], keep_dims=True)
    return b.build([x], [y])


def batch_matmul(dtype=F32, adj_x=False, adj_y=False):
    b = ModelBuilder()
    x = _act(b, [1, 8, 4] if adj_x else [1, 4, 8], dtype)
    z = _act(b, [1, 6, 8] if adj_y else [1, 8, 6], dtype)
    y = _act(b, [1, 4, 6], dtype)
    b.op("BATCH_MATMUL", [x, z], [y], adj_x=adj_x, adj_y=adj_y)
    return b.build([x, z], [y])


def with_const(kind, in_shape, const_shape, const_dtype, const_values, out_shape, dtype=F32,
               out_dtype=None, const_first=False, **options):
    b = ModelBuilder()
    x = _act(b, in_shape, dtype)
    c = b.const(const_shape, const_dtype, const_values)
    od = out_dtype or dtype
    y = _act(b, out_shape, od)
    b.op(kind, [c, x] if const_first else [x, c], [y], **options)
    return b.build([x], [y])


def concatenation(dtype=F32):
    b = ModelBuilder()
    x, z = _act(b, [1, 4, 4, 2], dtype), _act(b, [1, 4, 4, 2], dtype)
    y = _act(b, [1, 4, 4, 4], dtype)
    b.op("CONCATENATION", [x, z], [y], axis=3)
    return b.build([x, z], [y])


def add_n(dtype=F32):
    b = ModelBuilder()
    xs = [_act(b, [1, 16], dtype) for _ in range(3)]
    y = _act(b, [1, 16], dtype)
    b.op("ADD_N", xs, [y])
    return b.build(xs, [y])


def pad(kind, dtype=F32):
    b = ModelBuilder()
    x = _act(b, [1, 4, 4, 2], dtype)
    p = b.const([4, 2], "int32", [0, 0, 1, 1, 1, 1, 0, 0])
    ins = [x, p]
    if kind == "PADV2":
        ins.append(b.const([1], dtype, [0], **({"scale": [0.05], "zero_point": [0]} if dtype == "int8" else {})))
    y = _act(b, [1, 6, 6, 2], dtype)
    b.op(kind, ins, [y], **({"mode": 0} if kind == "MIRROR_PAD" else {}))
    return b.build([x], [y])


def split(kind):
    b = ModelBuilder()
    x = b.tensor([1, 8], F32)
    axis = b.const([], "int32", [1])
    if kind == "SPLIT":
        y1, y2 = b.tensor([1, 4], F32), b.tensor([1, 4], F32)
        b.op("SPLIT", [axis, x], [y1, y2], num_splits=2)
    else:
        sizes = b.const([2], "int32", [3, 5])
        y1, y2 = b.tensor([1, 3], F32), b.tensor([1, 5], F32)
        b.op("SPLIT_V", [x, sizes, axis], [y1, y2], num_splits=2)
    return b.build([x], [y1, y2])


def pack_unpack(kind):
    b = ModelBuilder()
    if kind == "PACK":
        x, z, y = b.tensor([4], F32), b.tensor([4], F32), b.tensor([2, 4], F32)
        b.op("PACK", [x, z], [y], values_count=2, axis=0)
        return b.build([x, z], [y])
    x, y1, y2 = b.tensor([2, 4], F32), b.tensor([4], F32), b.tensor([4], F32)
    b.op("UNPACK", [x], [y1, y2], num=2, axis=0)
    return b.build([x], [y1, y2])


def select():
    b = ModelBuilder()
    c, x, z = b.tensor([1, 8], "bool"), b.tensor([1, 8], F32), b.tensor([1, 8], F32)
    y = b.tensor([1, 8], F32)
    b.op("SELECT_V2", [c, x, z], [y])
    return b.build([c, x, z], [y])


def strided_slice(dtype=F32):
    b = ModelBuilder()
    x = _act(b, [4, 4], dtype)
    begin, end, strides = b.const([2], "int32", [0, 0]), b.const([2], "int32", [4, 4]), b.const([2], "int32", [2, 2])
    y = _act(b, [2, 2], dtype)
    b.op("STRIDED_SLICE", [x, begin, end, strides], [y])
    return b.build([x], [y])


def slice_():
    b = ModelBuilder()
    x = b.tensor([4, 4], F32)
    begin, size = b.const([2], "int32", [1, 1]), b.const([2], "int32", [2, 2])
    y = b.tensor([2, 2], F32)
    b.op("SLICE", [x, begin, size], [y])
    return b.build([x], [y])


def gather(kind):
    b = ModelBuilder()
    x = b.tensor([5, 4] if kind == "GATHER" else [4, 3], F32)
    if kind == "GATHER":
        idx = b.const([3], "int32", [0, 2, 4])
        y = b.tensor([3, 4], F32)
        b.op(kind, [x, idx], [y], axis=0)
    else:
        idx = b.const([2, 1], "int32", [0, 2])
        y = b.tensor([2, 3], F32)
        b.op(kind, [x, idx], [y])
    return b.build([x], [y])


def embedding_lookup():
    b = ModelBuilder()
    ids = b.tensor([3], "int32")
    table = b.const([10, 4], F32)
    y = b.tensor([3, 4], F32)
    b.op("EMBEDDING_LOOKUP", [ids, table], [y])
    return b.build([ids], [y])


def dynamic_update_slice():
    b = ModelBuilder()
    x, u = b.tensor([4, 4], F32), b.tensor([2, 2], F32)
    start = b.const([2], "int32", [1, 1])
    y = b.tensor([4, 4], F32)
    b.op("DYNAMIC_UPDATE_SLICE", [x, u, start], [y])
    return b.build([x, u], [y])


def broadcast_args():
    b = ModelBuilder()
    s1, s2 = b.tensor([2], "int32"), b.tensor([2], "int32")
    y = b.tensor([2], "int32")
    b.op("BROADCAST_ARGS", [s1, s2], [y])
    return b.build([s1, s2], [y])


def fill():
    b = ModelBuilder()
    dims = b.const([2], "int32", [2, 3])
    value = b.tensor([], F32)
    y = b.tensor([2, 3], F32)
    b.op("FILL", [dims, value], [y])
    return b.build([value], [y])


def shape():
    b = ModelBuilder()
    x, y = b.tensor([2, 3], F32), b.tensor([2], "int32")
    b.op("SHAPE", [x], [y], out_type=2)
    return b.build([x], [y])


def svdf(dtype=F32):
    b = ModelBuilder()
    batch, n_in, filters, memory, rank = 2, 4, 8, 10, 4
    x = b.tensor([batch, n_in], F32)
    wf = b.const([filters, n_in], F32)
    wt = b.const([filters, memory], F32)
    bias = b.const([filters // rank], F32)
    state = b.tensor([batch, memory * filters], F32, is_variable=True)
    y = b.tensor([batch, filters // rank], F32)
    b.op("SVDF", [x, wf, wt, bias, state], [y], rank=rank)
    return b.build([x], [y])


def probes():
    """[(name, .tflite bytes)]: every modelled kind, float32, and int8 where the kernel
    allocates differently."""
    out = []
    add = lambda name, data: out.append((name, data))  # noqa: E731
    for dtype in (F32, "int8"):
        t = "_" + dtype
        add("ADD" + t, binary("ADD", dtype))
        add("SUB" + t, binary("SUB", dtype))
        add("MUL" + t, binary("MUL", dtype))
        add("SQUARED_DIFFERENCE" + t, binary("SQUARED_DIFFERENCE", dtype))
        add("ADD_N" + t, add_n(dtype))
        add("CONV_2D" + t, conv(dtype))
        add("DEPTHWISE_CONV_2D" + t, depthwise(dtype))
        add("FULLY_CONNECTED" + t, fully_connected(dtype))
        add("TRANSPOSE_CONV" + t, transpose_conv(dtype))
        add("AVERAGE_POOL_2D" + t, pool("AVERAGE_POOL_2D", dtype))
        add("MAX_POOL_2D" + t, pool("MAX_POOL_2D", dtype))
        for kind in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN"):
            add(kind + t, reduce(kind, dtype))
        add("BATCH_MATMUL" + t, batch_matmul(dtype))
        add("CONCATENATION" + t, concatenation(dtype))
        add("PAD" + t, pad("PAD", dtype))
        add("PADV2" + t, pad("PADV2", dtype))
        add("STRIDED_SLICE" + t, strided_slice(dtype))
        add("RESHAPE" + t, with_const("RESHAPE", [1, 16], [2], "int32", [4, 4], [4, 4], dtype))
        add("SOFTMAX" + t, unary("SOFTMAX", dtype, out_quant=(1 / 256, -128), beta=1.0))
        add("LOGISTIC" + t, unary("LOGISTIC", dtype, out_quant=(1 / 256, -128)))
        add("TANH" + t, unary("TANH", dtype, out_quant=(1 / 128, 0)))
        add("HARD_SWISH" + t, unary("HARD_SWISH", dtype))
        add("LEAKY_RELU" + t, unary("LEAKY_RELU", dtype, alpha=0.1))
        add("RELU" + t, unary("RELU", dtype))
        add("RELU6" + t, unary("RELU6", dtype))
        add("L2_NORMALIZATION" + t, unary("L2_NORMALIZATION", dtype, out_quant=(1 / 128, 0)))
        add("LOG_SOFTMAX" + t, unary("LOG_SOFTMAX", dtype, out_quant=(16 / 256, 127)))
        add("ABS" + t, unary("ABS", dtype))
        add("RSQRT" + t, unary("RSQRT", dtype))
        add("ELU" + t, unary("ELU", dtype))
        add("ARG_MAX" + t, with_const("ARG_MAX", [1, 10], [1], "int32", [1], [1], dtype, out_dtype="int32",
                                      output_type=2))
        add("ARG_MIN" + t, with_const("ARG_MIN", [1, 10], [1], "int32", [1], [1], dtype, out_dtype="int32",
                                      output_type=2))
        add("RESIZE_BILINEAR" + t, with_const("RESIZE_BILINEAR", [1, 4, 4, 2], [2], "int32", [8, 8],
                                              [1, 8, 8, 2], dtype))
        add("RESIZE_NEAREST_NEIGHBOR" + t, with_const("RESIZE_NEAREST_NEIGHBOR", [1, 4, 4, 2], [2], "int32",
                                                      [8, 8], [1, 8, 8, 2], dtype))
        add("TRANSPOSE" + t, with_const("TRANSPOSE", [2, 3, 4], [3], "int32", [2, 1, 0], [4, 3, 2], dtype))
        add("EXPAND_DIMS" + t, with_const("EXPAND_DIMS", [2, 4], [1], "int32", [0], [1, 2, 4], dtype))
        add("SQUEEZE" + t, _squeeze(dtype))
        add("PRELU" + t, with_const("PRELU", [1, 4, 4, 2], [2], F32, None, [1, 4, 4, 2])
            if dtype == F32 else _prelu_int8())
        add("MAXIMUM" + t, binary("MAXIMUM", dtype))
        add("MINIMUM" + t, binary("MINIMUM", dtype))
        for kind in ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"):
            add(kind + t, binary(kind, dtype, out_dtype="bool"))
        add("BATCH_TO_SPACE_ND" + t, _batch_to_space(dtype))
        add("SPACE_TO_BATCH_ND" + t, _space_to_batch(dtype))
        add("DEPTH_TO_SPACE" + t, unary_reshaped("DEPTH_TO_SPACE", dtype, [1, 2, 2, 8], [1, 4, 4, 2], block_size=2))
        add("SPACE_TO_DEPTH" + t, unary_reshaped("SPACE_TO_DEPTH", dtype, [1, 4, 4, 2], [1, 2, 2, 8], block_size=2))
        add("MIRROR_PAD" + t, pad("MIRROR_PAD", dtype))
    add("FULLY_CONNECTED_int8_per_channel", fully_connected("int8", per_channel=True))
    add("CONV_2D_int8_no_bias", conv("int8", bias=False))
    add("BATCH_MATMUL_float32_adj", batch_matmul(F32, adj_x=True, adj_y=True))
    add("QUANTIZE", unary("QUANTIZE", F32, out_dtype="int8"))
    add("DEQUANTIZE", unary("DEQUANTIZE", "int8", out_dtype=F32))
    add("REDUCE_ALL", reduce("REDUCE_ALL", "bool"))
    for kind in ("EXP", "LOG", "SIN", "COS", "SQRT", "SQUARE", "CEIL", "FLOOR", "ROUND", "NEG", "ZEROS_LIKE"):
        add(kind, unary(kind))
    add("CAST", unary("CAST", F32, out_dtype="int32", in_data_type=0, out_data_type=2))
    for kind in ("DIV", "FLOOR_DIV", "FLOOR_MOD"):
        add(kind, binary(kind))
    for kind in ("LOGICAL_AND", "LOGICAL_OR"):
        add(kind, binary(kind, "bool"))
    add("LOGICAL_NOT", unary("LOGICAL_NOT", "bool"))
    add("SPLIT", split("SPLIT"))
    add("SPLIT_V", split("SPLIT_V"))
    add("PACK", pack_unpack("PACK"))
    add("UNPACK", pack_unpack("UNPACK"))
    add("SELECT_V2", select())
    add("SLICE", slice_())
    add("GATHER", gather("GATHER"))
    add("GATHER_ND", gather("GATHER_ND"))
    add("EMBEDDING_LOOKUP", embedding_lookup())
    add("DYNAMIC_UPDATE_SLICE", dynamic_update_slice())
    add("BROADCAST_ARGS", broadcast_args())
    add("BROADCAST_TO", with_const("BROADCAST_TO", [1, 4], [2], "int32", [3, 4], [3, 4]))
    add("REVERSE_V2", with_const("REVERSE_V2", [2, 4], [1], "int32", [1], [2, 4]))
    add("CUMSUM", with_const("CUMSUM", [1, 8], [1], "int32", [1], [1, 8]))
    add("FILL", fill())
    add("SHAPE", shape())
    add("L2_POOL_2D", pool("L2_POOL_2D"))
    add("SVDF", svdf())
    return out


def _squeeze(dtype):
    b = ModelBuilder()
    x = _act(b, [1, 8, 1], dtype)
    y = _act(b, [8], dtype)
    b.op("SQUEEZE", [x], [y])
    return b.build([x], [y])


def _prelu_int8():
    b = ModelBuilder()
    x = _q(b, [1, 4, 4, 2])
    a = b.const([2], "int8", scale=[0.01], zero_point=[0])
    y = _q(b, [1, 4, 4, 2])
    b.op("PRELU", [x, a], [y])
    return b.build([x], [y])


def _batch_to_space(dtype):
    b = ModelBuilder()
    x = _act(b, [4, 2, 2, 1], dtype)
    block, crops = b.const([2], "int32", [2, 2]), b.const([2, 2], "int32", [0, 0, 0, 0])
    y = _act(b, [1, 4, 4, 1], dtype)
    b.op("BATCH_TO_SPACE_ND", [x, block, crops], [y])
    return b.build([x], [y])


def _space_to_batch(dtype):
    b = ModelBuilder()
    x = _act(b, [1, 4, 4, 1], dtype)
    block, pads = b.const([2], "int32", [2, 2]), b.const([2, 2], "int32", [0, 0, 0, 0])
    y = _act(b, [4, 2, 2, 1], dtype)
    b.op("SPACE_TO_BATCH_ND", [x, block, pads], [y])
    return b.build([x], [y])


def unary_reshaped(kind, dtype, in_shape, out_shape, **options):
    b = ModelBuilder()
    x, y = _act(b, in_shape, dtype), _act(b, out_shape, dtype)
    b.op(kind, [x], [y], **options)
    return b.build([x], [y])
