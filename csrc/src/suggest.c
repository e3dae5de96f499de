/*
 * The board of the family a failed check suggests (memcore.h §12): which boards can help
 * with the resource that runs out, and which of their checks answers it best.  The
 * caller runs the checks; this only compares what they computed, so host and board
 * choose the same way.
 */
#include <stddef.h>

#include "memcore.h"
#include "out_of_line.h"

bool mc_board_may_help(const mc_check_t *now, const mc_board_t *board, int32_t region)
{
    int64_t partition;
    if (now == NULL || board == NULL) {
        return false;
    }
    switch (now->limiting) {
    case MC_RESOURCE_RAM:
        return region >= 0 && region < MC_REGION_COUNT && board->regions[region].bytes > now->available_bytes;
    case MC_RESOURCE_PSRAM:
        return board->regions[MC_REGION_PSRAM].bytes > 0;
    case MC_RESOURCE_FLASH:
        /* the model file's budget is its partition, or the whole flash without one */
        partition = board->model_partition_bytes > 0 ? board->model_partition_bytes
                                                     : board->regions[MC_REGION_FLASH].bytes;
        return board->regions[MC_REGION_FLASH].bytes > 0 &&
               partition > now->resources[MC_RESOURCE_FLASH].limit_bytes;
    case MC_RESOURCE_BATTERY:
        return board->active_watts > 0;
    case MC_RESOURCE_LATENCY:
        return true;
    default:
        return false;
    }
}

/* Does candidate c do better than now on resource k?  (Out of line: both passes over
 * the candidates ask it.) */
OUT_OF_LINE static bool better(const mc_resource_check_t *now, const mc_resource_check_t *c)
{
    return !now->checked || !c->checked || c->usage < now->usage;
}

/* Is a answered better than b (both in the pool)?  Latency and battery by their
 * figure; memory by the smallest board that fits, or the least short when none fits. */
static bool before(const mc_check_t *a, const mc_check_t *b, int32_t k)
{
    if (k == MC_RESOURCE_LATENCY) {
        return a->latency.total_seconds < b->latency.total_seconds;
    }
    if (k == MC_RESOURCE_BATTERY) {
        return a->average_watts < b->average_watts;
    }
    if (a->verdict == MC_CHECK_FITS && b->verdict == MC_CHECK_FITS) {
        return a->available_bytes < b->available_bytes;
    }
    return a->headroom_bytes > b->headroom_bytes;
}

int32_t mc_board_pick(const mc_check_t *now, const mc_check_t *candidates, int32_t n)
{
    int32_t k, i, pick = -1;
    bool any_fits = false;
    if (now == NULL || candidates == NULL || now->limiting < 0 || now->limiting >= MC_RESOURCE_COUNT) {
        return -1;
    }
    k = now->limiting;
    for (i = 0; i < n; i++) {
        any_fits = any_fits || (better(&now->resources[k], &candidates[i].resources[k]) &&
                                candidates[i].verdict == MC_CHECK_FITS);
    }
    for (i = 0; i < n; i++) {
        const mc_check_t *c = &candidates[i];
        if (!better(&now->resources[k], &c->resources[k]) || (any_fits && c->verdict != MC_CHECK_FITS)) {
            continue;
        }
        if (pick < 0 || before(c, &candidates[pick], k)) {
            pick = i;
        }
    }
    return pick;
}
