"""Generates memcore's conformance corpus: small TFLite models covering every operator
kind TensorFlow Lite Micro registers that the TF Lite converter can produce, in float32,
full int8, int8 with float I/O, per-tensor int8 and 16x8 flavours.

TensorFlow is a dependency of this script only (never of memcore).  To run it:

    python3 -m venv /work/venvs/tf
    /work/venvs/tf/bin/pip install tensorflow-cpu==2.21.0 tf-keras==2.21.0
    /work/venvs/tf/bin/python tests/corpus/make_corpus.py            # every model
    /work/venvs/tf/bin/python tests/corpus/make_corpus.py --only lstm  # names containing "lstm"
    /work/venvs/tf/bin/python tests/corpus/make_corpus.py --list       # names only
    /work/venvs/tf/bin/python tests/corpus/make_corpus.py --coverage-only  # COVERAGE.md

from the repository root (tf-keras, Keras 2, is there for the fused LSTM; it pulls in the
`tensorflow` wheel of the same version beside `tensorflow-cpu`).  It (re)writes
tests/corpus/models/<name>_<flavour>.tflite, tests/corpus/manifest.json (per model:
flavour, description, operator kinds, subgraphs, bytes) and tests/corpus/COVERAGE.md
(every registered operator kind -> the models that contain it, or why the converter
cannot produce it).  A full run takes about four minutes on two busy cores; --out DIR
writes elsewhere (to check that a run reproduces the files).  Everything is seeded from
the model's name (weights, calibration data, Keras layer names), so a run with the same
TensorFlow version writes the same bytes, with one exception: the converter's output for
lstm_unrolled_i8 alternates between two variants (17,152 and 18,040 bytes, four tensors
apart) from run to run, even single-threaded; the committed file is the one measured.

Flavours (the file name's suffix):
  f32    float32 throughout
  i8     full int8: int8 input and output, per-channel weights where the op allows
  i8fio  int8 inside, float32 input/output (QUANTIZE / DEQUANTIZE at the edges)
  i8pt   full int8 with per-tensor weights (the converter's per-channel option off)
  i16    16x8: int16 activations, int8 weights, int16 input and output
  f16w   float16 weights (the converter's float16 quantization): float32 activations, each
         weight a float16 constant dequantized by a DEQUANTIZE (TFLM refuses that one)
"""
import argparse
import json
import os
import pathlib
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from keras import layers as L  # noqa: E402
from tensorflow.lite.python import schema_py_generated as schema  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
FLAVOURS = ("f32", "i8", "i8fio", "i8pt", "i16", "f16w")
CALIBRATION_SAMPLES = 16

# ---------------------------------------------------------------------------------------
# The registry.  Each entry builds a Keras model, or a tf.function with its input specs
# (for operators Keras has no layer for); the converter does the rest.


class Spec:
    def __init__(self, name, flavours, description, build, edit=None):
        self.name, self.flavours, self.description, self.build = name, flavours.split(), description, build
        self.edit = edit


REGISTRY = []


def model(name, flavours, description, edit=None):
    """edit(ModelT): for the few operator kinds the converter never emits, a change made
    to its output (the model is then marked "edited" in the manifest)."""
    def register(build):
        assert all(f in FLAVOURS for f in flavours.split()), name
        assert name not in {s.name for s in REGISTRY}, name
        REGISTRY.append(Spec(name, flavours, description, build, edit))
        return build
    return register


class Inp:
    """A model input: shape (batch first; None for a dynamic batch), dtype and the range
    the calibration data is drawn from."""

    def __init__(self, shape, dtype="float32", low=-1.0, high=1.0, name=None):
        self.shape, self.dtype, self.low, self.high, self.name = tuple(shape), dtype, low, high, name

    def tensor_spec(self):
        return tf.TensorSpec(self.shape, tf.as_dtype(self.dtype), name=self.name)

    def sample(self, rng):
        shape = tuple(1 if d is None else d for d in self.shape)  # TFLM's concrete shape
        if self.dtype == "bool":
            return rng.rand(*shape) > 0.5
        if self.dtype.startswith("int"):
            return rng.randint(int(self.low), int(self.high) + 1, size=shape).astype(self.dtype)
        return rng.uniform(self.low, self.high, size=shape).astype(self.dtype)


class FnModel:
    """A tf.function over constant weights, for operators without a Keras layer."""

    def __init__(self, fn, inputs):
        self.fn, self.inputs = fn, inputs


class Fn(L.Layer):
    """Keras layer running plain TensorFlow ops (inputs as a list when several)."""

    def __init__(self, fn, **kw):
        super().__init__(**kw)
        self.fn = fn

    def call(self, x):
        return self.fn(*x) if isinstance(x, (list, tuple)) else self.fn(x)


def keras_model(inputs, build, k=None):
    """inputs: [Inp]; build(*keras tensors) -> output tensor or list of them.  k: the
    Keras to build with (Keras 3 by default; tf_keras, Keras 2, for recurrent layers:
    the converter fuses only Keras 2's LSTM into UNIDIRECTIONAL_SEQUENCE_LSTM, Keras 3's
    becomes a WHILE loop)."""
    k = k or keras
    ins = [k.Input(i.shape[1:], batch_size=i.shape[0], dtype=i.dtype, name=i.name) for i in inputs]
    outs = build(*ins)
    m = k.Model(ins if len(ins) > 1 else ins[0], outs)
    m._corpus_inputs = inputs
    return m


def const(rng, *shape, scale=0.5):
    return tf.constant(rng.uniform(-scale, scale, size=shape).astype(np.float32))


# ---- convolution --------------------------------------------------------------------

@model("conv_k3s1_same_c8", "f32 i8 i8fio i8pt i16", "CONV_2D 3x3 stride 1 SAME 3->8, relu")
def _(rng):
    return keras_model([Inp((1, 12, 12, 3))], lambda x: L.Conv2D(8, 3, padding="same", activation="relu")(x))


@model("conv_k3s2_valid_c7", "f32 i8 i8pt", "CONV_2D 3x3 stride 2 VALID 5->7 (not a multiple of 4)")
def _(rng):
    return keras_model([Inp((1, 15, 15, 5))], lambda x: L.Conv2D(7, 3, strides=2, padding="valid")(x))


@model("conv_1x1_c13", "f32 i8 i8pt", "CONV_2D 1x1 6->13, relu6")
def _(rng):
    return keras_model([Inp((1, 9, 9, 6))], lambda x: L.Conv2D(13, 1, activation="relu6")(x))


@model("conv_k5_dil2", "f32 i8", "CONV_2D 5x5 dilation 2 SAME 4->6")
def _(rng):
    return keras_model([Inp((1, 16, 16, 4))], lambda x: L.Conv2D(6, 5, dilation_rate=2, padding="same")(x))


@model("conv_k3_dil3_valid", "f32 i8", "CONV_2D 3x3 dilation 3 VALID 3->5")
def _(rng):
    return keras_model([Inp((1, 17, 17, 3))], lambda x: L.Conv2D(5, 3, dilation_rate=3)(x))


@model("conv_k7s3_same_c1", "f32 i8", "CONV_2D 7x7 stride 3 SAME 1->9 (one input channel)")
def _(rng):
    return keras_model([Inp((1, 20, 20, 1))], lambda x: L.Conv2D(9, 7, strides=3, padding="same")(x))


@model("conv_k1x5_rect", "f32 i8", "CONV_2D 1x5 kernel, strides (1,2), 8->12 on a 1-row input")
def _(rng):
    return keras_model([Inp((1, 1, 40, 8))], lambda x: L.Conv2D(12, (1, 5), strides=(1, 2), padding="same")(x))


@model("conv_nobias_c32", "f32 i8", "CONV_2D 3x3 without bias, 16->32")
def _(rng):
    return keras_model([Inp((1, 8, 8, 16))], lambda x: L.Conv2D(32, 3, use_bias=False, padding="same")(x))


@model("conv_large_early", "f32 i8", "a large early tensor: CONV_2D 3->16 on 48x48, then MAX_POOL 4x4 and a small head")
def _(rng):
    def build(x):
        x = L.Conv2D(16, 3, padding="same", activation="relu")(x)
        x = L.MaxPooling2D(4)(x)
        x = L.Conv2D(8, 3, padding="same", activation="relu")(x)
        x = L.GlobalAveragePooling2D()(x)
        return L.Dense(5)(x)
    return keras_model([Inp((1, 48, 48, 3))], build)


@model("dwconv_m1_k3", "f32 i8 i8fio i8pt i16", "DEPTHWISE_CONV_2D 3x3 multiplier 1 SAME, 8 channels")
def _(rng):
    return keras_model([Inp((1, 12, 12, 8))], lambda x: L.DepthwiseConv2D(3, padding="same", activation="relu")(x))


