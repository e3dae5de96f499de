/*
 * How to read TFLite's builtin-options tables: generated from TFLite's schema by
 * csrc/tools/gen_tflite_schema.py into tflite_schema.c (which also holds the builtin
 * operator names behind mc_op_name).  Internal to the core.
 */
#ifndef MEMCORE_TFLITE_SCHEMA_H
#define MEMCORE_TFLITE_SCHEMA_H

#include <stdint.h>

/* BuiltinOptions codes 0 (none) .. 126 */
#define MC_TFLITE_OPTIONS_TYPES 127

/* Field kinds, the low 3 bits of a field entry; the high 5 bits hold its default. */
enum {
    MC_FIELD_NOT_SCALAR = 0,
    MC_FIELD_I8 = 1,
    MC_FIELD_U8 = 2,
    MC_FIELD_I16 = 3,
    MC_FIELD_U16 = 4,
    MC_FIELD_I32 = 5,
    MC_FIELD_F32 = 6,
    MC_FIELD_I64 = 7
};

/* The fields of BuiltinOptions code `type` (1 .. MC_TFLITE_OPTIONS_TYPES - 1), in
 * schema order: their count (at most MC_OP_OPTIONS), *fields set to the first entry. */
int32_t mc_tflite_option_fields(int32_t type, const uint8_t **fields);

#endif /* MEMCORE_TFLITE_SCHEMA_H */
