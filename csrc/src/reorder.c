/*
 * Operator reordering: the topological order whose head is smallest (memcore.h, 11b).
 *
 * The search is SERENITY's dynamic programme (Ahn et al., MLSys 2020) over downsets, the
 * sets of operators already run.  What is live after a downset does not depend on the
 * order that ran it, so of all orders reaching a downset only the one with the least
 * peak so far matters.  Level k holds the downsets of k operators; each is extended by
 * every operator whose inputs are all written, and children reaching the same downset
 * are merged.  Kept whole, the levels give the least peak of any order; past `width`
 * downsets a level keeps its lowest peaks (a beam), and the result is an upper bound.
 *
 * The peak is counted with TFLM's lifetimes on TFLM's buffers (mc_tflm_buffers in the
 * file's order, aligned to 16): a tensor is live from its producer to its last
 * consumer, a graph input from the start, a graph output to the end, a kernel's scratch
 * while its operator runs.  The peak only steers the search: the order found and the
 * file's order are then each given to mc_tflm_buffers and planned with MC_PLAN_BEST,
 * and the smaller head wins (the file's on a tie).
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "out_of_line.h"

#define ALIGNMENT 16
#define CHILDREN_PER_WIDTH 4

/* The graph as the search sees it: per tensor its aligned head bytes, its producer and
 * its consumers; per operator the bytes it creates and its scratch. */
typedef struct {
    int64_t n_t, n_ops, words;
    int64_t *bytes;       /* n_t: aligned head bytes, 0 when not in the head */
    int32_t *producer;    /* n_t: the operator writing it, -1 none */
    int32_t *pinned;      /* n_t: 1 for a graph output, never freed */
    int32_t *cons_start;  /* n_t + 1: consumers[cons_start[t] ..) read t */
    int32_t *consumers;   /* n_op_tensors */
    int64_t *op_new;      /* n_ops: bytes of its outputs, live from it on */
    int64_t *op_scratch;  /* n_ops: its kernel's scratch, live while it runs */
} dag_t;

/* One level of the search: downsets, what is ready after each, their peak and live bytes. */
typedef struct {
    uint64_t *mask, *ready, *hash;
    int64_t *peak, *live;
    int64_t count;
} level_t;

/* A child before merging: parent downset + op. */
typedef struct {
    int64_t peak, live;
    uint64_t hash;
    int32_t parent, op;
} child_t;

typedef struct {
    dag_t d;
    level_t lv[2];
    child_t *children;
    int32_t *table;      /* open addressing: child index + 1, 0 empty */
    int32_t *rank;       /* children sorted */
    int32_t *history;    /* n_ops * width pairs (parent, op) */
    int64_t width, table_slots;
} search_t;

/* Everything planning one order needs. */
typedef struct {
    mc_graph_t run;      /* the graph with its operators in the order planned */
    mc_op_t *ops;
    int64_t *sizes, *offsets;
    int32_t *first, *last, *owner;
    void *tflm_work, *plan_work;
    int64_t n_buffers, tflm_bytes, plan_bytes;
} eval_t;

/* The search's and the planning's state: at the start of the scratch, so that
 * mc_reorder's frame stays small (the stack under it is TFLM's model's, ~700 B). */
typedef struct {
    search_t s;
    eval_t e;
} work_t;

static uint64_t mix(uint64_t x) /* splitmix64: a fixed key per operator for the hash */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Carves n * size bytes, 8-aligned, off the scratch (with base NULL only counts them):
 * *at counts the bytes used, *overflow any overflow. */
static void *carve(uint8_t *base, int64_t *at, int64_t n, int64_t size, bool *overflow)
{
    int64_t bytes = mc_mul_or_flag(n, size, overflow);
    void *p = base != NULL && !*overflow ? base + *at : NULL;
    bytes = mc_add_or_flag(bytes, 7, overflow);
    *at = mc_add_or_flag(*at, bytes - bytes % 8, overflow);
    return p;
}

/* Lays out the scratch, work_t first; with base NULL only sizes it.  n_buffers,
 * tflm_bytes and plan_bytes as mc_tflm_buffer_count and mc_plan_scratch_bytes give them. */
