"""Small TFLite models written through TFLM's schema (the `tflite-micro` package's object
API) and the flatbuffers library, for tests that need exact shapes, types and graphs:

    build([((1, 8), "int8", False), ((4, 8), "int8", True), ((1, 4), "int8", False)],
          [("FULLY_CONNECTED", [0, 1], [2])], inputs=[0], outputs=[2])

A tensor is (shape, dtype, constant): constants get zero data, int8/int16/int4 tensors a
scale and a zero point; tensor i is named "t<i>".  Nothing is validated: a test may write a
graph TFLM refuses on purpose."""
import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

TYPES = {k.lower(): v for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
OPTIONS = {"ADD": ("AddOptions", schema.AddOptionsT)}


def build(tensors, ops, inputs, outputs):
    model = schema.ModelT()
    model.version = 3
    kinds = sorted({kind for kind, _, _ in ops})
    model.operatorCodes = []
    for kind in kinds:
        code = schema.OperatorCodeT()
        code.builtinCode = getattr(schema.BuiltinOperator, kind)
        code.deprecatedBuiltinCode = min(code.builtinCode, 127)
        model.operatorCodes.append(code)
    model.buffers = [schema.BufferT()]
    g = schema.SubGraphT()
    g.tensors = []
    for i, (shape, dtype, constant) in enumerate(tensors):
        t = schema.TensorT()
        t.shape, t.type, t.name, t.buffer = list(shape), TYPES[dtype], b"t%d" % i, 0
        if constant:
            n = 1
            for d in shape:
                n *= d
            data = schema.BufferT()
            data.data = [0] * max(1, 4 * n)
            model.buffers.append(data)
            t.buffer = len(model.buffers) - 1
        if dtype in ("int8", "int16", "int4"):
            q = schema.QuantizationParametersT()
            q.scale, q.zeroPoint = [0.5], [0]
            t.quantization = q
        g.tensors.append(t)
    g.operators = []
    for kind, ins, outs in ops:
        op = schema.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = kinds.index(kind), list(ins), list(outs)
        if kind in OPTIONS:
            name, options = OPTIONS[kind]
            op.builtinOptionsType, op.builtinOptions = getattr(schema.BuiltinOptions, name), options()
        g.operators.append(op)
    g.inputs, g.outputs = list(inputs), list(outputs)
    model.subgraphs = [g]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())
