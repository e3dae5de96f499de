/* A minimal assertion harness for the C unit tests: counts, reports, exits non-zero. */
#ifndef MEMCORE_TEST_CHECK_H
#define MEMCORE_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        check_count++;                                                     \
        if (!(cond)) {                                                     \
            check_failures++;                                              \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                  \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                 \
    do {                                                                   \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);   \
        check_count++;                                                     \
        if (check_a_ != check_b_) {                                        \
            check_failures++;                                              \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, \
                    check_a_, check_b_);                                   \
        }                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                              \
    do {                                                                   \
        double check_a_ = (a), check_b_ = (b);                             \
        check_count++;                                                     \
        if (!(check_a_ - check_b_ <= (tol) && check_b_ - check_a_ <= (tol))) { \
            check_failures++;                                              \
            fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, #a, \
                    check_a_, check_b_);                                   \
        }                                                                  \
    } while (0)

static int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
