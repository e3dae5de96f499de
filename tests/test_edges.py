"""Edge cases through the public Python API: sizes near 2**63, zero-sized tensors,
one-operator graphs, 10,000-buffer plans, NaN and infinity in every float input,
negative and huge batches.  Errors are checked by exact type and exact message (each
names the argument); results by value.  tests/c/test_edges.c covers the same ground
one level down, in the C core itself.
"""
import dataclasses
import importlib.util
import math
import pathlib
import random

import pytest
from onnx import TensorProto, helper

import memcore
from memcore import Layer, MemcoreError

ROOT = pathlib.Path(__file__).resolve().parent.parent
I64 = 2**63 - 1
OVERFLOW = "a size does not fit in 64 bits"


def raises(exact_message, function, *args, **kwargs):
    """Calls function; it must raise MemcoreError itself (no subclass, no other type)
    with exactly this message."""
    with pytest.raises(Exception) as info:
        function(*args, **kwargs)
    assert type(info.value) is MemcoreError, repr(info.value)
    assert str(info.value) == exact_message


# --- sizes near 2**63 ---------------------------------------------------------------

def test_budget_exactly_at_the_int64_limit():
    b = memcore.budget(I64, 1, 0, 0, 0, I64)
    assert (b.required_bytes, b.headroom_bytes, b.fits, b.max_batch) == (I64, 0, True, I64)
    b = memcore.budget(0, 4, 0, 0, I64, 0)
    assert (b.required_bytes, b.headroom_bytes, b.fits, b.max_batch) == (I64, -I64, False, None)
    # 2**60 int4 parameters are 2**59 bytes: far from the limit.
    assert memcore.budget(2**60, 0.5, 0, 0, 0, I64).parameter_bytes == 2**59


def test_budget_one_past_the_int64_limit():
    raises("budget(parameters=2305843009213693952, bytes_per_parameter=4.0, batch=0, "
           "activation_bytes_per_example=0, runtime_bytes=0, limit_bytes=9223372036854775807): " + OVERFLOW,
           memcore.budget, 2**61, 4, 0, 0, 0, I64)
    raises("budget(parameters=1, bytes_per_parameter=4.0, batch=9223372036854775807, "
           "activation_bytes_per_example=1, runtime_bytes=0, limit_bytes=9223372036854775807): " + OVERFLOW,
           memcore.budget, 1, 4, I64, 1, 0, I64)
    raises("limit_bytes does not fit in 64 bits: 9223372036854775808", memcore.budget, 1, 4, 1, 1, 1, 2**63)
    raises("parameters does not fit in 64 bits: 9223372036854775808", memcore.budget, 2**63, 1, 1, 1, 1, 1)


def test_plan_near_the_int64_limit():
    whole = memcore.plan([I64], [0], [0], alignment=1)
    assert (whole.arena_bytes, whole.offsets, whole.lower_bound_bytes) == (I64, [0], I64)
    # Rounding 2**63 - 1 up to 16 bytes would pass the limit.
    raises("plan(1 buffers, alignment=16): " + OVERFLOW, memcore.plan, [I64], [0], [0], alignment=16)
    assert memcore.plan([2**63 - 16], [0], [0], alignment=16).arena_bytes == 2**63 - 16
    # Two 2**62 buffers never live together share one place; live together, they do not fit.
    apart = memcore.plan([2**62, 2**62 - 1], [0, 1], [0, 1], alignment=1, strategy="best")
    assert (apart.arena_bytes, apart.offsets) == (2**62, [0, 0])
    raises("plan(2 buffers, alignment=1): " + OVERFLOW, memcore.plan, [2**62, 2**62], [0, 0], [0, 0], alignment=1)
    raises("sizes[0] does not fit in 64 bits: 9223372036854775808", memcore.plan, [2**63], [0], [0])
    raises("first_use[0] is past the largest operator index: 2147483648", memcore.plan, [1], [2**31], [2**31])


def test_mlp_training_near_the_int64_limit():
    raises("mlp_training(inputs=1, hidden=1, layers=1, batch=9223372036854775807, "
           "optimizer_state_per_parameter=0): " + OVERFLOW, memcore.mlp_training, 1, 1, 1, I64)
    raises("mlp_training(inputs=2147483648, hidden=2147483648, layers=1, batch=1, "
           "optimizer_state_per_parameter=0): " + OVERFLOW, memcore.mlp_training, 2**31, 2**31, 1, 1)
    raises("inputs does not fit in 64 bits: 9223372036854775808", memcore.mlp_training, 2**63, 1, 1, 1)
    # The largest batch whose bytes still fit in 64 bits is found, not wrapped.
    best = memcore.mlp_max_batch(1, 1, 1, budget_bytes=I64, bytes_per_value=4)
    assert best > 2**58 and memcore.mlp_training(1, 1, 1, best).total_bytes <= I64
    raises("mlp_training(inputs=1, hidden=1, layers=1, batch=%d, optimizer_state_per_parameter=0): %s"
           % (best + 1, OVERFLOW), memcore.mlp_training, 1, 1, 1, best + 1)


