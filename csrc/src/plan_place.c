/*
 * The planner's placement step (plan.c has the strategies).
 *
 * Every strategy is built from one placement step: a buffer goes at the lowest offset
 * where it overlaps no already placed buffer that is live at the same time ("first
 * fit"), or at the start of the smallest such gap that holds it ("best fit").  Only the
 * placed buffers whose lifetimes overlap are looked at: an interval tree over the
 * buffers sorted by first use (each node keeps the latest last use below it) lists them,
 * they are sorted by offset and one sweep finds the gap.  Placing a buffer that overlaps
 * k others costs O((k + 1) log n); a whole plan O((n + P) log n), P the number of pairs
 * of buffers live at the same time (about 2n for a chain of operators).
 *
 * Buffers next to each other in first-use order with one last use, where no buffer's
 * search stops between them, form a "class" (tensors no operator touches, graph outputs
 * written one after the other, an operator's scratch buffers): they are all live at
 * that last use, and every buffer placed meets all of a class or none of it.  The tree
 * holds only the first of each class (its head), and a class keeps its placed buffers
 * as runs: offset intervals in order, adjacent ones merged.  The gap a sweep finds
 * depends only on the bytes the listed buffers cover, which the runs cover too, so
 * placements are the same; 20,000 tensors of one lifetime, or 20,000 graph outputs,
 * cost a run each instead of all the others placed before (such a file took 40 s to
 * check).  The pairs limit counts the pairs that are not within a class.
 */
#include <stddef.h>
#include <string.h>

#include "plan_internal.h"

/* ---- sorting ------------------------------------------------------------------- */

/* Stable sort of ids[0..count) by key[id], ascending, through temp[0..count):
 * insertion sort on runs of RUN (the short lists of each placement end there), then
 * bottom-up merges.  Any stable sort gives the same order; this one is O(count log
 * count) in little code (a radix pass for long lists was faster on the host, and cost
 * some 450 bytes; a first look that returned at once on ids already in order saved no
 * measurable time on 200,000 buffers and cost 44 bytes).  Descending orders come from
 * reversing an ascending one (which also reverses the ties, see size_order). */
