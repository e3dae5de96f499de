/* The TFLite reader on the shared models (counts from their ground truth), through
 * memory and through a read callback with every window size a board might use; every
 * truncated prefix and thousands of corrupted copies of a real file must come back as
 * an error or a well-formed graph, never a crash (the ASan build runs this too). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "memcore.h"
#include "same_graph.h"

#define MAX_FILE 400000

static uint8_t file[MAX_FILE], copy[MAX_FILE];
static uint64_t scratch[1 << 14];

typedef struct {
    const uint8_t *data;
    int64_t size;
    int64_t calls;
    int64_t fail_after; /* -1: never */
} source_t;

static mc_status_t read_cb(void *context, int64_t offset, uint8_t *buffer, int32_t bytes)
{
    source_t *s = (source_t *)context;
    CHECK(offset >= 0 && bytes > 0 && offset + bytes <= s->size);
    if (s->fail_after >= 0 && s->calls >= s->fail_after) {
        return MC_E_READ;
    }
    s->calls++;
    memcpy(buffer, s->data + offset, (size_t)bytes);
    return MC_OK;
}

static int64_t load(const char *name)
{
    char path[512];
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "%s/tests/models/%s", MEMCORE_SOURCE_DIR, name);
    f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    n = fread(file, 1, sizeof file, f);
    fclose(f);
    return (int64_t)n;
}

static mc_status_t read_graph(const uint8_t *data, int64_t size, mc_graph_t *g, mc_problem_t *p)
{
    mc_source_t src = {NULL, NULL, data, size};
    mc_tflite_size_t n;
    mc_status_t rc = mc_tflite_size(&src, &n, p);
    if (rc != MC_OK) {
        return rc;
    }
    if (n.scratch_bytes > (int64_t)sizeof scratch) {
        return MC_E_SCRATCH;
    }
    return mc_tflite_read(&src, scratch, n.scratch_bytes, g, p);
}

typedef struct {
    const char *name;
    int64_t file_bytes, tensors, ops, constants, input, output;
} truth_t;

/* tests/models/ground_truth.json: n_tensors, n_ops, n_const_tensors, graph io */
static const truth_t models[] = {
    {"kws_dscnn_float32.tflite", 101448, 33, 12, 20, 0, 32},
    {"kws_dscnn_int8.tflite", 50496, 33, 12, 20, 0, 32},
    {"mnist_cnn_float32.tflite", 23884, 15, 7, 7, 0, 14},
    {"mnist_cnn_int8.tflite", 9472, 15, 7, 7, 0, 14},
    {"resnet8_float32.tflite", 319960, 36, 15, 20, 0, 35},
    {"resnet8_int8.tflite", 97256, 36, 15, 20, 0, 35},
    {"tiny_mlp_float32.tflite", 1780, 8, 3, 4, 0, 7},
    {"tiny_mlp_int8.tflite", 2024, 8, 3, 4, 0, 7},
};

static void shared_models(void)
{
    size_t m;
    for (m = 0; m < sizeof models / sizeof models[0]; m++) {
        const truth_t *t = &models[m];
        mc_graph_t g;
        mc_problem_t p;
        int64_t i, constants = 0, size = load(t->name);
        CHECK_EQ_I64(size, t->file_bytes);
        CHECK_EQ_I64(read_graph(file, size, &g, &p), MC_OK);
        CHECK_EQ_I64(g.n_tensors, t->tensors);
        CHECK_EQ_I64(g.n_ops, t->ops);
        CHECK_EQ_I64(g.n_subgraphs, 1);
        CHECK_EQ_I64(g.n_inputs, 1);
        CHECK_EQ_I64(g.n_outputs, 1);
        CHECK_EQ_I64(g.inputs[0], t->input);
        CHECK_EQ_I64(g.outputs[0], t->output);
        for (i = 0; i < g.n_tensors; i++) {
            constants += (g.tensors[i].flags & MC_TENSOR_CONSTANT) != 0;
        }
        CHECK_EQ_I64(constants, t->constants);
        {
            static uint64_t vscratch[1024];
            CHECK_EQ_I64(mc_graph_validate(&g, vscratch, sizeof vscratch, &p), MC_OK);
            CHECK_EQ_I64(p.kind, MC_PROBLEM_NONE);
        }
    }
}

/* kws_dscnn_int8: the first operator is CONV_2D 10x4 stride 2 over the 1x49x10x1 input. */
static void first_operator(void)
{
    mc_graph_t g;
    mc_problem_t p;
    const mc_op_t *op;
    const mc_tensor_t *x;
    int64_t bytes = 0;
    int64_t size = load("kws_dscnn_int8.tflite");
    CHECK_EQ_I64(read_graph(file, size, &g, &p), MC_OK);
    op = &g.ops[0];
    CHECK_EQ_I64(op->kind, 3); /* CONV_2D */
    CHECK(strcmp(mc_op_name(op->kind), "CONV_2D") == 0);
    CHECK_EQ_I64(op->options_type, 1); /* Conv2DOptions */
    CHECK_EQ_I64(op->options[1], 2);   /* stride_w */
    CHECK_EQ_I64(op->options[2], 2);   /* stride_h */
    CHECK_EQ_I64(op->options[4], 1);   /* dilation_w: the schema default */
    CHECK_EQ_I64(op->n_inputs, 3);
    CHECK_EQ_I64(op->n_outputs, 1);
    x = &g.tensors[g.op_tensors[op->first_input]];
    CHECK_EQ_I64(x->rank, 4);
    CHECK_EQ_I64(mc_tensor_dim(x, 1), 49);
    CHECK_EQ_I64(mc_tensor_dim(x, 2), 10);
    CHECK_EQ_I64(x->dtype, MC_DTYPE_INT8);
    CHECK_EQ_I64(mc_tensor_bytes(x, &bytes), MC_PROBLEM_NONE);
    CHECK_EQ_I64(bytes, 490);
    CHECK_EQ_I64(x->name_bytes, 1);
    CHECK_EQ_I64(file[x->name_offset], 'x');
    CHECK((x->flags & MC_TENSOR_ZERO_POINT) != 0);
    CHECK_EQ_I64(x->quant_channels, 1);
    CHECK_EQ_I64(g.tensors[g.op_tensors[op->first_input + 1]].quant_channels, 64); /* per channel */
}

