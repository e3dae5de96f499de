/* SPEC 4 (verdicts), 5 (latency) and 6 (roofline): the worked numbers. */
#include <float.h>
#include <stdint.h>

#include "check.h"
#include "memcore.h"

static void spec_latency(void)
{
    mc_latency_t l;
    /* 40 MB at 100 MB/s, 2 G ops at 12 G/s, 5 ms setup: 400 + 167 + 5 = 572 ms */
    CHECK_EQ_I64(mc_latency(40000000, 2000000000, 100e6, 12e9, 0.005, &l), MC_OK);
    CHECK_NEAR(l.fetch_seconds, 0.4, 1e-12);
    CHECK_NEAR(l.compute_seconds, 2.0 / 12.0, 1e-12);
    CHECK_NEAR(l.setup_seconds, 0.005, 1e-15);
    CHECK_NEAR(l.total_seconds, 0.5716667, 1e-6);
    CHECK_EQ_I64(l.dominant, MC_PART_FETCH);
    CHECK_NEAR(l.saving_seconds_if_compute_doubled, 0.0833, 0.0001);
    CHECK_NEAR(l.saving_if_compute_doubled, 0.15, 0.005);
    CHECK_NEAR(l.saving_seconds_if_bandwidth_doubled, 0.2, 1e-12);
    CHECK_NEAR(l.saving_if_bandwidth_doubled, 0.35, 0.005);
    CHECK_EQ_I64(mc_latency(1, 1, 0.0, 1.0, 0.0, &l), MC_E_RANGE);
    CHECK_EQ_I64(mc_latency(1, 1, 1.0, -1.0, 0.0, &l), MC_E_RANGE);
    CHECK_EQ_I64(mc_latency(1, 1, 1.0, 1.0, DBL_MAX * 2.0, &l), MC_E_NOT_FINITE);
    CHECK_EQ_I64(mc_latency(-1, 1, 1.0, 1.0, 0.0, &l), MC_E_NEGATIVE);
}

static void spec_roofline(void)
{
    mc_roofline_t r;
    /* ResNet-50 at batch 1: 97.5 MB weights, 20 MB/image, 7.7 G ops -> about 66 ops/B,
     * memory-bound on an accelerator needing 153 ops/B; ceiling 385 ops/B. */
    CHECK_EQ_I64(mc_roofline(97500000, 20000000, 7700000000LL, 153.0, 1, &r), MC_OK);
    CHECK_NEAR(r.intensity, 65.53, 0.01);
    CHECK_EQ_I64(r.bound, MC_BOUND_MEMORY);
    CHECK_NEAR(r.ceiling, 385.0, 1e-9);
    /* b*7.7e9 >= 153*(97.5e6 + 20e6 b) <=> b >= 14917.5e6 / 4640e6 = 3.215 -> 4 */
    CHECK_EQ_I64(r.crossover_batch, 4);
    CHECK_EQ_I64(mc_roofline(97500000, 20000000, 7700000000LL, 153.0, 4, &r), MC_OK);
    CHECK_EQ_I64(r.bound, MC_BOUND_COMPUTE);
    CHECK_EQ_I64(mc_roofline(97500000, 20000000, 7700000000LL, 153.0, 3, &r), MC_OK);
    CHECK_EQ_I64(r.bound, MC_BOUND_MEMORY);
    /* A machine needing more than the ceiling is never compute-bound. */
    CHECK_EQ_I64(mc_roofline(97500000, 20000000, 7700000000LL, 400.0, 1, &r), MC_OK);
    CHECK_EQ_I64(r.crossover_batch, -1);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 1.0, 0, &r), MC_E_RANGE);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 0.0, 1, &r), MC_E_RANGE);
}

static void spec_verdict(void)
{
    /* ESP32 row of SPEC 4: 0.5 MB, 0.2 GB/s (GB = 1,024 MB of 10^6 bytes), 10 ms. */
    const mc_device_t esp32 = {500000, 0.2 * 1024e6, 1e9, 0.0, 0.010};
    const mc_device_t phone = {1500000000LL, 50 * 1024e6, 1e12, 0.0, 0.050};
    mc_verdict_t v;
    /* MobileNet, 3.5 M numbers at 4 bytes: about 28 times too big. */
    CHECK_EQ_I64(mc_verdict(14000000, &esp32, &v), MC_OK);
    CHECK_EQ_I64(v.status, MC_VERDICT_WILL_NOT_FIT);
    CHECK_NEAR(v.times_too_big, 28.0, 1e-12);
    /* Wake-word spotter, 0.05 M numbers at 4 bytes: fits and reads in 0.98 ms. */
    CHECK_EQ_I64(mc_verdict(200000, &esp32, &v), MC_OK);
    CHECK_EQ_I64(v.status, MC_VERDICT_RUNS);
    CHECK_NEAR(v.read_seconds, 0.2 / 1024 / 0.2, 1e-12);
    /* BERT large at 4 bytes (1,400 MB) fits a phone and reads in 27.3 ms. */
    CHECK_EQ_I64(mc_verdict(1400000000LL, &phone, &v), MC_OK);
    CHECK_EQ_I64(v.status, MC_VERDICT_RUNS);
    /* A device too slow to read 1,400 MB within 10 ms. */
    {
        const mc_device_t slow = {1500000000LL, 50 * 1024e6, 1e12, 0.0, 0.010};
        CHECK_EQ_I64(mc_verdict(1400000000LL, &slow, &v), MC_OK);
        CHECK_EQ_I64(v.status, MC_VERDICT_TOO_SLOW);
    }
    CHECK_EQ_I64(mc_verdict(-1, &esp32, &v), MC_E_NEGATIVE);
}

int main(void)
{
    spec_latency();
    spec_roofline();
    spec_verdict();
    return check_report("test_latency");
}
