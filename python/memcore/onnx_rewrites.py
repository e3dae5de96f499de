"""The TFLite converter's graph rewrites, for the ONNX reader's builder
(memcore.onnx_builder): Identity and Dropout removed, Q/DQ pairs removed and the tensors
between them int8, batch norms folded into the layer before them, ReLU/ReLU6 fused into
it, MatMul + Add one fully connected layer; and which 4-D activations it makes
channels-last."""
import onnx

from memcore.graph import bad_model
from memcore.onnx_tables import (ACTIVATION_NAMES, ELEMENTWISE, FUSES_ACTIVATION, MOVES, NONE, POOLS, REDUCES,
                                 RELU, RELU6, RELU_N1_TO_1, elements)


class Rewrites:
    """The rewrite pass of onnx_builder.Builder (a part of it: it uses the builder's
    tensors, constants and aliases)."""

    def _is_constant(self, name):
        return self.resolve(name) in self.constants or self.resolve(name) in self.synthetic

    def _consumers(self, nodes):
        count = {}
        for n in nodes:
            if n.keep:
                for name in n.inputs:
                    if name:
                        r = self.resolve(name)
                        count[r] = count.get(r, 0) + 1
        return count

    def _producers(self, nodes):
        return {self.resolve(o): n for n in nodes if n.keep for o in n.outputs}

    def _is_output(self, name):
        return any(self.resolve(o) == self.resolve(name) for o in self.graph_outputs)

    def _remove(self, n, into):
        """Drop node n; its (first) output is now `into`."""
        n.keep = False
        for o in n.outputs:
            if self._is_output(o) and o != into and self._is_output(into):
                raise bad_model(self.path, "%s: two graph outputs would be the same tensor" % n.where)
            self.alias[o] = into

    def _rewrite(self, nodes):
        graph_inputs = set(self.graph_inputs)
        # Identity and inference-time Dropout pass their input on.
        for n in nodes:
            if n.op in ("Identity", "Dropout") and n.inputs and not self._is_output(n.outputs[0]):
                self._remove(n, self.resolve(n.inputs[0]))
                self._count("identity")
        # Q/DQ: the tensors they join are one int8 tensor; Q at a float graph input and
        # DQ at a graph output stay, as the converter's QUANTIZE and DEQUANTIZE.
        for n in nodes:
            if n.op not in ("QuantizeLinear", "DequantizeLinear") or not n.keep:
                continue
            if len(n.inputs) < 2:
                raise bad_model(self.path, "%s needs an input and a scale" % n.where)
            x = self.resolve(n.inputs[0])
            scale = self.resolve(n.inputs[1])
            channels = 1
            if scale in self.constants:
                channels = max(1, elements(tuple(int(d) for d in self.constants[scale].dims)))
            if n.op == "DequantizeLinear":
                if x in self.constants:
                    self.quant[x] = (channels, self._int(n.where, n.attrs, "axis", 1))
                    self._remove(n, x)
                elif self._is_output(n.outputs[0]):
                    continue
                else:
                    self._remove(n, x)
                self._count("qdq")
            else:
                quantized = "int8"
                zero = self.resolve(n.inputs[2]) if len(n.inputs) > 2 and n.inputs[2] else None
                if zero in self.constants and self.constants[zero].data_type == onnx.TensorProto.INT16:
                    quantized = "int16"
                if x in graph_inputs:
                    continue
                if x in self.constants:
                    self.quant[x] = (channels, self._int(n.where, n.attrs, "axis", 1))
                self.dtype[x] = quantized
                self._remove(n, x)
                self._count("qdq")
        # Batch norm after a convolution or a fully connected layer folds into it;
        # anywhere else it is the MUL and ADD the converter writes.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if n.op != "BatchNormalization" or not n.keep:
                continue
            x = self.resolve(n.inputs[0])
            p = producers.get(x)
            if p is not None and p.op in ("Conv", "Gemm") and p.keep and consumers.get(x) == 1 \
                    and not self._is_output(x) and p.fused == NONE:
                if len(p.inputs) < 3 or not p.inputs[2]:
                    p.bias = self._synthetic("%s/folded_bias" % p.outputs[0], (self._channels(p),), x)
                self._remove(n, x)
                self._count("batch_norm")
        # A ReLU, ReLU6 or ReLU-N1-to-1 after a layer that can carry it is fused into it.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if not n.keep or n.op not in ("Relu", "Clip"):
                continue
            code = RELU if n.op == "Relu" else self._clip_activation(n)
            x = self.resolve(n.inputs[0])
            p = producers.get(x)
            if code is None or p is None or not p.keep or consumers.get(x) != 1 or self._is_output(x) \
                    or p.fused != NONE or self._kind_of(p) not in FUSES_ACTIVATION:
                if code is not None:
                    self.notes.append("kept %s as a separate %s operator (nothing before it could carry it)"
                                      % (n.where, ACTIVATION_NAMES[code]))
                continue
            p.fused = code
            out = self.resolve(n.outputs[0])
            if out in self.dtype:   # quantised after the activation: the fused layer's output is
                self.dtype[x] = self.dtype[out]
            self._remove(n, x)
            self._count("activation")
        # MatMul by a constant matrix, then Add of a constant vector: one fully connected
        # layer with a bias.
        producers, consumers = self._producers(nodes), self._consumers(nodes)
        for n in nodes:
            if not n.keep or n.op != "Add" or len(n.inputs) != 2:
                continue
            for a, b in ((0, 1), (1, 0)):
                x, bias = self.resolve(n.inputs[a]), self.resolve(n.inputs[b])
                p = producers.get(x)
                if p is not None and p.op == "MatMul" and p.bias is None and self._kind_of(p) == "FULLY_CONNECTED" \
                        and self._is_constant(bias) and len(self._shape_of(bias)) == 1 \
                        and consumers.get(x) == 1 and not self._is_output(x):
                    p.bias = bias
                    self._remove(n, x)
                    self._count("matmul_add")
                    break

    def _clip_activation(self, n):
        low, high = n.attrs.get("min"), n.attrs.get("max")
        for i, slot in ((1, "low"), (2, "high")):
            if len(n.inputs) > i and n.inputs[i]:
                name = self.resolve(n.inputs[i])
                if name not in self.constants:
                    return None
                value = self._scalar(name)
                if value is None:
                    return None
                low, high = (value, high) if slot == "low" else (low, value)
        if low == 0 and high is None:
            return RELU
        if low == 0 and high == 6:
            return RELU6
        if low == -1 and high == 1:
            return RELU_N1_TO_1
        return None

    def _scalar(self, name):
        """The first value of the embedded constant `name` (a Clip bound), or None if it
        has none to read here; raises naming the file if its data does not match its
        shape.  External data is not read for this: the bound only chooses a fusion."""
        proto = self.constants[name]
        if proto.data_location == onnx.TensorProto.EXTERNAL:
            return None
        values = self._embedded_array(name, proto).reshape(-1)
        if values.size == 0 or values.dtype.kind not in "biuf":
            return None
        return float(values[0])

    def _shape_of(self, name):
        name = self.resolve(name)
        if name in self.synthetic:
            return self.synthetic[name][0]
        if name in self.constants:
            return tuple(int(d) for d in self.constants[name].dims)
        t = self.types.get(name)
        if t is None or not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            return ()
        return tuple(d.dim_value for d in t.tensor_type.shape.dim)

    def _channels(self, p):
        shape = self._shape_of(p.inputs[1])
        if p.op == "Conv":
            return shape[0] if shape else 1
        trans = self._int(p.where, p.attrs, "transB", 0) == 1
        return (shape[0] if trans else shape[-1]) if shape else 1

    def _synthetic(self, name, shape, like):
        self.synthetic[name] = (tuple(shape), "int32" if self.dtype.get(like) == "int8" else "float32")
        return name

    def _kind_of(self, n):
        if n.op == "Conv":
            w = self._shape_of(n.inputs[1]) if len(n.inputs) > 1 else ()
            channels = self._shape_of(n.inputs[0])
            group = n.attrs.get("group", 1)
            if len(w) == 4 and len(channels) == 4 and group > 1 and group == channels[1] and w[1] == 1:
                return "DEPTHWISE_CONV_2D"
            return "CONV_2D"
        if n.op in ("Gemm", "MatMul"):
            return "FULLY_CONNECTED" if len(n.inputs) > 1 and self._is_constant(n.inputs[1]) \
                and len(self._shape_of(n.inputs[1])) == 2 else "BATCH_MATMUL"
        return (POOLS.get(n.op) or REDUCES.get(n.op) or ELEMENTWISE.get(n.op) or MOVES.get(n.op)
                or ("CONCATENATION" if n.op == "Concat" else None))

    def _conversion_notes(self):
        words = {"qdq": "QuantizeLinear/DequantizeLinear nodes removed (the tensors between them int8)",
                 "batch_norm": "batch norms folded into the layer before them",
                 "activation": "activations fused into the layer before them",
                 "matmul_add": "MatMul + Add pairs made one fully connected layer with a bias",
                 "identity": "Identity/Dropout nodes removed",
                 "pad": "explicit paddings written as a PAD operator before a VALID layer"}
        out = ["planned as the TFLite converter would convert it: channels-last activations, filters in "
               "TFLite's layouts, builtin options filled"]
        out += ["%d %s" % (n, words[what]) for what, n in sorted(self.counts.items())]
        return out + self.notes


    def _layouts(self, nodes):
        """Which 4-D activations the converter makes channels-last: those a spatial
        operator (convolution, pooling, batch norm, ...) reads or writes, and those that
        share a layout with them through element-wise operators.  A 4-D tensor only a
        MatMul, Transpose or Reshape touches keeps its dims."""
        spatial = {"Conv", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
                   "BatchNormalization", "DepthToSpace", "SpaceToDepth"}
        same = set(ELEMENTWISE) | {"Concat", "Pad", "Clip", "Identity", "Dropout"}
        self.channels_last = set()
        for n in nodes:
            if n.keep and n.op in spatial:
                for name in n.inputs[:1] + n.outputs:
                    self.channels_last.add(self.resolve(name))
        changed = True
        while changed:
            changed = False
            for n in nodes:
                if not n.keep or n.op not in same:
                    continue
                names = [self.resolve(x) for x in n.inputs + n.outputs if x and not self._is_constant(x)]
                if any(x in self.channels_last for x in names):
                    for x in names:
                        if x not in self.channels_last and len(self._shape_of(x)) == 4:
                            self.channels_last.add(x)
                            changed = True

