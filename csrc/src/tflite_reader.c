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
 * own rules decide what counts: a tensor is constant when its buffer's data vector is
 * not empty (micro_allocator.cc, GetFlatbufferTensorBuffer); an operator's builtin code
 * is the larger of its two code fields (schema_utils.cc, GetBuiltinCode).
 */
#include <stddef.h>
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "tflite_schema.h"

#define WINDOW_BYTES 64
#define SCHEMA_VERSION 3
#define BUILTIN_CUSTOM 32

/* Model fields */
enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_SUBGRAPHS = 2, MODEL_BUFFERS = 4,
       MODEL_METADATA = 6 };
enum { CODE_DEPRECATED_BUILTIN = 0, CODE_CUSTOM = 1, CODE_VERSION = 2, CODE_BUILTIN = 3 };
enum { SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OUTPUTS = 2, SUBGRAPH_OPERATORS = 3 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
       TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5, TENSOR_SPARSITY = 6,
       TENSOR_EXTERNAL_BUFFER = 10 };
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DIMENSION = 6 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
       OP_INTERMEDIATES = 8 };
enum { METADATA_NAME = 0 };

static const char OFFLINE_PLAN[] = "OfflineMemoryAllocation";

/* The reader's state and its window, at the end of mc_tflite_read's scratch. */
#define READER_BYTES ((int64_t)((sizeof(reader_t) + 7) / 8 * 8))
#define RESERVED_BYTES (READER_BYTES + WINDOW_BYTES)

/* The per-tensor and per-operator readers hold several tables and vectors each; inlined
 * into the public function (as compilers do with functions called once) their locals
 * add up in one frame.  Kept out of line, only one of them is on the stack at a time,
 * which keeps the reader under the core's 1 KB stack budget on a board. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

typedef struct {
    int64_t at;        /* the table's position */
    int64_t vtable;    /* its vtable's position */
    int32_t vtable_bytes;
    int32_t object_bytes;
} table_t;

typedef struct {
    int64_t length;
    int64_t data;      /* position of element 0; -1 when the vector is absent */
} vector_t;

/* The root table and the pieces every pass needs. */
typedef struct {
    table_t model;
    vector_t codes, buffers, tensors, operators, inputs, outputs;
    int64_t n_subgraphs;
} root_t;

/* All the reader's state, in one frame of the public function: the stack stays small
 * on a board however deep the helpers call. */
typedef struct {
    const mc_source_t *source;
    mc_problem_t *problem;
    uint8_t *window;   /* WINDOW_BYTES: on the stack while sizing, in the scratch while reading */
    int64_t window_at; /* file offset of window[0]; -1 when empty */
    int32_t window_bytes;
    root_t root;
} reader_t;

/* Where the graph's arrays go; all NULL while counting. */
typedef struct {
    mc_tensor_t *tensors;
    mc_op_t *ops;
    int32_t *op_tensors;
    int32_t *inputs;
    int32_t *outputs;
} arrays_t;

static mc_status_t fail(reader_t *r, mc_status_t rc, int32_t kind, int64_t at)
{
    if (r->problem != NULL) {
        r->problem->kind = kind;
        r->problem->at = at;
    }
    return rc;
}

static mc_status_t past_end(reader_t *r, int64_t at)
{
    return fail(r, MC_E_MODEL, MC_PROBLEM_PAST_END, at);
}

/* n (<= 8) bytes at `at`, checked against the file's size. */
static mc_status_t get(reader_t *r, int64_t at, int32_t n, uint8_t *out)
{
    const mc_source_t *s = r->source;
    if (at < 0 || at > s->file_bytes - n) {
        return past_end(r, at);
    }
    if (s->read == NULL) {
        memcpy(out, s->data + at, (size_t)n);
        return MC_OK;
    }
    if (r->window_at < 0 || at < r->window_at || at + n > r->window_at + r->window_bytes) {
        int64_t left = s->file_bytes - at;
        int32_t want = left < WINDOW_BYTES ? (int32_t)left : WINDOW_BYTES;
        r->window_at = -1;
        if (s->read(s->context, at, r->window, want) != MC_OK) {
            return fail(r, MC_E_READ, MC_PROBLEM_NONE, at);
        }
        r->window_at = at;
        r->window_bytes = want;
    }
    memcpy(out, r->window + (at - r->window_at), (size_t)n);
    return MC_OK;
}

