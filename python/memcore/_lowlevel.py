"""The checked layer over the cffi extension: one wrapper per C function.

Each wrapper validates its arguments by name (so the error names the argument, not
a C status), allocates the out-structs, calls the C core once and turns a non-OK
status into MemcoreError with mc_strerror's text.  Results are returned as the
cffi structs; the public modules turn them into plain Python values.
"""
import math
import numbers

from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


def _check(rc, call):
    if rc != lib.MC_OK:
        raise MemcoreError("%s: %s" % (call, ffi.string(lib.mc_strerror(rc)).decode()))


def _describe(name, args):
    return "%s(%s)" % (name, ", ".join("%s=%r" % kv for kv in args.items()))


def count(name, value, minimum=0):
    """A non-negative integer count or size that fits in int64."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise MemcoreError("%s must be an integer, got %r" % (name, value))
    value = int(value)
    if value < minimum:
        if minimum == 0:
            raise MemcoreError("%s must not be negative, got %d" % (name, value))
        raise MemcoreError("%s must be at least %d, got %d" % (name, minimum, value))
    if value > INT64_MAX:
        raise MemcoreError("%s does not fit in 64 bits: %d" % (name, value))
    return value


def rate(name, value, allow_zero=False):
    """A finite positive (or non-negative) real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MemcoreError("%s must be a number, got %r" % (name, value))
    value = float(value)
    if not math.isfinite(value):
        raise MemcoreError("%s must be finite, got %r" % (name, value))
    if value < 0 or (value == 0 and not allow_zero):
        raise MemcoreError("%s must be %s, got %r" % (name, "non-negative" if allow_zero else "positive", value))
    return value


def bits(name, bytes_per_value):
    """Storage width in bits from bytes per value: 4, 2, 1, 0.5 (int4) ..."""
    if isinstance(bytes_per_value, bool) or not isinstance(bytes_per_value, numbers.Real):
        raise MemcoreError("%s must be a number of bytes, got %r" % (name, bytes_per_value))
    width = float(bytes_per_value) * 8
    if not math.isfinite(width) or width != int(width) or not 1 <= width <= 64:
        raise MemcoreError(
            "%s must be a whole number of bits between 1 and 64 bits (e.g. 4, 2, 1, 0.5), got %r"
            % (name, bytes_per_value))
    return int(width)


def version():
    return ffi.string(lib.mc_version()).decode(), lib.mc_api_version()


def budget(parameters, bits_per_parameter, batch, activation_bytes_per_example, runtime_bytes, limit_bytes):
    out = ffi.new("mc_budget_t *")
    rc = lib.mc_budget(parameters, bits_per_parameter, batch, activation_bytes_per_example,
                       runtime_bytes, limit_bytes, out)
    _check(rc, _describe("budget", dict(
        parameters=parameters, bytes_per_parameter=bits_per_parameter / 8, batch=batch,
        activation_bytes_per_example=activation_bytes_per_example, runtime_bytes=runtime_bytes,
        limit_bytes=limit_bytes)))
    return out


def mlp_training(inputs, hidden, layers, batch, state_per_param, bits_per_value):
    out = ffi.new("mc_mlp_training_t *")
    rc = lib.mc_mlp_training(inputs, hidden, layers, batch, state_per_param, bits_per_value, out)
    _check(rc, _describe("mlp_training", dict(inputs=inputs, hidden=hidden, layers=layers, batch=batch,
                                              optimizer_state_per_parameter=state_per_param)))
    return out


def mlp_max_batch(inputs, hidden, layers, budget_amount, state_per_param, bits_per_value):
    out = ffi.new("int64_t *")
    rc = lib.mc_mlp_max_batch(inputs, hidden, layers, budget_amount, state_per_param, bits_per_value, out)
    _check(rc, _describe("mlp_max_batch", dict(inputs=inputs, hidden=hidden, layers=layers,
                                               budget=budget_amount,
                                               optimizer_state_per_parameter=state_per_param)))
    return out[0]


