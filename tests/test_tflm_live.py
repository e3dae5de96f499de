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
