/* SPDX-License-Identifier: MIT */
/*
 * The replay engine: a discrete-event simulation over the ranks of a trace.
 *
 * Each rank runs through its own events as far as it can, computing predicted times from its
 * own clock. It stops only where it needs a time it does not own: the completion of a message
 * or of a collective. Network resources (each rank's send and receive port) are granted in
 * global time order through one priority queue, which holds five kinds of entries:
 *   RESUME  a blocked rank may go on,
 *   READY   an eager message may start (its send is posted),
 *   ARRIVE  a message reaches its receiver's port,
 *   COLL    a collective's last member has entered: it runs over its members' ports,
 *   RDV     a rendezvous message may start (both sides posted).
 * A rank only ever queues entries at or after its own clock, and a rank runs only when it is
 * popped, so entries are popped in time order and port grants follow time, never the order
 * in which ranks happened to be simulated. Ties are broken by (type, key), an order that does
 * not depend on when an entry was queued either: the same trace and model give bit-identical
 * results, also when the ranks are split over processes (the distributed replay, below).
 *
 * Matching follows MPI's non-overtaking rule: per (communicator, source, destination, tag)
 * channel, the n-th posted send matches the n-th posted receive. Receives are posted, and
 * sends start, when their MPI call is entered (the engine looks ahead to the call's Leave),
 * so MPI_Sendrecv and rendezvous exchanges between two ranks cannot deadlock the replay.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "grow.h"
#include "map.h"
#include "noise_internal.h"
#include "retime/replay.h"

#define NEVER INT64_MIN
#define COLL_BIT (1ull << 63) /* pending value: COLL_BIT | member's comm rank << 32 | collective id */

/* Entry types, in the order they are taken at equal times. A rendezvous becomes ready last:
 * the receive post that makes it ready may come from a rank woken at that very time (by an
 * arrival, a collective, an eager send's return), so only then are all the readies of a time
 * known, and the order of a port's grants never depends on the order ranks were simulated. */
enum { Q_RESUME, Q_READY, Q_ARRIVE, Q_COLL, Q_RDV };
enum { R_QUEUED, R_RUNNING, R_BLOCKED, R_DONE };
enum {
    M_SEND = 1 << 0,  /* send side posted */
    M_RECV = 1 << 1,  /* receive side posted */
    M_RDV = 1 << 2,   /* rendezvous protocol */
    M_SCHED = 1 << 3, /* READY queued */
    M_SDONE = 1 << 4, /* send completion known */
    M_RDONE = 1 << 5, /* receive completion known */
    M_BURST = 1 << 6, /* injected during a burst of background traffic */
    /* distributed replay (rt_replay_part) */
    M_VRECV = 1 << 7, /* at the sender's process: the receiver is on another process */
    M_HALF = 1 << 8,  /* at the receiver's process: the receive half of a message sent from elsewhere */
    M_FWD = 1 << 9,   /* its arrival has been sent to the receiver's process */
    M_VDONE = 1 << 10 /* the far receiver's hold on it has been released */
};
#define DOMAIN_COLL 0x434f4c4cull /* "COLL": the noise keys of collectives' messages */

/* Queue entries are ordered by (t, type, key): a total order that does not depend on when an
 * entry was queued, so that ranks replayed by different processes (rt_replay_part) grant
 * ports in the same order as one process does. Keys: RESUME the rank; READY and ARRIVE the
 * sender and its send event; COLL the communicator and the instance's number on it. */
struct qent {
    rt_time_ps t;
    uint64_t tk; /* type << 61 | key: one comparison orders by type, then key */
    uint32_t id;
};
#define QTYPE(q) ((uint8_t)((q)->tk >> 61))
#define MSG_KEY(src, ev) ((uint64_t)(src) << 40 | ((ev) & ((1ull << 40) - 1)))

struct msg {
    rt_time_ps send_post, recv_post, send_done, recv_done;
    rt_bytes bytes;
    uint64_t send_ev, recv_ev;
    uint64_t post_ev;   /* the receiver's event at which the receive was posted */
    uint64_t origin_ev; /* the event its timing goes back to: the send, or (rendezvous) a later post */
    uint32_t origin_rank;
    uint32_t src, dst, next, tag, comm;
    uint32_t n;    /* its number among its channel's messages (names it across processes) */
    uint32_t pmsg; /* receive half: the message's id at the sender's process */
    uint16_t flags;
    uint8_t refs; /* sides still holding it */
};

struct chan {
    uint32_t head, tail; /* queue of messages posted by one side only */
    uint8_t side;        /* M_SEND or M_RECV: which side the queued messages have */
    uint32_t nsend, nrecv; /* sends and receives posted so far */
};

struct coll {
    struct rt__coll_member *mem; /* per communicator rank: begin, counts, ports, done */
    uint64_t *ev;                /* per communicator rank: its COLL_BEGIN event index */
    uint32_t size, arrived, refs, comm, op, root, root_rank;
    uint32_t first_rank;
    uint64_t first_ev, seq; /* seq: the instance's number on its communicator */
    uint8_t complete, vector;
    /* distributed replay: members on several processes; the coordinator (the process of
     * member 0) collects the entries and ports, runs the algorithm and sends each its part */
    rt_time_ps tc, max_begin; /* the last entry (when known), the latest entry seen here */
    uint32_t own, ports_in, dones; /* members replayed here; ports and results received */
    uint32_t coord;                /* the coordinator's process */
    uint8_t tc_known;
};

/* A rank's operations in flight, keyed by event index: open addressing with linear probing and
 * backward-shift deletion (no tombstones), 16-byte slots, a multiplicative hash of the index. The
 * replay looks one up two to four times per message, so this replaces the general 128-bit-key
 * map (rt__map) on that path. */
#define PT_EMPTY UINT64_MAX /* no event index reaches it */
struct ptab_slot {
    uint64_t key, val;
};
struct ptab {
    struct ptab_slot *slot;
    uint32_t cap, count, shift; /* cap = 2^(64 - shift), or 0 */
};

/* The model's per-message times for one message size. The ops are pure functions of the
 * parameters and the size, and a trace has few distinct sizes, so each is computed once per size
 * instead of two to six times per message (each a double evaluation with a rounding). */
#define MEMO_SLOTS 16
struct size_memo {
    rt_bytes m;
    rt_time_ps o_send, o_recv, gap, wire, hold, handshake;
    uint8_t valid;
};

struct rank {
    const struct rt_event *ev;
    uint64_t nev, cursor;
    rt_time_ps clock, tx_free, rx_free, queued_at;
    rt_time_ns last_meas;
    int depth;      /* MPI call nesting */
    int call_ops;   /* the current MPI call moves data or synchronises */
    uint32_t *waits; /* blocking sends the current call's Leave waits for */
    uint32_t nwaits, capwaits;
    struct ptab pending; /* event index -> message id, or COLL_BIT | comm rank << 32 | collective id */
    uint8_t state;
    /* distributed replay */
    uint8_t held;     /* its ports were read by a collective that has not finished */
    uint32_t coll;    /* the collective it has entered and not left (UINT32_MAX: none) */
    uint32_t *rdvw;   /* its rendezvous sends whose receive has not been posted */
    uint32_t nrdvw, caprdvw;
};

/* What one process of a distributed replay tells another (struct rt_replay_part.exchange).
 * Fields by kind:
 *   FX_RPOST    a receive was posted: comm tag src dst, t1 post time, ev1 post event, ev2 receive event, bytes
 *   FX_ARRIVE   a message reaches its receiver's port at t1: comm tag src dst n bytes flags,
 *               ev1 send event, ev2 origin event, i origin rank, id the sender process's message
 *   FX_DELIVERED  rendezvous delivered at t1: id the sender process's message
 *   FX_CPOST    collective entry: comm, n instance, i member, src its rank, t1 entry, bytes sent,
 *               ev2 bytes received, ev1 COLL_BEGIN event, tag op, dst root, flags vector
 *   FX_CTC      the collective's last entry t1 (comm, n)
 *   FX_CPORTS   member i's ports t1 (send) t2 (receive) at that time (comm, n)
 *   FX_CDONE    member i's result: t1 done, t2 t3 ports, src origin member, ev1 its COLL_BEGIN (comm, n)
 *   FX_BOUND    rank src's bounds at the end of a round: t1 earliest grant, t2 earliest post */
enum { FX_RPOST = 1, FX_ARRIVE, FX_DELIVERED, FX_CPOST, FX_CTC, FX_CPORTS, FX_CDONE, FX_BOUND, FX_KINDS };
struct fx {
    uint32_t kind, comm, tag, src, dst, i, flags, reg; /* reg: the MPI call's region + 1 (errors) */
    uint64_t n, ev1, ev2, bytes, id;
    rt_time_ps t1, t2, t3;
};
struct fxbuf {
    struct fx *v;
    uint32_t n, cap;
};

struct engine {
    const rt_trace *t;
    const struct rt_replay_options *o;
    const struct rt_replay_observer *obs;
    rt_error *err;
    struct rank *ranks;
    uint32_t nranks;
    struct qent *heap;
    size_t nheap, capheap;
    rt_time_ps wire_min;   /* the least wire time of any message: at least 1 ps (see on_ready) */
    struct msg *msgs;
    uint32_t nmsgs, capmsgs, freemsg;
    struct rt__map chan_of; /* (comm<<32|tag, src<<32|dst) -> index into chans */
    struct chan *chans;
    uint32_t nchans, capchans;
    struct rt__map coll_of;  /* (comm, instance) -> index into colls */
    struct rt__map coll_seq; /* (rank, comm) -> instances seen */
    struct coll *colls;
    uint32_t ncolls, capcolls, freecoll;
    struct rt__map comm_rank; /* (comm, row) -> comm rank; (comm, UINT64_MAX): comm's entries are in */
    uint64_t coll_bytes, coll_bytes_peak; /* per-member arrays of the collectives in flight */
    struct rt_replay_result *res;
    struct rt__os_ctx os;                /* OS noise, when nsrc > 0 */
    struct rt__detour_cursor *cursors;   /* nsrc per rank */
    unsigned nsrc;
    struct rt__burst_state burst;        /* bursty traffic, when burst.chain is set */
    uint64_t done, next_progress, total; /* events replayed, when to report next, in all */
    struct size_memo memo[MEMO_SLOTS];   /* direct-mapped by size; zeroed = empty */
    int failed;
    /* distributed replay (o->part) */
    const struct rt_replay_part *part;
    uint32_t lo, hi;                /* the ranks replayed here */
    struct fxbuf *out;              /* per process: what to send at the end of the round */
    struct rt__map halves;          /* (channel, n) -> receive half not yet both posted and arrived */
    rt_time_ps T;                   /* the round's earliest queued time over all processes */
    uint8_t tau;                    /* the earliest entry type queued at T */
    uint8_t *mark;                  /* per rank: ports with an entry put off this round */
    uint32_t *marked;               /* the ranks marked */
    uint32_t nmarked;
    struct qent *later;             /* entries put off this round */
    uint32_t nlater, caplater;
    uint32_t hint_rank, hint_region; /* the MPI call of another process's event hint_ev, from its record */
    uint64_t hint_ev;
    /* per-rank bounds, so that loosely coupled ranks need not wait for the global earliest time:
     * pub[2r] is the earliest time rank r's send port could still grant a message it has not
     * granted, pub[2r + 1] the earliest time r could still post anything (INT64_MAX: never);
     * published by r's process at the end of every round to the processes of the ranks r
     * exchanges messages with (FX_BOUND), valid from then on; INT64_MIN: not known */
    int64_t *pub;
    int64_t red[3];                 /* the round's reduction: earliest time, all well, time * 8 + type */
    uint32_t *nbp, *nbp_at;         /* per rank here: the other processes that need its bounds (CSR) */
    rt_time_ps *rdy_min, *arr_min;  /* per rank, at the round's start: earliest queued grant of its
                                     * send port, earliest queued arrival at it */
    uint32_t *senders, *senders_at; /* per rank here: the ranks that ever send to it (CSR) */
    int64_t *remote_state;          /* per rank, for the diagnosis: state + 1, cursor, call region + 1,
                                     * the rank it waits for + 1 (RS values) */
};

/* ------------------------------------------------------------------ helpers */

struct coll_noise { /* what the collective's noise hooks need */
    struct engine *E;
    const struct coll *c;
};
static rt_time_ps coll_cpu(void *ud, uint32_t i, rt_time_ps t, rt_time_ps work);
static int coll_net(void *ud, uint32_t a, uint32_t b, uint64_t idx, rt_time_ps inject, rt_bytes m, rt_time_ps *wire,
                    rt_time_ps *gap, rt_time_ps *hold);

static int owned(const struct engine *E, uint32_t r) { return r >= E->lo && r < E->hi; }
static int post_remote_recv(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                            rt_time_ps t);
static int rdv_waiting_add(struct engine *E, uint32_t r, uint32_t id);
static void rdv_waiting_del(struct engine *E, uint32_t r, uint32_t id);
static int fx_send(struct engine *E, uint32_t rank, const struct fx *f);
static void vrecv_release(struct engine *E, uint32_t id);


static size_t pt_home(const struct ptab *p, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> p->shift);
}

static uint64_t *pt_get(const struct ptab *p, uint64_t key)
{
    if (!p->count)
        return NULL;
    size_t mask = p->cap - 1;
    for (size_t i = pt_home(p, key);; i = (i + 1) & mask) {
        if (p->slot[i].key == key)
            return &p->slot[i].val;
        if (p->slot[i].key == PT_EMPTY)
            return NULL;
    }
}

