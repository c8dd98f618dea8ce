/* SPDX-License-Identifier: MIT */
/* The error table: names and descriptions generated from RT_ERRNO_MAP. */
#include "retime/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *rt_err_name(int code)
{
    switch (code) {
    case RT_OK: return "RT_OK";
#define RT__ERR_NAME(name, desc) case RT_E##name: return "RT_E" #name;
        RT_ERRNO_MAP(RT__ERR_NAME)
#undef RT__ERR_NAME
    default: return "RT_EUNKNOWN";
    }
}

const char *rt_strerror(int code)
{
    switch (code) {
    case RT_OK: return "success";
#define RT__ERR_DESC(name, desc) case RT_E##name: return desc;
        RT_ERRNO_MAP(RT__ERR_DESC)
#undef RT__ERR_DESC
    default: return "unknown error";
    }
}

int rt_error_set(rt_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}
