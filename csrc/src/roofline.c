/* SPEC 6: how batching moves a workload from memory-bound to compute-bound. */
#include <float.h>
#include <stddef.h>

#include "floats.h"
#include "memcore.h"
#include "out_of_line.h"

/* Out of line: the bisection and the entry point both call it. */
OUT_OF_LINE static double intensity(int64_t weight_bytes, int64_t act_bytes, int64_t ops, int64_t batch)
{
    double bytes = (double)weight_bytes + (double)act_bytes * (double)batch;
    double work = (double)ops * (double)batch;
    if (bytes <= 0) {
        /* Nothing fetched: every operation is free of memory traffic. */
        return work > 0 ? DBL_MAX * 2 : 0;
    }
    return work / bytes;
}

/* The regime at every batch is read off one crossover batch: the smallest batch whose
 * intensity reaches the balance, found by bisection.  Intensity grows with the batch,
 * but its quotient wobbles by an ulp where it meets the balance, so testing each batch
 * on its own could call batch b compute-bound and b + 1 memory-bound; one crossover
 * cannot.  (The rearranged test b * (ops - balance * act) >= balance * weights is
 * monotone but cancels catastrophically.)  Fuzzing found both failures, and a hang in
 * a walk that stepped one batch at a time. */
static int64_t crossover(int64_t weight_bytes, int64_t act_bytes, int64_t ops, double balance,
                         double ceiling)
{
    int64_t lo = 0, hi = INT64_MAX;
    /* With weights to fetch, intensity stays strictly below the ceiling it approaches;
     * at astronomic batches the rounded quotient would touch it anyway. */
    if (weight_bytes > 0 && ceiling <= balance) {
        return -1;
    }
    if (intensity(weight_bytes, act_bytes, ops, hi) < balance) {
        return -1;
    }
    while (hi - lo > 1) { /* lo is memory-bound (or 0), hi compute-bound */
        int64_t mid = lo + (hi - lo) / 2;
        if (intensity(weight_bytes, act_bytes, ops, mid) >= balance) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return hi;
}

mc_status_t mc_roofline(int64_t weight_bytes, int64_t activation_bytes_per_example,
                        int64_t operations_per_example, double machine_ops_per_byte,
                        int64_t batch, mc_roofline_t *out)
{
    mc_roofline_t r;

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
    if (machine_ops_per_byte <= 0 || batch == 0) {
        return MC_E_RANGE;
    }
    r.intensity = intensity(weight_bytes, activation_bytes_per_example, operations_per_example, batch);
    r.ceiling = activation_bytes_per_example > 0
                    ? (double)operations_per_example / (double)activation_bytes_per_example
                    : (operations_per_example > 0 ? DBL_MAX * 2 : 0);
    r.crossover_batch = crossover(weight_bytes, activation_bytes_per_example, operations_per_example,
                                  machine_ops_per_byte, r.ceiling);
    r.bound = (r.crossover_batch >= 1 && batch >= r.crossover_batch) ? MC_BOUND_COMPUTE : MC_BOUND_MEMORY;
    *out = r;
    return MC_OK;
}
