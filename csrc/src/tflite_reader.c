/*
 * The TFLite flatbuffer reader: .tflite bytes into the neutral graph (memcore.h §10).
 *
 * A flatbuffer is a tree of tables reached through 32-bit offsets; a table starts with
 * a signed offset to its vtable, which lists where each field sits (0: absent, use
 * the schema's default).  A damaged or hostile file can point anywhere, so every
 * offset is followed only after the bytes it names are known to lie inside the file,
 * every vtable entry only after it is known to lie inside its table, and every vector
 * only after its length times its element size is known to fit.  Nothing is recursive
 * and nothing is allocated: the graph's arrays are laid out in the caller's scratch.
 *
 * Bytes come either from memory or through the caller's read callback; scalars are
 * read through a small window (in the caller's scratch) so that a board reading a file
 * in chunks makes one callback per window, not one per field.
 *
 * Field numbers below are TFLite schema.fbs's (vtable slot = 4 + 2 x field).  TFLM's
 * own rules decide what counts: an operator's builtin code is the larger of its two
 * code fields (schema_utils.cc, GetBuiltinCode); a tensor's are tflite_tensor.c's.
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "graph.h"
#include "memcore.h"
#include "tflite_fields.h"
#include "tflite_schema.h"

#define SCHEMA_VERSION 3
#define BUILTIN_CUSTOM 32
#define BUILTIN_VAR_HANDLE 142
#define VAR_HANDLE_SHARED_NAME 1 /* VarHandleOptions' field */

/* OperatorCode, SubGraph and Operator fields (Tensor's: tflite_fields.h) */
enum { CODE_DEPRECATED_BUILTIN = 0, CODE_CUSTOM = 1, CODE_VERSION = 2, CODE_BUILTIN = 3 };
enum { SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OUTPUTS = 2, SUBGRAPH_OPERATORS = 3 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
       OP_INTERMEDIATES = 8 };

/* A board's check holds every tensor and operator of the model (memcore.h): they stay
 * small (the typedef fails to compile if either grows). */
typedef char graph_is_compact[sizeof(mc_tensor_t) <= 24 && sizeof(mc_op_t) <= 40 ? 1 : -1];

/* The options of every operator that has none of its own (memcore.h): the defaults. */
static const int32_t no_options[MC_OP_OPTIONS];

/* The reader's state and its window, at the end of mc_tflite_read's scratch.  Part of
 * the scratch mc_tflite_size asks for, so reader_t keeps its size: 168 B on 32-bit
 * boards, 160 B on i386, 176 B on a 64-bit host. */
#define READER_BYTES ((int64_t)((sizeof(reader_t) + 7) / 8 * 8))
#define RESERVED_BYTES (READER_BYTES + WINDOW_BYTES)

/* Where the graph's arrays go. */
typedef struct {
    mc_subgraph_t *subgraphs; /* only when the file has several */
    mc_tensor_t *tensors;
    mc_op_t *ops;
    int32_t *op_tensors;
    int32_t *values;   /* the tensors' shapes and operators' options, in file order: the
                          next free entry while they are read */
    int32_t *offsets;  /* the offline plan's, when there is one */
    int32_t *inputs;   /* each subgraph's inputs, then its outputs, subgraph after subgraph */
} arrays_t;

/* mc_graph_t's counts, n_tensors to n_subgraphs, are mc_tflite_size_t's first six in
 * the same order: mc_tflite_read copies them in one go (a store per field costs some
 * 90 B on a board).  The typedef fails to compile if either struct changes. */
#define COUNT_AT(field) (offsetof(mc_graph_t, field) - offsetof(mc_graph_t, n_tensors) == \
                         offsetof(mc_tflite_size_t, field))
#define COUNTS_BYTES (offsetof(mc_tflite_size_t, n_subgraphs) + sizeof(int64_t))
typedef char counts_in_order[COUNT_AT(n_tensors) && COUNT_AT(n_ops) && COUNT_AT(n_op_tensors) &&
                                     COUNT_AT(n_inputs) && COUNT_AT(n_outputs) && COUNT_AT(n_subgraphs)
                                 ? 1
                                 : -1];

