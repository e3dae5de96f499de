/*
 * TFLM's whole arena for a graph: MicroInterpreter::AllocateTensors() replayed step by
 * step on a model of its SingleArenaBufferAllocator, with the sizes of the op table
 * (tflm_ops.c) and the target's runtime structs (tflm_targets.c).
 *
 * The arena is [0, N): the head grows up from 0 (the scratch-request array during
 * Prepare, temporaries above it, the planned activations at the end), the tail grows
 * down from N.  Each step makes TFLM's own check:
 *   - a persistent allocation moves the tail to align_down(tail - bytes, align) and
 *     fails below the head or over the temporaries a kernel's Prepare holds (TFLM
 *     checks only the head, but then writes the buffer over those temporaries and
 *     fails or crashes: measured, e.g. a per-channel FULLY_CONNECTED needs 8 bytes
 *     per channel more than head_-only checking predicts);
 *   - a temporary goes at align_up(temp, align) and fails past the tail;
 *   - resizing the head (the scratch-request array, the final plan) fails past the
 *     tail; after each operator's Prepare that failure is ignored, as TFLM ignores
 *     FinishPrepareNodeAllocations' status;
 *   - the planner needs 40 bytes per planned buffer between the temporaries and the
 *     tail (GreedyMemoryPlanner::per_buffer_size()).
 * The sequence, in TFLM's order: the allocator objects; StartModelAllocation (builtin
 * data allocator, a 12-request scratch array in the head, SubgraphAllocations,
 * TfLiteEvalTensors, NodeAndRegistrations); every operator's builtin options; every
 * Init; every Prepare (its temporaries, persistent buffers and scratch requests), each
 * followed by resetting the temporaries and growing the request array by 12; the
 * scratch handles; CommitStaticMemoryPlan (subgraph offsets and the AllocationInfo
 * array as temporaries, variable tensors in the tail, the planner's working memory,
 * the head reserved for the plan); the input and output TfLiteTensors with their
 * quantization.
 *
 * Run once on an unbounded arena it gives the tail and RecordingMicroAllocator's
 * categories, and the scratch buffers the planner (mc_plan, MC_PLAN_TFLM) places with
 * the tensors; run again at a given N it says whether AllocateTensors() succeeds
 * there.  Every step is monotone in N, so the smallest arena is found by bisection,
 * exactly as measuring TFLM finds it.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "tflm_internal.h"

#define MAX_REQUESTS_PER_OP 12   /* kMaxScratchBuffersPerOp */
#define PLANNER_BYTES_PER_BUFFER 40
#define UNBOUNDED_ARENA ((int64_t)1 << 50)

static int64_t align_down(int64_t v, int64_t a)
{
    int64_t r = v % a;
    if (r < 0) {
        r += a;
    }
    return v - r;
}

static int64_t align_up(int64_t v, int64_t a)
{
    return -align_down(-v, a);
}

/* ---- the allocator ------------------------------------------------------------------ */

void mc__sim_persistent(mc_sim_t *s, int64_t bytes, int64_t align, int32_t category)
{
    int64_t at;
    if (s->failed || s->status != MC_OK) {
        return;
    }
    if (bytes < 0 || bytes > s->arena) {
        s->failed = true;
        return;
    }
    at = align_down(s->tail - bytes, align);
    /* TFLM checks only the head, but a persistent buffer laid over the temporaries a
     * kernel still holds is written over them (per-channel multipliers over the
     * output's TfLiteTensor): AllocateTensors() then fails or crashes.  What may be
     * overwritten harmlessly is the end of the last temporary: its zero-point array and
     * the quantization struct past its zero_point pointer (never read again; the
     * pointer is, by DeallocateTempTfLiteTensor). */
    if (at < s->head || at < s->protect) {
        s->failed = true;
        return;
    }
    s->usage[category].used_bytes += s->tail - at;
    s->usage[category].requested_bytes += bytes;
    s->usage[category].count += 1;
    s->tail = at;
}

void mc__sim_temp(mc_sim_t *s, int64_t bytes, int64_t align)
{
    int64_t at;
    if (s->failed || s->status != MC_OK) {
        return;
    }
    at = align_up(s->temp, align);
    /* TFLM's size_t subtraction would let a temporary that starts past the tail pass,
     * but it is then written over the tail's allocator objects: a failure too. */
    if (bytes < 0 || at > s->tail || s->tail - at < bytes) {
        s->failed = true;
        return;
    }
    s->temp = at + bytes;
    s->protect = s->temp;
}

