/*
 * The op table: one row per TFLite builtin operator kind that TFLM registers
 * (MicroMutableOpResolver::Add* in tensorflow/lite/micro/micro_mutable_op_resolver.h),
 * and what its kernel makes TFLM allocate:
 *   - the builtin-options struct its parser allocates in the tail (size, alignment);
 *   - the persistent OpData its Init() allocates (16-aligned, "Persistent buffer data");
 *   - its Prepare() as a script of steps in the kernel's own order: temporary
 *     TfLiteTensors for inputs and outputs (the order matters for the smallest arena:
 *     a temporary is checked against the tail as it is at that moment), persistent
 *     buffers (per-channel multipliers, dims copies, lookup tables, ...) and scratch
 *     buffers requested in the head (RequestScratchBufferInArena), each size a rule of
 *     the operator's tensors and options.
 * Sizes are per target (tflm_structs.c), because they depend on the ABI
 * (pointer size, alignment of 8-byte members, enum size), on the TFLM version and on
 * whether TFLM was built with compression.  A vendor kernel library (CMSIS-NN on
 * Cortex-M, ESP-NN on ESP32) replaces a few kernels: their rows carry a second OpData
 * and script.  Sources: the kernels of tflite-micro 90b983c2 (reference), its
 * kernels/cmsis_nn/ glue with CMSIS-NN's *_get_buffer_size, esp-tflite-micro's
 * kernels/esp_nn/ glue with ESP-NN's scratch sizes; sizes from compile probes of those
 * sources per target, checked against TFLM's RecordingMicroAllocator on each target
 * (ESP-NN: esp-tflite-micro 99f49e14 with esp-nn d45b843c built for armhf).
 *
 * The size rules the scripts name are tflm_rules.c's.
 *
 * A new operator kind: one row in ops[] (and a script when no existing one fits, with
 * its rules).  A new target: a column in tflm_structs.c (its sizes that differ from
 * armhf's) and a row in tflm_targets.c.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "tflm_tables.h"

/* ---- Prepare scripts ------------------------------------------------------------- */

enum {
    X_IN = 0x00,      /* 0x00 + i: temporary TfLiteTensor of input i (none if absent) */
    X_OUT = 0x20,     /* 0x20 + i: temporary TfLiteTensor of output i */
    X_ALL_IN = 0x40,  /* every input, in order */
    X_REST_IN = 0x41, /* inputs 1 .. n-1 */
    X_P = 0x42,       /* persistent buffer, size rule in the next byte (R_*) */
    X_S = 0x43,       /* scratch buffer request, size rule in the next byte (R_*) */
    X_IF = 0x44,      /* next byte a type test (GUARD), then a count: skip that many
                         bytes unless the test holds */
    X_END = 0xFF
};

#define IN(i) (X_IN + (i))
#define OUT(i) (X_OUT + (i))
#define P(r) X_P, (r)
#define S(r) X_S, (r)

/* The scripts, each once and all in one block (scripts_t): an op row names its script
 * (SC_*) and script_at[] says where it starts, two bytes a script instead of a pointer. */
