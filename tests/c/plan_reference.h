/*
 * Independent answers for test_plan.c (and fuzz/fuzz_plan.c), by the plain means the
 * planner replaced:
 *   reference_tflm      the TFLM placement as memcore computed it before the interval tree
 *                       (and as greedy_memory_planner.cc does): each buffer, largest first
 *                       (ties: highest index first), walks the whole offset-ordered list
 *                       of placed buffers.  O(n^2).
 *   reference_optimum   the least arena of any plan, for up to REFERENCE_MAX buffers: every
 *                       order of the buffers, each placed at its lowest free offset, cut
 *                       only when the arena so far already reaches the best found.  (Any
 *                       plan pushed down until nothing can move lower is what some order
 *                       gives this way, so the least over all orders is the optimum.)
 */
#ifndef PLAN_REFERENCE_H
#define PLAN_REFERENCE_H

#include <stdint.h>

typedef struct {
    int64_t offset;
    int32_t next;
    int32_t buffer;
} reference_entry_t;

static int64_t reference_aligned(const int64_t *sizes, int32_t i, int64_t alignment)
{
    int64_t rem = sizes[i] % alignment;
    return rem == 0 ? sizes[i] : sizes[i] + (alignment - rem);
}

/* order[n] and entries[n] are the caller's; returns the arena. */
static int64_t reference_tflm(const int64_t *sizes, const int32_t *first, const int32_t *last, int32_t n,
                              int64_t alignment, int32_t *order, reference_entry_t *entries, int64_t *offsets)
{
    int32_t i, j, k, head = -1, used = 0;
    int64_t arena = 0;
    /* TFLM's bubble sort: from the tail, swap only on strictly smaller */
    for (i = 0; i < n; i++) {
        order[i] = n - 1 - i;
    }
    for (i = 1; i < n; i++) { /* stable insertion sort, largest first */
        int32_t v = order[i];
        for (j = i; j > 0 && reference_aligned(sizes, order[j - 1], alignment) < reference_aligned(sizes, v, alignment); j--) {
            order[j] = order[j - 1];
        }
        order[j] = v;
    }
    for (k = 0; k < n; k++) {
        int32_t b = order[k], prior = -1, e;
        int64_t size = reference_aligned(sizes, b, alignment), at = 0;
        if (size == 0) {
            offsets[b] = 0;
            continue;
        }
        for (;;) {
            int32_t next = prior < 0 ? head : entries[prior].next;
            while (next >= 0 && (first[entries[next].buffer] > last[b] || first[b] > last[entries[next].buffer])) {
                next = entries[next].next;
            }
            if (prior >= 0) {
                int64_t end = entries[prior].offset + reference_aligned(sizes, entries[prior].buffer, alignment);
                if (end > at) {
                    at = end;
                }
            }
            if (next < 0 || entries[next].offset - at >= size) {
                break;
            }
            prior = next;
        }
        offsets[b] = at;
        if (at + size > arena) {
            arena = at + size;
        }
        entries[used].offset = at;
        entries[used].buffer = b;
        if (head < 0 || entries[head].offset > at) {
            entries[used].next = head;
            head = used;
        } else {
            e = head;
            while (entries[e].next >= 0 && entries[entries[e].next].offset <= at) {
                e = entries[e].next;
            }
            entries[used].next = entries[e].next;
            entries[e].next = used;
        }
        used++;
    }
    return arena;
}

#define REFERENCE_MAX 12

typedef struct {
    const int64_t *sizes; /* aligned */
    const int32_t *first, *last;
    int32_t n;
    int64_t offset[REFERENCE_MAX];
    int32_t used[REFERENCE_MAX];
    int32_t order[REFERENCE_MAX];
    int64_t best;
} reference_search_t;

static void reference_dfs(reference_search_t *s, int32_t depth, int64_t top)
{
    int32_t b, t;
    if (top >= s->best) {
        return;
    }
    if (depth == s->n) {
        s->best = top;
        return;
    }
    for (b = 0; b < s->n; b++) {
        int64_t at = 0;
        int moved = 1;
        if (s->used[b]) {
            continue;
        }
        /* lowest free offset: rise past any placed, live-together buffer in the way */
        while (moved) {
            moved = 0;
            for (t = 0; t < depth; t++) {
                int32_t j = s->order[t];
                if (s->first[j] <= s->last[b] && s->first[b] <= s->last[j] && s->sizes[j] > 0 &&
                    s->sizes[b] > 0 && at < s->offset[j] + s->sizes[j] && s->offset[j] < at + s->sizes[b]) {
                    at = s->offset[j] + s->sizes[j];
                    moved = 1;
                }
            }
        }
        s->used[b] = 1;
        s->order[depth] = b;
        s->offset[b] = at;
        reference_dfs(s, depth + 1, at + s->sizes[b] > top ? at + s->sizes[b] : top);
        s->used[b] = 0;
    }
}

/* aligned sizes; n <= REFERENCE_MAX */
static int64_t reference_optimum(const int64_t *aligned, const int32_t *first, const int32_t *last, int32_t n)
{
    reference_search_t s;
    int32_t i;
    s.sizes = aligned;
    s.first = first;
    s.last = last;
    s.n = n;
    s.best = 0;
    for (i = 0; i < n; i++) {
        s.used[i] = 0;
        s.best += aligned[i]; /* stacking them all is a plan: only better ones are searched */
    }
    reference_dfs(&s, 0, 0);
    return s.best;
}

#endif
