/* mc_plan and mc_plan_scratch_bytes: random sizes, lifetimes, alignment and budget, both
 * strategies.  A plan must keep live buffers apart, align every offset, report
 * arena == max(offset + aligned size) and the true liveness lower bound; TFLM must place
 * every buffer where the O(n^2) walk of tests/c/plan_reference.h does and cost n + P
 * steps; BEST must never need more than TFLM nor spend more than its budget, and on up to
 * 8 buffers that stack to at most 2^30 units of the alignment (where its exact search
 * runs) never claim a proven optimum above the optimum of every buffer order, and with
 * the default budget find it.  Errors must be exactly the ones the
 * inputs call for, with the outputs untouched. */
#include "fuzz.h"
#include "../tests/c/plan_reference.h"

#define MAX_N 512

static int64_t sizes[MAX_N], offsets[MAX_N], offsets_ref[MAX_N], aligned[MAX_N];
static int32_t first_use[MAX_N], last_use[MAX_N], order_ref[MAX_N];
static reference_entry_t entries_ref[MAX_N];
static uint64_t scratch[(MAX_N * 64 + 4096) / 8];

static i128 align_up(int64_t s, int64_t a)
{
    return ((i128)s + a - 1) / a * a;
}

/* Pairs of buffers with a size live at the same time. */
static int64_t pairs(int64_t n)
{
    int64_t i, j, count = 0;
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
            count += sizes[i] > 0 && sizes[j] > 0 && first_use[i] <= last_use[j] && first_use[j] <= last_use[i];
        }
    }
    return count;
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
    /* n's two bytes in separate declarators: as operands of one | the two reads would be
     * unsequenced, and gcc and clang (libFuzzer) would decode the same input differently. */
    uint8_t n_low = fuzz_u8(&in), n_high = fuzz_u8(&in);
    int64_t n = n_low | ((int64_t)(n_high & 1) << 8);
    int64_t alignment, i, need = -1, arena_tflm = 0, steps_tflm = 0, budget;
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

    /* budget: what is left of the input, or the default */
    budget = (mode & 2) ? (int64_t)fuzz_raw(&in, 3) : MC_PLAN_DEFAULT_STEPS;

    FUZZ_ASSERT(mc_plan_scratch_bytes(n, &need) == MC_OK && need >= 64 * n && need <= 64 * n + 384);
    FUZZ_ASSERT((size_t)need <= sizeof scratch);
    want = expected(n, alignment);
    for (s = 0; s < 2; s++) {
        mc_strategy_t strategy = s == 0 ? MC_PLAN_TFLM : MC_PLAN_BEST;
        mc_plan_t p = {-7, -7, -7, true};
        mc_status_t rc;
        for (i = 0; i < n; i++) {
            offsets[i] = -7;
        }
        rc = mc_plan(strategy, sizes, first_use, last_use, n, alignment, budget, scratch, need, offsets, &p);
        FUZZ_ASSERT(rc == want);
        if (rc != MC_OK) {
            FUZZ_ASSERT(p.arena_bytes == -7 && p.lower_bound_bytes == -7 && p.steps == -7);
            for (i = 0; i < n; i++) {
                FUZZ_ASSERT(offsets[i] == -7);
            }
            continue;
        }
        check_plan(n, alignment, &p);
        if (s == 0) {
            int64_t arena_ref = reference_tflm(sizes, first_use, last_use, (int32_t)n, alignment, order_ref,
                                               entries_ref, offsets_ref);
            FUZZ_ASSERT(arena_ref == p.arena_bytes);
            FUZZ_ASSERT(memcmp(offsets, offsets_ref, (size_t)n * sizeof *offsets) == 0);
            FUZZ_ASSERT(p.steps == n + pairs(n));
            FUZZ_ASSERT(p.proven_optimal == (p.arena_bytes == p.lower_bound_bytes));
            arena_tflm = p.arena_bytes;
            steps_tflm = p.steps;
        } else {
            FUZZ_ASSERT(p.arena_bytes <= arena_tflm);
            FUZZ_ASSERT(p.steps >= steps_tflm && p.steps - steps_tflm <= budget);
            if (n <= 8 && alignment > 0 && alignment <= 64) {
                i128 units = 0;
                int64_t optimum;
                for (i = 0; i < n; i++) {
                    aligned[i] = (int64_t)align_up(sizes[i], alignment);
                    units += aligned[i] / alignment;
                }
                /* The exact search runs when the buffers stacked are at most 2^30 units of
                 * the alignment (its sums are then 32-bit); past that, BEST is its greedy
                 * passes' best and says so unless it reaches the lower bound.  Whatever
                 * the budget, a plan said optimal is; with the default budget it is
                 * found.  (The reference tries every order: 8 buffers keep it fast
                 * under the sanitizers; on more, the search itself runs, on up to 512,
                 * with every check above.) */
                if (units <= (i128)1 << 30) {
                    optimum = reference_optimum(aligned, first_use, last_use, (int32_t)n);
                    FUZZ_ASSERT(p.arena_bytes >= optimum);
                    FUZZ_ASSERT(!p.proven_optimal || p.arena_bytes == optimum);
                    if (budget >= MC_PLAN_DEFAULT_STEPS) {
                        FUZZ_ASSERT(p.arena_bytes == optimum);
                        FUZZ_ASSERT(p.proven_optimal);
                    }
                } else if (p.proven_optimal) {
                    FUZZ_ASSERT(p.arena_bytes == p.lower_bound_bytes);
                }
            }
        }
        /* one byte less scratch is refused, for both strategies */
        if (n > 0) {
            mc_plan_t q = {-7, -7, -7, true};
            FUZZ_ASSERT(mc_plan(strategy, sizes, first_use, last_use, n, alignment, budget, scratch,
                                need - 1, offsets, &q) == MC_E_SCRATCH);
            FUZZ_ASSERT(q.arena_bytes == -7);
        }
    }
    return 0;
}
