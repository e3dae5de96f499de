/*
 * Activation-arena planning from tensor lifetimes (SPEC 7).
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
 *   3. when at most MC_PLAN_EXACT_BUFFERS buffers have a size and the arena is still
 *      above the lower bound, an exact search (exact_search below) with what is left of
 *      the budget; when it finishes, the plan is proven optimal.
 * The lower bound is the most aligned bytes live at any one operator; a plan that
 * reaches it is optimal too.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "out_of_line.h"

#define EXACT_MAX MC_PLAN_EXACT_BUFFERS
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
 *   int32  order[n]     the placement order of a pass
 *   int32  list[n], temp[n]  overlapping buffers of one placement; sort
 *                       temporaries; the breadth order's ranks; the class cuts
 *   int32  cls[n]       per buffer: its class head's id, or for a head -2 - its first
 *                       run (-1: none placed)
 *   int32  run_next[n]  per run: the class's next run by offset, -1 after the last
 *   int32  walk[WALK_CELLS]
 *   int32  x_sz[k], x_off[k], x_rel[k]   exact search (k = min(n, EXACT_MAX))
 *   uint32 x_overlap[k], x_live[k]
 *   uint8  x_children[k * k], x_count[k], x_next[k], x_path[k], x_rank[k]; int8 x_twin[k]
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
    int32_t *x_sz; /* the exact search counts in units of the alignment */
    int32_t *x_off;
    int32_t *x_rel;
    uint32_t *x_overlap;
    uint32_t *x_live;
    uint8_t *x_children;
    uint8_t *x_count;
    uint8_t *x_next;
    uint8_t *x_path;
    uint8_t *x_rank;
    int8_t *x_twin;
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

static int32_t exact_capacity(int32_t n)
{
    return n < EXACT_MAX ? n : EXACT_MAX;
}

/* ---- sorting ------------------------------------------------------------------- */

/* Stable sort of ids[0..count) by key[id], ascending, through temp[0..count):
 * insertion sort on runs of RUN (the short lists of each placement end there), then
 * bottom-up merges.  Any stable sort gives the same order; this one is O(count log
 * count) in little code (a radix pass for long lists was faster on the host, and cost
 * some 450 bytes; a first look that returned at once on ids already in order saved no
 * measurable time on 200,000 buffers and cost 44 bytes).  Descending orders come from
 * reversing an ascending one (which also reverses the ties, see size_order). */
#define RUN 8
static void sort_ids(int32_t *ids, int32_t *temp, int32_t count, const int64_t *key)
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