def layer_report(fields):
    layer = ffi.new("mc_layer_t *", fields)
    out = ffi.new("mc_layer_report_t *")
    _check(lib.mc_layer_report(layer, out), _describe("layer_report", fields))
    return out


def network_report(layer_fields, batch, mode, bits_per_value):
    layers = ffi.new("mc_layer_t[]", layer_fields)
    out = ffi.new("mc_network_report_t *")
    rc = lib.mc_network_report(layers, len(layer_fields), batch, mode, bits_per_value, out)
    _check(rc, "network_report(%d layers, batch=%d)" % (len(layer_fields), batch))
    return out


def verdict(model_bytes, device_fields):
    device = ffi.new("mc_device_t *", device_fields)
    out = ffi.new("mc_verdict_t *")
    _check(lib.mc_verdict(model_bytes, device, out), _describe("verdict", dict(model_bytes=model_bytes)))
    return out


def latency(bytes_moved, operations, bandwidth, ops_per_second, overhead_seconds):
    out = ffi.new("mc_latency_t *")
    rc = lib.mc_latency(bytes_moved, operations, bandwidth, ops_per_second, overhead_seconds, out)
    _check(rc, _describe("latency", dict(bytes_moved=bytes_moved, operations=operations,
                                         bandwidth_bytes_per_second=bandwidth,
                                         operations_per_second=ops_per_second,
                                         overhead_seconds=overhead_seconds)))
    return out


def roofline(weight_bytes, activation_bytes_per_example, operations_per_example, machine_ops_per_byte, batch):
    out = ffi.new("mc_roofline_t *")
    rc = lib.mc_roofline(weight_bytes, activation_bytes_per_example, operations_per_example,
                         machine_ops_per_byte, batch, out)
    _check(rc, _describe("roofline", dict(weight_bytes=weight_bytes,
                                          activation_bytes_per_example=activation_bytes_per_example,
                                          operations_per_example=operations_per_example,
                                          machine_ops_per_byte=machine_ops_per_byte, batch=batch)))
    return out


def plan(strategy, sizes, first_use, last_use, alignment, budget_steps):
    """Returns (offsets list, mc_plan_t).  The arguments are already checked, item by
    item, by the caller; cffi's own conversions catch anything that is not an int."""
    n = len(sizes)
    need = ffi.new("int64_t *")
    _check(lib.mc_plan_scratch_bytes(n, need), "plan(%d buffers)" % n)
    # int64 cells give the 8-byte alignment the planner asks for.
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    c_sizes = ffi.new("int64_t[]", sizes)
    c_first = ffi.new("int32_t[]", first_use)
    c_last = ffi.new("int32_t[]", last_use)
    offsets = ffi.new("int64_t[]", max(1, n))
    out = ffi.new("mc_plan_t *")
    rc = lib.mc_plan(strategy, c_sizes, c_first, c_last, n, alignment, budget_steps, scratch, need[0],
                     offsets, out)
    if rc == lib.MC_E_LIMIT:
        raise MemcoreError("plan(%d buffers): more than %d pairs of buffers are live at the same time, "
                           "past the planner's limit (MC_PLAN_MAX_PAIRS)" % (n, lib.MC_PLAN_MAX_PAIRS))
    _check(rc, "plan(%d buffers, alignment=%d)" % (n, alignment))
    return ffi.unpack(offsets, n), out


