"""memcore in pure Python, for boards whose firmware lacks the `memcore` C module.

The device-side API of the C module (and of the host package) — budget, max_batch,
latency, roofline, plan, version — with the same argument names, result fields and
errors.  It is the one piece of Python allowed to re-implement the core's arithmetic, so
it mirrors csrc/ step by step (same operation order on doubles, same overflow checks,
TFLM's tie-breaking, the best planner's orderings) and is tested against the C core on
every shared vector and on random cases.  Runs on MicroPython and CPython; slower than
the C module, and on a single-precision board its floats are single precision.

Device scripts use it only when the C module is missing:

    try:
        import memcore
    except ImportError:
        import memcore_fallback as memcore
"""

from collections import namedtuple

IMPLEMENTATION = "fallback"

# Kept in step with csrc/include/memcore.h (tests check it).
VERSION = "0.1.0"
API_VERSION = 7

INT64_MAX = 9223372036854775807
INT32_MAX = 2147483647
UNBOUNDED = INT64_MAX

_INF = float("inf")

# mc_strerror's texts.
_NEGATIVE = "a count or size is negative"
_RANGE = "a value is outside its allowed range"
_NOT_FINITE = "a number is NaN or infinite"
_OVERFLOW = "a size does not fit in 64 bits"
_LIFETIME = "a buffer's first use is negative or after its last use"


# Results are named tuples: fields by attribute, like the C module's attribute tuples.
Budget = namedtuple("Budget", ("required_bytes", "headroom_bytes", "parameter_bytes", "activation_bytes",
                                 "runtime_bytes", "dominant", "fits", "max_batch"))
Latency = namedtuple("Latency", ("fetch_seconds", "compute_seconds", "setup_seconds", "total_seconds",
                                   "dominant", "saving_if_compute_doubled", "saving_if_bandwidth_doubled",
                                   "saving_seconds_if_compute_doubled", "saving_seconds_if_bandwidth_doubled"))
Roofline = namedtuple("Roofline", ("intensity", "bound", "crossover_batch", "ceiling"))
Plan = namedtuple("Plan", ("arena_bytes", "offsets", "lower_bound_bytes", "strategy", "proven_optimal",
                           "steps"))


# ---- arguments in --------------------------------------------------------------------

def _fail(name, text):
    raise ValueError("%s: %s" % (name, text))


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _count_status(value, maximum=INT64_MAX):
    """None when value is a count in [0, maximum], else the error text (int only)."""
    if value < 0:
        return _NEGATIVE
    if value > INT64_MAX:
        return _OVERFLOW
    if value > maximum:
        return _RANGE
    return None


def _count(name, value):
    if not _is_int(value):
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
    problem = _count_status(value)
    if problem:
        _fail(name, problem)
    return value


