/* SPEC 6: how batching moves a workload from memory-bound to compute-bound. */
#include <float.h>
#include <stddef.h>

#include "floats.h"
#include "memcore.h"

static double intensity(int64_t weight_bytes, int64_t act_bytes, int64_t ops, int64_t batch)
{
    double bytes = (double)weight_bytes + (double)act_bytes * (double)batch;
    double work = (double)ops * (double)batch;
    if (bytes <= 0.0) {
        /* Nothing fetched: every operation is free of memory traffic. */
        return work > 0.0 ? DBL_MAX * 2.0 : 0.0;
    }
    return work / bytes;
}

mc_status_t mc_roofline(int64_t weight_bytes, int64_t activation_bytes_per_example,
                        int64_t operations_per_example, double machine_ops_per_byte,
                        int64_t batch, mc_roofline_t *out)
{
    mc_roofline_t r;
    double headroom;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (weight_bytes < 0 || activation_bytes_per_example < 0 || operations_per_example < 0 ||
        batch < 0) {
        return MC_E_NEGATIVE;
    }
    if (!mc_finite(machine_ops_per_byte)) {
        return MC_E_NOT_FINITE;
    }
    if (machine_ops_per_byte <= 0.0 || batch == 0) {
        return MC_E_RANGE;
    }
    r.intensity = intensity(weight_bytes, activation_bytes_per_example, operations_per_example, batch);
    r.bound = r.intensity < machine_ops_per_byte ? MC_BOUND_MEMORY : MC_BOUND_COMPUTE;
    r.ceiling = activation_bytes_per_example > 0
                    ? (double)operations_per_example / (double)activation_bytes_per_example
                    : (operations_per_example > 0 ? DBL_MAX * 2.0 : 0.0);

    /* intensity(b) >= balance  <=>  b * (ops - balance * act) >= balance * weights.
     * Solve in doubles, then step to the exact smallest batch with the same test the
     * regime uses, so the answer never disagrees with `bound` at that batch. */
    headroom = (double)operations_per_example - machine_ops_per_byte * (double)activation_bytes_per_example;
    if (headroom <= 0.0) {
        r.crossover_batch = -1;
        if (intensity(weight_bytes, activation_bytes_per_example, operations_per_example, 1) >=
            machine_ops_per_byte) {
            r.crossover_batch = 1; /* only possible at the boundary: ops == balance * act, no weights */
        }
    } else {
        double guess = machine_ops_per_byte * (double)weight_bytes / headroom;
        int64_t b;
        if (guess >= 9.0e18) {
            r.crossover_batch = -1; /* beyond any 64-bit batch */
        } else {
            /* Bisect rather than walk one batch at a time from the guess: when the
             * headroom is a rounding residue the guess is far off and intensity is
             * flat over billions of consecutive batches, so a walk never ends (found
             * by fuzz/fuzz_rates.c).  Intensity grows with the batch, so the answer is
             * the first batch in (lo, hi] that is compute-bound; lo = 0 stands for
             * "memory-bound". */
            int64_t lo = 0, hi = guess < 1.0 ? 1 : (int64_t)guess;
            while (intensity(weight_bytes, activation_bytes_per_example, operations_per_example, hi) <
                   machine_ops_per_byte) {
                lo = hi;
                hi = hi > INT64_MAX / 2 ? INT64_MAX : hi * 2;
                if (lo == INT64_MAX) {
                    break;
                }
            }
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (intensity(weight_bytes, activation_bytes_per_example, operations_per_example, mid) >=
                    machine_ops_per_byte) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            b = lo == INT64_MAX ? -1 : hi;
            r.crossover_batch = b;
        }
    }
    *out = r;
    return MC_OK;
}
