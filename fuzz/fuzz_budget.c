/* mc_budget: random int64 arguments.  OK results must match a 128-bit reference
 * (required == sum of terms, headroom == limit - required) and max_batch must fit
 * while max_batch + 1 does not; errors must be the ones the inputs call for. */
#include "fuzz.h"

static mc_status_t expected(int64_t params, int64_t bits, int64_t batch, int64_t act,
                            int64_t runtime, int64_t limit)
{
    if (params < 0 || batch < 0 || act < 0 || runtime < 0 || limit < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits == 0 || bits > 64) {
        return MC_E_RANGE;
    }
    if (fuzz_bytes(params, bits) + (i128)batch * act + runtime > INT64_MAX) {
        return MC_E_OVERFLOW;
    }
    return MC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    int64_t params = fuzz_i64(&in), bits = fuzz_i64(&in), batch = fuzz_i64(&in);
    int64_t act = fuzz_i64(&in), runtime = fuzz_i64(&in), limit = fuzz_i64(&in);
    mc_budget_t r, untouched;
    mc_status_t rc, want = expected(params, bits, batch, act, runtime, limit);
    i128 pb, ab;

    memset(&r, 0x5a, sizeof r);
    untouched = r;
    rc = mc_budget(params, bits, batch, act, runtime, limit, &r);
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &untouched, sizeof r) == 0);
        return 0;
    }
    pb = fuzz_bytes(params, bits);
    ab = (i128)batch * act;
    FUZZ_ASSERT(r.parameter_bytes == pb && r.activation_bytes == ab);
    FUZZ_ASSERT(r.runtime_bytes == runtime);
    FUZZ_ASSERT(r.required_bytes == pb + ab + runtime);
    FUZZ_ASSERT(r.headroom_bytes == (i128)limit - r.required_bytes);
    FUZZ_ASSERT(r.fits == (r.headroom_bytes >= 0));
    FUZZ_ASSERT(r.fits_at_batch_zero == (pb + runtime <= limit));
    switch (r.dominant) {
    case MC_TERM_PARAMETERS:
        FUZZ_ASSERT(pb >= ab && pb >= runtime);
        break;
    case MC_TERM_ACTIVATIONS:
        FUZZ_ASSERT(ab > pb && ab >= runtime);
        break;
    case MC_TERM_RUNTIME:
        FUZZ_ASSERT(runtime > pb && runtime > ab);
        break;
    default:
        FUZZ_ASSERT(0);
    }
    if (!r.fits_at_batch_zero) {
        FUZZ_ASSERT(r.max_batch == -1);
    } else if (act == 0) {
        FUZZ_ASSERT(r.max_batch == MC_UNBOUNDED);
    } else {
        mc_budget_t at, above;
        FUZZ_ASSERT(r.max_batch >= 0);
        FUZZ_ASSERT(mc_budget(params, bits, r.max_batch, act, runtime, limit, &at) == MC_OK);
        FUZZ_ASSERT(at.fits && at.max_batch == r.max_batch);
        if (r.max_batch < INT64_MAX) {
            rc = mc_budget(params, bits, r.max_batch + 1, act, runtime, limit, &above);
            FUZZ_ASSERT(rc == MC_E_OVERFLOW || (rc == MC_OK && !above.fits));
        }
        FUZZ_ASSERT(r.fits == (batch <= r.max_batch));
    }
    return 0;
}