OUT_OF_LINE static int64_t layout(const mc_graph_t *g, int64_t width, int64_t n_buffers, int64_t tflm_bytes,
                                  int64_t plan_bytes, uint8_t *base, bool *overflow)
{
    work_t sizing, *w = base != NULL ? (work_t *)(void *)base : &sizing;
    search_t *s = &w->s;
    eval_t *e = &w->e;
    int64_t at = 0, i, words = (g->n_ops + 63) / 64, children = CHILDREN_PER_WIDTH * width, slots = 1;
    (void)carve(base, &at, 1, (int64_t)sizeof(work_t), overflow);
    while (slots < 2 * children) {
        slots *= 2;
    }
    s->width = width;
    s->table_slots = slots;
    s->d.n_t = g->n_tensors;
    s->d.n_ops = g->n_ops;
    s->d.words = words;
    s->d.bytes = carve(base, &at, g->n_tensors, 8, overflow);
    s->d.producer = carve(base, &at, g->n_tensors, 4, overflow);
    s->d.pinned = carve(base, &at, g->n_tensors, 4, overflow);
    s->d.cons_start = carve(base, &at, g->n_tensors + 1, 4, overflow);
    s->d.consumers = carve(base, &at, g->n_op_tensors, 4, overflow);
    s->d.op_new = carve(base, &at, g->n_ops, 8, overflow);
    s->d.op_scratch = carve(base, &at, g->n_ops, 8, overflow);
    for (i = 0; i < 2; i++) {
        s->lv[i].mask = carve(base, &at, mc_mul_or_flag(width, words, overflow), 8, overflow);
        s->lv[i].ready = carve(base, &at, mc_mul_or_flag(width, words, overflow), 8, overflow);
        s->lv[i].hash = carve(base, &at, width, 8, overflow);
        s->lv[i].peak = carve(base, &at, width, 8, overflow);
        s->lv[i].live = carve(base, &at, width, 8, overflow);
    }
    s->children = carve(base, &at, children, (int64_t)sizeof(child_t), overflow);
    s->table = carve(base, &at, slots, 4, overflow);
    s->rank = carve(base, &at, children, 4, overflow);
    s->history = carve(base, &at, mc_mul_or_flag(g->n_ops, width, overflow), 8, overflow);
    e->ops = carve(base, &at, g->n_ops, (int64_t)sizeof(mc_op_t), overflow);
    e->sizes = carve(base, &at, n_buffers, 8, overflow);
    e->offsets = carve(base, &at, n_buffers, 8, overflow);
    e->first = carve(base, &at, n_buffers, 4, overflow);
    e->last = carve(base, &at, n_buffers, 4, overflow);
    e->owner = carve(base, &at, n_buffers, 4, overflow);
    e->tflm_work = carve(base, &at, tflm_bytes, 1, overflow);
    e->plan_work = carve(base, &at, plan_bytes, 1, overflow);
    e->n_buffers = n_buffers;
    e->tflm_bytes = tflm_bytes;
    e->plan_bytes = plan_bytes;
    return at;
}

/* The head of `g` run in `order` (NULL: the file's): TFLM's buffers for that order,
 * planned by MC_PLAN_BEST; *peak the bytes live at its peak. */
OUT_OF_LINE static mc_status_t plan_order(const mc_graph_t *g, mc_target_t target, mc_kernels_t kernels,
                                          uint32_t flags, const int32_t *order, int64_t budget_steps, eval_t *e,
                                          int64_t *head, int64_t *peak, mc_problem_t *problem)
{
    mc_plan_t plan;
    int64_t k;
    e->run = *g;
    if (order != NULL) {
        for (k = 0; k < g->n_ops; k++) {
            e->ops[k] = g->ops[order[k]];
        }
        e->run.ops = e->ops;
    }
    MC_TRY(mc_tflm_buffers(&e->run, target, kernels, flags, e->tflm_work, e->tflm_bytes, e->sizes, e->first, e->last,
                           e->owner, e->n_buffers, problem));
    MC_TRY(mc_plan(MC_PLAN_BEST, e->sizes, e->first, e->last, e->n_buffers, ALIGNMENT, budget_steps, e->plan_work,
                   e->plan_bytes, e->offsets, &plan));
    *head = plan.arena_bytes;
    *peak = plan.lower_bound_bytes;
    return MC_OK;
}

