"""The models of the published benchmarks memcore's latency model is calibrated on, built
as ONNX graphs so no model file has to be shipped.

What the published numbers ran is the int8 TFLite conversion of each: the graphs here
are float32 ONNX with the layers' shapes, and memcore.quantise.as_int8 turns them into
the int8 graph the converter makes.  Activations that TFLite fuses into the layer before
them (ReLU, ReLU6 after a convolution or a fully connected layer) are left out, as the
converter leaves them out; weights are zeros (only their shapes count).

- person_detect: TFLM's person detection example (esp-tflite-micro), MobileNet v1 with
  width 0.25 on a 96x96 grayscale image, two classes.
- vww: MLPerf Tiny's visual wake words, the same network on 96x96 RGB.
- ad: MLPerf Tiny's anomaly detection (ToyCar), a fully connected autoencoder
  640-128-128-128-128-8-128-128-128-128-640.
- mobilenet_v2_cifar: Keras' MobileNetV2 with width 0.25 on a 32x32 RGB image, ten
  classes (the graph of a published ESP32 measurement, esp-nn issue 38, which names the
  network but not its exact layers: this is the standard one at that size).
- mobilenet_v3_small: Keras' MobileNetV3Small (width 1.0) on a 224x224 RGB image,
  1000 classes (ESP-NN's model-level table).
kws_dscnn and resnet8 (MLPerf Tiny's keyword spotting and image classification) are the
real int8 files in tests/models.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Net:
    """A small ONNX graph builder: NCHW activations, one node per layer."""

    def __init__(self, name, shape):
        self.name = name
        self.nodes, self.inits = [], []
        self.shape = list(shape)      # [N, C, H, W] or [N, F]
        self.input = helper.make_tensor_value_info("input", TensorProto.FLOAT, list(shape))
        self.x = "input"
        self.k = 0

    def _name(self, what):
        self.k += 1
        return "%s_%d" % (what, self.k)

    def _const(self, what, shape):
        name = self._name(what)
        self.inits.append(numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name))
        return name

    def conv(self, out, k=3, stride=1, groups=1):
        _, c, h, w = self.shape
        pad = k // 2
        weight = self._const("w", (out, c // groups, k, k))
        bias = self._const("b", (out,))
        y = self._name("conv")
        self.nodes.append(helper.make_node("Conv", [self.x, weight, bias], [y], kernel_shape=[k, k],
                                           strides=[stride, stride], pads=[pad] * 4, group=groups))
        self.shape = [1, out, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1]
        self.x = y
        return y

    def depthwise(self, k=3, stride=1):
        return self.conv(self.shape[1], k, stride, groups=self.shape[1])

    def dense(self, out):
        n_in = self.shape[-1]
        weight = self._const("w", (n_in, out))
        bias = self._const("b", (out,))
        y = self._name("fc")
        self.nodes.append(helper.make_node("Gemm", [self.x, weight, bias], [y]))
        self.shape = [1, out]
        self.x = y
        return y

    def op(self, op_type, *others, **attrs):
        y = self._name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, [self.x, *others], [y], **attrs))
        self.x = y
        return y

    def scalar(self, what, value):
        name = self._name(what)
        self.inits.append(numpy_helper.from_array(np.array([value], dtype=np.float32), name))
        return name

    def global_pool_flatten(self):
        self.op("GlobalAveragePool")
        self.shape = [1, self.shape[1], 1, 1]
        self.op("Flatten")
        self.shape = [1, self.shape[1]]

    def model(self):
        out = helper.make_tensor_value_info(self.x, TensorProto.FLOAT, None)
        graph = helper.make_graph(self.nodes, self.name, [self.input], [out], self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def _mobilenet_v1(name, channels):
    """MobileNet v1, width 0.25, 96x96."""
    net = _Net(name, (1, channels, 96, 96))
    net.conv(8, 3, 2)
    for out, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1),
                        (128, 1), (128, 1), (256, 2), (256, 1)):
        net.depthwise(3, stride)
        net.conv(out, 1)
    net.op("AveragePool", kernel_shape=[3, 3], strides=[3, 3])
    net.shape = [1, net.shape[1], 1, 1]
    net.conv(2, 1)
    net.op("Flatten")
    net.shape = [1, 2]
    net.op("Softmax", axis=1)
    return net.model()


def person_detect():
    return _mobilenet_v1("person_detect", 1)


def vww():
    return _mobilenet_v1("vww", 3)


def ad():
    net = _Net("ad", (1, 640))
    for width in (128, 128, 128, 128, 8, 128, 128, 128, 128, 640):
        net.dense(width)
    return net.model()


def _divisible(v, divisor=8):
    """Keras' _make_divisible: the nearest multiple of 8, never 10 % below v."""
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def mobilenet_v2_cifar():
    alpha = 0.25
    net = _Net("mobilenet_v2_cifar", (1, 3, 32, 32))
    net.conv(_divisible(32 * alpha), 3, 2)
    channels = net.shape[1]
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        out = _divisible(c * alpha)
        for i in range(n):
            block_in = net.x
            if t != 1:
                net.conv(channels * t, 1)
            net.depthwise(3, s if i == 0 else 1)
            net.conv(out, 1)
            if i > 0 and out == channels:
                net.op("Add", block_in)
            channels = out
    net.conv(1280, 1)
    net.global_pool_flatten()
    net.dense(10)
    net.op("Softmax", axis=1)
    return net.model()


def _hard_swish(net):
    net.op("HardSwish")


def _squeeze_excite(net, channels):
    block = net.x
    shape = list(net.shape)
    net.op("GlobalAveragePool")
    net.shape = [1, channels, 1, 1]
    net.conv(_divisible(channels * 0.25), 1)
    net.conv(channels, 1)
    # hard sigmoid as Keras writes it and the converter keeps it: relu6(x + 3) / 6
    net.op("Add", net.scalar("three", 3.0))
    net.op("Mul", net.scalar("sixth", 1 / 6))
    net.op("Mul", block)
    net.shape = shape


def mobilenet_v3_small():
    net = _Net("mobilenet_v3_small", (1, 3, 224, 224))
    net.conv(16, 3, 2)
    _hard_swish(net)
    channels = 16
    # kernel, expansion, out, squeeze-excite, hard-swish, stride (MobileNetV3 paper, Table 2)
    for i, (k, exp, out, se, hs, s) in enumerate(((3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2),
                                                  (3, 88, 24, False, False, 1), (5, 96, 40, True, True, 2),
                                                  (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
                                                  (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1),
                                                  (5, 288, 96, True, True, 2), (5, 576, 96, True, True, 1),
                                                  (5, 576, 96, True, True, 1))):
        block_in = net.x
        if i > 0:
            net.conv(exp, 1)
            if hs:
                _hard_swish(net)
        net.depthwise(k, s)
        if hs:
            _hard_swish(net)
        if se:
            _squeeze_excite(net, exp)
        net.conv(out, 1)
        if s == 1 and out == channels:
            net.op("Add", block_in)
        channels = out
    net.conv(576, 1)
    _hard_swish(net)
    net.op("GlobalAveragePool")
    net.shape = [1, 576, 1, 1]
    net.conv(1024, 1)
    _hard_swish(net)
    net.conv(1000, 1)
    net.op("Flatten")
    net.shape = [1, 1000]
    net.op("Softmax", axis=1)
    return net.model()


BUILT = {"person_detect": person_detect, "vww": vww, "ad": ad, "mobilenet_v2_cifar": mobilenet_v2_cifar,
         "mobilenet_v3_small": mobilenet_v3_small}


def save(name, path):
    onnx.save(BUILT[name](), str(path))
    return path
