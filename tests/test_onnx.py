"""ONNX models built in code, with sizes and operation counts checked by hand."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import memcore


def _save(tmp_path, name, nodes, inputs, outputs, initializers):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    path = tmp_path / (name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return memcore.load(path)


def _weights(name, *shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def test_conv(tmp_path):
    # 1x3x8x8 input, 4 filters 3x3 with padding 1: output 1x4x8x8.
    model = _save(tmp_path, "conv",
                  [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                  [_weights("w", 4, 3, 3, 3), _weights("b", 4)])
    assert model.format == "onnx"
    (conv,) = model.operators
    assert conv.kind == "CONV_2D"
    assert conv.macs == 4 * 8 * 8 * 3 * 3 * 3 == 6912
    assert model.parameter_count == 4 * 3 * 3 * 3 + 4 == 112
    assert model.weight_bytes == 448
    y = model.tensors[model.outputs[0]]
    assert y.shape == (1, 4, 8, 8) and y.bytes == 1024 and not y.is_constant
    # input (768 B) and output (1024 B) are both live at the conv: 768 + 1024
    plan = model.plan("tflm")
    assert plan.arena_bytes == plan.lower_bound_bytes == 1792


def test_depthwise_conv_strided(tmp_path):
    # groups == channels: depthwise; stride 2 halves 8x8 to 4x4.
    model = _save(tmp_path, "dw",
                  [helper.make_node("Conv", ["x", "w"], ["y"], group=6, strides=[2, 2], pads=[1, 1, 1, 1])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 4, 4])],
                  [_weights("w", 6, 1, 3, 3)])
    (dw,) = model.operators
    assert dw.kind == "DEPTHWISE_CONV_2D"
    assert dw.macs == 6 * 4 * 4 * 3 * 3 == 864
    assert dw.attributes["output_channels"] == 6


def test_dense(tmp_path):
    model = _save(tmp_path, "dense",
                  [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
                   helper.make_node("Relu", ["h"], ["r"]),
                   helper.make_node("MatMul", ["r", "w2"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
                  [_weights("w", 8, 16), _weights("b", 8), _weights("w2", 8, 3)])
    gemm, relu, matmul = model.operators
    assert (gemm.kind, relu.kind, matmul.kind) == ("FULLY_CONNECTED", "RELU", "FULLY_CONNECTED")
    assert gemm.macs == 8 * 16 and matmul.macs == 3 * 8
    assert relu.macs == 0 and relu.other_ops == 8
    assert model.macs == 152
    assert model.parameter_count == 128 + 8 + 24
    assert model.weight_bytes == 4 * 160
    assert model.operations == 2 * 152 + 8
    # x 64 B, h 32, r 32, y 12 -> aligned 64, 32, 32, 16; peak is h + r (32 + 32 = 64) or x + h (96)
    assert model.plan("tflm").arena_bytes == 96
    # Every kind here is in the op table: TFLM's exact figures, not a bound.
    assert not memcore.tflm_arena(model).upper_bound


def test_add_and_pool(tmp_path):
    model = _save(tmp_path, "add",
                  [helper.make_node("Add", ["a", "b"], ["s"]),
                   helper.make_node("MaxPool", ["s"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                   helper.make_node("GlobalAveragePool", ["p"], ["y"])],
                  [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 2, 4, 4]),
                   helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 2, 4, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 1, 1])], [])
    add, pool, mean = model.operators
    assert add.kind == "ADD" and add.macs == 0 and add.other_ops == 32
    assert pool.kind == "MAX_POOL_2D" and pool.other_ops == 2 * 2 * 2 * 2 * 2
    assert mean.kind == "MEAN" and mean.other_ops == 8
    # The only constant is the MEAN's axes list (H and W as int32), as TFLite's converter writes it.
    assert model.parameter_count == 2 and model.weight_bytes == 8
    assert [model.tensors[i].bytes for i in model.planned_tensors] == [128, 128, 128, 32, 8]
    # a, b and their sum are live together at the ADD: 3 x 128
    plan = model.plan("best")
    assert plan.lower_bound_bytes == 384 and plan.arena_bytes == 384


def test_constant_node_is_a_weight(tmp_path):
    shape = numpy_helper.from_array(np.array([1, 8], np.int64), "shape_value")
    model = _save(tmp_path, "reshape",
                  [helper.make_node("Constant", [], ["shape"], value=shape),
                   helper.make_node("Reshape", ["x", "shape"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])], [])
    assert [op.kind for op in model.operators] == ["RESHAPE"]
    assert model.parameter_count == 2 and model.weight_bytes == 16


@pytest.mark.parametrize("target", ["esp32", "host64"])
def test_tflm_arena_of_an_onnx_model(tmp_path, target):
    model = _save(tmp_path, "conv",
                  [helper.make_node("Conv", ["x", "w"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])],
                  [_weights("w", 2, 1, 3, 3)])
    arena = memcore.tflm_arena(model, target=target)
    assert arena.head_bytes == 112 + 80  # 100 B -> 112, 72 B -> 80, both live at the conv
    assert arena.total_bytes == arena.head_bytes + arena.tail_bytes
    assert arena.recommended_arena_bytes >= arena.total_bytes
