/* mc_plan and mc_plan_scratch_bytes: random sizes, lifetimes and alignment, both
 * strategies.  A plan must keep live buffers apart, align every offset, report
 * arena == max(offset + aligned size) and the true liveness lower bound, and BEST
 * must never need more than TFLM.  Errors must be exactly the ones the inputs call for,
 * with the outputs untouched. */
#include "fuzz.h"

#define MAX_N 512

static int64_t sizes[MAX_N], offsets[MAX_N];
static int32_t first_use[MAX_N], last_use[MAX_N];
static uint64_t scratch[(MAX_N * 36 + 8) / 8 + 1];

static i128 align_up(int64_t s, int64_t a)
{
    return ((i128)s + a - 1) / a * a;
}

/* The status mc_plan must return for these inputs (scratch given correctly). */
static mc_status_t expected(int64_t n, int64_t alignment)
{
    int64_t i;
    i128 total = 0;
    if (alignment < 0) {
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
        total += align_up(sizes[i], alignment);
        if (total > INT64_MAX) {
            return MC_E_OVERFLOW;
        }
    }
    return MC_OK;
}

static i128 check_plan(int64_t n, int64_t alignment, const mc_plan_t *p)
{
    int64_t i, j, t, tmax = 0;
    i128 top = 0, peak = 0;
    for (i = 0; i < n; i++) {
        i128 si = align_up(sizes[i], alignment);
        FUZZ_ASSERT(offsets[i] >= 0 && offsets[i] % alignment == 0);
        if (si == 0) {
            FUZZ_ASSERT(offsets[i] == 0);
            continue;
        }
        if (offsets[i] + si > top) {
            top = offsets[i] + si;
        }
        if (last_use[i] > tmax) {
            tmax = last_use[i];
        }
        for (j = i + 1; j < n; j++) {
            i128 sj = align_up(sizes[j], alignment);
            int time = !(first_use[i] > last_use[j] || first_use[j] > last_use[i]);
            int space = offsets[i] < offsets[j] + sj && offsets[j] < offsets[i] + si;
            FUZZ_ASSERT(!(sj > 0 && time && space));
        }
    }
    FUZZ_ASSERT(top == p->arena_bytes);
    /* Lower bound: the most aligned bytes live at one operator (lifetimes are small here). */
    for (t = 0; t <= tmax; t++) {
        i128 live = 0;
        for (i = 0; i < n; i++) {
            if (first_use[i] <= t && t <= last_use[i]) {
                live += align_up(sizes[i], alignment);
            }
        }
        if (live > peak) {
            peak = live;
        }
    }
    FUZZ_ASSERT(peak == p->lower_bound_bytes);
    FUZZ_ASSERT(p->arena_bytes >= p->lower_bound_bytes);
    return top;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    uint8_t mode = fuzz_u8(&in);
    int64_t n = fuzz_u8(&in) | ((int64_t)(fuzz_u8(&in) & 1) << 8);
    int64_t alignment, i, need = -1, arena_tflm = 0;
    uint8_t span = (uint8_t)(fuzz_u8(&in) % 64 + 1);
    mc_status_t want;
    int s;

    /* alignment: usually a small power of two, sometimes any int64 */
    alignment = (mode & 1) ? fuzz_i64(&in) : (int64_t)1 << (fuzz_u8(&in) % 7);
    for (i = 0; i < n; i++) {
        uint8_t kind = fuzz_u8(&in);
        sizes[i] = (kind & 3) == 0 ? fuzz_i64(&in) : (int64_t)fuzz_raw(&in, 2);
        first_use[i] = (int32_t)(fuzz_u8(&in) % span);
        last_use[i] = first_use[i] + (int32_t)(fuzz_u8(&in) % span);
        if ((kind & 0xf0) == 0xf0) { /* rare: a broken lifetime */
            first_use[i] = (kind & 8) ? -1 : last_use[i] + 1;
        }
    }

    FUZZ_ASSERT(mc_plan_scratch_bytes(n, &need) == MC_OK && need == 36 * n + 8);
    FUZZ_ASSERT((size_t)need <= sizeof scratch);
    want = expected(n, alignment);
    for (s = 0; s < 2; s++) {
        mc_strategy_t strategy = s == 0 ? MC_PLAN_TFLM : MC_PLAN_BEST;
        mc_plan_t p = {-7, -7};
        mc_status_t rc;
        for (i = 0; i < n; i++) {
            offsets[i] = -7;
        }
        rc = mc_plan(strategy, sizes, first_use, last_use, n, alignment, scratch,
                     need, offsets, &p);
        FUZZ_ASSERT(rc == want);
        if (rc != MC_OK) {
            FUZZ_ASSERT(p.arena_bytes == -7 && p.lower_bound_bytes == -7);
            for (i = 0; i < n; i++) {
                FUZZ_ASSERT(offsets[i] == -7);
            }
            continue;
        }
        check_plan(n, alignment, &p);
        if (s == 0) {
            arena_tflm = p.arena_bytes;
        } else {
            FUZZ_ASSERT(p.arena_bytes <= arena_tflm);
        }
        /* one byte less scratch is refused, for both strategies */
        if (n > 0) {
            mc_plan_t q = {-7, -7};
            FUZZ_ASSERT(mc_plan(strategy, sizes, first_use, last_use, n, alignment, scratch,
                                need - 1, offsets, &q) == MC_E_SCRATCH);
            FUZZ_ASSERT(q.arena_bytes == -7);
        }
    }
    return 0;
}
