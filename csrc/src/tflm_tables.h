/*
 * The op table's shared vocabulary (tflm_ops.c, tflm_structs.c, tflm_rules.c): the ids
 * of the TFLM structs whose sizes differ per target, the size rules a Prepare script
 * names, and the one-byte tests of an operator's tensor types that scripts and rules
 * share.
 */
#ifndef MEMCORE_TFLM_TABLES_H
#define MEMCORE_TFLM_TABLES_H

#include "tflm_internal.h"

/* K_*: kernel data (OpData), O_*: builtin options (TfLite*Params), V_*: vendor kernels'
 * data; their sizes per target are tflm_structs.c's. */
enum {
    MC_S_NONE = 0,
    MC_S_K_RELU,
    MC_S_K_RELU6,
    MC_S_K_ADD,
    MC_S_K_ADD_N,
    MC_S_K_ASSIGN_VARIABLE,
    MC_S_K_BATCH_MATMUL,
    MC_S_K_EVAL_TENSOR,
    MC_S_K_CALL_ONCE,
    MC_S_K_COMPARISONS,
    MC_S_K_CONCATENATION,
    MC_S_K_CONV,
    MC_S_K_CUMSUM,
    MC_S_K_DEQUANTIZE,
    MC_S_K_DIV,
    MC_S_K_ABS_RSQRT,
    MC_S_K_ELU,
    MC_S_K_EMBEDDING_LOOKUP,
    MC_S_K_FULLY_CONNECTED,
    MC_S_K_HARD_SWISH,
    MC_S_K_IF,
    MC_S_K_L2NORM,
    MC_S_K_LEAKY_RELU,
    MC_S_K_LOG_SOFTMAX,
    MC_S_K_LOGISTIC,
    MC_S_K_MIRROR_PAD,
    MC_S_K_MUL,
    MC_S_K_PAD,
    MC_S_K_POOL,
    MC_S_K_PRELU,
    MC_S_K_QUANTIZE,
    MC_S_K_REDUCE,
    MC_S_K_SELECT,
    MC_S_K_SOFTMAX,
    MC_S_K_SPACE_TO_BATCH,
    MC_S_K_SQUARED_DIFFERENCE,
    MC_S_K_STRIDED_SLICE,
    MC_S_K_SUB,
    MC_S_K_SVDF,
    MC_S_K_TANH,
    MC_S_K_TRANSPOSE_CONV,
    MC_S_K_LSTM,
    MC_S_K_VAR_HANDLE,
    MC_S_K_WHILE,
    MC_S_O_ADD,
    MC_S_O_ARG_MAX,
    MC_S_O_ARG_MIN,
    MC_S_O_BATCH_MAT_MUL,
    MC_S_O_CALL_ONCE,
    MC_S_O_CAST,
    MC_S_O_CONCATENATION,
    MC_S_O_CONV,
    MC_S_O_CUMSUM,
    MC_S_O_DEPTH_TO_SPACE,
    MC_S_O_DEPTHWISE_CONV,
    MC_S_O_DIV,
    MC_S_O_FULLY_CONNECTED,
    MC_S_O_GATHER,
    MC_S_O_IF,
    MC_S_O_L2_NORM,
    MC_S_O_LEAKY_RELU,
    MC_S_O_MIRROR_PADDING,
    MC_S_O_MUL,
    MC_S_O_PACK,
    MC_S_O_POOL,
    MC_S_O_REDUCER,
    MC_S_O_RESHAPE,
    MC_S_O_RESIZE_BILINEAR,
    MC_S_O_RESIZE_NEAREST_NEIGHBOR,
    MC_S_O_SHAPE,
    MC_S_O_SOFTMAX,
    MC_S_O_SPACE_TO_DEPTH,
    MC_S_O_SPLIT,
    MC_S_O_SPLIT_V,
    MC_S_O_SQUEEZE,
    MC_S_O_STRIDED_SLICE,
    MC_S_O_SUB,
    MC_S_O_SVDF,
    MC_S_O_TRANSPOSE_CONV,
    MC_S_O_UNIDIRECTIONAL_SEQUENCE_LSTM,
    MC_S_O_UNPACK,
    MC_S_O_VAR_HANDLE,
    MC_S_O_WHILE,
    /* vendor kernels' OpData (the other columns repeat the reference sizes) */
    MC_S_V_CMSIS_CONV,
    MC_S_V_CMSIS_FULLY_CONNECTED,
    MC_S_V_CMSIS_POOL,
    MC_S_V_CMSIS_ADD,
    MC_S_V_CMSIS_MUL,
    MC_S_V_CMSIS_SOFTMAX,
    MC_S_V_ESP_CONV,
    MC_S_V_ESP_SOFTMAX,
    MC_S_COUNT
};

/* A struct's size and alignment on a target (MC_SZ), and its bytes. */
mc_size_t mc__struct_size(int32_t id, mc_target_t target);
int64_t mc__struct_bytes(int32_t id, mc_target_t target);