@model("dwconv_m2_s2", "f32 i8 i8pt", "DEPTHWISE_CONV_2D 3x3 multiplier 2 stride 2, 5 channels")
def _(rng):
    return keras_model([Inp((1, 14, 14, 5))], lambda x: L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, padding="same")(x))


@model("dwconv_m3_dil2_valid", "f32 i8", "DEPTHWISE_CONV_2D 3x3 multiplier 3 dilation 2 VALID, 3 channels")
def _(rng):
    return keras_model([Inp((1, 15, 15, 3))], lambda x: L.DepthwiseConv2D(3, dilation_rate=2, depth_multiplier=3)(x))


@model("dwconv_k5_c1_m4", "f32 i8", "DEPTHWISE_CONV_2D 5x5 on one channel, multiplier 4")
def _(rng):
    return keras_model([Inp((1, 16, 16, 1))], lambda x: L.DepthwiseConv2D(5, depth_multiplier=4, padding="same")(x))


@model("separable_block", "f32 i8 i8fio", "depthwise-separable blocks (DEPTHWISE_CONV_2D + CONV_2D 1x1) with batch norm folded")
def _(rng):
    def build(x):
        x = L.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
        for c in (12, 16):
            x = L.DepthwiseConv2D(3, padding="same")(x)
            x = L.BatchNormalization()(x)
            x = L.ReLU()(x)
            x = L.Conv2D(c, 1, activation="relu")(x)
        return L.GlobalAveragePooling2D()(x)
    return keras_model([Inp((1, 20, 20, 3))], build)


@model("tconv_k3s2_same", "f32 i8 i8fio i8pt", "TRANSPOSE_CONV 3x3 stride 2 SAME 6->4")
def _(rng):
    return keras_model([Inp((1, 6, 6, 6))], lambda x: L.Conv2DTranspose(4, 3, strides=2, padding="same")(x))


@model("tconv_k4s2_valid_c5", "f32 i8", "TRANSPOSE_CONV 4x4 stride 2 VALID 3->5")
def _(rng):
    return keras_model([Inp((1, 7, 7, 3))], lambda x: L.Conv2DTranspose(5, 4, strides=2, padding="valid")(x))


@model("tconv_k2s1_nobias", "f32 i8", "TRANSPOSE_CONV 2x2 stride 1 without bias 8->8")
def _(rng):
    return keras_model([Inp((1, 5, 5, 8))], lambda x: L.Conv2DTranspose(8, 2, use_bias=False)(x))


@model("tconv_k5s3_same_c16", "f32 i8", "TRANSPOSE_CONV 5x5 stride 3 SAME 4->16 (a large output)")
def _(rng):
    return keras_model([Inp((1, 8, 8, 4))], lambda x: L.Conv2DTranspose(16, 5, strides=3, padding="same")(x))


@model("tconv_decoder", "f32 i8 i8fio", "encoder (CONV_2D stride 2) and a TRANSPOSE_CONV decoder back to full size")
def _(rng):
    def build(x):
        x = L.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
        x = L.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)
        x = L.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu")(x)
        x = L.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")(x)
        return L.Conv2D(1, 1, activation="sigmoid")(x)
    return keras_model([Inp((1, 24, 24, 1))], build)


@model("unet_small", "f32 i8 i8fio", "U-Net: two downsamplings, upsampling (RESIZE_BILINEAR / TRANSPOSE_CONV) and CONCATENATION skips")
def _(rng):
    def build(x):
        d1 = L.Conv2D(6, 3, padding="same", activation="relu")(x)
        p1 = L.MaxPooling2D(2)(d1)
        d2 = L.Conv2D(10, 3, padding="same", activation="relu")(p1)
        p2 = L.MaxPooling2D(2)(d2)
        b = L.Conv2D(14, 3, padding="same", activation="relu")(p2)
        u2 = L.UpSampling2D(2, interpolation="bilinear")(b)
        u2 = L.Conv2D(10, 3, padding="same", activation="relu")(L.Concatenate()([u2, d2]))
        u1 = L.Conv2DTranspose(6, 2, strides=2, padding="same")(u2)
        u1 = L.Conv2D(6, 3, padding="same", activation="relu")(L.Concatenate()([u1, d1]))
        return L.Conv2D(2, 1, activation="softmax")(u1)
    return keras_model([Inp((1, 16, 16, 3))], build)


# ---- pooling ------------------------------------------------------------------------

@model("pool_max_avg", "f32 i8 i8fio i16", "MAX_POOL_2D 2x2 s2 VALID then AVERAGE_POOL_2D 3x3 s1 SAME")
def _(rng):
    return keras_model([Inp((1, 16, 16, 6))],
                       lambda x: L.AveragePooling2D(3, strides=1, padding="same")(L.MaxPooling2D(2)(x)))


@model("pool_max3s2_same_avg2x3", "f32 i8", "MAX_POOL_2D 3x3 s2 SAME then AVERAGE_POOL_2D 2x3 VALID")
def _(rng):
    return keras_model([Inp((1, 15, 17, 5))],
                       lambda x: L.AveragePooling2D((2, 3))(L.MaxPooling2D(3, strides=2, padding="same")(x)))


@model("pool_l2", "f32", "sqrt(avg_pool(x^2)): the L2 pool pattern (SQUARE, AVERAGE_POOL_2D, SQRT)")
def _(rng):
    return FnModel(lambda x: tf.sqrt(tf.nn.avg_pool2d(tf.square(x), 2, 2, "VALID")), [Inp((1, 8, 8, 4))])


@model("global_avg_pool", "f32 i8 i8fio", "GlobalAveragePooling2D (MEAN over H, W) and a dense head")
def _(rng):
    return keras_model([Inp((1, 10, 10, 12))],
                       lambda x: L.Dense(3)(L.GlobalAveragePooling2D()(L.Conv2D(12, 3, padding="same")(x))))


# ---- fully connected ----------------------------------------------------------------

@model("mlp_3layer", "f32 i8 i8fio i8pt i16", "FULLY_CONNECTED 20->16->12->5, relu, SOFTMAX")
def _(rng):
    def build(x):
        x = L.Dense(16, activation="relu")(x)
        x = L.Dense(12, activation="relu")(x)
        return L.Dense(5, activation="softmax")(x)
    return keras_model([Inp((1, 20))], build)


@model("fc_keep_num_dims", "f32 i8 i8pt", "FULLY_CONNECTED on a 3-D input (keep_num_dims): (1,5,12) -> (1,5,7)")
def _(rng):
    return keras_model([Inp((1, 5, 12))], lambda x: L.Dense(7)(x))


@model("fc_odd_sizes", "f32 i8", "FULLY_CONNECTED 37->3 and 3->29, no bias on the second")
def _(rng):
    return keras_model([Inp((1, 37))], lambda x: L.Dense(29, use_bias=False)(L.Dense(3, activation="tanh")(x)))


@model("fc_flatten_conv", "f32 i8 i8pt", "CONV_2D then RESHAPE (flatten) and FULLY_CONNECTED")
def _(rng):
    return keras_model([Inp((1, 8, 8, 2))],
                       lambda x: L.Dense(10)(L.Flatten()(L.Conv2D(4, 3, strides=2, padding="same")(x))))


# ---- reductions ---------------------------------------------------------------------

@model("mean_hw_keep", "f32 i8 i8fio i16", "MEAN over axes 1,2 with keep_dims")
def _(rng):
    return FnModel(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), [Inp((1, 9, 7, 6))])


@model("mean_c_nokeep", "f32 i8", "MEAN over the last axis without keep_dims")
def _(rng):
    return FnModel(lambda x: tf.reduce_mean(x, axis=-1), [Inp((1, 6, 5, 11))])


@model("mean_axis1_3d", "f32 i8", "MEAN over axis 1 of a 3-D tensor, keep_dims")
def _(rng):
    return FnModel(lambda x: tf.reduce_mean(x, axis=1, keepdims=True), [Inp((1, 13, 9))])


@model("mean_all_axes", "f32 i8", "MEAN over axes 1,2,3 without keep_dims")
def _(rng):
    return FnModel(lambda x: tf.reduce_mean(x, axis=[1, 2, 3]), [Inp((1, 4, 6, 8))])


@model("sum_hw", "f32 i8", "SUM over axes 1,2 without keep_dims, and over axis 3 with keep_dims")
def _(rng):
    return FnModel(lambda x: [tf.reduce_sum(x, axis=[1, 2]), tf.reduce_sum(x, axis=3, keepdims=True)],
                   [Inp((1, 5, 5, 7))])


