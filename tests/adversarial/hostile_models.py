"""Hostile model files: byte-level mutants of the real TFLite models, and ONNX graphs
invalid by construction or mutated byte by byte."""
import copy
import pathlib
import random
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from hostile_tally import MODELS, model_outcome, timed


def _mutate_bytes(data, rng):
    data = bytearray(data)
    how = rng.choice(("flip", "span", "word", "truncate", "splice"))
    if how == "flip":
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif how == "span":
        i = rng.randrange(len(data))
        n = rng.randint(1, 64)
        data[i:i + n] = bytes([rng.choice((0, 0xFF, rng.randrange(256)))]) * len(data[i:i + n])
    elif how == "word":
        i = rng.randrange(max(1, len(data) // 4)) * 4
        value = rng.choice((0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, rng.randrange(1 << 32)))
        data[i:i + 4] = value.to_bytes(4, "little")
    elif how == "truncate":
        data = data[:rng.randrange(len(data))]
    else:
        i, j = sorted(rng.randrange(len(data)) for _ in range(2))
        data[j:j] = data[i:j][:256]
    return bytes(data), how


def tflite_mutants(tally, count, seed=1, folder=None):
    """Byte-level mutants of the real TFLite models: a Model or a MemcoreError, nothing else."""
    rng = random.Random(seed)
    bases = [(p.name, p.read_bytes()) for p in sorted(MODELS.glob("*.tflite")) if p.stat().st_size < 60_000]
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "tflite mutants"):
        for k in range(count):
            name, data = rng.choice(bases)
            mutant, how = _mutate_bytes(data, rng)
            path = folder / ("mutant-%d.tflite" % k)
            path.write_bytes(mutant)
            model_outcome(tally, "tflite mutants", "%s %s #%d" % (name, how, k), path, must_refuse=False)


def _vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _w(name, *shape):
    return numpy_helper.from_array(np.ones(shape, np.float32), name)


def onnx_bases():
    """Small valid ONNX graphs (name -> (nodes, inputs, outputs, initializers))."""
    return {
        "conv-pool": ([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
                       helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                       helper.make_node("GlobalAveragePool", ["p"], ["g"]),
                       helper.make_node("Flatten", ["g"], ["y"])],
                      [_vi("x", [1, 4, 8, 8])], [_vi("y", [1, 6])], [_w("w", 6, 4, 3, 3)]),
        "grouped-conv": ([helper.make_node("Conv", ["x", "w"], ["y"], group=2)],
                         [_vi("x", [1, 4, 6, 6])], [_vi("y", [1, 4, 4, 4])], [_w("w", 4, 2, 3, 3)]),
        "depthwise": ([helper.make_node("Conv", ["x", "w"], ["y"], group=4)],
                      [_vi("x", [1, 4, 6, 6])], [_vi("y", [1, 4, 4, 4])], [_w("w", 4, 1, 3, 3)]),
        "gemm-relu-matmul": ([helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
                              helper.make_node("Relu", ["h"], ["r"]),
                              helper.make_node("MatMul", ["r", "w2"], ["y"])],
                             [_vi("x", [1, 4])], [_vi("y", [1, 2])], [_w("w", 3, 4), _w("b", 3), _w("w2", 3, 2)]),
        "add-concat": ([helper.make_node("Add", ["x", "x"], ["a"]),
                        helper.make_node("Concat", ["a", "x"], ["y"], axis=1)],
                       [_vi("x", [1, 4])], [_vi("y", [1, 8])], []),
    }


def onnx_bytes(nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _onnx_structured(rng, nodes, inputs, outputs, inits, folder):
    """One invalid-by-construction change: (what, nodes, inputs, outputs, inits)."""
    nodes = [copy.deepcopy(n) for n in nodes]
    inits = [copy.deepcopy(i) for i in inits]
    convs = [n for n in nodes if n.op_type == "Conv"]
    choices = ["duplicate output", "writes an initializer" if inits else "writes an input", "writes an input",
               "two writers", "external absolute", "external escape", "external missing", "external control",
               "overflow"]
    if convs:
        choices += ["group", "group", "stride", "pads", "kernel_shape"]
    what = rng.choice(choices)
    if what == "group":
        node = rng.choice(convs)
        value = rng.choice((0, -1, -3, 3, 5, 7, 2 ** 31 - 1, -2 ** 31))
        _set_attr(node, "group", value)
        what += " %d" % value
    elif what == "stride":
        _set_attr(rng.choice(convs), "strides", rng.choice(([0, 0], [-1, 1], [1], [1, 1, 1])))
    elif what == "pads":
        _set_attr(rng.choice(convs), "pads", rng.choice(([-1, 0, 0, 0], [1, 1], [0, 0, 0, -5])))
    elif what == "kernel_shape":
        _set_attr(rng.choice(convs), "kernel_shape", rng.choice(([5, 5], [1, 3], [0, 0])))
    elif what == "duplicate output":
        node = rng.choice(nodes)
        node.output.append(node.output[0])
    elif what == "writes an initializer":
        rng.choice(nodes).output[0] = rng.choice(inits).name
    elif what == "writes an input":
        node = rng.choice(nodes[1:] or nodes)
        node.output[0] = inputs[0].name
    elif what == "two writers":
        if len(nodes) > 1:
            a, b = rng.sample(nodes, 2)
        else:
            a, b = nodes[0], copy.deepcopy(nodes[0])
            nodes.append(b)
        b.output[0] = a.output[0]
    elif what.startswith("external"):
        init = rng.choice(inits) if inits else None
        if init is None:
            init = _w("e", 2)
            inits.append(init)
            nodes.append(helper.make_node("Add", [outputs[0].name, "e"], ["e_out"]))
        location = {"external absolute": rng.choice(("/etc/hostname", str(folder / "w.bin"))),
                    "external escape": rng.choice(("../w.bin", "sub/../../w.bin", "..\\w.bin")),
                    "external missing": "no-such-file.bin",
                    "external control": rng.choice(("\x00", "w.bin\x00", "\x1b[2Jw.bin", "w\nbin"))}[what]
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        entry = init.external_data.add()
        entry.key, entry.value = "location", location
    elif what == "overflow":
        inputs = [_vi(inputs[0].name, [2 ** 31 - 1] * 3)]
    return what, nodes, inputs, outputs, inits


def _set_attr(node, name, value):
    for a in list(node.attribute):
        if a.name == name:
            node.attribute.remove(a)
    node.attribute.append(helper.make_attribute(name, value))


def onnx_mutants(tally, count, seed=2, folder=None):
    """Half invalid by construction (must be refused, naming the file), half random byte
    mutants (a Model or a MemcoreError)."""
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    model_dir = folder / "models"
    model_dir.mkdir(exist_ok=True)
    (folder / "w.bin").write_bytes(b"\0" * 4096)   # what an escaping path would read
    bases = onnx_bases()
    with timed(tally, "onnx mutants"):
        for k in range(count):
            base = rng.choice(sorted(bases))
            nodes, inputs, outputs, inits = bases[base]
            path = model_dir / ("mutant-%d.onnx" % k)
            if k % 2 == 0:
                what, n2, i2, o2, w2 = _onnx_structured(rng, nodes, inputs, outputs, inits, folder)
                path.write_bytes(onnx_bytes(n2, i2, o2, w2, opset=18 if "output" in what else 13))
                model_outcome(tally, "onnx mutants", "%s: %s #%d" % (base, what, k), path, must_refuse=True)
            else:
                mutant, how = _mutate_bytes(onnx_bytes(nodes, inputs, outputs, inits), rng)
                path.write_bytes(mutant)
                model_outcome(tally, "onnx mutants", "%s: bytes %s #%d" % (base, how, k), path,
                               must_refuse=False)