#define SCRIPTS(X)                                                                                 \
    X(NONE, X_END)                                                                                 \
    X(IN0, IN(0), X_END)                                                                           \
    X(IN2, IN(2), X_END)                                                                           \
    X(IN0_OUT0, IN(0), OUT(0), X_END)                                                              \
    X(IN01_OUT0, IN(0), IN(1), OUT(0), X_END)                                                      \
    X(IN01, IN(0), IN(1), X_END)                                                                   \
    X(IN012_OUT0, IN(0), IN(1), IN(2), OUT(0), X_END)                                              \
    X(IN0123_OUT0, IN(0), IN(1), IN(2), IN(3), OUT(0), X_END)                                      \
    X(IN0_OUT0_DIMS, IN(0), OUT(0), P(R_DIMS_OUT0), X_END)                                         \
    X(IN01_OUT0_DIMS, IN(0), IN(1), OUT(0), P(R_DIMS_OUT0), X_END)                                 \
    X(OUT0_IN0_DIMS, OUT(0), IN(0), P(R_DIMS_OUT0), X_END)                                         \
    X(ADD_N, IN(0), OUT(0), X_REST_IN, P(R_ADD_N_OPDATA), S(R_ADD_N_POINTERS), X_END)              \
    X(CONCATENATION, IN(0), OUT(0), X_ALL_IN, X_END)                                               \
    X(ASSIGN_VARIABLE, IN(1), P(R_RESOURCE_BUFFER), X_END)                                         \
    /* ConvPrepare: output, input, filter; the per-channel arrays; CalculateOpDataConv's           \
     * input, filter, bias, output; an int4 filter's unpacking buffer. */                          \
    X(CONV, OUT(0), IN(0), IN(1), P(R_CHANNELS_F0), P(R_CHANNELS_F0), IN(0), IN(1), IN(2),         \
      OUT(0), S(R_FILTER_INT4), X_END)                                                             \
    X(DEPTHWISE, OUT(0), IN(0), IN(1), P(R_CHANNELS_F3), P(R_CHANNELS_F3), S(R_FILTER_INT4),       \
      IN(0), IN(1), IN(2), OUT(0), X_END)                                                          \
    X(FULLY_CONNECTED, IN(0), IN(1), IN(2), OUT(0), S(R_FILTER_INT4), P(R_FC_CHANNELS),            \
      P(R_FC_CHANNELS), X_END)                                                                     \
    X(CUMSUM, IN(0), IN(1), OUT(0), P(R_CUMSUM_OPDATA), X_END)                                     \
    X(EMBEDDING, IN(0), IN(1), OUT(0), P(R_DIMS_OUT0), P(R_EMBEDDING_OPDATA), X_END)               \
    X(LOG_SOFTMAX, IN(0), OUT(0), P(R_LOG_SOFTMAX_OPDATA), X_END)                                  \
    X(SOFTMAX, IN(0), OUT(0), P(R_SOFTMAX_LUT), P(R_SOFTMAX_LUT), X_END)                           \
    X(BATCH_MATMUL, IN(0), IN(1), OUT(0), P(R_BMM_QUANT), P(R_BMM_LHS_TENSOR), P(R_BMM_LHS_DIMS),  \
      P(R_BMM_LHS_DATA), P(R_BMM_RHS_TENSOR), P(R_BMM_RHS_DIMS), P(R_BMM_RHS_DATA),                \
      P(R_DIMS_OUT0), X_END)                                                                       \
    /* PrepareMeanOrSumHelper, then PrepareSimple (input, axis, and output when int8). */          \
    X(MEAN_SUM, IN(0), OUT(0), IN(1), S(R_REDUCE_ACC), S(R_RANK_IN0), S(R_ELEMENTS_IN1), IN(0),    \
      IN(1), X_IF, GUARD(G_IN0, T_INT8), 1, OUT(0), X_END)                                         \
    /* PrepareMinMaxHelper: PrepareSimple first. */                                                \
    X(REDUCE_MIN_MAX, IN(0), IN(1), X_IF, GUARD(G_IN0, T_INT8), 1, OUT(0), IN(0), OUT(0), IN(1),   \
      S(R_RANK_IN0), S(R_ELEMENTS_IN1), X_END)                                                     \
    X(REDUCE_ALL, IN(0), OUT(0), IN(1), IN(0), IN(1), X_IF, GUARD(G_IN0, T_INT8), 1, OUT(0),       \
      S(R_RANK_IN0), S(R_ELEMENTS_IN1), X_END)                                                     \
    X(MIRROR_PAD, IN(0), IN(1), OUT(0), S(R_RANK_IN0), S(R_RANK_IN0), X_END)                       \
    X(SVDF, IN(0), IN(1), IN(2), IN(3), IN(4), OUT(0), S(R_SVDF_FILTERS), S(R_SVDF_UNITS), X_END)  \
    /* TransposeConvPrepare: output, input, filter; per-channel arrays; the accumulators;          \
     * then CalculateOpData's temporaries when quantized. */                                       \
    X(TRANSPOSE_CONV, OUT(0), IN(2), IN(1), P(R_CHANNELS_F0), P(R_CHANNELS_F0), S(R_TCONV_ACC),    \
      X_IF, GUARD(G_IN2, T_NOT_FLOAT32), 6, IN(2), IN(1), IN(3), OUT(0), S(R_TCONV_BIAS64), X_END) \
    X(LSTM, IN(0), IN(1), IN(2), IN(3), IN(4), IN(5), IN(6), IN(7), IN(8), IN(9), IN(10), IN(11),  \
      IN(12), IN(13), IN(14), IN(15), IN(16), IN(17), IN(18), IN(19), IN(20), IN(21), IN(22),      \
      IN(23), OUT(0), S(R_LSTM_STATE), S(R_LSTM_STATE), S(R_LSTM_STATE), S(R_LSTM_STATE), X_END)   \
    /* TanhPrepare: the input, then CalculateArithmeticOpData's input and output. */               \
    X(TANH, IN(0), IN(0), OUT(0), X_END)                                                           \
    /* CMSIS-NN's ConvPrepare: input, filter, output (its bias lookup asks for an output           \
     * that does not exist); the per-channel arrays only when quantized; then                      \
     * CalculateOpDataConv's temporaries and the im2col buffer. */                                 \
    X(CMSIS_CONV, IN(0), IN(1), OUT(0), X_IF, GUARD(G_IN0, T_QUANT), 4, P(R_CHANNELS_F0),          \
      P(R_CHANNELS_F0), IN(0), IN(1), IN(2), OUT(0), S(R_CMSIS_CONV), X_END)                       \
    X(CMSIS_DEPTHWISE, IN(0), IN(1), OUT(0), X_IF, GUARD(G_IN0, T_QUANT), 4, P(R_CHANNELS_F3),     \
      P(R_CHANNELS_F3), IN(0), IN(1), IN(2), OUT(0), S(R_CMSIS_DEPTHWISE), X_END)                  \
    X(CMSIS_FULLY_CONNECTED, IN(0), IN(1), IN(2), OUT(0), P(R_FC_CHANNELS), P(R_FC_CHANNELS),      \
      S(R_CMSIS_FC_1X1), X_END)                                                                    \
    X(CMSIS_AVGPOOL, IN(0), OUT(0), IN(0), OUT(0), S(R_CMSIS_AVGPOOL), X_END)                      \
    X(ESP_SOFTMAX, IN(0), OUT(0), P(R_SOFTMAX_LUT), P(R_SOFTMAX_LUT), S(R_ESP_SOFTMAX), X_END)     \
    X(RESHAPE, IN(0), OUT(0), P(R_SAME_ELEMENTS), X_END)                                           \
    X(EXPAND_DIMS, IN(0), IN(1), OUT(0), P(R_SAME_ELEMENTS), X_END)                                \
    /* registered, not modelled (below): no script */                                              \
    X(NOT_MODELLED, X_END)

