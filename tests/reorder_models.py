"""Models whose operator order matters, written in a poor order on purpose (the order a
converter emits when it schedules breadth first): memcore shrink's reordering must find
the better one.  Float32, so TFLM's reference kernels compute every output the same
way in any order.

    branches          n wide branches of one input, each reduced to one value, joined by
                      CONCATENATION; the file runs every wide branch before any reduction
    layer_norm_mlp    two layer norms of one input, each feeding a two-layer MLP, summed;
                      the file interleaves the two heads operator by operator
    gru_unrolled      a recurrent cell unrolled over T steps; the file projects every
                      step's input before the first step runs (as converters do)
"""
import random

from tflite_build import ModelBuilder


def _weights(b, shape, seed):
    rng = random.Random(seed)
    n = 1
    for d in shape:
        n *= d
    return b.const(shape, "float32", [rng.uniform(-0.1, 0.1) for _ in range(n)])


def branches(n=4, width=2048):
    b = ModelBuilder()
    x = b.tensor([1, width])
    axis = b.const([1], "int32", [1])
    kinds = ["TANH", "LOGISTIC", "ABS", "RELU", "NEG", "EXP"]
    wide = [b.tensor([1, width]) for _ in range(n)]
    small = [b.tensor([1, 1]) for _ in range(n)]
    y = b.tensor([1, n])
    for i in range(n):
        b.op(kinds[i % len(kinds)], [x], [wide[i]])
    for i in range(n):
        b.op("MEAN", [wide[i], axis], [small[i]], keep_dims=True)
    b.op("CONCATENATION", small, [y], axis=1)
    return b.build(inputs=[x], outputs=[y])


def layer_norm_mlp(width=1024, hidden=256, heads=2):
    """`heads` layer norms of one input, each feeding an MLP, summed; the file
    interleaves the heads operator by operator, so every head's wide tensors are live
    together."""
    b = ModelBuilder()
    x = b.tensor([1, width])
    axis = b.const([1], "int32", [1])
    eps = b.const([1], "float32", [1e-5])
    programs = []
    for head in range(heads):
        gamma = _weights(b, [width], 10 * head + 1)
        w1, b1 = _weights(b, [hidden, width], 10 * head + 2), _weights(b, [hidden], 10 * head + 3)
        w2, b2 = _weights(b, [width, hidden], 10 * head + 4), _weights(b, [width], 10 * head + 5)
        mean, d, sq, var, ve, r, norm, scaled, h, o = (
            b.tensor(s) for s in ([1, 1], [1, width], [1, width], [1, 1], [1, 1], [1, 1], [1, width], [1, width],
                                  [1, hidden], [1, width]))
        programs.append([("MEAN", [x, axis], [mean], dict(keep_dims=True)), ("SUB", [x, mean], [d], {}),
                         ("MUL", [d, d], [sq], {}), ("MEAN", [sq, axis], [var], dict(keep_dims=True)),
                         ("ADD", [var, eps], [ve], {}), ("RSQRT", [ve], [r], {}), ("MUL", [d, r], [norm], {}),
                         ("MUL", [norm, gamma], [scaled], {}),
                         ("FULLY_CONNECTED", [scaled, w1, b1], [h], dict(fused_activation_function=1)),
                         ("FULLY_CONNECTED", [h, w2, b2], [o], {})])
    for step in zip(*programs):
        for kind, inputs, outputs, options in step:
            b.op(kind, inputs, outputs, **options)
    total = programs[0][-1][2][0]
    for program in programs[1:]:
        y = b.tensor([1, width])
        b.op("ADD", [total, program[-1][2][0]], [y])
        total = y
    return b.build(inputs=[x], outputs=[total])


def gru_unrolled(steps=6, width=64, gates=3):
    b = ModelBuilder()
    x = b.tensor([steps, width])
    axis = b.const([], "int32", [0])
    wx, bx = _weights(b, [gates * width, width], 1), _weights(b, [gates * width], 2)
    wh = _weights(b, [gates * width, width], 3)
    wo, bo = _weights(b, [width, gates * width], 4), _weights(b, [width], 5)
    xs = [b.tensor([1, width]) for _ in range(steps)]
    b.op("SPLIT", [axis, x], xs, num_splits=steps)
    projected = [b.tensor([1, gates * width]) for _ in range(steps)]
    for t in range(steps):                          # every step's input projection first
        b.op("FULLY_CONNECTED", [xs[t], wx, bx], [projected[t]])
    h = b.const([1, width], "float32", [0.0] * width)
    for t in range(steps):
        q, s, a, nh = b.tensor([1, gates * width]), b.tensor([1, gates * width]), b.tensor([1, gates * width]), \
            b.tensor([1, width])
        b.op("FULLY_CONNECTED", [h, wh, -1], [q])
        b.op("ADD", [projected[t], q], [s])
        b.op("TANH", [s], [a])
        b.op("FULLY_CONNECTED", [a, wo, bo], [nh])
        h = nh
    return b.build(inputs=[x], outputs=[h])


MODELS = {"branches_4x2048_f32.tflite": branches, "layer_norm_mlp_f32.tflite": layer_norm_mlp,
          "gru_unrolled_6_f32.tflite": gru_unrolled}


def write_all(folder):
    """Writes every model into `folder`; returns {name: path}."""
    paths = {}
    for name, make in MODELS.items():
        path = folder / name
        path.write_bytes(make())
        paths[name] = path
    return paths


__all__ = ["MODELS", "branches", "gru_unrolled", "layer_norm_mlp", "write_all"]
