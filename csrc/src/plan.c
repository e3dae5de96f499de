/*
 * SPEC 7: activation-arena planning from tensor lifetimes.
 *
 * MC_PLAN_TFLM reproduces TensorFlow Lite Micro's GreedyMemoryPlanner
 * (tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc) decision for
 * decision, so that its arena equals the "head" TFLM reports to the byte:
 *   - sizes are rounded up to the alignment (TFLM: 16 bytes) before anything else;
 *   - buffers are ordered by size, largest first; TFLM fills its sort array from the
 *     tail (buffer n-1 first) and its bubble sort only swaps on strictly smaller, so
 *     equal sizes end up highest id first (a stable sort from the reversed order gives
 *     the same order, in n log n);
 *   - the first buffer goes at offset 0; each later one walks the already-placed
 *     buffers in offset order (equal offsets in placement order), looking only at
 *     those whose lifetimes overlap its own, and takes the first gap after the
 *     running end of the overlapping buffers seen so far that is large enough, or
 *     the end of the last one.
 * MC_PLAN_BEST runs that placement and a best-fit variant over several orderings and
 * keeps the smallest arena; TFLM's own plan is one of the candidates, so it is never
 * worse.  The lower bound is the most aligned bytes live at any one operator.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"

/* One placed buffer in the offset-ordered singly linked list. */
typedef struct {
    int64_t offset;
    int32_t next;   /* index into the entry array, -1 at the end */
    int32_t buffer; /* index of the buffer */
} entry_t;

/* Scratch per buffer: sort order, merge temporary, a second order, a list entry and
 * a candidate offset. */
#define SCRATCH_PER_BUFFER ((int64_t)(3 * sizeof(int32_t) + sizeof(entry_t) + sizeof(int64_t)))

typedef struct {
    const int64_t *sizes;
    const int32_t *first_use;
    const int32_t *last_use;
    int64_t alignment;
} problem_t;

typedef struct {
    int32_t *order;
    int32_t *temp;
    int32_t *order2;
    entry_t *entries;
    int64_t *candidate;
} scratch_t;

static int64_t aligned(const problem_t *p, int32_t i)
{
    int64_t s = p->sizes[i], rem = s % p->alignment;
    return rem == 0 ? s : s + (p->alignment - rem);
}

static int64_t duration(const problem_t *p, int32_t i)
{
    return (int64_t)p->last_use[i] - (int64_t)p->first_use[i] + 1;
}

/* Orderings: "a strictly before b".  Equal keys keep insertion order (stable sort). */
typedef bool (*before_fn)(const problem_t *p, int32_t a, int32_t b);

static bool by_size(const problem_t *p, int32_t a, int32_t b)
{
    return aligned(p, a) > aligned(p, b);
}

static bool by_duration(const problem_t *p, int32_t a, int32_t b)
{
    int64_t da = duration(p, a), db = duration(p, b);
    return da != db ? da > db : aligned(p, a) > aligned(p, b);
}

static bool by_area(const problem_t *p, int32_t a, int32_t b)
{
    /* size x duration compared as doubles: exact enough to order, and cannot overflow. */
    double xa = (double)aligned(p, a) * (double)duration(p, a);
    double xb = (double)aligned(p, b) * (double)duration(p, b);
    return xa != xb ? xa > xb : aligned(p, a) > aligned(p, b);
}

static bool by_start(const problem_t *p, int32_t a, int32_t b)
{
    return p->first_use[a] != p->first_use[b] ? p->first_use[a] < p->first_use[b]
                                              : aligned(p, a) > aligned(p, b);
}

static bool by_end(const problem_t *p, int32_t a, int32_t b)
{
    return p->last_use[a] < p->last_use[b];
}

/* Stable bottom-up merge sort of the buffer ids into ids[0..n), using temp[0..n).
 * Equal keys stay in their starting order: ascending ids, or descending when `reverse`
 * (TFLM adds its buffers from the tail of its array, so ties go to the higher id). */
static void sort_ids(const problem_t *p, before_fn before, bool reverse, int32_t *ids,
                     int32_t *temp, int32_t n)
{
    int32_t width, i;
    int32_t *src = ids, *dst = temp;
    for (i = 0; i < n; i++) {
        ids[i] = reverse ? n - 1 - i : i;
    }
    for (width = 1; width < n; width = width > n / 2 ? n : width * 2) {
        for (i = 0; i < n; i += 2 * width) {
            int32_t lo = i;
            int32_t mid = (n - i > width) ? i + width : n;
            int32_t hi = (n - mid > width) ? mid + width : n;
            int32_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                dst[k++] = before(p, src[b], src[a]) ? src[b++] : src[a++];
            }
            while (a < mid) {
                dst[k++] = src[a++];
            }
            while (b < hi) {
                dst[k++] = src[b++];
            }
        }
        {
            int32_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != ids) {
        memcpy(ids, src, (size_t)n * sizeof *ids);
    }
}

