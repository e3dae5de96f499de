/* Finite-number checks without <math.h>, so the core links without libm on any target. */
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