/* Subgraph s's vectors into root_t's TENSORS .. OUTPUTS. */
static void open_subgraph(reader_t *r, uint32_t s)
{
    static const uint8_t fields[ROOT_VECTORS] = {0, 0, SUBGRAPH_TENSORS, SUBGRAPH_OPERATORS, SUBGRAPH_INPUTS,
                                                 SUBGRAPH_OUTPUTS};
    table_t subgraph;
    int32_t i;
    mc__table_element(r, &r->root.subgraphs, s, &subgraph);
    for (i = TENSORS; i < ROOT_VECTORS; i++) {
        mc__vector_field(r, &subgraph, fields[i], 4, &r->root.vectors[i]);
    }
}

static void open_root(reader_t *r)
{
    root_t *root = &r->root;
    int32_t version;
    bool short_file;
    /* too short for the identifier (at 0), or not it (at 4) */
    short_file = r->source->file_bytes < 8;
    if (short_file || mc__get_u32(r, 4, 4) != 0x334c4654u) { /* "TFL3" */
        mc__fail(r, MC_E_MODEL, MC_PROBLEM_NOT_TFLITE, short_file ? 0 : 4);
    }
    mc__table_at(r, mc__get_u32(r, 0, 4), &root->model);
    version = mc__scalar_field(r, &root->model, MODEL_VERSION, MC_FIELD_I32, 0);
    if (version != SCHEMA_VERSION) {
        mc__fail_value(r, MC_E_MODEL, MC_PROBLEM_SCHEMA_VERSION, (uint32_t)version);
    }
    mc__vector_field(r, &root->model, MODEL_OPERATOR_CODES, 4, &root->vectors[CODES]);
    mc__vector_field(r, &root->model, MODEL_BUFFERS, 4, &root->vectors[BUFFERS]);
    mc__vector_field(r, &root->model, MODEL_SUBGRAPHS, 4, &root->subgraphs);
    if (root->subgraphs.length == 0) {
        mc__fail(r, MC_E_MODEL, MC_PROBLEM_NO_SUBGRAPH, -1);
    } else if (root->subgraphs.length > MC_MAX_SUBGRAPHS) {
        mc__fail_value(r, MC_E_LIMIT, MC_PROBLEM_TOO_LARGE, root->subgraphs.length);
    }
    root->n_subgraphs = root->subgraphs.length;
}

/* An operator's three tensor lists: inputs, outputs, intermediates. */
static void op_lists(reader_t *r, const table_t *op, vector_t lists[3])
{
    static const uint8_t fields[3] = {OP_INPUTS, OP_OUTPUTS, OP_INTERMEDIATES};
    int32_t i;
    for (i = 0; i < 3; i++) {
        mc__vector_field(r, op, fields[i], 4, &lists[i]);
    }
}

/* The builtin code of operator code `index` (< the codes' count): the larger of its two
 * code fields.  Its table goes to *code. */
static int32_t code_kind(reader_t *r, uint32_t index, table_t *code)
{
    int32_t deprecated, builtin;
    mc__table_element(r, &r->root.vectors[CODES], index, code);
    deprecated = mc__scalar_field(r, code, CODE_DEPRECATED_BUILTIN, MC_FIELD_I8, 0);
    builtin = mc__scalar_field(r, code, CODE_BUILTIN, MC_FIELD_I32, 0);
    return builtin > deprecated ? builtin : deprecated;
}

/* Whether an operator keeps options of its own (memcore.h), not the shared zeros: its
 * options type is one this reader knows, or it names something in them.  A newer type's
 * fields all read as 0. */
static bool has_options(int32_t kind, int32_t options_type)
{
    return (options_type > 0 && options_type < MC_TFLITE_OPTIONS_TYPES) || kind == BUILTIN_VAR_HANDLE ||
           kind == BUILTIN_CUSTOM;
}

/* A vector of int32s the reader may leave in the file (reads_in_place) must start
 * 4-byte aligned there; an empty or absent one has nothing to read. */
static void note_alignment(reader_t *r, const vector_t *v)
{
    r->vectors_aligned &= v->length == 0 || ((uint32_t)v->data & 3u) == 0;
}

