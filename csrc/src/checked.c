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

int64_t mc_add_or_flag(int64_t a, int64_t b, bool *overflow)
{
    if (*overflow || a > INT64_MAX - b) {
        *overflow = true;
        return 0;
    }
    return a + b;
}

int64_t mc_mul_or_flag(int64_t a, int64_t b, bool *overflow)
{
    if (*overflow || (a != 0 && b > INT64_MAX / a)) {
        *overflow = true;
        return 0;
    }
    return a * b;
}

mc_status_t mc_bits_to_bytes(int64_t count, int64_t bits, int64_t *out)
{
    /* count * bits / 8 == (count / 8) * bits + (count % 8) * bits / 8 */
    int64_t whole = 0;
    int64_t rest = 0;
    mc_status_t rc = mc_checked_mul(count / 8, bits, &whole);
    if (rc != MC_OK) {
        return rc;
    }
    rc = mc_checked_mul(count % 8, bits, &rest);
    if (rc != MC_OK) {
        return rc;
    }
    return mc_checked_add(whole, (rest + 7) / 8, out);
}
