/* SPEC 3: per-layer reports and network totals, numbers worked by hand in comments. */
#include <string.h>

#include "check.h"
#include "memcore.h"

static mc_layer_t layer(mc_layer_kind_t kind, int64_t in_h, int64_t in_w, int64_t in_c,
                        int64_t out_h, int64_t out_w, int64_t out_c)
{
    mc_layer_t l;
    memset(&l, 0, sizeof l);
    l.kind = kind;
    l.in_h = in_h, l.in_w = in_w, l.in_c = in_c;
    l.out_h = out_h, l.out_w = out_w, l.out_c = out_c;
    l.bias = true;
    l.inputs = 1;
    return l;
}

static void layer_reports(void)
{
    mc_layer_report_t r;
    mc_layer_t l = layer(MC_LAYER_DENSE, 1, 1, 784, 1, 1, 100);
    /* 784*100 + 100 */
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 78500);
    CHECK_EQ_I64(r.inference_per_example, 0);
    CHECK_EQ_I64(r.training_per_example, 100);
    l.dropout = true;
    l.state_per_param = 2;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.training_per_example, 884);
    CHECK_EQ_I64(r.updater_state, 157000);

    /* conv 3x3, 28x28x1 -> 26x26x8: 3*3*1*8 + 8 = 80; im2col 1*26*26*9 = 6084 */
    l = layer(MC_LAYER_CONV2D, 28, 28, 1, 26, 26, 8);
    l.kernel_h = l.kernel_w = 3;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 80);
    CHECK_EQ_I64(r.inference_per_example, 6084);
    CHECK_EQ_I64(r.training_per_example, 12168);

    /* depthwise 3x3, 13x13x8 -> 11x11x16 (multiplier 2): 9*16 + 16; im2col 8*11*11*9 */
    l = layer(MC_LAYER_DEPTHWISE_CONV2D, 13, 13, 8, 11, 11, 16);
    l.kernel_h = l.kernel_w = 3;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 160);
    CHECK_EQ_I64(r.inference_per_example, 8712);

    /* max pool 2x2, 26x26x8 -> 13x13x8: 8*13*13*4 = 5408 */
    l = layer(MC_LAYER_POOL2D, 26, 26, 8, 13, 13, 8);
    l.kernel_h = l.kernel_w = 2;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 0);
    CHECK_EQ_I64(r.inference_per_example, 5408);
    CHECK_EQ_I64(r.training_per_example, 5408);

    /* batch norm over 13x13x8 (1352 values): fixed 2n = 16, per example 2*1352 + 1352 + 16 */
    l = layer(MC_LAYER_BATCHNORM, 13, 13, 8, 13, 13, 8);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 16);
    CHECK_EQ_I64(r.non_trainable, 16);
    CHECK_EQ_I64(r.training_fixed, 16);
    CHECK_EQ_I64(r.training_per_example, 4072);

    l = layer(MC_LAYER_ACTIVATION, 1, 1, 50, 1, 1, 50);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.training_per_example, 50);

    l = layer(MC_LAYER_GLOBAL_POOL, 7, 7, 64, 1, 1, 64);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.inference_per_example, 0);
    l.pnorm = true;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.inference_per_example, 3136);

    l = layer(MC_LAYER_L2_NORMALIZE, 1, 1, 128, 1, 1, 128);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.inference_per_example, 1);
    CHECK_EQ_I64(r.training_per_example, 259);

    l = layer(MC_LAYER_L2_DISTANCE, 1, 1, 128, 1, 1, 1);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.inference_per_example, 0);
    CHECK_EQ_I64(r.training_per_example, 259);

    /* autoencoder 20 -> 5: 100 weights + 5 hidden + 20 visible biases */
    l = layer(MC_LAYER_AUTOENCODER, 1, 1, 20, 1, 1, 5);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 125);
    CHECK_EQ_I64(r.training_per_example, 25);

    /* embedding, vocabulary 1000 -> 16 */
    l = layer(MC_LAYER_EMBEDDING, 1, 1, 1000, 1, 1, 16);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 16016);
    CHECK_EQ_I64(r.training_per_example, 16);

    /* LSTM, 10 steps of 8 features, 4 units: 4*(8*4 + 16 + 4) = 208 */
    l = layer(MC_LAYER_LSTM, 10, 1, 8, 10, 1, 4);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_OK);
    CHECK_EQ_I64(r.parameters, 208);
    CHECK_EQ_I64(r.inference_per_example, 20);
    CHECK_EQ_I64(r.training_per_example, 200);

    l = layer(MC_LAYER_DEPTHWISE_CONV2D, 13, 13, 8, 11, 11, 12);
    l.kernel_h = l.kernel_w = 3;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_RANGE); /* 12 is no multiple of 8 */
    l.kind = MC_LAYER_KIND_COUNT;
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_RANGE);
    l = layer(MC_LAYER_DENSE, 1, 1, -4, 1, 1, 3);
    CHECK_EQ_I64(mc_layer_report(&l, &r), MC_E_NEGATIVE);
}

static void network(void)
{
    /* dense 4->3, activation, output 3->2; batch 2 */
    mc_layer_t net[3];
    mc_network_report_t n;
    net[0] = layer(MC_LAYER_DENSE, 1, 1, 4, 1, 1, 3);
    net[1] = layer(MC_LAYER_ACTIVATION, 1, 1, 3, 1, 1, 3);
    net[2] = layer(MC_LAYER_OUTPUT, 1, 1, 3, 1, 1, 2);
    /* inference: 15 + 8 parameters, 2*(3+3+2) activations, no working memory */
    CHECK_EQ_I64(mc_network_report(net, 3, 2, MC_MODE_INFERENCE, 32, &n), MC_OK);
    CHECK_EQ_I64(n.parameters, 23);
    CHECK_EQ_I64(n.activations, 16);
    CHECK_EQ_I64(n.working_memory, 0);
    CHECK_EQ_I64(n.total, 39);
    CHECK_EQ_I64(n.total_bytes, 156);
    /* lifetimes: dense's 2*4 input and 2*3 output are the peak */
    CHECK_EQ_I64(n.lifetime_activations, 14);
    CHECK_EQ_I64(n.lifetime_total, 37);

    /* training with Adam: + 23 gradients + 46 updater + 2*(4+3+3) activation gradients
     * + the largest working memory, 2*3 (dense, first of the ties) */
    net[0].state_per_param = net[1].state_per_param = net[2].state_per_param = 2;
    CHECK_EQ_I64(mc_network_report(net, 3, 2, MC_MODE_TRAINING, 32, &n), MC_OK);
    CHECK_EQ_I64(n.parameter_gradients, 23);
    CHECK_EQ_I64(n.updater_state, 46);
    CHECK_EQ_I64(n.activation_gradients, 20);
    CHECK_EQ_I64(n.working_memory, 6);
    CHECK_EQ_I64(n.working_layer, 0);
    CHECK_EQ_I64(n.total, 134);
    /* forward outputs kept (16) + dense's gradient pair and scratch (8 + 6 + 6) */
    CHECK_EQ_I64(n.lifetime_activations, 36);
    CHECK_EQ_I64(n.lifetime_total, 128);
    CHECK_EQ_I64(mc_network_report(net, 0, 2, MC_MODE_TRAINING, 32, &n), MC_E_RANGE);
    CHECK_EQ_I64(mc_network_report(net, 3, -2, MC_MODE_TRAINING, 32, &n), MC_E_NEGATIVE);
}

int main(void)
{
    layer_reports();
    network();
    return check_report("test_layers");
}