@model("reduce_max_axes", "f32 i8", "REDUCE_MAX over axis 1 (keep_dims) and over axes 2,3")
def _(rng):
    return FnModel(lambda x: [tf.reduce_max(x, axis=1, keepdims=True), tf.reduce_max(x, axis=[2, 3])],
                   [Inp((1, 6, 7, 5))])


@model("reduce_min", "f32 i8", "REDUCE_MIN over the last axis")
def _(rng):
    return FnModel(lambda x: tf.reduce_min(x, axis=-1), [Inp((1, 8, 10))])


@model("reduce_all_any", "f32", "GREATER then REDUCE_ALL over axis 1, CAST to float")
def _(rng):
    return FnModel(lambda x: tf.cast(tf.reduce_all(x > 0.0, axis=1), tf.float32), [Inp((1, 6, 4))])


# ---- matmul, attention --------------------------------------------------------------

@model("bmm_basic", "f32 i8 i8fio", "BATCH_MATMUL of two inputs (1,4,6) x (1,6,5)")
def _(rng):
    return FnModel(lambda a, b: tf.matmul(a, b), [Inp((1, 4, 6)), Inp((1, 6, 5))])


@model("bmm_adj_x", "f32 i8", "BATCH_MATMUL adj_x: (2,6,4)^T x (2,6,5)")
def _(rng):
    return FnModel(lambda a, b: tf.matmul(a, b, adjoint_a=True), [Inp((2, 6, 4)), Inp((2, 6, 5))])


@model("bmm_adj_y", "f32 i8", "BATCH_MATMUL adj_y: (1,3,7) x (1,5,7)^T")
def _(rng):
    return FnModel(lambda a, b: tf.matmul(a, b, adjoint_b=True), [Inp((1, 3, 7)), Inp((1, 5, 7))])


@model("bmm_broadcast", "f32 i8", "BATCH_MATMUL with broadcast batch dimensions (2,1,4,5) x (1,3,5,6)")
def _(rng):
    return FnModel(lambda a, b: tf.matmul(a, b), [Inp((2, 1, 4, 5)), Inp((1, 3, 5, 6))])


@model("bmm_const_rhs_4d", "f32 i8", "BATCH_MATMUL of a 4-D input by a constant broadcast on the batch")
def _(rng):
    w = const(rng, 1, 3, 8, 4)
    return FnModel(lambda a: tf.matmul(a, tf.tile(w, [2, 1, 1, 1])), [Inp((2, 3, 5, 8))])


@model("attention_head", "f32 i8 i8fio", "one self-attention head: dense Q,K,V, BATCH_MATMUL QK^T, SOFTMAX, BATCH_MATMUL with V")
def _(rng):
    def build(x):
        q, k, v = (L.Dense(8)(x) for _ in range(3))
        s = Fn(lambda q, k: tf.matmul(q, k, transpose_b=True) * (1.0 / np.sqrt(8.0)))([q, k])
        a = L.Softmax()(s)
        return Fn(lambda a, v: tf.matmul(a, v))([a, v])
    return keras_model([Inp((1, 6, 10))], build)


@model("multihead_attention", "f32 i8", "Keras MultiHeadAttention, 2 heads, and LayerNormalization")
def _(rng):
    def build(x):
        y = L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
        return L.LayerNormalization()(L.Add()([x, y]))
    return keras_model([Inp((1, 5, 8))], build)


# ---- recurrent ----------------------------------------------------------------------

def tfk():
    import tf_keras
    tf_keras.utils.set_random_seed(int(np.random.randint(2 ** 31)))  # numpy is seeded per model
    return tf_keras


@model("lstm_fused", "f32 i8 i8fio", "Keras LSTM (8 units, 6 steps), the converter's fused UNIDIRECTIONAL_SEQUENCE_LSTM")
def _(rng):
    k = tfk()
    return keras_model([Inp((1, 6, 5))], lambda x: k.layers.Dense(3)(k.layers.LSTM(8)(x)), k)


@model("lstm_fused_seq", "f32 i8", "two stacked LSTMs returning sequences (fused), 4 and 6 units")
def _(rng):
    k = tfk()
    return keras_model([Inp((1, 5, 3))],
                       lambda x: k.layers.LSTM(6, return_sequences=True)(k.layers.LSTM(4, return_sequences=True)(x)), k)


@model("lstm_unrolled", "f32 i8", "Keras LSTM unroll=True: FULLY_CONNECTED, LOGISTIC, TANH, MUL, ADD per step")
def _(rng):
    return keras_model([Inp((1, 4, 5))], lambda x: L.Dense(2)(L.LSTM(6, unroll=True)(x)))


@model("gru_unrolled", "f32 i8", "Keras GRU unroll=True (4 steps, 6 units)")
def _(rng):
    return keras_model([Inp((1, 4, 5))], lambda x: L.Dense(2)(L.GRU(6, unroll=True)(x)))


@model("gru_while", "f32", "Keras GRU not unrolled: a WHILE loop (several subgraphs)")
def _(rng):
    return keras_model([Inp((1, 5, 3))], lambda x: L.GRU(4)(x))


# ---- structures ---------------------------------------------------------------------

@model("resnet_block", "f32 i8 i8fio i8pt", "two residual blocks: CONV_2D, ADD skip connections, a 1x1 projection")
def _(rng):
    def build(x):
        x = L.Conv2D(8, 3, padding="same", activation="relu")(x)
        y = L.Conv2D(8, 3, padding="same", activation="relu")(x)
        y = L.Conv2D(8, 3, padding="same")(y)
        x = L.ReLU()(L.Add()([x, y]))
        y = L.Conv2D(12, 3, strides=2, padding="same", activation="relu")(x)
        y = L.Conv2D(12, 3, padding="same")(y)
        s = L.Conv2D(12, 1, strides=2)(x)
        x = L.ReLU()(L.Add()([s, y]))
        return L.Dense(4)(L.GlobalAveragePooling2D()(x))
    return keras_model([Inp((1, 12, 12, 3))], build)


@model("multi_io", "f32 i8 i8fio", "two inputs (image and vector), CONCATENATION, two outputs")
def _(rng):
    def build(img, vec):
        a = L.GlobalAveragePooling2D()(L.Conv2D(6, 3, padding="same", activation="relu")(img))
        b = L.Dense(6, activation="relu")(vec)
        h = L.Concatenate()([a, b])
        return [L.Dense(3, activation="softmax")(h), L.Dense(1)(h)]
    return keras_model([Inp((1, 8, 8, 2), name="image"), Inp((1, 5), name="vector")], build)


@model("multi_output_3", "f32 i8", "one input, three outputs taken at different depths")
def _(rng):
    def build(x):
        a = L.Dense(10, activation="relu")(x)
        b = L.Dense(8, activation="relu")(a)
        c = L.Dense(4)(b)
        return [a, b, c]
    return keras_model([Inp((1, 12))], build)


@model("many_tiny_tensors", "f32 i8", "a chain of 60 tiny ADD / MUL ops on 1x4 tensors")
def _(rng):
    ws = [rng.uniform(0.5, 1.5, size=(1, 4)).astype(np.float32) for _ in range(60)]

    def fn(x):
        for k, w in enumerate(ws):
            x = x * w if k % 2 else x + w
        return x
    return FnModel(fn, [Inp((1, 4))])


@model("wide_branches", "f32 i8 i8fio", "eight parallel CONV_2D branches joined by CONCATENATION")
def _(rng):
    def build(x):
        branches = [L.Conv2D(3 + k % 3, 1 + 2 * (k % 2), padding="same", activation="relu")(x) for k in range(8)]
        return L.Conv2D(4, 1)(L.Concatenate()(branches))
    return keras_model([Inp((1, 10, 10, 4))], build)


@model("wide_long_lived", "f32 i8", "branches whose outputs stay alive until a late ADD_N-like sum (many live tensors)")
def _(rng):
    def build(x):
        outs = []
        h = x
        for k in range(5):
            h = L.Conv2D(4, 3, padding="same", activation="relu")(h)
            outs.append(h)
        return L.Add()(outs)
    return keras_model([Inp((1, 8, 8, 4))], build)


@model("squeeze_excite", "f32 i8 i8fio", "squeeze-and-excite: MEAN, FULLY_CONNECTED, relu, LOGISTIC, MUL broadcast")
def _(rng):
    def build(x):
        x = L.Conv2D(16, 3, padding="same", activation="relu")(x)
        s = L.GlobalAveragePooling2D(keepdims=True)(x)
        s = L.Dense(4, activation="relu")(s)
        s = L.Dense(16, activation="sigmoid")(s)
        return L.Multiply()([x, s])
    return keras_model([Inp((1, 8, 8, 4))], build)


