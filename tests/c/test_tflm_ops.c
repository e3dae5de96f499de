/* The op table and TFLM's arena for a graph (mc_tflm_model_arena), on hand-built
 * one-operator graphs whose head, tail and smallest arena were measured with the PyPI
 * tflite-micro interpreter (the same graphs as tests/tflm_probes.py builds; numbers
 * from tests/tflm_oracle.py: measure() and min_arena_bisect()). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "memcore.h"

#define MAX_T 8

typedef struct {
    mc_tensor_t tensors[MAX_T];
    int32_t shapes[MAX_T][MC_MAX_DIMS]; /* the tensors' dims */
    mc_op_t op;
    int32_t options[MC_OP_OPTIONS];     /* the operator's */
    int32_t op_tensors[MAX_T];
    int32_t inputs[2], outputs[1];
    mc_graph_t g;
} one_op_t;

/* Tensor i of m. */
static void tensor(one_op_t *m, int32_t i, int32_t dtype, int32_t rank, const int32_t *dims, int32_t channels,
                   uint32_t flags)
{
    mc_tensor_t *t = &m->tensors[i];
    int32_t d;
    memset(t, 0, sizeof *t);
    for (d = 0; d < rank; d++) {
        m->shapes[i][d] = dims[d];
    }
    t->dims = m->shapes[i];
    t->rank = (uint8_t)rank;
    t->dtype = (int8_t)dtype;
    t->name_offset = -1;
    t->quant_channels = channels;
    t->flags = (uint8_t)(flags | (channels > 0 ? MC_TENSOR_ZERO_POINT : 0u));
}

/* One operator over tensors 0..n_in-1 writing tensor n_in; graph input 0, output n_in. */
static void one_op(one_op_t *m, int32_t kind, int32_t n_in, const int32_t *options, int32_t n_options)
{
    int32_t i;
    memset(&m->op, 0, sizeof m->op);
    memset(m->options, 0, sizeof m->options);
    m->op.kind = kind;
    m->op.version = 1;
    for (i = 0; i < n_options; i++) {
        m->options[i] = options[i];
    }
    m->op.options = m->options;
    m->op.first_input = 0;
    m->op.n_inputs = n_in;
    m->op.first_output = n_in;
    m->op.n_outputs = 1;
    m->op.first_intermediate = n_in + 1;
    for (i = 0; i <= n_in; i++) {
        m->op_tensors[i] = i;
    }
    m->inputs[0] = kind == 67 ? 2 : 0; /* TRANSPOSE_CONV: the data input is input 2 */
    m->outputs[0] = n_in;
    memset(&m->g, 0, sizeof m->g);
    m->g.tensors = m->tensors;
    m->g.ops = &m->op;
    m->g.op_tensors = m->op_tensors;
    m->g.inputs = m->inputs;
    m->g.outputs = m->outputs;
    m->g.n_tensors = n_in + 1;
    m->g.n_ops = 1;
    m->g.n_op_tensors = n_in + 1;
    m->g.n_inputs = 1;
    m->g.n_outputs = 1;
    m->g.n_subgraphs = 1;
}

static uint64_t scratch[8192];
static uint64_t plan_scratch[8192];

/* What the check asks of the op table, in its three calls. */
typedef struct {
    mc_tflm_t t;
    int64_t n_buffers, n_scratch;
    int64_t sizes[64], offsets[64];
    int32_t first[64], last[64], owner[64];
} result_t;

static mc_status_t arena(const one_op_t *m, mc_target_t target, mc_kernels_t kernels,
                         uint32_t flags, result_t *out)
{
    int64_t need = 0, i;
    mc_plan_t plan;
    mc_problem_t problem;
    mc_status_t rc = mc_tflm_buffer_count(&m->g, target, kernels, flags, &out->n_buffers, &need,
                                          &problem);
    if (rc != MC_OK) {
        return rc;
    }
    CHECK(need <= (int64_t)sizeof scratch && out->n_buffers <= 64);
    rc = mc_tflm_buffers(&m->g, target, kernels, flags, scratch, need, out->sizes, out->first,
                         out->last, out->owner, out->n_buffers, &problem);
    if (rc != MC_OK) {
        return rc;
    }
    out->n_scratch = 0;
    for (i = 0; i < out->n_buffers; i++) {
        out->n_scratch += out->owner[i] < 0;
    }
    rc = mc_plan(MC_PLAN_TFLM, out->sizes, out->first, out->last, out->n_buffers, 16, 0, plan_scratch,
                 (int64_t)sizeof plan_scratch, out->offsets, &plan);
    if (rc != MC_OK) {
        return rc;
    }
    return mc_tflm_model(&m->g, target, kernels, flags, plan.arena_bytes, out->n_buffers, scratch, need,
                         &out->t, &problem);
}

