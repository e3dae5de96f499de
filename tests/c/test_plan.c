/* SPEC 7: the arena planner — a hand-placed TFLM case and properties on random instances. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memcore.h"

#define MAX_BUFFERS 10000

static int64_t sizes[MAX_BUFFERS], offsets[MAX_BUFFERS], offsets_tflm[MAX_BUFFERS];
static int32_t first_use[MAX_BUFFERS], last_use[MAX_BUFFERS];
static uint64_t scratch[(MAX_BUFFERS * 64) / 8];

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int64_t align16(int64_t s)
{
    return (s + 15) / 16 * 16;
}

/* No two buffers live at the same time share a byte, and the arena covers them all. */
static int plan_is_valid(int n, const int64_t *offs, int64_t arena)
{
    int i, j;
    int64_t top = 0;
    for (i = 0; i < n; i++) {
        int64_t si = align16(sizes[i]);
        if (offs[i] < 0 || offs[i] % 16 != 0) {
            return 0;
        }
        if (si > 0 && offs[i] + si > top) {
            top = offs[i] + si;
        }
        for (j = i + 1; j < n; j++) {
            int64_t sj = align16(sizes[j]);
            int time = !(first_use[i] > last_use[j] || first_use[j] > last_use[i]);
            int space = offs[i] < offs[j] + sj && offs[j] < offs[i] + si;
            if (si > 0 && sj > 0 && time && space) {
                return 0;
            }
        }
    }
    return top == arena;
}

static void tiny_mlp(void)
{
    /* tiny_mlp_float32: input 32 B [0,0], hidden 32 B [0,1], logit 4 B [1,2], output
     * 4 B [2,2].  TFLM sorts by size with ties highest index first and places 1@0,
     * 0@32, 3@0 (1 and 0 are dead by then), 2@32 (above 1 and 3): head 64 bytes. */
    mc_plan_t p;
    int64_t need = 0;
    sizes[0] = 32, first_use[0] = 0, last_use[0] = 0;
    sizes[1] = 32, first_use[1] = 0, last_use[1] = 1;
    sizes[2] = 4, first_use[2] = 1, last_use[2] = 2;
    sizes[3] = 4, first_use[3] = 2, last_use[3] = 2;
    CHECK_EQ_I64(mc_plan_scratch_bytes(4, &need), MC_OK);
    CHECK(need <= (int64_t)sizeof scratch);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, scratch, need, offsets, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 64);
    CHECK_EQ_I64(p.lower_bound_bytes, 64);
    CHECK_EQ_I64(offsets[0], 32);
    CHECK_EQ_I64(offsets[1], 0);
    CHECK_EQ_I64(offsets[2], 32);
    CHECK_EQ_I64(offsets[3], 0);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, scratch, need - 1, offsets, &p), MC_E_SCRATCH);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, (char *)scratch + 4, need, offsets, &p), MC_E_SCRATCH);
    last_use[3] = 1; /* first use after last use */
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, scratch, need, offsets, &p), MC_E_LIFETIME);
    sizes[3] = INT64_MAX - 3;
    last_use[3] = 2;
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 4, 16, scratch, need, offsets, &p), MC_E_OVERFLOW);
}

/* Greedy first-fit is suboptimal here; best must do better and reach the bound. */
static void best_beats_tflm(void)
{
    /* A: 48 B [0,1]; B: 32 B [1,2]; C: 32 B [2,3]; D: 16 B [0,0]; E: 48 B [3,3].
     * Lower bound 80 at t=1 (A+B); size-ordered first fit needs more. */
    mc_plan_t t, b;
    int64_t need = 0;
    int64_t s[] = {48, 48, 32, 32, 16};
    int32_t f[] = {0, 3, 1, 2, 0}, l[] = {1, 3, 2, 3, 0};
    int i;
    for (i = 0; i < 5; i++) {
        sizes[i] = s[i], first_use[i] = f[i], last_use[i] = l[i];
    }
    CHECK_EQ_I64(mc_plan_scratch_bytes(5, &need), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 5, 16, scratch, need, offsets_tflm, &t), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, 5, 16, scratch, need, offsets, &b), MC_OK);
    CHECK(plan_is_valid(5, offsets_tflm, t.arena_bytes));
    CHECK(plan_is_valid(5, offsets, b.arena_bytes));
    CHECK(b.arena_bytes <= t.arena_bytes);
    CHECK_EQ_I64(b.lower_bound_bytes, 80);
    CHECK_EQ_I64(b.arena_bytes, 80);
    CHECK(t.arena_bytes > 80);
}

