/* mc_reorder: random small graphs of FULLY_CONNECTED (any width) and ADD (same widths)
 * operators over one or two inputs, listed in the order they are built.  Whatever the graph, the
 * call returns a status and never crashes; on success the order is a permutation in
 * which every operator runs after the ones writing its inputs, its head is never above
 * the file's, and when the search says it is exact no topological order (all of them
 * tried here, mc_tflm_buffers and mc_live_bytes on each) has a lower peak. */
#include "fuzz.h"

#define MAX_OPS 7
#define MAX_T (2 + 2 * MAX_OPS)
#define FULLY_CONNECTED 9
#define ADD 0

static mc_tensor_t tensors[MAX_T];
static int32_t shapes[MAX_T][2]; /* the tensors' dims */
static mc_op_t ops[MAX_OPS], permuted[MAX_OPS];
static const int32_t no_options[MC_OP_OPTIONS];
static int32_t lists[4 * MAX_OPS], inputs[2], outputs[2], order[MAX_OPS];
static int32_t producer[MAX_T];
static uint64_t scratch[1 << 17];
static int64_t sizes[64], live[MAX_OPS + 2], live_n[MAX_OPS + 2];
static int32_t first[64], last[64], owner[64];

static void tensor(int t, int width, bool constant, int rows)
{
    memset(&tensors[t], 0, sizeof tensors[t]);
    tensors[t].rank = 2;
    tensors[t].dims = shapes[t];
    shapes[t][0] = constant ? rows : 1;
    shapes[t][1] = width;
    tensors[t].dtype = MC_DTYPE_FLOAT32;
    tensors[t].name_offset = -1;
    tensors[t].flags = constant ? MC_TENSOR_CONSTANT : 0;
}

/* The peak of g's operators run in `perm` (NULL: as listed), or -1 if TFLM's model
 * refuses it. */
static int64_t peak_of(const mc_graph_t *g, const int32_t *perm)
{
    mc_graph_t run = *g;
    int64_t n = 0, need = 0, k;
    mc_live_t out;
    for (k = 0; k < g->n_ops; k++) {
        permuted[k] = g->ops[perm[k]];
    }
    run.ops = permuted;
    if (mc_tflm_buffer_count(&run, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, &n, &need, NULL) != MC_OK ||
        n > 64 || need > (int64_t)sizeof scratch ||
        mc_tflm_buffers(&run, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, scratch, need, sizes, first, last, owner, n,
                        NULL) != MC_OK) {
        return -1;
    }
    FUZZ_ASSERT(mc_live_bytes(sizes, first, last, n, 16, g->n_ops + 2, live, live_n, &out) == MC_OK);
    return out.peak_bytes;
}

