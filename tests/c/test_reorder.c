/* mc_reorder on hand-checked graphs: two branches written breadth first (both wide
 * tensors live together) are run one after the other; a graph already in its best order
 * keeps it; bad arguments are refused. */
#include <string.h>

#include "check.h"
#include "memcore.h"

#define MAX_T 16
#define MAX_OPS 8
#define FULLY_CONNECTED 9
#define ADD 0

static const int32_t no_options[MC_OP_OPTIONS];

typedef struct {
    mc_tensor_t tensors[MAX_T];
    int32_t shapes[MAX_T][2]; /* the tensors' dims */
    mc_op_t ops[MAX_OPS];
    int32_t lists[64];
    int32_t inputs[2], outputs[2];
    mc_graph_t g;
    int64_t n_lists;
} builder_t;

/* A float32 tensor [1, n], or a constant [rows, cols]. */
static int tensor(builder_t *b, int rows, int cols, bool constant)
{
    mc_tensor_t *t = &b->tensors[b->g.n_tensors];
    memset(t, 0, sizeof *t);
    t->rank = 2;
    t->dims = b->shapes[b->g.n_tensors];
    b->shapes[b->g.n_tensors][0] = rows;
    b->shapes[b->g.n_tensors][1] = cols;
    t->dtype = MC_DTYPE_FLOAT32;
    t->name_offset = -1;
    t->flags = constant ? MC_TENSOR_CONSTANT : 0;
    return (int)b->g.n_tensors++;
}