/* Whether input i of an operator is the first of its inputs to name that tensor: an
 * operator that reads a tensor twice is one consumer of it. */
static bool first_read(const int32_t *in, int64_t i)
{
    int64_t j = 0;
    while (j < i && in[j] != in[i]) {
        j++;
    }
    return in[i] >= 0 && j == i;
}

/* The search's view of g from TFLM's buffers in the file's order (in e). */
static mc_status_t build_dag(const mc_graph_t *g, const eval_t *e, dag_t *d)
{
    int64_t i, t, k;
    bool overflow = false;
    for (t = 0; t < d->n_t; t++) {
        d->bytes[t] = 0;
        d->producer[t] = -1;
        d->pinned[t] = 0;
        d->cons_start[t] = 0;
    }
    d->cons_start[d->n_t] = 0;
    for (k = 0; k < d->n_ops; k++) {
        d->op_scratch[k] = 0;
    }
    for (i = 0; i < e->n_buffers; i++) {
        int64_t aligned = mc_add_or_flag(e->sizes[i], ALIGNMENT - 1, &overflow);
        aligned -= aligned % ALIGNMENT;
        if (e->owner[i] >= 0) {
            d->bytes[e->owner[i]] = aligned;
        } else {
            k = -1 - (int64_t)e->owner[i];
            d->op_scratch[k] = mc_add_or_flag(d->op_scratch[k], aligned, &overflow);
        }
    }
    for (k = 0; k < d->n_ops; k++) {
        const mc_op_t *op = &g->ops[k];
        d->op_new[k] = 0;
        for (i = 0; i < op->n_outputs; i++) {
            t = g->op_tensors[op->first_output + i];
            if (t >= 0 && d->producer[t] == -1) {
                d->producer[t] = (int32_t)k;
                d->op_new[k] = mc_add_or_flag(d->op_new[k], d->bytes[t], &overflow);
            }
        }
    }
    for (k = 0; k < d->n_ops; k++) { /* consumers counted (each op once per tensor), then listed */
        const int32_t *in = g->op_tensors + g->ops[k].first_input;
        for (i = 0; i < g->ops[k].n_inputs; i++) {
            if (first_read(in, i)) {
                d->cons_start[in[i] + 1]++;
            }
        }
    }
    for (t = 0; t < d->n_t; t++) {
        d->cons_start[t + 1] += d->cons_start[t];
    }
    for (i = 0; i < g->n_outputs; i++) {
        d->pinned[g->outputs[i]] = 1;
    }
    for (k = 0; k < d->n_ops; k++) {
        const int32_t *in = g->op_tensors + g->ops[k].first_input;
        for (i = 0; i < g->ops[k].n_inputs; i++) {
            if (first_read(in, i)) {
                d->consumers[d->cons_start[in[i]]++] = (int32_t)k;
            }
        }
    }
    for (t = d->n_t; t > 0; t--) { /* the fill moved each start to the next: move back */
        d->cons_start[t] = d->cons_start[t - 1];
    }
    d->cons_start[0] = 0;
    return overflow ? MC_E_OVERFLOW : MC_OK;
}

static bool has(const uint64_t *mask, int64_t op)
{
    return (mask[op / 64] >> (op % 64)) & 1u;
}

/* Whether op can run after the downset `mask`: every input written (or never written). */
static bool ready(const mc_graph_t *g, const dag_t *d, const uint64_t *mask, int64_t op)
{
    const int32_t *in = g->op_tensors + g->ops[op].first_input;
    int32_t i;
    for (i = 0; i < g->ops[op].n_inputs; i++) {
        if (in[i] >= 0 && d->producer[in[i]] >= 0 && !has(mask, d->producer[in[i]])) {
            return false;
        }
    }
    return true;
}

/* Bytes freed when op runs after `mask`: inputs whose last reader it is, and outputs no
 * one reads. */
