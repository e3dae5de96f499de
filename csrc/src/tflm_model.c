/*
 * TensorFlow Lite Micro's arena for a graph (memcore.h §11): the buffers its planner
 * places in the head, and the persistent tail and planning peak around them.
 *
 * TFLM builds its arena in a fixed order (MicroAllocator / MicroInterpreter):
 *   1. allocator objects, then one TfLiteEvalTensor per tensor and one
 *      NodeAndRegistration per operator, in the tail;
 *   2. every operator's builtin options struct (MicroBuiltinDataAllocator);
 *   3. every kernel's Init() data (AllocatePersistentBuffer, 16-aligned);
 *   4. every kernel's Prepare(): per-channel multipliers and shifts;
 *   5. the plan of the head, using temporaries taken from the head side (the
 *      scratch-request buffer, subgraph offsets, the AllocationInfo array, the planner's
 *      per-buffer state), freed afterwards;
 *   6. the input and output TfLiteTensors with their quantization, in the tail.
 * The tail allocator hands memory out from the 16-aligned end downwards: a request
 * moves the position by its size, then rounds it to the request's alignment, so the
 * padding belongs to the request that causes it (what RecordingMicroAllocator counts).
 *
 * The sizes are per target.  This first table covers the operator kinds measured on the
 * 64-bit PyPI interpreter (0.dev20261023182759: every value reproduced head and tail of
 * the 8 shared models and all 74 of their operator prefixes) and costs other kinds with
 * larger-than-any-measured defaults; the 32-bit numbers follow the same structs' layouts
 * with 4-byte pointers and are derived, not measured.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"

#define ARENA_ALIGNMENT 16
#define MAX_SCRATCH_PER_OP 12       /* kMaxScratchBuffersPerOp */
#define PLANNER_BYTES_PER_BUFFER 40 /* GreedyMemoryPlanner::per_buffer_size(): no pointers */

/* Builtin operator codes the table names. */
enum {
    ADD = 0, AVERAGE_POOL_2D = 1, CONV_2D = 3, DEPTHWISE_CONV_2D = 4, FULLY_CONNECTED = 9,
    LOGISTIC = 14, MAX_POOL_2D = 17, RESHAPE = 22, SOFTMAX = 25, TRANSPOSE_CONV = 67
};

typedef struct {
    int16_t allocator_objects;     /* allocator, planner, builtin-data allocator, subgraph list */
    int16_t eval_tensor;           /* TfLiteEvalTensor */
    int16_t node_and_registration; /* TfLiteNode + TFLMRegistration* */
    int16_t tflite_tensor;         /* a persistent TfLiteTensor */
    int16_t affine_quantization;   /* TfLiteAffineQuantization */
    int16_t scratch_request;       /* ScratchBufferRequest */
    int16_t allocation_info;       /* AllocationInfo */
    int16_t pointer;               /* pointer and size_t */
} abi_t;

static const abi_t abi64 = {488, 24, 64, 64, 24, 16, 32, 8};
static const abi_t abi32 = {248, 12, 32, 40, 12, 12, 24, 4};

typedef struct {
    uint8_t kind;
    uint8_t options_bytes;   /* builtin options struct */
    uint8_t options_align;
    uint8_t kernel_bytes64;  /* Init() data, 64-bit pointers */
    uint8_t kernel_bytes32;  /* 32-bit pointers */
    uint8_t per_channel;     /* Prepare() keeps per-channel multipliers: 1 always, 2 when the
                                filter has several scales */
} op_row_t;

static const op_row_t rows[] = {
    {CONV_2D, 28, 4, 80, 72, 1},
    {DEPTHWISE_CONV_2D, 28, 4, 80, 72, 1},
    {AVERAGE_POOL_2D, 40, 4, 32, 32, 0},
    {MAX_POOL_2D, 40, 4, 32, 32, 0},
    {FULLY_CONNECTED, 32, 8, 72, 64, 2},
    {SOFTMAX, 4, 4, 80, 64, 0},
    {RESHAPE, 36, 4, 0, 0, 0},
    {ADD, 8, 4, 60, 60, 0},
    {LOGISTIC, 0, 1, 16, 16, 0},
};

/* Not measured: larger than every measured kind, so the arena errs high. */
static const op_row_t unknown_row = {255, 64, 8, 128, 128, 1};