# --- zero-sized tensors and one-operator graphs -----------------------------------------

def _seeds():
    """fuzz/make_seeds.py: the one-operator TFLite builder the fuzz corpus is made with."""
    pytest.importorskip("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    spec = importlib.util.spec_from_file_location("make_seeds", ROOT / "fuzz" / "make_seeds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return memcore.load(path)


def test_one_operator_tflite_graph(tmp_path):
    seeds = _seeds()
    model = _load(tmp_path, "relu.tflite", seeds.one_op_tflite(seeds.schema.BuiltinOperator.RELU, (1, 4), (1, 4)))
    (op,) = model.operators
    assert (op.kind, op.macs, op.other_ops) == ("RELU", 0, 4)
    assert model.parameter_count == 0 and model.activation_bytes == 32
    # input and output are both live at the one operator: 16 + 16 bytes, for both planners.
    for strategy in ("tflm", "best"):
        plan = model.plan(strategy)
        assert plan.arena_bytes == plan.lower_bound_bytes == 32
    assert memcore.tflm_arena(model).head_bytes == 32


def test_one_fully_connected_operator(tmp_path):
    seeds = _seeds()
    import numpy as np
    data = seeds.one_op_tflite(seeds.schema.BuiltinOperator.FULLY_CONNECTED, (1, 4), (1, 3), weights=np.ones((3, 4)))
    model = _load(tmp_path, "fc.tflite", data)
    (op,) = model.operators
    assert (op.kind, op.macs, op.weight_bytes) == ("FULLY_CONNECTED", 12, 48)
    assert model.parameter_count == 12
    assert model.plan().arena_bytes == 16 + 16  # 16 B in, 12 B out rounded up to 16


def test_zero_sized_tflite_tensor(tmp_path):
    seeds = _seeds()
    model = _load(tmp_path, "empty.tflite", seeds.one_op_tflite(seeds.schema.BuiltinOperator.RELU, (0, 4), (0, 4)))
    assert [t.bytes for t in model.tensors] == [0, 0]
    assert model.planned_tensors == ()  # TFLM allocates nothing for an empty tensor
    assert model.operators[0].other_ops == 0
    plan = model.plan("best")
    assert (plan.arena_bytes, plan.offsets, plan.lower_bound_bytes) == (0, {}, 0)


def _onnx(tmp_path, name, nodes, inputs, outputs):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    path = tmp_path / (name + ".onnx")
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
    return memcore.load(path)


def test_one_operator_onnx_graph(tmp_path):
    model = _onnx(tmp_path, "relu", [helper.make_node("Relu", ["x"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    assert [(op.kind, op.other_ops) for op in model.operators] == [("RELU", 4)]
    assert model.plan().arena_bytes == 32


def test_zero_sized_onnx_tensor_is_refused(tmp_path):
    """An ONNX graph input with a dimension of 0 is refused by name (issue 29: it got
    "fits" with 0 B of input and nonzero MACs); an empty TFLite tensor, which TFLM
    allocates nothing for, is read as it is (above)."""
    with pytest.raises(MemcoreError, match=r"empty\.onnx: graph input 'x' has shape \[0, 4\]: dimension 0 is 0"):
        _onnx(tmp_path, "empty", [helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [0, 4])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [0, 4])])


def test_zero_sized_buffers_in_a_plan():
    plan = memcore.plan([0, 16, 0], [0, 0, 0], [2, 2, 2])
    assert plan.arena_bytes == plan.lower_bound_bytes == 16
    assert memcore.plan([], [], []).arena_bytes == 0


# --- 10,000 buffers ---------------------------------------------------------------

def _assert_no_live_overlap(sizes, first, last, offsets):
    """Sweep the scopes; at each, the live buffers sorted by offset must not overlap."""
    starting = {}
    for i, f in enumerate(first):
        starting.setdefault(f, []).append(i)
    live = set()
    for scope in range(max(last) + 1):
        live.update(starting.get(scope, ()))
        spans = sorted((offsets[i], offsets[i] + sizes[i]) for i in live if sizes[i])
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert end <= start, "buffers overlap at scope %d" % scope
        live = {i for i in live if last[i] > scope}


def test_ten_thousand_buffers():
    rnd = random.Random(7)
    n = 10_000
    first = [rnd.randrange(2_000) for _ in range(n)]
    last = [f + rnd.randrange(50) for f in first]
    sizes = [rnd.choice([0, 16, 100, rnd.randrange(1, 100_000)]) for _ in range(n)]
    tflm = memcore.plan(sizes, first, last, strategy="tflm")
    best = memcore.plan(sizes, first, last, strategy="best")
    for plan in (tflm, best):
        assert len(plan.offsets) == n
        assert all(o % 16 == 0 for o in plan.offsets)
        assert plan.lower_bound_bytes <= plan.arena_bytes
        assert max(o + s for o, s in zip(plan.offsets, sizes)) <= plan.arena_bytes
        _assert_no_live_overlap(sizes, first, last, plan.offsets)
    assert best.arena_bytes <= tflm.arena_bytes
    assert best.lower_bound_bytes == tflm.lower_bound_bytes


# --- NaN and infinity in every float input ----------------------------------------------

ESP32 = memcore.devices()["microcontroller"]


def _call(function, **changes):
    """Each public function with valid arguments, one replaced."""
    calls = {
        "budget": lambda a: memcore.budget(**a),
        "max_batch": lambda a: memcore.max_batch(**a),
        "latency": lambda a: memcore.latency(**a),
        "roofline": lambda a: memcore.roofline(**a),
        "mlp_training": lambda a: memcore.mlp_training(**a),
        "mlp_max_batch": lambda a: memcore.mlp_max_batch(**a),
        "network_report": lambda a: memcore.network_report(**a),
        "verdict": lambda a: memcore.verdict(a.pop("model_bytes"), dataclasses.replace(ESP32, **a)),
    }
    defaults = {
        "budget": dict(parameters=10, bytes_per_parameter=4, batch=2, activation_bytes_per_example=8,
                       runtime_bytes=12, limit_bytes=100),
        "max_batch": dict(parameters=10, bytes_per_parameter=4, activation_bytes_per_example=8,
                          runtime_bytes=12, limit_bytes=100),
        "latency": dict(bytes_moved=1000, operations=1000, bandwidth_bytes_per_second=1e9,
                        operations_per_second=1e9, overhead_seconds=0.0),
        "roofline": dict(weight_bytes=1000, activation_bytes_per_example=10, operations_per_example=100,
                         machine_ops_per_byte=10.0, batch=1),
        "mlp_training": dict(inputs=8, hidden=8, layers=1, batch=4, bytes_per_value=4),
        "mlp_max_batch": dict(inputs=8, hidden=8, layers=1, budget_bytes=10_000, bytes_per_value=4),
        "network_report": dict(layers=[Layer("dense", (4,), (2,))], batch=1, bytes_per_value=4),
        "verdict": dict(model_bytes=1000),
    }
    args = dict(defaults[function], **changes)
    return calls[function](args)


FLOAT_INPUTS = [
    # (function, argument, message for value v)
    ("budget", "bytes_per_parameter", "bits"),
    ("max_batch", "bytes_per_parameter", "bits"),
    ("latency", "bandwidth_bytes_per_second", "finite"),
    ("latency", "operations_per_second", "finite"),
    ("latency", "overhead_seconds", "finite"),
    ("roofline", "machine_ops_per_byte", "finite"),
    ("mlp_training", "bytes_per_value", "bits"),
    ("mlp_max_batch", "bytes_per_value", "bits"),
    ("network_report", "bytes_per_value", "bits"),
    ("verdict", "read_bytes_per_second", "finite"),
    ("verdict", "ops_per_second", "finite"),
    ("verdict", "overhead_seconds", "finite"),
    ("verdict", "latency_budget_seconds", "finite"),
]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("function,argument,kind", FLOAT_INPUTS, ids=["%s-%s" % f[:2] for f in FLOAT_INPUTS])
def test_nan_and_infinity_in_every_float_input(function, argument, kind, value):
    if kind == "finite":
        message = "%s must be finite, got %r" % (argument, value)
    else:
        message = ("%s must be a whole number of bits between 1 and 64 bits (e.g. 4, 2, 1, 0.5), got %r"
                   % (argument, value))
    raises(message, _call, function, **{argument: value})


def test_every_float_input_is_covered():
    """FLOAT_INPUTS lists every float argument of the public functions and every float
    field of Device: a new one must be added there."""
    import inspect
    listed = {(f, a) for f, a, _ in FLOAT_INPUTS}
    floats = {"bytes_per_parameter", "bandwidth_bytes_per_second", "operations_per_second",
              "overhead_seconds", "machine_ops_per_byte", "bytes_per_value"}
    for name in ("budget", "max_batch", "latency", "roofline", "mlp_training", "mlp_max_batch", "network_report"):
        for parameter in inspect.signature(getattr(memcore, name)).parameters:
            if parameter in floats:
                assert (name, parameter) in listed, (name, parameter)
    for field in dataclasses.fields(memcore.Device):
        if field.type is float:
            assert ("verdict", field.name) in listed, field.name


@pytest.mark.parametrize("value", [math.nan, math.inf])
@pytest.mark.parametrize("function,argument", [
    ("budget", "parameters"), ("budget", "batch"), ("budget", "limit_bytes"), ("latency", "bytes_moved"),
    ("roofline", "batch"), ("mlp_training", "batch"), ("network_report", "batch"), ("verdict", "memory_bytes"),
    ("verdict", "model_bytes"),
])
def test_nan_and_infinity_where_a_count_belongs(function, argument, value):
    raises("%s must be an integer, got %r" % (argument, value), _call, function, **{argument: value})


# --- negative and huge batch sizes ------------------------------------------------

@pytest.mark.parametrize("function", ["budget", "network_report", "mlp_training"])
def test_negative_batch(function):
    raises("batch must not be negative, got -1", _call, function, batch=-1)
    raises("batch must not be negative, got %d" % -2**63, _call, function, batch=-2**63)


def test_negative_or_zero_batch_in_roofline():
    # A roofline at batch 0 has no intensity: it starts at 1.
    raises("batch must be at least 1, got 0", _call, "roofline", batch=0)
    raises("batch must be at least 1, got -1", _call, "roofline", batch=-1)


@pytest.mark.parametrize("function", ["budget", "network_report", "roofline", "mlp_training"])
def test_batch_past_int64(function):
    raises("batch does not fit in 64 bits: 9223372036854775808", _call, function, batch=2**63)
    raises("batch does not fit in 64 bits: %d" % 10**30, _call, function, batch=10**30)


def test_huge_batch_that_fits_in_int64_but_not_its_product():
    raises("budget(parameters=10, bytes_per_parameter=4.0, batch=9223372036854775807, "
           "activation_bytes_per_example=8, runtime_bytes=12, limit_bytes=100): " + OVERFLOW,
           _call, "budget", batch=I64)
    raises("network_report(1 layers, batch=9223372036854775807): " + OVERFLOW, _call, "network_report", batch=I64)
    raises("mlp_training(inputs=8, hidden=8, layers=1, batch=9223372036854775807, "
           "optimizer_state_per_parameter=0): " + OVERFLOW, _call, "mlp_training", batch=I64)
    # The roofline's figures are ratios: a huge batch is valid and compute-bound.
    huge = _call("roofline", batch=I64, machine_ops_per_byte=5.0)
    # 100 b / (1000 + 10 b) ops per byte reaches 5 at b = 100.
    assert huge.bound == "compute" and huge.crossover_batch == 100
    assert math.isfinite(huge.intensity)


def test_huge_batch_that_still_fits():
    b = _call("budget", batch=2**40, activation_bytes_per_example=8, limit_bytes=I64)
    assert b.activation_bytes == 2**43 and b.fits
    assert _call("mlp_training", batch=2**40).activations > 2**40


# --- a board's rates by name ----------------------------------------------------------

def test_every_rate_name_sets_its_own_rate_and_near_misses_are_refused():
    """The sixteen rates are named <opclass>_<numeric>_<kernels>_ops_per_second from the
    C core's own names; each sets its cell of ops_per_second and no other."""
    from memcore._lowlevel import board, ffi, lib
    text = lambda p: ffi.string(p).decode()  # noqa: E731
    cells = [(c, n, k) for c in range(lib.MC_OPCLASS_COUNT) for n in range(lib.MC_NUMERIC_COUNT)
             for k in range(2)]
    names = {cell: "%s_%s_%s_ops_per_second" % (text(lib.mc_opclass_name(cell[0])),
                                                 text(lib.mc_numeric_name(cell[1])),
                                                 text(lib.mc_kernels_name(cell[2]))) for cell in cells}
    assert names[(0, 0, 1)] == "conv_int8_optimised_ops_per_second"
    assert names[(1, 1, 0)] == "depthwise_float32_reference_ops_per_second"
    assert lib.mc_opclass_name(lib.MC_OPCLASS_COUNT) == ffi.NULL and lib.mc_opclass_name(-1) == ffi.NULL
    values = {names[cell]: 1000.0 + i for i, cell in enumerate(cells)}
    b = board(values)
    for i, (c, n, k) in enumerate(cells):
        assert b.ops_per_second[c][n][k] == 1000.0 + i
    for bad in ("conv_int8_optimised_ops_per_secondx", "conv_int8_optimised", "conv__int8_optimised_ops_per_second",
                "CONV_int8_optimised_ops_per_second", "conv_int16_optimised_ops_per_second",
                "conv_int8_optimized_ops_per_second", "convolution_int8_optimised_ops_per_second",
                "conv_int8_optimised_ops_per_second_", "_int8_optimised_ops_per_second", "ops_per_second",
                "conv", "", "other_float32_reference"):
        with pytest.raises(MemcoreError, match="not a value it takes"):
            board({bad: 1.0})
    with pytest.raises(MemcoreError, match="not a value it takes"):
        board({"conv_int8_optimised_ops_per_second": "fast"})