#define SCRIPT_MEMBER(name, ...) uint8_t name[sizeof((const uint8_t[]){__VA_ARGS__})];
#define SCRIPT_BYTES(name, ...) {__VA_ARGS__},
#define SCRIPT_ID(name, ...) SC_##name,
#define SCRIPT_AT(name, ...) (uint16_t)offsetof(scripts_t, name),

typedef struct {
    SCRIPTS(SCRIPT_MEMBER)
} scripts_t;

enum { SCRIPTS(SCRIPT_ID) SC_COUNT };

static const scripts_t scripts = {SCRIPTS(SCRIPT_BYTES)};
static const uint16_t script_at[SC_COUNT] = {SCRIPTS(SCRIPT_AT)};

static const uint8_t *script(int32_t sc)
{
    return (const uint8_t *)&scripts + script_at[sc];
}

/* ---- the rows ---------------------------------------------------------------------- */

/* Registered, not modelled (vendor kernels outside the table, unknown): SC_NOT_MODELLED. */
typedef struct {
    uint8_t code;      /* BuiltinOperator */
    uint8_t options;   /* MC_S_O_* its parser allocates; 0: none */
    uint8_t opdata;    /* MC_S_K_* its Init allocates; 0: none */
    uint8_t prepare;   /* SC_* */
} op_row_t;

/* A vendor library's kernel for one operator kind: its OpData and Prepare.  Only the
 * dozen kinds vendors replace have one, so they are a list of their own rather than
 * a column of every row. */
typedef struct {
    uint8_t code;      /* BuiltinOperator */
    uint8_t vendor;    /* MC_VENDOR_* */
    uint8_t opdata;    /* MC_S_V_* */
    uint8_t prepare;   /* SC_* */
} vendor_row_t;

#define ROW(code, options, opdata, prepare) {code, MC_S_##options, MC_S_##opdata, SC_##prepare}
#define CMSIS(code, opdata, prepare) {code, MC_VENDOR_CMSIS_NN, MC_S_##opdata, SC_##prepare}
#define ESP(code, opdata, prepare) {code, MC_VENDOR_ESP_NN, MC_S_##opdata, SC_##prepare}

