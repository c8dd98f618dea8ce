/* SPDX-License-Identifier: MIT */
/*
 * The replay of a streamed trace (RT_TRACE_STREAM): a rank steps the events read so far that
 * no later record changes (its row's safe point); when it reaches them, it gives back what it
 * has passed and has the next ones read (rt__trace_pull). What it gives back is everything
 * before the earliest event it may still look at: its last event (its time ends the window), the
 * MPI call it is in, every operation it has started and not finished (their calls' Enters name
 * their call sites and scale factors), and its sends that no receive has taken yet (a run that
 * stops names them). Whatever the order of pulls, the events stepped are
 * those of a whole read, so the replay is the same, bit for bit.
 *
 * The measured window (--window mpi) is found as the events are read: rt_window_stream_scan
 * resolves each rank's begin and end in place, and the rank times them when it gets there
 * (window_event, engine.c).
 */
#include "engine_internal.h"
#include "retime/window.h"

/* The call's Enter of event @p j of rank @p r (what it still holds), or @p j outside a call. */
static uint64_t enter_of(const struct engine *E, uint32_t r, uint64_t j)
{
    uint64_t k = rt__eng_call_enter(E, r, j);
    return k == UINT64_MAX ? j : k;
}

int rt__eng_call_held(const struct rank *R, uint64_t j)
{
    int depth = 0;
    for (uint64_t k = j; k < R->nev; k++)
        if (R->ev[k].flags & RT_EVF_MPI) {
            depth += R->ev[k].kind == RT_EV_ENTER ? 1 : R->ev[k].kind == RT_EV_LEAVE ? -1 : 0;
            if (depth == 0)
                return 1;
        }
    return 0;
}

/* The first event rank @p r may still look at (see the top of the file). */
static uint64_t keep_from(const struct engine *E, uint32_t r)
{
    const struct rank *R = &E->ranks[r];
    uint64_t lo = R->kept, keep = R->cursor ? R->cursor - 1 : 0, e;
    if (R->depth > 0 && R->cursor < R->nev && (e = enter_of(E, r, R->cursor)) < keep)
        keep = e;
    const struct ptab *p = &R->pending;
    for (size_t i = 0; p->count && i < p->cap; i++) {
        uint64_t k = p->slot[i].key;
        if (k == PT_EMPTY || k >= keep)
            continue;
        e = enter_of(E, r, k);
        keep = e < keep ? e : keep;
    }
    /* its sends no receive has taken yet: a run that stops names their calls (engine_diag.c) */
    for (uint32_t i = 0; i < E->nmsgs; i++) {
        const struct msg *m = &E->msgs[i];
        if (!m->refs || m->src != r || m->send_ev >= keep || (m->flags & (M_COLL | M_RECV)) || !(m->flags & M_SEND))
            continue;
        e = enter_of(E, r, m->send_ev);
        keep = e < keep ? e : keep;
    }
    return keep > lo ? keep : lo;
}

int rt__eng_pull(struct engine *E, uint32_t r)
{
    struct rank *R = &E->ranks[r];
    uint64_t from = R->nev, keep = keep_from(E, r); /* the window's marks are looked for in what comes now */
    struct rt__pull p;
    int rc = rt__trace_pull(E->stream, r, keep, &p, E->err);
    if (rc)
        return E->failed = rc;
    R->kept = keep;
    R->ev = p.ev;
    R->nev = p.safe;
    E->total += R->nev - from; /* (the events known so far: the other jobs' traffic runs while some wait) */
    R->avail = p.avail;
    R->cpu = p.cpu;
    R->ncpu = p.ncpu;
    if (p.moved) /* a row's arrays moved while this rank waited: every rank takes its pointers again */
        for (uint32_t q = 0; q < E->nranks; q++) {
            struct rt__pull v;
            if (q == r || !E->ranks[q].row)
                continue;
            rt__trace_view(E->stream, q, &v);
            E->ranks[q].ev = v.ev;
            E->ranks[q].cpu = v.cpu;
        }
    R->more = (uint8_t)(p.more != 0);
    if (R->nev > from && E->first != INT64_MIN && rt__eng_span_check(E, R->ev[R->nev - 1].time))
        return E->failed;
    const rt_window *w = E->o->window;
    if (w && rt_window_kind(w) != RT_WINDOW_ALL) {
        rt_window_stream_scan(w, r, R->ev, from, R->nev, !p.more);
        uint64_t b = rt_window_begin(w, r), e = rt_window_end(w, r);
        /* marks are found at or after the cursor (it never passes what it took before), but the
         * row's last event, when its end comes to be read later, may be behind it */
        if (b != UINT64_MAX && b >= R->cursor && b != R->win_begin) {
            R->win_begin = b;
            R->win_next = b < R->win_next ? b : R->win_next;
        }
        if (e != UINT64_MAX && e != R->win_end) {
            R->win_end = e;
            if (e >= R->cursor) {
                R->win_next = e < R->win_next ? e : R->win_next;
            } else { /* the last event, stepped already: the rank's clock is its time */
                R->win_t1 = R->clock;
                R->win_m1 = R->ev[e].time;
                if (R->win_next < R->cursor)
                    R->win_next = UINT64_MAX;
            }
        }
        if (b == 0 && R->win_begin != 0) /* no MPI_Init: the first event, timed already */
            R->win_begin = 0;
    }
    return RT_OK;
}

int rt__eng_stream_end(struct engine *E, rt_time_ns *first, rt_time_ns *last)
{
    /* A run that stopped early (--cut) leaves ranks with events not stepped: they are read to
     * their ends all the same (their last times, the window, the counts), as a whole read has them */
    for (uint32_t r = 0; r < E->nranks; r++)
        while (E->ranks[r].more)
            if (rt__eng_pull(E, r))
                return E->failed;
    int rc = rt__trace_stream_end(E->stream, E->err);
    if (rc)
        return E->failed = rc;
    E->res->events = 0;
    *last = INT64_MIN;
    for (uint32_t r = 0; r < E->nranks; r++) {
        const struct rank *R = &E->ranks[r];
        E->res->events += R->nev;
        if (R->nev && R->ev[R->nev - 1].time > *last)
            *last = R->ev[R->nev - 1].time;
    }
    *first = E->first;
    if (*last == INT64_MIN)
        *last = *first;
    return RT_OK;
}
