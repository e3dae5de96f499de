/*
 * The exact search of MC_PLAN_BEST: is there a plan whose top is at most a target?
 * In the spirit of MiniMalloc (Moffitt, ASPLOS 2024): canonical plans only, a skyline of
 * section floors, and sections that no buffer left to place joins searched one after the
 * other, each on its own.
 *
 * Time is cut into sections, one per distinct first use: two buffers live at the same time
 * exactly when their ranges of sections meet (the later first use is a section both span).
 *
 * Canonical plans.  Any plan can be pushed down until no buffer can move lower.  Listed by
 * offset (ties by first section), each buffer of such a plan then sits on the highest end
 * among the buffers before it that share a section with it, or at 0.  So the search builds
 * plans in that order on a skyline: each section keeps a floor (the highest end placed in
 * it so far, or higher: see wastes), and a buffer goes at the floor of its sections.  At
 * each node the search takes the lowest floor f of the current group of sections (below)
 * and its leftmost run [a, z] of sections at f, and either
 *   - places a buffer lying within [a, z] at f (buffers of a run by first section, left to
 *     right; a buffer identical in size and sections to the one before it only after it).
 *     Sections of the run left of it that it skips get nothing at f any more (the next
 *     buffers at f lie right of it): they rise to the lower of the left neighbour's floor
 *     and the buffer's end, under which no later buffer can go there;
 *   - or places nothing more in [a, z] at f ("waste"): the run rises to the lower floor of
 *     its neighbours in the group, since the lowest buffer still to place there must also
 *     reach into a neighbour (none left: no waste).
 * Every canonical plan is met by exactly one path, so the search is complete.
 *
 * Bounds.  A section's floor plus the units still to place there is at most the target;
 * placing keeps that sum, and raises are checked against it.  It also proves any buffer
 * left fits under the target.
 *
 * Groups (time-section decomposition).  Sections s and s + 1 are joined while a buffer
 * still to place lives in both; the current group is the joined run that starts at the
 * first section with something left to place.  Groups are independent: the search places
 * the first group completely before it looks at the next.  When every way of placing a
 * group that started after a split fails, so does the node where the split happened (the
 * group's floors have not changed since): the search goes back there at once instead of
 * retrying every other way of placing the groups left of it.
 *
 * Work: one step per section or buffer looked at, counted, so a board stops where the host
 * does.  The stack is the caller's (MC_EXACT_FRAME_INTS ints a depth); a search deeper than
 * it stops as if out of steps.
 */
#include "plan_exact.h"

#define NONE INT32_MAX

/* A frame: the move taken from the node (a buffer's index, the cursor before its
 * candidates: the first index - 1, or WASTE_AT(f) once its run was raised from f), and
 * the node's run [a, z]. */
#define WASTE_AT(f) (-2 - (f))
#define MOVE(x, d) ((x)->frame[MC_EXACT_FRAME_INTS * (d)])
#define RUN_A(x, d) ((x)->frame[MC_EXACT_FRAME_INTS * (d) + 1])
#define RUN_Z(x, d) ((x)->frame[MC_EXACT_FRAME_INTS * (d) + 2])

static void set_floor(mc_exact_t *x, int32_t from, int32_t to, int32_t v)
{
    int32_t s;
    for (s = from; s <= to; s++) {
        x->floor[s] = v;
    }
    x->steps += to - from + 1;
}

/* Whether raising sections from..to to v keeps every one within the target. */
static int fits(mc_exact_t *x, int32_t from, int32_t to, int32_t v)
{
    int32_t s;
    for (s = from; s <= to; s++) {
        if (v + x->rem[s] > x->target) {
            x->steps += s - from + 1;
            return 0;
        }
    }
    x->steps += to - from + 1;
    return 1;
}

/* c goes at f, the skipped part of the run [a, lo[c]) rises to `left`; the node after it
 * is at depth d. */
static void place(mc_exact_t *x, int32_t c, int32_t a, int32_t f, int32_t left, int32_t d)
{
    int32_t s;
    x->off[c] = f;
    set_floor(x, a, x->lo[c] - 1, left);
    set_floor(x, x->lo[c], x->hi[c], f + x->size[c]);
    for (s = x->lo[c]; s <= x->hi[c]; s++) {
        x->rem[s] -= x->size[c];
        if (s < x->hi[c] && --x->link[s] == 0) {
            x->link[s] = -1 - d;
        }
    }
}

/* Takes back the move of the node at depth d: its state again. */
static void undo(mc_exact_t *x, int32_t d)
{
    int32_t c = MOVE(x, d), s, a = RUN_A(x, d);
    if (c < -1) {
        set_floor(x, a, RUN_Z(x, d), -2 - c);
        return;
    }
    set_floor(x, a, x->hi[c], x->off[c]);
    for (s = x->lo[c]; s <= x->hi[c]; s++) {
        x->rem[s] += x->size[c];
        if (s < x->hi[c]) {
            x->link[s] = x->link[s] < 0 ? 1 : x->link[s] + 1;
        }
    }
    x->off[c] = -1;
    x->clo = x->lo[c] < x->clo ? x->lo[c] : x->clo;
}