/* Inserts or overwrites; -1 when out of memory. */
static int pt_put(struct ptab *p, uint64_t key, uint64_t val)
{
    uint64_t *v = pt_get(p, key);
    if (v) {
        *v = val;
        return 0;
    }
    if ((p->count + 1) * 4 > p->cap * 3) {
        uint32_t ncap = p->cap ? p->cap * 2 : 16, nshift = p->cap ? p->shift - 1 : 60;
        if (ncap < p->cap)
            return -1;
        struct ptab_slot *ns = malloc((size_t)ncap * sizeof *ns);
        if (!ns)
            return -1;
        for (uint32_t i = 0; i < ncap; i++)
            ns[i].key = PT_EMPTY;
        struct ptab q = {ns, ncap, 0, nshift};
        for (uint32_t i = 0; i < p->cap; i++) {
            if (p->slot[i].key == PT_EMPTY)
                continue;
            size_t j = pt_home(&q, p->slot[i].key);
            while (ns[j].key != PT_EMPTY)
                j = (j + 1) & (ncap - 1);
            ns[j] = p->slot[i];
        }
        free(p->slot);
        p->slot = ns;
        p->cap = ncap;
        p->shift = nshift;
    }
    size_t mask = p->cap - 1, i = pt_home(p, key);
    while (p->slot[i].key != PT_EMPTY)
        i = (i + 1) & mask;
    p->slot[i] = (struct ptab_slot){key, val};
    p->count++;
    return 0;
}

/* Removes @p key if present; the entries after it in its run move back so that no lookup
 * ever meets a hole before its key. */
static void pt_del(struct ptab *p, uint64_t key)
{
    uint64_t *v = pt_get(p, key);
    if (!v)
        return;
    size_t mask = p->cap - 1;
    size_t i = (size_t)((struct ptab_slot *)((char *)v - offsetof(struct ptab_slot, val)) - p->slot);
    for (size_t j = (i + 1) & mask; p->slot[j].key != PT_EMPTY; j = (j + 1) & mask) {
        size_t h = pt_home(p, p->slot[j].key);
        /* The entry at j may fill the hole at i unless its home lies cyclically in (i, j]. */
        if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
            continue;
        p->slot[i] = p->slot[j];
        i = j;
    }
    p->slot[i].key = PT_EMPTY;
    p->count--;
}

/* The model's times for a message of @p m bytes (see struct size_memo). */
static const struct size_memo *times_of(struct engine *E, rt_bytes m)
{
    struct size_memo *c = &E->memo[(m ^ (m >> 4) ^ (m >> 12)) & (MEMO_SLOTS - 1)];
    if (!c->valid || c->m != m) {
        const struct rt_model *mod = &E->o->model;
        c->m = m;
        c->o_send = mod->ops->o_send(&mod->params, m);
        c->o_recv = mod->ops->o_recv(&mod->params, m);
        c->gap = mod->ops->gap(&mod->params, m);
        c->wire = mod->ops->wire(&mod->params, m);
        c->hold = mod->ops->send_hold(&mod->params, m);
        c->handshake = mod->ops->handshake(&mod->params, m);
        c->valid = 1;
    }
    return c;
}

static int oom(struct engine *E)
{
    if (!E->failed)
        E->failed = rt_error_set(E->err, RT_ENOMEM, "%s: out of memory during replay", rt_trace_path(E->t));
    return E->failed;
}

/* When CPU work of @p work ps that rank @p r may start at @p t is done: its OS noise's detours
 * run first. With no work, when the rank can run at all (t, or the end of a detour). */
static rt_time_ps cpu(struct engine *E, uint32_t r, rt_time_ps t, rt_time_ps work)
{
    if (!E->nsrc)
        return t + work;
    return rt__os_advance(&E->os, r, &E->cursors[(size_t)r * E->nsrc], t, work, &E->res->os_noise_ps);
}

/* Name of the MPI call that holds event @p j of rank @p r (for messages only: scans back). */
#define RS 4 /* values per rank in remote_state */

static uint32_t call_region(const struct engine *E, uint32_t r, uint64_t j)
{
    const struct rt_event *ev = E->ranks[r].ev;
    int depth = 0;
    for (uint64_t k = j + 1; k-- > 0;) {
        if (!(ev[k].flags & RT_EVF_MPI))
            continue;
        if (ev[k].kind == RT_EV_LEAVE && k != j)
            depth++;
        else if (ev[k].kind == RT_EV_ENTER && depth-- == 0)
            return ev[k].ref;
    }
    return RT_NONE;
}

static const char *call_name(const struct engine *E, uint32_t r, uint64_t j)
{
    uint32_t reg = RT_NONE;
    if (r >= E->nranks)
        return "?";
    if (owned(E, r) && j < E->ranks[r].nev)
        reg = call_region(E, r, j);
    else if (r == E->hint_rank && j == E->hint_ev)
        reg = E->hint_region;
    else if (E->remote_state && E->remote_state[RS * (size_t)r] && j == (uint64_t)E->remote_state[RS * (size_t)r + 1])
        reg = (uint32_t)(E->remote_state[RS * (size_t)r + 2] - 1); /* where another process's rank stopped */
    else
        return "?";
    return reg == RT_NONE ? "no MPI call" : rt_trace_region(E->t, reg)->name;
}

static const char *comm_name(const struct engine *E, uint32_t c)
{
    const struct rt_comm *cm = rt_trace_comm(E->t, c);
    return cm && cm->name[0] ? cm->name : "?";
}

#if defined(__GNUC__)
#define RT_HOT_INLINE static inline __attribute__((always_inline))
#else
#define RT_HOT_INLINE static inline
#endif

RT_HOT_INLINE int qless(const struct qent *a, const struct qent *b)
{
    return a->t < b->t || (a->t == b->t && a->tk < b->tk);
}

/* Keys stay below 2^61: ranks and communicators below 2^21, event indices below 2^40. */
static int push(struct engine *E, rt_time_ps t, uint8_t type, uint32_t id, uint64_t key)
{
    if (E->nheap == E->capheap) {
        size_t ncap = E->capheap ? E->capheap * 2 : 256;
        struct qent *n = realloc(E->heap, ncap * sizeof *n);
        if (!n)
            return oom(E);
        E->heap = n;
        E->capheap = ncap;
    }
    struct qent q = {t, (uint64_t)type << 61 | (key & ((1ull << 61) - 1)), id};
    size_t i = E->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        struct qent *pq = &E->heap[p];
        if (!qless(&q, pq))
            break;
        E->heap[i] = *pq;
        i = p;
    }
    E->heap[i] = q;
    return 0;
}

RT_HOT_INLINE struct qent pop(struct engine *E)
{
    struct qent top = E->heap[0];
    struct qent last = E->heap[--E->nheap];
    size_t i = 0, n = E->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && qless(&E->heap[c + 1], &E->heap[c]))
            c++;
        if (qless(&last, &E->heap[c]))
            break;
        E->heap[i] = E->heap[c];
        i = c;
    }
    if (n)
        E->heap[i] = last;
    return top;
}

/* A blocked rank may go on from time @p t. */
RT_HOT_INLINE int wake(struct engine *E, uint32_t r, rt_time_ps t)
{
    struct rank *R = &E->ranks[r];
    if (R->state == R_BLOCKED || (R->state == R_QUEUED && t < R->queued_at)) {
        R->state = R_QUEUED;
        R->queued_at = t;
        return push(E, t, Q_RESUME, r, r);
    }
    return 0;
}

static uint32_t msg_new(struct engine *E)
{
    uint32_t id;
    if (E->freemsg != UINT32_MAX) {
        id = E->freemsg;
        E->freemsg = E->msgs[id].next;
    } else {
        if (rt__grow((void **)&E->msgs, &E->capmsgs, sizeof *E->msgs, E->nmsgs + 1)) {
            oom(E);
            return UINT32_MAX;
        }
        id = E->nmsgs++;
    }
    struct msg *m = &E->msgs[id];
    memset(m, 0, sizeof *m);
    m->send_post = m->recv_post = m->send_done = m->recv_done = NEVER;
    m->next = UINT32_MAX;
    m->refs = 2;
    return id;
}

/* The channel a message travels on. */
static void msg_label(struct msg *m, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    m->src = src;
    m->dst = dst;
    m->tag = tag;
    m->comm = comm;
}

static void msg_release(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (--m->refs == 0) {
        m->next = E->freemsg;
        E->freemsg = id;
    }
}

/* ------------------------------------------------------------------ posting */

RT_HOT_INLINE int schedule_if_ready(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (m->flags & M_SCHED || !(m->flags & M_SEND))
        return 0;
    if (m->flags & M_RDV) {
        if (!(m->flags & M_RECV))
            return 0;
        m->flags |= M_SCHED;
        rt_time_ps both = m->send_post > m->recv_post ? m->send_post : m->recv_post;

        /* the later side's event is where the timing goes back to (not a blocking receive's
         * own completion, which a post outside any call would name) */
        int by_recv = m->recv_post > m->send_post && m->post_ev != m->recv_ev;
        m->origin_rank = by_recv ? m->dst : m->src;
        m->origin_ev = by_recv ? m->post_ev : m->send_ev;
        return push(E, both + times_of(E, m->bytes)->handshake, Q_RDV, id, MSG_KEY(m->src, m->send_ev));
    }
    m->flags |= M_SCHED;
    m->origin_rank = m->src;
    m->origin_ev = m->send_ev;
    return push(E, m->send_post, Q_READY, id, MSG_KEY(m->src, m->send_ev));
}

/* The index of channel (comm, tag, src, dst), made on first use; UINT32_MAX out of memory. */
RT_HOT_INLINE uint32_t chan_index(struct engine *E, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    uint64_t k1 = ((uint64_t)comm << 32) | tag, k2 = ((uint64_t)src << 32) | dst;
    uint64_t *ci = rt__map_get(&E->chan_of, k1, k2);
    if (ci)
        return (uint32_t)*ci;
    if (rt__grow((void **)&E->chans, &E->capchans, sizeof *E->chans, E->nchans + 1) ||
        rt__map_put(&E->chan_of, k1, k2, E->nchans)) {
        oom(E);
        return UINT32_MAX;
    }
    E->chans[E->nchans] = (struct chan){UINT32_MAX, UINT32_MAX, 0, 0, 0};
    return E->nchans++;
}

/* A post of side @p mine in channel @p ci: the oldest unmatched post of the other side, or a
 * new message queued in the channel. UINT32_MAX out of memory. */
RT_HOT_INLINE uint32_t chan_match(struct engine *E, uint32_t ci, uint8_t mine, uint32_t comm, uint32_t tag, uint32_t src,
                           uint32_t dst)
{
    struct chan *c = &E->chans[ci];
    uint32_t id;
    if (c->head != UINT32_MAX && c->side != mine) {
        id = c->head;
        c->head = E->msgs[id].next;
        if (c->head == UINT32_MAX)
            c->tail = UINT32_MAX;
        E->msgs[id].next = UINT32_MAX;
        return id;
    }
    id = msg_new(E);
    if (id == UINT32_MAX)
        return id;
    c = &E->chans[ci];
    if (c->head == UINT32_MAX)
        c->head = id;
    else
        E->msgs[c->tail].next = id;
    c->tail = id;
    c->side = mine;
    msg_label(&E->msgs[id], comm, tag, src, dst);
    return id;
}

static int size_mismatch(struct engine *E, const struct msg *m, rt_bytes sent, rt_bytes received)
{
    return E->failed = rt_error_set(
               E->err, RT_EMISMATCH,
               "%s: inconsistent message: rank %u event %llu (%s to rank %u, tag %u, comm '%s') sends %llu bytes "
               "but rank %u event %llu (%s) receives %llu bytes",
               rt_trace_path(E->t), m->src, (unsigned long long)m->send_ev, call_name(E, m->src, m->send_ev), m->dst,
               m->tag, comm_name(E, m->comm), (unsigned long long)sent, m->dst, (unsigned long long)m->recv_ev,
               call_name(E, m->dst, m->recv_ev), (unsigned long long)received);
}

/* The receive side of message @p id is posted at @p t (event @p j, started at @p post_ev). */
static int recv_side(struct engine *E, uint32_t id, uint64_t j, uint64_t post_ev, rt_bytes bytes, rt_time_ps t)
{
    struct msg *m = &E->msgs[id];
    m->recv_ev = j;
    if ((m->flags & M_SEND) && m->bytes != bytes)
        return size_mismatch(E, m, m->bytes, bytes);
    m->flags |= M_RECV;
    m->post_ev = post_ev;
    m->bytes = bytes;
    m->recv_post = t;
    if ((m->flags & (M_RDV | M_SEND)) == (M_RDV | M_SEND))
        rdv_waiting_del(E, m->src, id);
    return 0;
}

/* Posts the send or receive at event @p j of rank @p r at time @p t; matches it in its channel.
 * A message's sender's process matches it (with the posts of a receiver elsewhere sent to it);
 * a receiver whose sender is elsewhere keeps a receive half (post_remote_recv). */
static int post_message(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                        rt_time_ps t, int is_send)
{
    uint32_t src = is_send ? r : e->ref, dst = is_send ? e->ref : r;
    if (!is_send && E->part && src < E->nranks && !owned(E, src)) /* (a source never known stays local) */
        return post_remote_recv(E, r, j, post_ev, e, t);
    uint32_t ci = chan_index(E, e->comm, e->aux, src, dst);
    uint32_t id = ci == UINT32_MAX ? ci : chan_match(E, ci, is_send ? M_SEND : M_RECV, e->comm, e->aux, src, dst);
    if (id == UINT32_MAX)
        return oom(E);
    struct msg *m = &E->msgs[id];
    if (is_send) {
        m->send_ev = j;
        if ((m->flags & M_RECV) && m->bytes != e->bytes)
            return size_mismatch(E, m, e->bytes, m->bytes);
        m->flags |= M_SEND;
        m->bytes = e->bytes;
        m->n = E->chans[ci].nsend++;
        m->send_post = cpu(E, r, t, times_of(E, e->bytes)->o_send); /* injection not before */
        if (!(e->flags & RT_EVF_BUFFERED) && ((e->flags & RT_EVF_SYNC) || e->bytes > E->o->eager_limit)) {
            m->flags |= M_RDV;
            E->res->rendezvous++;
            if (!(m->flags & M_RECV) && rdv_waiting_add(E, r, id))
                return oom(E);
        }
        if (!owned(E, dst))
            m->flags |= M_VRECV;
        E->res->messages++;
    } else if (recv_side(E, id, j, post_ev, e->bytes, t)) {
        return E->failed;
    }
    if (pt_put(&E->ranks[r].pending, j, id))
        return oom(E);
    return schedule_if_ready(E, id);
}

