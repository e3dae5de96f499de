"""SPEC 3 through the public API: per-layer rules and the network's two figures."""
import memcore
from memcore import Layer


def test_convolution_working_memory_is_im2col():
    r = memcore.layer_report("conv2d", (28, 28, 1), (26, 26, 8), kernel=(3, 3))
    assert r.parameters == 3 * 3 * 1 * 8 + 8
    assert r.inference_per_example == 1 * 26 * 26 * 3 * 3
    assert r.training_per_example == 2 * r.inference_per_example
    assert memcore.layer_report("conv2d", (28, 28, 1), (26, 26, 8), kernel=(3, 3),
                                dropout=True).training_per_example == 2 * 6084 + 784


def test_batchnorm_and_normalize_rules():
    bn = memcore.layer_report("batchnorm", (10, 10, 4), (10, 10, 4))
    assert (bn.training_fixed, bn.training_per_example) == (8, 2 * 400 + 400 + 8)
    l2 = memcore.layer_report("l2_normalize", (64,), (64,))
    assert (l2.inference_per_example, l2.training_per_example) == (1, 3 + 128)


def test_updater_state_is_parameters_times_state():
    r = memcore.layer_report("dense", (10,), (5,), optimizer_state_per_parameter=2)
    assert r.updater_state == 2 * 55


def test_network_report_upper_bound_and_lifetimes_side_by_side():
    # A small CNN for 28x28 digits, batch 32, inference.
    net = [
        Layer("conv2d", (28, 28, 1), (26, 26, 8), kernel=(3, 3)),
        Layer("pool2d", (26, 26, 8), (13, 13, 8), kernel=(2, 2)),
        Layer("dense", (13 * 13 * 8,), (10,)),
    ]
    r = memcore.network_report(net, batch=32, mode="inference", bytes_per_value=4)
    assert r.parameters == 80 + (1352 * 10 + 10)
    assert r.activations == 32 * (5408 + 1352 + 10)
    assert r.working_memory == 32 * 6084 and r.working_layer == 0
    assert r.total == r.parameters + r.activations + r.working_memory
    assert r.total_bytes == 4 * r.total
    # conv: 32 x (784 in + 5408 out) + its im2col scratch is the live peak
    assert r.lifetime_activations == 32 * (784 + 5408 + 6084)
    assert r.lifetime_total < r.total
    assert [l.kind for l in r.layers] == ["conv2d", "pool2d", "dense"]


def test_training_adds_gradients_and_updater_state():
    net = [Layer("dense", (4,), (3,), optimizer_state_per_parameter=2),
           Layer("activation", (3,), (3,)),
           Layer("output", (3,), (2,), optimizer_state_per_parameter=2)]
    r = memcore.network_report(net, batch=2, mode="training")
    assert (r.parameters, r.parameter_gradients, r.updater_state) == (23, 23, 46)
    assert r.activation_gradients == 2 * (4 + 3 + 3)
    assert r.total == 23 + 23 + 46 + 16 + 20 + 6
