"""The Python fuzz targets' corpora replayed, and every importer crash they found.

fuzz/fuzz_tflite.py and fuzz/fuzz_onnx.py accept exactly two outcomes: a Model (that
also plans) or MemcoreError naming the file.  Replaying fuzz/corpus/{tflite,onnx}/
here needs no atheris.  Each regression-* input there once raised something else; the
tests below rebuild each one readably and check the message the fix gives.
"""
import importlib.util
import pathlib

import numpy as np
import pytest
from onnx import AttributeProto, TensorProto, helper, numpy_helper

import memcore

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"


def _target(name):
    import sys
    sys.path.insert(0, str(FUZZ))  # the targets import fuzz/atheris_or_none.py
    try:
        spec = importlib.util.spec_from_file_location(name, FUZZ / (name + ".py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(FUZZ))


@pytest.mark.parametrize("kind", ["tflite", "onnx"])
def test_corpus_replays(kind):
    target = _target("fuzz_" + kind)
    files = sorted((FUZZ / "corpus" / kind).iterdir())
    assert len(files) >= 5
    loaded = [f.name for f in files if target.check(f.read_bytes()) is not None]
    # The valid seeds load; the truncated ones and the regressions are refused.
    assert any(name.endswith("." + kind) for name in loaded)
    assert not any("truncated" in name or name.startswith("regression-") for name in loaded)


def test_corpus_stays_small():
    total = sum(f.stat().st_size for kind in ("tflite", "onnx") for f in (FUZZ / "corpus" / kind).iterdir())
    assert total < 100_000


def _load(tmp_path, model, name="m.onnx"):
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.load(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    return message


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _vi(name, shape, elem_type=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem_type, shape)


# An operator unknown to onnx makes strict shape inference stop checking without an
# error, so the importer sees the rest of the graph unchecked: the fuzzer's way in.
UNKNOWN_OP = "Yelu"


def test_unknown_onnx_element_type(tmp_path):
    # was: ValueError "Enum DataType has no name defined for value 98" from protobuf
    model = _model([helper.make_node(UNKNOWN_OP, ["x"], ["y"])], [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    model.graph.output[0].type.tensor_type.elem_type = 98
    assert "tensor 'y' has type code 98, which has no fixed element size" in _load(tmp_path, model)


def test_onnx_attribute_without_a_type(tmp_path):
    # was: TypeError "'NoneType' object is not iterable" on strides of type UNDEFINED
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    node.attribute[1].type = AttributeProto.UNDEFINED
    model = _model([node], [_vi("x", [1, 1, 4, 4])], [_vi("y", [1, 1, 2, 2])])
    assert "node 0 '' (MaxPool): attribute 'strides' has no value of a known type" in _load(tmp_path, model)


def test_onnx_attribute_of_the_wrong_type(tmp_path):
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    node.attribute[1].type = AttributeProto.INT  # ints given, int declared: reads as 0
    model = _model([node], [_vi("x", [1, 1, 4, 4])], [_vi("y", [1, 1, 2, 2])])
    message = _load(tmp_path, model)
    assert "attribute 'strides'" in message or "shape inference failed" in message


def test_onnx_initializer_data_does_not_match_its_shape(tmp_path):
    # was: numpy's ValueError "cannot reshape array of size 54 into shape (7,2,3,3)"
    w = numpy_helper.from_array(np.zeros((3, 2, 3, 3), np.float32), "w")
    w.dims[0] = 7
    model = _model([helper.make_node("Conv", ["x", "w"], ["y"])], [_vi("x", [1, 2, 3, 3])],
                   [_vi("y", [1, 7, 1, 1])], [w])
    message = _load(tmp_path, model)
    assert "constant tensor 'w': its data does not match its shape [7, 2, 3, 3]" in message


def test_onnx_node_without_output(tmp_path):
    # was: IndexError "tuple index out of range" reading the first output
    model = _model([helper.make_node("Relu", ["x"], [""])], [_vi("x", [1, 4])], [_vi("x", [1, 4])])
    assert "node 0 '' (Relu) has no output" in _load(tmp_path, model)


def test_onnx_constant_without_output(tmp_path):
    # was: IndexError "list index out of range" naming the Constant's value
    constant = helper.make_node("Constant", [], [], value=numpy_helper.from_array(np.ones(2, np.float32)))
    model = _model([constant, helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    # A second, versionless import of the default domain (the fuzzer's way past
    # shape inference, which then checks no node).
    model.opset_import.append(helper.make_operatorsetid("", 0))
    assert "Constant node '' has no output" in _load(tmp_path, model)


def test_onnx_conv_without_weights(tmp_path):
    model = _model([helper.make_node("Conv", ["x"], ["y"])], [_vi("x", [1, 2, 3, 3])], [_vi("y", [1, 2, 3, 3])])
    message = _load(tmp_path, model)
    assert "needs a data and a weight input, got 1 inputs" in message or "shape inference failed" in message


def test_onnx_clip_bound_data_does_not_match_its_shape(tmp_path):
    # was: numpy's ValueError "cannot reshape array of size 54 into shape (3,2,3,45)"
    # reading a Clip bound to decide whether the Clip fuses as a ReLU6 (a bound of one
    # value by its dims, as the operator requires, holding 54)
    low = numpy_helper.from_array(np.zeros((54,), np.float32), "low")
    low.dims[0] = 1
    model = _model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Clip", ["r", "low"], ["y"])],
                   [_vi("x", [1, 4])], [_vi("y", [1, 4])], [low])
    assert "constant tensor 'low': its data does not match its shape [1]" in _load(tmp_path, model)


def test_tflite_operation_count_past_64_bits(tmp_path):
    # was: "op_counts(operator 0): a size does not fit in 64 bits", naming neither file nor
    # operator: 2^22 x 2^22 by 2^22 x 2^22 is 2^66 MACs from tensors whose sizes each fit
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
    model = schema.ModelT()
    model.version = 3
    model.buffers = [schema.BufferT()]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.FULLY_CONNECTED
    model.operatorCodes = [code]
    g = schema.SubGraphT()
    g.tensors = []
    for name in ("x", "w", "y"):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name, [1 << 22, 1 << 22], schema.TensorType.FLOAT32, 0
        g.tensors.append(t)
    op = schema.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0, 1, -1], [2]
    g.operators, g.inputs, g.outputs = [op], [0, 1], [2]
    model.subgraphs = [g]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    path = tmp_path / "fc.tflite"
    path.write_bytes(bytes(builder.Output()))
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.load(path)
    assert str(info.value) == "%s: counting the operations of operator 0 (FULLY_CONNECTED): " \
                              "a size does not fit in 64 bits" % path


def test_onnx_activation_without_an_input(tmp_path):
    # was: IndexError "list index out of range" where the ReLU fusion reads the first input
    model = _model([helper.make_node("Relu", [], ["y"])], [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    model.opset_import.append(helper.make_operatorsetid("", 0))  # past shape inference, as above
    assert "node 0 '' (Relu) has no first input" in _load(tmp_path, model)