static void random_instances(void)
{
    int round, strictly_better = 0;
    for (round = 0; round < 300; round++) {
        int n = 1 + (int)(rng() % 60), i, steps = 1 + (int)(rng() % 30);
        int64_t need = 0;
        mc_plan_t t, b;
        for (i = 0; i < n; i++) {
            int32_t a = (int32_t)(rng() % (uint32_t)steps), z = (int32_t)(rng() % (uint32_t)steps);
            sizes[i] = (rng() % 8 == 0) ? 0 : (int64_t)(rng() % 5000);
            first_use[i] = a < z ? a : z;
            last_use[i] = a < z ? z : a;
        }
        CHECK_EQ_I64(mc_plan_scratch_bytes(n, &need), MC_OK);
        CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, n, 16, scratch, need, offsets_tflm, &t), MC_OK);
        CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, n, 16, scratch, need, offsets, &b), MC_OK);
        CHECK(plan_is_valid(n, offsets_tflm, t.arena_bytes));
        CHECK(plan_is_valid(n, offsets, b.arena_bytes));
        CHECK(t.arena_bytes >= t.lower_bound_bytes);
        CHECK(b.arena_bytes >= b.lower_bound_bytes);
        CHECK(b.arena_bytes <= t.arena_bytes);
        CHECK_EQ_I64(b.lower_bound_bytes, t.lower_bound_bytes);
        strictly_better += b.arena_bytes < t.arena_bytes;
    }
    CHECK(strictly_better > 0);
}

/* 10,000 buffers in a chain: each lives for two operators; the bound is two buffers. */
static void ten_thousand(void)
{
    int i;
    int64_t need = 0;
    mc_plan_t t, b;
    for (i = 0; i < MAX_BUFFERS; i++) {
        sizes[i] = 1000 + (i % 7) * 16;
        first_use[i] = i;
        last_use[i] = i + 1;
    }
    CHECK_EQ_I64(mc_plan_scratch_bytes(MAX_BUFFERS, &need), MC_OK);
    CHECK(need <= (int64_t)sizeof scratch);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, MAX_BUFFERS, 16, scratch, need, offsets, &t), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, sizes, first_use, last_use, MAX_BUFFERS, 16, scratch, need, offsets, &b), MC_OK);
    CHECK(t.arena_bytes >= t.lower_bound_bytes);
    CHECK(b.arena_bytes <= t.arena_bytes);
    CHECK_EQ_I64(t.lower_bound_bytes, align16(1000 + 5 * 16) + align16(1000 + 6 * 16));
}

static void edges(void)
{
    mc_plan_t p;
    int64_t need = 0;
    CHECK_EQ_I64(mc_plan(MC_PLAN_BEST, NULL, NULL, NULL, 0, 16, NULL, 0, NULL, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    CHECK_EQ_I64(mc_plan_scratch_bytes(-1, &need), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_plan_scratch_bytes((int64_t)INT32_MAX + 1, &need), MC_E_RANGE);
    sizes[0] = 0, first_use[0] = 0, last_use[0] = 0;
    CHECK_EQ_I64(mc_plan_scratch_bytes(1, &need), MC_OK);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 1, 16, scratch, need, offsets, &p), MC_OK);
    CHECK_EQ_I64(p.arena_bytes, 0);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first_use, last_use, 1, 0, scratch, need, offsets, &p), MC_E_RANGE);
    CHECK_EQ_I64(mc_plan((mc_strategy_t)7, sizes, first_use, last_use, 1, 16, scratch, need, offsets, &p), MC_E_RANGE);
}

int main(void)
{
    tiny_mlp();
    best_beats_tflm();
    random_instances();
    ten_thousand();
    edges();
    return check_report("test_plan");
}