@model("layer_norm", "f32 i8 i8fio", "Keras LayerNormalization on (1,6,10): MEAN, SQUARED_DIFFERENCE, RSQRT, MUL, SUB, ADD")
def _(rng):
    return keras_model([Inp((1, 6, 10))], lambda x: L.LayerNormalization()(L.Dense(10)(x)))


@model("argmax_head", "f32 i8 i8fio", "CONV_2D then ARG_MAX over channels (int32 output)")
def _(rng):
    return keras_model([Inp((1, 8, 8, 3))],
                       lambda x: Fn(lambda y: tf.argmax(y, axis=-1, output_type=tf.int32))(L.Conv2D(5, 3, padding="same")(x)))


@model("argmin_head", "f32 i8", "FULLY_CONNECTED then ARG_MIN (int64 output)")
def _(rng):
    return keras_model([Inp((1, 16))], lambda x: Fn(lambda y: tf.argmin(y, axis=1))(L.Dense(7)(x)))


@model("dynamic_batch", "f32 i8 i8fio", "shape signature with a dynamic batch (-1), concrete shape 1: CONV_2D, MEAN, FULLY_CONNECTED")
def _(rng):
    return keras_model([Inp((None, 8, 8, 3))],
                       lambda x: L.Dense(4)(L.GlobalAveragePooling2D()(L.Conv2D(6, 3, padding="same", activation="relu")(x))))


@model("dynamic_batch_mlp", "f32 i8", "dynamic batch (-1) MLP: FULLY_CONNECTED and SOFTMAX")
def _(rng):
    return keras_model([Inp((None, 10))], lambda x: L.Dense(4, activation="softmax")(L.Dense(8, activation="relu")(x)))


@model("softmax_heads", "f32 i8 i8fio", "SOFTMAX and LOG_SOFTMAX heads on a dense layer")
def _(rng):
    def build(x):
        h = L.Dense(9)(x)
        return [L.Softmax()(h), Fn(tf.nn.log_softmax)(h)]
    return keras_model([Inp((1, 12))], build)


@model("softmax_4d_beta", "f32 i8", "SOFTMAX over the channels of a 4-D tensor with beta 0.5")
def _(rng):
    return FnModel(lambda x: tf.nn.softmax(0.5 * x, axis=-1), [Inp((1, 4, 4, 10))])


@model("kws_like", "f32 i8 i8fio", "keyword-spotting DS-CNN in miniature: CONV 10x4 stride 2, 2 DS blocks, AVERAGE_POOL, FC")
def _(rng):
    def build(x):
        x = L.Conv2D(16, (10, 4), strides=2, padding="same", activation="relu")(x)
        for _ in range(2):
            x = L.DepthwiseConv2D(3, padding="same", activation="relu")(x)
            x = L.Conv2D(16, 1, activation="relu")(x)
        x = L.AveragePooling2D((x.shape[1], x.shape[2]))(x)
        return L.Dense(6, activation="softmax")(L.Flatten()(x))
    return keras_model([Inp((1, 25, 10, 1))], build)


# ---- shape manipulation ------------------------------------------------------------

@model("concat_axes", "f32 i8 i8fio", "CONCATENATION on axes 1, 2 and 3 of three inputs")
def _(rng):
    return FnModel(lambda a, b, c: [tf.concat([a, b], 1), tf.concat([a, c], 2), tf.concat([a, b, a], 3)],
                   [Inp((1, 4, 4, 3)), Inp((1, 4, 4, 3)), Inp((1, 4, 4, 3), low=-2, high=2)])


@model("pad_slice_strided", "f32 i8 i8fio", "PAD, SLICE and STRIDED_SLICE (strides 2, begin/end masks, shrink axis)")
def _(rng):
    def fn(x):
        p = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]])
        s = tf.slice(p, [0, 1, 1, 0], [1, 6, 5, 3])
        t = p[:, 1::2, ::3, 1:]
        u = p[:, 2, :, :]
        return [s, t, u]
    return FnModel(fn, [Inp((1, 7, 6, 4))])


@model("padv2_mirror", "f32 i8", "PADV2 (constant 1.5) and MIRROR_PAD (REFLECT and SYMMETRIC)")
def _(rng):
    def fn(x):
        a = tf.pad(x, [[0, 0], [1, 1], [2, 0], [0, 0]], constant_values=1.5)
        b = tf.pad(x, [[0, 0], [2, 2], [1, 1], [0, 0]], mode="REFLECT")
        c = tf.pad(x, [[0, 0], [1, 0], [0, 2], [0, 0]], mode="SYMMETRIC")
        return [a, b, c]
    return FnModel(fn, [Inp((1, 5, 5, 3))])


@model("resize_bilinear", "f32 i8 i8fio", "RESIZE_BILINEAR x2 (half-pixel centers) and to 7x5 (align corners)")
def _(rng):
    def fn(x):
        a = tf.image.resize(x, [12, 12], method="bilinear")
        b = tf.compat.v1.image.resize_bilinear(x, [7, 5], align_corners=True)
        return [a, b]
    return FnModel(fn, [Inp((1, 6, 6, 3))])


@model("resize_nearest", "f32 i8", "RESIZE_NEAREST_NEIGHBOR x3 and down to 4x4")
def _(rng):
    def fn(x):
        return [tf.image.resize(x, [15, 15], method="nearest"), tf.image.resize(x, [4, 4], method="nearest")]
    return FnModel(fn, [Inp((1, 5, 5, 4))])


@model("split_unpack_pack", "f32 i8 i8fio", "SPLIT (3 ways), SPLIT_V (2,5,1), UNPACK and PACK")
def _(rng):
    def fn(x):
        a, b, c = tf.split(x, 3, axis=3)
        d, e, f = tf.split(x, [2, 5, 1], axis=1)
        rows = tf.unstack(x[:, :, :, 0], axis=1)
        packed = tf.stack(rows[::-1], axis=2)
        return [a + b * c, d, e, f, packed]
    return FnModel(fn, [Inp((1, 8, 4, 6))])


@model("gather_axes", "f32 i8", "GATHER with constant indices on axes 1 and 3")
def _(rng):
    def fn(x):
        return [tf.gather(x, [3, 0, 2], axis=1), tf.gather(x, [[1, 1], [0, 4]], axis=3)]
    return FnModel(fn, [Inp((1, 5, 4, 6))])


@model("gather_input_indices", "f32 i8", "GATHER of a constant table by int32 indices given as an input")
def _(rng):
    table = const(rng, 20, 6)
    return FnModel(lambda i, x: tf.gather(table, i) + x, [Inp((1, 5), "int32", 0, 19), Inp((1, 5, 6))])


@model("gather_nd", "f32 i8", "GATHER_ND with constant and with input indices")
def _(rng):
    def fn(x, idx):
        return [tf.gather_nd(x, [[0, 1], [0, 3]]), tf.gather_nd(x, idx)]
    return FnModel(fn, [Inp((1, 4, 5)), Inp((3, 2), "int32", 0, 0)])


@model("transpose_perms", "f32 i8 i8fio", "TRANSPOSE with perms (0,2,1,3), (0,3,1,2) and a 5-D perm")
def _(rng):
    def fn(x):
        a = tf.transpose(x, [0, 2, 1, 3])
        b = tf.transpose(x, [0, 3, 1, 2])
        c = tf.transpose(tf.reshape(x, [1, 3, 2, 4, 5]), [0, 4, 2, 3, 1])
        return [a, b, c]
    return FnModel(fn, [Inp((1, 6, 4, 5))])


@model("depth_space", "f32 i8", "SPACE_TO_DEPTH block 2 and DEPTH_TO_SPACE block 2")
def _(rng):
    return FnModel(lambda x: [tf.nn.space_to_depth(x, 2), tf.nn.depth_to_space(x, 2)], [Inp((1, 6, 6, 8))])


@model("space_batch_nd", "f32 i8", "SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND with paddings and crops")
def _(rng):
    def fn(x):
        s = tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]])
        return [s, tf.batch_to_space(s * 2.0, [2, 2], [[1, 1], [0, 2]])]
    return FnModel(fn, [Inp((1, 6, 6, 3))])


@model("reverse_v2", "f32 i8", "REVERSE_V2 over axis 1 and over axis 3")
def _(rng):
    return FnModel(lambda x: [tf.reverse(x, [1]), tf.reverse(x, [3])], [Inp((1, 4, 5, 3))])


@model("squeeze_expand", "f32", "SQUEEZE and EXPAND_DIMS around a reduction (static shapes: RESHAPE)")
def _(rng):
    def fn(x):
        s = tf.squeeze(x, axis=[2])
        m = tf.reduce_max(s, axis=-1)
        return tf.expand_dims(m, axis=1) + tf.expand_dims(s[:, :, 0], axis=2)
    return FnModel(fn, [Inp((1, 6, 1, 4))])


