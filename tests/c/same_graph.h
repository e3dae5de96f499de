/* Whether two readings of a file gave the same tensor and operator: every field, and the
 * shape and options they point at (the pointers themselves differ between readings into
 * different scratch).  Shared by the reader's test and its fuzz target. */
#ifndef MEMCORE_TESTS_SAME_GRAPH_H
#define MEMCORE_TESTS_SAME_GRAPH_H

#include <stdbool.h>
#include <string.h>

#include "memcore.h"

/* Tensors a and b: every field and the dims' values (a shape read in place is the
 * file's int32s; a copy keeps the narrowest width, MC_GRAPH_IN_FILE). */
static inline bool same_tensor(const mc_tensor_t *a, const mc_tensor_t *b)
{
    mc_tensor_t x = *a, y = *b;
    x.dims = y.dims = NULL;
    x.dim_bytes = y.dim_bytes = 0;
    int32_t d;
    if (memcmp(&x, &y, sizeof x) != 0) {
        return false;
    }
    for (d = 0; d < a->rank; d++) {
        if (mc_tensor_dim(a, d) != mc_tensor_dim(b, d)) {
            return false;
        }
    }
    return true;
}

/* Operator a of graph ga and b of gb: every field, the options, and the entries of the
 * three tensor lists (where a list starts differs when one reading left the lists in
 * the file: MC_GRAPH_IN_FILE). */
static inline bool same_op(const mc_graph_t *ga, const mc_op_t *a, const mc_graph_t *gb, const mc_op_t *b)
{
    mc_op_t x = *a, y = *b;
    x.options = y.options = NULL;
    x.first_input = y.first_input = x.first_output = y.first_output = 0;
    x.first_intermediate = y.first_intermediate = 0;
    return memcmp(&x, &y, sizeof x) == 0 &&
           memcmp(a->options, b->options, MC_OP_OPTIONS * sizeof *a->options) == 0 &&
           memcmp(ga->op_tensors + a->first_input, gb->op_tensors + b->first_input,
                  (size_t)a->n_inputs * sizeof(int32_t)) == 0 &&
           memcmp(ga->op_tensors + a->first_output, gb->op_tensors + b->first_output,
                  (size_t)a->n_outputs * sizeof(int32_t)) == 0 &&
           memcmp(ga->op_tensors + a->first_intermediate, gb->op_tensors + b->first_intermediate,
                  (size_t)a->n_intermediates * sizeof(int32_t)) == 0;
}

#endif
