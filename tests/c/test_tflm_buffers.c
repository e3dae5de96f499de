/* TFLM's lifetime rules on hand-checked graphs (mc_tflm_buffers: the head's buffers,
 * lifetimes as TFLM's scopes + 1), and the tail model's totals on tiny_mlp_int8 against
 * what the tflite-micro interpreter measured. */
#include <string.h>

#include "check.h"
#include "memcore.h"

#define MAX_T 16
#define MAX_OPS 8

static const int32_t no_options[MC_OP_OPTIONS];

typedef struct {
    mc_tensor_t tensors[MAX_T];
    int32_t shapes[MAX_T]; /* the tensors' one dim each */
    mc_op_t ops[MAX_OPS];
    int32_t lists[64];
    int32_t inputs[4], outputs[4];
    mc_graph_t g;
    int64_t n_lists;
} builder_t;

static void start(builder_t *b, int n_tensors, const int *constant)
{
    int i;
    memset(b, 0, sizeof *b);
    for (i = 0; i < n_tensors; i++) {
        b->tensors[i].rank = 1;
        b->tensors[i].dims = &b->shapes[i];
        b->shapes[i] = 4 * (i + 1);
        b->tensors[i].dtype = MC_DTYPE_INT8;
        b->tensors[i].name_offset = -1;
    }
    for (i = 0; constant != NULL && constant[i] >= 0; i++) {
        b->tensors[constant[i]].flags = MC_TENSOR_CONSTANT;
    }
    b->g.tensors = b->tensors;
    b->g.ops = b->ops;
    b->g.op_tensors = b->lists;
    b->g.inputs = b->inputs;
    b->g.outputs = b->outputs;
    b->g.n_tensors = n_tensors;
    b->g.n_subgraphs = 1;
}

static void op(builder_t *b, const int *ins, int n_ins, const int *outs, int n_outs)
{
    mc_op_t *o = &b->ops[b->g.n_ops++];
    int i;
    o->kind = 0; /* ADD */
    o->version = 1;
    o->options = no_options;
    o->first_input = b->n_lists;
    o->n_inputs = n_ins;
    for (i = 0; i < n_ins; i++) {
        b->lists[b->n_lists++] = ins[i];
    }
    o->first_output = b->n_lists;
    o->n_outputs = n_outs;
    for (i = 0; i < n_outs; i++) {
        b->lists[b->n_lists++] = outs[i];
    }
    o->first_intermediate = b->n_lists;
    b->g.n_op_tensors = b->n_lists;
}

static int64_t sizes[MAX_T];
static int32_t first[MAX_T], last[MAX_T], owner[MAX_T];
static uint64_t scratch[4096]; /* the replay state, the tail's categories, a slot per tensor, two scopes per operator */

/* Lifetimes of the buffers, by tensor: TFLM's scope (0 before the first operator,
 * operator k at k + 1), i.e. the shifted lifetime - 1; -2 when not planned. */
static int64_t buffers(const builder_t *b, int32_t *f, int32_t *l)
{
    int64_t n = 0, need = 0, i;
    CHECK_EQ_I64(mc_tflm_buffer_count(&b->g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, MC_TFLM_ALLOW_UNKNOWN, &n,
                                      &need, NULL), MC_OK);
    CHECK(need <= (int64_t)sizeof scratch);
    CHECK_EQ_I64(mc_tflm_buffers(&b->g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, MC_TFLM_ALLOW_UNKNOWN, scratch,
                                 sizeof scratch, sizes, first, last, owner, n, NULL), MC_OK);
    for (i = 0; i < MAX_T; i++) {
        f[i] = l[i] = -2;
    }
    for (i = 0; i < n; i++) {
        CHECK(owner[i] >= 0);
        CHECK_EQ_I64(sizes[i], 4 * (owner[i] + 1)); /* int8 [4 (i + 1)] */
        f[owner[i]] = first[i] - 1;
        l[owner[i]] = last[i] - 1;
    }
    return n;
}