static const vendor_row_t vendors[] = {
    CMSIS(0, V_CMSIS_ADD, IN01_OUT0),                      /* ADD */
    CMSIS(1, V_CMSIS_POOL, CMSIS_AVGPOOL),                 /* AVERAGE_POOL_2D */
    CMSIS(126, NONE, NOT_MODELLED),                        /* BATCH_MATMUL */
    CMSIS(3, V_CMSIS_CONV, CMSIS_CONV),                    /* CONV_2D */
    CMSIS(4, V_CMSIS_CONV, CMSIS_DEPTHWISE),               /* DEPTHWISE_CONV_2D */
    CMSIS(9, V_CMSIS_FULLY_CONNECTED, CMSIS_FULLY_CONNECTED), /* FULLY_CONNECTED */
    CMSIS(17, V_CMSIS_POOL, IN0_OUT0),                     /* MAX_POOL_2D */
    CMSIS(18, V_CMSIS_MUL, IN01_OUT0),                     /* MUL */
    CMSIS(25, V_CMSIS_SOFTMAX, SOFTMAX),                   /* SOFTMAX */
    CMSIS(27, NONE, NOT_MODELLED),                         /* SVDF */
    CMSIS(67, NONE, NOT_MODELLED),                         /* TRANSPOSE_CONV */
    CMSIS(44, NONE, NOT_MODELLED),                         /* UNIDIRECTIONAL_SEQUENCE_LSTM */
    ESP(3, V_ESP_CONV, CONV),                              /* CONV_2D */
    ESP(4, V_ESP_CONV, DEPTHWISE),                         /* DEPTHWISE_CONV_2D */
    ESP(25, V_ESP_SOFTMAX, ESP_SOFTMAX),                   /* SOFTMAX */
};

