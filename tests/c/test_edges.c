/* Edges: sizes near 2^63, zero sizes, one and 10,000-buffer plans, NaN and infinity in
 * every float input, negative and huge batches.  Exact statuses, and outputs left
 * untouched on error.  Also the regressions fuzz/ found. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "memcore.h"

#define BIG 10000

static int64_t sizes[BIG], offsets[BIG];
static int32_t first_use[BIG], last_use[BIG];
static uint64_t scratch[(BIG * 64 + 4096) / 8];

static double nonfinite[3];

#define UNTOUCHED(var) (memcmp(&(var), &poison_##var, sizeof(var)) == 0)
#define POISON(type, var) \
    type var, poison_##var; \
    memset(&var, 0x5a, sizeof var); \
    poison_##var = var

static void budget_edges(void)
{
    POISON(mc_budget_t, r);
    /* 2^62 parameters at 4 bytes (2^64) and at 16 bits (2^63): both past int64 */
    CHECK_EQ_I64(mc_budget((int64_t)1 << 62, 32, 0, 0, 0, 0, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget((int64_t)1 << 62, 16, 0, 0, 0, 0, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(INT64_MAX, 64, 0, 0, 0, 0, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(0, 8, INT64_MAX, 2, 0, INT64_MAX, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(0, 8, 1, INT64_MAX, 1, INT64_MAX, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(0, 8, -1, 0, 0, 0, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_budget(0, 8, INT64_MIN, 0, 0, 0, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_budget(0, 0, 0, 0, 0, 0, &r), MC_E_RANGE);
    CHECK_EQ_I64(mc_budget(0, 65, 0, 0, 0, 0, &r), MC_E_RANGE);
    CHECK_EQ_I64(mc_budget(0, -4, 0, 0, 0, 0, &r), MC_E_NEGATIVE);
    CHECK(UNTOUCHED(r));
    /* exactly INT64_MAX is fine: 2^63 - 1 int8 parameters */
    CHECK_EQ_I64(mc_budget(INT64_MAX, 8, 0, 0, 0, INT64_MAX, &r), MC_OK);
    CHECK_EQ_I64(r.required_bytes, INT64_MAX);
    CHECK_EQ_I64(r.headroom_bytes, 0);
    CHECK_EQ_I64(r.max_batch, MC_UNBOUNDED);
    /* 2^63 - 1 int4 parameters round up, no overflow */
    CHECK_EQ_I64(mc_budget(INT64_MAX, 4, 0, 0, 0, INT64_MAX, &r), MC_OK);
    CHECK_EQ_I64(r.parameter_bytes, (int64_t)1 << 62);
    /* nothing at all, and a huge batch of zero-byte examples */
    CHECK_EQ_I64(mc_budget(0, 8, INT64_MAX, 0, 0, 0, &r), MC_OK);
    CHECK_EQ_I64(r.required_bytes, 0);
    CHECK(r.fits);
    /* a huge limit: the largest batch is limit / per example */
    CHECK_EQ_I64(mc_budget(0, 8, 0, 1, 0, INT64_MAX, &r), MC_OK);
    CHECK_EQ_I64(r.max_batch, INT64_MAX);
    CHECK_EQ_I64(mc_budget(0, 8, 0, 3, 1, INT64_MAX, &r), MC_OK);
    CHECK_EQ_I64(r.max_batch, (INT64_MAX - 1) / 3);
}

static void training_edges(void)
{
    POISON(mc_mlp_training_t, r);
    int64_t mb = -7;
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, -1, 0, 32, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, INT64_MIN, 0, 32, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, INT64_MAX, 0, 32, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, INT64_MAX / 20, 0, 32, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_mlp_training(3037000500, 3037000500, 1, 0, 0, 8, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_mlp_training(1, 3037000500, 2, 0, 0, 8, &r), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_mlp_training(0, 8, 1, 0, 0, 8, &r), MC_E_RANGE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, -1, 0, 0, 8, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, 0, -1, 8, &r), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, 0, INT64_MAX, 8, &r), MC_E_OVERFLOW);
    CHECK(UNTOUCHED(r));
    /* batch 0: parameters and gradients only */
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, 0, 0, 32, &r), MC_OK);
    CHECK_EQ_I64(r.total, 162);
    CHECK_NEAR(r.activation_share, 0.0, 0.0);

    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, -1, 0, 0, &mb), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 100, 0, 65, &mb), MC_E_RANGE);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 100, 0, -1, &mb), MC_E_NEGATIVE);
    CHECK_EQ_I64(mb, -7);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 161, 0, 0, &mb), MC_OK);
    CHECK_EQ_I64(mb, -1);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, INT64_MAX, 0, 0, &mb), MC_OK);
    CHECK_EQ_I64(mb, (INT64_MAX - 162) / 34);
    /* a byte budget at 1 bit per value: 8 values per byte, and the 8x is overflow-checked */
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, INT64_MAX, 0, 1, &mb), MC_E_OVERFLOW);
}

