/* SPDX-License-Identifier: MIT */
/* retime check's baseline file: read with Jansson (every field checked; errors name the file and
 * the field), written by hand in a fixed key order so that it diffs well, and the model settings
 * it records. The format is described in docs/check.md. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "retime/depgraph.h"
#include "retime/units.h"

#include "outfile.h"
#include "sidefile.h"

/* A baseline holds a few kB per trace; 16 MiB is thousands of traces and bounds what a wrong
 * file costs (Jansson's tree takes several times the text). Lines: retime writes one key per
 * line, but a hand-minified baseline (jq -c) is one long line, hence 1 MiB. */
#define BASELINE_MAX_BYTES (16u << 20)
#define BASELINE_MAX_LINE (1u << 20)

/* ------------------------------------------------------------------ freeing */

void check_settings_free(struct check_settings *s)
{
    free(s->net_noise);
    free(s->net_burst);
    for (unsigned i = 0; i < s->n_os; i++)
        free(s->os_noise[i]);
    memset(s, 0, sizeof *s);
}

void check_trace_free(struct check_trace *t)
{
    free(t->path);
    for (size_t i = 0; i < t->ncallsites; i++)
        free(t->callsites[i].label);
    free(t->callsites);
    free(t->regions);
    memset(t, 0, sizeof *t);
}

