/*
 * Activation-arena planning from tensor lifetimes (SPEC 7).
 *
 * The placement step, the interval tree and the classes of buffers are plan_place.c's;
 *
 * MC_PLAN_TFLM reproduces TensorFlow Lite Micro's GreedyMemoryPlanner
 * (tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc) placement for
 * placement, so that its arena equals the "head" TFLM reports to the byte:
 *   - sizes are rounded up to the alignment (TFLM: 16 bytes) before anything else;
 *   - buffers are placed largest first; TFLM fills its sort array from the tail and its
 *     bubble sort swaps only on strictly smaller, so equal sizes go highest index first;
 *   - TFLM walks its offset-ordered list of every placed buffer, skipping those not live
 *     at the same time, and takes the first gap after the running end of the live ones
 *     that is large enough, else the end of the last one.  That is the lowest offset free
 *     of the live placed buffers, which is what first fit finds: the same offsets, without
 *     walking the buffers that are never live together;
 *   - zero-sized buffers get offset 0 and take no space.
 *
 * MC_PLAN_BEST keeps the smallest of several plans, within a budget of work the caller
 * gives in steps (counted, not timed, so every machine gives the same answer):
 *   1. the TFLM plan (always made, whatever the budget: BEST is never worse);
 *   2. greedy passes, each costing n + P steps, in this order, while the arena is above
 *      the lower bound and the budget holds one more: Pisarchyk & Lee's greedy by
 *      breadth (operators by the bytes live at them, largest first; each operator's not
 *      yet placed buffers largest first) with first fit and with best fit, then in
 *      order of first use with first fit (TFLM's order is itself greedy by size);
 *   3. while the arena is still above the lower bound, the exact search of plan_exact.c
 *      (exact_search below) with what is left of the budget; when it finishes, the plan
 *      is proven optimal.
 * The lower bound is the most aligned bytes live at any one operator; a plan that
 * reaches it is optimal too.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "out_of_line.h"
#include "plan_exact.h"
#include "plan_internal.h"

/* The pass's offsets (none when the caller wants only the arena: NULL); zero-sized
 * buffers, never placed (-1), at 0. */
static void keep_plan(const plan_t *p, int64_t *offsets)
{
    int32_t b;
    for (b = 0; b < p->n && offsets != NULL; b++) {
        offsets[b] = p->place[b] > 0 ? p->place[b] : 0;
    }
}

/* place[i] = the aligned bytes live at the first use of position i, all
 * buffers first used then included: a running sum of +size at each buffer's position and
 * -size at its reach.  Returns the most, the lower bound of any plan. */
static int64_t live_per_position(plan_t *p)
{
    int32_t i;
    int64_t live = 0, peak = 0;
    memset(p->place, 0, (size_t)p->m * sizeof *p->place);
    for (i = 0; i < p->m; i++) {
        int32_t b = POS_BUFFER(p, i);
        p->place[i] += p->aligned[b];
        if (p->reach[b] < p->m) {
            p->place[p->reach[b]] -= p->aligned[b];
        }
    }
    for (i = 0; i < p->m; i++) {
        live += p->place[i];
        p->place[i] = live;
        peak = live > peak ? live : peak;
    }
    /* positions first used at the same time: all of them are live at the last one's */
    for (i = p->m - 1; i > 0; i--) {
        if (p->first[POS_BUFFER(p, i - 1)] == p->first[POS_BUFFER(p, i)]) {
            p->place[i - 1] = p->place[i];
        }
    }
    return peak;
}

/* ---- orders -------------------------------------------------------------------- */

static void reverse_ids(int32_t *ids, int32_t count)
{
    int32_t i;
    for (i = 0; i < count / 2; i++) {
        int32_t t = ids[i];
        ids[i] = ids[count - 1 - i];
        ids[count - 1 - i] = t;
    }
}


