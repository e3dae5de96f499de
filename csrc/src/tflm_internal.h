/*
 * Internal to the core: the tables TFLM's arena is computed from (tflm_targets.c,
 * tflm_ops.c) and the allocator replay they drive (tflm_model.c).
 *
 * The tables are data in flash, small integers, one row per thing: a new operator kind
 * is a row in tflm_ops.c (and a script if its Prepare is new), a new target a column of
 * its structure sizes and a row in tflm_targets.c.
 */
#ifndef MEMCORE_TFLM_INTERNAL_H
#define MEMCORE_TFLM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "memcore.h"

/* sizeof and alignof of one structure on one target, packed: bytes | align code << 12
 * (align 1, 2, 4, 8 -> 0, 1, 2, 3). */
typedef uint16_t mc_size_t;
#define MC_SZ(bytes, align) \
    ((mc_size_t)((bytes) | ((align) == 8 ? 0x3000 : (align) == 4 ? 0x2000 : (align) == 2 ? 0x1000 : 0)))
#define MC_SZ_BYTES(s) ((int64_t)((s) & 0x0FFF))
/* 1, 2, 4 or 8, as a 32-bit shift: a 64-bit one is a library call on Xtensa. */
#define MC_SZ_ALIGN(s) ((int32_t)1 << (((s) >> 12) & 3))

enum { MC_VENDOR_NONE = 0, MC_VENDOR_CMSIS_NN = 1, MC_VENDOR_ESP_NN = 2 };

/* Tail RecordingMicroAllocator does not categorise: allocator objects, builtin
 * options, scratch handles. */
#define MC_TFLM_UNRECORDED MC_TFLM_CATEGORY_COUNT

/* The runtime structures TFLM allocates whatever the model, on one target. */
typedef struct {
    /* Constructed in the tail by RecordingMicroAllocator::Create, in this order, then
     * StartModelAllocation's MicroBuiltinDataAllocator and SubgraphAllocations. */
    mc_size_t arena_allocator;     /* RecordingSingleArenaBufferAllocator */
    mc_size_t planner;             /* GreedyMemoryPlanner */
    mc_size_t micro_allocator;     /* RecordingMicroAllocator */
    mc_size_t builtin_allocator;   /* MicroBuiltinDataAllocator */
    mc_size_t subgraph_allocations;
    mc_size_t eval_tensor;         /* TfLiteEvalTensor */
    mc_size_t node;                /* NodeAndRegistration */
    mc_size_t tensor;              /* TfLiteTensor (TF_LITE_STATIC_MEMORY) */
    mc_size_t quantization;        /* TfLiteAffineQuantization */
    mc_size_t scratch_request;     /* internal::ScratchBufferRequest */
    mc_size_t scratch_handle;      /* ScratchBufferHandle */
    mc_size_t allocation_info;     /* AllocationInfo */
    mc_size_t resource_variables;  /* MicroResourceVariables */
    mc_size_t resource_variable;   /* MicroResourceVariables::MicroResourceVariable */
    uint8_t pointer_bytes;         /* sizeof(void *), sizeof(size_t) */
    uint8_t vendor;                /* MC_VENDOR_* of MC_KERNELS_OPTIMISED */
} mc_target_abi_t;

const mc_target_abi_t *mc__target_abi(mc_target_t target);

/* ---- the allocator replay ---------------------------------------------------- */

/* TFLM's SingleArenaBufferAllocator over an arena [0, arena): head_, temp_ and tail_
 * as absolute positions, with the checks TFLM makes at each step.  tflm_model.c runs
 * the whole AllocateTensors() sequence through it; the op table's scripts run each
 * kernel's Init and Prepare through the same functions. */
/* What the op table's size rules read: the graph, the target and its kernels. */
typedef struct {
    const mc_graph_t *graph;
    const mc_target_abi_t *abi;
    mc_target_t target;
    int32_t vendor;                /* the vendor kernels in use (MC_VENDOR_*) */
    int32_t resource_variables;    /* MicroResourceVariables' size (tflm_resources.c) */
} mc_ctx_t;