void check_baseline_free(struct check_baseline *b)
{
    check_settings_free(&b->settings);
    for (size_t i = 0; i < b->ntraces; i++)
        check_trace_free(&b->traces[i]);
    free(b->traces);
    for (size_t i = 0; i < b->nregions; i++)
        free(b->regions[i]);
    free(b->regions);
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------------ settings */

/* The key of model parameter @p i in the file: its name with its unit, e.g. alpha_ns. */
static void param_key(char *buf, size_t n, int i)
{
    snprintf(buf, n, "%s_%s", rt_model_param_table[i].name,
             rt_model_param_table[i].unit == RT_PU_TIME ? "ns" : "ns_per_byte");
}

static int uses_param(const struct check_settings *s, int i)
{
    if (strcmp(rt_model_param_table[i].model, s->model) != 0)
        return 0;
    /* With a β table, the table stands in for β. */
    return !(s->params.nbeta && !strcmp(rt_model_param_table[i].name, "beta"));
}

static int any_noise(const struct check_settings *s)
{
    return s->net_noise || s->n_os || s->net_burst;
}

int check_settings_from_cli(const struct model_cli *m, const struct rt_replay_options *o, struct check_settings *s,
                            rt_error *err)
{
    memset(s, 0, sizeof *s);
    if (strlen(o->model.ops->name) >= sizeof s->model)
        return rt_error_set(err, RT_EINVAL, "model name '%s' is too long", o->model.ops->name);
    strcpy(s->model, o->model.ops->name);
    /* Only the active model's parameters (and its β table): the others do not take part. */
    struct rt_model_params src = o->model.params;
    s->params.nbeta = src.nbeta;
    memcpy(s->params.beta_size, src.beta_size, sizeof src.beta_size);
    memcpy(s->params.beta_at, src.beta_at, sizeof src.beta_at);
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (uses_param(s, i))
            *rt_model_param_ptr(&s->params, i) = *rt_model_param_ptr(&src, i);
    s->eager_limit = o->eager_limit;
    s->compute_scale = o->compute_scale;
    memcpy(s->coll_algo, o->coll_algo, sizeof s->coll_algo);
    if (o->coll_rules && strcmp(rt_coll_rules_name(o->coll_rules), "retime")) {
        if (strlen(rt_coll_rules_name(o->coll_rules)) >= sizeof s->coll_rules) {
            check_settings_free(s);
            return rt_error_set(err, RT_EINVAL, "--coll-algos: a path of %zu characters (at most %zu)",
                                strlen(rt_coll_rules_name(o->coll_rules)), sizeof s->coll_rules - 1);
        }
        strcpy(s->coll_rules, rt_coll_rules_name(o->coll_rules));
    }
    if (m->scale_spec)
        snprintf(s->scale_bytes, sizeof s->scale_bytes, "%s", m->scale_spec); /* (rt_scale_check bounds it) */
    if (m->net_noise && !(s->net_noise = strdup(m->net_noise_spec)))
        goto nomem;
    if (m->net_burst && !(s->net_burst = strdup(m->net_burst_spec)))
        goto nomem;
    for (unsigned i = 0; i < m->n_os_noise && i < CHECK_MAX_OS; i++, s->n_os++)
        if (!(s->os_noise[i] = strdup(m->os_noise_spec[i])))
            goto nomem;
    s->seed = any_noise(s) ? m->seed : 0;
    return RT_OK;
nomem:
    check_settings_free(s);
    return rt_error_set(err, RT_ENOMEM, "out of memory");
}

void check_settings_to_cli(const struct check_settings *s, struct model_cli *m, char *coll_buf, size_t n)
{
    m->model = s->model;
    m->params = s->params;
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (!strcmp(rt_model_param_table[i].model, s->model))
            m->given |= 1u << i; /* β too when a table stands in for it, as model_cli_finish marks it */
    m->eager_limit = s->eager_limit;
    m->have_eager = 1;
    m->compute_scale = s->compute_scale;
    size_t len = 0;
    coll_buf[0] = '\0';
    for (int op = 0; op < RT_COLL_OTHER; op++)
        if (s->coll_algo[op] != RT_ALGO_AUTO && len < n)
            len += (size_t)snprintf(coll_buf + len, n - len, "%s%s=%s", len ? "," : "", rt_coll_op_name(op),
                                    rt_coll_algo_name(s->coll_algo[op]));
    m->coll_spec = len ? coll_buf : NULL;
    m->coll_rules_spec = s->coll_rules[0] ? s->coll_rules : NULL;
    m->scale_spec = s->scale_bytes[0] ? s->scale_bytes : NULL;
    m->net_noise_spec = s->net_noise;
    m->net_burst_spec = s->net_burst;
    for (unsigned i = 0; i < s->n_os; i++)
        m->os_noise_spec[i] = s->os_noise[i];
    m->n_os_noise = s->n_os;
    m->seed = s->seed;
}

/* The shortest decimal text that reads back as @p v (as cli_print_double prints it). */
static void dtext(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

struct item {
    char key[48];
    char val[640];
};

/* The settings as (key, exact value text) pairs, in the order of the file. */
static size_t settings_items(const struct check_settings *s, struct item *it, size_t max)
{
    size_t n = 0;
#define ITEM(k, ...)                                                                \
    do {                                                                            \
        if (n < max) {                                                              \
            snprintf(it[n].key, sizeof it[n].key, "%s", k);                         \
            snprintf(it[n].val, sizeof it[n].val, __VA_ARGS__);                     \
            n++;                                                                    \
        }                                                                           \
    } while (0)
    char key[48], v[40];
    ITEM("model", "%s", s->model);
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (uses_param(s, i)) {
            struct rt_model_params p = s->params;
            param_key(key, sizeof key, i);
            dtext(v, sizeof v, *rt_model_param_ptr(&p, i));
            ITEM(key, "%s", v);
        }
    if (!strcmp(s->model, "hockney")) {
        char t[640] = "none";
        size_t len = 0;
        for (uint32_t i = 0; i < s->params.nbeta && len < sizeof t; i++) {
            dtext(v, sizeof v, s->params.beta_at[i]);
            len += (size_t)snprintf(t + len, sizeof t - len, "%s%" PRIu64 "B:%sns/B", i ? " " : "",
                                    s->params.beta_size[i], v);
        }
        ITEM("beta_table", "%s", t);
    }
    ITEM("eager_limit_bytes", "%" PRIu64, s->eager_limit);
    dtext(v, sizeof v, s->compute_scale);
    ITEM("compute_scale", "%s", v);
    char c[320] = "auto";
    size_t len = 0;
    for (int op = 0; op < RT_COLL_OTHER; op++)
        if (s->coll_algo[op] != RT_ALGO_AUTO && len < sizeof c)
            len += (size_t)snprintf(c + len, sizeof c - len, "%s%s=%s", len ? "," : "", rt_coll_op_name(op),
                                    rt_coll_algo_name(s->coll_algo[op]));
    ITEM("collectives", "%s", c);
    ITEM("coll_algos", "%s", s->coll_rules[0] ? s->coll_rules : "retime");
    ITEM("window", "%s", s->window[0] ? s->window : "all");
    ITEM("scale_bytes", "%s", s->scale_bytes[0] ? s->scale_bytes : "1");
    ITEM("noise.net", "%s", s->net_noise ? s->net_noise : "none");
    char os[640] = "none";
    len = 0;
    for (unsigned i = 0; i < s->n_os && len < sizeof os; i++)
        len += (size_t)snprintf(os + len, sizeof os - len, "%s%s", i ? " + " : "", s->os_noise[i]);
    ITEM("noise.os", "%s", os);
    ITEM("noise.burst", "%s", s->net_burst ? s->net_burst : "none");
    if (any_noise(s))
        ITEM("noise.seed", "%" PRIu64, s->seed);
#undef ITEM
    return n;
}

int check_settings_diff(FILE *f, const char *indent, const struct check_settings *base,
                        const struct check_settings *now)
{
    struct item a[48], b[48];
    size_t na = settings_items(base, a, 48), nb = settings_items(now, b, 48);
    int differ = 0;
    for (size_t i = 0; i < na; i++) {
        size_t j = 0;
        while (j < nb && strcmp(a[i].key, b[j].key))
            j++;
        if (j < nb && !strcmp(a[i].val, b[j].val))
            continue;
        differ++;
        if (f)
            fprintf(f, "%s%-18s %s -> %s\n", indent, a[i].key, a[i].val, j < nb ? b[j].val : "(not used)");
    }
    for (size_t j = 0; j < nb; j++) {
        size_t i = 0;
        while (i < na && strcmp(a[i].key, b[j].key))
            i++;
        if (i < na)
            continue;
        differ++;
        if (f)
            fprintf(f, "%s%-18s (not used) -> %s\n", indent, b[j].key, b[j].val);
    }
    return differ;
}

/* ------------------------------------------------------------------ reading */

struct rd {
    const char *file;
    rt_error *err;
    char qbuf[4][RT__QUOTE_SIZE]; /* q()'s results: up to 4 in one message */
    unsigned qi;
};

/* A string of the file as an error message shows it (rt__quote: at most 60 characters, control
 * bytes escaped); valid until the fourth call after. */
static const char *q(struct rd *r, const char *s)
{
    char *d = r->qbuf[r->qi++ % 4];
    return rt__quote(d, RT__QUOTE_SIZE, s, strlen(s));
}

static int bad(struct rd *r, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct rd *r, const char *where, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_error_set(r->err, RT_EINVAL, "%s: %s%s%s", r->file, where, *where ? ": " : "", what);
}

static const char *jtype(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* "WHERE.KEY" (or "KEY" at the top). */
static const char *field(char *buf, size_t n, const char *where, const char *key)
{
    snprintf(buf, n, "%s%s%s", where, *where ? "." : "", key);
    return buf;
}

/* @p obj must be an object with exactly the keys @p keys (NULL-terminated): the file is written
 * by retime, so an unknown key is most likely a typo in a hand edit, and worth an error. */
static int keys_exact(struct rd *r, const char *where, json_t *obj, const char *const *keys)
{
    const char *k;
    json_t *v;
    if (!json_is_object(obj))
        return bad(r, where, "expected an object, got %s", jtype(obj));
    json_object_foreach(obj, k, v)
    {
        size_t i = 0;
        while (keys[i] && strcmp(keys[i], k))
            i++;
        if (!keys[i])
            return bad(r, where, "unknown key \"%s\"", q(r, k));
    }
    for (size_t i = 0; keys[i]; i++)
        if (!json_object_get(obj, keys[i]))
            return bad(r, where, "missing key \"%s\"", keys[i]);
    return RT_OK;
}

static int get_num(struct rd *r, json_t *obj, const char *where, const char *key, double lo, double hi, double *out)
{
    char w[320];
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        return bad(r, field(w, sizeof w, where, key), "expected a number, got %s", jtype(v));
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return bad(r, field(w, sizeof w, where, key), "%.17g is out of range (%g to %g)", x, lo, hi);
    *out = x;
    return RT_OK;
}

static int get_uint(struct rd *r, json_t *obj, const char *where, const char *key, uint64_t hi, uint64_t *out)
{
    char w[320];
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return bad(r, field(w, sizeof w, where, key), "expected a whole number, got %s", jtype(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > hi)
        return bad(r, field(w, sizeof w, where, key), "%lld is out of range (0 to %" PRIu64 ")", (long long)x, hi);
    *out = (uint64_t)x;
    return RT_OK;
}

/* Strings of the file must hold no control characters (\u0000-\u001f, \u007f): they end up in
 * reports and in error messages, which must not carry raw control bytes to a terminal. */
static int text_ok(struct rd *r, const char *where, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return bad(r, where, "control character in \"%s\"", q(r, s));
    return RT_OK;
}

/* A string (or, with @p nullable, null: *out = NULL). */
static int get_str(struct rd *r, json_t *obj, const char *where, const char *key, int nullable, const char **out)
{
    char w[320];
    json_t *v = json_object_get(obj, key);
    if (nullable && json_is_null(v)) {
        *out = NULL;
        return RT_OK;
    }
    if (!json_is_string(v) || !*json_string_value(v))
        return bad(r, field(w, sizeof w, where, key), "expected a non-empty string%s, got %s",
                   nullable ? " or null" : "", json_is_string(v) ? "an empty one" : jtype(v));
    *out = json_string_value(v);
    return text_ok(r, field(w, sizeof w, where, key), *out);
}

static int dup_str(struct rd *r, const char *s, char **out)
{
    if (!(*out = strdup(s)))
        return rt_error_set(r->err, RT_ENOMEM, "%s: out of memory", r->file);
    return RT_OK;
}

static int known_model(const char *name)
{
    const char *names = rt_model_names(); /* "hockney|logp" */
    size_t n = strlen(name);
    for (const char *p = names; *p;) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (p[len] == '|');
    }
    return 0;
}

static int read_params(struct rd *r, json_t *set, struct check_settings *s)
{
    static const char *const row_keys[] = {"bytes", "beta_ns_per_byte", NULL};
    json_t *p = json_object_get(set, "params"), *bt = json_object_get(set, "beta_table"), *v;
    const char *k;
    char key[48], w[96];
    if (!json_is_null(bt)) {
        if (strcmp(s->model, "hockney") != 0)
            return bad(r, "settings.beta_table", "only the hockney model has a beta table (write null)");
        if (!json_is_array(bt) || json_array_size(bt) == 0 || json_array_size(bt) > RT_BETA_TABLE_MAX)
            return bad(r, "settings.beta_table", "expected null or an array of 1 to %d {bytes, beta_ns_per_byte}",
                       RT_BETA_TABLE_MAX);
        for (size_t i = 0; i < json_array_size(bt); i++) {
            json_t *row = json_array_get(bt, i);
            snprintf(w, sizeof w, "settings.beta_table[%zu]", i);
            uint64_t bytes;
            if (keys_exact(r, w, row, row_keys) || get_uint(r, row, w, "bytes", UINT64_MAX, &bytes) ||
                get_num(r, row, w, "beta_ns_per_byte", -1e6, 1e6, &s->params.beta_at[i]))
                return r->err->code;
            s->params.beta_size[i] = bytes;
        }
        s->params.nbeta = (uint32_t)json_array_size(bt);
    }
    if (!json_is_object(p))
        return bad(r, "settings.params", "expected an object, got %s", jtype(p));
    json_object_foreach(p, k, v)
    {
        int i, found = -1;
        for (i = 0; rt_model_param_table[i].name && found < 0; i++) {
            param_key(key, sizeof key, i);
            if (!strcmp(key, k) && !strcmp(rt_model_param_table[i].model, s->model))
                found = i;
        }
        if (found < 0)
            return bad(r, "settings.params", "unknown key \"%s\" for the %s model", q(r, k), s->model);
        if (!uses_param(s, found))
            return bad(r, "settings.params", "\"%s\" and a beta_table exclude each other", q(r, k));
    }
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (uses_param(s, i)) {
            param_key(key, sizeof key, i);
            if (!json_object_get(p, key))
                return bad(r, "settings.params", "missing key \"%s\" (the %s model needs it)", key, s->model);
            if (get_num(r, p, "settings.params", key, 0, rt_model_param_table[i].unit == RT_PU_TIME ? 1e12 : 1e6,
                        rt_model_param_ptr(&s->params, i)))
                return r->err->code;
        }
    struct rt_model m;
    rt_error e = {0};
    if (rt_model_init(&m, s->model, &s->params, &e))
        return bad(r, "settings", "%s", e.msg);
    return RT_OK;
}

static int read_noise(struct rd *r, json_t *nz, struct check_settings *s)
{
    static const char *const keys[] = {"seed", "net", "os", "burst", NULL};
    const char *spec;
    rt_error e = {0};
    if (json_is_null(nz))
        return RT_OK;
    if (keys_exact(r, "settings.noise", nz, keys))
        return r->err->code;
    /* Seeds go up to 2^64-1 (--seed), beyond what JSON readers keep as integers: those are
     * written as strings of digits. */
    json_t *sd = json_object_get(nz, "seed");
    if (json_is_string(sd)) {
        const char *d = json_string_value(sd);
        char *end;
        errno = 0;
        s->seed = strtoull(d, &end, 10);
        if (*d < '0' || *d > '9' || *end || errno)
            return bad(r, "settings.noise.seed", "expected a whole number from 0 to 2^64-1, got \"%s\"", q(r, d));
    } else if (get_uint(r, nz, "settings.noise", "seed", UINT64_MAX, &s->seed)) {
        return r->err->code;
    }
    if (get_str(r, nz, "settings.noise", "net", 1, &spec))
        return r->err->code;
    if (spec) {
        rt_dist *d = NULL;
        if (rt_dist_parse(spec, &d, &e))
            return bad(r, "settings.noise.net", "%s", e.msg);
        rt_dist_free(d);
        if (dup_str(r, spec, &s->net_noise))
            return r->err->code;
    }
    json_t *os = json_object_get(nz, "os");
    if (!json_is_array(os) || json_array_size(os) > CHECK_MAX_OS)
        return bad(r, "settings.noise.os", "expected an array of at most %d sources", CHECK_MAX_OS);
    for (size_t i = 0; i < json_array_size(os); i++) {
        json_t *o = json_array_get(os, i);
        char w[64];
        snprintf(w, sizeof w, "settings.noise.os[%zu]", i);
        if (!json_is_string(o) || !*json_string_value(o))
            return bad(r, w, "expected a non-empty string, got %s", jtype(o));
        if (text_ok(r, w, json_string_value(o)))
            return r->err->code;
        rt_os_noise *on = NULL;
        int rc = rt_os_noise_add(&on, json_string_value(o), &e);
        rt_os_noise_free(on);
        if (rc)
            return bad(r, w, "%s", e.msg);
        if (dup_str(r, json_string_value(o), &s->os_noise[s->n_os]))
            return r->err->code;
        s->n_os++;
    }
    if (get_str(r, nz, "settings.noise", "burst", 1, &spec))
        return r->err->code;
    if (spec) {
        rt_burst *b = NULL;
        if (rt_burst_parse(spec, &b, &e))
            return bad(r, "settings.noise.burst", "%s", e.msg);
        rt_burst_free(b);
        if (dup_str(r, spec, &s->net_burst))
            return r->err->code;
    }
    if (!any_noise(s))
        return bad(r, "settings.noise", "no noise source in it (write null for no noise)");
    return RT_OK;
}

static int read_settings(struct rd *r, json_t *set, struct check_settings *s)
{
    static const char *const keys[] = {"model", "params", "beta_table", "eager_limit_bytes", "compute_scale",
                                       "collectives", "noise", NULL};
    const char *model, *k, *rules = NULL, *window = NULL;
    json_t *v;
    /* "coll_algos" and "window" are written only when not retime's rules and not the whole run,
     * so that older files read */
    if (json_object_get(set, "coll_algos")) {
        if (get_str(r, set, "settings", "coll_algos", 0, &rules))
            return r->err->code;
        if (!*rules || strlen(rules) >= sizeof s->coll_rules)
            return bad(r, "settings.coll_algos", "expected retime, mpich, openmpi or a rules file's path");
        strcpy(s->coll_rules, strcmp(rules, "retime") ? rules : "");
    }
    if (json_object_get(set, "window")) {
        rt_error e = {0};
        if (get_str(r, set, "settings", "window", 0, &window))
            return r->err->code;
        if (strlen(window) >= sizeof s->window || rt_window_check(window, &e))
            return bad(r, "settings.window", "%s", e.msg[0] ? e.msg : "too long");
        strcpy(s->window, strcmp(window, "all") ? window : "");
    }
    if (json_object_get(set, "scale_bytes")) { /* (written only when given) */
        rt_error e = {0};
        const char *spec;
        if (get_str(r, set, "settings", "scale_bytes", 0, &spec))
            return r->err->code;
        if (strlen(spec) >= sizeof s->scale_bytes || rt_scale_check(spec, &e))
            return bad(r, "settings.scale_bytes", "%s", e.msg[0] ? e.msg : "too long");
        strcpy(s->scale_bytes, spec);
    }
    json_t *rest = json_copy(set); /* the other keys, checked as always */
    if (!rest)
        return bad(r, "settings", "out of memory");
    json_object_del(rest, "coll_algos");
    json_object_del(rest, "window");
    json_object_del(rest, "scale_bytes");
    int krc = keys_exact(r, "settings", rest, keys);
    json_decref(rest);
    if (krc)
        return r->err->code;
    if (get_str(r, set, "settings", "model", 0, &model))
        return r->err->code;
    if (!known_model(model) || strlen(model) >= sizeof s->model)
        return bad(r, "settings.model", "unknown model \"%s\" (known: %s)", q(r, model), rt_model_names());
    strcpy(s->model, model);
    if (read_params(r, set, s) || get_uint(r, set, "settings", "eager_limit_bytes", UINT64_MAX, &s->eager_limit) ||
        get_num(r, set, "settings", "compute_scale", 0, 1e6, &s->compute_scale))
        return r->err->code;
    json_t *coll = json_object_get(set, "collectives");
    if (!json_is_object(coll))
        return bad(r, "settings.collectives", "expected an object, got %s", jtype(coll));
    json_object_foreach(coll, k, v)
    {
        int op = 0;
        while (op < RT_COLL_OTHER && strcmp(rt_coll_op_name(op), k))
            op++;
        if (op == RT_COLL_OTHER)
            return bad(r, "settings.collectives", "unknown collective operation \"%s\"", q(r, k));
    }
    for (int op = 0; op < RT_COLL_OTHER; op++) {
        const char *algo;
        char spec[96], w[64];
        rt_error e = {0};
        snprintf(w, sizeof w, "settings.collectives");
        if (get_str(r, coll, w, rt_coll_op_name(op), 0, &algo))
            return r->err->code;
        snprintf(spec, sizeof spec, "%s=%.60s", rt_coll_op_name(op), algo);
        if (rt_coll_algo_parse(spec, s->coll_algo, &e))
            return bad(r, "settings.collectives", "%s", e.msg);
    }
    return read_noise(r, json_object_get(set, "noise"), s);
}

static int cmp_share(const void *a, const void *b)
{
    const struct check_share *x = a, *y = b;
    return x->pct < y->pct ? 1 : x->pct > y->pct ? -1 : strcmp(x->label, y->label);
}

static int read_trace(struct rd *r, json_t *tr, size_t idx, const struct check_baseline *b, struct check_trace *t)
{
    static const char *const keys[] = {"path", "ranks", "events", "fingerprint", "measured_ns", "predicted_ns",
                                       "regions", "critical_path", NULL};
    static const char *const cp_keys[] = {"compute_pct", "cpu_overhead_pct", "transfer_pct", "collective_pct",
                                          "callsites", NULL};
    static const char *const reg_keys[] = {"instances", "predicted_mean_ns", NULL};
    static const char *const cs_keys[] = {"label", "pct", NULL};
    char w[64], w2[160];
    const char *path, *fp;
    uint64_t u;
    double x;
    snprintf(w, sizeof w, "traces[%zu]", idx);
    if (keys_exact(r, w, tr, keys) || get_str(r, tr, w, "path", 0, &path))
        return r->err->code;
    size_t plen = strlen(path);
    if (path[0] == '/' || path[plen - 1] == '/' || strstr(path, "//"))
        return bad(r, field(w2, sizeof w2, w, "path"),
                   "\"%s\" is not a path relative to the baseline's directory ('/'-separated, no trailing '/')", q(r, path));
    if (dup_str(r, path, &t->path) || get_uint(r, tr, w, "ranks", UINT32_MAX, &u))
        return r->err->code;
    t->ranks = (uint32_t)u;
    if (get_uint(r, tr, w, "events", UINT64_MAX, &t->events) || get_str(r, tr, w, "fingerprint", 0, &fp))
        return r->err->code;
    char *end;
    size_t pre = !strncmp(fp, "fnv1a64-untimed:", 16) ? 16 : !strncmp(fp, "fnv1a64:", 8) ? 8 : 0;
    if (!pre || strlen(fp) != pre + 16 || strspn(fp + pre, "0123456789abcdef") != 16)
        return bad(r, field(w2, sizeof w2, w, "fingerprint"),
                   "expected \"fnv1a64-untimed:\" or \"fnv1a64:\" and 16 hex digits, got \"%s\"", q(r, fp));
    t->fingerprint = strtoull(fp + pre, &end, 16);
    t->untimed = pre == 16;
    if (get_uint(r, tr, w, "measured_ns", INT64_MAX, &u))
        return r->err->code;
    t->measured_ns = (rt_time_ns)u;
    /* ns with ps precision; below 9e15 ns every value with 3 decimals is exact in a double. */
    if (get_num(r, tr, w, "predicted_ns", 0, 9e15, &x))
        return r->err->code;
    t->predicted_ps = llround(x * 1e3);

    json_t *regs = json_object_get(tr, "regions");
    const char *k;
    json_t *v;
    snprintf(w2, sizeof w2, "%s.regions", w);
    if (!json_is_object(regs))
        return bad(r, w2, "expected an object, got %s", jtype(regs));
    json_object_foreach(regs, k, v)
    {
        size_t i = 0;
        while (i < b->nregions && strcmp(b->regions[i], k))
            i++;
        if (i == b->nregions)
            return bad(r, w2, "region \"%s\" is not in the top-level \"regions\" list", q(r, k));
    }
    if (!(t->regions = calloc(b->nregions ? b->nregions : 1, sizeof *t->regions)))
        return rt_error_set(r->err, RT_ENOMEM, "%s: out of memory", r->file);
    for (size_t i = 0; i < b->nregions; i++) {
        char w3[256];
        json_t *rg = json_object_get(regs, b->regions[i]);
        if (!rg)
            return bad(r, w2, "missing region \"%s\"", q(r, b->regions[i]));
        snprintf(w3, sizeof w3, "%s.%s", w2, q(r, b->regions[i]));
        if (keys_exact(r, w3, rg, reg_keys) || get_uint(r, rg, w3, "instances", UINT64_MAX, &t->regions[i].instances))
            return r->err->code;
        json_t *mean = json_object_get(rg, "predicted_mean_ns");
        if (t->regions[i].instances == 0) {
            if (!json_is_null(mean))
                return bad(r, w3, "predicted_mean_ns must be null with 0 instances");
        } else if (get_num(r, rg, w3, "predicted_mean_ns", 0, 9e15, &t->regions[i].mean_ns)) {
            return r->err->code;
        }
        t->regions[i].mean_ns = check_round_ps(t->regions[i].mean_ns); /* as measured (an older file: long) */
    }

    json_t *cp = json_object_get(tr, "critical_path");
    snprintf(w2, sizeof w2, "%s.critical_path", w);
    if (keys_exact(r, w2, cp, cp_keys))
        return r->err->code;
    for (int a = 0; a < CHECK_NACT; a++) {
        char key[40];
        snprintf(key, sizeof key, "%s_pct", rt_activity_name(a));
        if (get_num(r, cp, w2, key, 0, 100, &t->act_pct[a]))
            return r->err->code;
    }
    json_t *cs = json_object_get(cp, "callsites");
    if (!json_is_array(cs)) {
        char w3[200];
        return bad(r, field(w3, sizeof w3, w2, "callsites"), "expected an array, got %s", jtype(cs));
    }
    size_t ncs = json_array_size(cs);
    if (ncs && !(t->callsites = calloc(ncs, sizeof *t->callsites)))
        return rt_error_set(r->err, RT_ENOMEM, "%s: out of memory", r->file);
    for (size_t i = 0; i < ncs; i++) {
        char w3[200];
        const char *label;
        snprintf(w3, sizeof w3, "%s.callsites[%zu]", w2, i);
        json_t *row = json_array_get(cs, i);
        if (keys_exact(r, w3, row, cs_keys) || get_str(r, row, w3, "label", 0, &label) ||
            get_num(r, row, w3, "pct", 0, 100, &t->callsites[i].pct))
            return r->err->code;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->callsites[j].label, label))
                return bad(r, w3, "call site \"%s\" listed twice", q(r, label));
        if (dup_str(r, label, &t->callsites[i].label))
            return r->err->code;
        t->ncallsites++;
    }
    if (t->ncallsites) /* qsort's array must not be NULL, even for no elements */
        qsort(t->callsites, t->ncallsites, sizeof *t->callsites, cmp_share);
    return RT_OK;
}

static int cmp_trace(const void *a, const void *b)
{
    return strcmp(((const struct check_trace *)a)->path, ((const struct check_trace *)b)->path);
}

static int read_baseline(struct rd *r, json_t *root, struct check_baseline *b)
{
    static const char *const keys[] = {"format", "version", "settings", "regions", "traces", NULL};
    json_t *fmt = json_is_object(root) ? json_object_get(root, "format") : NULL;
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), CHECK_FORMAT) != 0)
        return bad(r, "", "not a retime check baseline (expected a JSON object with \"format\": \"%s\")", CHECK_FORMAT);
    uint64_t version;
    if (keys_exact(r, "", root, keys) || get_uint(r, root, "", "version", UINT32_MAX, &version))
        return r->err->code;
    if (version != CHECK_VERSION)
        return bad(r, "version", "baseline version %" PRIu64 "; this retime reads version %d", version, CHECK_VERSION);
    if (read_settings(r, json_object_get(root, "settings"), &b->settings))
        return r->err->code;

    json_t *regs = json_object_get(root, "regions");
    if (!json_is_array(regs))
        return bad(r, "regions", "expected an array of region names, got %s", jtype(regs));
    size_t nr = json_array_size(regs);
    if (nr && !(b->regions = calloc(nr, sizeof *b->regions)))
        return rt_error_set(r->err, RT_ENOMEM, "%s: out of memory", r->file);
    for (size_t i = 0; i < nr; i++) {
        json_t *v = json_array_get(regs, i);
        char w[48];
        snprintf(w, sizeof w, "regions[%zu]", i);
        if (!json_is_string(v) || !*json_string_value(v))
            return bad(r, w, "expected a region name, got %s", jtype(v));
        if (text_ok(r, w, json_string_value(v)))
            return r->err->code;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(b->regions[j], json_string_value(v)))
                return bad(r, w, "region \"%s\" listed twice", q(r, b->regions[j]));
        if (dup_str(r, json_string_value(v), &b->regions[i]))
            return r->err->code;
        b->nregions++;
    }

    json_t *trs = json_object_get(root, "traces");
    if (!json_is_array(trs))
        return bad(r, "traces", "expected an array, got %s", jtype(trs));
    size_t nt = json_array_size(trs);
    if (nt && !(b->traces = calloc(nt, sizeof *b->traces)))
        return rt_error_set(r->err, RT_ENOMEM, "%s: out of memory", r->file);
    for (size_t i = 0; i < nt; i++) {
        b->ntraces++; /* counted first so that a half-read entry is freed */
        if (read_trace(r, json_array_get(trs, i), i, b, &b->traces[i]))
            return r->err->code;
    }
    if (b->ntraces)
        qsort(b->traces, b->ntraces, sizeof *b->traces, cmp_trace);
    for (size_t i = 1; i < b->ntraces; i++)
        if (!strcmp(b->traces[i - 1].path, b->traces[i].path))
            return bad(r, "traces", "trace \"%s\" listed twice", q(r, b->traces[i].path));
    return RT_OK;
}

