/*
 * Shared pieces of the libFuzzer targets: an input decoder that favours the values
 * that break size arithmetic (0, 1, -1, 2^31, 2^32, 2^53, 2^62, INT64_MAX/MIN) and
 * floats (NaN, infinities, -0, DBL_MAX, denormals), and an assertion that aborts so
 * libFuzzer (or the replay driver) records the input.
 *
 * Every target defines LLVMFuzzerTestOneInput and checks that each result is either
 * an error status the inputs call for, or self-consistent against a 128-bit
 * reference computed here.  Host only (x86-64, clang or gcc).
 */
#ifndef MEMCORE_FUZZ_H
#define MEMCORE_FUZZ_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcore.h"

__extension__ typedef __int128 i128;

#define FUZZ_ASSERT(cond)                                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                            \
        }                                                                       \
    } while (0)

typedef struct {
    const uint8_t *p;
    size_t n;
} fuzz_in_t;

static uint8_t fuzz_u8(fuzz_in_t *in)
{
    uint8_t b = 0;
    if (in->n > 0) {
        b = in->p[0];
        in->p++;
        in->n--;
    }
    return b;
}

static uint64_t fuzz_raw(fuzz_in_t *in, int bytes)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes; i++) {
        v |= (uint64_t)fuzz_u8(in) << (8 * i);
    }
    return v;
}

static int64_t fuzz_i64(fuzz_in_t *in)
{
    static const int64_t special[] = {
        0, 1, 2, 3, 4, 7, 8, 16, 32, 63, 64, 65, -1, -2, INT64_MAX, INT64_MIN,
        INT64_MAX - 1, INT64_MAX / 2, INT64_MAX / 4 + 1, (int64_t)1 << 31, (int64_t)1 << 32,
        ((int64_t)1 << 32) + 1, (int64_t)1 << 53, ((int64_t)1 << 53) + 1, (int64_t)1 << 62,
        ((int64_t)1 << 62) + 1, INT64_MAX / 8, INT64_MAX / 3, 1000000007, 3037000499,
        3037000500};
    uint8_t sel = fuzz_u8(in);
    switch (sel & 3) {
    case 0:
        return special[(sel >> 2) % (sizeof special / sizeof special[0])];
    case 1:
        return (int64_t)(sel >> 2) - 8;
    case 2:
        return (int64_t)fuzz_raw(in, 8);
    default:
        return (int64_t)fuzz_raw(in, 2);
    }
}

static double fuzz_f64(fuzz_in_t *in)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e9, 153.0, 1e-300,
                                     1e300, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
                                     2.9999999999999996, 1e18, 9.2e18};
    uint8_t sel = fuzz_u8(in);
    uint64_t bits;
    double d;
    switch (sel & 3) {
    case 0:
        switch (sel >> 2) {
        case 60: return (double)NAN;
        case 61: return (double)INFINITY;
        case 62: return -(double)INFINITY;
        default: return special[(sel >> 2) % (sizeof special / sizeof special[0])];
        }
    case 1:
        return (double)(sel >> 2) / 4.0;
    case 2:
        bits = fuzz_raw(in, 8);
        memcpy(&d, &bits, sizeof d);
        return d;
    default:
        return (double)fuzz_raw(in, 2) + 1.0;
    }
}

/* The finite check the core uses, restated. */
static int fuzz_finite(double x)
{
    return x >= -DBL_MAX && x <= DBL_MAX;
}

/* ceil(count * bits / 8) in 128 bits. */
static i128 fuzz_bytes(i128 count, int64_t bits)
{
    return (count * bits + 7) / 8;
}

#endif