static int64_t freed(const mc_graph_t *g, const dag_t *d, const uint64_t *mask, int32_t op, int64_t *steps)
{
    const mc_op_t *o = &g->ops[op];
    int64_t bytes = 0;
    int32_t i, j;
    for (i = 0; i < o->n_inputs; i++) {
        int32_t t = g->op_tensors[o->first_input + i];
        bool last = t >= 0 && !d->pinned[t] && d->bytes[t] > 0;
        for (j = 0; j < i && last; j++) {
            last = g->op_tensors[o->first_input + j] != t;
        }
        for (j = last ? d->cons_start[t] : 0; last && j < d->cons_start[t + 1]; j++) {
            last = d->consumers[j] == op || has(mask, d->consumers[j]);
            *steps += 1;
        }
        *steps += 1;
        bytes += last ? d->bytes[t] : 0;
    }
    for (i = 0; i < o->n_outputs; i++) {
        int32_t t = g->op_tensors[o->first_output + i];
        if (t >= 0 && d->producer[t] == op && !d->pinned[t] && d->cons_start[t + 1] == d->cons_start[t]) {
            bytes += d->bytes[t];
        }
    }
    return bytes;
}

/* The search's order of children: lower peak, then fewer bytes live, then found first. */
static bool before(const child_t *c, int32_t a, int32_t b)
{
    if (c[a].peak != c[b].peak) {
        return c[a].peak < c[b].peak;
    }
    if (c[a].live != c[b].live) {
        return c[a].live < c[b].live;
    }
    return a < b;
}

static void sift(const child_t *c, int32_t *r, int64_t root, int64_t n)
{
    for (;;) {
        int64_t big = root, kid = 2 * root + 1;
        if (kid < n && before(c, r[big], r[kid])) {
            big = kid;
        }
        if (kid + 1 < n && before(c, r[big], r[kid + 1])) {
            big = kid + 1;
        }
        if (big == root) {
            return;
        }
        kid = r[root];
        r[root] = r[big];
        r[big] = (int32_t)kid;
        root = big;
    }
}

static void heapsort(const child_t *c, int32_t *r, int64_t n) /* no qsort: the core has no stdlib */
{
    int64_t i;
    for (i = n / 2; i-- > 0;) {
        sift(c, r, i, n);
    }
    for (i = n; i-- > 1;) {
        int32_t top = r[0];
        r[0] = r[i];
        r[i] = top;
        sift(c, r, 0, i);
    }
}

/* Whether two children reach the same downset. */
static bool same(const level_t *lv, int64_t words, const child_t *a, const child_t *b)
{
    const uint64_t *ma = lv->mask + a->parent * words, *mb = lv->mask + b->parent * words;
    int64_t w;
    for (w = 0; w < words; w++) {
        uint64_t x = ma[w] | (a->op / 64 == w ? (uint64_t)1 << (a->op % 64) : 0);
        uint64_t y = mb[w] | (b->op / 64 == w ? (uint64_t)1 << (b->op % 64) : 0);
        if (x != y) {
            return false;
        }
    }
    return true;
}

/* Children of level `cur`, merged by downset; returns how many. */
static int64_t expand(const mc_graph_t *g, search_t *s, const level_t *cur, bool *cut, int64_t *steps)
{
    const dag_t *d = &s->d;
    int64_t n = 0, p, w, cap = CHILDREN_PER_WIDTH * s->width;
    memset(s->table, 0, (size_t)s->table_slots * sizeof *s->table);
    for (p = 0; p < cur->count; p++) {
        const uint64_t *rd = cur->ready + p * d->words;
        for (w = 0; w < d->words; w++) {
            uint64_t bits = rd[w];
            while (bits != 0) {
                int32_t op = (int32_t)(w * 64), b = 0;
                child_t c;
                uint64_t slot;
                while (!((bits >> b) & 1u)) {
                    b++;
                }
                bits &= bits - 1;
                op += b;
                c.parent = (int32_t)p;
                c.op = op;
                c.peak = cur->live[p] + d->op_new[op] + d->op_scratch[op];
                c.peak = c.peak > cur->peak[p] ? c.peak : cur->peak[p];
                c.live = cur->live[p] + d->op_new[op] - freed(g, d, cur->mask + p * d->words, op, steps);
                c.hash = cur->hash[p] ^ mix((uint64_t)op);
                for (slot = c.hash & (uint64_t)(s->table_slots - 1); s->table[slot] != 0;
                     slot = (slot + 1) & (uint64_t)(s->table_slots - 1)) {
                    child_t *o = &s->children[s->table[slot] - 1];
                    if (o->hash == c.hash && same(cur, d->words, o, &c)) {
                        break;
                    }
                }
                if (s->table[slot] != 0) {
                    child_t *o = &s->children[s->table[slot] - 1];
                    if (c.peak < o->peak) { /* a better path to the same downset */
                        o->peak = c.peak;
                        o->parent = c.parent;
                        o->op = c.op;
                    }
                    continue;
                }
                if (n == cap) { /* the rest of this level's children are not looked at */
                    *cut = true;
                    return n;
                }
                s->children[n] = c;
                s->table[slot] = (int32_t)(n + 1);
                n++;
            }
        }
    }
    return n;
}

