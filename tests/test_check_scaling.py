"""The check against the model's size, with the size-scaling generators of
scaling_models.py at counts CI affords (bench/check_scaling.py times them up to 100,000).

What a user checks: the numbers follow from the shapes (16 bytes a planned int8 tensor of
4 or 10 values, aligned as TFLM aligns it), a file with tens of thousands of tensors is
checked instead of refused, and the check's own memory grows by a fixed amount a tensor."""
import math

import pytest

import memcore
import offline_plan
import scaling_models
from memcore import planner
from memcore.check import check
from memcore.profiles import profile
from memcore.tflm import tflm_arena

ESP32 = profile("esp32")


def report(tmp_path, name, data, weights=None):
    path = tmp_path / name
    path.write_bytes(data)
    return check(memcore.load(str(path)), ESP32, suggest=False, weights_placement=weights).to_json()


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
    # the check's own memory: the planners never see such a buffer (it is stacked apart),
    # so a tensor costs its record and shape while the graph is read (24 B and a byte a
    # dimension), the lifetimes' slot (4 B) and its size and lifetimes (20 B): at most
    # 52 B a tensor, against the 84 B it cost as one of the planners' buffers
    assert mnist["check_scratch_bytes"] < r["check_scratch_bytes"] <= mnist["check_scratch_bytes"] + 52 * n


# The check keeps the tensors no operator touches from its planners and stacks them
# apart; memcore.tflm_arena and planner.plan give every buffer to the planners.  Both
# must agree, with sizes that are not multiples of TFLM's 16-byte alignment, and with a
# file's offline plan that places none of them (all -1) or one (then the check plans
# them all together, as before).
UNTOUCHED_SHAPES = [[(1, 4)], [(3, 7), (1, 1), (40, 40), (5,)], [(1, 1)] * 50, [(9, 9, 9), (1, 2), (17,)] * 20,
                    [(1000,), (1,), (999,)]]


@pytest.mark.parametrize("shapes", UNTOUCHED_SHAPES, ids=lambda s: "%d-tensors" % len(s))
@pytest.mark.parametrize("plan", ["none", "all -1", "one placed"])
def test_untouched_tensors_set_apart_give_the_arenas_of_all_buffers_planned_together(tmp_path, shapes, plan):
    data = scaling_models.untouched_tensors(shapes)
    count = offline_plan.tensor_count(data)
    if plan != "none":
        # the last tensor is untouched; "one placed" puts it past mnist's whole head
        offsets = [-1] * count
        if plan == "one placed":
            offsets[-1] = 1 << 16
        data = offline_plan.with_plan(data, offsets)
    r = report(tmp_path, "untouched.tflite", data)
    model = memcore.load(str(tmp_path / "untouched.tflite"))
    arena = tflm_arena(model, target=ESP32.target, kernels="optimised")
    assert r["arena_tflm_bytes"] == arena.head_bytes
    sizes = [b[0] for b in arena.buffers]
    first = [b[1] for b in arena.buffers]
    last = [b[2] for b in arena.buffers]
    best = planner.plan(sizes, first, last, strategy="best", fixed=None)
    assert r["arena_best_bytes"] == best.arena_bytes and r["best_is_optimal"] == best.proven_optimal
    assert r["arena_lower_bound_bytes"] == best.lower_bound_bytes
    if plan == "one placed":  # the placed tensor ends the head: int8, its size aligned up to 16
        assert r["arena_tflm_bytes"] == (1 << 16) + -(-math.prod(shapes[-1]) // 16) * 16


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


# What the board's check takes a unit of each generator, against what TFLM's recommended
# arena grows by (esp32 profile; the host's 64-bit figure, which a 32-bit board's is at
# most): a board that can run the model can check it.  A constant's shape is held a byte
# a dimension when its dims are below 256, so rank 8 costs what rank 2 does (it was
# 4 B a dimension: 60 B against 36 B at rank 8), and a tensor no operator touches 52 B
# against 76 B (it cost 84 B while the planners placed it with the others).  Pinned where
# the check costs more than TFLM's arena: an operand list's entry is 4 B in a file read a
# window at a time (TFLM reads the list in place in the file: a PACK's output grows a
# byte an entry, intermediates nothing; mapped, the check reads it in place too, below).
GROWTH = {"relu chain": (scaling_models.relu_chain, None), "relu fan-out": (scaling_models.fan_out, None),
          "constant tensors": (scaling_models.constant_tensors, None),
          "rank-4 constants": (lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 4)), None),
          "rank-6 constants": (lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 1, 2, 2)), None),
          "rank-8 constants": (lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 1, 1, 1, 2, 2)), None),
          "dense chain": (scaling_models.dense_chain, None),
          "unused tensors": (scaling_models.unused_tensors, None),
          "packed copies": (scaling_models.packed_copies, (4, 1)),
          "intermediates": (scaling_models.intermediates, (4, 0))}


@pytest.mark.parametrize("shape", sorted(GROWTH))
def test_the_check_grows_no_faster_than_tflms_arena_but_where_pinned(tmp_path, shape):
    make, pinned = GROWTH[shape]
    small, large = (report(tmp_path, "%d.tflite" % n, make(n)) for n in (1000, 2000))
    check_bytes = (large["check_scratch_bytes"] - small["check_scratch_bytes"]) / 1000
    arena_bytes = (large["recommended_arena_bytes"] - small["recommended_arena_bytes"]) / 1000
    if pinned is None:
        assert check_bytes <= arena_bytes
    else:
        assert (check_bytes, round(arena_bytes)) == pinned
    # Loaded, as MicroPython on the esp32 loads it, the whole file is in RAM: what the
    # model requires grows at least as fast as its check, pinned or not, and stays above it.
    assert large["loaded_model_bytes"] == len(make(2000))
    assert check_bytes <= (large["required_bytes"] - small["required_bytes"]) / 1000
    for r in (small, large):
        assert r["check_scratch_bytes"] < r["required_bytes"]


@pytest.mark.parametrize("shape", sorted(GROWTH))
def test_with_the_weights_in_flash_the_check_grows_no_faster_than_tflms_arena(tmp_path, shape):
    # The file stays in flash, mapped, and only the arena is in RAM: the check reads the
    # operand lists and shapes in place there, as TFLM does (a PACK's copy or an
    # intermediate costs it nothing), so every unit of every generator costs the check
    # at most what it costs TFLM's arena, and the check needs at most the larger of
    # what the model requires and its own few fixed KB.
    make, _ = GROWTH[shape]
    small, large = (report(tmp_path, "%d.tflite" % n, make(n), weights="flash") for n in (1000, 2000))
    assert large["loaded_model_bytes"] == 0
    assert large["check_scratch_bytes"] - small["check_scratch_bytes"] <= \
        large["recommended_arena_bytes"] - small["recommended_arena_bytes"]
    for r in (small, large):
        assert r["check_scratch_bytes"] <= max(r["required_bytes"], 4096)
