/*
 * Reading a flatbuffer that may be damaged or hostile (tflite_fields.h): every offset is
 * followed only after the bytes it names are known to lie inside the file, every
 * vtable entry only after it is known to lie inside its table, and every vector only
 * after its length times its element size is known to fit.  Bytes come from memory or
 * through the caller's read callback, a window at a time.
 */
#include <string.h>

#include "checked.h"
#include "memcore.h"
#include "out_of_line.h"
#include "tflite_fields.h"
#include "tflite_schema.h"

/* Width in bytes of each MC_FIELD_* kind. */
static const uint8_t widths[8] = {0, 1, 1, 2, 2, 4, 4, 8};

/* Records the first problem: its status, kind and offset; its other fields stay as
 * start() left them (-1) unless the helpers below set them first.  Later problems are
 * consequences of reading zeros and are dropped. */
void mc__fail(reader_t *r, mc_status_t rc, int32_t kind, int64_t at)
{
    if (r->rc == MC_OK) {
        r->rc = rc;
        r->problem->kind = kind;
        r->problem->at = at;
    }
}

static void past_end(reader_t *r, int64_t at)
{
    mc__fail(r, MC_E_MODEL, MC_PROBLEM_PAST_END, at);
}

/* A problem with one offending value: a count, an index or a version. */
OUT_OF_LINE void mc__fail_value(reader_t *r, mc_status_t rc, int32_t kind, int64_t value)
{
    if (r->rc == MC_OK) {
        r->problem->value = value;
    }
    mc__fail(r, rc, kind, -1);
}

/* A problem of tensor i, with the offending value. */
OUT_OF_LINE void mc__tensor_problem(reader_t *r, mc_status_t rc, int32_t kind, int32_t tensor, int64_t value)
{
    if (r->rc == MC_OK) {
        r->problem->tensor = tensor;
    }
    mc__fail_value(r, rc, kind, value);
}

/* The int32 whose two's complement bits v holds, without relying on the
 * implementation-defined conversion. */
int32_t mc__to_int32(uint32_t v)
{
    return v > (uint32_t)INT32_MAX ? -(int32_t)~v - 1 : (int32_t)v;
}

/* Where the n (<= 8) bytes at `at` can be read: in the file in memory or in the window,
 * checked against the file's size first; 8 zeros once a problem is recorded. */
OUT_OF_LINE static const uint8_t *get(reader_t *r, int64_t at, int32_t n)
{
    static const uint8_t zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const mc_source_t *s = r->source;
    if (r->rc == MC_OK && (at < 0 || at > s->file_bytes - n)) {
        past_end(r, at);
    }
    if (r->rc != MC_OK) {
        return zeros;
    }
    if (s->read == NULL) {
        return s->data + at;
    }
    /* Refill unless [at, at + n) lies in the window (at + n never passes the end of the
     * file, so only the window's WINDOW_BYTES bound matters); unsigned, so a position
     * before the window wraps to a large distance. */
    if ((uint64_t)at - (uint64_t)r->window_at > (uint64_t)(WINDOW_BYTES - n)) {
        int64_t left = s->file_bytes - at;
        r->window_at = EMPTY_WINDOW;
        if (s->read(s->context, at, r->window, left < WINDOW_BYTES ? (int32_t)left : WINDOW_BYTES) != MC_OK) {
            mc__fail(r, MC_E_READ, MC_PROBLEM_NONE, at);
            return zeros;
        }
        r->window_at = at;
    }
    return r->window + (at - r->window_at);
}

/* Little-endian unsigned integer of the n (<= 4) bytes at b. */
OUT_OF_LINE static uint32_t le(const uint8_t *b, int32_t n)
{
    uint32_t v = 0;
    while (n-- > 0) {
        v = v << 8 | b[n];
    }
    return v;
}

/* Little-endian unsigned integer of the n bytes at `at` (n <= 8: its low 4 bytes). */
OUT_OF_LINE uint32_t mc__get_u32(reader_t *r, int64_t at, int32_t n)
{
    return le(get(r, at, n), n < 4 ? n : 4);
}

/* The scalar of `kind` (MC_FIELD_*) at `at`, sign-extended, as int32 (int64 fields keep
 * their low 32 bits, floats their bits). */
static int32_t get_scalar(reader_t *r, int64_t at, int32_t kind)
{
    uint32_t v = mc__get_u32(r, at, widths[kind]);
    return kind == MC_FIELD_I8 ? (int32_t)(int8_t)(uint8_t)v
           : kind == MC_FIELD_I16 ? (int32_t)(int16_t)(uint16_t)v : mc__to_int32(v);
}

/* The table at `at`.  After a problem its sizes are 0 or whatever was read; either way
 * every field then reads as absent or 0. */
void mc__table_at(reader_t *r, int64_t at, table_t *t)
{
    uint32_t vbytes, obytes;
    t->at = at;
    /* vtable = table - soffset, soffset signed 32-bit */
    t->vtable = at - mc__to_int32(mc__get_u32(r, at, 4));
    vbytes = mc__get_u32(r, t->vtable, 2);
    obytes = mc__get_u32(r, t->vtable + 2, 2);
    if (vbytes < 4 || (vbytes & 1u) != 0 || obytes < 4) {
        mc__fail(r, MC_E_MODEL, MC_PROBLEM_BAD_TABLE, at);
    } else if (t->vtable > r->source->file_bytes - vbytes || at > r->source->file_bytes - obytes) {
        past_end(r, at);
    }
    t->vtable_bytes = (int32_t)vbytes;
    t->object_bytes = (int32_t)obytes;
}

