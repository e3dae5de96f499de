/*
 * The check (memcore.h §12): one model, one board, one configuration — every number
 * `memcore check` reports and the verdict, computed once for host and board.
 *
 * The steps, in order:
 *   1. the graph is validated, and refused if TFLM's model of it is not one memcore
 *      makes (several subgraphs);
 *   2. the head's buffers (activation tensors, kernel scratch) get TFLM's placement
 *      (around the file's offline plan, when it has one) and memcore's, on the same
 *      buffers, with the liveness lower bound;
 *   3. TFLM's tail, minimum and recommended arena around TFLM's head;
 *   4. memory per region: the arena (scaled by the batch; TFLM's overhead is not) and
 *      weights loaded into RAM or PSRAM count where they live; the model file counts
 *      against the flash budget;
 *   5. time: each operator's operations at its class's rate for the model's numeric
 *      type and kernels, plus fetch time for traffic the rates do not already include,
 *      plus the fixed setup;
 *   6. energy per request, over a duty cycle, against a battery;
 *   7. the verdict: memory or flash short is "does not fit"; otherwise a missed
 *      latency or battery budget is "misses budget"; the resource that runs out first
 *      is the one with the largest need / limit among those that decide the verdict.
 * Steps 4 to 7 are check_resources.c's.
 */
#include <stddef.h>
#include <string.h>

#include "check_internal.h"
#include "checked.h"
#include "floats.h"
#include "graph.h"
#include "memcore.h"
#include "out_of_line.h"
#include "tflm_internal.h"

#define ARENA_ALIGNMENT 16

/* Operator codes the rate classes name. */
enum { CONV_2D = 3, DEPTHWISE_CONV_2D = 4, FULLY_CONNECTED = 9, TRANSPOSE_CONV = 67, BATCH_MATMUL = 126 };

/* The result being built and the planner's answer, at the start of the caller's
 * scratch: both are large for a board's stack (1 KB for the whole check). */
typedef struct {
    mc_check_t result;
    mc_plan_t plan;
} head_t;

/* Where the check's arrays sit in the caller's scratch. */
typedef struct {
    int32_t n_buffers;    /* at most MC_PLAN_MAX_BUFFERS (mc_plan_scratch_bytes refuses more) */
    uint32_t tflm_flags;  /* MC_TFLM_* for the configuration */
    int32_t work_bytes;   /* the shared area: validation, lifetimes, planning, live bytes */
    int32_t n_scopes;     /* TFLM's scopes + 1 (the shifted lifetimes' range): n_ops + 2
                             without control flow */
    int32_t total_bytes;
} layout_t;

/* No size here is overflow-checked, and all are int32: once mc_tflm_buffer_count has
 * passed the graph's structure (mc_graph_structure) its counts are within MC_MAX_*
 * (10^6 tensors and operators), and mc_plan_scratch_bytes refuses more than
 * MC_PLAN_MAX_BUFFERS (10^6) buffers, so every array below is under 2^25 bytes, the
 * planner's work area at most 64 MB and TFLM's model's a few words a tensor: the total
 * stays under 2^31. */
static mc_status_t layout(const mc_graph_t *g, const mc_check_config_t *c, const mc_board_t *b, layout_t *l,
                          mc_problem_t *problem)
{
    int64_t tflm_scratch = 0, validate = 0, plan = 0, n_buffers = 0;
    int32_t n, work, live;
    l->tflm_flags = (c->flags & MC_CHECK_ALLOW_UNKNOWN_OPS) ? MC_TFLM_ALLOW_UNKNOWN : 0u;
    MC_TRY(mc_graph_validate_scratch_bytes(g->n_tensors, &validate));
    MC_TRY(mc_tflm_buffer_count(g, b->target, c->kernels, l->tflm_flags, &n_buffers, &tflm_scratch, problem));
    MC_TRY(mc_plan_scratch_bytes(n_buffers, &plan));
    l->n_buffers = n = (int32_t)n_buffers;
    (void)mc__tflm_walk(g, NULL, NULL, &l->n_scopes); /* checked by mc_tflm_buffer_count */
    l->n_scopes++;
    /* bytes and buffers live per scope (int64 each), then a flag per tensor; with
     * several subgraphs, the lifetimes' walk first (its operators' scopes) */
    live = l->n_scopes * 2 * (int32_t)sizeof(int64_t) + (int32_t)g->n_tensors +
           (g->subgraphs != NULL ? 8 * (int32_t)(g->n_tensors + g->n_ops) : 0);
    work = (int32_t)validate;
    work = (int32_t)tflm_scratch > work ? (int32_t)tflm_scratch : work;
    work = (int32_t)plan > work ? (int32_t)plan : work;
    l->work_bytes = work = live > work ? live : work;
    /* the head, sizes and two offset arrays (int64: TFLM's plan is made around the
     * file's offsets, held in the other); first, last, owner (int32); each array starts
     * 8-byte aligned */
    l->total_bytes = work + ((int32_t)sizeof(head_t) + 7) / 8 * 8 + n * 3 * (int32_t)sizeof(int64_t) +
                     (n * 3 * (int32_t)sizeof(int32_t) + 7) / 8 * 8;
    return MC_OK;
}

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