/* Adds the open subgraph's tensor list entries and int32 values (shapes, options) to
 * *out's, the shapes' also to *shape_words.  A bad opcode index counts no options:
 * read_op refuses it. */
static void count_entries(reader_t *r, mc_tflite_size_t *out, int64_t *shape_words)
{
    const vector_t *tensors = &r->root.vectors[TENSORS], *operators = &r->root.vectors[OPERATORS];
    uint32_t i, index;
    table_t table, code;
    vector_t lists[3];
    for (i = 0; i < tensors->length && r->rc == MC_OK; i++) {
        mc__table_element(r, tensors, i, &table);
        mc__vector_field(r, &table, TENSOR_SHAPE, 4, &lists[0]);
        note_alignment(r, &lists[0]);
        if (lists[0].length <= MC_MAX_DIMS) { /* (read_tensor refuses a longer shape) */
            uint32_t words = MC__SHAPE_WORDS(lists[0].length, mc__read_shape(r, &lists[0], NULL));
            out->n_values += words;
            *shape_words += words;
        }
    }
    for (i = 0; i < operators->length && r->rc == MC_OK; i++) {
        int32_t kind = 0, k;
        mc__table_element(r, operators, i, &table);
        op_lists(r, &table, lists);
        for (k = 0; k < 3; k++) {
            note_alignment(r, &lists[k]);
        }
        out->n_op_tensors += (int64_t)lists[0].length + lists[1].length + lists[2].length;
        if (out->n_op_tensors > MC_MAX_OP_TENSORS) {
            mc__fail_value(r, MC_E_LIMIT, MC_PROBLEM_TOO_LARGE, out->n_op_tensors);
        }
        index = (uint32_t)mc__scalar_field(r, &table, OP_OPCODE_INDEX, MC_FIELD_I32, 0);
        if (index < r->root.vectors[CODES].length) {
            kind = code_kind(r, index, &code);
        }
        if (has_options(kind, mc__scalar_field(r, &table, OP_OPTIONS_TYPE, MC_FIELD_U8, 0))) {
            out->n_values += MC_OP_OPTIONS;
        }
    }
}

/* Operator `out`'s options into the next MC_OP_OPTIONS values when it has its own
 * (has_options), else the shared zeros; `code` is its operator code's table. */
static void read_options(reader_t *r, const table_t *op, const table_t *code, mc_op_t *out, arrays_t *a)
{
    const uint8_t *fields = NULL;
    int32_t count, f, *values = a->values;
    int64_t at;
    table_t options;
    vector_t name;
    options.vtable_bytes = 0; /* no options table: every field reads as its default */
    out->options_type = (uint16_t)mc__scalar_field(r, op, OP_OPTIONS_TYPE, MC_FIELD_U8, 0);
    out->options = no_options;
    if (!has_options(out->kind, out->options_type)) {
        return;
    }
    out->options = values;
    a->values += MC_OP_OPTIONS;
    memset(values, 0, MC_OP_OPTIONS * sizeof *values);
    /* none, or newer than this reader's schema: defaults stay 0 */
    if (out->options_type > 0 && out->options_type < MC_TFLITE_OPTIONS_TYPES) {
        count = mc_tflite_option_fields(out->options_type, &fields);
        at = mc__ref_field(r, op, OP_OPTIONS);
        if (at >= 0) {
            mc__table_at(r, at, &options);
        }
        for (f = 0; f < count; f++) {
            int32_t kind = fields[f] & 7;
            if (kind != MC_FIELD_NOT_SCALAR) {
                values[f] = mc__scalar_field(r, &options, f, kind, fields[f] >> 3);
            }
        }
    }
    /* where a VAR_HANDLE's shared name or a CUSTOM operator's code's name is
     * (memcore.h); without one, none: -1 */
    if (out->kind == BUILTIN_VAR_HANDLE) {
        mc__vector_field(r, &options, VAR_HANDLE_SHARED_NAME, 1, &name);
    } else if (out->kind == BUILTIN_CUSTOM) {
        mc__vector_field(r, code, CODE_CUSTOM, 1, &name);
    } else {
        return;
    }
    values[1] = mc__offset32(name.data);
    values[2] = mc__clamp_length(name.length);
}

