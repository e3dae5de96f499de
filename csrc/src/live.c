/*
 * Bytes live at each step: what a per-operator memory table shows, and where the peak is.
 *
 * A step is one scope of the lifetimes mc_plan takes (with TFLM's lifetimes, operator k
 * runs at scope k + 1).  The bytes live at a step are the aligned sizes of the buffers
 * whose lifetime covers it: no placement can put them in less, so the largest step is
 * mc_plan's lower bound.  One pass marks where each buffer starts and where it stops
 * (a difference array kept in the outputs themselves), a second adds them up: linear in
 * buffers + steps, and no scratch.
 */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

/* The same rules as mc_plan: sizes >= 0, 0 <= first <= last, and the aligned sizes
 * stacked must fit in 64 bits, so that no sum below can overflow; lifetimes must also
 * end inside the n_steps the caller gave room for.  Two passes over the buffers: the
 * first only checks them (nothing is written before every one passed), the second
 * marks where each starts and stops. */
mc_status_t mc_live_bytes(const int64_t *sizes, const int32_t *first_use, const int32_t *last_use,
                          int64_t n_buffers, int64_t alignment, int64_t n_steps,
                          int64_t *live_bytes, int64_t *live_buffers, mc_live_t *out)
{
    int64_t i, k, bytes = 0, buffers = 0;
    mc_live_t r;
    int pass;

    if (out == NULL || (n_buffers > 0 && (sizes == NULL || first_use == NULL || last_use == NULL)) ||
        (n_steps > 0 && (live_bytes == NULL || live_buffers == NULL))) {
        return MC_E_NULL;
    }
    if (n_buffers < 0 || n_steps < 0 || alignment < 0) {
        return MC_E_NEGATIVE;
    }
    if (alignment == 0) {
        return MC_E_RANGE;
    }
    for (pass = 0; pass < 2; pass++) {
        int64_t total = 0;
        for (k = 0; pass == 1 && k < n_steps; k++) {
            live_bytes[k] = 0;
            live_buffers[k] = 0;
        }
        for (i = 0; i < n_buffers; i++) {
            int64_t s = sizes[i], rem, end = (int64_t)last_use[i] + 1;
            if (s < 0) {
                return MC_E_NEGATIVE;
            }
            if (first_use[i] < 0 || last_use[i] < first_use[i]) {
                return MC_E_LIFETIME;
            }
            if (end > n_steps) {
                return MC_E_RANGE;
            }
            rem = s % alignment;
            MC_TRY(mc_checked_add(s, rem == 0 ? 0 : alignment - rem, &s));
            MC_TRY(mc_checked_add(total, s, &total));
            /* A buffer adds its size at its first step and takes it away after its last.
             * Every partial value lies between minus and plus one step's live total,
             * which the first pass bounded, so nothing here can overflow.  Zero-sized
             * buffers take no space, as in mc_plan. */
            if (pass == 1 && s != 0) {
                live_bytes[first_use[i]] += s;
                live_buffers[first_use[i]] += 1;
                if (end < n_steps) {
                    live_bytes[end] -= s;
                    live_buffers[end] -= 1;
                }
            }
        }
    }
    r.peak_step = n_steps > 0 ? 0 : -1;
    r.peak_bytes = 0;
    r.peak_buffers = 0;
    for (k = 0; k < n_steps; k++) {
        bytes += live_bytes[k];
        buffers += live_buffers[k];
        live_bytes[k] = bytes;
        live_buffers[k] = buffers;
        if (bytes > r.peak_bytes) {
            r.peak_step = k;
            r.peak_bytes = bytes;
            r.peak_buffers = buffers;
        }
    }
    *out = r;
    return MC_OK;
}
