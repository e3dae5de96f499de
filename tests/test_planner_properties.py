"""Properties of the arena planner on random lifetimes (hypothesis)."""
from hypothesis import given, settings
from hypothesis import strategies as st

import memcore


@st.composite
def buffers(draw):
    n = draw(st.integers(min_value=0, max_value=40))
    sizes, first, last = [], [], []
    for _ in range(n):
        sizes.append(draw(st.integers(min_value=0, max_value=5000)))
        start = draw(st.integers(min_value=0, max_value=30))
        first.append(start)
        last.append(start + draw(st.integers(min_value=0, max_value=10)))
    return sizes, first, last


def _aligned(size, alignment=16):
    return -(-size // alignment) * alignment


def _no_live_overlap(sizes, first, last, plan):
    for a in range(len(sizes)):
        for b in range(a + 1, len(sizes)):
            if sizes[a] == 0 or sizes[b] == 0:
                continue
            if first[a] <= last[b] and first[b] <= last[a]:
                a0, b0 = plan.offsets[a], plan.offsets[b]
                assert a0 + _aligned(sizes[a]) <= b0 or b0 + _aligned(sizes[b]) <= a0
    for size, offset in zip(sizes, plan.offsets):
        assert offset % 16 == 0
        assert size == 0 or offset + _aligned(size) <= plan.arena_bytes


@settings(max_examples=300, deadline=None)
@given(buffers())
def test_plans_never_overlap_live_buffers(case):
    sizes, first, last = case
    for strategy in ("tflm", "best"):
        _no_live_overlap(sizes, first, last, memcore.plan(sizes, first, last, strategy=strategy))


@settings(max_examples=300, deadline=None)
@given(buffers())
def test_arena_is_never_below_the_lower_bound_and_best_never_worse(case):
    sizes, first, last = case
    tflm = memcore.plan(sizes, first, last, strategy="tflm")
    best = memcore.plan(sizes, first, last, strategy="best")
    assert tflm.lower_bound_bytes == best.lower_bound_bytes
    assert best.lower_bound_bytes <= best.arena_bytes <= tflm.arena_bytes
    # the bound is the most aligned bytes live at one time
    peak = max([sum(_aligned(s) for s, f, l in zip(sizes, first, last) if f <= t <= l)
                for t in range(0, 42)] or [0])
    assert tflm.lower_bound_bytes == peak


@settings(max_examples=100, deadline=None)
@given(buffers(), st.integers(min_value=1, max_value=30))
def test_longer_lifetimes_never_lower_the_bound(case, extra):
    sizes, first, last = case
    before = memcore.plan(sizes, first, last).lower_bound_bytes
    after = memcore.plan(sizes, first, [l + extra for l in last]).lower_bound_bytes
    assert after >= before
