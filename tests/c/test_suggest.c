/* The board of the family a failed check suggests: which boards can help with the
 * resource that runs out (mc_board_may_help) and which of their checks to name
 * (mc_board_pick), on hand-made checks whose answer is plain. */
#include <string.h>

#include "check.h"
#include "memcore.h"

/* A check limited by `limiting`, with that resource checked at `usage`. */
static mc_check_t limited(int32_t limiting, int32_t verdict, double usage)
{
    mc_check_t c;
    memset(&c, 0, sizeof c);
    c.limiting = limiting;
    c.verdict = verdict;
    c.resources[limiting].checked = true;
    c.resources[limiting].fits = verdict != MC_CHECK_DOES_NOT_FIT;
    c.resources[limiting].usage = usage;
    return c;
}

static void may_help(void)
{
    mc_check_t now = limited(MC_RESOURCE_RAM, MC_CHECK_DOES_NOT_FIT, 1.5);
    mc_board_t b;
    mc_board_init(&b);
    now.available_bytes = 100000;
    /* RAM: more bytes in the arena's region than the check had, not equal */
    b.regions[MC_REGION_RAM].bytes = 100000;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM));
    b.regions[MC_REGION_RAM].bytes = 100001;
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    /* ... in the region its arena is in: a big RAM does not help an arena in a small PSRAM */
    b.regions[MC_REGION_PSRAM].bytes = 50000;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_PSRAM));
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_COUNT));
    CHECK(!mc_board_may_help(&now, &b, -1));
    /* PSRAM: any PSRAM */
    now.limiting = MC_RESOURCE_PSRAM;
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    b.regions[MC_REGION_PSRAM].bytes = 0;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM));
    /* flash: a partition larger than the limit the model file missed, else the whole flash */
    now.limiting = MC_RESOURCE_FLASH;
    now.resources[MC_RESOURCE_FLASH].limit_bytes = 0x98000;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM)); /* no flash at all */
    b.regions[MC_REGION_FLASH].bytes = 4 << 20;
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    b.model_partition_bytes = 0x98000;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM));
    b.model_partition_bytes = 0x98001;
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    /* battery: power figures; latency: any board */
    now.limiting = MC_RESOURCE_BATTERY;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM));
    b.active_watts = 0.1;
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    now.limiting = MC_RESOURCE_LATENCY;
    mc_board_init(&b);
    CHECK(mc_board_may_help(&now, &b, MC_REGION_RAM));
    now.limiting = MC_RESOURCE_COUNT;
    CHECK(!mc_board_may_help(&now, &b, MC_REGION_RAM));
    CHECK(!mc_board_may_help(NULL, &b, MC_REGION_RAM));
    CHECK(!mc_board_may_help(&now, NULL, MC_REGION_RAM));
}

static void pick_memory(void)
{
    mc_check_t now = limited(MC_RESOURCE_RAM, MC_CHECK_DOES_NOT_FIT, 1.5), c[4];
    /* none fits: the least short (most headroom), if it is short by less than now */
    c[0] = limited(MC_RESOURCE_RAM, MC_CHECK_DOES_NOT_FIT, 1.2);
    c[0].headroom_bytes = -2000;
    c[1] = limited(MC_RESOURCE_RAM, MC_CHECK_DOES_NOT_FIT, 1.1);
    c[1].headroom_bytes = -1000;
    c[2] = limited(MC_RESOURCE_RAM, MC_CHECK_DOES_NOT_FIT, 1.7); /* worse than now: never */
    c[2].headroom_bytes = 0;
    CHECK_EQ_I64(mc_board_pick(&now, c, 3), 1);
    /* the same usage as now is not better */
    c[1].resources[MC_RESOURCE_RAM].usage = 1.5;
    CHECK_EQ_I64(mc_board_pick(&now, c, 3), 0);
    CHECK_EQ_I64(mc_board_pick(&now, c + 2, 1), -1);
    /* one fits: fitting boards beat any that do not, the smallest that fits wins */
    c[2] = limited(MC_RESOURCE_RAM, MC_CHECK_FITS, 0.9);
    c[2].available_bytes = 300000;
    c[2].headroom_bytes = 30000;
    c[3] = limited(MC_RESOURCE_RAM, MC_CHECK_FITS, 0.5);
    c[3].available_bytes = 200000;
    c[3].headroom_bytes = 100000;
    CHECK_EQ_I64(mc_board_pick(&now, c, 4), 3);
    c[3].available_bytes = 300000; /* equals: the first */
    CHECK_EQ_I64(mc_board_pick(&now, c, 4), 2);
    /* a check where the limiting resource is not checked at all counts as better */
    c[0].resources[MC_RESOURCE_RAM].checked = false;
    c[0].verdict = MC_CHECK_FITS;
    c[0].available_bytes = 1000;
    CHECK_EQ_I64(mc_board_pick(&now, c, 4), 0);
    CHECK_EQ_I64(mc_board_pick(&now, c, 0), -1);
    CHECK_EQ_I64(mc_board_pick(NULL, c, 4), -1);
    CHECK_EQ_I64(mc_board_pick(&now, NULL, 4), -1);
    now.limiting = -1;
    CHECK_EQ_I64(mc_board_pick(&now, c, 4), -1);
}

static void pick_time_and_energy(void)
{
    mc_check_t now = limited(MC_RESOURCE_LATENCY, MC_CHECK_MISSES_BUDGET, 2.0), c[3];
    c[0] = limited(MC_RESOURCE_LATENCY, MC_CHECK_MISSES_BUDGET, 1.5);
    c[0].latency.total_seconds = 0.15;
    c[1] = limited(MC_RESOURCE_LATENCY, MC_CHECK_MISSES_BUDGET, 1.2);
    c[1].latency.total_seconds = 0.12;
    c[2] = limited(MC_RESOURCE_LATENCY, MC_CHECK_DOES_NOT_FIT, 0.5); /* fast, but short of RAM */
    c[2].latency.total_seconds = 0.05;
    /* nothing fits: the fastest of those faster than now */
    CHECK_EQ_I64(mc_board_pick(&now, c, 3), 2);
    /* one meets every budget: it, however slow beside the others */
    c[0].verdict = MC_CHECK_FITS;
    CHECK_EQ_I64(mc_board_pick(&now, c, 3), 0);
    /* the battery: the lowest average power of those that use less */
    now = limited(MC_RESOURCE_BATTERY, MC_CHECK_MISSES_BUDGET, 1.3);
    c[0] = limited(MC_RESOURCE_BATTERY, MC_CHECK_MISSES_BUDGET, 1.1);
    c[0].average_watts = 0.02;
    c[1] = limited(MC_RESOURCE_BATTERY, MC_CHECK_MISSES_BUDGET, 1.05);
    c[1].average_watts = 0.01;
    c[2] = limited(MC_RESOURCE_BATTERY, MC_CHECK_MISSES_BUDGET, 1.4); /* uses more: never */
    c[2].average_watts = 0.001;
    CHECK_EQ_I64(mc_board_pick(&now, c, 3), 1);
}

int main(void)
{
    may_help();
    pick_memory();
    pick_time_and_energy();
    return check_report("test_suggest");
}