/* Little-endian unsigned integer of n bytes. */
static mc_status_t get_uint(reader_t *r, int64_t at, int32_t n, uint64_t *value)
{
    uint8_t b[8];
    int32_t i;
    MC_TRY(get(r, at, n, b));
    *value = 0;
    for (i = n - 1; i >= 0; i--) {
        *value = (*value << 8) | b[i];
    }
    return MC_OK;
}

static mc_status_t get_u32(reader_t *r, int64_t at, int64_t *value)
{
    uint64_t v = 0;
    MC_TRY(get_uint(r, at, 4, &v));
    *value = (int64_t)v;
    return MC_OK;
}

/* The scalar of `kind` (MC_FIELD_*) at `at`, sign-extended, as int32 (int64 fields keep
 * their low 32 bits, floats their bits). */
static mc_status_t get_scalar(reader_t *r, int64_t at, int32_t kind, int32_t *value)
{
    static const uint8_t widths[8] = {0, 1, 1, 2, 2, 4, 4, 8};
    uint64_t v = 0;
    MC_TRY(get_uint(r, at, widths[kind], &v));
    switch (kind) {
    case MC_FIELD_I8:
        *value = (int32_t)(int8_t)(uint8_t)v;
        break;
    case MC_FIELD_I16:
        *value = (int32_t)(int16_t)(uint16_t)v;
        break;
    case MC_FIELD_U8:
    case MC_FIELD_U16:
        *value = (int32_t)v;
        break;
    default: /* 32 bits, or the low 32 of 64 */
        v &= 0xffffffffu;
        *value = v > (uint64_t)INT32_MAX ? (int32_t)((int64_t)v - INT64_C(0x100000000)) : (int32_t)v;
        break;
    }
    return MC_OK;
}

static mc_status_t table_at(reader_t *r, int64_t at, table_t *t)
{
    uint64_t soffset = 0, vbytes = 0, obytes = 0;
    int64_t delta;
    MC_TRY(get_uint(r, at, 4, &soffset));
    /* vtable = table - soffset, soffset signed 32-bit */
    delta = soffset > (uint64_t)INT32_MAX ? (int64_t)soffset - INT64_C(0x100000000) : (int64_t)soffset;
    t->at = at;
    t->vtable = at - delta;
    MC_TRY(get_uint(r, t->vtable, 2, &vbytes));
    MC_TRY(get_uint(r, t->vtable + 2, 2, &obytes));
    if (vbytes < 4 || (vbytes & 1u) != 0 || obytes < 4) {
        return fail(r, MC_E_MODEL, MC_PROBLEM_BAD_TABLE, at);
    }
    if (t->vtable > r->source->file_bytes - (int64_t)vbytes || at > r->source->file_bytes - (int64_t)obytes) {
        return past_end(r, at);
    }
    t->vtable_bytes = (int32_t)vbytes;
    t->object_bytes = (int32_t)obytes;
    return MC_OK;
}

/* Position of field `field` (width bytes) of table t, or -1 when the file omits it. */
static mc_status_t field_at(reader_t *r, const table_t *t, int32_t field, int32_t width, int64_t *at)
{
    uint64_t offset = 0;
    int32_t entry = 4 + 2 * field;
    *at = -1;
    if (entry + 2 > t->vtable_bytes) {
        return MC_OK;
    }
    MC_TRY(get_uint(r, t->vtable + entry, 2, &offset));
    if (offset == 0) {
        return MC_OK;
    }
    if ((int64_t)offset + width > t->object_bytes) {
        return fail(r, MC_E_MODEL, MC_PROBLEM_BAD_TABLE, t->at);
    }
    *at = t->at + (int64_t)offset;
    return MC_OK;
}

