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
#include "out_of_line.h"
#include "tflm_internal.h"

#define MAX_REQUESTS_PER_OP 12   /* kMaxScratchBuffersPerOp */
#define PLANNER_BYTES_PER_BUFFER 40
#define UNBOUNDED_ARENA ((int64_t)1 << 50)

/* Alignments are powers of two (1 to 16, so int32: the replay's callers pass no
 * other) and positions non-negative: masks, not the 64-bit divisions a 32-bit core
 * would call a library routine for. */
static int64_t align_down(int64_t v, int32_t a)
{
    return v & ~(int64_t)(a - 1);
}

/* Out of line: inlined, its saturating test costs some 20 bytes at each call on a
 * board. */
OUT_OF_LINE static int64_t align_up(int64_t v, int32_t a)
{
    /* Saturates: a size this large then overflows the checked sum it goes into. */
    return v > INT64_MAX - a ? INT64_MAX : (v + a - 1) & ~(int64_t)(a - 1);
}

/* ---- the allocator ------------------------------------------------------------------ */

/* A step did not fit, or the graph cannot be replayed: every later step does nothing. */
static bool stopped(const mc_sim_t *s)
{
    return s->failed || s->status != MC_OK;
}

/* Whether TFLM gives the tensor a TfLiteAffineQuantization (and its zero points). */
static bool has_quantization(const mc_tensor_t *t)
{
    return t->quant_channels > 0 && (t->flags & MC_TENSOR_ZERO_POINT) != 0;
}

/* The zero points' TfLiteIntArray: its size, then one int32 per channel.  Asked only
 * when has_quantization (channels in 1 .. INT32_MAX), so channels + 1 is a 32-bit
 * unsigned count: no 64-bit carry. */
static int64_t zero_points_bytes(const mc_tensor_t *t)
{
    return 4 * (int64_t)((uint32_t)t->quant_channels + 1u);
}

void mc__sim_persistent(mc_sim_t *s, int64_t bytes, int64_t align, int32_t category)
{
    int64_t at;
    if (stopped(s)) {
        return;
    }
    if (bytes < 0) {
        s->failed = true;
        return;
    }
    at = align_down(s->tail - bytes, (int32_t)align);
    /* TFLM checks only the head, but a persistent buffer laid over the temporaries a
     * kernel still holds is written over them (per-channel multipliers over the
     * output's TfLiteTensor): AllocateTensors() then fails or crashes.  What may be
     * overwritten harmlessly is the end of the last temporary: its zero-point array and
     * the quantization struct past its zero_point pointer (never read again; the
     * pointer is, by DeallocateTempTfLiteTensor).  That limit, `protect`, is never
     * below the head while the replay runs (resizing the head and the reset after each
     * Prepare set it to the head, a temporary to a point within the temporaries), so
     * it is TFLM's head check too; and as the head is never below 0, a buffer larger
     * than the tail (at < 0) fails it. */
    if (at < s->protect) {
        s->failed = true;
        return;
    }
    if (s->usage != NULL) {
        mc_tflm_usage_t *u = &s->usage[category];
        u->used_bytes += s->tail - at;
        u->requested_bytes += bytes;
        u->count += 1;
    }
    s->tail = at;
}

void mc__sim_temp(mc_sim_t *s, int64_t bytes, int64_t align)
{
    int64_t at;
    if (stopped(s)) {
        return;
    }
    at = align_up(s->temp, (int32_t)align);
    /* TFLM's size_t subtraction would let a temporary that starts past the tail pass,
     * but it is then written over the tail's allocator objects: a failure too, as the
     * signed difference (then negative) says. */
    if (bytes < 0 || s->tail - at < bytes) {
        s->failed = true;
        return;
    }
    s->temp = at + bytes;
    s->protect = s->temp;
}

static void temp_struct(mc_sim_t *s, mc_size_t size)
{
    mc__sim_temp(s, MC_SZ_BYTES(size), MC_SZ_ALIGN(size));
}

