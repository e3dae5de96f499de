/*
 * SPEC 3: per-layer memory reports and the network total, following DeepLearning4J's
 * LayerMemoryReport convention.  All figures are values (elements), per example
 * unless named fixed; bytes come from the storage width at the network level.
 *
 * Choices for the layers SPEC leaves to us (stated once, here):
 *   - depthwise convolution: parameters kH·kW·C_in·multiplier (+ C_out bias), where
 *     C_out = C_in·multiplier; working memory is the im2col patch matrix
 *     C_in·outH·outW·kH·kW, as for convolution;
 *   - add and concatenate: no parameters and no working memory (outputs are written
 *     in place and gradients pass straight through); their input is the sum over
 *     their `inputs` tensors of the given input shape (add: all equal; concat: the
 *     given in_c is the total of the pieces);
 *   - reshape: a view, nothing held;
 *   - LSTM (h = sequence length T, c = features): parameters 4·(in·units + units² +
 *     units); inference works one step at a time and holds the four gates and the
 *     cell, 5·units per example; training keeps them for every step for backpropagation
 *     through time, 5·units·T per example;
 *   - batch normalization: 2·n trainable (gamma, beta) and 2·n non-trainable running
 *     mean and variance, which are counted with the parameters of the network.
 */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

static mc_status_t elements(int64_t h, int64_t w, int64_t c, int64_t *out)
{
    int64_t hw = 0;
    if (h < 0 || w < 0 || c < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc_checked_mul(h, w, &hw));
    return mc_checked_mul(hw, c, out);
}

/* rows x cols weights, plus `cols` biases when asked. */
static mc_status_t weights(int64_t rows, int64_t cols, bool bias, int64_t *out)
{
    int64_t w = 0;
    MC_TRY(mc_checked_mul(rows, cols, &w));
    return mc_checked_add(w, bias ? cols : 0, out);
}

/* The im2col patch matrix of a kH x kW window over the output grid. */
static mc_status_t patches(const mc_layer_t *l, int64_t depth, int64_t *out)
{
    int64_t grid = 0, window = 0;
    if (l->kernel_h < 0 || l->kernel_w < 0) {
        return MC_E_NEGATIVE;
    }
    if (l->kernel_h == 0 || l->kernel_w == 0) {
        return MC_E_RANGE;
    }
    MC_TRY(elements(l->out_h, l->out_w, depth, &grid));
    MC_TRY(mc_checked_mul(l->kernel_h, l->kernel_w, &window));
    return mc_checked_mul(grid, window, out);
}

