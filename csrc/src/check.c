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
 * Steps 4 to 7 are check_resources.c's, each operator's time included.
 *
 * The check's memory is the caller's scratch: mc_check_graph's beside a graph the
 * caller holds, mc_check_file's with the graph in it.  Steps 1 and 3-7 need the graph,
 * the planners of step 2 only the buffers' arrays, so a graph mc_check_file reads from
 * the file is overwritten by the planners' work and read again after them: a board
 * never holds the graph and the planners' work at once.
 */
#include <stddef.h>
#include <string.h>

#include "check_internal.h"
#include "checked.h"
#include "graph.h"
#include "memcore.h"
#include "out_of_line.h"
#include "tflm_internal.h"

#define ARENA_ALIGNMENT 16

/* The result being built and the planner's answer, in the caller's scratch after the
 * work area: both are large for a board's stack (1 KB for the whole check). */
typedef struct {
    mc_check_t result;
    mc_plan_t plan;
} head_t;

/* Where the check's arrays sit in the caller's scratch: the work area first, then the
 * head and the buffers' arrays at the end.  The work is in two phases: while the graph
 * is needed (before and after the planners), and the planners', which need only the
 * buffers' arrays.  mc_check_file reads the graph into the start of its scratch, with
 * the graph's phase's work after it; the planners' work then overwrites it, and the
 * graph is read again after them. */
typedef struct {
    int32_t n_buffers;        /* at most MC_PLAN_MAX_BUFFERS (mc_plan_scratch_bytes refuses more) */
    int32_t n_planner;        /* at most this many go to the planners (set_apart_untouched) */
    uint32_t tflm_flags;      /* MC_TFLM_* for the configuration */
    int32_t graph_work_bytes; /* with the graph: validation, TFLM's buffers and model, live bytes */
    int32_t plan_bytes;       /* the planners' work */
    int32_t n_scopes;         /* TFLM's scopes + 1 (the shifted lifetimes' range): n_ops + 2
                                 without control flow */
    bool file_plan;           /* the file has an offline plan: its offsets are an array */
    int32_t arrays_bytes;     /* the head and the buffers' arrays, after the work area */
} layout_t;

/* How many of the graph's n buffers the planners may be given: every buffer but the
 * tensors no operator and no subgraph lists, which set_apart_untouched keeps from them.
 * Such a tensor is known only once the lifetimes are walked, which takes memory, so
 * this counts what bounds them: a tensor the walk touches is in an operator's list or
 * a subgraph's inputs or outputs, one entry at least each (the kernels' scratch
 * buffers, n less the planned tensors, are all counted).  All n when the file's plan
 * places a tensor: it may be one of them, and the others must then fit around it. */
static int32_t planner_buffers(const mc_graph_t *g, int32_t n)
{
    const int32_t *plan = mc__offline_offsets(g);
    int64_t listed = g->n_op_tensors + g->n_inputs + g->n_outputs;
    int32_t tensors = 0, i; /* within MC_MAX_TENSORS (mc_graph_structure has passed g) */
    for (i = 0; g->subgraphs != NULL && i < (int32_t)g->n_subgraphs; i++) {
        listed += g->subgraphs[i].n_inputs + g->subgraphs[i].n_outputs;
    }
    for (i = 0; i < (int32_t)g->n_tensors; i++) {
        if (mc__tflm_planned(g, i)) {
            if (plan != NULL && plan[i] != -1) {
                return n;
            }
            tensors++;
        }
    }
    /* the tensors listed, and one buffer standing for all the others */
    return n - tensors + (listed < tensors ? (int32_t)listed + 1 : tensors);
}

/* No size here is overflow-checked, and all are int32: once mc_tflm_buffer_count has
 * passed the graph's structure (mc_graph_structure) its counts are within MC_MAX_*
 * (10^6 tensors and operators), and mc_plan_scratch_bytes refuses more than
 * MC_PLAN_MAX_BUFFERS (10^6) buffers, so every array below is under 2^25 bytes, the
 * planner's work area at most 64 MB and TFLM's model's a word a tensor and two an
 * operator: the total stays under 2^31. */