void mc__sim_temp_tensor(mc_sim_t *s, int32_t tensor)
{
    const mc_tensor_t *t = &s->graph->tensors[tensor];
    mc__sim_temp(s, MC_SZ_BYTES(s->abi->tensor), MC_SZ_ALIGN(s->abi->tensor));
    if (t->quant_channels > 0 && (t->flags & MC_TENSOR_ZERO_POINT) != 0) {
        int64_t quantization;
        mc__sim_temp(s, MC_SZ_BYTES(s->abi->quantization), MC_SZ_ALIGN(s->abi->quantization));
        /* TfLiteAffineQuantization {scale, zero_point, quantized_dimension}: what follows
         * its zero_point pointer is not needed again. */
        quantization = s->temp - MC_SZ_BYTES(s->abi->quantization);
        mc__sim_temp(s, 4 + 4 * (int64_t)t->quant_channels, 4); /* TfLiteIntArray */
        s->protect = quantization + 2 * (int64_t)s->abi->pointer_bytes;
    }
}

void mc__sim_scratch(mc_sim_t *s, int64_t bytes)
{
    if (s->failed || s->status != MC_OK) {
        return;
    }
    if (s->requests != NULL) {
        mc_tflm_buffer_t *b;
        if (s->n_requests >= s->max_requests) {
            s->status = MC_E_SCRATCH;
            return;
        }
        b = &s->requests[s->n_requests];
        b->bytes = bytes;
        b->offset = 0;
        b->first_use = (int32_t)(s->op + 1); /* the operator's scope */
        b->last_use = (int32_t)(s->op + 1);
        b->tensor = -1;
        b->op = (int32_t)s->op;
    }
    s->n_requests++;
}

/* ResizeBuffer of the one resizable buffer at the arena start. */
static bool resize_head(mc_sim_t *s, int64_t bytes)
{
    if (s->tail < bytes) {
        return false;
    }
    s->head = bytes;
    s->temp = bytes;
    s->protect = bytes;
    return true;
}

static void persistent_struct(mc_sim_t *s, mc_size_t size, int64_t count, int32_t category)
{
    mc__sim_persistent(s, MC_SZ_BYTES(size) * count, MC_SZ_ALIGN(size), category);
}

/* ---- the replay -------------------------------------------------------------------------- */

typedef struct {
    const mc_graph_t *graph;
    mc_target_t target;
    int32_t vendor;
    bool allow_unknown;
    int64_t head_bytes;        /* the plan, once known */
    int64_t n_planned;         /* buffers the planner places */
} model_t;

static void interpreter_tensor(mc_sim_t *s, int32_t index)
{
    const mc_tensor_t *t = &s->graph->tensors[index];
    persistent_struct(s, s->abi->tensor, 1, MC_TFLM_PERSISTENT_TENSORS);
    if (t->quant_channels > 0 && (t->flags & MC_TENSOR_ZERO_POINT) != 0) {
        persistent_struct(s, s->abi->quantization, 1, MC_TFLM_QUANTIZATION);
        mc__sim_persistent(s, 4 + 4 * (int64_t)t->quant_channels, 4, MC_TFLM_QUANTIZATION);
    }
}