def plan_fixed(sizes, first_use, last_use, fixed, alignment):
    """TFLM's plan with buffers fixed at fixed[i] >= 0 (mc_plan_fixed): (offsets, mc_plan_t).
    Two fixed buffers live together that overlap are a MemcoreError naming both."""
    n = len(sizes)
    need = ffi.new("int64_t *")
    _check(lib.mc_plan_scratch_bytes(n, need), "plan(%d buffers)" % n)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    offsets = ffi.new("int64_t[]", max(1, n))
    clash = ffi.new("int64_t[2]")
    out = ffi.new("mc_plan_t *")
    rc = lib.mc_plan_fixed(ffi.new("int64_t[]", sizes), ffi.new("int32_t[]", first_use),
                           ffi.new("int32_t[]", last_use), ffi.new("int64_t[]", fixed), n, alignment, scratch,
                           need[0], offsets, out, clash)
    if rc == lib.MC_E_RANGE and clash[0] >= 0:
        raise MemcoreError("plan: buffers %d and %d are fixed at overlapping offsets (%d and %d) while both are live"
                           % (clash[0], clash[1], fixed[clash[0]], fixed[clash[1]]))
    _check(rc, "plan(%d buffers, alignment=%d, fixed offsets)" % (n, alignment))
    return ffi.unpack(offsets, n), out


