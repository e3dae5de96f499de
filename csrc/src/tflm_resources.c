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

#include "graph.h"
#include "memcore.h"
#include "tflm_internal.h"

#define BUILTIN_VAR_HANDLE 142
#define BUILTIN_ASSIGN_VARIABLE 144

/* The variable (its first VAR_HANDLE's index) whose handle tensor i is, when a VAR_HANDLE
 * before operator `before` writes it; else -1.  Only resource tensors are looked for,
 * so the scan is rare.  Every caller runs after mc__tflm_start, whose
 * mc_graph_structure gives every VAR_HANDLE an output (only CALL_ONCE and
 * ASSIGN_VARIABLE may have none). */
static int32_t variable_of(const mc_graph_t *g, int32_t i, int32_t before)
{
    int32_t k;
    for (k = 0; i >= 0 && g->tensors[i].dtype == MC_DTYPE_RESOURCE && k < before; k++) {
        const mc_op_t *op = &g->ops[k];
        if (op->kind == BUILTIN_VAR_HANDLE && g->op_tensors[op->first_output] == i) {
            return op->options[0];
        }
    }
    return -1;
}

bool mc__tflm_resource_handle(const mc_graph_t *g, int32_t i)
{
    return variable_of(g, i, (int32_t)g->n_ops) >= 0;
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

/* The variable ASSIGN_VARIABLE operator k allocates for, if its handle is prepared
 * before it, or -1. */
static int32_t assigns(const mc_graph_t *g, int32_t k)
{
    const mc_op_t *op = &g->ops[k];
    return op->kind == BUILTIN_ASSIGN_VARIABLE && op->n_inputs > 1 ? variable_of(g, g->op_tensors[op->first_input], k)
                                                                   : -1;
}

int64_t mc__tflm_resource_buffer(const mc_graph_t *g, const mc_op_t *op)
{
    int32_t j, k = (int32_t)(op - g->ops), variable = assigns(g, k);
    for (j = 0; j < k && variable >= 0; j++) { /* an earlier ASSIGN allocated it already */
        if (assigns(g, j) == variable) {
            return -1;
        }
    }
    return variable >= 0 && g->op_tensors[op->first_input + 1] >= 0
               ? mc__tensor_bytes(&g->tensors[g->op_tensors[op->first_input + 1]])
               : -1;
}
