/* mc_graph_validate: the dataflow rules on small hand-built graphs, one broken rule at
 * a time, each reported with the operator and tensor it concerns; and mc_dtype_bytes,
 * mc_op_name and mc_problem_text. */
#include <string.h>

#include "check.h"
#include "memcore.h"

#define T 8
#define OPS 4

static mc_tensor_t tensors[T];
static int32_t shapes[T][MC_MAX_DIMS]; /* the tensors' dims */
static mc_op_t ops[OPS];
static const int32_t no_options[MC_OP_OPTIONS];
static int32_t lists[64];
static int32_t inputs[2], outputs[2];
static uint64_t scratch[T];

/* A chain: tensor 0 (input) -> op 0 -> 1 -> op 1 (reads constant 2) -> 3 -> op 2 -> 4 (output). */
static mc_graph_t chain(void)
{
    mc_graph_t g;
    int i, n = 0;
    static const int32_t in[3][2] = {{0, -1}, {1, 2}, {3, -1}}, out[3] = {1, 3, 4};
    memset(tensors, 0, sizeof tensors);
    memset(ops, 0, sizeof ops);
    for (i = 0; i < 5; i++) {
        tensors[i].rank = 2;
        tensors[i].dims = shapes[i];
        shapes[i][0] = 1;
        shapes[i][1] = 8;
        tensors[i].dtype = MC_DTYPE_FLOAT32;
    }
    tensors[2].flags = MC_TENSOR_CONSTANT;
    for (i = 0; i < 3; i++) {
        ops[i].kind = 0; /* ADD */
        ops[i].options = no_options;
        ops[i].first_input = n;
        ops[i].n_inputs = 2;
        lists[n++] = in[i][0];
        lists[n++] = in[i][1];
        ops[i].first_output = n;
        ops[i].n_outputs = 1;
        lists[n++] = out[i];
        ops[i].first_intermediate = n;
    }
    inputs[0] = 0;
    outputs[0] = 4;
    g.tensors = tensors;
    g.ops = ops;
    g.op_tensors = lists;
    g.inputs = inputs;
    g.outputs = outputs;
    g.n_tensors = 5;
    g.n_ops = 3;
    g.n_op_tensors = n;
    g.n_inputs = 1;
    g.n_outputs = 1;
    g.n_subgraphs = 1;
    g.flags = 0;
    g.offline_offsets = NULL;
    g.subgraphs = NULL;
    return g;
}

static mc_problem_t p;

static mc_status_t validate(const mc_graph_t *g)
{
    return mc_graph_validate(g, scratch, sizeof scratch, &p);
}

static void expect(const mc_graph_t *g, int32_t kind, int64_t op, int64_t tensor, int64_t other)
{
    CHECK_EQ_I64(validate(g), MC_E_GRAPH);
    CHECK_EQ_I64(p.kind, kind);
    CHECK_EQ_I64(p.op, op);
    CHECK_EQ_I64(p.tensor, tensor);
    CHECK_EQ_I64(p.other, other);
}

