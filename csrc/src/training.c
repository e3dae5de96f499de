/* SPEC 2: values held in one training update of a multilayer perceptron. */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

/* parameters = g·h + h + (L−1)·(h·h + h) + h + 1, and 2·(g + L·h + 1), the values
 * one example keeps (forward values for backward, plus their gradients).  Every step
 * sets *overflow instead of returning: the callers test it once. */
static mc_status_t mlp_shape(int64_t g, int64_t h, int64_t layers, int64_t *parameters,
                             int64_t *values_per_example, bool *overflow)
{
    int64_t deep;

    if (g < 0 || h < 0 || layers < 0) {
        return MC_E_NEGATIVE;
    }
    if (g == 0 || h == 0 || layers == 0) {
        return MC_E_RANGE;
    }
    deep = mc_mul_or_flag(layers - 1, mc_add_or_flag(mc_mul_or_flag(h, h, overflow), h, overflow), overflow);
    *parameters = mc_add_or_flag(mc_add_or_flag(mc_add_or_flag(mc_add_or_flag(mc_mul_or_flag(g, h, overflow),
                                                                              h, overflow),
                                                               deep, overflow),
                                                h, overflow),
                                 1, overflow);
    *values_per_example = mc_mul_or_flag(
        mc_add_or_flag(mc_add_or_flag(g, mc_mul_or_flag(layers, h, overflow), overflow), 1, overflow), 2,
        overflow);
    return MC_OK;
}

/* Parameters, gradients and optimizer state: the part that does not grow with batch. */
static int64_t mlp_fixed(int64_t parameters, int64_t state_per_param, int64_t *state, bool *overflow)
{
    *state = mc_mul_or_flag(parameters, state_per_param, overflow);
    return mc_add_or_flag(mc_add_or_flag(parameters, parameters, overflow), *state, overflow);
}

mc_status_t mc_mlp_training(int64_t inputs, int64_t hidden, int64_t layers, int64_t batch,
                            int64_t state_per_param, int64_t bits_per_value,
                            mc_mlp_training_t *out)
{
    mc_mlp_training_t r;
    int64_t per = 0, fixed = 0;
    bool overflow = false;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (batch < 0 || state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc_check_bits(bits_per_value));
    MC_TRY(mlp_shape(inputs, hidden, layers, &r.parameters, &per, &overflow));
    r.gradients = r.parameters;
    fixed = mlp_fixed(r.parameters, state_per_param, &r.optimizer_state, &overflow);
    r.activations = mc_mul_or_flag(batch, per, &overflow);
    r.total = mc_add_or_flag(fixed, r.activations, &overflow);
    if (overflow) {
        return MC_E_OVERFLOW;
    }
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
    bool overflow = false;

    if (max_batch == NULL) {
        return MC_E_NULL;
    }
    if (budget < 0 || state_per_param < 0) {
        return MC_E_NEGATIVE;
    }
    if (bits_per_value != 0) {
        MC_TRY(mc_check_bits(bits_per_value));
    }
    MC_TRY(mlp_shape(inputs, hidden, layers, &parameters, &per, &overflow));
    fixed = mlp_fixed(parameters, state_per_param, &state, &overflow);
    if (bits_per_value != 0) { /* 1..64: checked above */
        /* Whole values only: floor(budget_bytes * 8 / bits), computed without overflow. */
        budget_values = mc_mul_or_flag(budget / bits_per_value, 8, &overflow) +
                        (int32_t)(budget % bits_per_value) * 8 / (int32_t)bits_per_value; /* bits <= 64 */
    }
    if (overflow) {
        return MC_E_OVERFLOW;
    }
    *max_batch = fixed > budget_values ? -1 : (budget_values - fixed) / per;
    return MC_OK;
}