static mc_status_t check_inputs(const mc_board_t *b, const mc_check_config_t *c)
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

/* Whether any of an entry point's four required pointers is NULL (out of line: gcc
 * turns each inlined test into a chain of conditional moves). */
OUT_OF_LINE static bool any_null(const void *p, const void *q, const void *r, const void *s)
{
    return p == NULL || q == NULL || r == NULL || s == NULL;
}

/* Out of line: inlined at both its call sites, its 64-bit stores cost more than a call. */
OUT_OF_LINE static mc_status_t refuse(mc_problem_t *p, int32_t kind, int64_t value)
{
    if (p != NULL) {
        p->kind = kind;
        p->op = p->tensor = p->other = p->at = -1;
        p->value = value;
    }
    return MC_E_UNSUPPORTED;
}

mc_status_t mc_check_scratch_bytes(const mc_graph_t *graph, const mc_board_t *board,
                                   const mc_check_config_t *config, int64_t *scratch_bytes,
                                   mc_problem_t *problem)
{
    layout_t l;
    if (any_null(graph, board, config, scratch_bytes)) {
        return MC_E_NULL;
    }
    MC_TRY(check_inputs(board, config));
    MC_TRY(layout(graph, config, board, &l, problem));
    *scratch_bytes = l.total_bytes;
    return MC_OK;
}

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
    (void)refuse(p, MC_PROBLEM_SIZE_OVERFLOW, -1);
    if (p != NULL) {
        p->op = k;
    }
    return MC_E_OVERFLOW;
}

/* TFLM's model of the arena overflowed: no arena holds the head's buffers.  The
 * problem names the largest, its tensor or the operator whose scratch it is (owner). */
static mc_status_t arena_too_large(mc_problem_t *p, const int64_t *sizes, const int32_t *owner, int32_t n)
{
    int32_t i, largest = 0;
    for (i = 1; i < n; i++) {
        largest = sizes[i] > sizes[largest] ? i : largest;
    }
    if (n > 0) {
        (void)refuse(p, MC_PROBLEM_ARENA_TOO_LARGE, sizes[largest]);
        if (p != NULL) {
            *(owner[largest] >= 0 ? &p->tensor : &p->op) = owner[largest] >= 0 ? owner[largest] : -1 - owner[largest];
        }
    }
    return MC_E_OVERFLOW;
}

/* *sum += bytes (or a count), by mc_add_or_flag: the sums here keep their overflow
 * sticky.  Out of line: passed the sum's address, each step costs less than loading
 * and storing it around mc_add_or_flag. */
OUT_OF_LINE void mc__accumulate(int64_t *sum, int64_t bytes, bool *overflow)
{
    *sum = mc_add_or_flag(*sum, bytes, overflow);
}

/* The model's totals: what it is, independent of the board.  Every step's overflow is
 * sticky, tested once at the end (nothing else here can fail, and r is the check's own
 * until it succeeds). */
