/*
 * The size rules of the op table's Prepare scripts (tflm_ops.c): what a kernel's
 * Prepare allocates (persistent buffers, scratch requests) as a function of the
 * operator's tensors and options, each from the kernel's source.
 */
#include <stddef.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"
#include "tflm_tables.h"

/* ---- tensors of an operator -------------------------------------------------------- */

static const mc_tensor_t *op_tensor(const mc_graph_t *g, int64_t first, int32_t n, int32_t i)
{
    int32_t t;
    if ((uint32_t)i >= (uint32_t)n) { /* i < 0 too: n is not negative (start()) */
        return NULL;
    }
    t = g->op_tensors[first + i];
    return t < 0 ? NULL : &g->tensors[t];
}

static const mc_tensor_t *in_g(const mc_graph_t *g, const mc_op_t *op, int32_t i)
{
    return op_tensor(g, op->first_input, op->n_inputs, i);
}

static const mc_tensor_t *in(const mc_ctx_t *s, const mc_op_t *op, int32_t i)
{
    return in_g(s->graph, op, i);
}

static const mc_tensor_t *out(const mc_ctx_t *s, const mc_op_t *op, int32_t i)
{
    return op_tensor(s->graph, op->first_output, op->n_outputs, i);
}

static int32_t dtype(const mc_tensor_t *t)
{
    return t == NULL ? -1 : t->dtype;
}

/* k x the tensor's elements (its elements first, then k: the order decides which
 * products overflow), or -2 on overflow. */
int64_t mc__elements_times(const mc_tensor_t *t, int64_t k)
{
    bool overflow = false;
    int64_t n = mc_mul_or_flag(mc__dims_product(1, t, 0, t->rank, &overflow), k, &overflow);
    return overflow ? -2 : n;
}

static int32_t dim(const mc_tensor_t *t, int32_t i)
{
    return (t != NULL && i >= 0 && i < t->rank) ? mc_tensor_dim(t, i) : 0;
}

/* TfLiteTypeGetSize, by MC_DTYPE_* (mc_graph_structure refuses any other type) */
static int64_t type_bytes(int32_t type)
{
    static const uint8_t bytes[MC_DTYPE_COUNT] = {
        [MC_DTYPE_FLOAT32] = 4, [MC_DTYPE_FLOAT16] = 2, [MC_DTYPE_INT32] = 4, [MC_DTYPE_UINT8] = 1,
        [MC_DTYPE_INT64] = 8, [MC_DTYPE_STRING] = 1, [MC_DTYPE_BOOL] = 1, [MC_DTYPE_INT16] = 2,
        [MC_DTYPE_COMPLEX64] = 8, [MC_DTYPE_INT8] = 1, [MC_DTYPE_FLOAT64] = 8, [MC_DTYPE_COMPLEX128] = 16,
        [MC_DTYPE_UINT64] = 8, [MC_DTYPE_RESOURCE] = 1, [MC_DTYPE_VARIANT] = 1, [MC_DTYPE_UINT32] = 4,
        [MC_DTYPE_UINT16] = 2, [MC_DTYPE_INT4] = 1, [MC_DTYPE_BFLOAT16] = 2,
    };
    return bytes[type];
}

/* ---- the rules ----------------------------------------------------------------------- */

/* The rules and scripts read graphs that passed mc_graph_structure and tflm_model.c's
 * start() (every mc_tflm_* call runs both before the op table): ranks, element types and
 * list lengths within their limits, dims non-negative, tensors' bytes counted from
 * their dims without overflow. */

/* x * y * z bytes (none negative: dims, and sizes), overflow-checked; -2 on overflow
 * (the caller reports it). */
static int64_t product(int64_t x, int64_t y, int64_t z)
{
    bool overflow = false;
    int64_t r = mc_mul_or_flag(mc_mul_or_flag(x, y, &overflow), z, &overflow);
    return overflow ? -2 : r;
}

/* CMSIS-NN's convolution buffers (Cortex-M with DSP, GCC: the 1x1 fast kernel needs
 * none, the 1xN and generic kernels 2 x im2col columns of int16).  Input 0 is int8 or
 * int16: the rule's guard. */