static void float_edges(void)
{
    POISON(mc_latency_t, lat);
    POISON(mc_roofline_t, roof);
    POISON(mc_verdict_t, ver);
    mc_device_t ok = {1000, 1e9, 1e9, 0.001, 0.01};
    int i, field;
    for (i = 0; i < 3; i++) {
        double x = nonfinite[i];
        CHECK_EQ_I64(mc_latency(1, 1, x, 1.0, 0.0, &lat), MC_E_NOT_FINITE);
        CHECK_EQ_I64(mc_latency(1, 1, 1.0, x, 0.0, &lat), MC_E_NOT_FINITE);
        CHECK_EQ_I64(mc_latency(1, 1, 1.0, 1.0, x, &lat), MC_E_NOT_FINITE);
        CHECK_EQ_I64(mc_roofline(1, 1, 1, x, 1, &roof), MC_E_NOT_FINITE);
        for (field = 0; field < 4; field++) {
            mc_device_t d = ok;
            double *f[4] = {&d.read_bytes_per_second, &d.ops_per_second, &d.overhead_seconds,
                            &d.latency_budget_seconds};
            *f[field] = x;
            CHECK_EQ_I64(mc_verdict(10, &d, &ver), MC_E_NOT_FINITE);
        }
    }
    /* negative sizes win over non-finite floats, as documented order */
    CHECK_EQ_I64(mc_latency(-1, 1, nonfinite[0], 1.0, 0.0, &lat), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_latency(1, 1, 0.0, 1.0, 0.0, &lat), MC_E_RANGE);
    CHECK_EQ_I64(mc_latency(1, 1, -0.0, 1.0, 0.0, &lat), MC_E_RANGE);
    CHECK_EQ_I64(mc_latency(1, 1, 1.0, 1.0, -1e-300, &lat), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 0.0, 1, &roof), MC_E_RANGE);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 1.0, 0, &roof), MC_E_RANGE);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 1.0, -1, &roof), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_roofline(1, 1, 1, 1.0, INT64_MIN, &roof), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_verdict(-1, &ok, &ver), MC_E_NEGATIVE);
    CHECK(UNTOUCHED(lat) && UNTOUCHED(roof) && UNTOUCHED(ver));

    /* huge but valid: INT64_MAX bytes over a denormal bandwidth is an infinite time,
     * reported, not an error */
    CHECK_EQ_I64(mc_latency(INT64_MAX, INT64_MAX, 4.9406564584124654e-324, 1.0, 0.0, &lat), MC_OK);
    CHECK(lat.total_seconds > 1e300);
    CHECK_EQ_I64(mc_roofline(INT64_MAX, INT64_MAX, INT64_MAX, 1.0, INT64_MAX, &roof), MC_OK);
    /* ops == balance * act per example and weights on top: never compute-bound */
    CHECK_EQ_I64(roof.crossover_batch, -1);

    /* Regression (fuzz/corpus/rates/regression-roofline-hang): the headroom is a
     * rounding residue, the guess lands at ~8.5e15 and the old one-batch-at-a-time
     * walk never finished.  The answer is the first compute-bound batch. */
    CHECK_EQ_I64(mc_roofline((int64_t)1 << 62, 2170205185142300190, 2170205185142358015, 1.0,
                             8477364004519935, &roof), MC_OK);
    CHECK(roof.crossover_batch >= 1);
    {
        mc_roofline_t at;
        int64_t c = roof.crossover_batch;
        CHECK_EQ_I64(mc_roofline((int64_t)1 << 62, 2170205185142300190, 2170205185142358015, 1.0,
                                 c, &at), MC_OK);
        CHECK_EQ_I64(at.bound, MC_BOUND_COMPUTE);
        if (c > 1) {
            CHECK_EQ_I64(mc_roofline((int64_t)1 << 62, 2170205185142300190, 2170205185142358015,
                                     1.0, c - 1, &at), MC_OK);
            CHECK_EQ_I64(at.bound, MC_BOUND_MEMORY);
        }
    }
}

