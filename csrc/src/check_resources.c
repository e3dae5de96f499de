/*
 * The check's resources (check.c, steps 4 to 7): memory per region against the board's,
 * time against the latency budget or the duty cycle's period, energy against the
 * battery, and the verdict with the resource that runs out first.
 */
#include <float.h>

#include "check_internal.h"
#include "checked.h"
#include "memcore.h"
#include "out_of_line.h"

/* A budget's need against its limit, in seconds or joules. */
OUT_OF_LINE static void budget_resource(mc_resource_check_t *res, double need, double limit)
{
    res->checked = true;
    res->need = need;
    res->limit = limit;
    res->margin = limit - need;
    res->fits = need <= limit;
    res->usage = mc__positive(limit) ? need / limit : DBL_MAX;
}

/* Memory, in bytes: as a budget of its bytes as doubles, except that it fits by the
 * exact bytes, and needing nothing of nothing uses none of it. */
static void resource(mc_resource_check_t *res, int64_t need, int64_t limit)
{
    budget_resource(res, (double)need, (double)limit);
    res->need_bytes = need;
    res->limit_bytes = limit;
    res->margin_bytes = limit - need;
    res->fits = need <= limit;
    if (limit == 0 && need <= 0) { /* (limits are >= 0: check_inputs) */
        res->usage = 0;
    }
}

/* Memory per region, and the arena region's headline numbers.  With memcore's plan
 * the head is memcore's placement of the same buffers; what TFLM needs beyond its
 * head stays the same. */
static mc_status_t memory(const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r)
{
    int64_t need[MC_REGION_COUNT] = {0, 0, 0};
    const mc_resource_check_t *arena;
    int64_t head = (c->flags & MC_CHECK_MEMCORE_PLAN) ? r->arena_best_bytes : r->arena_tflm_bytes;
    int32_t reg;
    bool overflow = false;
    r->runtime_overhead_bytes = r->tflm.tail_bytes;
    r->runtime_bytes = r->tflm.recommended_arena_bytes - r->arena_tflm_bytes;
    r->recommended_arena_bytes = mc_add_or_flag(mc_mul_or_flag(head, c->batch, &overflow), r->runtime_bytes,
                                                &overflow);
    need[c->arena_region] = r->recommended_arena_bytes;
    if (c->weights_region != MC_REGION_FLASH) {
        mc__accumulate(&need[c->weights_region], r->weights_bytes, &overflow);
    }
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    /* The model file lives in flash either way; read in place, its weights must be. */
    need[MC_REGION_FLASH] = c->model_file_bytes;
    if (c->weights_region == MC_REGION_FLASH && need[MC_REGION_FLASH] < r->weights_bytes) {
        need[MC_REGION_FLASH] = r->weights_bytes;
    }
    /* (The board's sizes, the partition and a pinned figure are >= 0: check_inputs.) */
    for (reg = 0; reg < MC_REGION_COUNT; reg++) {
        int64_t limit = b->regions[reg].bytes;
        if (reg == c->arena_region && c->available_bytes >= 0) {
            limit = c->available_bytes;
        }
        /* The model file has the partition it lives in, not the whole chip: the
         * bootloader, the partition table and the firmware take the rest. */
        if (reg == MC_REGION_FLASH && b->model_partition_bytes != 0) {
            limit = b->model_partition_bytes;
        }
        /* A region the board gives no size for is not known, not empty: unchecked. */
        if ((need[reg] > 0 && limit != 0) || reg == c->arena_region) {
            resource(&r->resources[reg], need[reg], limit);
        }
    }
    /* the arena region's, as its resource has them (it is always checked) */
    arena = &r->resources[c->arena_region];
    r->required_bytes = arena->need_bytes;
    r->available_bytes = arena->limit_bytes;
    r->headroom_bytes = arena->margin_bytes;
    r->needs_heap_growth = c->arena_region == MC_REGION_RAM && arena->fits && b->ram_bytes_at_boot != 0 &&
                           arena->need_bytes > b->ram_bytes_at_boot;
    return MC_OK;
}