static mc_status_t scalar_field(reader_t *r, const table_t *t, int32_t field, int32_t kind,
                                int32_t fallback, int32_t *value)
{
    static const uint8_t widths[8] = {0, 1, 1, 2, 2, 4, 4, 8};
    int64_t at = -1;
    MC_TRY(field_at(r, t, field, widths[kind], &at));
    if (at < 0) {
        *value = fallback;
        return MC_OK;
    }
    return get_scalar(r, at, kind, value);
}

/* Unsigned 64-bit field (buffer offsets and sizes); 0 when absent. */
static mc_status_t u64_field(reader_t *r, const table_t *t, int32_t field, uint64_t *value)
{
    int64_t at = -1;
    MC_TRY(field_at(r, t, field, 8, &at));
    *value = 0;
    return at < 0 ? MC_OK : get_uint(r, at, 8, value);
}

/* Follows an offset field: the position it points to, or -1 when absent. */
static mc_status_t ref_field(reader_t *r, const table_t *t, int32_t field, int64_t *target)
{
    int64_t at = -1, offset = 0;
    MC_TRY(field_at(r, t, field, 4, &at));
    *target = -1;
    if (at < 0) {
        return MC_OK;
    }
    MC_TRY(get_u32(r, at, &offset));
    if (offset > r->source->file_bytes - at) {
        return past_end(r, at);
    }
    *target = at + offset;
    return MC_OK;
}

static mc_status_t vector_at(reader_t *r, int64_t at, int64_t element_bytes, vector_t *v)
{
    int64_t length = 0;
    v->length = 0;
    v->data = -1;
    if (at < 0) {
        return MC_OK;
    }
    MC_TRY(get_u32(r, at, &length));
    if (length > (r->source->file_bytes - at - 4) / element_bytes) {
        return past_end(r, at);
    }
    v->length = length;
    v->data = at + 4;
    return MC_OK;
}

static mc_status_t vector_field(reader_t *r, const table_t *t, int32_t field, int64_t element_bytes,
                                vector_t *v)
{
    int64_t at = -1;
    MC_TRY(ref_field(r, t, field, &at));
    return vector_at(r, at, element_bytes, v);
}

/* Element i of a vector of tables. */
static mc_status_t table_element(reader_t *r, const vector_t *v, int64_t i, table_t *t)
{
    int64_t at = v->data + 4 * i, offset = 0;
    MC_TRY(get_u32(r, at, &offset));
    if (offset > r->source->file_bytes - at) {
        return past_end(r, at);
    }
    return table_at(r, at + offset, t);
}

static mc_status_t int_element(reader_t *r, const vector_t *v, int64_t i, int32_t *value)
{
    return get_scalar(r, v->data + 4 * i, MC_FIELD_I32, value);
}

