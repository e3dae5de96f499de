"""Bad input raises MemcoreError naming the argument; no wrapped or negative size escapes."""
import math

import pytest

import memcore
from memcore import MemcoreError


@pytest.mark.parametrize("kwargs,name", [
    (dict(parameters=-1), "parameters"),
    (dict(parameters=1.5), "parameters"),
    (dict(parameters=True), "parameters"),
    (dict(batch=-3), "batch"),
    (dict(activation_bytes_per_example="8"), "activation_bytes_per_example"),
    (dict(runtime_bytes=None), "runtime_bytes"),
    (dict(limit_bytes=2**63), "limit_bytes"),
    (dict(bytes_per_parameter=0), "bytes_per_parameter"),
    (dict(bytes_per_parameter=0.3), "bytes_per_parameter"),
    (dict(bytes_per_parameter=math.nan), "bytes_per_parameter"),
])
def test_budget_argument_errors_name_the_argument(kwargs, name):
    args = dict(parameters=10, bytes_per_parameter=4, batch=2, activation_bytes_per_example=8,
                runtime_bytes=12, limit_bytes=100)
    args.update(kwargs)
    with pytest.raises(MemcoreError, match=name):
        memcore.budget(**args)


def test_overflowing_product_is_an_error_not_a_wrapped_number():
    with pytest.raises(MemcoreError, match="does not fit in 64 bits") as exc:
        memcore.budget(2**62, 4, 1, 0, 0, 0)
    assert "parameters=4611686018427387904" in str(exc.value)
    with pytest.raises(MemcoreError, match="64 bits"):
        memcore.budget(1, 4, 2**40, 2**40, 0, 0)
    with pytest.raises(MemcoreError, match="64 bits"):
        memcore.mlp_training(2**32, 2**32, 1, 1)


@pytest.mark.parametrize("kwargs,name", [
    (dict(bandwidth_bytes_per_second=0), "bandwidth_bytes_per_second"),
    (dict(bandwidth_bytes_per_second=-1e9), "bandwidth_bytes_per_second"),
    (dict(operations_per_second=math.nan), "operations_per_second"),
    (dict(operations_per_second=math.inf), "operations_per_second"),
    (dict(overhead_seconds=-0.001), "overhead_seconds"),
    (dict(operations=-1), "operations"),
    (dict(bytes_moved=2.5), "bytes_moved"),
])
def test_latency_argument_errors(kwargs, name):
    args = dict(bytes_moved=1000, operations=1000, bandwidth_bytes_per_second=1e9, operations_per_second=1e9,
                overhead_seconds=0.0)
    args.update(kwargs)
    with pytest.raises(MemcoreError, match=name):
        memcore.latency(**args)


def test_roofline_and_verdict_errors():
    with pytest.raises(MemcoreError, match="machine_ops_per_byte"):
        memcore.roofline(1, 1, 1, 0.0, 1)
    with pytest.raises(MemcoreError, match="batch"):
        memcore.roofline(1, 1, 1, 1.0, 0)
    with pytest.raises(MemcoreError, match="model_bytes"):
        memcore.verdict(-5, memcore.devices()["microcontroller"])
    broken = memcore.Device("broken", "", 100, 0.0, 1.0, 0.0, 1.0)
    with pytest.raises(MemcoreError, match="read_bytes_per_second"):
        memcore.verdict(5, broken)


def test_training_errors():
    with pytest.raises(MemcoreError, match="layers"):
        memcore.mlp_training(8, 8, 0, 30)
    with pytest.raises(MemcoreError, match="exactly one"):
        memcore.mlp_max_batch(8, 8, 1)


def test_plan_errors():
    with pytest.raises(MemcoreError, match="same length"):
        memcore.plan([16, 16], [0], [0, 1])
    with pytest.raises(MemcoreError, match="buffer 0"):
        memcore.plan([16], [3], [1])
    with pytest.raises(MemcoreError, match=r"sizes\[1\]"):
        memcore.plan([16, -16], [0, 0], [0, 0])
    with pytest.raises(MemcoreError, match="strategy"):
        memcore.plan([16], [0], [0], strategy="fast")
    with pytest.raises(MemcoreError, match="alignment"):
        memcore.plan([16], [0], [0], alignment=0)
    with pytest.raises(MemcoreError, match="64 bits"):
        memcore.plan([2**62, 2**62], [0, 0], [0, 0])


def test_layer_errors():
    with pytest.raises(MemcoreError, match="kind"):
        memcore.layer_report("transformer", (4,), (4,))
    with pytest.raises(MemcoreError, match="input_shape"):
        memcore.layer_report("dense", (1, 2, 3, 4), (4,))
    with pytest.raises(MemcoreError, match="mode"):
        memcore.network_report([memcore.Layer("dense", (4,), (2,))], 1, mode="serving")
    with pytest.raises(MemcoreError):
        memcore.layer_report("depthwise_conv2d", (5, 5, 8), (3, 3, 12), kernel=(3, 3))
