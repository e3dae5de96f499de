/* SPEC 7: the arena planner.  TFLM placement for placement against the O(n^2) walk it
 * replaced, on thousands of random and structured instances; BEST against the optimum
 * of every buffer order on small instances; properties, budgets, limits and edges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memcore.h"
#include "plan_reference.h"

#define MAX_BUFFERS 20001

static int64_t sizes[MAX_BUFFERS], offsets[MAX_BUFFERS], offsets_tflm[MAX_BUFFERS], aligned[MAX_BUFFERS];
static int64_t offsets_ref[MAX_BUFFERS];
static int32_t first_use[MAX_BUFFERS], last_use[MAX_BUFFERS], order_ref[MAX_BUFFERS];
static reference_entry_t entries_ref[MAX_BUFFERS];
static uint64_t scratch[(MAX_BUFFERS * 64 + 4096) / 8];

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int64_t align_to(int64_t s, int64_t a)
{
    return (s + a - 1) / a * a;
}

/* No two buffers live at the same time share a byte, offsets are aligned, and the arena
 * covers them all. */
static int plan_is_valid(int n, const int64_t *offs, int64_t arena, int64_t a)
{
    int i, j;
    int64_t top = 0;
    for (i = 0; i < n; i++) {
        int64_t si = align_to(sizes[i], a);
        if (offs[i] < 0 || offs[i] % a != 0 || (si == 0 && offs[i] != 0)) {
            return 0;
        }
        if (si > 0 && offs[i] + si > top) {
            top = offs[i] + si;
        }
        for (j = i + 1; j < n; j++) {
            int64_t sj = align_to(sizes[j], a);
            int time = !(first_use[i] > last_use[j] || first_use[j] > last_use[i]);
            int space = offs[i] < offs[j] + sj && offs[j] < offs[i] + si;
            if (si > 0 && sj > 0 && time && space) {
                return 0;
            }
        }
    }
    return top == arena;
}

/* Pairs of buffers with a size live at the same time, and the most bytes live at once. */
static void pairs_and_bound(int n, int64_t a, int64_t *pairs, int64_t *bound)
{
    int i, j;
    *pairs = 0;
    *bound = 0;
    for (i = 0; i < n; i++) {
        int64_t live = 0;
        for (j = 0; j < n; j++) {
            if (first_use[j] <= first_use[i] && first_use[i] <= last_use[j]) {
                live += align_to(sizes[j], a);
            }
            if (j > i && sizes[i] > 0 && sizes[j] > 0 && first_use[i] <= last_use[j] && first_use[j] <= last_use[i]) {
                ++*pairs;
            }
        }
        if (live > *bound) {
            *bound = live;
        }
    }
}

static mc_status_t run(mc_strategy_t strategy, int n, int64_t a, int64_t budget, int64_t *offs, mc_plan_t *p)
{
    int64_t need = 0;
    CHECK_EQ_I64(mc_plan_scratch_bytes(n, &need), MC_OK);
    CHECK(need <= (int64_t)sizeof scratch);
    return mc_plan(strategy, sizes, first_use, last_use, n, a, budget, scratch, need, offs, p);
}

static void tiny_mlp(void)
{
    /* tiny_mlp_float32: input 32 B [0,0], hidden 32 B [0,1], logit 4 B [1,2], output
     * 4 B [2,2].  TFLM sorts by size with ties highest index first and places 1@0,
     * 0@32, 3@0 (1 and 0 are dead by then), 2@32 (above 1 and 3): head 64 bytes.  Three
     * pairs are live together (0-1, 1-2, 2-3): the plan costs 4 + 3 steps. */
    mc_plan_t p;
    int64_t need = 0;
    sizes[0] = 32, first_use[0] = 0, last_use[0] = 0;
    sizes[1] = 32, first_use[1] = 0, last_use[1] = 1;
    sizes[2] = 4, first_use[2] = 1, last_use[2] = 2;
    sizes[3] = 4, first_use[3] = 2, last_use[3] = 2;
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 4, 16, 0, offsets, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 64);
    CHECK_EQ_I64(p.lower_bound_bytes, 64);
    CHECK_EQ_I64(p.steps, 7);
    CHECK(p.proven_optimal);
    CHECK_EQ_I64(offsets[0], 32);
    CHECK_EQ_I64(offsets[1], 0);
    CHECK_EQ_I64(offsets[2], 32);
    CHECK_EQ_I64(offsets[3], 0);
    CHECK_EQ_I64(mc_plan_scratch_bytes(4, &need), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, 0, scratch, need - 1, offsets, &p),
                 MC_E_SCRATCH);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, 0, (char *)scratch + 4, need, offsets,
                         &p), MC_E_SCRATCH);
    last_use[3] = 1; /* first use after last use */
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 4, 16, 0, offsets, &p), MC_E_LIFETIME);
    sizes[3] = INT64_MAX - 3;
    last_use[3] = 2;
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 4, 16, 0, offsets, &p), MC_E_OVERFLOW);
}

