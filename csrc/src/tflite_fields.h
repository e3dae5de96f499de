/*
 * The TFLite reader's safe access to a flatbuffer (tflite_fields.c), shared with the
 * model walk (tflite_reader.c): the reader's state, and reads of scalars, tables,
 * offsets and vectors that first check the bytes they name lie inside the file and
 * record the first problem (errors are sticky: after one, every read gives 0).
 */
#ifndef MEMCORE_TFLITE_FIELDS_H
#define MEMCORE_TFLITE_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "memcore.h"

#define WINDOW_BYTES 64

/* Model and Buffer fields (TFLite schema.fbs's numbers: vtable slot = 4 + 2 x field). */
enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_SUBGRAPHS = 2, MODEL_BUFFERS = 4,
       MODEL_METADATA = 6 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
/* Tensor and QuantizationParameters fields */
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
       TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5, TENSOR_SPARSITY = 6,
       TENSOR_EXTERNAL_BUFFER = 10 };
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DIMENSION = 6 };

/* The vectors every pass needs (root_t.vectors), in the order the file is checked. */
enum { CODES = 0, BUFFERS = 1, TENSORS = 2, OPERATORS = 3, INPUTS = 4, OUTPUTS = 5, ROOT_VECTORS = 6 };

/* window_at of an empty window: no position a read can ask for lies in
 * [EMPTY_WINDOW, EMPTY_WINDOW + WINDOW_BYTES), so one range test covers both cases. */
#define EMPTY_WINDOW (-(int64_t)WINDOW_BYTES)

typedef struct {
    int64_t at;        /* the table's position */
    int64_t vtable;    /* its vtable's position */
    int32_t vtable_bytes;
    int32_t object_bytes;
} table_t;

typedef struct {
    int64_t data;      /* position of element 0; -1 when the vector is absent */
    uint32_t length;   /* a flatbuffer length is 32-bit */
    uint32_t unused;   /* 16 bytes on every ABI (i386 would pack 12): the reader's state is
                          part of the scratch mc_tflite_size reports, so its size stays */
} vector_t;

/* The root table and the pieces every pass needs. */
typedef struct {
    table_t model;
    vector_t vectors[ROOT_VECTORS]; /* TENSORS .. OUTPUTS: the subgraph open_subgraph opened */
    vector_t subgraphs;
    int64_t plan_at;   /* where the offline plan's offsets start; -1 when the file has none */
    int64_t n_subgraphs;
    int32_t first_tensor; /* the open subgraph's first tensor and operator in the graph */
    int32_t first_op;
} root_t;

/* All the reader's state, in one frame of the public function: the stack stays small
 * on a board however deep the helpers call.
 *
 * Errors are sticky: the first problem found sets rc and *problem, and from then on
 * every read gives 0 without touching the file, so the helpers return values instead
 * of statuses and the walk tests rc only where a loop or a write depends on it.  Every
 * read before the first problem is the one the file's walk makes anyway, so the
 * problem reported is the first in walk order, as if the walk had stopped there. */
typedef struct {
    const mc_source_t *source;
    mc_problem_t *problem; /* never NULL: the public functions give a sink of their own */
    uint8_t *window;   /* WINDOW_BYTES: on the stack while sizing, in the scratch while reading */
    int64_t window_at; /* file offset of window[0]; EMPTY_WINDOW when empty.  The window holds
                          WINDOW_BYTES or up to the end of the file, whichever comes first */
    mc_status_t rc;    /* MC_OK until the first problem */
    /* (in the padding before root on the boards' ABIs: the state keeps its size) */
    bool vectors_aligned; /* every operand list and shape met so far starts 4-byte aligned */
    bool in_place;        /* the graph's lists and shapes are read in place (tflite_reader.c) */
    root_t root;
} reader_t;

/* The first problem, recorded (later ones are dropped): its status, kind and offset;
 * with the offending value; of tensor `tensor`. */
void mc__fail(reader_t *r, mc_status_t rc, int32_t kind, int64_t at);
void mc__fail_value(reader_t *r, mc_status_t rc, int32_t kind, int64_t value);
void mc__tensor_problem(reader_t *r, mc_status_t rc, int32_t kind, int32_t tensor, int64_t value);

/* Reads, each checked against the file (tflite_fields.c says what each returns when
 * the file omits a field, and after a problem). */
int32_t mc__to_int32(uint32_t v);
uint32_t mc__get_u32(reader_t *r, int64_t at, int32_t n);
void mc__table_at(reader_t *r, int64_t at, table_t *t);
int32_t mc__scalar_field(reader_t *r, const table_t *t, int32_t field, int32_t kind, int32_t fallback);
uint64_t mc__u64_field(reader_t *r, const table_t *t, int32_t field);
int64_t mc__follow(reader_t *r, int64_t at);
int64_t mc__ref_field(reader_t *r, const table_t *t, int32_t field);
void mc__vector_field(reader_t *r, const table_t *t, int32_t field, int32_t element_bytes, vector_t *v);
void mc__table_element(reader_t *r, const vector_t *v, uint32_t i, table_t *t);
int32_t *mc__copy_ints(reader_t *r, const vector_t *v, int32_t *to);
int32_t mc__clamp_length(uint32_t length);

/* A shape is kept at the narrowest width that holds its every dim (mc_tensor_t's
 * dim_bytes): 1 (all in 0..255), 2 (in 0..65,535) or 4, in whole int32 words. */
#define MC__SHAPE_WORDS(rank, width) (((uint32_t)(rank) * (uint32_t)(width) + 3u) / 4u)
/* The width for dims whose bits OR'd together are `bits` (a negative dim sets the top
 * bit: four bytes, so mc_tensor_bytes still sees it). */
#define MC__DIM_WIDTH(bits) ((bits) <= 0xFFu ? 1 : (bits) <= 0xFFFFu ? 2 : 4)
/* The width of a shape's dims, and the dims at that width into `to` unless it is NULL
 * (the bytes past them in their last word are left as they were). */
int32_t mc__read_shape(reader_t *r, const vector_t *shape, void *to);

/* Where a string starts in the file, as the graph keeps it: -1 for none, or one past
 * 2 GB (a flatbuffer is smaller; such a file can only point into appended data). */
int32_t mc__offset32(int64_t at);
/* A field memcore only shows (memcore.h), within 16 bits. */
int16_t mc__saturate16(int32_t v);

/* Tensor i (of the graph; the open subgraph's) into *out (tflite_tensor.c): its shape
 * in place in the file when r->in_place, else copied to *values, which moves past it. */
void mc__read_tensor(reader_t *r, int32_t i, mc_tensor_t *out, int32_t **values);

/* The file's offline plan, if it has one (tflite_offline_plan.c): where its offsets
 * start, in r->root.plan_at (-1: none), once its header is checked against `total`,
 * every subgraph's tensors. */
void mc__find_offline_plan(reader_t *r, int64_t total);

#endif
