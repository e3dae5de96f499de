/*
 * The check's resources (check.c, steps 4 to 7): each operator's time and traffic,
 * memory per region against the board's, time against the latency budget or the duty
 * cycle's period, energy against the battery, and the verdict with the resource that
 * runs out first.
 */
#include <float.h>
#include <string.h>

#include "check_internal.h"
#include "checked.h"
#include "graph.h"
#include "memcore.h"
#include "out_of_line.h"

/* Operator codes the rate classes name. */
enum { CONV_2D = 3, DEPTHWISE_CONV_2D = 4, FULLY_CONNECTED = 9, TRANSPOSE_CONV = 67, BATCH_MATMUL = 126 };

/* Out of line: gcc's inlined switch is larger than the call. */
OUT_OF_LINE static int32_t opclass(int32_t kind)
{
    switch (kind) {
    case CONV_2D:
    case TRANSPOSE_CONV:
        return MC_OPCLASS_CONV;
    case DEPTHWISE_CONV_2D:
        return MC_OPCLASS_DEPTHWISE;
    case FULLY_CONNECTED:
    case BATCH_MATMUL:
        return MC_OPCLASS_MATMUL;
    default:
        return MC_OPCLASS_OTHER;
    }
}

/* Operator k's numbers do not fit in 64 bits: the problem names it, as the host's
 * error does. */
static mc_status_t op_overflow(mc_problem_t *p, int32_t k)
{
    if (p != NULL) {
        p->kind = MC_PROBLEM_SIZE_OVERFLOW;
        p->op = k;
        p->tensor = p->other = p->at = p->value = -1;
    }
    return MC_E_OVERFLOW;
}

static double rate_of(const mc_board_t *b, int32_t cls, int32_t numeric, int32_t kernels)
{
    double rate = b->ops_per_second[cls][numeric][kernels];
    return mc__positive(rate) ? rate : b->ops_per_second[MC_OPCLASS_OTHER][numeric][kernels];
}

/* Adds to *seconds the time `amount` (>= 0) operations or bytes take at `per_second`; when
 * the rate is not known (0), none, and the check is untimed.  (The quotient is added in
 * the same expression: a host that evaluates doubles wider, x87, rounds only the sum.) */
static void add_seconds(double *seconds, int64_t amount, double per_second, bool *timed)
{
    if (amount != 0) {
        if (mc__positive(per_second)) {
            *seconds += (double)amount / per_second;
        } else {
            *timed = false;
        }
    }
}

/* Each operator's arithmetic, fetch and compute time, summed into the result and, when
 * asked, into its row.  `read` (a byte per tensor) marks tensors already fetched: a
 * constant is read once per request however many operators share it, a graph input
 * once per example by the first operator that reads it.  The sizes' overflow is
 * sticky, tested before an operator's row is written and before the next operator is
 * counted, so the error and the rows written are those of a test after every step. */
mc_status_t mc__check_operators(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r,
                               uint8_t *read, mc_check_op_t *rows, mc_problem_t *problem)
{
    const int32_t *t, *end;
    int32_t k;
    double weights_speed = b->regions[c->weights_region].read_bytes_per_second;
    double arena_speed = b->regions[c->arena_region].read_bytes_per_second;
    bool weights_charged = (b->rates_include_region & (1u << c->weights_region)) == 0;
    bool arena_charged = (b->rates_include_region & (1u << c->arena_region)) == 0;
    bool overflow = false;
    memset(read, 0, (size_t)g->n_tensors);
    for (t = g->inputs, end = t + g->n_inputs; t < end; t++) {
        read[*t] = 2; /* a graph input not yet read */
    }
    for (k = 0; k < (int32_t)g->n_ops; k++) { /* validated: within MC_MAX_OPS */
        const mc_op_t *op = &g->ops[k];
        int64_t macs = 0, other = 0, ops, constants = 0, activations = 0, weights = 0;
        int32_t cls = opclass(op->kind);
        double rate = rate_of(b, cls, r->numeric, r->kernels), compute_seconds = 0, fetch_seconds = 0;
        if (mc_op_counts_of(g, k, &macs, &other) != MC_OK) { /* (its only failure: an overflow) */
            return op_overflow(problem, k);
        }
        ops = mc_add_or_flag(mc_mul_or_flag(macs, 2, &overflow), other, &overflow);
        macs = mc_mul_or_flag(macs, c->batch, &overflow);
        ops = mc_mul_or_flag(ops, c->batch, &overflow);
        mc__accumulate(&r->macs, macs, &overflow);
        mc__accumulate(&r->operations, ops, &overflow);
        mc__accumulate(&r->operations_by_class[cls], ops, &overflow);
        for (t = g->op_tensors + op->first_input, end = t + op->n_inputs; t < end; t++) {
            const mc_tensor_t *in;
            int64_t *fetched = NULL;
            if (*t < 0) {
                continue;
            }
            in = &g->tensors[*t];
            /* its row counts every constant it reads, the fetch only the first reading */
            if (rows != NULL && (in->flags & MC_TENSOR_CONSTANT)) {
                mc__accumulate_tensor(&weights, in, &overflow);
            }
            if ((in->flags & MC_TENSOR_CONSTANT) && read[*t] == 0) {
                fetched = &constants;
            } else if (read[*t] == 2) {
                fetched = &activations;
            }
            if (fetched != NULL) {
                mc__accumulate_tensor(fetched, in, &overflow);
                read[*t] = 1;
            }
        }
        for (t = g->op_tensors + op->first_output, end = t + op->n_outputs; t < end; t++) {
            mc__accumulate_tensor(&activations, &g->tensors[*t], &overflow);
        }
        activations = mc_mul_or_flag(activations, c->batch, &overflow);
        if (overflow) {
            return op_overflow(problem, k);
        }
        /* Traffic the rates include is not fetched again. */
        add_seconds(&compute_seconds, ops, rate, &r->timed);
        add_seconds(&fetch_seconds, weights_charged ? constants : 0, weights_speed, &r->timed);
        add_seconds(&fetch_seconds, arena_charged ? activations : 0, arena_speed, &r->timed);
        r->compute_seconds_by_class[cls] += compute_seconds;
        r->latency.fetch_seconds += fetch_seconds;
        if (rows != NULL) {
            rows[k].macs = macs;
            rows[k].operations = ops;
            rows[k].weights_bytes = weights;
            /* (0 when it overflows: the rows start zeroed) */
            rows[k].fetch_bytes = mc_add_or_flag(constants, activations, &overflow);
            if (overflow) {
                return op_overflow(problem, k);
            }
            rows[k].fetch_seconds = fetch_seconds;
            rows[k].compute_seconds = compute_seconds;
            rows[k].seconds = fetch_seconds + compute_seconds;
        }
    }
    return MC_OK;
}

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
    /* Loaded, the weights come with the whole file: TFLM reads the model in place, its
     * tables and operand lists beside the weights, so a MicroPython board that reads the
     * file into its heap holds every byte of it. */
    r->loaded_model_bytes = 0;
    if (c->weights_region != MC_REGION_FLASH) {
        r->loaded_model_bytes = c->model_file_bytes > r->weights_bytes ? c->model_file_bytes : r->weights_bytes;
        mc__accumulate(&need[c->weights_region], r->loaded_model_bytes, &overflow);
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
