"""Operation counts per operator: the one place the counting convention lives.

Operator kinds are TFLite builtin names; the ONNX reader maps its ops onto them.
    macs (multiply-accumulates):
      CONV_2D            output elements x kernel_h x kernel_w x filter input channels
      DEPTHWISE_CONV_2D  output elements x kernel_h x kernel_w
      FULLY_CONNECTED    output elements x input features
      BATCH_MATMUL       output elements x reduced dimension
    other_ops (one per element visited, compares and adds included):
      pooling            output elements x kernel_h x kernel_w
      reductions         input elements (MEAN, SUM, REDUCE_MAX, global pooling)
      element-wise       output elements
      data movement      0
Every supported kind is in exactly one of the sets below; anything else is refused
by the importers as an unsupported operator, so no count is ever a silent zero.
"""

MAC_KINDS = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL", "TRANSPOSE_CONV"})
POOL_KINDS = frozenset({"AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"})
REDUCE_KINDS = frozenset({"MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"})
ELEMENTWISE_KINDS = frozenset({
    "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW",
    "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "PRELU", "ELU",
    "LOGISTIC", "TANH", "HARD_SWISH", "GELU", "EXP", "LOG", "SQRT", "RSQRT", "ABS", "NEG",
    "SQUARE", "SOFTMAX", "LOG_SOFTMAX", "QUANTIZE", "DEQUANTIZE", "RESIZE_BILINEAR",
    "L2_NORMALIZATION", "CAST", "FLOOR", "CEIL", "ROUND",
})
MOVE_KINDS = frozenset({
    "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "CONCATENATION", "PAD", "PADV2", "MIRROR_PAD",
    "TRANSPOSE", "STRIDED_SLICE", "SLICE", "GATHER", "SPLIT", "SPLIT_V", "PACK", "UNPACK",
    "SHAPE", "RESIZE_NEAREST_NEIGHBOR", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "BROADCAST_TO",
    "FILL", "ZEROS_LIKE", "TILE",
})
SUPPORTED_KINDS = MAC_KINDS | POOL_KINDS | REDUCE_KINDS | ELEMENTWISE_KINDS | MOVE_KINDS


def is_supported(kind: str) -> bool:
    return kind in SUPPORTED_KINDS


def _elements(shape):
    count = 1
    for d in shape:
        count *= d
    return count


def count_operations(kind, input_shape, output_shape, filter_shape, attributes):
    """(macs, other_ops) of one operator.  filter_shape is in TFLite's layout (conv
    OHWI, depthwise 1HWO, fully connected (out, in)); attributes may give
    "kernel_hw" for pooling.  Activations are channels-last."""
    out = _elements(output_shape)
    if kind == "CONV_2D":
        return out * filter_shape[1] * filter_shape[2] * filter_shape[3], 0
    if kind == "DEPTHWISE_CONV_2D":
        return out * filter_shape[1] * filter_shape[2], 0
    if kind == "FULLY_CONNECTED":
        return out * filter_shape[-1], 0
    if kind == "BATCH_MATMUL":
        return out * (input_shape[-1] if input_shape else 1), 0
    if kind in POOL_KINDS:
        kh, kw = attributes.get("kernel_hw", (1, 1))
        return 0, out * kh * kw
    if kind in REDUCE_KINDS:
        return 0, _elements(input_shape)
    if kind in ELEMENTWISE_KINDS:
        return 0, out
    if kind in MOVE_KINDS:
        return 0, 0
    raise KeyError(kind)
