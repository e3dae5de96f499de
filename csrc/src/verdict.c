/* SPEC 4: does a model of this size run on this device, and if not, why not. */
#include <stddef.h>

#include "floats.h"
#include "memcore.h"

static mc_status_t check_device(const mc_device_t *d)
{
    if (d->memory_bytes < 0) {
        return MC_E_NEGATIVE;
    }
    if (!mc_finite(d->read_bytes_per_second) || !mc_finite(d->ops_per_second) ||
        !mc_finite(d->overhead_seconds) || !mc_finite(d->latency_budget_seconds)) {
        return MC_E_NOT_FINITE;
    }
    if (d->read_bytes_per_second <= 0 || d->ops_per_second <= 0 ||
        d->overhead_seconds < 0 || d->latency_budget_seconds < 0) {
        return MC_E_RANGE;
    }
    return MC_OK;
}

mc_status_t mc_verdict(int64_t model_bytes, const mc_device_t *device, mc_verdict_t *out)
{
    mc_verdict_t r;
    mc_status_t rc;

    if (device == NULL || out == NULL) {
        return MC_E_NULL;
    }
    if (model_bytes < 0) {
        return MC_E_NEGATIVE;
    }
    rc = check_device(device);
    if (rc != MC_OK) {
        return rc;
    }
    r.read_seconds = (double)model_bytes / device->read_bytes_per_second;
    /* A zero-memory device fits only an empty model; report how many times too big
     * against one byte rather than dividing by zero. */
    r.times_too_big = (double)model_bytes / (double)(device->memory_bytes > 0 ? device->memory_bytes : 1);
    if (model_bytes > device->memory_bytes) {
        r.status = MC_VERDICT_WILL_NOT_FIT;
    } else if (r.read_seconds > device->latency_budget_seconds) {
        r.status = MC_VERDICT_TOO_SLOW;
    } else {
        r.status = MC_VERDICT_RUNS;
    }
    *out = r;
    return MC_OK;
}
