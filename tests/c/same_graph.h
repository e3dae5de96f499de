/* Whether two readings of a file gave the same tensor and operator: every field, and the
 * shape and options they point at (the pointers themselves differ between readings into
 * different scratch).  Shared by the reader's test and its fuzz target. */
#ifndef MEMCORE_TESTS_SAME_GRAPH_H
#define MEMCORE_TESTS_SAME_GRAPH_H

#include <stdbool.h>
#include <string.h>

#include "memcore.h"

static inline bool same_tensor(const mc_tensor_t *a, const mc_tensor_t *b)
{
    mc_tensor_t x = *a, y = *b;
    x.dims = y.dims = NULL;
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

static inline bool same_op(const mc_op_t *a, const mc_op_t *b)
{
    mc_op_t x = *a, y = *b;
    x.options = y.options = NULL;
    return memcmp(&x, &y, sizeof x) == 0 && memcmp(a->options, b->options, MC_OP_OPTIONS * sizeof *a->options) == 0;
}

#endif
