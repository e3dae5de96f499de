"""Writes the small seed models of fuzz/corpus/tflite/ and fuzz/corpus/onnx/.

Run from the repository root (needs the test extras: tflite-micro for the TFLite
schema's object API, onnx):  python fuzz/make_seeds.py
Valid models cover each importer's operator families (MAC, pooling, reduction,
element-wise, data movement); truncated copies cover the damaged-file paths.
The committed corpus also holds every input that once crashed (regression-*).
"""
import pathlib

import flatbuffers
import numpy as np
from onnx import TensorProto, helper, numpy_helper
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
MODELS = ROOT / "tests" / "models"


def write(kind, name, data):
    (CORPUS / kind / name).write_bytes(data)


def one_op_tflite(op, in_shape, out_shape, weights=None, options=None):
    """A TFLite flatbuffer with a single builtin operator: input -> op -> output, plus
    an optional constant filter as second input."""
    model = schema.ModelT()
    model.version = 3
    model.buffers = [schema.BufferT(), schema.BufferT(), schema.BufferT()]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = op
    model.operatorCodes = [code]
    g = schema.SubGraphT()

    def tensor(name, shape, buffer):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name, list(shape), schema.TensorType.FLOAT32, buffer
        return t

    g.tensors = [tensor("x", in_shape, 0), tensor("y", out_shape, 0)]
    inputs = [0]
    if weights is not None:
        model.buffers[1].data = list(np.asarray(weights, np.float32).tobytes())
        g.tensors.append(tensor("w", np.shape(weights), 1))
        inputs.append(2)
    o = schema.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = 0, inputs, [1]
    if options is not None:
        o.builtinOptionsType, o.builtinOptions = options
    g.operators = [o]
    g.inputs, g.outputs = [0], [1]
    model.subgraphs = [g]
    b = flatbuffers.Builder(256)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def onnx_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def weights(name, *shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def main():
    for kind in ("tflite", "onnx"):
        (CORPUS / kind).mkdir(parents=True, exist_ok=True)
    B = schema.BuiltinOperator
    for name in ("tiny_mlp_float32", "tiny_mlp_int8"):
        data = (MODELS / (name + ".tflite")).read_bytes()
        write("tflite", name + ".tflite", data)
        write("tflite", name + "-truncated-half", data[: len(data) // 2])
    write("tflite", "mnist_cnn_int8-truncated-8", (MODELS / "mnist_cnn_int8.tflite").read_bytes()[:8])
    write("tflite", "one-relu.tflite", one_op_tflite(B.RELU, (1, 4), (1, 4)))
    write("tflite", "one-empty-tensor.tflite", one_op_tflite(B.RELU, (0, 4), (0, 4)))
    write("tflite", "one-fully-connected.tflite",
          one_op_tflite(B.FULLY_CONNECTED, (1, 4), (1, 3), weights=np.ones((3, 4))))
    pool = schema.Pool2DOptionsT()
    pool.filterHeight = pool.filterWidth = pool.strideH = pool.strideW = 2
    write("tflite", "one-maxpool.tflite",
          one_op_tflite(B.MAX_POOL_2D, (1, 4, 4, 2), (1, 2, 2, 2),
                        options=(schema.BuiltinOptions.Pool2DOptions, pool)))
    conv = schema.Conv2DOptionsT()
    conv.strideH = conv.strideW = 1
    write("tflite", "one-conv.tflite",
          one_op_tflite(B.CONV_2D, (1, 4, 4, 2), (1, 2, 2, 3), weights=np.ones((3, 3, 3, 2)),
                        options=(schema.BuiltinOptions.Conv2DOptions, conv)))

    onnx_seeds = {
        "relu.onnx": onnx_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])]),
        "empty-tensor.onnx": onnx_model([helper.make_node("Relu", ["x"], ["y"])],
                                        [vi("x", [0, 4])], [vi("y", [0, 4])]),
        "gemm-relu-matmul.onnx": onnx_model(
            [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["y"])],
            [vi("x", [1, 4])], [vi("y", [1, 2])], [weights("w", 3, 4), weights("b", 3), weights("w2", 3, 2)]),
        "conv-pool.onnx": onnx_model(
            [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"]),
             helper.make_node("Flatten", ["g"], ["y"])],
            [vi("x", [1, 2, 4, 4])], [vi("y", [1, 3])], [weights("w", 3, 2, 3, 3)]),
        "depthwise.onnx": onnx_model(
            [helper.make_node("Conv", ["x", "w"], ["y"], group=2)],
            [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 1, 1])], [weights("w", 2, 1, 3, 3)]),
        "add-concat-reshape.onnx": onnx_model(
            [helper.make_node("Add", ["x", "x"], ["a"]), helper.make_node("Concat", ["a", "x"], ["c"], axis=1),
             helper.make_node("Constant", [], ["s"],
                              value=numpy_helper.from_array(np.array([1, 8], np.int64))),
             helper.make_node("Reshape", ["c", "s"], ["y"])],
            [vi("x", [1, 4])], [vi("y", [1, 8])]),
    }
    for name, data in onnx_seeds.items():
        write("onnx", name, data)
    for name in ("gemm-relu-matmul.onnx", "conv-pool.onnx"):
        data = onnx_seeds[name]
        write("onnx", name.replace(".onnx", "-truncated-half"), data[: len(data) // 2])
        write("onnx", name.replace(".onnx", "-truncated-20"), data[:-20])


if __name__ == "__main__":
    main()
