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

/* a * b + c: rows x cols weights plus their biases, fixed + per example x batch.
 * Every operand is >= 0, so whether a sum overflows does not depend on its order. */
#define MUL_ADD(a, b, c, overflow) mc_add_or_flag(mc_mul_or_flag((a), (b), (overflow)), (c), (overflow))

static void add_to(int64_t *sum, int64_t v, bool *overflow)
{
    *sum = mc_add_or_flag(*sum, v, overflow);
}

#define KIND(k) (1u << (k))
/* The layers whose input dropout keeps for training. */
#define DROPOUT_KINDS                                                                          \
    (KIND(MC_LAYER_DENSE) | KIND(MC_LAYER_OUTPUT) | KIND(MC_LAYER_CONV2D) |                   \
     KIND(MC_LAYER_DEPTHWISE_CONV2D) | KIND(MC_LAYER_POOL2D) | KIND(MC_LAYER_AUTOENCODER))

/* The steps of a layer's formulas set `overflow` rather than return; it is tested
 * before any other error can be returned, so an overflow is reported as it happens. */
static mc_status_t report(const mc_layer_t *l, mc_layer_report_t *r)
{
    int64_t in = 0, out = 0, t = 0, window = 0, units = l->out_c;
    int64_t *train = &r->training_per_example, *infer = &r->inference_per_example;
    mc_layer_kind_t kind = l->kind;
    bool overflow = false;

    MC_TRY(elements(l->in_h, l->in_w, l->in_c, &in));
    MC_TRY(elements(l->out_h, l->out_w, l->out_c, &out));
    r->input_elements = in;
    r->output_elements = out;

    switch (kind) {
    case MC_LAYER_DENSE:
    case MC_LAYER_OUTPUT:
        r->parameters = MUL_ADD(in, out, l->bias ? out : 0, &overflow);
        *train = out;
        break;
    case MC_LAYER_ACTIVATION:
        *train = in;
        break;
    case MC_LAYER_DROPOUT:
    case MC_LAYER_RESHAPE:
        break;
    case MC_LAYER_BATCHNORM:
        t = mc_mul_or_flag(l->in_c, 2, &overflow); /* 2n */
        r->parameters = t;
        r->non_trainable = t;
        r->training_fixed = t;
        *train = MUL_ADD(in, 2, mc_add_or_flag(t, out, &overflow), &overflow); /* + output + 2 x input */
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
        window = mc_mul_or_flag(l->kernel_h, l->kernel_w, &overflow);
        if (kind != MC_LAYER_POOL2D) {
            t = mc_mul_or_flag(window, l->in_c, &overflow);
            if (kind == MC_LAYER_DEPTHWISE_CONV2D) {
                if (overflow) {
                    return MC_E_OVERFLOW;
                }
                /* Each input channel has its own multiplier = C_out / C_in filters. */
                if (l->in_c == 0 || l->out_c % l->in_c != 0) {
                    return MC_E_RANGE;
                }
                t = window;
            }
            r->parameters = MUL_ADD(t, l->out_c, l->bias ? l->out_c : 0, &overflow);
        }
        /* the im2col patch matrix of the window over the output grid */
        MC_TRY(elements(l->out_h, l->out_w, kind == MC_LAYER_POOL2D ? l->out_c : l->in_c, &t));
        *infer = mc_mul_or_flag(t, window, &overflow);
        *train = mc_mul_or_flag(*infer, kind == MC_LAYER_POOL2D ? 1 : 2, &overflow);
        break;
    case MC_LAYER_GLOBAL_POOL:
        *infer = l->pnorm ? in : 0;
        *train = *infer;
        break;
    case MC_LAYER_EMBEDDING:
        /* in_c is the vocabulary size; one row of out_c values per token. */
        r->parameters = MUL_ADD(l->in_c, l->out_c, l->bias ? l->out_c : 0, &overflow);
        *train = out;
        break;
    case MC_LAYER_AUTOENCODER:
        /* Encoder weights, hidden bias and the decoder's visible bias. */
        r->parameters = MUL_ADD(in, out, mc_add_or_flag(l->bias ? out : 0, l->bias ? in : 0, &overflow),
                                &overflow);
        *train = mc_add_or_flag(in, out, &overflow);
        break;
    case MC_LAYER_L2_DISTANCE:
    case MC_LAYER_L2_NORMALIZE:
        *infer = kind == MC_LAYER_L2_NORMALIZE ? 1 : 0;
        *train = MUL_ADD(in, 2, 3, &overflow);
        break;
    case MC_LAYER_ADD:
    case MC_LAYER_CONCAT:
        if (l->inputs < 1) {
            return MC_E_RANGE;
        }
        if (kind == MC_LAYER_ADD) {
            r->input_elements = mc_mul_or_flag(in, l->inputs, &overflow);
        }
        break;
    case MC_LAYER_LSTM:
        /* recurrent weights and bias, plus input weights, for four gates */
        r->parameters = mc_mul_or_flag(MUL_ADD(l->in_c, units, MUL_ADD(units, units, units, &overflow),
                                               &overflow),
                                       4, &overflow);
        *infer = mc_mul_or_flag(units, 5, &overflow);        /* the gates and the cell */
        *train = mc_mul_or_flag(*infer, l->in_h, &overflow); /* every step of the sequence */
        break;
    default:
        return MC_E_RANGE;
    }
    if (l->dropout && (KIND(kind) & DROPOUT_KINDS) != 0) {
        add_to(train, in, &overflow);
    }
    if (overflow) {
        return MC_E_OVERFLOW;
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
    int64_t live_peak = 0, kept;
    size_t i; /* over layers[], an array in memory: size_t holds its count */
    bool overflow = false;

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

    /* Every figure is >= 0: a sum overflows or not whatever its order.  A layer's sums
     * set `overflow`, tested before the next layer can fail otherwise. */
    for (i = 0; i < (size_t)n_layers; i++) {
        mc_layer_report_t l = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        int64_t act_in, act_out, work, live;
        MC_TRY(report(&layers[i], &l));
        act_in = mc_mul_or_flag(batch, l.input_elements, &overflow);
        act_out = mc_mul_or_flag(batch, l.output_elements, &overflow);

        add_to(&r.parameters, l.parameters, &overflow);
        add_to(&r.parameters, l.non_trainable, &overflow);
        add_to(&r.activations, act_out, &overflow);
        if (training) {
            add_to(&r.parameter_gradients, l.parameters, &overflow);
            add_to(&r.activation_gradients, act_in, &overflow);
            add_to(&r.updater_state, l.updater_state, &overflow);
        }
        work = MUL_ADD(training ? l.training_per_example : l.inference_per_example, batch,
                       training ? l.training_fixed : l.inference_fixed, &overflow);
        add_to(&r.cache, training ? l.cache_training : l.cache_inference, &overflow);
        if (i == 0 || work > r.working_memory) {
            r.working_memory = work;
            r.working_layer = (int64_t)i;
        }
        /* While layer i runs its input and output are live with its scratch; in
         * training these are the gradient pair flowing back, next to every forward
         * output, which backward keeps (added after the loop). */
        live = mc_add_or_flag(mc_add_or_flag(act_in, act_out, &overflow), work, &overflow);
        if (live > live_peak) {
            live_peak = live;
        }
        if (overflow) {
            return MC_E_OVERFLOW;
        }
    }
    if (training) {
        add_to(&live_peak, r.activations, &overflow);
    }

    /* what both totals hold: parameters, their gradients, the updater and the cache */
    kept = mc_add_or_flag(mc_add_or_flag(mc_add_or_flag(r.parameters, r.parameter_gradients, &overflow),
                                         r.updater_state, &overflow),
                          r.cache, &overflow);
    r.total = mc_add_or_flag(
        mc_add_or_flag(mc_add_or_flag(kept, r.activations, &overflow), r.activation_gradients, &overflow),
        r.working_memory, &overflow);
    r.lifetime_total = mc_add_or_flag(kept, live_peak, &overflow);
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    MC_TRY(mc_bits_to_bytes(r.total, bits_per_value, &r.total_bytes));
    r.lifetime_activations = live_peak;
    MC_TRY(mc_bits_to_bytes(r.lifetime_total, bits_per_value, &r.lifetime_total_bytes));
    *out = r;
    return MC_OK;
}