static void callbacks_agree(void)
{
    static const int64_t fails[] = {0, 1, 7, 40};
    mc_graph_t a, b;
    mc_problem_t p;
    mc_tflite_size_t n;
    int64_t size = load("resnet8_int8.tflite"), i;
    source_t s = {file, 0, 0, -1};
    mc_source_t src = {read_cb, &s, NULL, 0};
    static uint64_t other[1 << 14];
    s.size = src.file_bytes = size;
    CHECK_EQ_I64(read_graph(file, size, &a, &p), MC_OK);
    CHECK_EQ_I64(mc_tflite_size(&src, &n, &p), MC_OK);
    CHECK_EQ_I64(mc_tflite_read(&src, other, n.scratch_bytes, &b, &p), MC_OK);
    for (i = 0; i < a.n_tensors; i++) {
        CHECK(same_tensor(&a.tensors[i], &b.tensors[i]));
    }
    for (i = 0; i < a.n_ops; i++) {
        CHECK(same_op(&a, &a.ops[i], &b, &b.ops[i]));
    }
    /* A window per callback, not a call per field: well under one call per 16 bytes. */
    CHECK(s.calls > 0 && s.calls < size / 16);
    for (i = 0; i < (int64_t)(sizeof fails / sizeof fails[0]); i++) {
        s.calls = 0;
        s.fail_after = fails[i];
        CHECK_EQ_I64(mc_tflite_read(&src, other, n.scratch_bytes, &b, &p), MC_E_READ);
    }
    s.fail_after = -1;
    CHECK_EQ_I64(mc_tflite_read(&src, other, n.scratch_bytes - 8, &b, &p), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_tflite_read(&src, (uint8_t *)other + 4, n.scratch_bytes, &b, &p), MC_E_SCRATCH);
}

static void truncated_and_corrupted(void)
{
    mc_graph_t g;
    mc_problem_t p;
    int64_t size = load("tiny_mlp_int8.tflite"), cut, ok = 0, errors = 0;
    uint32_t seed = 12345;
    int round;
    for (cut = 0; cut < size; cut++) {
        memcpy(copy, file, (size_t)cut);
        /* Every prefix is missing something the root reaches, so it must fail. */
        CHECK_EQ_I64(read_graph(copy, cut, &g, &p), MC_E_MODEL);
    }
    for (round = 0; round < 3000; round++) {
        int flips = 1 + round % 8, f;
        mc_status_t rc;
        memcpy(copy, file, (size_t)size);
        for (f = 0; f < flips; f++) {
            seed = seed * 1103515245u + 12345u;
            copy[(seed >> 8) % (uint32_t)size] = (uint8_t)(seed >> 24);
        }
        rc = read_graph(copy, size, &g, &p);
        if (rc == MC_OK) {
            static uint64_t vscratch[1024];
            ok++;
            rc = mc_graph_validate(&g, vscratch, sizeof vscratch, &p);
            CHECK(rc == MC_OK || rc == MC_E_GRAPH || rc == MC_E_LIMIT);
        } else {
            errors++;
            CHECK(rc == MC_E_MODEL || rc == MC_E_GRAPH || rc == MC_E_UNSUPPORTED || rc == MC_E_LIMIT ||
                  rc == MC_E_SCRATCH);
            CHECK(p.kind != MC_PROBLEM_NONE || rc == MC_E_SCRATCH);
        }
    }
    CHECK(ok > 0 && errors > 0);
}

static void not_tflite(void)
{
    static const uint8_t png[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    mc_graph_t g;
    mc_problem_t p;
    mc_source_t none = {NULL, NULL, NULL, 0};
    mc_tflite_size_t n;
    CHECK_EQ_I64(read_graph(png, sizeof png, &g, &p), MC_E_MODEL);
    CHECK_EQ_I64(p.kind, MC_PROBLEM_NOT_TFLITE);
    CHECK_EQ_I64(read_graph(png, 3, &g, &p), MC_E_MODEL);
    CHECK_EQ_I64(p.kind, MC_PROBLEM_NOT_TFLITE);
    CHECK_EQ_I64(mc_tflite_size(&none, &n, &p), MC_E_MODEL); /* an empty file */
    CHECK_EQ_I64(p.kind, MC_PROBLEM_NOT_TFLITE);
    CHECK_EQ_I64(mc_tflite_read(&none, scratch, sizeof scratch, &g, &p), MC_E_MODEL);
    CHECK_EQ_I64(mc_tflite_read(&none, NULL, 0, &g, &p), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_tflite_read(NULL, NULL, 0, &g, &p), MC_E_NULL);
}

int main(void)
{
    shared_models();
    first_operator();
    callbacks_agree();
    truncated_and_corrupted();
    not_tflite();
    return check_report("test_tflite_reader");
}
