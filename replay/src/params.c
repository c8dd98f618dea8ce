/* SPDX-License-Identifier: MIT */
/* Parameter files as the pingpong benchmark writes them (docs/parameter-file.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "retime/model.h"
#include "retime/units.h"

#define LINE_MAX_BYTES 1024

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Adds a `beta@SIZE = VALUE` entry (the Shift paper's Table 1), keeping the table sorted. β may be
 * negative for small sizes (T(m) below α within the noise); T itself is checked by the model. */
static int add_beta(const char *size, const char *val, struct rt_model_params *p, rt_error *err)
{
    rt_bytes m;
    double beta;
    const char *v = val;
    int neg = *v == '-';
    int rc = rt_parse_bytes(size, &m, err);
    if (rc)
        return rc;
    if (m == 0)
        return rt_error_set(err, RT_ERANGE, "size must be above 0 (alpha is T(0))");
    if ((rc = rt_parse_ns_per_byte(v + neg, &beta, err)))
        return rc;
    if (p->nbeta == RT_BETA_TABLE_MAX)
        return rt_error_set(err, RT_ERANGE, "more than %d sizes", RT_BETA_TABLE_MAX);
    uint32_t i = p->nbeta;
    while (i > 0 && p->beta_size[i - 1] > m)
        i--;
    if (i > 0 && p->beta_size[i - 1] == m)
        return rt_error_set(err, RT_EINVAL, "size %llu B given twice", (unsigned long long)m);
    memmove(&p->beta_size[i + 1], &p->beta_size[i], (p->nbeta - i) * sizeof p->beta_size[0]);
    memmove(&p->beta_at[i + 1], &p->beta_at[i], (p->nbeta - i) * sizeof p->beta_at[0]);
    p->beta_size[i] = m;
    p->beta_at[i] = neg ? -beta : beta;
    p->nbeta++;
    return RT_OK;
}

/* Applies one `key = value` pair; returns RT_OK or an error without the file/line prefix. */
static int apply(const char *key, const char *val, struct rt_model_params *p, unsigned *given,
                 rt_bytes *eager_limit, int *have_eager, rt_error *err)
{
    if (!strcmp(key, "format")) {
        if (strcmp(val, "retime-params 1") != 0)
            return rt_error_set(err, RT_EUNSUPPORTED, "format '%s' is not 'retime-params 1'", val);
        return RT_OK;
    }
    if (!strncmp(key, "info.", 5))
        return RT_OK; /* for people, not for the replay */
    if (!strncmp(key, "beta@", 5))
        return add_beta(key + 5, val, p, err);
    if (!strcmp(key, "eager_limit")) {
        int rc = rt_parse_bytes(val, eager_limit, err);
        if (rc == RT_OK)
            *have_eager = 1;
        return rc;
    }
    int i = rt_model_param_find(key);
    if (i < 0)
        return rt_error_set(err, RT_EINVAL, "unknown key '%s'", key);
    double *dst = rt_model_param_ptr(p, i);
    int rc = rt_model_param_table[i].unit == RT_PU_TIME ? rt_parse_time_ns(val, dst, err)
                                                          : rt_parse_ns_per_byte(val, dst, err);
    if (rc == RT_OK)
        *given |= 1u << i;
    return rc;
}

int rt_model_params_load(const char *path, struct rt_model_params *p, unsigned *given, rt_bytes *eager_limit,
                         int *have_eager, rt_error *err)
{
    char line[LINE_MAX_BYTES + 2];
    unsigned lineno = 0;
    int rc = RT_OK;
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_error_set(err, errno == ENOENT ? RT_ENOTFOUND : RT_EIO, "%s: cannot open parameter file: %s",
                            path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strlen(line) > LINE_MAX_BYTES) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: line longer than %d bytes", path, lineno, LINE_MAX_BYTES);
            goto out;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected 'key = value', got '%s'", path, lineno, s);
            goto out;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        rt_error e = {0};
        if (!*key || !*val) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected 'key = value'", path, lineno);
            goto out;
        }
        if ((rc = apply(key, val, p, given, eager_limit, have_eager, &e)) != RT_OK) {
            rc = rt_error_set(err, rc, "%s:%u: %s: %s", path, lineno, key, e.msg);
            goto out;
        }
    }
    if (ferror(f))
        rc = rt_error_set(err, RT_EIO, "%s: read error after line %u", path, lineno);
out:
    fclose(f);
    return rc;
}