static const op_row_t ops[] = {
    ROW(101, NONE, K_ABS_RSQRT, IN0_OUT0),          /* ABS */
    ROW(0, O_ADD, K_ADD, IN01_OUT0), /* ADD */
    ROW(106, NONE, NONE, ADD_N),                    /* ADD_N */
    ROW(56, O_ARG_MAX, NONE, NONE),                 /* ARG_MAX */
    ROW(79, O_ARG_MIN, NONE, NONE),                 /* ARG_MIN */
    ROW(144, NONE, K_ASSIGN_VARIABLE, ASSIGN_VARIABLE), /* ASSIGN_VARIABLE */
    ROW(1, O_POOL, K_POOL, IN0_OUT0), /* AVERAGE_POOL_2D */
    ROW(126, O_BATCH_MAT_MUL, K_BATCH_MATMUL, BATCH_MATMUL), /* BATCH_MATMUL */
    ROW(37, NONE, NONE, IN0_OUT0),                  /* BATCH_TO_SPACE_ND */
    ROW(145, NONE, NONE, IN01_OUT0),                /* BROADCAST_ARGS */
    ROW(130, NONE, NONE, IN01_OUT0),                /* BROADCAST_TO */
    ROW(129, O_CALL_ONCE, K_CALL_ONCE, NONE),   /* CALL_ONCE (its subgraph: lifetimes.c) */
    ROW(53, O_CAST, NONE, IN0_OUT0),                /* CAST */
    ROW(104, NONE, NONE, IN0_OUT0),                 /* CEIL */
    ROW(2, O_CONCATENATION, K_CONCATENATION, CONCATENATION), /* CONCATENATION */
    ROW(3, O_CONV, K_CONV, CONV), /* CONV_2D */
    ROW(108, NONE, NONE, IN0_OUT0),                 /* COS */
    ROW(128, O_CUMSUM, NONE, CUMSUM),               /* CUMSUM */
    ROW(5, O_DEPTH_TO_SPACE, NONE, IN0_OUT0_DIMS),  /* DEPTH_TO_SPACE */
    ROW(4, O_DEPTHWISE_CONV, K_CONV, DEPTHWISE), /* DEPTHWISE_CONV_2D */
    ROW(6, NONE, K_DEQUANTIZE, IN0_OUT0),           /* DEQUANTIZE */
    ROW(42, O_DIV, K_DIV, IN01_OUT0),               /* DIV */
    ROW(151, NONE, NONE, IN012_OUT0),               /* DYNAMIC_UPDATE_SLICE */
    ROW(111, NONE, K_ELU, IN0_OUT0),                /* ELU */
    ROW(7, NONE, NONE, EMBEDDING),                  /* EMBEDDING_LOOKUP */
    ROW(71, NONE, K_COMPARISONS, IN01),             /* EQUAL */
    ROW(47, NONE, NONE, IN0_OUT0),                  /* EXP */
    ROW(70, NONE, NONE, EXPAND_DIMS),               /* EXPAND_DIMS */
    ROW(94, NONE, NONE, IN01_OUT0),                 /* FILL */
    ROW(8, NONE, NONE, NONE),                       /* FLOOR */
    ROW(90, NONE, NONE, IN01_OUT0),                 /* FLOOR_DIV */
    ROW(95, NONE, NONE, IN01_OUT0),                 /* FLOOR_MOD */
    ROW(9, O_FULLY_CONNECTED, K_FULLY_CONNECTED, FULLY_CONNECTED), /* FULLY_CONNECTED */
    ROW(36, O_GATHER, NONE, IN01_OUT0_DIMS),        /* GATHER */
    ROW(107, NONE, NONE, IN01_OUT0_DIMS),           /* GATHER_ND */
    ROW(61, NONE, K_COMPARISONS, IN01),             /* GREATER */
    ROW(62, NONE, K_COMPARISONS, IN01),             /* GREATER_EQUAL */
    ROW(117, NONE, K_HARD_SWISH, IN0_OUT0),         /* HARD_SWISH */
    ROW(118, O_IF, K_IF, IN0),                  /* IF: the condition (branches: lifetimes.c) */
    ROW(11, O_L2_NORM, K_L2NORM, IN0_OUT0),         /* L2_NORMALIZATION */
    ROW(12, O_POOL, NONE, OUT0_IN0_DIMS),           /* L2_POOL_2D */
    ROW(98, O_LEAKY_RELU, K_LEAKY_RELU, IN0_OUT0),  /* LEAKY_RELU */
    ROW(58, NONE, K_COMPARISONS, IN01),             /* LESS */
    ROW(63, NONE, K_COMPARISONS, IN01),             /* LESS_EQUAL */
    ROW(73, NONE, NONE, IN0_OUT0),                  /* LOG */
    ROW(86, NONE, NONE, NONE),                      /* LOGICAL_AND */
    ROW(87, NONE, NONE, IN0_OUT0),                  /* LOGICAL_NOT */
    ROW(84, NONE, NONE, NONE),                      /* LOGICAL_OR */
    ROW(14, NONE, K_LOGISTIC, IN0_OUT0),            /* LOGISTIC */
    ROW(50, NONE, NONE, LOG_SOFTMAX),               /* LOG_SOFTMAX */
    ROW(55, NONE, NONE, NONE),                      /* MAXIMUM */
    ROW(17, O_POOL, K_POOL, IN0_OUT0), /* MAX_POOL_2D */
    ROW(40, O_REDUCER, K_REDUCE, MEAN_SUM),         /* MEAN */
    ROW(57, NONE, NONE, NONE),                      /* MINIMUM */
    ROW(100, O_MIRROR_PADDING, K_MIRROR_PAD, MIRROR_PAD), /* MIRROR_PAD */
    ROW(18, O_MUL, K_MUL, IN01_OUT0), /* MUL */
    ROW(59, NONE, NONE, NONE),                      /* NEG */
    ROW(72, NONE, K_COMPARISONS, IN01),             /* NOT_EQUAL */
    ROW(83, O_PACK, NONE, NONE),                    /* PACK */
    ROW(34, NONE, K_PAD, IN012_OUT0),               /* PAD (the third input only if present) */
    ROW(60, NONE, K_PAD, IN012_OUT0),               /* PADV2 */
    ROW(54, NONE, K_PRELU, IN01_OUT0),              /* PRELU */
    ROW(114, NONE, K_QUANTIZE, IN0_OUT0),           /* QUANTIZE */
    ROW(143, NONE, NONE, IN0),                  /* READ_VARIABLE */
    ROW(140, O_REDUCER, K_REDUCE, REDUCE_ALL),      /* REDUCE_ALL */
    ROW(82, O_REDUCER, K_REDUCE, REDUCE_MIN_MAX),   /* REDUCE_MAX */
    ROW(89, O_REDUCER, K_REDUCE, REDUCE_MIN_MAX),   /* REDUCE_MIN */
    ROW(19, NONE, K_RELU, IN0_OUT0),                /* RELU */
    ROW(21, NONE, K_RELU6, IN0),                    /* RELU6 */
    ROW(22, O_RESHAPE, NONE, RESHAPE),              /* RESHAPE */
    ROW(23, O_RESIZE_BILINEAR, NONE, IN01_OUT0),    /* RESIZE_BILINEAR */
    ROW(97, O_RESIZE_NEAREST_NEIGHBOR, NONE, IN01_OUT0), /* RESIZE_NEAREST_NEIGHBOR */
    ROW(105, NONE, NONE, IN01_OUT0),                /* REVERSE_V2 */
    ROW(116, NONE, NONE, IN0_OUT0),                 /* ROUND */
    ROW(76, NONE, K_ABS_RSQRT, IN0_OUT0),           /* RSQRT */
    ROW(123, NONE, K_SELECT, IN012_OUT0),           /* SELECT_V2 */
    ROW(77, O_SHAPE, NONE, NONE),                   /* SHAPE */
    ROW(66, NONE, NONE, IN0_OUT0),                  /* SIN */
    ROW(65, NONE, NONE, IN012_OUT0),                /* SLICE */
    ROW(25, O_SOFTMAX, K_SOFTMAX, SOFTMAX), /* SOFTMAX */
    ROW(38, NONE, K_SPACE_TO_BATCH, IN0_OUT0),      /* SPACE_TO_BATCH_ND */
    ROW(26, O_SPACE_TO_DEPTH, NONE, IN0_OUT0_DIMS), /* SPACE_TO_DEPTH */
    ROW(49, O_SPLIT, NONE, IN0),                    /* SPLIT (the axis tensor) */
    ROW(102, O_SPLIT_V, NONE, IN2),                 /* SPLIT_V (the axis tensor) */
    ROW(75, NONE, NONE, IN0_OUT0),                  /* SQRT */
    ROW(92, NONE, NONE, IN0_OUT0),                  /* SQUARE */
    ROW(99, NONE, K_SQUARED_DIFFERENCE, IN01_OUT0), /* SQUARED_DIFFERENCE */
    ROW(43, O_SQUEEZE, NONE, RESHAPE),              /* SQUEEZE */
    ROW(45, O_STRIDED_SLICE, K_STRIDED_SLICE, IN0123_OUT0), /* STRIDED_SLICE */
    ROW(41, O_SUB, K_SUB, IN01_OUT0),               /* SUB */
    ROW(74, O_REDUCER, K_REDUCE, MEAN_SUM),         /* SUM */
    ROW(27, O_SVDF, K_SVDF, SVDF), /* SVDF */
    ROW(28, NONE, K_TANH, TANH),                    /* TANH */
    ROW(39, NONE, NONE, IN01_OUT0),                 /* TRANSPOSE */
    ROW(67, O_TRANSPOSE_CONV, K_TRANSPOSE_CONV, TRANSPOSE_CONV), /* TRANSPOSE_CONV */
    ROW(44, O_UNIDIRECTIONAL_SEQUENCE_LSTM, K_LSTM, LSTM), /* UNIDIRECTIONAL_SEQUENCE_LSTM */
    ROW(88, O_UNPACK, NONE, NONE),                  /* UNPACK */
    ROW(142, O_VAR_HANDLE, K_VAR_HANDLE, NONE), /* VAR_HANDLE (its id: tflm_resources.c) */
    ROW(119, O_WHILE, K_WHILE, NONE),           /* WHILE (its subgraphs: lifetimes.c) */
    ROW(93, NONE, NONE, IN0_OUT0),                  /* ZEROS_LIKE */
};