/* tiny_mlp: input 0 -> FC(0, w4, b3) -> 5 -> FC(5, w2, b1) -> 6 -> LOGISTIC -> 7 (output). */
static void test_chain(void)
{
    static const int constants[] = {1, 2, 3, 4, -1};
    builder_t b;
    int32_t f[MAX_T], l[MAX_T];
    start(&b, 8, constants);
    op(&b, (const int[]){0, 4, 3}, 3, (const int[]){5}, 1);
    op(&b, (const int[]){5, 2, 1}, 3, (const int[]){6}, 1);
    op(&b, (const int[]){6}, 1, (const int[]){7}, 1);
    b.inputs[0] = 0;
    b.outputs[0] = 7;
    b.g.n_inputs = b.g.n_outputs = 1;
    CHECK_EQ_I64(buffers(&b, f, l), 4);   /* the constants are not planned */
    CHECK_EQ_I64(f[0], 0);   /* graph input: from scope 0 ... */
    CHECK_EQ_I64(l[0], 1);   /* ... to its only consumer, operator 0 at scope 1 */
    CHECK_EQ_I64(f[5], 1);
    CHECK_EQ_I64(l[5], 2);
    CHECK_EQ_I64(f[6], 2);
    CHECK_EQ_I64(l[6], 3);
    CHECK_EQ_I64(f[7], 3);   /* graph output: recreated by its producer ... */
    CHECK_EQ_I64(l[7], 3);   /* ... and used at the final scope */
    CHECK_EQ_I64(f[4], -2);
}

/* A residual block: 0 -> A -> 1 -> B -> 2; ADD(1, 2) -> 3; tensor 4 is never touched;
 * an absent optional input (-1) is skipped. */
static void test_branch_and_untouched(void)
{
    builder_t b;
    int32_t f[MAX_T], l[MAX_T];
    start(&b, 5, NULL);
    op(&b, (const int[]){0, -1}, 2, (const int[]){1}, 1);
    op(&b, (const int[]){1}, 1, (const int[]){2}, 1);
    op(&b, (const int[]){1, 2}, 2, (const int[]){3}, 1);
    b.inputs[0] = 0;
    b.outputs[0] = 3;
    b.g.n_inputs = b.g.n_outputs = 1;
    CHECK_EQ_I64(buffers(&b, f, l), 5);
    CHECK_EQ_I64(f[1], 1);
    CHECK_EQ_I64(l[1], 3);   /* consumed by B and by ADD: lives to the later one */
    CHECK_EQ_I64(f[2], 2);
    CHECK_EQ_I64(l[2], 3);
    CHECK_EQ_I64(f[3], 3);
    CHECK_EQ_I64(l[3], 3);
    CHECK_EQ_I64(f[4], -1);  /* planned (no data), but no rule touches it: TFLM's -1 */
    CHECK_EQ_I64(l[4], -1);
}

/* A graph output that no operator writes (it is also the input) lives 0..end. */
static void test_passthrough_output(void)
{
    builder_t b;
    int32_t f[MAX_T], l[MAX_T];
    start(&b, 2, NULL);
    op(&b, (const int[]){0}, 1, (const int[]){1}, 1);
    b.inputs[0] = 0;
    b.outputs[0] = 0;
    b.outputs[1] = 1;
    b.g.n_inputs = 1;
    b.g.n_outputs = 2;
    CHECK_EQ_I64(buffers(&b, f, l), 2);
    CHECK_EQ_I64(f[0], 0);
    CHECK_EQ_I64(l[0], 1);
    CHECK_EQ_I64(f[1], 1);
    CHECK_EQ_I64(l[1], 1);
}

/* Out-of-range indices are refused before anything follows them. */
static void test_errors(void)
{
    builder_t b;
    int64_t n = 0, need = 0;
    mc_problem_t p;
    start(&b, 2, NULL);
    op(&b, (const int[]){0}, 1, (const int[]){1}, 1);
    b.inputs[0] = 0;
    b.outputs[0] = 1;
    b.g.n_inputs = b.g.n_outputs = 1;
    b.lists[0] = 7;
    CHECK_EQ_I64(mc_tflm_buffer_count(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, &p), MC_E_GRAPH);
    CHECK_EQ_I64(p.kind, MC_PROBLEM_BAD_TENSOR_INDEX);
    b.lists[0] = 0;
    b.outputs[0] = 9;
    CHECK_EQ_I64(mc_tflm_buffer_count(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, &p), MC_E_GRAPH);
    b.outputs[0] = 1;
    CHECK_EQ_I64(mc_tflm_buffer_count(&b.g, (mc_target_t)MC_TARGET_COUNT, MC_KERNELS_REFERENCE, 0, &n, &need, &p),
                 MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_buffer_count(NULL, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, &p), MC_E_NULL);
    CHECK_EQ_I64(mc_tflm_buffer_count(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, &p), MC_OK);
    CHECK_EQ_I64(mc_tflm_buffers(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, scratch, need - 1, sizes, first,
                                 last, owner, n, &p), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_tflm_buffers(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, scratch, need, sizes, first,
                                 last, owner, n + 1, &p), MC_E_RANGE);
}

int main(void)
{
    test_chain();
    test_branch_and_untouched();
    test_passthrough_output();
    test_errors();
    return check_report("test_tflm_buffers");
}
