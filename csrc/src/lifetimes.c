/*
 * SPEC 7: tensor lifetimes in execution order, with TensorFlow Lite Micro's rules.
 *
 * This is AllocationInfoBuilder::MarkAllocationLifetimes (micro_allocation_info.cc)
 * for one flat subgraph.  TFLM counts "scopes", not operator indices: graph inputs and
 * outputs are created at scope 0, operator k runs at scope k + 1, and graph outputs are
 * used again at the final scope.  Reproducing the scopes (rather than, say, a lifetime
 * from producer to last consumer) is what makes the planner's arena equal TFLM's head:
 * a graph input is live from scope 0, and every graph output is live from its producer
 * to the end, so both constrain placements exactly as they do in TFLM (checked against
 * the tflite-micro interpreter on 74 graphs: the 8 shared models and every prefix).
 */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"
#include "tflm_internal.h"

static mc_status_t check_csr(const int64_t *start, int64_t n_ops, const int32_t *indices,
                             int64_t n_tensors, int32_t lowest)
{
    int64_t k, i;
    if (start[0] != 0) {
        return MC_E_RANGE;
    }
    /* All offsets first, so no index is read through a malformed offset table. */
    for (k = 0; k < n_ops; k++) {
        if (start[k + 1] < start[k]) {
            return MC_E_RANGE;
        }
    }
    if (start[n_ops] > 0 && indices == NULL) {
        return MC_E_NULL;
    }
    for (k = 0; k < n_ops; k++) {
        for (i = start[k]; i < start[k + 1]; i++) {
            if (indices[i] < lowest || indices[i] >= n_tensors) {
                return MC_E_RANGE;
            }
        }
    }
    return MC_OK;
}

static mc_status_t check_list(const int32_t *indices, int64_t n, int64_t n_tensors)
{
    int64_t i;
    if (n < 0) {
        return MC_E_NEGATIVE;
    }
    if (n > 0 && indices == NULL) {
        return MC_E_NULL;
    }
    for (i = 0; i < n; i++) {
        if (indices[i] < 0 || indices[i] >= n_tensors) {
            return MC_E_RANGE;
        }
    }
    return MC_OK;
}

/* Graph inputs and outputs are created (and used) at scope 0. */
static void mark_io(const int32_t *inputs, int64_t n_inputs, const int32_t *outputs,
                    int64_t n_outputs, int32_t *first_use, int32_t *last_use)
{
    int64_t i;
    for (i = 0; i < n_inputs; i++) {
        first_use[inputs[i]] = 0;
        last_use[inputs[i]] = 0;
    }
    for (i = 0; i < n_outputs; i++) {
        first_use[outputs[i]] = 0;
        last_use[outputs[i]] = 0;
    }
}

/* One operator at `scope`.  Outputs are (re)created there: TFLM overwrites
 * first_created, so a tensor written by several operators lives from its last
 * producer on; then its inputs (absent optional ones are -1) are used there. */
static void mark_op(const int32_t *inputs, int64_t n_inputs, const int32_t *outputs,
                    int64_t n_outputs, int32_t scope, int32_t *first_use, int32_t *last_use)
{
    int64_t i;
    for (i = 0; i < n_outputs; i++) {
        first_use[outputs[i]] = scope;
        last_use[outputs[i]] = scope;
    }
    for (i = 0; i < n_inputs; i++) {
        if (inputs[i] >= 0) {
            last_use[inputs[i]] = scope;
        }
    }
}

mc_status_t mc_tflm_lifetimes(int64_t n_tensors, int64_t n_ops,
                              const int64_t *op_input_start, const int32_t *op_inputs,
                              const int64_t *op_output_start, const int32_t *op_outputs,
                              const int32_t *graph_inputs, int64_t n_graph_inputs,
                              const int32_t *graph_outputs, int64_t n_graph_outputs,
                              int32_t *first_use, int32_t *last_use)
{
    int64_t i, k;
    int32_t scope = 0;

    if (n_tensors < 0 || n_ops < 0) {
        return MC_E_NEGATIVE;
    }
    if (op_input_start == NULL || op_output_start == NULL ||
        (n_tensors > 0 && (first_use == NULL || last_use == NULL))) {
        return MC_E_NULL;
    }
    /* Tensor indices are int32 in every format memcore reads, and the final scope is
     * n_ops, which must fit the int32 lifetimes mc_plan takes. */
    if (n_tensors > INT32_MAX || n_ops >= INT32_MAX) {
        return MC_E_RANGE;
    }
    MC_TRY(check_csr(op_input_start, n_ops, op_inputs, n_tensors, -1));
    MC_TRY(check_csr(op_output_start, n_ops, op_outputs, n_tensors, 0));
    MC_TRY(check_list(graph_inputs, n_graph_inputs, n_tensors));
    MC_TRY(check_list(graph_outputs, n_graph_outputs, n_tensors));

    for (i = 0; i < n_tensors; i++) {
        first_use[i] = -1;
        last_use[i] = -1;
    }
    mark_io(graph_inputs, n_graph_inputs, graph_outputs, n_graph_outputs, first_use, last_use);
    for (k = 0; k < n_ops; k++) {
        scope++;
        mark_op(op_inputs + op_input_start[k], op_input_start[k + 1] - op_input_start[k],
                op_outputs + op_output_start[k], op_output_start[k + 1] - op_output_start[k],
                scope, first_use, last_use);
    }
    for (i = 0; i < n_graph_outputs; i++) {
        last_use[graph_outputs[i]] = scope;
    }
    return MC_OK;
}

void mc__tflm_graph_lifetimes(const mc_graph_t *graph, int32_t *first_use, int32_t *last_use)
{
    int64_t i, k;
    int32_t scope = 0;
    for (i = 0; i < graph->n_tensors; i++) {
        first_use[i] = -1;
        last_use[i] = -1;
    }
    mark_io(graph->inputs, graph->n_inputs, graph->outputs, graph->n_outputs, first_use, last_use);
    for (k = 0; k < graph->n_ops; k++) {
        const mc_op_t *op = &graph->ops[k];
        scope++;
        mark_op(graph->op_tensors + op->first_input, op->n_inputs,
                graph->op_tensors + op->first_output, op->n_outputs, scope, first_use, last_use);
    }
    for (i = 0; i < graph->n_outputs; i++) {
        last_use[graph->outputs[i]] = scope;
    }
}
