"""Errors the C core names: an operator that lacks an input its kernel reads, a tensor no
arena can hold.  The problem report (operator, tensor) comes from the C core, so the
board's message names the same (firmware_tests/test_scaling_models.py)."""
import pytest

import memcore
from memcore.check import check
from memcore.profiles import profile

schema = pytest.importorskip("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
import scaling_models  # noqa: E402


def edited(name, edit):
    model = scaling_models.model_of(name)
    edit(model)
    return scaling_models.to_bytes(model)


def error_of(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(memcore.MemcoreError) as info:
        check(memcore.load(str(path)), profile("esp32"), suggest=False)
    text = str(info.value)
    assert text.startswith(str(path) + ": ")
    return text[len(str(path)) + 2:]


def first_of(model, kind):
    g = model.subgraphs[0]
    return next(k for k, op in enumerate(g.operators) if model.operatorCodes[op.opcodeIndex].builtinCode == kind)


@pytest.mark.parametrize("name,kind", [("mnist_cnn_int8.tflite", "CONV_2D"),
                                       ("kws_dscnn_int8.tflite", "DEPTHWISE_CONV_2D")])
def test_an_operator_without_its_weights_is_named(tmp_path, name, kind):
    code = getattr(schema.BuiltinOperator, kind)
    found = []

    def drop(model):
        found.append(first_of(model, code))
        op = model.subgraphs[0].operators[found[0]]
        op.inputs = [op.inputs[0], -1] + list(op.inputs[2:])
    text = error_of(tmp_path, "no-weights.tflite", edited(name, drop))
    assert text == "operator %d (%s) lacks an input its TFLM kernel needs (TFLM's Prepare fails)" % (found[0], kind)


@pytest.mark.parametrize("shape", [[1 << 20, 1 << 20, 1 << 20], [1 << 16, 1 << 16, 1 << 16, 4]])
def test_a_tensor_no_arena_holds_is_named(tmp_path, shape):
    # 2^60 and 2^50 bytes of float32 input: the size fits in 64 bits, TFLM's arena never does
    def grow(model):
        g = model.subgraphs[0]
        g.tensors[g.inputs[0]].shape = shape
    text = error_of(tmp_path, "huge.tflite", edited("tiny_mlp_float32.tflite", grow))
    assert text.endswith("of shape %s is too large: TFLM's arena would need more than 2^50 bytes" % shape)
    assert text.startswith("tensor 0 ")
