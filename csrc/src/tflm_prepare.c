/*
 * The element types, ranks and input counts TFLM's reference kernels accept in
 * Prepare (tflite-micro 90b983c2, tensorflow/lite/micro/kernels/): a model that fails
 * one fails AllocateTensors(), so memcore refuses it, naming the kernel's check,
 * instead of giving numbers for a model the board cannot run.  Only the checks a
 * converter's output can fail are here: equal input and output types, which the
 * converter always writes, are not, nor those of kernels the TF 2 converter never
 * writes (EMBEDDING_LOOKUP, L2_POOL_2D, SVDF: tests/corpus/COVERAGE.md) or of tensors it
 * always writes one way (QUANTIZE's types, FILL's scalar value, MIRROR_PAD's padding
 * matrix).
 *
 * One row per check, in the kernel's order: "when tensor W's type is one of S, tensor
 * T's type (or its rank, or the number of inputs) must be one of A", in 32 bits.  Types
 * are classes (C_*), one bit each; a type no kernel here takes (float16, string,
 * complex, float64, ...) has no class, so it is in no set.  An absent tensor passes (MC_PROBLEM_MISSING_INPUT covers what a kernel
 * needs).  Vendor kernels (CMSIS-NN, ESP-NN) check for themselves: the rows apply to
 * operators that run TFLM's reference kernel.
 */
#include <stddef.h>

#include "memcore.h"
#include "tflm_internal.h"

/* type classes */
enum {
    C_F32 = 1 << 0, C_I32 = 1 << 1, C_U8 = 1 << 2, C_I64 = 1 << 3, C_BOOL = 1 << 4,
    C_I16 = 1 << 5, C_I8 = 1 << 6, C_I4 = 1 << 7,
    C_ALL = 0xFF
};
/* tensors a row reads (mc_tflm_prepare_check_t's roles) */
enum { ALWAYS = 0, IN0 = MC_CHECK_INPUT0, IN1, IN2, OUT0 = MC_CHECK_OUTPUT0 };

/* A row: the operator's code (bits 24-31); the condition (when: its tensor's role in
 * bits 21-23, classes in 13-20); the test (then: its role in 10-12, what it tests in
 * 8-9, and in 0-7 the classes, the ranks lo << 4 | hi, or the most inputs). */
#define WHEN(role, classes) ((uint32_t)(role) << 21 | (uint32_t)(classes) << 13)
#define TYPES(role, classes) ((uint32_t)(role) << 10 | MC_CHECK_TYPE << 8 | (classes))
#define RANKS(role, lo, hi) ((uint32_t)(role) << 10 | MC_CHECK_RANK << 8 | (lo) << 4 | (hi))
#define INPUTS(most) ((uint32_t)MC_CHECK_INPUTS << 8 | (most))
#define ROW(code, then) ((uint32_t)(code) << 24 | WHEN(ALWAYS, C_ALL) | (then))
#define IF(code, role, classes, then) ((uint32_t)(code) << 24 | WHEN(role, classes) | (then))
#define CODE(c) ((int32_t)((c) >> 24))
#define WHEN_ROLE(c) ((int32_t)((c) >> 21 & 7))
#define WHEN_CLASSES(c) ((c) >> 13 & 0xFF)
#define ROLE(c) ((int32_t)((c) >> 10 & 7))
#define KIND(c) ((int32_t)((c) >> 8 & 3))
#define VALUE(c) ((c) & 0xFF)