/* Greedy first fit is suboptimal here; BEST must reach the bound, and say so. */
static void best_beats_tflm(void)
{
    /* A: 48 B [0,1]; B: 32 B [1,2]; C: 32 B [2,3]; D: 16 B [0,0]; E: 48 B [3,3].
     * Lower bound 80 at t=1 (A+B); size-ordered first fit needs more. */
    mc_plan_t t, b;
    int64_t s[] = {48, 48, 32, 32, 16};
    int32_t f[] = {0, 3, 1, 2, 0}, l[] = {1, 3, 2, 3, 0};
    int i;
    for (i = 0; i < 5; i++) {
        sizes[i] = s[i], first_use[i] = f[i], last_use[i] = l[i];
    }
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 5, 16, 0, offsets_tflm, &t), MC_OK);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 5, 16, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
    CHECK(plan_is_valid(5, offsets_tflm, t.arena_bytes, 16));
    CHECK(plan_is_valid(5, offsets, b.arena_bytes, 16));
    CHECK_EQ_I64(b.lower_bound_bytes, 80);
    CHECK_EQ_I64(b.arena_bytes, 80);
    CHECK(b.proven_optimal);
    CHECK(t.arena_bytes > 80);
    CHECK(!t.proven_optimal);
}

/* Lifetimes of one random instance; kind 0..7 picks a shape. */
static int make_instance(int kind, int n)
{
    int i, steps = 1 + (int)(rng() % (uint32_t)(n + 3));
    for (i = 0; i < n; i++) {
        int32_t a = (int32_t)(rng() % (uint32_t)steps), span;
        switch (kind) {
        case 0: /* a chain of operators */
            a = i, span = 1;
            break;
        case 1: /* residual blocks: every fourth tensor is read again three operators on */
            a = i, span = i % 4 == 0 ? 4 : 1;
            break;
        case 2: /* U-Net-like: nested skips, each level read back on the way up */
            a = i, span = 1 + 2 * (int32_t)(i % 8 < 4 ? (4 - i % 8) * 2 : 0);
            break;
        case 3: /* everything live together */
            a = 0, span = 0;
            break;
        default: /* random: mostly short, some long */
            span = (int32_t)(rng() % 4 == 0 ? rng() % (uint32_t)steps : rng() % 3);
            break;
        }
        first_use[i] = a;
        last_use[i] = a + span;
        switch (rng() % 4) {
        case 0:
            sizes[i] = 16 * (int64_t)(1 + rng() % 4); /* many equal sizes: the tie-breaking */
            break;
        case 1:
            sizes[i] = rng() % 6 == 0 ? 0 : (int64_t)(rng() % 5000);
            break;
        default:
            sizes[i] = 1000 + (int64_t)(rng() % 100000);
            break;
        }
    }
    return n;
}

/* TFLM placements are those of the walk over every placed buffer, offset for offset. */
static void tflm_matches_the_walk(void)
{
    int round, same = 0, rounds = 0;
    for (round = 0; round < 6300; round++) {
        int kind = round % 8, n = 1 + (int)(rng() % (round < 6000 ? 60u : 700u));
        int64_t a = rng() % 4 == 0 ? 1 + (int64_t)(rng() % 40) : 16, arena_ref;
        mc_plan_t p;
        make_instance(kind, n);
        if (run(MC_PLAN_TFLM, n, a, 0, offsets, &p) != MC_OK) {
            CHECK(0);
            continue;
        }
        arena_ref = reference_tflm(sizes, first_use, last_use, n, a, order_ref, entries_ref, offsets_ref);
        rounds++;
        same += arena_ref == p.arena_bytes && memcmp(offsets, offsets_ref, (size_t)n * sizeof *offsets) == 0;
    }
    CHECK_EQ_I64(same, rounds);
}

/* Properties on random instances: valid plans, the true bound and pair count, BEST never
 * worse than TFLM, within its budget, equal to TFLM with no budget. */