/* Each VAR_HANDLE's resource variable: the first VAR_HANDLE with the same shared name
 * (options[0]), compared byte by byte in the file (an absent name is the empty one). */
static void name_variables(reader_t *r, mc_op_t *ops, int32_t n_ops)
{
    int32_t k, j, c;
    for (k = 0; k < n_ops; k++) {
        /* (a VAR_HANDLE's options are its own, in the reader's scratch) */
        int32_t *name = (int32_t *)ops[k].options;
        for (j = 0; j <= k && ops[k].kind == BUILTIN_VAR_HANDLE; j++) {
            const int32_t *other = ops[j].options;
            if (ops[j].kind != BUILTIN_VAR_HANDLE || other[2] != name[2] || (j < k && other[0] != j)) {
                continue;
            }
            for (c = 0; c < name[2] && mc__get_u32(r, (int64_t)other[1] + c, 1) == mc__get_u32(r, (int64_t)name[1] + c, 1);
                 c++) {
            }
            if (c == name[2]) { /* itself, at j = k, when no earlier one matches */
                name[0] = j;
                break;
            }
        }
    }
}

/* The open subgraph's tensor indices [from, to) as the graph's: an index of another
 * subgraph's tensor, or none, becomes one that mc_graph_structure refuses (-2), an
 * absent optional input stays -1.  A file of one subgraph keeps its indices as they
 * are, so a bad one is named as the file has it.  Returns `to`. */
static int32_t *rebase(const reader_t *r, int32_t *from, int32_t *to)
{
    int32_t n = (int32_t)r->root.vectors[TENSORS].length;
    for (; from < to && r->root.n_subgraphs > 1; from++) {
        *from = *from >= 0 && *from < n ? *from + r->root.first_tensor : *from == -1 ? -1 : -2;
    }
    return to;
}

/* Operator k into *out, its tensor lists copied to op_tensors from next on, or found
 * in place (reads_in_place); returns where the next operator's go. */
OUT_OF_LINE static int32_t *read_op(reader_t *r, int32_t k, mc_op_t *out, arrays_t *a, int32_t *next)
{
    const vector_t *codes = &r->root.vectors[CODES];
    table_t op, code;
    vector_t lists[3];
    int32_t index, l;
    int32_t *firsts[3];

    mc__table_element(r, &r->root.vectors[OPERATORS], (uint32_t)(k - r->root.first_op), &op);
    memset(out, 0, sizeof *out);
    index = mc__scalar_field(r, &op, OP_OPCODE_INDEX, MC_FIELD_I32, 0);
    if ((uint32_t)index >= codes->length) {
        if (r->rc == MC_OK) {
            r->problem->op = k;
            r->problem->value = (uint32_t)index;
        }
        mc__fail(r, MC_E_MODEL, MC_PROBLEM_BAD_OPCODE, op.at);
    }
    out->kind = code_kind(r, (uint32_t)index, &code);
    out->version = mc__saturate16(mc__scalar_field(r, &code, CODE_VERSION, MC_FIELD_I32, 1));
    read_options(r, &op, &code, out, a);
    op_lists(r, &op, lists);
    out->n_inputs = (int32_t)lists[0].length;
    out->n_outputs = (int32_t)lists[1].length;
    out->n_intermediates = (int32_t)lists[2].length;
    firsts[0] = &out->first_input;
    firsts[1] = &out->first_output;
    firsts[2] = &out->first_intermediate;
    for (l = 0; l < 3; l++) {
        if (r->in_place) { /* an aligned offset within the file (< 2 GB) */
            *firsts[l] = lists[l].length != 0 ? (int32_t)((uint32_t)lists[l].data / 4) : 0;
            continue;
        }
        *firsts[l] = (int32_t)(next - a->op_tensors); /* within MC_MAX_OP_TENSORS (count_entries) */
        next = rebase(r, next, mc__copy_ints(r, &lists[l], next));
    }
    return next;
}

