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
#include "graph.h"
#include "memcore.h"
#include "tflm_internal.h"

#define MAX_REQUESTS_PER_OP 12   /* kMaxScratchBuffersPerOp */
#define PLANNER_BYTES_PER_BUFFER 40
#define UNBOUNDED_ARENA ((int64_t)1 << 50)

/* Alignments are powers of two (1 to 16) and positions non-negative: masks, not the
 * 64-bit divisions a 32-bit core would call a library routine for. */
static int64_t align_down(int64_t v, int64_t a)
{
    return v & ~(a - 1);
}

static int64_t align_up(int64_t v, int64_t a)
{
    /* Saturates: a size this large then overflows the checked sum it goes into. */
    return v > INT64_MAX - a ? INT64_MAX : (v + a - 1) & ~(a - 1);
}

/* ---- the allocator ------------------------------------------------------------------ */

void mc__sim_persistent(mc_sim_t *s, int64_t bytes, int64_t align, int32_t category)
{
    int64_t at;
    if (s->failed || s->status != MC_OK) {
        return;
    }
    if (bytes < 0 || bytes > s->tail) {
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
    if (s->usage != NULL) {
        s->usage[category].used_bytes += s->tail - at;
        s->usage[category].requested_bytes += bytes;
        s->usage[category].count += 1;
    }
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
    const mc_tensor_t *t = &s->ctx.graph->tensors[tensor];
    mc__sim_temp(s, MC_SZ_BYTES(s->ctx.abi->tensor), MC_SZ_ALIGN(s->ctx.abi->tensor));
    if (t->quant_channels > 0 && (t->flags & MC_TENSOR_ZERO_POINT) != 0) {
        int64_t quantization;
        mc__sim_temp(s, MC_SZ_BYTES(s->ctx.abi->quantization), MC_SZ_ALIGN(s->ctx.abi->quantization));
        /* TfLiteAffineQuantization {scale, zero_point, quantized_dimension}: what follows
         * its zero_point pointer is not needed again. */
        quantization = s->temp - MC_SZ_BYTES(s->ctx.abi->quantization);
        mc__sim_temp(s, 4 + 4 * (int64_t)t->quant_channels, 4); /* TfLiteIntArray */
        s->protect = quantization + 2 * (int64_t)s->ctx.abi->pointer_bytes;
    }
}

void mc__sim_scratch(mc_sim_t *s, int64_t bytes)
{
    if (s->failed || s->status != MC_OK) {
        return;
    }
    if (s->req_sizes != NULL) {
        if (s->n_requests >= s->max_requests) {
            s->status = MC_E_RANGE;
            return;
        }
        s->req_sizes[s->n_requests] = bytes;
        /* The operator's scope, + 1 as mc_tflm_buffers shifts every lifetime. */
        s->req_first[s->n_requests] = (int32_t)(s->op + 2);
        s->req_last[s->n_requests] = (int32_t)(s->op + 2);
        s->req_owner[s->n_requests] = (int32_t)(-1 - s->op);
    }
    if (mc_checked_add(s->scratch_sum, align_up(bytes, 16), &s->scratch_sum) != MC_OK) {
        s->status = MC_E_OVERFLOW;
        return;
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


static void interpreter_tensor(mc_sim_t *s, int32_t index)
{
    const mc_tensor_t *t = &s->ctx.graph->tensors[index];
    persistent_struct(s, s->ctx.abi->tensor, 1, MC_TFLM_PERSISTENT_TENSORS);
    if (t->quant_channels > 0 && (t->flags & MC_TENSOR_ZERO_POINT) != 0) {
        persistent_struct(s, s->ctx.abi->quantization, 1, MC_TFLM_QUANTIZATION);
        mc__sim_persistent(s, 4 + 4 * (int64_t)t->quant_channels, 4, MC_TFLM_QUANTIZATION);
    }
}

/* Everything up to the plan; the planner's inputs are then in s (scratch requests). */
static void replay_prepare(mc_sim_t *s)
{
    const mc_graph_t *g = s->ctx.graph;
    const mc_target_abi_t *abi = s->ctx.abi;
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
    if (s->usage != NULL) {
        s->usage[MC_TFLM_EVAL_TENSORS].count += g->n_tensors - 1;
        s->usage[MC_TFLM_NODES].count += g->n_ops - 1;
    }

    for (phase = 0; phase < 2; phase++) {
        for (k = 0; k < g->n_ops; k++) {
            const mc_op_t *op = &g->ops[k];
            s->op = k;
            if (!mc__op_modelled(op->kind, s->ctx.vendor)) {
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
        if (!mc__op_modelled(op->kind, s->ctx.vendor)) {
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
static void replay_finish(mc_sim_t *s)
{
    const mc_graph_t *g = s->ctx.graph;
    const mc_target_abi_t *abi = s->ctx.abi;
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
    if (remaining < 0 || remaining / PLANNER_BYTES_PER_BUFFER < s->n_planned) {
        s->failed = true;
        return;
    }
    s->temp = s->head;
    s->protect = s->head;
    if (!resize_head(s, 0) || !resize_head(s, s->head_bytes)) {
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

/* A fresh arena of `arena` bytes; the graph, target and plan stay. */
static void sim_start(mc_sim_t *s, int64_t arena)
{
    s->arena = arena;
    s->head = s->temp = s->protect = 0;
    s->tail = arena;
    s->failed = false;
    s->status = MC_OK;
    s->usage = NULL;
    s->n_requests = 0;
    s->scratch_sum = 0;
    s->op = 0;
    s->refused = -1;
    s->req_sizes = NULL;
    s->req_first = s->req_last = s->req_owner = NULL;
    s->max_requests = 0;
}

/* Whether AllocateTensors() succeeds in an arena of `arena` bytes (s: workspace). */
static mc_status_t fits(mc_sim_t *s, int64_t arena, mc_tflm_usage_t *usage, bool *ok)
{
    sim_start(s, arena);
    s->usage = usage;
    replay_prepare(s);
    if (!s->failed && s->status == MC_OK) {
        replay_finish(s);
    }
    if (s->status != MC_OK) {
        return s->status;
    }
    *ok = !s->failed;
    return MC_OK;
}

/* ---- the public calls (memcore.h section 11) ------------------------------------------------ */

static int32_t vendor_for(mc_target_t target, mc_kernels_t kernels)
{
    return kernels == MC_KERNELS_OPTIMISED ? mc__target_abi(target)->vendor : MC_VENDOR_NONE;
}

static bool planned(const mc_tensor_t *t)
{
    /* TFLM's needs_allocating: no data in the file, not a variable, not empty. */
    return (t->flags & (MC_TENSOR_CONSTANT | MC_TENSOR_VARIABLE)) == 0 && t->bytes != 0;
}

/* The checks every call makes, every index included (the lifetimes walk trusts them).
 * Sets up *c for the graph; *unknown counts the unknown operators. */
static mc_status_t start(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels,
                         uint32_t flags, mc_ctx_t *c, int64_t *unknown, mc_problem_t *problem)
{
    int64_t i, k;
    if (g == NULL) {
        return MC_E_NULL;
    }
    if ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT ||
        (kernels != MC_KERNELS_REFERENCE && kernels != MC_KERNELS_OPTIMISED) ||
        (flags & ~MC_TFLM_ALLOW_UNKNOWN) != 0) {
        return MC_E_RANGE;
    }
    /* Indices in range, tensor lists inside the index array, sizes that agree with the
     * shapes, no operator that lost its outputs: whoever built the graph. */
    MC_TRY(mc_graph_structure(g, problem));
    if (g->n_tensors < 0 || g->n_ops < 0 || g->n_op_tensors < 0 || g->n_inputs < 0 ||
        g->n_outputs < 0) {
        return MC_E_NEGATIVE;
    }
    if ((g->n_tensors > 0 && g->tensors == NULL) || (g->n_ops > 0 && g->ops == NULL) ||
        (g->n_op_tensors > 0 && g->op_tensors == NULL) ||
        (g->n_inputs > 0 && g->inputs == NULL) || (g->n_outputs > 0 && g->outputs == NULL)) {
        return MC_E_NULL;
    }
    /* Scopes and buffer counts are int32; one subgraph is modelled. */
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
    c->graph = g;
    c->target = target;
    c->abi = mc__target_abi(target);
    c->vendor = vendor_for(target, kernels);
    *unknown = 0;
    for (k = 0; k < g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        if (op->kind < 0 || op->n_inputs < 0 || op->n_outputs < 0 || op->first_input < 0 ||
            op->first_output < 0 || op->first_input > g->n_op_tensors - op->n_inputs ||
            op->first_output > g->n_op_tensors - op->n_outputs) {
            return MC_E_RANGE;
        }
        for (i = 0; i < (int64_t)op->n_inputs + op->n_outputs; i++) {
            int32_t t = g->op_tensors[i < op->n_inputs ? op->first_input + i
                                                       : op->first_output + i - op->n_inputs];
            if (t < (i < op->n_inputs ? -1 : 0) || t >= g->n_tensors) {
                return MC_E_RANGE;
            }
        }
        if (mc__op_modelled(op->kind, c->vendor)) {
            continue;
        }
        if ((flags & MC_TFLM_ALLOW_UNKNOWN) == 0) {
            if (problem != NULL) {
                problem->kind = MC_PROBLEM_UNKNOWN_OP;
                problem->op = k;
                problem->tensor = problem->other = problem->at = -1;
                problem->value = op->kind;
            }
            return MC_E_UNSUPPORTED;
        }
        (*unknown)++;
    }
    for (i = 0; i < g->n_inputs + g->n_outputs; i++) {
        int32_t t = i < g->n_inputs ? g->inputs[i] : g->outputs[i - g->n_inputs];
        if (t < 0 || t >= g->n_tensors) {
            return MC_E_RANGE;
        }
    }
    return MC_OK;
}

/* Runs every Prepare on an unbounded arena; the requests go where s says. */
static mc_status_t count_requests(mc_sim_t *s, mc_problem_t *problem)
{
    replay_prepare(s);
    if (s->status == MC_E_UNSUPPORTED && problem != NULL) {
        problem->kind = MC_PROBLEM_KERNEL_REFUSES;
        problem->op = s->refused;
        problem->tensor = problem->other = problem->value = problem->at = -1;
    }
    if (s->status != MC_OK) {
        return s->status;
    }
    return s->failed ? MC_E_OVERFLOW : MC_OK; /* nothing fits 2^50 bytes */
}

/* The caller's scratch for mc_tflm_buffers and mc_tflm_model: the replay's state (kept
 * off a board's short stack), the tail's categories, then two scopes per tensor. */
#define STATE_BYTES (((int64_t)sizeof(mc_sim_t) + 7) / 8 * 8)
#define USAGE_BYTES ((int64_t)sizeof(mc_tflm_usage_t) * (MC_TFLM_CATEGORY_COUNT + 1))

static int64_t scratch_for(const mc_graph_t *g)
{
    return STATE_BYTES + USAGE_BYTES + 2 * (int64_t)sizeof(int32_t) * g->n_tensors;
}

static mc_status_t check_scratch(const mc_graph_t *g, void *scratch, int64_t scratch_bytes)
{
    if (scratch == NULL || ((uintptr_t)scratch & 7u) != 0 || scratch_bytes < scratch_for(g)) {
        return MC_E_SCRATCH;
    }
    return MC_OK;
}

mc_status_t mc_tflm_buffer_count(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                 uint32_t flags, int64_t *n_buffers, int64_t *scratch_bytes,
                                 mc_problem_t *problem)
{
    mc_ctx_t c;
    int64_t i, unknown = 0, n = 0;
    if (n_buffers == NULL || scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(start(graph, target, kernels, flags, &c, &unknown, problem));
    for (i = 0; i < graph->n_tensors; i++) {
        n += planned(&graph->tensors[i]);
    }
    /* The scratch requests, counted from the scripts without replaying them (the
     * check's stack is short on a board); an unknown operator asks for twelve. */
    for (i = 0; i < graph->n_ops; i++) {
        int32_t k = mc__op_modelled(graph->ops[i].kind, c.vendor)
                        ? mc__op_scratch_count(&c, &graph->ops[i])
                        : MAX_REQUESTS_PER_OP;
        if (k == -2) { /* a buffer past 64 bits: reported as the replay reports it */
            return MC_E_OVERFLOW;
        }
        if (k < 0) { /* an input its kernel needs is absent, or it refuses the op: Prepare fails */
            if (problem != NULL) {
                problem->kind = k == -4 ? MC_PROBLEM_KERNEL_REFUSES : MC_PROBLEM_MISSING_INPUT;
                problem->op = i;
                problem->tensor = problem->other = problem->value = problem->at = -1;
            }
            return MC_E_UNSUPPORTED;
        }
        n += k;
    }
    *n_buffers = n;
    *scratch_bytes = scratch_for(graph);
    return MC_OK;
}

mc_status_t mc_tflm_buffers(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                            void *scratch, int64_t scratch_bytes, int64_t *sizes, int32_t *first_use,
                            int32_t *last_use, int32_t *owner, int64_t n_buffers, mc_problem_t *problem)
{
    mc_sim_t *s = (mc_sim_t *)scratch;
    int32_t *first, *last;
    int64_t i, n = 0;
    if (graph == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(check_scratch(graph, scratch, scratch_bytes));
    memset(s, 0, sizeof *s);
    MC_TRY(start(graph, target, kernels, flags, &s->ctx, &s->unknown, problem));
    if (n_buffers > 0 && (sizes == NULL || first_use == NULL || last_use == NULL || owner == NULL)) {
        return MC_E_NULL;
    }
    first = (int32_t *)(void *)((uint8_t *)scratch + STATE_BYTES + USAGE_BYTES);
    last = first + graph->n_tensors;
    mc__tflm_graph_lifetimes(graph, first, last);
    /* The planned tensors in tensor order (TFLM's AllocationInfo order), then the
     * scratch buffers in request order: the order decides the planner's ties.  Scopes
     * + 1: TFLM's "never touched" (-1) becomes the valid scope 0; a uniform shift
     * changes no overlap, hence no placement. */
    for (i = 0; i < graph->n_tensors; i++) {
        if (!planned(&graph->tensors[i])) {
            continue;
        }
        if (n >= n_buffers) {
            return MC_E_RANGE;
        }
        sizes[n] = graph->tensors[i].bytes;
        first_use[n] = first[i] + 1;
        last_use[n] = last[i] + 1;
        owner[n] = (int32_t)i;
        n++;
    }
    sim_start(s, UNBOUNDED_ARENA);
    s->req_sizes = sizes + n;
    s->req_first = first_use + n;
    s->req_last = last_use + n;
    s->req_owner = owner + n;
    s->max_requests = n_buffers - n;
    MC_TRY(count_requests(s, problem));
    return n + s->n_requests == n_buffers ? MC_OK : MC_E_RANGE;
}

mc_status_t mc_tflm_model(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                          int64_t head_bytes, int64_t n_buffers, void *scratch, int64_t scratch_bytes,
                          mc_tflm_t *out, mc_problem_t *problem)
{
    mc_sim_t *sp = (mc_sim_t *)scratch;
    mc_tflm_usage_t *usage = (mc_tflm_usage_t *)(void *)((uint8_t *)scratch + STATE_BYTES);
    int64_t i, lo, hi, sum = 0;
    bool ok = false;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (head_bytes < 0 || n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    if (g == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(check_scratch(g, scratch, scratch_bytes));
    memset(sp, 0, sizeof *sp);
    MC_TRY(start(g, target, kernels, flags, &sp->ctx, &sp->unknown, problem));
    sim_start(sp, UNBOUNDED_ARENA);
    MC_TRY(count_requests(sp, problem)); /* a kernel's refusal is found here */
    if (sp->unknown > 0) {
        /* The greedy placement is not monotone in the sizes, so with a bound on an
         * unknown kernel's scratch its plan bounds nothing; the sum of every aligned
         * buffer does (a buffer is never placed past the buffers placed before it). */
        sum = sp->scratch_sum;
        for (i = 0; i < g->n_tensors; i++) {
            if (planned(&g->tensors[i])) {
                MC_TRY(mc_checked_add(sum, align_up(g->tensors[i].bytes, 16), &sum));
            }
        }
        head_bytes = sum > head_bytes ? sum : head_bytes;
    }
    sp->head_bytes = head_bytes;
    sp->n_planned = n_buffers;

    /* The smallest arena that fits: bisection on a monotone predicate, from 0 (never
     * enough: the allocator objects alone do not fit) to a size that fits. */
    lo = 0;
    MC_TRY(mc_checked_add(head_bytes, 4096, &hi));
    MC_TRY(fits(sp, hi, NULL, &ok));
    while (!ok) {
        lo = hi;
        MC_TRY(mc_checked_add(hi, hi, &hi));
        if (hi > UNBOUNDED_ARENA) {
            return MC_E_OVERFLOW;
        }
        MC_TRY(fits(sp, hi, NULL, &ok));
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        MC_TRY(fits(sp, mid, NULL, &ok));
        if (ok) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    /* Last, on an unbounded arena (its end 16-aligned, as TFLM reports it): the tail
     * and its categories. */
    memset(usage, 0, sizeof(mc_tflm_usage_t) * (MC_TFLM_CATEGORY_COUNT + 1));
    MC_TRY(fits(sp, UNBOUNDED_ARENA, usage, &ok));
    if (!ok) {
        return MC_E_OVERFLOW;
    }
    memset(out, 0, sizeof *out);
    out->head_bytes = head_bytes;
    out->tail_bytes = UNBOUNDED_ARENA - sp->tail;
    MC_TRY(mc_checked_add(head_bytes, out->tail_bytes, &out->total_bytes));
    out->minimum_arena_bytes = hi;
    out->recommended_arena_bytes = align_up(hi, 16);
    memcpy(out->categories, usage, sizeof out->categories);
    out->unknown_ops = sp->unknown;
    out->upper_bound = sp->unknown > 0;
    return MC_OK;
}

bool mc_tflm_supports(int32_t kind)
{
    return mc__op_registered(kind);
}

mc_status_t mc_tflm_unknown_ops(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                int32_t *codes, int64_t capacity, int64_t *n_unknown)
{
    mc_sim_t s;
    int64_t k, j, n = 0;
    if (n_unknown == NULL || (capacity > 0 && codes == NULL)) {
        return MC_E_NULL;
    }
    if (capacity < 0) {
        return MC_E_NEGATIVE;
    }
    memset(&s, 0, sizeof s);
    MC_TRY(start(graph, target, kernels, MC_TFLM_ALLOW_UNKNOWN, &s.ctx, &s.unknown, NULL));
    for (k = 0; k < graph->n_ops; k++) {
        int32_t code = graph->ops[k].kind;
        bool seen = false;
        if (mc__op_modelled(code, s.ctx.vendor)) {
            continue;
        }
        for (j = 0; j < k && !seen; j++) {
            seen = graph->ops[j].kind == code;
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
