"""Place activation buffers in one arena from their lifetimes (the C planner)."""
from dataclasses import dataclass
from typing import Dict, List, Union

from memcore import _lowlevel as ll
from memcore._memcore import lib

STRATEGIES = {"tflm": lib.MC_PLAN_TFLM, "best": lib.MC_PLAN_BEST}
# The planner's documented limits (memcore.h, docs/planner.md) and best's default budget.
MAX_BUFFERS = lib.MC_PLAN_MAX_BUFFERS
MAX_PAIRS = lib.MC_PLAN_MAX_PAIRS
MAX_STEPS = lib.MC_PLAN_MAX_STEPS
DEFAULT_STEPS = lib.MC_PLAN_DEFAULT_STEPS


@dataclass(frozen=True)
class Plan:
    """offsets: from memcore.plan, one byte offset per buffer (a list in argument
    order); from Model.plan, {tensor index: byte offset} for the planned tensors.
    proven_optimal: no placement of these buffers needs fewer bytes.  steps: the work
    the planner did (memcore.h: a step is one buffer placed, or one placed buffer it is
    checked against)."""
    arena_bytes: int
    offsets: Union[List[int], Dict[int, int]]
    lower_bound_bytes: int
    strategy: str
    proven_optimal: bool
    steps: int


@dataclass(frozen=True)
class LiveBytes:
    """What is live at each step of a set of lifetimes (the C core's mc_live_bytes)."""
    bytes: List[int]          # aligned bytes live at each step
    buffers: List[int]        # buffers (of non-zero size) live at each step
    peak_step: int            # the first step with the most bytes live; -1 with no steps
    peak_bytes: int           # bytes live then: the plan's lower bound


def _uses(first_use, last_use):
    for name, uses in (("first_use", first_use), ("last_use", last_use)):
        for i, u in enumerate(uses):
            if ll.count("%s[%d]" % (name, i), u) > ll.INT32_MAX:
                raise ll.MemcoreError("%s[%d] is past the largest operator index: %d" % (name, i, u))
    for i, (f, l) in enumerate(zip(first_use, last_use)):
        if f > l:
            raise ll.MemcoreError("buffer %d is first used at %d, after its last use at %d" % (i, f, l))


def live_bytes(sizes, first_use, last_use, n_steps=None, alignment=16):
    """Aligned bytes and buffers live at each step 0 .. n_steps - 1 (default: up to the
    last use), and the peak step.  Lifetimes are inclusive, as for `plan`."""
    sizes, first_use, last_use = list(sizes), list(first_use), list(last_use)
    if not len(sizes) == len(first_use) == len(last_use):
        raise ll.MemcoreError("sizes, first_use and last_use must have the same length, got %d, %d, %d"
                              % (len(sizes), len(first_use), len(last_use)))
    sizes = [ll.count("sizes[%d]" % i, s) for i, s in enumerate(sizes)]
    _uses(first_use, last_use)
    if n_steps is None:
        n_steps = max(last_use, default=-1) + 1
    n_steps = ll.count("n_steps", n_steps)
    for i, l in enumerate(last_use):
        if l >= n_steps:
            raise ll.MemcoreError("buffer %d is used at step %d, past the %d steps asked for" % (i, l, n_steps))
    per_step, buffers, raw = ll.live_bytes(sizes, first_use, last_use, ll.count("alignment", alignment, 1), n_steps)
    return LiveBytes(per_step, buffers, raw.peak_step, raw.peak_bytes)


def _plain(values):
    return all(type(v) is int for v in values)


def _check_items(sizes, first_use, last_use):
    """Item by item, so that the error names the first bad one; returns plain ints."""
    sizes = [ll.count("sizes[%d]" % i, s) for i, s in enumerate(sizes)]
    uses = []
    for name, values in (("first_use", first_use), ("last_use", last_use)):
        checked = [ll.count("%s[%d]" % (name, i), u) for i, u in enumerate(values)]
        for i, u in enumerate(checked):
            if u > ll.INT32_MAX:
                raise ll.MemcoreError("%s[%d] is past the largest operator index: %d" % (name, i, u))
        uses.append(checked)
    return sizes, uses[0], uses[1]


def plan(sizes, first_use, last_use, alignment=16, strategy="tflm", budget_steps=None, fixed=None):
    """Offsets for buffers of `sizes` bytes live from first_use to last_use (inclusive
    operator indices) such that buffers live together never overlap.  "tflm" is
    TensorFlow Lite Micro's greedy planner; "best" is memcore's, never worse, spending at
    most `budget_steps` (default DEFAULT_STEPS) beyond the TFLM plan.  `fixed` (one
    offset per buffer, -1 where the planner chooses; "tflm" only) places buffers where an
    offline plan puts them, as TFLM does, the others around them."""
    if strategy not in STRATEGIES:
        raise ll.MemcoreError("strategy must be one of %s, got %r" % (sorted(STRATEGIES), strategy))
    sizes, first_use, last_use = list(sizes), list(first_use), list(last_use)
    if not len(sizes) == len(first_use) == len(last_use):
        raise ll.MemcoreError("sizes, first_use and last_use must have the same length, got %d, %d, %d"
                              % (len(sizes), len(first_use), len(last_use)))
    n = len(sizes)
    if n > MAX_BUFFERS:
        raise ll.MemcoreError("plan: %d buffers is past the planner's limit of %d (MC_PLAN_MAX_BUFFERS)"
                              % (n, MAX_BUFFERS))
    budget = DEFAULT_STEPS if budget_steps is None else ll.count("budget_steps", budget_steps)
    if budget > MAX_STEPS:
        raise ll.MemcoreError("budget_steps is past the planner's limit of %d steps (MC_PLAN_MAX_STEPS): %d"
                              % (MAX_STEPS, budget))
    # Plain ints in range pass in bulk; anything else is looked at item by item.
    if n and not (_plain(sizes) and _plain(first_use) and _plain(last_use) and min(sizes) >= 0
                  and max(sizes) <= ll.INT64_MAX and min(first_use) >= 0 and min(last_use) >= 0
                  and max(first_use) <= ll.INT32_MAX and max(last_use) <= ll.INT32_MAX):
        sizes, first_use, last_use = _check_items(sizes, first_use, last_use)
    for i, (f, l) in enumerate(zip(first_use, last_use)):
        if f > l:
            raise ll.MemcoreError("buffer %d is first used at %d, after its last use at %d" % (i, f, l))
    if fixed is not None:
        fixed = list(fixed)
        if strategy != "tflm" or len(fixed) != n:
            raise ll.MemcoreError("fixed offsets are for strategy 'tflm', one per buffer (%d), got %d for %r"
                                  % (n, len(fixed), strategy))
        for i, at in enumerate(fixed):
            if type(at) is not int or not -1 <= at <= ll.INT64_MAX:
                raise ll.MemcoreError("fixed[%d] must be an offset >= 0 or -1, got %r" % (i, at))
        offsets, raw = ll.plan_fixed(sizes, first_use, last_use, fixed, ll.count("alignment", alignment, 1))
    else:
        offsets, raw = ll.plan(STRATEGIES[strategy], sizes, first_use, last_use,
                               ll.count("alignment", alignment, 1), budget)
    return Plan(raw.arena_bytes, offsets, raw.lower_bound_bytes, strategy, bool(raw.proven_optimal),
                raw.steps)