/* Buffers with a size, ascending id. */
static void ids_with_size(const plan_t *p, int32_t *ids)
{
    int32_t b, k = 0;
    for (b = 0; b < p->n; b++) {
        if (p->aligned[b] > 0) {
            ids[k++] = b;
        }
    }
}

/* TFLM's order: the fixed buffers first, by id (mc_plan_fixed), then the others
 * largest first, equal sizes highest id first (the reverse of smallest first, equal
 * sizes lowest id first).  A fixed buffer's key, INT64_MAX - id, is above every size
 * (the sizes stacked fit 64 bits) and puts the lower id last before the reversal. */
static void size_order(plan_t *p)
{
    const int64_t *key = p->aligned;
    int32_t b;
    if (p->fixed != NULL) {
        for (b = 0; b < p->n; b++) {
            p->place[b] = p->fixed[b] >= 0 ? INT64_MAX - b : p->aligned[b];
        }
        key = p->place;
    }
    ids_with_size(p, p->order);
    mc__sort_ids(p->order, p->temp, p->m, key);
    reverse_ids(p->order, p->m);
}

/*
 * Greedy by breadth: the operators (the distinct first uses; bytes live only fall
 * between them) by the aligned bytes live at them, largest first, earlier first on
 * ties; each buffer goes with the first of those operators in its lifetime; buffers of
 * one operator in TFLM's order (largest first, equal sizes highest id first), which
 * p->order holds on entry.  Each buffer's operator is the least rank over the positions
 * first used in its life: a scan of those positions, which costs what placing the
 * buffer does (it meets the buffers first used there), n + P over a pass.
 */
static void breadth_order(plan_t *p)
{
    int32_t i, j, start = 0, m = p->m, *ranked = p->list, *rank = p->temp;
    live_per_position(p);
    /* positions by bytes live, most first, earlier position on ties */
    for (i = 0; i < m; i++) {
        ranked[i] = m - 1 - i;
    }
    mc__sort_ids(ranked, rank, m, p->place);
    reverse_ids(ranked, m);
    for (i = 0; i < m; i++) {
        rank[ranked[i]] = i;
    }
    for (i = 0; i < m; i++) {
        int32_t b = POS_BUFFER(p, i), best = INT32_MAX;
        if (p->first[POS_BUFFER(p, start)] != p->first[b]) {
            start = i;
        }
        for (j = start; j < p->reach[b]; j++) {
            best = rank[j] < best ? rank[j] : best;
        }
        p->place[b] = best;
    }
    /* stably by operator from TFLM's order, still in p->order */
    mc__sort_ids(p->order, p->temp, m, p->place);
}

/* ---- exact search (plan_exact.c) ------------------------------------------------- */

/* The search counts in units of the alignment in 32 bits: it runs when all the buffers
 * stacked are at most this many units (every sum it forms is then below 2^31). */
#define EXACT_MAX_UNITS (INT64_C(1) << 30)
#define FIRST_RUN_STEPS 4096

/* Turns the search's buffers round in time: section s becomes sections - 1 - s, and the
 * buffers are put by their new first section again, which also keeps twins side by side.
 * The same plans exist, but the search builds them from the other end, so a run at a
 * target meets them in another order.  Turned round, the buffers go by a stable counting
 * sort (count: a cell per section); turned back (rank given: each buffer id's local
 * index with time forward), exactly where they were.  dest: each buffer's new index;
 * the swaps each put a buffer where it goes. */
static void turn(int32_t *size, int32_t *lo, int32_t *hi, int32_t *order, int32_t m, int32_t sections,
                 const int32_t *rank, int32_t *count, int32_t *dest)
{
    int32_t i, j, t, sum = 0;
    for (i = 0; i < sections; i++) {
        count[i] = 0;
    }
    for (i = 0; i < m; i++) {
        t = lo[i];
        lo[i] = sections - 1 - hi[i];
        hi[i] = sections - 1 - t;
        count[lo[i]]++;
    }
    for (i = 0; i < sections; i++) {
        t = count[i];
        count[i] = sum;
        sum += t;
    }
    for (i = 0; i < m; i++) {
        dest[i] = rank != NULL ? rank[order[i]] : count[lo[i]]++;
    }
    for (i = 0; i < m; i++) {
        while (dest[i] != i) {
            j = dest[i];
            t = size[i], size[i] = size[j], size[j] = t;
            t = lo[i], lo[i] = lo[j], lo[j] = t;
            t = hi[i], hi[i] = hi[j], hi[j] = t;
            t = order[i], order[i] = order[j], order[j] = t;
            dest[i] = dest[j];
            dest[j] = j;
        }
    }
}