static mc_status_t report(const mc_layer_t *l, mc_layer_report_t *r)
{
    int64_t in = 0, out = 0, t = 0, window = 0;

    MC_TRY(elements(l->in_h, l->in_w, l->in_c, &in));
    MC_TRY(elements(l->out_h, l->out_w, l->out_c, &out));
    r->input_elements = in;
    r->output_elements = out;

    switch (l->kind) {
    case MC_LAYER_DENSE:
    case MC_LAYER_OUTPUT:
        MC_TRY(weights(in, out, l->bias, &r->parameters));
        r->training_per_example = out;
        if (l->dropout) {
            MC_TRY(mc_checked_add(out, in, &r->training_per_example));
        }
        break;
    case MC_LAYER_ACTIVATION:
        r->training_per_example = in;
        break;
    case MC_LAYER_DROPOUT:
    case MC_LAYER_RESHAPE:
        break;
    case MC_LAYER_BATCHNORM: {
        int64_t n2 = 0;
        MC_TRY(mc_checked_mul(l->in_c, 2, &n2));
        r->parameters = n2;
        r->non_trainable = n2;
        r->training_fixed = n2;
        MC_TRY(mc_checked_mul(in, 2, &t));          /* 2 x input */
        MC_TRY(mc_checked_add(t, out, &t));         /* + output */
        MC_TRY(mc_checked_add(t, n2, &t));          /* + 2n */
        r->training_per_example = t;
        break;
    }
    case MC_LAYER_CONV2D:
    case MC_LAYER_DEPTHWISE_CONV2D: {
        int64_t rows = 0, cols = l->out_c;
        /* mc_checked_mul assumes non-negative operands: reject negative kernels before the
         * window product, as patches() would (a negative pair overflowed; found by
         * fuzz/fuzz_layers.c). */
        if (l->kernel_h < 0 || l->kernel_w < 0) {
            return MC_E_NEGATIVE;
        }
        MC_TRY(mc_checked_mul(l->kernel_h, l->kernel_w, &window));
        MC_TRY(mc_checked_mul(window, l->in_c, &rows));
        if (l->kind == MC_LAYER_DEPTHWISE_CONV2D) {
            /* Each input channel has its own multiplier = C_out / C_in filters. */
            if (l->in_c == 0 || l->out_c % l->in_c != 0) {
                return MC_E_RANGE;
            }
            rows = window;
        }
        MC_TRY(weights(rows, cols, l->bias, &r->parameters));
        MC_TRY(patches(l, l->in_c, &r->inference_per_example));
        MC_TRY(mc_checked_mul(r->inference_per_example, 2, &r->training_per_example));
        if (l->dropout) {
            MC_TRY(mc_checked_add(r->training_per_example, in, &r->training_per_example));
        }
        break;
    }
    case MC_LAYER_POOL2D:
        MC_TRY(patches(l, l->out_c, &r->inference_per_example));
        r->training_per_example = r->inference_per_example;
        if (l->dropout) {
            MC_TRY(mc_checked_add(r->training_per_example, in, &r->training_per_example));
        }
        break;
    case MC_LAYER_GLOBAL_POOL:
        r->inference_per_example = l->pnorm ? in : 0;
        r->training_per_example = r->inference_per_example;
        break;
    case MC_LAYER_EMBEDDING:
        /* in_c is the vocabulary size; one row of out_c values per token. */
        MC_TRY(weights(l->in_c, l->out_c, l->bias, &r->parameters));
        r->training_per_example = out;
        break;
    case MC_LAYER_AUTOENCODER:
        /* Encoder weights, hidden bias and the decoder's visible bias. */
        MC_TRY(weights(in, out, l->bias, &t));
        MC_TRY(mc_checked_add(t, l->bias ? in : 0, &r->parameters));
        MC_TRY(mc_checked_add(in, out, &r->training_per_example));
        if (l->dropout) {
            MC_TRY(mc_checked_add(r->training_per_example, in, &r->training_per_example));
        }
        break;
    case MC_LAYER_L2_DISTANCE:
    case MC_LAYER_L2_NORMALIZE:
        r->inference_per_example = l->kind == MC_LAYER_L2_NORMALIZE ? 1 : 0;
        MC_TRY(mc_checked_mul(in, 2, &t));
        MC_TRY(mc_checked_add(t, 3, &r->training_per_example));
        break;
    case MC_LAYER_ADD:
    case MC_LAYER_CONCAT:
        if (l->inputs < 1) {
            return MC_E_RANGE;
        }
        if (l->kind == MC_LAYER_ADD) {
            MC_TRY(mc_checked_mul(in, l->inputs, &r->input_elements));
        }
        break;
    case MC_LAYER_LSTM: {
        int64_t units = l->out_c, recurrent = 0, gates = 0;
        MC_TRY(mc_checked_mul(l->in_c, units, &t));
        MC_TRY(mc_checked_mul(units, units, &recurrent));
        MC_TRY(mc_checked_add(t, recurrent, &t));
        MC_TRY(mc_checked_add(t, units, &t));
        MC_TRY(mc_checked_mul(t, 4, &r->parameters));
        MC_TRY(mc_checked_mul(units, 5, &gates));
        r->inference_per_example = gates;
        MC_TRY(mc_checked_mul(gates, l->in_h, &r->training_per_example));
        break;
    }
    default:
        return MC_E_RANGE;
    }
    if (l->state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc_checked_mul(r->parameters, l->state_per_param, &r->updater_state));
    return MC_OK;
}

mc_status_t mc_layer_report(const mc_layer_t *layer, mc_layer_report_t *out)
{
    mc_layer_report_t r = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (layer == NULL || out == NULL) {
        return MC_E_NULL;
    }
    MC_TRY(report(layer, &r));
    *out = r;
    return MC_OK;
}