/* Communicator rank of trace row @p row in communicator @p c, or RT_NONE when the row is not a
 * member (E->failed is set on failure). The reverse of rt_comm.members is built on the
 * communicator's first collective, so a post costs one lookup, not a scan. */
static uint32_t comm_rank_of(struct engine *E, uint32_t c, const struct rt_comm *cm, uint32_t row)
{
    if (!cm->members)
        return 0; /* a self communicator: the caller alone */
    if (!rt__map_get(&E->comm_rank, c, UINT64_MAX)) {
        for (uint32_t i = 0; i < cm->size; i++) {
            if (cm->members[i] == RT_NONE)
                continue;
            if (rt__map_get(&E->comm_rank, c, cm->members[i])) {
                E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: communicator '%s' lists rank %u twice",
                                         rt_trace_path(E->t), comm_name(E, c), cm->members[i]);
                return RT_NONE;
            }
            if (rt__map_put(&E->comm_rank, c, cm->members[i], i)) {
                oom(E);
                return RT_NONE;
            }
        }
        if (rt__map_put(&E->comm_rank, c, UINT64_MAX, 0)) {
            oom(E);
            return RT_NONE;
        }
    }
    uint64_t *v = rt__map_get(&E->comm_rank, c, row);
    return v ? (uint32_t)*v : RT_NONE;
}

/* Trace row of communicator rank @p i of collective @p c. */
static uint32_t member_row(const struct engine *E, const struct coll *c, uint32_t i)
{
    const struct rt_comm *cm = rt_trace_comm(E->t, c->comm);
    return cm->members ? cm->members[i] : c->first_rank;
}

/* Bytes received by the collective that begins at event @p j: its COLL_END, the rank's next
 * collective record (the reader never nests them), refers back to it. */
static rt_bytes coll_received(const struct rank *R, uint64_t j)
{
    for (uint64_t k = j + 1; k < R->nev; k++) {
        if (R->ev[k].kind == RT_EV_COLL_END)
            return R->ev[k].ref == j ? R->ev[k].bytes : 0;
        if (R->ev[k].kind == RT_EV_COLL_BEGIN)
            break;
    }
    return 0;
}

static void coll_release(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    E->coll_bytes -= (uint64_t)c->size * (sizeof *c->mem + sizeof *c->ev);
    free(c->mem);
    free(c->ev);
    c->mem = NULL;
    c->ev = NULL;
    c->refs = E->freecoll;
    E->freecoll = id;
}

/* The process that replays rank @p r. */
static uint32_t owner_of(const struct engine *E, uint32_t r)
{
    if (!E->part)
        return 0;
    uint32_t lo = 0, hi = E->part->nprocs; /* first_rank[lo] <= r < first_rank[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (E->part->first_rank[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether this process coordinates collective @p c (always in a replay by one process). */
static int coordinates(const struct engine *E, const struct coll *c)
{
    return c->coord == (E->part ? E->part->me : 0);
}

static uint64_t coll_key(const struct coll *c)
{
    return (uint64_t)c->comm << 40 | (c->seq & ((1ull << 40) - 1));
}

/* The ports of the members replayed here, the results of the algorithm: every member's done time
 * and ports. Members here are woken; the others' processes are sent theirs. */
static int coll_finish(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    uint32_t a = 0, b = 0;
    if (rt__coll_blocks((int)c->op, c->size, c->root_rank, c->vector, c->mem, &a, &b)) {
        struct rt__coll_member *A = &c->mem[a], *B = &c->mem[b];
        uint32_t ra = member_row(E, c, a), rb = member_row(E, c, b);
        char block[48] = "";
        if (A->block != UINT64_MAX)
            snprintf(block, sizeof block, " (blocks of %llu bytes)", (unsigned long long)A->block);
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective size mismatch on comm '%s' (%s): rank %u event %llu (%s) sends %llu and receives "
                   "%llu bytes%s but rank %u event %llu (%s) sends %llu and receives %llu bytes",
                   rt_trace_path(E->t), comm_name(E, c->comm), rt_coll_op_name((int)c->op), ra,
                   (unsigned long long)c->ev[a], call_name(E, ra, c->ev[a]), (unsigned long long)A->sent,
                   (unsigned long long)A->recv, block, rb, (unsigned long long)c->ev[b], call_name(E, rb, c->ev[b]),
                   (unsigned long long)B->sent, (unsigned long long)B->recv);
    }
    uint32_t op = c->op <= RT_COLL_OTHER ? c->op : RT_COLL_OTHER;
    struct coll_noise cn = {E, c};
    struct rt__coll_noise hooks = {&cn, coll_cpu, coll_net};
    if (rt__coll_run((int)op, E->o->coll_algo[op], c->size, c->root_rank, c->mem, &E->o->model, E->o->eager_limit,
                     rt_replay_options_noisy(E->o) ? &hooks : NULL))
        return oom(E);
    c->complete = 1;
    for (uint32_t i = 0; i < c->size; i++) {
        uint32_t row = member_row(E, c, i);
        if (!owned(E, row)) {
            struct fx f = {.kind = FX_CDONE, .comm = c->comm, .n = c->seq, .i = i, .t1 = c->mem[i].done,
                           .t2 = c->mem[i].tx_free, .t3 = c->mem[i].rx_free, .src = c->mem[i].origin,
                           .ev1 = c->ev[c->mem[i].origin]};
            if (fx_send(E, row, &f))
                return oom(E);
            continue;
        }
        struct rank *R = &E->ranks[row];
        R->tx_free = c->mem[i].tx_free;
        R->rx_free = c->mem[i].rx_free;
        R->held = 0;
        R->coll = UINT32_MAX;
    }
    for (uint32_t i = 0; i < c->size; i++)
        if (owned(E, member_row(E, c, i)) && wake(E, member_row(E, c, i), c->mem[i].done))
            return E->failed;
    return 0;
}

/* Popped at the last member's entry: the ports of the members replayed here are read (all of
 * them in a replay by one process, which then runs the algorithm at once). */
static int coll_ports(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    for (uint32_t i = 0; i < c->size; i++) {
        uint32_t row = member_row(E, c, i);
        if (!owned(E, row))
            continue;
        struct rank *R = &E->ranks[row];
        R->held = 1;
        if (coordinates(E, c)) {
            c->mem[i].tx_free = R->tx_free;
            c->mem[i].rx_free = R->rx_free;
            c->ports_in++;
        } else {
            struct fx f = {.kind = FX_CPORTS, .comm = c->comm, .n = c->seq, .i = i, .t1 = R->tx_free,
                           .t2 = R->rx_free};
            if (fx_send(E, member_row(E, c, 0), &f))
                return oom(E);
        }
    }
    if (c->ports_in == c->size) {
        rt__map_del(&E->coll_of, c->comm, c->seq);
        return coll_finish(E, id);
    }
    return 0;
}

/* Every member has entered (known at the coordinator): the collective runs, reading and writing
 * the members' ports, at the last entry, in time order with the ports' other grants. */
static int coll_ready(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    rt_time_ps tc = NEVER;
    for (uint32_t i = 0; i < c->size; i++)
        tc = c->mem[i].begin > tc ? c->mem[i].begin : tc;
    c->tc = tc;
    c->tc_known = 1;
    if (c->own < c->size) { /* each other process with members queues it too */
        uint32_t me = E->part->me, last = me;
        for (uint32_t i = 0; i < c->size; i++) {
            uint32_t row = member_row(E, c, i), p = owner_of(E, row);
            if (p == me || p == last)
                continue;
            last = p;
            struct fx f = {.kind = FX_CTC, .comm = c->comm, .n = c->seq, .t1 = tc};
            if (fx_send(E, row, &f))
                return oom(E);
        }
    }
    return push(E, tc, Q_COLL, id, coll_key(c));
}

/* The record of instance @p seq of a collective on communicator @p comm, made on first sight. */
static int coll_record(struct engine *E, uint32_t comm, uint64_t seq, uint32_t op, uint32_t root, uint32_t first_rank,
                       uint64_t first_ev, uint32_t *idp)
{
    const char *path = rt_trace_path(E->t);
    const struct rt_comm *cm = rt_trace_comm(E->t, comm);
    uint64_t *cid = rt__map_get(&E->coll_of, comm, seq);
    if (cid) {
        *idp = (uint32_t)*cid;
        return 0;
    }
    uint32_t size = cm->members ? cm->size : 1, id;
    if (size > INT32_MAX) /* the member index must fit the pending value */
        return E->failed = rt_error_set(E->err, RT_EUNSUPPORTED, "%s: communicator '%s' has %u ranks, more than 2^31",
                                        path, comm_name(E, comm), size);
    uint32_t root_rank = root == RT_NONE ? 0 : comm_rank_of(E, comm, cm, root);
    if (E->failed)
        return E->failed;
    if (E->freecoll != UINT32_MAX) {
        id = E->freecoll;
        E->freecoll = E->colls[id].refs;
    } else {
        if (rt__grow((void **)&E->colls, &E->capcolls, sizeof *E->colls, E->ncolls + 1))
            return oom(E);
        id = E->ncolls++;
    }
    struct coll *c = &E->colls[id];
    memset(c, 0, sizeof *c);
    c->mem = calloc(size, sizeof *c->mem); /* the driver's cleanup frees them on failure */
    c->ev = calloc(size, sizeof *c->ev);
    if (!c->mem || !c->ev || rt__map_put(&E->coll_of, comm, seq, id))
        return oom(E);
    E->coll_bytes += (uint64_t)size * (sizeof *c->mem + sizeof *c->ev);
    if (E->coll_bytes > E->coll_bytes_peak)
        E->coll_bytes_peak = E->coll_bytes;
    c->size = size;
    c->comm = comm;
    c->op = op;
    c->root = root;
    c->root_rank = root_rank == RT_NONE ? 0 : root_rank;
    c->first_rank = first_rank;
    c->first_ev = first_ev;
    c->seq = seq;
    c->max_begin = NEVER;
    for (uint32_t i = 0; i < size; i++)
        c->own += owned(E, member_row(E, c, i));
    c->refs = c->own;
    c->coord = owner_of(E, member_row(E, c, 0));
    if (coordinates(E, c))
        E->res->collectives++;
    *idp = id;
    return 0;
}

/* Member @p me (trace row @p row) enters collective @p id at @p begin. */
static int coll_enter(struct engine *E, uint32_t id, uint32_t me, uint32_t row, uint64_t ev, uint32_t op,
                      uint32_t root, rt_time_ps begin, rt_bytes sent, rt_bytes recv, int vector)
{
    struct coll *c = &E->colls[id];
    if (c->op != op || c->root != root)
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective mismatch on comm '%s': rank %u event %llu (%s, %s, root %d) vs rank %u event %llu (%s, %s, root %d)",
                   rt_trace_path(E->t), comm_name(E, c->comm), c->first_rank, (unsigned long long)c->first_ev,
                   call_name(E, c->first_rank, c->first_ev), rt_coll_op_name((int)c->op),
                   c->root == RT_NONE ? -1 : (int)c->root, row, (unsigned long long)ev, call_name(E, row, ev),
                   rt_coll_op_name((int)op), root == RT_NONE ? -1 : (int)root);
    struct rt__coll_member *m = &c->mem[me];
    m->begin = begin;
    m->sent = sent;
    m->recv = recv;
    c->ev[me] = ev;
    if (vector)
        c->vector = 1;
    c->max_begin = begin > c->max_begin ? begin : c->max_begin;
    c->arrived++;
    if (!coordinates(E, c)) { /* the coordinator counts and times it */
        uint32_t reg = call_region(E, row, ev);
        struct fx f = {.kind = FX_CPOST, .comm = c->comm, .n = c->seq, .i = me, .src = row, .t1 = begin,
                       .bytes = sent, .ev2 = recv, .ev1 = ev, .tag = op, .dst = root, .flags = (uint32_t)vector,
                       .reg = reg == RT_NONE ? 0 : reg + 1};
        return fx_send(E, member_row(E, c, 0), &f) ? oom(E) : 0;
    }
    return c->arrived == c->size ? coll_ready(E, id) : 0;
}

static int post_collective(struct engine *E, uint32_t r, uint64_t j, const struct rt_event *e, rt_time_ps t)
{
    const char *path = rt_trace_path(E->t);
    const struct rt_comm *cm = rt_trace_comm(E->t, e->comm);
    if (!cm)
        return E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: rank %u event %llu: collective without communicator",
                                        path, r, (unsigned long long)j);
    uint32_t me = comm_rank_of(E, e->comm, cm, r);
    if (E->failed)
        return E->failed;
    if (me == RT_NONE)
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective on comm '%s' by a non-member: rank %u event %llu (%s, %s) is not one of its %u ranks",
                   path, comm_name(E, e->comm), r, (unsigned long long)j, call_name(E, r, j),
                   rt_coll_op_name((int)e->aux), cm->size);
    uint64_t *seqp = rt__map_get(&E->coll_seq, r, e->comm);
    uint64_t seq = seqp ? *seqp : 0;
    if (rt__map_put(&E->coll_seq, r, e->comm, seq + 1))
        return oom(E);
    uint32_t id;
    if (coll_record(E, e->comm, seq, e->aux, e->ref, r, j, &id))
        return E->failed;
    if (pt_put(&E->ranks[r].pending, j, COLL_BIT | (uint64_t)me << 32 | id))
        return oom(E);
    E->ranks[r].coll = id;
    return coll_enter(E, id, me, r, j, e->aux, e->ref, t, e->bytes, coll_received(&E->ranks[r], j),
                      (e->flags & RT_EVF_VECTOR) != 0);
}