static const uint32_t checks[] = {
    /* ABS, SIN, COS, LOG, SQRT, SQUARE, RSQRT and LOGICAL_NOT (elementwise.cc) test their
     * type in Prepare as IsSupportedType(input->type), which names the template's
     * parameter type, not its value: a cast of the type code to a function pointer,
     * never null, so Prepare takes every type (measured: int8 LOG and SQRT, int16 RSQRT
     * allocate); only Eval refuses. */
    ROW(104, TYPES(IN0, C_F32)),                          /* CEIL: ceil.cc */
    ROW(116, TYPES(IN0, C_F32)),                          /* ROUND: round.cc */
    ROW(47, TYPES(IN0, C_F32)),                           /* EXP: exp.cc */
    ROW(6, TYPES(IN0, C_I8 | C_I16 | C_U8)),              /* DEQUANTIZE: dequantize_common.cc */
    ROW(6, TYPES(OUT0, C_F32)),
    ROW(106, TYPES(OUT0, C_F32 | C_I8)),                  /* ADD_N: add_n.cc */
    ROW(126, TYPES(IN0, C_F32 | C_I8 | C_I16)),           /* BATCH_MATMUL: batch_matmul.cc */
    ROW(126, TYPES(IN1, C_F32 | C_I8 | C_I16)),
    IF(126, IN0, C_F32, TYPES(IN1, C_F32)),
    IF(126, IN0, C_I8, TYPES(IN1, C_I8)),
    IF(126, IN0, C_I16, TYPES(IN1, C_I16)),
    ROW(126, RANKS(IN0, 2, 5)),
    ROW(126, RANKS(IN1, 2, 5)),
    ROW(2, TYPES(IN0, C_F32 | C_I8 | C_I16 | C_I32 | C_I64 | C_BOOL)), /* CONCATENATION */
    ROW(2, INPUTS(10)),
    IF(3, IN0, C_F32, TYPES(IN1, C_F32)),                 /* CONV_2D: conv_common.cc */
    IF(3, IN0, C_I16, TYPES(IN1, C_I8)),
    IF(3, IN0, C_I8, TYPES(IN1, C_I8 | C_I4)),
    ROW(3, TYPES(IN0, C_F32 | C_I16 | C_I8)),
    IF(4, IN0, C_F32, TYPES(IN1, C_F32)),                 /* DEPTHWISE_CONV_2D */
    IF(4, IN0, C_I8, TYPES(IN1, C_I8 | C_I4)),
    IF(4, IN0, C_I16, TYPES(IN1, C_I16 | C_I8)),
    IF(9, IN0, C_F32, TYPES(IN1, C_F32)),                 /* FULLY_CONNECTED */
    IF(9, IN0, C_I8, TYPES(IN1, C_I8 | C_I4)),
    IF(9, IN0, C_I16, TYPES(IN1, C_I8)),
    IF(67, IN2, C_F32, TYPES(IN1, C_F32)),                /* TRANSPOSE_CONV (input 2 the data) */
    IF(67, IN2, C_I8, TYPES(IN1, C_I8)),
    IF(67, IN2, C_I16, TYPES(IN1, C_I16 | C_I8)),
    ROW(128, TYPES(IN0, C_F32 | C_I8)),                   /* CUMSUM: cumsum.cc */
    ROW(128, TYPES(IN1, C_I32)),
    ROW(128, RANKS(IN0, 1, 8)),
    ROW(36, TYPES(IN1, C_I32)),                           /* GATHER: gather.cc */
    ROW(36, TYPES(IN0, C_F32 | C_I8)),
    ROW(107, TYPES(IN0, C_F32 | C_I8)),                   /* GATHER_ND: gather_nd.cc */
    ROW(107, TYPES(IN1, C_I32)),
    ROW(107, RANKS(IN0, 1, 8)),
    ROW(107, RANKS(IN1, 1, 8)),
    ROW(11, RANKS(IN0, 0, 4)),                            /* L2_NORMALIZATION: l2norm.cc */
    ROW(11, TYPES(OUT0, C_F32 | C_I8)),
    ROW(1, TYPES(IN0, C_F32 | C_I8 | C_I16)),             /* AVERAGE_POOL_2D: pooling_common.cc */
    ROW(17, TYPES(IN0, C_F32 | C_I8 | C_I16)),            /* MAX_POOL_2D */
    IF(54, OUT0, C_I16, TYPES(IN1, C_I8)),                /* PRELU: prelu_common.cc */
    ROW(40, TYPES(IN1, C_I32)),                           /* MEAN: reduce_common.cc */
    ROW(74, TYPES(IN1, C_I32)),                           /* SUM */
    ROW(82, TYPES(IN1, C_I32)),                           /* REDUCE_MAX */
    ROW(89, TYPES(IN1, C_I32)),                           /* REDUCE_MIN */
    ROW(140, TYPES(IN0, C_BOOL)),                         /* REDUCE_ALL */
    ROW(140, TYPES(IN1, C_I32)),
    ROW(105, TYPES(IN0, C_I32 | C_F32 | C_U8 | C_I8 | C_I16 | C_I64 | C_BOOL)), /* REVERSE_V2 */
    ROW(105, TYPES(IN1, C_I32)),
    ROW(105, RANKS(IN0, 0, 6)),
    ROW(123, TYPES(IN0, C_BOOL)),                         /* SELECT_V2: select.cc */
    ROW(25, TYPES(IN0, C_F32 | C_I8 | C_I16)),            /* SOFTMAX: softmax_common.cc */
    IF(25, IN0, C_F32, TYPES(OUT0, C_F32)),
    IF(25, IN0, C_I8, TYPES(OUT0, C_I8 | C_I16)),
    IF(25, IN0, C_I16, TYPES(OUT0, C_I16)),
    ROW(25, RANKS(IN0, 1, 8)),
    ROW(39, RANKS(IN0, 0, 5)),                            /* TRANSPOSE: transpose_common.cc */
    ROW(34, RANKS(IN0, 0, 5)),                            /* PAD: pad_common.cc */
    ROW(60, RANKS(IN0, 0, 5)),                            /* PADV2 */
    ROW(45, RANKS(IN0, 0, 4)),                            /* STRIDED_SLICE: strided_slice_common.cc */
    ROW(23, RANKS(IN0, 4, 4)),                            /* RESIZE_BILINEAR */
    ROW(23, TYPES(IN1, C_I32)),
    ROW(97, RANKS(IN0, 4, 4)),                            /* RESIZE_NEAREST_NEIGHBOR */
    ROW(97, TYPES(IN1, C_I32)),
    ROW(5, RANKS(IN0, 4, 4)),                             /* DEPTH_TO_SPACE */
    ROW(26, RANKS(IN0, 4, 4)),                            /* SPACE_TO_DEPTH */
    ROW(37, RANKS(IN0, 3, 4)),                            /* BATCH_TO_SPACE_ND */
    ROW(38, RANKS(IN0, 3, 4)),                            /* SPACE_TO_BATCH_ND */
    ROW(130, RANKS(IN0, 0, 5)),                           /* BROADCAST_TO: broadcast_to.cc */
    ROW(130, RANKS(OUT0, 0, 5)),
    ROW(151, TYPES(IN2, C_I32 | C_I64)),                  /* DYNAMIC_UPDATE_SLICE */
};

