/* mc_layer_report and mc_network_report: random layers (kinds, shapes, flags), batch,
 * mode and width.  Errors leave the outputs untouched; OK reports are consistent:
 * totals are the sums of their terms, bytes round up, the working layer exists. */
#include "fuzz.h"

#define MAX_LAYERS 8

static void layer(fuzz_in_t *in, mc_layer_t *l)
{
    uint8_t flags = fuzz_u8(in);
    l->kind = (mc_layer_kind_t)(fuzz_u8(in) % (MC_LAYER_KIND_COUNT + 1));
    l->in_h = fuzz_i64(in);
    l->in_w = fuzz_i64(in);
    l->in_c = fuzz_i64(in);
    l->out_h = fuzz_i64(in);
    l->out_w = fuzz_i64(in);
    l->out_c = fuzz_i64(in);
    l->kernel_h = fuzz_i64(in);
    l->kernel_w = fuzz_i64(in);
    l->inputs = fuzz_i64(in);
    l->bias = flags & 1;
    l->dropout = (flags >> 1) & 1;
    l->pnorm = (flags >> 2) & 1;
    l->state_per_param = fuzz_i64(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    mc_layer_t layers[MAX_LAYERS];
    int64_t n = fuzz_u8(&in) % MAX_LAYERS + 1, batch = fuzz_i64(&in), bits = fuzz_i64(&in), i;
    mc_mode_t mode = (mc_mode_t)(fuzz_u8(&in) % 3);
    mc_network_report_t r, untouched;
    mc_layer_report_t lr[MAX_LAYERS];
    int all_ok = 1;
    mc_status_t rc;

    memset(layers, 0, sizeof layers);
    for (i = 0; i < n; i++) {
        mc_layer_report_t u;
        layer(&in, &layers[i]);
        memset(&lr[i], 0x5a, sizeof lr[i]);
        u = lr[i];
        rc = mc_layer_report(&layers[i], &lr[i]);
        FUZZ_ASSERT(rc <= MC_OK && rc >= MC_E_LIFETIME && rc != MC_E_NULL);
        if (rc != MC_OK) {
            FUZZ_ASSERT(memcmp(&lr[i], &u, sizeof u) == 0);
            all_ok = 0;
            continue;
        }
        FUZZ_ASSERT(lr[i].input_elements >= 0 && lr[i].output_elements >= 0);
        FUZZ_ASSERT(lr[i].parameters >= 0 && lr[i].non_trainable >= 0);
        FUZZ_ASSERT(lr[i].updater_state == (i128)lr[i].parameters * layers[i].state_per_param);
        FUZZ_ASSERT(lr[i].inference_fixed >= 0 && lr[i].inference_per_example >= 0);
        FUZZ_ASSERT(lr[i].training_fixed >= 0 && lr[i].training_per_example >= 0);
    }

    memset(&r, 0x5a, sizeof r);
    untouched = r;
    rc = mc_network_report(layers, n, batch, mode, bits, &r);
    if (rc != MC_OK) {
        FUZZ_ASSERT(memcmp(&r, &untouched, sizeof r) == 0);
        FUZZ_ASSERT(rc == MC_E_NEGATIVE || rc == MC_E_RANGE || rc == MC_E_OVERFLOW);
        return 0;
    }
    FUZZ_ASSERT(all_ok && batch >= 0 && bits >= 1 && bits <= 64 && mode != 2);
    {
        i128 params = 0, acts = 0, grads = 0, agrads = 0, state = 0;
        int training = mode == MC_MODE_TRAINING;
        for (i = 0; i < n; i++) {
            params += (i128)lr[i].parameters + lr[i].non_trainable;
            acts += (i128)batch * lr[i].output_elements;
            if (training) {
                grads += lr[i].parameters;
                agrads += (i128)batch * lr[i].input_elements;
                state += lr[i].updater_state;
            }
        }
        FUZZ_ASSERT(r.parameters == params && r.activations == acts);
        FUZZ_ASSERT(r.parameter_gradients == grads && r.activation_gradients == agrads);
        FUZZ_ASSERT(r.updater_state == state);
        FUZZ_ASSERT(r.working_layer >= 0 && r.working_layer < n);
        FUZZ_ASSERT(r.working_memory ==
                    (training ? lr[r.working_layer].training_fixed +
                                    (i128)batch * lr[r.working_layer].training_per_example
                              : lr[r.working_layer].inference_fixed +
                                    (i128)batch * lr[r.working_layer].inference_per_example));
        FUZZ_ASSERT(r.total == (i128)r.parameters + r.activations + r.parameter_gradients +
                                   r.activation_gradients + r.updater_state + r.working_memory +
                                   r.cache);
        FUZZ_ASSERT(r.total_bytes == fuzz_bytes(r.total, bits));
        FUZZ_ASSERT(r.lifetime_total == (i128)r.parameters + r.parameter_gradients +
                                            r.updater_state + r.cache + r.lifetime_activations);
        FUZZ_ASSERT(r.lifetime_total_bytes == fuzz_bytes(r.lifetime_total, bits));
        FUZZ_ASSERT(r.lifetime_activations >= 0);
    }
    return 0;
}
