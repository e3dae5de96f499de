/*
 * Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE): what TFLM 90b983c2
 * allocates for them (micro_resource_variable.cc and the three kernels).
 *
 *   - The interpreter is given a MicroResourceVariables built for n variables: the
 *     object and an array of n MicroResourceVariable, both from the tail (16-aligned),
 *     right after the allocator objects and before the model's own structures.  n is
 *     the firmware's choice: TFLM's Python interpreter (and tools/tflm_oracle) give one
 *     per distinct VAR_HANDLE shared name, which is memcore's default; a MicroInterpreter
 *     built without them has none, and then every VAR_HANDLE fails its Prepare.
 *   - VAR_HANDLE's Prepare gives its shared name an id (the next free one, in Prepare
 *     order, or the id an earlier VAR_HANDLE of that name got; past n it fails) and
 *     points its output's data at that id: the output is never planned.
 *   - ASSIGN_VARIABLE's Prepare, when its resource input is the output of a VAR_HANDLE
 *     already prepared, allocates the variable's buffer from the tail the first time:
 *     as many bytes as its value input, while that input is held as a temporary
 *     TfLiteTensor.  An ASSIGN whose handle comes from elsewhere (a subgraph input, a
 *     later operator) allocates nothing there.
 *
 * The reader gives each VAR_HANDLE the operator index of the first VAR_HANDLE with the
 * same shared name (mc_op_t.options[0]), so names are compared once, in the file.
 */
#include <stddef.h>

#include "memcore.h"
#include "tflm_internal.h"

#define BUILTIN_VAR_HANDLE 142
#define BUILTIN_ASSIGN_VARIABLE 144

/* The operator that writes tensor i when it is a VAR_HANDLE, else -1: only resource
 * tensors are looked for, so the scan is rare. */
static int32_t var_handle_of(const mc_graph_t *g, int32_t i)
{
    int32_t k;
    if (i < 0 || g->tensors[i].dtype != MC_DTYPE_RESOURCE) {
        return -1;
    }
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        if (op->kind == BUILTIN_VAR_HANDLE && op->n_outputs > 0 && g->op_tensors[op->first_output] == i) {
            return k;
        }
    }
    return -1;
}

bool mc__tflm_resource_handle(const mc_graph_t *g, int32_t i)
{
    return var_handle_of(g, i) >= 0;
}

int32_t mc__tflm_resource_count(const mc_graph_t *g, int32_t n_variables, int32_t *over)
{
    int32_t k, n = 0;
    *over = -1;
    for (k = 0; k < (int32_t)g->n_ops; k++) {
        if (g->ops[k].kind == BUILTIN_VAR_HANDLE && g->ops[k].options[0] == k && ++n > n_variables && *over < 0) {
            *over = k;
        }
    }
    return n;
}

/* The variable (its first VAR_HANDLE) that ASSIGN_VARIABLE operator k allocates for when
 * prepared, or -1. */
static int32_t assigns(const mc_graph_t *g, int32_t k)
{
    const mc_op_t *op = &g->ops[k];
    int32_t handle = op->n_inputs > 0 ? var_handle_of(g, g->op_tensors[op->first_input]) : -1;
    return handle >= 0 && handle < k ? g->ops[handle].options[0] : -1;
}

int64_t mc__tflm_resource_buffer(const mc_graph_t *g, const mc_op_t *op)
{
    int32_t j, k = (int32_t)(op - g->ops), variable = assigns(g, k);
    if (variable < 0 || op->n_inputs < 2 || g->op_tensors[op->first_input + 1] < 0) {
        return -1;
    }
    for (j = 0; j < k; j++) { /* an earlier ASSIGN allocated it already */
        if (g->ops[j].kind == BUILTIN_ASSIGN_VARIABLE && assigns(g, j) == variable) {
            return -1;
        }
    }
    return g->tensors[g->op_tensors[op->first_input + 1]].bytes;
}
