/*
 * SPEC 7: TensorFlow Lite Micro's whole arena: the planned head, the persistent tail,
 * and the transient peak while it plans.
 *
 * TFLM's SingleArenaBufferAllocator hands out persistent memory from the 16-aligned
 * end of the arena downwards: each request moves the tail by its size, then rounds the
 * position up to the request's alignment, so the padding belongs to the request that
 * causes it (RecordingMicroAllocator counts it in "used").  Python supplies the
 * sequence of (bytes, alignment) requests from the model and the runtime's struct
 * sizes; the arithmetic lives here.
 *
 * Why the recommended arena is not just head + tail: CommitStaticMemoryPlan plans the
 * head with temporaries taken from the non-persistent side (scratch-request buffer,
 * AllocationInfo array, 40 bytes of planner state per buffer) before the input/output
 * TfLiteTensors join the tail.  On small models that transient peak is the binding one.
 */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

static mc_status_t align_up(int64_t value, int64_t alignment, int64_t *out)
{
    int64_t rem = value % alignment;
    if (rem == 0) {
        *out = value;
        return MC_OK;
    }
    return mc_checked_add(value, alignment - rem, out);
}

static mc_status_t bump(const mc_alloc_t *allocs, int64_t n, int64_t *used, int64_t *total)
{
    int64_t i, offset = 0;
    for (i = 0; i < n; i++) {
        int64_t next = 0;
        if (allocs[i].bytes < 0 || allocs[i].alignment < 0) {
            return MC_E_NEGATIVE;
        }
        if (allocs[i].alignment == 0) {
            return MC_E_RANGE;
        }
        MC_TRY(mc_checked_add(offset, allocs[i].bytes, &next));
        MC_TRY(align_up(next, allocs[i].alignment, &next));
        if (used != NULL) {
            used[i] = next - offset;
        }
        offset = next;
    }
    *total = offset;
    return MC_OK;
}

mc_status_t mc_bump_allocate(const mc_alloc_t *allocs, int64_t n_allocs, int64_t *used_bytes,
                             int64_t *total_bytes)
{
    int64_t total = 0;
    if (total_bytes == NULL || (n_allocs > 0 && allocs == NULL)) {
        return MC_E_NULL;
    }
    if (n_allocs < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(bump(allocs, n_allocs, used_bytes, &total));
    *total_bytes = total;
    return MC_OK;
}

mc_status_t mc_tflm_arena(int64_t head_bytes, const mc_alloc_t *tail_allocs, int64_t n_tail,
                          int64_t n_tail_before_planning, const mc_alloc_t *planning_allocs,
                          int64_t n_planning, mc_tflm_arena_t *out)
{
    mc_tflm_arena_t r;
    int64_t before = 0, temporaries = 0;

    if (out == NULL || (n_tail > 0 && tail_allocs == NULL) ||
        (n_planning > 0 && planning_allocs == NULL)) {
        return MC_E_NULL;
    }
    if (head_bytes < 0 || n_tail < 0 || n_tail_before_planning < 0 || n_planning < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_tail_before_planning > n_tail) {
        return MC_E_RANGE;
    }
    MC_TRY(bump(tail_allocs, n_tail, NULL, &r.tail_bytes));
    MC_TRY(bump(tail_allocs, n_tail_before_planning, NULL, &before));
    MC_TRY(bump(planning_allocs, n_planning, NULL, &temporaries));
    r.head_bytes = head_bytes;
    MC_TRY(mc_checked_add(head_bytes, r.tail_bytes, &r.total_bytes));
    MC_TRY(mc_checked_add(before, temporaries, &r.planning_bytes));
    r.recommended_arena_bytes = r.total_bytes > r.planning_bytes ? r.total_bytes : r.planning_bytes;
    *out = r;
    return MC_OK;
}
