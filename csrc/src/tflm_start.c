/*
 * What every mc_tflm_* call checks before it replays anything (tflm_model.c): the graph's
 * structure, the target and kernels, the subgraphs its control flow calls (lifetimes.c),
 * the operators TFLM registers, the interpreter's resource variables against the
 * model's, and the reference kernels' Prepare checks (tflm_prepare.c); and the public
 * calls that only ask about operators.
 */
#include <stddef.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"
#include "tflm_internal.h"

/* A valid graph TFLM does not run: MC_E_UNSUPPORTED, with the problem in *p (when
 * given).  op and value are int32: an operator index (counts within MC_MAX_OPS) or a
 * builtin code, or -1. */
mc_status_t mc__tflm_unsupported(mc_problem_t *p, int32_t kind, int32_t op, int32_t value)
{
    if (p != NULL) {
        p->kind = kind;
        p->op = op;
        p->tensor = p->other = p->at = -1;
        p->value = value;
    }
    return MC_E_UNSUPPORTED;
}

/* The checks every call makes, every index included (the lifetimes walk trusts them).
 * Sets up *c for the graph; *unknown counts the unknown operators. */
mc_status_t mc__tflm_start(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels,
                         uint32_t flags, mc_ctx_t *c, int64_t *unknown, mc_problem_t *problem)
{
    int32_t i, variables, n_unknown = 0; /* counts within MC_MAX_* (mc_graph_structure) */
    if (g == NULL) {
        return MC_E_NULL;
    }
    if ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT ||
        (kernels != MC_KERNELS_REFERENCE && kernels != MC_KERNELS_OPTIMISED) ||
        (flags & ~(MC_TFLM_ALLOW_UNKNOWN | 0xFFFFu << MC_TFLM_RESOURCE_SHIFT)) != 0) {
        return MC_E_RANGE;
    }
    /* Indices in range, tensor lists inside the index array, sizes that agree with the
     * shapes, no operator that lost its outputs: whoever built the graph.  With it
     * every count is non-negative and within MC_MAX_* (int32 indices, scopes and
     * buffer counts), every array there, every tensor's rank, type and dimensions
     * valid (its bytes their product, so not negative), every operator's lists inside
     * op_tensors (inputs >= -1) and the graph's inputs and outputs in range. */
    MC_TRY(mc_graph_structure(g, problem));
    if (g->n_subgraphs > 1 && g->subgraphs == NULL) { /* several, but not described */
        return mc__tflm_unsupported(problem, MC_PROBLEM_SUBGRAPHS, -1, (int32_t)g->n_subgraphs);
    }
    i = mc__tflm_walk(g, NULL, &variables); /* the subgraphs operators call exist */
    if (i >= 0) {
        return mc__tflm_unsupported(problem, MC_PROBLEM_SUBGRAPHS, i, variables);
    }
    variables = (int32_t)(flags >> MC_TFLM_RESOURCE_SHIFT & 0xFFFFu); /* n + 1, or 0 */
    for (i = 0; i < (int32_t)g->n_tensors; i++) {
        if (g->tensors[i].quant_channels < 0) {
            return MC_E_NEGATIVE;
        }
    }
    c->graph = g;
    c->target = target;
    c->abi = mc__target_abi(target);
    c->vendor = kernels == MC_KERNELS_OPTIMISED ? c->abi->vendor : MC_VENDOR_NONE;
    c->resource_variables = variables == 0 ? mc__tflm_resource_count(g, 0, &i) : variables - 1;
    for (i = 0; i < (int32_t)g->n_ops; i++) {
        int32_t kind = g->ops[i].kind;
        if (kind < 0) {
            return MC_E_RANGE;
        }
        if (mc__op_modelled(kind, c->vendor)) {
            continue;
        }
        if ((flags & MC_TFLM_ALLOW_UNKNOWN) == 0) {
            return mc__tflm_unsupported(problem, MC_PROBLEM_UNKNOWN_OP, i, kind);
        }
        n_unknown++;
    }
    *unknown = n_unknown;
    return MC_OK;
}

/* TFLM's allocator, once every kernel is prepared, refuses an operator's intermediate
 * tensor of any size but 0 (AllocationInfoBuilder::ValidateSubgraph): the LSTM kernels
 * that once used them keep their state elsewhere. */
static mc_status_t intermediates_check(const mc_graph_t *g, mc_problem_t *p)
{
    int32_t k;
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        const int32_t *t = g->op_tensors + op->first_intermediate, *end = t + op->n_intermediates;
        for (; t < end; t++) { /* validated: each names a tensor (mc_graph_validate) */
            int64_t bytes = mc__tensor_bytes(&g->tensors[*t]);
            if (bytes != 0) {
                (void)mc__tflm_unsupported(p, MC_PROBLEM_INTERMEDIATE_SIZE, k, 0);
                if (p != NULL) {
                    p->tensor = *t;
                    p->value = bytes;
                }
                return MC_E_UNSUPPORTED;
            }
        }
    }
    return MC_OK;
}

/* The reference kernels' Prepare checks (tflm_prepare.c) on every operator that runs
 * one: the first that fails is MC_E_UNSUPPORTED, with the check in `value`. */
mc_status_t mc__tflm_prepare_checks(const mc_ctx_t *c, mc_problem_t *p)
{
    int32_t k, tensor; /* operator indices: within MC_MAX_OPS (start) */
    int32_t n = mc__tflm_resource_count(c->graph, c->resource_variables, &k);
    if (k >= 0) { /* VAR_HANDLE: "Maximum resource variable count reached" */
        (void)mc__tflm_unsupported(p, MC_PROBLEM_RESOURCE_VARIABLES, k, c->resource_variables);
        if (p != NULL) {
            p->other = n;
        }
        return MC_E_UNSUPPORTED;
    }
    for (k = 0; k < (int32_t)c->graph->n_ops; k++) {
        const mc_op_t *op = &c->graph->ops[k];
        int32_t check;
        if (mc__op_vendor_kernel(op->kind, c->vendor)) {
            continue;
        }
        check = mc__op_prepare_refusal(c->graph, op, &tensor);
        if (check >= 0) {
            (void)mc__tflm_unsupported(p, MC_PROBLEM_KERNEL_REFUSES, k, check);
            if (p != NULL) {
                p->tensor = tensor;
            }
            return MC_E_UNSUPPORTED;
        }
    }
    return intermediates_check(c->graph, p);
}

bool mc_tflm_supports(int32_t kind)
{
    return mc__op_registered(kind);
}

mc_status_t mc_tflm_unknown_ops(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                int32_t *codes, int64_t capacity, int64_t *n_unknown)
{
    mc_ctx_t c;
    int64_t unknown;
    int32_t k, j, n = 0; /* operator indices and counts: within MC_MAX_OPS (start) */
    if (n_unknown == NULL || (capacity > 0 && codes == NULL)) {
        return MC_E_NULL;
    }
    if (capacity < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc__tflm_start(graph, target, kernels, MC_TFLM_ALLOW_UNKNOWN, &c, &unknown, NULL));
    for (k = 0; k < (int32_t)graph->n_ops; k++) {
        int32_t code = graph->ops[k].kind;
        if (mc__op_modelled(code, c.vendor)) {
            continue;
        }
        /* The first operator of its kind (operator k itself ends the search)? */
        for (j = 0; graph->ops[j].kind != code; j++) {
        }
        if (j == k) {
            if (n < capacity) {
                codes[n] = code;
            }
            n++;
        }
    }
    *n_unknown = n;
    return MC_OK;
}