/* Improves *arena (plan in offsets) within `budget` steps; returns the steps used and
 * sets *proven when the arena is then optimal.  Runs in pairs, each pair's runs twice as
 * long as the last's: one for the least top not yet refuted (from the lower bound up),
 * then one for a plan one unit below the best so far (from the top down).  Every other
 * pair's first run has time turned round (turn above): a run at the lower bound that
 * goes wrong near its root never gets back there within its steps (a bigger budget
 * fixed almost none of the misses), and from the other end the same plans lie elsewhere
 * in the search.  That took the random instances of bench/planner_quality.py, seeds 1-4,
 * from 1,945 to 1,991 of 2,000 at the optimum, none worse.  The other runs go as before:
 * the turn is undone exactly (the ranks), so a run that found a plan still finds it.
 *
 * Its state reuses the scratch of the greedy passes, which are done (8-byte arrays and
 * the per-buffer int32 arrays are one run of 15 ints a buffer, then `order`):
 *   order          local index -> buffer id, by first use, larger first, later last
 *                  use first, lower id first (stable sorts from the least key)
 *   list, cls, run_next   size, first and last section of each local buffer
 *   temp           the sections' operators, while the sections are found; then each
 *                  buffer id's local index (turn's ranks)
 *   reach          the search's offsets
 *   aligned...     floor, rem and link per section (3n ints), then the search's stack
 *                  up to reach (7n ints); between runs, floor and reach are turn's
 *                  count and dest (a run sets up its own). */
