/* SPDX-License-Identifier: MIT */
/* Minimal test macros that print both values on failure (libuv style). */
#ifndef RETIME_TEST_UTIL_H
#define RETIME_TEST_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rt_test_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            rt_test_failures++;                                                       \
        }                                                                             \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                           \
    do {                                                                                             \
        long long a_ = (long long)(a), b_ = (long long)(b);                                          \
        if (a_ != b_) {                                                                              \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_, \
                    b_);                                                                             \
            rt_test_failures++;                                                                      \
        }                                                                                            \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                                 \
    do {                                                                                                      \
        double a_ = (double)(a), b_ = (double)(b);                                                            \
        if (!(fabs(a_ - b_) <= (tol))) {                                                                      \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.6f vs %.6f (tol %g)\n", __FILE__, __LINE__, #a, #b, a_, \
                    b_, (double)(tol));                                                                       \
            rt_test_failures++;                                                                               \
        }                                                                                                     \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                                      \
    do {                                                                                                 \
        const char *h_ = (hay), *n_ = (needle);                                                          \
        if (!h_ || !strstr(h_, n_)) {                                                                    \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, h_ ? h_ : "(null)", \
                    n_);                                                                                 \
            rt_test_failures++;                                                                          \
        }                                                                                                \
    } while (0)

#define TEST_MAIN_END()                                                             \
    do {                                                                            \
        if (rt_test_failures)                                                       \
            fprintf(stderr, "%d check(s) failed\n", rt_test_failures);              \
        return rt_test_failures ? 1 : 0;                                            \
    } while (0)

#endif