void mc__sim_temp_tensor(mc_sim_t *s, int32_t tensor)
{
    const mc_tensor_t *t = &s->ctx.graph->tensors[tensor];
    const mc_target_abi_t *abi = s->ctx.abi;
    temp_struct(s, abi->tensor);
    if (has_quantization(t)) {
        int64_t quantization;
        temp_struct(s, abi->quantization);
        /* TfLiteAffineQuantization {scale, zero_point, quantized_dimension}: what follows
         * its zero_point pointer is not needed again. */
        quantization = s->temp - MC_SZ_BYTES(abi->quantization);
        mc__sim_temp(s, zero_points_bytes(t), 4);
        s->protect = quantization + 2 * (int64_t)abi->pointer_bytes;
    }
}

void mc__sim_scratch(mc_sim_t *s, int64_t bytes)
{
    if (stopped(s)) {
        return;
    }
    if (s->req_sizes != NULL) {
        /* Its operator (int32: indices within MC_MAX_OPS, start); mc_tflm_buffers gives
         * it the operator's scopes. */
        int32_t op = (int32_t)s->op;
        int64_t n = s->n_requests;
        if (n >= s->max_requests) {
            s->status = MC_E_RANGE;
            s->op = -1; /* the caller's count is wrong, not the operator */
            return;
        }
        s->req_sizes[n] = bytes;
        s->req_owner[n] = -1 - op;
    }
    if (mc_checked_add(s->scratch_sum, align_up(bytes, 16), &s->scratch_sum) != MC_OK) {
        s->status = MC_E_OVERFLOW;
        return;
    }
    s->n_requests++;
}

/* ResizeBuffer of the one resizable buffer at the arena start.  Out of line: inlined,
 * its three 64-bit stores cost more than the calls. */
OUT_OF_LINE static bool resize_head(mc_sim_t *s, int64_t bytes)
{
    if (s->tail < bytes) {
        return false;
    }
    s->head = bytes;
    s->temp = bytes;
    s->protect = bytes;
    return true;
}

/* The scratch-request array in the head: room for the requests so far and twelve more
 * (StartModelAllocation, then after each operator's Prepare); int32 counts, as in
 * persistent_struct. */
static bool resize_requests(mc_sim_t *s)
{
    return resize_head(s, MC_SZ_BYTES(s->ctx.abi->scratch_request) *
                              ((int32_t)s->n_requests + MAX_REQUESTS_PER_OP));
}

/* `count` structs: tensors, operators or scratch requests, so int32 (counts within
 * MC_MAX_*, start; TFLM allows twelve requests per operator). */
static void persistent_struct(mc_sim_t *s, mc_size_t size, int32_t count, int32_t category)
{
    mc__sim_persistent(s, MC_SZ_BYTES(size) * count, MC_SZ_ALIGN(size), category);
    /* RecordingMicroAllocator counts the eval tensors and nodes in structs, not
     * allocations (the scratch handles' count goes to the unrecorded entry, which is
     * not reported). */
    if (s->usage != NULL) {
        s->usage[category].count += count - 1;
    }
}

/* ---- the replay -------------------------------------------------------------------------- */

/* MicroInterpreter::AllocateTensors' array of n TfLiteTensor pointers (the graph's
 * inputs or outputs), then each TfLiteTensor with its quantization. */
static void interpreter_tensors(mc_sim_t *s, const int32_t *tensors, int64_t n)
{
    const int32_t *id, *end = tensors + n;
    mc__sim_persistent(s, (int64_t)s->ctx.abi->pointer_bytes * n, 16, MC_TFLM_PERSISTENT_BUFFERS);
    for (id = tensors; id < end; id++) {
        const mc_tensor_t *t = &s->ctx.graph->tensors[*id];
        persistent_struct(s, s->ctx.abi->tensor, 1, MC_TFLM_PERSISTENT_TENSORS);
        if (has_quantization(t)) {
            persistent_struct(s, s->ctx.abi->quantization, 1, MC_TFLM_QUANTIZATION);
            mc__sim_persistent(s, zero_points_bytes(t), 4, MC_TFLM_QUANTIZATION);
        }
    }
}