def _real(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    return float(value)


def _rate(name, value, positive):
    v = _real(name, value)
    if v != v or v == _INF or v == -_INF:
        _fail(name, _NOT_FINITE)
    if v < 0.0:
        _fail(name, _RANGE if positive else _NEGATIVE)
    if positive and v == 0.0:
        _fail(name, _RANGE)
    return v


def _bits(name, value):
    if _is_int(value):
        problem = _count_status(value, 8)
        if problem is None and value == 0:
            problem = _RANGE
        if problem:
            _fail(name, _RANGE if problem == _OVERFLOW else problem)
        return value * 8
    bits = _real(name, value) * 8.0
    if not (1.0 <= bits <= 64.0) or bits != float(int(bits)):
        _fail(name, _NEGATIVE if bits < 0.0 else _RANGE)
    return int(bits)


def _checked(function, value):
    """The core's overflow check on a non-negative size (mc_checked_add / mc_checked_mul)."""
    if value > INT64_MAX:
        _fail(function, _OVERFLOW)
    return value


# ---- budget (csrc/src/budget.c) ------------------------------------------------------

def _budget(function, parameters, bits, batch, act, runtime, limit):
    # mc_bits_to_bytes: ceil(parameters * bits / 8), exact in Python's ints.
    parameter_bytes = _checked(function, (parameters * bits + 7) // 8)
    activation_bytes = _checked(function, batch * act)
    fixed = _checked(function, parameter_bytes + runtime)
    required = _checked(function, fixed + activation_bytes)
    headroom = limit - required
    dominant = "parameters"
    if activation_bytes > parameter_bytes:
        dominant = "activations"
    if runtime > (parameter_bytes if dominant == "parameters" else activation_bytes):
        dominant = "runtime"
    if fixed > limit:
        largest = None
    elif act == 0:
        largest = UNBOUNDED
    else:
        largest = (limit - fixed) // act
    return Budget(required, headroom, parameter_bytes, activation_bytes, runtime, dominant,
                   headroom >= 0, largest)


def budget(parameters, bytes_per_parameter, batch, activation_bytes_per_example, runtime_bytes, limit_bytes):
    """required = parameters x bytes_per_parameter + batch x activation_bytes_per_example
    + runtime_bytes, against limit_bytes (docs/formulas.md)."""
    return _budget("budget", _count("parameters", parameters), _bits("bytes_per_parameter", bytes_per_parameter),
                   _count("batch", batch), _count("activation_bytes_per_example", activation_bytes_per_example),
                   _count("runtime_bytes", runtime_bytes), _count("limit_bytes", limit_bytes))


def max_batch(parameters, bytes_per_parameter, activation_bytes_per_example, runtime_bytes, limit_bytes):
    """The largest batch that fits limit_bytes; None when the fixed part alone does not."""
    return _budget("max_batch", _count("parameters", parameters), _bits("bytes_per_parameter", bytes_per_parameter),
                   0, _count("activation_bytes_per_example", activation_bytes_per_example),
                   _count("runtime_bytes", runtime_bytes), _count("limit_bytes", limit_bytes)).max_batch


# ---- training memory (csrc/src/training.c) -----------------------------------------------

MlpTraining = namedtuple("MlpTraining", ("parameters", "gradients", "optimizer_state", "activations", "total",
                                         "total_bytes", "activation_share"))


def _mlp_shape(function, g, h, layers):
    """(parameters, values kept per example): g.h + h + (L-1)(h.h + h) + h + 1, and
    2 (g + L.h + 1), each step checked as the C core checks it."""
    for name, value in (("inputs", g), ("hidden", h), ("layers", layers)):
        if value == 0:
            _fail(name, _RANGE)
    gh = _checked(function, g * h)
    hidden_block = _checked(function, _checked(function, h * h) + h)
    deep = _checked(function, (layers - 1) * hidden_block)
    parameters = _checked(function, _checked(function, _checked(function, gh + h) + deep) + h + 1)
    per = _checked(function, 2 * _checked(function, g + _checked(function, layers * h) + 1))
    return parameters, per


def mlp_training(inputs, hidden, layers, batch, optimizer_state_per_parameter=0, bytes_per_value=4):
    """Training values for g inputs, L hidden layers of width h and one output (docs/formulas.md)."""
    g, h, n = _count("inputs", inputs), _count("hidden", hidden), _count("layers", layers)
    batch, state = _count("batch", batch), _count("optimizer_state_per_parameter", optimizer_state_per_parameter)
    bits = _bits("bytes_per_value", bytes_per_value)
    parameters, per = _mlp_shape("mlp_training", g, h, n)
    optimizer = _checked("mlp_training", parameters * state)
    fixed = _checked("mlp_training", 2 * parameters + optimizer)
    activations = _checked("mlp_training", batch * per)
    total = _checked("mlp_training", fixed + activations)
    total_bytes = _checked("mlp_training", (total * bits + 7) // 8)
    share = activations / total if total > 0 else 0.0
    return MlpTraining(parameters, parameters, optimizer, activations, total, total_bytes, share)


def mlp_max_batch(inputs, hidden, layers, budget_values=None, optimizer_state_per_parameter=0, budget_bytes=None,
                  bytes_per_value=4):
    """Largest batch under a budget of values (or bytes, given bytes_per_value); None when
    not even batch 0 fits."""
    if (budget_values is None) == (budget_bytes is None):
        raise ValueError("give exactly one of budget_values and budget_bytes")
    g, h, n = _count("inputs", inputs), _count("hidden", hidden), _count("layers", layers)
    state = _count("optimizer_state_per_parameter", optimizer_state_per_parameter)
    if budget_values is not None:
        values = _count("budget_values", budget_values)
    else:
        budget = _count("budget_bytes", budget_bytes)
        values = budget * 8 // _bits("bytes_per_value", bytes_per_value)  # whole values only
    parameters, per = _mlp_shape("mlp_max_batch", g, h, n)
    fixed = _checked("mlp_max_batch", 2 * parameters + _checked("mlp_max_batch", parameters * state))
    return None if fixed > values else (values - fixed) // per


# ---- latency (csrc/src/latency.c) ----------------------------------------------------

def latency(bytes_moved, operations, bandwidth_bytes_per_second, operations_per_second, overhead_seconds=0.0):
    """fetch + compute + setup, in seconds, and what doubling each rate saves (docs/formulas.md)."""
    bytes_moved = _count("bytes_moved", bytes_moved)
    operations = _count("operations", operations)
    bandwidth = _rate("bandwidth_bytes_per_second", bandwidth_bytes_per_second, True)
    rate = _rate("operations_per_second", operations_per_second, True)
    setup = _rate("overhead_seconds", overhead_seconds, False)
    fetch = float(bytes_moved) / bandwidth
    compute = float(operations) / rate
    total = fetch + compute + setup
    dominant, largest = "fetch", fetch
    if compute > largest:
        dominant, largest = "compute", compute
    if setup > largest:
        dominant = "setup"
    save_compute = compute / 2.0
    save_bandwidth = fetch / 2.0
    if total > 0.0:
        frac_compute, frac_bandwidth = save_compute / total, save_bandwidth / total
    else:
        frac_compute, frac_bandwidth = 0.0, 0.0
    return Latency(fetch, compute, setup, total, dominant, frac_compute, frac_bandwidth,
                    save_compute, save_bandwidth)


# ---- roofline (csrc/src/roofline.c) --------------------------------------------------

def _intensity(weight_bytes, act, ops, batch):
    fetched = float(weight_bytes) + float(act) * float(batch)
    work = float(ops) * float(batch)
    if fetched <= 0.0:
        return _INF if work > 0.0 else 0.0
    return work / fetched


def roofline(weight_bytes, activation_bytes_per_example, operations_per_example, machine_ops_per_byte, batch=1):
    """Operations per byte at `batch`, the regime, the first compute-bound batch and the
    ceiling no batch passes (docs/formulas.md)."""
    w = _count("weight_bytes", weight_bytes)
    a = _count("activation_bytes_per_example", activation_bytes_per_example)
    o = _count("operations_per_example", operations_per_example)
    balance = _rate("machine_ops_per_byte", machine_ops_per_byte, True)
    batch = _count("batch", batch)
    if batch == 0:
        _fail("batch", _RANGE)
    intensity = _intensity(w, a, o, batch)
    if a > 0:
        ceiling = float(o) / float(a)
    else:
        ceiling = _INF if o > 0 else 0.0
    # One crossover batch decides the regime at every batch, as in the C core.
    crossover = None
    # With weights to fetch, intensity stays below the ceiling it approaches.
    if not (w > 0 and ceiling <= balance) and _intensity(w, a, o, INT64_MAX) >= balance:
        lo, hi = 0, INT64_MAX
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            if _intensity(w, a, o, mid) >= balance:
                hi = mid
            else:
                lo = mid
        crossover = hi
    bound = "compute" if crossover is not None and batch >= crossover else "memory"
    return Roofline(intensity, bound, crossover, ceiling)


# ---- plan (csrc/src/plan.c) ----------------------------------------------------------
#
# The same plans by simpler means: the C core lists the placed buffers live at the same
# time through an interval tree, this looks at every placed buffer; the offsets, the
# orders, the exact search's nodes and the step counts are the core's.  MicroPython's
# sort is not stable, so every sort key ends in what the core's stable sort keeps.

MAX_BUFFERS = 1000000  # MC_PLAN_MAX_BUFFERS, MC_PLAN_MAX_PAIRS, MC_PLAN_MAX_STEPS (tests check)
MAX_PAIRS = 200000000
MAX_STEPS = 1000000000
DEFAULT_STEPS = 1000000  # MC_PLAN_DEFAULT_STEPS
_LIMIT = "past the documented limits of the work (buffers, pairs live together or steps)"


def _offset_for(size, fb, lb, placed, first, last, aligned, place, best_fit):
    """First fit (lowest free offset) or best fit among the placed buffers live with b."""
    spans = [(place[j], place[j] + aligned[j]) for j in placed if first[j] <= lb and fb <= last[j]]
    spans.sort()
    at, best_at, best_gap = 0, -1, INT64_MAX
    for start, end in spans:
        if start - at >= size:
            if not best_fit:
                return at
            if start - at < best_gap:
                best_gap, best_at = start - at, at
        if end > at:
            at = end
    return best_at if best_at >= 0 else at


def _greedy(order, first, last, aligned, place, best_fit):
    placed = []
    arena = 0
    for b in order:
        at = _offset_for(aligned[b], first[b], last[b], placed, first, last, aligned, place, best_fit)
        place[b] = at
        placed.append(b)
        if at + aligned[b] > arena:
            arena = at + aligned[b]
    return arena


def _bound_and_pairs(by_first, by_last, first, last, aligned):
    live = peak = count = pairs = 0
    j = 0
    m = len(by_first)
    for b in by_first:
        while j < m and last[by_last[j]] < first[b]:
            live -= aligned[by_last[j]]
            count -= 1
            j += 1
        pairs += count
        live += aligned[b]
        count += 1
        if live > peak:
            peak = live
    return peak, pairs


def _breadth_order(ids, by_first, first, last, aligned):
    """Greedy by breadth: each buffer goes with the operator of most bytes live in its
    lifetime (the earliest on ties); by that, then in TFLM's order (largest first, then
    higher id)."""
    times = []
    for b in by_first:
        if not times or times[-1] != first[b]:
            times.append(first[b])
    breadth = [0] * len(times)
    for b in ids:
        for k in range(len(times)):
            if first[b] <= times[k] <= last[b]:
                breadth[k] += aligned[b]
    keys = {}
    for b in ids:
        best = -1
        at = 0
        for k in range(len(times)):
            if first[b] <= times[k] <= last[b] and breadth[k] > best:
                best, at = breadth[k], k
        keys[b] = (-best, at, -aligned[b], -b)
    return sorted(ids, key=lambda b: keys[b])


def _list(name, values):
    if not isinstance(values, (list, tuple)):
        raise TypeError("%s must be a list or tuple, not %s" % (name, type(values).__name__))
    return values


def plan(sizes, first_use, last_use, alignment=16, strategy="tflm", budget_steps=DEFAULT_STEPS):
    """Offsets for buffers of `sizes` bytes live from first_use to last_use (inclusive
    operator indices) so that buffers live together never overlap: "tflm" is TensorFlow
    Lite Micro's greedy planner, "best" memcore's, never worse, within budget_steps of
    work beyond the TFLM plan (docs/formulas.md)."""
    if not isinstance(strategy, str):
        raise TypeError("strategy must be a string, not %s" % type(strategy).__name__)
    if strategy not in ("tflm", "best"):
        raise ValueError("strategy must be 'tflm' or 'best', not '%s'" % strategy)
    sizes, first_use, last_use = _list("sizes", sizes), _list("first_use", first_use), _list("last_use", last_use)
    n = len(sizes)
    if len(first_use) != n or len(last_use) != n:
        raise ValueError("sizes, first_use and last_use must have the same length, not %d, %d, %d"
                         % (n, len(first_use), len(last_use)))
    alignment = _count("alignment", alignment)
    budget = _count("budget_steps", budget_steps)
    if alignment == 0:
        _fail("alignment", _RANGE)
    if budget > MAX_STEPS or n > MAX_BUFFERS:
        _fail("plan", _LIMIT)
    raw, first, last = [], [], []
    for i in range(n):
        for name, values, maximum, out in (("sizes", sizes, INT64_MAX, raw), ("first_use", first_use, INT32_MAX, first),
                                           ("last_use", last_use, INT32_MAX, last)):
            v = values[i]
            if not _is_int(v):
                raise TypeError("%s[%d] must be an integer, not %s" % (name, i, type(v).__name__))
            problem = _count_status(v, maximum)
            if problem:
                _fail("%s[%d]" % (name, i), problem)
            out.append(v)
    # validate(): lifetimes, then the aligned sizes and their sum within 64 bits.
    aligned = []
    total = 0
    for i in range(n):
        if last[i] < first[i]:
            _fail("plan", _LIFETIME)
        s = raw[i]
        rem = s % alignment
        a = s if rem == 0 else s + (alignment - rem)
        if a > INT64_MAX:
            _fail("plan", _OVERFLOW)
        total = _checked("plan", total + a)
        aligned.append(a)
    if n == 0:
        return Plan(0, [], 0, strategy, True, 0)

    ids = [b for b in range(n) if aligned[b] > 0]
    by_first = sorted(ids, key=lambda b: (first[b], b))
    by_last = sorted(ids, key=lambda b: (last[b], b))
    lower, pairs = _bound_and_pairs(by_first, by_last, first, last, aligned)
    if pairs > MAX_PAIRS:
        _fail("plan", _LIMIT)
    pass_steps = n + pairs
    offsets = [0] * n
    place = [0] * n
    order = sorted(ids, key=lambda b: (-aligned[b], -b))  # TFLM: largest first, ties highest id
    arena = _greedy(order, first, last, aligned, place, False)
    for b in ids:
        offsets[b] = place[b]
    steps = pass_steps
    proven = False
    if strategy == "best":
        used = 0
        for which in range(3):  # by breadth, first fit then best fit; by first use, first fit
            if arena <= lower or budget - used < pass_steps:
                break
            used += pass_steps
            if which == 0:
                order = _breadth_order(ids, by_first, first, last, aligned)
            elif which == 2:
                order = by_first
            found = _greedy(order, first, last, aligned, place, which == 1)
            if found < arena:
                arena = found
                for b in ids:
                    offsets[b] = place[b]
        if arena > lower:
            # Its own module: compiling it with the rest needs ~30 KB more heap at import
            # than a 110 KiB MicroPython heap has; it is read only when a plan needs it.
            from memcore_exact import exact_search
            spent, arena, proven = exact_search(ids, n, first, last, aligned, alignment, lower, budget - used,
                                                 arena, offsets)
            used += spent
        steps += used
    return Plan(arena, offsets, lower, strategy, proven or arena == lower, steps)


def version():
    """(memcore version string, API version number) this fallback mirrors."""
    return VERSION, API_VERSION