static const uint32_t K = MC_TENSOR_CONSTANT;

/* FULLY_CONNECTED int8, filter quantized per channel (8 channels). */
static void build_fc(one_op_t *m)
{
    const int32_t in[] = {1, 16}, w[] = {8, 16}, b[] = {8}, o[] = {1, 8};
    tensor(m, 0, MC_DTYPE_INT8, 2, in, 1, 0);
    tensor(m, 1, MC_DTYPE_INT8, 2, w, 8, K);
    tensor(m, 2, MC_DTYPE_INT32, 1, b, 8, K);
    tensor(m, 3, MC_DTYPE_INT8, 2, o, 1, 0);
    one_op(m, 9, 3, NULL, 0);
}

static void test_fully_connected_per_channel(void)
{
    one_op_t m;
    result_t a;
    build_fc(&m);
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_OK);
    CHECK_EQ_I64(a.t.head_bytes, 32);
    CHECK_EQ_I64(a.t.tail_bytes, 1040);
    CHECK_EQ_I64(a.t.total_bytes, 1072);
    /* The per-channel multipliers and shifts (2 x 32 B) may not overwrite the four
     * temporary TfLiteTensors Prepare still holds: the smallest arena is 1440, not 1072. */
    CHECK_EQ_I64(a.t.minimum_arena_bytes, 1440);
    CHECK_EQ_I64(a.t.recommended_arena_bytes, 1440);
    CHECK_EQ_I64(a.t.categories[MC_TFLM_PERSISTENT_BUFFERS].used_bytes, 168);
    CHECK_EQ_I64(a.t.categories[MC_TFLM_PERSISTENT_BUFFERS].requested_bytes, 152);
    CHECK_EQ_I64(a.t.categories[MC_TFLM_PERSISTENT_BUFFERS].count, 5);
    CHECK_EQ_I64(a.t.categories[MC_TFLM_EVAL_TENSORS].count, 4);
    CHECK_EQ_I64(a.n_buffers, 2);            /* input and output, no scratch */
    CHECK_EQ_I64(a.n_scratch, 0);
    CHECK(!a.t.upper_bound);
}

/* MEAN int8 over axes 1 and 2: the kernel's int32 accumulator and its two index
 * buffers are planned in the head with the tensors. */
static void test_mean_scratch_buffers(void)
{
    const int32_t in[] = {1, 4, 4, 8}, ax[] = {2}, o[] = {1, 1, 1, 8};
    const int32_t keep_dims[] = {1};
    one_op_t m;
    result_t a;
    tensor(&m, 0, MC_DTYPE_INT8, 4, in, 1, 0);
    tensor(&m, 1, MC_DTYPE_INT32, 1, ax, 0, K);
    tensor(&m, 2, MC_DTYPE_INT8, 4, o, 1, 0);
    one_op(&m, 40, 2, keep_dims, 1);
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_OK);
    CHECK_EQ_I64(a.t.head_bytes, 208);  /* 128 + 16 + 32 (8 int32) + 16 (4 ints) + 16 (2 ints) */
    CHECK_EQ_I64(a.t.tail_bytes, 912);
    CHECK_EQ_I64(a.t.minimum_arena_bytes, 1376);
    CHECK_EQ_I64(a.n_scratch, 3);
    CHECK_EQ_I64(a.sizes[2], 32);   /* requested in this order, after the tensors */
    CHECK_EQ_I64(a.sizes[3], 16);
    CHECK_EQ_I64(a.sizes[4], 8);
    CHECK_EQ_I64(a.owner[4], -1);   /* a scratch buffer of operator 0 */
    CHECK_EQ_I64(a.first[4], 2);    /* the operator's scope (1), shifted by one */
    CHECK_EQ_I64(a.last[4], 2);
}

static void build_conv(one_op_t *m)
{
    const int32_t in[] = {1, 8, 8, 3}, w[] = {4, 3, 3, 3}, b[] = {4}, o[] = {1, 8, 8, 4};
    /* Conv2DOptions: padding SAME, stride 1 x 1, no activation, dilation 1 x 1 */
    const int32_t options[] = {0, 1, 1, 0, 1, 1};
    tensor(m, 0, MC_DTYPE_INT8, 4, in, 1, 0);
    tensor(m, 1, MC_DTYPE_INT8, 4, w, 4, K);
    tensor(m, 2, MC_DTYPE_INT32, 1, b, 4, K);
    tensor(m, 3, MC_DTYPE_INT8, 4, o, 1, 0);
    one_op(m, 3, 3, options, 6);
}

