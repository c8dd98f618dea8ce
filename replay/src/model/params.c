/* SPDX-License-Identifier: MIT */
/* Parameter files as the pingpong benchmark writes them (docs/parameter-file.md). */
#include <stdio.h>
#include <string.h>

#include "map.h"
#include "retime/model.h"
#include "retime/replay.h"
#include "retime/units.h"
#include "sidefile.h"

/* A parameter file holds a few dozen lines (at most RT_BETA_TABLE_MAX beta@ entries and the
 * info.* lines pingpong writes); 1 MiB leaves room for comments and refuses anything else. */
#define PARAMS_MAX_BYTES (1u << 20)

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
                 struct rt_param_settings *s, rt_error *err)
{
    if (!strcmp(key, "format")) {
        if (strcmp(val, "retime-params 1") != 0)
        {
            char q[RT__QUOTE_SIZE];
            return rt_error_set(err, RT_EUNSUPPORTED, "format '%s' is not 'retime-params 1'",
                                rt__quote(q, sizeof q, val, strlen(val)));
        }
        return RT_OK;
    }
    if (!strncmp(key, "info.", 5))
        return RT_OK; /* for people, not for the replay */
    if (!strncmp(key, "beta@", 5))
        return add_beta(key + 5, val, p, err);
    if (!strcmp(key, "eager_limit")) { /* SIZE, or a library's SETTING=SIZE */
        int rc = rt_eager_limit_parse(val, &s->eager_limit, NULL, err);
        if (rc == RT_OK)
            s->have_eager = 1;
        return rc;
    }
    if (!strcmp(key, "injection")) { /* in-order | shared */
        int rc = rt_injection_parse(val, &s->injection, err);
        if (rc == RT_OK)
            s->have_injection = 1;
        return rc;
    }
    int i = rt_model_param_find(key);
    if (i < 0) {
        char q[RT__QUOTE_SIZE];
        return rt_error_set(err, RT_EINVAL, "unknown key '%s'", rt__quote(q, sizeof q, key, strlen(key)));
    }
    double *dst = rt_model_param_ptr(p, i);
    int rc = rt_model_param_table[i].unit == RT_PU_TIME ? rt_parse_time_ns(val, dst, err)
                                                          : rt_parse_ns_per_byte(val, dst, err);
    if (rc == RT_OK)
        *given |= 1u << i;
    return rc;
}

/* Two independent 64-bit hashes of @p key (FNV-1a from two offsets): the map's key for it. */
static void key_hash(const char *key, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
    for (const unsigned char *s = (const unsigned char *)key; *s; s++) {
        a = (a ^ *s) * 1099511628211ull;
        b = (b ^ *s) * 0x100000001b3ull ^ (b >> 29);
    }
    *h1 = a;
    *h2 = b;
}

int rt_model_params_load(const char *path, struct rt_model_params *p, unsigned *given, struct rt_param_settings *set,
                         rt_error *err)
{
    struct rt__sidefile *f;
    const char *text;
    size_t len;
    char q[RT__QUOTE_SIZE];
    struct rt__map seen; /* each key once (docs/parameter-file.md): key -> its line */
    int rc = rt__sidefile_open(path, "parameter file", PARAMS_MAX_BYTES, &f, err);
    if (rc)
        return rc;
    rt__map_init(&seen);
    char line[RT__SIDEFILE_MAX_LINE + 1];
    while ((rc = rt__sidefile_line(f, &text, &len, err)) > 0) {
        unsigned lineno = rt__sidefile_lineno(f);
        memcpy(line, text, len + 1); /* a copy to cut up into key and value */
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected 'key = value', got '%s'", path, lineno,
                              rt__quote(q, sizeof q, s, strlen(s)));
            goto out;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        rt_error e = {0};
        if (!*key || !*val) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected 'key = value'", path, lineno);
            goto out;
        }
        uint64_t h1, h2, *first;
        key_hash(key, &h1, &h2);
        if (!(first = rt__map_ref(&seen, h1, h2, lineno))) {
            rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        if (*first != lineno) { /* a key again: which value was meant cannot be told */
            rc = rt_error_set(err, RT_EINVAL, "%s:%u: %s: given again (first on line %u); each key appears once", path,
                              lineno, rt__quote(q, sizeof q, key, strlen(key)), (unsigned)*first);
            goto out;
        }
        if ((rc = apply(key, val, p, given, set, &e)) != RT_OK) {
            rc = rt_error_set(err, rc, "%s:%u: %s: %s", path, lineno, rt__quote(q, sizeof q, key, strlen(key)), e.msg);
            goto out;
        }
    }
out:
    rt__map_free(&seen);
    rt__sidefile_close(f);
    return rc < 0 ? rc : RT_OK;
}