static void reverse_ids(int32_t *ids, int32_t count)
{
    int32_t i;
    for (i = 0; i < count / 2; i++) {
        int32_t t = ids[i];
        ids[i] = ids[count - 1 - i];
        ids[count - 1 - i] = t;
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
static void build_tree(plan_t *p)
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
    sort_ids(p->list, p->temp, k, p->place);
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
static int64_t greedy_pass(plan_t *p, bool best_fit)
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

/* The pass's offsets; zero-sized buffers, never placed (-1), at 0. */
static void keep_plan(const plan_t *p, int64_t *offsets)
{
    int32_t b;
    for (b = 0; b < p->n; b++) {
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
    sort_ids(p->order, p->temp, p->m, key);
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
    sort_ids(ranked, rank, m, p->place);
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
    sort_ids(p->order, p->temp, m, p->place);
}

/* ---- exact search ---------------------------------------------------------------- */

/*
 * For at most EXACT_MAX buffers with a size (local indices 0..k-1, by id).
 *
 * Any plan can be pushed down until no buffer can move lower; listed by offset (ties in
 * a fixed priority), each buffer of such a plan is then at the lowest free offset among
 * the buffers before it, and the offsets never decrease.  So a depth-first search over
 * "which buffer next", each placed at its lowest free offset, with offsets that never
 * decrease, meets every such plan exactly once, and an optimal one among them.
 * A node is cut when
 *   - a buffer not yet placed fits a gap wholly below the current offset: nothing placed
 *     later can fill that gap, so the buffer could never be placed;
 *   - its bound exceeds the target T: the highest end so far; for each buffer left, its
 *     lowest free offset at or above the current one plus its size; for each operator,
 *     the bytes still to place there poured into its free space above the current offset.
 * The target starts at the lower bound; a search that finishes without a plan of top <= T
 * raises T to the least bound it cut at (iterative deepening), so the first plan found is
 * optimal.  Each target is tried with three priorities in turn (first use, smallest
 * first, longest first), each run stopped after a number of steps that doubles per round,
 * until one finds a plan or finishes.  A node at depth d costs k * (d + 1) steps.
 */
typedef struct {
    int32_t k;      /* buffers */
    int32_t points; /* distinct first uses */
    int32_t target; /* in units of the alignment, as all of the search's sizes */
    int32_t next_target; /* least bound above the target that cut a node */
    int32_t steps;
    int32_t limit;
} exact_t;

enum { SEARCH_FOUND, SEARCH_DONE, SEARCH_LIMIT };

/* Lowest free offset for c at or above `from` among the placed path[0..depth). */
static int32_t x_lowest(const plan_t *p, int32_t c, int32_t depth, int32_t from)
{
    int32_t t, at = from;
    for (t = 0; t < depth; t++) {
        int32_t j = p->x_path[t];
        int32_t start = p->x_off[j], end = start + p->x_sz[j];
        if (!(p->x_overlap[c] >> j & 1u) || end <= at) {
            continue;
        }
        if (start - at >= p->x_sz[c]) {
            break;
        }
        at = end;
    }
    return at;
}

/* Fills the children of the node at `depth` (placed: path[0..depth)); none when cut. */
static void x_expand(plan_t *p, exact_t *x, int32_t depth, uint32_t placed)
{
    int32_t c, r, t, count = 0, k = x->k;
    int32_t level = depth > 0 ? p->x_off[p->x_path[depth - 1]] : 0, bound = 0;
    int32_t level_rank = depth > 0 ? p->x_rank[p->x_path[depth - 1]] : -1;
    uint8_t *children = p->x_children + (size_t)depth * (size_t)k;

    p->x_next[depth] = 0;
    p->x_count[depth] = 0;

    for (t = 0; t < depth; t++) {
        int32_t j = p->x_path[t];
        if (p->x_off[j] + p->x_sz[j] > bound) {
            bound = p->x_off[j] + p->x_sz[j];
        }
    }
    /* in priority order (p->list, from x_priority), so that children of equal lowest
     * offsets stay in it through the stable sort below */
    for (r = 0; r < k; r++) {
        int32_t lowest, rel;
        c = p->list[r];
        if (placed >> c & 1u) {
            continue;
        }
        rel = lowest = x_lowest(p, c, depth, 0);
        if (lowest < level) {
            if (lowest + p->x_sz[c] <= level) {
                return; /* a gap below the level that nothing can fill any more */
            }
            rel = x_lowest(p, c, depth, level);
        }
        p->x_rel[c] = rel;
        if (rel + p->x_sz[c] > bound) {
            bound = rel + p->x_sz[c];
        }
        if (lowest >= level && (lowest > level || r > level_rank) &&
            (p->x_twin[c] < 0 || (placed >> p->x_twin[c] & 1u))) {
            children[count++] = (uint8_t)c;
        }
    }
    for (t = 0; t < x->points && bound <= x->target; t++) {
        int32_t need = 0, y = level;
        uint32_t live = p->x_live[t];
        for (c = 0; c < k; c++) {
            if ((live >> c & 1u) && !(placed >> c & 1u)) {
                need += p->x_sz[c];
            }
        }
        /* the placed buffers live here are disjoint and in offset order along the path,
         * all starting at or below the level: the free space above it starts at the
         * highest end among them */
        for (c = 0; c < depth; c++) {
            int32_t j = p->x_path[c], end = p->x_off[j] + p->x_sz[j];
            if ((live >> j & 1u) && end > y) {
                y = end;
            }
        }
        if (y + need > bound) { /* never with need 0: y is at most the highest end */
            bound = y + need;
        }
    }
    if (bound > x->target) {
        if (bound < x->next_target) {
            x->next_target = bound;
        }
        return;
    }
    /* children by lowest offset, then priority (stable) */
    for (t = 1; t < count; t++) {
        uint8_t v = children[t];
        int32_t u = t;
        while (u > 0 && p->x_rel[v] < p->x_rel[children[u - 1]]) {
            children[u] = children[u - 1];
            u--;
        }
        children[u] = v;
    }
    p->x_count[depth] = (uint8_t)count;
}

/* One depth-first run for a plan with top <= target; x_off holds it when found. */
static int x_run(plan_t *p, exact_t *x)
{
    int32_t depth = 0, k = x->k;
    uint32_t placed = 0;
    for (;;) {
        int32_t c;
        int32_t cost = k * (depth + 1);
        if (x->steps + cost > x->limit) {
            return SEARCH_LIMIT;
        }
        x->steps += cost;
        x_expand(p, x, depth, placed);
        /* the next child to try, backing up past nodes whose children are all tried (a
         * node cut has none) */
        while (p->x_next[depth] == p->x_count[depth]) {
            if (depth == 0) {
                return SEARCH_DONE;
            }
            depth--;
            placed &= ~((uint32_t)1 << p->x_path[depth]);
        }
        c = p->x_children[(size_t)depth * (size_t)k + p->x_next[depth]++];
        p->x_off[c] = x_lowest(p, c, depth, 0);
        p->x_path[depth++] = (uint8_t)c;
        placed |= (uint32_t)1 << c;
        if (depth == k) {
            return SEARCH_FOUND;
        }
    }
}

/* Priority ranks for search run `which`, by stable sorts of the local indices (list,
 * keys in place): 0 first use, then largest, then lower index; 1 smallest first, then
 * lower index; 2 longest life first, then largest, then lower index. */
static void x_priority(plan_t *p, const exact_t *x, int which)
{
    int32_t a, k = x->k, *ids = p->list;
    for (a = 0; a < k; a++) {
        ids[a] = which == 1 ? a : k - 1 - a;
    }
    for (a = 0; a < k; a++) {
        p->place[a] = p->x_sz[a];
    }
    sort_ids(ids, p->temp, k, p->place);
    if (which != 1) {
        for (a = 0; a < k; a++) {
            int32_t id = p->order[a];
            /* in 32 bits: take_sizes checked 0 <= first <= last */
            p->place[a] = which == 0 ? -p->first[id] : p->last[id] - p->first[id];
        }
        sort_ids(ids, p->temp, k, p->place);
        reverse_ids(ids, k);
    }
    for (a = 0; a < k; a++) {
        p->x_rank[ids[a]] = (uint8_t)a;
    }
}

#define FIRST_RUN_STEPS 4096
/* The search counts in units of the alignment in 32 bits: it runs when all the buffers
 * stacked are at most this many units (every sum it forms is then below 2^31). */
#define EXACT_MAX_UNITS (INT64_C(1) << 30)

/* Improves *arena (plan in offsets) within `budget` steps; returns the steps used and
 * sets *proven when the arena is then optimal.  Steps count in 32 bits: the budget is at
 * most MC_PLAN_MAX_STEPS < 2^30, and a run's steps double only while below it.  lower
 * and *arena are multiples of the alignment (sums of aligned sizes).  Out of line:
 * inlined into mc_plan it costs some 45 B more on Xtensa (and as much less on
 * Cortex-M4F, which is within its budget). */
OUT_OF_LINE static int32_t exact_search(plan_t *p, int64_t lower, int64_t alignment, int32_t budget,
                                        int64_t *arena, int64_t *offsets, bool *proven)
{
    exact_t x;
    int32_t a, b, top, run_steps = FIRST_RUN_STEPS;
    int64_t total = 0;
    int which = 0;

    ids_with_size(p, p->order); /* local index -> buffer id */
    for (a = 0; a < p->m; a++) {
        int64_t units = p->aligned[p->order[a]] / alignment;
        p->x_sz[a] = (int32_t)units; /* exact when the total passes */
        total += units;
    }
    if (total > EXACT_MAX_UNITS) {
        return 0;
    }
    x.k = p->m;
    x.steps = 0;
    x.target = (int32_t)(lower / alignment);
    x.points = 0;
    top = (int32_t)(*arena / alignment); /* the best plan's top */
    for (a = 0; a < x.k; a++) {
        int32_t first = p->first[p->order[a]], last = p->last[p->order[a]], twin = -1;
        int32_t t = p->first[POS_BUFFER(p, a)];
        uint32_t overlap = 0, live = 0;
        for (b = 0; b < x.k; b++) {
            int32_t fb = p->first[p->order[b]], lb = p->last[p->order[b]];
            if (first <= lb && fb <= last) {
                overlap |= (uint32_t)1 << b;
            }
            /* a buffer identical to another in size and lifetime comes after it in
             * every priority (equal keys keep the local order through x_priority's
             * sorts): its twin is the closest such before it */
            if (b < a && p->x_sz[b] == p->x_sz[a] && fb == first && lb == last) {
                twin = b;
            }
            if (fb <= t && t <= lb) {
                live |= (uint32_t)1 << b;
            }
        }
        p->x_twin[a] = (int8_t)twin;
        p->x_overlap[a] = overlap & ~((uint32_t)1 << a); /* the others only */
        /* operators: the distinct first uses, each with the buffers live there */
        if (a == 0 || p->first[POS_BUFFER(p, a - 1)] != t) {
            p->x_live[x.points++] = live;
        }
    }
    while (x.target < top) {
        int outcome;
        x.next_target = top;
        x_priority(p, &x, which);
        x.limit = budget - x.steps > run_steps ? x.steps + run_steps : budget;
        outcome = x_run(p, &x);
        if (outcome == SEARCH_FOUND) {
            for (a = 0; a < x.k; a++) {
                offsets[p->order[a]] = (int64_t)p->x_off[a] * alignment;
            }
            top = x.target;
        } else if (outcome == SEARCH_DONE) {
            x.target = x.next_target; /* nothing fits within the target: raise it */
            run_steps = FIRST_RUN_STEPS;
            which = 0;
        } else if (x.limit == budget) {
            break; /* out of budget: the best plan so far, not proven */
        } else if (++which == 3) {
            which = 0;
            run_steps *= 2;
        }
    }
    *arena = (int64_t)top * alignment;
    *proven = x.target >= top;
    return x.steps;
}

/* ---- entry points ---------------------------------------------------------------- */

mc_status_t mc_plan_scratch_bytes(int64_t n_buffers, int64_t *scratch_bytes)
{
    int32_t n, k;
    if (scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    if (n_buffers < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_buffers > MC_PLAN_MAX_BUFFERS) {
        return MC_E_LIMIT;
    }
    /* at most 64 MB: 32 bits hold it.  The exact search's x_sz, x_off, x_rel, x_overlap,
     * x_live, x_children and five bytes a buffer, rounded up to 8. */
    n = (int32_t)n_buffers;
    k = exact_capacity(n);
    *scratch_bytes = n * PER_BUFFER_BYTES + STATE_BYTES + WALK_CELLS * (int32_t)sizeof(int32_t) +
                     (k * (k + 5 * 4 + 5) + 7) / 8 * 8;
    return MC_OK;
}

static void lay_out(plan_t *p, void *scratch, int32_t n)
{
    int32_t k = exact_capacity(n);
    int32_t *w32 = (int32_t *)((int64_t *)scratch + 3 * (size_t)n);
    uint8_t *w8;
    p->aligned = (int64_t *)scratch;
    p->place = p->aligned + n;
    p->run_end = p->place + n;
    p->node = w32;
    p->reach = w32 + 4 * (size_t)n;
    p->order = w32 + 5 * (size_t)n;
    p->list = w32 + 6 * (size_t)n;
    p->temp = w32 + 7 * (size_t)n;
    p->cls = w32 + 8 * (size_t)n;
    p->run_next = w32 + 9 * (size_t)n;
    p->walk = w32 + 10 * (size_t)n;
    p->x_sz = p->walk + WALK_CELLS;
    p->x_off = p->x_sz + k;
    p->x_rel = p->x_off + k;
    p->x_overlap = (uint32_t *)(p->x_rel + k);
    p->x_live = p->x_overlap + k;
    w8 = (uint8_t *)(p->x_live + k);
    p->x_children = w8;
    p->x_count = w8 + (size_t)k * (size_t)k;
    p->x_next = p->x_count + k;
    p->x_path = p->x_next + k;
    p->x_rank = p->x_path + k;
    p->x_twin = (int8_t *)(p->x_rank + k);
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
    sort_ids(p->order, p->temp, p->m, p->place);
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
                                          offsets == NULL || scratch == NULL))) {
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
    build_tree(p);
    size_order(p);
    out->arena_bytes = greedy_pass(p, false);
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
        arena = greedy_pass(p, pass == 1);
        if (arena < out->arena_bytes) {
            out->arena_bytes = arena;
            keep_plan(p, offsets);
        }
    }
    if (out->arena_bytes > out->lower_bound_bytes && p->m <= EXACT_MAX) {
        used += exact_search(p, out->lower_bound_bytes, alignment, budget - used, &out->arena_bytes, offsets,
                             &out->proven_optimal);
    }
    out->steps = pass_steps + used;
    out->proven_optimal = out->proven_optimal || out->arena_bytes == out->lower_bound_bytes;
    return MC_OK;
}