static int64_t cmsis_conv(const mc_ctx_t *s, const mc_op_t *op)
{
    const mc_tensor_t *i0 = in(s, op, 0), *f = in(s, op, 1), *bias = in(s, op, 2);
    bool int16 = i0->dtype == MC_DTYPE_INT16, overflow = false;
    int64_t cols;
    if (f == NULL || i0->rank != 4 || f->rank != 4) {
        return -3;
    }
    if (int16) {
        /* 16x8 runs CMSIS-NN only with an int64 bias or none; its im2col (without MVE)
         * is two columns of int16: arm_convolve_s16_get_buffer_size. */
        if (bias != NULL && dtype(bias) != MC_DTYPE_INT64) {
            return -1;
        }
    } else if (dim(f, 1) == 1 && dim(f, 2) == 1 && op->options[4] == 1 && op->options[5] == 1 &&
               dim(i0, 3) == dim(f, 3)) {
        /* Conv2DOptions: padding, stride_w, stride_h, activation, dilation_w, dilation_h.
         * 1x1: arm_convolve_1x1_s8_fast needs no buffer outside Arm Compiler.  CMSIS-NN's
         * 1x1 kernel also wants no padding, but a 1x1 filter without dilation never pads:
         * SAME's output is VALID's, ceil(in / stride), and its last window ends inside the
         * input. */
        return -1;
    }
    /* A column: the input's channels (which need not be the filter's) times the filter's
     * window, fh x fw, and for int16 x 4 bytes.  Two dims never overflow 64 bits, nor 4 x a
     * dim, so a product passes 64 bits in this order exactly when it does in the kernel's
     * (fw x fh x channels; int16: channels x fh x 4 x fw). */
    cols = mc__dims_product(int16 ? 4 * (int64_t)dim(i0, 3) : dim(i0, 3), f, 1, 3, &overflow);
    if (!int16) { /* int8: 4 x the column rounded up to 4, past 64 bits an overflow too */
        cols = mc_mul_or_flag(mc_add_or_flag(cols, 3, &overflow) & ~(int64_t)3, 4, &overflow);
    }
    return overflow ? -2 : cols;
}

/* Input 0 is int8: the rule's guard. */
static int64_t cmsis_depthwise(const mc_ctx_t *s, const mc_op_t *op)
{
    const mc_tensor_t *i0 = in(s, op, 0), *f = in(s, op, 1), *o0 = out(s, op, 0);
    bool overflow = false;
    int64_t bytes;
    if (dtype(f) != MC_DTYPE_INT8) {
        return -1;
    }
    if (o0 == NULL || i0->rank != 4 || f->rank != 4 || o0->rank != 4) {
        return -3;
    }
    /* DepthwiseConv2DOptions: padding, stride_w, stride_h, depth_multiplier, activation,
     * dilation_w, dilation_h */
    if (dim(i0, 3) != dim(o0, 3) || dim(i0, 0) != 1 || op->options[5] != 1 || op->options[6] != 1) {
        return -1;
    }
    /* The 3x3 kernel works without a buffer; CMSIS-NN takes it when TFLM's padding is
     * at most 1 on each side, which a 3x3 filter without dilation always has: SAME pads
     * (ceil(in / stride) - 1) x stride + 3 - in <= 2 in all, VALID nothing. */
    if (dim(f, 1) == 3 && dim(f, 2) == 3) {
        return -1;
    }
    /* channels x fh x fw int16 (two dims never overflow, so neither order does first) */
    bytes = mc_mul_or_flag(mc__dims_product(dim(i0, 3), f, 1, 3, &overflow), 2, &overflow);
    return overflow ? -2 : bytes;
}

static int64_t dims_copy_bytes(const mc_tensor_t *t)
{
    /* TfLiteIntArrayGetSizeInBytes; a rank is at most MC_MAX_DIMS (mc_graph_structure) */
    return 4 + 4 * t->rank;
}

/* Most rules allocate only for some element types of one tensor (an int8 input, a
 * quantized output, ...): that test (GUARD), made before the rule's own, is a row here
 * rather than code in each rule.  A rule whose tensor is absent or of another type
 * allocates nothing (-1). */
