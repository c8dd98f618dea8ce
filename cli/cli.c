/* SPDX-License-Identifier: MIT */
/* Shared pieces of the retime command-line tool. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "distributed.h"
#include "montecarlo.h"
#include "progress.h"
#include "retime/units.h"

static int quiet_errors;

void cli_quiet_errors(int quiet) { quiet_errors = quiet; }

/* "retime: KIND: " and the message, its control bytes escaped (it may quote names from a trace
 * or the command line), and one newline, on stderr. */
static void say(const char *kind, const char *msg)
{
    fprintf(stderr, "retime: %s: ", kind);
    cli_text(stderr, msg, 0);
    fputc('\n', stderr);
}

int cli_die(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    if (quiet_errors)
        return 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say("error", msg);
    return 1;
}

int cli_fail(const rt_error *err)
{
    if (err->code == RT_EREMOTE) /* the failing process tells */
        return 1;
    say("error", err->msg[0] ? err->msg : rt_strerror(err->code));
    return 1;
}

int cli_region_error(rt_error *err, const rt_trace *t, uint32_t reg, const char *name)
{
    char list[600];
    rt_trace_region_list(t, list, sizeof list);
    return rt_error_set(err, RT_EINVAL, "%s: %s '%.80s%s' in this trace (regions: %s)", rt_trace_path(t),
                        reg == RT_NONE ? "no region named" : "no instance of region", name,
                        strlen(name) > 80 ? "..." : "", list);
}

static unsigned trace_flags;

void cli_set_trace_flags(unsigned flags) { trace_flags = flags; }
unsigned cli_trace_flags(void) { return trace_flags; }

/* --memory-budget: UINT64_MAX until given (then half the machine's memory, cli_memory_budget). */
static uint64_t memory_budget = UINT64_MAX;

void cli_set_memory_budget(uint64_t bytes) { memory_budget = bytes; }

uint64_t cli_memory_budget(void)
{
    if (memory_budget != UINT64_MAX)
        return memory_budget;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)4 << 30;
}

char *cli_format_bytes(char *buf, size_t n, double bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.3g%s" : "%.0f%s", bytes, unit[u]);
    return buf;
}

int cli_trace_open_budget(const char *path, const char *whole_why, rt_trace **t, rt_error *err)
{
    /* The definitions first (the rows' declared event counts): a trace over the budget is
     * streamed where the command can (replay), refused with its size where it cannot. A trace
     * whose definitions cannot be read that way is left to the whole read, which says why. */
    rt_trace *s = NULL;
    rt_error e = {0};
    *t = NULL;
    if (rt_trace_open_flags(path, trace_flags | RT_TRACE_STREAM, &s, &e) == RT_OK) {
        uint64_t n = rt_trace_declared_events(s), budget = cli_memory_budget();
        double need = (double)n * RT_TRACE_EVENT_BYTES;
        char a[32], b[32];
        if (need > (double)budget) {
            cli_format_bytes(a, sizeof a, need);
            cli_format_bytes(b, sizeof b, (double)budget);
            if (!whole_why) {
                /* Streamed, every rank being read holds OTF2's buffers: with many long ranks that
                 * is more than the whole read, and then it cannot help (--memory-budget 0 streams
                 * all). (Estimated only here, where the command can stream: it looks at every
                 * rank's file.) */
                double sneed = (double)rt_trace_stream_bytes(s);
                char c[32];
                cli_format_bytes(c, sizeof c, sneed);
                if (budget && sneed > (double)budget && sneed > need) {
                    int rc = rt_error_set(err, RT_ENOMEM, "%s: %" PRIu64 " events need about %s in memory read whole, "
                                                          "and about %s streamed (%u ranks read at once, each holding "
                                                          "one or two of OTF2's event chunks), over --memory-budget "
                                                          "%s: raise --memory-budget to read it whole",
                                          rt_trace_path(s), n, a, c, rt_trace_ranks(s), b);
                    rt_trace_close(s);
                    return rc;
                }
                if (!progress_quiet())
                    fprintf(stderr, "retime: note: %s: %" PRIu64 " events need about %s in memory, over --memory-budget "
                                    "%s: streamed in about %s (each rank's events read as the replay reaches them)\n",
                            rt_trace_path(s), n, a, b, c);
                *t = s;
                return RT_OK;
            }
            int rc = rt_error_set(err, RT_ENOMEM, "%s: %" PRIu64 " events need about %s in memory, over --memory-budget "
                                                  "%s, and %s: raise --memory-budget to read it whole",
                                  rt_trace_path(s), n, a, b, whole_why);
            rt_trace_close(s);
            return rc;
        }
        rt_trace_close(s);
    }
    return rt_trace_open_flags(path, trace_flags, t, err);
}

int cli_trace_open(const char *path, rt_trace **t, rt_error *err)
{
    return cli_trace_open_budget(path, "this command holds every event", t, err);
}

/* "MPI rank 2 missing: 12 messages to it and 10 from it dropped, 4 collective records timed without
 * it, 1 rooted at it kept as measured time" into @p buf; 0 when no rank is missing. */
static size_t missing_phrase(const rt_trace *t, char *buf, size_t n)
{
    const struct rt_trace_stats *st = rt_trace_stats(t);
    char ranks[200];
    size_t r = 0;
    if (!st->missing_ranks)
        return 0;
    for (uint32_t i = 0; i < st->missing_ranks && i < 16; i++)
        r += (size_t)snprintf(ranks + r, sizeof ranks - r, "%s%u", i ? ", " : "", rt_trace_missing_rank(t, i));
    if (st->missing_ranks > 16)
        snprintf(ranks + r, sizeof ranks - r, " and %u more", st->missing_ranks - 16);
    const char *it = st->missing_ranks == 1 ? "it" : "them";
    int k = snprintf(buf, n, "MPI rank%s %s missing: %llu message%s to %s and %llu from %s dropped, %llu collective "
                     "record%s timed without %s, %llu rooted at %s kept as measured time",
                     st->missing_ranks == 1 ? "" : "s", ranks, (unsigned long long)st->missing_sends,
                     st->missing_sends == 1 ? "" : "s", it, (unsigned long long)st->missing_recvs, it,
                     (unsigned long long)st->missing_colls, st->missing_colls == 1 ? "" : "s", it,
                     (unsigned long long)st->missing_roots, it);
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

void cli_coverage_text(FILE *f, const rt_trace *t, int width)
{
    char what[2000], missing[400] = "";
    size_t k = rt_trace_coverage(t, what, sizeof what), m = missing_phrase(t, missing, sizeof missing);
    if (!k && !m)
        return;
    fprintf(f, "%-*s %s%s%s\n", width - 1, "not replayed", what, k && m ? "; " : "", missing);
}

void cli_coverage_json(FILE *f, const rt_trace *t)
{
    const struct rt_trace_stats *st = rt_trace_stats(t);
    char what[2000];
    size_t k = rt_trace_coverage(t, what, sizeof what);
    if (!k && !st->missing_ranks)
        return;
    fprintf(f, ", \"not_replayed\": {\"text\": ");
    cli_json_string(f, what);
    fprintf(f, ", \"kinds\": [");
    for (int i = 0, n = 0; i < RT_SKIP_KINDS; i++) {
        const struct rt_trace_skip *s = &st->skipped[i];
        if (!s->records)
            continue;
        fprintf(f, "%s{\"kind\": ", n++ ? ", " : "");
        cli_json_string(f, rt_skip_kind_name(i));
        fprintf(f, ", \"records\": %" PRIu64, s->records);
        if (s->worst_ns > 0 && s->span_ns > 0 && s->worst_rank != RT_NONE)
            fprintf(f, ", \"worst_rank\": %u, \"time_ns\": %" PRId64 ", \"rank_span_ns\": %" PRId64 ", \"share\": %.6f",
                    rt_trace_rank_label(t, s->worst_rank), s->worst_ns, s->span_ns, (double)s->worst_ns / (double)s->span_ns);
        fprintf(f, "}");
    }
    fprintf(f, "], \"missing_ranks\": [");
    for (uint32_t i = 0; i < st->missing_ranks; i++)
        fprintf(f, "%s%u", i ? ", " : "", rt_trace_missing_rank(t, i));
    fprintf(f, "], \"missing_messages_to\": %" PRIu64 ", \"missing_messages_from\": %" PRIu64
            ", \"collectives_without_missing\": %" PRIu64 ", \"collectives_rooted_at_missing\": %" PRIu64 "}",
            st->missing_sends, st->missing_recvs, st->missing_colls, st->missing_roots);
}

void cli_warn_dropped(const rt_trace *t)
{
    char what[200], msg[4400];
    char missing[400];
    if (missing_phrase(t, missing, sizeof missing)) {
        snprintf(msg, sizeof msg, "%s: %s (--allow-missing-ranks)", rt_trace_path(t), missing);
        say("warning", msg);
    }
    if (rt_trace_dropped(t, what, sizeof what)) {
        snprintf(msg, sizeof msg, "%s: dropped %s (not replayed)", rt_trace_path(t), what);
        say("warning", msg);
    }
    uint64_t kept = rt_trace_stats(t)->measured_collectives;
    if (kept) {
        snprintf(msg, sizeof msg, "%s: %llu set-up collective record%s (MPI_Init, MPI_Finalize, communicator or window "
                 "creation) kept as measured time, not timed by the model", rt_trace_path(t), (unsigned long long)kept,
                 kept == 1 ? "" : "s");
        say("note", msg);
    }
    const struct rt_trace_clock_offsets *c = &rt_trace_stats(t)->clock;
    if (c->drift_ranks) {
        char mv[32], unc[32];
        rt_format_time(mv, sizeof mv, (double)c->drift_ns);
        rt_format_time(unc, sizeof unc, (double)c->drift_uncertainty_ns);
        snprintf(msg, sizeof msg, "%s: the clock offsets of %u rank%s move between their first and last record by more "
                 "than their stated uncertainty (rank %u: by %s, stated %s): a drifting clock or a bad measurement; "
                 "OTF2 interpolates them, so messages may read as received before sent (--fix-clocks repairs that)",
                 rt_trace_path(t), c->drift_ranks, c->drift_ranks == 1 ? "" : "s", rt_trace_rank_label(t, c->drift_rank),
                 mv, unc);
        say("warning", msg);
    }
    uint64_t unknown = rt_trace_stats(t)->unknown_coll_ops;
    if (unknown) {
        snprintf(msg, sizeof msg, "%s: %llu collective record%s of an operation OTF2 3 does not define (a newer "
                 "writer's?) timed as dissemination rounds of their largest count", rt_trace_path(t),
                 (unsigned long long)unknown, unknown == 1 ? "" : "s");
        say("warning", msg);
    }
}

uint32_t cli_call_at(const rt_trace *t, uint32_t rank, uint64_t j, uint64_t *enter)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, rank, &n);
    int depth = 0;
    for (uint64_t k = j < n ? j + 1 : n; k-- > 0;) {
        if (!(ev[k].flags & RT_EVF_MPI) || (ev[k].kind != RT_EV_ENTER && ev[k].kind != RT_EV_LEAVE))
            continue;
        if (ev[k].kind == RT_EV_LEAVE && k != j)
            depth++;
        else if (ev[k].kind == RT_EV_ENTER && depth-- == 0) {
            *enter = k;
            return ev[k].ref;
        }
    }
    return RT_NONE;
}

