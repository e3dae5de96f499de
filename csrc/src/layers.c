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

/* *out = a * b + c: rows x cols weights plus their biases, fixed + per example x batch.
 * Every operand is >= 0, so whether a sum overflows does not depend on its order. */
static mc_status_t mul_add(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t ab = 0;
    MC_TRY(mc_checked_mul(a, b, &ab));
    return mc_checked_add(ab, c, out);
}

static mc_status_t add_to(int64_t *sum, int64_t v)
{
    return mc_checked_add(*sum, v, sum);
}

#define KIND(k) (1u << (k))
/* The layers whose input dropout keeps for training. */
#define DROPOUT_KINDS                                                                          \
    (KIND(MC_LAYER_DENSE) | KIND(MC_LAYER_OUTPUT) | KIND(MC_LAYER_CONV2D) |                   \
     KIND(MC_LAYER_DEPTHWISE_CONV2D) | KIND(MC_LAYER_POOL2D) | KIND(MC_LAYER_AUTOENCODER))

static mc_status_t report(const mc_layer_t *l, mc_layer_report_t *r)
{
    int64_t in = 0, out = 0, t = 0, window = 0, units = l->out_c;
    int64_t *train = &r->training_per_example, *infer = &r->inference_per_example;
    mc_layer_kind_t kind = l->kind;

    MC_TRY(elements(l->in_h, l->in_w, l->in_c, &in));
    MC_TRY(elements(l->out_h, l->out_w, l->out_c, &out));
    r->input_elements = in;
    r->output_elements = out;

    switch (kind) {
    case MC_LAYER_DENSE:
    case MC_LAYER_OUTPUT:
        MC_TRY(mul_add(in, out, l->bias ? out : 0, &r->parameters));
        *train = out;
        break;
    case MC_LAYER_ACTIVATION:
        *train = in;
        break;
    case MC_LAYER_DROPOUT:
    case MC_LAYER_RESHAPE:
        break;
    case MC_LAYER_BATCHNORM:
        MC_TRY(mc_checked_mul(l->in_c, 2, &t)); /* 2n */
        r->parameters = t;
        r->non_trainable = t;
        r->training_fixed = t;
        MC_TRY(add_to(&t, out));                /* + output */
        MC_TRY(mul_add(in, 2, t, train));       /* + 2 x input */
        break;
    case MC_LAYER_CONV2D:
    case MC_LAYER_DEPTHWISE_CONV2D:
    case MC_LAYER_POOL2D:
        /* mc_checked_mul assumes non-negative operands: negative kernels go before the
         * window product (a negative pair overflowed; found by fuzz/fuzz_layers.c).  An
         * empty window is out of range; nothing a convolution computes before its
         * patches can fail when it is. */
        if (l->kernel_h < 0 || l->kernel_w < 0) {
            return MC_E_NEGATIVE;
        }
        if (l->kernel_h == 0 || l->kernel_w == 0) {
            return MC_E_RANGE;
        }
        MC_TRY(mc_checked_mul(l->kernel_h, l->kernel_w, &window));
        if (kind != MC_LAYER_POOL2D) {
            MC_TRY(mc_checked_mul(window, l->in_c, &t));
            if (kind == MC_LAYER_DEPTHWISE_CONV2D) {
                /* Each input channel has its own multiplier = C_out / C_in filters. */
                if (l->in_c == 0 || l->out_c % l->in_c != 0) {
                    return MC_E_RANGE;
                }
                t = window;
            }
            MC_TRY(mul_add(t, l->out_c, l->bias ? l->out_c : 0, &r->parameters));
        }
        /* the im2col patch matrix of the window over the output grid */
        MC_TRY(elements(l->out_h, l->out_w, kind == MC_LAYER_POOL2D ? l->out_c : l->in_c, &t));
        MC_TRY(mc_checked_mul(t, window, infer));
        MC_TRY(mc_checked_mul(*infer, kind == MC_LAYER_POOL2D ? 1 : 2, train));
        break;
    case MC_LAYER_GLOBAL_POOL:
        *infer = l->pnorm ? in : 0;
        *train = *infer;
        break;
    case MC_LAYER_EMBEDDING:
        /* in_c is the vocabulary size; one row of out_c values per token. */
        MC_TRY(mul_add(l->in_c, l->out_c, l->bias ? l->out_c : 0, &r->parameters));
        *train = out;
        break;
    case MC_LAYER_AUTOENCODER:
        /* Encoder weights, hidden bias and the decoder's visible bias. */
        MC_TRY(mc_checked_add(l->bias ? out : 0, l->bias ? in : 0, &t));
        MC_TRY(mul_add(in, out, t, &r->parameters));
        MC_TRY(mc_checked_add(in, out, train));
        break;
    case MC_LAYER_L2_DISTANCE:
    case MC_LAYER_L2_NORMALIZE:
        *infer = kind == MC_LAYER_L2_NORMALIZE ? 1 : 0;
        MC_TRY(mul_add(in, 2, 3, train));
        break;
    case MC_LAYER_ADD:
    case MC_LAYER_CONCAT:
        if (l->inputs < 1) {
            return MC_E_RANGE;
        }
        if (kind == MC_LAYER_ADD) {
            MC_TRY(mc_checked_mul(in, l->inputs, &r->input_elements));
        }
        break;
    case MC_LAYER_LSTM:
        MC_TRY(mul_add(units, units, units, &t));        /* recurrent weights, bias */
        MC_TRY(mul_add(l->in_c, units, t, &t));          /* + input weights */
        MC_TRY(mc_checked_mul(t, 4, &r->parameters));    /* four gates */
        MC_TRY(mc_checked_mul(units, 5, infer));         /* the gates and the cell */
        MC_TRY(mc_checked_mul(*infer, l->in_h, train));  /* every step of the sequence */
        break;
    default:
        return MC_E_RANGE;
    }
    if (l->dropout && (KIND(kind) & DROPOUT_KINDS) != 0) {
        MC_TRY(add_to(train, in));
    }
    if (l->state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    return mc_checked_mul(r->parameters, l->state_per_param, &r->updater_state);
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

mc_status_t mc_network_report(const mc_layer_t *layers, int64_t n_layers, int64_t batch,
                              mc_mode_t mode, int64_t bits_per_value,
                              mc_network_report_t *out)
{
    mc_network_report_t r = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    bool training = mode == MC_MODE_TRAINING;
    int64_t i, live_peak = 0, kept = 0;

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

    /* Every figure is >= 0: a sum overflows or not whatever its order. */
    for (i = 0; i < n_layers; i++) {
        mc_layer_report_t l = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        int64_t act_in = 0, act_out = 0, work = 0, live = 0;
        MC_TRY(report(&layers[i], &l));
        MC_TRY(mc_checked_mul(batch, l.input_elements, &act_in));
        MC_TRY(mc_checked_mul(batch, l.output_elements, &act_out));

        MC_TRY(add_to(&r.parameters, l.parameters));
        MC_TRY(add_to(&r.parameters, l.non_trainable));
        MC_TRY(add_to(&r.activations, act_out));
        if (training) {
            MC_TRY(add_to(&r.parameter_gradients, l.parameters));
            MC_TRY(add_to(&r.activation_gradients, act_in));
            MC_TRY(add_to(&r.updater_state, l.updater_state));
        }
        MC_TRY(mul_add(training ? l.training_per_example : l.inference_per_example, batch,
                       training ? l.training_fixed : l.inference_fixed, &work));
        MC_TRY(add_to(&r.cache, training ? l.cache_training : l.cache_inference));
        if (i == 0 || work > r.working_memory) {
            r.working_memory = work;
            r.working_layer = i;
        }
        /* While layer i runs its input and output are live with its scratch; in
         * training these are the gradient pair flowing back, next to every forward
         * output, which backward keeps (added after the loop). */
        MC_TRY(mc_checked_add(act_in, act_out, &live));
        MC_TRY(add_to(&live, work));
        if (live > live_peak) {
            live_peak = live;
        }
    }
    if (training) {
        MC_TRY(add_to(&live_peak, r.activations));
    }

    /* what both totals hold: parameters, their gradients, the updater and the cache */
    MC_TRY(mc_checked_add(r.parameters, r.parameter_gradients, &kept));
    MC_TRY(add_to(&kept, r.updater_state));
    MC_TRY(add_to(&kept, r.cache));
    MC_TRY(mc_checked_add(kept, r.activations, &r.total));
    MC_TRY(add_to(&r.total, r.activation_gradients));
    MC_TRY(add_to(&r.total, r.working_memory));
    MC_TRY(mc_bits_to_bytes(r.total, bits_per_value, &r.total_bytes));

    r.lifetime_activations = live_peak;
    MC_TRY(mc_checked_add(kept, live_peak, &r.lifetime_total));
    MC_TRY(mc_bits_to_bytes(r.lifetime_total, bits_per_value, &r.lifetime_total_bytes));
    *out = r;
    return MC_OK;
}