static mc_status_t layout(const mc_graph_t *g, const mc_check_config_t *c, const mc_board_t *b, layout_t *l,
                          mc_problem_t *problem)
{
    int64_t tflm_scratch = 0, validate = 0, plan = 0, n_buffers = 0;
    int32_t n, work, live;
    l->tflm_flags = (c->flags & MC_CHECK_ALLOW_UNKNOWN_OPS) ? MC_TFLM_ALLOW_UNKNOWN : 0u;
    MC_TRY(mc_graph_validate_scratch_bytes(g->n_tensors, &validate));
    MC_TRY(mc_tflm_buffer_count(g, b->target, c->kernels, l->tflm_flags, &n_buffers, &tflm_scratch, problem));
    /* every buffer within the planners' limit, as before; then the scratch for those
     * the planners take (fewer: within it too) */
    MC_TRY(mc_plan_scratch_bytes(n_buffers, &plan));
    l->n_buffers = n = (int32_t)n_buffers;
    l->file_plan = mc__offline_offsets(g) != NULL;
    l->n_planner = planner_buffers(g, n);
    (void)mc_plan_scratch_bytes(l->n_planner, &plan);
    (void)mc__tflm_walk(g, NULL, &l->n_scopes); /* checked by mc_tflm_buffer_count */
    l->n_scopes++;
    /* bytes and buffers live per scope (int64 each), then a flag per tensor; with
     * several subgraphs, the lifetimes' walk first (its operators' scopes) */
    live = l->n_scopes * 2 * (int32_t)sizeof(int64_t) + (int32_t)g->n_tensors +
           (g->subgraphs != NULL ? 2 * (int32_t)sizeof(int32_t) * (int32_t)g->n_ops : 0);
    work = (int32_t)validate;
    work = (int32_t)tflm_scratch > work ? (int32_t)tflm_scratch : work;
    work = live > work ? live : work;
    l->graph_work_bytes = work;
    l->plan_bytes = (int32_t)plan;
    /* the head, sizes and the file's offsets when it has a plan (int64; the planners
     * give their arenas only: the check keeps no offsets); first, last, owner (int32);
     * each array starts 8-byte aligned */
    l->arrays_bytes = ((int32_t)sizeof(head_t) + 7) / 8 * 8 + n * (l->file_plan ? 2 : 1) * (int32_t)sizeof(int64_t) +
                      (n * 3 * (int32_t)sizeof(int32_t) + 7) / 8 * 8;
    return MC_OK;
}

/* The work area beside a graph the caller holds (mc_check_graph): both phases, to 8
 * bytes (the arrays after it are 8-byte aligned). */
static int32_t work_bytes(const layout_t *l)
{
    return ((l->plan_bytes > l->graph_work_bytes ? l->plan_bytes : l->graph_work_bytes) + 7) & ~7;
}

/* All mc_check_file takes: the graph's phase (the graph as the reader lays it out, its
 * work after it), or the planners' if larger, then the arrays.  With in_place, the
 * file is in memory and its operand lists and shapes are read there (tflite_reader.c). */