void cli_warn_cut(const rt_trace *t, const struct rt_replay_result *res)
{
    char msg[1200], who[48];
    for (uint32_t r = 0; res->cut_event && r < res->ranks; r++) {
        uint64_t j = res->cut_event[r], enter;
        if (j == UINT64_MAX)
            continue;
        uint32_t reg = cli_call_at(t, r, j, &enter);
        snprintf(who, sizeof who, res->cut_waits_for[r] != RT_NONE ? ", waiting for rank %u" : "",
                 rt_trace_rank_label(t, res->cut_waits_for[r]));
        snprintf(msg, sizeof msg, "%s: rank %u replayed up to its event %llu (in %s%s): the run stopped before it "
                 "completed", rt_trace_path(t), rt_trace_rank_label(t, r), (unsigned long long)j,
                 reg != RT_NONE ? rt_trace_region(t, reg)->name : "no MPI call", who);
        say("warning", msg);
    }
    if (res->in_flight) {
        snprintf(msg, sizeof msg, "%s: %llu message%s sent but never received: in flight when the run stopped",
                 rt_trace_path(t), (unsigned long long)res->in_flight, res->in_flight == 1 ? " was" : "s were");
        say("warning", msg);
    }
}

uint32_t cli_cpu_wait_totals(const rt_trace *t, rt_time_ns *wall, rt_time_ns *waited, double *worst_share)
{
    rt_time_ns w, q;
    uint32_t worst = RT_NONE;
    double most = -1;
    *wall = *waited = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        rt_trace_compute_time(t, r, &w, &q);
        *wall += w;
        *waited += q;
        double share = w > 0 ? (double)q / (double)w : 0;
        if (share > most) {
            most = share;
            worst = r;
        }
    }
    if (worst_share)
        *worst_share = most;
    return worst;
}

int cli_cpu_wait_text(const rt_trace *t, char *buf, size_t cap)
{
    if (!rt_trace_has_cpu_time(t))
        return 0;
    rt_time_ns wall, waited;
    double worst_share;
    uint32_t worst = cli_cpu_wait_totals(t, &wall, &waited, &worst_share);
    char a[32], b[32];
    rt_format_time(a, sizeof a, (double)waited);
    rt_format_time(b, sizeof b, (double)wall);
    int n = snprintf(buf, cap, "%s of %s compute (%.1f %%, all ranks) was waiting for a CPU, not running", a, b,
                     wall > 0 ? 100.0 * (double)waited / (double)wall : 0.0);
    if (worst != RT_NONE && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "; most on rank %u (%.1f %%)", rt_trace_rank_label(t, worst),
                 100.0 * worst_share);
    return 1;
}

int cli_oversubscribed_text(const rt_trace *t, char *buf, size_t cap)
{
    const struct rt_trace_mpi *m = rt_trace_mpi_info(t);
    if (!m->node_cpus || m->node_ranks <= m->node_cpus)
        return 0;
    snprintf(buf, cap, "up to %u ranks on a node of %u CPUs: oversubscribed, its ranks took turns on the CPUs "
             "(measured times hold their waits; --compute cpu takes them out of the compute)",
             m->node_ranks, m->node_cpus);
    return 1;
}

void cli_cpu_wait_json(FILE *f, const rt_trace *t)
{
    if (!rt_trace_has_cpu_time(t))
        return;
    rt_time_ns wall, waited, w, q;
    cli_cpu_wait_totals(t, &wall, &waited, NULL);
    fprintf(f, ", \"cpu_wait\": {\"compute_ns\": %" PRId64 ", \"waited_ns\": %" PRId64 ", \"ranks\": [", wall, waited);
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        rt_trace_compute_time(t, r, &w, &q);
        fprintf(f, "%s{\"rank\": %u, \"compute_ns\": %" PRId64 ", \"waited_ns\": %" PRId64 "}", r ? ", " : "",
                rt_trace_rank_label(t, r), w, q);
    }
    fprintf(f, "]}");
}

void cli_std_fds(void)
{
    /* A closed descriptor would be taken by the next file opened (a trace, an output file), and
     * what is printed would go there. Read-only /dev/null holds it: a write to a closed standard
     * output still fails (EBADF), and is reported at the end like any other. */
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
            (void)open("/dev/null", O_RDONLY); /* the lowest free descriptor: this one */
}

/* The errno of the first failed flush of standard output: stdio keeps only an error flag. */
static int stdout_errno;

int cli_flush_stdout(void)
{
    if (fflush(stdout) == 0)
        return 0;
    if (!stdout_errno)
        stdout_errno = errno ? errno : EIO;
    return -1;
}

int cli_stdout_done(int rc)
{
    /* What is still buffered fails again, with its errno, when flushed (a full disk, a closed
     * descriptor); an earlier failure whose data stdio dropped is known by its flag, and by its
     * errno when it came from cli_flush_stdout. */
    int e = cli_flush_stdout() == 0 && !ferror(stdout) ? 0 : stdout_errno ? stdout_errno : EIO;
    if (!e)
        return rc;
    cli_die("standard output: %s", strerror(e));
    return rc ? rc : 1;
}

/* How control byte @p c is written in text: \xNN (4 bytes); NULL for a byte written as it is. */
static const char *text_escape(unsigned char c, int keep_newlines, char esc[5])
{
    if ((c >= 0x20 && c != 0x7f) || (c == '\n' && keep_newlines))
        return NULL;
    snprintf(esc, 5, "\\x%02x", c);
    return esc;
}

void cli_text(FILE *f, const char *s, int keep_newlines)
{
    char esc[5];
    for (; *s; s++) {
        const char *e = text_escape((unsigned char)*s, keep_newlines, esc);
        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
}

const char *cli_text_buf(char *buf, size_t n, const char *s)
{
    char esc[5];
    size_t k = 0;
    for (; n && *s; s++) {
        const char *e = text_escape((unsigned char)*s, 0, esc);
        size_t len = e ? 4 : 1;
        if (k + len >= n)
            break;
        memcpy(buf + k, e ? e : s, len);
        k += len;
    }
    if (n)
        buf[k] = 0;
    return buf;
}

int cli_opt(struct args *a, const char *name, const char **val)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *val = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (a->i + 1 >= a->argc) {
        *val = NULL;
        return 1;
    }
    *val = a->argv[++a->i];
    return 1;
}

/* The column where "retime " starts a synopsis line (after "usage: " or spaces), or -1. */
static int synopsis_column(const char *line, size_t len)
{
    size_t i = 0;
    if (len >= 7 && !strncmp(line, "usage: ", 7))
        i = 7;
    else
        while (i < len && line[i] == ' ')
            i++;
    return len - i > 7 && !strncmp(line + i, "retime ", 7) ? (int)i : -1;
}

int cli_usage_of(FILE *f, const char *usage, const char *cmd)
{
    size_t cl = strlen(cmd);
    int found = 0, in = 0, shift = 0; /* in a synopsis of cmd; what its lines move to sit under "usage: " */
    for (const char *l = usage; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        int c0 = synopsis_column(l, len);
        if (c0 >= 0) {
            const char *w = l + c0 + 7;
            in = len - (size_t)c0 - 7 > cl && !strncmp(w, cmd, cl) && w[cl] == ' ';
            if (in) {
                fprintf(f, "usage: %.*s\n", (int)(len - (size_t)c0), l + c0);
                shift = 7 - c0;
                found++;
            }
        } else if (in && len > 8 && !strncmp(l, "        ", 8)) { /* its continuation, as indented */
            fprintf(f, "%*s%.*s\n", shift > 0 ? shift : 0, "", (int)len, l);
        } else {
            in = 0;
        }
        l += len + (e != NULL);
    }
    return found;
}