/* Everything up to the plan; the planner's inputs are then in s (scratch requests). */
static void replay_prepare(const model_t *m, mc_sim_t *s)
{
    const mc_graph_t *g = m->graph;
    const mc_target_abi_t *abi = s->abi;
    int64_t k;
    int32_t phase;

    persistent_struct(s, abi->arena_allocator, 1, MC_TFLM_UNRECORDED);
    persistent_struct(s, abi->planner, 1, MC_TFLM_UNRECORDED);
    persistent_struct(s, abi->micro_allocator, 1, MC_TFLM_UNRECORDED);
    /* StartModelAllocation */
    persistent_struct(s, abi->builtin_allocator, 1, MC_TFLM_UNRECORDED);
    if (!s->failed && !resize_head(s, MC_SZ_BYTES(abi->scratch_request) * MAX_REQUESTS_PER_OP)) {
        s->failed = true;
    }
    persistent_struct(s, abi->subgraph_allocations, 1, MC_TFLM_UNRECORDED);
    persistent_struct(s, abi->eval_tensor, g->n_tensors, MC_TFLM_EVAL_TENSORS);
    persistent_struct(s, abi->node, g->n_ops, MC_TFLM_NODES);
    /* RecordingMicroAllocator counts these arrays in structs, not allocations. */
    s->usage[MC_TFLM_EVAL_TENSORS].count += g->n_tensors - 1;
    s->usage[MC_TFLM_NODES].count += g->n_ops - 1;

    for (phase = 0; phase < 2; phase++) {
        for (k = 0; k < g->n_ops; k++) {
            const mc_op_t *op = &g->ops[k];
            s->op = k;
            if (!mc__op_modelled(op->kind, s->vendor)) {
                mc__op_unknown_bound(s, op, phase);
            } else if (phase == 0) {
                mc__op_parse(s, op);
            } else {
                mc__op_init(s, op);
            }
        }
    }
    for (k = 0; k < g->n_ops && !s->failed && s->status == MC_OK; k++) {
        const mc_op_t *op = &g->ops[k];
        s->op = k;
        if (!mc__op_modelled(op->kind, s->vendor)) {
            int32_t i;
            mc__op_unknown_bound(s, op, 2);
            for (i = 1; i < MAX_REQUESTS_PER_OP; i++) {
                mc__sim_scratch(s, 0);
            }
        } else {
            mc__op_prepare(s, op);
        }
        /* FinishPrepareNodeAllocations: its status is ignored by TFLM. */
        s->temp = s->head;
        s->protect = s->head;
        (void)resize_head(s, MC_SZ_BYTES(abi->scratch_request) *
                                 (s->n_requests + MAX_REQUESTS_PER_OP));
    }
}

/* FinishModelAllocation and the interpreter's input/output tensors. */
static void replay_finish(const model_t *m, mc_sim_t *s)
{
    const mc_graph_t *g = m->graph;
    const mc_target_abi_t *abi = s->abi;
    int64_t i, remaining;

    if (s->n_requests > 0) {
        persistent_struct(s, abi->scratch_handle, s->n_requests, MC_TFLM_UNRECORDED);
    }
    /* CommitStaticMemoryPlan */
    mc__sim_temp(s, abi->pointer_bytes, abi->pointer_bytes);          /* subgraph offsets */
    mc__sim_temp(s, MC_SZ_BYTES(abi->allocation_info) * (g->n_tensors + s->n_requests),
                 MC_SZ_ALIGN(abi->allocation_info));
    for (i = 0; i < g->n_tensors; i++) {
        if ((g->tensors[i].flags & MC_TENSOR_VARIABLE) != 0) {
            mc__sim_persistent(s, g->tensors[i].bytes, 16, MC_TFLM_VARIABLES);
        }
    }
    if (s->failed || s->status != MC_OK) {
        return;
    }
    remaining = align_down(s->tail, 16) - align_up(s->temp, 16);
    if (remaining < 0 || remaining / PLANNER_BYTES_PER_BUFFER < m->n_planned) {
        s->failed = true;
        return;
    }
    s->temp = s->head;
    s->protect = s->head;
    if (!resize_head(s, 0) || !resize_head(s, m->head_bytes)) {
        s->failed = true;
        return;
    }
    /* MicroInterpreter::AllocateTensors: input, then output TfLiteTensors. */
    mc__sim_persistent(s, (int64_t)abi->pointer_bytes * g->n_inputs, 16, MC_TFLM_PERSISTENT_BUFFERS);
    for (i = 0; i < g->n_inputs; i++) {
        interpreter_tensor(s, g->inputs[i]);
    }
    mc__sim_persistent(s, (int64_t)abi->pointer_bytes * g->n_outputs, 16, MC_TFLM_PERSISTENT_BUFFERS);
    for (i = 0; i < g->n_outputs; i++) {
        interpreter_tensor(s, g->outputs[i]);
    }
}

static void sim_start(const model_t *m, mc_sim_t *s, int64_t arena)
{
    memset(s, 0, sizeof *s);
    s->graph = m->graph;
    s->abi = mc__target_abi(m->target);
    s->target = m->target;
    s->vendor = m->vendor;
    s->arena = arena;
    s->tail = arena;
    s->status = MC_OK;
}

/* Whether AllocateTensors() succeeds in an arena of `arena` bytes (s: workspace). */
static mc_status_t fits(const model_t *m, mc_sim_t *s, int64_t arena, bool *ok)
{
    sim_start(m, s, arena);
    replay_prepare(m, s);
    if (!s->failed && s->status == MC_OK) {
        replay_finish(m, s);
    }
    if (s->status != MC_OK) {
        return s->status;
    }
    *ok = !s->failed;
    return MC_OK;
}