/* The whole file through the side-file reader (regular files only, bounded in size and line
 * length), its lines joined by '\n' so that Jansson's line numbers stay the file's. */
static int read_text(const char *file, char **text, size_t *len, rt_error *err)
{
    struct rt__sidefile *f;
    const char *line;
    size_t n, cap = 0, used = 0;
    char *buf = NULL;
    int rc = rt__sidefile_open(file, "baseline", BASELINE_MAX_BYTES, &f, err);
    if (rc)
        return rc;
    rt__sidefile_set_max_line(f, BASELINE_MAX_LINE);
    while ((rc = rt__sidefile_line(f, &line, &n, err)) > 0) {
        if (used + n + 2 > cap) { /* n <= BASELINE_MAX_LINE and used <= BASELINE_MAX_BYTES: no overflow */
            size_t c = cap ? cap : 4096;
            while (c < used + n + 2)
                c *= 2;
            char *q = realloc(buf, c);
            if (!q) {
                rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", file);
                break;
            }
            buf = q;
            cap = c;
        }
        memcpy(buf + used, line, n);
        used += n;
        buf[used++] = '\n';
    }
    rt__sidefile_close(f);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = used;
    return RT_OK;
}

int check_baseline_load(const char *file, struct check_baseline *b, rt_error *err)
{
    struct rd r = {.file = file, .err = err};
    char *text = NULL;
    size_t len = 0;
    memset(b, 0, sizeof *b);
    int rc = read_text(file, &text, &len, err);
    if (rc)
        return rc;
    json_error_t je;
    /* Duplicate keys are rejected: in a hand-edited file the second would silently win. */
    json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root) {
        /* Jansson's text quotes the input after " near '": that part goes through rt__quote. */
        const char *near = strstr(je.text, " near '");
        size_t plen = near ? (size_t)(near - je.text) + 7 : strlen(je.text);
        const char *rest = near ? near + 7 : "";
        size_t rlen = strlen(rest) - (near && *rest && rest[strlen(rest) - 1] == '\'' ? 1 : 0);
        char qt[RT__QUOTE_SIZE];
        return rt_error_set(err, RT_EINVAL, "%s:%d:%d: not valid JSON: %.*s%s%s", file, je.line, je.column,
                            (int)plen, je.text, rt__quote(qt, sizeof qt, rest, rlen), near ? "'" : "");
    }
    rc = read_baseline(&r, root, b);
    json_decref(root);
    if (rc)
        check_baseline_free(b);
    return rc;
}

