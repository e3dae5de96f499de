/*
 * The neutral graph's rules (memcore.h §8): element sizes, and the validation every
 * graph passes before any number is computed from it, whichever importer built it.
 *
 * A TFLite or ONNX file lists operators in execution order, so a valid graph is one
 * where every tensor an operator reads already exists when it runs: a constant, a
 * variable, a graph input, or the output of an earlier operator.  Anything else is
 * either a tensor nobody writes, or a cycle (the operator itself, or a later one,
 * writes it); both would make a plan meaningless, so they are refused with the
 * operator and tensor named.  Byte sizes are recomputed from shape and type rather
 * than trusted, so an importer's arithmetic error cannot become a plausible number.
 */
#include <stddef.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"

/* writer[] entries besides an operator index */
#define NOT_WRITTEN (-1)
#define GRAPH_INPUT (-2)

int64_t mc_dtype_bytes(int32_t dtype)
{
    /* TFLM's TfLiteTypeSizeOf (memory_helpers.cc); 0 where it refuses the type. */
    static const uint8_t bytes[MC_DTYPE_COUNT] = {
        [MC_DTYPE_FLOAT32] = 4, [MC_DTYPE_FLOAT16] = 2, [MC_DTYPE_INT32] = 4,
        [MC_DTYPE_UINT8] = 1, [MC_DTYPE_INT64] = 8, [MC_DTYPE_STRING] = 0,
        [MC_DTYPE_BOOL] = 1, [MC_DTYPE_INT16] = 2, [MC_DTYPE_COMPLEX64] = 8,
        [MC_DTYPE_INT8] = 1, [MC_DTYPE_FLOAT64] = 8, [MC_DTYPE_COMPLEX128] = 16,
        [MC_DTYPE_UINT64] = 8, [MC_DTYPE_RESOURCE] = 4, [MC_DTYPE_VARIANT] = 0,
        [MC_DTYPE_UINT32] = 4, [MC_DTYPE_UINT16] = 2, [MC_DTYPE_INT4] = 1,
        [MC_DTYPE_BFLOAT16] = 2,
    };
    return dtype >= 0 && dtype < MC_DTYPE_COUNT ? bytes[dtype] : 0;
}

const char *mc_problem_text(int32_t kind)
{
    /* Every kind's text in kind order, each ending in its NUL, then the text for any
     * other kind: walked at lookup rather than kept behind a table of pointers. */
    static const char texts[] =
        "no problem\0" /* NONE */
        "not a TFLite flatbuffer (no TFL3 identifier)\0" /* NOT_TFLITE */
        "TFLite schema version is not 3\0" /* SCHEMA_VERSION */
        "an offset or length points past the end of the file (truncated or corrupted)\0" /* PAST_END */
        "a flatbuffer table is malformed (corrupted file)\0" /* BAD_TABLE */
        "the model has no subgraph\0" /* NO_SUBGRAPH */
        "refers to an operator code the file does not have\0" /* BAD_OPCODE */
        "refers to a buffer the file does not have\0" /* BAD_BUFFER */
        "has data that lies past the end of the file\0" /* BUFFER_PAST_END */
        "refers to a tensor the graph does not have\0" /* BAD_TENSOR_INDEX */
        "has more dimensions than memcore reads (8)\0" /* BAD_RANK */
        "has a dynamic or unknown dimension; memcore needs static shapes\0" /* DYNAMIC_SHAPE */
        "has a type with no fixed element size that TFLM can allocate\0" /* BAD_DTYPE */
        "is too large: its size does not fit in 64 bits\0" /* SIZE_OVERFLOW */
        "has a byte size that disagrees with its shape and type\0" /* BAD_BYTES */
        "has no outputs\0" /* NO_OUTPUTS */
        "is written by two operators\0" /* WRITTEN_TWICE */
        "writes a constant tensor\0" /* WRITES_CONSTANT */
        "writes a graph input\0" /* WRITES_INPUT */
        "reads a tensor written by itself or by a later operator: the graph has a cycle\0" /* CYCLE */
        "reads a tensor that no operator writes and that is not a graph input, "
        "a constant or a variable\0" /* READ_UNWRITTEN */
        "is a graph output that no operator writes\0" /* OUTPUT_UNWRITTEN */
        "has a tensor list outside the graph's index array\0" /* BAD_OPERATOR */
        "has several subgraphs (control flow such as IF or WHILE); memcore "
        "models single-subgraph models only\0" /* SUBGRAPHS */
        "has an offline memory plan TFLM cannot read\0" /* OFFLINE_PLAN */
        "keeps its data outside the flatbuffer, which TFLM cannot read\0" /* EXTERNAL_DATA */
        "is sparse, which TFLM does not run\0" /* SPARSE */
        "has more tensors or operators than memcore's limits (1,000,000 each)\0" /* TOO_LARGE */
        "is an operator TFLM does not run\0" /* UNKNOWN_OP */
        "is refused by TFLM's kernel: its Prepare fails for these shapes and types\0" /* KERNEL_REFUSES */
        "lacks an input its TFLM kernel needs (TFLM's Prepare fails)\0" /* MISSING_INPUT */
        "has an offline offset TFLM cannot use\0" /* PLAN_OFFSET */
        "overlaps a tensor live with it in the offline plan\0" /* PLAN_OVERLAP */
        "is too large: TFLM's arena would need more than 2^50 bytes\0" /* ARENA_TOO_LARGE */
        "names more resource variables than the interpreter has\0" /* RESOURCE_VARIABLES */
        "has an intermediate tensor of more than 0 bytes, which TFLM's allocator refuses\0" /* INTERMEDIATE_SIZE */
        "unknown problem";
    const char *text = texts;
    if (kind < 0 || kind > MC_PROBLEM_COUNT) {
        kind = MC_PROBLEM_COUNT;
    }
    for (; kind > 0; kind--) {
        while (*text++ != '\0') {
        }
    }
    return text;
}

