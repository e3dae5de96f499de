"""TFLM's arena on graphs no converter writes: every builtin option replaced by extreme
values (zero, negative, huge strides and dilations, adj flags), and tensors emptied or
made huge, on every target and kernel library.  Each call either gives numbers or raises
one MemcoreError; it never crashes (the CI step 40-py-asan runs this under ASan+UBSan)."""
import dataclasses
import pathlib
import random

import pytest

import memcore

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "models"
MODELS = sorted(CORPUS.glob("*_i8.tflite"))[:24] + sorted(CORPUS.glob("*_f32.tflite"))[:24]
EXTREMES = (0, -1, 1, 2, 7, 2 ** 31 - 1, -2 ** 31)


def _mutations(model, rng):
    ops = list(model.operators)
    for k, op in enumerate(ops):
        options = tuple(rng.choice(EXTREMES) for _ in range(8))
        ops[k] = dataclasses.replace(op, options=options)
    yield dataclasses.replace(model, operators=tuple(ops))
    tensors = list(model.tensors)
    for i, t in enumerate(tensors):
        if t.shape and rng.random() < 0.3:
            shape = tuple(rng.choice((0, 1, 3, 65536)) for _ in t.shape)
            n = 1
            for d in shape:
                n *= d
            tensors[i] = dataclasses.replace(t, shape=shape, bytes=n * max(1, t.bytes // max(1, t.elements)))
    yield dataclasses.replace(model, tensors=tuple(tensors))


@pytest.mark.parametrize("path", MODELS, ids=[p.name for p in MODELS])
def test_hostile_options_and_shapes_never_crash(path):
    rng = random.Random(path.name)
    try:
        model = memcore.load(path)
    except memcore.MemcoreError as e:  # control flow and resource variables: refused at load
        assert "subgraphs" in str(e) or "no outputs" in str(e), str(e)
        return
    for mutated in _mutations(model, rng):
        for target in ("host64", "cortex-m", "esp32"):
            for kernels in ("reference", "optimised"):
                try:
                    arena = memcore.tflm_arena(mutated, target=target, kernels=kernels, allow_unknown_ops=True)
                except memcore.MemcoreError:
                    continue
                assert 0 <= arena.head_bytes <= arena.total_bytes
                assert arena.minimum_arena_bytes <= arena.recommended_arena_bytes