static void layer_edges(void)
{
    mc_layer_t l;
    mc_network_report_t n;
    POISON(mc_layer_report_t, r);
    memset(&l, 0, sizeof l);
    /* Regression (fuzz/corpus/layers/regression-conv-negative-kernel): two negative
     * kernel sides multiplied to a signed overflow before being rejected. */
    l.kind = MC_LAYER_CONV2D;
    l.in_h = l.in_w = l.in_c = l.out_h = l.out_w = l.out_c = 1;
    l.kernel_h = INT64_MAX - 1;
    l.kernel_w = -8;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_NEGATIVE);
    l.kind = MC_LAYER_DEPTHWISE_CONV2D;
    l.kernel_h = -1;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_NEGATIVE);
    l.kernel_h = 3;
    l.kernel_w = 0;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_RANGE);
    /* elements past 2^63 */
    l.kind = MC_LAYER_DENSE;
    l.in_h = l.in_w = l.in_c = 3037000500;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_OVERFLOW);
    l.in_h = -1;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_NEGATIVE);
    CHECK(UNTOUCHED(r));
    /* zero-sized tensors are fine */
    l.in_h = l.in_w = l.in_c = 0;
    l.out_h = l.out_w = l.out_c = 0;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 0);
    {
        POISON(mc_network_report_t, u);
        CHECK_EQ_I64(mc_network_report(&l, 1, -1, MC_MODE_INFERENCE, 8, &u), MC_E_NEGATIVE);
        CHECK_EQ_I64(mc_network_report(&l, 0, 1, MC_MODE_INFERENCE, 8, &u), MC_E_RANGE);
        CHECK_EQ_I64(mc_network_report(&l, -1, 1, MC_MODE_INFERENCE, 8, &u), MC_E_NEGATIVE);
        CHECK_EQ_I64(mc_network_report(&l, 1, 1, (mc_mode_t)2, 8, &u), MC_E_RANGE);
        CHECK_EQ_I64(mc_network_report(&l, 1, 1, MC_MODE_INFERENCE, 0, &u), MC_E_RANGE);
        l.out_c = 2;
        l.in_c = 1;
        l.in_h = l.in_w = l.out_h = l.out_w = 1;
        CHECK_EQ_I64(mc_network_report(&l, 1, INT64_MAX, MC_MODE_TRAINING, 8, &u), MC_E_OVERFLOW);
        CHECK(UNTOUCHED(u));
        CHECK_EQ_I64(mc_network_report(&l, 1, INT64_MAX / 4, MC_MODE_INFERENCE, 8, &n), MC_OK);
        CHECK_EQ_I64(n.activations, INT64_MAX / 4 * 2);
    }
}