static const uint8_t guards[R_COUNT] = {
    [R_ADD_N_OPDATA] = GUARD(G_OUT0, T_INT8),
    [R_CUMSUM_OPDATA] = GUARD(G_OUT0, T_INT8),
    [R_LOG_SOFTMAX_OPDATA] = GUARD(G_IN0, T_INT8),
    [R_SOFTMAX_LUT] = GUARD(G_IN0, T_INT16),
    [R_BMM_QUANT] = GUARD(G_IN0, T_QUANT),
    [R_FILTER_INT4] = GUARD(G_IN1, T_INT4),
    [R_TCONV_ACC] = GUARD(G_IN2, T_QUANT),
    [R_TCONV_BIAS64] = GUARD(G_IN2, T_INT16),
    [R_REDUCE_ACC] = GUARD(G_IN0, T_QUANT),
    [R_ADD_N_POINTERS] = GUARD(G_OUT0, T_FLOAT32 | T_INT8),
    [R_SVDF_UNITS] = GUARD(G_IN0, T_INT8),
    [R_CMSIS_CONV] = GUARD(G_IN0, T_QUANT),
    [R_CMSIS_DEPTHWISE] = GUARD(G_IN0, T_INT8),
    [R_CMSIS_FC_1X1] = GUARD(G_IN0, T_QUANT),
    [R_CMSIS_AVGPOOL] = GUARD(G_IN0, T_QUANT),
    [R_ESP_SOFTMAX] = GUARD(G_IN0, T_INT8),
};

bool mc__guard_holds(const mc_ctx_t *s, const mc_op_t *op, uint8_t guard)
{
    /* The T_* of each MC_DTYPE_* (mc_graph_structure refuses a tensor of any other type). */
    static const uint8_t type_bit[MC_DTYPE_COUNT] = {
        T_FLOAT32, T_OTHER, T_OTHER, T_OTHER, T_OTHER, T_OTHER, T_OTHER, T_INT16, /* 0-7 */
        T_OTHER, T_INT8, T_OTHER, T_OTHER, T_OTHER, T_OTHER, T_OTHER, T_OTHER,    /* 8-15 */
        T_OTHER, T_INT4, T_OTHER                                                  /* 16-18 */
    };
    int32_t tensor = guard >> 5;
    const mc_tensor_t *t = tensor == G_OUT0 ? out(s, op, 0) : in(s, op, tensor - G_IN0);
    return tensor == G_NONE || (t != NULL && (type_bit[t->dtype] & guard) != 0);
}

/* The bytes of rule r for this operator: >= 0, -1 for no allocation, -2 for an
 * overflow, -3 for a tensor the rule needs that is missing. */
