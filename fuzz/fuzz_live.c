/* mc_live_bytes: random sizes, lifetimes, alignment and step counts.  Each step's bytes
 * and buffer count must be the brute-force sum (in 128 bits) over the buffers alive
 * there, the peak the first largest step, and equal to mc_plan's lower bound when the
 * steps cover every lifetime.  Errors must be exactly the ones the inputs call for,
 * with every output untouched. */
#include "fuzz.h"

#define MAX_N 512
#define MAX_STEPS 80

static int64_t sizes[MAX_N], offsets[MAX_N], live_bytes[MAX_STEPS], live_buffers[MAX_STEPS];
static int32_t first_use[MAX_N], last_use[MAX_N];
static uint64_t scratch[(MAX_N * 64 + 4096) / 8]; /* mc_plan_scratch_bytes(MAX_N) and more */

static i128 align_up(int64_t s, int64_t a)
{
    return ((i128)s + a - 1) / a * a;
}

static mc_status_t expected(int64_t n, int64_t alignment, int64_t steps)
{
    int64_t i;
    i128 total = 0;
    if (steps < 0 || alignment < 0) {
        return MC_E_NEGATIVE;
    }
    if (alignment == 0) {
        return MC_E_RANGE;
    }
    for (i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            return MC_E_NEGATIVE;
        }
        if (first_use[i] < 0 || last_use[i] < first_use[i]) {
            return MC_E_LIFETIME;
        }
        if (last_use[i] >= steps) {
            return MC_E_RANGE;
        }
        total += align_up(sizes[i], alignment);
        if (total > INT64_MAX) {
            return MC_E_OVERFLOW;
        }
    }
    return MC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    uint8_t mode = fuzz_u8(&in);
    /* n's two bytes in separate declarators: as operands of one | the two reads would be
     * unsequenced, and gcc and clang (libFuzzer) would decode the same input differently. */
    uint8_t n_low = fuzz_u8(&in), n_high = fuzz_u8(&in);
    int64_t n = n_low | ((int64_t)(n_high & 1) << 8);
    uint8_t span = (uint8_t)(fuzz_u8(&in) % 40 + 1);
    int64_t steps = (mode & 2) ? (int64_t)(fuzz_u8(&in) % (MAX_STEPS + 1)) - (mode & 4 ? 1 : 0)
                               : 2 * (int64_t)span;
    int64_t alignment, i, k, need = -1, max_last = -1;
    mc_live_t live = {-7, -7, -7};
    mc_status_t want, rc;

    alignment = (mode & 1) ? fuzz_i64(&in) : (int64_t)1 << (fuzz_u8(&in) % 7);
    for (i = 0; i < n; i++) {
        uint8_t kind = fuzz_u8(&in);
        sizes[i] = (kind & 3) == 0 ? fuzz_i64(&in) : (int64_t)fuzz_raw(&in, 2);
        first_use[i] = (int32_t)(fuzz_u8(&in) % span);
        last_use[i] = first_use[i] + (int32_t)(fuzz_u8(&in) % span);
        if ((kind & 0xf0) == 0xf0) { /* rare: a broken lifetime */
            first_use[i] = (kind & 8) ? -1 : last_use[i] + 1;
        }
        if (last_use[i] > max_last) {
            max_last = last_use[i];
        }
    }
    for (k = 0; k < MAX_STEPS; k++) {
        live_bytes[k] = -7;
        live_buffers[k] = -7;
    }
    want = expected(n, alignment, steps);
    rc = mc_live_bytes(sizes, first_use, last_use, n, alignment, steps, live_bytes, live_buffers, &live);
    FUZZ_ASSERT(rc == want);
    if (rc != MC_OK) {
        FUZZ_ASSERT(live.peak_step == -7 && live.peak_bytes == -7 && live.peak_buffers == -7);
        for (k = 0; k < MAX_STEPS; k++) {
            FUZZ_ASSERT(live_bytes[k] == -7 && live_buffers[k] == -7);
        }
        return 0;
    }
    {
        i128 peak = 0;
        int64_t peak_step = steps > 0 ? 0 : -1, peak_buffers = 0;
        for (k = 0; k < steps; k++) {
            i128 b = 0;
            int64_t count = 0;
            for (i = 0; i < n; i++) {
                if (first_use[i] <= k && k <= last_use[i] && align_up(sizes[i], alignment) > 0) {
                    b += align_up(sizes[i], alignment);
                    count++;
                }
            }
            FUZZ_ASSERT(live_bytes[k] == b && live_buffers[k] == count);
            if (b > peak) {
                peak = b;
                peak_step = k;
                peak_buffers = count;
            }
        }
        FUZZ_ASSERT(live.peak_step == peak_step && live.peak_bytes == peak && live.peak_buffers == peak_buffers);
        for (k = steps; k < MAX_STEPS; k++) {
            FUZZ_ASSERT(live_bytes[k] == -7);    /* nothing written past n_steps */
        }
    }
    /* Steps covering every lifetime: the peak is the planner's lower bound. */
    if (max_last < steps) {
        mc_plan_t p;
        FUZZ_ASSERT(mc_plan_scratch_bytes(n, &need) == MC_OK && (size_t)need <= sizeof scratch);
        FUZZ_ASSERT(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, n, alignment, 0, scratch, need, offsets, &p)
                    == MC_OK);
        FUZZ_ASSERT(p.lower_bound_bytes == live.peak_bytes);
    }
    return 0;
}