/* fixed + batch * per_example */
static mc_status_t scaled(int64_t fixed, int64_t per_example, int64_t batch, int64_t *out)
{
    int64_t v = 0;
    MC_TRY(mc_checked_mul(per_example, batch, &v));
    return mc_checked_add(fixed, v, out);
}

mc_status_t mc_network_report(const mc_layer_t *layers, int64_t n_layers, int64_t batch,
                              mc_mode_t mode, int64_t bits_per_value,
                              mc_network_report_t *out)
{
    mc_network_report_t r = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    bool training = mode == MC_MODE_TRAINING;
    int64_t i, live_peak = 0, t = 0;

    if (layers == NULL || out == NULL) {
        return MC_E_NULL;
    }
    if (n_layers < 0 || batch < 0) {
        return MC_E_NEGATIVE;
    }
    if (n_layers == 0 || (mode != MC_MODE_INFERENCE && mode != MC_MODE_TRAINING)) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_check_bits(bits_per_value));

    for (i = 0; i < n_layers; i++) {
        mc_layer_report_t l = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        int64_t act_in = 0, act_out = 0, work = 0, live = 0;
        MC_TRY(report(&layers[i], &l));
        MC_TRY(mc_checked_mul(batch, l.input_elements, &act_in));
        MC_TRY(mc_checked_mul(batch, l.output_elements, &act_out));

        MC_TRY(mc_checked_add(r.parameters, l.parameters, &r.parameters));
        MC_TRY(mc_checked_add(r.parameters, l.non_trainable, &r.parameters));
        MC_TRY(mc_checked_add(r.activations, act_out, &r.activations));
        if (training) {
            MC_TRY(mc_checked_add(r.parameter_gradients, l.parameters, &r.parameter_gradients));
            MC_TRY(mc_checked_add(r.activation_gradients, act_in, &r.activation_gradients));
            MC_TRY(mc_checked_add(r.updater_state, l.updater_state, &r.updater_state));
            MC_TRY(scaled(l.training_fixed, l.training_per_example, batch, &work));
            MC_TRY(mc_checked_add(r.cache, l.cache_training, &r.cache));
        } else {
            MC_TRY(scaled(l.inference_fixed, l.inference_per_example, batch, &work));
            MC_TRY(mc_checked_add(r.cache, l.cache_inference, &r.cache));
        }
        if (i == 0 || work > r.working_memory) {
            r.working_memory = work;
            r.working_layer = i;
        }
        /* While layer i runs its input and output are live with its scratch; in
         * training these are the gradient pair flowing back, next to every forward
         * output, which backward keeps (added after the loop). */
        MC_TRY(mc_checked_add(act_in, act_out, &live));
        MC_TRY(mc_checked_add(live, work, &live));
        if (live > live_peak) {
            live_peak = live;
        }
    }
    if (training) {
        MC_TRY(mc_checked_add(live_peak, r.activations, &live_peak));
    }

    MC_TRY(mc_checked_add(r.parameters, r.activations, &t));
    MC_TRY(mc_checked_add(t, r.parameter_gradients, &t));
    MC_TRY(mc_checked_add(t, r.activation_gradients, &t));
    MC_TRY(mc_checked_add(t, r.updater_state, &t));
    MC_TRY(mc_checked_add(t, r.working_memory, &t));
    MC_TRY(mc_checked_add(t, r.cache, &r.total));
    MC_TRY(mc_bits_to_bytes(r.total, bits_per_value, &r.total_bytes));

    r.lifetime_activations = live_peak;
    MC_TRY(mc_checked_add(r.parameters, r.parameter_gradients, &t));
    MC_TRY(mc_checked_add(t, r.updater_state, &t));
    MC_TRY(mc_checked_add(t, r.cache, &t));
    MC_TRY(mc_checked_add(t, live_peak, &r.lifetime_total));
    MC_TRY(mc_bits_to_bytes(r.lifetime_total, bits_per_value, &r.lifetime_total_bytes));
    *out = r;
    return MC_OK;
}