typedef struct {
    mc_ctx_t ctx;
    int64_t arena;
    int64_t head, temp, tail;
    int64_t protect;               /* persistent buffers may not go below this: the
                                      temporaries a kernel still reads */
    bool failed;                   /* a step TFLM checks did not fit */
    mc_status_t status;            /* an overflow or bad graph, which ends the replay */
    mc_tflm_usage_t *usage;        /* MC_TFLM_CATEGORY_COUNT + 1 entries (+ unrecorded),
                                      in the caller's scratch; NULL: not recorded */
    int64_t n_requests;            /* scratch buffer requests so far */
    int64_t scratch_sum;           /* their sizes, each rounded up to 16 */
    int64_t op;                    /* the operator being initialised or prepared */
    int64_t refused;               /* an operator whose kernel refuses it (MC_E_UNSUPPORTED) */
    int64_t unknown;               /* operators costed with the unknown-operator bound */
    int64_t head_bytes;            /* the planned head, once known */
    int64_t n_planned;             /* buffers the planner places */
    /* Where request i is recorded (mc_tflm_buffers' arrays); NULL: count only. */
    int64_t *req_sizes;
    int32_t *req_first, *req_last, *req_owner;
    int64_t max_requests;
} mc_sim_t;

/* A persistent allocation from the tail (AllocatePersistentBuffer). */
void mc__sim_persistent(mc_sim_t *s, int64_t bytes, int64_t align, int32_t category);
/* A temporary from the head side (AllocateTemp). */
void mc__sim_temp(mc_sim_t *s, int64_t bytes, int64_t align);
/* AllocateTempTfLiteTensor of a graph tensor: the TfLiteTensor, and its quantization
 * when it has scales and zero points. */
void mc__sim_temp_tensor(mc_sim_t *s, int32_t tensor);
/* RequestScratchBufferInArena. */
void mc__sim_scratch(mc_sim_t *s, int64_t bytes);

/* Where TFLM's lifetimes (lifetimes.c) go, as scopes + 1 (TFLM's "never touched", -1,
 * becomes 0, which the caller sets before the walk; a uniform shift changes no overlap,
 * hence no placement): the first and last of tensor t in first[slot[t]] and
 * last[slot[t]], none where slot[t] is -1 or slot is NULL (only the planned tensors need
 * one: a check keeps no entry for a constant); those of operator k's scratch buffers in
 * ops[k] and ops[n_ops + k]. */
typedef struct {
    const int32_t *slot;
    int32_t *first, *last;
    int32_t *ops;
} mc_scopes_t;

/* TFLM's lifetimes over a graph whose indices have been checked, into *scopes (NULL:
 * only the calls are checked).  Returns -1 with the number of scopes in *bad, or the
 * operator that calls subgraph *bad, which the model lacks or which nests deeper than
 * MC_MAX_NESTING. */
int32_t mc__tflm_walk(const mc_graph_t *g, const mc_scopes_t *scopes, int32_t *bad);
/* Subgraph s: the whole graph, made in *whole, when it has only one (subgraphs NULL;
 * its outputs are then the graph's, not after its inputs). */
const mc_subgraph_t *mc__tflm_subgraph(const mc_graph_t *g, int32_t s, mc_subgraph_t *whole);

/* Resource variables (tflm_resources.c): whether tensor i is a VAR_HANDLE's output
 * (never planned); how many distinct variables the model names, with *over the first
 * VAR_HANDLE past n_variables of them (or -1); the buffer ASSIGN_VARIABLE `op`
 * allocates, or -1. */
bool mc__tflm_resource_handle(const mc_graph_t *g, int32_t i);
int32_t mc__tflm_resource_count(const mc_graph_t *g, int32_t n_variables, int32_t *over);
int64_t mc__tflm_resource_buffer(const mc_graph_t *g, const mc_op_t *op);

/* ---- the checks before a replay (tflm_start.c) ---------------------------------- */

/* A valid graph TFLM does not run: MC_E_UNSUPPORTED, with the problem in *p (when
 * given); op and value int32 (an operator index or a code), or -1. */
