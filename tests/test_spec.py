"""Every worked number of SPEC sections 1-6, through the public API."""
import pytest

import memcore


def test_budget_worked_numbers():
    b = memcore.budget(10, 4, 2, 8, 12, limit_bytes=100)
    assert b.required_bytes == 68
    assert b.headroom_bytes == 32
    assert (b.parameter_bytes, b.activation_bytes, b.runtime_bytes) == (40, 16, 12)
    assert memcore.budget(10, 4, 8, 8, 12, limit_bytes=100).required_bytes == 116


def test_budget_names_the_dominant_term_so_negative_headroom_is_explained():
    # parameters stored at 4 bytes instead of 2 push it over the limit
    at_4 = memcore.budget(1000, 4, 1, 100, 500, limit_bytes=4000)
    at_2 = memcore.budget(1000, 2, 1, 100, 500, limit_bytes=4000)
    assert at_4.headroom_bytes == -600 and at_4.dominant == "parameters" and not at_4.fits
    assert at_2.headroom_bytes == 1400 and at_2.fits


def test_largest_batch_and_does_not_fit_even_at_batch_zero():
    assert memcore.max_batch(10, 4, 8, 12, 100) == 6  # floor((100 - 40 - 12) / 8)
    assert memcore.budget(10, 4, 0, 8, 12, 100).max_batch == 6
    assert memcore.max_batch(10, 4, 8, 12, 51) is None  # 52 bytes fixed > 51


@pytest.mark.parametrize("width,expected", [(4, 4000), (2, 2000), (1, 1000), (0.5, 500)])
def test_bytes_per_parameter_follows_storage_format(width, expected):
    assert memcore.budget(1000, width, 0, 0, 0, 10**6).parameter_bytes == expected


def test_int4_rounds_up_per_tensor():
    assert memcore.budget(1001, 0.5, 0, 0, 0, 10**6).parameter_bytes == 501


def test_training_worked_numbers():
    t = memcore.mlp_training(inputs=8, hidden=8, layers=1, batch=30)
    assert (t.parameters, t.gradients, t.activations, t.total) == (81, 81, 1020, 1182)
    assert t.optimizer_state == 0
    assert round(t.activation_share, 4) == 0.8629
    assert memcore.mlp_training(8, 8, 1, 30, optimizer_state_per_parameter=1).total == 1263
    assert memcore.mlp_training(8, 8, 1, 30, optimizer_state_per_parameter=2).optimizer_state == 162


def test_training_values_and_bytes():
    t = memcore.mlp_training(8, 8, 1, 30, bytes_per_value=2)
    assert t.total_bytes == 2364


def test_training_parameters_do_not_depend_on_batch_activations_grow_linearly():
    small, big = memcore.mlp_training(8, 16, 3, 10), memcore.mlp_training(8, 16, 3, 20)
    assert small.parameters == big.parameters and small.gradients == big.gradients
    assert big.activations == 2 * small.activations
    # g·h + h + (L−1)·(h·h + h) + h + 1 with g=8, h=16, L=3
    assert small.parameters == 8 * 16 + 16 + 2 * (16 * 16 + 16) + 16 + 1


def test_training_largest_batch_under_a_budget():
    assert memcore.mlp_max_batch(8, 8, 1, budget_values=1182) == 30
    assert memcore.mlp_max_batch(8, 8, 1, budget_values=1181) == 29
    assert memcore.mlp_max_batch(8, 8, 1, budget_values=1263, optimizer_state_per_parameter=1) == 30
    assert memcore.mlp_max_batch(8, 8, 1, budget_bytes=1182 * 4, bytes_per_value=4) == 30
    assert memcore.mlp_max_batch(8, 8, 1, budget_values=100) is None


def test_reference_verdicts():
    d = memcore.devices()
    # the four teaching places; the 0.5 MB one is "microcontroller" (an ESP32): "esp32" is
    # the board profile of the microcontroller views, one meaning per name
    assert set(d) == {"datacentre", "server", "phone", "microcontroller"}
    mobilenet = memcore.verdict(int(3.5e6 * 4), d["microcontroller"])
    assert mobilenet.status == "will_not_fit"
    assert round(mobilenet.times_too_big) == 28
    assert memcore.verdict(int(0.05e6 * 4), d["microcontroller"]).status == "runs"
    # read_ms = MB / 1024 / GBps * 1000: 0.2 MB on the ESP32 at 0.2 GB/s is 0.977 ms
    assert memcore.verdict(int(0.05e6 * 4), d["microcontroller"]).read_seconds == pytest.approx(0.2 / 1024 / 0.2)
    assert memcore.verdict(int(7000e6 * 4), d["datacentre"]).status == "runs"
    assert memcore.verdict(int(7000e6 * 4), d["server"]).status == "will_not_fit"


def test_too_slow_verdict_names_the_time_it_needs():
    slow = memcore.Device("slow", "slow board", 10**9, 1e6, 1e9, 0.0, 0.010)
    v = memcore.verdict(10**6, slow)
    assert v.status == "too_slow"
    assert v.read_seconds == pytest.approx(1.0)
    assert "1000.0 ms" in v.explain(slow)


def test_latency_worked_numbers():
    lat = memcore.latency(40_000_000, 2_000_000_000, 100e6, 12e9, 0.005)
    assert lat.fetch_seconds == pytest.approx(0.400)
    assert lat.compute_seconds == pytest.approx(0.1667, abs=1e-4)
    assert lat.setup_seconds == pytest.approx(0.005)
    assert round(lat.total_seconds * 1000) == 572
    assert lat.dominant == "fetch"
    assert round(lat.saving_seconds_if_compute_doubled * 1000) in (83, 84)
    assert round(lat.saving_if_compute_doubled * 100) == 15
    assert round(lat.saving_seconds_if_bandwidth_doubled * 1000) == 200
    assert round(lat.saving_if_bandwidth_doubled * 100) == 35
    assert lat.better_upgrade == "bandwidth"


def test_roofline_worked_numbers():
    r = memcore.roofline(97_500_000, 20_000_000, 7_700_000_000, 153, batch=1)
    assert round(r.intensity) == 66
    assert r.bound == "memory"
    assert r.ceiling == pytest.approx(385)
    assert r.crossover_batch == 4
    assert memcore.roofline(97_500_000, 20_000_000, 7_700_000_000, 153, batch=4).bound == "compute"
    assert memcore.roofline(97_500_000, 20_000_000, 7_700_000_000, 400, batch=1).crossover_batch is None
