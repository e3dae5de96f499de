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
#include <float.h>

/* NaN fails every comparison; infinities lie outside [-DBL_MAX, DBL_MAX]. */
static inline bool mc_finite(double x)
{
    return x >= -DBL_MAX && x <= DBL_MAX;
}

#endif /* MEMCORE_FLOATS_H */
