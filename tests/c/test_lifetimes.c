/* SPEC 7: TFLM's lifetime rules (mc_tflm_lifetimes), on hand-checked graphs. */
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

int main(void)
{
    test_chain();
    test_branch_and_untouched();
    test_passthrough_output();
    test_lifetime_errors();
    return check_report("test_lifetimes");
}
