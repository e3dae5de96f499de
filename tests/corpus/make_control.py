"""Writes the control-flow corpus, tests/corpus/control/models/: models of several
subgraphs (IF, WHILE, CALL_ONCE, nested, a loop-form recurrent cell) and streaming
models that keep state in resource variables, built through
TFLite's schema (the object API of the `tflite-micro` package's generated schema and
the `flatbuffers` library), and measures TFLM's arena for each on this 64-bit host
(tests/tflm_oracle.py, the PyPI interpreter) into tests/corpus/control/truth/host64.json.

    python tests/corpus/make_control.py            # write the models, measure them
    python tests/corpus/make_control.py --no-measure

They live beside the main corpus, not in it, because every truth file of the main corpus
holds every one of its models, and these are measured on the targets listed in
control/README.md only (the 32-bit ones with tools/tflm_oracle).  The weights are small deterministic values: TFLM's arena does
not depend on them.
"""
import argparse
import json
import pathlib
import struct
import sys

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "control"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

OPS = {k: v for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
OPTIONS = {k: v for k, v in vars(schema.BuiltinOptions).items() if not k.startswith("_")}
TYPES = {"float32": schema.TensorType.FLOAT32, "int32": schema.TensorType.INT32,
         "bool": schema.TensorType.BOOL, "int8": schema.TensorType.INT8, "resource": schema.TensorType.RESOURCE}
PACK = {"float32": "f", "int32": "i", "bool": "?", "int8": "b"}


class Model:
    """A model of several subgraphs: tensors are added to one subgraph at a time."""

    def __init__(self):
        self.codes, self.buffers, self.subgraphs = [], [schema.BufferT()], []

    def subgraph(self):
        sg = schema.SubGraphT(tensors=[], operators=[], inputs=[], outputs=[])
        self.subgraphs.append(sg)
        return Subgraph(self, sg)

    def opcode(self, kind):
        code = OPS[kind]
        if code not in self.codes:
            self.codes.append(code)
        return self.codes.index(code)

    def build(self):
        m = schema.ModelT(version=3, subgraphs=self.subgraphs, buffers=self.buffers, description="memcore control")
        m.operatorCodes = [schema.OperatorCodeT(deprecatedBuiltinCode=min(c, 127), builtinCode=c, version=1)
                           for c in self.codes]
        b = flatbuffers.Builder(4096)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


class Subgraph:
    def __init__(self, model, sg):
        self.model, self.sg = model, sg

    def tensor(self, shape, dtype="float32", values=None, scale=None, zero_point=None, axis=0):
        buffer = 0
        if values is not None:
            data = struct.pack("<%d%s" % (len(values), PACK[dtype]), *values)
            self.model.buffers.append(schema.BufferT(data=list(data)))
            buffer = len(self.model.buffers) - 1
        t = schema.TensorT(shape=list(shape), type=TYPES[dtype], buffer=buffer, name="t%d" % len(self.sg.tensors))
        if scale is not None:
            t.quantization = schema.QuantizationParametersT(scale=list(scale), zeroPoint=list(zero_point),
                                                            quantizedDimension=axis)
        self.sg.tensors.append(t)
        return len(self.sg.tensors) - 1

    def const(self, shape, dtype="float32", **quant):
        n = 1
        for d in shape:
            n *= d
        values = [((i * 7) % 11 - 5) / 10 if dtype == "float32" else (i * 7) % 5 - 2 for i in range(n)]
        return self.tensor(shape, dtype, values, **quant)

    def op(self, kind, inputs, outputs, options=None, **fields):
        o = schema.OperatorT(opcodeIndex=self.model.opcode(kind), inputs=list(inputs), outputs=list(outputs))
        name = options or (kind.title().replace("_", "") + "Options")
        if name in OPTIONS:
            table = getattr(schema, name + "T")()
            for k, v in fields.items():
                setattr(table, k, v)
            o.builtinOptionsType, o.builtinOptions = OPTIONS[name], table
        self.sg.operators.append(o)

    def io(self, inputs, outputs):
        self.sg.inputs, self.sg.outputs = list(inputs), list(outputs)


def conv(g, x, c_in, c_out, hw, dtype="float32", q=None):
    """A 3x3 SAME convolution of x ([1, hw, hw, c_in]) with a bias: its output tensor."""
    if dtype == "int8":
        w = g.const([c_out, 3, 3, c_in], "int8", scale=[0.02] * c_out, zero_point=[0] * c_out)
        b = g.const([c_out], "int32", scale=[0.002] * c_out, zero_point=[0] * c_out)
        y = g.tensor([1, hw, hw, c_out], "int8", scale=[0.1], zero_point=[q])
    else:
        w, b, y = g.const([c_out, 3, 3, c_in]), g.const([c_out]), g.tensor([1, hw, hw, c_out])
    g.op("CONV_2D", [x, w, b], [y], "Conv2DOptions", padding=schema.Padding.SAME, strideW=1, strideH=1)
    return y


def if_uneven(big_then):
    """IF whose branches differ in size: a two-convolution branch (16 x 16 x 8 between
    them) and a RELU; the bigger one is `then` or `else`."""
    m = Model()
    main, big, small = m.subgraph(), m.subgraph(), m.subgraph()
    cond, x = main.tensor([1], "bool"), main.tensor([1, 16, 16, 4])
    y, out = main.tensor([1, 16, 16, 4]), main.tensor([1, 16, 16, 4])
    then_index, else_index = (1, 2) if big_then else (2, 1)
    main.op("IF", [cond, x], [y], "IfOptions", thenSubgraphIndex=then_index, elseSubgraphIndex=else_index)
    main.op("ADD", [y, x], [out])
    main.io([cond, x], [out])
    bx = big.tensor([1, 16, 16, 4])
    by = conv(big, conv(big, bx, 4, 8, 16), 8, 4, 16)
    big.io([bx], [by])
    sx, sy = small.tensor([1, 16, 16, 4]), small.tensor([1, 16, 16, 4])
    small.op("RELU", [sx], [sy])
    small.io([sx], [sy])
    if not big_then:
        m.subgraphs[1], m.subgraphs[2] = m.subgraphs[2], m.subgraphs[1]
    return m.build()


def while_conv(dtype):
    """WHILE i < 3: x = relu(conv(x)), with a convolution after the loop."""
    m = Model()
    main, cond, body = m.subgraph(), m.subgraph(), m.subgraph()
    q = dict(scale=[0.1], zero_point=[-3]) if dtype == "int8" else {}
    i, x = main.tensor([1], "int32"), main.tensor([1, 12, 12, 6], dtype, **q)
    i_out, x_out = main.tensor([1], "int32"), main.tensor([1, 12, 12, 6], dtype, **q)
    main.op("WHILE", [i, x], [i_out, x_out], "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    y = conv(main, x_out, 6, 10, 12, dtype, q=-3)
    main.io([i, x], [y])
    ci, cx, limit, c = cond.tensor([1], "int32"), cond.tensor([1, 12, 12, 6], dtype, **q), \
        cond.tensor([1], "int32", [3]), cond.tensor([1], "bool")
    cond.op("LESS", [ci, limit], [c])
    cond.io([ci, cx], [c])
    bi, bx, one, bi2 = body.tensor([1], "int32"), body.tensor([1, 12, 12, 6], dtype, **q), \
        body.tensor([1], "int32", [1]), body.tensor([1], "int32")
    body.op("ADD", [bi, one], [bi2])
    h = conv(body, bx, 6, 16, 12, dtype, q=-3)
    bx2 = conv(body, h, 16, 6, 12, dtype, q=-3)
    body.io([bi, bx], [bi2, bx2])
    return m.build()


def loop_rnn():
    """A recurrent cell left as a loop, as TensorFlow's converter writes an un-unrolled
    SimpleRNN: WHILE over 6 time steps, each gathering its step from the sequence,
    h = tanh(x_t W + h U + b), the sequence passed through; a dense layer after."""
    m = Model()
    main, cond, body = m.subgraph(), m.subgraph(), m.subgraph()
    steps, features, units = 6, 10, 24
    i, h, seq = main.tensor([1], "int32"), main.tensor([1, units]), main.tensor([steps, features])
    i2, h2, seq2 = main.tensor([1], "int32"), main.tensor([1, units]), main.tensor([steps, features])
    main.op("WHILE", [i, h, seq], [i2, h2, seq2], "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    wo, bo, logits = main.const([3, units]), main.const([3]), main.tensor([1, 3])
    main.op("FULLY_CONNECTED", [h2, wo, bo], [logits])
    main.io([i, h, seq], [logits])
    ci, ch, cs = cond.tensor([1], "int32"), cond.tensor([1, units]), cond.tensor([steps, features])
    limit, c = cond.tensor([1], "int32", [steps]), cond.tensor([1], "bool")
    cond.op("LESS", [ci, limit], [c])
    cond.io([ci, ch, cs], [c])
    bi, bh, bs = body.tensor([1], "int32"), body.tensor([1, units]), body.tensor([steps, features])
    xt, one, bi2 = body.tensor([1, features]), body.tensor([1], "int32", [1]), body.tensor([1], "int32")
    body.op("GATHER", [bs, bi], [xt], "GatherOptions", axis=0, batchDims=0)
    wx, bias, a = body.const([units, features]), body.const([units]), body.tensor([1, units])
    body.op("FULLY_CONNECTED", [xt, wx, bias], [a])
    wh, r = body.const([units, units]), body.tensor([1, units])
    body.op("FULLY_CONNECTED", [bh, wh, -1], [r])
    s, bh2 = body.tensor([1, units]), body.tensor([1, units])
    body.op("ADD", [a, r], [s])
    body.op("TANH", [s], [bh2])
    body.op("ADD", [bi, one], [bi2])
    body.io([bi, bh, bs], [bi2, bh2, bs])
    return m.build()


def nested():
    """IF inside a WHILE body: five subgraphs, scopes two levels deep."""
    m = Model()
    main, cond, body, big, small = (m.subgraph() for _ in range(5))
    i, x, flag = main.tensor([1], "int32"), main.tensor([1, 10, 10, 4]), main.tensor([1], "bool")
    i2, x2, flag2, y = main.tensor([1], "int32"), main.tensor([1, 10, 10, 4]), main.tensor([1], "bool"), \
        main.tensor([1, 10, 10, 4])
    main.op("WHILE", [i, x, flag], [i2, x2, flag2], "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    main.op("RELU", [x2], [y])
    main.io([i, x, flag], [y])
    ci, cx, cf = cond.tensor([1], "int32"), cond.tensor([1, 10, 10, 4]), cond.tensor([1], "bool")
    limit, c = cond.tensor([1], "int32", [2]), cond.tensor([1], "bool")
    cond.op("LESS", [ci, limit], [c])
    cond.io([ci, cx, cf], [c])
    bi, bx, bf = body.tensor([1], "int32"), body.tensor([1, 10, 10, 4]), body.tensor([1], "bool")
    one, bi2, bx2 = body.tensor([1], "int32", [1]), body.tensor([1], "int32"), body.tensor([1, 10, 10, 4])
    body.op("ADD", [bi, one], [bi2])
    body.op("IF", [bf, bx], [bx2], "IfOptions", thenSubgraphIndex=3, elseSubgraphIndex=4)
    body.io([bi, bx, bf], [bi2, bx2, bf])
    gx = big.tensor([1, 10, 10, 4])
    big.io([gx], [conv(big, conv(big, gx, 4, 12, 10), 12, 4, 10)])
    sx, sy = small.tensor([1, 10, 10, 4]), small.tensor([1, 10, 10, 4])
    small.op("RELU", [sx], [sy])
    small.io([sx], [sy])
    return m.build()


def call_once():
    """CALL_ONCE of an init subgraph that computes from constants, then the model."""
    m = Model()
    main, init = m.subgraph(), m.subgraph()
    main.op("CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=1)
    x, w, b, y = main.tensor([1, 20]), main.const([8, 20]), main.const([8]), main.tensor([1, 8])
    main.op("FULLY_CONNECTED", [x, w, b], [y])
    main.io([x], [y])
    a, c, s = init.const([4, 16]), init.const([4, 16]), init.tensor([4, 16])
    init.op("ADD", [a, c], [s])
    init.io([], [s])
    return m.build()


def streaming(dtype, two=False):
    """A streaming model's state in resource variables, as TensorFlow keeps a tf.Variable:
    CALL_ONCE runs an init subgraph that assigns the state its start value; each call
    reads the last 3 frames, appends the new one, keeps the newest 3 and runs a dense
    layer over all 4.  `two`: a second variable (a running sum of the outputs) too."""
    m = Model()
    main, init = m.subgraph(), m.subgraph()
    q = dict(scale=[0.05], zero_point=[-2]) if dtype == "int8" else {}
    main.op("CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=1)
    handle = main.tensor([], "resource")
    main.op("VAR_HANDLE", [], [handle], "VarHandleOptions", sharedName="frames")
    past, x = main.tensor([1, 3, 16], dtype, **q), main.tensor([1, 1, 16], dtype, **q)
    main.op("READ_VARIABLE", [handle], [past])
    window = main.tensor([1, 4, 16], dtype, **q)
    main.op("CONCATENATION", [past, x], [window], "ConcatenationOptions", axis=1)
    begin, size = main.tensor([3], "int32", [0, 1, 0]), main.tensor([3], "int32", [1, 3, 16])
    kept = main.tensor([1, 3, 16], dtype, **q)
    main.op("SLICE", [window, begin, size], [kept])
    main.op("ASSIGN_VARIABLE", [handle, kept], [])
    shape, flat = main.tensor([2], "int32", [1, 64]), main.tensor([1, 64], dtype, **q)
    main.op("RESHAPE", [window, shape], [flat])
    if dtype == "int8":
        w = main.const([12, 64], "int8", scale=[0.02], zero_point=[0])
        b = main.const([12], "int32", scale=[0.001], zero_point=[0])
        y = main.tensor([1, 12], "int8", scale=[0.1], zero_point=[1])
    else:
        w, b, y = main.const([12, 64]), main.const([12]), main.tensor([1, 12])
    main.op("FULLY_CONNECTED", [flat, w, b], [y])
    outputs = [y]
    ih = init.tensor([], "resource")
    init.op("VAR_HANDLE", [], [ih], "VarHandleOptions", sharedName="frames")
    init.op("ASSIGN_VARIABLE", [ih, init.const([1, 3, 16], dtype, **q)], [])
    if two:
        sh, total = main.tensor([], "resource"), main.tensor([1, 12], dtype, **q)
        main.op("VAR_HANDLE", [], [sh], "VarHandleOptions", sharedName="sum")
        main.op("READ_VARIABLE", [sh], [total])
        total2 = main.tensor([1, 12], dtype, **q)
        main.op("ADD", [total, y], [total2])
        main.op("ASSIGN_VARIABLE", [sh, total2], [])
        outputs.append(total2)
        ish = init.tensor([], "resource")
        init.op("VAR_HANDLE", [], [ish], "VarHandleOptions", sharedName="sum")
        init.op("ASSIGN_VARIABLE", [ish, init.const([1, 12], dtype, **q)], [])
    main.io([x], outputs)
    init.io([], [])
    return m.build()


MODELS = {
    "control_if_then_big_f32": lambda: if_uneven(True),
    "control_if_else_big_f32": lambda: if_uneven(False),
    "control_while_conv_f32": lambda: while_conv("float32"),
    "control_while_conv_i8": lambda: while_conv("int8"),
    "control_loop_rnn_f32": loop_rnn,
    "control_nested_f32": nested,
    "control_call_once_f32": call_once,
    "resource_stream_f32": lambda: streaming("float32"),
    "resource_stream_i8": lambda: streaming("int8"),
    "resource_two_f32": lambda: streaming("float32", two=True),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-measure", action="store_true", help="write the models only")
    args = ap.parse_args()
    (OUT / "models").mkdir(parents=True, exist_ok=True)
    for name, make in MODELS.items():
        (OUT / "models" / (name + ".tflite")).write_bytes(make())
    if args.no_measure:
        return
    import measure_host64
    truth = {}
    for name in MODELS:
        truth[name + ".tflite"] = entry = measure_host64.measure_one(OUT / "models" / (name + ".tflite"))
        print("%-30s head %6s tail %6s total %6s min %6s %s" % (name, entry["head"], entry["tail"], entry["total"],
                                                             entry["minimum_arena_bytes"], entry["error"] or ""))
    header = measure_host64.header("python tests/corpus/make_control.py")
    header["tensorflow"] = None  # built through the schema, without TensorFlow
    (OUT / "truth").mkdir(exist_ok=True)
    (OUT / "truth" / "host64.json").write_text(json.dumps({"header": header, "models": truth}, indent=1) + "\n")


if __name__ == "__main__":
    main()
