"""Bad input: every broken file gives one MemcoreError naming the file and the problem."""
import pathlib

import flatbuffers
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import memcore

MODELS = pathlib.Path(__file__).resolve().parent / "models"
GOOD = MODELS / "mnist_cnn_int8.tflite"

schema = pytest.importorskip("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")


def _edited(edit):
    """GOOD, rebuilt through the schema's object API after edit(model)."""
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(GOOD.read_bytes(), 0))
    edit(model)
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _raises(tmp_path, name, data, match):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(memcore.MemcoreError, match=match) as info:
        memcore.load(path)
    assert str(path) in str(info.value)
    return str(info.value)


def test_rebuilt_model_still_loads(tmp_path):
    path = tmp_path / "same.tflite"
    path.write_bytes(_edited(lambda m: None))
    assert memcore.load(path).plan().arena_bytes == memcore.load(GOOD).plan().arena_bytes


def test_truncated_file(tmp_path):
    data = GOOD.read_bytes()
    _raises(tmp_path, "truncated.tflite", data[: len(data) // 3], "truncated|corrupted")


def test_truncated_to_a_few_bytes(tmp_path):
    _raises(tmp_path, "stub.tflite", GOOD.read_bytes()[:10], "truncated|corrupted")


def test_empty_file(tmp_path):
    _raises(tmp_path, "empty.tflite", b"", "empty")


def test_missing_file(tmp_path):
    with pytest.raises(memcore.MemcoreError, match="cannot read"):
        memcore.load(tmp_path / "absent.tflite")


def test_wrong_format(tmp_path):
    _raises(tmp_path, "notes.tflite", b"this is a text file, not a model\n" * 4, "not a TFLite flatbuffer")
    _raises(tmp_path, "notes.onnx", b"\xff\xfe this is not protobuf either" * 4, "neither a TFLite")


def test_corrupted_bytes(tmp_path):
    data = bytearray(GOOD.read_bytes())
    # Overwrite the root table offset and the first vtable with garbage past the end.
    data[0:4] = (len(data) * 3).to_bytes(4, "little")
    _raises(tmp_path, "corrupted.tflite", bytes(data), "truncated|corrupted")


def test_corrupted_tensor_index(tmp_path):
    def edit(model):
        op = model.subgraphs[0].operators[0]
        op.inputs = [999] + list(op.inputs[1:])
    _raises(tmp_path, "bad_index.tflite", _edited(edit), "refers to tensor 999")


def test_unsupported_operator(tmp_path):
    def edit(model):
        code = schema.OperatorCodeT()
        code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
        code.customCode = "MyFancyOp"
        model.operatorCodes.append(code)
        model.subgraphs[0].operators[1].opcodeIndex = len(model.operatorCodes) - 1
    path = tmp_path / "custom.tflite"
    path.write_bytes(_edited(edit))
    model = memcore.load(path)   # a valid model: whether TFLM runs it is the check's question
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.tflm_arena(model)
    assert str(info.value) == ("%s: TFLM does not run this operator: operator 1 (custom operator 'MyFancyOp') "
                               "(--allow-unknown-ops checks it anyway, as an upper bound)" % path)
    estimate = memcore.tflm_arena(model, allow_unknown_ops=True)
    assert estimate.upper_bound and estimate.recommended_arena_bytes >= memcore.tflm_arena(
        memcore.load(GOOD)).recommended_arena_bytes


def test_builtin_operators_tflm_does_not_register_are_listed(tmp_path):
    def edit(model):
        code = schema.OperatorCodeT()
        code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.LSH_PROJECTION
        model.operatorCodes.append(code)
        for k in (1, 3):
            model.subgraphs[0].operators[k].opcodeIndex = len(model.operatorCodes) - 1
    path = tmp_path / "lsh.tflite"
    path.write_bytes(_edited(edit))
    from memcore.check import check
    from memcore.profiles import profile
    with pytest.raises(memcore.MemcoreError) as info:
        check(memcore.load(path), profile("esp32"))
    assert "TFLM does not run these 2 operators: operator 1 (LSH_PROJECTION), operator 3 (LSH_PROJECTION)" \
        in str(info.value)


def test_dynamic_shape(tmp_path):
    def edit(model):
        tensor = model.subgraphs[0].tensors[0]
        tensor.shape = [-1] + list(tensor.shape[1:])
    message = _raises(tmp_path, "dynamic.tflite", _edited(edit), "dynamic or unknown dimension")
    assert "tensor 0 (x) of shape [-1, 28, 28, 1]" in message


def test_dynamic_batch_signature_with_a_concrete_shape_is_accepted(tmp_path):
    # The converter writes shape_signature [-1, 28, 28, 1] with shape [1, 28, 28, 1] for a model
    # with a free batch; TFLM allocates the concrete shape, and so must memcore.
    def edit(model):
        tensor = model.subgraphs[0].tensors[0]
        tensor.shapeSignature = [-1] + list(tensor.shape[1:])
    path = tmp_path / "signature.tflite"
    path.write_bytes(_edited(edit))
    model, original = memcore.load(path), memcore.load(GOOD)
    assert model.tensors[0].shape == (1, 28, 28, 1)
    assert model.plan("tflm").arena_bytes == original.plan("tflm").arena_bytes


def test_a_control_flow_operator_calling_a_missing_subgraph(tmp_path):
    """IF's then-branch is subgraph 5 of a model of two: TFLM's IF refuses it in Prepare."""
    def edit(model):
        model.subgraphs.append(model.subgraphs[0])
        model.operatorCodes.append(schema.OperatorCodeT(deprecatedBuiltinCode=118, builtinCode=118))
        sg = model.subgraphs[0]
        cond = len(sg.tensors)
        sg.tensors.append(schema.TensorT(shape=[1], type=schema.TensorType.BOOL, name=b"cond"))
        sg.tensors.append(schema.TensorT(shape=[1], type=schema.TensorType.FLOAT32, name=b"branch"))
        options = schema.IfOptionsT()
        options.thenSubgraphIndex, options.elseSubgraphIndex = 5, 1
        sg.operators.insert(0, schema.OperatorT(opcodeIndex=len(model.operatorCodes) - 1, inputs=[cond],
                                                outputs=[cond + 1], builtinOptionsType=schema.BuiltinOptions.IfOptions,
                                                builtinOptions=options))
        sg.inputs = list(sg.inputs) + [cond]
    path = tmp_path / "missing.tflite"
    path.write_bytes(_edited(edit))
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.tflm_arena(memcore.load(path))
    assert str(path) in str(info.value)
    assert ": operator 0 (IF) calls subgraph 5, which the model does not have, or which nests control flow " \
           "deeper than 8 levels" in str(info.value)


def test_onnx_dynamic_batch(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    _raises(tmp_path, "dynamic.onnx", data, "dynamic or unknown dimension 'batch'")


def test_onnx_unsupported_operator(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8])
    graph = helper.make_graph([helper.make_node("Einsum", ["x", "x"], ["y"], equation="bij,bik->bjk")],
                              "g", [x], [y])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    _raises(tmp_path, "einsum.onnx", data, "unsupported operator .*Einsum")


def test_onnx_control_flow(tmp_path):
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    branch = helper.make_graph(
        [helper.make_node("Constant", [], ["v"], value=numpy_helper.from_array(np.ones(1, np.float32)))],
        "b", [], [helper.make_tensor_value_info("v", TensorProto.FLOAT, [1])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)
    graph = helper.make_graph([node], "g", [cond], [out])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    _raises(tmp_path, "if.onnx", data, "subgraphs")


def test_onnx_truncated(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y], [w])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    _raises(tmp_path, "cut.onnx", data[: len(data) - 20], "neither a TFLite|shape inference|unknown")
