/*
 * TFLM's head for a model that carries an offline memory plan (TFLite's
 * "OfflineMemoryAllocation" metadata, read by tflite_reader.c into
 * mc_graph_t.offline_offsets): what TFLM 90b983c2 does with it, and the checks it
 * does not make.
 *
 * TFLM (micro_allocation_info.cc, micro_allocator.cc, greedy_memory_planner.cc):
 *   - a tensor is planned as without a plan (no data in the file, not a variable, not
 *     empty), and so is a variable tensor with an offset, which then lives in the head
 *     instead of the tail (AllocateVariables skips it);
 *   - each planned tensor with an offset is added to the GreedyMemoryPlanner at it;
 *     the others (offset -1) and every kernel's scratch buffer are placed around the
 *     fixed ones, largest first, at the lowest offset free of every buffer live with
 *     them (mc_plan_fixed);
 *   - the head is the highest end of any buffer.
 * TFLM trusts the offsets: a negative one writes before the arena, a misaligned one
 * breaks the kernels' 16-byte alignment, two tensors live at the same time that
 * overlap corrupt each other's values.  Each is refused here with the tensors named.
 */
#include <stddef.h>

#include "memcore.h"
#include "tflm_internal.h"

#define ARENA_ALIGNMENT 16
#define LARGEST_OFFSET INT32_MAX /* TFLM's planner adds offsets and sizes as int */

const int32_t *mc__offline_offsets(const mc_graph_t *g)
{
    return (g->flags & MC_GRAPH_OFFLINE_PLAN) != 0 ? g->offline_offsets : NULL;
}

/* Whether tensor i has an offset in the file's plan. */
static bool fixed(const mc_graph_t *g, int32_t i)
{
    const int32_t *plan = mc__offline_offsets(g);
    return plan != NULL && plan[i] != -1;
}

bool mc__tflm_planned(const mc_graph_t *g, int32_t i)
{
    const mc_tensor_t *t = &g->tensors[i];
    if ((t->flags & MC_TENSOR_VARIABLE) != 0) {
        return fixed(g, i);
    }
    return (t->flags & MC_TENSOR_CONSTANT) == 0 && t->bytes != 0;
}

bool mc__tflm_tail_variable(const mc_graph_t *g, int32_t i)
{
    return (g->tensors[i].flags & MC_TENSOR_VARIABLE) != 0 && !fixed(g, i);
}

/* A plan's problem with tensor `tensor` (and `value`): MC_E_MODEL. */
static mc_status_t bad_plan(mc_problem_t *p, int32_t kind, int64_t tensor, int64_t value, int64_t op)
{
    if (p != NULL) {
        p->kind = kind;
        p->tensor = tensor;
        p->value = value;
        p->op = op;
        p->other = p->at = -1;
    }
    return MC_E_MODEL;
}

mc_status_t mc_tflm_plan(const mc_graph_t *graph, const int64_t *sizes, const int32_t *first_use,
                         const int32_t *last_use, const int32_t *owner, int64_t n_buffers, void *scratch,
                         int64_t scratch_bytes, int64_t *fixed_offsets, int64_t *offsets, mc_plan_t *out,
                         mc_problem_t *problem)
{
    const int32_t *plan;
    int64_t i, clash[2];
    mc_status_t rc;
    if (graph == NULL || (n_buffers > 0 && (owner == NULL || sizes == NULL || fixed_offsets == NULL))) {
        return MC_E_NULL;
    }
    plan = mc__offline_offsets(graph);
    if (plan == NULL) {
        for (i = 0; i < n_buffers; i++) {
            fixed_offsets[i] = -1;
        }
        return mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, n_buffers, ARENA_ALIGNMENT, 0, scratch,
                       scratch_bytes, offsets, out);
    }
    for (i = 0; i < n_buffers; i++) {
        int32_t t = owner[i];
        int64_t at = t >= 0 && t < graph->n_tensors ? plan[t] : -1;
        fixed_offsets[i] = at;
        if (at == -1) {
            continue;
        }
        /* its aligned size at most what is left below TFLM's limit: ceil16(s) <= x
         * exactly when s <= floor16(x), so no sum can overflow */
        if (at < -1 || sizes[i] > ((LARGEST_OFFSET - at) & ~(int64_t)(ARENA_ALIGNMENT - 1))) {
            return bad_plan(problem, MC_PROBLEM_PLAN_OFFSET, t, at, -1);
        }
        if (at % ARENA_ALIGNMENT != 0) {
            return bad_plan(problem, MC_PROBLEM_PLAN_ALIGNMENT, t, at, -1);
        }
    }
    rc = mc_plan_fixed(sizes, first_use, last_use, fixed_offsets, n_buffers, ARENA_ALIGNMENT, scratch,
                       scratch_bytes, offsets, out, clash);
    if (rc == MC_E_RANGE && clash[0] >= 0) {
        /* Both are live from the later first use on: scope k + 2 is operator k's. */
        int32_t a = (int32_t)clash[0], b = (int32_t)clash[1];
        int32_t scope = first_use[a] > first_use[b] ? first_use[a] : first_use[b];
        int32_t lo = owner[a] < owner[b] ? a : b, hi = lo == a ? b : a;
        return bad_plan(problem, MC_PROBLEM_PLAN_OVERLAP, owner[lo], owner[hi], scope < 2 ? -1 : scope - 2);
    }
    return rc;
}