static mc_status_t open_root(reader_t *r)
{
    root_t *root = &r->root;
    int64_t at = 0;
    int32_t version = 0;
    uint8_t id[4];
    vector_t subgraphs;
    table_t subgraph;
    if (r->source->file_bytes < 8) {
        return fail(r, MC_E_MODEL, MC_PROBLEM_NOT_TFLITE, 0);
    }
    MC_TRY(get(r, 4, 4, id));
    if (memcmp(id, "TFL3", 4) != 0) {
        return fail(r, MC_E_MODEL, MC_PROBLEM_NOT_TFLITE, 4);
    }
    MC_TRY(get_u32(r, 0, &at));
    MC_TRY(table_at(r, at, &root->model));
    MC_TRY(scalar_field(r, &root->model, MODEL_VERSION, MC_FIELD_I32, 0, &version));
    if (version != SCHEMA_VERSION) {
        if (r->problem != NULL) {
            r->problem->value = (uint32_t)version;
        }
        return fail(r, MC_E_MODEL, MC_PROBLEM_SCHEMA_VERSION, -1);
    }
    MC_TRY(vector_field(r, &root->model, MODEL_SUBGRAPHS, 4, &subgraphs));
    if (subgraphs.length == 0) {
        return fail(r, MC_E_MODEL, MC_PROBLEM_NO_SUBGRAPH, -1);
    }
    root->n_subgraphs = subgraphs.length;
    MC_TRY(table_element(r, &subgraphs, 0, &subgraph));
    MC_TRY(vector_field(r, &root->model, MODEL_OPERATOR_CODES, 4, &root->codes));
    MC_TRY(vector_field(r, &root->model, MODEL_BUFFERS, 4, &root->buffers));
    MC_TRY(vector_field(r, &subgraph, SUBGRAPH_TENSORS, 4, &root->tensors));
    MC_TRY(vector_field(r, &subgraph, SUBGRAPH_OPERATORS, 4, &root->operators));
    MC_TRY(vector_field(r, &subgraph, SUBGRAPH_INPUTS, 4, &root->inputs));
    MC_TRY(vector_field(r, &subgraph, SUBGRAPH_OUTPUTS, 4, &root->outputs));
    if (root->tensors.length > MC_MAX_TENSORS || root->operators.length > MC_MAX_OPS) {
        if (r->problem != NULL) {
            r->problem->value = root->tensors.length > MC_MAX_TENSORS ? root->tensors.length
                                                                       : root->operators.length;
        }
        return fail(r, MC_E_LIMIT, MC_PROBLEM_TOO_LARGE, -1);
    }
    return MC_OK;
}

/* An operator's three tensor lists. */
static mc_status_t op_lists(reader_t *r, const table_t *op, vector_t *in, vector_t *out, vector_t *mid)
{
    MC_TRY(vector_field(r, op, OP_INPUTS, 4, in));
    MC_TRY(vector_field(r, op, OP_OUTPUTS, 4, out));
    return vector_field(r, op, OP_INTERMEDIATES, 4, mid);
}

/* Total length of every operator's tensor lists. */
static mc_status_t count_op_tensors(reader_t *r, int64_t *total)
{
    const root_t *root = &r->root;
    int64_t k;
    *total = 0;
    for (k = 0; k < root->operators.length; k++) {
        table_t op;
        vector_t in, out, mid;
        MC_TRY(table_element(r, &root->operators, k, &op));
        MC_TRY(op_lists(r, &op, &in, &out, &mid));
        *total += in.length + out.length + mid.length;
        if (*total > MC_MAX_OP_TENSORS) {
            if (r->problem != NULL) {
                r->problem->value = *total;
            }
            return fail(r, MC_E_LIMIT, MC_PROBLEM_TOO_LARGE, -1);
        }
    }
    return MC_OK;
}

/* TFLM's element count x element size, or -1 when the shape or type cannot give one
 * (mc_graph_validate names the reason). */
static int64_t tensor_bytes(const mc_tensor_t *t)
{
    int64_t bytes = mc_dtype_bytes(t->dtype);
    int32_t d;
    if (bytes == 0) {
        return -1;
    }
    for (d = 0; d < t->rank; d++) {
        if (t->dims[d] < 0 || mc_checked_mul(bytes, t->dims[d], &bytes) != MC_OK) {
            return -1;
        }
    }
    return bytes;
}

static mc_status_t tensor_problem(reader_t *r, mc_status_t rc, int32_t kind, int64_t tensor, int64_t value)
{
    if (r->problem != NULL) {
        r->problem->tensor = tensor;
        r->problem->value = value;
    }
    return fail(r, rc, kind, -1);
}