/* ---- validation and scratch --------------------------------------------------------------- */

static mc_status_t check_graph(const mc_graph_t *g)
{
    int64_t i, k;
    if (g->n_tensors < 0 || g->n_ops < 0 || g->n_op_tensors < 0 || g->n_inputs < 0 ||
        g->n_outputs < 0) {
        return MC_E_NEGATIVE;
    }
    if ((g->n_tensors > 0 && g->tensors == NULL) || (g->n_ops > 0 && g->ops == NULL) ||
        (g->n_op_tensors > 0 && g->op_tensors == NULL) ||
        (g->n_inputs > 0 && g->inputs == NULL) || (g->n_outputs > 0 && g->outputs == NULL)) {
        return MC_E_NULL;
    }
    /* Lifetimes and plans are int32 scopes and indices; one subgraph is modelled. */
    if (g->n_tensors > INT32_MAX / 2 || g->n_ops > INT32_MAX / (2 * MAX_REQUESTS_PER_OP) ||
        g->n_subgraphs > 1) {
        return MC_E_RANGE;
    }
    for (i = 0; i < g->n_tensors; i++) {
        const mc_tensor_t *t = &g->tensors[i];
        int32_t d;
        if (t->bytes < 0 || t->quant_channels < 0) {
            return MC_E_NEGATIVE;
        }
        if (t->rank < 0 || t->rank > MC_MAX_DIMS || t->dtype < 0 || t->dtype >= MC_DTYPE_COUNT) {
            return MC_E_RANGE;
        }
        for (d = 0; d < t->rank; d++) {
            if (t->dims[d] < 0) {
                return MC_E_NEGATIVE;
            }
        }
    }
    for (k = 0; k < g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        if (op->kind < 0) {
            return MC_E_RANGE;
        }
    }
    return MC_OK; /* indices are checked by mc_tflm_graph_lifetimes */
}

typedef struct {
    mc_sim_t sim;
    model_t model;
    mc_tflm_model_arena_t result;
} state_t;

#define STATE_BYTES ((int64_t)((sizeof(state_t) + 7) / 8 * 8))

static int64_t max_buffers(const mc_graph_t *g)
{
    return g->n_tensors + MAX_REQUESTS_PER_OP * g->n_ops;
}

static int64_t round8(int64_t v)
{
    return align_up(v, 8);
}

mc_status_t mc_tflm_model_scratch_bytes(const mc_graph_t *graph, int64_t *scratch_bytes)
{
    int64_t n, plan = 0, total = 0, part = 0;
    if (graph == NULL || scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(check_graph(graph));
    n = max_buffers(graph);
    MC_TRY(mc_plan_scratch_bytes(n, &plan));
    /* first/last per tensor, the buffers, then mc_plan's arrays and scratch */
    MC_TRY(mc_checked_mul(graph->n_tensors, 2 * (int64_t)sizeof(int32_t), &total));
    total = round8(total);
    MC_TRY(mc_checked_mul(n, (int64_t)sizeof(mc_tflm_buffer_t), &part));
    MC_TRY(mc_checked_add(total, part, &total));
    MC_TRY(mc_checked_mul(n, 2 * (int64_t)sizeof(int64_t) + 2 * (int64_t)sizeof(int32_t), &part));
    MC_TRY(mc_checked_add(total, round8(part), &total));
    MC_TRY(mc_checked_add(total, round8(plan), &total));
    /* The replay's state and the result, kept off the stack (1 KB on a board). */
    MC_TRY(mc_checked_add(total, STATE_BYTES, &total));
    *scratch_bytes = total;
    return MC_OK;
}

static int32_t vendor_for(mc_target_t target, mc_kernels_t kernels)
{
    return kernels == MC_KERNELS_OPTIMISED ? mc__target_abi(target)->vendor : MC_VENDOR_NONE;
}

mc_status_t mc_tflm_unknown_ops(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                int32_t *codes, int64_t capacity, int64_t *n_unknown)
{
    int64_t k, j, n = 0;
    int32_t vendor;
    if (graph == NULL || n_unknown == NULL || (capacity > 0 && codes == NULL)) {
        return MC_E_NULL;
    }
    if (capacity < 0) {
        return MC_E_NEGATIVE;
    }
    if ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT ||
        (kernels != MC_KERNELS_REFERENCE && kernels != MC_KERNELS_OPTIMISED)) {
        return MC_E_RANGE;
    }
    MC_TRY(check_graph(graph));
    vendor = vendor_for(target, kernels);
    for (k = 0; k < graph->n_ops; k++) {
        int32_t code = graph->ops[k].kind;
        bool seen = false;
        if (mc__op_modelled(code, vendor)) {
            continue;
        }
        for (j = 0; j < k; j++) {
            if (graph->ops[j].kind == code) {
                seen = true;
                break;
            }
        }
        if (!seen) {
            if (n < capacity) {
                codes[n] = code;
            }
            n++;
        }
    }
    *n_unknown = n;
    return MC_OK;
}