static void properties(void)
{
    int round, strictly_better = 0;
    for (round = 0; round < 1500; round++) {
        int n = make_instance(round % 8, 1 + (int)(rng() % 60));
        int64_t a = round % 3 == 0 ? 8 : 16, pairs, bound, budget = (int64_t)(rng() % 20000);
        mc_plan_t t, b, z;
        CHECK_EQ_I64(run(MC_PLAN_TFLM, n, a, 0, offsets_tflm, &t), MC_OK);
        CHECK_EQ_I64(run(MC_PLAN_BEST, n, a, budget, offsets, &b), MC_OK);
        pairs_and_bound(n, a, &pairs, &bound);
        CHECK(plan_is_valid(n, offsets_tflm, t.arena_bytes, a));
        CHECK(plan_is_valid(n, offsets, b.arena_bytes, a));
        CHECK_EQ_I64(t.lower_bound_bytes, bound);
        CHECK_EQ_I64(b.lower_bound_bytes, bound);
        CHECK_EQ_I64(t.steps, n + pairs);
        CHECK(b.arena_bytes >= bound && b.arena_bytes <= t.arena_bytes);
        CHECK(b.steps >= t.steps && b.steps <= t.steps + budget);
        CHECK(t.proven_optimal == (t.arena_bytes == bound));
        strictly_better += b.arena_bytes < t.arena_bytes;
        CHECK_EQ_I64(run(MC_PLAN_BEST, n, a, 0, offsets, &z), MC_OK);
        CHECK_EQ_I64(z.arena_bytes, t.arena_bytes);
        CHECK_EQ_I64(z.steps, t.steps);
        CHECK(memcmp(offsets, offsets_tflm, (size_t)n * sizeof *offsets) == 0);
    }
    CHECK(strictly_better > 0);
}

/* BEST reaches the least arena any buffer order gives, and proves it, on small instances
 * (up to 8 buffers, so the reference can try them all). */
