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

#include "graph.h"
#include "memcore.h"
#include "out_of_line.h"
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
    return (t->flags & MC_TENSOR_CONSTANT) == 0 && mc__tensor_bytes(t) != 0 && !mc__tflm_resource_handle(g, i);
}

bool mc__tflm_tail_variable(const mc_graph_t *g, int32_t i)
{
    return (g->tensors[i].flags & MC_TENSOR_VARIABLE) != 0 && !fixed(g, i);
}

/* (tflm_internal.h) Out of line: its 64-bit locals stay off the planner's deep call
 * chain. */
OUT_OF_LINE bool mc__tflm_take_offsets(const mc_graph_t *graph, const int64_t *sizes, const int32_t *owner,
                                       int64_t n, int64_t *fixed, int64_t *bad)
{
    const int32_t *plan = mc__offline_offsets(graph);
    int64_t i;
    for (i = 0; i < n; i++) {
        int32_t t = owner[i];
        int64_t at = plan != NULL && t >= 0 && t < graph->n_tensors ? plan[t] : -1;
        fixed[i] = at;
        /* its aligned size within TFLM's limit: ceil16(s) <= x exactly when
         * s <= floor16(x), so no sum can overflow */
        if (at != -1 && (at < -1 || at % ARENA_ALIGNMENT != 0 ||
                         sizes[i] > ((LARGEST_OFFSET - at) & ~(int64_t)(ARENA_ALIGNMENT - 1)))) {
            bad[0] = t;
            bad[1] = at;
            return false;
        }
    }
    return true;
}

mc_status_t mc__tflm_place(bool usable, const int64_t *bad, const int64_t *sizes, const int32_t *first_use,
                           const int32_t *last_use, const int32_t *owner, int64_t n_buffers, void *scratch,
                           int64_t scratch_bytes, int64_t *fixed_offsets, int64_t *offsets, mc_plan_t *out,
                           mc_problem_t *problem)
{
    int64_t clash[2] = {-1, -1}, op = -1;
    int32_t kind = MC_PROBLEM_PLAN_OFFSET;
    mc_status_t rc;
    if (!usable) { /* the file's offset TFLM cannot use: its tensor and the offset */
        clash[0] = bad[0];
        clash[1] = bad[1];
    } else {
        /* Without a plan every buffer is the planner's: MC_PLAN_TFLM's placement. */
        rc = mc_plan_fixed(sizes, first_use, last_use, fixed_offsets, n_buffers, ARENA_ALIGNMENT, scratch,
                           scratch_bytes, offsets, out, clash);
        if (rc != MC_E_RANGE || clash[0] < 0) {
            return rc;
        }
        {
            /* Both are live from the later first use on: scope k + 2 is operator k's.  The
             * planner places fixed buffers by index, and tensors' buffers are in tensor
             * order: the first of the pair is the lower tensor. */
            int32_t a = (int32_t)clash[0], b = (int32_t)clash[1];
            int32_t scope = first_use[a] > first_use[b] ? first_use[a] : first_use[b];
            op = scope < 2 ? -1 : scope - 2;
            clash[0] = owner[a];
            clash[1] = owner[b];
        }
        kind = MC_PROBLEM_PLAN_OVERLAP;
    }
    if (problem != NULL) {
        problem->kind = kind;
        problem->tensor = clash[0];
        problem->value = clash[1];
        problem->op = op;
        problem->other = problem->at = -1;
    }
    return MC_E_MODEL;
}

mc_status_t mc_tflm_plan(const mc_graph_t *graph, const int64_t *sizes, const int32_t *first_use,
                         const int32_t *last_use, const int32_t *owner, int64_t n_buffers, void *scratch,
                         int64_t scratch_bytes, int64_t *fixed_offsets, int64_t *offsets, mc_plan_t *out,
                         mc_problem_t *problem)
{
    int64_t bad[2] = {-1, -1};
    bool usable;
    if (graph == NULL || (n_buffers > 0 && (owner == NULL || sizes == NULL || fixed_offsets == NULL))) {
        return MC_E_NULL;
    }
    usable = mc__tflm_take_offsets(graph, sizes, owner, n_buffers, fixed_offsets, bad);
    return mc__tflm_place(usable, bad, sizes, first_use, last_use, owner, n_buffers, scratch, scratch_bytes,
                          fixed_offsets, offsets, out, problem);
}