/* A fresh arena of `arena` bytes, the tail's categories recorded in `usage` (NULL: not
 * recorded); the graph, target, plan and request arrays stay. */
static void sim_start(mc_sim_t *s, int64_t arena, mc_tflm_usage_t *usage)
{
    /* arena .. refused: what a replay changes (tflm_internal.h's order), from zero */
    memset(&s->arena, 0, offsetof(mc_sim_t, unknown) - offsetof(mc_sim_t, arena));
    s->arena = arena;
    s->tail = arena;
    s->usage = usage;
    s->refused = -1;
    s->op = -1; /* not yet in an operator */
}

/* SubgraphAllocations, then each subgraph's TfLiteEvalTensors, then each one's
 * NodeAndRegistrations (counts within MC_MAX_*: int32).  Out of line: its subgraph
 * stays off the stack of the Prepares. */
OUT_OF_LINE static void subgraph_structs(mc_sim_t *s)
{
    const mc_graph_t *g = s->ctx.graph;
    int32_t phase, n = g->subgraphs != NULL ? (int32_t)g->n_subgraphs : 1;
    persistent_struct(s, s->ctx.abi->subgraph_allocations, n, MC_TFLM_UNRECORDED);
    for (phase = 0; phase < 2 * n; phase++) {
        mc_subgraph_t whole;
        bool nodes = phase >= n;
        const mc_subgraph_t *sg = mc__tflm_subgraph(g, nodes ? phase - n : phase, &whole);
        persistent_struct(s, nodes ? s->ctx.abi->node : s->ctx.abi->eval_tensor, nodes ? sg->n_ops : sg->n_tensors,
                          nodes ? MC_TFLM_NODES : MC_TFLM_EVAL_TENSORS);
    }
}

/* Everything up to the plan, in a fresh arena (sim_start); the planner's inputs are
 * then in s (scratch requests). */
static void replay_prepare(mc_sim_t *s, int64_t arena, mc_tflm_usage_t *usage)
{
    const mc_graph_t *g = s->ctx.graph;
    const mc_target_abi_t *abi = s->ctx.abi;
    int32_t k, phase;

    sim_start(s, arena, usage);

    persistent_struct(s, abi->arena_allocator, 1, MC_TFLM_UNRECORDED);
    persistent_struct(s, abi->planner, 1, MC_TFLM_UNRECORDED);
    persistent_struct(s, abi->micro_allocator, 1, MC_TFLM_UNRECORDED);
    if (s->ctx.resource_variables > 0) { /* MicroResourceVariables::Create */
        mc__sim_persistent(s, MC_SZ_BYTES(abi->resource_variables), 16, MC_TFLM_PERSISTENT_BUFFERS);
        mc__sim_persistent(s, MC_SZ_BYTES(abi->resource_variable) * (int64_t)s->ctx.resource_variables, 16,
                           MC_TFLM_PERSISTENT_BUFFERS);
    }
    /* StartModelAllocation */
    persistent_struct(s, abi->builtin_allocator, 1, MC_TFLM_UNRECORDED);
    if (!s->failed && !resize_requests(s)) {
        s->failed = true;
    }
    subgraph_structs(s);

    /* Every operator's builtin options (phase 0), every Init (1), every Prepare (2),
     * subgraph after subgraph as the graph holds them.
     * Each phase ends where the replay stops: the options and Init only allocate, which
     * then does nothing, and the Prepares stop there as TFLM's do (operator indices
     * are int32: counts within MC_MAX_OPS, start). */
    for (phase = 0; phase < 3; phase++) {
        for (k = 0; k < (int32_t)g->n_ops && !stopped(s); k++) {
            const mc_op_t *op = &g->ops[k];
            bool modelled = mc__op_modelled(op->kind, s->ctx.vendor);
            s->op = k;
            if (!modelled) {
                mc__op_unknown_bound(s, op, phase);
            } else if (phase == 0) {
                mc__op_parse(s, op);
            } else if (phase == 1) {
                mc__op_init(s, op);
            } else {
                mc__op_prepare(s, op);
            }
            if (phase < 2) {
                continue;
            }
            if (!modelled) {
                int32_t i; /* the bound's request and eleven empty ones: TFLM's most */
                for (i = 1; i < MAX_REQUESTS_PER_OP; i++) {
                    mc__sim_scratch(s, 0);
                }
            }
            /* FinishPrepareNodeAllocations: its status is ignored by TFLM. */
            s->temp = s->head;
            s->protect = s->head;
            (void)resize_requests(s);
        }
    }
}