static void plan_edges(void)
{
    mc_plan_t p;
    int64_t need = 0, one = 0, two = 0, i;
    POISON(mc_plan_t, u);
    CHECK_EQ_I64(mc_plan_scratch_bytes(-1, &need), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_plan_scratch_bytes((int64_t)INT32_MAX + 1, &need), MC_E_LIMIT);
    CHECK_EQ_I64(mc_plan_scratch_bytes(MC_PLAN_MAX_BUFFERS + 1, &need), MC_E_LIMIT);
    CHECK_EQ_I64(mc_plan_scratch_bytes(MC_PLAN_MAX_BUFFERS, &need), MC_OK);
    CHECK(need > (int64_t)MC_PLAN_MAX_BUFFERS * 56 && need < (int64_t)MC_PLAN_MAX_BUFFERS * 64 + 4096);
    CHECK_EQ_I64(mc_plan_scratch_bytes(1, &one), MC_OK);
    CHECK_EQ_I64(mc_plan_scratch_bytes(2, &two), MC_OK);

    /* zero buffers, and one buffer */
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, NULL, NULL, NULL, 0, 16, 0, NULL, 0, NULL, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    sizes[0] = 1;
    first_use[0] = last_use[0] = 0;
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 1, 16, 0, scratch, one, offsets, &p),
                 MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 16);
    CHECK_EQ_I64(p.lower_bound_bytes, 16);
    CHECK_EQ_I64(offsets[0], 0);
    /* one zero-sized buffer takes no space */
    sizes[0] = 0;
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 1, 16, 0, scratch, one, offsets, &p),
                 MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    /* near 2^63: one buffer of INT64_MAX rounds past it at 16 but fits at 1 */
    sizes[0] = INT64_MAX;
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 1, 16, 0, scratch, one, offsets, &u),
                 MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 1, 1, MC_PLAN_DEFAULT_STEPS, scratch, one,
                         offsets, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, INT64_MAX);
    /* two that sum past it, even with disjoint lifetimes */
    sizes[0] = sizes[1] = (int64_t)1 << 62;
    first_use[1] = last_use[1] = 5;
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 1, 0, scratch, two, offsets, &u),
                 MC_E_OVERFLOW);
    sizes[1] = -1;
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 1, 0, scratch, two, offsets, &u),
                 MC_E_NEGATIVE);
    sizes[1] = 1;
    first_use[1] = 6;
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 1, 0, scratch, two, offsets, &u),
                 MC_E_LIFETIME);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, -16, 0, scratch, two, offsets, &u),
                 MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 0, 0, scratch, two, offsets, &u),
                 MC_E_RANGE);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 2, 16, INT64_MIN, scratch, two, offsets,
                         &u), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 2, 16, INT64_MAX, scratch, two, offsets,
                         &u), MC_E_LIMIT);
    CHECK_EQ_I64(mc_plan((mc_strategy_t)2, sizes, first_use, last_use, 2, 16, 0, scratch, two, offsets, &u),
                 MC_E_RANGE);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 16, 0, scratch, two - 1, offsets, &u),
                 MC_E_SCRATCH);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 2, 16, 0,
                         (char *)scratch + 4, two, offsets, &u), MC_E_SCRATCH);
    CHECK(UNTOUCHED(u));

    /* 10,000 buffers: a chain, each live with the next only; the arena is the two
     * largest neighbours and BEST reaches the lower bound */
    for (i = 0; i < BIG; i++) {
        sizes[i] = 16 * (1 + i % 7);
        first_use[i] = (int32_t)i;
        last_use[i] = (int32_t)i + 1;
    }
    CHECK_EQ_I64(mc_plan_scratch_bytes(BIG, &need), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, BIG, 16, MC_PLAN_DEFAULT_STEPS, scratch,
                         need, offsets, &p), MC_OK);
    CHECK_EQ_I64(p.lower_bound_bytes, 16 * (7 + 6));
    CHECK_EQ_I64(p.arena_bytes, p.lower_bound_bytes);
    for (i = 0; i + 1 < BIG; i++) {
        CHECK(offsets[i] + sizes[i] <= offsets[i + 1] || offsets[i + 1] + sizes[i + 1] <= offsets[i]);
    }
}

int main(void)
{
    nonfinite[0] = (double)NAN;
    nonfinite[1] = (double)INFINITY;
    nonfinite[2] = -(double)INFINITY;
    budget_edges();
    training_edges();
    float_edges();
    layer_edges();
    plan_edges();
    return check_report("test_edges");
}