/* Posts the operation of event @p j, started at event @p post_ev (its MPI call's Enter, or itself). */
static int post(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e, rt_time_ps t)
{
    switch (e->kind) {
    case RT_EV_SEND:
    case RT_EV_ISEND:
        return post_message(E, r, j, post_ev, e, t, 1);
    case RT_EV_RECV:
    case RT_EV_IRECV_REQUEST:
        return post_message(E, r, j, post_ev, e, t, 0);
    case RT_EV_COLL_BEGIN:
        return post_collective(E, r, j, e, t);
    default:
        return 0;
    }
}

/* Looks up what event @p j's completion refers to; RT_NONE-like UINT64_MAX when absent. */
static uint64_t pending_of(struct rank *R, uint64_t j)
{
    uint64_t *v = pt_get(&R->pending, j);
    return v ? *v : UINT64_MAX;
}

static int is_start(const struct rt_event *e)
{
    return (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND || e->kind == RT_EV_RECV ||
            e->kind == RT_EV_IRECV_REQUEST || e->kind == RT_EV_COLL_BEGIN) &&
           !(e->flags & RT_EVF_CANCELLED);
}

/* At the Enter of an MPI call: posts every operation the call starts; returns whether the
 * call moves data or waits for it (then the model, not the measurement, times it). */
