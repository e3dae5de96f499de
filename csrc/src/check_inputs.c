/*
 * The check's inputs, before anything is computed from them (check.c): the board's and
 * the configuration's fields within their ranges, every figure finite and >= 0, the
 * arena in writable RAM and the weights where the board has them.  A board's profile
 * or a descriptor is untrusted: a value outside these is MC_E_RANGE or
 * MC_E_NEGATIVE, never a number.
 */
#include <stddef.h>
#include <string.h>

#include "check_internal.h"
#include "floats.h"
#include "memcore.h"
#include "out_of_line.h"

/* (Asked once the regions' bytes are known to be >= 0.) */
static bool has_region(const mc_board_t *b, int32_t region)
{
    return region >= 0 && region < MC_REGION_COUNT && b->regions[region].bytes != 0;
}

/* x > 0, for any double, read from its bits (floats.h: on a board each comparison is a
 * call into the soft-float library, with the zero as a literal): above +0 and at most
 * +infinity, so neither -0, a negative number nor a NaN. */
OUT_OF_LINE bool mc__positive(double x)
{
    return mc_double_bits(x) - 1 < (uint64_t)0x7FF << 52;
}

/* Whether the double at byte `offset` of the struct at `s` is finite and >= 0. */
static bool finite_nonnegative_at(const void *s, size_t offset)
{
    double x;
    memcpy(&x, (const uint8_t *)s + offset, sizeof x);
    return mc_finite_nonnegative(x);
}

/* The board's and the configuration's figures that must be finite and >= 0 (checked
 * in a loop: inlined, each test is a 64-bit comparison).  Offsets fit a byte: both
 * structs are well under 256 bytes. */
static const uint8_t board_figures[] = {
    offsetof(mc_board_t, overhead_seconds), offsetof(mc_board_t, active_watts), offsetof(mc_board_t, sleep_watts),
    offsetof(mc_board_t, radio_tx_watts), offsetof(mc_board_t, radio_bytes_per_second),
};
static const uint8_t config_figures[] = {
    offsetof(mc_check_config_t, latency_budget_seconds), offsetof(mc_check_config_t, inferences_per_hour),
    offsetof(mc_check_config_t, battery_joules), offsetof(mc_check_config_t, battery_life_seconds),
};
typedef char mc_figures_fit_a_byte[sizeof(mc_board_t) <= 256 && sizeof(mc_check_config_t) <= 256 ? 1 : -1];

static bool figures_finite_nonnegative(const void *s, const uint8_t *offsets, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!finite_nonnegative_at(s, offsets[i])) {
            return false;
        }
    }
    return true;
}

mc_status_t mc__check_inputs(const mc_board_t *b, const mc_check_config_t *c)
{
    size_t i;
    int r;
    /* As int32: enums may be 1-byte and unsigned (arm-none-eabi), so no sign test on them. */
    int32_t target = (int32_t)b->target, kernels = (int32_t)c->kernels;
    if (target < 0 || target >= (int32_t)MC_TARGET_COUNT ||
        (kernels != (int32_t)MC_KERNELS_REFERENCE && kernels != (int32_t)MC_KERNELS_OPTIMISED)) {
        return MC_E_RANGE;
    }
    for (r = 0; r < MC_REGION_COUNT; r++) {
        if (b->regions[r].bytes < 0) {
            return MC_E_NEGATIVE;
        }
        /* 0: not known (a board checking its memory only); the check then has no timing */
        if (!finite_nonnegative_at(&b->regions[r], offsetof(mc_region_spec_t, read_bytes_per_second))) {
            return MC_E_RANGE;
        }
    }
    for (i = 0; i < sizeof b->ops_per_second; i += sizeof(double)) {
        if (!finite_nonnegative_at(b->ops_per_second, i)) {
            return MC_E_RANGE;
        }
    }
    if (b->ram_bytes_at_boot < 0 || b->ram_bytes_at_boot > b->regions[MC_REGION_RAM].bytes ||
        b->model_partition_bytes < 0 || b->model_partition_bytes > b->regions[MC_REGION_FLASH].bytes ||
        !figures_finite_nonnegative(b, board_figures, sizeof board_figures) ||
        (mc__positive(b->radio_tx_watts) != mc__positive(b->radio_bytes_per_second))) {
        return MC_E_RANGE;
    }
    /* The arena must be writable RAM; weights are read in place from flash or loaded. */
    /* (A board may give its arena region no size when available_bytes pins it.) */
    if ((c->arena_region != MC_REGION_RAM && c->arena_region != MC_REGION_PSRAM) ||
        (!has_region(b, c->arena_region) && c->available_bytes < 0) ||
        (c->weights_region != c->arena_region && !has_region(b, c->weights_region)) || c->batch < 1) {
        return MC_E_RANGE;
    }
    if (c->model_file_bytes < 0 || c->available_bytes < -1 || c->plan_steps < 0) {
        return MC_E_NEGATIVE;
    }
    if (!figures_finite_nonnegative(c, config_figures, sizeof config_figures)) {
        return MC_E_RANGE;
    }
    /* A required battery life is a budget only with a battery and the board's power. */
    if (mc__positive(c->battery_life_seconds) && (!mc__positive(c->battery_joules) || !mc__positive(b->active_watts))) {
        return MC_E_RANGE;
    }
    return MC_OK;
}