/* Position of field `field` (width bytes) of table t, or -1 when the file omits it. */
static int64_t field_at(reader_t *r, const table_t *t, int32_t field, int32_t width)
{
    uint32_t offset;
    int32_t entry = 4 + 2 * field;
    if (entry + 2 > t->vtable_bytes) {
        return -1;
    }
    offset = mc__get_u32(r, t->vtable + entry, 2);
    if (offset == 0) {
        return -1;
    }
    if ((int32_t)offset + width > t->object_bytes) {
        mc__fail(r, MC_E_MODEL, MC_PROBLEM_BAD_TABLE, t->at);
        return -1;
    }
    return t->at + offset;
}

OUT_OF_LINE int32_t mc__scalar_field(reader_t *r, const table_t *t, int32_t field, int32_t kind, int32_t fallback)
{
    int64_t at = field_at(r, t, field, widths[kind]);
    return at < 0 ? fallback : get_scalar(r, at, kind);
}

/* Unsigned 64-bit field (buffer offsets and sizes); 0 when absent. */
uint64_t mc__u64_field(reader_t *r, const table_t *t, int32_t field)
{
    int64_t at = field_at(r, t, field, 8);
    const uint8_t *b;
    if (at < 0) {
        return 0;
    }
    b = get(r, at, 8);
    return (uint64_t)le(b + 4, 4) << 32 | le(b, 4);
}

/* The position the offset at `at` points to, checked to lie inside the file; -1 after
 * a problem.  Unsigned: after a problem `at` may be -1 (an absent vector's element). */
int64_t mc__follow(reader_t *r, int64_t at)
{
    uint32_t offset = mc__get_u32(r, at, 4);
    if (offset > (uint64_t)r->source->file_bytes - (uint64_t)at) {
        past_end(r, at);
        return -1;
    }
    return at + offset;
}

/* Follows an offset field: the position it points to, or -1 when absent. */
int64_t mc__ref_field(reader_t *r, const table_t *t, int32_t field)
{
    int64_t at = field_at(r, t, field, 4);
    return at < 0 ? -1 : mc__follow(r, at);
}

/* The vector field `field` of t, of elements of element_bytes (1, 4 or 8): its length
 * times that must fit between its start and the end of the file.  Absent (length 0)
 * when the file omits it or after a problem. */
OUT_OF_LINE void mc__vector_field(reader_t *r, const table_t *t, int32_t field, int32_t element_bytes,
                                     vector_t *v)
{
    int64_t at = mc__ref_field(r, t, field);
    uint32_t length;
    v->length = 0;
    v->data = -1;
    if (at < 0) {
        return;
    }
    length = mc__get_u32(r, at, 4);
    /* at + 4 <= file_bytes once the length is read; the product is below 2^35 */
    if ((int64_t)length * element_bytes > r->source->file_bytes - at - 4) {
        past_end(r, at);
    } else {
        v->length = length; /* 0 after a problem */
        v->data = at + 4;
    }
}

/* Element i of a vector of tables. */
OUT_OF_LINE void mc__table_element(reader_t *r, const vector_t *v, uint32_t i, table_t *t)
{
    mc__table_at(r, mc__follow(r, v->data + 4 * (int64_t)i), t);
}

/* Copies the int32 vector v (a shape, a tensor list) to `to`; returns the end of the
 * copy.  Out of line: one loop for its four callers. */
OUT_OF_LINE int32_t *mc__copy_ints(reader_t *r, const vector_t *v, int32_t *to)
{
    uint32_t i;
    for (i = 0; i < v->length; i++) {
        *to++ = get_scalar(r, v->data + 4 * (int64_t)i, MC_FIELD_I32);
    }
    return to;
}

int32_t mc__read_shape(reader_t *r, const vector_t *shape, void *to)
{
    uint32_t i, d, bits = 0;
    int32_t width;
    for (i = 0; i < shape->length; i++) {
        bits |= mc__get_u32(r, shape->data + 4 * (int64_t)i, 4);
    }
    width = MC__DIM_WIDTH(bits);
    for (i = 0; to != NULL && i < shape->length; i++) {
        d = mc__get_u32(r, shape->data + 4 * (int64_t)i, 4);
        if (width == 1) {
            ((uint8_t *)to)[i] = (uint8_t)d;
        } else if (width == 2) {
            ((uint16_t *)to)[i] = (uint16_t)d;
        } else {
            ((uint32_t *)to)[i] = d;
        }
    }
    return width;
}

/* Out of line: its call sites would each inline the compare and select. */
OUT_OF_LINE int32_t mc__clamp_length(uint32_t length)
{
    return length > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)length;
}

int32_t mc__offset32(int64_t at)
{
    return at < 0 || at > INT32_MAX ? -1 : (int32_t)at;
}

/* Out of line: its call sites would each inline the two compares. */
OUT_OF_LINE int16_t mc__saturate16(int32_t v)
{
    return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
}