static int enter_call(struct engine *E, uint32_t r, uint64_t j, rt_time_ps t, int *ops)
{
    struct rank *R = &E->ranks[r];
    int depth = 1;
    *ops = 0;
    for (uint64_t k = j + 1; k < R->nev; k++) {
        const struct rt_event *e = &R->ev[k];
        if (e->flags & RT_EVF_MPI) {
            depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (is_start(e)) {
            *ops = 1;
            if (post(E, r, k, j, e, t))
                return E->failed;
            if (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) /* the CPU sends one at a time */
                t = E->msgs[pending_of(R, k)].send_post;
        } else if (e->kind == RT_EV_ISEND_COMPLETE || e->kind == RT_EV_IRECV || e->kind == RT_EV_COLL_END) {
            *ops = 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ network */

/* A message's port gap, eager hold and wire time from @p src injected at @p inject, with the
 * bursty traffic and network noise drawn for it under @p key. Returns 1 in a burst, 0 out of
 * one, -1 out of memory. */
static rt_time_ps burst_wire(const struct engine *E, rt_bytes m);

static int net_timing(struct engine *E, uint32_t src, rt_time_ps inject, rt_bytes m, uint64_t key,
                      rt_time_ps *wire, rt_time_ps *gap, rt_time_ps *hold)
{
    int on = 0;
    if (E->burst.chain) {
        on = rt__burst_on(&E->burst, src, inject);
        if (on < 0)
            return -1;
        if (on && *wire > 0) { /* the port and the eager hold stretch as the wire time does */
            rt_time_ps w = burst_wire(E, m);
            double ratio = (double)w / (double)*wire;
            *gap = (rt_time_ps)llround((double)*gap * ratio);
            *hold = (rt_time_ps)llround((double)*hold * ratio);
            E->res->burst_ps += w - *wire;
            *wire = w;
        }
    }
    if (E->o->net_noise) {
        uint64_t st = rt_rng_stream(E->o->seed, E->o->run, key);
        rt_time_ps d = rt_ns_to_ps(rt_dist_sample_ns(E->o->net_noise, &st));
        E->res->net_noise_ps = E->res->net_noise_ps > INT64_MAX - d ? INT64_MAX : E->res->net_noise_ps + d;
        *wire += d;
    }
    return on;
}

/* The model's wire time of @p m bytes as it is during a burst: its latency part (the wire time
 * of an empty message) and its per-byte part scaled by the burst's factors. */
static rt_time_ps burst_wire(const struct engine *E, rt_bytes m)
{
    const struct rt_model *mod = &E->o->model;
    rt_time_ps wire = mod->ops->wire(&mod->params, m), lat = mod->ops->wire(&mod->params, 0);
    lat = lat < wire ? lat : wire;
    return rt__burst_wire(E->o->net_burst, lat, wire - lat);
}

/* The port gap of a message: stretched if it was injected in a burst (see net_timing). */
static rt_time_ps msg_gap(struct engine *E, const struct msg *m)
{
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps gap = c->gap, wire = c->wire;
    if (!(m->flags & M_BURST) || wire <= 0)
        return gap;
    return (rt_time_ps)llround((double)gap * (double)burst_wire(E, m->bytes) / (double)wire);
}

RT_HOT_INLINE int on_ready(struct engine *E, uint32_t id, rt_time_ps now)
{
    struct msg *m = &E->msgs[id];
    struct rank *S = &E->ranks[m->src];
    rt_time_ps start = now > S->tx_free ? now : S->tx_free;
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps gap = c->gap, wire = c->wire, hold = c->hold;
    if (rt_replay_options_noisy(E->o)) { /* one draw per message, keyed by its sender and send event */
        uint64_t key = (uint64_t)m->src << 40 | (m->send_ev & ((1ull << 40) - 1));
        int on = net_timing(E, m->src, start, m->bytes, key, &wire, &gap, &hold);
        if (on < 0)
            return oom(E);
        if (on)
            m->flags |= M_BURST;
    }
    S->tx_free = start + gap;
    if (!(m->flags & M_RDV)) {
        m->send_done = start + hold; /* eager; OS noise is applied where the rank takes it */
        m->flags |= M_SDONE;
        if (wake(E, m->src, m->send_done))
            return E->failed;
    }
    rt_time_ps arrive = start + (wire > E->wire_min ? wire : E->wire_min);
    if (m->flags & M_VRECV) { /* the receiver's port is on its own process */
        struct fx f = {.kind = FX_ARRIVE, .comm = m->comm, .tag = m->tag, .src = m->src, .dst = m->dst,
                       .i = m->origin_rank, .flags = m->flags & (M_RDV | M_BURST), .n = m->n, .ev1 = m->send_ev,
                       .ev2 = m->origin_ev, .bytes = m->bytes, .id = id, .t1 = arrive};
        m->flags |= M_FWD;
        m->recv_done = arrive; /* until its delivery is known: a bound on it (wake_bound) */
        if (fx_send(E, m->dst, &f))
            return oom(E);
        vrecv_release(E, id);
        return 0;
    }
    return push(E, arrive, Q_ARRIVE, id, MSG_KEY(m->src, m->send_ev));
}

/* ------------------------------------------------------------------ collectives' noise */

static rt_time_ps coll_cpu(void *ud, uint32_t i, rt_time_ps t, rt_time_ps work)
{
    struct coll_noise *h = ud;
    return cpu(h->E, member_row(h->E, h->c, i), t, work);
}

static int coll_net(void *ud, uint32_t a, uint32_t b, uint64_t idx, rt_time_ps inject, rt_bytes m, rt_time_ps *wire,
                    rt_time_ps *gap, rt_time_ps *hold)
{
    struct coll_noise *h = ud;
    (void)b;
    /* keyed by the instance (communicator, number) and the message's place in the algorithm */
    uint64_t key = rt_rng_stream(DOMAIN_COLL, (uint64_t)h->c->comm << 40 ^ h->c->seq, idx) | 1ull << 63;
    return net_timing(h->E, member_row(h->E, h->c, a), inject, m, key, wire, gap, hold) < 0 ? RT_ENOMEM : RT_OK;
}

RT_HOT_INLINE int on_arrive(struct engine *E, uint32_t id, rt_time_ps now)
{
    struct msg *m = &E->msgs[id];
    struct rank *D = &E->ranks[m->dst];
    rt_time_ps gap = msg_gap(E, m);
    /* The receive port takes one message at a time: a message arriving while it is busy
     * is delivered one gap after the previous one. */
    rt_time_ps delivered = D->rx_free == NEVER || now >= D->rx_free + gap ? now : D->rx_free + gap;
    D->rx_free = delivered;
    m->recv_done = delivered; /* the receiver's o_recv is paid when it takes the message */
    m->flags |= M_RDONE;
    if (m->flags & M_HALF) { /* the sender is on another process */
        uint32_t dst = m->dst;
        if (m->flags & M_RDV) {
            struct fx f = {.kind = FX_DELIVERED, .src = m->src, .id = m->pmsg, .t1 = delivered};
            if (fx_send(E, m->src, &f))
                return oom(E);
        }
        msg_release(E, id); /* the arrival's hold */
        return wake(E, dst, delivered);
    }
    if (m->flags & M_RDV) {
        m->send_done = delivered;
        m->flags |= M_SDONE;
        if (wake(E, m->src, m->send_done))
            return E->failed;
    }
    return wake(E, m->dst, m->recv_done);
}

/* ------------------------------------------------------------------ ranks */

static rt_time_ps local_time(struct engine *E, const struct rank *R, const struct rt_event *e)
{
    if (R->depth > 0 && R->call_ops)
        return R->clock; /* inside a communicating call the model decides */
    rt_time_ns gap = e->time - R->last_meas;
    rt_time_ps work = 0;
    if (gap > 0 && E->o->compute_scale != 0)
        work = (rt_time_ps)((double)gap * 1e3 * E->o->compute_scale + 0.5);
    return cpu(E, (uint32_t)(R - E->ranks), R->clock, work);
}

enum { STEP_OK, STEP_BLOCK, STEP_FAIL };

static int step(struct engine *E, uint32_t r)
{
    struct rank *R = &E->ranks[r];
    uint64_t j = R->cursor;
    const struct rt_event *e = &R->ev[j];
    rt_time_ps t;
    uint64_t p;
    int deps = E->obs && E->obs->on_dep; /* work out the event's edges for the observer */
    struct rt_dep dep = {.remote_ready = NEVER, .src_rank = RT_NONE};

    switch (e->kind) {
    case RT_EV_ENTER:
        t = local_time(E, R, e);
        if (e->flags & RT_EVF_MPI) {
            if (R->depth++ == 0) {
                if (enter_call(E, r, j, t, &R->call_ops))
                    return STEP_FAIL;
            }
        }
        break;
    case RT_EV_LEAVE:
        if ((e->flags & RT_EVF_MPI) && R->depth == 1 && R->call_ops) {
            rt_time_ps last = NEVER; /* the latest send completion it waits for */
            const struct msg *bind = NULL;
            for (uint32_t i = 0; i < R->nwaits; i++) {
                const struct msg *m = &E->msgs[R->waits[i]];
                if (!(m->flags & M_SDONE))
                    return STEP_BLOCK;
                if (m->send_done > last) {
                    last = m->send_done;
                    bind = m;
                }
            }
            /* resumes after the detour it may have ended in */
            t = cpu(E, r, last > R->clock ? last : R->clock, 0);
            if (deps && bind) {
                dep.kind = RT_DEP_MESSAGE;
                dep.src_rank = bind->origin_rank;
                dep.src_index = bind->origin_ev;
                dep.local_ready = last > R->clock ? R->clock : t;
                dep.remote_ready = last > R->clock ? t : last;
            }
            for (uint32_t i = 0; i < R->nwaits; i++)
                msg_release(E, R->waits[i]);
            R->nwaits = 0;
        } else {
            t = local_time(E, R, e);
        }
        if ((e->flags & RT_EVF_MPI) && R->depth > 0 && --R->depth == 0)
            R->call_ops = 0;
        break;
    case RT_EV_SEND:
    case RT_EV_ISEND:
    case RT_EV_IRECV_REQUEST:
    case RT_EV_COLL_BEGIN:
        t = local_time(E, R, e);
        if (e->flags & RT_EVF_CANCELLED)
            break;
        p = pending_of(R, j);
        if (p == UINT64_MAX) { /* outside any MPI call: it starts here */
            if (post(E, r, j, j, e, t))
                return STEP_FAIL;
            p = pending_of(R, j);
        }
        if (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) { /* the CPU has paid o_send */
            rt_time_ps posted = E->msgs[p].send_post;
            t = posted > t ? posted : t;
        }
        if (e->kind == RT_EV_SEND) {
            pt_del(&R->pending, j);
            if (R->depth > 0) {
                if (rt__grow((void **)&R->waits, &R->capwaits, sizeof *R->waits, R->nwaits + 1))
                    return oom(E), STEP_FAIL;
                R->waits[R->nwaits++] = (uint32_t)p;
            } else {
                msg_release(E, (uint32_t)p); /* nobody waits for a send outside a call */
            }
        }
        break;
    case RT_EV_RECV:
    case RT_EV_IRECV:
    case RT_EV_ISEND_COMPLETE: {
        uint64_t key = e->kind == RT_EV_RECV ? j : e->ref;
        p = pending_of(R, key);
        if (p == UINT64_MAX && e->kind == RT_EV_RECV) {
            if (post(E, r, j, j, e, local_time(E, R, e)))
                return STEP_FAIL;
            p = pending_of(R, key);
        }
        if (p == UINT64_MAX) {
            t = local_time(E, R, e);
            break;
        }
        struct msg *m = &E->msgs[p];
        int is_recv = e->kind != RT_EV_ISEND_COMPLETE;
        if (!(m->flags & (is_recv ? M_RDONE : M_SDONE)))
            return STEP_BLOCK;
        rt_time_ps done = is_recv ? m->recv_done : m->send_done;
        /* the CPU takes the message: receive overhead, one message at a time */
        rt_time_ps o = is_recv ? times_of(E, m->bytes)->o_recv : 0;
        t = cpu(E, r, done > R->clock ? done : R->clock, o);
        if (deps) {
            dep.kind = RT_DEP_MESSAGE;
            dep.src_rank = m->origin_rank;
            dep.src_index = m->origin_ev;
            dep.local_ready = done > R->clock ? R->clock + o : t;
            dep.remote_ready = done > R->clock ? t : done + o;
        }
        pt_del(&R->pending, key);
        msg_release(E, (uint32_t)p);
        break;
    }
    case RT_EV_COLL_END:
        p = pending_of(R, e->ref);
        if (p == UINT64_MAX) {
            t = local_time(E, R, e);
            break;
        }
        {
            struct coll *c = &E->colls[(uint32_t)p];
            if (!c->complete)
                return STEP_BLOCK;
            const struct rt__coll_member *me = &c->mem[(p & ~COLL_BIT) >> 32];
            rt_time_ps done = me->done; /* this member's own end */
            t = cpu(E, r, done > R->clock ? done : R->clock, 0);
            if (deps) {
                dep.kind = RT_DEP_COLLECTIVE;
                dep.src_rank = member_row(E, c, me->origin);
                dep.src_index = c->ev[me->origin];
                dep.local_ready = done > R->clock ? R->clock : t;
                dep.remote_ready = done > R->clock ? t : done;
            }
            pt_del(&R->pending, e->ref);
            if (--c->refs == 0)
                coll_release(E, (uint32_t)p);
        }
        break;
    default:
        t = local_time(E, R, e);
        break;
    }
    R->clock = t;
    R->last_meas = e->time;
    if (deps) {
        if (dep.kind == RT_DEP_NONE)
            dep.local_ready = t;
        E->obs->on_dep(E->obs->ud, r, j, e, t, &dep);
    }
    if (E->obs && E->obs->on_event)
        E->obs->on_event(E->obs->ud, r, j, e, t);
    R->cursor++;
    return STEP_OK;
}

#define PROGRESS_EVERY 65536
#define MAX_CLOCK_PS 4e18 /* as rt_ns_to_ps caps one model time; INT64_MAX ps is 9.2e18 */

/* Counts the events a rank's run stepped through, and reports progress now and then. */
static void count_done(struct engine *E, uint64_t n)
{
    E->done += n;
    if (E->done >= E->next_progress && E->obs && E->obs->on_progress) {
        E->next_progress = E->done + PROGRESS_EVERY;
        E->obs->on_progress(E->obs->ud, E->done, E->total);
    }
}

static int run_rank(struct engine *E, uint32_t r)
{
    struct rank *R = &E->ranks[r];
    uint64_t from = R->cursor;
    int rc = 0, blocked = 0;
    R->state = R_RUNNING;
    while (R->cursor < R->nev) {
        int s = step(E, r);
        if (s == STEP_FAIL || E->failed) {
            rc = E->failed ? E->failed : oom(E);
            break;
        }
        if (s == STEP_BLOCK) {
            R->state = R_BLOCKED;
            blocked = 1;
            break;
        }
    }
    if (!rc && !blocked)
        R->state = R_DONE;
    count_done(E, R->cursor - from);
    return rc;
}

/* ------------------------------------------------------------------ distributed replay
 *
 * Each process replays its own ranks with the engine above and queues what crosses to another
 * process (struct fx) until the end of a round; then the processes swap these and agree on T,
 * the earliest queued time over all of them (and tau, the earliest type at T). With the swap come
 * the bounds of the ranks this process's ranks exchange messages with (struct engine.pub). In a
 * round a process takes its queue in order but puts off any entry that something not yet known
 * here could still precede on the same port, in (time, type, key) order (port_ok):
 *   a send port's grant:   a ready of a rendezvous whose receive is not posted yet (rdv_bound),
 *                          the rank's own later posts (post_bound), a collective it is in
 *                          (coll_bound);
 *   a receive port's arrival: any arrival not yet sent (arrival_bound: a least wire time after
 *                          the earliest grant of a rank that sends to it);
 *   a collective's port reading: both, for every member replayed here.
 * Once an entry of a port is put off, the port's later entries are too, until the next round.
 * The earliest entry over all processes can always be taken, so every round makes progress,
 * and each port's grants come in the same order as in a replay by one process
 * (docs/distributed.md). */

/* Queues @p f for process @p p until the end of the round; -1 out of memory. */
static int fx_send_to(struct engine *E, uint32_t p, const struct fx *f)
{
    struct fxbuf *b = &E->out[p];
    if (rt__grow((void **)&b->v, &b->cap, sizeof *b->v, b->n + 1))
        return -1;
    b->v[b->n++] = *f;
    return 0;
}

/* Queues @p f for the process that replays rank @p rank. */
static int fx_send(struct engine *E, uint32_t rank, const struct fx *f)
{
    return fx_send_to(E, owner_of(E, rank), f);
}

static int rdv_waiting_add(struct engine *E, uint32_t r, uint32_t id)
{
    struct rank *R = &E->ranks[r];
    if (!E->part)
        return 0;
    if (rt__grow((void **)&R->rdvw, &R->caprdvw, sizeof *R->rdvw, R->nrdvw + 1))
        return -1;
    R->rdvw[R->nrdvw++] = id;
    return 0;
}

static void rdv_waiting_del(struct engine *E, uint32_t r, uint32_t id)
{
    struct rank *R = &E->ranks[r];
    for (uint32_t i = 0; i < R->nrdvw; i++)
        if (R->rdvw[i] == id) {
            R->rdvw[i] = R->rdvw[--R->nrdvw];
            return;
        }
}

/* A message to another process is held for its far receiver until that side is done with it
 * here: its receive posted and (eager) its arrival sent or (rendezvous) its delivery known. */
static void vrecv_release(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (!(m->flags & M_VRECV) || (m->flags & M_VDONE) || !(m->flags & M_RECV))
        return;
    if (!(m->flags & ((m->flags & M_RDV) ? M_SDONE : M_FWD)))
        return;
    m->flags |= M_VDONE;
    msg_release(E, id);
}

/* The receive half of message (channel @p ci, number @p n) at the receiver's process, made on
 * first sight (its post or its arrival, whichever comes first). UINT32_MAX out of memory. */
static uint32_t half_of(struct engine *E, uint32_t ci, uint32_t n, uint32_t comm, uint32_t tag, uint32_t src,
                        uint32_t dst)
{
    uint64_t *h = rt__map_get(&E->halves, ci, n);
    if (h) {
        uint32_t id = (uint32_t)*h;
        rt__map_del(&E->halves, ci, n);
        return id;
    }
    uint32_t id = msg_new(E);
    if (id == UINT32_MAX)
        return id;
    if (rt__map_put(&E->halves, ci, n, id)) {
        oom(E);
        return UINT32_MAX;
    }
    struct msg *m = &E->msgs[id];
    m->flags = M_HALF;
    msg_label(m, comm, tag, src, dst);
    m->n = n;
    return id;
}

/* Rank @p r posts a receive whose sender is replayed by another process. */
static int post_remote_recv(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                            rt_time_ps t)
{
    uint32_t ci = chan_index(E, e->comm, e->aux, e->ref, r);
    if (ci == UINT32_MAX)
        return oom(E);
    uint32_t id = half_of(E, ci, E->chans[ci].nrecv++, e->comm, e->aux, e->ref, r);
    if (id == UINT32_MAX)
        return oom(E);
    struct msg *m = &E->msgs[id];
    m->flags |= M_RECV;
    m->recv_ev = j;
    m->post_ev = post_ev;
    m->recv_post = t;
    if (!(m->flags & M_SEND))
        m->bytes = e->bytes;
    uint32_t reg = call_region(E, r, j);
    struct fx f = {.kind = FX_RPOST, .comm = e->comm, .tag = e->aux, .src = e->ref, .dst = r, .t1 = t,
                   .ev1 = post_ev, .ev2 = j, .bytes = e->bytes, .reg = reg == RT_NONE ? 0 : reg + 1};
    if (fx_send(E, e->ref, &f) || pt_put(&E->ranks[r].pending, j, id))
        return oom(E);
    return 0;
}

static int bad_fx(struct engine *E, uint32_t from, const struct fx *f)
{
    return E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent a bad message (kind %u)",
                                    rt_trace_path(E->t), from, f->kind);
}

/* What another process's event @p ev of rank @p rank is in (its record's reg), for error messages. */
static void hint(struct engine *E, uint32_t rank, uint64_t ev, uint32_t reg)
{
    E->hint_rank = rank;
    E->hint_ev = ev;
    E->hint_region = reg && reg <= rt_trace_regions(E->t) ? reg - 1 : RT_NONE;
}

/* Applies what process @p from sent. */
static int fx_apply(struct engine *E, uint32_t from, const struct fx *f)
{
    uint32_t nr = E->nranks;
    if (f->kind == 0 || f->kind >= FX_KINDS)
        return bad_fx(E, from, f);
    if (f->kind == FX_DELIVERED) {
        if (f->id >= E->nmsgs || !(E->msgs[f->id].flags & M_VRECV) || !owned(E, E->msgs[f->id].src))
            return bad_fx(E, from, f);
        struct msg *m = &E->msgs[f->id];
        m->send_done = m->recv_done = f->t1;
        m->flags |= M_SDONE | M_RDONE;
        if (wake(E, m->src, f->t1))
            return E->failed;
        vrecv_release(E, (uint32_t)f->id);
        return 0;
    }
    if (f->kind == FX_BOUND) {
        if (f->src >= nr || owned(E, f->src))
            return bad_fx(E, from, f);
        E->pub[2 * (size_t)f->src] = f->t1;
        E->pub[2 * (size_t)f->src + 1] = f->t2;
        return 0;
    }
    if (f->kind == FX_RPOST || f->kind == FX_ARRIVE) {
        if (f->src >= nr || f->dst >= nr || f->comm >= rt_trace_comms(E->t))
            return bad_fx(E, from, f);
        uint32_t ci = chan_index(E, f->comm, f->tag, f->src, f->dst);
        if (ci == UINT32_MAX)
            return oom(E);
        if (f->kind == FX_RPOST) { /* at the sender's process: the far receiver's side of the channel */
            if (!owned(E, f->src))
                return bad_fx(E, from, f);
            uint32_t id = chan_match(E, ci, M_RECV, f->comm, f->tag, f->src, f->dst);
            if (id == UINT32_MAX)
                return oom(E);
            E->msgs[id].flags |= M_VRECV;
            hint(E, f->dst, f->ev2, f->reg); /* names the receive's call in an error */
            if (recv_side(E, id, f->ev2, f->ev1, f->bytes, f->t1) || schedule_if_ready(E, id))
                return E->failed;
            vrecv_release(E, id);
            return 0;
        }
        if (!owned(E, f->dst) || f->n > UINT32_MAX) /* FX_ARRIVE, at the receiver's process */
            return bad_fx(E, from, f);
        uint32_t id = half_of(E, ci, (uint32_t)f->n, f->comm, f->tag, f->src, f->dst);
        if (id == UINT32_MAX)
            return oom(E);
        struct msg *m = &E->msgs[id];
        m->flags |= M_SEND | (f->flags & (M_RDV | M_BURST));
        m->bytes = f->bytes;
        m->send_ev = f->ev1;
        m->origin_ev = f->ev2;
        m->origin_rank = f->i;
        m->pmsg = (uint32_t)f->id;
        return push(E, f->t1, Q_ARRIVE, id, MSG_KEY(f->src, f->ev1));
    }
    /* collectives */
    const struct rt_comm *cm = f->comm < rt_trace_comms(E->t) ? rt_trace_comm(E->t, f->comm) : NULL;
    if (!cm || f->i >= (cm->members ? cm->size : 1))
        return bad_fx(E, from, f);
    uint32_t id;
    if (f->kind == FX_CPOST) {
        hint(E, f->src, f->ev1, f->reg);
        if (f->src >= nr || coll_record(E, f->comm, f->n, f->tag, f->dst, f->src, f->ev1, &id))
            return E->failed ? E->failed : bad_fx(E, from, f);
        return coll_enter(E, id, f->i, f->src, f->ev1, f->tag, f->dst, f->t1, f->bytes, f->ev2, f->flags != 0);
    }
    uint64_t *cid = rt__map_get(&E->coll_of, f->comm, f->n);
    if (!cid)
        return bad_fx(E, from, f);
    id = (uint32_t)*cid;
    struct coll *c = &E->colls[id];
    switch (f->kind) {
    case FX_CTC:
        c->tc = f->t1;
        c->tc_known = 1;
        return push(E, c->tc, Q_COLL, id, coll_key(c));
    case FX_CPORTS:
        c->mem[f->i].tx_free = f->t1;
        c->mem[f->i].rx_free = f->t2;
        if (++c->ports_in < c->size)
            return 0;
        rt__map_del(&E->coll_of, c->comm, c->seq);
        return coll_finish(E, id);
    default: { /* FX_CDONE */
        uint32_t row = member_row(E, c, f->i);
        if (!owned(E, row) || f->src >= c->size)
            return bad_fx(E, from, f);
        struct rank *R = &E->ranks[row];
        c->mem[f->i].done = f->t1;
        c->mem[f->i].origin = f->src;
        c->ev[f->src] = f->ev1;
        R->tx_free = f->t2;
        R->rx_free = f->t3;
        R->held = 0;
        R->coll = UINT32_MAX;
        if (++c->dones == c->own) {
            c->complete = 1;
            rt__map_del(&E->coll_of, c->comm, c->seq);
        }
        return wake(E, row, f->t1);
    }
    }
}

enum { MARK_TX = 1, MARK_RX = 2 };

static void mark(struct engine *E, uint32_t r, uint8_t bits)
{
    if (!E->mark[r])
        E->marked[E->nmarked++] = r;
    E->mark[r] |= bits;
}

/* The earliest time a rendezvous ready of rank @p r not yet queued could have: its send is
 * posted, and its receive can only be posted at T or later, and not before its receiver could. */
static rt_time_ps rdv_bound(const struct engine *E, const struct rank *R)
{
    rt_time_ps lb = INT64_MAX;
    for (uint32_t i = 0; i < R->nrdvw; i++) {
        const struct msg *m = &E->msgs[R->rdvw[i]];
        rt_time_ps b = m->send_post > E->T ? m->send_post : E->T;
        b = E->pub[2 * (size_t)m->dst + 1] > b ? E->pub[2 * (size_t)m->dst + 1] : b;
        lb = b < lb ? b : lb;
    }
    return lb;
}

/* The earliest time an arrival not yet queued could reach rank @p r's receive port: one least
 * wire time after the earliest grant of any rank that ever sends to it. */
static rt_time_ps arrival_bound(const struct engine *E, uint32_t r)
{
    rt_time_ps lb = INT64_MAX;
    for (uint32_t k = E->senders_at[r - E->lo]; k < E->senders_at[r - E->lo + 1]; k++)
        lb = E->pub[2 * (size_t)E->senders[k]] < lb ? E->pub[2 * (size_t)E->senders[k]] : lb;
    lb = lb > INT64_MAX - E->wire_min ? INT64_MAX : lb + E->wire_min;
    return lb > E->T + E->wire_min ? lb : E->T + E->wire_min;
}

/* A lower bound on when collective @p c runs: its last entry. */
static rt_time_ps coll_bound(const struct engine *E, const struct coll *c)
{
    return c->tc_known ? c->tc : (c->max_begin > E->T ? c->max_begin : E->T);
}

/* A lower bound on when the blocked rank @p r can go on: the completion it waits for. */
static rt_time_ps wake_bound(const struct engine *E, uint32_t r)
{
    const struct rank *R = &E->ranks[r];
    const struct rt_event *e = &R->ev[R->cursor];
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) {
        rt_time_ps arr = arrival_bound(E, r);
        return E->arr_min[r] < arr ? E->arr_min[r] : arr;
    }
    if (e->kind == RT_EV_COLL_END && R->coll != UINT32_MAX)
        return coll_bound(E, &E->colls[R->coll]);
    if (e->kind != RT_EV_ISEND_COMPLETE && e->kind != RT_EV_LEAVE)
        return E->T;
    /* sends it waits for: each completes at or after its grant (eager), or its delivery, which is
     * at or after its arrival (rendezvous); it goes on when the last one completes */
    rt_time_ps lb = E->T, grant = rdv_bound(E, R);
    grant = E->rdy_min[r] < grant ? E->rdy_min[r] : grant;
    uint32_t n = e->kind == RT_EV_LEAVE ? R->nwaits : 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t p = e->kind == RT_EV_LEAVE ? R->waits[i] : pending_of((struct rank *)R, e->ref);
        if (p == UINT64_MAX || (p & COLL_BIT))
            return E->T;
        const struct msg *m = &E->msgs[p];
        if (m->flags & M_SDONE)
            continue;
        rt_time_ps b = grant;
        if ((m->flags & M_RDV) && (m->flags & M_FWD))
            b = m->recv_done; /* its arrival at the far receiver */
        else if ((m->flags & M_RDV) && owned(E, m->dst))
            b = E->arr_min[m->dst] < grant ? E->arr_min[m->dst] : grant;
        lb = b > lb ? b : lb;
    }
    return lb;
}

/* The earliest time rank @p r could still post anything. */
static rt_time_ps post_bound(const struct engine *E, uint32_t r)
{
    const struct rank *R = &E->ranks[r];
    rt_time_ps lb = R->clock > E->T ? R->clock : E->T;
    if (R->state == R_DONE)
        return INT64_MAX;
    if (R->state == R_QUEUED)
        return R->queued_at > lb ? R->queued_at : lb;
    rt_time_ps w = wake_bound(E, r);
    return w > lb ? w : lb;
}

/* Whether nothing unknown can precede (t, type) on rank @p r's port of kind @p bits. */
static int port_ok(const struct engine *E, uint32_t r, rt_time_ps t, uint8_t type, uint8_t bits)
{
    const struct rank *R = &E->ranks[r];
    int last_at_T = t == E->T && E->tau == Q_RDV; /* nothing more can be posted at T */
    if (E->mark[r] & bits)
        return 0;
    if (type != Q_COLL) {
        if (R->held)
            return 0;
        if (R->coll != UINT32_MAX) {
            rt_time_ps lb = coll_bound(E, &E->colls[R->coll]);
            if (!(t < lb || (t == lb && type < Q_COLL)))
                return 0;
        }
    }
    if (bits == MARK_RX) /* arrivals not yet sent */
        return t < arrival_bound(E, r);
    if (R->nrdvw) {
        rt_time_ps lb = rdv_bound(E, R);
        if (!(t < lb || (t == lb && (type < Q_RDV || last_at_T))))
            return 0;
    }
    if (type != Q_COLL) { /* the rank's own later posts */
        rt_time_ps lb = post_bound(E, r);
        if (type == Q_READY ? t > lb : !(t < lb || last_at_T))
            return 0;
    }
    return 1;
}

/* The earliest queued grant of every rank's send port and arrival at its receive port. */
static void scan_queue(struct engine *E)
{
    for (uint32_t r = E->lo; r < E->hi; r++)
        E->rdy_min[r] = E->arr_min[r] = INT64_MAX;
    for (size_t i = 0; i < E->nheap; i++) {
        const struct qent *q = &E->heap[i];
        uint8_t ty = QTYPE(q);
        if (ty == Q_READY || ty == Q_RDV) {
            uint32_t r = E->msgs[q->id].src;
            E->rdy_min[r] = q->t < E->rdy_min[r] ? q->t : E->rdy_min[r];
        } else if (ty == Q_ARRIVE) {
            uint32_t r = E->msgs[q->id].dst;
            E->arr_min[r] = q->t < E->arr_min[r] ? q->t : E->arr_min[r];
        }
    }
}

/* At the end of a round: this process's ranks' bounds (see struct engine.pub), kept here and sent
 * to the processes that need them. Effects still on their way cannot undercut them: each came
 * from an entry that respected the bounds of the round before. */
static int publish(struct engine *E)
{
    scan_queue(E);
    for (uint32_t r = E->lo; r < E->hi; r++) {
        rt_time_ps post = post_bound(E, r), grant = rdv_bound(E, &E->ranks[r]);
        grant = E->rdy_min[r] < grant ? E->rdy_min[r] : grant;
        grant = post < grant ? post : grant;
        E->pub[2 * (size_t)r] = grant;
        E->pub[2 * (size_t)r + 1] = post;
        struct fx f = {.kind = FX_BOUND, .src = r, .t1 = grant, .t2 = post};
        for (uint32_t k = E->nbp_at[r - E->lo]; k < E->nbp_at[r - E->lo + 1]; k++)
            if (fx_send_to(E, E->nbp[k], &f))
                return oom(E);
    }
    return 0;
}

/* Whether entry @p q may be taken now; if not, its ports are marked. */
static int entry_ok(struct engine *E, const struct qent *q)
{
    switch (QTYPE(q)) {
    case Q_READY:
    case Q_RDV: {
        uint32_t r = E->msgs[q->id].src;
        if (port_ok(E, r, q->t, QTYPE(q), MARK_TX))
            return 1;
        mark(E, r, MARK_TX);
        return 0;
    }
    case Q_ARRIVE: {
        uint32_t r = E->msgs[q->id].dst;
        if (port_ok(E, r, q->t, QTYPE(q), MARK_RX))
            return 1;
        mark(E, r, MARK_RX);
        return 0;
    }
    case Q_COLL: {
        const struct coll *c = &E->colls[q->id];
        int ok = 1;
        for (uint32_t i = 0; i < c->size && ok; i++) {
            uint32_t row = member_row(E, c, i);
            ok = !owned(E, row) || (port_ok(E, row, q->t, Q_COLL, MARK_TX) && port_ok(E, row, q->t, Q_COLL, MARK_RX));
        }
        if (!ok)
            for (uint32_t i = 0; i < c->size; i++)
                if (owned(E, member_row(E, c, i)))
                    mark(E, member_row(E, c, i), MARK_TX | MARK_RX);
        return ok;
    }
    default:
        return 1;
    }
}

RT_HOT_INLINE void take(struct engine *E, struct qent q)
{
    switch (QTYPE(&q)) {
    case Q_RESUME: {
        struct rank *R = &E->ranks[q.id];
        if (R->state == R_QUEUED && R->queued_at == q.t)
            run_rank(E, q.id);
        break;
    }
    case Q_READY:
    case Q_RDV:
        on_ready(E, q.id, q.t);
        break;
    case Q_ARRIVE:
        on_arrive(E, q.id, q.t);
        break;
    case Q_COLL:
        coll_ports(E, q.id);
        break;
    }
}

/* Sends the round's messages and applies those received; RT_OK or the transport's error. */
static int swap(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    void *outp[P->nprocs > 0 ? P->nprocs : 1], *inp[P->nprocs > 0 ? P->nprocs : 1];
    size_t outlen[P->nprocs > 0 ? P->nprocs : 1], inlen[P->nprocs > 0 ? P->nprocs : 1];
    for (uint32_t p = 0; p < P->nprocs; p++) {
        outp[p] = E->out[p].v;
        outlen[p] = E->out[p].n * sizeof(struct fx);
    }
    int rc = P->exchange(P->ud, outp, outlen, inp, inlen);
    for (uint32_t p = 0; p < P->nprocs; p++)
        E->out[p].n = 0;
    if (rc)
        return rc;
    for (uint32_t p = 0; p < P->nprocs && !E->failed; p++) {
        if (inlen[p] % sizeof(struct fx)) {
            E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent %zu bytes",
                                     rt_trace_path(E->t), p, inlen[p]);
            break;
        }
        const struct fx *f = inp[p];
        for (size_t i = 0; i < inlen[p] / sizeof(struct fx) && !E->failed; i++) {
            struct fx x;
            memcpy(&x, &f[i], sizeof x); /* the transport's buffer need not be aligned */
            fx_apply(E, p, &x);
        }
    }
    return RT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Which other processes need the bounds of each rank here (E->nbp): those of the ranks it sends to
 * (their arrivals wait for its grants; @p pairs[p] holds (receiver, sender) pairs for process p)
 * and of the ranks that send to it (their rendezvous wait for its posts). */
static int bound_readers(struct engine *E, uint32_t *const *pairs, const uint32_t *len)
{
    const struct rt_replay_part *P = E->part;
    uint32_t nown = E->hi - E->lo;
    uint64_t n = 0, k = 0;
    for (uint32_t p = 0; p < P->nprocs; p++)
        n += p == P->me ? 0 : len[p];
    n += E->senders_at[nown];
    uint64_t *key = malloc((n ? n : 1) * sizeof *key); /* (rank here - lo) << 32 | process */
    E->nbp_at = calloc((size_t)nown + 1, sizeof *E->nbp_at);
    E->nbp = malloc((n ? n : 1) * sizeof *E->nbp);
    if (!key || !E->nbp_at || !E->nbp) {
        free(key);
        return oom(E);
    }
    for (uint32_t p = 0; p < P->nprocs; p++)
        for (uint32_t i = 0; p != P->me && i < len[p]; i++)
            key[k++] = (uint64_t)(pairs[p][2 * i + 1] - E->lo) << 32 | p;
    for (uint32_t r = 0; r < nown; r++)
        for (uint32_t i = E->senders_at[r]; i < E->senders_at[r + 1]; i++)
            if (owner_of(E, E->senders[i]) != P->me)
                key[k++] = (uint64_t)r << 32 | owner_of(E, E->senders[i]);
    qsort(key, k, sizeof *key, cmp_u64);
    uint64_t m = 0;
    for (uint64_t i = 0; i < k; i++) {
        if (i && key[i] == key[i - 1])
            continue;
        E->nbp[m++] = (uint32_t)key[i];
        E->nbp_at[(key[i] >> 32) + 1]++;
    }
    for (uint32_t r = 0; r < nown; r++)
        E->nbp_at[r + 1] += E->nbp_at[r];
    free(key);
    return RT_OK;
}

/* Which ranks ever send to each rank here: every process sends the pairs (receiver, sender) of its
 * ranks' sends to the receivers' processes, once before the rounds. */
static int find_senders(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    struct rt__map seen;
    uint32_t **pairs = calloc(P->nprocs, sizeof *pairs), *cap = calloc(P->nprocs, sizeof *cap),
             *len = calloc(P->nprocs, sizeof *len), nown = E->hi - E->lo;
    void **outp = calloc(P->nprocs, sizeof *outp), **inp = calloc(P->nprocs, sizeof *inp);
    size_t *outlen = calloc(P->nprocs, sizeof *outlen), *inlen = calloc(P->nprocs, sizeof *inlen);
    int rc = RT_OK;
    rt__map_init(&seen);
    E->senders_at = calloc((size_t)nown + 1, sizeof *E->senders_at);
    if (!pairs || !cap || !len || !outp || !inp || !outlen || !inlen || !E->senders_at) {
        rc = oom(E);
        goto send;
    }
    for (uint32_t r = E->lo; r < E->hi && !rc; r++) {
        const struct rank *R = &E->ranks[r];
        for (uint64_t j = 0; j < R->nev && !rc; j++) {
            const struct rt_event *e = &R->ev[j];
            if ((e->kind != RT_EV_SEND && e->kind != RT_EV_ISEND) || e->ref >= E->nranks)
                continue;
            if (rt__map_get(&seen, e->ref, r))
                continue;
            uint32_t p = owner_of(E, e->ref);
            if (rt__map_put(&seen, e->ref, r, 1) || rt__grow((void **)&pairs[p], &cap[p], 2 * sizeof **pairs, len[p] + 1)) {
                rc = oom(E);
                break;
            }
            pairs[p][2 * len[p]] = e->ref;
            pairs[p][2 * len[p] + 1] = r;
            len[p]++;
        }
    }
send: /* every process takes part in the exchange, even after a failure here */
    for (uint32_t p = 0; p < P->nprocs && outlen; p++) {
        outp[p] = pairs ? pairs[p] : NULL;
        outlen[p] = rc || !len ? 0 : (size_t)len[p] * 2 * sizeof(uint32_t);
    }
    int xrc = outlen && inlen ? P->exchange(P->ud, outp, outlen, inp, inlen) : RT_ENOMEM;
    if (!rc && xrc)
        rc = E->failed = rt_error_set(E->err, xrc, "%s: distributed replay: exchange failed", rt_trace_path(E->t));
    uint64_t total = 0;
    for (uint32_t p = 0; !rc && p < P->nprocs; p++) { /* count per receiver, then place */
        const uint32_t *x = inp[p];
        for (size_t i = 0; i + 1 < inlen[p] / sizeof(uint32_t); i += 2) {
            uint32_t dst, src;
            memcpy(&dst, &x[i], sizeof dst);
            memcpy(&src, &x[i + 1], sizeof src);
            if (!owned(E, dst) || src >= E->nranks) {
                rc = E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent a bad pair",
                                              rt_trace_path(E->t), p);
                break;
            }
            E->senders_at[dst - E->lo + 1]++;
            total++;
        }
    }
    if (!rc) {
        for (uint32_t i = 0; i < nown; i++)
            E->senders_at[i + 1] += E->senders_at[i];
        E->senders = malloc((total ? total : 1) * sizeof *E->senders);
        uint32_t *fill = calloc((size_t)nown + 1, sizeof *fill);
        if (!E->senders || !fill) {
            free(fill);
            rc = oom(E);
        } else {
            for (uint32_t p = 0; p < P->nprocs; p++) {
                const uint32_t *x = inp[p];
                for (size_t i = 0; i + 1 < inlen[p] / sizeof(uint32_t); i += 2) {
                    uint32_t dst, src;
                    memcpy(&dst, &x[i], sizeof dst);
                    memcpy(&src, &x[i + 1], sizeof src);
                    E->senders[E->senders_at[dst - E->lo] + fill[dst - E->lo]++] = src;
                }
            }
            free(fill);
        }
    }
    if (!rc)
        rc = bound_readers(E, pairs, len);
    for (uint32_t p = 0; pairs && p < P->nprocs; p++)
        free(pairs[p]);
    free(pairs);
    free(cap);
    free(len);
    free(outp);
    free(inp);
    free(outlen);
    free(inlen);
    rt__map_free(&seen);
    return rc;
}

