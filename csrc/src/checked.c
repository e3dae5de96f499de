/* The overflow checks every size computation goes through (see checked.h). */
#include "checked.h"

mc_status_t mc_checked_add(int64_t a, int64_t b, int64_t *out)
{
    if (a > INT64_MAX - b) {
        return MC_E_OVERFLOW;
    }
    *out = a + b;
    return MC_OK;
}

mc_status_t mc_checked_mul(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a) {
        return MC_E_OVERFLOW;
    }
    *out = a * b;
    return MC_OK;
}
