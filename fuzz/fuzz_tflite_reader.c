/* mc_tflite_size, mc_tflite_read and mc_graph_validate on arbitrary bytes.  The reader
 * must never read outside the file (ASan catches it: the input is the whole buffer),
 * must give the same answer whether the bytes come from memory or through the read
 * callback a board uses, and every graph it returns must only point inside its
 * scratch; validation of such a graph must terminate with OK or an error.  The board's
 * check of the file (mc_check_file, through the callback, in exactly its
 * mc_check_file_scratch_bytes) must give the host's check of the graph read once
 * (mc_check_graph): the same status, problem and report, and MC_E_SCRATCH 8 bytes
 * short. */
#include "fuzz.h"
#include "../tests/c/same_graph.h"

#define MAX_SCRATCH (1 << 22)

static uint64_t scratch_a[MAX_SCRATCH / 8], scratch_b[MAX_SCRATCH / 8], scratch_c[MAX_SCRATCH / 8];
static uint64_t validate_scratch[MC_MAX_TENSORS / 2];

typedef struct {
    const uint8_t *data;
    int64_t size;
    int64_t calls;
} file_t;

/* Whether n int32 at p lie in the first `bytes` of scratch_a. */
/* Whether n bytes at p lie in the scratch. */
static bool in_scratch(const void *p, int64_t n, int64_t bytes)
{
    const uint8_t *start = (const uint8_t *)scratch_a, *at = (const uint8_t *)p;
    return n == 0 || (at >= start && at + n <= start + bytes);
}

static mc_status_t read_file(void *context, int64_t offset, uint8_t *buffer, int32_t bytes)
{
    file_t *f = (file_t *)context;
    FUZZ_ASSERT(offset >= 0 && bytes > 0 && offset + bytes <= f->size);
    memcpy(buffer, f->data + offset, (size_t)bytes);
    f->calls++;
    return MC_OK;
}

static void same_problem(const mc_problem_t *a, const mc_problem_t *b)
{
    FUZZ_ASSERT(a->kind == b->kind && a->op == b->op && a->tensor == b->tensor && a->value == b->value &&
                a->at == b->at);
}

static void same_report(const mc_check_t *a, const mc_check_t *b)
{
    int32_t i;
    for (i = 0; i < mc_check_field_count(); i++) {
        mc_field_t fa, fb;
        FUZZ_ASSERT(mc_check_field(a, i, &fa) == MC_OK && mc_check_field(b, i, &fb) == MC_OK);
        FUZZ_ASSERT(fa.integer == fb.integer && memcmp(&fa.real, &fb.real, sizeof fa.real) == 0 &&
                    fa.text == fb.text);
    }
}

/* The file's check against the graph's, on a default board (mc_board_init: ESP32) with
 * its memory (no rates: memory only). */
/* The host's check of g (read from memory) and the board's of the file through
 * `file`, as the deployment reads it: through the callback with the weights loaded
 * (the lists copied: file_graph, read that way, sizes it), in memory with the weights
 * in flash (`memory`: lists in place where the file allows).  The same report, in
 * exactly the bytes the host's report says. */