#define N_CHECKS ((int32_t)(sizeof checks / sizeof checks[0]))

/* The class bit of each MC_DTYPE_* (graphs hold valid types: mc_graph_structure). */
static uint32_t class_of(int32_t dtype)
{
    static const uint8_t classes[MC_DTYPE_COUNT] = {
        [MC_DTYPE_FLOAT32] = C_F32, [MC_DTYPE_INT32] = C_I32,
        [MC_DTYPE_UINT8] = C_U8, [MC_DTYPE_INT64] = C_I64, [MC_DTYPE_BOOL] = C_BOOL,
        [MC_DTYPE_INT16] = C_I16, [MC_DTYPE_INT8] = C_I8, [MC_DTYPE_INT4] = C_I4,
    };
    return classes[dtype];
}

/* The tensor index a role names in op, or -1 (absent). */
static int32_t tensor_of(const mc_graph_t *g, const mc_op_t *op, int32_t role)
{
    bool output = role == OUT0;
    int32_t i = output ? 0 : role - IN0, n = output ? op->n_outputs : op->n_inputs;
    if (role == ALWAYS || i >= n) {
        return -1;
    }
    return g->op_tensors[(output ? op->first_output : op->first_input) + i];
}

int32_t mc__op_prepare_refusal(const mc_graph_t *g, const mc_op_t *op, int32_t *tensor)
{
    int32_t k;
    for (k = 0; k < N_CHECKS; k++) {
        uint32_t c = checks[k], v = VALUE(c), have;
        int32_t when, t;
        if (CODE(c) != op->kind) {
            continue;
        }
        when = tensor_of(g, op, WHEN_ROLE(c));
        if (WHEN_ROLE(c) != ALWAYS && (when < 0 || (class_of(g->tensors[when].dtype) & WHEN_CLASSES(c)) == 0)) {
            continue; /* the condition does not hold */
        }
        t = tensor_of(g, op, ROLE(c));
        *tensor = t;
        if (KIND(c) == MC_CHECK_INPUTS) {
            if ((uint32_t)op->n_inputs > v) {
                return k;
            }
            continue;
        }
        if (t < 0) {
            continue;
        }
        have = (uint32_t)g->tensors[t].rank;
        if (KIND(c) == MC_CHECK_RANK ? have < v >> 4 || have > (v & 15)
                                     : (class_of(g->tensors[t].dtype) & v) == 0) {
            return k;
        }
    }
    return -1;
}

mc_status_t mc_tflm_prepare_check(int32_t index, mc_tflm_prepare_check_t *out)
{
    static const uint8_t dtype_of_class[8] = {MC_DTYPE_FLOAT32, MC_DTYPE_INT32, MC_DTYPE_UINT8,
                                              MC_DTYPE_INT64,   MC_DTYPE_BOOL,  MC_DTYPE_INT16,
                                              MC_DTYPE_INT8,    MC_DTYPE_INT4};
    uint32_t c, v;
    int32_t b;
    if (out == NULL) {
        return MC_E_NULL;
    }
    if (index < 0 || index >= N_CHECKS) {
        return MC_E_RANGE;
    }
    c = checks[index];
    v = VALUE(c);
    out->code = CODE(c);
    out->when_role = WHEN_ROLE(c);
    out->role = ROLE(c);
    out->kind = KIND(c);
    out->when_dtypes = out->allowed = 0;
    for (b = 0; b < 8; b++) {
        out->when_dtypes |= (WHEN_CLASSES(c) >> b & 1u) << dtype_of_class[b];
        out->allowed |= (v >> b & 1u) << dtype_of_class[b];
    }
    if (out->kind == MC_CHECK_RANK) { /* the ranks lo .. hi as bits */
        out->allowed = ((2u << (v & 15)) - 1) & ~((1u << (v >> 4)) - 1);
    } else if (out->kind == MC_CHECK_INPUTS) {
        out->allowed = v;
    }
    return MC_OK;
}