/* The distributed replay's rounds, until no process has anything queued. */
static int run_rounds(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    if (find_senders(E)) /* a failure is reported in the first round, which everyone takes part in */
        E->failed = E->failed ? E->failed : oom(E);
    for (;;) {
        int rc = swap(E);
        if (rc)
            return E->failed ? E->failed : rt_error_set(E->err, rc, "%s: distributed replay: exchange failed",
                                                          rt_trace_path(E->t));
        int64_t *v = E->red;
        v[0] = INT64_MAX;
        v[1] = E->failed ? 0 : 1;
        int64_t ty = INT64_MAX;
        if (E->nheap)
            v[0] = E->heap[0].t, ty = QTYPE(&E->heap[0]);
        /* what the swap itself made (a collective's results) is queued elsewhere only next round */
        for (uint32_t p = 0; p < P->nprocs; p++)
            for (uint32_t i = 0; i < E->out[p].n; i++)
                if (E->out[p].v[i].kind != FX_CPORTS && E->out[p].v[i].kind != FX_BOUND &&
                    (E->out[p].v[i].t1 < v[0] || (E->out[p].v[i].t1 == v[0] && ty)))
                    v[0] = E->out[p].v[i].t1, ty = Q_RESUME;
        scan_queue(E);
        for (uint32_t i = 0; i < E->ncolls; i++) { /* collectives that wait for their ports */
            const struct coll *c = &E->colls[i];
            if (c->mem && c->tc_known && !c->complete && coordinates(E, c) && (c->tc < v[0] || (c->tc == v[0] && Q_COLL < ty)))
                v[0] = c->tc, ty = Q_COLL;
        }
        rt_time_ps mine = v[0];
        /* time and type in one value, so that one reduction gives both (times below 2^60 ps, 13
         * days; beyond, a second reduction finds the type) */
        v[2] = mine >= 0 && mine < (INT64_C(1) << 60) && ty < 8 ? mine * 8 + ty : INT64_MAX;
        if ((rc = P->reduce(P->ud, v, 3, 0)))
            return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
        if (v[1] == 0)
            return E->failed ? E->failed
                             : rt_error_set(E->err, RT_EREMOTE, "%s: stopped: another process failed", rt_trace_path(E->t));
        if (v[0] == INT64_MAX)
            return RT_OK;
        int64_t tau = v[2] != INT64_MAX && v[2] / 8 == v[0] ? v[2] % 8 : INT64_MAX;
        if (tau == INT64_MAX) {
            tau = mine == v[0] ? ty : INT64_MAX;
            if ((rc = P->reduce(P->ud, &tau, 1, 0)))
                return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
        }
        E->T = v[0];
        E->tau = (uint8_t)tau;
        E->res->rounds++;
        while (E->nheap && !E->failed) {
            struct qent q = pop(E);
            if (entry_ok(E, &q)) {
                take(E, q);
                continue;
            }
            if (rt__grow((void **)&E->later, &E->caplater, sizeof *E->later, E->nlater + 1)) {
                oom(E);
                break;
            }
            E->later[E->nlater++] = q;
        }
        for (uint32_t i = 0; i < E->nlater && !E->failed; i++)
            if (push(E, E->later[i].t, QTYPE(&E->later[i]), E->later[i].id, E->later[i].tk))
                break;
        E->nlater = 0;
        for (uint32_t i = 0; i < E->nmarked; i++)
            E->mark[E->marked[i]] = 0;
        E->nmarked = 0;
        if (!E->failed)
            publish(E);
    }
}

