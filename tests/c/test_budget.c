/* SPEC 1 (budget) and SPEC 2 (MLP training values): the worked numbers and overflow. */
#include <stdint.h>

#include "check.h"
#include "memcore.h"

static void spec_budget(void)
{
    mc_budget_t b;
    /* (10 params, 4 B, batch 2, 8 B/example, 12 B runtime) -> 68; batch 8 -> 116 */
    CHECK_EQ_I64(mc_budget(10, 32, 2, 8, 12, 100, &b), MC_OK);
    CHECK_EQ_I64(b.required_bytes, 68);
    CHECK_EQ_I64(b.headroom_bytes, 32);
    CHECK_EQ_I64(b.parameter_bytes, 40);
    CHECK_EQ_I64(b.activation_bytes, 16);
    CHECK_EQ_I64(b.runtime_bytes, 12);
    CHECK_EQ_I64(b.dominant, MC_TERM_PARAMETERS);
    CHECK(b.fits);
    /* floor((100 - 40 - 12) / 8) = 6 */
    CHECK_EQ_I64(b.max_batch, 6);
    CHECK_EQ_I64(mc_budget(10, 32, 8, 8, 12, 100, &b), MC_OK);
    CHECK_EQ_I64(b.required_bytes, 116);
    CHECK_EQ_I64(b.headroom_bytes, -16);
    CHECK(!b.fits);
    CHECK_EQ_I64(b.dominant, MC_TERM_ACTIVATIONS);
    /* Fixed part alone exceeds the limit. */
    CHECK_EQ_I64(mc_budget(10, 32, 0, 8, 12, 50, &b), MC_OK);
    CHECK_EQ_I64(b.max_batch, -1);
    CHECK(!b.fits_at_batch_zero);
    /* No activations: any batch fits. */
    CHECK_EQ_I64(mc_budget(10, 32, 5, 0, 12, 60, &b), MC_OK);
    CHECK_EQ_I64(b.max_batch, MC_UNBOUNDED);
    /* int4 rounds up per tensor: 3 parameters at 4 bits = 2 bytes. */
    CHECK_EQ_I64(mc_budget(3, 4, 0, 0, 0, 0, &b), MC_OK);
    CHECK_EQ_I64(b.parameter_bytes, 2);
    /* 7 B parameters at float32 is 28 GB: past 32 bits, exact here. */
    CHECK_EQ_I64(mc_budget(7000000000LL, 32, 1, 0, 0, 0, &b), MC_OK);
    CHECK_EQ_I64(b.parameter_bytes, 28000000000LL);
    /* 2^62 parameters at 4 bytes overflows 64 bits. */
    CHECK_EQ_I64(mc_budget(INT64_C(1) << 62, 32, 1, 0, 0, 0, &b), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(1, 32, INT64_MAX, 2, 0, 0, &b), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_budget(-1, 32, 1, 0, 0, 0, &b), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_budget(1, 0, 1, 0, 0, 0, &b), MC_E_RANGE);
    CHECK_EQ_I64(mc_budget(1, 65, 1, 0, 0, 0, &b), MC_E_RANGE);
    CHECK_EQ_I64(mc_budget(1, 32, 1, 0, 0, 0, NULL), MC_E_NULL);
}

static void spec_training(void)
{
    mc_mlp_training_t t;
    int64_t batch = 0;
    /* g=8, h=8, L=1, batch 30 -> 81 + 81 + 1,020 = 1,182; share 0.8629 */
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, 30, 0, 32, &t), MC_OK);
    CHECK_EQ_I64(t.parameters, 81);
    CHECK_EQ_I64(t.gradients, 81);
    CHECK_EQ_I64(t.optimizer_state, 0);
    CHECK_EQ_I64(t.activations, 1020);
    CHECK_EQ_I64(t.total, 1182);
    CHECK_EQ_I64(t.total_bytes, 4728);
    CHECK_NEAR(t.activation_share, 0.8629, 0.00005);
    /* With momentum: 1,263 */
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, 30, 1, 32, &t), MC_OK);
    CHECK_EQ_I64(t.total, 1263);
    /* Inverse: floor((1182 - 162) / 34) = 30 exactly at the worked total. */
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 1182, 0, 0, &batch), MC_OK);
    CHECK_EQ_I64(batch, 30);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 1181, 0, 0, &batch), MC_OK);
    CHECK_EQ_I64(batch, 29);
    /* In bytes at float32: 4728 bytes hold 1182 values. */
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 4728, 0, 32, &batch), MC_OK);
    CHECK_EQ_I64(batch, 30);
    CHECK_EQ_I64(mc_mlp_max_batch(8, 8, 1, 100, 0, 0, &batch), MC_OK);
    CHECK_EQ_I64(batch, -1);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 0, 30, 0, 32, &t), MC_E_RANGE);
    CHECK_EQ_I64(mc_mlp_training(8, 8, 1, -1, 0, 32, &t), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_mlp_training(INT64_C(1) << 40, INT64_C(1) << 40, 1, 1, 0, 32, &t), MC_E_OVERFLOW);
}

int main(void)
{
    spec_budget();
    spec_training();
    return check_report("test_budget");
}
