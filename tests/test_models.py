"""SPEC 7 on real models: the eight shared .tflite files against TFLM's measured arena."""
import json
import pathlib

import pytest

import memcore

MODELS = pathlib.Path(__file__).resolve().parent / "models"
GROUND_TRUTH = json.loads((MODELS / "ground_truth.json").read_text())
NAMES = [g["file"] for g in GROUND_TRUTH]
BY_NAME = {g["file"]: g for g in GROUND_TRUTH}


@pytest.fixture(scope="module", params=NAMES)
def case(request):
    return memcore.load(MODELS / request.param), BY_NAME[request.param]


def test_sizes_and_counts_match_ground_truth(case):
    model, truth = case
    assert model.format == "tflite"
    assert model.parameter_count == truth["params"]
    assert model.weight_bytes == truth["weight_bytes"]
    assert model.macs == truth["total_macs"]
    assert len(model.tensors) == truth["n_tensors"]
    assert sum(t.is_constant for t in model.tensors) == truth["n_const_tensors"]
    assert model.activation_bytes == truth["activation_tensor_bytes_sum"]
    assert list(model.inputs) == truth["graph_inputs"]
    assert list(model.outputs) == truth["graph_outputs"]
    histogram = {}
    for op in model.operators:
        histogram[op.kind] = histogram.get(op.kind, 0) + 1
    assert histogram == truth["op_histogram"]
    assert [op.macs for op in model.operators] == [op["macs"] for op in truth["ops"]]


def test_tflm_plan_equals_tflm_head(case):
    model, truth = case
    plan = model.plan("tflm")
    assert plan.strategy == "tflm"
    assert plan.arena_bytes == truth["tflm"]["head"]
    assert set(plan.offsets) == set(model.planned_tensors)


def test_best_plan_never_worse_and_never_below_the_bound(case):
    model, _ = case
    tflm, best = model.plan("tflm"), model.plan("best")
    assert best.lower_bound_bytes <= best.arena_bytes <= tflm.arena_bytes
    assert best.lower_bound_bytes == tflm.lower_bound_bytes


def test_plans_never_overlap_live_tensors(case):
    model, _ = case
    lifetimes = model.lifetimes()
    for strategy in ("tflm", "best"):
        plan = model.plan(strategy)
        placed = [(plan.offsets[i], plan.offsets[i] + model.tensors[i].bytes, *lifetimes[i])
                  for i in plan.offsets]
        for a in range(len(placed)):
            for b in range(a + 1, len(placed)):
                s1, e1, f1, l1 = placed[a]
                s2, e2, f2, l2 = placed[b]
                if f1 <= l2 and f2 <= l1:
                    assert e1 <= s2 or e2 <= s1
                assert max(e1, e2) <= plan.arena_bytes


def test_tflm_arena_reproduces_head_tail_and_categories(case):
    model, truth = case
    arena = memcore.tflm_arena(model, pointer_bytes=8)
    t = truth["tflm"]
    assert arena.head_bytes == t["head"]
    assert arena.tail_bytes == t["tail"]
    assert abs(arena.total_bytes - t["total"]) <= 0.02 * t["total"]
    assert arena.total_bytes == t["total"]
    assert arena.categories == {k: (v["used_bytes"], v["requested_bytes"], v["count"])
                                for k, v in t["categories"].items()}
    assert not arena.upper_bound


def test_recommended_arena_is_enough_and_tight(case):
    model, truth = case
    minimum = truth["tflm"]["min_arena_size_bisect"]
    recommended = memcore.tflm_arena(model).recommended_arena_bytes
    assert recommended >= minimum
    assert recommended - minimum <= max(256, 0.05 * minimum)


def test_32_bit_target_needs_less_tail(case):
    model, _ = case
    wide, narrow = memcore.tflm_arena(model, target="host64"), memcore.tflm_arena(model, target="esp32")
    assert narrow.head_bytes == wide.head_bytes
    assert 0 < narrow.tail_bytes < wide.tail_bytes
    assert narrow.measured and wide.measured  # esp32: on an Xtensa build (docs/tflm-arena.md)


def test_pointer_width_must_be_4_or_8():
    model = memcore.load(MODELS / "tiny_mlp_int8.tflite")
    with pytest.raises(memcore.MemcoreError, match="pointer_bytes"):
        memcore.tflm_arena(model, pointer_bytes=2)


def test_lifetimes_follow_tflm_scopes():
    model = memcore.load(MODELS / "tiny_mlp_int8.tflite")
    # input 0 -> FC -> 5 -> FC -> 6 -> LOGISTIC -> 7 (output)
    assert model.lifetimes() == {0: (0, 1), 5: (1, 2), 6: (2, 3), 7: (3, 3)}


def test_conv_attributes_follow_tflite_layouts():
    model = memcore.load(MODELS / "kws_dscnn_int8.tflite")
    conv = model.operators[0]
    assert conv.kind == "CONV_2D"
    assert conv.attributes["output_channels"] == 64
    assert conv.attributes["kernel_hw"] == (10, 4)
    assert conv.attributes["stride_hw"] == (2, 2)
    pool = [op for op in model.operators if op.kind == "AVERAGE_POOL_2D"][0]
    assert pool.attributes["kernel_hw"] == (24, 5)
    assert pool.other_ops == 64 * 24 * 5  # one add per window element, per output
