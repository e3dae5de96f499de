"""The tables the ONNX reader converts by (memcore.onnx_import): which ONNX operators
become which TFLite builtin kinds, the codes of TFLite's builtin options, the layouts
the converter gives activations, and the dtypes of ONNX's element types."""
import struct

# ONNX TensorProto.DataType name -> memcore dtype
DTYPES = {
    "FLOAT": "float32", "FLOAT16": "float16", "BFLOAT16": "bfloat16", "DOUBLE": "float64",
    "INT4": "int4", "INT8": "int8", "UINT8": "uint8", "BOOL": "bool", "INT16": "int16",
    "UINT16": "uint16", "INT32": "int32", "UINT32": "uint32", "INT64": "int64", "UINT64": "uint64",
    "COMPLEX64": "complex64", "COMPLEX128": "complex128",
}

ELEMENTWISE = {
    "Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV", "Max": "MAXIMUM", "Min": "MINIMUM",
    "Pow": "POW", "Relu": "RELU", "LeakyRelu": "LEAKY_RELU", "PRelu": "PRELU", "Elu": "ELU",
    "Sigmoid": "LOGISTIC", "Tanh": "TANH", "HardSwish": "HARD_SWISH", "Gelu": "GELU",
    "Exp": "EXP", "Log": "LOG", "Sqrt": "SQRT", "Abs": "ABS", "Neg": "NEG", "Floor": "FLOOR",
    "Ceil": "CEIL", "Round": "ROUND", "Softmax": "SOFTMAX", "LogSoftmax": "LOG_SOFTMAX",
    "Clip": "RELU6", "Cast": "CAST", "QuantizeLinear": "QUANTIZE", "DequantizeLinear": "DEQUANTIZE",
}
MOVES = {
    "Reshape": "RESHAPE", "Flatten": "RESHAPE", "Identity": "RESHAPE", "Squeeze": "SQUEEZE",
    "Unsqueeze": "EXPAND_DIMS", "Concat": "CONCATENATION", "Pad": "PAD", "Transpose": "TRANSPOSE",
    "Slice": "STRIDED_SLICE", "Gather": "GATHER", "Split": "SPLIT", "Shape": "SHAPE",
    "Tile": "TILE", "Expand": "BROADCAST_TO", "DepthToSpace": "DEPTH_TO_SPACE",
    "SpaceToDepth": "SPACE_TO_DEPTH",
}
POOLS = {"MaxPool": "MAX_POOL_2D", "AveragePool": "AVERAGE_POOL_2D", "LpPool": "L2_POOL_2D"}
DTYPE_OF_CODE = {}  # TensorProto element type code -> memcore dtype, filled as met

INT64_BYTES = 2 ** 63

REDUCES = {"GlobalAveragePool": "MEAN", "GlobalMaxPool": "REDUCE_MAX", "ReduceMean": "MEAN",
            "ReduceSum": "SUM", "ReduceMax": "REDUCE_MAX", "ReduceMin": "REDUCE_MIN"}

# TFLite's builtin options, as mc_op_t.options holds them (schema order); the codes of
# their BuiltinOptions tables, and of ActivationFunctionType and Padding.
OPTIONS_TYPE = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 2, "AVERAGE_POOL_2D": 5, "MAX_POOL_2D": 5, "L2_POOL_2D": 5,
                 "FULLY_CONNECTED": 8, "SOFTMAX": 9, "CONCATENATION": 10, "ADD": 11, "RESHAPE": 17, "MUL": 21,
                 "PAD": 22, "TRANSPOSE": 26, "MEAN": 27, "SUM": 27, "REDUCE_MAX": 27, "REDUCE_MIN": 27, "SUB": 28}
NONE, RELU, RELU_N1_TO_1, RELU6 = 0, 1, 2, 3
SAME, VALID = 0, 1
ACTIVATION_NAMES = {RELU: "RELU", RELU_N1_TO_1: "RELU_N1_TO_1", RELU6: "RELU6"}
# kinds the converter fuses a following ReLU / ReLU6 / ReLU-N1-to-1 into
FUSES_ACTIVATION = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL",
                               "AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D", "CONCATENATION"})
NCHW_TO_NHWC = (0, 2, 3, 1)          # a 4-D activation's dims, channels last
AXIS_TO_NHWC = {0: 0, 1: 3, 2: 1, 3: 2}


def float_bits(value):

    return struct.unpack("<i", struct.pack("<f", value))[0]


# Operators that generate their output from attributes alone (no input to read).
NO_INPUT_OPS = ("RandomNormal", "RandomUniform")


def elements(shape):
    count = 1
    for d in shape:
        count *= d
    return count

