"""Size-scaling models: a real model plus many tensors or operators, for the check's
time and memory against the model's size (tests/test_check_scaling.py with small counts,
bench/check_scaling.py up to 100,000).

    unused_tensors(n)   mnist_cnn_int8 plus n tensors that no operator touches (int8 [1, 4]:
                        TFLM still plans each, all live together before the first operator)
    untouched_tensors(shapes)  the same with a tensor of each shape
    constant_tensors(n, shape)  mnist_cnn_int8 plus n constant tensors no operator reads
                        (int8 [1, 4] unless shape says, with a byte of data an element:
                        weights, never planned)
    relu_chain(n)       tiny_mlp_int8 with n RELUs after its output, each reading the last
    fan_out(n)          tiny_mlp_int8 with n RELUs of its output, every one a graph output
    dense_chain(n)      tiny_mlp_int8 with n more 8x8 FULLY_CONNECTED layers after its first,
                        each with weights and a bias of its own (per-channel int8, as the
                        first's): two constants and an activation a layer, as in a real model
    packed_copies(n)    tiny_mlp_int8 with a PACK of n copies of its output: one operand
                        list n long, which TFLM reads in place in the file
    intermediates(n)    tiny_mlp_int8 whose first operator lists n intermediates (one empty
                        tensor, over and over: TFLM refuses any other), which TFLM ignores

Each rebuilds the file through the TFLite schema's object API, so the result is a model
TFLM itself reads.
"""
import math
import pathlib

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

MODELS = pathlib.Path(__file__).resolve().parent / "models"


def model_of(name):
    """A model of tests/models as the schema's object API holds it, to edit."""
    return schema.ModelT.InitFromObj(schema.Model.GetRootAsModel((MODELS / name).read_bytes(), 0))


def to_bytes(model):
    """The .tflite file of an edited model."""
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _tensor(name, shape, dtype, quantization=None):
    t = schema.TensorT()
    t.name, t.shape, t.type, t.buffer, t.quantization = name.encode(), list(shape), dtype, 0, quantization
    return t


def untouched_tensors(shapes):
    model = model_of("mnist_cnn_int8.tflite")
    graph = model.subgraphs[0]
    graph.tensors += [_tensor("unused%d" % i, shape, schema.TensorType.INT8) for i, shape in enumerate(shapes)]
    return to_bytes(model)


def unused_tensors(n):
    return untouched_tensors([(1, 4)] * n)


def _constant(model, name, data, shape, dtype, quantization=None):
    """A tensor with its own buffer holding `data` (bytes), appended to the graph."""
    graph = model.subgraphs[0]
    buffer = schema.BufferT()
    buffer.data = list(data)
    model.buffers.append(buffer)
    t = _tensor(name, shape, dtype, quantization)
    t.buffer = len(model.buffers) - 1
    graph.tensors.append(t)
    return len(graph.tensors) - 1


def constant_tensors(n, shape=(1, 4)):
    model = model_of("mnist_cnn_int8.tflite")
    data = [i % 256 for i in range(math.prod(shape))]
    for i in range(n):
        _constant(model, "constant%d" % i, data, shape, schema.TensorType.INT8)
    return to_bytes(model)


def _relus(n, chained):
    model = model_of("tiny_mlp_int8.tflite")
    graph = model.subgraphs[0]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.RELU
    code.version = 1
    model.operatorCodes.append(code)
    source = graph.outputs[0]
    like = graph.tensors[source]
    outputs = []
    for i in range(n):
        graph.tensors.append(_tensor("relu%d" % i, like.shape, like.type, like.quantization))
        op = schema.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = len(model.operatorCodes) - 1, [source], [len(graph.tensors) - 1]
        graph.operators.append(op)
        outputs.append(len(graph.tensors) - 1)
        if chained:
            source = outputs[-1]
    graph.outputs = outputs[-1:] if chained else outputs
    return to_bytes(model)


def relu_chain(n):
    return _relus(n, chained=True)


def fan_out(n):
    return _relus(n, chained=False)


def dense_chain(n):
    model = model_of("tiny_mlp_int8.tflite")
    graph = model.subgraphs[0]
    first, second = graph.operators[0], graph.operators[1]
    weights, bias, out = (graph.tensors[i] for i in (first.inputs[1], first.inputs[2], first.outputs[0]))
    source, layers = first.outputs[0], []
    for i in range(n):
        ids = [_constant(model, "dense%d_%s" % (i, part), model.buffers[like.buffer].data, like.shape, like.type,
                         like.quantization) for part, like in (("weights", weights), ("bias", bias))]
        graph.tensors.append(_tensor("dense%d" % i, out.shape, out.type, out.quantization))
        op = schema.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = first.opcodeIndex, [source] + ids, [len(graph.tensors) - 1]
        op.builtinOptionsType, op.builtinOptions = first.builtinOptionsType, first.builtinOptions
        layers.append(op)
        source = op.outputs[0]
    second.inputs = [source] + list(second.inputs[1:])
    graph.operators[1:1] = layers
    return to_bytes(model)


def _operator_code(model, builtin):
    """The index of a new operator code for `builtin`."""
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = builtin
    code.version = 1
    model.operatorCodes.append(code)
    return len(model.operatorCodes) - 1


def packed_copies(n):
    model = model_of("tiny_mlp_int8.tflite")
    graph = model.subgraphs[0]
    source = graph.outputs[0]
    like = graph.tensors[source]
    graph.tensors.append(_tensor("packed", [n] + list(like.shape), like.type, like.quantization))
    op = schema.OperatorT()
    op.opcodeIndex = _operator_code(model, schema.BuiltinOperator.PACK)
    op.inputs, op.outputs = [source] * n, [len(graph.tensors) - 1]
    op.builtinOptionsType, op.builtinOptions = schema.BuiltinOptions.PackOptions, schema.PackOptionsT()
    op.builtinOptions.valuesCount, op.builtinOptions.axis = n, 0
    graph.operators.append(op)
    graph.outputs = op.outputs
    return to_bytes(model)


def intermediates(n):
    model = model_of("tiny_mlp_int8.tflite")
    graph = model.subgraphs[0]
    graph.tensors.append(_tensor("empty", [0], schema.TensorType.INT8))
    graph.operators[0].intermediates = [len(graph.tensors) - 1] * n
    return to_bytes(model)