int cli_wants_help(int argc, char **argv, int from)
{
    for (int i = from; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int cli_format(const char *v, enum format *f, int allow_csv)
{
    if (!v)
        return -1;
    if (!strcmp(v, "text"))
        *f = FMT_TEXT;
    else if (!strcmp(v, "json"))
        *f = FMT_JSON;
    else if (allow_csv && !strcmp(v, "csv"))
        *f = FMT_CSV;
    else
        return -1;
    return 0;
}

int cli_count(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    if (!v || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

void cli_json_string(FILE *f, const char *s)
{
    if (!s) { /* a string the trace did not record */
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void cli_print_double(FILE *f, double v)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

void cli_print_ps_as_ns(FILE *f, rt_time_ps ps)
{
    if (ps % 1000 == 0)
        fprintf(f, "%" PRId64, ps / 1000);
    else
        fprintf(f, "%s%" PRId64 ".%03" PRId64, ps < 0 ? "-" : "", (ps < 0 ? -ps : ps) / 1000,
                (ps < 0 ? -ps : ps) % 1000);
}

int trace_cli_operand(struct args *a, const char **path, const char **region, const char *cmd)
{
    const char *arg = a->argv[a->i], *v;
    if (cli_opt(a, "--region", &v)) {
        if (!v || !*v)
            return cli_die("--region needs a region name");
        *region = v;
    } else if (arg[0] == '-' && arg[1]) {
        return cli_die("unknown option '%s' for %s", arg, cmd);
    } else if (!*path) {
        *path = arg;
    } else {
        return cli_die("more than one trace given ('%s' and '%s')", *path, arg);
    }
    return 0;
}

int trace_cli_option(struct args *a, struct trace_cli *t, const char *cmd)
{
    const char *v;
    if (cli_opt(a, "--format", &v))
        return cli_format(v, &t->fmt, 1) ? cli_die("bad --format '%s' (text, json or csv)", v ? v : "") : 0;
    return trace_cli_operand(a, &t->path, &t->region, cmd);
}

int cli_runs_option(struct args *a, uint64_t *runs, uint64_t *jobs)
{
    const char *v;
    if (cli_opt(a, "--runs", &v)) {
        if (cli_count(v, 1, MC_MAX_RUNS, runs))
            return cli_die("bad --runs '%s' (a whole number from 1 to %u)", v ? v : "", MC_MAX_RUNS), -1;
        return 1;
    }
    if (cli_opt(a, "--jobs", &v)) {
        if (cli_count(v, 1, MC_MAX_JOBS, jobs))
            return cli_die("bad --jobs '%s' (a whole number from 1 to %d)", v ? v : "", MC_MAX_JOBS), -1;
        return 1;
    }
    return 0;
}

int trace_cli_finish(const struct trace_cli *t, const char *cmd)
{
    return t->path ? 0 : cli_die("%s needs a TRACE", cmd);
}

/* ------------------------------------------------------------------ --fix-clocks */

/* One item of a --fix-clocks SPEC: lmin=TIME, gamma=X, or a bare TIME (l_min). 0 or -1 (printed). */
static int clock_fix_item(const char *spec, const char *item, struct rt_clock_fix_options *o)
{
    rt_error err = {0};
    double v;
    if (!strncmp(item, "gamma=", 6)) {
        if (rt_parse_number(item + 6, &v, &err) || !(v > 0 && v <= 1))
            return cli_die("bad --fix-clocks '%s': gamma '%s' is not a number in (0, 1]", spec, item + 6), -1;
        o->gamma = v;
        return 0;
    }
    const char *time = !strncmp(item, "lmin=", 5) ? item + 5 : item;
    if (rt_parse_time_ns(time, &v, &err))
        return cli_die("bad --fix-clocks '%s': %s (give L_MIN as a TIME, e.g. 1us, or lmin=TIME,gamma=X)", spec,
                       err.msg), -1;
    if (!(v >= 0 && v <= (double)RT_CLOCK_FIX_MAX_LMIN_NS))
        return cli_die("bad --fix-clocks '%s': minimum latency '%s' is outside 0ns .. 1s", spec, time), -1;
    o->min_latency_ns = (rt_time_ns)(v + 0.5); /* whole ns, as the trace's times */
    return 0;
}

int clock_fix_cli_option(struct args *a, struct clock_fix_cli *f)
{
    const char *arg = a->argv[a->i];
    /* A value only after '=': a bare --fix-clocks must not take the TRACE operand as its value. */
    if (strncmp(arg, "--fix-clocks", 12) || (arg[12] && arg[12] != '='))
        return 0;
    f->on = 1;
    rt_clock_fix_options_init(&f->opts);
    if (!arg[12])
        return 1;
    const char *spec = arg + 13;
    char buf[256], *save = NULL;
    if (!*spec || strlen(spec) >= sizeof buf)
        return cli_die("bad --fix-clocks '%s' (--fix-clocks, --fix-clocks=L_MIN or --fix-clocks=lmin=TIME,gamma=X)",
                       spec), -1;
    strcpy(buf, spec);
    for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save))
        if (clock_fix_item(spec, it, &f->opts))
            return -1;
    return 1;
}

int clock_fix_cli_apply(struct clock_fix_cli *f, rt_trace *t, rt_bytes eager_limit, rt_error *err)
{
    f->opts.eager_limit_bytes = eager_limit;
    int rc = f->on ? rt_trace_fix_clocks(t, &f->opts, &f->rep, err) : RT_OK;
    f->rep.worst_rank = rt_trace_rank_label(t, f->rep.worst_rank); /* (printed only) */
    return rc;
}

void clock_fix_cli_text(FILE *f, const struct clock_fix_cli *fx)
{
    const struct rt_clock_fix_report *r = &fx->rep;
    fprintf(f, "%" PRIu64 " violation%s of %" PRIu64 " constraint%s", r->violations_before,
            r->violations_before == 1 ? "" : "s", r->constraints, r->constraints == 1 ? "" : "s");
    if (r->violations_before)
        fprintf(f, " (worst %" PRId64 " ns at rank %u event %" PRIu64 ")", r->worst_ns, r->worst_rank, r->worst_index);
    fprintf(f, ", %" PRIu64 " event%s moved, max correction %" PRId64 " ns, total %" PRIu64 " ns, %" PRIu64
               " violations after (l_min %" PRId64 " ns, gamma %g)",
            r->events_moved, r->events_moved == 1 ? "" : "s", r->max_correction_ns, r->total_correction_ns,
            r->violations_after, fx->opts.min_latency_ns, fx->opts.gamma);
}

void clock_fix_cli_json(FILE *f, const struct clock_fix_cli *fx)
{
    if (!fx) {
        fputs("null", f);
        return;
    }
    const struct rt_clock_fix_report *r = &fx->rep;
    fprintf(f, "{\"min_latency_ns\": %" PRId64 ", \"gamma\": ", fx->opts.min_latency_ns);
    cli_print_double(f, fx->opts.gamma);
    fprintf(f, ", \"eager_limit_bytes\": %" PRIu64, fx->opts.eager_limit_bytes);
    fprintf(f, ", \"constraints\": %" PRIu64 ", \"violations_before\": %" PRIu64 ", \"violations_after\": %" PRIu64
               ", \"worst_ns\": %" PRId64 ", ",
            r->constraints, r->violations_before, r->violations_after, r->worst_ns);
    if (r->violations_before)
        fprintf(f, "\"worst_rank\": %u, \"worst_index\": %" PRIu64, r->worst_rank, r->worst_index);
    else
        fputs("\"worst_rank\": null, \"worst_index\": null", f);
    fprintf(f, ", \"events_moved\": %" PRIu64 ", \"max_correction_ns\": %" PRId64 ", \"total_correction_ns\": %" PRIu64 "}",
            r->events_moved, r->max_correction_ns, r->total_correction_ns);
}

/* ------------------------------------------------------------------ model options */

const char cli_model_usage[] =
    "  model:   --model hockney|logp  [--params FILE]  (options override the file's values)\n"
    "           hockney: --alpha TIME --beta TIME/SIZE, or --beta-table (beta per size from --params)\n"
    "           logp:    --L TIME --o TIME (or --o_s TIME --o_r TIME) --g TIME --G TIME/SIZE\n"
    "           [--eager-limit SIZE] [--compute-scale X] [--compute cpu|wall] [--coll-algos RULES] [--coll OP=ALGO,...]\n"
    "           [--scale-bytes F[@comm:NAME|@FUNCTION|@FILE:LINE|@FILE],...]  messages and collectives F times\n"
    "           as large as traced (every one, or those of a communicator or call site; docs/scale.md)\n"
    "           [--injection in-order|shared]  a rank's outstanding sends: one after the other (default)\n"
    "           or sharing its NIC (the crossbar's is then crossbar-flow)\n"
    "           collectives: --coll-algos retime (default) | mpich (MPICH 4.0) | openmpi (Open MPI 4.1)\n"
    "           | FILE (docs/collectives.md) picks each collective's algorithm by operation, size and\n"
    "           ranks; --coll overrides one operation, e.g. allreduce=ring,bcast=knomial\n"
    "           (`retime info --collectives TRACE` lists the algorithms each collective gets)\n"
    "  window:  --window mpi (default: MPI_Init's end to MPI_Finalize's start) | all (the whole run) |\n"
    "           region:NAME[#FROM-TO] | time:T1-T2   the part of the run the headline reports\n"
    "  work:    --max-work N (default 2e9): events a command may replay in all, background messages\n"
    "           and OS detours included, estimated before it starts\n"
    "  noise:   [--seed N]  every draw is a function of (seed, run, what it is for)\n"
    "           --net-noise DIST   extra delay per message on the wire; DIST is\n"
    "           exp:mean=T | lognormal:median=T,sigma=S | pareto:scale=T,shape=A |\n"
    "           uniform:min=T,max=T | normal:mean=T,sd=T | empirical:FILE[,size=SIZE]\n"
    "           --os-noise SRC     CPU detours per rank (repeatable; sources add up); SRC is\n"
    "           periodic:period=T,duration=T[,phase=random|aligned] |\n"
    "           poisson:interval=T,duration=T|DIST (DIST last) | file:PATH[,coscheduled]\n"
    "           each with an optional ranks=A or ranks=A-B\n"
    "           --net-burst mmpp:sigma1=R,sigma2=R|on=T,off=T,latency=F,bandwidth=F[,scope=global|rank]\n"
    "           bursty background traffic (rates as 0.2/us): in a burst the wire latency is\n"
    "           multiplied by latency= and the bandwidth by bandwidth=\n"
    "  network: --topology crossbar (default: each rank's single port, the model alone) | crossbar-flow |\n"
    "           torus:AxBxC[,adaptive] | mesh:AxB[,adaptive] | fattree:XGFT(h;m1,..;w1,..) | fattree:N | dragonfly:g,a,p,h[,valiant]\n"
    "           [--mapping block|round-robin|random:SEED|file:PATH] [--ranks-per-node N]\n"
    "           [--link-bw BW] [--nic-bw BW] [--hop-latency TIME] [--shm-alpha TIME] [--shm-beta TIME/SIZE]\n"
    "           [--mtu SIZE]  a message waits at each link for one packet of each flow on it (0: none)\n"
    "           [--perturb ratio=R,pattern=random-permutation|uniform,size=SIZE,interval=T |\n"
    "                      ratio=R,pattern=ipp,size=SIZE,rate=R,sigma1=R,sigma2=R]  other jobs' traffic\n"
    "           [--contention exact|exact-full|fast|none]  messages between nodes share links max-min\n"
    "           fairly (exact, the default); fast: each min(C/n) over its links, approximate; none: no\n"
    "           sharing, each as if alone on its route (distance without congestion; docs/network.md)\n"
    "  run:     --cut  replay up to where the run stopped (a killed or hung run: ranks that wait for what\n"
    "           never came end there; automatic for retime-trace's emergency saves; docs/killed-runs.md)\n"
    "  clocks:  --fix-clocks[=L_MIN|=lmin=TIME,gamma=X]  (replay, analyze, plot timeline) restore causality\n"
    "           in the measured times first: receives at least L_MIN (default 0ns) after their sends\n";

void model_cli_init(struct model_cli *m)
{
    memset(m, 0, sizeof *m);
    m->model = "hockney";
    m->compute_scale = 1.0;
    m->compute = RT_COMPUTE_CPU;
    m->eager_limit = 64 * 1024;
    rt_network_params_default(&m->net);
}

const char *cli_topology_list_next(const char *v)
{
    for (const char *c = strchr(v, ','); c; c = strchr(c + 1, ',')) {
        const char *p = c + 1;
        size_t name = strspn(p, "abcdefghijklmnopqrstuvwxyz-");
        if ((name && p[name] == ':') || !strcmp(p, "crossbar") || !strcmp(p, "crossbar-flow") ||
            !strncmp(p, "crossbar,", 9) || !strncmp(p, "crossbar-flow,", 14))
            return p;
    }
    return NULL;
}

/* The network options: 1 consumed, 0 not ours, -1 error (printed). */
static int network_option(struct args *a, struct model_cli *m)
{
    const char *v;
    rt_error err = {0};
    double *ns_per_byte = NULL, *ns = NULL;
    const char *opt = a->argv[a->i];
    if (cli_opt(a, "--topology", &v)) {
        if (!v || !*v)
            return cli_die("--topology needs a topology (e.g. torus:4x4x4)"), -1;
        const char *next = cli_topology_list_next(v);
        if (next)
            return cli_die("--topology '%s': one topology per replay; retime sweep compares several (--topology %.*s "
                           "--topology %s)", v, (int)(next - 1 - v), v, next), -1;
        m->net.topology = strcmp(v, "crossbar") ? v : NULL; /* the default: no network layer */
        return 1;
    }
    if (cli_opt(a, "--mapping", &v)) {
        if (!v || !*v)
            return cli_die("--mapping needs block, round-robin, random:SEED or file:PATH"), -1;
        if (strchr(v, ',') && strncmp(v, "file:", 5)) /* a file's PATH may hold commas */
            return cli_die("--mapping '%s': one mapping per replay; retime sweep compares several (--mapping %s)", v,
                           v), -1;
        m->net.mapping = v;
        return 1;
    }
    if (cli_opt(a, "--contention", &v)) {
        if (rt_contention_parse(v, &m->net.contention, &err))
            return cli_die("--contention: %s", err.msg), -1;
        return 1;
    }
    if (cli_opt(a, "--perturb", &v)) {
        if (!v || !*v)
            return cli_die("--perturb needs ratio=R,pattern=random-permutation|uniform|ipp,size=SIZE,..."), -1;
        m->net.perturb = v;
        return 1;
    }
    if (cli_opt(a, "--ranks-per-node", &v)) {
        uint64_t n;
        if (cli_count(v, 1, 1u << 20, &n))
            return cli_die("bad --ranks-per-node '%s' (a whole number from 1 to 2^20)", v ? v : ""), -1;
        m->net.ranks_per_node = (uint32_t)n;
        return 1;
    }
    if (cli_opt(a, "--link-bw", &v))
        ns_per_byte = &m->net.link_ns_per_byte;
    else if (cli_opt(a, "--nic-bw", &v))
        ns_per_byte = &m->net.nic_ns_per_byte;
    else if (cli_opt(a, "--shm-beta", &v))
        ns_per_byte = &m->net.shm_ns_per_byte;
    else if (cli_opt(a, "--hop-latency", &v))
        ns = &m->net.hop_latency_ns;
    else if (cli_opt(a, "--mtu", &v)) {
        rt_bytes b;
        if (rt_parse_bytes(v, &b, &err) || b > (rt_bytes)1 << 30)
            return cli_die("bad --mtu '%s' (a size from 0 to 1GiB, e.g. 4KiB; 0: no queueing)", v ? v : ""), -1;
        m->net.packet_bytes = (double)b;
        return 1;
    }
    else if (cli_opt(a, "--shm-alpha", &v))
        ns = &m->net.shm_alpha_ns;
    else
        return 0;
    int rc = ns ? rt_parse_time_ns(v, ns, &err) : rt_parse_ns_per_byte(v, ns_per_byte, &err);
    if (rc)
        return cli_die("%.20s: %s", opt, err.msg), -1;
    return 1;
}


/* The model's own per-byte time over a large message, as the engine gives the NICs by default. */
static double model_per_byte_ns(const struct rt_model *mod)
{
    return (double)(mod->ops->wire(&mod->params, 1 << 20) - mod->ops->wire(&mod->params, 0)) / (double)(1 << 20) / 1e3;
}

/* "1.2e+09" style counts for the work estimate's line. */
static const char *count_text(char *buf, size_t n, double x)
{
    if (x < 1e6)
        snprintf(buf, n, "%.0f", x);
    else
        snprintf(buf, n, "%.3g", x);
    return buf;
}

int model_cli_routes(const rt_trace *t, const rt_network *net, double bound, double *links, rt_error *err)
{
    /* the links its messages' routes cross: a scattered mapping on a large mesh routes each
     * over millions (counted up to the bound only) */
    uint32_t longest, from, to;
    *links = rt_replay_route_links(t, net, bound, &longest, &from, &to);
    if (longest > RT_MAX_ROUTE_LINKS)
        return rt_error_set(err, RT_ERANGE,
                            "%s: rank %u's messages to rank %u cross %u links on %s, more than the %u a replay routes "
                            "one message over (a mapping that scatters ranks over a large mesh or torus?)",
                            rt_trace_path(t), rt_trace_rank_label(t, from), rt_trace_rank_label(t, to), longest,
                            rt_network_describe(net), RT_MAX_ROUTE_LINKS);
    return RT_OK;
}

/* What the command will replay in all, estimated before it starts: the trace's events, plus the
 * background messages of --perturb and the detours of --os-noise over the trace's measured span
 * (a predicted run of similar length), times the replays it runs. Refused beyond --max-work; a
 * perturbation that offers its NIC links more than they carry is a warning. */
static int work_check(const struct model_cli *m, const struct rt_replay_options *o, const rt_trace *t)
{
    rt_time_ns lo, hi;
    uint32_t lr, hr;
    rt_trace_time_range(t, &lo, &lr, &hi, &hr);
    double span = lr == RT_NONE ? 0 : (double)(hi - lo), load = 0, bg = 0, switches = 0, links = 0;
    double replays = m->replays ? (double)m->replays : 1, bound = m->max_work > 0 ? m->max_work : CLI_MAX_WORK_DEFAULT;
    if (m->network) {
        bg = span * rt_network_background_rate(m->network, model_per_byte_ns(&o->model), &load);
        switches = span * rt_network_background_switch_rate(m->network); /* ipp chains */
        rt_error e = {0};
        if (model_cli_routes(t, m->network, bound / replays, &links, &e))
            return cli_fail(&e);
        /* other jobs' messages cross routes between random nodes: as long as the machine's */
        uint32_t bg_longest;
        double bg_route = rt_network_background_route(m->network, &bg_longest);
        if (bg_longest > RT_MAX_ROUTE_LINKS)
            return cli_die("--perturb on %s: other jobs' messages between its nodes cross up to %u links, more than the "
                           "%u a replay routes one message over (routes that long: a huge mesh or torus)",
                           rt_network_describe(m->network), bg_longest, RT_MAX_ROUTE_LINKS);
        links += bg * bg_route;
    }
    /* bursty traffic's chains: each switch is kept (8 B) and drawn */
    switches += span * rt_burst_switch_rate(o->net_burst, rt_trace_ranks(t));
    double detours = span * rt_os_noise_detour_rate(o->os_noise, rt_trace_ranks(t));
    double bg_work = bg; /* (overloaded links: the replay stops once their pile is too high) */
    double work = replays * ((double)rt_trace_stats(t)->events + bg_work + switches + links + detours);
    char a[32], b[32], c[32], d[32], e[32], f[32];
    char sw[128] = ""; /* said only when there are any: the line stays as it was without them */
    if (links > 0)
        snprintf(sw, sizeof sw, ", %s%s links of routes", links > bound / replays ? "over " : "",
                 count_text(f, sizeof f, links));
    if (switches > 0)
        snprintf(sw + strlen(sw), sizeof sw - strlen(sw), ", %s burst or ipp state changes",
                 count_text(f, sizeof f, switches));
    if (!(work <= bound)) /* (also an infinite estimate: rates of 1e308/us) */
        return cli_die("about %s events of work (%s replay(s) of %s trace events, %s background messages%s and %s OS "
                       "detours each over the trace's %s): more than --max-work %s; raise it to run anyway",
                       count_text(a, sizeof a, work), count_text(b, sizeof b, replays),
                       count_text(c, sizeof c, (double)rt_trace_stats(t)->events), count_text(d, sizeof d, bg), sw,
                       count_text(e, sizeof e, detours), rt_format_time((char[32]){0}, 32, span),
                       count_text((char[32]){0}, 32, bound));
    if (load > 1) /* (after the refusal: a refused command prints its one error line only) */
        fprintf(stderr, "retime: warning: --perturb: each perturbing node offers %.3gx what its NIC link carries: its "
                        "messages pile up on the wire (the replay stops when, past 8 per node, they grow 4x)\n", load);
    return 0;
}

/* What model_cli_describe and model_cli_json say of --compute: nothing for a trace without CPU
 * times (their outputs stay as they were), else which of the two the replay takes. */
static int cli_compute_shown;
/* The control variable the eager limit came from when the trace's MPI gave it (no --eager-limit);
 * a copy, since the descriptions may be printed after the trace is closed. And the library setting
 * the limit was derived from (--eager-limit SETTING=SIZE or the trace's), "" when none. */
static char cli_eager_buf[128];
static const char *cli_eager_source;
static char cli_eager_from[256];

/* Notes the library setting @p setting ("NAME=SIZE") that gave the eager limit, as @p rule says. */
static void eager_from(const char *setting, const char *rule)
{
    snprintf(cli_eager_from, sizeof cli_eager_from, "%s %s", setting, rule);
}

/* What the trace itself decides: --compute cpu needs its CPU times, the default takes them where it
 * has them; its MPI's eager limit unless one is given; a run that stopped early is cut. */
static int model_cli_from_trace(struct model_cli *m, struct rt_replay_options *o, const rt_trace *t)
{
    int has = rt_trace_has_cpu_time(t);
    if (m->compute_given && m->compute == RT_COMPUTE_CPU && !has)
        return cli_die("--compute cpu: %s has no CPU times (retime-trace records them since issue #45; "
                       "other tracers do not): --compute wall takes compute as the time stamps give it",
                       rt_trace_path(t));
    o->compute = m->compute;
    cli_compute_shown = has;
    /* The run's own eager limit (its MPI's, recorded by the tracer) unless one is given. */
    const struct rt_trace_mpi *mpi = rt_trace_mpi_info(t);
    cli_eager_source = NULL;
    if (!m->have_eager && mpi->eager_limit) {
        /* the library's setting, read as the library reads it (retime/model.h: rt_eager_limit_of);
         * one retime does not know stays as recorded */
        const char *rule = NULL;
        rt_bytes payload = mpi->eager_limit;
        rt_error e = {0};
        if (mpi->eager_source && rt_eager_limit_of(mpi->eager_source, mpi->eager_limit, &payload, &rule, &e) == RT_OK) {
            char setting[160];
            snprintf(setting, sizeof setting, "%.100s=%" PRIu64 "B", mpi->eager_source, mpi->eager_limit);
            eager_from(setting, rule);
        } else {
            payload = mpi->eager_limit;
        }
        o->eager_limit = m->eager_limit = payload;
        snprintf(cli_eager_buf, sizeof cli_eager_buf, "%s", mpi->eager_source ? mpi->eager_source : "the trace's MPI");
        cli_eager_source = cli_eager_buf;
    }
    o->cut = m->cut || rt_trace_cut_short(t); /* a killed or hung run: replayed up to where it stopped */
    if (m->scale_spec && m->scale_trace != t) { /* its rules name the trace's communicators and call sites */
        rt_error err = {0};
        rt_scale_free(m->scale);
        m->scale = NULL;
        if (rt_scale_open(t, m->scale_spec, &m->scale, &err)) /* (the same on every process: one line) */
            return cli_die("%s", err.msg);
        m->scale_trace = t;
    }
    o->scale = m->scale;
    return 0;
}

void model_cli_trace_read(const rt_trace *t)
{
    cli_compute_shown = rt_trace_has_cpu_time(t);
}

int model_cli_window(struct model_cli *m, struct rt_replay_options *o, const rt_trace *t)
{
    rt_error err = {0};
    if (model_cli_from_trace(m, o, t))
        return -1;
    /* (under mpirun each process holds some ranks: whether any has the window's calls is asked of all) */
    if (!m->window && rt_window_open_part(t, m->window_spec ? m->window_spec : "mpi", dist_active() ? dist_any : NULL,
                                          NULL, &m->window, &err))
        return cli_die("--window: %s", err.msg);
    o->window = m->window;
    return work_check(m, o, t);
}

/* Whether any network option but --topology was given. */
static int net_options_given(const struct model_cli *m)
{
    return m->net.mapping || m->net.ranks_per_node || m->net.link_ns_per_byte || m->net.nic_ns_per_byte ||
           m->net.hop_latency_ns || m->net.packet_bytes || m->net.shm_alpha_ns >= 0 || m->net.shm_ns_per_byte >= 0 ||
           m->net.perturb ||
           m->net.contention;
}

int model_cli_no_network(const struct model_cli *m, const char *command)
{
    if (m->net.topology || net_options_given(m))
        return cli_die("%s does not replay on a network: --topology and its options are not taken here (retime replay, "
                       "analyze, sweep, validate and the timeline and Monte Carlo plots take them)",
                       command);
    return 0;
}

const char *model_cli_topology(const struct model_cli *m, const char *topology)
{
    if (topology && strcmp(topology, "crossbar"))
        return topology;
    return m->injection == RT_INJECT_SHARED ? "crossbar-flow" : NULL;
}

int model_cli_network(struct model_cli *m, struct rt_replay_options *o, const rt_trace *t)
{
    rt_error err = {0};
    m->net.topology = model_cli_topology(m, m->net.topology);
    if (!m->net.topology) {
        if (net_options_given(m))
            return cli_die("--mapping, --ranks-per-node, --link-bw, --nic-bw, --hop-latency, --mtu, --shm-*, --perturb "
                           "and --contention need --topology (other than crossbar)");
        return model_cli_window(m, o, t);
    }
    if (rt_network_create(&m->net, rt_trace_ranks(t), &m->network, &err))
        return cli_fail(&err);
    o->network = m->network;
    if (m->net.perturb) { /* a noise-free replay has no other jobs either */
        struct rt_network_params calm = m->net;
        calm.perturb = NULL;
        if (rt_network_create(&calm, rt_trace_ranks(t), &m->calm, &err))
            return cli_fail(&err);
    }
    return model_cli_window(m, o, t);
}

int model_cli_crossbar(struct model_cli *m, const rt_trace *t, const rt_network **out)
{
    rt_error err = {0};
    *out = NULL;
    if (m->injection != RT_INJECT_SHARED)
        return 0;
    struct rt_network_params p = m->net;
    p.topology = "crossbar-flow";
    p.perturb = NULL;
    if (!m->crossbar && rt_network_create(&p, rt_trace_ranks(t), &m->crossbar, &err))
        return cli_fail(&err);
    *out = m->crossbar;
    return 0;
}

static int set_param(struct model_cli *m, int i, const char *opt, const char *v)
{
    rt_error err = {0};
    double *dst = rt_model_param_ptr(&m->params, i);
    int rc = rt_model_param_table[i].unit == RT_PU_TIME ? rt_parse_time_ns(v, dst, &err)
                                                          : rt_parse_ns_per_byte(v, dst, &err);
    if (rc)
        return cli_die("%s: %s", opt, err.msg), -1;
    m->given |= 1u << i;
    return 1;
}

int model_cli_option(struct args *a, struct model_cli *m)
{
    const char *arg = a->argv[a->i], *v;
    rt_error err = {0};
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    int net = network_option(a, m);
    if (net)
        return net;
    char name[32];
    size_t n = strcspn(arg + 2, "=");
    if (n >= sizeof name)
        return 0;
    memcpy(name, arg + 2, n);
    name[n] = '\0';
    int idx = rt_model_param_find(name);
    if (idx >= 0 || !strcmp(name, "o")) {
        char opt[40];
        snprintf(opt, sizeof opt, "--%s", name);
        if (!cli_opt(a, opt, &v) || !v)
            return cli_die("%s needs a value", opt), -1;
        if (idx >= 0)
            return set_param(m, idx, opt, v);
        /* --o: one overhead for both sides */
        if (set_param(m, rt_model_param_find("o_s"), opt, v) < 0)
            return -1;
        return set_param(m, rt_model_param_find("o_r"), opt, v);
    }
    if (!strcmp(arg, "--beta-table")) {
        m->beta_table = 1;
    } else if (cli_opt(a, "--model", &v)) {
        if (!v)
            return cli_die("--model needs a value (%s)", rt_model_names()), -1;
        m->model = v;
    } else if (cli_opt(a, "--net-noise", &v)) {
        if (!v || !*v)
            return cli_die("--net-noise needs a distribution (e.g. exp:mean=1us)"), -1;
        m->net_noise_spec = v;
    } else if (cli_opt(a, "--os-noise", &v)) {
        if (!v || !*v)
            return cli_die("--os-noise needs a source (e.g. periodic:period=1ms,duration=25us)"), -1;
        if (m->n_os_noise == sizeof m->os_noise_spec / sizeof m->os_noise_spec[0])
            return cli_die("--os-noise: at most %zu sources", sizeof m->os_noise_spec / sizeof m->os_noise_spec[0]), -1;
        m->os_noise_spec[m->n_os_noise++] = v;
    } else if (cli_opt(a, "--net-burst", &v)) {
        if (!v || !*v)
            return cli_die("--net-burst needs a spec (e.g. mmpp:on=5us,off=20us,latency=3,bandwidth=0.5)"), -1;
        m->net_burst_spec = v;
    } else if (cli_opt(a, "--seed", &v)) {
        char *end = NULL;
        if (!v || !*v || *v == '-' || (errno = 0, m->seed = strtoull(v, &end, 10), errno) || *end)
            return cli_die("bad --seed '%s' (a whole number from 0 to 2^64-1)", v ? v : ""), -1;
    } else if (cli_opt(a, "--params", &v)) {
        if (!v || !*v)
            return cli_die("--params needs a parameter file"), -1;
        m->params_file = v;
    } else if (cli_opt(a, "--window", &v)) {
        if (!v || rt_window_check(v, &err))
            return cli_die("--window: %s", v ? err.msg : "needs all, mpi, region:NAME[#FROM-TO] or time:T1-T2"), -1;
        m->window_spec = v;
    } else if (cli_opt(a, "--max-work", &v)) {
        double x;
        if (!v || rt_parse_number(v, &x, &err) || !(x >= 1) || x > 1e18)
            return cli_die("bad --max-work '%s' (a number of events from 1 to 1e18, e.g. 5e9)", v ? v : ""), -1;
        m->max_work = x;
    } else if (cli_opt(a, "--coll-algos", &v)) {
        if (!v || !*v)
            return cli_die("--coll-algos needs retime, mpich, openmpi or a rules file"), -1;
        m->coll_rules_spec = v;
    } else if (cli_opt(a, "--coll", &v)) {
        uint8_t probe[RT_COLL_OTHER + 1] = {0};
        if (!v || rt_coll_algo_parse(v, probe, &err))
            return cli_die("--coll: %s", v ? err.msg : "needs OP=ALGO[,OP=ALGO...]"), -1;
        m->coll_spec = v;
    } else if (cli_opt(a, "--eager-limit", &v)) {
        const char *rule = NULL;
        if (!v || rt_eager_limit_parse(v, &m->eager_limit, &rule, &err))
            return cli_die("--eager-limit: %s", v ? err.msg : "needs SIZE or SETTING=SIZE"), -1;
        cli_eager_from[0] = '\0';
        if (rule) /* SETTING=SIZE */
            eager_from(v, rule);
        m->have_eager = 1;
    } else if (cli_opt(a, "--injection", &v)) {
        if (rt_injection_parse(v, &m->injection, &err))
            return cli_die("--injection: %s", err.msg), -1;
        m->have_injection = 1;
    } else if (cli_opt(a, "--compute", &v)) {
        if (!v || (strcmp(v, "cpu") && strcmp(v, "wall")))
            return cli_die("--compute: cpu or wall, not '%s'", v ? v : ""), -1;
        m->compute = strcmp(v, "cpu") ? RT_COMPUTE_WALL : RT_COMPUTE_CPU;
        m->compute_given = 1;
    } else if (!strcmp(a->argv[a->i], "--cut")) {
        m->cut = 1;
    } else if (cli_opt(a, "--scale-bytes", &v)) {
        if (rt_scale_check(v, &err))
            return cli_die("%s", err.msg), -1;
        m->scale_spec = v;
    } else if (cli_opt(a, "--compute-scale", &v)) {
        if (rt_parse_number(v, &m->compute_scale, &err))
            return cli_die("--compute-scale: %s", err.msg), -1;
        if (m->compute_scale < 0 || m->compute_scale > 1e6)
            return cli_die("--compute-scale: must be between 0 and 1e6 ('%s')", v), -1;
    } else {
        return 0;
    }
    return 1;
}

int model_cli_finish(struct model_cli *m, struct rt_replay_options *o)
{
    rt_error err = {0};
    rt_replay_options_default(o);
    /* an option of the other model would be ignored: a what-if that does nothing, silently (#47).
     * (A parameter file may hold both models' parameters: only options are checked, here, before
     * the file's are merged in.) */
    for (int i = 0; rt_model_param_table[i].name; i++)
        if ((m->given >> i & 1u) && strcmp(rt_model_param_table[i].model, m->model))
            return cli_die("--%s is a parameter of the %s model, not of %s (--model %s takes it)",
                           rt_model_param_table[i].name, rt_model_param_table[i].model, m->model,
                           rt_model_param_table[i].model);
    int beta_idx = rt_model_param_find("beta");
    if (m->beta_table) {
        if (strcmp(m->model, "hockney") != 0)
            return cli_die("--beta-table is for the hockney model");
        if (!m->params_file)
            return cli_die("--beta-table needs --params FILE with beta@SIZE entries");
        if (m->given >> beta_idx & 1u)
            return cli_die("--beta and --beta-table exclude each other");
    }
    if (m->params_file) {
        struct rt_model_params fp = {0};
        unsigned fgiven = 0;
        struct rt_param_settings fs = {0};
        if (rt_model_params_load(m->params_file, &fp, &fgiven, &fs, &err))
            return cli_fail(&err);
        for (int i = 0; rt_model_param_table[i].name; i++)
            if ((fgiven >> i & 1u) && !(m->given >> i & 1u)) {
                *rt_model_param_ptr(&m->params, i) = *rt_model_param_ptr(&fp, i);
                m->given |= 1u << i;
            }
        if (fs.have_eager && !m->have_eager)
            m->eager_limit = fs.eager_limit;
        if (fs.have_injection && !m->have_injection)
            m->injection = fs.injection;
        if (m->beta_table) {
            if (fp.nbeta == 0)
                return cli_die("--beta-table: %s has no beta@SIZE entries", m->params_file);
            m->params.nbeta = fp.nbeta;
            memcpy(m->params.beta_size, fp.beta_size, sizeof fp.beta_size);
            memcpy(m->params.beta_at, fp.beta_at, sizeof fp.beta_at);
            m->given |= 1u << beta_idx; /* the table stands in for β */
        }
    }
    const char *lack[16];
    int nlack = 0;
    for (int i = 0; rt_model_param_table[i].name && nlack < 16; i++)
        if (!strcmp(rt_model_param_table[i].model, m->model) && !(m->given >> i & 1u))
            lack[nlack++] = rt_model_param_table[i].name;
    char missing[160] = "";
    for (int i = 0; i < nlack; i++) { /* "--L, --g and --G" */
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s--%s", i == 0 ? "" : i == nlack - 1 ? " and " : ", ",
                 lack[i]);
    }
    if (nlack)
        return cli_die("the %s model needs %s (as options or from --params FILE)", m->model, missing);
    if (rt_model_init(&o->model, m->model, &m->params, &err))
        return cli_fail(&err);
    o->compute_scale = m->compute_scale;
    o->compute = m->compute;
    o->eager_limit = m->eager_limit;
    o->injection = m->injection;
    if (m->coll_spec && rt_coll_algo_parse(m->coll_spec, o->coll_algo, &err))
        return cli_die("--coll: %s", err.msg);
    if (m->coll_rules_spec && !m->coll_rules && rt_coll_rules_open(m->coll_rules_spec, &m->coll_rules, &err))
        return cli_die("--coll-algos: %s", err.msg);
    o->coll_rules = m->coll_rules;
    if (m->net_noise_spec && rt_dist_parse(m->net_noise_spec, &m->net_noise, &err))
        return cli_die("--net-noise: %s", err.msg);
    o->net_noise = m->net_noise;
    for (unsigned i = 0; i < m->n_os_noise; i++)
        if (rt_os_noise_add(&m->os_noise, m->os_noise_spec[i], &err))
            return cli_die("--os-noise: %s", err.msg);
    o->os_noise = m->os_noise;
    if (m->net_burst_spec && rt_burst_parse(m->net_burst_spec, &m->net_burst, &err))
        return cli_die("--net-burst: %s", err.msg);
    o->net_burst = m->net_burst;
    o->seed = m->seed;
    return 0;
}

void model_cli_free(struct model_cli *m)
{
    rt_window_free(m->window);
    m->window = NULL;
    rt_scale_free(m->scale);
    m->scale = NULL;
    m->scale_trace = NULL;
    rt_coll_rules_free(m->coll_rules);
    m->coll_rules = NULL;
    rt_dist_free(m->net_noise);
    rt_os_noise_free(m->os_noise);
    rt_burst_free(m->net_burst);
    m->net_noise = NULL;
    m->os_noise = NULL;
    m->net_burst = NULL;
    rt_network_destroy(m->network);
    rt_network_destroy(m->calm);
    rt_network_destroy(m->crossbar);
    m->network = m->calm = m->crossbar = NULL;
}

void model_cli_network_text(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res, uint64_t top)
{
    char a[32], name[96];
    if (!o->network)
        return;
    fprintf(f, "network     %s: %" PRIu64 " messages routed, %" PRIu64 " in shared memory, contention %s "
            "(summed over messages)\n", rt_network_describe(o->network), res->routed, res->local,
            rt_format_time(a, sizeof a, (double)res->contention_ps / 1e3));
    if (!top || !res->nlinks)
        return;
    /* the links that cost the most contention, then the busiest */
    uint32_t n = res->nlinks, *order = malloc(n * sizeof *order);
    if (!order)
        return;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: stable, few links carry traffic in practice */
        uint32_t k = order[i], j = i;
        const struct rt_link_use *x = &res->links[k];
        while (j > 0) {
            const struct rt_link_use *y = &res->links[order[j - 1]];
            if (y->delay_ps > x->delay_ps || (y->delay_ps == x->delay_ps && y->bytes >= x->bytes))
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    /* the names' column as wide as the longest shown, so that the header stays over its columns */
    int w = 40;
    for (uint32_t i = 0; i < n && i < top; i++) {
        int len = (int)strlen(rt_network_link_name(o->network, res->links[order[i]].link, name, sizeof name));
        w = len > w ? len : w;
    }
    char title[64];
    snprintf(title, sizeof title, "top %" PRIu64 " links by contention", top < n ? top : n);
    fprintf(f, "  %-*s %14s %10s %14s %13s\n", w + 2, title, "contention", "messages", "bytes", "most at once");
    for (uint32_t i = 0; i < n && i < top; i++) {
        const struct rt_link_use *l = &res->links[order[i]];
        fprintf(f, "    %-*s %14s %10" PRIu64 " %14.0f %13u\n", w,
                rt_network_link_name(o->network, l->link, name, sizeof name),
                rt_format_time(a, sizeof a, l->delay_ps / 1e3), l->flows, l->bytes, l->max_flows);
    }
    fprintf(f, "  (most at once: the most messages that shared the link at one time; contention: the time they "
               "lost, summed)\n");
    free(order);
}

void model_cli_network_json(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    char name[96];
    if (!o->network) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"topology\": ");
    cli_json_string(f, rt_network_describe(o->network));
    fprintf(f, ", \"routed\": %" PRIu64 ", \"local\": %" PRIu64 ", \"contention_ns\": ", res->routed, res->local);
    cli_print_ps_as_ns(f, res->contention_ps);
    fprintf(f, ", \"links\": [");
    for (uint32_t i = 0; i < res->nlinks; i++) {
        const struct rt_link_use *l = &res->links[i];
        fprintf(f, "%s{\"link\": %u, \"name\": ", i ? ", " : "", l->link);
        cli_json_string(f, rt_network_link_name(o->network, l->link, name, sizeof name));
        fprintf(f, ", \"messages\": %" PRIu64 ", \"bytes\": %.0f, \"max_at_once\": %u, \"busy_ns\": ", l->flows,
                l->bytes, l->max_flows);
        cli_print_ps_as_ns(f, l->busy_ps);
        fprintf(f, ", \"contention_ns\": %.3f, \"background_messages\": %" PRIu64 ", \"background_bytes\": %.0f}",
                l->delay_ps / 1e3, l->bg_flows, l->bg_bytes);
    }
    fprintf(f, "]}");
}

void model_cli_noise_describe(FILE *f, const struct model_cli *m)
{
    char a[32];
    if (!m->net_noise && !m->os_noise && !m->net_burst)
        return;
    const char *sep = "";
    if (m->net_noise) {
        fprintf(f, "net %s (mean %s per message)", m->net_noise_spec,
                rt_format_time(a, sizeof a, rt_dist_mean_ns(m->net_noise)));
        sep = "; ";
    }
    for (unsigned i = 0; i < m->n_os_noise; i++, sep = "; ")
        fprintf(f, "%sos %s", sep, m->os_noise_spec[i]);
    if (m->os_noise) { /* the load of the first rank that has any: a ranks= source may skip rank 0 */
        uint32_t r = 0;
        while (r < UINT32_MAX && rt_os_noise_load(m->os_noise, r) == 0 && r < 1u << 20)
            r++;
        fprintf(f, " (%.3g%% of rank %u's CPU)", 100.0 * rt_os_noise_load(m->os_noise, r == 1u << 20 ? 0 : r),
                r == 1u << 20 ? 0 : r);
    }
    if (m->net_burst) {
        fprintf(f, "%sburst %s (on %.3g%% of the time)", sep, m->net_burst_spec, 100.0 * rt_burst_on_share(m->net_burst));
        sep = "; ";
    }
    fprintf(f, "; seed %" PRIu64, m->seed);
}

void cli_print_injected_fields(FILE *f, rt_time_ps net, rt_time_ps os, rt_time_ps burst)
{
    fprintf(f, "\"net_ns\": ");
    cli_print_ps_as_ns(f, net);
    fprintf(f, ", \"os_ns\": ");
    cli_print_ps_as_ns(f, os);
    fprintf(f, ", \"burst_ns\": ");
    cli_print_ps_as_ns(f, burst);
}

/* A noise spec and the field @p key derived from it: `"SPEC", "KEY": VALUE`, or both null. */
static void json_spec(FILE *f, const char *spec, const char *key, double value)
{
    if (!spec) {
        fprintf(f, "null, \"%s\": null", key);
        return;
    }
    cli_json_string(f, spec);
    fprintf(f, ", \"%s\": ", key);
    cli_print_double(f, value);
}

void model_cli_noise_json(FILE *f, const struct model_cli *m)
{
    if (!m->net_noise && !m->os_noise && !m->net_burst) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"seed\": %" PRIu64 ", \"net\": ", m->seed);
    json_spec(f, m->net_noise ? m->net_noise_spec : NULL, "net_mean_ns", m->net_noise ? rt_dist_mean_ns(m->net_noise) : 0);
    fprintf(f, ", \"os\": [");
    for (unsigned i = 0; i < m->n_os_noise; i++) {
        fprintf(f, "%s", i ? ", " : "");
        cli_json_string(f, m->os_noise_spec[i]);
    }
    fprintf(f, "], \"os_load_rank0\": ");
    cli_print_double(f, m->os_noise ? rt_os_noise_load(m->os_noise, 0) : 0.0);
    fprintf(f, ", \"burst\": ");
    json_spec(f, m->net_burst ? m->net_burst_spec : NULL, "burst_on_share",
              m->net_burst ? rt_burst_on_share(m->net_burst) : 0);
    fputc('}', f);
}

static void param_text(FILE *f, const struct rt_param_desc *d, double v)
{
    char buf[32];
    if (d->unit == RT_PU_TIME)
        fprintf(f, "%s=%s", d->name, rt_format_time(buf, sizeof buf, v));
    else
        fprintf(f, "%s=%.6gns/B", d->name, v);
}

void cli_window_text(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    char a[32], b[32];
    const rt_window *w = o->window;
    if (w && rt_window_kind(w) == RT_WINDOW_ALL && !strcmp(rt_window_spec(w), "all"))
        fprintf(f, "window      whole run (--window all)\n");
    else if (w && !res->window)
        fprintf(f, "window      %s\n", rt_window_text(w));
    else if (w)
        fprintf(f, "window      %s (--window %s; --window all for the whole run)\n", rt_window_text(w),
                rt_window_spec(w));
    if (res->window && res->window_ranks) {
        fprintf(f, "measured    %s\n", rt_format_time(a, sizeof a, (double)res->window_measured_ns));
        fprintf(f, "predicted   %s\n", rt_format_time(b, sizeof b, (double)res->window_predicted_ps / 1e3));
        fprintf(f, "whole run   measured %s, ", rt_format_time(a, sizeof a, (double)res->measured_ns));
        fprintf(f, "predicted %s\n", rt_format_time(b, sizeof b, (double)res->predicted_ps / 1e3));
        return;
    }
    fprintf(f, "measured    %s\n", rt_format_time(a, sizeof a, (double)res->measured_ns));
    fprintf(f, "predicted   %s\n", rt_format_time(b, sizeof b, (double)res->predicted_ps / 1e3));
}

void cli_window_json(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    const rt_window *w = o->window;
    if (!w) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"spec\": ");
    cli_json_string(f, rt_window_spec(w));
    fprintf(f, ", \"text\": ");
    cli_json_string(f, rt_window_text(w));
    if (!res->window || !res->window_ranks) { /* the whole run: the top-level numbers */
        fprintf(f, ", \"ranks\": %u, \"measured_ns\": %" PRId64 ", \"predicted_ns\": ", res->ranks, res->measured_ns);
        cli_print_ps_as_ns(f, res->predicted_ps);
        fprintf(f, ", \"begin_ns\": 0, \"end_ns\": ");
        cli_print_ps_as_ns(f, res->predicted_ps);
        fputc('}', f);
        return;
    }
    fprintf(f, ", \"ranks\": %u, \"measured_ns\": %" PRId64 ", \"predicted_ns\": ", res->window_ranks,
            res->window_measured_ns);
    cli_print_ps_as_ns(f, res->window_predicted_ps);
    fprintf(f, ", \"begin_ns\": ");
    cli_print_ps_as_ns(f, res->window_begin_ps);
    fprintf(f, ", \"end_ns\": ");
    cli_print_ps_as_ns(f, res->window_end_ps);
    fputc('}', f);
}

void model_cli_describe(FILE *f, const struct rt_replay_options *o)
{
    struct rt_model_params p = o->model.params;
    fprintf(f, "%s ", o->model.ops->name);
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (!strcmp(rt_model_param_table[i].model, o->model.ops->name)) {
            fputc(' ', f);
            if (p.nbeta && !strcmp(rt_model_param_table[i].name, "beta"))
                fprintf(f, "beta=table(%u sizes)", p.nbeta);
            else
                param_text(f, &rt_model_param_table[i], *rt_model_param_ptr(&p, i));
        }
    fprintf(f, "  eager-limit=%" PRIu64 "B", o->eager_limit);
    if (cli_eager_source || cli_eager_from[0]) {
        fprintf(f, " (%s", cli_eager_source ? "the run's MPI: " : "");
        cli_text(f, cli_eager_from[0] ? cli_eager_from : cli_eager_source, 0);
        fprintf(f, ")");
    }
    fprintf(f, "  compute-scale=%g", o->compute_scale);
    if (o->scale)
        fprintf(f, "  scale-bytes=%s", rt_scale_spec(o->scale));
    if (cli_compute_shown)
        fprintf(f, "  compute=%s", o->compute == RT_COMPUTE_CPU ? "cpu" : "wall");
    if (o->network)
        fprintf(f, "  injection=%s", rt_injection_name(o->injection));
    if (o->coll_rules && strcmp(rt_coll_rules_name(o->coll_rules), "retime"))
        fprintf(f, "  coll-algos=%s", rt_coll_rules_name(o->coll_rules));
    int any = 0;
    for (int op = 0; op <= RT_COLL_OTHER; op++)
        if (o->coll_algo[op] != RT_ALGO_AUTO)
            fprintf(f, "%s%s=%s", any++ ? "," : "  coll=", rt_coll_op_name(op), rt_coll_algo_name(o->coll_algo[op]));
}

void model_cli_json(FILE *f, const struct rt_replay_options *o)
{
    struct rt_model_params p = o->model.params;
    fprintf(f, "{\"name\": ");
    cli_json_string(f, o->model.ops->name);
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (!strcmp(rt_model_param_table[i].model, o->model.ops->name))
        {
            fprintf(f, ", \"%s_%s\": ", rt_model_param_table[i].name,
                    rt_model_param_table[i].unit == RT_PU_TIME ? "ns" : "ns_per_byte");
            cli_print_double(f, *rt_model_param_ptr(&p, i));
        }
    if (p.nbeta) {
        fprintf(f, ", \"beta_table\": [");
        for (uint32_t i = 0; i < p.nbeta; i++) {
            fprintf(f, "%s{\"bytes\": %" PRIu64 ", \"beta_ns_per_byte\": ", i ? ", " : "", p.beta_size[i]);
            cli_print_double(f, p.beta_at[i]);
            fputc('}', f);
        }
        fputc(']', f);
    }
    fprintf(f, ", \"eager_limit_bytes\": %" PRIu64, o->eager_limit);
    if (cli_eager_source) {
        fprintf(f, ", \"eager_limit_source\": ");
        cli_json_string(f, cli_eager_source);
    }
    if (cli_eager_from[0]) {
        fprintf(f, ", \"eager_limit_from\": ");
        cli_json_string(f, cli_eager_from);
    }
    fprintf(f, ", \"compute_scale\": ");
    cli_print_double(f, o->compute_scale);
    if (o->scale) {
        fprintf(f, ", \"scale_bytes\": ");
        cli_json_string(f, rt_scale_spec(o->scale));
    }
    if (cli_compute_shown)
        fprintf(f, ", \"compute\": \"%s\"", o->compute == RT_COMPUTE_CPU ? "cpu" : "wall");
    if (o->network)
        fprintf(f, ", \"injection\": \"%s\"", rt_injection_name(o->injection));
    if (o->coll_rules && strcmp(rt_coll_rules_name(o->coll_rules), "retime")) {
        fprintf(f, ", \"coll_algos\": ");
        cli_json_string(f, rt_coll_rules_name(o->coll_rules));
    }
    fprintf(f, ", \"collectives\": {");
    for (int op = 0; op <= RT_COLL_OTHER; op++)
        fprintf(f, "%s\"%s\": \"%s\"", op ? ", " : "", rt_coll_op_name(op), rt_coll_algo_name(o->coll_algo[op]));
    fprintf(f, "}}");
}

/* ------------------------------------------------------------------ replays with a dependency graph */

/* The replay feeds the graph and the progress line. */
struct graph_progress {
    rt_depgraph *g;
    struct progress *pg;
};

static void graph_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps t,
                      const struct rt_dep *dep)
{
    rt_depgraph_on_dep(((struct graph_progress *)ud)->g, rank, index, ev, t, dep);
}