/* ------------------------------------------------------------------ writing */

static void w_num(FILE *f, double v)
{
    cli_print_double(f, v == 0 ? 0.0 : v); /* no "-0" */
}

static void write_settings(FILE *f, const struct check_settings *s)
{
    char key[48];
    fprintf(f, "  \"settings\": {\n    \"model\": ");
    cli_json_string(f, s->model);
    fprintf(f, ",\n    \"params\": {");
    int first = 1;
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (uses_param(s, i)) {
            struct rt_model_params p = s->params;
            param_key(key, sizeof key, i);
            fprintf(f, "%s\n      \"%s\": ", first ? "" : ",", key);
            w_num(f, *rt_model_param_ptr(&p, i));
            first = 0;
        }
    fprintf(f, "\n    },\n    \"beta_table\": ");
    if (!s->params.nbeta) {
        fprintf(f, "null");
    } else {
        fprintf(f, "[");
        for (uint32_t i = 0; i < s->params.nbeta; i++) {
            fprintf(f, "%s\n      {\"bytes\": %" PRIu64 ", \"beta_ns_per_byte\": ", i ? "," : "", s->params.beta_size[i]);
            w_num(f, s->params.beta_at[i]);
            fprintf(f, "}");
        }
        fprintf(f, "\n    ]");
    }
    fprintf(f, ",\n    \"eager_limit_bytes\": %" PRIu64 ",\n    \"compute_scale\": ", s->eager_limit);
    w_num(f, s->compute_scale);
    if (s->coll_rules[0]) {
        fprintf(f, ",\n    \"coll_algos\": ");
        cli_json_string(f, s->coll_rules);
    }
    if (s->window[0]) {
        fprintf(f, ",\n    \"window\": ");
        cli_json_string(f, s->window);
    }
    if (s->scale_bytes[0]) {
        fprintf(f, ",\n    \"scale_bytes\": ");
        cli_json_string(f, s->scale_bytes);
    }
    fprintf(f, ",\n    \"collectives\": {");
    for (int op = 0; op < RT_COLL_OTHER; op++)
        fprintf(f, "%s\n      \"%s\": \"%s\"", op ? "," : "", rt_coll_op_name(op), rt_coll_algo_name(s->coll_algo[op]));
    fprintf(f, "\n    },\n    \"noise\": ");
    if (!any_noise(s)) {
        fprintf(f, "null\n  },\n");
        return;
    }
    if (s->seed > (uint64_t)INT64_MAX)
        fprintf(f, "{\n      \"seed\": \"%" PRIu64 "\",\n      \"net\": ", s->seed);
    else
        fprintf(f, "{\n      \"seed\": %" PRIu64 ",\n      \"net\": ", s->seed);
    if (s->net_noise)
        cli_json_string(f, s->net_noise);
    else
        fprintf(f, "null");
    fprintf(f, ",\n      \"os\": [");
    for (unsigned i = 0; i < s->n_os; i++) {
        fprintf(f, "%s", i ? ", " : "");
        cli_json_string(f, s->os_noise[i]);
    }
    fprintf(f, "],\n      \"burst\": ");
    if (s->net_burst)
        cli_json_string(f, s->net_burst);
    else
        fprintf(f, "null");
    fprintf(f, "\n    }\n  },\n");
}