@model("squeeze_all_dynamic", "f32", "SQUEEZE with no axis and EXPAND_DIMS on a dynamic-batch input: TFLM refuses it "
       "(the squeeze's output was inferred for a batch above 1)")
def _(rng):
    def fn(x):
        s = tf.squeeze(x)
        return [tf.expand_dims(x[:, :, 0, :] * 2.0, axis=1), s + 1.0]
    return FnModel(fn, [Inp((None, 6, 1, 4))])


@model("squeeze_dynamic", "f32 i8", "SQUEEZE of axis 0 of a (1, -1, -1, 4) input (concrete 1, 1, 1, 4): two "
       "dynamic axes keep the converter from rewriting it to RESHAPE")
def _(rng):
    return FnModel(lambda x: tf.squeeze(x * 2.0, axis=[0]) + 1.0, [Inp((1, None, None, 4))])


@model("expand_dims_dynamic", "f32 i8", "EXPAND_DIMS on a dynamic-batch input")
def _(rng):
    return FnModel(lambda x: tf.expand_dims(x * 2.0, axis=2), [Inp((None, 6, 4))])


@model("broadcast_to", "f32 i8", "BROADCAST_TO (1,1,4) -> (1,3,5,4)")
def _(rng):
    return FnModel(lambda x: tf.broadcast_to(tf.reshape(x * 2.0, [1, 1, 1, 4]), [1, 3, 5, 4]), [Inp((1, 4))])


@model("broadcast_args", "f32", "BROADCAST_ARGS of two int32 shape inputs")
def _(rng):
    return FnModel(lambda a, b: tf.raw_ops.BroadcastArgs(s0=a, s1=b),
                   [Inp((3,), "int32", 1, 1), Inp((3,), "int32", 1, 1)])


@model("cumsum", "f32", "CUMSUM over axis 1, and exclusive reverse over axis 2")
def _(rng):
    return FnModel(lambda x: [tf.math.cumsum(x, axis=1), tf.math.cumsum(x, axis=2, exclusive=True, reverse=True)],
                   [Inp((1, 6, 5))])


@model("dynamic_update_slice", "f32", "DYNAMIC_UPDATE_SLICE of an update into a tensor at an int32 input position")
def _(rng):
    from tensorflow.compiler.tf2xla.python import xla
    return FnModel(lambda x, u, pos: xla.dynamic_update_slice(x, u, pos),
                   [Inp((1, 6, 6)), Inp((1, 2, 3)), Inp((3,), "int32", 0, 2)])


@model("embedding_lookup", "f32", "embedding_lookup of a constant table by input ids")
def _(rng):
    table = const(rng, 16, 4)
    return FnModel(lambda ids: tf.nn.embedding_lookup(table, ids), [Inp((1, 6), "int32", 0, 15)])


@model("embedding_keras", "f32 i8", "Keras 2 Embedding (12 x 5) and a dense head: GATHER")
def _(rng):
    k = tfk()
    return keras_model([Inp((1, 7), "int32", 0, 11)],
                       lambda ids: k.layers.Dense(3)(k.layers.GlobalAveragePooling1D()(k.layers.Embedding(12, 5)(ids))), k)


@model("fill_zeros_like", "f32", "FILL with an input scalar value, ZEROS_LIKE, SHAPE of a dynamic-batch input")
def _(rng):
    def fn(x, v):
        f = tf.fill([2, 3], v)
        z = tf.zeros_like(x) + x
        return [f, z, tf.shape(x)]
    return FnModel(fn, [Inp((None, 4)), Inp((), "float32")])


@model("shape_dynamic_batch", "f32", "SHAPE of a dynamic-batch input feeding a RESHAPE: TFLM refuses it (the "
       "RESHAPE's output shape was left dynamic)")
def _(rng):
    def fn(x):
        s = tf.shape(x)
        return tf.reshape(x, tf.stack([s[0], -1])) * 2.0
    return FnModel(fn, [Inp((None, 3, 4))])


# ---- elementwise --------------------------------------------------------------------

@model("unary_float_a", "f32", "ABS, NEG, EXP, LOG, SQRT, RSQRT, SQUARE")
def _(rng):
    def fn(x):
        a = tf.abs(x) + 0.1
        return [tf.negative(x), tf.exp(x), tf.math.log(a), tf.sqrt(a), tf.math.rsqrt(a), tf.square(x)]
    return FnModel(fn, [Inp((1, 5, 6))])


@model("unary_float_b", "f32", "SIN, COS, CEIL, FLOOR, ROUND")
def _(rng):
    def fn(x):
        return [tf.sin(x), tf.cos(x), tf.math.ceil(x), tf.floor(x), tf.round(x)]
    return FnModel(fn, [Inp((1, 7, 3), low=-3, high=3)])


@model("unary_int8", "f32 i8 i8fio", "ABS, NEG and RSQRT in the int8 flavours")
def _(rng):
    def fn(x):
        return [tf.abs(x), tf.negative(x), tf.math.rsqrt(tf.abs(x) + 0.5)]
    return FnModel(fn, [Inp((1, 6, 4))])


@model("activations", "f32 i8 i8fio", "RELU, RELU6, TANH, LOGISTIC, ELU, LEAKY_RELU, HARD_SWISH")
def _(rng):
    def fn(x):
        return [tf.nn.relu(x), tf.nn.relu6(x), tf.tanh(x), tf.sigmoid(x), tf.nn.elu(x),
                tf.nn.leaky_relu(x, 0.1), x * tf.nn.relu6(x + 3.0) / 6.0]
    return FnModel(fn, [Inp((1, 4, 4, 5), low=-4, high=4)])


@model("prelu", "f32 i8 i8fio", "Keras PReLU shared over H, W (PRELU) after a conv")
def _(rng):
    return keras_model([Inp((1, 6, 6, 3))],
                       lambda x: L.PReLU(alpha_initializer=keras.initializers.Constant(0.2), shared_axes=[1, 2])(L.Conv2D(5, 3)(x)))


@model("binary_arith", "f32 i8 i8fio", "ADD, SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE of two inputs")
def _(rng):
    def fn(a, b):
        return [a + b, a - b, a * b, tf.maximum(a, b), tf.minimum(a, b), tf.math.squared_difference(a, b)]
    return FnModel(fn, [Inp((1, 4, 6)), Inp((1, 4, 6), low=-2, high=2)])


@model("binary_broadcast", "f32 i8 i16", "ADD and MUL with 4-D broadcasting (1,4,1,3) with (1,1,5,3)")
def _(rng):
    return FnModel(lambda a, b: [a + b, a * b], [Inp((1, 4, 1, 3)), Inp((1, 1, 5, 3))])


@model("div_floor", "f32", "DIV, FLOOR_DIV and FLOOR_MOD")
def _(rng):
    def fn(a, b):
        d = tf.abs(b) + 0.5
        return [a / d, tf.math.floordiv(a, d), tf.math.floormod(a, d)]
    return FnModel(fn, [Inp((1, 3, 5), low=-4, high=4), Inp((1, 3, 5))])


@model("div_int8", "f32 i8", "DIV of two inputs, int8")
def _(rng):
    return FnModel(lambda a, b: a / b, [Inp((1, 6, 4)), Inp((1, 6, 4), low=0.5, high=2.0)])


@model("compare_select", "f32 i8", "GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, EQUAL, NOT_EQUAL, LOGICAL_*, SELECT_V2 (broadcast)")
def _(rng):
    def fn(a, b, c):
        g, l, le = a > b, a < b, a <= b
        eq, ne = tf.equal(tf.round(a), tf.round(b)), tf.not_equal(a, b)
        m = tf.logical_or(tf.logical_and(g, ne), tf.logical_and(tf.logical_not(l), le))
        return [tf.where(m, a, c), tf.where(tf.logical_or(l, eq), c, b), tf.cast(a >= c, tf.float32)]
    return FnModel(fn, [Inp((1, 5, 4)), Inp((1, 5, 4)), Inp((1, 1, 4))])


@model("logical_bool_io", "f32", "LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT on bool inputs and outputs")
def _(rng):
    return FnModel(lambda a, b: [tf.logical_and(a, b), tf.logical_or(a, tf.logical_not(b))],
                   [Inp((1, 8), "bool"), Inp((1, 8), "bool")])


@model("cast_int", "f32", "CAST float -> int32 -> float, and int32 input ADD")
def _(rng):
    return FnModel(lambda x, i: [tf.cast(tf.cast(x * 4.0, tf.int32) + i, tf.float32)],
                   [Inp((1, 6)), Inp((1, 6), "int32", -3, 3)])