/* FinishModelAllocation and the interpreter's input/output tensors. */
static void replay_finish(mc_sim_t *s)
{
    const mc_graph_t *g = s->ctx.graph;
    const mc_target_abi_t *abi = s->ctx.abi;
    int64_t remaining;
    /* Tensors and requests: int32, as in persistent_struct. */
    int32_t i, n_tensors = (int32_t)g->n_tensors, n_requests = (int32_t)s->n_requests;

    if (n_requests != 0) { /* a count: never negative */
        persistent_struct(s, abi->scratch_handle, n_requests, MC_TFLM_UNRECORDED);
    }
    /* CommitStaticMemoryPlan */
    mc__sim_temp(s, (int64_t)abi->pointer_bytes * (g->subgraphs != NULL ? g->n_subgraphs : 1),
                 abi->pointer_bytes);                                 /* subgraph offsets */
    mc__sim_temp(s, MC_SZ_BYTES(abi->allocation_info) * (n_tensors + n_requests),
                 MC_SZ_ALIGN(abi->allocation_info));
    for (i = 0; i < n_tensors; i++) {
        if (mc__tflm_tail_variable(g, i)) {
            mc__sim_persistent(s, mc__tensor_bytes(&g->tensors[i]), 16, MC_TFLM_VARIABLES);
        }
    }
    if (stopped(s)) {
        return;
    }
    remaining = align_down(s->tail, 16) - align_up(s->temp, 16);
    if (remaining < 0 || remaining / PLANNER_BYTES_PER_BUFFER < s->n_planned) {
        s->failed = true;
        return;
    }
    /* TFLM resizes the head to 0, which always fits (the tail never goes below 0), then
     * to the plan. */
    if (!resize_head(s, s->head_bytes)) {
        s->failed = true;
        return;
    }
    interpreter_tensors(s, g->inputs, g->n_inputs);
    interpreter_tensors(s, g->outputs, g->n_outputs);
}

/* AllocateTensors() in an arena of `arena` bytes: s->failed says whether it fails.
 * Once the replay has stopped, replay_finish does nothing.  Out of line: inlined in
 * the bisection it costs both boards a few bytes more. */
OUT_OF_LINE static mc_status_t fits(mc_sim_t *s, int64_t arena, mc_tflm_usage_t *usage)
{
    replay_prepare(s, arena, usage);
    replay_finish(s);
    return s->status;
}

/* ---- the public calls (memcore.h section 11) ------------------------------------------------ */
/* Runs every Prepare on an unbounded arena; the requests go where s says. */
static mc_status_t count_requests(mc_sim_t *s, mc_problem_t *problem)
{
    replay_prepare(s, UNBOUNDED_ARENA, NULL);
    if (s->status == MC_E_UNSUPPORTED) {
        return mc__tflm_unsupported(problem, MC_PROBLEM_KERNEL_REFUSES, (int32_t)s->refused, -1);
    }
    if (s->status != MC_OK) {
        /* In an operator: a size of its buffers past 64 bits, or a tensor its size rule
         * reads is absent.  The problem names it; the status stays. */
        if (s->op >= 0 && (s->status == MC_E_OVERFLOW || s->status == MC_E_RANGE)) {
            (void)mc__tflm_unsupported(problem, s->status == MC_E_OVERFLOW ? MC_PROBLEM_SIZE_OVERFLOW : MC_PROBLEM_MISSING_INPUT,
                              (int32_t)s->op, -1);
        }
        return s->status;
    }
    return s->failed ? MC_E_OVERFLOW : MC_OK; /* nothing fits 2^50 bytes */
}