OUT_OF_LINE static int32_t exact_search(plan_t *p, int64_t lower, int64_t alignment, int32_t budget,
                                        int64_t *arena, int64_t *offsets, bool *proven)
{
    mc_exact_t x;
    int32_t *size = p->list, *times = p->temp, *lo = p->cls, *hi = p->run_next;
    int32_t i, b, top, floor, sections = 0, m = p->m, run_steps = FIRST_RUN_STEPS;
    int64_t total = 0, spans = 0;
    int pass, low = 1, odd = 0;

    ids_with_size(p, p->order);
    for (pass = 0; pass < 3; pass++) {
        for (i = 0; i < m; i++) {
            b = p->order[i];
            p->place[b] = pass == 1 ? -p->aligned[b] : pass == 0 ? -(int64_t)p->last[b] : p->first[b];
        }
        mc__sort_ids(p->order, p->temp, m, p->place);
    }
    for (i = 0; i < m; i++) {
        b = p->order[i];
        total += p->aligned[b] / alignment;
        size[i] = (int32_t)(p->aligned[b] / alignment); /* exact when the total passes */
        if (sections == 0 || times[sections - 1] != p->first[b]) {
            times[sections++] = p->first[b];
        }
        lo[i] = sections - 1;
    }
    for (i = 0; i < m; i++) { /* the last section at or before the last use */
        int32_t l = lo[i], h = sections - 1;
        while (l < h) {
            int32_t mid = h - (h - l) / 2;
            if (times[mid] <= p->last[p->order[i]]) {
                l = mid;
            } else {
                h = mid - 1;
            }
        }
        hi[i] = l;
        spans += l - lo[i] + 1;
    }
    /* a search costs at least its spans (it counts every buffer's sections) */
    if (total > EXACT_MAX_UNITS || spans > budget) {
        return 0;
    }
    for (i = 0; i < m; i++) { /* the sections' times are done with: now turn's ranks */
        times[p->order[i]] = i;
    }
    x.size = size;
    x.lo = lo;
    x.hi = hi;
    x.off = p->reach;
    x.floor = (int32_t *)p->aligned;
    x.rem = x.floor + p->n;
    x.link = x.rem + p->n;
    x.frame = x.link + p->n;
    x.frames = (int32_t)((p->reach - x.frame) / MC_EXACT_FRAME_INTS);
    x.k = m;
    x.sections = sections;
    x.steps = 0;
    x.limit = budget;
    top = (int32_t)(*arena / alignment);
    floor = (int32_t)(lower / alignment);
    while (floor < top) {
        int outcome;
        /* a run for the least top not yet refuted, then for one unit below the best */
        x.target = low ? floor : top - 1;
        if (low && odd) {
            turn(size, lo, hi, p->order, m, sections, NULL, x.floor, x.off);
        }
        x.limit = budget - x.steps > run_steps ? x.steps + run_steps : budget;
        outcome = mc__exact_run(&x);
        if (outcome == MC_EXACT_FOUND) {
            top = 0;
            for (i = 0; i < m; i++) {
                top = x.off[i] + size[i] > top ? x.off[i] + size[i] : top;
                if (offsets != NULL) {
                    offsets[p->order[i]] = (int64_t)x.off[i] * alignment;
                }
            }
        } else if (outcome == MC_EXACT_DONE) {
            floor = x.target + 1;
        } else if (x.limit == budget) {
            break; /* out of budget: the best plan so far */
        }
        if (low && odd) {
            turn(size, lo, hi, p->order, m, sections, times, x.floor, x.off);
        }
        if (!low) {
            run_steps = run_steps < budget / 2 ? 2 * run_steps : budget;
            odd = !odd;
        }
        low = !low;
    }
    *proven = floor >= top;
    *arena = (int64_t)top * alignment;
    /* a run stops within a node past its limit: it counts as the limit */
    return x.steps < budget ? x.steps : budget;
}

/* ---- entry points ---------------------------------------------------------------- */

