/*
 * The exact search of MC_PLAN_BEST (plan_exact.c), for plan.c: its state, set up by the
 * caller in the caller's scratch.
 */
#ifndef MEMCORE_PLAN_EXACT_H
#define MEMCORE_PLAN_EXACT_H

#include <stdint.h>

/* Ints a node of the search keeps on its stack. */
#define MC_EXACT_FRAME_INTS 3

enum { MC_EXACT_FOUND, MC_EXACT_DONE, MC_EXACT_LIMIT };

typedef struct {
    /* per buffer (k of them, all with a size), by first section, then the search's
     * priority: size in units of the alignment, first and last section; off is the
     * search's offset (-1: not placed), and holds the plan on MC_EXACT_FOUND */
    const int32_t *size;
    const int32_t *lo;
    const int32_t *hi;
    int32_t *off;
    /* per section: floor (no later buffer is placed below it), units still to place,
     * and between s and s + 1 the buffers not placed that live in both (when none:
     * -1 - the depth since when) */
    int32_t *floor;
    int32_t *rem;
    int32_t *link;
    int32_t *frame; /* MC_EXACT_FRAME_INTS per depth */
    int32_t k;
    int32_t sections;
    int32_t frames;
    int32_t target; /* a plan whose top is at most this many units */
    int32_t steps;  /* counted across runs */
    int32_t limit;  /* a run stops when steps pass it */
    int32_t clo;    /* the first section with units still to place */
} mc_exact_t;

/* One depth-first search for a plan of top <= target: MC_EXACT_FOUND (x->off holds it),
 * MC_EXACT_DONE (none exists) or MC_EXACT_LIMIT (steps or stack ran out). */
int mc__exact_run(mc_exact_t *x);

#endif