/* ---- the whole arena ------------------------------------------------------------------------ */

static mc_status_t plan_and_replay(state_t *st, const int32_t *first, const int32_t *last,
                                   mc_tflm_buffer_t *buffers, int64_t *sizes, int64_t *offsets,
                                   int32_t *pfirst, int32_t *plast, int64_t n_max,
                                   void *plan_scratch, int64_t plan_bytes,
                                   mc_tflm_model_arena_t *out);

mc_status_t mc_tflm_model_arena(const mc_graph_t *graph, mc_target_t target,
                                mc_kernels_t kernels, uint32_t flags, void *scratch,
                                int64_t scratch_bytes, mc_tflm_model_arena_t *out)
{
    state_t *st;
    int64_t need = 0, n_max, n_unknown = 0;
    int32_t *first, *last, *pfirst, *plast;
    int64_t *sizes, *offsets;
    mc_tflm_buffer_t *buffers;
    unsigned char *p;
    void *plan_scratch;
    int64_t plan_bytes = 0;

    if (graph == NULL || out == NULL || scratch == NULL) {
        return MC_E_NULL;
    }
    if ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT ||
        (kernels != MC_KERNELS_REFERENCE && kernels != MC_KERNELS_OPTIMISED) ||
        (flags & ~MC_TFLM_ALLOW_UNKNOWN) != 0) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_tflm_model_scratch_bytes(graph, &need));
    if (scratch_bytes < need || ((uintptr_t)scratch % 8) != 0) {
        return MC_E_SCRATCH;
    }
    MC_TRY(mc_tflm_unknown_ops(graph, target, kernels, NULL, 0, &n_unknown));
    if (n_unknown > 0 && (flags & MC_TFLM_ALLOW_UNKNOWN) == 0) {
        return MC_E_UNKNOWN_OP;
    }

    /* Carve the scratch as mc_tflm_model_scratch_bytes sized it. */
    n_max = max_buffers(graph);
    st = (state_t *)scratch;
    p = (unsigned char *)scratch + STATE_BYTES;
    first = (int32_t *)(void *)p;
    last = first + graph->n_tensors;
    p += round8(graph->n_tensors * 2 * (int64_t)sizeof(int32_t));
    buffers = (mc_tflm_buffer_t *)(void *)p;
    p += n_max * (int64_t)sizeof(mc_tflm_buffer_t);
    sizes = (int64_t *)(void *)p;
    offsets = sizes + n_max;
    pfirst = (int32_t *)(void *)(offsets + n_max);
    plast = pfirst + n_max;
    p += round8(n_max * (2 * (int64_t)sizeof(int64_t) + 2 * (int64_t)sizeof(int32_t)));
    plan_scratch = p;
    MC_TRY(mc_plan_scratch_bytes(n_max, &plan_bytes));

    MC_TRY(mc_tflm_graph_lifetimes(graph, first, last));

    memset(st, 0, sizeof *st);
    st->model.graph = graph;
    st->model.target = target;
    st->model.vendor = vendor_for(target, kernels);
    st->model.allow_unknown = n_unknown > 0;
    return plan_and_replay(st, first, last, buffers, sizes, offsets, pfirst, plast, n_max,
                           plan_scratch, plan_bytes, out);
}

