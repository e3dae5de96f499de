/* mc_mlp_training and mc_mlp_max_batch: results against a 128-bit reference of
 * SPEC 2's formulas; max_batch fits its budget and max_batch + 1 does not. */
#include "fuzz.h"

/* parameters and values per example, or -1 when the 64-bit core must overflow */
static int shape(int64_t g, int64_t h, int64_t l, i128 *params, i128 *per)
{
    *params = (i128)g * h + h + (i128)(l - 1) * ((i128)h * h + h) + h + 1;
    *per = 2 * ((i128)g + (i128)l * h + 1);
    return 0;
}

static mc_status_t expected(int64_t g, int64_t h, int64_t l, int64_t batch, int64_t state,
                            int64_t bits, i128 *total)
{
    i128 params, per, limit = INT64_MAX;
    if (batch < 0 || state < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits == 0 || bits > 64) {
        return MC_E_RANGE;
    }
    if (g < 0 || h < 0 || l < 0) {
        return MC_E_NEGATIVE;
    }
    if (g == 0 || h == 0 || l == 0) {
        return MC_E_RANGE;
    }
    /* 64-bit sizes in the core: any intermediate past INT64_MAX is an overflow; the
     * core checks each product, so compare the intermediates it forms. */
    if ((i128)g * h > limit || (i128)h * h > limit || (i128)h * h + h > limit ||
        (i128)(l - 1) * ((i128)h * h + h) > limit || (i128)l * h > limit) {
        return MC_E_OVERFLOW;
    }
    shape(g, h, l, &params, &per);
    if (params > limit || per > limit || params * state > limit || 2 * params > limit ||
        2 * params + params * state > limit || (i128)batch * per > limit) {
        return MC_E_OVERFLOW;
    }
    *total = 2 * params + params * state + (i128)batch * per;
    if (*total > limit || fuzz_bytes(*total, bits) > limit) {
        return MC_E_OVERFLOW;
    }
    return MC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    int64_t g = fuzz_i64(&in), h = fuzz_i64(&in), l = fuzz_i64(&in), batch = fuzz_i64(&in);
    int64_t state = fuzz_i64(&in), bits = fuzz_i64(&in), budget = fuzz_i64(&in);
    int64_t budget_bits = (fuzz_u8(&in) & 1) ? 0 : bits, max_batch = -7;
    mc_mlp_training_t r, untouched;
    mc_status_t rc, want;
    i128 total = 0, params, per;

    memset(&r, 0x5a, sizeof r);
    untouched = r;
    want = expected(g, h, l, batch, state, bits, &total);
    rc = mc_mlp_training(g, h, l, batch, state, bits, &r);
    /* The core may meet an overflow before an argument error is noticed only if the
     * order of checks differs; the contract is exact, so insist on it. */
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &untouched, sizeof r) == 0);
    } else {
        shape(g, h, l, &params, &per);
        FUZZ_ASSERT(r.parameters == params && r.gradients == params);
        FUZZ_ASSERT(r.optimizer_state == params * state);
        FUZZ_ASSERT(r.activations == (i128)batch * per);
        FUZZ_ASSERT(r.total == total);
        FUZZ_ASSERT(r.total == (i128)r.parameters + r.gradients + r.optimizer_state + r.activations);
        FUZZ_ASSERT(r.total_bytes == fuzz_bytes(total, bits));
        FUZZ_ASSERT(r.activation_share >= 0.0 && r.activation_share <= 1.0);
    }

    rc = mc_mlp_max_batch(g, h, l, budget, state, budget_bits, &max_batch);
    if (rc != MC_OK) {
        FUZZ_ASSERT(max_batch == -7);
        FUZZ_ASSERT(rc == MC_E_NEGATIVE || rc == MC_E_RANGE || rc == MC_E_OVERFLOW);
        return 0;
    }
    FUZZ_ASSERT(budget >= 0 && state >= 0 && g > 0 && h > 0 && l > 0);
    {
        int64_t width = budget_bits ? budget_bits : 1; /* a budget in values: any width */
        mc_mlp_training_t at, above;
        if (max_batch < 0) {
            FUZZ_ASSERT(max_batch == -1);
            rc = mc_mlp_training(g, h, l, 0, state, width, &at);
            FUZZ_ASSERT(rc == MC_E_OVERFLOW ||
                        (rc == MC_OK && (budget_bits ? at.total_bytes > budget : at.total > budget)));
            return 0;
        }
        rc = mc_mlp_training(g, h, l, max_batch, state, width, &at);
        FUZZ_ASSERT(rc == MC_OK);
        FUZZ_ASSERT(budget_bits ? at.total_bytes <= budget : at.total <= budget);
        if (max_batch < INT64_MAX) {
            rc = mc_mlp_training(g, h, l, max_batch + 1, state, width, &above);
            FUZZ_ASSERT(rc == MC_E_OVERFLOW ||
                        (rc == MC_OK && (budget_bits ? above.total_bytes > budget : above.total > budget)));
        }
    }
    return 0;
}
