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
#include <string.h>

#include "memcore.h"
#include "tflm_internal.h"

/* Tensors ids[0..n) are used at `scope`, and created there too when `first_use` is given
 * (absent optional inputs are -1 and skipped).  TFLM overwrites first_created, so a
 * tensor written by several operators lives from its last producer on. */
static void mark(const int32_t *ids, int64_t n, int32_t scope, int32_t *first_use, int32_t *last_use)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        if (ids[i] >= 0) {
            if (first_use != NULL) {
                first_use[ids[i]] = scope;
            }
            last_use[ids[i]] = scope;
        }
    }
}

void mc__tflm_graph_lifetimes(const mc_graph_t *graph, int32_t *first_use, int32_t *last_use)
{
    int64_t k;
    int32_t scope = 0;
    /* never touched: -1 (all bits set) */
    memset(first_use, 0xff, (size_t)graph->n_tensors * sizeof *first_use);
    memset(last_use, 0xff, (size_t)graph->n_tensors * sizeof *last_use);
    /* graph inputs and outputs are created (and used) at scope 0 */
    mark(graph->inputs, graph->n_inputs, 0, first_use, last_use);
    mark(graph->outputs, graph->n_outputs, 0, first_use, last_use);
    /* operator k at scope k + 1: its outputs are (re)created there, then its inputs used */
    for (k = 0; k < graph->n_ops; k++) {
        const mc_op_t *op = &graph->ops[k];
        scope++;
        mark(graph->op_tensors + op->first_output, op->n_outputs, scope, first_use, last_use);
        mark(graph->op_tensors + op->first_input, op->n_inputs, scope, NULL, last_use);
    }
    mark(graph->outputs, graph->n_outputs, scope, NULL, last_use);
}
