/* SPEC 7: TFLM's lifetime rules (mc_tflm_lifetimes) and its arena arithmetic
 * (mc_bump_allocate, mc_tflm_arena), on hand-checked graphs. */
#include <stdint.h>

#include "check.h"
#include "memcore.h"

/* tiny_mlp: input 0 -> FC(0, w4, b3) -> 5 -> FC(5, w2, b1) -> 6 -> LOGISTIC -> 7 (output). */
static void test_chain(void)
{
    const int64_t in_start[] = {0, 3, 6, 7};
    const int32_t ins[] = {0, 4, 3, 5, 2, 1, 6};
    const int64_t out_start[] = {0, 1, 2, 3};
    const int32_t outs[] = {5, 6, 7};
    const int32_t gin[] = {0}, gout[] = {7};
    int32_t first[8], last[8];
    CHECK_EQ_I64(mc_tflm_lifetimes(8, 3, in_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_OK);
    CHECK_EQ_I64(first[0], 0);  /* graph input: from scope 0 ... */
    CHECK_EQ_I64(last[0], 1);   /* ... to its only consumer, operator 0 at scope 1 */
    CHECK_EQ_I64(first[5], 1);
    CHECK_EQ_I64(last[5], 2);
    CHECK_EQ_I64(first[6], 2);
    CHECK_EQ_I64(last[6], 3);
    CHECK_EQ_I64(first[7], 3);  /* graph output: recreated by its producer ... */
    CHECK_EQ_I64(last[7], 3);   /* ... and used at the final scope */
    CHECK_EQ_I64(first[4], -1); /* a constant is only ever used, never created, */
    CHECK_EQ_I64(last[4], 1);   /* so only its last use is set (the caller skips it) */
    CHECK_EQ_I64(last[1], 2);
}

/* A residual block: 0 -> A -> 1 -> B -> 2; ADD(1, 2) -> 3; tensor 4 is never touched;
 * an absent optional input (-1) is skipped. */
static void test_branch_and_untouched(void)
{
    const int64_t in_start[] = {0, 2, 3, 5};
    const int32_t ins[] = {0, -1, 1, 1, 2};
    const int64_t out_start[] = {0, 1, 2, 3};
    const int32_t outs[] = {1, 2, 3};
    const int32_t gin[] = {0}, gout[] = {3};
    int32_t first[5], last[5];
    CHECK_EQ_I64(mc_tflm_lifetimes(5, 3, in_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_OK);
    CHECK_EQ_I64(first[1], 1);
    CHECK_EQ_I64(last[1], 3);   /* consumed by B and by ADD: lives to the later one */
    CHECK_EQ_I64(first[2], 2);
    CHECK_EQ_I64(last[2], 3);
    CHECK_EQ_I64(first[3], 3);
    CHECK_EQ_I64(last[3], 3);
    CHECK_EQ_I64(first[4], -1);
    CHECK_EQ_I64(last[4], -1);
}

/* A graph output that no operator writes (it is also the input) lives 0..end. */
static void test_passthrough_output(void)
{
    const int64_t in_start[] = {0, 1};
    const int32_t ins[] = {0};
    const int64_t out_start[] = {0, 1};
    const int32_t outs[] = {1};
    const int32_t gin[] = {0}, gout[] = {0, 1};
    int32_t first[2], last[2];
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, gin, 1, gout, 2, first, last), MC_OK);
    CHECK_EQ_I64(first[0], 0);
    CHECK_EQ_I64(last[0], 1);
    CHECK_EQ_I64(first[1], 1);
    CHECK_EQ_I64(last[1], 1);
}

static void test_lifetime_errors(void)
{
    const int64_t in_start[] = {0, 1}, bad_start[] = {1, 1}, shrinking[] = {0, 2, 1};
    const int32_t ins[] = {0}, out_of_range[] = {7}, below[] = {-2}, absent[] = {-1};
    const int64_t out_start[] = {0, 1};
    const int32_t outs[] = {1};
    const int32_t gin[] = {0}, gout[] = {1}, bad_graph[] = {2};
    int32_t first[2], last[2];
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, NULL, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_E_NULL);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, gin, 1, gout, 1, NULL, last), MC_E_NULL);
    CHECK_EQ_I64(mc_tflm_lifetimes(-1, 1, in_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, -1, in_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, INT32_MAX, in_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, bad_start, ins, out_start, outs, gin, 1, gout, 1, first, last), MC_E_RANGE);
    {
        const int32_t two_ins[] = {0, 0};
        const int64_t two_out_start[] = {0, 1, 1};
        CHECK_EQ_I64(mc_tflm_lifetimes(2, 2, shrinking, two_ins, two_out_start, outs, gin, 1, gout, 1, first, last),
                     MC_E_RANGE);
    }
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, out_of_range, out_start, outs, gin, 1, gout, 1, first, last), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, below, out_start, outs, gin, 1, gout, 1, first, last), MC_E_RANGE);
    /* -1 is an absent optional input, never an absent output */
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, absent, out_start, outs, gin, 1, gout, 1, first, last), MC_OK);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, absent, gin, 1, gout, 1, first, last), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, bad_graph, 1, gout, 1, first, last), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, gin, 1, bad_graph, 1, first, last), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, gin, -1, gout, 1, first, last), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_tflm_lifetimes(2, 1, in_start, ins, out_start, outs, NULL, 1, gout, 1, first, last), MC_E_NULL);
    CHECK_EQ_I64(mc_tflm_lifetimes(0, 0, in_start, NULL, out_start, NULL, NULL, 0, NULL, 0, NULL, NULL), MC_OK);
}