#define N_OPS ((int32_t)(sizeof ops / sizeof ops[0]))

/* ---- lookups --------------------------------------------------------------------- */

static const op_row_t *find_row(int32_t code)
{
    int32_t i;
    for (i = 0; i < N_OPS; i++) {
        if (ops[i].code == code) {
            return &ops[i];
        }
    }
    return NULL;
}

/* The vendor kernel the replay uses for a row, or NULL for the reference kernel. */
static const vendor_row_t *vendor_of(const op_row_t *row, int32_t vendor)
{
    int32_t i;
    if (row == NULL) {
        return NULL;
    }
    for (i = 0; i < (int32_t)(sizeof vendors / sizeof vendors[0]); i++) {
        if (vendors[i].code == row->code && vendors[i].vendor == vendor) {
            return &vendors[i];
        }
    }
    return NULL;
}

bool mc__op_registered(int32_t code)
{
    return find_row(code) != NULL;
}

/* A row TFLM registers and whose kernel (the vendor's, when v) the table models. */
static bool modelled(const op_row_t *row, const vendor_row_t *v)
{
    return row != NULL && row->prepare != SC_NOT_MODELLED &&
           (v == NULL || v->prepare != SC_NOT_MODELLED);
}

bool mc__op_vendor_kernel(int32_t code, int32_t vendor)
{
    return vendor_of(find_row(code), vendor) != NULL;
}

