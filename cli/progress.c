/* SPDX-License-Identifier: MIT */
/* Progress lines on stderr (see progress.h). */
#include "progress.h"

#include "retime/units.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define SHOW_AFTER_NS 1000000000ll /* jobs shorter than a second print nothing (RETIME_PROGRESS_DELAY) */
#define REDRAW_NS 200000000ll

struct progress {
    const char *what, *unit;
    uint64_t total;
    _Atomic uint64_t done;
    int64_t start_ns;
    _Atomic int64_t next_draw_ns;
    pthread_mutex_t lock; /* one drawer at a time; others skip rather than wait */
    int drawn;
};

static int quiet;

void progress_set_quiet(int q) { quiet = q; }
int progress_quiet(void) { return quiet; }

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

struct progress *progress_start(const char *what, const char *unit, uint64_t total)
{
    if (quiet || !isatty(STDERR_FILENO))
        return NULL;
    struct progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->what = what;
    p->unit = unit;
    p->total = total;
    p->start_ns = now_ns();
    double delay = SHOW_AFTER_NS;
    const char *env = getenv("RETIME_PROGRESS_DELAY"); /* a TIME, e.g. 0s: lets tests see the line */
    if (env && rt_parse_time_ns(env, &delay, NULL))
        delay = SHOW_AFTER_NS;
    atomic_init(&p->done, 0);
    atomic_init(&p->next_draw_ns, p->start_ns + (int64_t)delay);
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

static void draw(struct progress *p, uint64_t done)
{
    int64_t t = now_ns();
    if (t < atomic_load(&p->next_draw_ns) || pthread_mutex_trylock(&p->lock))
        return;
    if (t >= atomic_load(&p->next_draw_ns)) {
        atomic_store(&p->next_draw_ns, t + REDRAW_NS);
        double pct = p->total ? 100.0 * (double)done / (double)p->total : 0;
        fprintf(stderr, "\rretime: %s  %" PRIu64 "/%" PRIu64 " %s  %3.0f%%  %.1fs\033[K", p->what, done, p->total,
                p->unit, pct > 100 ? 100 : pct, (double)(t - p->start_ns) / 1e9);
        fflush(stderr);
        p->drawn = 1;
    }
    pthread_mutex_unlock(&p->lock);
}

void progress_add(struct progress *p, uint64_t n)
{
    if (p)
        draw(p, atomic_fetch_add(&p->done, n) + n);
}

void progress_tick(void *ud) { progress_add(ud, 1); }

void progress_replay(void *ud, uint64_t done, uint64_t total)
{
    struct progress *p = ud;
    (void)total;
    if (p) {
        atomic_store(&p->done, done);
        draw(p, done);
    }
}

void progress_end(struct progress *p)
{
    if (!p)
        return;
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}