static void test_conv_targets_and_kernels(void)
{
    one_op_t m;
    result_t ref, cm, esp;
    build_conv(&m);
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &ref), MC_OK);
    CHECK_EQ_I64(ref.t.head_bytes, 448);
    CHECK_EQ_I64(ref.t.tail_bytes, 1024);
    CHECK_EQ_I64(ref.t.minimum_arena_bytes, 1704);
    /* CMSIS-NN's im2col for a 3x3x3 filter on a DSP core: 2 columns of
     * align4(27) = 28 int16 = 112 bytes, planned beside the tensors. */
    CHECK_EQ_I64(arena(&m, MC_TARGET_CORTEX_M, MC_KERNELS_OPTIMISED, 0, &cm), MC_OK);
    CHECK_EQ_I64(cm.n_scratch, 1);
    CHECK_EQ_I64(cm.sizes[cm.n_buffers - 1], 112);
    CHECK_EQ_I64(cm.t.head_bytes, 448 + 112);
    /* The plain ESP32's ESP-NN convolution needs no scratch. */
    CHECK_EQ_I64(arena(&m, MC_TARGET_ESP32, MC_KERNELS_OPTIMISED, 0, &esp), MC_OK);
    CHECK_EQ_I64(esp.n_scratch, 0);
    CHECK_EQ_I64(esp.t.head_bytes, 448);
    CHECK(esp.t.tail_bytes < ref.t.tail_bytes);
}

/* CMSIS-NN's im2col columns are the filter's window times the input's channels, which
 * the graph does not tie to the filter's: a window of 2^34 over 2^31 - 1 channels is past
 * 64 bits, an overflow reported, not a wrapped size. */
static void test_cmsis_columns_past_64_bits(void)
{
    one_op_t m;
    result_t cm;
    const int32_t in[] = {1, 1, 1, 2147483647}, w[] = {1, 131072, 131072, 1}, b[] = {1}, o[] = {1, 1, 1, 1};
    const int32_t options[] = {1, 1, 1, 0, 1, 1}; /* VALID */
    int dtype;
    for (dtype = 0; dtype < 2; dtype++) { /* int8, then int16 x int8 with an int64 bias */
        tensor(&m, 0, dtype ? MC_DTYPE_INT16 : MC_DTYPE_INT8, 4, in, 1, 0);
        tensor(&m, 1, MC_DTYPE_INT8, 4, w, 1, K);
        tensor(&m, 2, dtype ? MC_DTYPE_INT64 : MC_DTYPE_INT32, 1, b, 1, K);
        tensor(&m, 3, dtype ? MC_DTYPE_INT16 : MC_DTYPE_INT8, 4, o, 1, 0);
        one_op(&m, 3, 3, options, 6);
        CHECK_EQ_I64(arena(&m, MC_TARGET_CORTEX_M, MC_KERNELS_OPTIMISED, 0, &cm), MC_E_OVERFLOW);
    }
}

/* SOFTMAX int8 over a [1, 4, 4, 10] tensor with ESP-NN on the plain ESP32: the kernel asks
 * for 4 bytes per element of the input's dims[1] (esp_nn_get_softmax_scratch_size_opt is
 * given dims[1] as its width), 16 B, measured so (softmax_4d_beta_i8 in
 * tests/corpus/truth/esp32-esp-nn.json), although it works along the last axis (10). */
static void test_esp_nn_softmax_scratch(void)
{
    const int32_t in[] = {1, 4, 4, 10};
    one_op_t m;
    result_t ref, esp;
    tensor(&m, 0, MC_DTYPE_INT8, 4, in, 1, 0);
    tensor(&m, 1, MC_DTYPE_INT8, 4, in, 1, 0);
    one_op(&m, 25, 1, NULL, 0);
    CHECK_EQ_I64(arena(&m, MC_TARGET_ESP32, MC_KERNELS_OPTIMISED, 0, &esp), MC_OK);
    CHECK_EQ_I64(esp.n_scratch, 1);
    CHECK_EQ_I64(esp.sizes[2], 16);
    CHECK_EQ_I64(esp.owner[2], -1);
    CHECK_EQ_I64(arena(&m, MC_TARGET_ESP32, MC_KERNELS_REFERENCE, 0, &ref), MC_OK);
    CHECK_EQ_I64(ref.n_scratch, 0);
    CHECK_EQ_I64(esp.t.head_bytes, ref.t.head_bytes + 16);
}

