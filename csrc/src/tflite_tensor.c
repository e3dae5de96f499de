/*
 * A tensor of the file into the graph (tflite_reader.c walks the file): its shape, in
 * place in the file or copied at the narrowest width its dims allow, its type, whether
 * it is constant (TFLM's rule: its buffer's data vector is not empty, micro_allocator.cc
 * GetFlatbufferTensorBuffer), its name's place in the file, its quantization's channels
 * and axis, and what TFLM cannot run (sparse tensors, data outside the flatbuffer).
 */
#include <string.h>

#include "memcore.h"
#include "out_of_line.h"
#include "tflite_fields.h"
#include "tflite_schema.h"

/* Whether tensor i has data in the file, checking its buffer. */
static bool tensor_buffer(reader_t *r, const table_t *t, int32_t i)
{
    const vector_t *buffers = &r->root.vectors[BUFFERS];
    uint32_t index = (uint32_t)mc__scalar_field(r, t, TENSOR_BUFFER, MC_FIELD_I32, 0);
    uint64_t offset, size, file_bytes = (uint64_t)r->source->file_bytes;
    bool ok, past;
    table_t buffer;
    vector_t data;

    if (index >= buffers->length) {
        /* Buffer 0 is the schema's "no data" sentinel, even when the vector is absent. */
        if (index != 0) {
            mc__tensor_problem(r, MC_E_MODEL, MC_PROBLEM_BAD_BUFFER, i, index);
        }
        return false;
    }
    mc__table_element(r, buffers, index, &buffer);
    ok = r->rc == MC_OK;
    mc__vector_field(r, &buffer, BUFFER_DATA, 1, &data);
    if (ok && r->rc == MC_E_MODEL && r->problem->kind == MC_PROBLEM_PAST_END) {
        /* The data vector runs past the end: said of the tensor instead. */
        r->rc = MC_OK;
        mc__tensor_problem(r, MC_E_MODEL, MC_PROBLEM_BUFFER_PAST_END, i, index);
    }
    offset = mc__u64_field(r, &buffer, BUFFER_OFFSET);
    size = mc__u64_field(r, &buffer, BUFFER_SIZE);
    if (offset > 1) {
        /* Data appended after the flatbuffer (files over 2 GB): TFLite reads it, TFLM
         * does not, so the tensor would be planned as an activation. */
        past = offset > file_bytes || size > file_bytes - offset;
        mc__tensor_problem(r, past ? MC_E_MODEL : MC_E_UNSUPPORTED,
                       past ? MC_PROBLEM_BUFFER_PAST_END : MC_PROBLEM_EXTERNAL_DATA, i, index);
    }
    return data.length > 0;
}

static void read_quantization(reader_t *r, int64_t at, mc_tensor_t *out)
{
    table_t q;
    vector_t scale, zero_point;
    mc__table_at(r, at, &q);
    mc__vector_field(r, &q, QUANT_SCALE, 4, &scale);
    mc__vector_field(r, &q, QUANT_ZERO_POINT, 8, &zero_point);
    out->quant_dimension = mc__saturate16(mc__scalar_field(r, &q, QUANT_DIMENSION, MC_FIELD_I32, 0));
    out->quant_channels = mc__clamp_length(scale.length);
    if (zero_point.length > 0) {
        out->flags |= MC_TENSOR_ZERO_POINT;
    }
}

OUT_OF_LINE void mc__read_tensor(reader_t *r, int32_t i, mc_tensor_t *out, int32_t **values)
{
    table_t t;
    vector_t shape, name;
    int64_t quant;
    int32_t external;
    bool constant;

    mc__table_element(r, &r->root.vectors[TENSORS], (uint32_t)(i - r->root.first_tensor), &t);
    mc__vector_field(r, &t, TENSOR_SHAPE, 4, &shape);
    if (shape.length > MC_MAX_DIMS) {
        mc__tensor_problem(r, MC_E_GRAPH, MC_PROBLEM_BAD_RANK, i, shape.length);
        return;
    }
    memset(out, 0, sizeof *out);
    out->rank = (uint8_t)shape.length;
    if (r->in_place) { /* the file's int32 dims, aligned (reads_in_place); none: no vector */
        out->dims = r->source->data + (shape.length != 0 ? shape.data : 0);
        out->dim_bytes = 4;
    } else {
        out->dims = *values;
        out->dim_bytes = (uint8_t)mc__read_shape(r, &shape, *values);
        *values += MC__SHAPE_WORDS(shape.length, out->dim_bytes);
    }
    out->dtype = (uint8_t)mc__scalar_field(r, &t, TENSOR_TYPE, MC_FIELD_I8, 0);
    constant = tensor_buffer(r, &t, i);
    mc__vector_field(r, &t, TENSOR_NAME, 1, &name);
    out->name_offset = mc__offset32(name.data);
    out->name_bytes = (uint16_t)(name.length > UINT16_MAX ? UINT16_MAX : name.length);
    quant = mc__ref_field(r, &t, TENSOR_QUANTIZATION);
    if (quant >= 0) {
        read_quantization(r, quant, out);
    }
    if (mc__scalar_field(r, &t, TENSOR_IS_VARIABLE, MC_FIELD_U8, 0) != 0) {
        out->flags |= MC_TENSOR_VARIABLE;
    }
    if (mc__ref_field(r, &t, TENSOR_SPARSITY) >= 0) {
        mc__tensor_problem(r, MC_E_UNSUPPORTED, MC_PROBLEM_SPARSE, i, -1);
    }
    external = mc__scalar_field(r, &t, TENSOR_EXTERNAL_BUFFER, MC_FIELD_I32, 0);
    if (external != 0) {
        mc__tensor_problem(r, MC_E_UNSUPPORTED, MC_PROBLEM_EXTERNAL_DATA, i, (uint32_t)external);
    }
    if (constant) {
        out->flags |= MC_TENSOR_CONSTANT;
    }
}