static void same_check(const mc_graph_t *g, const mc_graph_t *file_graph, const mc_source_t *file,
                       int32_t weights_region)
{
    mc_board_t board;
    mc_check_config_t config;
    mc_check_t host, board_check;
    mc_graph_t read_again;
    mc_problem_t ph, pb;
    int64_t host_bytes = 0, file_bytes = 0;
    mc_status_t rh, rb;
    mc_board_init(&board);
    board.regions[MC_REGION_RAM].bytes = 520 * 1024;
    board.regions[MC_REGION_FLASH].bytes = 4 << 20;
    mc_check_config_init(&config);
    config.weights_region = weights_region;
    rh = mc_check_scratch_bytes(g, &board, &config, &host_bytes, &ph);
    rb = mc_check_file_scratch_bytes(file_graph, &board, &config, &file_bytes, &pb);
    FUZZ_ASSERT(rh == rb);
    if (rh != MC_OK || host_bytes > MAX_SCRATCH || file_bytes > MAX_SCRATCH) {
        return;
    }
    rh = mc_check_graph(g, &board, &config, scratch_c, host_bytes, &host, NULL, &ph);
    rb = mc_check_file(file, &board, &config, scratch_b, file_bytes, &board_check, &read_again, &pb);
    FUZZ_ASSERT(rh == rb);
    if (rh != MC_OK) {
        same_problem(&ph, &pb);
        FUZZ_ASSERT(read_again.n_ops == g->n_ops); /* the caller can name the operator */
        return;
    }
    FUZZ_ASSERT(host.check_scratch_bytes == file_bytes);
    same_report(&host, &board_check);
    FUZZ_ASSERT(mc_check_file(file, &board, &config, scratch_b, file_bytes - 8, &board_check, &read_again, &pb) ==
                MC_E_SCRATCH);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    file_t file = {data, (int64_t)size, 0};
    mc_source_t memory = {NULL, NULL, data, (int64_t)size};
    mc_source_t callback = {read_file, &file, NULL, (int64_t)size};
    mc_tflite_size_t na, nb;
    mc_problem_t pa, pb;
    mc_graph_t ga, gb;
    mc_status_t ra = mc_tflite_size(&memory, &na, &pa), rb = mc_tflite_size(&callback, &nb, &pb);
    int64_t i;

    FUZZ_ASSERT(ra == rb);
    if (ra != MC_OK) {
        FUZZ_ASSERT(ra == MC_E_MODEL || ra == MC_E_LIMIT || ra == MC_E_UNSUPPORTED || ra == MC_E_GRAPH);
        same_problem(&pa, &pb);
        return 0;
    }
    /* read from memory, the lists may stay in the file: never more scratch */
    FUZZ_ASSERT(0 <= na.scratch_bytes && na.scratch_bytes <= nb.scratch_bytes);
    if (na.scratch_bytes > MAX_SCRATCH) {
        return 0;
    }
    FUZZ_ASSERT(na.scratch_bytes == 0 || mc_tflite_read(&memory, scratch_a, na.scratch_bytes - 1, &ga, &pa) ==
                                             MC_E_SCRATCH);
    ra = mc_tflite_read(&memory, scratch_a, na.scratch_bytes, &ga, &pa);
    rb = mc_tflite_read(&callback, scratch_b, nb.scratch_bytes, &gb, &pb);
    FUZZ_ASSERT(ra == rb);
    if (ra != MC_OK) {
        same_problem(&pa, &pb);
        return 0;
    }
    FUZZ_ASSERT(ga.n_tensors == na.n_tensors && ga.n_ops == na.n_ops && ga.n_op_tensors == na.n_op_tensors);
    /* the lists copied, as the callback's are, or read in the file itself with less scratch */
    FUZZ_ASSERT((gb.flags & MC_GRAPH_IN_FILE) == 0);
    FUZZ_ASSERT((ga.flags | MC_GRAPH_IN_FILE) == (gb.flags | MC_GRAPH_IN_FILE));
    FUZZ_ASSERT((ga.flags & MC_GRAPH_IN_FILE) ? ga.op_tensors == (const int32_t *)(const void *)data
                                                   : na.scratch_bytes == nb.scratch_bytes);
    for (i = 0; i < ga.n_tensors; i++) {
        const mc_tensor_t *t = &ga.tensors[i];
        int64_t dim_bytes = t->dim_bytes == 1 || t->dim_bytes == 2 ? t->dim_bytes : 4; /* memcore.h */
        /* its shape copied into the scratch, or read in place in the file */
        FUZZ_ASSERT(t->rank <= MC_MAX_DIMS &&
                    ((ga.flags & MC_GRAPH_IN_FILE) != 0
                         ? (const uint8_t *)t->dims >= data && (const uint8_t *)t->dims + 4 * t->rank <= data + size
                         : in_scratch(t->dims, t->rank * dim_bytes, na.scratch_bytes)));
        FUZZ_ASSERT(t->name_offset < 0 || (t->name_offset + (int64_t)t->name_bytes <= (int64_t)size));
        FUZZ_ASSERT(same_tensor(t, &gb.tensors[i]));
    }
    for (i = 0; i < ga.n_ops; i++) {
        /* its own options in the scratch, or the reader's shared zeros */
        const int32_t *o = ga.ops[i].options;
        FUZZ_ASSERT(in_scratch(o, 4 * MC_OP_OPTIONS, na.scratch_bytes) || (o[0] | o[1] | o[2] | o[MC_OP_OPTIONS - 1]) == 0);
        FUZZ_ASSERT(same_op(&ga, &ga.ops[i], &gb, &gb.ops[i]));
    }
    if (ga.n_tensors <= (int64_t)sizeof validate_scratch / (int64_t)sizeof(int32_t)) {
        ra = mc_graph_validate(&ga, validate_scratch, (int64_t)sizeof validate_scratch, &pa);
        FUZZ_ASSERT(ra == MC_OK || ra == MC_E_GRAPH || ra == MC_E_LIMIT);
        FUZZ_ASSERT((ra == MC_OK) == (pa.kind == MC_PROBLEM_NONE));
    }
    same_check(&ga, &gb, &callback, MC_REGION_RAM);
    if ((ga.flags & MC_GRAPH_IN_FILE) != 0) {
        same_check(&ga, &ga, &memory, MC_REGION_FLASH);
    }
    return 0;
}
