"""What ONNX's operator specifications require of each operand's shape, checked on a
shape-inferred graph before the ONNX reader builds anything (memcore.onnx_import).

onnx.shape_inference (strict) refuses much already (a MatMul's inner dimensions, an Add
that does not broadcast, a Concat's other axes), but not everything: a Gemm's bias of 11
for 10 outputs, a Conv's bias of the wrong length, a batch norm's statistics of another
channel count, a PRelu slope that does not broadcast, a Reshape to another element count,
a dimension of 0 (an empty tensor, which TFLite Micro never plans).  Each rule below is
the operator's own, from https://onnx.ai/onnx/operators/; a broken one is refused with one
error naming the file, the node, the operand and what is wrong.

Shapes are read where known: graph inputs, outputs and value_info after inference, and
constants (initializers, Constant nodes).  An operand whose shape is unknown is left to
the builder, which refuses a tensor without a static shape.
"""
import onnx
from onnx import numpy_helper

from memcore.graph import bad_model
from memcore.onnx_tables import elements

#: constants read for their values (a Reshape's target, Gather's indices, axes): small
MAX_VALUES_READ = 4096

_BROADCAST_ALL = ("Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean")
_SAME_SHAPE = ("Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh", "HardSwish", "Gelu", "Exp", "Log", "Sqrt", "Abs",
               "Neg", "Floor", "Ceil", "Round", "Softmax", "LogSoftmax", "Clip", "Cast", "QuantizeLinear",
               "DequantizeLinear", "BatchNormalization", "PRelu", "Identity", "Dropout")
_SAME_ELEMENTS = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "DepthToSpace", "SpaceToDepth")
_REDUCES = ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin")


def _dims(shape):
    return list(shape)


