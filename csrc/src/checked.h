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

#include <stdbool.h>
#include <stdint.h>

#include "memcore.h"

/* *out = a + b and *out = a * b for a, b >= 0, or MC_E_OVERFLOW.  Out of line (in
 * checked.c) on purpose: inlined, each check costs a 64-bit division sequence at every
 * call site on 32-bit targets, which took the core past 16 KB of code on i386. */
mc_status_t mc_checked_add(int64_t a, int64_t b, int64_t *out);
mc_status_t mc_checked_mul(int64_t a, int64_t b, int64_t *out);

/* The same checks for a chain of steps: a + b and a * b, or 0 with *overflow set when
 * the step overflows or an earlier one did.  One flag tested at the end of a formula
 * costs less code than a status tested after every step (about 10 bytes a step on
 * Xtensa and Cortex-M); a formula written so must not return any other error between
 * its first step and the test, so that an overflow is still the error reported. */
int64_t mc_add_or_flag(int64_t a, int64_t b, bool *overflow);
int64_t mc_mul_or_flag(int64_t a, int64_t b, bool *overflow);

/* *out = ceil(count * bits / 8) without overflowing the intermediate product. */
mc_status_t mc_bits_to_bytes(int64_t count, int64_t bits, int64_t *out);

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
