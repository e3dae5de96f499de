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
    # planned as the TFLite converter lays it out: channels last
    assert y.shape == (1, 8, 8, 4) and y.bytes == 1024 and not y.is_constant
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
    # pads (1, 1) at stride 2 are not TFLite's SAME (0, 1): the converter writes a PAD
    pad, dw = model.operators
    assert pad.kind == "PAD" and model.tensors[pad.outputs[0]].shape == (1, 10, 10, 6)
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
    # the Relu is fused into the fully connected layer before it, as the TFLite converter does
    gemm, matmul = model.operators
    assert (gemm.kind, matmul.kind) == ("FULLY_CONNECTED", "FULLY_CONNECTED")
    assert any("fused" in line for line in model.conversion)
    assert gemm.macs == 8 * 16 and matmul.macs == 3 * 8
    assert model.macs == 152
    assert model.parameter_count == 128 + 8 + 24
    assert model.weight_bytes == 4 * 160
    assert model.operations == 2 * 152
    # x 64 B, h 32, y 12 -> aligned 64, 32, 16; peak is x + h (96)
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
    # MEAN takes its axes as a constant int32 tensor, as the converter writes it: 2 values
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


# ---- as it will be deployed: QDQ int8, folded batch norm, shapes given ---------------------

def _vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_qdq_graph_is_int8_as_the_converter_writes_it(tmp_path):
    # float input → Q → DQ → Conv(DQ(int8 w), DQ(int32 b)) → Relu → Q → DQ → float output
    c = numpy_helper.from_array
    inits = [c(np.array(0.05, np.float32), "s"), c(np.array(0, np.int8), "z"), c(np.ones((4, 3, 3, 3), np.int8), "wq"),
             c(np.array(0.01, np.float32), "ws"), c(np.array(0, np.int8), "wz"), c(np.ones(4, np.int32), "bq"),
             c(np.array(5e-4, np.float32), "bs"), c(np.array(0, np.int32), "bz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"]),
             helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["bd"]),
             helper.make_node("Conv", ["xd", "wd", "bd"], ["y"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["y"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "s", "z"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["out"])]
    model = _save(tmp_path, "qdq", nodes, [_vi("x", [1, 3, 8, 8])], [_vi("out", [1, 4, 8, 8])], inits)
    # the float input is quantised once and the float output dequantised once, as with
    # the converter's float input and output; in between everything is int8
    assert [op.kind for op in model.operators] == ["QUANTIZE", "CONV_2D", "DEQUANTIZE"]
    # weights: 108 int8 filter values and 4 int32 biases; scales and zero points are
    # quantisation parameters, not tensors
    assert model.weight_bytes == 108 + 4 * 4 and model.parameter_count == 112
    conv = model.operators[1]
    assert model.tensors[conv.outputs[0]].dtype == "int8" and model.tensors[conv.outputs[0]].bytes == 8 * 8 * 4
    # x 768 + xq 192 at QUANTIZE, xq 192 + y 256 at the conv, y 256 + out 1024 at DEQUANTIZE
    assert model.plan("best").lower_bound_bytes == 256 + 1024
    from memcore.check import check
    from memcore.profiles import profile
    report = check(model, profile("cortex-m4"), suggest=False)
    assert report.dtype == "int8" and report.kernels == "optimised"
    # the core computes each tensor's size from the shape and type it is given, as the
    # importer does for the report: float32, int8 and int32 tensors agree to the byte
    from memcore.cgraph import tensor_bytes
    c_graph = model.c_graph().graph
    assert [tensor_bytes(c_graph.tensors[i]) for i in range(len(model.tensors))] == [t.bytes for t in model.tensors]


def test_batch_norm_and_relu_fold_into_the_convolution(tmp_path):
    inits = [_weights("w", 4, 3, 3, 3), numpy_helper.from_array(np.ones(4, np.float32), "g"), _weights("b", 4),
             _weights("mu", 4), numpy_helper.from_array(np.ones(4, np.float32), "var")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "g", "b", "mu", "var"], ["n"]),
             helper.make_node("Relu", ["n"], ["y"])]
    model = _save(tmp_path, "bn", nodes, [_vi("x", [1, 3, 8, 8])], [_vi("y", [1, 4, 8, 8])], inits)
    (conv,) = model.operators
    assert conv.kind == "CONV_2D"
    # the folded batch norm gives the convolution a bias: 108 + 4 values, nothing of the norm's
    assert model.parameter_count == 108 + 4 and model.weight_bytes == 4 * 112
    assert any("batch norms folded" in line for line in model.conversion)
    assert any("activations fused" in line for line in model.conversion)
    # the peak is the conv's input and output (768 + 1024), not a separate RELU's
    assert model.plan("tflm").arena_bytes == 768 + 1024


def test_input_shape_fixes_a_dynamic_dimension(tmp_path):
    _save_dynamic = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "dyn",
                                      [_vi("x", ["batch", 4])], [_vi("y", ["batch", 4])], [])
    path = tmp_path / "dyn.onnx"
    onnx.save(helper.make_model(_save_dynamic, opset_imports=[helper.make_opsetid("", 13)]), path)
    from cli_helpers import memcore_cli
    code, out, err = memcore_cli("check", path, "--input-shape", "x=3,4", "--device", "cortex-m4", "--json")
    assert code == 0, err
    import json
    report = json.loads(out)
    assert report["input_bytes"] == 3 * 4 * 4 and report["activation_bytes"] == 2 * 3 * 4 * 4
    code, out, err = memcore_cli("check", path, "--input-shape", "nope=1,4")
    assert code == 2 and "--input-shape nope: the graph has no input of that name (its inputs: x)" in err


def test_a_conv_weight_of_too_low_a_rank_is_refused_naming_it(tmp_path):
    # Found by the ONNX fuzzer (fuzz/corpus/onnx/conv-scalar-weight): a scalar weight and
    # a bias, with an input of unknown shape, so no rank comparison stands in the way.
    # ONNX's Conv weight is [M, C/group, k1, ...]: rank 3 or more.
    with pytest.raises(memcore.MemcoreError) as e:
        _save(tmp_path, "conv0", [helper.make_node("Conv", ["x", "w", "b"], ["y"])],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
              [numpy_helper.from_array(np.float32(1.0), "w"), _weights("b", 4)])
    assert "weight 'w' of shape [] must be [M, C/group, k, ...] (rank 3 or more)" in str(e.value)