/* A rank's state and position, here or (after share_states) at its own process. */
static uint8_t rank_state(const struct engine *E, uint32_t r)
{
    if (r >= E->nranks) /* no such rank: nothing will come from it */
        return R_DONE;
    if (owned(E, r) || !E->remote_state)
        return E->ranks[r].state;
    return (uint8_t)(E->remote_state[RS * (size_t)r] - 1);
}

static uint64_t rank_cursor(const struct engine *E, uint32_t r)
{
    if (r >= E->nranks)
        return 0;
    if (owned(E, r) || !E->remote_state)
        return E->ranks[r].cursor;
    return (uint64_t)E->remote_state[RS * (size_t)r + 1];
}

/* The rank that blocked rank @p r waits for (a message's peer), or RT_NONE (a collective, none). */
static uint32_t waits_for(const struct engine *E, uint32_t r)
{
    if (!owned(E, r)) {
        if (!E->remote_state || !E->remote_state[RS * (size_t)r + 3])
            return RT_NONE;
        return (uint32_t)(E->remote_state[RS * (size_t)r + 3] - 1);
    }
    const struct rank *R = &E->ranks[r];
    if (R->state == R_DONE || R->cursor >= R->nev)
        return RT_NONE;
    const struct rt_event *e = &R->ev[R->cursor];
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV)
        return (e->kind == RT_EV_RECV ? e : &R->ev[e->ref])->ref;
    if (e->kind == RT_EV_ISEND_COMPLETE || e->kind == RT_EV_LEAVE) {
        uint64_t p = e->kind == RT_EV_ISEND_COMPLETE ? pending_of((struct rank *)R, e->ref) : UINT64_MAX;
        if (p != UINT64_MAX && !(p & COLL_BIT))
            return E->msgs[p].dst;
        for (uint32_t i = 0; i < R->nwaits; i++)
            if (!(E->msgs[R->waits[i]].flags & M_SDONE))
                return E->msgs[R->waits[i]].dst;
    }
    return RT_NONE;
}

/* Appends to @p buf the cycle of waiting ranks that rank @p r is in, if it is in one. */
static void wait_cycle(const struct engine *E, uint32_t r, char *buf, size_t n)
{
    uint32_t x = r, steps = 0;
    do { /* r is on a cycle when following the waits from it comes back to it */
        x = waits_for(E, x);
    } while (x != RT_NONE && x != r && ++steps <= E->nranks);
    if (x != r || steps < 2) /* two ranks: the message already names both */
        return;
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "; the cycle: rank %u", r);
    for (x = waits_for(E, r); len < n; x = waits_for(E, x)) {
        len += (size_t)snprintf(buf + len, n - len, " -> %u", x);
        if (x == r)
            break;
    }
}

/* Every process learns where every rank stopped, for the diagnosis of a replay that did not finish. */
static int share_states(struct engine *E)
{
    int64_t *v = E->remote_state;
    for (uint32_t r = E->lo; r < E->hi; r++) {
        const struct rank *R = &E->ranks[r];
        uint32_t reg = R->cursor < R->nev ? call_region(E, r, R->cursor) : RT_NONE;
        v[RS * (size_t)r] = (int64_t)R->state + 1;
        v[RS * (size_t)r + 1] = (int64_t)R->cursor;
        v[RS * (size_t)r + 2] = reg == RT_NONE ? 0 : (int64_t)reg + 1;
        uint32_t w = waits_for(E, r);
        v[RS * (size_t)r + 3] = w == RT_NONE ? 0 : (int64_t)w + 1;
    }
    int rc = E->part->reduce(E->part->ud, v, RS * (size_t)E->nranks, 1);
    return rc ? rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t)) : RT_OK;
}

/* One error for all: the lowest failing process keeps its own, the others say it stopped them. */
static int agree(struct engine *E, int rc)
{
    int64_t v = rc && rc != RT_EREMOTE ? (int64_t)E->part->me : INT64_MAX; /* the first real error */
    int prc = E->part->reduce(E->part->ud, &v, 1, 0);
    if (prc)
        return rc ? rc : rt_error_set(E->err, prc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
    if (v == INT64_MAX || v == (int64_t)E->part->me)
        return rc;
    return rt_error_set(E->err, RT_EREMOTE, "%s: stopped: process %lld of the distributed replay failed",
                        rt_trace_path(E->t), (long long)v);
}

/* Sums the processes' per-rank ends and counters: every process returns the whole result. */
static int share_results(struct engine *E)
{
    struct rt_replay_result *res = E->res;
    size_t n = E->nranks;
    int64_t c[7] = {(int64_t)res->events, (int64_t)res->messages, (int64_t)res->rendezvous,
                    (int64_t)res->collectives, res->net_noise_ps, res->os_noise_ps, res->burst_ps};
    int rc = E->part->reduce(E->part->ud, res->predicted_end_ps, n, 1);
    if (!rc)
        rc = E->part->reduce(E->part->ud, res->measured_end_ns, n, 1);
    if (!rc)
        rc = E->part->reduce(E->part->ud, c, 7, 1);
    if (rc)
        return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
    res->events = (uint64_t)c[0];
    res->messages = (uint64_t)c[1];
    res->rendezvous = (uint64_t)c[2];
    res->collectives = (uint64_t)c[3];
    res->net_noise_ps = c[4];
    res->os_noise_ps = c[5];
    res->burst_ps = c[6];
    return RT_OK;
}

/* ------------------------------------------------------------------ diagnosis */

static int diagnose(struct engine *E)
{
    const char *path = rt_trace_path(E->t);
    int rc;
    for (uint32_t r = 0; r < E->nranks; r++) {
        struct rank *R = &E->ranks[r];
        if (R->state == R_DONE)
            continue;
        uint64_t j = R->cursor;
        const struct rt_event *e = &R->ev[j];
        if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) {
            const struct rt_event *post_ev = e->kind == RT_EV_RECV ? e : &R->ev[e->ref];
            uint32_t s = post_ev->ref;
            if (rank_state(E, s) == R_DONE)
                return rt_error_set(E->err, RT_EUNMATCHED,
                                    "%s: unmatched receive: rank %u event %llu (%s from rank %u, tag %u, comm '%s', %llu bytes): rank %u never sends it",
                                    path, r, (unsigned long long)j, call_name(E, r, j), s, post_ev->aux,
                                    comm_name(E, post_ev->comm), (unsigned long long)post_ev->bytes, s);
            rc = rt_error_set(E->err, RT_EDEADLOCK,
                                "%s: deadlock: rank %u event %llu (%s from rank %u, tag %u) waits for rank %u, which is blocked at event %llu (%s)",
                                path, r, (unsigned long long)j, call_name(E, r, j), s, post_ev->aux, s,
                                (unsigned long long)rank_cursor(E, s), call_name(E, s, rank_cursor(E, s)));
            if (E->err)
                wait_cycle(E, r, E->err->msg, sizeof E->err->msg);
            return rc;
        }
        if (e->kind == RT_EV_LEAVE || e->kind == RT_EV_ISEND_COMPLETE) {
            uint32_t id = UINT32_MAX;
            if (e->kind == RT_EV_ISEND_COMPLETE)
                id = (uint32_t)pending_of(R, e->ref);
            else
                for (uint32_t i = 0; i < R->nwaits && id == UINT32_MAX; i++)
                    if (!(E->msgs[R->waits[i]].flags & M_SDONE))
                        id = R->waits[i];
            if (id != UINT32_MAX) {
                struct msg *m = &E->msgs[id];
                if (rank_state(E, m->dst) == R_DONE)
                    return rt_error_set(E->err, RT_EUNMATCHED,
                                        "%s: unmatched send: rank %u event %llu (%s to rank %u, tag %u, comm '%s', %llu bytes, rendezvous): rank %u never receives it",
                                        path, r, (unsigned long long)m->send_ev, call_name(E, r, m->send_ev), m->dst,
                                        m->tag, comm_name(E, m->comm), (unsigned long long)m->bytes, m->dst);
                rc = rt_error_set(E->err, RT_EDEADLOCK,
                                    "%s: deadlock: rank %u event %llu (%s to rank %u, tag %u, rendezvous) waits for rank %u, which is blocked at event %llu (%s)",
                                    path, r, (unsigned long long)m->send_ev, call_name(E, r, m->send_ev), m->dst, m->tag,
                                    m->dst, (unsigned long long)rank_cursor(E, m->dst), call_name(E, m->dst, rank_cursor(E, m->dst)));
                if (E->err)
                    wait_cycle(E, r, E->err->msg, sizeof E->err->msg);
                return rc;
            }
        }
        if (e->kind == RT_EV_COLL_END) {
            uint64_t p = pending_of(R, e->ref);
            struct coll *c = &E->colls[(uint32_t)p];
            return rt_error_set(E->err, RT_EDEADLOCK,
                                "%s: deadlock: rank %u event %llu (%s on comm '%s') waits for a collective that only %u of %u ranks enter",
                                path, r, (unsigned long long)j, call_name(E, r, j), comm_name(E, c->comm), c->arrived,
                                c->size);
        }
        return rt_error_set(E->err, RT_EDEADLOCK, "%s: deadlock: rank %u blocked at event %llu (%s)", path, r,
                            (unsigned long long)j, call_name(E, r, j));
    }
    /* Every rank finished: any send still queued in a channel was never received. */
    for (uint32_t i = 0; i < E->nchans; i++) {
        struct chan *c = &E->chans[i];
        if (c->head == UINT32_MAX)
            continue;
        struct msg *m = &E->msgs[c->head];
        if (c->side == M_SEND)
            return rt_error_set(E->err, RT_EUNMATCHED,
                                "%s: unmatched send: rank %u event %llu (%s to rank %u, tag %u, comm '%s', %llu bytes) has no matching receive",
                                path, m->src, (unsigned long long)m->send_ev, call_name(E, m->src, m->send_ev), m->dst,
                                m->tag, comm_name(E, m->comm), (unsigned long long)m->bytes);
    }
    return RT_OK;
}