static mc_status_t timing(const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r)
{
    double fetch = r->latency.fetch_seconds, compute = 0, rate, bandwidth;
    bool budget = mc__positive(c->latency_budget_seconds), duty_cycle = mc__positive(c->inferences_per_hour);
    int k;
    for (k = 0; k < MC_OPCLASS_COUNT; k++) {
        compute += r->compute_seconds_by_class[k];
    }
    MC_TRY(mc_latency_of_parts(fetch, compute, b->overhead_seconds, &r->latency));
    /* The roofline with the model's own mix of rates: operations over compute time
     * against the arena region's bandwidth. */
    bandwidth = b->regions[c->arena_region].read_bytes_per_second;
    rate = mc__positive(compute) ? (double)r->operations / compute
                             : b->ops_per_second[MC_OPCLASS_OTHER][r->numeric][r->kernels];
    r->ops_per_second = rate;
    r->arena_bytes_per_second = bandwidth;
    if (r->timed && mc__positive(rate) && mc__positive(bandwidth)) {
        MC_TRY(mc_roofline(r->weights_bytes, r->activation_bytes, r->operations / c->batch, rate / bandwidth,
                           c->batch, &r->roofline));
    }
    if (budget || duty_cycle) {
        if (!r->timed) {
            return MC_E_RANGE; /* a time budget, but the board's speeds are not given */
        }
        double limit = budget ? c->latency_budget_seconds : DBL_MAX;
        /* (The period is compared as it is computed: on a host that evaluates doubles
         * wider, x87, before it is rounded.) */
        if (duty_cycle && SECONDS_PER_HOUR / c->inferences_per_hour < limit) {
            limit = SECONDS_PER_HOUR / c->inferences_per_hour; /* the duty cycle's period */
            r->latency_limit_is_period = true;
        }
        budget_resource(&r->resources[MC_RESOURCE_LATENCY], r->latency.total_seconds, limit);
    }
    return MC_OK;
}

/* Energy per request, the radio's alternative, power over the duty cycle, battery life
 * and the most inferences per hour the budgets allow (docs/formulas.md, "Energy"). */
static void energy(const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r)
{
    double t = r->latency.total_seconds, busy, allowed, most;
    bool some_time = mc__positive(t);
    if (mc__positive(b->radio_bytes_per_second)) {
        r->radio_seconds = (double)r->input_bytes / b->radio_bytes_per_second;
        r->radio_joules = b->radio_tx_watts * r->radio_seconds;
    }
    /* back to back: one request after the other, the most the latency allows */
    most = some_time ? SECONDS_PER_HOUR / t : 0;
    r->max_inferences_per_hour = r->timed ? most : 0;
    if (!mc__positive(b->active_watts) || !r->timed) {
        return;
    }
    r->energy_joules = b->active_watts * t;
    r->cheaper_to_send = mc__positive(r->radio_joules) && r->radio_joules < r->energy_joules;
    busy = mc__positive(c->inferences_per_hour) ? c->inferences_per_hour * t / SECONDS_PER_HOUR : 1;
    busy = busy > 1 ? 1 : busy;
    r->duty_cycle = busy;
    r->average_watts = b->active_watts * busy + b->sleep_watts * (1 - busy);
    if (!mc__positive(c->battery_joules) || !mc__positive(r->average_watts)) {
        return;
    }
    r->battery_life_seconds = c->battery_joules / r->average_watts;
    if (!mc__positive(c->battery_life_seconds)) {
        return;
    }
    budget_resource(&r->resources[MC_RESOURCE_BATTERY], r->average_watts * c->battery_life_seconds,
                    c->battery_joules);
    /* The duty cycle whose average power spends the battery in exactly its life:
     * allowed = sleep + busy x (active - sleep), busy = n x t / 3600. */
    allowed = c->battery_joules / c->battery_life_seconds;
    if (allowed <= b->sleep_watts) {
        r->max_inferences_per_hour = 0; /* sleeping alone empties it too soon */
    } else if (b->active_watts > b->sleep_watts && some_time) {
        double n = SECONDS_PER_HOUR * (allowed - b->sleep_watts) / (t * (b->active_watts - b->sleep_watts));
        r->max_inferences_per_hour = n < most ? n : most;
    }
}

/* (A resource that does not fit was checked: the rest start as fitting.) */
static void verdict(mc_check_t *r)
{
    int k, decides = -1;
    bool short_memory = false, missed = false;
    for (k = 0; k < MC_RESOURCE_COUNT; k++) {
        if (!r->resources[k].fits) {
            if (k <= MC_RESOURCE_FLASH) {
                short_memory = true;
            } else {
                missed = true;
            }
        }
    }
    r->verdict = short_memory ? MC_CHECK_DOES_NOT_FIT : missed ? MC_CHECK_MISSES_BUDGET : MC_CHECK_FITS;
    /* The resource that runs out first: the most over its limit among those that decide
     * the verdict; when everything fits, the closest to its limit. */
    for (k = 0; k < MC_RESOURCE_COUNT; k++) {
        const mc_resource_check_t *res = &r->resources[k];
        bool counts = res->checked && (r->verdict == MC_CHECK_FITS ||
                                       (!res->fits && (k <= MC_RESOURCE_FLASH) == short_memory));
        if (counts && (decides < 0 || res->usage > r->resources[decides].usage)) {
            decides = k;
        }
    }
    r->limiting = decides < 0 ? MC_RESOURCE_RAM : decides;
}

mc_status_t mc__check_resources(const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r)
{
    MC_TRY(memory(b, c, r));
    MC_TRY(timing(b, c, r));
    energy(b, c, r);
    verdict(r);
    return MC_OK;
}