/* Fills *p (when given) for a graph problem and returns its status: MC_E_LIMIT for
 * MC_PROBLEM_TOO_LARGE, MC_E_GRAPH otherwise.  `other` is -1; the two problems that
 * name a second operator set it after.  Indices are int32: the graph's counts are
 * within MC_MAX_* by then.  Out of line: inlined at its dozen call sites, its six
 * 64-bit stores cost 240 B on a board. */
OUT_OF_LINE static mc_status_t problem(mc_problem_t *p, int32_t kind, int32_t op, int32_t tensor, int64_t value)
{
    if (p != NULL) {
        p->kind = kind;
        p->op = op;
        p->tensor = tensor;
        p->other = -1;
        p->value = value;
        p->at = -1;
    }
    return kind == MC_PROBLEM_TOO_LARGE ? MC_E_LIMIT : MC_E_GRAPH;
}

/* A tensor written by two operators, or read before it is written: op, tensor, other. */
static mc_status_t conflict(mc_problem_t *p, int32_t kind, int32_t op, int32_t tensor, int32_t other)
{
    mc_status_t rc = problem(p, kind, op, tensor, -1);
    if (p != NULL) {
        p->other = other;
    }
    return rc;
}

mc_status_t mc_graph_validate_scratch_bytes(int64_t n_tensors, int64_t *scratch_bytes)
{
    if (scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    if (n_tensors < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_tensors > MC_MAX_TENSORS) {
        return MC_E_LIMIT;
    }
    *scratch_bytes = n_tensors * (int64_t)sizeof(int32_t);
    return MC_OK;
}

int32_t mc_tensor_dim(const mc_tensor_t *t, int32_t i)
{
    switch (t->dim_bytes) {
    case 1:
        return ((const uint8_t *)t->dims)[i];
    case 2:
        return ((const uint16_t *)t->dims)[i];
    default:
        return ((const int32_t *)t->dims)[i];
    }
}

int64_t mc__dims_product(int64_t start, const mc_tensor_t *t, int32_t from, int32_t end, bool *overflow)
{
    int32_t d;
    for (d = from; d < end; d++) {
        start = mc_mul_or_flag(start, mc_tensor_dim(t, d), overflow);
    }
    return start;
}

int32_t mc_tensor_bytes(const mc_tensor_t *t, int64_t *bytes)
{
    int32_t d;
    bool overflow = false;
    int64_t element = mc_dtype_bytes(t->dtype);
    for (d = 0; d < t->rank; d++) {
        *bytes = mc_tensor_dim(t, d);
        if (*bytes < 0) {
            return MC_PROBLEM_DYNAMIC_SHAPE;
        }
    }
    if (element == 0) {
        *bytes = t->dtype;
        return MC_PROBLEM_BAD_DTYPE;
    }
    *bytes = mc__dims_product(element, t, 0, t->rank, &overflow);
    if (overflow) {
        *bytes = -1;
        return MC_PROBLEM_SIZE_OVERFLOW;
    }
    return MC_PROBLEM_NONE;
}

/* Out of line: every reader of a tensor's size calls it. */
OUT_OF_LINE int64_t mc__tensor_bytes(const mc_tensor_t *t)
{
    int64_t bytes;
    (void)mc_tensor_bytes(t, &bytes); /* the graph's structure is checked: a size */
    return bytes;
}

/* Tensor i's problem, if any, with its value: the rank, or what mc_tensor_bytes
 * reports. */
static mc_status_t check_tensor(const mc_tensor_t *t, int32_t i, mc_problem_t *p)
{
    int64_t value = t->rank;
    int32_t kind = t->rank <= MC_MAX_DIMS ? mc_tensor_bytes(t, &value) : MC_PROBLEM_BAD_RANK;
    return kind == MC_PROBLEM_NONE ? MC_OK : problem(p, kind, -1, i, value);
}

/* Operator k's list [first, first + n) must lie in op_tensors and name tensors in
 * [lowest, n_tensors).  Here and in check_io the counts are within MC_MAX_*
 * (mc_graph_structure checks them first): n_tensors in 32 bits.  (A tensor of another
 * subgraph is the file's error: the reader gives it no valid index.) */
static mc_status_t check_list(const mc_graph_t *g, int32_t k, int64_t first, int32_t n, int32_t lowest,
                              mc_problem_t *p)
{
    const int32_t *t, *end;
    /* A graph's lists are its n_op_tensors entries; lists read in place lie in the file,
     * where the reader found each (mc_tflite_read, the only one to read them there). */
    bool in_file = (g->flags & MC_GRAPH_IN_FILE) != 0;
    if (first < 0 || n < 0 || (!in_file && first > g->n_op_tensors - n)) {
        return problem(p, MC_PROBLEM_BAD_OPERATOR, k, -1, first);
    }
    for (t = g->op_tensors + first, end = t + n; t < end; t++) {
        if (*t < lowest || *t >= (int32_t)g->n_tensors) {
            return problem(p, MC_PROBLEM_BAD_TENSOR_INDEX, k, -1, *t);
        }
    }
    return MC_OK;
}

static mc_status_t check_io(const mc_graph_t *g, const int32_t *list, int64_t n, mc_problem_t *p)
{
    size_t i; /* n (>= 0) entries in memory: size_t holds the count */
    if (n > 0 && list == NULL) {
        return MC_E_NULL;
    }
    for (i = 0; i < (size_t)n; i++) {
        if (list[i] < 0 || list[i] >= (int32_t)g->n_tensors) {
            return problem(p, MC_PROBLEM_BAD_TENSOR_INDEX, -1, -1, list[i]);
        }
    }
    return MC_OK;
}

/* Operator kinds whose definition has no outputs: they act on resource variables
 * (ASSIGN_VARIABLE) or run a subgraph once (CALL_ONCE).  Any other operator without
 * outputs had them removed, and its work can never be read. */
static bool writes_nothing(int32_t kind)
{
    return kind == 129 /* CALL_ONCE */ || kind == 144 /* ASSIGN_VARIABLE */;
}

/* Several subgraphs: each holds the tensors and operators right after the previous
 * one's, the last ending where the graph does (the walks over them trust this). */
static mc_status_t check_subgraphs(const mc_graph_t *g, mc_problem_t *p)
{
    int32_t s, tensors = 0, ops = 0; /* counts within MC_MAX_* */
    if (g->subgraphs == NULL) {
        return MC_OK;
    }
    if (g->n_subgraphs < 1 || g->n_subgraphs > MC_MAX_SUBGRAPHS) {
        return problem(p, MC_PROBLEM_TOO_LARGE, -1, -1, g->n_subgraphs);
    }
    for (s = 0; s < (int32_t)g->n_subgraphs; s++) {
        const mc_subgraph_t *sg = &g->subgraphs[s];
        if (sg->first_tensor != tensors || sg->first_op != ops || sg->n_tensors < 0 || sg->n_ops < 0 ||
            sg->n_tensors > (int32_t)g->n_tensors - tensors || sg->n_ops > (int32_t)g->n_ops - ops || sg->n_inputs < 0 ||
            sg->n_outputs < 0) {
            return problem(p, MC_PROBLEM_BAD_OPERATOR, -1, -1, s);
        }
        tensors += sg->n_tensors;
        ops += sg->n_ops;
        MC_TRY(check_io(g, sg->io, (int64_t)sg->n_inputs + sg->n_outputs, p));
    }
    return tensors == g->n_tensors && ops == g->n_ops ? MC_OK : problem(p, MC_PROBLEM_BAD_OPERATOR, -1, -1, s);
}

mc_status_t mc_graph_structure(const mc_graph_t *g, mc_problem_t *p)
{
    int32_t i;
    if (g == NULL) {
        return MC_E_NULL;
    }
    if (g->n_tensors < 0 || g->n_ops < 0 || g->n_op_tensors < 0 || g->n_inputs < 0 || g->n_outputs < 0) {
        return MC_E_NEGATIVE;
    }
    if (g->n_tensors > MC_MAX_TENSORS || g->n_ops > MC_MAX_OPS || g->n_op_tensors > MC_MAX_OP_TENSORS) {
        return problem(p, MC_PROBLEM_TOO_LARGE, -1, -1, g->n_tensors > MC_MAX_TENSORS ? g->n_tensors : g->n_ops);
    }
    if ((g->n_tensors > 0 && g->tensors == NULL) || (g->n_ops > 0 && g->ops == NULL) ||
        (g->n_op_tensors > 0 && g->op_tensors == NULL)) {
        return MC_E_NULL;
    }
    /* From here every count is within MC_MAX_*: int32 indices. */
    MC_TRY(check_subgraphs(g, p));
    for (i = 0; i < (int32_t)g->n_tensors; i++) {
        MC_TRY(check_tensor(&g->tensors[i], i, p));
    }
    for (i = 0; i < (int32_t)g->n_ops; i++) {
        const mc_op_t *op = &g->ops[i];
        MC_TRY(check_list(g, i, op->first_input, op->n_inputs, -1, p));
        MC_TRY(check_list(g, i, op->first_output, op->n_outputs, 0, p));
        MC_TRY(check_list(g, i, op->first_intermediate, op->n_intermediates, 0, p));
        if (op->n_outputs == 0 && !writes_nothing(op->kind)) {
            return problem(p, MC_PROBLEM_NO_OUTPUTS, i, -1, -1);
        }
    }
    MC_TRY(check_io(g, g->inputs, g->n_inputs, p));
    return check_io(g, g->outputs, g->n_outputs, p);
}

/* Whether reading tensor t needs no producer: a constant or a variable. */
static bool exists_already(const mc_tensor_t *t)
{
    return (t->flags & (MC_TENSOR_CONSTANT | MC_TENSOR_VARIABLE)) != 0;
}

mc_status_t mc_graph_validate(const mc_graph_t *g, void *scratch, int64_t scratch_bytes, mc_problem_t *p)
{
    int32_t *writer = (int32_t *)scratch;
    const int32_t *t, *end;
    int64_t need;
    size_t i; /* over the graph's inputs and outputs: arrays in memory, so size_t holds their counts */
    int32_t k;

    if (g == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(mc_graph_structure(g, p));
    need = g->n_tensors * (int64_t)sizeof *writer; /* mc_graph_validate_scratch_bytes: n_tensors is checked */
    if (need > 0 && (scratch == NULL || scratch_bytes < need || ((uintptr_t)scratch & 7u) != 0)) {
        return MC_E_SCRATCH;
    }
    /* The structure is checked: counts within MC_MAX_*, every list inside op_tensors
     * and every index in range, so int32 indices and pointers into the lists. */
    for (k = 0; k < (int32_t)g->n_tensors; k++) {
        writer[k] = NOT_WRITTEN;
    }
    for (i = 0; i < (size_t)g->n_inputs; i++) {
        writer[g->inputs[i]] = GRAPH_INPUT;
    }
    /* A subgraph's inputs are given to it by the operator that calls it. */
    for (k = 0; g->subgraphs != NULL && k < (int32_t)g->n_subgraphs; k++) {
        for (i = 0; i < (size_t)g->subgraphs[k].n_inputs; i++) {
            writer[g->subgraphs[k].io[i]] = GRAPH_INPUT;
        }
    }
    /* Who writes what, first: a tensor read by operator k and written later is a
     * cycle, and the later writer is only known after every operator is seen. */
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        for (t = g->op_tensors + op->first_output, end = t + op->n_outputs; t < end; t++) {
            if ((g->tensors[*t].flags & MC_TENSOR_CONSTANT) || writer[*t] == GRAPH_INPUT) {
                return problem(p, g->tensors[*t].flags & MC_TENSOR_CONSTANT ? MC_PROBLEM_WRITES_CONSTANT
                                                                            : MC_PROBLEM_WRITES_INPUT,
                               k, *t, -1);
            }
            if (writer[*t] >= 0) {
                return conflict(p, MC_PROBLEM_WRITTEN_TWICE, writer[*t], *t, k);
            }
            writer[*t] = k;
        }
    }
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        for (t = g->op_tensors + op->first_input, end = t + op->n_inputs; t < end; t++) {
            if (*t < 0 || writer[*t] == GRAPH_INPUT || exists_already(&g->tensors[*t])) {
                continue;
            }
            /* a read before any write names no other operator: NOT_WRITTEN is -1 */
            if (writer[*t] == NOT_WRITTEN || writer[*t] >= k) {
                return conflict(p, writer[*t] == NOT_WRITTEN ? MC_PROBLEM_READ_UNWRITTEN : MC_PROBLEM_CYCLE, k, *t,
                                writer[*t]);
            }
        }
    }
    for (i = 0; i < (size_t)g->n_outputs; i++) {
        int32_t out = g->outputs[i];
        if (writer[out] == NOT_WRITTEN && !exists_already(&g->tensors[out])) {
            return problem(p, MC_PROBLEM_OUTPUT_UNWRITTEN, -1, out, -1);
        }
    }
    if (p != NULL) {
        p->kind = MC_PROBLEM_NONE;
    }
    return MC_OK;
}