/* A test of the element type of one of an operator's tensors, in one byte: which tensor
 * (G_*) in the top three bits, the types it must be one of (T_*) in the low five.  An
 * absent tensor is of no type; G_NONE always holds.  Scripts' conditions (X_IF) and the
 * rules' guards (guards[], below) are such tests. */
enum {
    T_FLOAT32 = 1, T_INT8 = 2, T_INT16 = 4, T_INT4 = 8, T_OTHER = 16, /* any other type */
    T_QUANT = T_INT8 | T_INT16,
    T_NOT_FLOAT32 = T_INT8 | T_INT16 | T_INT4 | T_OTHER
};
enum { G_NONE = 0, G_IN0, G_IN1, G_IN2, G_OUT0 };
#define GUARD(tensor, types) ((uint8_t)((tensor) << 5 | (types)))

/* Size rules; each returns the bytes, or -1 for "no allocation". */
enum {
    R_CHANNELS_F0 = 1,   /* 4 x filter (input 1) dim 0: per-channel multiplier or shift */
    R_CHANNELS_F3,       /* 4 x filter dim 3 (depthwise) */
    R_FC_CHANNELS,       /* 4 x filter scales, when quantized per channel */
    R_DIMS_OUT0,         /* a TfLiteIntArray copy of output 0's dims */
    R_RESOURCE_BUFFER,   /* a resource variable's buffer (tflm_resources.c) */
    R_ADD_N_OPDATA,      /* ADD_N int8: its OpData, allocated in Prepare */
    R_CUMSUM_OPDATA,     /* CUMSUM int8 */
    R_LOG_SOFTMAX_OPDATA,/* LOG_SOFTMAX int8 */
    R_EMBEDDING_OPDATA,  /* EMBEDDING_LOOKUP, always */
    R_SOFTMAX_LUT,       /* SOFTMAX int16 input: a 513-entry int16 table */
    R_BMM_QUANT,         /* BATCH_MATMUL int8/int16: QuantizationOpDataBatchMatmul */
    R_BMM_LHS_TENSOR,    /* BATCH_MATMUL adj_x: TfLiteEvalTensor, dims, data of LHS^T */
    R_BMM_LHS_DIMS,
    R_BMM_LHS_DATA,
    R_BMM_RHS_TENSOR,    /* BATCH_MATMUL !adj_y: the same for RHS^T */
    R_BMM_RHS_DIMS,
    R_BMM_RHS_DATA,
    R_FILTER_INT4,       /* int4 filter unpacked: filter elements */
    R_TCONV_ACC,         /* TRANSPOSE_CONV: int32 (int8) / int64 (int16) accumulators */
    R_TCONV_BIAS64,      /* TRANSPOSE_CONV 16x8 with int16 bias: int64 copy of the bias */
    R_REDUCE_ACC,        /* MEAN/SUM int8/int16: int32 accumulator per output */
    R_RANK_IN0,          /* 4 x rank of input 0 */
    R_ELEMENTS_IN1,      /* 4 x elements of input 1 (the axis list) */
    R_ADD_N_POINTERS,    /* ADD_N float32/int8: one pointer per input */
    R_SVDF_FILTERS,      /* SVDF: batch x filters, 4 bytes each */
    R_SVDF_UNITS,        /* SVDF int8: batch x units, 4 bytes each */
    R_LSTM_STATE,        /* UNIDIRECTIONAL_SEQUENCE_LSTM: batch x state x cell type size */
    /* CMSIS-NN for a Cortex-M with the DSP extension (M4, M7, M33), built with GCC */
    R_CMSIS_CONV,        /* arm_convolve_wrapper_s8_get_buffer_size (int8) */
    R_CMSIS_DEPTHWISE,   /* arm_depthwise_conv_wrapper_s8_get_buffer_size (int8) */
    R_CMSIS_FC_1X1,      /* int8 per-tensor FC with a 3-D/4-D output: per-channel copies */
    R_CMSIS_AVGPOOL,     /* arm_avgpool_s8/s16_get_buffer_size: 4 x channels */
    /* ESP-NN, the plain ESP32's "generic optimised" functions */
    R_ESP_SOFTMAX,       /* esp_nn_get_softmax_scratch_size_opt: 4 x input dims[1] */
    /* A check, not a buffer (as P: a replay step the request count skips) */
    R_SAME_ELEMENTS,     /* Prepare fails unless input 0 and output 0 hold as many elements
                            (RESHAPE, SQUEEZE, EXPAND_DIMS check it) */
    R_COUNT
};

/* A rule's value when the kernel's Prepare refuses the operator (TFLM fails it). */
#define REFUSED (-4)

/* Whether a GUARD test holds for the operator. */
bool mc__guard_holds(const mc_ctx_t *s, const mc_op_t *op, uint8_t guard);

/* The bytes of rule r (R_*) for this operator: >= 0, -1 for no allocation, -2 for an
 * overflow, -3 for a tensor the rule needs that is missing, REFUSED. */
int64_t mc__rule_bytes(const mc_ctx_t *s, const mc_op_t *op, int32_t r);

/* k x the tensor's elements, or -2 on overflow. */
int64_t mc__elements_times(const mc_tensor_t *t, int64_t k);

#endif
