/* SPEC 1: the deployment budget, its dominant term and the largest batch that fits. */
#include <stddef.h>

#include "checked.h"
#include "memcore.h"

mc_status_t mc_budget(int64_t parameters, int64_t bits_per_parameter, int64_t batch,
                      int64_t activation_bytes_per_example, int64_t runtime_bytes,
                      int64_t limit_bytes, mc_budget_t *out)
{
    mc_budget_t r;
    int64_t fixed = 0;

    if (out == NULL) {
        return MC_E_NULL;
    }
    if (parameters < 0 || batch < 0 || activation_bytes_per_example < 0 || runtime_bytes < 0 ||
        limit_bytes < 0) {
        return MC_E_NEGATIVE;
    }
    MC_TRY(mc_check_bits(bits_per_parameter));
    MC_TRY(mc_bits_to_bytes(parameters, bits_per_parameter, &r.parameter_bytes));
    MC_TRY(mc_checked_mul(batch, activation_bytes_per_example, &r.activation_bytes));
    r.runtime_bytes = runtime_bytes;
    MC_TRY(mc_checked_add(r.parameter_bytes, r.runtime_bytes, &fixed));
    MC_TRY(mc_checked_add(fixed, r.activation_bytes, &r.required_bytes));
    /* Both operands are in [0, INT64_MAX], so the difference cannot overflow. */
    r.headroom_bytes = limit_bytes - r.required_bytes;
    r.fits = r.headroom_bytes >= 0;

    r.dominant = MC_TERM_PARAMETERS;
    if (r.activation_bytes > r.parameter_bytes) {
        r.dominant = MC_TERM_ACTIVATIONS;
    }
    if (r.runtime_bytes > (r.dominant == MC_TERM_PARAMETERS ? r.parameter_bytes : r.activation_bytes)) {
        r.dominant = MC_TERM_RUNTIME;
    }

    r.fits_at_batch_zero = fixed <= limit_bytes;
    if (!r.fits_at_batch_zero) {
        r.max_batch = -1;
    } else if (activation_bytes_per_example == 0) {
        r.max_batch = MC_UNBOUNDED;
    } else {
        r.max_batch = (limit_bytes - fixed) / activation_bytes_per_example;
    }
    *out = r;
    return MC_OK;
}