static void test_transpose_conv_accumulators(void)
{
    const int32_t shape[] = {4}, w[] = {2, 3, 3, 4}, in[] = {1, 4, 4, 4}, o[] = {1, 8, 8, 2};
    const int32_t options[] = {0, 2, 2, 0};
    one_op_t m;
    result_t a;
    tensor(&m, 0, MC_DTYPE_INT32, 1, shape, 0, K);
    tensor(&m, 1, MC_DTYPE_INT8, 4, w, 2, K);
    tensor(&m, 2, MC_DTYPE_INT8, 4, in, 1, 0);
    tensor(&m, 3, MC_DTYPE_INT8, 4, o, 1, 0);
    one_op(&m, 67, 3, options, 4);
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_OK);
    CHECK_EQ_I64(a.t.head_bytes, 704);  /* 128 + 64 + an int32 per output element (512) */
    CHECK_EQ_I64(a.t.tail_bytes, 1024);
    CHECK_EQ_I64(a.t.minimum_arena_bytes, 1720);
}

static void test_unknown_operators(void)
{
    one_op_t m, known;
    result_t a, exact;
    int32_t codes[4];
    int64_t n = 0;
    build_fc(&known);
    build_fc(&m);
    m.op.kind = 81; /* REDUCE_PROD: TFLite has it, TFLM does not run it */
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_E_UNSUPPORTED);
    CHECK_EQ_I64(mc_tflm_unknown_ops(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, codes, 4, &n), MC_OK);
    CHECK_EQ_I64(n, 1);
    CHECK_EQ_I64(codes[0], 81);
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, MC_TFLM_ALLOW_UNKNOWN, &a), MC_OK);
    CHECK(a.t.upper_bound);
    CHECK_EQ_I64(a.t.unknown_ops, 1);
    CHECK_EQ_I64(arena(&known, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &exact), MC_OK);
    /* The bound holds what TFLM's own kernel for these tensors allocates. */
    CHECK(a.t.head_bytes >= exact.t.head_bytes);
    CHECK(a.t.tail_bytes >= exact.t.tail_bytes);
    CHECK(a.t.minimum_arena_bytes >= exact.t.minimum_arena_bytes);
    /* CMSIS-NN's SVDF kernel is not in the table: unknown with optimised kernels. */
    m.op.kind = 27;
    CHECK_EQ_I64(mc_tflm_unknown_ops(&m.g, MC_TARGET_CORTEX_M, MC_KERNELS_OPTIMISED, codes, 4, &n), MC_OK);
    CHECK_EQ_I64(n, 1);
    CHECK_EQ_I64(mc_tflm_unknown_ops(&m.g, MC_TARGET_CORTEX_M, MC_KERNELS_REFERENCE, codes, 4, &n), MC_OK);
    CHECK_EQ_I64(n, 0);
}

static void test_bad_calls(void)
{
    one_op_t m;
    result_t a;
    mc_tflm_t t;
    mc_problem_t problem;
    int64_t n = 0, need = 0;
    build_fc(&m);
    CHECK_EQ_I64(mc_tflm_buffer_count(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, NULL),
                 MC_OK);
    CHECK_EQ_I64(n, 2);
    CHECK_EQ_I64(mc_tflm_buffers(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, scratch, 31,
                                 a.sizes, a.first, a.last, a.owner, n, NULL), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_tflm_buffers(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, (char *)scratch + 4,
                                 need, a.sizes, a.first, a.last, a.owner, n, NULL), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_tflm_buffers(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, scratch, need,
                                 a.sizes, a.first, a.last, a.owner, n - 1, NULL), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_model(&m.g, MC_TARGET_COUNT, MC_KERNELS_REFERENCE, 0, 32, n, scratch, need, &t, NULL), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_model(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 8u, 32, n, scratch, need, &t, NULL), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_model(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, -1, n, scratch, need, &t, NULL),
                 MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_tflm_model(NULL, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 32, n, scratch, need, &t, NULL),
                 MC_E_NULL);
    CHECK_EQ_I64(mc_tflm_model(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 32, n, scratch, need - 8, &t,
                               NULL), MC_E_SCRATCH);
    /* Structural faults are the graph's (MC_E_GRAPH with the problem), as in every call. */
    m.op_tensors[3] = 9; /* an output past the tensors */
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_E_GRAPH);
    build_fc(&m);
    m.shapes[1][1] = -1;
    CHECK_EQ_I64(arena(&m, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &a), MC_E_GRAPH);
    build_fc(&m);
    m.op.kind = 81;
    CHECK_EQ_I64(mc_tflm_model(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 32, 2, scratch, need, &t,
                               &problem), MC_E_UNSUPPORTED);
    CHECK_EQ_I64(problem.kind, MC_PROBLEM_UNKNOWN_OP);
    CHECK_EQ_I64(problem.op, 0);
    CHECK_EQ_I64(problem.value, 81);
    /* A MEAN without its axes input: TFLM's Prepare reads it, so the kernel refuses. */
    build_fc(&m);
    m.op.kind = 40;
    m.op.n_inputs = 1;
    {
        int64_t n_buffers = 0, bytes = 0;
        CHECK_EQ_I64(mc_tflm_buffer_count(&m.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n_buffers, &bytes,
                                          &problem), MC_E_UNSUPPORTED);
        CHECK_EQ_I64(problem.kind, MC_PROBLEM_MISSING_INPUT);
        CHECK_EQ_I64(problem.op, 0);
    }
}

