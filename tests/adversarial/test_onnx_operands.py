"""ONNX operand shapes against each operator's specification (hostile_onnx.py): every
supported operator's valid graph loads, every mutant breaking one rule of its operands'
shapes is refused naming the file and the node or input; and the two cases of issue 29,
word for word."""
import pytest
from onnx import helper

import hostile
from hostile import assert_clean
from memcore import MemcoreError


def test_onnx_operand_mutants(tally, tmp_path):
    hostile.onnx_operands(tally, 600, folder=tmp_path)
    assert_clean(tally, "onnx operands")
    counts = tally.counts["onnx operands"]
    assert counts["accepted"] >= 200 and counts["refused"] >= 300


def test_onnx_attributes_of_any_type(tally, tmp_path):
    hostile.onnx_attributes(tally, 300, folder=tmp_path)
    assert_clean(tally, "onnx attributes")


def _load(tmp_path, name, nodes, x_shape, inits):
    path = tmp_path / name
    path.write_bytes(hostile.onnx_bytes(nodes, [hostile._vi("x", x_shape)], [hostile._vi("y", None)], inits))
    with pytest.raises(MemcoreError) as info:
        hostile.use_model(str(path))
    return str(info.value)


def test_an_input_with_a_zero_dimension(tmp_path):
    # was: "fits", with 0 B of input and 320 MACs
    message = _load(tmp_path, "zero.onnx", [helper.make_node("Relu", ["x"], ["y"])], [1, 3, 0, 16], [])
    assert message == ("%s: graph input 'x' has shape [1, 3, 0, 16]: dimension 2 is 0; every dimension must be at "
                       "least 1 (TFLite Micro plans no empty tensors)" % (tmp_path / "zero.onnx"))


def test_a_gemm_bias_of_11_for_10_outputs(tmp_path):
    # was: FITS
    message = _load(tmp_path, "gemm.onnx", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], [1, 4],
                    [hostile._w("w", 10, 4), hostile._w("b", 11)])
    assert message.endswith("gemm.onnx: node 0 '' (Gemm): input C 'b' of shape [11] does not broadcast to the "
                            "output's [1, 10] (a bias of [10] does)")