/* Whether tensor i has data in the file, checking its buffer. */
OUT_OF_LINE static mc_status_t tensor_buffer(reader_t *r, const table_t *t, int64_t i, bool *constant)
{
    const root_t *root = &r->root;
    int32_t index = 0;
    int64_t buffer_index;
    uint64_t offset = 0, size = 0;
    table_t buffer;
    vector_t data;
    mc_status_t rc;

    *constant = false;
    MC_TRY(scalar_field(r, t, TENSOR_BUFFER, MC_FIELD_I32, 0, &index));
    buffer_index = (uint32_t)index;
    if (buffer_index >= root->buffers.length) {
        /* Buffer 0 is the schema's "no data" sentinel, even when the vector is absent. */
        return buffer_index == 0 ? MC_OK
                                 : tensor_problem(r, MC_E_MODEL, MC_PROBLEM_BAD_BUFFER, i, buffer_index);
    }
    MC_TRY(table_element(r, &root->buffers, buffer_index, &buffer));
    rc = vector_field(r, &buffer, BUFFER_DATA, 1, &data);
    if (rc == MC_E_MODEL && r->problem != NULL && r->problem->kind == MC_PROBLEM_PAST_END) {
        return tensor_problem(r, MC_E_MODEL, MC_PROBLEM_BUFFER_PAST_END, i, buffer_index);
    }
    MC_TRY(rc);
    MC_TRY(u64_field(r, &buffer, BUFFER_OFFSET, &offset));
    MC_TRY(u64_field(r, &buffer, BUFFER_SIZE, &size));
    if (offset > 1) {
        /* Data appended after the flatbuffer (files over 2 GB): TFLite reads it, TFLM
         * does not, so the tensor would be planned as an activation. */
        if (offset > (uint64_t)r->source->file_bytes || size > (uint64_t)r->source->file_bytes - offset) {
            return tensor_problem(r, MC_E_MODEL, MC_PROBLEM_BUFFER_PAST_END, i, buffer_index);
        }
        return tensor_problem(r, MC_E_UNSUPPORTED, MC_PROBLEM_EXTERNAL_DATA, i, buffer_index);
    }
    *constant = data.length > 0;
    return MC_OK;
}

OUT_OF_LINE static mc_status_t read_quantization(reader_t *r, int64_t at, mc_tensor_t *out)
{
    table_t q;
    vector_t scale, zero_point;
    int32_t dimension = 0;
    MC_TRY(table_at(r, at, &q));
    MC_TRY(vector_field(r, &q, QUANT_SCALE, 4, &scale));
    MC_TRY(vector_field(r, &q, QUANT_ZERO_POINT, 8, &zero_point));
    MC_TRY(scalar_field(r, &q, QUANT_DIMENSION, MC_FIELD_I32, 0, &dimension));
    out->quant_channels = (int32_t)(scale.length > INT32_MAX ? INT32_MAX : scale.length);
    out->quant_dimension = dimension;
    if (zero_point.length > 0) {
        out->flags |= MC_TENSOR_ZERO_POINT;
    }
    return MC_OK;
}