static void write_trace(FILE *f, const struct check_trace *t, const struct check_baseline *b)
{
    fprintf(f, "    {\n      \"path\": ");
    cli_json_string(f, t->path);
    fprintf(f, ",\n      \"ranks\": %u,\n      \"events\": %" PRIu64 ",\n      \"fingerprint\": \"%s%016" PRIx64
               "\",\n      \"measured_ns\": %" PRId64 ",\n      \"predicted_ns\": ",
            t->ranks, t->events, check_fp_prefix(t->untimed), t->fingerprint, t->measured_ns);
    cli_print_ps_as_ns(f, t->predicted_ps);
    fprintf(f, ",\n      \"regions\": {");
    for (size_t i = 0; i < b->nregions; i++) {
        fprintf(f, "%s\n        ", i ? "," : "");
        cli_json_string(f, b->regions[i]);
        fprintf(f, ": {\"instances\": %" PRIu64 ", \"predicted_mean_ns\": ", t->regions[i].instances);
        if (t->regions[i].instances)
            w_num(f, t->regions[i].mean_ns);
        else
            fprintf(f, "null");
        fprintf(f, "}");
    }
    fprintf(f, "%s},\n      \"critical_path\": {", b->nregions ? "\n      " : "");
    for (int a = 0; a < CHECK_NACT; a++) {
        fprintf(f, "\n        \"%s_pct\": ", rt_activity_name(a));
        w_num(f, t->act_pct[a]);
        fprintf(f, ",");
    }
    fprintf(f, "\n        \"callsites\": [");
    for (size_t i = 0; i < t->ncallsites; i++) {
        fprintf(f, "%s\n          {\"label\": ", i ? "," : "");
        cli_json_string(f, t->callsites[i].label);
        fprintf(f, ", \"pct\": ");
        w_num(f, t->callsites[i].pct);
        fprintf(f, "}");
    }
    fprintf(f, "%s]\n      }\n    }", t->ncallsites ? "\n        " : "");
}