def tflm_plan(graph, sizes, first_use, last_use, owner, source):
    """TFLM's placement of mc_tflm_buffers' buffers, around the graph's offline plan when
    it has one (mc_tflm_plan): (the file's offset of each buffer or -1, offsets, mc_plan_t)."""
    n = len(sizes)
    need = ffi.new("int64_t *")
    _check(lib.mc_plan_scratch_bytes(n, need), "plan(%d buffers)" % n)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    fixed = ffi.new("int64_t[]", max(1, n))
    offsets = ffi.new("int64_t[]", max(1, n))
    out = ffi.new("mc_plan_t *")
    problem = ffi.new("mc_problem_t *")
    rc = lib.mc_tflm_plan(graph.graph, ffi.new("int64_t[]", sizes), ffi.new("int32_t[]", first_use),
                          ffi.new("int32_t[]", last_use), ffi.new("int32_t[]", owner), n, scratch, need[0], fixed,
                          offsets, out, problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    return ffi.unpack(fixed, n), ffi.unpack(offsets, n), out


def live_bytes(sizes, first_use, last_use, alignment, n_steps):
    """Returns (bytes per step, buffers per step, mc_live_t)."""
    n = len(sizes)
    c_sizes = ffi.new("int64_t[]", max(1, n))
    c_sizes[0:n] = sizes
    c_first = ffi.new("int32_t[]", max(1, n))
    c_first[0:n] = first_use
    c_last = ffi.new("int32_t[]", max(1, n))
    c_last[0:n] = last_use
    c_bytes = ffi.new("int64_t[]", max(1, n_steps))
    c_buffers = ffi.new("int64_t[]", max(1, n_steps))
    out = ffi.new("mc_live_t *")
    rc = lib.mc_live_bytes(c_sizes, c_first, c_last, n, alignment, n_steps, c_bytes, c_buffers, out)
    _check(rc, "live_bytes(%d buffers, %d steps, alignment=%d)" % (n, n_steps, alignment))
    return list(c_bytes[0:n_steps]), list(c_buffers[0:n_steps]), out


def problem_error(rc, problem, graph, source):
    """MemcoreError for a failed call that filled an mc_problem_t, worded by cgraph."""
    from memcore.cgraph import describe
    return MemcoreError("%s: %s" % (source, describe(rc, problem, graph)))


def tflm_buffers(graph, target, kernels, flags, source):
    """The head's buffers of a CGraph: (sizes, first_use, last_use, owner) lists."""
    g = graph.graph
    problem = ffi.new("mc_problem_t *")
    n = ffi.new("int64_t *")
    need = ffi.new("int64_t *")
    rc = lib.mc_tflm_buffer_count(g, target, kernels, flags, n, need, problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    count_ = n[0]
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    sizes = ffi.new("int64_t[]", max(1, count_))
    first = ffi.new("int32_t[]", max(1, count_))
    last = ffi.new("int32_t[]", max(1, count_))
    owner = ffi.new("int32_t[]", max(1, count_))
    rc = lib.mc_tflm_buffers(g, target, kernels, flags, scratch, need[0], sizes, first, last, owner, count_,
                             problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    return list(sizes[0:count_]), list(first[0:count_]), list(last[0:count_]), list(owner[0:count_])


def reorder(graph, target, kernels, flags, width, budget_steps, source):
    """mc_reorder of a CGraph: (order, the mc_reorder_t)."""
    g = graph.graph
    problem = ffi.new("mc_problem_t *")
    need = ffi.new("int64_t *")
    rc = lib.mc_reorder_scratch_bytes(g, target, kernels, flags, width, need, problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    order = ffi.new("int32_t[]", max(1, g.n_ops))
    out = ffi.new("mc_reorder_t *")
    rc = lib.mc_reorder(g, target, kernels, flags, width, budget_steps, scratch, need[0], order, out, problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    return list(order[0:g.n_ops]), out


def tflm_model(graph, target, kernels, flags, head_bytes, n_buffers, source):
    out = ffi.new("mc_tflm_t *")
    problem = ffi.new("mc_problem_t *")
    n = ffi.new("int64_t *")
    need = ffi.new("int64_t *")
    rc = lib.mc_tflm_buffer_count(graph.graph, target, kernels, flags, n, need, problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    rc = lib.mc_tflm_model(graph.graph, target, kernels, flags, head_bytes, n_buffers, scratch, need[0], out,
                           problem)
    if rc != lib.MC_OK:
        raise problem_error(rc, problem, graph, source)
    return out


def _value(name, value):
    """An mc_field_t holding a Python value, for mc_board_set / mc_check_config_set."""
    field = ffi.new("mc_field_t *")
    keep = None
    if isinstance(value, bool):
        field.kind, field.integer = lib.MC_FIELD_BOOL, int(value)
    elif isinstance(value, numbers.Integral):
        field.kind, field.integer = lib.MC_FIELD_INTEGER, count(name, value) if value >= 0 else value
    elif isinstance(value, numbers.Real):
        field.kind, field.real = lib.MC_FIELD_REAL, float(value)
    elif isinstance(value, str):
        keep = ffi.new("char[]", value.encode())
        field.kind, field.text = lib.MC_FIELD_NAME, keep
    else:
        raise MemcoreError("%s must be a number, a bool or a name, got %r" % (name, value))
    return field, keep


def _inputs(kind, setter, values, init):
    struct = ffi.new(kind)
    init(struct)
    for name, value in values.items():
        field, _keep = _value(name, value)
        rc = setter(struct, name.encode(), field)
        if rc != lib.MC_OK:
            raise MemcoreError("%s %r: %r is not a value it takes (or not one of its fields)"
                               % (kind.split("_")[1], name, value))
    return struct


def board(values):
    """An mc_board_t from {field name: value} (mc_board_set's names)."""
    return _inputs("mc_board_t *", lib.mc_board_set, values, lib.mc_board_init)


def check_config(values):
    """An mc_check_config_t from {field name: value} (mc_check_config_set's names)."""
    return _inputs("mc_check_config_t *", lib.mc_check_config_set, values, lib.mc_check_config_init)


def input_names(count_function, name_function):
    return [ffi.string(name_function(i)).decode() for i in range(count_function())]


def check_graph(graph, board_values, config_values, source, rows=False, device=None):
    """mc_check_graph on a CGraph: (mc_check_t, array of mc_check_op_t or None).

    `device` names the board's figures (a device and the file it came from): a failure
    the core locates nowhere in the model (no operator, tensor or byte of it) comes from
    the board's and the configuration's numbers, or from them with the model's, so it
    names the device as well as the model, never the model alone."""
    try:
        return _check_graph(graph, board_values, config_values, source, rows)
    except _Unlocated as exc:
        where = "%s on %s" % (source, device) if device else source
        raise MemcoreError("%s: %s (from the device's figures, or what they give with this model)"
                           % (where, exc)) from None


class _Unlocated(Exception):
    """A failed check whose mc_problem_t names no part of the model."""


def _check_graph(graph, board_values, config_values, source, rows):
    g = graph.graph
    board_ = board(board_values)
    config = check_config(config_values)
    problem = ffi.new("mc_problem_t *")
    need = ffi.new("int64_t *")
    rc = lib.mc_check_scratch_bytes(g, board_, config, need, problem)
    if rc != lib.MC_OK:
        raise _check_error(rc, problem, graph, source)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    out = ffi.new("mc_check_t *")
    c_rows = ffi.new("mc_check_op_t[]", max(1, g.n_ops)) if rows else ffi.NULL
    rc = lib.mc_check_graph(g, board_, config, scratch, need[0], out, c_rows, problem)
    if rc != lib.MC_OK:
        raise _check_error(rc, problem, graph, source)
    # The array itself, not a list of its items: they point into it, and it must live.
    return out, (c_rows if rows else None)


def _check_error(rc, problem, graph, source):
    if problem.kind == lib.MC_PROBLEM_NONE and rc in (lib.MC_E_NOT_FINITE, lib.MC_E_RANGE, lib.MC_E_NEGATIVE,
                                                      lib.MC_E_OVERFLOW):
        return _Unlocated(ffi.string(lib.mc_strerror(rc)).decode())
    return problem_error(rc, problem, graph, source)


def board_may_help(now, board_values, arena_region):
    """mc_board_may_help: whether a board (mc_board_set's names) with its arena in
    `arena_region` (an mc_region_t) can answer the resource that limits the check `now`."""
    return bool(lib.mc_board_may_help(now, board(board_values), arena_region))


def board_pick(now, candidates):
    """mc_board_pick: the index of the check (an mc_check_t) among `candidates` that
    answers the resource limiting `now` best, or None."""
    if not candidates:
        return None
    checks = ffi.new("mc_check_t[]", len(candidates))
    for i, c in enumerate(candidates):
        checks[i] = c[0]
    i = lib.mc_board_pick(now, checks, len(candidates))
    return None if i < 0 else i


def check_fields(raw):
    """The report fields of an mc_check_t, in the C core's order and with its names
    (mc_check_field): what the board's report line carries too."""
    field = ffi.new("mc_field_t *")
    out = {}
    for i in range(lib.mc_check_field_count()):
        _check(lib.mc_check_field(raw, i, field), "check_field(%d)" % i)
        name = ffi.string(field.name).decode()
        if field.kind == lib.MC_FIELD_INTEGER:
            out[name] = field.integer
        elif field.kind == lib.MC_FIELD_REAL:
            out[name] = field.real
        elif field.kind == lib.MC_FIELD_BOOL:
            out[name] = bool(field.integer)
        else:
            out[name] = ffi.string(field.text).decode() if field.text != ffi.NULL else None
    return out


def check_field_kinds():
    """{name: mc_field_kind_t} of every report field of a check, in the C core's order."""
    raw = ffi.new("mc_check_t *")
    field = ffi.new("mc_field_t *")
    kinds = {}
    for i in range(lib.mc_check_field_count()):
        _check(lib.mc_check_field(raw, i, field), "check_field(%d)" % i)
        kinds[ffi.string(field.name).decode()] = field.kind
    return kinds


def op_counts(graph, what):
    """([macs], [other operations]) of every operator of a CGraph (mc_op_counts); an
    error starts with what(k), k the operator whose count failed (None if none did)."""
    n = graph.graph.n_ops
    macs = ffi.new("int64_t[]", max(1, n))
    other = ffi.new("int64_t[]", max(1, n))
    failed = ffi.new("int64_t *")
    rc = lib.mc_op_counts(graph.graph, macs, other, failed)
    _check(rc, what(failed[0] if failed[0] >= 0 else None))
    return list(macs[0:n]), list(other[0:n])
