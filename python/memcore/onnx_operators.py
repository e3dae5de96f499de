"""ONNX nodes lowered to TFLite operators, for the ONNX reader's builder
(memcore.onnx_builder): each operator's kind, its inputs in TFLite's layouts, its builtin
options in schema order, its MACs and other operations; a PAD before a layer whose
padding is neither SAME nor VALID, a MUL and an ADD for a batch norm no layer could take."""
from memcore.graph import Operator, bad_model
from memcore.onnx_tables import (ACTIVATION_NAMES, AXIS_TO_NHWC, ELEMENTWISE, MOVES, NONE, OPTIONS_TYPE, POOLS,
                                 REDUCES, SAME, VALID, elements, float_bits)
from memcore.opcount import count_operations


class Operators:
    """The lowering pass of onnx_builder.Builder (a part of it: it uses the builder's
    tensors and attribute readers)."""

    def _padding(self, n, shape_hw, kernel_hw, strides, dilations):
        """SAME or VALID for an ONNX node's padding, or None when it is neither (a PAD
        operator then goes before it)."""
        auto = n.attrs.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto == "VALID":
            return VALID
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            return SAME
        pads = self._ints(n.where, n.attrs, "pads", (0, 0, 0, 0))
        if not any(pads):
            return VALID
        same = []
        for size, k, s, d in zip(shape_hw, kernel_hw, strides, dilations):
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            same.append((total // 2, total - total // 2))
        if (pads[0], pads[2]) == same[0] and (pads[1], pads[3]) == same[1]:
            return SAME
        return None


    def _operators(self, n):
        """The TFLite operators of node n: usually one; a PAD before a layer whose padding
        is neither SAME nor VALID; a batch norm no layer could take is a MUL and an ADD."""
        self.pending = []
        op = self._operator(n)
        return self.pending + [op]

    def _operator(self, n):
        where = n.where
        attrs = n.attrs
        t = self.tensors
        inputs = [None] * len(n.inputs)

        def make(i, layout=None):
            if inputs[i] is None:
                inputs[i] = self._tensor(n.inputs[i], layout) if n.inputs[i] else -1
            return inputs[i]

        if n.op in ("Conv", "Gemm", "MatMul") and (len(n.inputs) < 2 or not all(n.inputs[:2])):
            raise bad_model(self.path, "%s needs a data and a weight input, got %d inputs" % (where, len(n.inputs)))
        outputs = tuple(self._activation(self.resolve(o)) for o in n.outputs)
        out = t[outputs[0]]
        filt, attributes, kind, options = (), {}, None, ()
        op = n.op
        act = n.fused
        if op == "Conv":
            w = self._shape_of(n.inputs[1])
            if len(w) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, weight shape %s"
                                % (where, list(w)))
            o, i_per_group, kh, kw = w
            in_shape = self._shape_of(n.inputs[0])
            if len(in_shape) != 4:
                raise bad_model(self.path, "%s: only 2-D convolution is supported, input shape %s"
                                % (where, list(in_shape)))
            group = self._int(where, attrs, "group", 1)
            channels_in = in_shape[1]
            if group < 1:
                raise bad_model(self.path, "%s: attribute 'group' must be at least 1, got %d" % (where, group))
            if channels_in % group or o % group or i_per_group * group != channels_in:
                raise bad_model(self.path, "%s: group %d does not split %d input channels into groups of %d "
                                           "(weight shape %s) and %d output channels evenly"
                                % (where, group, channels_in, i_per_group, list(w), o))
            self._window(where, attrs, (kh, kw))
            strides = self._ints(where, attrs, "strides", (1, 1))
            dilations = self._ints(where, attrs, "dilations", (1, 1))
            make(0)
            padding = self._padding(n, in_shape[2:], (kh, kw), strides, dilations)
            if padding is None:
                inputs[0] = self._pad_before(n, inputs[0])
                padding = VALID
            depthwise = group > 1 and group == channels_in and i_per_group == 1
            make(1, (1, 2, 3, 0) if depthwise else (0, 2, 3, 1))  # 1HWO / OHWI from OIHW
            filt = t[inputs[1]].shape
            if depthwise:
                kind = "DEPTHWISE_CONV_2D"
                options = (padding, strides[1], strides[0], o // channels_in, act, dilations[1], dilations[0])
            else:
                kind = "CONV_2D"
                options = (padding, strides[1], strides[0], act, dilations[1], dilations[0], 0)
            attributes = {"output_channels": o, "per_channel": t[inputs[1]].quantization_channels > 1,
                          "kernel_hw": (kh, kw), "stride_hw": strides}
        elif op in ("Gemm", "MatMul"):
            w = self._shape_of(n.inputs[1])
            if op == "Gemm":
                for flag in ("transA", "transB"):
                    if self._int(where, attrs, flag, 0) not in (0, 1):
                        raise bad_model(self.path, "%s: attribute %r must be 0 or 1, got %d"
                                        % (where, flag, attrs[flag]))
            if self._is_constant(n.inputs[1]) and len(w) == 2:
                transposed = op == "Gemm" and self._int(where, attrs, "transB", 0) == 1
                make(1, (0, 1) if transposed else (1, 0))  # TFLite's (out, in)
                filt = t[inputs[1]].shape
                kind = "FULLY_CONNECTED"
                options = (act, 0, 0, 0, 0)
                attributes = {"output_channels": filt[0], "per_channel": t[inputs[1]].quantization_channels > 1}
            elif op == "MatMul":
                kind = "BATCH_MATMUL"
                options = (0, 0, 0)
            else:
                raise bad_model(self.path, "%s: Gemm by a non-constant matrix is not supported" % where)
        elif op in POOLS:
            kind = POOLS[op]
            kernel = self._ints(where, attrs, "kernel_shape", ())
            if len(kernel) != 2:
                raise bad_model(self.path, "%s: only 2-D pooling is supported" % where)
            self._window(where, attrs, kernel)
            strides = self._ints(where, attrs, "strides", (1, 1))
            make(0)
            padding = self._padding(n, self._shape_of(n.inputs[0])[2:], kernel, strides, (1, 1))
            if padding is None:
                inputs[0] = self._pad_before(n, inputs[0])
                padding = VALID
            options = (padding, strides[1], strides[0], kernel[1], kernel[0], act)
            attributes = {"kernel_hw": kernel, "stride_hw": strides}
        elif op in REDUCES:
            kind = REDUCES[op]
            make(0)
            rank = len(t[inputs[0]].shape)
            if op.startswith("Global"):
                axes, keep = (1, 2) if rank == 4 else tuple(range(2, rank)), 1
            else:
                axes = attrs.get("axes")
                axes = tuple(axes) if isinstance(axes, (list, tuple)) else tuple(range(rank))
                if self.resolve(n.inputs[0]) in self.channels_last and rank == 4:
                    axes = tuple(AXIS_TO_NHWC[a % 4] for a in axes)
                keep = self._int(where, attrs, "keepdims", 1)
                if keep not in (0, 1):
                    raise bad_model(self.path, "%s: attribute 'keepdims' must be 0 or 1, got %d" % (where, keep))
            # the converter's reduction axes: a small int32 constant operand
            axes_name = self._synthetic_axes("%s/axes" % n.outputs[0], len(axes))
            inputs = inputs[:1] + [self._tensor(axes_name)]
            options = (keep,)
        elif op == "BatchNormalization":
            return self._batch_norm(n, make)
        elif op == "Concat":
            kind = "CONCATENATION"
            axis = self._int(where, attrs, "axis", 1)
            rank = len(out.shape)
            if rank == 4 and self.resolve(n.outputs[0]) in self.channels_last:
                axis = AXIS_TO_NHWC[axis % 4]
            options = (axis, act)
        elif op == "Clip":
            kind = ACTIVATION_NAMES.get(self._clip_activation(n), "MAXIMUM")
            if kind == "MAXIMUM":
                self.notes.append("%s: a clip to other bounds than ReLU's, ReLU6's or ReLU-N1-to-1's counted as "
                                  "one MAXIMUM (the converter writes MAXIMUM and MINIMUM)" % where)
            inputs = [make(0)]
        elif op in ELEMENTWISE:
            kind = ELEMENTWISE[op]
            if kind in ("ADD", "SUB"):
                options = (act, 0)
            elif kind == "MUL":
                options = (act,)
            elif kind == "SOFTMAX":
                options = (float_bits(1.0),)
            elif kind in ("QUANTIZE", "DEQUANTIZE"):
                # the converter keeps the scale and zero point as the tensor's quantisation
                # parameters, not as operands: one input
                inputs = [make(0)]
        elif op in MOVES:
            kind = MOVES[op]
        else:
            raise bad_model(self.path, "unsupported operator %s" % where)
        for i in range(len(inputs)):
            if inputs[i] is None:
                make(i)
        if n.bias is not None:
            inputs = inputs[:2] + [self._tensor(n.bias)] + inputs[3:]
        first = t[inputs[0]] if inputs and inputs[0] >= 0 else None
        macs, other = count_operations(kind, first.shape if first else (), out.shape, filt, attributes)
        return self._op(kind, inputs, outputs, macs, other, attributes, options)

    def _op(self, kind, inputs, outputs, macs, other, attributes=None, options=()):
        from memcore.cgraph import op_code
        t = self.tensors
        inputs = tuple(inputs)
        weights = sum(t[i].bytes for i in inputs if i >= 0 and t[i].is_constant)
        return Operator(index=0, kind=kind, inputs=inputs, outputs=tuple(outputs), macs=macs, other_ops=other,
                        weight_bytes=weights, attributes=attributes or {}, code=op_code(kind),
                        options_type=OPTIONS_TYPE.get(kind, 0), options=tuple(options))

    def _synthetic_axes(self, name, count):
        self.synthetic[name] = ((count,), "int32")
        return name

    def _pad_before(self, n, x):
        """A PAD operator before `n`, whose padding is neither SAME nor VALID; returns
        the padded tensor."""
        pads = self._ints(n.where, n.attrs, "pads", (0, 0, 0, 0))
        src = self.tensors[x]
        shape = list(src.shape)
        if len(shape) == 4:  # channels-last: H is 1, W is 2
            shape[1] += pads[0] + pads[2]
            shape[2] += pads[1] + pads[3]
        name = "%s/padded" % n.outputs[0]
        padded = self._add(name, tuple(shape), src.dtype, False, src.quantization_channels)
        paddings = self._add(name + "/paddings", (len(shape), 2), "int32", True)
        self.pending.append(self._op("PAD", (x, paddings), (padded,), 0, 0))
        self._count("pad")
        return padded

    def _batch_norm(self, n, make):
        """A batch norm no layer could take: the MUL by a per-channel scale and the ADD
        of a per-channel shift the converter writes."""
        x = make(0)
        shape = self.tensors[x].shape
        channels = shape[-1] if self.resolve(n.inputs[0]) in self.channels_last else (shape[1] if len(shape) > 1
                                                                                      else 1)
        dtype = "int8" if self.tensors[x].dtype == "int8" else "float32"
        scale = self._add("%s/scale" % n.outputs[0], (channels,), dtype, True)
        shift = self._add("%s/shift" % n.outputs[0], (channels,), dtype, True)
        scaled = self._add("%s/scaled" % n.outputs[0], shape, self.tensors[x].dtype, False,
                           self.tensors[x].quantization_channels)
        y = self._activation(self.resolve(n.outputs[0]))
        count = elements(shape)
        self.pending.append(self._op("MUL", (x, scale), (scaled,), 0, count, options=(NONE,)))
        self.notes.append("%s: a batch norm no layer before it could take, written as MUL and ADD" % n.where)
        return self._op("ADD", (scaled, shift), (y,), 0, count, options=(n.fused, 0))

