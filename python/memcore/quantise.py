"""A float32 model as its int8 conversion would be, for an estimate when no int8 file exists.

TensorFlow Lite's full-integer conversion keeps the graph and changes the element types:
every float32 tensor becomes int8, except the biases of convolutions and fully connected
layers, which become int32 (they hold accumulator-scale sums); convolution filters get
one scale per output channel, everything else one per tensor.  `as_int8(model)` returns
that graph, so the C check plans, costs and times it like any other int8 model.  What it
cannot know is marked: the result says it is an estimate (`Model.estimated_from`), and
a real converted file (the `_int8` sibling the suggestions look for) is always preferred.
"""
import dataclasses

from memcore.graph import DTYPE_BYTES

# operator: (index of its filter input, axis its per-channel scales run along, bias input)
_FILTERED = {"CONV_2D": (1, 0, 2), "DEPTHWISE_CONV_2D": (1, 3, 2), "FULLY_CONNECTED": (1, 0, 2),
             "TRANSPOSE_CONV": (1, 0, 3)}


def as_int8(model):
    """The int8 graph of a float32 `model` (memcore.graph.Model)."""
    from memcore.errors import MemcoreError
    if not any(t.dtype == "float32" for t in model.tensors):
        raise MemcoreError("%s: --as-int8 estimates a float32 model's int8 conversion; this model has no "
                           "float32 tensors" % model.path)
    biases, filters = set(), {}
    for op in model.operators:
        where = _FILTERED.get(op.kind)
        if where is None:
            continue
        filt, axis, bias = where
        if len(op.inputs) > filt and op.inputs[filt] >= 0:
            filters[op.inputs[filt]] = axis if op.kind != "FULLY_CONNECTED" else None
        if len(op.inputs) > bias and op.inputs[bias] >= 0:
            biases.add(op.inputs[bias])
    tensors = []
    for t in model.tensors:
        if t.dtype != "float32":
            tensors.append(t)
            continue
        dtype = "int32" if t.index in biases else "int8"
        channels, axis = 1, 0
        if t.index in filters and filters[t.index] is not None and t.shape:
            axis = filters[t.index]
            channels = t.shape[axis] if axis < len(t.shape) else 1
        tensors.append(dataclasses.replace(t, dtype=dtype, bytes=t.elements * DTYPE_BYTES[dtype],
                                           quantization_channels=channels, quantization_dimension=axis,
                                           has_zero_point=True))
    operators = tuple(dataclasses.replace(op, weight_bytes=sum(tensors[i].bytes for i in op.inputs
                                                               if i >= 0 and tensors[i].is_constant))
                      for op in model.operators)
    return dataclasses.replace(model, tensors=tuple(tensors), operators=operators, file_bytes=None,
                               estimated_from=model.path, _cgraph=None)
