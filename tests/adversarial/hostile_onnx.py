"""ONNX operand shapes, operator by operator: for every operator the ONNX reader supports,
a valid graph with sizes drawn at random (it must load) and mutants that break one rule of
the operator's specification for its operands' shapes (https://onnx.ai/onnx/operators/):
a bias of another length, statistics of another channel count, a slope or a constant that
does not broadcast, an index out of range, axes named twice, an empty dimension, ...
Each mutant must be refused with one MemcoreError naming the file and the node or input."""
import random

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import memcore

from hostile_tally import timed, traceback_text

N = helper.make_node


def _vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _f(name, shape):
    return numpy_helper.from_array(np.full(shape, 0.5, np.float32), name)


def _i(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def _graph(nodes, x_shape, inits, opset=13, x_type=TensorProto.FLOAT):
    outputs = [_vi(nodes[-1].output[0], None)]
    graph = helper.make_graph(nodes, "g", [_vi("x", x_shape, x_type)], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


_UNARY = [("Relu", {}, 13), ("LeakyRelu", {"alpha": 0.1}, 13), ("Elu", {}, 13), ("Sigmoid", {}, 13),
          ("Tanh", {}, 13), ("HardSwish", {}, 14), ("Gelu", {}, 20), ("Exp", {}, 13), ("Log", {}, 13),
          ("Sqrt", {}, 13), ("Abs", {}, 13), ("Neg", {}, 13), ("Floor", {}, 13), ("Ceil", {}, 13),
          ("Round", {}, 13), ("Softmax", {}, 13), ("LogSoftmax", {}, 13), ("Cast", {"to": TensorProto.FLOAT}, 13),
          ("Identity", {}, 13), ("Dropout", {}, 13), ("Flatten", {}, 13)]
_BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "Pow")


def cases(rng):
    """(name, ONNX bytes, must_refuse) for one draw of sizes: every operator's valid graph
    and its mutants."""
    c, h, w = rng.randint(2, 6), rng.randint(3, 7), rng.randint(3, 7)
    x = [1, c, h, w]
    m = rng.randint(2, 9)   # output channels / features
    out = []

    def add(name, must_refuse, nodes, inits=(), opset=13, x_shape=x):
        out.append((name, _graph(nodes, x_shape, list(inits), opset), must_refuse))

    for op, attrs, opset in _UNARY:   # then a Relu: a Dropout at a graph output stays, unsupported
        nodes = [N(op, ["x"], ["h"], **attrs), N("Relu", ["h"], ["y"])]
        add("%s valid" % op, False, nodes, opset=opset)
        k = rng.randrange(4)
        add("%s input dim %d is 0" % (op, k), True, nodes, opset=opset, x_shape=x[:k] + [0] + x[k + 1:])
    shape = [N("Shape", ["x"], ["s"]), N("Cast", ["s"], ["y"], to=TensorProto.FLOAT)]
    add("Shape valid", False, shape)
    add("Shape of an empty input", True, shape, x_shape=[1, 0, h, w])
    for op in _BINARY:
        good = rng.choice(([c, 1, 1], [1], [w], [1, c, h, w], [h, 1]))
        add("%s by %s" % (op, good), False, [N(op, ["x", "b"], ["y"])], [_f("b", good)])
        bad = rng.choice(([c + 1, 1, 1], [w + 1], [1, c + 1, h, w], [h + 1, 1]))
        add("%s by %s" % (op, bad), True, [N(op, ["x", "b"], ["y"])], [_f("b", bad)])
        add("%s of an empty input by %s" % (op, good), True, [N(op, ["x", "b"], ["y"])], [_f("b", good)],
            x_shape=[1, c, 0, w])
    add("PRelu valid", False, [N("PRelu", ["x", "s"], ["y"])], [_f("s", [c, 1, 1])])
    add("PRelu slope of other channels", True, [N("PRelu", ["x", "s"], ["y"])], [_f("s", [c + 1, 1, 1])])
    add("PRelu slope of larger rank", True, [N("PRelu", ["x", "s"], ["y"])], [_f("s", [1, 1, c, h, w])])
    add("Clip valid", False, [N("Clip", ["x", "lo", "hi"], ["y"])], [_f("lo", []), _f("hi", [])])
    add("Clip min of 2 values", True, [N("Clip", ["x", "lo", "hi"], ["y"])], [_f("lo", [2]), _f("hi", [])])
    add("Clip max of shape [1, 1]", True, [N("Clip", ["x", "lo", "hi"], ["y"])], [_f("lo", []), _f("hi", [1, 1])])
    _quantize_cases(add, c, x)
    # Conv, Gemm, MatMul, BatchNormalization
    k = rng.randint(1, min(h, w))
    conv = [N("Conv", ["x", "w", "b"], ["y"])]
    add("Conv valid", False, conv, [_f("w", [m, c, k, k]), _f("b", [m])])
    add("Conv bias %d for %d outputs" % (m + 1, m), True, conv, [_f("w", [m, c, k, k]), _f("b", [m + 1])])
    add("Conv bias of shape [1, %d]" % m, True, conv, [_f("w", [m, c, k, k]), _f("b", [1, m])])
    add("Conv weight with 0 outputs", True, conv[:1], [_f("w", [0, c, k, k]), _f("b", [0])])
    add("Conv weight for %d input channels" % (c + 1), True, conv, [_f("w", [m, c + 1, k, k]), _f("b", [m])])
    add("Conv kernel larger than the input", True, conv, [_f("w", [m, c, h + 1, w + 1]), _f("b", [m])])
    add("Conv of an input of width 0", True, conv, [_f("w", [m, c, k, k]), _f("b", [m])], x_shape=[1, c, h, 0])
    kk = c + rng.randint(1, 5)
    gemm = [N("Gemm", ["x", "w", "b"], ["y"], transB=1)]
    add("Gemm valid", False, gemm, [_f("w", [m, kk]), _f("b", [m])], x_shape=[1, kk])
    add("Gemm bias [1, %d]" % m, False, gemm, [_f("w", [m, kk]), _f("b", [1, m])], x_shape=[1, kk])
    add("Gemm bias %d for %d outputs" % (m + 1, m), True, gemm, [_f("w", [m, kk]), _f("b", [m + 1])], x_shape=[1, kk])
    add("Gemm bias [2, %d] for 1 row" % m, True, gemm, [_f("w", [m, kk]), _f("b", [2, m])], x_shape=[1, kk])
    add("Gemm weight for %d inputs" % (kk + 1), True, gemm, [_f("w", [m, kk + 1]), _f("b", [m])], x_shape=[1, kk])
    add("Gemm 3-D weight", True, gemm, [_f("w", [1, m, kk]), _f("b", [m])], x_shape=[1, kk])
    matmul = [N("MatMul", ["x", "w"], ["h"]), N("Add", ["h", "b"], ["y"])]
    add("MatMul + Add valid", False, matmul, [_f("w", [kk, m]), _f("b", [m])], x_shape=[1, kk])
    add("MatMul weight for %d inputs" % (kk + 1), True, matmul, [_f("w", [kk + 1, m]), _f("b", [m])],
        x_shape=[1, kk])
    add("MatMul + Add bias %d for %d outputs" % (m + 1, m), True, matmul, [_f("w", [kk, m]), _f("b", [m + 1])],
        x_shape=[1, kk])
    bn = [N("BatchNormalization", ["x", "s", "o", "mu", "var"], ["y"])]
    stats = [_f(n, [c]) for n in ("s", "o", "mu", "var")]
    add("BatchNormalization valid", False, bn, stats)
    j = rng.randrange(4)
    bad_stats = stats[:j] + [_f(("s", "o", "mu", "var")[j], [c + 1])] + stats[j + 1:]
    add("BatchNormalization %s of %d channels" % (("scale", "bias", "mean", "variance")[j], c + 1), True, bn,
        bad_stats)
    _window_cases(add, rng, c, h, w, x)
    _move_cases(add, rng, c, h, w, x)
    return out


def _quantize_cases(add, c, x):
    q = [N("QuantizeLinear", ["x", "s", "z"], ["q"]), N("DequantizeLinear", ["q", "s", "z"], ["y"])]
    z8 = numpy_helper.from_array(np.zeros([], np.uint8), "z")
    add("QuantizeLinear valid", False, q, [_f("s", []), z8])
    add("QuantizeLinear per channel", False, q,
        [_f("s", [c]), numpy_helper.from_array(np.zeros([c], np.uint8), "z")])
    add("QuantizeLinear scale of %d for %d channels" % (c + 1, c), True, q,
        [_f("s", [c + 1]), numpy_helper.from_array(np.zeros([c + 1], np.uint8), "z")])
    add("QuantizeLinear 2-D scale", True, q,
        [_f("s", [1, c]), numpy_helper.from_array(np.zeros([1, c], np.uint8), "z")])
    add("QuantizeLinear zero point of another shape", True, q,
        [_f("s", [c]), numpy_helper.from_array(np.zeros([], np.uint8), "z")])


def _window_cases(add, rng, c, h, w, x):
    for op in ("MaxPool", "AveragePool", "LpPool"):
        add("%s valid" % op, False, [N(op, ["x"], ["y"], kernel_shape=[2, 2])])
        add("%s kernel larger than the input" % op, True, [N(op, ["x"], ["y"], kernel_shape=[h + 1, w + 1])])
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        add("%s valid" % op, False, [N(op, ["x"], ["y"])])
        add("%s of a 2-D input" % op, True, [N(op, ["x"], ["y"])], x_shape=[1, c])
    add("ReduceMean valid", False, [N("ReduceMean", ["x"], ["y"], axes=[2, 3])])
    add("ReduceMean axes named twice", True, [N("ReduceMean", ["x"], ["y"], axes=[1, -3])])
    add("ReduceMean axis out of range", True, [N("ReduceMean", ["x"], ["y"], axes=[4])])
    add("ReduceMean keepdims 2^40", True, [N("ReduceMean", ["x"], ["y"], axes=[1], keepdims=2 ** 40)])
    add("MaxPool stride 2^40", True, [N("MaxPool", ["x"], ["y"], kernel_shape=[1, 1], strides=[2 ** 40, 1])])
    add("ReduceMean axes not a list", True, [N("ReduceMean", ["x"], ["y"], axes=rng.choice((1, 1.5, "1")))])
    for op in ("ReduceMax", "ReduceMin"):
        add("%s axes named twice" % op, True, [N(op, ["x"], ["y"], axes=[3, 3])])
    add("ReduceSum valid", False, [N("ReduceSum", ["x", "a"], ["y"])], [_i("a", [1])])
    add("ReduceSum axes named twice", True, [N("ReduceSum", ["x", "a"], ["y"])], [_i("a", [2, 2])])


def _move_cases(add, rng, c, h, w, x):
    n = c * h * w
    add("Reshape valid", False, [N("Reshape", ["x", "s"], ["y"])], [_i("s", [1, -1])])
    add("Reshape to %d values from %d" % (n + c, n), True, [N("Reshape", ["x", "s"], ["y"])], [_i("s", [1, n + c])])
    add("Squeeze valid", False, [N("Squeeze", ["x", "a"], ["y"])], [_i("a", [0])])
    add("Squeeze a dimension of %d" % c, True, [N("Squeeze", ["x", "a"], ["y"])], [_i("a", [1])])
    add("Unsqueeze valid", False, [N("Unsqueeze", ["x", "a"], ["y"])], [_i("a", [0])])
    add("Unsqueeze axes named twice", True, [N("Unsqueeze", ["x", "a"], ["y"])], [_i("a", [0, 0])])
    add("Transpose valid", False, [N("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])])
    add("Transpose perm naming an axis twice", True, [N("Transpose", ["x"], ["y"], perm=[0, 2, 2, 1])])
    add("Concat valid", False, [N("Concat", ["x", "k"], ["y"], axis=1)], [_f("k", [1, 2, h, w])])
    add("Concat of another height", True, [N("Concat", ["x", "k"], ["y"], axis=1)], [_f("k", [1, 2, h + 1, w])])
    add("Concat axis out of range", True, [N("Concat", ["x", "k"], ["y"], axis=4)], [_f("k", [1, 2, h, w])])
    s = [N("Slice", ["x", "st", "en", "ax"], ["y"])]
    add("Slice valid", False, s, [_i("st", [1]), _i("en", [h]), _i("ax", [2])])
    add("Slice to nothing", True, s, [_i("st", [2]), _i("en", [2]), _i("ax", [2])])
    add("Slice by a step of 0", True, [N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
        [_i("st", [0]), _i("en", [h]), _i("ax", [2]), _i("sp", [0])])
    add("Gather valid", False, [N("Gather", ["x", "i"], ["y"], axis=1)], [_i("i", [0, c - 1])])
    add("Gather index %d of %d channels" % (c, c), True, [N("Gather", ["x", "i"], ["y"], axis=1)], [_i("i", [0, c])])
    add("Gather index %d" % (-c - 1), True, [N("Gather", ["x", "i"], ["y"], axis=1)], [_i("i", [-c - 1])])
    a = rng.randint(1, h - 1)
    add("Split valid", False, [N("Split", ["x", "p"], ["y", "z"], axis=2)], [_i("p", [a, h - a])])
    add("Split sizes summing to %d of %d" % (h + 1, h), True, [N("Split", ["x", "p"], ["y", "z"], axis=2)],
        [_i("p", [a, h - a + 1])])
    add("Tile valid", False, [N("Tile", ["x", "r"], ["y"])], [_i("r", [1, 1, 2, 1])])
    add("Tile repeats of 0", True, [N("Tile", ["x", "r"], ["y"])], [_i("r", [1, 0, 1, 1])])
    add("Tile repeats of -1", True, [N("Tile", ["x", "r"], ["y"])], [_i("r", [1, -1, 1, 1])])
    add("Expand valid", False, [N("Expand", ["x", "s"], ["y"])], [_i("s", [2, c, h, w])])
    add("Expand to other channels", True, [N("Expand", ["x", "s"], ["y"])], [_i("s", [1, c + 1, h, w])])
    add("DepthToSpace valid", False, [N("DepthToSpace", ["x"], ["y"], blocksize=2)], x_shape=[1, 4 * c, h, w])
    add("DepthToSpace of %d channels by 2" % (4 * c + 1), True, [N("DepthToSpace", ["x"], ["y"], blocksize=2)],
        x_shape=[1, 4 * c + 1, h, w])
    add("SpaceToDepth valid", False, [N("SpaceToDepth", ["x"], ["y"], blocksize=2)], x_shape=[1, c, 2 * h, 2 * w])
    add("SpaceToDepth of odd height", True, [N("SpaceToDepth", ["x"], ["y"], blocksize=2)],
        x_shape=[1, c, 2 * h + 1, 2 * w])
    add("SpaceToDepth blocksize 0", True, [N("SpaceToDepth", ["x"], ["y"], blocksize=0)], x_shape=[1, c, h, w])
    add("Pad valid", False, [N("Pad", ["x", "p"], ["y"])], [_i("p", [0, 0, 1, 1, 0, 0, 1, 1])])
    add("Pad cropping the height away", True, [N("Pad", ["x", "p"], ["y"])], [_i("p", [0, 0, -h, 0, 0, 0, 0, 0])])


def onnx_operands(tally, count, seed=9, folder=None):
    """Rounds of cases() (each a new draw of sizes) until `count` attempts: valid graphs
    must load ("refused_valid" otherwise), mutants must be refused naming the file."""
    import pathlib
    import tempfile
    from memcore import MemcoreError
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    done = 0
    with timed(tally, "onnx operands"):
        while done < count:
            for name, data, must_refuse in cases(rng):
                if done >= count:
                    break
                path = folder / ("operands-%d.onnx" % done)
                path.write_bytes(data)
                done += 1
                try:
                    memcore.load(str(path))   # shapes are the reader's: no check (GELU, POW: TFLM lacks them)
                except MemcoreError as exc:
                    if path.name not in str(exc):
                        tally.add("onnx operands", "traceback", name, "an error without the file's name: %s" % exc)
                    elif must_refuse and not _names_where(str(exc)):
                        tally.add("onnx operands", "traceback", name, "an error naming no node or input: %s" % exc)
                    else:
                        tally.add("onnx operands", "refused" if must_refuse else "refused_valid", name, str(exc))
                    continue
                except Exception as exc:  # noqa: BLE001 - any other exception is the finding
                    tally.add("onnx operands", "traceback", name, traceback_text(exc))
                    continue
                tally.add("onnx operands", "false_ok" if must_refuse else "accepted", name, "loaded")


def _names_where(message):
    return any(word in message for word in ("node ", "graph input ", "tensor ", "shape inference failed"))


_ATTRIBUTE_NAMES = ("axis", "axes", "perm", "blocksize", "transA", "transB", "group", "kernel_shape", "pads",
                    "strides", "split", "to", "keepdims", "dilations", "auto_pad", "alpha", "min", "max",
                    "block_size")
_ATTRIBUTE_VALUES = (0, 1, -1, 2, 7, -9, 2 ** 40, 1.5, "x", b"SAME_UPPER", [0], [1, 1], [0, 0, 1, 1], [-1],
                     [1.5], [3, 2, 1, 0], ["a"])


def onnx_attributes(tally, count, seed=10, folder=None):
    """One node of every supported operator with random operands (float or int64
    constants of rank 1 to 4) and up to three attributes drawn from every operator's
    names, of any type: a Model or a MemcoreError naming the file, nothing else."""
    import pathlib
    import tempfile
    from memcore import MemcoreError
    from memcore.onnx_tables import ELEMENTWISE, MOVES, POOLS, REDUCES
    ops = sorted(set(ELEMENTWISE) | set(MOVES) | set(POOLS) | set(REDUCES)
                 | {"Conv", "Gemm", "MatMul", "BatchNormalization", "Concat", "Dropout"})
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "onnx attributes"):
        for k in range(count):
            op = rng.choice(ops)
            shapes = [[1, rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 6)][:rng.randint(1, 4)]
                      for _ in range(rng.randint(1, 4))]
            inits = [numpy_helper.from_array(np.ones(s, np.float32 if rng.random() < 0.7 else np.int64), "c%d" % i)
                     for i, s in enumerate(shapes[1:])]
            attrs = {rng.choice(_ATTRIBUTE_NAMES): rng.choice(_ATTRIBUTE_VALUES) for _ in range(rng.randint(0, 3))}
            name = "%s %s on %s #%d" % (op, attrs, shapes, k)
            node = N(op, ["x"] + [i.name for i in inits], ["y"], **attrs)
            path = folder / ("attributes-%d.onnx" % k)
            path.write_bytes(_graph([node], shapes[0], inits, opset=rng.choice((11, 13, 18))))
            try:
                memcore.load(str(path)).plan("tflm")
            except MemcoreError as exc:
                if path.name in str(exc):
                    tally.add("onnx attributes", "refused", name)
                else:
                    tally.add("onnx attributes", "traceback", name, "an error without the file's name: %s" % exc)
                continue
            except Exception as exc:  # noqa: BLE001 - any other exception is the finding
                tally.add("onnx attributes", "traceback", name, traceback_text(exc))
                continue
            tally.add("onnx attributes", "accepted", name)
