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
