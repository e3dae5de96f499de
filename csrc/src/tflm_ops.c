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
 * Sizes are per target (the structs[] columns, with struct_diffs[]), because they depend on the ABI
 * (pointer size, alignment of 8-byte members, enum size), on the TFLM version and on
 * whether TFLM was built with compression.  A vendor kernel library (CMSIS-NN on
 * Cortex-M, ESP-NN on ESP32) replaces a few kernels: their rows carry a second OpData
 * and script.  Sources: the kernels of tflite-micro 90b983c2 (reference), its
 * kernels/cmsis_nn/ glue with CMSIS-NN's *_get_buffer_size, esp-tflite-micro's
 * kernels/esp_nn/ glue with ESP-NN's scratch sizes; sizes from compile probes of those
 * sources per target, checked against TFLM's RecordingMicroAllocator on each target
 * (ESP-NN: esp-tflite-micro 99f49e14 with esp-nn d45b843c built for armhf).
 *
 * A new operator kind: one row in ops[] (and a script when no existing one fits).
 * A new target: a column (its sizes that differ from armhf's, in struct_diffs[]) and a
 * row in tflm_targets.c.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "tflm_internal.h"

/* ---- struct sizes per target ----------------------------------------------------
 * K_*: kernel data (OpData), O_*: builtin options (TfLite*Params), V_*: vendor kernels'
 * data.  Columns: host64 (the PyPI wheel), armhf and cortex-m (TFLM 90b983c2 with
 * compression), and esp32 (Xtensa: 32-bit, 4-byte enums, no compression; measured on an
 * Xtensa build, tests/corpus/truth/esp32.json).  riscv32 reads
 * the armhf column: its tables are derived from armhf (tflm_targets.c).  Most structs
 * are the same on every target, so structs[] holds armhf's column and struct_diffs[]
 * the other columns' sizes where they differ (a third of the flash of a full table). */

enum { C_HOST64, C_ARMHF, C_CORTEX_M, C_ESP32 };
static const uint8_t column_of[MC_TARGET_COUNT] = {C_HOST64, C_ARMHF, C_CORTEX_M, C_ARMHF, C_ESP32};

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

static const mc_size_t structs[MC_S_COUNT] = {
    /* MC_S_NONE */ 0,
    /* K_RELU                   */ MC_SZ(28, 4),  /* activations.cc ReluOpData */
    /* K_RELU6                  */ MC_SZ(8, 4),  /* activations.cc Relu6OpData */
    /* K_ADD                    */ MC_SZ(60, 4),  /* add.cc OpDataAdd */
    /* K_ADD_N                  */ MC_SZ(40, 4),  /* add_n.cc OpData */
    /* K_ASSIGN_VARIABLE        */ MC_SZ(4, 4),  /* assign_variable.cc OpData */
    /* K_BATCH_MATMUL           */ MC_SZ(16, 4),  /* batch_matmul.cc OpDataBatchMatmul */
    /* K_EVAL_TENSOR            */ MC_SZ(12, 4),  /* core.cc TfLiteEvalTensor */
    /* K_CALL_ONCE              */ MC_SZ(8, 4),  /* call_once.cc OpData */
    /* K_COMPARISONS            */ MC_SZ(32, 4),  /* comparisons.cc OpData */
    /* K_CONCATENATION          */ MC_SZ(64, 4),  /* concatenation.cc OpData */
    /* K_CONV                   */ MC_SZ(64, 4),  /* conv.cc OpDataConv */
    /* K_CUMSUM                 */ MC_SZ(36, 4),  /* cumsum.cc OpData */
    /* K_DEQUANTIZE             */ MC_SZ(32, 8),  /* dequantize.cc DequantizeOpData */
    /* K_DIV                    */ MC_SZ(28, 4),  /* div.cc OpDataDiv */
    /* K_ABS_RSQRT              */ MC_SZ(28, 4),  /* elementwise.cc OpDataAbsRsqrt */
    /* K_ELU                    */ MC_SZ(256, 1),  /* elu.cc OpData */
    /* K_EMBEDDING_LOOKUP       */ MC_SZ(8, 4),  /* embedding_lookup.cc OpData */
    /* K_FULLY_CONNECTED        */ MC_SZ(56, 4),  /* fully_connected.cc OpDataFullyConnected */
    /* K_HARD_SWISH             */ MC_SZ(20, 4),  /* hard_swish.cc HardSwishParams */
    /* K_IF                     */ MC_SZ(8, 4),  /* if.cc OpData */
    /* K_L2NORM                 */ MC_SZ(4, 4),  /* l2norm.cc L2NormalizationParams */
    /* K_LEAKY_RELU             */ MC_SZ(24, 4),  /* leaky_relu.cc LeakyReluOpData */
    /* K_LOG_SOFTMAX            */ MC_SZ(28, 4),  /* log_softmax.cc LogSoftmaxOpData */
    /* K_LOGISTIC               */ MC_SZ(16, 4),  /* logistic.cc OpDataLogistic */
    /* K_MIRROR_PAD             */ MC_SZ(20, 4),  /* mirror_pad.cc OpDataMirrorPad */
    /* K_MUL                    */ MC_SZ(36, 4),  /* mul.cc OpDataMul */
    /* K_PAD                    */ MC_SZ(56, 4),  /* pad.cc OpData */
    /* K_POOL                   */ MC_SZ(32, 4),  /* pooling.cc OpDataPooling */
    /* K_PRELU                  */ MC_SZ(28, 4),  /* prelu.cc PreluParams */
    /* K_QUANTIZE               */ MC_SZ(32, 8),  /* quantize.cc OpDataQuantizeReference */
    /* K_REDUCE                 */ MC_SZ(44, 4),  /* reduce.cc OpDataReduce */
    /* K_SELECT                 */ MC_SZ(1, 1),  /* select.cc OpData */
    /* K_SOFTMAX                */ MC_SZ(56, 8),  /* softmax.cc SoftmaxParams */
    /* K_SPACE_TO_BATCH         */ MC_SZ(4, 4),  /* space_to_batch_nd.cc SpaceToBatchParams */
    /* K_SQUARED_DIFFERENCE     */ MC_SZ(112, 8),  /* squared_difference.cc OpData */
    /* K_STRIDED_SLICE          */ MC_SZ(84, 4),  /* strided_slice.cc StridedSliceParams */
    /* K_SUB                    */ MC_SZ(52, 4),  /* sub.cc OpDataSub */
    /* K_SVDF                   */ MC_SZ(36, 4),  /* svdf.cc OpDataSvdf */
    /* K_TANH                   */ MC_SZ(16, 4),  /* tanh.cc OpData */
    /* K_TRANSPOSE_CONV         */ MC_SZ(80, 4),  /* transpose_conv.cc OpData */
    /* K_LSTM                   */ MC_SZ(688, 8),  /* unidirectional_sequence_lstm.cc OpDataLSTM */
    /* K_VAR_HANDLE             */ MC_SZ(4, 4),  /* var_handle.cc OpData */
    /* K_WHILE                  */ MC_SZ(8, 4),  /* while.cc OpData */
    /* O_ADD                    */ MC_SZ(8, 4),  /* core.cc TfLiteAddParams */
    /* O_ARG_MAX                */ MC_SZ(4, 4),  /* core.cc TfLiteArgMaxParams */
    /* O_ARG_MIN                */ MC_SZ(4, 4),  /* core.cc TfLiteArgMinParams */
    /* O_BATCH_MAT_MUL          */ MC_SZ(3, 1),  /* core.cc TfLiteBatchMatMulParams */
    /* O_CALL_ONCE              */ MC_SZ(4, 4),  /* core.cc TfLiteCallOnceParams */
    /* O_CAST                   */ MC_SZ(8, 4),  /* core.cc TfLiteCastParams */
    /* O_CONCATENATION          */ MC_SZ(8, 4),  /* core.cc TfLiteConcatenationParams */
    /* O_CONV                   */ MC_SZ(28, 4),  /* core.cc TfLiteConvParams */
    /* O_CUMSUM                 */ MC_SZ(2, 1),  /* core.cc TfLiteCumsumParams */
    /* O_DEPTH_TO_SPACE         */ MC_SZ(4, 4),  /* core.cc TfLiteDepthToSpaceParams */
    /* O_DEPTHWISE_CONV         */ MC_SZ(28, 4),  /* core.cc TfLiteDepthwiseConvParams */
    /* O_DIV                    */ MC_SZ(4, 4),  /* core.cc TfLiteDivParams */
    /* O_FULLY_CONNECTED        */ MC_SZ(16, 4),  /* core.cc TfLiteFullyConnectedParams */
    /* O_GATHER                 */ MC_SZ(8, 4),  /* core.cc TfLiteGatherParams */
    /* O_IF                     */ MC_SZ(8, 4),  /* core.cc TfLiteIfParams */
    /* O_L2_NORM                */ MC_SZ(4, 4),  /* core.cc TfLiteL2NormParams */
    /* O_LEAKY_RELU             */ MC_SZ(4, 4),  /* core.cc TfLiteLeakyReluParams */
    /* O_MIRROR_PADDING         */ MC_SZ(4, 4),  /* core.cc TfLiteMirrorPaddingParams */
    /* O_MUL                    */ MC_SZ(4, 4),  /* core.cc TfLiteMulParams */
    /* O_PACK                   */ MC_SZ(8, 4),  /* core.cc TfLitePackParams */
    /* O_POOL                   */ MC_SZ(40, 4),  /* core.cc TfLitePoolParams */
    /* O_REDUCER                */ MC_SZ(1, 1),  /* core.cc TfLiteReducerParams */
    /* O_RESHAPE                */ MC_SZ(36, 4),  /* core.cc TfLiteReshapeParams */
    /* O_RESIZE_BILINEAR        */ MC_SZ(2, 1),  /* core.cc TfLiteResizeBilinearParams */
    /* O_RESIZE_NEAREST_NEIGHBOR */ MC_SZ(2, 1),  /* core.cc TfLiteResizeNearestNeighborParams */
    /* O_SHAPE                  */ MC_SZ(4, 4),  /* core.cc TfLiteShapeParams */
    /* O_SOFTMAX                */ MC_SZ(4, 4),  /* core.cc TfLiteSoftmaxParams */
    /* O_SPACE_TO_DEPTH         */ MC_SZ(4, 4),  /* core.cc TfLiteSpaceToDepthParams */
    /* O_SPLIT                  */ MC_SZ(4, 4),  /* core.cc TfLiteSplitParams */
    /* O_SPLIT_V                */ MC_SZ(4, 4),  /* core.cc TfLiteSplitVParams */
    /* O_SQUEEZE                */ MC_SZ(36, 4),  /* core.cc TfLiteSqueezeParams */
    /* O_STRIDED_SLICE          */ MC_SZ(24, 4),  /* core.cc TfLiteStridedSliceParams */
    /* O_SUB                    */ MC_SZ(8, 4),  /* core.cc TfLiteSubParams */
    /* O_SVDF                   */ MC_SZ(12, 4),  /* core.cc TfLiteSVDFParams */
    /* O_TRANSPOSE_CONV         */ MC_SZ(20, 4),  /* core.cc TfLiteTransposeConvParams */
    /* O_UNIDIRECTIONAL_SEQUENCE_LSTM */ MC_SZ(16, 4),  /* core.cc TfLiteUnidirectionalSequenceLSTMParams */
    /* O_UNPACK                 */ MC_SZ(8, 4),  /* core.cc TfLiteUnpackParams */
    /* O_VAR_HANDLE             */ MC_SZ(8, 4),  /* core.cc TfLiteVarHandleParams */
    /* O_WHILE                  */ MC_SZ(8, 4),  /* core.cc TfLiteWhileParams */
    /* CMSIS-NN glue (kernels/cmsis_nn/), cortex-m column measured */
    /* V_CMSIS_CONV             */ MC_SZ(64, 4),  /* OpData {OpDataConv; int buffer_idx} */
    /* V_CMSIS_FULLY_CONNECTED  */ MC_SZ(56, 4),  /* OpData {OpDataFullyConnected; ...} */
    /* V_CMSIS_POOL             */ MC_SZ(32, 4),  /* OpData {OpDataPooling; int buffer_idx} */
    /* V_CMSIS_ADD              */ MC_SZ(60, 4),  /* OpData */
    /* V_CMSIS_MUL              */ MC_SZ(36, 4),  /* OpData */
    /* V_CMSIS_SOFTMAX          */ MC_SZ(56, 8),  /* CMSISNNSoftmaxParams {SoftmaxParams; int32 num_rows, row_size} */
    /* ESP-NN glue (esp-tflite-micro kernels/esp_nn/); esp32 column: armhf's layout without
     * compression, measured so on Xtensa (tests/corpus/truth/esp32.json) */
    /* V_ESP_CONV               */ MC_SZ(64, 4),  /* NodeData {OpDataConv; int buffer_idx} */
    /* V_ESP_SOFTMAX            */ MC_SZ(56, 8),  /* NodeData {SoftmaxParams; int buffer_idx} */
};

/* Where another column differs from armhf's (42 of the 4 x 91 sizes): the
 * pointers of host64, the 1-byte enums of cortex-m, the missing compression members of
 * esp32.  Looked up before the armhf size. */
typedef struct {
    uint8_t id;            /* MC_S_* */
    uint8_t column_align;  /* C_* << 2 | the alignment's code (MC_SZ's, 1, 2, 4, 8 -> 0..3) */
    uint8_t bytes;         /* a byte is enough: the largest of these structs is 88 bytes (and
                              one past 255 would not compile: -Werror=overflow) */
} struct_diff_t;
#define DIFF(id, column, bytes, align) {id, (uint8_t)((column) << 2 | MC_SZ(0, align) >> 12), bytes}

static const struct_diff_t struct_diffs[] = {
    DIFF(MC_S_K_ASSIGN_VARIABLE, C_ESP32, 0, 1),
    DIFF(MC_S_K_BATCH_MATMUL, C_HOST64, 32, 8),
    DIFF(MC_S_K_EVAL_TENSOR, C_HOST64, 24, 8),
    DIFF(MC_S_K_CONCATENATION, C_HOST64, 80, 8),
    DIFF(MC_S_K_CONCATENATION, C_ESP32, 24, 4),
    DIFF(MC_S_K_CONV, C_HOST64, 80, 8),
    DIFF(MC_S_K_CONV, C_ESP32, 56, 4),
    DIFF(MC_S_K_EMBEDDING_LOOKUP, C_HOST64, 16, 8),
    DIFF(MC_S_K_FULLY_CONNECTED, C_HOST64, 72, 8),
    DIFF(MC_S_K_FULLY_CONNECTED, C_ESP32, 48, 4),
    DIFF(MC_S_K_LOG_SOFTMAX, C_HOST64, 40, 8),
    DIFF(MC_S_K_SOFTMAX, C_HOST64, 80, 8),
    DIFF(MC_S_K_TRANSPOSE_CONV, C_HOST64, 88, 8),
    DIFF(MC_S_K_TRANSPOSE_CONV, C_ESP32, 72, 4),
    DIFF(MC_S_O_ADD, C_CORTEX_M, 2, 1),
    DIFF(MC_S_O_ARG_MAX, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_ARG_MIN, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_CAST, C_CORTEX_M, 2, 1),
    DIFF(MC_S_O_DIV, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_FULLY_CONNECTED, C_HOST64, 32, 8),
    DIFF(MC_S_O_FULLY_CONNECTED, C_CORTEX_M, 5, 1),
    DIFF(MC_S_O_L2_NORM, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_MIRROR_PADDING, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_MUL, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_SHAPE, C_CORTEX_M, 1, 1),
    DIFF(MC_S_O_SUB, C_CORTEX_M, 2, 1),
    DIFF(MC_S_O_SVDF, C_CORTEX_M, 8, 4),
    DIFF(MC_S_O_TRANSPOSE_CONV, C_CORTEX_M, 16, 4),
    DIFF(MC_S_O_VAR_HANDLE, C_HOST64, 16, 8),
    DIFF(MC_S_V_CMSIS_CONV, C_HOST64, 80, 8),
    DIFF(MC_S_V_CMSIS_CONV, C_CORTEX_M, 68, 4),
    DIFF(MC_S_V_CMSIS_CONV, C_ESP32, 56, 4),
    DIFF(MC_S_V_CMSIS_FULLY_CONNECTED, C_HOST64, 72, 8),
    DIFF(MC_S_V_CMSIS_FULLY_CONNECTED, C_CORTEX_M, 80, 4),
    DIFF(MC_S_V_CMSIS_FULLY_CONNECTED, C_ESP32, 48, 4),
    DIFF(MC_S_V_CMSIS_POOL, C_CORTEX_M, 36, 4),
    DIFF(MC_S_V_CMSIS_SOFTMAX, C_HOST64, 80, 8),
    DIFF(MC_S_V_CMSIS_SOFTMAX, C_CORTEX_M, 64, 8),
    DIFF(MC_S_V_ESP_CONV, C_HOST64, 80, 8),
    DIFF(MC_S_V_ESP_CONV, C_ESP32, 60, 4),
    DIFF(MC_S_V_ESP_SOFTMAX, C_HOST64, 80, 8),
    DIFF(MC_S_V_ESP_SOFTMAX, C_ESP32, 64, 8),
};


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

#define IN(i) (X_IN + (i))
#define OUT(i) (X_OUT + (i))
#define P(r) X_P, (r)
#define S(r) X_S, (r)
/* A rule's value when the kernel's Prepare refuses the operator (TFLM fails it). */
#define REFUSED (-4)

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

static mc_size_t struct_size(int32_t id, mc_target_t target)
{
    int32_t i;
    for (i = 0; i < (int32_t)(sizeof struct_diffs / sizeof struct_diffs[0]); i++) {
        const struct_diff_t *d = &struct_diffs[i];
        if (d->id == id && d->column_align >> 2 == column_of[target]) {
            return (mc_size_t)(d->bytes | (d->column_align & 3) << 12);
        }
    }
    return structs[id];
}

static int64_t struct_bytes(int32_t id, mc_target_t target)
{
    return MC_SZ_BYTES(struct_size(id, target));
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
    options = struct_size(row != NULL ? row->options : MC_S_NONE, target);
    memset(out, 0, sizeof *out);
    out->code = code;
    out->name = mc_op_name(code);
    out->registered = row != NULL;
    out->vendor_kernel = v != NULL;
    out->modelled = modelled(row, v);
    out->options_bytes = (int32_t)MC_SZ_BYTES(options);
    out->options_alignment = MC_SZ_ALIGN(options);
    out->opdata_bytes =
        (int32_t)struct_bytes(v != NULL ? v->opdata : row != NULL ? row->opdata : MC_S_NONE, target);
    return MC_OK;
}

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
static int64_t elements_times(const mc_tensor_t *t, int64_t k)
{
    bool overflow = false;
    int64_t n = mc_mul_or_flag(mc_dims_product(1, t->dims, 0, t->rank, &overflow), k, &overflow);
    return overflow ? -2 : n;
}

static int32_t dim(const mc_tensor_t *t, int32_t i)
{
    return (t != NULL && i >= 0 && i < t->rank) ? t->dims[i] : 0;
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
    } else if (f->dims[1] == 1 && f->dims[2] == 1 && op->options[4] == 1 && op->options[5] == 1 &&
               i0->dims[3] == f->dims[3]) {
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
    cols = mc_dims_product(int16 ? 4 * (int64_t)i0->dims[3] : i0->dims[3], f->dims, 1, 3, &overflow);
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
    if (i0->dims[3] != o0->dims[3] || i0->dims[0] != 1 || op->options[5] != 1 || op->options[6] != 1) {
        return -1;
    }
    /* The 3x3 kernel works without a buffer; CMSIS-NN takes it when TFLM's padding is
     * at most 1 on each side, which a 3x3 filter without dilation always has: SAME pads
     * (ceil(in / stride) - 1) x stride + 3 - in <= 2 in all, VALID nothing. */
    if (f->dims[1] == 3 && f->dims[2] == 3) {
        return -1;
    }
    /* channels x fh x fw int16 (two dims never overflow, so neither order does first) */
    bytes = mc_mul_or_flag(mc_dims_product(i0->dims[3], f->dims, 1, 3, &overflow), 2, &overflow);
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

static bool guard_holds(const mc_ctx_t *s, const mc_op_t *op, uint8_t guard)
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
static int64_t rule(const mc_ctx_t *s, const mc_op_t *op, int32_t r)
{
    const mc_tensor_t *i0 = in(s, op, 0), *i1 = in(s, op, 1), *o0 = out(s, op, 0);
    if (!guard_holds(s, op, guards[r])) {
        return -1;
    }
    switch (r) {
    case R_CHANNELS_F0:
    case R_CHANNELS_F3: {
        int32_t d = r == R_CHANNELS_F0 ? 0 : 3;
        return i1 == NULL || i1->rank <= d ? -3 : 4 * (int64_t)i1->dims[d];
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
        return struct_bytes(opdata[r - R_ADD_N_OPDATA], s->target);
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
        return part == 1 ? dims_copy_bytes(t) : t->bytes;
    }
    case R_FILTER_INT4:
        return elements_times(i1, 1);
    case R_TCONV_ACC:
        if (o0 == NULL) {
            return -3;
        }
        /* input 2 is int8 or int16: the guard */
        return elements_times(o0, in(s, op, 2)->dtype == MC_DTYPE_INT8 ? 4 : 8);
    case R_TCONV_BIAS64: {
        const mc_tensor_t *bias = in(s, op, 3);
        if (dtype(bias) != MC_DTYPE_INT16) {
            return -1;
        }
        return elements_times(bias, 8);
    }
    case R_REDUCE_ACC:
        if (o0 == NULL) {
            return -3;
        }
        return elements_times(o0, 4);
    case R_RANK_IN0:
        return i0 == NULL ? -3 : 4 * i0->rank;
    case R_ELEMENTS_IN1:
        if (i1 == NULL) {
            return -3;
        }
        return elements_times(i1, 4);
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
            o0->rank <= 2 || i1->rank < 1 || i1->dims[i1->rank - 1] % 4 != 0) {
            return -1;
        }
        return 8 * (int64_t)o0->dims[o0->rank - 1]; /* a dim is below 2^31: no overflow */
    }
    case R_CMSIS_AVGPOOL:
        return i0 == NULL || i0->rank != 4 ? -3 : 4 * (int64_t)i0->dims[3];
    case R_ESP_SOFTMAX:
        if (dtype(o0) != MC_DTYPE_INT8) {
            return -1;
        }
        return 4 * (int64_t)dim(i0, 1);
    case R_SAME_ELEMENTS:
        /* A graph's tensor holds no more elements than bytes (mc_graph_structure counts
         * its bytes from them), so neither count overflows. */
        return i0 != NULL && o0 != NULL && elements_times(i0, 1) == elements_times(o0, 1) ? -1 : REFUSED;
    default:
        return -3;
    }
}

