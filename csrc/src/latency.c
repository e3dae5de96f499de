/* SPEC 5: latency as fetch + compute + setup, and which upgrade pays. */
#include <stddef.h>

#include "floats.h"
#include "memcore.h"
#include "out_of_line.h"

OUT_OF_LINE static mc_status_t assemble(double fetch_seconds, double compute_seconds,
                                        double setup_seconds, mc_latency_t *out);

mc_status_t mc_latency(int64_t bytes_moved, int64_t operations,
                       double bandwidth_bytes_per_second, double operations_per_second,
                       double overhead_seconds, mc_latency_t *out)
{
    if (out == NULL) {
        return MC_E_NULL;
    }
    if (bytes_moved < 0 || operations < 0) {
        return MC_E_NEGATIVE;
    }
    if (!mc_finite(bandwidth_bytes_per_second) || !mc_finite(operations_per_second) ||
        !mc_finite(overhead_seconds)) {
        return MC_E_NOT_FINITE;
    }
    if (bandwidth_bytes_per_second <= 0 || operations_per_second <= 0) {
        return MC_E_RANGE;
    }
    if (overhead_seconds < 0) {
        return MC_E_NEGATIVE;
    }
    /* A tiny rate can make a part overflow to infinity: that is the honest answer. */
    return assemble((double)bytes_moved / bandwidth_bytes_per_second,
                    (double)operations / operations_per_second, overhead_seconds, out);
}

mc_status_t mc_latency_of_parts(double fetch_seconds, double compute_seconds, double setup_seconds,
                                mc_latency_t *out)
{
    if (out == NULL) {
        return MC_E_NULL;
    }
    if (!mc_finite(fetch_seconds) || !mc_finite(compute_seconds) || !mc_finite(setup_seconds)) {
        return MC_E_NOT_FINITE;
    }
    if (fetch_seconds < 0 || compute_seconds < 0 || setup_seconds < 0) {
        return MC_E_NEGATIVE;
    }
    return assemble(fetch_seconds, compute_seconds, setup_seconds, out);
}

/* The parts, their total, the dominant one and what doubling each rate saves (out of
 * line: inlined into both entry points, it was there twice). */
static mc_status_t assemble(double fetch_seconds, double compute_seconds, double setup_seconds,
                            mc_latency_t *out)
{
    mc_latency_t r;
    double largest;

    r.fetch_seconds = fetch_seconds;
    r.compute_seconds = compute_seconds;
    r.setup_seconds = setup_seconds;
    r.total_seconds = r.fetch_seconds + r.compute_seconds + r.setup_seconds;

    r.dominant = MC_PART_FETCH;
    largest = r.fetch_seconds;
    if (r.compute_seconds > largest) {
        r.dominant = MC_PART_COMPUTE;
        largest = r.compute_seconds;
    }
    if (r.setup_seconds > largest) {
        r.dominant = MC_PART_SETUP;
    }
    /* Doubling a rate halves its part and leaves the others alone. */
    r.saving_seconds_if_compute_doubled = r.compute_seconds / 2;
    r.saving_seconds_if_bandwidth_doubled = r.fetch_seconds / 2;
    if (r.total_seconds > 0) {
        r.saving_if_compute_doubled = r.saving_seconds_if_compute_doubled / r.total_seconds;
        r.saving_if_bandwidth_doubled = r.saving_seconds_if_bandwidth_doubled / r.total_seconds;
    } else {
        r.saving_if_compute_doubled = 0;
        r.saving_if_bandwidth_doubled = 0;
    }
    *out = r;
    return MC_OK;
}
