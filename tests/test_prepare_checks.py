"""Kernels' Prepare checks (csrc/src/tflm_prepare.c): a model whose operator TFLM's
kernel refuses in Prepare (so AllocateTensors() fails on the board) gets no numbers from
memcore, but one error naming the operator, the kernel's source file, the tensor and
what the kernel takes.  The corpus's converter-made refusals are checked against TFLM's
own error in the truth files (tests/test_conformance.py); here one-operator graphs,
built with TFLM's schema, walk the rows: what each refuses, and what it still accepts."""
import json
import pathlib

import pytest

import memcore
from memcore._memcore import ffi, lib
from schema_model import build

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"


def one_op(kind, inputs, outputs):
    """One operator over its own tensors: inputs, then outputs, as (shape, dtype, constant)."""
    n_in = len(inputs)
    return build(list(inputs) + list(outputs), [(kind, range(n_in), range(n_in, n_in + len(outputs)))],
                 inputs=[i for i, (_, _, constant) in enumerate(inputs) if not constant],
                 outputs=range(n_in, n_in + len(outputs)))


def arena(tmp_path, data):
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    return memcore.tflm_arena(memcore.load(path))


def refusal(tmp_path, data):
    with pytest.raises(memcore.MemcoreError) as info:
        arena(tmp_path, data)
    return str(info.value).split(": ", 1)[1]


def fc(input_type, filter_type):
    return one_op("FULLY_CONNECTED", [((1, 8), input_type, False), ((4, 8), filter_type, True)],
                  [((1, 4), input_type, False)])


def test_a_float16_dequantize_names_the_kernel_the_tensor_and_what_it_takes(tmp_path):
    data = one_op("DEQUANTIZE", [((4, 8), "float16", True)], [((4, 8), "float32", False)])
    assert refusal(tmp_path, data) == (
        "operator 0 (DEQUANTIZE): TFLM's DEQUANTIZE kernel (dequantize_common.cc) refuses it in Prepare: "
        "input 0, tensor 0 (t0), is float16; the kernel takes uint8 or int16 or int8")


def test_an_int8_exp_is_refused_and_a_float_one_is_not(tmp_path):
    assert "TFLM's EXP kernel (exp.cc) refuses it in Prepare: input 0, tensor 0 (t0), is int8; " \
           "the kernel takes float32 only" in refusal(tmp_path, one_op("EXP", [((1, 6), "int8", False)],
                                                                         [((1, 6), "int8", False)]))
    assert arena(tmp_path, one_op("EXP", [((1, 6), "float32", False)], [((1, 6), "float32", False)])).head_bytes == 64  # two 24-byte tensors, 32 each


@pytest.mark.parametrize("input_type, filter_type, refused", [
    ("float32", "float32", False), ("int8", "int8", False), ("int8", "int4", False), ("int16", "int8", False),
    ("float32", "int8", True),   # a hybrid model: TFLM Micro runs none
    ("int8", "float32", True), ("int16", "int4", True), ("float32", "float16", True),
])
def test_fully_connected_filter_types_by_input_type(tmp_path, input_type, filter_type, refused):
    data = fc(input_type, filter_type)
    if not refused:
        assert arena(tmp_path, data).head_bytes > 0
        return
    message = refusal(tmp_path, data)
    assert message.startswith("operator 0 (FULLY_CONNECTED): TFLM's FULLY_CONNECTED kernel (fully_connected.cc) "
                              "refuses it in Prepare: with input 0 %s, input 1, tensor 1 (t1), is %s"
                              % (input_type, filter_type)), message


def test_softmax_output_types_by_input_type(tmp_path):
    ok = one_op("SOFTMAX", [((1, 8), "int8", False)], [((1, 8), "int16", False)])
    assert arena(tmp_path, ok).head_bytes > 0
    bad = one_op("SOFTMAX", [((1, 8), "int16", False)], [((1, 8), "int8", False)])
    assert "with input 0 int16, output 0, tensor 1 (t1), is int8; the kernel takes int16 only" in refusal(tmp_path, bad)


@pytest.mark.parametrize("kind, shape, text", [
    ("TRANSPOSE", (1, 2, 2, 2, 2, 2), "has rank 6; the kernel takes rank at most 5"),
    ("STRIDED_SLICE", (1, 2, 2, 2, 2), "has rank 5; the kernel takes rank at most 4"),
    ("DEPTH_TO_SPACE", (1, 4, 4), "has rank 3; the kernel takes rank 4"),
    ("SPACE_TO_BATCH_ND", (1, 4), "has rank 2; the kernel takes rank 3 to 4"),
])
def test_rank_limits(tmp_path, kind, shape, text):
    # only input 0 matters to the rank rule; the other inputs are small constants
    data = one_op(kind, [(shape, "float32", False), ((len(shape),), "int32", True)], [(shape, "float32", False)])
    assert text in refusal(tmp_path, data)


def test_gather_positions_must_be_int32(tmp_path):
    data = one_op("GATHER", [((4, 3), "float32", False), ((2,), "int64", True)], [((2, 3), "float32", False)])
    assert "TFLM's GATHER kernel (gather.cc) refuses it in Prepare: input 1, tensor 1 (t1), is int64; " \
           "the kernel takes int32 only" in refusal(tmp_path, data)


def test_concatenation_takes_at_most_ten_inputs(tmp_path):
    ins = [((1, 2), "float32", False)] * 11
    data = one_op("CONCATENATION", ins, [((1, 22), "float32", False)])
    assert refusal(tmp_path, data) == ("operator 0 (CONCATENATION): TFLM's CONCATENATION kernel (concatenation.cc) "
                                       "refuses it in Prepare: it has 11 inputs; the kernel takes at most 10")
    assert arena(tmp_path, one_op("CONCATENATION", ins[:10], [((1, 20), "float32", False)])).head_bytes > 0


def test_the_check_refuses_as_the_arena_does(tmp_path):
    path = tmp_path / "exp.tflite"
    path.write_bytes(one_op("EXP", [((1, 6), "int8", False)], [((1, 6), "int8", False)]))
    with pytest.raises(memcore.MemcoreError, match="TFLM's EXP kernel"):
        memcore.check(path, device="esp32")


def test_every_check_describes_itself():
    c = ffi.new("mc_tflm_prepare_check_t *")
    n = 0
    while lib.mc_tflm_prepare_check(n, c) == lib.MC_OK:
        assert lib.mc_tflm_supports(c.code), n
        assert c.allowed != 0 and c.kind in (lib.MC_CHECK_TYPE, lib.MC_CHECK_RANK, lib.MC_CHECK_INPUTS)
        n += 1
    assert n > 50
    assert lib.mc_tflm_prepare_check(-1, c) == lib.MC_E_RANGE


def test_every_corpus_model_tflm_refuses_in_prepare_is_refused_naming_its_kernel():
    truth = json.loads((CORPUS / "truth" / "host64.json").read_text())["models"]
    refused = sorted(k for k in truth if k.startswith("refused_"))
    assert len(refused) >= 8
    for key in refused:
        assert truth[key]["error"], key  # TFLM refuses it
        kernel_file = truth[key]["error"].split("kernels/")[1].split(":")[0].split(" ")[0] \
            if "kernels/" in truth[key]["error"] else None
        with pytest.raises(memcore.MemcoreError) as info:
            memcore.tflm_arena(memcore.load(CORPUS / "models" / key))
        assert "refuses it in Prepare" in str(info.value), key
        if kernel_file:
            assert "(%s)" % kernel_file in str(info.value), (key, kernel_file)
