"""Properties that must hold for every input (hypothesis)."""
from hypothesis import given, settings, strategies as st

import memcore

counts = st.integers(min_value=0, max_value=10**12)
widths = st.sampled_from([0.5, 1, 2, 4, 8])


@given(counts, widths, st.integers(0, 10**6), st.integers(0, 10**6), counts, counts)
def test_required_grows_with_batch(params, width, batch, act, runtime, limit):
    a = memcore.budget(params, width, batch, act, runtime, limit)
    b = memcore.budget(params, width, batch + 1, act, runtime, limit)
    assert b.required_bytes >= a.required_bytes
    assert b.required_bytes - a.required_bytes == act


@given(counts, widths, st.integers(0, 10**6), counts, counts, counts)
def test_headroom_is_limit_minus_required_and_dominant_is_largest(params, width, batch, act, runtime, limit):
    b = memcore.budget(params, width, batch, act, runtime, limit)
    assert b.headroom_bytes == limit - b.required_bytes
    assert b.required_bytes == b.parameter_bytes + b.activation_bytes + b.runtime_bytes
    terms = {"parameters": b.parameter_bytes, "activations": b.activation_bytes, "runtime": b.runtime_bytes}
    assert terms[b.dominant] == max(terms.values())
    assert b.fits == (b.headroom_bytes >= 0)


@given(counts, widths, st.integers(1, 10**9), counts, counts)
def test_max_batch_fits_and_one_more_does_not(params, width, act, runtime, limit):
    best = memcore.max_batch(params, width, act, runtime, limit)
    if best is None:
        assert not memcore.budget(params, width, 0, act, runtime, limit).fits
    else:
        assert memcore.budget(params, width, best, act, runtime, limit).fits
        assert not memcore.budget(params, width, best + 1, act, runtime, limit).fits


@given(st.integers(1, 64), st.integers(1, 64), st.integers(1, 8), st.integers(0, 10**4), st.integers(0, 2),
       st.integers(0, 10**7))
def test_mlp_max_batch_fits_and_one_more_does_not(g, h, layers, batch, state, budget):
    best = memcore.mlp_max_batch(g, h, layers, budget_values=budget, optimizer_state_per_parameter=state)
    if best is None:
        assert memcore.mlp_training(g, h, layers, 0, state).total > budget
    else:
        assert memcore.mlp_training(g, h, layers, best, state).total <= budget
        assert memcore.mlp_training(g, h, layers, best + 1, state).total > budget


@given(st.integers(0, 10**12), st.integers(0, 10**9), st.integers(1, 10**12), st.floats(1, 1e4), st.integers(1, 4096))
def test_roofline_crossover_is_the_first_compute_bound_batch(weights, act, ops, balance, batch):
    r = memcore.roofline(weights, act, ops, balance, batch)
    assert (r.intensity < balance) == (r.bound == "memory")
    if r.crossover_batch is not None and r.crossover_batch < 10**7:
        assert memcore.roofline(weights, act, ops, balance, r.crossover_batch).bound == "compute"
        if r.crossover_batch > 1:
            assert memcore.roofline(weights, act, ops, balance, r.crossover_batch - 1).bound == "memory"
    if r.crossover_batch is None:
        assert r.bound == "memory"


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 5000), st.integers(0, 20), st.integers(0, 20)), max_size=40),
       st.sampled_from([1, 4, 16]))
def test_plans_never_overlap_live_buffers_and_respect_the_bound(buffers, alignment):
    sizes = [s for s, _, _ in buffers]
    first = [min(a, b) for _, a, b in buffers]
    last = [max(a, b) for _, a, b in buffers]
    tflm = memcore.plan(sizes, first, last, alignment, "tflm")
    best = memcore.plan(sizes, first, last, alignment, "best")
    for p in (tflm, best):
        assert p.arena_bytes >= p.lower_bound_bytes
        aligned = [-(-s // alignment) * alignment for s in sizes]
        assert p.arena_bytes == max([o + s for o, s in zip(p.offsets, aligned) if s] or [0])
        for i in range(len(sizes)):
            for j in range(i + 1, len(sizes)):
                live_together = not (first[i] > last[j] or first[j] > last[i])
                share_bytes = p.offsets[i] < p.offsets[j] + aligned[j] and p.offsets[j] < p.offsets[i] + aligned[i]
                assert not (aligned[i] and aligned[j] and live_together and share_bytes)
    assert best.arena_bytes <= tflm.arena_bytes


@given(st.integers(1, 10**6), st.integers(0, 64), st.integers(0, 10**4))
def test_more_batch_never_needs_less_memory(features, hidden, batch):
    layers = [memcore.Layer("dense", (features,), (hidden + 1,)), memcore.Layer("activation", (hidden + 1,), (hidden + 1,))]
    for mode in ("inference", "training"):
        a = memcore.network_report(layers, batch, mode)
        b = memcore.network_report(layers, batch + 1, mode)
        assert b.total >= a.total and b.lifetime_total >= a.lifetime_total