bool mc__op_modelled(int32_t code, int32_t vendor)
{
    const op_row_t *row = find_row(code);
    return modelled(row, vendor_of(row, vendor));
}

mc_status_t mc_tflm_op_info(int32_t code, mc_target_t target, mc_kernels_t kernels,
                            mc_tflm_op_info_t *out)
{
    const op_row_t *row;
    const vendor_row_t *v;
    mc_size_t options;
    if (out == NULL) {
        return MC_E_NULL;
    }
    if (code < 0 || (uint32_t)target >= (uint32_t)MC_TARGET_COUNT ||
        (kernels != MC_KERNELS_REFERENCE && kernels != MC_KERNELS_OPTIMISED)) {
        return MC_E_RANGE;
    }
    row = find_row(code);
    v = vendor_of(row, kernels == MC_KERNELS_OPTIMISED ? mc__target_abi(target)->vendor : MC_VENDOR_NONE);
    /* A kind TFLM does not register: no options struct (0 bytes, aligned to 1), no OpData. */
    options = mc__struct_size(row != NULL ? row->options : MC_S_NONE, target);
    memset(out, 0, sizeof *out);
    out->code = code;
    out->name = mc_op_name(code);
    out->registered = row != NULL;
    out->vendor_kernel = v != NULL;
    out->modelled = modelled(row, v);
    out->options_bytes = (int32_t)MC_SZ_BYTES(options);
    out->options_alignment = MC_SZ_ALIGN(options);
    out->opdata_bytes =
        (int32_t)mc__struct_bytes(v != NULL ? v->opdata : row != NULL ? row->opdata : MC_S_NONE, target);
    return MC_OK;
}

static void apply(mc_sim_t *s, const mc_op_t *op, int32_t r, bool scratch)
{
    int64_t bytes = mc__rule_bytes(&s->ctx, op, r);
    if (bytes < 0) {
        int32_t why = (int32_t)bytes; /* -1 .. -4: 32-bit tests */
        if (why == REFUSED) {
            s->status = MC_E_UNSUPPORTED;
            s->refused = s->op;
        } else if (why != -1) {
            s->status = why == -2 ? MC_E_OVERFLOW : MC_E_RANGE;
        }
        return;
    }
    if (scratch) {
        mc__sim_scratch(s, bytes);
    } else {
        mc__sim_persistent(s, bytes, 16, MC_TFLM_PERSISTENT_BUFFERS);
    }
}

/* The temporary TfLiteTensor of entry i (>= 0) of an operator's tensor list (first, n),
 * when the entry is there. */
static void temp_of(mc_sim_t *s, int64_t first, int32_t n, int32_t i)
{
    int32_t t = i < n ? s->ctx.graph->op_tensors[first + i] : -1;
    if (t >= 0) {
        mc__sim_temp_tensor(s, t);
    }
}

static void run_script(mc_sim_t *s, const mc_op_t *op, const uint8_t *x)
{
    int32_t i;
    while (*x != X_END && s->status == MC_OK) {
        uint8_t c = *x++;
        if (c < X_ALL_IN) {
            bool output = c >= X_OUT;
            temp_of(s, output ? op->first_output : op->first_input,
                    output ? op->n_outputs : op->n_inputs, c - (output ? X_OUT : X_IN));
        } else if (c == X_ALL_IN || c == X_REST_IN) {
            for (i = c - X_ALL_IN; i < op->n_inputs; i++) {
                temp_of(s, op->first_input, op->n_inputs, i);
            }
        } else if (c == X_P || c == X_S) {
            apply(s, op, *x++, c == X_S);
        } else if (c == X_IF) {
            uint8_t guard = *x++, skip = *x++;
            if (!mc__guard_holds(&s->ctx, op, guard)) {
                x += skip;
            }
        }
    }
}