static void graph_progress(void *ud, uint64_t done, uint64_t total)
{
    progress_replay(((struct graph_progress *)ud)->pg, done, total);
}

int cli_replay_graph(const rt_trace *t, const struct rt_replay_options *o, rt_depgraph **g,
                     struct rt_replay_result *keep, const char *what, rt_error *err)
{
    struct rt_replay_result *res = NULL;
    int rc = rt_depgraph_create_part(t, o->part, g, err); /* under mpirun: this process's ranks */
    if (rc)
        return rc;
    rt_depgraph_set_scale(*g, o->scale);
    struct graph_progress gp = {*g, progress_start(what, "events", rt_trace_stats(t)->events)};
    struct rt_replay_observer obs = {.ud = &gp, .on_dep = graph_dep, .on_progress = gp.pg ? graph_progress : NULL};
    rc = rt_replay_run(t, o, &obs, &res, err);
    progress_end(gp.pg);
    if (rc == RT_OK)
        rt_depgraph_cut(*g, res->cut_event); /* a run that stopped early: up to where it stopped */
    if (rc == RT_OK)
        rc = rt_depgraph_check(*g, err); /* the engine's records must describe its own timing */
    if (rc == RT_OK && rt_depgraph_end(*g) != res->predicted_ps)
        rc = rt_error_set(err, RT_EINVAL, "%s: dependency graph ends at %lld ps, the replay at %lld ps",
                          rt_trace_path(t), (long long)rt_depgraph_end(*g), (long long)res->predicted_ps);
    if (rc == RT_OK)
        cli_warn_cut(t, res);
    if (rc == RT_OK && keep) {
        *keep = *res; /* the totals, the links, the contention records, the collectives' chains and
                       * the cut (the caller frees them): the per-rank ends are freed below */
        res->cut_event = NULL;
        res->cut_waits_for = NULL;
        res->links = NULL;
        res->contention = NULL;
        res->coll_pred = NULL;
        res->coll_names = NULL;
        res->coll_binds = NULL;
        keep->predicted_end_ps = NULL;
        keep->measured_end_ns = NULL;
    }
    rt_replay_result_destroy(res);
    return rc;
}


void cli_callsite_label(char *buf, size_t n, const rt_trace *t, uint32_t cs, uint32_t mpi)
{
    const char *fn = mpi != RT_NONE && mpi < rt_trace_regions(t) ? rt_trace_region(t, mpi)->name : NULL;
    if (cs != RT_NONE && cs < rt_trace_callsites(t)) {
        const struct rt_callsite *c = rt_trace_callsite(t, cs);
        snprintf(buf, n, "%s %s:%u (%s)", c->function, c->file, c->line, fn ? fn : "?");
    } else if (fn) {
        snprintf(buf, n, "%s (no call site)", fn);
    } else {
        snprintf(buf, n, "(outside MPI calls)");
    }
}