/* The rest of mc_tflm_model_arena, with its state in the scratch. */
static mc_status_t plan_and_replay(state_t *st, const int32_t *first, const int32_t *last,
                                   mc_tflm_buffer_t *buffers, int64_t *sizes, int64_t *offsets,
                                   int32_t *pfirst, int32_t *plast, int64_t n_max,
                                   void *plan_scratch, int64_t plan_bytes,
                                   mc_tflm_model_arena_t *out)
{
    model_t *mp = &st->model;
    mc_sim_t *sp = &st->sim;
    mc_tflm_model_arena_t *rp = &st->result;
    const mc_graph_t *graph = mp->graph;
    int64_t i, n, lo, hi;
    mc_plan_t plan;
    bool ok = false;

    /* The planned tensors, in tensor order (AllocationInfo order). */
    n = 0;
    for (i = 0; i < graph->n_tensors; i++) {
        const mc_tensor_t *t = &graph->tensors[i];
        if ((t->flags & (MC_TENSOR_CONSTANT | MC_TENSOR_VARIABLE)) != 0 || t->bytes == 0) {
            continue;
        }
        buffers[n].bytes = t->bytes;
        buffers[n].offset = 0;
        buffers[n].first_use = first[i];
        buffers[n].last_use = last[i];
        buffers[n].tensor = (int32_t)i;
        buffers[n].op = -1;
        n++;
    }

    /* Everything up to planning, on an unbounded arena: the scratch requests follow. */
    sim_start(mp, sp, UNBOUNDED_ARENA);
    sp->requests = buffers + n;
    sp->max_requests = n_max - n;
    replay_prepare(mp, sp);
    if (sp->status != MC_OK) {
        return sp->status;
    }
    if (sp->failed) {
        return MC_E_OVERFLOW; /* nothing fits even 2^50 bytes */
    }
    rp->n_scratch_buffers = sp->n_requests;
    rp->n_buffers = n + sp->n_requests;
    for (i = 0; i < rp->n_buffers; i++) {
        /* TFLM's planner rounds sizes to 16; its scopes start at -1 for untouched
         * tensors, so shift all by one (overlaps, hence placements, are unchanged). */
        sizes[i] = buffers[i].bytes;
        pfirst[i] = buffers[i].first_use + 1;
        plast[i] = buffers[i].last_use + 1;
    }
    MC_TRY(mc_plan(MC_PLAN_TFLM, sizes, pfirst, plast, rp->n_buffers, 16, plan_scratch,
                   plan_bytes, offsets, &plan));
    for (i = 0; i < rp->n_buffers; i++) {
        buffers[i].offset = offsets[i];
    }
    rp->head_bytes = plan.arena_bytes;
    rp->lower_bound_bytes = plan.lower_bound_bytes;
    if (mp->allow_unknown) {
        /* The greedy placement is not monotone in the sizes, so with a bound on an
         * unknown kernel's scratch its plan bounds nothing; the sum of every aligned
         * buffer does (each buffer's offset is at most the sizes placed before it). */
        int64_t sum = 0;
        for (i = 0; i < rp->n_buffers; i++) {
            MC_TRY(mc_checked_add(sum, align_up(sizes[i], 16), &sum));
        }
        rp->head_bytes = sum;
    }
    mp->head_bytes = rp->head_bytes;
    mp->n_planned = rp->n_buffers;

    replay_finish(mp, sp);
    if (sp->status != MC_OK) {
        return sp->status;
    }
    if (sp->failed) {
        return MC_E_OVERFLOW;
    }
    rp->tail_bytes = UNBOUNDED_ARENA - sp->tail;
    MC_TRY(mc_checked_add(rp->head_bytes, rp->tail_bytes, &rp->total_bytes));
    memcpy(rp->categories, sp->usage, sizeof rp->categories);

    /* The smallest arena that fits: bisection on a monotone predicate. */
    lo = 0;
    hi = rp->total_bytes;
    MC_TRY(fits(mp, sp, hi, &ok));
    while (!ok) {
        lo = hi;
        MC_TRY(mc_checked_add(hi, hi / 2 + 16, &hi));
        if (hi > UNBOUNDED_ARENA) {
            return MC_E_OVERFLOW;
        }
        MC_TRY(fits(mp, sp, hi, &ok));
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        MC_TRY(fits(mp, sp, mid, &ok));
        if (ok) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    rp->minimum_arena_bytes = hi;
    rp->recommended_arena_bytes = align_up(hi, 16);
    rp->buffers = buffers;
    rp->n_unknown_ops = 0;
    for (i = 0; i < graph->n_ops; i++) {
        if (!mc__op_modelled(graph->ops[i].kind, mp->vendor)) {
            rp->n_unknown_ops++;
        }
    }
    rp->upper_bound = rp->n_unknown_ops > 0;
    *out = *rp;
    return MC_OK;
}
