/*
 * Overflow-checked arithmetic on non-negative 64-bit sizes.  Internal to the core.
 *
 * Every size memcore computes goes through these, so a 7-billion-parameter model at
 * 4 bytes (28 GB, past 32 bits) is exact and 2^62 parameters at 4 bytes is an error,
 * never a wrapped number.  Written without compiler builtins so any C99 compiler,
 * including microcontroller cross compilers, builds it.
 */
#ifndef MEMCORE_CHECKED_H
#define MEMCORE_CHECKED_H

#include <stdint.h>

#include "memcore.h"

/* *out = a + b and *out = a * b for a, b >= 0, or MC_E_OVERFLOW.  Out of line (in
 * checked.c) on purpose: inlined, each check costs a 64-bit division sequence at every
 * call site on 32-bit targets, which took the core past 16 KB of code on i386. */
mc_status_t mc_checked_add(int64_t a, int64_t b, int64_t *out);
mc_status_t mc_checked_mul(int64_t a, int64_t b, int64_t *out);

/* *out = ceil(count * bits / 8) without overflowing the intermediate product. */
static inline mc_status_t mc_bits_to_bytes(int64_t count, int64_t bits, int64_t *out)
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

/* Storage widths are 1..64 bits: int4 to float64, and anything wider is a mistake. */
static inline mc_status_t mc_check_bits(int64_t bits)
{
    if (bits < 0) {
        return MC_E_NEGATIVE;
    }
    return (bits == 0 || bits > 64) ? MC_E_RANGE : MC_OK;
}

/* Propagate a non-OK status to the caller. */
#define MC_TRY(expr)                  \
    do {                              \
        mc_status_t mc_try_ = (expr); \
        if (mc_try_ != MC_OK) {       \
            return mc_try_;           \
        }                             \
    } while (0)

#endif /* MEMCORE_CHECKED_H */
