/* SPDX-License-Identifier: MIT */
/** @file error.h  retime's one error table: codes, names, descriptions and the error record. */
#ifndef RETIME_ERROR_H
#define RETIME_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro: XX(NAME, description). RT_OK is 0, every error is negative. */
#define RT_ERRNO_MAP(XX)                                                        \
    XX(NOMEM, "out of memory")                                                  \
    XX(INVAL, "invalid argument")                                               \
    XX(IO, "input/output error")                                                \
    XX(NOTFOUND, "file not found")                                              \
    XX(NOTOTF2, "not an OTF2 archive")                                          \
    XX(CORRUPT, "corrupt or truncated trace")                                   \
    XX(UNSUPPORTED, "unsupported trace content")                                \
    XX(UNMATCHED, "unmatched message")                                          \
    XX(MISMATCH, "inconsistent message or collective")                          \
    XX(DEADLOCK, "trace deadlocks under replay")                                \
    XX(RANGE, "value out of range")                                             \
    XX(UNIT, "bad number or unit")                                              \
    XX(REMOTE, "another process of the distributed replay failed")

typedef enum rt_errno {
    RT_OK = 0,
#define RT__ERR_ENUM(name, desc) RT_E##name,
    RT__ERR_FIRST = -100,
    RT_ERRNO_MAP(RT__ERR_ENUM)
#undef RT__ERR_ENUM
    RT__ERR_LAST
} rt_errno;

/** Time in nanoseconds. */
typedef int64_t rt_time_ns;
/** Predicted time in picoseconds: model arithmetic stays exact integer arithmetic. */
typedef int64_t rt_time_ps;
/** A byte count. */
typedef uint64_t rt_bytes;

/** Error record filled by library calls: the code and one line saying what and where. */
typedef struct rt_error {
    int code;        /**< RT_E* code, RT_OK when no error */
    char msg[512];   /**< one line: path, rank/location, event index, what was expected */
} rt_error;

/** Symbolic name of an error code ("RT_ECORRUPT"); never NULL. */
const char *rt_err_name(int code);
/** Human description of an error code; never NULL. */
const char *rt_strerror(int code);
/**
 * Sets @p err (may be NULL) to @p code with a printf-style message and returns @p code,
 * so that callers can write `return rt_error_set(err, RT_EINVAL, "...")`.
 */
int rt_error_set(rt_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