static bool overlaps_in_time(const problem_t *p, int32_t a, int32_t b)
{
    return !(p->first_use[a] > p->last_use[b] || p->first_use[b] > p->last_use[a]);
}

/* Next placed entry after `from` (or from the head when from < 0) whose buffer is live
 * at the same time as `buffer`; -1 when none. */
static int32_t next_overlapping(const problem_t *p, const entry_t *entries, int32_t head,
                                int32_t from, int32_t buffer)
{
    int32_t e = from < 0 ? head : entries[from].next;
    while (e >= 0 && !overlaps_in_time(p, entries[e].buffer, buffer)) {
        e = entries[e].next;
    }
    return e;
}

/* Places buffers in `order`; first fit reproduces TFLM, best fit takes the smallest
 * gap that holds the buffer.  Writes offsets and returns the arena size. */
static int64_t place(const problem_t *p, const int32_t *order, int32_t n, bool best_fit,
                     entry_t *entries, int64_t *offsets)
{
    int32_t k, head = -1, used = 0;
    int64_t arena = 0;

    for (k = 0; k < n; k++) {
        int32_t b = order[k], prior = -1, e;
        int64_t size = aligned(p, b), at = 0, best_at = -1, best_gap = INT64_MAX;

        if (size == 0) {
            offsets[b] = 0; /* TFLM never plans zero-sized tensors */
            continue;
        }
        for (;;) {
            int32_t next = next_overlapping(p, entries, head, prior, b);
            if (prior >= 0) {
                int64_t end = entries[prior].offset + aligned(p, entries[prior].buffer);
                if (end > at) {
                    at = end;
                }
            }
            if (next < 0) {
                break;
            }
            if (entries[next].offset - at >= size) {
                if (!best_fit) {
                    break;
                }
                if (entries[next].offset - at < best_gap) {
                    best_gap = entries[next].offset - at;
                    best_at = at;
                }
            }
            prior = next;
        }
        if (best_fit && best_at >= 0) {
            at = best_at;
        }
        offsets[b] = at;
        if (at + size > arena) {
            arena = at + size;
        }

        /* Insert after every entry whose offset is <= at, as TFLM does. */
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

/* Most aligned bytes live at once: sweep starts in time order, retiring buffers whose
 * last use is before the current start. */
static int64_t lower_bound(const problem_t *p, scratch_t *s, int32_t n)
{
    int32_t i, j = 0;
    int64_t live = 0, peak = 0;
    sort_ids(p, by_start, false, s->order, s->temp, n);
    sort_ids(p, by_end, false, s->order2, s->temp, n);
    for (i = 0; i < n; i++) {
        int32_t b = s->order[i];
        while (j < n && p->last_use[s->order2[j]] < p->first_use[b]) {
            live -= aligned(p, s->order2[j]);
            j++;
        }
        live += aligned(p, b);
        if (live > peak) {
            peak = live;
        }
    }
    return peak;
}

/* Places buffers in s->order; when the arena beats *arena, keeps the offsets and the
 * new arena and returns true. */
static bool try_order(const problem_t *p, scratch_t *s, int32_t n, bool best_fit, int64_t *offsets,
                      int64_t *arena)
{
    int64_t candidate = place(p, s->order, n, best_fit, s->entries, s->candidate);
    if (candidate >= *arena) {
        return false;
    }
    *arena = candidate;
    memcpy(offsets, s->candidate, (size_t)n * sizeof *offsets);
    return true;
}

/* The bounded search after the greedy orderings: the buffer that reaches the top of the
 * best plan so far (s->order2 holds its order) moves to the front of that order, and
 * everything is placed again, first fit and best fit; the result is kept when the arena
 * shrinks, and the search stops when it does not.  The iterations are capped so that
 * the search costs about SEARCH_PAIRS buffer-against-buffer comparisons in all. */
#define SEARCH_PAIRS INT64_C(20000000)
#define SEARCH_ROUNDS 64

static void promote_top(const problem_t *p, scratch_t *s, int32_t n, int64_t *offsets, mc_plan_t *r)
{
    int64_t rounds = SEARCH_PAIRS / ((int64_t)n * (int64_t)n), round;
    if (rounds > SEARCH_ROUNDS) {
        rounds = SEARCH_ROUNDS;
    }
    for (round = 0; round < rounds && r->arena_bytes > r->lower_bound_bytes; round++) {
        int32_t k, top = -1, at = 1;
        bool improved = false;
        int fit;
        for (k = 0; k < n && top < 0; k++) {
            int32_t b = s->order2[k];
            if (aligned(p, b) > 0 && offsets[b] + aligned(p, b) == r->arena_bytes) {
                top = b;
            }
        }
        if (top < 0) {
            return;
        }
        s->order[0] = top;
        for (k = 0; k < n; k++) {
            if (s->order2[k] != top) {
                s->order[at++] = s->order2[k];
            }
        }
        for (fit = 0; fit < 2; fit++) {
            improved = try_order(p, s, n, fit == 1, offsets, &r->arena_bytes) || improved;
        }
        if (!improved) {
            return;
        }
        memcpy(s->order2, s->order, (size_t)n * sizeof *s->order);
    }
}

mc_status_t mc_plan_scratch_bytes(int64_t n_buffers, int64_t *scratch_bytes)
{
    if (scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    if (n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_buffers > INT32_MAX) {
        return MC_E_RANGE;
    }
    /* + 8: the 8-byte arrays start on an 8-byte boundary after the 4-byte ones. */
    MC_TRY(mc_checked_mul(n_buffers, SCRATCH_PER_BUFFER, scratch_bytes));
    return mc_checked_add(*scratch_bytes, 8, scratch_bytes);
}

static mc_status_t validate(const problem_t *p, int64_t n)
{
    int64_t i, total = 0;
    for (i = 0; i < n; i++) {
        int64_t s = p->sizes[i];
        if (s < 0) {
            return MC_E_NEGATIVE;
        }
        if (p->first_use[i] < 0 || p->last_use[i] < p->first_use[i]) {
            return MC_E_LIFETIME;
        }
        /* The aligned size, and all of them stacked, must fit in 64 bits; then no
         * offset or arena computed below can overflow. */
        if (s % p->alignment != 0 && s > INT64_MAX - (p->alignment - s % p->alignment)) {
            return MC_E_OVERFLOW;
        }
        MC_TRY(mc_checked_add(total, aligned(p, (int32_t)i), &total));
    }
    return MC_OK;
}

mc_status_t mc_plan(mc_strategy_t strategy, const int64_t *sizes, const int32_t *first_use,
                    const int32_t *last_use, int64_t n_buffers, int64_t alignment,
                    void *scratch, int64_t scratch_bytes, int64_t *offsets, mc_plan_t *out)
{
    static const before_fn orders[] = {by_size, by_duration, by_area, by_start};
    problem_t p;
    scratch_t s;
    mc_plan_t r;
    int64_t need = 0;
    int32_t n;
    size_t k;

    if (out == NULL || (n_buffers > 0 && (sizes == NULL || first_use == NULL ||
                                          last_use == NULL || offsets == NULL || scratch == NULL))) {
        return MC_E_NULL;
    }
    if (strategy != MC_PLAN_TFLM && strategy != MC_PLAN_BEST) {
        return MC_E_RANGE;
    }
    if (alignment < 0) {
        return MC_E_NEGATIVE;
    }
    if (alignment == 0) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_plan_scratch_bytes(n_buffers, &need));
    if (n_buffers > 0 && (scratch_bytes < need || ((uintptr_t)scratch & 7u) != 0)) {
        return MC_E_SCRATCH;
    }
    p.sizes = sizes;
    p.first_use = first_use;
    p.last_use = last_use;
    p.alignment = alignment;
    MC_TRY(validate(&p, n_buffers));

    n = (int32_t)n_buffers;
    r.arena_bytes = 0;
    r.lower_bound_bytes = 0;
    if (n == 0) {
        *out = r;
        return MC_OK;
    }
    s.order = (int32_t *)scratch;
    s.temp = s.order + n;
    s.order2 = s.temp + n;
    /* entries and candidate offsets hold 8-byte fields: start them 8-byte aligned. */
    s.candidate = (int64_t *)scratch + ((3 * (int64_t)n + 1) / 2);
    s.entries = (entry_t *)(s.candidate + n);

    r.lower_bound_bytes = lower_bound(&p, &s, n);
    sort_ids(&p, by_size, true, s.order, s.temp, n);
    r.arena_bytes = place(&p, s.order, n, false, s.entries, offsets);

    if (strategy == MC_PLAN_BEST) {
        memcpy(s.order2, s.order, (size_t)n * sizeof *s.order);
        for (k = 0; k < sizeof orders / sizeof orders[0] && r.arena_bytes > r.lower_bound_bytes; k++) {
            int fit;
            sort_ids(&p, orders[k], k == 0, s.order, s.temp, n);
            for (fit = (k == 0); fit < 2 && r.arena_bytes > r.lower_bound_bytes; fit++) {
                if (try_order(&p, &s, n, fit == 1, offsets, &r.arena_bytes)) {
                    memcpy(s.order2, s.order, (size_t)n * sizeof *s.order);
                }
            }
        }
        promote_top(&p, &s, n, offsets, &r);
    }
    *out = r;
    return MC_OK;
}