mc_status_t mc_plan_scratch_bytes(int64_t n_buffers, int64_t *scratch_bytes)
{
    if (scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    if (n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_buffers > MC_PLAN_MAX_BUFFERS) {
        return MC_E_LIMIT;
    }
    /* at most 64 MB: 32 bits hold it */
    *scratch_bytes = (int32_t)n_buffers * PER_BUFFER_BYTES + STATE_BYTES + WALK_CELLS * (int32_t)sizeof(int32_t);
    return MC_OK;
}

static void lay_out(plan_t *p, void *scratch, int32_t n)
{
    int32_t *w32 = (int32_t *)((int64_t *)scratch + 3 * (size_t)n);
    p->aligned = (int64_t *)scratch;
    p->place = p->aligned + n;
    p->run_end = p->place + n;
    p->node = w32;
    p->reach = w32 + 4 * (size_t)n;
    p->list = w32 + 5 * (size_t)n;
    p->temp = w32 + 6 * (size_t)n;
    p->cls = w32 + 7 * (size_t)n;
    p->run_next = w32 + 8 * (size_t)n;
    p->order = w32 + 9 * (size_t)n;
    p->walk = w32 + 10 * (size_t)n;
}

/* Aligned sizes into p->aligned, checking every input; p->m counts those with a size,
 * p->order lists them by id and p->place holds the first uses (time_orders' keys). */
static mc_status_t take_sizes(plan_t *p, const int64_t *sizes, int64_t alignment)
{
    int32_t i;
    int64_t total = 0;
    p->m = 0;
    for (i = 0; i < p->n; i++) {
        int64_t s = sizes[i], rem;
        if (s < 0) {
            return MC_E_NEGATIVE;
        }
        if (p->first[i] < 0 || p->last[i] < p->first[i]) {
            return MC_E_LIFETIME;
        }
        /* The aligned size, and all of them stacked, must fit in 64 bits; then no offset
         * or arena computed below can overflow. */
        rem = s % alignment;
        MC_TRY(mc_checked_add(s, rem == 0 ? 0 : alignment - rem, &p->aligned[i]));
        MC_TRY(mc_checked_add(total, p->aligned[i], &total));
        if (s > 0) { /* aligned to a multiple >= s: a size exactly when s has one */
            p->order[p->m++] = i;
        }
        p->place[i] = p->first[i];
    }
    return MC_OK;
}

/* The positions (the buffers with a size by first use, lower id first on ties; ids and
 * keys from take_sizes), each buffer's reach (a binary search of its last use) and the
 * classes: runs of positions with one last use that no buffer's reach ends inside.
 * Every position of a class is then live at that last use (a clique: disjoint offsets),
 * and a buffer meets all of a class or none of it; its first position is the head, the
 * others leave the tree.  Returns the number of pairs of buffers with a size live at
 * the same time (each buffer meets the later starters up to its reach); *same counts
 * those within a class. */
static int64_t time_orders(plan_t *p, int64_t *same)
{
    int32_t i, head = 0, members = 0, *cut = p->list; /* cut[i]: a reach ends before position i */
    int64_t pairs = 0;
    mc__sort_ids(p->order, p->temp, p->m, p->place);
    for (i = 0; i < p->m; i++) {
        int32_t l = p->last[p->order[i]];
        POS_BUFFER(p, i) = p->order[i];
        POS_PREFIX(p, i) = i > 0 && POS_PREFIX(p, i - 1) > l ? POS_PREFIX(p, i - 1) : l;
        cut[i] = 0;
    }
    for (i = 0; i < p->m; i++) {
        int32_t b = POS_BUFFER(p, i), lo = i + 1, hi = p->m;
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if (p->first[POS_BUFFER(p, mid)] <= p->last[b]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        p->reach[b] = lo;
        pairs += lo - i - 1;
        if (lo < p->m) {
            cut[lo] = 1;
        }
    }
    for (i = 0; i < p->m; i++) {
        int32_t b = POS_BUFFER(p, i), l = p->last[b];
        if (i > 0 && !cut[i] && l == p->last[head]) {
            p->cls[b] = head;
            *same += ++members;
            l = -1; /* before any first use: never live in the tree */
        } else {
            head = b;
            members = 0;
            p->cls[b] = -1;
        }
        POS_LAST(p, i) = l;
        POS_MAX(p, i) = l; /* the interval tree's leaves; build_tree fills the rest */
    }
    return pairs;
}

/* The TFLM plan, and the checks and orders the BEST passes start from: mc_plan makes
 * its TFLM plan here (fixed NULL), so that the fixed plan's calls never reach the exact
 * search. */
mc_status_t mc_plan_fixed(const int64_t *sizes, const int32_t *first_use, const int32_t *last_use,
                          const int64_t *fixed_offsets, int64_t n_buffers, int64_t alignment,
                          void *scratch, int64_t scratch_bytes, int64_t *offsets, mc_plan_t *out,
                          int64_t *clash)
{
    plan_t *p;
    int64_t need = 0, pairs, same = 0, lower;
    int32_t i;
    if (out == NULL || (n_buffers > 0 && (sizes == NULL || first_use == NULL || last_use == NULL ||
                                          scratch == NULL))) {
        return MC_E_NULL;
    }
    if (alignment < 0) {
        return MC_E_NEGATIVE;
    }
    if (alignment == 0) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_plan_scratch_bytes(n_buffers, &need));
    if (n_buffers == 0) { /* nothing to place: any scratch will do */
        memset(out, 0, sizeof *out);
        out->proven_optimal = true;
        return MC_OK;
    }
    if (scratch_bytes < need || ((uintptr_t)scratch & 7u) != 0) {
        return MC_E_SCRATCH;
    }
    p = (plan_t *)scratch; /* the state lives in the scratch too: a small stack frame */
    p->n = (int32_t)n_buffers;
    p->first = first_use;
    p->last = last_use;
    p->fixed = fixed_offsets;
    p->clash[0] = p->clash[1] = -1;
    lay_out(p, (uint8_t *)scratch + STATE_BYTES, p->n);
    MC_TRY(take_sizes(p, sizes, alignment));
    for (i = 0; fixed_offsets != NULL && i < p->n; i++) {
        /* an offset, or -1; with its buffer's aligned size within 64 bits */
        if (fixed_offsets[i] < -1 || fixed_offsets[i] > INT64_MAX - p->aligned[i]) {
            return MC_E_RANGE;
        }
    }
    pairs = time_orders(p, &same);
    lower = live_per_position(p);
    if (pairs - same > MC_PLAN_MAX_PAIRS) {
        return MC_E_LIMIT; /* nothing written yet */
    }
    /* nothing fails from here on but a clash: the result goes straight to *out */
    memset(out, 0, sizeof *out);
    out->lower_bound_bytes = lower;
    out->steps = p->n + pairs; /* a greedy pass's cost (pairs within a class too) */
    mc__build_tree(p);
    size_order(p);
    out->arena_bytes = mc__greedy_pass(p, false);
    keep_plan(p, offsets);
    out->proven_optimal = out->arena_bytes == out->lower_bound_bytes;
    if (clash != NULL) {
        clash[0] = p->clash[0];
        clash[1] = p->clash[1];
    }
    return p->clash[0] < 0 ? MC_OK : MC_E_RANGE;
}

mc_status_t mc_plan(mc_strategy_t strategy, const int64_t *sizes, const int32_t *first_use,
                    const int32_t *last_use, int64_t n_buffers, int64_t alignment, int64_t budget_steps,
                    void *scratch, int64_t scratch_bytes, int64_t *offsets, mc_plan_t *out)
{
    plan_t *p = (plan_t *)scratch;
    int64_t pass_steps;
    int32_t i, used = 0, budget;
    int pass;
    if (strategy != MC_PLAN_TFLM && strategy != MC_PLAN_BEST) {
        return MC_E_RANGE;
    }
    if (budget_steps < 0) {
        return MC_E_NEGATIVE;
    }
    if (budget_steps > MC_PLAN_MAX_STEPS && alignment > 0) {
        return MC_E_LIMIT;
    }
    budget = (int32_t)budget_steps; /* every count of steps fits in 32 bits from here on */
    MC_TRY(mc_plan_fixed(sizes, first_use, last_use, NULL, n_buffers, alignment, scratch, scratch_bytes, offsets,
                         out, NULL));
    pass_steps = out->steps;
    if (strategy != MC_PLAN_BEST || n_buffers == 0) {
        return MC_OK;
    }
    /* BEST: greedy by breadth with first fit, then with best fit; then by first use
     * (ties by id) with first fit, which places a chain of operators as it runs */
    for (pass = 0; pass < 3 && out->arena_bytes > out->lower_bound_bytes && budget - used >= pass_steps; pass++) {
        int64_t arena;
        used += (int32_t)pass_steps; /* at most the budget: 32 bits */
        if (pass == 0) {
            breadth_order(p);
        } else if (pass == 2) {
            for (i = 0; i < p->m; i++) {
                p->order[i] = POS_BUFFER(p, i);
            }
        }
        arena = mc__greedy_pass(p, pass == 1);
        if (arena < out->arena_bytes) {
            out->arena_bytes = arena;
            keep_plan(p, offsets);
        }
    }
    if (out->arena_bytes > out->lower_bound_bytes) {
        used += exact_search(p, out->lower_bound_bytes, alignment, budget - used, &out->arena_bytes, offsets,
                             &out->proven_optimal);
    }
    out->steps = pass_steps + used;
    out->proven_optimal = out->proven_optimal || out->arena_bytes == out->lower_bound_bytes;
    return MC_OK;
}