/* Every builtin kind MicroMutableOpResolver can register, as a bitmap by code. */
static const uint8_t registered[] = {
    0xff, 0x5b, 0xee, 0x1e, 0xf4, 0xbf, 0xe6, 0xff, 0xce, 0xbf, 0xdc, 0xf7,
    0x7e, 0x9f, 0xf4, 0x48, 0x07, 0xd0, 0x83, 0x00,
};

bool mc_tflm_supports(int32_t kind)
{
    return kind >= 0 && kind < (int32_t)(8 * sizeof registered) && ((registered[kind / 8] >> (kind % 8)) & 1) != 0;
}

static const op_row_t *row_of(int32_t kind)
{
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].kind == kind) {
            return &rows[i];
        }
    }
    return NULL;
}

static const abi_t *abi_of(mc_target_t target)
{
    return target == MC_TARGET_HOST64 ? &abi64 : &abi32;
}

static mc_status_t check_args(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, mc_problem_t *problem)
{
    /* As int32: enums may be 1-byte and unsigned (arm-none-eabi), so no sign test on them. */
    int32_t t = (int32_t)target, k = (int32_t)kernels;
    if (g == NULL) {
        return MC_E_NULL;
    }
    if (t < 0 || t >= (int32_t)MC_TARGET_COUNT ||
        (k != (int32_t)MC_KERNELS_REFERENCE && k != (int32_t)MC_KERNELS_OPTIMISED)) {
        return MC_E_RANGE;
    }
    /* Every index is followed below: they must be in range, whoever built the graph. */
    return mc_graph_structure(g, problem);
}

static bool planned(const mc_tensor_t *t)
{
    /* TFLM's needs_allocating: no data in the file, not a variable, not empty. */
    return (t->flags & (MC_TENSOR_CONSTANT | MC_TENSOR_VARIABLE)) == 0 && t->bytes != 0;
}

