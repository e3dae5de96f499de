/* Finite-number checks without <math.h>, so the core links without libm on any target.
 *
 * The core writes no floating-point literals: where it means an integral double it writes
 * an integer (`x <= 0`, `t / 2`), which C converts to double exactly.  Microcontroller
 * ports of MicroPython with single-precision floats compile every file with
 * -fsingle-precision-constant, which silently turns an unsuffixed literal such as 0.1
 * into a float; integers are immune, so the core's double arithmetic stays double there.
 * CI compiles the core with and without that flag and requires identical objects. */
#ifndef MEMCORE_FLOATS_H
#define MEMCORE_FLOATS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The tests read a double's IEEE 754 bits (binary64 on every target the core is built
 * for: C99 Annex F), not compare it: on a chip without a double-precision FPU (every
 * Cortex-M4F, ESP32 and ESP8266) each comparison is a call into the soft-float library,
 * and these run for every number a board or a configuration brings. */
typedef char mc_double_is_64_bits[sizeof(double) == 8 ? 1 : -1];

static inline uint64_t mc_double_bits(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

/* Not NaN nor an infinity: the exponent is not all ones. */
static inline bool mc_finite(double x)
{
    return ((mc_double_bits(x) >> 52) & 0x7FF) != 0x7FF;
}

/* Finite and >= 0: the sign clear with the exponent not all ones, or -0 (which is >= 0). */
static inline bool mc_finite_nonnegative(double x)
{
    uint64_t bits = mc_double_bits(x);
    return (bits >> 52) < 0x7FF || bits == (uint64_t)1 << 63;
}

#endif /* MEMCORE_FLOATS_H */