static void advance(mc_exact_t *x)
{
    while (x->clo < x->sections && x->rem[x->clo] == 0) {
        x->clo++;
        x->steps++;
    }
}

/* The node at depth d: the lowest floor of the current group and its leftmost run there;
 * the cursor before the run's first buffer.  Some section has units left. */
static void enter(mc_exact_t *x, int32_t d)
{
    int32_t s, end = x->clo, f = NONE, a = 0, z, lo = 0, hi = x->k;
    while (end < x->sections - 1 && x->link[end] > 0) {
        end++;
    }
    for (s = x->clo; s <= end; s++) {
        if (x->floor[s] < f) {
            f = x->floor[s];
            a = s;
        }
    }
    for (z = a; z < end && x->floor[z + 1] == f; z++) {
    }
    x->steps += 2 * (end - x->clo + 1);
    while (lo < hi) { /* the first buffer whose first section is a or later */
        int32_t mid = lo + (hi - lo) / 2;
        if (x->lo[mid] < a) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
        x->steps++;
    }
    MOVE(x, d) = lo - 1;
    RUN_A(x, d) = a;
    RUN_Z(x, d) = z;
}

/* The next move from the node at depth d, taken; 0 when none is left. */
static int next_move(mc_exact_t *x, int32_t d)
{
    int32_t c, a = RUN_A(x, d), z = RUN_Z(x, d), f = x->floor[a], g = NONE;
    if (MOVE(x, d) < -1) {
        return 0; /* the waste was the last move */
    }
    for (c = MOVE(x, d) + 1; c < x->k && x->lo[c] <= z; c++) {
        int32_t left = f + x->size[c];
        x->steps++;
        if (x->off[c] >= 0 || x->hi[c] > z ||
            (c > 0 && x->off[c - 1] < 0 && x->lo[c - 1] == x->lo[c] && x->hi[c - 1] == x->hi[c] &&
             x->size[c - 1] == x->size[c])) {
            continue;
        }
        if (a > x->clo && x->floor[a - 1] < left) {
            left = x->floor[a - 1];
        }
        if (x->lo[c] > a && !fits(x, a, x->lo[c] - 1, left)) {
            continue;
        }
        MOVE(x, d) = c;
        place(x, c, a, f, left, d + 1);
        return 1;
    }
    MOVE(x, d) = WASTE_AT(f);
    if (a > x->clo) {
        g = x->floor[a - 1];
    }
    if (z < x->sections - 1 && x->link[z] > 0 && x->floor[z + 1] < g) {
        g = x->floor[z + 1];
    }
    if (g == NONE || !fits(x, a, z, g)) {
        return 0;
    }
    set_floor(x, a, z, g);
    return 1;
}

/* Whether the move of the node at depth d lies wholly before the first section left. */
static int left_behind(const mc_exact_t *x, int32_t d)
{
    int32_t c = MOVE(x, d);
    return (c < -1 ? RUN_Z(x, d) : x->hi[c]) < x->clo;
}

int mc__exact_run(mc_exact_t *x)
{
    int32_t s, c, d = 0;
    for (s = 0; s < x->sections; s++) {
        x->floor[s] = 0;
        x->rem[s] = 0;
        x->link[s] = 0;
    }
    for (c = 0; c < x->k; c++) {
        x->off[c] = -1;
        for (s = x->lo[c]; s <= x->hi[c]; s++) {
            x->rem[s] += x->size[c];
            x->link[s] += s < x->hi[c];
        }
        x->steps += x->hi[c] - x->lo[c] + 1;
    }
    for (s = 0; s < x->sections; s++) {
        if (x->rem[s] > x->target) {
            return MC_EXACT_DONE;
        }
        if (x->link[s] == 0) {
            x->link[s] = -1; /* apart from the start */
        }
    }
    x->clo = 0;
    x->steps += x->sections;
    enter(x, 0);
    for (;;) {
        if (x->steps > x->limit) {
            return MC_EXACT_LIMIT;
        }
        if (next_move(x, d)) {
            d++;
            advance(x);
            if (x->clo == x->sections) {
                return MC_EXACT_FOUND;
            }
            if (d == x->frames) {
                return MC_EXACT_LIMIT;
            }
            enter(x, d);
            continue;
        }
        /* the node at d has no move left: back to its parent, or, when it was the first
         * node of a group that became independent at depth e < d, fail the node at e */
        for (;;) {
            int32_t e = d;
            if (d == 0) {
                return MC_EXACT_DONE;
            }
            advance(x);
            if (left_behind(x, d - 1) && x->link[x->clo - 1] < 0) {
                e = -1 - x->link[x->clo - 1];
            }
            if (e == d) {
                undo(x, --d);
                break;
            }
            while (d > e) {
                undo(x, --d);
            }
        }
    }
}
