/*
 * The sizes of the TFLM structs the op table allocates, per target: the builtin-options
 * structs its parsers allocate, kernels' OpData and vendor kernels' data.  Sizes come
 * from compile probes of TFLM's sources per target (tflm_ops.c says which), checked
 * against TFLM's RecordingMicroAllocator on each target.
 */
#include "tflm_tables.h"

/* Columns: host64 (the PyPI wheel), armhf and cortex-m (TFLM 90b983c2 with
 * compression), and esp32 (Xtensa: 32-bit, 4-byte enums, no compression; measured on an
 * Xtensa build, tests/corpus/truth/esp32.json).  riscv32 reads
 * the armhf column: its tables are derived from armhf (tflm_targets.c).  Most structs
 * are the same on every target, so structs[] holds armhf's column and struct_diffs[]
 * the other columns' sizes where they differ (a third of the flash of a full table). */

enum { C_HOST64, C_ARMHF, C_CORTEX_M, C_ESP32 };
static const uint8_t column_of[MC_TARGET_COUNT] = {C_HOST64, C_ARMHF, C_CORTEX_M, C_ARMHF, C_ESP32};

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

mc_size_t mc__struct_size(int32_t id, mc_target_t target)
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

int64_t mc__struct_bytes(int32_t id, mc_target_t target)
{
    return MC_SZ_BYTES(mc__struct_size(id, target));
}
