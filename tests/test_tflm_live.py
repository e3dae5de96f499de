"""The live oracle: TFLM itself measures a model and memcore must agree, no copied numbers."""
import pathlib

import memcore
import tflm_oracle

MODELS = pathlib.Path(__file__).resolve().parent / "models"



def test_memcore_matches_tflm_measured_live():
    path = MODELS / "mnist_cnn_int8.tflite"
    measured = tflm_oracle.measure(path)
    assert measured["ok"]
    arena = memcore.tflm_arena(memcore.load(path))
    assert arena.head_bytes == measured["head"]
    assert arena.tail_bytes == measured["tail"]
    assert arena.total_bytes == measured["total"]
    assert arena.categories == measured["categories"]
    # The recommended arena allocates, and it is within 256 bytes of the minimum.
    assert tflm_oracle.allocates(path, arena.recommended_arena_bytes)
    assert not tflm_oracle.allocates(path, arena.recommended_arena_bytes - 257)


def test_min_arena_of_the_smallest_model_live():
    path = MODELS / "tiny_mlp_float32.tflite"
    recommended = memcore.tflm_arena(memcore.load(path)).recommended_arena_bytes
    minimum = tflm_oracle.min_arena_bisect(path, lo=recommended - 300, hi=recommended)
    assert minimum <= recommended <= minimum + 256


def test_long_operand_lists_are_measured_as_tflm_measures_them(tmp_path):
    # TFLM reads operand lists in place in the file: a PACK of 1,000 copies of one tensor
    # costs its arena only the packed output, and 1,000 empty intermediates nothing
    import scaling_models
    for name, make in (("packed", scaling_models.packed_copies), ("intermediates", scaling_models.intermediates)):
        for n in (1, 1000):
            path = tmp_path / ("%s-%d.tflite" % (name, n))
            path.write_bytes(make(n))
            measured = tflm_oracle.measure(path)
            assert measured["ok"], (name, n)
            arena = memcore.tflm_arena(memcore.load(str(path)))
            assert (arena.head_bytes, arena.tail_bytes, arena.total_bytes) == \
                (measured["head"], measured["tail"], measured["total"]), (name, n)


def test_an_intermediate_with_bytes_is_refused_as_tflm_refuses_it(tmp_path):
    # TFLM's allocator runs only intermediates of 0 bytes (AllocationInfoBuilder::ValidateSubgraph)
    import pytest
    import scaling_models
    model = scaling_models.model_of("tiny_mlp_int8.tflite")
    first = model.subgraphs[0].operators[0]
    first.intermediates = [first.outputs[0]]
    path = tmp_path / "intermediate.tflite"
    path.write_bytes(scaling_models.to_bytes(model))
    measured = tflm_oracle.measure(path)
    assert not measured["ok"] and "intermediate tensor with non-zero size: 8" in measured["error"]
    with pytest.raises(memcore.MemcoreError) as refused:
        memcore.check(str(path), device="esp32")
    message = str(refused.value)
    assert ": operator 0 (FULLY_CONNECTED) lists tensor 5 (" in message
    assert (") of 8 bytes as an intermediate: TFLM's allocator refuses any intermediate that is not 0 bytes "
            "(micro_allocation_info.cc)") in message