OUT_OF_LINE static mc_status_t read_tensor(reader_t *r, int64_t i, mc_tensor_t *out)
{
    const root_t *root = &r->root;
    table_t t;
    vector_t shape, name;
    int64_t quant = -1, sparsity = -1, d;
    int32_t dtype = 0, variable = 0, external = 0;
    bool constant = false;

    MC_TRY(table_element(r, &root->tensors, i, &t));
    MC_TRY(vector_field(r, &t, TENSOR_SHAPE, 4, &shape));
    if (shape.length > MC_MAX_DIMS) {
        return tensor_problem(r, MC_E_GRAPH, MC_PROBLEM_BAD_RANK, i, shape.length);
    }
    memset(out, 0, sizeof *out);
    out->rank = (int32_t)shape.length;
    for (d = 0; d < shape.length; d++) {
        MC_TRY(int_element(r, &shape, d, &out->dims[d]));
    }
    MC_TRY(scalar_field(r, &t, TENSOR_TYPE, MC_FIELD_I8, 0, &dtype));
    out->dtype = dtype;
    MC_TRY(tensor_buffer(r, &t, i, &constant));
    MC_TRY(vector_field(r, &t, TENSOR_NAME, 1, &name));
    out->name_offset = name.data;
    out->name_bytes = (int32_t)(name.length > INT32_MAX ? INT32_MAX : name.length);
    MC_TRY(ref_field(r, &t, TENSOR_QUANTIZATION, &quant));
    if (quant >= 0) {
        MC_TRY(read_quantization(r, quant, out));
    }
    MC_TRY(scalar_field(r, &t, TENSOR_IS_VARIABLE, MC_FIELD_U8, 0, &variable));
    MC_TRY(ref_field(r, &t, TENSOR_SPARSITY, &sparsity));
    if (sparsity >= 0) {
        return tensor_problem(r, MC_E_UNSUPPORTED, MC_PROBLEM_SPARSE, i, -1);
    }
    MC_TRY(scalar_field(r, &t, TENSOR_EXTERNAL_BUFFER, MC_FIELD_I32, 0, &external));
    if (external != 0) {
        return tensor_problem(r, MC_E_UNSUPPORTED, MC_PROBLEM_EXTERNAL_DATA, i, (uint32_t)external);
    }
    out->flags |= (constant ? MC_TENSOR_CONSTANT : 0u) | (variable ? MC_TENSOR_VARIABLE : 0u);
    out->bytes = tensor_bytes(out);
    return MC_OK;
}

/* Copies a vector of tensor indices into op_tensors at *next. */
static mc_status_t copy_indices(reader_t *r, const vector_t *v, int32_t *op_tensors, int64_t *next)
{
    int64_t i;
    for (i = 0; i < v->length; i++) {
        MC_TRY(int_element(r, v, i, &op_tensors[(*next)++]));
    }
    return MC_OK;
}

OUT_OF_LINE static mc_status_t read_options(reader_t *r, const table_t *op, mc_op_t *out)
{
    int32_t type = 0, f;
    int64_t at = -1;
    table_t options;
    MC_TRY(scalar_field(r, op, OP_OPTIONS_TYPE, MC_FIELD_U8, 0, &type));
    out->options_type = type;
    if (type <= 0 || type >= MC_TFLITE_OPTIONS_TYPES) {
        return MC_OK; /* none, or newer than this reader's schema: defaults stay 0 */
    }
    {
        const uint8_t *fields = NULL;
        int32_t count = mc_tflite_option_fields(type, &fields);
        MC_TRY(ref_field(r, op, OP_OPTIONS, &at));
        if (at >= 0) {
            MC_TRY(table_at(r, at, &options));
        }
        for (f = 0; f < count; f++) {
            int32_t kind = fields[f] & 7, fallback = fields[f] >> 3;
            if (kind == MC_FIELD_NOT_SCALAR) {
                continue;
            }
            if (at < 0) {
                out->options[f] = fallback;
            } else {
                MC_TRY(scalar_field(r, &options, f, kind, fallback, &out->options[f]));
            }
        }
    }
    return MC_OK;
}

