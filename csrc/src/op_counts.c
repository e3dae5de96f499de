/*
 * The arithmetic of one operator, in the counting conventions users read in the
 * reports (docs/formulas.md): multiply-accumulates where the operator is a sum of
 * products, one operation per element visited elsewhere, none for pure data movement.
 * Shapes are TFLite's: conv filter OHWI, depthwise 1HWO, fully connected (out, in),
 * transpose conv OHWI with the data as its third input.
 */
#include <stddef.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"

enum {
    ADD = 0, AVERAGE_POOL_2D = 1, CONCATENATION = 2, CONV_2D = 3, DEPTHWISE_CONV_2D = 4,
    FULLY_CONNECTED = 9, L2_POOL_2D = 12, MAX_POOL_2D = 17, MEAN = 40, ARG_MAX = 56,
    TRANSPOSE_CONV = 67, SUM = 74, ARG_MIN = 79, REDUCE_PROD = 81, REDUCE_MAX = 82,
    REDUCE_MIN = 89, BATCH_MATMUL = 126
};

/* Pool2DOptions and BatchMatMulOptions fields (mc_op_t.options, schema order) */
enum { POOL_FILTER_W = 3, POOL_FILTER_H = 4, MATMUL_ADJ_X = 0 };

/* Kinds that only move or reshape data: no arithmetic. */
static bool moves_data(int32_t kind)
{
    static const uint8_t codes[] = {
        2,   /* CONCATENATION */ 5,  /* DEPTH_TO_SPACE */ 22, /* RESHAPE */
        26,  /* SPACE_TO_DEPTH */ 34, /* PAD */ 36, /* GATHER */ 37, /* BATCH_TO_SPACE_ND */
        38,  /* SPACE_TO_BATCH_ND */ 39, /* TRANSPOSE */ 43, /* SQUEEZE */
        45,  /* STRIDED_SLICE */ 49, /* SPLIT */ 60, /* PADV2 */ 65, /* SLICE */ 69, /* TILE */
        70,  /* EXPAND_DIMS */ 77, /* SHAPE */ 83, /* PACK */ 88, /* UNPACK */ 93, /* ZEROS_LIKE */
        94,  /* FILL */ 97, /* RESIZE_NEAREST_NEIGHBOR */ 100, /* MIRROR_PAD */ 102, /* SPLIT_V */
        107, /* GATHER_ND */ 130, /* BROADCAST_TO */
    };
    size_t i;
    for (i = 0; i < sizeof codes; i++) {
        if (codes[i] == kind) {
            return true;
        }
    }
    return false;
}

static int64_t elements(const mc_tensor_t *t, bool *overflow)
{
    return mc__dims_product(1, t, 0, t->rank, overflow);
}

static const mc_tensor_t *input(const mc_graph_t *g, const mc_op_t *op, int32_t i)
{
    int32_t t = i < op->n_inputs ? g->op_tensors[op->first_input + i] : -1;
    return t >= 0 ? &g->tensors[t] : NULL;
}

/* Product of a filter's dims[from..to] (inclusive), 0 when it has fewer. */
static int64_t dims_product(const mc_tensor_t *t, int32_t from, int32_t to, bool *overflow)
{
    return t == NULL || t->rank <= to ? 0 : mc__dims_product(1, t, from, to + 1, overflow);
}

mc_status_t mc_op_counts(const mc_graph_t *g, int64_t *macs, int64_t *other_ops, int64_t *failed_op)
{
    int32_t k;
    if (g == NULL || failed_op == NULL || (g->n_ops > 0 && (macs == NULL || other_ops == NULL))) {
        return MC_E_NULL;
    }
    *failed_op = -1;
    /* A graph from outside: every index is checked before the counting follows it, once
     * for all the operators (per operator, a model's load was quadratic).  Checked, n_ops
     * is within MC_MAX_OPS. */
    MC_TRY(mc_graph_structure(g, NULL));
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        mc_status_t rc = mc_op_counts_of(g, k, &macs[k], &other_ops[k]);
        if (rc != MC_OK) {
            *failed_op = k;
            return rc;
        }
    }
    return MC_OK;
}

/* Every count is a product of sizes: its steps set `overflow`, tested once at the end. */
mc_status_t mc_op_counts_of(const mc_graph_t *g, int64_t k, int64_t *macs, int64_t *other_ops)
{
    const mc_op_t *op;
    const mc_tensor_t *out, *filter, *first;
    int64_t n_out = 0, per = 0, m = 0, other = 0;
    bool overflow = false;

    op = &g->ops[k];
    out = op->n_outputs > 0 ? &g->tensors[g->op_tensors[op->first_output]] : NULL;
    if (out != NULL) {
        n_out = elements(out, &overflow);
    }
    filter = input(g, op, 1);
    first = input(g, op, 0);
    switch (op->kind) {
    case CONV_2D: /* output x kh x kw x input channels per group */
        m = mc_mul_or_flag(n_out, dims_product(filter, 1, 3, &overflow), &overflow);
        break;
    case DEPTHWISE_CONV_2D: /* output x kh x kw */
        m = mc_mul_or_flag(n_out, dims_product(filter, 1, 2, &overflow), &overflow);
        break;
    case FULLY_CONNECTED: /* output x input features */
        per = filter != NULL && filter->rank > 0 ? mc_tensor_dim(filter, filter->rank - 1) : 0;
        m = mc_mul_or_flag(n_out, per, &overflow);
        break;
    case BATCH_MATMUL: /* output x the reduced dimension of the first operand */
        if (first != NULL && first->rank >= 2) {
            per = mc_tensor_dim(first, first->rank - (op->options[MATMUL_ADJ_X] ? 2 : 1));
        }
        m = mc_mul_or_flag(n_out, per, &overflow);
        break;
    case TRANSPOSE_CONV: { /* each input element scattered through kh x kw x output channels */
        const mc_tensor_t *data = input(g, op, 2);
        int64_t n_in = data != NULL ? elements(data, &overflow) : 0;
        per = dims_product(filter, 1, 2, &overflow);
        per = mc_mul_or_flag(per, filter != NULL && filter->rank > 0 ? mc_tensor_dim(filter, 0) : 0, &overflow);
        m = mc_mul_or_flag(n_in, per, &overflow);
        break;
    }
    case AVERAGE_POOL_2D:
    case MAX_POOL_2D:
    case L2_POOL_2D: /* output x window */
        per = mc_mul_or_flag((int64_t)op->options[POOL_FILTER_H] > 0 ? op->options[POOL_FILTER_H] : 1,
                             (int64_t)op->options[POOL_FILTER_W] > 0 ? op->options[POOL_FILTER_W] : 1,
                             &overflow);
        other = mc_mul_or_flag(n_out, per, &overflow);
        break;
    case MEAN:
    case SUM:
    case REDUCE_PROD:
    case REDUCE_MAX:
    case REDUCE_MIN:
    case ARG_MAX:
    case ARG_MIN: /* every input element visited once */
        if (first != NULL) {
            other = elements(first, &overflow);
        }
        break;
    default:
        /* element-wise and everything else: one per output element; data movement: none */
        other = moves_data(op->kind) ? 0 : n_out;
        break;
    }
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    *macs = m;
    *other_ops = other;
    return MC_OK;
}