int check_baseline_write(const char *file, const struct check_baseline *b, rt_error *err)
{
    struct rt__outfile *of;
    int rc = rt__outfile_open(file, "baseline", &of, err); /* whole or not at all */
    if (rc)
        return rc;
    FILE *f = rt__outfile_stream(of);
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n", CHECK_FORMAT, CHECK_VERSION);
    write_settings(f, &b->settings);
    fprintf(f, "  \"regions\": [");
    for (size_t i = 0; i < b->nregions; i++) {
        fprintf(f, "%s", i ? ", " : "");
        cli_json_string(f, b->regions[i]);
    }
    fprintf(f, "],\n  \"traces\": [");
    for (size_t i = 0; i < b->ntraces; i++) {
        fprintf(f, "%s\n", i ? "," : "");
        write_trace(f, &b->traces[i], b);
    }
    fprintf(f, "%s]\n}\n", b->ntraces ? "\n  " : "");
    return rt__outfile_close(of, err);
}

/* The lock file is removed on release, so that none is left beside the baseline. A waiter may
 * then hold the lock of a file already removed (or replaced by a newer one): it checks, once it
 * has the lock, that the path still names the file it locked, and tries again if not. */
static char *lock_path(const char *file)
{
    size_t n = strlen(file) + 6;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s.lock", file);
    return path;
}

int check_baseline_lock(const char *file, rt_error *err)
{
    char *path = lock_path(file);
    if (!path)
        return rt_error_set(err, RT_ENOMEM, "out of memory"), -1;
    int fd;
    for (;;) {
        struct stat held, named;
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) {
            rt_error_set(err, RT_EIO, "%s: cannot lock: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            fd = -1;
            break;
        }
        if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino)
            break;
        close(fd);
    }
    free(path);
    return fd;
}

void check_baseline_unlock(const char *file, int fd)
{
    if (fd < 0)
        return;
    char *path = lock_path(file);
    if (path) {
        unlink(path); /* while locked: a waiter then sees its file is gone and tries again */
        free(path);
    }
    close(fd);
}
