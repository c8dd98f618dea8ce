/* SPDX-License-Identifier: MIT */
/* Compiler hints shared by the reader and the engine; plain C where the compiler lacks them. */
#ifndef RETIME_COMPILER_H
#define RETIME_COMPILER_H

#if defined(__GNUC__)
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RT_COLD __attribute__((noinline, cold))
/* For the per-event paths whose inlining the compiler's size heuristics would otherwise undo. */
#define RT_HOT_INLINE static inline __attribute__((always_inline))
#else
#define RT_LIKELY(x) (x)
#define RT_UNLIKELY(x) (x)
#define RT_COLD
#define RT_HOT_INLINE static inline
#endif

#endif