/* Level `next` from the best `width` children of `cur`; their steps into `history`. */
static void keep(const mc_graph_t *g, search_t *s, const level_t *cur, level_t *next, int64_t n, int64_t level,
                 bool *cut)
{
    const dag_t *d = &s->d;
    int64_t i, w, j;
    for (i = 0; i < n; i++) {
        s->rank[i] = (int32_t)i;
    }
    heapsort(s->children, s->rank, n);
    if (n > s->width) {
        *cut = true;
        n = s->width;
    }
    for (i = 0; i < n; i++) {
        const child_t *c = &s->children[s->rank[i]];
        uint64_t *mask = next->mask + i * d->words, *rd = next->ready + i * d->words;
        const mc_op_t *o = &g->ops[c->op];
        memcpy(mask, cur->mask + c->parent * d->words, (size_t)d->words * 8);
        memcpy(rd, cur->ready + c->parent * d->words, (size_t)d->words * 8);
        mask[c->op / 64] |= (uint64_t)1 << (c->op % 64);
        rd[c->op / 64] &= ~((uint64_t)1 << (c->op % 64));
        for (w = 0; w < o->n_outputs; w++) { /* readers of its outputs may now be ready */
            int32_t t = g->op_tensors[o->first_output + w];
            for (j = t >= 0 ? d->cons_start[t] : 0; t >= 0 && j < d->cons_start[t + 1]; j++) {
                int32_t r = d->consumers[j];
                if (!has(mask, r) && ready(g, d, mask, r)) {
                    rd[r / 64] |= (uint64_t)1 << (r % 64);
                }
            }
        }
        next->hash[i] = c->hash;
        next->peak[i] = c->peak;
        next->live[i] = c->live;
        s->history[2 * (level * s->width + i)] = c->parent;
        s->history[2 * (level * s->width + i) + 1] = c->op;
    }
    next->count = n;
}

/* The search: the order reaching all operators with the least peak it finds. */
static mc_status_t search(const mc_graph_t *g, search_t *s, int32_t *order, mc_reorder_t *out)
{
    const dag_t *d = &s->d;
    level_t *cur = &s->lv[0];
    int64_t t, k, level, at = 0;
    bool cut = false;
    memset(cur->mask, 0, (size_t)d->words * 8);
    memset(cur->ready, 0, (size_t)d->words * 8);
    cur->hash[0] = 0;
    cur->peak[0] = 0;
    cur->live[0] = 0;
    cur->count = 1;
    /* Before the first operator every tensor no operator writes is live (TFLM's scope
     * before the first operator); from then on those that some operator reads, or that
     * are graph outputs, until their last reader. */
    for (t = 0; t < d->n_t; t++) {
        if (d->producer[t] == -1) {
            cur->peak[0] += d->bytes[t];
            cur->live[0] += d->pinned[t] || d->cons_start[t + 1] > d->cons_start[t] ? d->bytes[t] : 0;
        }
    }
    for (k = 0; k < d->n_ops; k++) {
        if (ready(g, d, cur->mask, k)) {
            cur->ready[k / 64] |= (uint64_t)1 << (k % 64);
        }
    }
    out->states = 1;
    for (level = 0; level < d->n_ops; level++) {
        level_t *next = &s->lv[(level + 1) % 2];
        int64_t n = expand(g, s, cur, &cut, &out->steps);
        out->steps += cur->count;
        if (n == 0) { /* no operator can run: one reads what it or a later one writes */
            return MC_E_GRAPH;
        }
        keep(g, s, cur, next, n, level, &cut);
        out->states += next->count;
        cur = next;
    }
    /* the last level holds one downset, all operators: walk its steps back */
    for (level = d->n_ops; level-- > 0;) {
        order[level] = s->history[2 * (level * s->width + at) + 1];
        at = s->history[2 * (level * s->width + at)];
    }
    out->searched_peak_bytes = d->n_ops > 0 ? cur->peak[0] : 0;
    out->exact = !cut;
    return MC_OK;
}