/* ------------------------------------------------------------------ driver */

void rt_replay_options_default(struct rt_replay_options *o)
{
    memset(o, 0, sizeof *o);
    o->model.ops = &rt_model_hockney;
    o->compute_scale = 1.0;
    o->eager_limit = 64 * 1024;
}

int rt_replay_options_noisy(const struct rt_replay_options *o)
{
    return o->net_noise || o->os_noise || o->net_burst;
}

struct rt_replay_options rt_replay_options_noise_free(const struct rt_replay_options *o)
{
    struct rt_replay_options q = *o;
    q.net_noise = NULL;
    q.os_noise = NULL;
    q.net_burst = NULL;
    return q;
}

void rt_replay_result_destroy(struct rt_replay_result *r)
{
    if (!r)
        return;
    free(r->predicted_end_ps);
    free(r->measured_end_ns);
    free(r);
}

int rt_replay_run(const rt_trace *trace, const struct rt_replay_options *opts,
                  const struct rt_replay_observer *obs, struct rt_replay_result **out, rt_error *err)
{
    struct engine E;
    int rc = RT_OK;
    memset(&E, 0, sizeof E);
    *out = NULL;
    if (!opts->model.ops)
        return rt_error_set(err, RT_EINVAL, "no model given");
    if (!(opts->compute_scale >= 0) || opts->compute_scale > 1e6)
        return rt_error_set(err, RT_ERANGE, "compute scale must be between 0 and 1e6");
    if (rt__coll_algo_check(opts->coll_algo, err))
        return RT_EINVAL;
    E.t = trace;
    E.o = opts;
    E.obs = obs;
    E.err = err;
    E.nranks = rt_trace_ranks(trace);
    E.freemsg = E.freecoll = UINT32_MAX;
    E.hint_rank = E.hint_region = RT_NONE;
    E.res = calloc(1, sizeof *E.res);
    E.ranks = calloc(E.nranks ? E.nranks : 1, sizeof *E.ranks);
    if (E.res) {
        E.res->predicted_end_ps = calloc(E.nranks ? E.nranks : 1, sizeof *E.res->predicted_end_ps);
        E.res->measured_end_ns = calloc(E.nranks ? E.nranks : 1, sizeof *E.res->measured_end_ns);
    }
    if (!E.res || !E.ranks || !E.res->predicted_end_ps || !E.res->measured_end_ns) {
        rc = oom(&E);
        goto done;
    }
    E.res->ranks = E.nranks;
    {
        const struct rt_model *mod = &opts->model;
        rt_time_ps w0 = mod->ops->wire(&mod->params, 0);
        if (opts->net_burst) {
            rt_time_ps wb = rt__burst_wire(opts->net_burst, w0, 0);
            w0 = wb < w0 ? wb : w0;
        }
        E.wire_min = w0 > 1 ? w0 : 1;
    }
    E.lo = 0;
    E.hi = E.nranks;
    if (opts->part) {
        const struct rt_replay_part *P = opts->part;
        int ok = P->nprocs > 0 && P->me < P->nprocs && P->first_rank && P->first_rank[0] == 0 &&
                 P->first_rank[P->nprocs] == E.nranks && P->exchange && P->reduce;
        for (uint32_t p = 0; ok && p < P->nprocs; p++)
            ok = P->first_rank[p] <= P->first_rank[p + 1];
        if (!ok) {
            rc = rt_error_set(err, RT_EINVAL, "%s: the distributed replay's ranks are not split among its processes",
                              rt_trace_path(trace));
            goto done;
        }
        E.part = P;
        E.lo = P->first_rank[P->me];
        E.hi = P->first_rank[P->me + 1];
        E.out = calloc(P->nprocs, sizeof *E.out);
        E.mark = calloc(E.nranks ? E.nranks : 1, 1);
        E.marked = calloc(E.nranks ? E.nranks : 1, sizeof *E.marked);
        E.remote_state = calloc(RS * (size_t)(E.nranks ? E.nranks : 1), sizeof *E.remote_state);
        E.pub = malloc((2 * (size_t)E.nranks + 1) * sizeof *E.pub);
        E.rdy_min = calloc(E.nranks ? E.nranks : 1, sizeof *E.rdy_min);
        E.arr_min = calloc(E.nranks ? E.nranks : 1, sizeof *E.arr_min);
        for (size_t i = 0; E.pub && i < 2 * (size_t)E.nranks; i++)
            E.pub[i] = INT64_MIN; /* nothing known yet: anything may happen at any time */
    }
    rt_time_ns first = INT64_MAX, last = INT64_MIN;
    for (uint32_t r = 0; r < E.nranks; r++) {
        struct rank *R = &E.ranks[r];
        R->coll = UINT32_MAX;
        if (owned(&E, r))
            R->ev = rt_trace_events(trace, r, &R->nev);
        if (R->nev) {
            first = R->ev[0].time < first ? R->ev[0].time : first;
            last = R->ev[R->nev - 1].time > last ? R->ev[R->nev - 1].time : last;
        }
        E.res->events += R->nev;
    }
    E.total = E.res->events;
    E.next_progress = PROGRESS_EVERY;
    if (E.part) { /* the earliest start and latest end over all processes; whether all set up */
        int64_t v[3] = {first, last == INT64_MIN ? INT64_MAX : -last,
                        E.out && E.mark && E.marked && E.remote_state && E.pub && E.rdy_min && E.arr_min ? 1 : 0};
        int prc = E.part->reduce(E.part->ud, v, 3, 0);
        if (prc || !v[2]) {
            rc = prc ? rt_error_set(err, prc, "%s: distributed replay: reduction failed", rt_trace_path(trace))
                     : (E.out && E.mark && E.marked && E.remote_state && E.pub && E.rdy_min && E.arr_min)
                           ? rt_error_set(err, RT_EREMOTE, "%s: stopped: another process failed", rt_trace_path(trace))
                           : oom(&E);
            goto done;
        }
        first = v[0];
        last = v[1] == INT64_MAX ? INT64_MIN : -v[1];
    }
    if (first == INT64_MAX)
        first = last = 0;
    /* Every compute interval and start offset is at most the span: scaled, it must fit the ps clock. */
    if ((double)(last - first) * 1e3 * opts->compute_scale > MAX_CLOCK_PS) {
        rc = rt_error_set(err, RT_ERANGE, "%s: the trace spans %lld ns; times compute scale %g that is beyond "
                          "the replay's clock (%.3g ps)", rt_trace_path(trace), (long long)(last - first),
                          opts->compute_scale, MAX_CLOCK_PS);
        goto done;
    }
    for (uint32_t r = 0; r < E.nranks; r++) {
        struct rank *R = &E.ranks[r];
        rt_time_ns start = R->nev ? R->ev[0].time : first;
        /* Ranks start where they were measured to start, relative to the earliest one. */
        R->clock = (rt_time_ps)((double)(start - first) * 1e3 * opts->compute_scale + 0.5);
        R->last_meas = start;
        R->tx_free = R->rx_free = NEVER;
        R->pending = (struct ptab){0};
        if (!owned(&E, r)) { /* replayed by another process */
            R->state = R_DONE;
            continue;
        }
        R->state = R_QUEUED;
        R->queued_at = R->clock;
        if (push(&E, R->clock, Q_RESUME, r, r)) {
            rc = E.failed;
            goto done;
        }
    }
    if (opts->os_noise && rt_os_noise_sources(opts->os_noise)) {
        E.nsrc = rt_os_noise_sources(opts->os_noise);
        E.os = (struct rt__os_ctx){opts->os_noise, opts->seed, opts->run};
        E.cursors = calloc((size_t)(E.nranks ? E.nranks : 1) * E.nsrc, sizeof *E.cursors);
        if (!E.cursors) {
            rc = oom(&E);
            goto done;
        }
    }
    if (opts->net_burst && rt__burst_state_init(&E.burst, opts->net_burst, opts->seed, opts->run, E.nranks)) {
        rc = oom(&E);
        goto done;
    }
    rt__map_init(&E.chan_of);
    rt__map_init(&E.coll_of);
    rt__map_init(&E.coll_seq);
    rt__map_init(&E.comm_rank);
    rt__map_init(&E.halves);
    if (E.part) {
        rc = run_rounds(&E);
    } else {
        while (E.nheap && !E.failed)
            take(&E, pop(&E));
        rc = E.failed;
    }
    if (!rc && E.part)
        rc = share_states(&E);
    if (!rc)
        rc = diagnose(&E);
    if (E.part)
        rc = agree(&E, rc);
    if (rc)
        goto done;
    E.res->measured_ns = last - first;
    for (uint32_t r = E.lo; r < E.hi; r++) {
        struct rank *R = &E.ranks[r];
        E.res->predicted_end_ps[r] = R->clock;
        E.res->measured_end_ns[r] = R->nev ? R->ev[R->nev - 1].time - first : 0;
    }
    if (E.part && (rc = share_results(&E)))
        goto done;
    for (uint32_t r = 0; r < E.nranks; r++)
        if (E.res->predicted_end_ps[r] > E.res->predicted_ps)
            E.res->predicted_ps = E.res->predicted_end_ps[r];
    uint64_t mem = (uint64_t)E.capmsgs * sizeof(struct msg) + E.capheap * sizeof(struct qent) +
                   (uint64_t)E.capchans * sizeof(struct chan) + (uint64_t)E.capcolls * sizeof(struct coll) +
                   rt__map_memory(&E.chan_of) + rt__map_memory(&E.coll_of) + rt__map_memory(&E.coll_seq) +
                   rt__map_memory(&E.comm_rank) + E.coll_bytes_peak + rt__burst_state_memory(&E.burst) +
                   (uint64_t)E.nranks * E.nsrc * (sizeof *E.cursors + 2 * RT__DETOUR_RING * sizeof(rt_time_ps)) +
                   (uint64_t)E.nranks * sizeof(struct rank);
    for (uint32_t r = 0; r < E.nranks; r++)
        mem += (uint64_t)E.ranks[r].pending.cap * sizeof(struct ptab_slot) + E.ranks[r].capwaits * sizeof(uint32_t);
    E.res->peak_bytes = mem;
done:
    if (E.ranks)
        for (uint32_t r = 0; r < E.nranks; r++) {
            free(E.ranks[r].pending.slot);
            free(E.ranks[r].waits);
            free(E.ranks[r].rdvw);
        }
    if (E.out)
        for (uint32_t p = 0; p < E.part->nprocs; p++)
            free(E.out[p].v);
    free(E.out);
    free(E.mark);
    free(E.marked);
    free(E.later);
    free(E.remote_state);
    free(E.nbp);
    free(E.nbp_at);
    free(E.pub);
    free(E.rdy_min);
    free(E.arr_min);
    free(E.senders);
    free(E.senders_at);
    rt__map_free(&E.halves);
    free(E.ranks);
    rt__os_cursors_free(E.cursors, (size_t)E.nranks * E.nsrc);
    free(E.cursors);
    rt__burst_state_free(&E.burst);
    free(E.heap);
    free(E.msgs);
    free(E.chans);
    for (uint32_t i = 0; i < E.ncolls; i++) {
        free(E.colls[i].mem);
        free(E.colls[i].ev);
    }
    free(E.colls);
    rt__map_free(&E.chan_of);
    rt__map_free(&E.coll_of);
    rt__map_free(&E.coll_seq);
    rt__map_free(&E.comm_rank);
    if (rc == RT_OK)
        *out = E.res;
    else
        rt_replay_result_destroy(E.res);
    return rc;
}