static mc_status_t totals(const mc_graph_t *g, mc_check_t *r)
{
    const int32_t *in, *end;
    int32_t k;
    bool float_weights = false, overflow = false;
    for (k = 0; k < (int32_t)g->n_tensors; k++) { /* validated: within MC_MAX_TENSORS */
        const mc_tensor_t *t = &g->tensors[k];
        if (t->flags & MC_TENSOR_CONSTANT) {
            mc__accumulate(&r->parameters, mc_dims_product(1, t->dims, 0, t->rank, &overflow), &overflow);
            mc__accumulate(&r->weights_bytes, t->bytes, &overflow);
            float_weights = float_weights || t->dtype == MC_DTYPE_FLOAT32;
        } else if ((t->flags & MC_TENSOR_VARIABLE) == 0) {
            mc__accumulate(&r->activation_bytes, t->bytes, &overflow);
        }
    }
    for (in = g->inputs, end = in + g->n_inputs; in < end; in++) {
        mc__accumulate(&r->input_bytes, g->tensors[*in].bytes, &overflow);
    }
    /* ESP-NN and CMSIS-NN optimise int8 kernels: a model with float weights runs
     * TFLM's reference kernels whatever the configuration asks for. */
    r->numeric = float_weights ? MC_NUMERIC_FLOAT32 : MC_NUMERIC_INT8;
    return overflow ? MC_E_OVERFLOW : MC_OK;
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
static mc_status_t operators(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, mc_check_t *r,
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
                mc__accumulate(&weights, in->bytes, &overflow);
            }
            if ((in->flags & MC_TENSOR_CONSTANT) && read[*t] == 0) {
                fetched = &constants;
            } else if (read[*t] == 2) {
                fetched = &activations;
            }
            if (fetched != NULL) {
                mc__accumulate(fetched, in->bytes, &overflow);
                read[*t] = 1;
            }
        }
        for (t = g->op_tensors + op->first_output, end = t + op->n_outputs; t < end; t++) {
            mc__accumulate(&activations, g->tensors[*t].bytes, &overflow);
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

/* With several subgraphs, what the reader adds to the first's inputs and outputs: the
 * subgraph array (in int32 words) and the other subgraphs' inputs and outputs. */
static int64_t io_of_subgraphs(const mc_graph_t *g)
{
    int32_t s;
    int64_t words = 0;
    for (s = 1; g->subgraphs != NULL && s < (int32_t)g->n_subgraphs; s++) {
        words += (int64_t)g->subgraphs[s].n_inputs + g->subgraphs[s].n_outputs;
    }
    return g->subgraphs != NULL ? words + g->n_subgraphs * (int64_t)(sizeof(mc_subgraph_t) / 4) : 0;
}

/* Bytes and buffers of the head live while each operator runs (scope k + 2 in the
 * shifted lifetimes: TFLM's scope k + 1, plus one; with control flow, the scope the
 * walk gives it, in `scopes`), into the rows with each operator's own scratch; the
 * first operator with the most bytes live is the peak.  live and count hold n_scopes
 * scopes. */
static mc_status_t live_rows(const mc_graph_t *g, const int64_t *sizes, const int32_t *first, const int32_t *last,
                             const int32_t *owner, int32_t n, int32_t n_scopes, int64_t *live, int64_t *count,
                             mc_check_op_t *rows)
{
    int32_t i, k, peak = 0, n_ops = (int32_t)g->n_ops; /* validated: within MC_MAX_OPS */
    int32_t *scopes = (int32_t *)(void *)(count + n_scopes);
    mc_live_t summary;
    if (g->subgraphs != NULL) { /* first: n_tensors + n_ops entries, then last */
        (void)mc__tflm_walk(g, scopes, scopes + g->n_tensors + n_ops, &i);
    }
    MC_TRY(mc_live_bytes(sizes, first, last, n, ARENA_ALIGNMENT, n_scopes, live, count, &summary));
    for (i = 0; i < n; i++) {
        if (owner[i] < 0) {
            rows[-1 - owner[i]].scratch_bytes += sizes[i];
        }
    }
    for (k = 0; k < n_ops; k++) {
        int32_t at = g->subgraphs != NULL ? scopes[g->n_tensors + k] + 1 : k + 2;
        rows[k].live_bytes = live[at];
        rows[k].live_buffers = count[at];
        if (rows[k].live_bytes > rows[peak].live_bytes) {
            peak = k;
        }
    }
    if (n_ops > 0) {
        rows[peak].peak = true;
    }
    return MC_OK;
}

mc_status_t mc_check_graph(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, void *scratch,
                           int64_t scratch_bytes, mc_check_t *out, mc_check_op_t *rows, mc_problem_t *problem)
{
    layout_t l;
    mc_check_t *r;
    mc_plan_t *plan; /* one at a time, in the head */
    int64_t *sizes, *offsets_tflm, *offsets_best, validate_bytes = 0;
    int32_t *first, *last, *owner, i, n_ops;
    mc_status_t rc;
    uint8_t *work;
    bool overflow = false;

    if (any_null(g, b, c, out)) {
        return MC_E_NULL;
    }
    MC_TRY(check_inputs(b, c));
    if (scratch == NULL || ((uintptr_t)scratch & 7u) != 0) {
        return MC_E_SCRATCH;
    }
    MC_TRY(mc_graph_validate_scratch_bytes(g->n_tensors, &validate_bytes));
    if (scratch_bytes < validate_bytes) {
        return MC_E_SCRATCH;
    }
    MC_TRY(mc_graph_validate(g, scratch, scratch_bytes, problem));
    MC_TRY(layout(g, c, b, &l, problem));
    if (scratch_bytes < l.total_bytes) {
        return MC_E_SCRATCH;
    }
    n_ops = (int32_t)g->n_ops; /* validated: within MC_MAX_OPS */
    r = &((head_t *)scratch)->result;
    plan = &((head_t *)scratch)->plan;
    sizes = (int64_t *)((uint8_t *)scratch + (sizeof(head_t) + 7) / 8 * 8);
    offsets_tflm = sizes + l.n_buffers; /* only the arenas are kept */
    offsets_best = offsets_tflm + l.n_buffers;
    first = (int32_t *)(offsets_best + l.n_buffers);
    last = first + l.n_buffers;
    owner = last + l.n_buffers;
    work = (uint8_t *)scratch + (l.total_bytes - l.work_bytes);

    memset(r, 0, sizeof *r);
    r->timed = true;
    for (i = 0; i < MC_RESOURCE_COUNT; i++) {
        r->resources[i].fits = true; /* a resource not checked does not stand in the way */
    }
    r->tensors = g->n_tensors;
    r->ops = g->n_ops;
    r->buffers = l.n_buffers;
    /* the graph's arrays (validated counts: small) rounded up to 8 bytes, as the
     * MicroPython module cuts its graph block back to them (mc_tflite_arrays_end) */
    /*  */
    /* (with an offline plan, its offsets: one per tensor among the int32 arrays) */
    r->check_scratch_bytes = (g->n_tensors * (int64_t)sizeof(mc_tensor_t) + g->n_ops * (int64_t)sizeof(mc_op_t) +
                              (g->n_op_tensors + g->n_inputs + g->n_outputs + io_of_subgraphs(g) +
                               (g->offline_offsets != NULL ? g->n_tensors : 0)) * (int64_t)sizeof(int32_t) + 7) /
                                 8 * 8 +
                             l.total_bytes;
    MC_TRY(mc_tflm_buffers(g, b->target, c->kernels, l.tflm_flags, work, l.work_bytes, sizes, first, last, owner,
                           l.n_buffers, problem));
    /* (memcore's offsets hold the file's until memcore's plan replaces them) */
    MC_TRY(mc_tflm_plan(g, sizes, first, last, owner, l.n_buffers, work, l.work_bytes, offsets_best,
                        offsets_tflm, plan, problem));
    r->arena_tflm_bytes = plan->arena_bytes;
    r->arena_lower_bound_bytes = plan->lower_bound_bytes;
    MC_TRY(mc_plan(MC_PLAN_BEST, sizes, first, last, l.n_buffers, ARENA_ALIGNMENT, MC_PLAN_DEFAULT_STEPS, work,
                   l.work_bytes, offsets_best, plan));
    r->arena_best_bytes = plan->arena_bytes;
    r->best_is_optimal = plan->proven_optimal;
    for (i = 0; i < l.n_buffers; i++) {
        if (owner[i] < 0) {
            mc__accumulate(&r->scratch_buffer_bytes, sizes[i], &overflow);
        }
    }
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    rc = mc_tflm_model(g, b->target, c->kernels, l.tflm_flags, r->arena_tflm_bytes, l.n_buffers, work, l.work_bytes,
                       &r->tflm, problem);
    if (rc == MC_E_OVERFLOW && problem != NULL && problem->kind == MC_PROBLEM_NONE) { /* (validated: NONE) */
        return arena_too_large(problem, sizes, owner, l.n_buffers);
    }
    MC_TRY(rc);

    MC_TRY(totals(g, r));
    r->kernels = r->numeric == MC_NUMERIC_FLOAT32 ? (int32_t)MC_KERNELS_REFERENCE : (int32_t)c->kernels;
    {
        int64_t *live = (int64_t *)(void *)work, *count = live + l.n_scopes;
        if (rows != NULL) {
            memset(rows, 0, (size_t)n_ops * sizeof *rows);
            MC_TRY(live_rows(g, sizes, first, last, owner, l.n_buffers, l.n_scopes, live, count, rows));
        }
        MC_TRY(operators(g, b, c, r, (uint8_t *)(count + l.n_scopes), rows, problem));
    }
    MC_TRY(mc__check_resources(b, c, r));
    *out = *r;
    return MC_OK;
}
