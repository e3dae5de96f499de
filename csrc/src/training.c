/* SPEC 2: values held in one training update of a multilayer perceptron. */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

/* parameters = g·h + h + (L−1)·(h·h + h) + h + 1, and 2·(g + L·h + 1), the values
 * one example keeps (forward values for backward, plus their gradients). */
static mc_status_t mlp_shape(int64_t g, int64_t h, int64_t layers, int64_t *parameters,
                             int64_t *values_per_example)
{
    int64_t gh = 0, hh = 0, hidden_block = 0, deep = 0, p = 0, lh = 0, per = 0;

    if (g < 0 || h < 0 || layers < 0) {
        return MC_E_NEGATIVE;
    }
    if (g == 0 || h == 0 || layers == 0) {
        return MC_E_RANGE;
    }
    MC_TRY(mc_checked_mul(g, h, &gh));
    MC_TRY(mc_checked_mul(h, h, &hh));
    MC_TRY(mc_checked_add(hh, h, &hidden_block));
    MC_TRY(mc_checked_mul(layers - 1, hidden_block, &deep));
    MC_TRY(mc_checked_add(gh, h, &p));
    MC_TRY(mc_checked_add(p, deep, &p));
    MC_TRY(mc_checked_add(p, h, &p));
    MC_TRY(mc_checked_add(p, 1, &p));
    MC_TRY(mc_checked_mul(layers, h, &lh));
    MC_TRY(mc_checked_add(g, lh, &per));
    MC_TRY(mc_checked_add(per, 1, &per));
    MC_TRY(mc_checked_mul(per, 2, &per));
    *parameters = p;
    *values_per_example = per;
    return MC_OK;
}

/* Parameters, gradients and optimizer state: the part that does not grow with batch. */
static mc_status_t mlp_fixed(int64_t parameters, int64_t state_per_param, int64_t *state,
                             int64_t *fixed)
{
    int64_t f = 0;
    MC_TRY(mc_checked_mul(parameters, state_per_param, state));
    MC_TRY(mc_checked_add(parameters, parameters, &f));
    MC_TRY(mc_checked_add(f, *state, fixed));
    return MC_OK;
}

mc_status_t mc_mlp_training(int64_t inputs, int64_t hidden, int64_t layers, int64_t batch,
                            int64_t state_per_param, int64_t bits_per_value,
                            mc_mlp_training_t *out)
{
    mc_mlp_training_t r;
    int64_t per = 0, fixed = 0;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (batch < 0 || state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc_check_bits(bits_per_value));
    MC_TRY(mlp_shape(inputs, hidden, layers, &r.parameters, &per));
    r.gradients = r.parameters;
    MC_TRY(mlp_fixed(r.parameters, state_per_param, &r.optimizer_state, &fixed));
    MC_TRY(mc_checked_mul(batch, per, &r.activations));
    MC_TRY(mc_checked_add(fixed, r.activations, &r.total));
    MC_TRY(mc_bits_to_bytes(r.total, bits_per_value, &r.total_bytes));
    r.activation_share = r.total > 0 ? (double)r.activations / (double)r.total : 0;
    *out = r;
    return MC_OK;
}

mc_status_t mc_mlp_max_batch(int64_t inputs, int64_t hidden, int64_t layers, int64_t budget,
                             int64_t state_per_param, int64_t bits_per_value,
                             int64_t *max_batch)
{
    int64_t parameters = 0, per = 0, state = 0, fixed = 0, budget_values = budget;

    if (max_batch == NULL) {
        return MC_E_NULL;
    }
    if (budget < 0 || state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits_per_value != 0) {
        MC_TRY(mc_check_bits(bits_per_value));
    }
    MC_TRY(mlp_shape(inputs, hidden, layers, &parameters, &per));
    MC_TRY(mlp_fixed(parameters, state_per_param, &state, &fixed));
    if (bits_per_value > 0) {
        /* Whole values only: floor(budget_bytes * 8 / bits), computed without overflow. */
        int64_t whole = 0;
        MC_TRY(mc_checked_mul(budget / bits_per_value, 8, &whole));
        budget_values = whole + (budget % bits_per_value) * 8 / bits_per_value;
    }
    *max_batch = fixed > budget_values ? -1 : (budget_values - fixed) / per;
    return MC_OK;
}
