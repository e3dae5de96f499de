/*
 * SPEC 7: tensor lifetimes in execution order, with TensorFlow Lite Micro's rules.
 *
 * This is AllocationInfoBuilder::MarkAllocationLifetimes (micro_allocation_info.cc).
 * TFLM counts "scopes", not operator indices: a subgraph's inputs are created at the
 * scope it starts in, each of its operators opens a new scope, and its outputs are used
 * again at the scope it ends in.  A tensor's first scope is set once (TFLM's
 * UpdateFirstCreated), its last every time it is used.  Reproducing the scopes (rather
 * than, say, a lifetime from producer to last consumer) is what makes the planner's
 * arena equal TFLM's head: a graph input is live from scope 0, and every graph output
 * is live from its producer to the end (checked against the tflite-micro interpreter).
 *
 * Control flow (IF, WHILE, CALL_ONCE) walks the subgraphs it calls inside its own
 * operator's scope, each called subgraph opening one scope more, before its inputs are
 * marked used: a branch's or a loop body's tensors live within the calling operator's
 * lifetime, and the operator's own inputs and outputs outlive them.  The two branches
 * of an IF are walked one after the other, so they never share a scope, and a kernel's
 * scratch buffer lives from its operator's first scope to the scope after its callees
 * (mc_scopes_t's ops).
 * TFLM walks them recursively; here a stack of MC_MAX_NESTING frames does, so a model
 * that nests deeper, or calls a subgraph that calls itself, is refused.
 */
#include <stddef.h>
#include <string.h>

#include "memcore.h"
#include "out_of_line.h"
#include "tflm_internal.h"

#define BUILTIN_IF 118
#define BUILTIN_WHILE 119
#define BUILTIN_CALL_ONCE 129
#define OPTIONS_IF 92
#define OPTIONS_WHILE 93
#define OPTIONS_CALL_ONCE 103

/* A subgraph being walked: its operator in progress (or the one before its first) and
 * how many of that operator's callees are walked (NO_OP: no operator in progress). */
#define NO_OP 3
typedef struct {
    int32_t op;
    int32_t sg;
    int32_t calls;
} frame_t;

/* Entry `at` of first and last is used at `scope`, and created there too when `create`
 * (unless created before: 0 is never touched), each stored + 1 (mc_scopes_t). */
static void use(int32_t *first, int32_t *last, int32_t at, int32_t scope, bool create)
{
    if (create && first[at] == 0) {
        first[at] = scope + 1;
    }
    last[at] = scope + 1;
}

/* Tensors ids[0..n) are used at `scope` (and created, as use); absent optional inputs
 * are -1 and skipped, as are tensors without a slot. */
OUT_OF_LINE static void mark(const mc_scopes_t *s, const int32_t *ids, int32_t n, int32_t scope, bool create)
{
    int32_t i;
    for (i = 0; i < n && s != NULL && s->slot != NULL; i++) {
        if (ids[i] >= 0 && s->slot[ids[i]] >= 0) {
            use(s->first, s->last, s->slot[ids[i]], scope, create);
        }
    }
}

/* Operator k's scratch buffers are used at `scope` (and created, as use). */
static void mark_op(const mc_graph_t *g, const mc_scopes_t *s, int32_t k, int32_t scope, bool create)
{
    if (s != NULL) {
        use(s->ops, s->ops + g->n_ops, k, scope, create);
    }
}

/* The subgraph operator op calls `which`-th (0 or 1): IF's then and else, WHILE's
 * condition and body, CALL_ONCE's init; -1 for none.  An operator whose options are not
 * its kind's calls subgraph -2, which is refused (TFLM reads them as its kind's). */
static int32_t callee(const mc_op_t *op, int32_t which)
{
    int32_t type = op->kind == BUILTIN_IF      ? OPTIONS_IF
                   : op->kind == BUILTIN_WHILE ? OPTIONS_WHILE
                   : op->kind == BUILTIN_CALL_ONCE ? OPTIONS_CALL_ONCE : 0;
    if (type == 0 || (which == 1 && type == OPTIONS_CALL_ONCE)) {
        return -1;
    }
    return op->options_type == type ? op->options[which] : -2;
}

const mc_subgraph_t *mc__tflm_subgraph(const mc_graph_t *g, int32_t s, mc_subgraph_t *whole)
{
    if (g->subgraphs != NULL) {
        return &g->subgraphs[s];
    }
    /* one subgraph, the whole graph (its outputs are the graph's: mc__tflm_walk) */
    memset(whole, 0, sizeof *whole);
    whole->n_tensors = (int32_t)g->n_tensors; /* counts within MC_MAX_* */
    whole->n_ops = (int32_t)g->n_ops;
    whole->io = g->inputs;
    whole->n_inputs = (int32_t)g->n_inputs;
    return whole;
}

int32_t mc__tflm_walk(const mc_graph_t *g, const mc_scopes_t *scopes, int32_t *bad)
{
    /* *bad: the subgraph an operator cannot call, or once the walk is done the scopes */
    frame_t stack[MC_MAX_NESTING];
    mc_subgraph_t whole;
    const mc_subgraph_t *sg = mc__tflm_subgraph(g, 0, &whole);
    int32_t depth = 1, scope = 0; /* counts within MC_MAX_*: int32 */
    mark(scopes, sg->io, sg->n_inputs, scope, true);
    stack[0].sg = 0;
    stack[0].op = -1;
    stack[0].calls = NO_OP;
    while (depth > 0) {
        frame_t *f = &stack[depth - 1];
        const mc_op_t *op = f->calls != NO_OP ? &g->ops[f->op] : NULL;
        sg = mc__tflm_subgraph(g, f->sg, &whole);
        if (op != NULL && f->calls < 2) { /* the operator's next callee, if any */
            int32_t s = callee(op, f->calls++);
            if (s == -1) {
                continue;
            }
            if (s < 0 || s >= g->n_subgraphs || depth == MC_MAX_NESTING) {
                *bad = s;
                return f->op;
            }
            scope++;
            sg = mc__tflm_subgraph(g, s, &whole);
            mark(scopes, sg->io, sg->n_inputs, scope, true);
            f = &stack[depth++];
            f->sg = s;
            f->op = sg->first_op - 1;
            f->calls = NO_OP;
            continue;
        }
        if (op != NULL) { /* its callees walked: its inputs, outputs and scratch used */
            mark(scopes, g->op_tensors + op->first_input, op->n_inputs, scope, false);
            mark(scopes, g->op_tensors + op->first_output, op->n_outputs, scope, false);
            mark_op(g, scopes, f->op, scope, false);
        }
        if (++f->op < sg->first_op + sg->n_ops) { /* the next operator opens a scope */
            op = &g->ops[f->op];
            scope++;
            mark(scopes, g->op_tensors + op->first_output, op->n_outputs, scope, true);
            mark_op(g, scopes, f->op, scope, true);
            f->calls = 0;
            continue;
        }
        mark(scopes, g->subgraphs != NULL ? sg->io + sg->n_inputs : g->outputs,
             g->subgraphs != NULL ? sg->n_outputs : (int32_t)g->n_outputs, scope, true);
        depth--;
    }
    *bad = scope + 1;
    return -1;
}
