"""Per-layer memory reports and network totals (DeepLearning4J's convention).

Shapes are per example, channels last: (features,), (steps, features) or
(height, width, channels).  Every figure is a count of values; the network report
also gives bytes at a storage width.  The upper bound (every activation kept, no
reuse) and the realistic figure from lifetimes come side by side.
"""
from dataclasses import dataclass, field
from typing import Sequence, Tuple

from memcore import _lowlevel as ll
from memcore._memcore import lib

KINDS = {
    "dense": lib.MC_LAYER_DENSE,
    "output": lib.MC_LAYER_OUTPUT,
    "activation": lib.MC_LAYER_ACTIVATION,
    "dropout": lib.MC_LAYER_DROPOUT,
    "batchnorm": lib.MC_LAYER_BATCHNORM,
    "conv2d": lib.MC_LAYER_CONV2D,
    "depthwise_conv2d": lib.MC_LAYER_DEPTHWISE_CONV2D,
    "pool2d": lib.MC_LAYER_POOL2D,
    "global_pool": lib.MC_LAYER_GLOBAL_POOL,
    "embedding": lib.MC_LAYER_EMBEDDING,
    "autoencoder": lib.MC_LAYER_AUTOENCODER,
    "l2_distance": lib.MC_LAYER_L2_DISTANCE,
    "l2_normalize": lib.MC_LAYER_L2_NORMALIZE,
    "add": lib.MC_LAYER_ADD,
    "concat": lib.MC_LAYER_CONCAT,
    "reshape": lib.MC_LAYER_RESHAPE,
    "lstm": lib.MC_LAYER_LSTM,
}
MODES = {"inference": lib.MC_MODE_INFERENCE, "training": lib.MC_MODE_TRAINING}


@dataclass(frozen=True)
class Layer:
    kind: str
    input_shape: Tuple[int, ...]
    output_shape: Tuple[int, ...]
    kernel: Tuple[int, int] = (1, 1)
    inputs: int = 1            # tensors merged by add / concat
    bias: bool = True
    dropout: bool = False
    pnorm: bool = False
    optimizer_state_per_parameter: int = 0


@dataclass(frozen=True)
class LayerReport:
    kind: str
    input_elements: int
    output_elements: int
    parameters: int
    non_trainable: int
    updater_state: int
    inference_fixed: int
    inference_per_example: int
    training_fixed: int
    training_per_example: int
    cache_inference: int
    cache_training: int


@dataclass(frozen=True)
class NetworkReport:
    batch: int
    mode: str
    parameters: int
    updater_state: int
    parameter_gradients: int
    activations: int
    activation_gradients: int
    working_memory: int
    working_layer: int
    cache: int
    total: int
    total_bytes: int
    lifetime_activations: int
    lifetime_total: int
    lifetime_total_bytes: int
    layers: Tuple[LayerReport, ...] = field(default=())


def _hwc(name, shape):
    shape = tuple(shape)
    if not 1 <= len(shape) <= 3:
        raise ll.MemcoreError("%s must have 1 to 3 dimensions (per example), got %r" % (name, shape))
    dims = [ll.count("%s[%d]" % (name, i), d) for i, d in enumerate(shape)]
    if len(dims) == 1:
        return 1, 1, dims[0]
    if len(dims) == 2:
        return dims[0], 1, dims[1]
    return tuple(dims)


def _fields(layer: Layer):
    if layer.kind not in KINDS:
        raise ll.MemcoreError("layer kind must be one of %s, got %r" % (sorted(KINDS), layer.kind))
    in_h, in_w, in_c = _hwc("input_shape", layer.input_shape)
    out_h, out_w, out_c = _hwc("output_shape", layer.output_shape)
    kernel = tuple(layer.kernel)
    if len(kernel) != 2:
        raise ll.MemcoreError("kernel must be (height, width), got %r" % (layer.kernel,))
    return dict(kind=KINDS[layer.kind], in_h=in_h, in_w=in_w, in_c=in_c, out_h=out_h, out_w=out_w,
                out_c=out_c, kernel_h=ll.count("kernel[0]", kernel[0], 1),
                kernel_w=ll.count("kernel[1]", kernel[1], 1), inputs=ll.count("inputs", layer.inputs, 1),
                bias=bool(layer.bias), dropout=bool(layer.dropout), pnorm=bool(layer.pnorm),
                state_per_param=ll.count("optimizer_state_per_parameter", layer.optimizer_state_per_parameter))


def _report(kind, raw):
    return LayerReport(kind, raw.input_elements, raw.output_elements, raw.parameters, raw.non_trainable,
                       raw.updater_state, raw.inference_fixed, raw.inference_per_example, raw.training_fixed,
                       raw.training_per_example, raw.cache_inference, raw.cache_training)


def layer_report(kind, input_shape, output_shape, **options) -> LayerReport:
    """One layer's parameters, updater state, working memory and cache, in values.
    options: kernel=(kh, kw), inputs, bias, dropout, pnorm, optimizer_state_per_parameter."""
    layer = Layer(kind, tuple(input_shape), tuple(output_shape), **options)
    return _report(kind, ll.layer_report(_fields(layer)))


def network_report(layers: Sequence[Layer], batch, mode="inference", bytes_per_value=4) -> NetworkReport:
    """Totals for a chain of layers at batch M: the DL4J upper bound and the
    realistic lifetime figure, in values and in bytes."""
    if mode not in MODES:
        raise ll.MemcoreError("mode must be 'inference' or 'training', got %r" % (mode,))
    layers = list(layers)
    if not layers:
        raise ll.MemcoreError("network_report needs at least one layer")
    fields = [_fields(layer) for layer in layers]
    raw = ll.network_report(fields, ll.count("batch", batch), MODES[mode], ll.bits("bytes_per_value", bytes_per_value))
    per_layer = tuple(_report(layer.kind, ll.layer_report(f)) for layer, f in zip(layers, fields))
    return NetworkReport(batch, mode, raw.parameters, raw.updater_state, raw.parameter_gradients, raw.activations,
                         raw.activation_gradients, raw.working_memory, raw.working_layer, raw.cache, raw.total,
                         raw.total_bytes, raw.lifetime_activations, raw.lifetime_total, raw.lifetime_total_bytes,
                         per_layer)