int main(void)
{
    mc_graph_t g = chain();
    int64_t need = 0, bytes = 0;
    CHECK_EQ_I64(validate(&g), MC_OK);
    CHECK_EQ_I64(p.kind, MC_PROBLEM_NONE);
    CHECK_EQ_I64(mc_graph_validate_scratch_bytes(5, &need), MC_OK);
    CHECK_EQ_I64(mc_graph_validate(&g, scratch, need - 1, &p), MC_E_SCRATCH);

    /* Operator 0 reads its own output: a cycle of one. */
    g = chain();
    lists[1] = 1;
    expect(&g, MC_PROBLEM_CYCLE, 0, 1, 0);
    /* The first operator reads what the last one writes. */
    g = chain();
    lists[1] = 4;
    expect(&g, MC_PROBLEM_CYCLE, 0, 4, 2);
    /* A tensor nobody writes. */
    g = chain();
    tensors[5] = tensors[0];
    g.n_tensors = 6;
    lists[1] = 5;
    expect(&g, MC_PROBLEM_READ_UNWRITTEN, 0, 5, -1);
    /* ... unless it is a variable (state) */
    tensors[5].flags = MC_TENSOR_VARIABLE;
    CHECK_EQ_I64(validate(&g), MC_OK);
    /* Written twice. */
    g = chain();
    lists[8] = 3;
    expect(&g, MC_PROBLEM_WRITTEN_TWICE, 1, 3, 2);
    /* Writes a constant; writes a graph input. */
    g = chain();
    lists[2] = 2;
    expect(&g, MC_PROBLEM_WRITES_CONSTANT, 0, 2, -1);
    g = chain();
    lists[5] = 0;
    expect(&g, MC_PROBLEM_WRITES_INPUT, 1, 0, -1);
    /* An operator without outputs (its output removed). */
    g = chain();
    ops[2].n_outputs = 0;
    expect(&g, MC_PROBLEM_NO_OUTPUTS, 2, -1, -1);
    /* A graph output nobody writes. */
    g = chain();
    tensors[5] = tensors[0];
    g.n_tensors = 6;
    outputs[0] = 5;
    expect(&g, MC_PROBLEM_OUTPUT_UNWRITTEN, -1, 5, -1);
    /* Indices out of range, lists outside the index array. */
    g = chain();
    lists[0] = 9;
    expect(&g, MC_PROBLEM_BAD_TENSOR_INDEX, 0, -1, -1);
    CHECK_EQ_I64(p.value, 9);
    g = chain();
    lists[2] = -1; /* only inputs may be absent */
    expect(&g, MC_PROBLEM_BAD_TENSOR_INDEX, 0, -1, -1);
    g = chain();
    ops[1].first_input = 100;
    expect(&g, MC_PROBLEM_BAD_OPERATOR, 1, -1, -1);
    g = chain();
    outputs[0] = -3;
    expect(&g, MC_PROBLEM_BAD_TENSOR_INDEX, -1, -1, -1);
    /* A tensor's bytes come from its shape and type: [1, 8] float32 is 32 B, a scalar
     * one element, int4 a byte a value, a string none TFLM allocates. */
    g = chain();
    CHECK_EQ_I64(mc_tensor_bytes(&tensors[3], &bytes), MC_PROBLEM_NONE);
    CHECK_EQ_I64(bytes, 32);
    tensors[3].rank = 0;
    CHECK_EQ_I64(mc_tensor_bytes(&tensors[3], &bytes), MC_PROBLEM_NONE);
    CHECK_EQ_I64(bytes, 4);
    tensors[3].rank = 2;
    tensors[3].dtype = MC_DTYPE_INT4;
    CHECK_EQ_I64(mc_tensor_bytes(&tensors[3], &bytes), MC_PROBLEM_NONE);
    CHECK_EQ_I64(bytes, 8);
    tensors[3].dtype = MC_DTYPE_STRING;
    CHECK_EQ_I64(mc_tensor_bytes(&tensors[3], &bytes), MC_PROBLEM_BAD_DTYPE);
    expect(&g, MC_PROBLEM_BAD_DTYPE, -1, 3, -1);
    g = chain();
    shapes[3][1] = -1;
    expect(&g, MC_PROBLEM_DYNAMIC_SHAPE, -1, 3, -1);
    g = chain();
    tensors[3].dtype = MC_DTYPE_STRING;
    expect(&g, MC_PROBLEM_BAD_DTYPE, -1, 3, -1);
    g = chain();
    tensors[3].rank = 3;
    shapes[3][0] = shapes[3][1] = shapes[3][2] = INT32_MAX;
    expect(&g, MC_PROBLEM_SIZE_OVERFLOW, -1, 3, -1);
    g = chain();
    tensors[3].rank = MC_MAX_DIMS + 1;
    expect(&g, MC_PROBLEM_BAD_RANK, -1, 3, -1);
    /* Limits. */
    g = chain();
    g.n_tensors = MC_MAX_TENSORS + 1;
    CHECK_EQ_I64(validate(&g), MC_E_LIMIT);
    CHECK_EQ_I64(p.kind, MC_PROBLEM_TOO_LARGE);
    CHECK_EQ_I64(mc_graph_validate(NULL, scratch, sizeof scratch, &p), MC_E_NULL);

    CHECK_EQ_I64(mc_dtype_bytes(MC_DTYPE_FLOAT32), 4);
    CHECK_EQ_I64(mc_dtype_bytes(MC_DTYPE_INT4), 1);
    CHECK_EQ_I64(mc_dtype_bytes(MC_DTYPE_COMPLEX128), 16);
    CHECK_EQ_I64(mc_dtype_bytes(MC_DTYPE_STRING), 0);
    CHECK_EQ_I64(mc_dtype_bytes(-1), 0);
    CHECK_EQ_I64(mc_dtype_bytes(99), 0);
    CHECK(strcmp(mc_op_name(0), "ADD") == 0);
    CHECK(strcmp(mc_op_name(56), "ARG_MAX") == 0);
    CHECK(strcmp(mc_op_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM") == 0);
    CHECK(mc_op_name(-1) == NULL && mc_op_name(100000) == NULL);
    {
        int32_t kind;
        for (kind = 0; kind < MC_PROBLEM_COUNT; kind++) {
            CHECK(strcmp(mc_problem_text(kind), "unknown problem") != 0);
        }
        CHECK(strcmp(mc_problem_text(MC_PROBLEM_COUNT), "unknown problem") == 0);
    }
    return check_report("test_graph");
}