OUT_OF_LINE static mc_status_t read_op(reader_t *r, int64_t k, mc_op_t *out, int32_t *op_tensors, int64_t *next)
{
    const root_t *root = &r->root;
    table_t op, code;
    vector_t in, outs, mid, custom;
    int32_t index = 0, deprecated = 0, builtin = 0, version = 1;

    MC_TRY(table_element(r, &root->operators, k, &op));
    memset(out, 0, sizeof *out);
    MC_TRY(scalar_field(r, &op, OP_OPCODE_INDEX, MC_FIELD_I32, 0, &index));
    if ((uint32_t)index >= (uint64_t)root->codes.length) {
        if (r->problem != NULL) {
            r->problem->op = k;
            r->problem->value = (uint32_t)index;
        }
        return fail(r, MC_E_MODEL, MC_PROBLEM_BAD_OPCODE, op.at);
    }
    MC_TRY(table_element(r, &root->codes, (uint32_t)index, &code));
    MC_TRY(scalar_field(r, &code, CODE_DEPRECATED_BUILTIN, MC_FIELD_I8, 0, &deprecated));
    MC_TRY(scalar_field(r, &code, CODE_BUILTIN, MC_FIELD_I32, 0, &builtin));
    MC_TRY(scalar_field(r, &code, CODE_VERSION, MC_FIELD_I32, 1, &version));
    out->kind = builtin > deprecated ? builtin : deprecated;
    out->version = version;
    out->custom_name_offset = -1;
    if (out->kind == BUILTIN_CUSTOM) {
        MC_TRY(vector_field(r, &code, CODE_CUSTOM, 1, &custom));
        out->custom_name_offset = custom.data;
        out->custom_name_bytes = (int32_t)(custom.length > INT32_MAX ? INT32_MAX : custom.length);
    }
    MC_TRY(read_options(r, &op, out));
    MC_TRY(op_lists(r, &op, &in, &outs, &mid));
    out->n_inputs = (int32_t)in.length;
    out->n_outputs = (int32_t)outs.length;
    out->n_intermediates = (int32_t)mid.length;
    out->first_input = *next;
    MC_TRY(copy_indices(r, &in, op_tensors, next));
    out->first_output = *next;
    MC_TRY(copy_indices(r, &outs, op_tensors, next));
    out->first_intermediate = *next;
    return copy_indices(r, &mid, op_tensors, next);
}

OUT_OF_LINE static mc_status_t offline_plan(reader_t *r, bool *found)
{
    const root_t *root = &r->root;
    vector_t metadata, name;
    int64_t i;
    *found = false;
    MC_TRY(vector_field(r, &root->model, MODEL_METADATA, 4, &metadata));
    for (i = 0; i < metadata.length && !*found; i++) {
        table_t entry;
        MC_TRY(table_element(r, &metadata, i, &entry));
        MC_TRY(vector_field(r, &entry, METADATA_NAME, 1, &name));
        if (name.length == (int64_t)(sizeof OFFLINE_PLAN - 1)) {
            int64_t c;
            bool same = true;
            for (c = 0; c < name.length && same; c++) {
                uint8_t byte = 0;
                MC_TRY(get(r, name.data + c, 1, &byte));
                same = byte == (uint8_t)OFFLINE_PLAN[c];
            }
            *found = same;
        }
    }
    return MC_OK;
}

static void start(reader_t *r, const mc_source_t *source, uint8_t *window, mc_problem_t *problem)
{
    r->source = source;
    r->problem = problem;
    r->window = window;
    r->window_at = -1;
    r->window_bytes = 0;
    if (problem != NULL) {
        problem->kind = MC_PROBLEM_NONE;
        problem->op = problem->tensor = problem->other = problem->value = problem->at = -1;
    }
}

static mc_status_t check_source(const mc_source_t *source)
{
    if (source == NULL || (source->read == NULL && source->data == NULL && source->file_bytes > 0)) {
        return MC_E_NULL;
    }
    return source->file_bytes < 0 ? MC_E_NEGATIVE : MC_OK;
}

/* Bytes of scratch for the counted arrays, in their layout order. */
static mc_status_t layout_bytes(const mc_tflite_size_t *n, int64_t *bytes)
{
    int64_t a = 0, b = 0, c = 0, total = 0;
    MC_TRY(mc_checked_mul(n->n_tensors, (int64_t)sizeof(mc_tensor_t), &a));
    MC_TRY(mc_checked_mul(n->n_ops, (int64_t)sizeof(mc_op_t), &b));
    MC_TRY(mc_checked_add(n->n_op_tensors, n->n_inputs + n->n_outputs, &c));
    MC_TRY(mc_checked_mul(c, (int64_t)sizeof(int32_t), &c));
    MC_TRY(mc_checked_add(a, b, &total));
    MC_TRY(mc_checked_add(total, c, &total));
    total = (total + 7) / 8 * 8; /* the reader's state is 8-byte aligned */
    return mc_checked_add(total, RESERVED_BYTES, bytes);
}