/* The caller's scratch for mc_tflm_buffers and mc_tflm_model: the replay's state (kept
 * off a board's short stack), the tail's categories, then a slot per tensor (its
 * buffer, whose scopes the walk writes into the caller's arrays directly) and two
 * scopes per operator. */
#define STATE_BYTES (((int64_t)sizeof(mc_sim_t) + 7) / 8 * 8)
#define USAGE_BYTES ((int64_t)sizeof(mc_tflm_usage_t) * (MC_TFLM_CATEGORY_COUNT + 1))

/* Out of line: its 64-bit arithmetic inlined at both calls costs more than a call. */
OUT_OF_LINE static int64_t scratch_for(const mc_graph_t *g)
{
    return STATE_BYTES + USAGE_BYTES + (int64_t)sizeof(int32_t) * (g->n_tensors + 2 * g->n_ops);
}

/* What mc_tflm_buffers and mc_tflm_model check first, in order: the graph, their
 * scratch, whose start then holds the replay's state and the tail's categories (from
 * zero: no request arrays, nothing recorded), and start's checks. */
static mc_status_t start_replay(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels,
                                uint32_t flags, void *scratch, int64_t scratch_bytes,
                                mc_problem_t *problem)
{
    mc_sim_t *s = (mc_sim_t *)scratch;
    if (g == NULL) {
        return MC_E_NULL;
    }
    if (scratch == NULL || ((uintptr_t)scratch & 7u) != 0 || scratch_bytes < scratch_for(g)) {
        return MC_E_SCRATCH;
    }
    memset(scratch, 0, (size_t)(STATE_BYTES + USAGE_BYTES));
    MC_TRY(mc__tflm_start(g, target, kernels, flags, &s->ctx, &s->unknown, problem));
    return mc__tflm_prepare_checks(&s->ctx, problem);
}