/* The reader's state for source; problems go to *problem, or to *sink when it is NULL. */
OUT_OF_LINE static void start(reader_t *r, const mc_source_t *source, uint8_t *window, mc_problem_t *problem,
                              mc_problem_t *sink)
{
    if (problem == NULL) {
        problem = sink;
    }
    r->source = source;
    r->problem = problem;
    r->window = window;
    r->window_at = EMPTY_WINDOW;
    r->rc = MC_OK;
    problem->kind = MC_PROBLEM_NONE;
    problem->op = problem->tensor = problem->other = problem->value = problem->at = -1;
}

static mc_status_t check_source(const mc_source_t *source)
{
    if (source == NULL || (source->read == NULL && source->data == NULL && source->file_bytes > 0)) {
        return MC_E_NULL;
    }
    return source->file_bytes < 0 ? MC_E_NEGATIVE : MC_OK;
}

/* Whether the file's int32 values read as this machine's own (a flatbuffer is
 * little-endian). */
static bool little_endian(void)
{
    union {
        uint32_t word;
        uint8_t first;
    } one;
    one.word = 1;
    return one.first == 1;
}

/*
 * The operand lists and shapes are read in place, as TFLM reads them, when the file is
 * in memory (a board's memory-mapped flash, a host's buffer) at a 4-byte-aligned
 * address, has one subgraph (several have their indices rebased into the graph's) and
 * every list and shape is aligned (MC_GRAPH_MAPPABLE): op_tensors is then the file
 * itself, an operator's first_input its list's offset in int32 words, and a tensor's
 * dims its shape in the file.  A list entry or a dimension costs the check nothing
 * then, as it costs TFLM nothing; otherwise each is copied (4 B an entry, a byte or two
 * a dimension where they are small).
 */
static bool reads_in_place(const reader_t *r)
{
    return r->vectors_aligned && r->root.n_subgraphs == 1 && r->source->read == NULL &&
           ((uintptr_t)r->source->data & 3u) == 0 && r->source->file_bytes <= INT32_MAX && little_endian();
}

/* Bytes of scratch for the counted arrays, in their layout order, and the reader's
 * state.  Within the limits open_root and count_entries check (tensors and operators
 * 1,000,000 each, 16,000,000 list entries, so at most 16,000,000 shape and option
 * values) the arrays of 8-byte members and the int32 ones take under 2^32 bytes; graph
 * inputs and outputs are 32-bit counts: nothing overflows.  n_ints: the lists' entries
 * and the values. */
static int64_t layout_bytes(uint32_t n_tensors, uint32_t n_ops, uint32_t n_ints, uint32_t n_subgraphs,
                            int64_t n_io, bool plan)
{
    /* (with an offline plan, an offset per tensor among the int32 arrays) */
    uint32_t fixed = n_tensors * (uint32_t)(sizeof(mc_tensor_t) + (plan ? sizeof(int32_t) : 0)) +
                     n_ops * (uint32_t)sizeof(mc_op_t) + n_ints * (uint32_t)sizeof(int32_t) +
                     (n_subgraphs > 1 ? n_subgraphs * (uint32_t)sizeof(mc_subgraph_t) : 0u);
    int64_t total = fixed + n_io * (int64_t)sizeof(int32_t);
    return ((total + 7) & ~(int64_t)7) + RESERVED_BYTES; /* the reader's state is 8-byte aligned */
}

/* Every subgraph's counts added up (the limits hold for the sums); the graph's inputs
 * and outputs are the first subgraph's.  *values: the int32 values the graph keeps
 * (the shapes' not, read in place). */