OUT_OF_LINE static mc_status_t size_of(reader_t *r, mc_tflite_size_t *out)
{
    const root_t *root = &r->root;
    MC_TRY(open_root(r));
    out->n_tensors = root->tensors.length;
    out->n_ops = root->operators.length;
    out->n_inputs = root->inputs.length;
    out->n_outputs = root->outputs.length;
    out->n_subgraphs = root->n_subgraphs;
    MC_TRY(count_op_tensors(r, &out->n_op_tensors));
    return layout_bytes(out, &out->scratch_bytes);
}

mc_status_t mc_tflite_size(const mc_source_t *source, mc_tflite_size_t *out, mc_problem_t *problem)
{
    reader_t r;
    mc_tflite_size_t n;
    uint8_t window[WINDOW_BYTES];
    MC_TRY(check_source(source));
    if (out == NULL) {
        return MC_E_NULL;
    }
    start(&r, source, window, problem);
    MC_TRY(size_of(&r, &n));
    *out = n;
    return MC_OK;
}

mc_status_t mc_tflite_read(const mc_source_t *source, void *scratch, int64_t scratch_bytes,
                           mc_graph_t *graph, mc_problem_t *problem)
{
    reader_t *r;
    mc_tflite_size_t n;
    arrays_t a;
    int64_t i, next = 0;
    bool offline = false;

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
    start(r, source, (uint8_t *)scratch + READER_BYTES, problem);
    MC_TRY(size_of(r, &n));
    if (scratch_bytes < n.scratch_bytes) {
        return MC_E_SCRATCH;
    }
    r = (reader_t *)memmove((uint8_t *)scratch + (n.scratch_bytes - RESERVED_BYTES), r, sizeof *r);
    r->window = (uint8_t *)r + READER_BYTES;
    r->window_at = -1;
    /* 8-byte members first, then the int32 arrays, then the reader. */
    a.tensors = (mc_tensor_t *)scratch;
    a.ops = (mc_op_t *)(a.tensors + n.n_tensors);
    a.op_tensors = (int32_t *)(a.ops + n.n_ops);
    a.inputs = a.op_tensors + n.n_op_tensors;
    a.outputs = a.inputs + n.n_inputs;

    for (i = 0; i < n.n_tensors; i++) {
        MC_TRY(read_tensor(r, i, &a.tensors[i]));
    }
    for (i = 0; i < n.n_ops; i++) {
        MC_TRY(read_op(r, i, &a.ops[i], a.op_tensors, &next));
    }
    for (i = 0; i < n.n_inputs; i++) {
        MC_TRY(int_element(r, &r->root.inputs, i, &a.inputs[i]));
    }
    for (i = 0; i < n.n_outputs; i++) {
        MC_TRY(int_element(r, &r->root.outputs, i, &a.outputs[i]));
    }
    MC_TRY(offline_plan(r, &offline));

    graph->tensors = a.tensors;
    graph->ops = a.ops;
    graph->op_tensors = a.op_tensors;
    graph->inputs = a.inputs;
    graph->outputs = a.outputs;
    graph->n_tensors = n.n_tensors;
    graph->n_ops = n.n_ops;
    graph->n_op_tensors = n.n_op_tensors;
    graph->n_inputs = n.n_inputs;
    graph->n_outputs = n.n_outputs;
    graph->n_subgraphs = n.n_subgraphs;
    graph->flags = offline ? MC_GRAPH_OFFLINE_PLAN : 0u;
    return MC_OK;
}