mc_status_t mc__tflm_unsupported(mc_problem_t *p, int32_t kind, int32_t op, int32_t value);
/* The checks every call makes, every index included; sets up *c for the graph, with the
 * unknown operators counted in *unknown. */
mc_status_t mc__tflm_start(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                           mc_ctx_t *c, int64_t *unknown, mc_problem_t *problem);
/* The resource variables' count and the reference kernels' Prepare checks: the first
 * that fails is MC_E_UNSUPPORTED. */
mc_status_t mc__tflm_prepare_checks(const mc_ctx_t *c, mc_problem_t *p);

/* ---- offline plans (tflm_offline.c) ------------------------------------------- */

/* The graph's offline offsets, or NULL when it has no plan. */
const int32_t *mc__offline_offsets(const mc_graph_t *g);
/* Whether TFLM's planner places tensor i in the head (AllocationInfo's needs_allocating). */
bool mc__tflm_planned(const mc_graph_t *g, int32_t i);
/* Whether tensor i is a variable TFLM allocates in the tail. */
bool mc__tflm_tail_variable(const mc_graph_t *g, int32_t i);
/* mc_tflm_plan in two steps, the graph needed by the first only (the check plans a graph
 * it has read from a file once the graph is gone, check.c):
 *   mc__tflm_take_offsets  each buffer's offset from the file's plan, or -1, into fixed[];
 *                          false, with the tensor and its offset in bad[], for the first
 *                          TFLM cannot use (below -1, misaligned, or ending past 2^31 - 1);
 *   mc__tflm_place         TFLM's placement around them, or that tensor's problem when not
 *                          `usable`; the rest as mc_tflm_plan. */
bool mc__tflm_take_offsets(const mc_graph_t *graph, const int64_t *sizes, const int32_t *owner, int64_t n,
                           int64_t *fixed, int64_t *bad);
mc_status_t mc__tflm_place(bool usable, const int64_t *bad, const int64_t *sizes, const int32_t *first_use,
                           const int32_t *last_use, const int32_t *owner, int64_t n_buffers, void *scratch,
                           int64_t scratch_bytes, int64_t *fixed_offsets, int64_t *offsets, mc_plan_t *out,
                           mc_problem_t *problem);

/* ---- kernels' Prepare checks (tflm_prepare.c) ---------------------------------- */

/* The index of the first Prepare check `op` fails, with the offending tensor in
 * *tensor (-1: the input count); -1 when it passes them all. */
int32_t mc__op_prepare_refusal(const mc_graph_t *g, const mc_op_t *op, int32_t *tensor);

/* ---- the op table ------------------------------------------------------------- */

/* Whether the op table models operator kind `code` with these vendor kernels (a row
 * that TFLM registers and whose allocations memcore reproduces). */
bool mc__op_modelled(int32_t code, int32_t vendor);
/* Whether the vendor library's kernel replaces TFLM's reference kernel for it. */
bool mc__op_vendor_kernel(int32_t code, int32_t vendor);
/* Whether TFLM registers a kernel for it at all. */
bool mc__op_registered(int32_t code);
/* The op's builtin-options parse (into the tail), Init and Prepare, through the replay. */
void mc__op_parse(mc_sim_t *s, const mc_op_t *op);
void mc__op_init(mc_sim_t *s, const mc_op_t *op);
void mc__op_prepare(mc_sim_t *s, const mc_op_t *op);
/* How many scratch buffers the op's Prepare requests, without replaying its allocations
 * (-1: an input a rule reads is missing; -2: a buffer's size overflows 64 bits; -4: the
 * kernel refuses the operator). */
int32_t mc__op_scratch_count(const mc_ctx_t *c, const mc_op_t *op);
/* The unknown-operator bound's pieces (see memcore.h, MC_TFLM_ALLOW_UNKNOWN). */
void mc__op_unknown_bound(mc_sim_t *s, const mc_op_t *op, int32_t phase);

#endif /* MEMCORE_TFLM_INTERNAL_H */
