/* The float functions: mc_latency, mc_roofline and mc_verdict, with NaN, infinities,
 * -0, denormals and DBL_MAX among the inputs.  A finite-input call either returns the
 * documented error or a result that adds up: total == fetch + compute + setup, the
 * regime agrees with the intensity, the crossover batch is the first compute-bound
 * one, and the verdict follows from its own numbers. */
#include "fuzz.h"

static void latency(fuzz_in_t *in)
{
    int64_t bytes = fuzz_i64(in), ops = fuzz_i64(in);
    double bw = fuzz_f64(in), rate = fuzz_f64(in), overhead = fuzz_f64(in);
    mc_latency_t r, u;
    mc_status_t rc, want = MC_OK;

    if (bytes < 0 || ops < 0) {
        want = MC_E_NEGATIVE;
    } else if (!fuzz_finite(bw) || !fuzz_finite(rate) || !fuzz_finite(overhead)) {
        want = MC_E_NOT_FINITE;
    } else if (bw <= 0.0 || rate <= 0.0) {
        want = MC_E_RANGE;
    } else if (overhead < 0.0) {
        want = MC_E_NEGATIVE;
    }
    memset(&r, 0x5a, sizeof r);
    u = r;
    rc = mc_latency(bytes, ops, bw, rate, overhead, &r);
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &u, sizeof r) == 0);
        return;
    }
    FUZZ_ASSERT(r.fetch_seconds >= 0.0 && r.compute_seconds >= 0.0 && r.setup_seconds == overhead);
    FUZZ_ASSERT(r.total_seconds == r.fetch_seconds + r.compute_seconds + r.setup_seconds);
    FUZZ_ASSERT(r.saving_seconds_if_compute_doubled == r.compute_seconds / 2.0);
    FUZZ_ASSERT(r.saving_seconds_if_bandwidth_doubled == r.fetch_seconds / 2.0);
    /* Tiny rates make parts infinite; fractions are then NaN, otherwise in [0, 1]. */
    if (fuzz_finite(r.total_seconds)) {
        FUZZ_ASSERT(r.saving_if_compute_doubled >= 0.0 && r.saving_if_compute_doubled <= 1.0);
        FUZZ_ASSERT(r.saving_if_bandwidth_doubled >= 0.0 && r.saving_if_bandwidth_doubled <= 1.0);
    }
    switch (r.dominant) {
    case MC_PART_FETCH:
        FUZZ_ASSERT(r.fetch_seconds >= r.compute_seconds && r.fetch_seconds >= r.setup_seconds);
        break;
    case MC_PART_COMPUTE:
        FUZZ_ASSERT(r.compute_seconds > r.fetch_seconds && r.compute_seconds >= r.setup_seconds);
        break;
    case MC_PART_SETUP:
        FUZZ_ASSERT(r.setup_seconds > r.fetch_seconds && r.setup_seconds > r.compute_seconds);
        break;
    default:
        FUZZ_ASSERT(0);
    }
}

static void roofline(fuzz_in_t *in)
{
    int64_t w = fuzz_i64(in), act = fuzz_i64(in), ops = fuzz_i64(in), batch = fuzz_i64(in);
    double balance = fuzz_f64(in);
    mc_roofline_t r, u, at;
    mc_status_t rc, want = MC_OK;

    if (w < 0 || act < 0 || ops < 0 || batch < 0) {
        want = MC_E_NEGATIVE;
    } else if (!fuzz_finite(balance)) {
        want = MC_E_NOT_FINITE;
    } else if (balance <= 0.0 || batch == 0) {
        want = MC_E_RANGE;
    }
    memset(&r, 0x5a, sizeof r);
    u = r;
    rc = mc_roofline(w, act, ops, balance, batch, &r);
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &u, sizeof r) == 0);
        return;
    }
    FUZZ_ASSERT(r.intensity >= 0.0 && r.ceiling >= 0.0);
    FUZZ_ASSERT(r.bound == (r.intensity < balance ? MC_BOUND_MEMORY : MC_BOUND_COMPUTE));
    FUZZ_ASSERT(r.crossover_batch == -1 || r.crossover_batch >= 1);
    if (r.crossover_batch >= 1) {
        FUZZ_ASSERT(mc_roofline(w, act, ops, balance, r.crossover_batch, &at) == MC_OK);
        FUZZ_ASSERT(at.bound == MC_BOUND_COMPUTE && at.crossover_batch == r.crossover_batch);
        if (r.crossover_batch > 1) {
            FUZZ_ASSERT(mc_roofline(w, act, ops, balance, r.crossover_batch - 1, &at) == MC_OK);
            FUZZ_ASSERT(at.bound == MC_BOUND_MEMORY);
        }
        FUZZ_ASSERT(r.bound == (batch >= r.crossover_batch ? MC_BOUND_COMPUTE : MC_BOUND_MEMORY) ||
                    r.bound == MC_BOUND_COMPUTE);
    }
}

static void verdict(fuzz_in_t *in)
{
    int64_t model = fuzz_i64(in);
    mc_device_t d;
    mc_verdict_t r, u;
    mc_status_t rc, want = MC_OK;

    d.memory_bytes = fuzz_i64(in);
    d.read_bytes_per_second = fuzz_f64(in);
    d.ops_per_second = fuzz_f64(in);
    d.overhead_seconds = fuzz_f64(in);
    d.latency_budget_seconds = fuzz_f64(in);
    if (model < 0 || d.memory_bytes < 0) {
        want = MC_E_NEGATIVE;
    } else if (!fuzz_finite(d.read_bytes_per_second) || !fuzz_finite(d.ops_per_second) ||
               !fuzz_finite(d.overhead_seconds) || !fuzz_finite(d.latency_budget_seconds)) {
        want = MC_E_NOT_FINITE;
    } else if (d.read_bytes_per_second <= 0.0 || d.ops_per_second <= 0.0 ||
               d.overhead_seconds < 0.0 || d.latency_budget_seconds < 0.0) {
        want = MC_E_RANGE;
    }
    memset(&r, 0x5a, sizeof r);
    u = r;
    rc = mc_verdict(model, &d, &r);
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &u, sizeof r) == 0);
        return;
    }
    FUZZ_ASSERT(r.read_seconds == (double)model / d.read_bytes_per_second);
    if (model > d.memory_bytes) {
        FUZZ_ASSERT(r.status == MC_VERDICT_WILL_NOT_FIT && r.times_too_big >= 1.0);
    } else {
        FUZZ_ASSERT(r.status == (r.read_seconds > d.latency_budget_seconds ? MC_VERDICT_TOO_SLOW
                                                                           : MC_VERDICT_RUNS));
        FUZZ_ASSERT(r.times_too_big <= 1.0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    switch (fuzz_u8(&in) % 3) {
    case 0:
        latency(&in);
        break;
    case 1:
        roofline(&in);
        break;
    default:
        verdict(&in);
        break;
    }
    return 0;
}