mc_status_t mc_tflm_buffer_count(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                 uint32_t flags, int64_t *n_buffers, int64_t *scratch_bytes,
                                 mc_problem_t *problem)
{
    mc_ctx_t c;
    int64_t unknown;
    /* Tensors, and a handful of requests per operator at most: int32 for counts
     * within MC_MAX_* (start). */
    int32_t i, n = 0;
    if (n_buffers == NULL || scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(mc__tflm_start(graph, target, kernels, flags, &c, &unknown, problem));
    MC_TRY(mc__tflm_prepare_checks(&c, problem));
    for (i = 0; i < (int32_t)graph->n_tensors; i++) {
        n += mc__tflm_planned(graph, i);
    }
    /* The scratch requests, counted from the scripts without replaying them (the
     * check's stack is short on a board); an unknown operator asks for twelve. */
    for (i = 0; i < (int32_t)graph->n_ops; i++) {
        int32_t k = mc__op_modelled(graph->ops[i].kind, c.vendor)
                        ? mc__op_scratch_count(&c, &graph->ops[i])
                        : MAX_REQUESTS_PER_OP;
        if (k == -2) { /* a buffer past 64 bits: reported as the replay reports it */
            (void)mc__tflm_unsupported(problem, MC_PROBLEM_SIZE_OVERFLOW, i, -1);
            return MC_E_OVERFLOW;
        }
        if (k < 0) { /* an input its kernel needs is absent, or it refuses the op: Prepare fails */
            return mc__tflm_unsupported(problem, k == -4 ? MC_PROBLEM_KERNEL_REFUSES : MC_PROBLEM_MISSING_INPUT,
                               i, -1);
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
    int32_t *slot, bad;
    mc_scopes_t scopes;
    int32_t i, n = 0; /* tensor indices and counts: within MC_MAX_TENSORS (start) */
    MC_TRY(start_replay(graph, target, kernels, flags, scratch, scratch_bytes, problem));
    if (n_buffers > 0 && (sizes == NULL || first_use == NULL || last_use == NULL || owner == NULL)) {
        return MC_E_NULL;
    }
    slot = (int32_t *)(void *)((uint8_t *)scratch + STATE_BYTES + USAGE_BYTES);
    /* The planned tensors in tensor order (TFLM's AllocationInfo order), then the
     * scratch buffers in request order: the order decides the planner's ties. */
    for (i = 0; i < (int32_t)graph->n_tensors; i++) {
        slot[i] = -1;
        if (!mc__tflm_planned(graph, i)) {
            continue;
        }
        if (n >= n_buffers) {
            return MC_E_RANGE;
        }
        sizes[n] = mc__tensor_bytes(&graph->tensors[i]);
        first_use[n] = last_use[n] = 0; /* never touched, until the walk */
        owner[n] = i;
        slot[i] = n++;
    }
    scopes.slot = slot;
    scopes.first = first_use;
    scopes.last = last_use;
    scopes.ops = slot + graph->n_tensors;
    memset(scopes.ops, 0, 2 * (size_t)graph->n_ops * sizeof *slot);
    (void)mc__tflm_walk(graph, &scopes, &bad); /* start() checked the calls */
    s->req_sizes = sizes + n;
    s->req_first = first_use + n;
    s->req_last = last_use + n;
    s->req_owner = owner + n;
    s->max_requests = n_buffers - n;
    MC_TRY(count_requests(s, problem));
    /* A scratch buffer lives through its operator's scopes (its callees' included). */
    for (i = 0; i < (int32_t)s->n_requests; i++) {
        int32_t op = -1 - s->req_owner[i];
        s->req_first[i] = scopes.ops[op];
        s->req_last[i] = scopes.ops[graph->n_ops + op];
    }
    return n + s->n_requests == n_buffers ? MC_OK : MC_E_RANGE;
}

mc_status_t mc_tflm_model(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                          int64_t head_bytes, int64_t n_buffers, void *scratch, int64_t scratch_bytes,
                          mc_tflm_t *out, mc_problem_t *problem)
{
    mc_sim_t *sp = (mc_sim_t *)scratch;
    mc_tflm_usage_t *usage = (mc_tflm_usage_t *)(void *)((uint8_t *)scratch + STATE_BYTES);
    int64_t lo, hi;
    bool found = false;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (head_bytes < 0 || n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(start_replay(g, target, kernels, flags, scratch, scratch_bytes, problem));
    MC_TRY(count_requests(sp, problem)); /* a kernel's refusal is found here */
    if (sp->unknown != 0) { /* a count: never negative */
        /* The greedy placement is not monotone in the sizes, so with a bound on an
         * unknown kernel's scratch its plan bounds nothing; the sum of every aligned
         * buffer does (a buffer is never placed past the buffers placed before it). */
        int64_t sum = sp->scratch_sum;
        int32_t i;
        for (i = 0; i < (int32_t)g->n_tensors; i++) {
            if (mc__tflm_planned(g, i)) {
                MC_TRY(mc_checked_add(sum, align_up(mc__tensor_bytes(&g->tensors[i]), 16), &sum));
            }
        }
        head_bytes = sum > head_bytes ? sum : head_bytes;
    }
    sp->head_bytes = head_bytes;
    sp->n_planned = n_buffers;

    /* The smallest arena that fits: bisection on a monotone predicate between lo, which
     * never fits (0: the allocator objects alone do not), and hi, which does once
     * found: the head and 4 KB, doubled until it does. */
    lo = 0;
    MC_TRY(mc_checked_add(head_bytes, 4096, &hi));
    while (!found || hi - lo > 1) {
        int64_t arena = found ? lo + (hi - lo) / 2 : hi;
        MC_TRY(fits(sp, arena, NULL));
        if (!sp->failed) {
            hi = arena;
            found = true;
        } else if (found) {
            lo = arena;
        } else if (hi > UNBOUNDED_ARENA / 2) { /* doubled past it: nothing fits */
            return MC_E_OVERFLOW;
        } else {
            lo = hi;
            hi *= 2;
        }
    }
    /* Last, on an unbounded arena (its end 16-aligned, as TFLM reports it): the tail
     * and its categories, recorded from the zeros start_replay left (no earlier replay
     * records them). */
    MC_TRY(fits(sp, UNBOUNDED_ARENA, usage));
    if (sp->failed) {
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
    out->upper_bound = sp->unknown != 0;
    return MC_OK;
}
