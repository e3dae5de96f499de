/*
 * The offline memory plan a .tflite file may carry (TFLite's "OfflineMemoryAllocation"
 * metadata, written by memcore shrink or another planner): found and its header checked
 * while the file is sized, its offsets copied by the reader (tflite_reader.c).
 */
#include <stdbool.h>

#include "memcore.h"
#include "tflite_fields.h"
#include "tflite_schema.h"

enum { METADATA_NAME = 0, METADATA_BUFFER = 1 };
/* The plan's header, in int32 words before the offsets (TFLM's
 * GetOfflinePlannedOffsets: version 1, subgraph 0, then the offset count). */
enum { PLAN_VERSION = 0, PLAN_SUBGRAPH = 1, PLAN_COUNT = 2, PLAN_HEADER = 3 };

static const char OFFLINE_PLAN[] = "OfflineMemoryAllocation";

/* The file's offline plan (TFLM's GetOfflinePlannedOffsets: the last metadata entry
 * named exactly "OfflineMemoryAllocation" counts): where its offsets start, in
 * r->root.plan_at, once its header is checked: version 1, subgraph 0, one offset per
 * tensor of every subgraph (TFLM checks only the count), and the offsets inside the
 * buffer (TFLM reads past its end).  `total` is every subgraph's tensors, as size_of
 * added them up: it is read only when no problem was found, so after all of them. */
void mc__find_offline_plan(reader_t *r, int64_t total)
{
    root_t *root = &r->root;
    vector_t list, v;
    table_t entry;
    uint32_t i, c, index = 0, word, expect;
    bool found = false;
    root->plan_at = -1;
    mc__vector_field(r, &root->model, MODEL_METADATA, 4, &list);
    for (i = 0; i < list.length; i++) {
        bool same;
        mc__table_element(r, &list, i, &entry);
        mc__vector_field(r, &entry, METADATA_NAME, 1, &v);
        same = v.length == sizeof OFFLINE_PLAN - 1;
        for (c = 0; c < v.length && same; c++) {
            same = mc__get_u32(r, v.data + c, 1) == (uint8_t)OFFLINE_PLAN[c];
        }
        if (same) {
            found = true;
            index = (uint32_t)mc__scalar_field(r, &entry, METADATA_BUFFER, MC_FIELD_I32, 0);
        }
    }
    if (!found || r->rc != MC_OK) {
        return;
    }
    v.length = 0;
    if (index < root->vectors[BUFFERS].length) {
        mc__table_element(r, &root->vectors[BUFFERS], index, &entry);
        mc__vector_field(r, &entry, BUFFER_DATA, 1, &v);
    }
    /* the header's three words, then the offsets (the count is 32-bit: no overflow) */
    for (word = 0; word < PLAN_HEADER && v.length >= 4 * PLAN_HEADER && r->rc == MC_OK; word++) {
        uint32_t value = mc__get_u32(r, v.data + 4 * word, 4);
        expect = word == PLAN_VERSION ? 1u : word == PLAN_SUBGRAPH ? 0u : (uint32_t)total;
        if (value != expect) {
            r->problem->other = total;
            mc__fail_value(r, MC_E_MODEL, MC_PROBLEM_OFFLINE_PLAN, mc__to_int32(value));
            r->problem->at = word;
        }
    }
    if (r->rc == MC_OK && (v.length < 4 * PLAN_HEADER || (v.length - 4 * PLAN_HEADER) / 4 < total)) {
        mc__fail_value(r, MC_E_MODEL, MC_PROBLEM_OFFLINE_PLAN, index);
    }
    root->plan_at = v.data + 4 * PLAN_HEADER;
}
