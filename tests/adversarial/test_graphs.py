"""Graphs no runtime can execute, in both formats: each must end in one MemcoreError
naming the file, never in numbers.

These wait for the graph validation shared by both importers (mc_graph_validate over the
neutral graph, in C) and for the C TFLite reader that checks buffers against the file's
end: until both are on main, the tests below that load such a graph FAIL, on purpose,
rather than being skipped."""
import flatbuffers
import numpy as np
import pytest
from onnx import helper
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

import hostile
from memcore import MemcoreError

B = schema.BuiltinOperator


def tflite(ops, n_tensors=3, inputs=(0,), outputs=(2,), weight_buffer=None):
    """A float32 TFLite file: tensors t0..t{n-1} of shape [1, 4]; ops are (builtin, inputs,
    outputs) in execution order; weight_buffer=(offset, size) gives tensor 1 a buffer
    stored outside the flatbuffer (the >2 GB layout), at that offset."""
    model = schema.ModelT()
    model.version = 3
    model.buffers = [schema.BufferT(), schema.BufferT()]
    kinds = sorted({op for op, _, _ in ops})
    model.operatorCodes = []
    for kind in kinds:
        code = schema.OperatorCodeT()
        code.builtinCode = code.deprecatedBuiltinCode = kind
        model.operatorCodes.append(code)
    g = schema.SubGraphT()
    g.tensors = []
    for i in range(n_tensors):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = "t%d" % i, [1, 4], schema.TensorType.FLOAT32, 0
        g.tensors.append(t)
    if weight_buffer is not None:
        g.tensors[1].buffer = 1
        model.buffers[1].offset, model.buffers[1].size = weight_buffer
    g.operators = []
    for kind, ins, outs in ops:
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = kinds.index(kind), list(ins), list(outs)
        g.operators.append(o)
    g.inputs, g.outputs = list(inputs), list(outputs)
    model.subgraphs = [g]
    b = flatbuffers.Builder(256)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def refused(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(MemcoreError) as info:
        hostile._use_model(str(path))
    assert name in str(info.value)
    return str(info.value)


# --- TFLite ---------------------------------------------------------------------------

def test_tflite_operator_reading_its_own_output(tmp_path):
    refused(tmp_path, "self.tflite", tflite([(B.RELU, [0], [1]), (B.ADD, [1, 2], [2])]))


def test_tflite_first_operator_reading_the_last_ones_output(tmp_path):
    refused(tmp_path, "cycle.tflite", tflite([(B.ADD, [0, 2], [1]), (B.RELU, [1], [2])]))


@pytest.mark.parametrize("length", [3, 5, 8])
def test_tflite_cycles_through_a_chain(tmp_path, length):
    ops = [(B.ADD, [0, length], [1])] + [(B.RELU, [i], [i + 1]) for i in range(1, length)]
    refused(tmp_path, "chain-cycle-%d.tflite" % length,
            tflite(ops, n_tensors=length + 1, outputs=(length,)))


def test_tflite_operator_without_outputs(tmp_path):
    refused(tmp_path, "no-output.tflite", tflite([(B.RELU, [0], [1]), (B.RELU, [1], [])], outputs=(1,)))


def test_tflite_tensor_read_before_any_operator_writes_it(tmp_path):
    refused(tmp_path, "read-early.tflite", tflite([(B.ADD, [0, 1], [2]), (B.RELU, [0], [1])]))


def test_tflite_buffer_past_the_end_of_the_file(tmp_path):
    refused(tmp_path, "far-buffer.tflite", tflite([(B.ADD, [0, 1], [2])], weight_buffer=(10 ** 9, 16)))


# --- ONNX ------------------------------------------------------------------------------

def _onnx(nodes, inputs=("x",), outputs=("y",)):
    return hostile.onnx_bytes(nodes, [hostile._vi(n, [1, 4]) for n in inputs],
                              [hostile._vi(n, [1, 4]) for n in outputs], [])


def test_onnx_node_reading_its_own_output(tmp_path):
    refused(tmp_path, "self.onnx", _onnx([helper.make_node("Relu", ["y"], ["y"])]))


def test_onnx_first_node_reading_the_last_ones_output(tmp_path):
    refused(tmp_path, "cycle.onnx", _onnx([helper.make_node("Add", ["x", "y"], ["h"]),
                                           helper.make_node("Relu", ["h"], ["y"])]))


def test_onnx_node_reading_a_tensor_no_one_writes(tmp_path):
    refused(tmp_path, "dangling.onnx", _onnx([helper.make_node("Add", ["x", "ghost"], ["y"])]))


def test_onnx_nodes_out_of_order(tmp_path):
    refused(tmp_path, "order.onnx", _onnx([helper.make_node("Relu", ["h"], ["y"]),
                                           helper.make_node("Relu", ["x"], ["h"])]))


# --- the same categories, generated ------------------------------------------------------

def test_generated_cyclic_graphs(tally, tmp_path):
    """Random chains of 2..12 operators with one edge turned back to an earlier
    operator's input: every one refused, naming the file."""
    rng = np.random.default_rng(8)
    with hostile.timed(tally, "cyclic graphs"):
        for k in range(40):
            n = int(rng.integers(2, 12))
            back_to = int(rng.integers(0, n))
            fmt = "tflite" if k % 2 else "onnx"
            if fmt == "tflite":
                ops = [(B.ADD, [i, n] if i == back_to else [i, 0], [i + 1]) for i in range(n)]
                data = tflite(ops, n_tensors=n + 1, outputs=(n,))
            else:
                nodes = [helper.make_node("Add", ["t%d" % i, "t%d" % n if i == back_to else "t0"], ["t%d" % (i + 1)])
                         for i in range(n)]
                data = hostile.onnx_bytes(nodes, [hostile._vi("t0", [1, 4])], [hostile._vi("t%d" % n, [1, 4])], [])
            path = tmp_path / ("cyclic-%d.%s" % (k, fmt))
            path.write_bytes(data)
            hostile._model_outcome(tally, "cyclic graphs", "%s chain of %d back to %d" % (fmt, n, back_to), path,
                                   must_refuse=True)
    from hostile import assert_clean
    assert_clean(tally, "cyclic graphs")