OUT_OF_LINE static mc_status_t size_of(reader_t *r, mc_tflite_size_t *out, int64_t *values)
{
    const root_t *root = &r->root;
    int64_t shapes = 0; /* their words */
    uint32_t s;
    memset(out, 0, sizeof *out);
    open_root(r);
    r->vectors_aligned = true;
    out->n_subgraphs = root->n_subgraphs;
    for (s = 0; s < (uint32_t)root->n_subgraphs && r->rc == MC_OK; s++) {
        int64_t too_many;
        open_subgraph(r, s);
        out->n_tensors += root->vectors[TENSORS].length;
        out->n_ops += root->vectors[OPERATORS].length;
        out->n_io += (int64_t)root->vectors[INPUTS].length + root->vectors[OUTPUTS].length;
        if (s == 0) {
            out->n_inputs = root->vectors[INPUTS].length;
            out->n_outputs = root->vectors[OUTPUTS].length;
        }
        too_many = out->n_tensors > MC_MAX_TENSORS ? out->n_tensors : out->n_ops > MC_MAX_OPS ? out->n_ops : 0;
        if (too_many != 0) {
            mc__fail_value(r, MC_E_LIMIT, MC_PROBLEM_TOO_LARGE, too_many);
        }
        count_entries(r, out, &shapes);
    }
    mc__find_offline_plan(r, out->n_tensors);
    r->in_place = reads_in_place(r);
    *values = out->n_values - (r->in_place ? shapes : 0);
    out->scratch_bytes = layout_bytes((uint32_t)out->n_tensors, (uint32_t)out->n_ops,
                                      (uint32_t)((r->in_place ? 0 : out->n_op_tensors) + *values),
                                      (uint32_t)out->n_subgraphs, out->n_io, root->plan_at >= 0);
    return r->rc;
}
mc_status_t mc_tflite_size(const mc_source_t *source, mc_tflite_size_t *out, mc_problem_t *problem)
{
    reader_t r;
    mc_tflite_size_t n;
    mc_problem_t sink;
    int64_t values;
    uint8_t window[WINDOW_BYTES];
    MC_TRY(check_source(source));
    if (out == NULL) {
        return MC_E_NULL;
    }
    start(&r, source, window, problem, &sink);
    MC_TRY(size_of(&r, &n, &values));
    *out = n;
    return MC_OK;
}

/* The words the reader keeps tensor t's shape in, at the width its dims need
 * (mc__read_shape), whatever width t holds them at. */
static uint32_t shape_words(const mc_tensor_t *t)
{
    uint32_t bits = 0;
    int32_t d;
    for (d = 0; d < t->rank; d++) {
        bits |= (uint32_t)mc_tensor_dim(t, d);
    }
    return MC__SHAPE_WORDS(t->rank, MC__DIM_WIDTH(bits));
}

/* (graph.h) The counts are within the limits layout_bytes assumes once
 * mc_graph_structure has passed g. */
int64_t mc__tflite_read_bytes(const mc_graph_t *g, bool in_place)
{
    int64_t n_io = g->n_inputs + g->n_outputs, n_ints = in_place ? 0 : g->n_op_tensors;
    int32_t i, n_subgraphs = g->subgraphs != NULL ? (int32_t)g->n_subgraphs : 1;
    for (i = 1; i < n_subgraphs; i++) {
        n_io += (int64_t)g->subgraphs[i].n_inputs + g->subgraphs[i].n_outputs;
    }
    for (i = 0; i < (int32_t)g->n_tensors && !in_place; i++) {
        n_ints += shape_words(&g->tensors[i]);
    }
    for (i = 0; i < (int32_t)g->n_ops; i++) {
        n_ints += has_options(g->ops[i].kind, g->ops[i].options_type) ? MC_OP_OPTIONS : 0;
    }
    return layout_bytes((uint32_t)g->n_tensors, (uint32_t)g->n_ops, (uint32_t)n_ints, (uint32_t)n_subgraphs, n_io,
                        g->offline_offsets != NULL);
}

