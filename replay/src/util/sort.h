/* SPDX-License-Identifier: MIT */
/* A merge sort for the replay's hot arrays of small structs (the flows and arrivals of one time),
 * its comparison inlined: qsort calls its comparison through a pointer for each pair, which costs
 * more than the comparison. RT_SORT_DEFINE(name, T, less) defines
 *     static void name(T *a, T *tmp, size_t n)
 * sorting a[0..n) by the strict order less(const T *, const T *), stably, with room tmp for n / 2
 * elements (not overlapping a). */
#ifndef RETIME_SORT_H
#define RETIME_SORT_H

#include <stddef.h>
#include <string.h>

#define RT_SORT_DEFINE(name, T, less)                                                      \
    static void name(T *a, T *tmp, size_t n)                                               \
    {                                                                                      \
        if (n <= 16) { /* insertion */                                                     \
            for (size_t i_ = 1; i_ < n; i_++) {                                            \
                T x_ = a[i_];                                                              \
                size_t j_ = i_;                                                            \
                for (; j_ > 0 && less(&x_, &a[j_ - 1]); j_--)                              \
                    a[j_] = a[j_ - 1];                                                     \
                a[j_] = x_;                                                                \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        size_t h_ = n / 2;                                                                 \
        name(a, tmp, h_);                                                                  \
        name(a + h_, tmp, n - h_);                                                         \
        if (!less(&a[h_], &a[h_ - 1]))                                                     \
            return; /* the halves are in order already */                                  \
        /* the left half out of the way; writes at k never pass the right half's j */      \
        memcpy(tmp, a, h_ * sizeof *a);                                                    \
        size_t i_ = 0, j_ = h_, k_ = 0;                                                    \
        while (i_ < h_ && j_ < n)                                                          \
            a[k_++] = less(&a[j_], &tmp[i_]) ? a[j_++] : tmp[i_++];                        \
        while (i_ < h_)                                                                    \
            a[k_++] = tmp[i_++];                                                           \
    }

#endif