static mc_status_t sizes_for(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                             int64_t width, int64_t *n_buffers, int64_t *tflm_bytes, int64_t *plan_bytes,
                             mc_problem_t *problem)
{
    if (graph == NULL) {
        return MC_E_NULL;
    }
    if (graph->n_subgraphs > 1) {
        return MC_E_UNSUPPORTED;
    }
    if (width < 1 || width > MC_REORDER_MAX_WIDTH) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_tflm_buffer_count(graph, target, kernels, flags, n_buffers, tflm_bytes, problem));
    return mc_plan_scratch_bytes(*n_buffers, plan_bytes);
}

mc_status_t mc_reorder_scratch_bytes(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels,
                                     uint32_t flags, int64_t width, int64_t *scratch_bytes, mc_problem_t *problem)
{
    int64_t n_buffers, tflm_bytes, plan_bytes, bytes;
    bool overflow = false;
    if (scratch_bytes == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(sizes_for(graph, target, kernels, flags, width, &n_buffers, &tflm_bytes, &plan_bytes, problem));
    bytes = layout(graph, width, n_buffers, tflm_bytes, plan_bytes, NULL, &overflow);
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    *scratch_bytes = bytes;
    return MC_OK;
}

mc_status_t mc_reorder(const mc_graph_t *graph, mc_target_t target, mc_kernels_t kernels, uint32_t flags,
                       int64_t width, int64_t budget_steps, void *scratch, int64_t scratch_bytes,
                       int32_t *order, mc_reorder_t *out, mc_problem_t *problem)
{
    int64_t n_buffers, tflm_bytes, plan_bytes, k;
    work_t *w = (work_t *)scratch;
    bool overflow = false;
    if (scratch == NULL || order == NULL || out == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(sizes_for(graph, target, kernels, flags, width, &n_buffers, &tflm_bytes, &plan_bytes, problem));
    if ((uintptr_t)scratch % 8 != 0 ||
        layout(graph, width, n_buffers, tflm_bytes, plan_bytes, NULL, &overflow) > scratch_bytes || overflow) {
        return overflow ? MC_E_OVERFLOW : MC_E_SCRATCH;
    }
    (void)layout(graph, width, n_buffers, tflm_bytes, plan_bytes, (uint8_t *)scratch, &overflow);
    memset(out, 0, sizeof *out);
    MC_TRY(plan_order(graph, target, kernels, flags, NULL, budget_steps, &w->e, &out->file_head_bytes,
                      &out->file_peak_bytes, problem));
    MC_TRY(build_dag(graph, &w->e, &w->s.d));
    MC_TRY(search(graph, &w->s, order, out));
    MC_TRY(plan_order(graph, target, kernels, flags, order, budget_steps, &w->e, &out->head_bytes, &out->peak_bytes,
                      problem));
    for (k = 0; k < graph->n_ops; k++) {
        out->changed |= order[k] != k;
    }
    if (!out->changed || out->head_bytes >= out->file_head_bytes) { /* the file's order, on a tie too */
        for (k = 0; k < graph->n_ops; k++) {
            order[k] = (int32_t)k;
        }
        out->head_bytes = out->file_head_bytes;
        out->peak_bytes = out->file_peak_bytes;
        out->changed = false;
    }
    return MC_OK;
}
