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

#include "memcore.h"
#include "tflm_internal.h"

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