int64_t mc__rule_bytes(const mc_ctx_t *s, const mc_op_t *op, int32_t r)
{
    const mc_tensor_t *i0 = in(s, op, 0), *i1 = in(s, op, 1), *o0 = out(s, op, 0);
    if (!mc__guard_holds(s, op, guards[r])) {
        return -1;
    }
    switch (r) {
    case R_CHANNELS_F0:
    case R_CHANNELS_F3: {
        int32_t d = r == R_CHANNELS_F0 ? 0 : 3;
        return i1 == NULL || i1->rank <= d ? -3 : 4 * (int64_t)dim(i1, d);
    }
    case R_FC_CHANNELS:
        if (i1 == NULL || dtype(i0) == MC_DTYPE_FLOAT32 || i1->quant_channels <= 1) {
            return -1;
        }
        return 4 * (int64_t)i1->quant_channels;
    case R_DIMS_OUT0:
        return o0 == NULL ? -3 : dims_copy_bytes(o0);
    case R_RESOURCE_BUFFER: return mc__tflm_resource_buffer(s->graph, op);
    case R_ADD_N_OPDATA:
    case R_CUMSUM_OPDATA:
    case R_LOG_SOFTMAX_OPDATA:
    case R_EMBEDDING_OPDATA: {
        /* The OpData these kernels allocate in Prepare, in the rules' order. */
        static const uint8_t opdata[] = {MC_S_K_ADD_N, MC_S_K_CUMSUM, MC_S_K_LOG_SOFTMAX,
                                         MC_S_K_EMBEDDING_LOOKUP};
        return mc__struct_bytes(opdata[r - R_ADD_N_OPDATA], s->target);
    }
    case R_SOFTMAX_LUT:
        return 2 * 513;
    case R_BMM_QUANT:
        return 28; /* QuantizationOpDataBatchMatmul: 7 int32 */
    case R_BMM_LHS_TENSOR:
    case R_BMM_LHS_DIMS:
    case R_BMM_LHS_DATA:
    case R_BMM_RHS_TENSOR:
    case R_BMM_RHS_DIMS:
    case R_BMM_RHS_DATA: {
        /* BatchMatMulOptions: adj_x, adj_y.  LHS is transposed when adj_x, RHS unless
         * adj_y (it is then already transposed). */
        bool lhs = r < R_BMM_RHS_TENSOR;
        int32_t part = r - (lhs ? R_BMM_LHS_TENSOR : R_BMM_RHS_TENSOR);
        const mc_tensor_t *t = lhs ? i0 : i1;
        if ((op->options[lhs ? 0 : 1] != 0) != lhs) {
            return -1;
        }
        if (part == 0) {
            return MC_SZ_BYTES(s->abi->eval_tensor);
        }
        if (t == NULL) {
            return -3;
        }
        return part == 1 ? dims_copy_bytes(t) : mc__tensor_bytes(t);
    }
    case R_FILTER_INT4:
        return mc__elements_times(i1, 1);
    case R_TCONV_ACC:
        if (o0 == NULL) {
            return -3;
        }
        /* input 2 is int8 or int16: the guard */
        return mc__elements_times(o0, in(s, op, 2)->dtype == MC_DTYPE_INT8 ? 4 : 8);
    case R_TCONV_BIAS64: {
        const mc_tensor_t *bias = in(s, op, 3);
        if (dtype(bias) != MC_DTYPE_INT16) {
            return -1;
        }
        return mc__elements_times(bias, 8);
    }
    case R_REDUCE_ACC:
        if (o0 == NULL) {
            return -3;
        }
        return mc__elements_times(o0, 4);
    case R_RANK_IN0:
        return i0 == NULL ? -3 : 4 * i0->rank;
    case R_ELEMENTS_IN1:
        if (i1 == NULL) {
            return -3;
        }
        return mc__elements_times(i1, 4);
    case R_ADD_N_POINTERS:
        /* At most MC_MAX_OP_TENSORS inputs (mc_graph_structure, before any replay): 8 x
         * that fits 32 bits. */
        return s->abi->pointer_bytes * op->n_inputs;
    case R_SVDF_FILTERS:
        return product(dim(i0, 0), dim(i1, 0), 4);
    case R_SVDF_UNITS:
        return op->options[0] <= 0 ? -3 : product(dim(i0, 0), dim(i1, 0) / op->options[0], 4);
    case R_LSTM_STATE: {
        const mc_tensor_t *hidden = in(s, op, 18), *cell = in(s, op, 19);
        if (hidden == NULL || cell == NULL) {
            return -3;
        }
        /* UnidirectionalSequenceLSTMOptions' time_major (field 3): the batch is dim 1 */
        return product(dim(i0, op->options[3] != 0), dim(hidden, 1), type_bytes(cell->dtype));
    }
    case R_CMSIS_CONV:
        return cmsis_conv(s, op);
    case R_CMSIS_DEPTHWISE:
        return cmsis_depthwise(s, op);
    case R_CMSIS_FC_1X1: {
        bool per_channel = i1 != NULL && i1->quant_channels > 1;
        /* CMSIS-NN's Prepare refuses per-channel quantization unless the input (int8 or
         * int16: the guard) is int8. */
        if (i0->dtype == MC_DTYPE_INT16 && per_channel) {
            return REFUSED;
        }
        /* int8, per-tensor, an output of rank > 2 and an accumulation depth that is a
         * multiple of 4: the kernel fakes per-channel quantization (2 int32 per output
         * channel); arm_convolve_1x1_s8_fast itself needs no buffer with GCC. */
        if (i0->dtype != MC_DTYPE_INT8 || dtype(i1) != MC_DTYPE_INT8 || per_channel || o0 == NULL ||
            o0->rank <= 2 || i1->rank < 1 || dim(i1, i1->rank - 1) % 4 != 0) {
            return -1;
        }
        return 8 * (int64_t)dim(o0, o0->rank - 1); /* a dim is below 2^31: no overflow */
    }
    case R_CMSIS_AVGPOOL:
        return i0 == NULL || i0->rank != 4 ? -3 : 4 * (int64_t)dim(i0, 3);
    case R_ESP_SOFTMAX:
        if (dtype(o0) != MC_DTYPE_INT8) {
            return -1;
        }
        return 4 * (int64_t)dim(i0, 1);
    case R_SAME_ELEMENTS:
        /* A graph's tensor holds no more elements than bytes (mc_graph_structure counts
         * its bytes from them), so neither count overflows. */
        return i0 != NULL && o0 != NULL && mc__elements_times(i0, 1) == mc__elements_times(o0, 1) ? -1 : REFUSED;
    default:
        return -3;
    }
}