def broadcast(shapes):
    """numpy's (ONNX's multidirectional) broadcast of `shapes`, or None if they do not."""
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        sizes = {s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcasts_to(shape, target):
    """Whether `shape` broadcasts to `target` one way (ONNX's unidirectional broadcast)."""
    if len(shape) > len(target):
        return False
    return all(d in (1, t) for d, t in zip(reversed(shape), reversed(target)))


class _Graph:
    """The shapes and small constant values of a shape-inferred graph."""

    def __init__(self, graph):
        self.shapes = {}
        self.protos = {}          # constant name -> TensorProto
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
                continue
            dims = vi.type.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                self.shapes[vi.name] = tuple(d.dim_value for d in dims)
        for init in graph.initializer:
            self.protos[init.name] = init
        for node in graph.node:
            if node.op_type == "Constant" and node.output:
                value = next((a.t for a in node.attribute if a.name == "value" and a.HasField("t")), None)
                if value is not None:
                    self.protos[node.output[0]] = value
        for name, proto in self.protos.items():
            self.shapes[name] = tuple(int(d) for d in proto.dims)

    def shape(self, name):
        return self.shapes.get(name) if name else None

    def values(self, name):
        """The integers of a small embedded constant, or None."""
        proto = self.protos.get(name)
        if proto is None or proto.data_location == onnx.TensorProto.EXTERNAL:
            return None
        if elements(self.shapes[name]) > MAX_VALUES_READ:
            return None
        try:
            array = numpy_helper.to_array(proto)
        except Exception:  # data that does not match its dims: the builder names it
            return None
        if array.dtype.kind not in "iu":
            return None
        return [int(v) for v in array.reshape(-1)]


def check_shapes(path, graph):
    """Refuse (MemcoreError naming `path`, the tensor or node, and the problem) an empty or
    negative dimension, and any operand whose shape its operator's specification forbids."""
    g = _Graph(graph)
    constants = set(g.protos)
    for vi in graph.input:
        if vi.name not in constants:
            _no_empty_dims(path, "graph input %r" % vi.name, g.shape(vi.name))
    for k, node in enumerate(graph.node):
        where = "node %d %r (%s)" % (k, node.name, node.op_type)
        for name in node.output:
            if name and node.op_type != "Constant":
                _no_empty_dims(path, "%s: its output %r" % (where, name), g.shape(name))
        rule = _RULES.get(node.op_type)
        if rule is not None:
            problem = rule(g, node, _attrs(node))
            if problem:
                raise bad_model(path, "%s: %s" % (where, problem))


def _no_empty_dims(path, what, shape):
    if shape is None:
        return
    for k, d in enumerate(shape):
        if d < 1:
            raise bad_model(path, "%s has shape %s: dimension %d is %d; every dimension must be at least 1 "
                                  "(TFLite Micro plans no empty tensors)" % (what, _dims(shape), k, d))


def _attrs(node):
    out = {}
    for a in node.attribute:
        try:
            out[a.name] = onnx.helper.get_attribute_value(a)
        except Exception:  # an unknown attribute type: the builder names it
            pass
    return out


def _operand(node, i):
    return node.input[i] if len(node.input) > i and node.input[i] else None


def _shapes(g, node):
    return [g.shape(name) for name in node.input]


def _show(node, i, g, role):
    return "%s %r of shape %s" % (role, node.input[i], _dims(g.shape(node.input[i])))


def _axis(value, rank):
    """`value` as an axis of a `rank`-D tensor, or None out of range."""
    if isinstance(value, int) and -rank <= value < rank:
        return value % rank
    return None


# ---- the rules: (graph, node, attributes) -> the problem, or None ---------------------------

def _gemm(g, node, attrs):
    a, b = g.shape(_operand(node, 0)), g.shape(_operand(node, 1))
    if a is None or b is None:
        return None
    for i, s in ((0, a), (1, b)):
        if len(s) != 2:
            return "%s must be a matrix (2-D)" % _show(node, i, g, "input A" if i == 0 else "input B")
    m, k = (a[1], a[0]) if attrs.get("transA", 0) else a
    k2, n = (b[1], b[0]) if attrs.get("transB", 0) else b
    if k != k2:
        return "input A %s and input B %s do not multiply (%d columns against %d rows)" % (
            _dims(a), _dims(b), k, k2)
    c = g.shape(_operand(node, 2))
    if c is not None and not broadcasts_to(c, (m, n)):
        return "%s does not broadcast to the output's [%d, %d] (a bias of [%d] does)" % (
            _show(node, 2, g, "input C"), m, n, n)
    return None


def _conv(g, node, attrs):
    x, w, b = (g.shape(_operand(node, i)) for i in range(3))
    if w is not None and len(w) < 3:
        return "%s must be [M, C/group, k, ...] (rank 3 or more)" % _show(node, 1, g, "weight")
    if w is not None and any(d < 1 for d in w):
        return "%s has an empty dimension" % _show(node, 1, g, "weight")
    if x is not None and w is not None and len(x) != len(w):
        return "input %s and %s differ in rank" % (_dims(x), _show(node, 1, g, "weight"))
    if b is not None and w is not None and (len(b) != 1 or b[0] != w[0]):
        return "%s must be [%d], one value per output channel" % (_show(node, 2, g, "bias"), w[0])
    return None


def _batch_norm(g, node, attrs):
    x = g.shape(_operand(node, 0))
    if x is None:
        return None
    channels = x[1] if len(x) > 1 else 1
    for i, role in ((1, "scale"), (2, "bias"), (3, "mean"), (4, "variance")):
        s = g.shape(_operand(node, i))
        if s is not None and s != (channels,):
            return "%s must be [%d], one value per channel of the input %s" % (
                _show(node, i, g, role), channels, _dims(x))
    return None


def _prelu(g, node, attrs):
    x, slope = g.shape(_operand(node, 0)), g.shape(_operand(node, 1))
    if x is not None and slope is not None and not broadcasts_to(slope, x):
        return "%s does not broadcast to the input's %s" % (_show(node, 1, g, "slope"), _dims(x))
    return None


def _broadcast_all(g, node, attrs):
    shapes = [s for s in _shapes(g, node) if s is not None]
    if len(shapes) == len(node.input) and shapes and broadcast(shapes) is None:
        return "inputs of shapes %s do not broadcast together" % ", ".join(str(_dims(s)) for s in shapes)
    return None


def _clip(g, node, attrs):
    for i, role in ((1, "min"), (2, "max")):
        s = g.shape(_operand(node, i))
        if s is not None and (len(s) > 1 or elements(s) != 1):
            return "%s must be one value (a scalar)" % _show(node, i, g, role)
    return None


def _quantize(g, node, attrs):
    if attrs.get("block_size"):
        return None   # blocked quantisation: scales of the input's rank, checked by inference
    x, scale, zero = (g.shape(_operand(node, i)) for i in range(3))
    if x is None or scale is None:
        return None
    if len(scale) > 1:
        return "%s must be one value or one per channel (1-D)" % _show(node, 1, g, "scale")
    if len(scale) == 1 and scale[0] != 1:
        axis = _axis(attrs.get("axis", 1), len(x))
        if axis is None:
            return "axis %r is outside the input's %d dimensions" % (attrs.get("axis", 1), len(x))
        if scale[0] != x[axis]:
            return "%s must be [%d] (per channel along axis %d of the input %s) or one value" % (
                _show(node, 1, g, "scale"), x[axis], axis, _dims(x))
    if zero is not None and zero != scale:
        return "%s must have the scale's shape %s" % (_show(node, 2, g, "zero point"), _dims(scale))
    return None


def _reduce(g, node, attrs):
    x = g.shape(_operand(node, 0))
    axes = attrs.get("axes")
    if axes is None and _operand(node, 1):
        axes = g.values(node.input[1])
    if x is None or not axes:
        return None
    if not isinstance(axes, (list, tuple)) or not all(isinstance(a, int) for a in axes):
        return "axes must be a list of integers, got %r" % (axes,)
    normal = [_axis(a, len(x)) for a in axes]
    if None in normal:
        return "axes %s are outside the input's %d dimensions" % (list(axes), len(x))
    if len(set(normal)) != len(normal):
        return "axes %s name a dimension twice" % list(axes)
    return None


def _same_shape(g, node, attrs):
    x, y = g.shape(_operand(node, 0)), g.shape(node.output[0] if node.output else None)
    if x is not None and y is not None and x != y:
        return "output %r of shape %s differs from the input's %s" % (node.output[0], _dims(y), _dims(x))
    return None


def _same_elements(g, node, attrs):
    x, y = g.shape(_operand(node, 0)), g.shape(node.output[0] if node.output else None)
    if x is not None and y is not None and elements(x) != elements(y):
        return "output %r of shape %s holds %d values, the input %s %d" % (
            node.output[0], _dims(y), elements(y), _dims(x), elements(x))
    return _space_depth(g, node, attrs, x)


def _space_depth(g, node, attrs, x):
    if node.op_type not in ("DepthToSpace", "SpaceToDepth") or x is None:
        return None
    block = attrs.get("blocksize")
    if not isinstance(block, int) or block < 1:
        return "attribute 'blocksize' must be an integer of at least 1, got %r" % (block,)
    if len(x) != 4:
        return "input %s must be 4-D" % _dims(x)
    if node.op_type == "DepthToSpace" and x[1] % (block * block):
        return "input %s: %d channels do not split into blocks of %d x %d" % (_dims(x), x[1], block, block)
    if node.op_type == "SpaceToDepth" and (x[2] % block or x[3] % block):
        return "input %s: height and width are not multiples of the block size %d" % (_dims(x), block)
    return None


def _gather(g, node, attrs):
    x = g.shape(_operand(node, 0))
    if x is None:
        return None
    axis = _axis(attrs.get("axis", 0), len(x))
    if axis is None:
        return "axis %r is outside the input's %d dimensions" % (attrs.get("axis", 0), len(x))
    indices = g.values(_operand(node, 1)) if _operand(node, 1) else None
    bad = [i for i in indices or () if not -x[axis] <= i < x[axis]]
    if bad:
        return "index %d is outside the %d entries of axis %d of the input %s" % (bad[0], x[axis], axis, _dims(x))
    return None


def _tile(g, node, attrs):
    repeats = g.values(_operand(node, 1)) if _operand(node, 1) else None
    if repeats is not None and any(r < 1 for r in repeats):
        return "repeats %s must each be at least 1" % repeats
    return None


def _expand(g, node, attrs):
    x = g.shape(_operand(node, 0))
    target = g.values(_operand(node, 1)) if _operand(node, 1) else None
    if x is not None and target is not None and broadcast([x, tuple(target)]) is None:
        return "input %s does not broadcast with the shape %s" % (_dims(x), target)
    return None


def _global_pool(g, node, attrs):
    x = g.shape(_operand(node, 0))
    if x is not None and len(x) < 3:
        return "input %s must have a batch, channels and at least one spatial dimension" % _dims(x)
    return None


def _both(*rules):
    def rule(g, node, attrs):
        for r in rules:
            problem = r(g, node, attrs)
            if problem:
                return problem
        return None
    return rule


_RULES = {"Gemm": _gemm, "Conv": _conv, "PRelu": _both(_prelu, _same_shape), "Clip": _both(_clip, _same_shape),
          "BatchNormalization": _both(_batch_norm, _same_shape), "Gather": _gather, "Tile": _tile,
          "Expand": _expand, "GlobalAveragePool": _global_pool, "GlobalMaxPool": _global_pool}
_RULES.update({op: _broadcast_all for op in _BROADCAST_ALL})
_RULES.update({op: _both(_quantize, _same_shape) for op in ("QuantizeLinear", "DequantizeLinear")})
_RULES.update({op: _reduce for op in _REDUCES})
_RULES.update({op: _same_shape for op in _SAME_SHAPE if op not in _RULES})
_RULES.update({op: _same_elements for op in _SAME_ELEMENTS})