void mc__op_parse(mc_sim_t *s, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    if (row != NULL && row->options != MC_S_NONE) {
        mc_size_t options = mc__struct_size(row->options, s->ctx.target);
        mc__sim_persistent(s, MC_SZ_BYTES(options), MC_SZ_ALIGN(options), MC_TFLM_UNRECORDED);
    }
}

void mc__op_init(mc_sim_t *s, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    const vendor_row_t *v = vendor_of(row, s->ctx.vendor);
    int32_t opdata = v != NULL ? v->opdata : row != NULL ? row->opdata : MC_S_NONE;
    if (opdata != MC_S_NONE) {
        mc__sim_persistent(s, mc__struct_bytes(opdata, s->ctx.target), 16, MC_TFLM_PERSISTENT_BUFFERS);
    }
}

void mc__op_prepare(mc_sim_t *s, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    const vendor_row_t *v = vendor_of(row, s->ctx.vendor);
    if (row != NULL) {
        run_script(s, op, script(v != NULL ? v->prepare : row->prepare));
    }
}

/* The unknown-operator bound (memcore.h, MC_TFLM_ALLOW_UNKNOWN): phase 0 the options
 * struct, 1 Init, 2 Prepare. */
void mc__op_unknown_bound(mc_sim_t *s, const mc_op_t *op, int32_t phase)
{
    int32_t i, pass, best = 0;
    int64_t sum = 0, n = 0;
    bool overflow = false;
    if (phase == 0 || phase == 1) {
        for (i = 0; i < N_OPS; i++) {
            int32_t bytes = (int32_t)mc__struct_bytes(phase == 0 ? ops[i].options : ops[i].opdata, s->ctx.target);
            best = bytes > best ? bytes : best;
        }
        mc__sim_persistent(s, best, phase == 0 ? 8 : 16,
                           phase == 0 ? MC_TFLM_UNRECORDED : MC_TFLM_PERSISTENT_BUFFERS);
        return;
    }
    /* Every input and output as a temporary, twice (CONV_2D takes some three times,
     * but never more than seven temporaries for four tensors); their elements counted
     * on the first pass. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < op->n_inputs + op->n_outputs && s->status == MC_OK; i++) {
            int32_t t = s->ctx.graph->op_tensors[(i < op->n_inputs ? op->first_input + i
                                                                : op->first_output + (i - op->n_inputs))];
            if (t < 0) {
                continue;
            }
            mc__sim_temp_tensor(s, t);
            if (pass > 0) {
                continue;
            }
            /* A graph's tensor holds no more elements than bytes (mc_graph_structure
             * counts its bytes from them): their count does not overflow. */
            if (mc_checked_add(sum, mc__elements_times(&s->ctx.graph->tensors[t], 1), &sum) != MC_OK) {
                s->status = MC_E_OVERFLOW;
                return;
            }
        }
    }
    n = mc_add_or_flag(mc_mul_or_flag(sum, 8, &overflow), 8192, &overflow);
    if (overflow) {
        s->status = MC_E_OVERFLOW;
        return;
    }
    mc__sim_persistent(s, n, 16, MC_TFLM_PERSISTENT_BUFFERS);
    mc__sim_scratch(s, n);
}

int32_t mc__op_scratch_count(const mc_ctx_t *c, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    const vendor_row_t *v = vendor_of(row, c->vendor);
    const uint8_t *x;
    int32_t n = 0;
    if (row == NULL) {
        return -1;
    }
    for (x = script(v != NULL ? v->prepare : row->prepare); *x != X_END; x++) {
        if (*x == X_P) {
            x++;
        } else if (*x == X_S) {
            int64_t bytes = mc__rule_bytes(c, op, *++x);
            if (bytes >= 0) {
                n++;
            } else if ((int32_t)bytes != -1) { /* -1 .. -4: 32-bit tests */
                /* -3, an input missing, is -1; -2 (overflow) and REFUSED stay */
                return (int32_t)bytes == -3 ? -1 : (int32_t)bytes;
            }
        } else if (*x == X_IF) {
            uint8_t guard = x[1], skip = x[2];
            x += 2;
            if (!mc__guard_holds(c, op, guard)) {
                x += skip;
            }
        }
    }
    return n;
}