static void best_is_optimal_on_small_instances(void)
{
    int round, searched = 0, matched = 0, rounds = 0;
    for (round = 0; round < 300; round++) {
        int n = 2 + (int)(rng() % 7), i;
        int64_t optimum;
        mc_plan_t t, b;
        make_instance(4 + round % 4, n);
        for (i = 0; i < n; i++) {
            sizes[i] = 16 * (int64_t)(1 + rng() % 9);
            aligned[i] = sizes[i];
        }
        CHECK_EQ_I64(run(MC_PLAN_TFLM, n, 16, 0, offsets_tflm, &t), MC_OK);
        CHECK_EQ_I64(run(MC_PLAN_BEST, n, 16, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
        optimum = reference_optimum(aligned, first_use, last_use, n);
        CHECK(plan_is_valid(n, offsets, b.arena_bytes, 16));
        rounds++;
        matched += b.arena_bytes == optimum && b.proven_optimal;
        searched += t.arena_bytes > optimum;
    }
    CHECK_EQ_I64(matched, rounds);
    CHECK(searched > 0);
}

/* Buffers that tile a width x height rectangle (operators x 16-byte units) exactly, cut
 * at random, the largest piece first, until there are `pieces`: every operator has
 * `height` units live, so the optimum is height units, the lower bound (a truth by
 * construction).  Returns the buffers. */
static int tiling(int pieces, int width, int height)
{
    int n = 1, i;
    first_use[0] = 0, last_use[0] = width - 1, sizes[0] = 16 * (int64_t)height;
    while (n < pieces) {
        int big = -1, cut;
        for (i = 0; i < n; i++) { /* the largest piece that can still be cut */
            int64_t area = (last_use[i] - first_use[i] + 1) * sizes[i];
            if ((last_use[i] > first_use[i] || sizes[i] > 16) &&
                (big < 0 || area > (last_use[big] - first_use[big] + 1) * sizes[big])) {
                big = i;
            }
        }
        if (big < 0) {
            break;
        }
        if (last_use[big] > first_use[big] && (sizes[big] == 16 || rng() % 2 == 0)) {
            cut = first_use[big] + 1 + (int)(rng() % (uint32_t)(last_use[big] - first_use[big]));
            first_use[n] = cut, last_use[n] = last_use[big], sizes[n] = sizes[big];
            last_use[big] = cut - 1;
        } else {
            cut = 1 + (int)(rng() % (uint32_t)(sizes[big] / 16 - 1));
            first_use[n] = first_use[big], last_use[n] = last_use[big], sizes[n] = sizes[big] - 16 * cut;
            sizes[big] = 16 * cut;
        }
        n++;
    }
    return n;
}

/* Past 32 buffers (no exhaustive reference there): tilings of 33 to 64 buffers, whose
 * optimum is known; BEST reaches it and proves it on every one, where TFLM's greedy
 * misses on many. */
static void best_is_optimal_on_tilings(void)
{
    int round, greedy_misses = 0;
    for (round = 0; round < 40; round++) {
        int n = tiling(33 + round * 31 / 39, 40, 48);
        mc_plan_t t, b;
        CHECK_EQ_I64(run(MC_PLAN_TFLM, n, 16, 0, offsets_tflm, &t), MC_OK);
        CHECK_EQ_I64(run(MC_PLAN_BEST, n, 16, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
        CHECK_EQ_I64(t.lower_bound_bytes, 16 * 48);
        CHECK_EQ_I64(b.arena_bytes, 16 * 48);
        CHECK(b.proven_optimal);
        CHECK(plan_is_valid(n, offsets, b.arena_bytes, 16));
        greedy_misses += t.arena_bytes > 16 * 48;
    }
    CHECK(greedy_misses >= 10);
}

/* Ten buffers whose optimum (368) is above the lower bound (352): only the exhaustive
 * search proves it; with too small a budget the plan is not proven. */
static void optimum_above_the_bound(void)
{
    int64_t s[] = {80, 80, 128, 64, 80, 16, 32, 128, 128, 80};
    int32_t f[] = {4, 2, 4, 0, 0, 2, 2, 3, 0, 0}, l[] = {4, 2, 4, 3, 2, 4, 3, 4, 0, 3};
    mc_plan_t t, b, c;
    int i;
    for (i = 0; i < 10; i++) {
        sizes[i] = aligned[i] = s[i], first_use[i] = f[i], last_use[i] = l[i];
    }
    CHECK_EQ_I64(reference_optimum(aligned, first_use, last_use, 10), 368);
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 10, 16, 0, offsets_tflm, &t), MC_OK);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 10, 16, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
    CHECK_EQ_I64(b.lower_bound_bytes, 352);
    CHECK_EQ_I64(b.arena_bytes, 368);
    CHECK(b.proven_optimal);
    CHECK(plan_is_valid(10, offsets, b.arena_bytes, 16));
    CHECK(t.arena_bytes > 368);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 10, 16, 1000, offsets, &c), MC_OK);
    CHECK(c.arena_bytes >= 368 && c.arena_bytes <= t.arena_bytes);
    CHECK(plan_is_valid(10, offsets, c.arena_bytes, 16));
    CHECK(!c.proven_optimal);
    CHECK(c.steps <= t.steps + 1000);
    /* the same at alignment 1: sizes count in bytes */
    CHECK_EQ_I64(run(MC_PLAN_BEST, 10, 1, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
    CHECK_EQ_I64(b.arena_bytes, 368);
    CHECK(b.proven_optimal);
}

/* 10,000 buffers in a chain: each lives for two operators; the bound is two buffers. */
static void ten_thousand(void)
{
    int i;
    mc_plan_t t, b;
    for (i = 0; i < 10000; i++) {
        sizes[i] = 1000 + (i % 7) * 16;
        first_use[i] = i;
        last_use[i] = i + 1;
    }
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 10000, 16, 0, offsets, &t), MC_OK);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 10000, 16, MC_PLAN_DEFAULT_STEPS, offsets, &b), MC_OK);
    CHECK(t.arena_bytes >= t.lower_bound_bytes);
    CHECK(b.arena_bytes <= t.arena_bytes);
    CHECK_EQ_I64(t.lower_bound_bytes, align_to(1000 + 5 * 16, 16) + align_to(1000 + 6 * 16, 16));
    CHECK_EQ_I64(t.steps, 10000 + 9999);
}