static void test_tables(void)
{
    mc_tflm_op_info_t op;
    mc_target_info_t t;
    /* TfLiteFullyConnectedParams: 32 B, 8-aligned in the PyPI wheel; 16 B at 90b983c2;
     * 5 B with arm-none-eabi's 1-byte enums. */
    CHECK_EQ_I64(mc_tflm_op_info(9, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK_EQ_I64(op.options_bytes, 32);
    CHECK_EQ_I64(op.options_alignment, 8);
    CHECK_EQ_I64(op.opdata_bytes, 72);
    CHECK(op.registered && !op.vendor_kernel);
    CHECK_EQ_I64(mc_tflm_op_info(9, MC_TARGET_ARMHF, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK_EQ_I64(op.options_bytes, 16);
    CHECK_EQ_I64(mc_tflm_op_info(9, MC_TARGET_CORTEX_M, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK_EQ_I64(op.options_bytes, 5);
    CHECK_EQ_I64(op.options_alignment, 1);
    CHECK_EQ_I64(mc_tflm_op_info(9, MC_TARGET_CORTEX_M, MC_KERNELS_OPTIMISED, &op), MC_OK);
    CHECK(op.vendor_kernel);
    CHECK_EQ_I64(op.opdata_bytes, 80);      /* CMSIS-NN's OpData wraps the reference one */
    /* OpDataConv: compression adds 8 bytes on 32-bit Arm (64 vs 56). */
    CHECK_EQ_I64(mc_tflm_op_info(3, MC_TARGET_ARMHF, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK_EQ_I64(op.opdata_bytes, 64);
    CHECK_EQ_I64(mc_tflm_op_info(3, MC_TARGET_ESP32, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK_EQ_I64(op.opdata_bytes, 56);
    CHECK_EQ_I64(mc_tflm_op_info(81, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, &op), MC_OK);
    CHECK(!op.registered);
    CHECK_EQ_I64(mc_tflm_op_info(-1, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, &op), MC_E_RANGE);
    CHECK_EQ_I64(mc_target_info(MC_TARGET_ESP32, &t), MC_OK);
    CHECK(t.measured && t.derived_from == -1 && !t.compression); /* on an Xtensa build */
    CHECK_EQ_I64(t.pointer_bytes, 4);
    CHECK_EQ_I64(mc_target_info(MC_TARGET_RISCV32, &t), MC_OK);
    CHECK(!t.measured && t.derived_from == MC_TARGET_ARMHF);
    CHECK_EQ_I64(mc_target_info(MC_TARGET_CORTEX_M, &t), MC_OK);
    CHECK(t.measured && t.derived_from == -1);
    CHECK_EQ_I64(t.enum_bytes, 1);
    CHECK(mc_tflm_supports(40) && !mc_tflm_supports(81)); /* MEAN yes, REDUCE_PROD no */
}

int main(void)
{
    test_fully_connected_per_channel();
    test_mean_scratch_buffers();
    test_conv_targets_and_kernels();
    test_cmsis_columns_past_64_bits();
    test_esp_nn_softmax_scratch();
    test_transpose_conv_accumulators();
    test_unknown_operators();
    test_bad_calls();
    test_tables();
    return check_report("test_tflm_ops");
}