static void op(builder_t *b, int kind, int in0, int in1, int in2, int out)
{
    mc_op_t *o = &b->ops[b->g.n_ops++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->version = 1;
    o->options = no_options;
    o->first_input = b->n_lists;
    o->n_inputs = kind == ADD ? 2 : 3;
    b->lists[b->n_lists++] = in0;
    b->lists[b->n_lists++] = in1;
    if (kind != ADD) {
        b->lists[b->n_lists++] = in2;
    }
    o->first_output = b->n_lists;
    o->n_outputs = 1;
    b->lists[b->n_lists++] = out;
    o->first_intermediate = b->n_lists;
    b->g.n_op_tensors = b->n_lists;
}

/* x [1,4] -> FC -> a [1,64] -> FC -> a' [1,4], the same for b, then ADD(a', b').  With
 * `breadth_first` the file runs both wide FCs before either narrow one. */
static void branches(builder_t *b, bool breadth_first)
{
    int x, wa, wb, na, nb, a, a2, c, c2, y;
    memset(b, 0, sizeof *b);
    b->g.tensors = b->tensors;
    b->g.ops = b->ops;
    b->g.op_tensors = b->lists;
    b->g.inputs = b->inputs;
    b->g.outputs = b->outputs;
    b->g.n_subgraphs = 1;
    x = tensor(b, 1, 4, false);
    wa = tensor(b, 64, 4, true);
    wb = tensor(b, 64, 4, true);
    na = tensor(b, 4, 64, true);
    nb = tensor(b, 4, 64, true);
    a = tensor(b, 1, 64, false);
    a2 = tensor(b, 1, 4, false);
    c = tensor(b, 1, 64, false);
    c2 = tensor(b, 1, 4, false);
    y = tensor(b, 1, 4, false);
    op(b, FULLY_CONNECTED, x, wa, -1, a);
    if (breadth_first) {
        op(b, FULLY_CONNECTED, x, wb, -1, c);
        op(b, FULLY_CONNECTED, a, na, -1, a2);
    } else {
        op(b, FULLY_CONNECTED, a, na, -1, a2);
        op(b, FULLY_CONNECTED, x, wb, -1, c);
    }
    op(b, FULLY_CONNECTED, c, nb, -1, c2);
    op(b, ADD, a2, c2, 0, y);
    b->inputs[0] = x;
    b->outputs[0] = y;
    b->g.n_inputs = b->g.n_outputs = 1;
}

static uint64_t scratch[1 << 16];

static mc_status_t reorder(const builder_t *b, int64_t width, int32_t *order, mc_reorder_t *out)
{
    int64_t need = 0;
    mc_status_t rc = mc_reorder_scratch_bytes(&b->g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, width, &need, NULL);
    if (rc != MC_OK) {
        return rc;
    }
    CHECK(need <= (int64_t)sizeof scratch);
    return mc_reorder(&b->g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, width, MC_PLAN_DEFAULT_STEPS, scratch, need,
                      order, out, NULL);
}

static void test_breadth_first_branches_run_one_after_the_other(void)
{
    builder_t b;
    int32_t order[MAX_OPS];
    mc_reorder_t out;
    branches(&b, true);
    CHECK_EQ_I64(reorder(&b, MC_REORDER_DEFAULT_WIDTH, order, &out), MC_OK);
    /* file: x 16 + a 256 + c 256 while the second wide FC runs */
    CHECK_EQ_I64(out.file_peak_bytes, 528);
    /* a and its narrow FC first: at most x 16 + a' 16 + c 256 live */
    CHECK_EQ_I64(out.searched_peak_bytes, 288);
    CHECK_EQ_I64(out.peak_bytes, 288);
    CHECK(out.exact && out.changed);
    CHECK(out.head_bytes < out.file_head_bytes);
    CHECK_EQ_I64(order[0], 0);
    CHECK_EQ_I64(order[1], 2);
    CHECK_EQ_I64(order[2], 1);
    CHECK_EQ_I64(order[3], 3);
    CHECK_EQ_I64(order[4], 4);
    CHECK(out.states > 0 && out.steps > 0);
    /* a beam of one is a greedy order here, and as good */
    CHECK_EQ_I64(reorder(&b, 1, order, &out), MC_OK);
    CHECK_EQ_I64(out.searched_peak_bytes, 288);
}

static void test_an_order_at_its_best_is_kept(void)
{
    builder_t b;
    int32_t order[MAX_OPS];
    mc_reorder_t out;
    int k;
    branches(&b, false);
    CHECK_EQ_I64(reorder(&b, MC_REORDER_DEFAULT_WIDTH, order, &out), MC_OK);
    CHECK(!out.changed && out.exact);
    CHECK_EQ_I64(out.head_bytes, out.file_head_bytes);
    CHECK_EQ_I64(out.file_peak_bytes, 288);
    for (k = 0; k < 5; k++) {
        CHECK_EQ_I64(order[k], k);
    }
}

static void test_bad_arguments_are_refused(void)
{
    builder_t b;
    int32_t order[MAX_OPS];
    mc_reorder_t out;
    int64_t need = 0;
    mc_subgraph_t two[2];
    branches(&b, true);
    CHECK_EQ_I64(reorder(&b, 0, order, &out), MC_E_RANGE);
    CHECK_EQ_I64(reorder(&b, MC_REORDER_MAX_WIDTH + 1, order, &out), MC_E_RANGE);
    CHECK_EQ_I64(mc_reorder_scratch_bytes(NULL, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, &need, NULL),
                 MC_E_NULL);
    CHECK_EQ_I64(mc_reorder_scratch_bytes(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, &need, NULL), MC_OK);
    CHECK_EQ_I64(mc_reorder(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, 0, scratch, need - 8, order, &out,
                            NULL), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_reorder(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, 0, (uint8_t *)scratch + 4, need, order,
                            &out, NULL), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_reorder(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, 0, scratch, need, NULL, &out, NULL),
                 MC_E_NULL);
    memset(two, 0, sizeof two);
    b.g.subgraphs = two;
    b.g.n_subgraphs = 2;
    CHECK_EQ_I64(mc_reorder_scratch_bytes(&b.g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, 8, &need, NULL),
                 MC_E_UNSUPPORTED);
}

int main(void)
{
    test_breadth_first_branches_run_one_after_the_other();
    test_an_order_at_its_best_is_kept();
    test_bad_arguments_are_refused();
    return check_report("test_reorder");
}
