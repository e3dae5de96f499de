"""The check against the model's size, with the size-scaling generators of
scaling_models.py at counts CI affords (bench/check_scaling.py times them up to 100,000).

What a user checks: the numbers follow from the shapes (16 bytes a planned int8 tensor of
4 or 10 values, aligned as TFLM aligns it), a file with tens of thousands of tensors is
checked instead of refused, and the check's own memory grows by a fixed amount a tensor."""
import pytest

import memcore
import scaling_models
from memcore.check import check
from memcore.profiles import profile

ESP32 = profile("esp32")


def report(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return check(memcore.load(str(path)), ESP32, suggest=False).to_json()


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    return report(tmp_path_factory.mktemp("base"), "mnist.tflite", scaling_models.unused_tensors(0))


@pytest.mark.parametrize("n", [1, 100, 423, 5000, 25000])
def test_unused_tensors_are_planned_together_before_the_first_operator(tmp_path, mnist, n):
    # TFLM plans a tensor no operator touches at scope -1, all of them at once and apart
    # from every other tensor: the head is the larger of mnist's and n x 16 bytes.  25,000
    # of them are 312 million pairs of buffers live together, past the 200 million the
    # planner once refused (each pair was a step: 40 s for 20,000).
    r = report(tmp_path, "mnist-plus-%d.tflite" % n, scaling_models.unused_tensors(n))
    assert r["tensors"] == mnist["tensors"] + n and r["buffers"] == mnist["buffers"] + n
    assert r["arena_tflm_bytes"] == max(mnist["arena_tflm_bytes"], 16 * n)
    assert r["arena_best_bytes"] == r["arena_tflm_bytes"]
    # the check's own memory: the tensor (72 B), its buffer's lifetimes, size and two
    # offsets (36 B: TFLM's plan is made around an offline plan's offsets, held in the
    # other) and the planner's 64 B, so at most 178 B a tensor, plus fixed parts
    # (the planner's state is 384 B, docs/planner.md; 2,208 B allowed)
    assert mnist["check_scratch_bytes"] < r["check_scratch_bytes"] <= mnist["check_scratch_bytes"] + 178 * n + 2208


@pytest.mark.parametrize("n", [1, 10, 300, 3000])
def test_a_chain_of_relus_keeps_two_tensors_alive(tmp_path, n):
    # each RELU reads the one before: two 10-byte tensors (16 aligned) at a time
    r = report(tmp_path, "chain-%d.tflite" % n, scaling_models.relu_chain(n))
    assert r["operators"] == 3 + n
    assert r["arena_tflm_bytes"] == r["arena_lower_bound_bytes"] == 32


@pytest.mark.parametrize("n", [2, 50, 1000, 25000])
def test_relus_that_are_all_graph_outputs_stay_alive_to_the_end(tmp_path, n):
    # n outputs live from their operator to the end, with the tensor they all read;
    # 25,000 are 312 million pairs live together, refused before
    r = report(tmp_path, "fan-%d.tflite" % n, scaling_models.fan_out(n))
    assert r["arena_tflm_bytes"] == r["arena_lower_bound_bytes"] == 16 * (n + 1)