static int64_t file_bytes(const mc_graph_t *g, const layout_t *l, bool in_place)
{
    int64_t with_graph = l->graph_work_bytes + mc__tflite_read_bytes(g, in_place);
    return l->arrays_bytes + (((l->plan_bytes > with_graph ? l->plan_bytes : with_graph) + 7) & ~(int64_t)7);
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

/* Whether the reader left the graph's operand lists and shapes in the file. */
static bool in_file(const mc_graph_t *g)
{
    return (g->flags & MC_GRAPH_IN_FILE) != 0;
}

/* Either entry point's scratch: beside the caller's graph, or with the file's graph in
 * it.  (layout's mc_tflm_buffer_count passes the graph's structure first: its counts
 * hold for mc__tflite_read_bytes.) */
static mc_status_t scratch_for(const mc_graph_t *graph, const mc_board_t *board, const mc_check_config_t *config,
                               bool with_graph, int64_t *scratch_bytes, mc_problem_t *problem)
{
    layout_t l;
    if (any_null(graph, board, config, scratch_bytes)) {
        return MC_E_NULL;
    }
    MC_TRY(mc__check_inputs(board, config));
    MC_TRY(layout(graph, config, board, &l, problem));
    *scratch_bytes = with_graph ? file_bytes(graph, &l, in_file(graph)) : l.arrays_bytes + work_bytes(&l);
    return MC_OK;
}

mc_status_t mc_check_scratch_bytes(const mc_graph_t *graph, const mc_board_t *board,
                                   const mc_check_config_t *config, int64_t *scratch_bytes,
                                   mc_problem_t *problem)
{
    return scratch_for(graph, board, config, false, scratch_bytes, problem);
}

mc_status_t mc_check_file_scratch_bytes(const mc_graph_t *graph, const mc_board_t *board,
                                        const mc_check_config_t *config, int64_t *scratch_bytes,
                                        mc_problem_t *problem)
{
    return scratch_for(graph, board, config, true, scratch_bytes, problem);
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

void mc__accumulate_tensor(int64_t *sum, const mc_tensor_t *t, bool *overflow)
{
    mc__accumulate(sum, mc__tensor_bytes(t), overflow);
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
            mc__accumulate(&r->parameters, mc__dims_product(1, t, 0, t->rank, &overflow), &overflow);
            mc__accumulate_tensor(&r->weights_bytes, t, &overflow);
            float_weights = float_weights || t->dtype == MC_DTYPE_FLOAT32;
        } else if ((t->flags & MC_TENSOR_VARIABLE) == 0) {
            mc__accumulate_tensor(&r->activation_bytes, t, &overflow);
        }
    }
    for (in = g->inputs, end = in + g->n_inputs; in < end; in++) {
        mc__accumulate_tensor(&r->input_bytes, &g->tensors[*in], &overflow);
    }
    /* ESP-NN and CMSIS-NN optimise int8 kernels: a model with float weights runs
     * TFLM's reference kernels whatever the configuration asks for. */
    r->numeric = float_weights ? MC_NUMERIC_FLOAT32 : MC_NUMERIC_INT8;
    return overflow ? MC_E_OVERFLOW : MC_OK;
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
    mc_scopes_t walk = {NULL, NULL, NULL, NULL};
    mc_live_t summary;
    if (g->subgraphs != NULL) { /* the operators' first scopes (and last, after them) */
        walk.ops = scopes;
        memset(scopes, 0, 2 * (size_t)n_ops * sizeof *scopes);
        (void)mc__tflm_walk(g, &walk, &i);
    }
    MC_TRY(mc_live_bytes(sizes, first, last, n, ARENA_ALIGNMENT, n_scopes, live, count, &summary));
    for (i = 0; i < n; i++) {
        if (owner[i] < 0) {
            rows[-1 - owner[i]].scratch_bytes += sizes[i];
        }
    }
    for (k = 0; k < n_ops; k++) {
        int32_t at = g->subgraphs != NULL ? scopes[k] : k + 2;
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

/* The check's arrays in a scratch of `bytes` (layout's), and the work area before them:
 * after `graph_bytes` (a graph read into the scratch's start) while the graph is
 * needed, all of it for the planners. */
typedef struct {
    layout_t l;
    mc_check_t *r;
    mc_plan_t *plan; /* one at a time, in the head */
    int64_t *sizes, *fixed; /* fixed: the file's offsets, when it has a plan */
    int32_t *first, *last, *owner;
    uint8_t *work;       /* the graph's phase's */
    int64_t work_bytes;
    int64_t plan_bytes;  /* the planners' work: from the scratch's start */
} parts_t;

static mc_status_t carve(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, void *scratch,
                         int64_t bytes, int64_t graph_bytes, parts_t *p, mc_problem_t *problem)
{
    int32_t n;
    uint8_t *head;
    MC_TRY(layout(g, c, b, &p->l, problem));
    n = p->l.n_buffers;
    p->plan_bytes = ((bytes - p->l.arrays_bytes) & ~(int64_t)7);
    p->work = (uint8_t *)scratch + graph_bytes;
    p->work_bytes = p->plan_bytes - graph_bytes;
    if (p->work_bytes < (graph_bytes != 0 ? p->l.graph_work_bytes : work_bytes(&p->l)) ||
        p->plan_bytes < p->l.plan_bytes) {
        return MC_E_SCRATCH;
    }
    head = (uint8_t *)scratch + p->plan_bytes;
    p->r = &((head_t *)(void *)head)->result;
    p->plan = &((head_t *)(void *)head)->plan;
    p->sizes = (int64_t *)(void *)(head + (sizeof(head_t) + 7) / 8 * 8);
    p->fixed = p->sizes + n;
    p->first = (int32_t *)(p->fixed + (p->l.file_plan ? n : 0));
    p->last = p->first + n;
    p->owner = p->last + n;
    return MC_OK;
}

/* Buffer `from` takes place `to`, whose buffer no operator touches (lifetime 0 to 0)
 * takes place `from`. */
static void trade_places(parts_t *p, int32_t to, int32_t from)
{
    int64_t size = p->sizes[from];
    int32_t owner = p->owner[from];
    p->sizes[from] = p->sizes[to];
    p->owner[from] = p->owner[to];
    p->first[to] = p->first[from];
    p->last[to] = p->last[from];
    p->first[from] = p->last[from] = 0;
    p->sizes[to] = size;
    p->owner[to] = owner;
}

/*
 * The buffers no operator touches (lifetime 0 to 0: TFLM's scope -1, before its first)
 * are live with each other only, so every planner stacks them from offset 0 apart from
 * the rest: to the planners they are one buffer of their aligned bytes stacked.  They
 * are moved after the others, whose order (the planners' ties) is kept, and the first
 * of them stands for them all, with that size while the planners run (*moved keeps its
 * own): a model padded with unused tensors costs the check their 20 bytes of arrays
 * each, not the planners' work as well.  Not when the file's plan places a tensor
 * (planner_buffers: the planners take all n).  Returns how many buffers the planners
 * take.
 */
static int32_t set_apart_untouched(parts_t *p, int64_t *moved)
{
    int32_t i, kept = 0, n = p->l.n_buffers;
    int64_t stacked = 0;
    bool overflow = false;
    /* With a file's plan, fewer than n only when it places no tensor (planner_buffers):
     * its offsets are all -1 then, and need no moving. */
    if (p->l.file_plan && p->l.n_planner == n) {
        return n;
    }
    for (i = 0; i < n; i++) {
        if (p->last[i] == 0) {
            /* its size, then the padding to the next multiple of 16 (sizes are >= 0) */
            mc__accumulate(&stacked, p->sizes[i], &overflow);
            mc__accumulate(&stacked, -p->sizes[i] & (ARENA_ALIGNMENT - 1), &overflow);
        } else {
            if (kept < i) { /* [kept, i) are all untouched: the first of them moves to i */
                trade_places(p, kept, i);
            }
            kept++;
        }
    }
    if (kept == n) {
        return n;
    }
    *moved = p->sizes[kept];
    /* past 64 bits: a size the planners refuse, as they refused these buffers' sum */
    p->sizes[kept] = overflow ? INT64_MAX : stacked;
    return kept + 1;
}

/* Steps 1 and 2 of the check: the graph is validated, its buffers found and the file's
 * offsets taken; then both plans, which need the buffers' arrays only (and may
 * overwrite a graph read into the scratch). */
static mc_status_t plan_phase(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, void *scratch,
                              int64_t bytes, int64_t graph_bytes, mc_problem_t *problem)
{
    parts_t p;
    mc_check_t *r;
    int64_t validate_bytes = 0, bad[2] = {-1, -1}, moved = 0;
    int32_t i, n;
    bool usable;

    MC_TRY(mc__check_inputs(b, c));
    MC_TRY(mc_graph_validate_scratch_bytes(g->n_tensors, &validate_bytes));
    if (bytes - graph_bytes < validate_bytes) {
        return MC_E_SCRATCH;
    }
    MC_TRY(mc_graph_validate(g, (uint8_t *)scratch + graph_bytes, bytes - graph_bytes, problem));
    MC_TRY(carve(g, b, c, scratch, bytes, graph_bytes, &p, problem));
    r = p.r;
    memset(r, 0, sizeof *r);
    r->timed = true;
    for (i = 0; i < MC_RESOURCE_COUNT; i++) {
        r->resources[i].fits = true; /* a resource not checked does not stand in the way */
    }
    r->tensors = g->n_tensors;
    r->ops = g->n_ops;
    r->buffers = p.l.n_buffers;
    /* What the board's boot check takes as its deployment gives it the file: mapped in
     * flash with the weights, its lists and shapes read in place where the file allows
     * (MC_GRAPH_MAPPABLE); read in pieces before it is loaded into RAM. */
    r->check_scratch_bytes = file_bytes(g, &p.l, c->weights_region == MC_REGION_FLASH &&
                                                     (g->flags & MC_GRAPH_MAPPABLE) != 0);
    MC_TRY(mc_tflm_buffers(g, b->target, c->kernels, p.l.tflm_flags, p.work, p.work_bytes, p.sizes, p.first, p.last,
                           p.owner, p.l.n_buffers, problem));
    usable = !p.l.file_plan || mc__tflm_take_offsets(g, p.sizes, p.owner, p.l.n_buffers, p.fixed, bad);
    n = set_apart_untouched(&p, &moved);
    /* planner_buffers' bound holds by construction; a graph that broke it is refused */
    if (n > p.l.n_planner) {
        return MC_E_RANGE;
    }
    MC_TRY(mc__tflm_place(usable, bad, p.sizes, p.first, p.last, p.owner, n, scratch, p.plan_bytes,
                          p.l.file_plan ? p.fixed : NULL, NULL, p.plan, problem));
    r->arena_tflm_bytes = p.plan->arena_bytes;
    r->arena_lower_bound_bytes = p.plan->lower_bound_bytes;
    MC_TRY(mc_plan(MC_PLAN_BEST, p.sizes, p.first, p.last, n, ARENA_ALIGNMENT, MC_PLAN_DEFAULT_STEPS, scratch,
                   p.plan_bytes, NULL, p.plan));
    r->arena_best_bytes = p.plan->arena_bytes;
    r->best_is_optimal = p.plan->proven_optimal;
    if (n < p.l.n_buffers) { /* the rest of the check reads every buffer's own size */
        p.sizes[n - 1] = moved;
    }
    return MC_OK;
}

/* Steps 3 to 7, the graph read again if it was the file's: TFLM's tail around its head,
 * the model's totals, each operator's time (and its row), then check_resources.c's. */
static mc_status_t rest_phase(const mc_graph_t *g, const mc_board_t *b, const mc_check_config_t *c, void *scratch,
                              int64_t bytes, int64_t graph_bytes, mc_check_t *out, mc_check_op_t *rows,
                              mc_problem_t *problem)
{
    parts_t p;
    mc_check_t *r;
    int32_t i;
    mc_status_t rc;
    bool overflow = false;
    MC_TRY(carve(g, b, c, scratch, bytes, graph_bytes, &p, problem));
    r = p.r;
    for (i = 0; i < p.l.n_buffers; i++) {
        if (p.owner[i] < 0) {
            mc__accumulate(&r->scratch_buffer_bytes, p.sizes[i], &overflow);
        }
    }
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    rc = mc_tflm_model(g, b->target, c->kernels, p.l.tflm_flags, r->arena_tflm_bytes, p.l.n_buffers, p.work,
                       p.work_bytes, &r->tflm, problem);
    if (rc == MC_E_OVERFLOW && problem != NULL && problem->kind == MC_PROBLEM_NONE) { /* (validated: NONE) */
        return arena_too_large(problem, p.sizes, p.owner, p.l.n_buffers);
    }
    MC_TRY(rc);

    MC_TRY(totals(g, r));
    r->kernels = r->numeric == MC_NUMERIC_FLOAT32 ? (int32_t)MC_KERNELS_REFERENCE : (int32_t)c->kernels;
    {
        int64_t *live = (int64_t *)(void *)p.work, *count = live + p.l.n_scopes;
        if (rows != NULL) {
            memset(rows, 0, (size_t)g->n_ops * sizeof *rows); /* validated: within MC_MAX_OPS */
            MC_TRY(live_rows(g, p.sizes, p.first, p.last, p.owner, p.l.n_buffers, p.l.n_scopes, live, count, rows));
        }
        MC_TRY(mc__check_operators(g, b, c, r, (uint8_t *)(count + p.l.n_scopes), rows, problem));
    }
    MC_TRY(mc__check_resources(b, c, r));
    *out = *r;
    return MC_OK;
}

mc_status_t mc_check_graph(const mc_graph_t *graph, const mc_board_t *b, const mc_check_config_t *c, void *scratch,
                           int64_t scratch_bytes, mc_check_t *out, mc_check_op_t *rows, mc_problem_t *problem)
{
    if (any_null(graph, b, c, out)) {
        return MC_E_NULL;
    }
    if (scratch == NULL || ((uintptr_t)scratch & 7u) != 0) {
        return MC_E_SCRATCH;
    }
    MC_TRY(plan_phase(graph, b, c, scratch, scratch_bytes, 0, problem));
    return rest_phase(graph, b, c, scratch, scratch_bytes, 0, out, rows, problem);
}

mc_status_t mc_check_file(const mc_source_t *source, const mc_board_t *board, const mc_check_config_t *config,
                          void *scratch, int64_t scratch_bytes, mc_check_t *out, mc_graph_t *graph,
                          mc_problem_t *problem)
{
    int64_t graph_bytes;
    mc_status_t rc;
    if (any_null(source, board, config, out) || graph == NULL) {
        return MC_E_NULL;
    }
    memset(graph, 0, sizeof *graph); /* no operators until the file is read */
    if (scratch == NULL || ((uintptr_t)scratch & 7u) != 0) {
        return MC_E_SCRATCH;
    }
    /* The graph at the scratch's start: the reader's state after its arrays is part of
     * the graph's bytes, free once it returns. */
    MC_TRY(mc_tflite_read(source, scratch, scratch_bytes, graph, problem));
    graph_bytes = mc__tflite_read_bytes(graph, in_file(graph));
    rc = plan_phase(graph, board, config, scratch, scratch_bytes, graph_bytes, problem);
    /* the same graph again (the planners may have overwritten it), also for the caller
     * to name the place of a problem */
    MC_TRY(mc_tflite_read(source, scratch, graph_bytes, graph, NULL));
    MC_TRY(rc);
    return rest_phase(graph, board, config, scratch, scratch_bytes, graph_bytes, out, NULL, problem);
}