/* Every topological order of the first `depth` positions fixed in `perm`: the least peak. */
static int64_t least_peak(const mc_graph_t *g, int32_t *perm, int depth, bool *used)
{
    int64_t best = INT64_MAX, p;
    int32_t k, i;
    if (depth == g->n_ops) {
        p = peak_of(g, perm);
        return p < 0 ? INT64_MAX : p;
    }
    for (k = 0; k < g->n_ops; k++) {
        bool ready = !used[k];
        const mc_op_t *o = &g->ops[k];
        for (i = 0; i < o->n_inputs && ready; i++) {
            int32_t t = lists[o->first_input + i];
            ready = t < 0 || producer[t] < 0 || used[producer[t]];
        }
        if (ready) {
            used[k] = true;
            perm[depth] = k;
            p = least_peak(g, perm, depth + 1, used);
            best = p < best ? p : best;
            used[k] = false;
        }
    }
    return best;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    mc_graph_t g;
    mc_reorder_t out;
    int32_t n_ops = fuzz_u8(&in) % MAX_OPS + 1, n_t = 0, k, i, width[MAX_T];
    int64_t need = 0, w = fuzz_u8(&in) % 8 + 1;
    bool used[MAX_OPS] = {false}, written[MAX_OPS] = {false};
    int32_t perm[MAX_OPS];
    mc_status_t rc;
    memset(&g, 0, sizeof g);
    memset(producer, 0xff, sizeof producer);
    g.tensors = tensors;
    g.ops = ops;
    g.op_tensors = lists;
    g.inputs = inputs;
    g.outputs = outputs;
    g.n_subgraphs = 1;
    g.n_inputs = fuzz_u8(&in) % 2 + 1;
    for (i = 0; i < g.n_inputs; i++) {
        width[n_t] = 4 * (fuzz_u8(&in) % 16 + 1);
        tensor(n_t, width[n_t], false, 1);
        inputs[i] = n_t++;
    }
    /* operator k writes activation n_inputs + 2k (and FC's weights are 2k + 1) from
     * tensors written before it; the file lists them in a shuffled order */
    for (k = 0; k < n_ops; k++) {
        mc_op_t *o = &ops[k];
        int32_t a = (int32_t)(fuzz_u8(&in) % n_t), b = (int32_t)(fuzz_u8(&in) % n_t), y;
        while (tensors[a].flags & MC_TENSOR_CONSTANT) {
            a--;
        }
        while (tensors[b].flags & MC_TENSOR_CONSTANT) {
            b--;
        }
        memset(o, 0, sizeof *o);
        o->version = 1;
        o->options = no_options;
        o->first_input = g.n_op_tensors;
        if (width[a] == width[b] && (fuzz_u8(&in) & 1)) {
            o->kind = ADD;
            o->n_inputs = 2;
            lists[g.n_op_tensors++] = a;
            lists[g.n_op_tensors++] = b;
            y = n_t++;
            width[y] = width[a];
        } else {
            int32_t wt = n_t++;
            y = n_t++;
            width[y] = 4 * (fuzz_u8(&in) % 64 + 1);
            tensor(wt, width[a], true, width[y]);
            width[wt] = width[a];
            o->kind = FULLY_CONNECTED;
            o->n_inputs = 3;
            lists[g.n_op_tensors++] = a;
            lists[g.n_op_tensors++] = wt;
            lists[g.n_op_tensors++] = -1;
        }
        tensor(y, width[y], false, 1);
        o->first_output = g.n_op_tensors;
        o->n_outputs = 1;
        lists[g.n_op_tensors++] = y;
        o->first_intermediate = g.n_op_tensors;
        producer[y] = k;
    }
    g.n_tensors = n_t;
    g.n_ops = n_ops;
    g.n_outputs = 1;
    outputs[0] = n_t - 1;
    rc = mc_reorder_scratch_bytes(&g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, w, &need, NULL);
    if (rc != MC_OK) {
        return 0;
    }
    FUZZ_ASSERT(need > 0 && need <= (int64_t)sizeof scratch);
    rc = mc_reorder(&g, MC_TARGET_HOST64, MC_KERNELS_REFERENCE, 0, w, 10000, scratch, need, order, &out, NULL);
    if (rc != MC_OK) {
        return 0;
    }
    for (k = 0; k < n_ops; k++) { /* a permutation, each operator after its inputs' writers */
        const mc_op_t *o = &ops[order[k]];
        FUZZ_ASSERT(order[k] >= 0 && order[k] < n_ops && !written[order[k]]);
        for (i = 0; i < o->n_inputs; i++) {
            int32_t t = lists[o->first_input + i];
            FUZZ_ASSERT(t < 0 || producer[t] < 0 || written[producer[t]]);
        }
        written[order[k]] = true;
    }
    FUZZ_ASSERT(out.head_bytes <= out.file_head_bytes);
    FUZZ_ASSERT(!out.changed || out.peak_bytes == out.searched_peak_bytes);
    for (k = 0; k < n_ops; k++) {
        perm[k] = k;
    }
    FUZZ_ASSERT(peak_of(&g, perm) == out.file_peak_bytes);
    if (out.exact) {
        FUZZ_ASSERT(least_peak(&g, perm, 0, used) == out.searched_peak_bytes);
    }
    return 0;
}