@model("add_n", "f32 i8", "ADD_N of four inputs")
def _(rng):
    return FnModel(lambda a, b, c, d: tf.add_n([a, b, c, d]), [Inp((1, 3, 4)) for _ in range(4)])


@model("l2_normalize", "f32 i8 i8fio", "tf.math.l2_normalize over the last axis: L2_NORMALIZATION")
def _(rng):
    return keras_model([Inp((1, 12))], lambda x: Fn(lambda y: tf.math.l2_normalize(y, axis=-1))(L.Dense(8)(x)))


# ---- edited after conversion: kinds the converter never emits ------------------------

def _recode(m, old, new):
    """Operator codes `old` -> `new`; returns the indices of the codes changed."""
    changed = []
    for k, code in enumerate(m.operatorCodes):
        if max(code.builtinCode, code.deprecatedBuiltinCode) == old:
            code.builtinCode = code.deprecatedBuiltinCode = new
            changed.append(k)
    assert changed, "no operator of code %d to edit" % old
    return changed


def to_l2_pool(m):
    """AVERAGE_POOL_2D -> L2_POOL_2D: both take Pool2DOptions and one input."""
    _recode(m, schema.BuiltinOperator.AVERAGE_POOL_2D, schema.BuiltinOperator.L2_POOL_2D)


def to_embedding_lookup(m):
    """GATHER(params, indices) on axis 0 -> EMBEDDING_LOOKUP(ids, table), no options."""
    codes = _recode(m, schema.BuiltinOperator.GATHER, schema.BuiltinOperator.EMBEDDING_LOOKUP)
    for sg in m.subgraphs:
        for op in sg.operators:
            if op.opcodeIndex in codes:
                op.inputs = [op.inputs[1], op.inputs[0]]
                op.builtinOptionsType, op.builtinOptions = schema.BuiltinOptions.NONE, None


def to_svdf(m, memory_size=3):
    """FULLY_CONNECTED(x, weights [filters, in], bias) -> SVDF(x, weights_feature = the same
    weights, weights_time [filters, memory_size] (new, seeded), bias, activation_state
    [batch, memory_size * filters] (a new variable tensor)), rank 1."""
    codes = _recode(m, schema.BuiltinOperator.FULLY_CONNECTED, schema.BuiltinOperator.SVDF)
    sg = m.subgraphs[0]
    (op,) = [o for o in sg.operators if o.opcodeIndex in codes]
    x, weights, bias = op.inputs
    filters = int(sg.tensors[weights].shape[0])
    batch = int(sg.tensors[x].shape[0])

    def add_tensor(name, shape, data=None, variable=False):
        buffer = schema.BufferT()
        if data is not None:
            buffer.data = np.frombuffer(data.astype(np.float32).tobytes(), dtype=np.uint8)
        m.buffers.append(buffer)
        t = schema.TensorT()
        t.name, t.shape, t.type = name.encode(), np.array(shape, dtype=np.int32), schema.TensorType.FLOAT32
        t.buffer, t.isVariable = len(m.buffers) - 1, variable
        sg.tensors.append(t)
        return len(sg.tensors) - 1
    rng = np.random.RandomState(7)
    time_weights = add_tensor("svdf/weights_time", [filters, memory_size],
                              rng.uniform(-0.5, 0.5, size=(filters, memory_size)))
    state = add_tensor("svdf/activation_state", [batch, memory_size * filters], variable=True)
    op.inputs = [x, weights, time_weights, bias, state]
    op.builtinOptionsType = schema.BuiltinOptions.SVDFOptions
    op.builtinOptions = schema.SVDFOptionsT()
    op.builtinOptions.rank = 1
    op.builtinOptions.fusedActivationFunction = schema.ActivationFunctionType.RELU


@model("svdf_edited", "f32", "SVDF rank 1, 6 filters, memory 3, relu: a FULLY_CONNECTED's converter output "
       "rewritten (weights_time and the variable activation state added)", edit=to_svdf)
def _(rng):
    return FnModel(lambda x: tf.matmul(x, const(rng, 8, 6)) + const(rng, 6), [Inp((1, 8))])


@model("l2_pool_edited", "f32", "L2_POOL_2D 2x2 stride 2 and 3x3 SAME: AVERAGE_POOL_2D's converter output with "
       "the operator code changed", edit=to_l2_pool)
def _(rng):
    return FnModel(lambda x: [tf.nn.avg_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, 3, 1, "SAME")],
                   [Inp((1, 8, 8, 4))])


@model("embedding_lookup_edited", "f32", "EMBEDDING_LOOKUP of a (16, 4) table by 6 int32 ids: GATHER's "
       "converter output with the code changed and the inputs swapped", edit=to_embedding_lookup)
def _(rng):
    table = const(rng, 16, 4)
    return FnModel(lambda ids: tf.gather(table, ids), [Inp((6,), "int32", 0, 15)])


# ---- 16x8 ---------------------------------------------------------------------------

@model("i16_conv_pool_fc", "i16", "16x8: CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, FULLY_CONNECTED, SOFTMAX")
def _(rng):
    def build(x):
        x = L.Conv2D(6, 3, padding="same", activation="relu")(x)
        x = L.DepthwiseConv2D(3, padding="same", activation="relu")(x)
        x = L.MaxPooling2D(2)(x)
        return L.Dense(4, activation="softmax")(L.Flatten()(x))
    return keras_model([Inp((1, 8, 8, 2))], build)


@model("i16_activations", "i16", "16x8: TANH, LOGISTIC, RELU, LEAKY_RELU and SOFTMAX")
def _(rng):
    def fn(x):
        return [tf.tanh(x), tf.sigmoid(x), tf.nn.relu(x), tf.nn.leaky_relu(x, 0.2), tf.nn.softmax(x)]
    return FnModel(fn, [Inp((1, 4, 6), low=-3, high=3)])


@model("i16_tconv", "i16", "16x8: TRANSPOSE_CONV 3x3 stride 2")
def _(rng):
    return keras_model([Inp((1, 5, 5, 4))], lambda x: L.Conv2DTranspose(3, 3, strides=2, padding="same")(x))


# ---- several subgraphs --------------------------------------------------------------

@model("control_if", "f32", "tf.cond on an input: IF with two branch subgraphs")
def _(rng):
    def fn(x, flag):
        return tf.cond(flag[0] > 0, lambda: x * 2.0 + 1.0, lambda: tf.nn.relu(x) - 1.0)
    return FnModel(fn, [Inp((1, 6)), Inp((1,), "int32", 0, 1)])


@model("control_while", "f32", "tf.while_loop: WHILE with condition and body subgraphs")
def _(rng):
    def fn(x):
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 0.5 + 1.0), [tf.constant(0), x])
        return y
    return FnModel(fn, [Inp((1, 5))])


@model("resource_variable", "f32", "a tf.Variable state: VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE (init subgraph)")
def _(rng):
    return "resource"


# ---- models TFLM refuses in a kernel's Prepare ----------------------------------------
# The converter writes them; TFLM's AllocateTensors() fails on them (the kernel and its
# check are in the description), so memcore must refuse them too, naming the kernel.

@model("refused_f16w_conv", "f16w", "CONV_2D with float16 weights: DEQUANTIZE of float16 (dequantize_common.cc takes int8, int16, uint8)")
def _(rng):
    return keras_model([Inp((1, 8, 8, 3))], lambda x: L.Conv2D(6, 3, padding="same", activation="relu")(x))


@model("refused_f16w_dense", "f16w", "a float16-weight MLP: DEQUANTIZE of float16 (dequantize_common.cc)")
def _(rng):
    return keras_model([Inp((1, 16))], lambda x: L.Dense(4)(L.Dense(12, activation="relu")(x)))


@model("refused_exp", "i8 i16", "EXP quantized (exp.cc: float32 only)")
def _(rng):
    return FnModel(lambda x: tf.exp(x), [Inp((1, 5, 4))])


@model("refused_gather", "i16", "GATHER in 16x8 (gather.cc: float32 and int8 only)")
def _(rng):
    idx = tf.constant([2, 0, 1], tf.int32)
    return FnModel(lambda x: tf.gather(x, idx, axis=1) * 1.5, [Inp((1, 4, 6))])


@model("refused_transpose_6d", "f32", "TRANSPOSE of a 6-D tensor (transpose_common.cc: at most 5-D)")
def _(rng):
    return FnModel(lambda x: tf.transpose(x, [0, 2, 1, 3, 5, 4]) + 1.0, [Inp((1, 2, 3, 2, 2, 3))])


@model("refused_strided_slice_5d", "f32", "STRIDED_SLICE of a 5-D tensor (strided_slice_common.cc: at most 4-D)")
def _(rng):
    return FnModel(lambda x: x[:, 1:, :, ::2, :] * 2.0, [Inp((1, 3, 2, 4, 3))])