/* Past the documented limits: an error before any work, outputs untouched. */
static void limits(void)
{
    mc_plan_t p, untouched;
    int64_t need = 0;
    int i, k;
    memset(&p, 0x5a, sizeof p);
    untouched = p;
    CHECK_EQ_I64(mc_plan_scratch_bytes(MC_PLAN_MAX_BUFFERS, &need), MC_OK);
    CHECK_EQ_I64(mc_plan_scratch_bytes(MC_PLAN_MAX_BUFFERS + 1, &need), MC_E_LIMIT);
    sizes[0] = 16, first_use[0] = last_use[0] = 0;
    CHECK_EQ_I64(run(MC_PLAN_BEST, 1, 16, MC_PLAN_MAX_STEPS + 1, offsets, &p), MC_E_LIMIT);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 1, 16, -1, offsets, &p), MC_E_NEGATIVE);
    CHECK_EQ_I64(run(MC_PLAN_BEST, 1, 16, MC_PLAN_MAX_STEPS, offsets, &p), MC_OK);
    /* 20,001 buffers live together, nested (buffer i from i to 60,000 - i: no two end
     * together): 200,010,000 pairs, past MC_PLAN_MAX_PAIRS */
    for (i = 0; i < MAX_BUFFERS; i++) {
        sizes[i] = 16;
        first_use[i] = i;
        last_use[i] = 60000 - i;
        offsets[i] = -7;
    }
    memset(&p, 0x5a, sizeof p);
    CHECK_EQ_I64(run(MC_PLAN_TFLM, MAX_BUFFERS, 16, 0, offsets, &p), MC_E_LIMIT);
    CHECK(memcmp(&p, &untouched, sizeof p) == 0);
    CHECK(offsets[0] == -7 && offsets[MAX_BUFFERS - 1] == -7);
    /* The same pairs between buffers that all end together cost a step each, one
     * lifetime (tensors no operator touches) or one end (graph outputs): planned,
     * stacked in TFLM's order (equal sizes, highest id lowest), and the steps still
     * count every pair for BEST's budget. */
    for (k = 0; k < 2; k++) {
        for (i = 0; i < MAX_BUFFERS; i++) {
            first_use[i] = k == 0 ? 7 : i;
            last_use[i] = k == 0 ? 7 : 30000;
        }
        CHECK_EQ_I64(run(MC_PLAN_TFLM, MAX_BUFFERS, 16, 0, offsets, &p), MC_OK);
        CHECK_EQ_I64(p.arena_bytes, 16 * MAX_BUFFERS);
        CHECK_EQ_I64(p.lower_bound_bytes, 16 * MAX_BUFFERS);
        CHECK_EQ_I64(p.steps, MAX_BUFFERS + (int64_t)MAX_BUFFERS * (MAX_BUFFERS - 1) / 2);
        CHECK_EQ_I64(offsets[MAX_BUFFERS - 1], 0);
        CHECK_EQ_I64(offsets[0], 16 * (MAX_BUFFERS - 1));
    }
}

static void edges(void)
{
    mc_plan_t p;
    int64_t need = 0;
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, NULL, NULL, NULL, 0, 16, 0, NULL, 0, NULL, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    CHECK(p.proven_optimal);
    CHECK_EQ_I64(mc_plan_scratch_bytes(-1, &need), MC_E_NEGATIVE);
    sizes[0] = 0, first_use[0] = 0, last_use[0] = 0;
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 1, 16, 0, offsets, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    CHECK_EQ_I64(run(MC_PLAN_TFLM, 1, 0, 0, offsets, &p), MC_E_RANGE);
    CHECK_EQ_I64(run((mc_strategy_t)7, 1, 16, 0, offsets, &p), MC_E_RANGE);
}

/* Without offsets (the check's call: the arena only) both planners give the same
 * result as with them, the exact search's runs included. */
static void arena_only(void)
{
    int kind, n, round;
    for (round = 0; round < 200; round++) {
        mc_plan_t with, without;
        int s;
        kind = round % 8;
        n = 2 + (int)(rng() % 40u);
        make_instance(kind, n);
        for (s = 0; s < 2; s++) {
            mc_strategy_t strategy = s == 0 ? MC_PLAN_TFLM : MC_PLAN_BEST;
            CHECK_EQ_I64(run(strategy, n, 16, MC_PLAN_DEFAULT_STEPS, offsets, &with), MC_OK);
            CHECK_EQ_I64(run(strategy, n, 16, MC_PLAN_DEFAULT_STEPS, NULL, &without), MC_OK);
            CHECK_EQ_I64(without.arena_bytes, with.arena_bytes);
            CHECK_EQ_I64(without.lower_bound_bytes, with.lower_bound_bytes);
            CHECK_EQ_I64(without.steps, with.steps);
            CHECK_EQ_I64(without.proven_optimal, with.proven_optimal);
        }
    }
}

int main(void)
{
    tiny_mlp();
    best_beats_tflm();
    tflm_matches_the_walk();
    properties();
    best_is_optimal_on_small_instances();
    optimum_above_the_bound();
    best_is_optimal_on_tilings();
    ten_thousand();
    limits();
    edges();
    arena_only();
    return check_report("test_plan");
}