static void test_bump(void)
{
    /* 28 B at align 4 leaves the tail at 4 mod 8, so a 32 B / 8-aligned request costs 36:
     * the FULLY_CONNECTED options case measured on TFLM. */
    const mc_alloc_t allocs[] = {{28, 4}, {32, 8}, {80, 16}, {0, 16}, {5, 1}};
    int64_t used[5], total = -1;
    CHECK_EQ_I64(mc_bump_allocate(allocs, 5, used, &total), MC_OK);
    CHECK_EQ_I64(used[0], 28);
    CHECK_EQ_I64(used[1], 36);
    CHECK_EQ_I64(used[2], 80);
    CHECK_EQ_I64(used[3], 0);
    CHECK_EQ_I64(used[4], 5);
    CHECK_EQ_I64(total, 149);
    CHECK_EQ_I64(mc_bump_allocate(allocs, 5, NULL, &total), MC_OK);
    CHECK_EQ_I64(total, 149);
    {
        const mc_alloc_t zero_align[] = {{1, 0}}, negative[] = {{-1, 4}}, huge[] = {{INT64_MAX - 3, 1}, {8, 8}};
        CHECK_EQ_I64(mc_bump_allocate(zero_align, 1, NULL, &total), MC_E_RANGE);
        CHECK_EQ_I64(mc_bump_allocate(negative, 1, NULL, &total), MC_E_NEGATIVE);
        CHECK_EQ_I64(mc_bump_allocate(huge, 2, NULL, &total), MC_E_OVERFLOW);
        CHECK_EQ_I64(mc_bump_allocate(NULL, 1, NULL, &total), MC_E_NULL);
        CHECK_EQ_I64(mc_bump_allocate(allocs, 1, NULL, NULL), MC_E_NULL);
    }
}

/* tiny_mlp_int8, measured on TFLM: head 32, tail 1392, total 1424, but the smallest
 * arena that allocates is 1792 because planning needs tail-so-far + temporaries. */
static void test_tflm_arena(void)
{
    const mc_alloc_t tail[] = {{1168, 8}, {16, 16}, {208, 16}};
    const mc_alloc_t planning[] = {{192, 8}, {8, 8}, {256, 16}, {160, 1}};
    mc_tflm_arena_t out;
    CHECK_EQ_I64(mc_tflm_arena(32, tail, 3, 1, planning, 4, &out), MC_OK);
    CHECK_EQ_I64(out.head_bytes, 32);
    CHECK_EQ_I64(out.tail_bytes, 1392);
    CHECK_EQ_I64(out.total_bytes, 1424);
    CHECK_EQ_I64(out.planning_bytes, 1168 + 624); /* 192, +8 = 200, +256 -> 464, +160 */
    CHECK_EQ_I64(out.recommended_arena_bytes, 1792);
    /* a large head dominates */
    CHECK_EQ_I64(mc_tflm_arena(100000, tail, 3, 1, planning, 4, &out), MC_OK);
    CHECK_EQ_I64(out.recommended_arena_bytes, 101392);
    CHECK_EQ_I64(mc_tflm_arena(32, tail, 3, 4, planning, 4, &out), MC_E_RANGE);
    CHECK_EQ_I64(mc_tflm_arena(-1, tail, 3, 1, planning, 4, &out), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_tflm_arena(INT64_MAX, tail, 3, 1, planning, 4, &out), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_tflm_arena(32, tail, 3, 1, planning, 4, NULL), MC_E_NULL);
}

int main(void)
{
    test_chain();
    test_branch_and_untouched();
    test_passthrough_output();
    test_lifetime_errors();
    test_bump();
    test_tflm_arena();
    return check_report("test_lifetimes");
}