@model("refused_concat_12", "f32", "CONCATENATION of 12 inputs (concatenation.cc: at most 10)")
def _(rng):
    return FnModel(lambda *xs: tf.concat([x * 1.0 for x in xs], axis=1), [Inp((1, 2)) for _ in range(12)])


# ---------------------------------------------------------------------------------------
# Conversion


class Stateful(tf.Module):
    def __init__(self):
        super().__init__()
        self.state = tf.Variable(tf.zeros([1, 4]))

    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32)])
    def __call__(self, x):
        self.state.assign(self.state * 0.5 + x)
        return self.state + 1.0


def converter_for(built):
    """(converter, [Inp]) for a Keras model, a FnModel or the resource-variable module."""
    if isinstance(built, str) and built == "resource":
        module = Stateful()
        c = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
        c.experimental_enable_resource_variables = True
        return c, [Inp((1, 4))]
    if isinstance(built, FnModel):
        fn = tf.function(built.fn, input_signature=[i.tensor_spec() for i in built.inputs])
        c = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
        return c, built.inputs
    return tf.lite.TFLiteConverter.from_keras_model(built), built._corpus_inputs


def convert(spec, flavour):
    seed = zlib.crc32(spec.name.encode()) & 0x7FFFFFFF
    keras.backend.clear_session()  # layer names (which end up in the file) restart per model
    import tf_keras
    tf_keras.backend.clear_session()
    keras.utils.set_random_seed(seed)
    built = spec.build(np.random.RandomState(seed))
    c, inputs = converter_for(built)
    if spec.name == "dynamic_update_slice":
        c._experimental_enable_dynamic_update_slice = True
    if flavour == "f16w":
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        c.target_spec.supported_types = [tf.float16]
    elif flavour != "f32":
        calibration = np.random.RandomState(seed + 1)
        samples = [[i.sample(calibration) for i in inputs] for _ in range(CALIBRATION_SAMPLES)]
        if all(i.name for i in inputs):  # named inputs: the converter may order them otherwise
            samples = [dict(zip((i.name for i in inputs), sample)) for sample in samples]
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        c.representative_dataset = lambda: iter(samples)
        if flavour == "i16":
            c.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            c.inference_input_type = c.inference_output_type = tf.int16
        else:
            c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            if flavour in ("i8", "i8pt"):
                c.inference_input_type = c.inference_output_type = tf.int8
            if flavour == "i8pt":
                c._experimental_disable_per_channel = True
                c._experimental_disable_per_channel_quantization_for_dense_layers = True
    else:
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    data = c.convert()
    if describe(data)["subgraphs"] > 1:
        data = stable_subgraph_names(data)
    if spec.edit:
        from tensorflow.lite.tools import flatbuffer_utils
        m = flatbuffer_utils.convert_bytearray_to_object(data)
        spec.edit(m)
        data = bytes(flatbuffer_utils.convert_object_to_bytearray(m))
    return data


def stable_subgraph_names(data):
    """tf.cond / tf.while_loop name their branch subgraphs after a process-wide counter
    (cond_true_1568880), and tensors after them (cond_true_1568880_arg0): number the
    subgraphs by position instead, so that a run writes the same bytes whatever ran before
    it in the process."""
    from tensorflow.lite.tools import flatbuffer_utils
    m = flatbuffer_utils.convert_bytearray_to_object(data)
    renamed = {}
    for k, sg in enumerate(m.subgraphs):
        if sg.name and k > 0:
            old = sg.name.decode()
            renamed[old] = old.rstrip("0123456789").rstrip("_") + "_sg%d" % k
            sg.name = renamed[old].encode()
    for sg in m.subgraphs:
        for t in sg.tensors:
            name = t.name.decode() if t.name else ""
            for old in sorted(renamed, key=len, reverse=True):
                name = name.replace(old, renamed[old])
            t.name = name.encode()
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


_BUILTIN_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def describe(data):
    """{"operators": {kind: count}, "subgraphs": n} of a converted flatbuffer."""
    m = schema.Model.GetRootAsModel(data, 0)
    kinds = {}
    for g in range(m.SubgraphsLength()):
        sg = m.Subgraphs(g)
        for k in range(sg.OperatorsLength()):
            code = m.OperatorCodes(sg.Operators(k).OpcodeIndex())
            builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
            name = _BUILTIN_NAMES.get(builtin, str(builtin))
            if name == "CUSTOM":
                name = "CUSTOM:" + code.CustomCode().decode()
            kinds[name] = kinds.get(name, 0) + 1
    return {"operators": dict(sorted(kinds.items())), "subgraphs": m.SubgraphsLength()}


# ---------------------------------------------------------------------------------------
# Coverage: every operator kind TFLM's MicroMutableOpResolver registers (tflite-micro
# 90b983c2, tensorflow/lite/micro/micro_mutable_op_resolver.h, Add* methods), and for
# those the converter cannot produce, why.

REGISTERED = """ABS ADD ADD_N ARG_MAX ARG_MIN ASSIGN_VARIABLE AVERAGE_POOL_2D BATCH_MATMUL
BATCH_TO_SPACE_ND BROADCAST_ARGS BROADCAST_TO CALL_ONCE CAST CEIL CONCATENATION CONV_2D COS CUMSUM
DEPTH_TO_SPACE DEPTHWISE_CONV_2D DEQUANTIZE DIV DYNAMIC_UPDATE_SLICE ELU EMBEDDING_LOOKUP EQUAL EXP
EXPAND_DIMS FILL FLOOR FLOOR_DIV FLOOR_MOD FULLY_CONNECTED GATHER GATHER_ND GREATER GREATER_EQUAL
HARD_SWISH IF L2_NORMALIZATION L2_POOL_2D LEAKY_RELU LESS LESS_EQUAL LOG LOGICAL_AND LOGICAL_NOT
LOGICAL_OR LOGISTIC LOG_SOFTMAX MAXIMUM MAX_POOL_2D MIRROR_PAD MEAN MINIMUM MUL NEG NOT_EQUAL PACK
PAD PADV2 PRELU QUANTIZE READ_VARIABLE REDUCE_ALL REDUCE_MAX REDUCE_MIN RELU RELU6 RESHAPE
RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR REVERSE_V2 ROUND RSQRT SELECT_V2 SHAPE SIN SLICE SOFTMAX
SPACE_TO_BATCH_ND SPACE_TO_DEPTH SPLIT SPLIT_V SQUEEZE SQRT SQUARE SQUARED_DIFFERENCE STRIDED_SLICE
SUB SUM SVDF TANH TRANSPOSE_CONV TRANSPOSE UNPACK UNIDIRECTIONAL_SEQUENCE_LSTM VAR_HANDLE WHILE
ZEROS_LIKE""".split()

REGISTERED_CUSTOM = """CIRCULAR_BUFFER TFLM_DECODE SignalDelay TFLite_Detection_PostProcess
SignalEnergy ETHOSU SignalFftAutoScale SignalFilterBank SignalFilterBankLog
SignalFilterBankSquareRoot SignalFilterBankSpectralSubtraction SignalFramer SignalIrfft
SignalOverlapAdd SignalPCAN SignalRfft SignalStacker SignalWindow""".split()

WHY_NOT_BUILTIN = {
    "EMBEDDING_LOOKUP": "tf.nn.embedding_lookup and the Keras Embedding layer both become GATHER with this "
                        "converter (embedding_lookup_f32, embedding_keras_*); no TensorFlow op was found "
                        "that converts to EMBEDDING_LOOKUP",
    "L2_POOL_2D": "TensorFlow has no L2-pool op and the converter does not fuse sqrt(avg_pool(x*x)) into "
                  "one (pool_l2_f32 keeps SQUARE, AVERAGE_POOL_2D, SQRT)",
    "SVDF": "no TensorFlow op or Keras layer lowers to SVDF in the TF 2 (MLIR) converter; SVDF models "
            "come from hand-built flatbuffers or the retired TOCO converter",
}

WHY_NOT = {
    "CIRCULAR_BUFFER": "custom op written by TFLM's own model tools (the micro speech example); "
                       "no TensorFlow op converts to it",
    "TFLM_DECODE": "custom op inserted by TFLM's compression tool into an already converted model; "
                   "the converter never emits it",
    "TFLite_Detection_PostProcess": "custom op added by the TF Object Detection API export scripts "
                                    "(a hand-written graph rewrite, not a TF op the converter lowers)",
    "ETHOSU": "custom op written by Arm's Vela compiler for the Ethos-U NPU, after conversion",
}
for _signal in [k for k in REGISTERED_CUSTOM if k.startswith("Signal")]:
    WHY_NOT[_signal] = ("custom op of TFLM's signal library: produced from the tflite_micro.signal "
                        "TensorFlow ops (a separate custom-op package, not part of tensorflow-cpu), "
                        "so stock TensorFlow cannot build it")


