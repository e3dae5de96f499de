/*
 * Internal to the planner: its state in the caller's scratch, shared by plan.c (the
 * strategies, the orders, the entry points) and plan_place.c (the placement step, the
 * interval tree, the classes and their runs).
 */
#ifndef MEMCORE_PLAN_INTERNAL_H
#define MEMCORE_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Cells of the interval tree walk: one pending sibling per level of a tree over at most
 * MC_PLAN_MAX_BUFFERS < 2^20 positions, and the root. */
#define WALK_CELLS 32

/*
 * Scratch, in this order (8-byte aligned; the 8-byte arrays first):
 *   plan_t, in STATE_BYTES
 *   int64  aligned[n]   aligned sizes
 *   int64  place[n]     offsets of the plan being built, -1 while not placed
 *   int64  run_end[n]   per run (its first buffer's id): where the run ends
 *   int32  node[4n]     per position of "by first use" (the buffers with a size by first
 *                       use, lower id first on ties), four cells: the interval tree's
 *                       latest last use in the subtree, the buffer's own last use, its id,
 *                       the latest last use of the positions up to this one
 *   int32  reach[n]     per buffer id: how many positions start no later than its
 *                       last use (its own position + 1 + the later starters it meets)
 *   int32  list[n], temp[n]  overlapping buffers of one placement; sort
 *                       temporaries; the breadth order's ranks; the class cuts
 *   int32  cls[n]       per buffer: its class head's id, or for a head -2 - its first
 *                       run (-1: none placed)
 *   int32  run_next[n]  per run: the class's next run by offset, -1 after the last
 *   int32  order[n]     the placement order of a pass
 *   int32  walk[WALK_CELLS]
 * The exact search reuses all of it but order and walk (exact_search).
 */
#define PER_BUFFER_BYTES ((int32_t)(3 * sizeof(int64_t) + 10 * sizeof(int32_t)))

typedef struct {
    const int32_t *first;
    const int32_t *last;
    int64_t *aligned;
    int64_t *place;
    int64_t *run_end;
    int32_t *node; /* see POS_BUFFER */
    int32_t *reach;
    int32_t *order;
    int32_t *list;
    int32_t *temp;
    int32_t *cls;
    int32_t *run_next;
    int32_t *walk;
    int32_t n;      /* all buffers */
    int32_t m;      /* buffers with a size */
    int32_t root;   /* interval tree root position (1-based), 0 when m == 0 */
    int32_t levels; /* the root's level */
    const int64_t *fixed; /* mc_plan_fixed's offsets (-1: placed by the pass); NULL: none */
    int32_t clash[2];     /* two fixed buffers live together that overlap; -1: none */
} plan_t;

/* Position i (0-based) of the buffers by first use: the latest last use in its
 * interval-tree subtree, its own last use, its buffer, the latest last use of positions
 * 0..i; 16 bytes, four to a cache line. */
#define POS_MAX(p, i) ((p)->node[4 * (size_t)(i)])
#define POS_LAST(p, i) ((p)->node[4 * (size_t)(i) + 1])
#define POS_BUFFER(p, i) ((p)->node[4 * (size_t)(i) + 2])
#define POS_PREFIX(p, i) ((p)->node[4 * (size_t)(i) + 3])

/* plan_t sits at the start of the scratch, in a fixed size whatever the pointer size. */
#define STATE_BYTES 256
typedef char plan_state_fits[sizeof(plan_t) <= STATE_BYTES ? 1 : -1];

/* Stable sort of ids[0..count) by key[id], ascending, through temp[0..count). */
void mc__sort_ids(int32_t *ids, int32_t *temp, int32_t count, const int64_t *key);

/* The interval tree over the positions, from their last uses (time_orders sets them). */
void mc__build_tree(plan_t *p);

/* Places the buffers of p->order (the m with a size) into p->place; returns the arena. */
int64_t mc__greedy_pass(plan_t *p, bool best_fit);

#endif
