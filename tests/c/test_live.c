/* mc_live_bytes: bytes live at each step and the peak, on hand-checked lifetimes, and
 * the peak against mc_plan's lower bound. */
#include <stdint.h>

#include "check.h"
#include "memcore.h"

/* A chain with a skip: 0 lives 0..2, 1 lives 1..1, 2 lives 2..3, 3 (zero bytes) 0..3.
 * Aligned to 16: 100 -> 112, 20 -> 32, 64 -> 64. */
static void test_chain_with_skip(void)
{
    const int64_t sizes[] = {100, 20, 64, 0};
    const int32_t first[] = {0, 1, 2, 0}, last[] = {2, 1, 3, 3};
    int64_t bytes[5] = {-7, -7, -7, -7, -7}, buffers[5];
    mc_live_t live;
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 4, 16, 5, bytes, buffers, &live), MC_OK);
    CHECK_EQ_I64(bytes[0], 112);
    CHECK_EQ_I64(bytes[1], 112 + 32);
    CHECK_EQ_I64(bytes[2], 112 + 64);
    CHECK_EQ_I64(bytes[3], 64);
    CHECK_EQ_I64(bytes[4], 0);          /* past every lifetime */
    CHECK_EQ_I64(buffers[0], 1);        /* the zero-sized buffer counts nowhere */
    CHECK_EQ_I64(buffers[1], 2);
    CHECK_EQ_I64(buffers[2], 2);
    CHECK_EQ_I64(buffers[3], 1);
    CHECK_EQ_I64(buffers[4], 0);
    CHECK_EQ_I64(live.peak_step, 2);
    CHECK_EQ_I64(live.peak_bytes, 176);
    CHECK_EQ_I64(live.peak_buffers, 2);
}

/* Two steps with the same total: the peak is the first of them. */
static void test_tie_goes_to_the_first_step(void)
{
    const int64_t sizes[] = {32, 32};
    const int32_t first[] = {0, 1}, last[] = {0, 1};
    int64_t bytes[2], buffers[2];
    mc_live_t live;
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 1, 2, bytes, buffers, &live), MC_OK);
    CHECK_EQ_I64(live.peak_step, 0);
    CHECK_EQ_I64(live.peak_bytes, 32);
}

/* The peak equals mc_plan's lower bound on the same buffers. */
static void test_peak_is_the_plan_lower_bound(void)
{
    const int64_t sizes[] = {4096, 1000, 1000, 17, 2048, 512, 3000};
    const int32_t first[] = {0, 1, 1, 2, 3, 3, 4}, last[] = {1, 3, 2, 4, 5, 4, 6};
    int64_t bytes[7], buffers[7], offsets[7], need = 0;
    int64_t scratch[1024];
    mc_live_t live;
    mc_plan_t plan;
    CHECK_EQ_I64(mc_plan_scratch_bytes(7, &need), MC_OK);
    CHECK(need <= (int64_t)sizeof scratch);
    CHECK_EQ_I64(mc_plan(MC_PLAN_TFLM, sizes, first, last, 7, 16, 0, scratch, (int64_t)sizeof scratch, offsets, &plan),
                 MC_OK);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 7, 16, 7, bytes, buffers, &live), MC_OK);
    CHECK_EQ_I64(live.peak_bytes, plan.lower_bound_bytes);
    /* step 3: 1000 (1008), 17 (32), 2048, 512 live: 3600 */
    CHECK_EQ_I64(bytes[3], 1008 + 32 + 2048 + 512);
    CHECK_EQ_I64(buffers[3], 4);
}

static void test_empty(void)
{
    mc_live_t live;
    int64_t bytes[1], buffers[1];
    CHECK_EQ_I64(mc_live_bytes(NULL, NULL, NULL, 0, 16, 0, NULL, NULL, &live), MC_OK);
    CHECK_EQ_I64(live.peak_step, -1);
    CHECK_EQ_I64(live.peak_bytes, 0);
    CHECK_EQ_I64(mc_live_bytes(NULL, NULL, NULL, 0, 16, 1, bytes, buffers, &live), MC_OK);
    CHECK_EQ_I64(live.peak_step, 0);
    CHECK_EQ_I64(bytes[0], 0);
}

static void test_errors_leave_outputs_alone(void)
{
    const int64_t sizes[] = {16, 16}, negative[] = {16, -1}, huge[] = {INT64_MAX - 3, 16};
    const int32_t first[] = {0, 1}, last[] = {1, 2}, backwards[] = {0, 0}, below[] = {-1, 0};
    int64_t bytes[3] = {-7, -7, -7}, buffers[3] = {-7, -7, -7};
    mc_live_t live = {-7, -7, -7};
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 16, 3, bytes, buffers, NULL), MC_E_NULL);
    CHECK_EQ_I64(mc_live_bytes(NULL, first, last, 2, 16, 3, bytes, buffers, &live), MC_E_NULL);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 16, 3, NULL, buffers, &live), MC_E_NULL);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 16, 3, bytes, NULL, &live), MC_E_NULL);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, -1, 16, 3, bytes, buffers, &live), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 16, -1, bytes, buffers, &live), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, -16, 3, bytes, buffers, &live), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 0, 3, bytes, buffers, &live), MC_E_RANGE);
    CHECK_EQ_I64(mc_live_bytes(negative, first, last, 2, 16, 3, bytes, buffers, &live), MC_E_NEGATIVE);
    CHECK_EQ_I64(mc_live_bytes(sizes, first, backwards, 2, 16, 3, bytes, buffers, &live), MC_E_LIFETIME);
    CHECK_EQ_I64(mc_live_bytes(sizes, below, last, 2, 16, 3, bytes, buffers, &live), MC_E_LIFETIME);
    /* a lifetime past the steps the caller gave room for */
    CHECK_EQ_I64(mc_live_bytes(sizes, first, last, 2, 16, 2, bytes, buffers, &live), MC_E_RANGE);
    CHECK_EQ_I64(mc_live_bytes(huge, first, last, 2, 16, 3, bytes, buffers, &live), MC_E_OVERFLOW);
    CHECK_EQ_I64(mc_live_bytes(huge, first, last, 2, 1, 3, bytes, buffers, &live), MC_E_OVERFLOW);
    CHECK_EQ_I64(bytes[0], -7);
    CHECK_EQ_I64(buffers[2], -7);
    CHECK_EQ_I64(live.peak_step, -7);
    CHECK_EQ_I64(live.peak_bytes, -7);
}

int main(void)
{
    test_chain_with_skip();
    test_tie_goes_to_the_first_step();
    test_peak_is_the_plan_lower_bound();
    test_empty();
    test_errors_leave_outputs_alone();
    return check_report("test_live");
}