#define RUN 8
void mc__sort_ids(int32_t *ids, int32_t *temp, int32_t count, const int64_t *key)
{
    int32_t width, i, *src = ids, *dst = temp, *t;
    for (i = 0; i < count; i++) {
        int32_t v = ids[i], k = i;
        while (k % RUN != 0 && key[v] < key[ids[k - 1]]) {
            ids[k] = ids[k - 1];
            k--;
        }
        ids[k] = v;
    }
    for (width = RUN; width < count; width *= 2) {
        for (i = 0; i < count; i += 2 * width) {
            int32_t mid = count - i > width ? i + width : count;
            int32_t hi = count - mid > width ? mid + width : count;
            int32_t a = i, b = mid, k = i;
            while (k < hi) {
                dst[k++] = (b >= hi || (a < mid && key[src[b]] >= key[src[a]])) ? src[a++] : src[b++];
            }
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != ids) {
        memcpy(ids, src, (size_t)count * sizeof *ids);
    }
}

/* ---- which placed buffers are live at the same time ------------------------------ */

/*
 * The interval tree is an implicit binary tree over the positions 1..m by first use, in
 * order: position i sits at level z (i = odd * 2^z), its children are i -/+ 2^(z-1), and
 * its subtree covers i - 2^z + 1 .. i + 2^z - 1.  POS_MAX(i - 1) is the latest last use
 * in the subtree (positions past m count as absent).
 */
static int32_t subtree_max(const plan_t *p, int32_t i, int32_t z)
{
    /* A position past m has only its left subtree in range. */
    while (i > p->m && z > 0) {
        z--;
        i -= (int32_t)1 << z;
    }
    return i <= p->m ? POS_MAX(p, i - 1) : -1;
}

/* Every position starts at its own last use (time_orders sets it); each level up takes
 * the latest of its subtree. */
void mc__build_tree(plan_t *p)
{
    int32_t i, z;
    for (z = 1; ((int32_t)1 << z) <= p->m; z++) {
        int32_t half = (int32_t)1 << (z - 1);
        for (i = (int32_t)1 << z; i <= p->m; i += (int32_t)1 << (z + 1)) {
            int32_t v = POS_MAX(p, i - 1), left = POS_MAX(p, i - half - 1);
            int32_t right = subtree_max(p, i + half, z - 1);
            v = left > v ? left : v;
            POS_MAX(p, i - 1) = right > v ? right : v;
        }
    }
    p->levels = z - 1;
}

/* ---- classes of buffers live together to one end, and their runs ------------------ */

static int32_t class_head(const plan_t *p, int32_t b)
{
    return p->cls[b] >= 0 ? p->cls[b] : b;
}

static int32_t first_run(const plan_t *p, int32_t head)
{
    return -2 - p->cls[head];
}

/* Adds placed buffer b to its class's runs: its interval is free of every run of the
 * class (they are all live with it), so it extends the run ending where it starts or
 * starts a run of its own, which then takes in the run starting where it ends. */
static void add_to_runs(plan_t *p, int32_t b)
{
    int32_t head = class_head(p, b), prev = -1, next = first_run(p, head);
    int64_t start = p->place[b];
    while (next >= 0 && p->place[next] < start) {
        prev = next;
        next = p->run_next[next];
    }
    if (prev < 0 || p->run_end[prev] != start) {
        p->run_next[b] = next;
        if (prev >= 0) {
            p->run_next[prev] = b;
        } else {
            p->cls[head] = -2 - b;
        }
        prev = b;
    }
    p->run_end[prev] = start + p->aligned[b];
    if (next >= 0 && p->place[next] == p->run_end[prev]) {
        p->run_end[prev] = p->run_end[next];
        p->run_next[prev] = p->run_next[next];
    }
}

/* Appends to p->list the runs of position i's class when it is live at f or later
 * (only heads have a last use in the tree: the other positions are cut). */
static int32_t take(const plan_t *p, int32_t i, int32_t f, int32_t found)
{
    if (POS_LAST(p, i - 1) >= f) {
        int32_t r;
        for (r = first_run(p, POS_BUFFER(p, i - 1)); r >= 0; r = p->run_next[r]) {
            p->list[found++] = r;
        }
    }
    return found;
}

/* The same for position y (at level z) and every position of its left subtree, cutting
 * subtrees that end before f; a walk cell packs (i << 5) | z.  y is at most reach, so
 * every position met is present. */
static int32_t take_left(const plan_t *p, int32_t y, int32_t z, int32_t f, int32_t found)
{
    int32_t cells = 0, i;
    found = take(p, y, f, found);
    if (z > 0) {
        p->walk[cells++] = ((y - ((int32_t)1 << (z - 1))) << 5) | (z - 1);
    }
    while (cells > 0) {
        int32_t cell = p->walk[--cells], half;
        i = cell >> 5;
        z = cell & 31;
        if (POS_MAX(p, i - 1) < f) {
            continue;
        }
        found = take(p, i, f, found);
        if (z > 0) {
            half = (int32_t)1 << (z - 1);
            p->walk[cells++] = ((i + half) << 5) | (z - 1);
            p->walk[cells++] = ((i - half) << 5) | (z - 1);
        }
    }
    return found;
}

/* Lists into p->list the runs of the placed buffers live at some time in [f, l] among
 * the first `reach` positions (those that start no later than l); returns how many.  From
 * position reach up to the root: the position itself and its left subtree, and at each
 * ancestor it is right of, that ancestor and its left subtree; all else is to the
 * right of reach. */
static int32_t live_during(const plan_t *p, int32_t f, int32_t reach)
{
    int32_t x = reach, z = 0, found;
    while (!(x >> z & 1)) {
        z++;
    }
    found = take_left(p, x, z, f, 0);
    for (; z < p->levels; z++) {
        int32_t left = x - ((int32_t)1 << z); /* positions left of x's subtree */
        if (left <= 0 || POS_PREFIX(p, left - 1) < f) {
            break; /* none of them is live at f: the usual case for a chain of operators */
        }
        if (x >> (z + 1) & 1) { /* a right child: its parent (left) comes next */
            x = left;
            found = take_left(p, x, z + 1, f, found);
        } else {
            x += (int32_t)1 << z;
        }
    }
    return found;
}

/* ---- one greedy pass ----------------------------------------------------------- */

/* Offset for buffer b: first fit (the lowest free offset) or best fit (the start of the
 * smallest gap that holds it, the lowest on ties; the top when none does). */
static int64_t offset_for(plan_t *p, int32_t b, bool best_fit)
{
    int32_t k = live_during(p, p->first[b], p->reach[b]), t;
    int64_t size = p->aligned[b], at = 0, best_at = -1, best_gap = INT64_MAX;
    mc__sort_ids(p->list, p->temp, k, p->place);
    for (t = 0; t < k; t++) {
        int32_t j = p->list[t];
        int64_t start = p->place[j], end = p->run_end[j];
        if (start - at >= size) {
            if (!best_fit) {
                return at;
            }
            if (start - at < best_gap) {
                best_gap = start - at;
                best_at = at;
            }
        }
        if (end > at) {
            at = end;
        }
    }
    return best_at >= 0 ? best_at : at;
}

/* A fixed buffer b goes at its offset, as TFLM's planner puts it there unchecked; the
 * first placed buffer live with it that it overlaps is recorded in p->clash.  The runs
 * live with b say whether one does; which one is found by a scan of the buffers placed
 * so far (fixed buffers go first, so those are fixed), once, on the way to an error. */
static int64_t fixed_at(plan_t *p, int32_t b)
{
    int64_t at = p->fixed[b], end = at + p->aligned[b];
    int32_t k = live_during(p, p->first[b], p->reach[b]), t, j;
    for (t = 0; t < k && p->clash[0] < 0; t++) {
        if (p->place[p->list[t]] < end && at < p->run_end[p->list[t]]) {
            for (j = 0; j < p->n && p->clash[0] < 0; j++) {
                if (j != b && p->place[j] >= 0 && p->place[j] < end && at < p->place[j] + p->aligned[j] &&
                    p->first[j] <= p->last[b] && p->first[b] <= p->last[j]) {
                    p->clash[0] = j;
                    p->clash[1] = b;
                }
            }
        }
    }
    return at;
}

/* Places the buffers of p->order (the m with a size) into p->place; returns the arena. */
int64_t mc__greedy_pass(plan_t *p, bool best_fit)
{
    int32_t i;
    int64_t arena = 0;
    /* -1 (all bits set in two's complement int64_t): not placed yet */
    memset(p->place, 0xff, (size_t)p->n * sizeof *p->place);
    for (i = 0; i < p->m; i++) {
        int32_t b = POS_BUFFER(p, i);
        if (p->cls[b] < 0) {
            p->cls[b] = -1; /* a head, no runs yet */
        }
    }
    for (i = 0; i < p->m; i++) {
        int32_t b = p->order[i];
        int64_t at = p->fixed != NULL && p->fixed[b] >= 0 ? fixed_at(p, b) : offset_for(p, b, best_fit);
        p->place[b] = at;
        add_to_runs(p, b);
        if (at + p->aligned[b] > arena) {
            arena = at + p->aligned[b];
        }
    }
    return arena;
}