# Structures and parameter ranges the corpus was built to hold -> model names (all flavours).
STRUCTURES = [
    ("skip connections (ADD, CONCATENATION)", "resnet_block unet_small"),
    ("several inputs", "multi_io bmm_basic binary_arith concat_axes add_n gather_nd cast_int"),
    ("several outputs", "multi_io multi_output_3 softmax_heads sum_hw pad_slice_strided split_unpack_pack"),
    ("many tiny tensors", "many_tiny_tensors"),
    ("a large early tensor", "conv_large_early"),
    ("wide branches / many live tensors", "wide_branches wide_long_lived"),
    ("U-Net", "unet_small"),
    ("transpose-conv decoder", "tconv_decoder"),
    ("fused LSTM (UNIDIRECTIONAL_SEQUENCE_LSTM)", "lstm_fused lstm_fused_seq"),
    ("unrolled LSTM / GRU", "lstm_unrolled gru_unrolled"),
    ("squeeze-excite", "squeeze_excite"),
    ("layer norm, attention", "layer_norm attention_head multihead_attention"),
    ("ARG_MAX / ARG_MIN heads", "argmax_head argmin_head"),
    ("dynamic batch (-1) in the shape signature, concrete shape 1",
     "dynamic_batch dynamic_batch_mlp squeeze_dynamic expand_dims_dynamic squeeze_all_dynamic shape_dynamic_batch "
     "fill_zeros_like"),
    ("several subgraphs (IF, WHILE, CALL_ONCE)", "control_if control_while gru_while resource_variable"),
    ("CONV_2D strides, dilations, SAME/VALID, 1x1 and kxk, channels not a multiple of 4",
     "conv_k3s1_same_c8 conv_k3s2_valid_c7 conv_1x1_c13 conv_k5_dil2 conv_k3_dil3_valid conv_k7s3_same_c1 "
     "conv_k1x5_rect conv_nobias_c32"),
    ("DEPTHWISE_CONV_2D multipliers 1-4, strides, dilation", "dwconv_m1_k3 dwconv_m2_s2 dwconv_m3_dil2_valid dwconv_k5_c1_m4"),
    ("TRANSPOSE_CONV sizes", "tconv_k3s2_same tconv_k4s2_valid_c5 tconv_k2s1_nobias tconv_k5s3_same_c16 i16_tconv"),
    ("MEAN / SUM / REDUCE_MAX / REDUCE_MIN over different axes, with and without keep_dims",
     "mean_hw_keep mean_c_nokeep mean_axis1_3d mean_all_axes sum_hw reduce_max_axes reduce_min"),
    ("FULLY_CONNECTED keep_num_dims", "fc_keep_num_dims"),
    ("BATCH_MATMUL adjoint flags and broadcast", "bmm_adj_x bmm_adj_y bmm_broadcast bmm_const_rhs_4d"),
    ("per-tensor int8 weights (flavour i8pt)", "*_i8pt"),
    ("16x8: int16 activations (flavour i16)", "*_i16"),
    ("models TFLM refuses in a kernel's Prepare (types, ranks, input counts)",
     "refused_f16w_conv refused_f16w_dense refused_exp refused_gather "
     "refused_transpose_6d refused_strided_slice_5d refused_concat_12"),
]


def write_coverage(manifest, path, complete=True):
    by_kind = {}
    for file, entry in sorted(manifest.items()):
        for kind in entry["operators"]:
            by_kind.setdefault(kind, []).append(file)
    why_builtin = WHY_NOT_BUILTIN
    lines = ["# Operator coverage of the conformance corpus", "",
             "Every operator kind TensorFlow Lite Micro registers (MicroMutableOpResolver's Add* methods,",
             "tflite-micro 90b983c2) and the corpus models that contain it, or why the TF Lite converter",
             "(TensorFlow %s) cannot produce it.  Written by make_corpus.py; do not edit by hand." % tf.__version__,
             "", "| operator kind | models |", "|---|---|"]
    missing = []
    for kind in REGISTERED:
        files = by_kind.get(kind)
        if files:
            lines.append("| %s | %s |" % (kind, " ".join(files)))
        else:
            missing.append(kind)
            lines.append("| %s | not produced: %s |" % (kind, why_builtin.get(kind, "UNEXPLAINED")))
    edited = sorted({k for f, e in manifest.items() if e.get("edited") for k in e["operators"]
                     if k in why_builtin})
    if edited:
        lines += ["", "## Made by editing the converter's output", "",
                  "The converter never emits these kinds; their models are its output for a close kind with",
                  "the operator code changed (EMBEDDING_LOOKUP: inputs swapped; SVDF: a FULLY_CONNECTED given",
                  "weights_time and a variable activation-state tensor).", ""]
        lines += ["- %s: %s" % (k, why_builtin[k]) for k in edited]
    lines += ["", "## Custom operators TFLM registers", "", "| custom op | models |", "|---|---|"]
    for kind in REGISTERED_CUSTOM:
        files = by_kind.get("CUSTOM:" + kind)
        lines.append("| %s | %s |" % (kind, " ".join(files) if files else "not produced: " + WHY_NOT[kind]))
    lines += ["", "## Structures and parameters", ""]
    for what, names in STRUCTURES:
        files = [f for f in sorted(manifest) for n in names.split()
                 if (n.startswith("*") and f.endswith(n[1:] + ".tflite")) or manifest[f]["name"] == n]
        assert files or not complete, what
        lines.append("- %s: %s" % (what, " ".join(files)))
    extra = sorted(k for k in by_kind if k not in REGISTERED and k[len("CUSTOM:"):] not in REGISTERED_CUSTOM)
    if extra:
        lines += ["", "## Operator kinds in the corpus that TFLM does not register", ""]
        lines += ["- %s: %s" % (k, " ".join(by_kind[k])) for k in extra]
    path.write_text("\n".join(lines) + "\n")
    return [k for k in missing if k not in why_builtin]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="convert only models whose name contains this")
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    ap.add_argument("--out", type=pathlib.Path, default=HERE,
                    help="folder for models/, manifest.json and COVERAGE.md (default: beside this script)")
    ap.add_argument("--coverage-only", action="store_true",
                    help="rewrite COVERAGE.md from manifest.json without converting anything")
    args = ap.parse_args()
    models_dir = args.out / "models"
    if args.coverage_only:
        unexplained = write_coverage(json.loads((args.out / "manifest.json").read_text())["models"],
                                     args.out / "COVERAGE.md")
        print("unexplained missing kinds: %s" % (" ".join(unexplained) or "none"))
        return 0
    jobs = [(s, f) for s in REGISTRY for f in s.flavours if not args.only or args.only in s.name]
    if args.list:
        for s, f in jobs:
            print("%s_%s" % (s.name, f))
        return 0
    models_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())["models"] if manifest_path.exists() else {}
    known = {"%s_%s.tflite" % (s.name, f) for s in REGISTRY for f in s.flavours}
    manifest = {k: v for k, v in manifest.items() if k in known}  # models no longer made
    if not args.only:  # a full run owns the folder: stale models go
        manifest = {}
        for old in models_dir.glob("*.tflite"):
            old.unlink()
    failed = []
    for spec, flavour in jobs:
        file = "%s_%s.tflite" % (spec.name, flavour)
        try:
            data = convert(spec, flavour)
        except Exception as e:  # noqa: BLE001 - report every failing conversion, then stop
            failed.append((file, "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1:] or "")))
            print("FAILED %s: %s" % failed[-1], flush=True)
            continue
        (models_dir / file).write_bytes(data)
        manifest[file] = dict(name=spec.name, flavour=flavour, description=spec.description,
                              bytes=len(data), edited=spec.edit is not None, **describe(data))
        print("%-40s %7d B  %s" % (file, len(data), " ".join(manifest[file]["operators"])), flush=True)
    generator = {"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__,
                 "python": sys.version.split()[0], "command": "python tests/corpus/make_corpus.py"}
    manifest_path.write_text(json.dumps({"generator": generator, "models": dict(sorted(manifest.items()))},
                                        indent=1) + "\n")
    unexplained = write_coverage(manifest, args.out / "COVERAGE.md", complete=not args.only or args.out == HERE)
    total = sum(e["bytes"] for e in manifest.values())
    print("%d models, %d bytes; conversion failures: %d; unexplained missing kinds: %s"
          % (len(manifest), total, len(failed), " ".join(unexplained) or "none"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