mc_status_t mc_tflm_buffer_count(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels,
                                 uint32_t flags, int64_t *n_buffers, int64_t *scratch_bytes,
                                 mc_problem_t *problem)
{
    int64_t i, n = 0;
    (void)flags;
    MC_TRY(check_args(g, target, kernels, problem));
    if (n_buffers == NULL || scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    for (i = 0; i < g->n_tensors; i++) {
        n += planned(&g->tensors[i]);
    }
    *n_buffers = n;
    *scratch_bytes = 2 * (int64_t)sizeof(int32_t) * g->n_tensors;
    return MC_OK;
}

mc_status_t mc_tflm_buffers(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                            void *scratch, int64_t scratch_bytes, int64_t *sizes, int32_t *first_use,
                            int32_t *last_use, int32_t *owner, int64_t n_buffers, mc_problem_t *problem)
{
    int64_t n = 0, need = 0, i, k, in = 0, out = 0;
    int32_t *first = (int32_t *)scratch, *last;
    int32_t scope = 0;

    MC_TRY(mc_tflm_buffer_count(g, target, kernels, flags, &n, &need, problem));
    if (n != n_buffers) {
        return MC_E_RANGE;
    }
    if (need > 0 && (scratch == NULL || scratch_bytes < need || ((uintptr_t)scratch & 7u) != 0)) {
        return MC_E_SCRATCH;
    }
    if (n > 0 && (sizes == NULL || first_use == NULL || last_use == NULL || owner == NULL)) {
        return MC_E_NULL;
    }
    last = first + g->n_tensors;
    /* TFLM's scopes (AllocationInfoBuilder::MarkAllocationLifetimes): graph inputs and
     * outputs at 0; operator k at k + 1 creates its outputs, then uses its inputs and
     * outputs; graph outputs stay live to the end.  See lifetimes.c. */
    for (i = 0; i < g->n_tensors; i++) {
        first[i] = last[i] = -1;
    }
    for (i = 0; i < g->n_inputs; i++) {
        first[g->inputs[i]] = last[g->inputs[i]] = 0;
    }
    for (i = 0; i < g->n_outputs; i++) {
        first[g->outputs[i]] = last[g->outputs[i]] = 0;
    }
    for (k = 0; k < g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        scope++;
        for (i = op->first_output; i < op->first_output + op->n_outputs; i++) {
            first[g->op_tensors[i]] = last[g->op_tensors[i]] = scope;
        }
        for (i = op->first_input; i < op->first_input + op->n_inputs; i++) {
            if (g->op_tensors[i] >= 0) {
                last[g->op_tensors[i]] = scope;
            }
        }
    }
    for (i = 0; i < g->n_outputs; i++) {
        last[g->outputs[i]] = scope;
    }
    for (i = 0; i < g->n_tensors; i++) {
        if (!planned(&g->tensors[i])) {
            continue;
        }
        sizes[out] = g->tensors[i].bytes;
        /* + 1: TFLM's "never touched" (-1) becomes the valid scope 0; a uniform shift
         * changes no overlap, hence no placement. */
        first_use[out] = first[i] + 1;
        last_use[out] = last[i] + 1;
        owner[out] = (int32_t)i;
        out++;
    }
    (void)in;
    return MC_OK;
}

typedef struct {
    int64_t at;                /* the tail's size so far */
} tail_t;

/* One request: the position moves by its size, then to its alignment; the used bytes
 * (padding included) and the request go to its category, if any. */
static mc_status_t bump(tail_t *t, int64_t bytes, int64_t alignment, mc_tflm_usage_t *category)
{
    int64_t next = 0, rem;
    MC_TRY(mc_checked_add(t->at, bytes, &next));
    rem = next % alignment;
    if (rem != 0) {
        MC_TRY(mc_checked_add(next, alignment - rem, &next));
    }
    if (category != NULL) {
        MC_TRY(mc_checked_add(category->used_bytes, next - t->at, &category->used_bytes));
        MC_TRY(mc_checked_add(category->requested_bytes, bytes, &category->requested_bytes));
        category->count++;
    }
    t->at = next;
    return MC_OK;
}

static const mc_tensor_t *filter_of(const mc_graph_t *g, const mc_op_t *op)
{
    int32_t t = op->n_inputs > 1 ? g->op_tensors[op->first_input + 1] : -1;
    return t >= 0 ? &g->tensors[t] : NULL;
}

/* Output channels of a conv-like operator's filter, or -1 for other kinds. */
static int64_t output_channels(const mc_graph_t *g, const mc_op_t *op)
{
    const mc_tensor_t *f;
    if (op->kind != CONV_2D && op->kind != DEPTHWISE_CONV_2D && op->kind != FULLY_CONNECTED &&
        op->kind != TRANSPOSE_CONV) {
        return -1;
    }
    f = filter_of(g, op);
    if (f == NULL || f->rank == 0) {
        return -1;
    }
    return op->kind == DEPTHWISE_CONV_2D ? f->dims[f->rank - 1] : f->dims[0];
}

static mc_status_t io_tensors(tail_t *t, const mc_graph_t *g, const abi_t *abi, const int32_t *list, int64_t n,
                              mc_tflm_t *r)
{
    int64_t i, bytes = 0;
    MC_TRY(mc_checked_mul(abi->pointer, n, &bytes));
    MC_TRY(bump(t, bytes, ARENA_ALIGNMENT, &r->categories[MC_TFLM_PERSISTENT_BUFFERS]));
    for (i = 0; i < n; i++) {
        const mc_tensor_t *tensor = &g->tensors[list[i]];
        MC_TRY(bump(t, abi->tflite_tensor, 8, &r->categories[MC_TFLM_PERSISTENT_TENSORS]));
        if (tensor->quant_channels > 0 && (tensor->flags & MC_TENSOR_ZERO_POINT) != 0) {
            MC_TRY(bump(t, abi->affine_quantization, abi->pointer, &r->categories[MC_TFLM_QUANTIZATION]));
            MC_TRY(bump(t, 4 + 4 * (int64_t)tensor->quant_channels, 4, &r->categories[MC_TFLM_QUANTIZATION]));
        }
    }
    return MC_OK;
}

mc_status_t mc_tflm_model(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                          int64_t head_bytes, int64_t n_buffers, mc_tflm_t *out, mc_problem_t *problem)
{
    const abi_t *abi;
    tail_t t = {0};
    mc_tflm_t r;
    int64_t k, before = 0, temporaries = 0, bytes = 0, total = 0;
    tail_t planning = {0};

    MC_TRY(check_args(g, target, kernels, problem));
    if (out == NULL) {
        return MC_E_NULL;
    }
    if (head_bytes < 0 || n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    abi = abi_of(target);
    memset(&r, 0, sizeof r);
    for (k = 0; k < g->n_ops; k++) {
        if (!mc_tflm_supports(g->ops[k].kind)) {
            if ((flags & MC_TFLM_ALLOW_UNKNOWN) == 0) {
                if (problem != NULL) {
                    problem->kind = MC_PROBLEM_UNKNOWN_OP;
                    problem->op = k;
                    problem->tensor = problem->other = problem->at = -1;
                    problem->value = g->ops[k].kind;
                }
                return MC_E_UNSUPPORTED;
            }
            r.unknown_ops++;
        }
        /* Kinds TFLM runs but this table has not measured are costed with the
         * defaults: an estimate that errs high, flagged as such. */
        if (row_of(g->ops[k].kind) == NULL) {
            r.upper_bound = true;
        }
    }

    MC_TRY(bump(&t, abi->allocator_objects, 8, NULL));
    MC_TRY(mc_checked_mul(abi->eval_tensor, g->n_tensors, &bytes));
    MC_TRY(bump(&t, bytes, 8, &r.categories[MC_TFLM_EVAL_TENSORS]));
    MC_TRY(mc_checked_mul(abi->node_and_registration, g->n_ops, &bytes));
    MC_TRY(bump(&t, bytes, 8, &r.categories[MC_TFLM_NODES]));
    /* TFLM counts these two per struct, not per allocation. */
    r.categories[MC_TFLM_EVAL_TENSORS].count = g->n_tensors;
    r.categories[MC_TFLM_NODES].count = g->n_ops;
    for (k = 0; k < g->n_ops; k++) {
        const op_row_t *row = row_of(g->ops[k].kind);
        row = row != NULL ? row : &unknown_row;
        if (row->options_bytes > 0) {
            MC_TRY(bump(&t, row->options_bytes, row->options_align, NULL));
        }
    }
    for (k = 0; k < g->n_ops; k++) {
        const op_row_t *row = row_of(g->ops[k].kind);
        int64_t kernel_bytes;
        row = row != NULL ? row : &unknown_row;
        kernel_bytes = target == MC_TARGET_HOST64 ? row->kernel_bytes64 : row->kernel_bytes32;
        if (kernel_bytes > 0) {
            MC_TRY(bump(&t, kernel_bytes, ARENA_ALIGNMENT, &r.categories[MC_TFLM_PERSISTENT_BUFFERS]));
        }
    }
    for (k = 0; k < g->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        const op_row_t *row = row_of(op->kind);
        int64_t channels = output_channels(g, op);
        const mc_tensor_t *f = filter_of(g, op);
        bool per_channel;
        if (channels < 0) {
            continue;
        }
        per_channel = row == NULL || row->per_channel == 1 ||
                      (row->per_channel == 2 && f != NULL && f->quant_channels > 1);
        if (per_channel) {
            MC_TRY(bump(&t, 4 * channels, ARENA_ALIGNMENT, &r.categories[MC_TFLM_PERSISTENT_BUFFERS]));
            MC_TRY(bump(&t, 4 * channels, ARENA_ALIGNMENT, &r.categories[MC_TFLM_PERSISTENT_BUFFERS]));
        }
    }
    before = t.at;
    /* Planning temporaries (CommitStaticMemoryPlan), from the head side. */
    MC_TRY(bump(&planning, (int64_t)abi->scratch_request * MAX_SCRATCH_PER_OP, 8, NULL));
    MC_TRY(bump(&planning, abi->pointer, 8, NULL)); /* one subgraph offset */
    MC_TRY(mc_checked_mul(abi->allocation_info, g->n_tensors, &bytes));
    MC_TRY(bump(&planning, bytes, ARENA_ALIGNMENT, NULL));
    MC_TRY(mc_checked_mul(PLANNER_BYTES_PER_BUFFER, n_buffers, &bytes));
    MC_TRY(bump(&planning, bytes, 1, NULL));
    temporaries = planning.at;

    MC_TRY(io_tensors(&t, g, abi, g->inputs, g->n_inputs, &r));
    MC_TRY(io_tensors(&t, g, abi, g->outputs, g->n_outputs, &r));

    r.head_bytes = head_bytes;
    r.tail_bytes = t.at;
    MC_TRY(mc_checked_add(head_bytes, t.at, &total));
    r.total_bytes = total;
    MC_TRY(mc_checked_add(before, temporaries, &bytes));
    r.minimum_arena_bytes = total > bytes ? total : bytes;
    r.recommended_arena_bytes = r.minimum_arena_bytes;
    *out = r;
    return MC_OK;
}