static void apply(mc_sim_t *s, const mc_op_t *op, int32_t r, bool scratch)
{
    int64_t bytes = rule(&s->ctx, op, r);
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
            if (!guard_holds(&s->ctx, op, guard)) {
                x += skip;
            }
        }
    }
}

void mc__op_parse(mc_sim_t *s, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    if (row != NULL && row->options != MC_S_NONE) {
        mc_size_t options = struct_size(row->options, s->ctx.target);
        mc__sim_persistent(s, MC_SZ_BYTES(options), MC_SZ_ALIGN(options), MC_TFLM_UNRECORDED);
    }
}

void mc__op_init(mc_sim_t *s, const mc_op_t *op)
{
    const op_row_t *row = find_row(op->kind);
    const vendor_row_t *v = vendor_of(row, s->ctx.vendor);
    int32_t opdata = v != NULL ? v->opdata : row != NULL ? row->opdata : MC_S_NONE;
    if (opdata != MC_S_NONE) {
        mc__sim_persistent(s, struct_bytes(opdata, s->ctx.target), 16, MC_TFLM_PERSISTENT_BUFFERS);
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
            int32_t bytes = (int32_t)struct_bytes(phase == 0 ? ops[i].options : ops[i].opdata, s->ctx.target);
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
            if (mc_checked_add(sum, elements_times(&s->ctx.graph->tensors[t], 1), &sum) != MC_OK) {
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
            int64_t bytes = rule(c, op, *++x);
            if (bytes >= 0) {
                n++;
            } else if ((int32_t)bytes != -1) { /* -1 .. -4: 32-bit tests */
                /* -3, an input missing, is -1; -2 (overflow) and REFUSED stay */
                return (int32_t)bytes == -3 ? -1 : (int32_t)bytes;
            }
        } else if (*x == X_IF) {
            uint8_t guard = x[1], skip = x[2];
            x += 2;
            if (!guard_holds(c, op, guard)) {
                x += skip;
            }
        }
    }
    return n;
}
