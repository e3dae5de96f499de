"""TFLite and ONNX files, mutated: a Model or one MemcoreError naming the file, nothing
else; ONNX files invalid by construction (Conv group 0 or not dividing the channels,
duplicate outputs, a node writing an initializer or input, external data outside the
model's folder, 64-bit overflow) are always refused."""
import hostile
from hostile import assert_clean


def test_tflite_mutants(tally, tmp_path):
    hostile.tflite_mutants(tally, 150, folder=tmp_path)
    assert_clean(tally, "tflite mutants")


def test_onnx_mutants(tally, tmp_path):
    hostile.onnx_mutants(tally, 160, folder=tmp_path)
    assert_clean(tally, "onnx mutants")
    assert tally.counts["onnx mutants"]["refused"] >= 80  # every structured mutant, at least


def test_onnx_external_data_at_a_nul_location(tmp_path):
    """was: ValueError "embedded null byte" from os.path.realpath, a traceback"""
    import pytest
    from onnx import TensorProto, helper
    from memcore import MemcoreError
    w = hostile._w("w", 4, 2)
    w.ClearField("float_data")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", "\x00"
    path = tmp_path / "nul.onnx"
    path.write_bytes(hostile.onnx_bytes([helper.make_node("MatMul", ["x", "w"], ["y"])], [hostile._vi("x", [1, 4])],
                                        [hostile._vi("y", [1, 2])], [w]))
    with pytest.raises(MemcoreError) as info:
        hostile.use_model(str(path))
    assert str(info.value) == ("%s: constant tensor 'w': external data '\\x00' is not a file name (it holds a "
                               "control character)" % path)