mc_status_t mc_tflite_read(const mc_source_t *source, void *scratch, int64_t scratch_bytes,
                           mc_graph_t *graph, mc_problem_t *problem)
{
    reader_t *r;
    mc_tflite_size_t n;
    mc_problem_t sink;
    arrays_t a;
    int64_t values;
    int32_t i, s, *next, *io;
    bool plan;

    MC_TRY(check_source(source));
    if (graph == NULL || (scratch == NULL && scratch_bytes > 0)) {
        return MC_E_NULL;
    }
    if (scratch_bytes < RESERVED_BYTES || ((uintptr_t)scratch & 7u) != 0) {
        return MC_E_SCRATCH;
    }
    /* The reader's state and window sit at the start of the scratch while the file is
     * sized, and after the graph's arrays once their size is known: a board's stack
     * only carries pointers. */
    r = (reader_t *)scratch;
    start(r, source, (uint8_t *)scratch + READER_BYTES, problem, &sink);
    MC_TRY(size_of(r, &n, &values));
    if (scratch_bytes < n.scratch_bytes) {
        return MC_E_SCRATCH;
    }
    r = (reader_t *)memmove((uint8_t *)scratch + (n.scratch_bytes - RESERVED_BYTES), r, sizeof *r);
    r->window = (uint8_t *)r + READER_BYTES;
    r->window_at = EMPTY_WINDOW;
    /* 8-byte members first, then the int32 arrays, then the reader.  The counts are
     * within MC_MAX_* (tensors, operators, subgraphs) or 32-bit (the lists) by now. */
    a.subgraphs = (mc_subgraph_t *)scratch;
    a.tensors = (mc_tensor_t *)(a.subgraphs + (n.n_subgraphs > 1 ? n.n_subgraphs : 0));
    a.ops = (mc_op_t *)(a.tensors + n.n_tensors);
    a.op_tensors = (int32_t *)(a.ops + n.n_ops);
    plan = r->root.plan_at >= 0;
    a.values = a.op_tensors + (r->in_place ? 0 : n.n_op_tensors);
    a.offsets = a.values + values;
    a.inputs = a.offsets + (plan ? n.n_tensors : 0);

    next = a.op_tensors;
    io = a.inputs;
    r->root.first_tensor = r->root.first_op = 0;
    for (s = 0; s < (int32_t)n.n_subgraphs && r->rc == MC_OK; s++) {
        root_t *root = &r->root;
        int32_t n_tensors, n_ops;
        open_subgraph(r, (uint32_t)s);
        n_tensors = (int32_t)root->vectors[TENSORS].length; /* the sums are within MC_MAX_* */
        n_ops = (int32_t)root->vectors[OPERATORS].length;
        for (i = root->first_tensor; i < root->first_tensor + n_tensors && r->rc == MC_OK; i++) {
            mc__read_tensor(r, i, &a.tensors[i], &a.values);
        }
        for (i = root->first_op; i < root->first_op + n_ops && r->rc == MC_OK; i++) {
            next = read_op(r, i, &a.ops[i], &a, next);
        }
        if (n.n_subgraphs > 1) {
            mc_subgraph_t *sg = &a.subgraphs[s];
            sg->io = io;
            sg->first_tensor = root->first_tensor;
            sg->n_tensors = n_tensors;
            sg->first_op = root->first_op;
            sg->n_ops = n_ops;
            sg->n_inputs = (int32_t)root->vectors[INPUTS].length; /* within the io count */
            sg->n_outputs = (int32_t)root->vectors[OUTPUTS].length;
            sg->reserved = 0;
        }
        io = rebase(r, io, mc__copy_ints(r, &root->vectors[INPUTS], io));
        io = rebase(r, io, mc__copy_ints(r, &root->vectors[OUTPUTS], io)); /* the outputs follow the inputs */
        root->first_tensor += n_tensors;
        root->first_op += n_ops;
    }
    if (r->rc == MC_OK) { /* every operator read: past a failure they are not */
        name_variables(r, a.ops, (int32_t)n.n_ops);
    }
    if (plan) { /* an offset per tensor of every subgraph, in the graph's order */
        vector_t offsets;
        offsets.data = r->root.plan_at;
        offsets.length = (uint32_t)n.n_tensors;
        mc__copy_ints(r, &offsets, a.offsets);
    }
    MC_TRY(r->rc);

    graph->tensors = a.tensors;
    graph->ops = a.ops;
    graph->op_tensors = r->in_place ? (const int32_t *)(const void *)source->data : a.op_tensors;
    graph->inputs = a.inputs;
    graph->outputs = a.inputs + n.n_inputs;
    memcpy(&graph->n_tensors, &n, COUNTS_BYTES);
    graph->flags = (plan ? MC_GRAPH_OFFLINE_PLAN : 0u) |
                   (r->vectors_aligned && n.n_subgraphs == 1 ? MC_GRAPH_MAPPABLE : 0u) |
                   (r->in_place ? MC_GRAPH_IN_FILE : 0u);
    graph->offline_offsets = plan ? a.offsets : NULL;
    graph->subgraphs = n.n_subgraphs > 1 ? a.subgraphs : NULL;
    return MC_OK;
}
