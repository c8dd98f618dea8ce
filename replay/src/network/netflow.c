/* SPDX-License-Identifier: MIT */
/*
 * A flow-level network contention model: max-min fair sharing of link bandwidth among flows, as
 * in SimGrid's flow models (P. Velho, L. Schnorr, H. Casanova, A. Legrand, "On the validity of
 * flow-level TCP network models for grid and cloud simulations", ACM TOMACS 23(4), 2013), here
 * without SimGrid's latency and TCP-window corrections: the caller adds latencies.
 *
 * Model. Link l has capacity C_l [B/ps]; flow f has a route R_f (a set of distinct links), a size
 * of B_f bytes and its own rate limit M_f [B/ps] (e.g. its NIC's). At any time the active flows'
 * rates r_f are the max-min fair allocation under the constraints
 *     sum_{f : l in R_f} r_f <= C_l  for every link l,      r_f <= M_f  for every flow f,
 * computed by progressive filling: all flows start unfrozen; each link has a remaining capacity
 * c_l = C_l and a count n_l of unfrozen flows over it. Repeatedly take the smallest of
 *     the links' fair shares  s_l = c_l / n_l  (links with n_l > 0)  and the unfrozen flows' M_f
 * and freeze at that level: the flow (r_f = M_f, no bottleneck link), or every unfrozen flow over
 * the link (r_f = s_l, that link is their bottleneck); subtract each frozen rate from c_m and 1
 * from n_m on the flows' other links m. Mathematically a share never decreases (freezing at
 * r <= s_m gives (c_m - r)/(n_m - 1) >= s_m); in floating point it is clamped never to
 * decrease, so no rate can round to 0 or below an earlier level. A link that carries a
 * single flow has the constant share C_l until that flow freezes, so it is folded into the flow's
 * limit: M'_f = min(M_f, C_l over such links), its bottleneck being that link when C_l < M_f.
 * Ties at one level change no rate, only which link is named the bottleneck; they go to the
 * flows' limits M'_f before the links' shares, then to the lower flow id or link key (the
 * caller's link id); within M'_f to
 * M_f before a link, then to the lower route position.
 *
 * Time. Rates change only at recomputations, which happen at the time of the last start or
 * advance when flows started or ended since the last one. A flow keeps its remaining bytes Q_f
 * as of the time u_f of its last rate change; when its rate changes at time t,
 *     Q_f <- max(0, Q_f - r_f * (t - u_f)),  u_f <- t,
 * and its completion is predicted at
 *     T_f = u_f + max(1, ceil(Q_f / r_f))  ps,
 * where a quotient within 4 ulps above an integer counts as that integer (so that 2e6 computed
 * as 2000000.0000000002 is not pushed to the next ps). Flows whose rate did not change are not
 * touched: their Q_f, u_f and T_f stay as they were. A flow completes exactly at its predicted T_f
 * (rt__flownet_advance), whatever the rounding: the model never stalls and never goes back.
 * Flows whose T_f is the current time take no bandwidth in a recomputation at that time.
 *
 * Delays. Over an interval dt at rate r, flow f loses dt * (1 - r / M_f) against its own limit;
 * that is attributed to the link that froze it (nothing when its own limit froze it). Summed
 * over its life, sum_l delay_{f,l} = (T_f - start_f) - B_f / M_f up to the rounding of T_f, i.e.
 * about finish - start - alone with alone = max(1, ceil(B_f / M_f)).
 *
 * Incremental recomputation. Rates depend only on the connected component (flows linked through
 * shared links, transitively) of a flow. A recomputation collects the components of the flows
 * started and of the links of the flows ended since the last one (breadth-first over per-link
 * flow lists) and recomputes only those. Within a component the result does not depend on the
 * order of the per-link lists: each freeze subtracts one value from each link, and the order of
 * the freezes is that of the total order (level, kind, id), so a full recomputation gives
 * bit-identical rates (rt__flownet_set_full, rt__flownet_check; tests/test_netflow.c). A flow
 * that is the only one over each of its links is a component of its own, frozen at its folded
 * limit M'_f: that is set directly, without the search and the filling (nf_alone), for a flow
 * started so and for the last flow left on a link freed. And a link freed by flows that ended
 * seeds no recomputation when it was the bottleneck of none of the flows left over it (nor
 * limits a single one left below its rate, nf_kept): in the filling as it was, it froze none of
 * them, and with fewer flows and more capacity its share is no lower at any step, so the filling
 * without the flows ended makes the same freezes in the same order: the same rates, bit for
 * bit. Full recomputations take neither shortcut. Beyond these, a component is not refilled
 * whole: nf_region (below) runs the filling's events only where they differ from the last
 * filling, from the flows started and the links freed outward, and stops where the keys of the
 * flows it meets come out as they were; the rest of the component keeps its rates, which are the
 * full filling's, bit for bit. With a flow due now, the recomputation refills the components.
 *
 * Data structures. Flows live in a slot array with a free list; each slot keeps one block for
 * its route, its positions in the links' lists and its per-link delays (reused with the slot).
 * Each link keeps an array of (flow, route position) with swap-remove, inside the link's own
 * cache line while it holds at most 2 (most do), its totals and filling state apart: a start
 * touches that line only. Completions sit in an indexed 4-ary min-heap of (T_f, id) pairs (the
 * flows' positions in it kept apart), so that sifting reads no flow; progressive filling uses a
 * 4-ary heap of (level, kind, id) entries, a link's re-inserted lazily when its share has grown;
 * components of at most 64 flows plus links scan for the least entry instead, in the same order.
 * A recomputation of a component of F flows with routes of length L costs O(F L log(F L));
 * nothing outside the affected components is touched. bench/bench_netflow.c measures it: a
 * closed loop of 100 flows in flight over a k=16 fat tree (1024 hosts, 6-link routes, components
 * of a few flows) runs at about 1 million flows per second on one core, over a k=32 one at about
 * 2 million; with random routes over 1000 links, where the 100 flows form one component, at
 * about 380,000 by region (90,000 refilling the component).
 */
#include "netflow.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sort.h"

#define NF_NONE UINT32_MAX
#define NF_LINKKEY (UINT64_C(1) << 63) /* filling-heap kind bit of a link's share */
#define NF_IDBITS 31                  /* filling-heap entries: the order key above, the index below */
#define NF_IDMASK ((UINT64_C(1) << NF_IDBITS) - 1)
#define NF_MAXIDS (UINT32_C(1) << NF_IDBITS) /* flows and links: fewer than 2^31 each */
#define NF_MAXDUR ((rt_time_ps)4000000000000000000LL)
#define NF_SMALL 64 /* default of rt__flownet_set_small */
#define NF_REGION 16 /* larger components (flows + links; or larger than small) are recomputed by region */

struct nf_flow {
    /* What the component search and the filling read first. */
    rt_time_ps finish; /* T_f; INT64_MAX until its first recomputation */
    uint32_t mark;     /* component search epoch */
    uint32_t pmark;    /* nf_small's search epoch (of fn->tepoch) */
    uint32_t n;        /* route length */
    uint32_t *links;   /* its route */
    double max_rate;   /* M_f */
    double eff;        /* its limit in the filling: M_f or a link that carries it alone */
    double new_rate;   /* filling result */
    int32_t eff_pos;   /* route position of that link, -1: M_f */
    int32_t new_bneck;
    uint8_t active, frozen;
    uint8_t lkind, new_lk; /* frozen by a link's share (1) or by its limit eff (0): its key's kind */
    uint64_t ok1, ok2;     /* its key in the last filling (nf_setkey; nf_region reads it) */
    /* The rest. */
    int32_t bneck;     /* route position of its bottleneck link, -1: its own limit */
    uint32_t rcap;     /* room in its route block */
    double remaining;  /* Q_f: bytes left at last_update */
    double rate;       /* r_f; 0 until its first recomputation */
    double bytes;      /* B_f */
    rt_time_ps start, last_update, delay_since;
    uint64_t user;
    double *delay;  /* route block: delay[rcap], links[rcap], lpos[rcap] */
    uint32_t *lpos; /* its index in each route link's list */
};

/* An entry of a link's list: a flow over it and the link's position in that flow's route. */
struct nf_ref {
    uint32_t flow, pos;
};

#define NF_INREF 2 /* a link's list is kept in the link while it fits here: most carry 1 or 2 */

/* What a start, an end and the search read and write of a link: one cache line (the links array
 * is aligned to it), its list included while short, since routes touch links all over a large
 * machine and each further line is a likely cache miss. A start touches nothing else of it. */
struct nf_link {
    union {
        struct nf_ref in[NF_INREF]; /* lcap <= NF_INREF */
        struct nf_ref *heap;        /* lcap > NF_INREF: lcap entries */
    } ref;                          /* the flows over it (nf_refs) */
    double cap;             /* C_l */
    rt_time_ps busy_since;  /* start of its current busy period (while n > 0) */
    uint32_t key;      /* its id for ties (the caller's link id; the index without rt__flownet_add_link) */
    uint32_t n, lcap;
    uint32_t cnt;       /* n_l during filling */
    uint32_t mark;      /* component search epoch */
    uint32_t touch;     /* freeze batch epoch */
    uint32_t max_flows; /* most flows on it at once */
    uint8_t dirty;      /* in dlinks */
};
_Static_assert(sizeof(struct nf_link) == 64, "struct nf_link is one cache line");
#define NF_LINE 64

/* A shared link's filling state, apart: only links of 2 or more flows in a filling use it. */
struct nf_lfill {
    double rem, share; /* c_l and its last computed fair share */
    double pushed;     /* the region's recomputation: the share of its pending heap entry (nf_rlink) */
};

/* An entry of the region's heap (nf_region): a filling event's key (k1, k2 as struct nf_ent), then
 * its tag (an event before the checks at its key) and a flow's id for a check. */
struct nf_rent {
    uint64_t k1, k2;
    uint32_t tag, id;
};

/* A flow's freeze as a link's state is rebuilt from it (nf_rstate). */
struct nf_rfz {
    uint64_t k1, k2;
    double r;
};

static inline struct nf_ref *nf_refs(struct nf_link *L)
{
    return L->lcap > NF_INREF ? L->ref.heap : L->ref.in;
}

/* A filling-heap entry, compared as the pair (k1, k2): k1 holds the level's bits (levels are
 * positive finite doubles, whose bits compare as the numbers do), k2 the kind (0 for a flow's
 * limit, NF_LINKKEY for a link's share), then the order among one kind (the flow's id, the
 * link's key) and below it the flow's or link's index. */
struct nf_ent {
    uint64_t k1, k2;
};

/* A completion heap entry: a flow's T_f and its id. */
struct nf_che {
    rt_time_ps finish;
    uint32_t id;
};

struct nf_done {
    rt_time_ps start;
    uint32_t id;
};

struct rt__flownet {
    uint32_t nlinks, links_cap; /* links_cap: room in links, lfill, lstat, dlinks, cl, touched and sl */
    struct nf_link *links;
    struct nf_lfill *lfill;
    struct rt__link_stats *lstat; /* a link's totals, apart: ends add to them (rt__flownet_link fills
                                     in flows and max_flows) */
    struct nf_flow *flows;
    uint32_t nflows, flows_cap; /* slots ever used */
    uint32_t *free_ids, nfree, free_cap; /* free_cap >= nflows always: freeing never allocates */
    struct nf_che *heap;
    uint32_t nheap, heap_cap;            /* completion heap */
    uint32_t *hpos, hpos_cap;            /* per flow slot: its index in heap, NF_NONE: not in it */
    uint32_t *dflows, ndflows, dflows_cap; /* flows started since the last recomputation */
    uint32_t *dlinks, ndlinks;             /* links of flows ended since then (nlinks room) */
    uint32_t *cf, ncf, cf_cap;             /* the component's flows */
    uint32_t *cl, ncl;                     /* and links (nlinks room) */
    struct nf_ent *fh;
    uint32_t nfh, fh_cap; /* filling heap */
    uint32_t *touched, ntouched; /* links touched by one freeze (nlinks room) */
    uint32_t *sl, *sf, sf_cap;   /* scan lists of the small filling (nlinks, sf_cap room) */
    uint32_t small;              /* components of at most this many flows + links are scanned */
    struct nf_rent *rh;          /* the region's heap */
    uint32_t nrh, rh_cap;
    struct nf_rfz *rz;           /* scratch of nf_rstate */
    uint32_t rz_cap;
    uint32_t nchg;               /* flows changed by the region's last event (in sf) */
    int rfail;                   /* the region stopped: RT_ENOMEM, NF_RFALLBACK or NF_RHEAVY */
    uint64_t rwork, rseen;       /* the region's work and the flows over its dirty links (NF_RWORK) */
    int rlarge;                  /* its component is larger than twice its work: no more checks */
    struct nf_done *done;
    uint32_t done_cap;
    uint64_t nentries; /* sum of the active flows' route lengths */
    uint64_t filled;   /* flows put through recomputations so far (rt__flownet_filled) */
    uint32_t epoch, tepoch;
    uint32_t active, left;
    rt_time_ps now;
    int full, fast, in_advance;
    int region; /* exact recomputations by region (nf_region); off once fast rates were used */
    int due_now; /* fast: some active flow is due now (nf_any_due, as of the recomputation) */
};

/* ---- completion heap: (finish, id) pairs ---- */

/* Each entry carries its flow's T_f, so that sifting compares entries without reading the flows
 * (struct nf_flow is large and scattered: one cache miss per comparison otherwise); a flow's
 * position is kept apart in fn->hpos for the same reason. The order is (T_f, id) either way. */
static inline int ch_less(const struct nf_che *a, const struct nf_che *b)
{
    return a->finish < b->finish || (a->finish == b->finish && a->id < b->id);
}

/* The same without branches, for picking the lesser child: which one it is is a coin toss. */
static inline int ch_lessb(const struct nf_che *a, const struct nf_che *b)
{
    return (a->finish < b->finish) | ((a->finish == b->finish) & (a->id < b->id));
}

/* The heap has CH_D children per node (c = CH_D i + 1 ...): half the levels of a binary heap,
 * the four children 64 contiguous bytes. The least of the children from @p c (c < n). */
#define CH_D 4
static inline uint32_t ch_least(const struct nf_che *h, uint32_t c, uint32_t n)
{
    if (c + 3 < n) { /* a tournament: two pairs, then their winners */
        uint32_t x = c + (uint32_t)ch_lessb(&h[c + 1], &h[c]), y = c + 2 + (uint32_t)ch_lessb(&h[c + 3], &h[c + 2]);
        return ch_lessb(&h[y], &h[x]) ? y : x;
    }
    uint32_t best = c;
    for (uint32_t k = c + 1; k < n; k++)
        best = ch_lessb(&h[k], &h[best]) ? k : best;
    return best;
}

static void ch_up(struct rt__flownet *fn, uint32_t i)
{
    struct nf_che *h = fn->heap, e = h[i];
    uint32_t *hpos = fn->hpos;
    while (i > 0) {
        uint32_t p = (i - 1) / CH_D;
        if (!ch_less(&e, &h[p]))
            break;
        h[i] = h[p];
        hpos[h[i].id] = i;
        i = p;
    }
    h[i] = e;
    hpos[e.id] = i;
}

static void ch_down(struct rt__flownet *fn, uint32_t i)
{
    struct nf_che *h = fn->heap, e = h[i];
    uint32_t *hpos = fn->hpos, n = fn->nheap;
    for (;;) {
        uint64_t c64 = (uint64_t)CH_D * i + 1; /* (64 bits: no wrap however many flows) */
        if (c64 >= n)
            break;
        uint32_t c = ch_least(h, (uint32_t)c64, n);
        if (!ch_less(&h[c], &e))
            break;
        h[i] = h[c];
        hpos[h[i].id] = i;
        i = c;
    }
    h[i] = e;
    hpos[e.id] = i;
}

/* Inserts or repositions flow @p id after its finish changed to @p finish (room for all flows is
 * kept). */
static void ch_update(struct rt__flownet *fn, uint32_t id, rt_time_ps finish)
{
    uint32_t i = fn->hpos[id];
    if (i == NF_NONE) {
        i = fn->nheap++;
        fn->heap[i] = (struct nf_che){finish, id};
        ch_up(fn, i);
        return;
    }
    rt_time_ps old = fn->heap[i].finish;
    fn->heap[i].finish = finish;
    if (finish < old)
        ch_up(fn, i);
    else
        ch_down(fn, i);
}

static uint32_t ch_pop(struct rt__flownet *fn)
{
    struct nf_che *h = fn->heap;
    uint32_t *hpos = fn->hpos, id = h[0].id, n = --fn->nheap, i = 0;
    hpos[id] = NF_NONE;
    if (n == 0)
        return id;
    /* The hole at the root goes down along the lesser children to a leaf, and the last entry
     * rises from there (Floyd): it belongs near the bottom. */
    struct nf_che last = h[n];
    for (uint64_t c; (c = (uint64_t)CH_D * i + 1) < n; i = (uint32_t)c) {
        c = ch_least(h, (uint32_t)c, n);
        h[i] = h[c];
        hpos[h[i].id] = i;
    }
    h[i] = last;
    hpos[last.id] = i;
    ch_up(fn, i);
    return id;
}

/* The least T_f (INT64_MAX: no flow in the heap). */
static inline rt_time_ps ch_first(const struct rt__flownet *fn)
{
    return fn->nheap > 0 ? fn->heap[0].finish : INT64_MAX;
}

/* ---- filling heap: (level, kind, id, version), own limits before links at one level ---- */

static inline int fh_less(const struct nf_ent *a, const struct nf_ent *b)
{
    return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

static inline struct nf_ent fh_ent(double v, uint64_t kind, uint32_t order, uint32_t id)
{
    struct nf_ent e;
    memcpy(&e.k1, &v, sizeof v);
    e.k2 = kind | (uint64_t)order << NF_IDBITS | id;
    return e;
}

static inline double fh_level(const struct nf_ent *e)
{
    double v;
    memcpy(&v, &e->k1, sizeof v);
    return v;
}

/* The filling heap is 4-ary: a node's 4 children (16 bytes each) share one cache line, and the
 * heap is half as deep; entries are distinct, so the pops come in the same order as from any heap. */
#define FH_D 4

static void fh_down(struct nf_ent *h, uint32_t n, uint32_t i)
{
    struct nf_ent e = h[i];
    for (;;) {
        uint64_t first = (uint64_t)FH_D * i + 1;
        if (first >= n)
            break;
        uint32_t c = (uint32_t)first, last = first + FH_D < n ? (uint32_t)first + FH_D : n;
        for (uint32_t k = c + 1; k < last; k++)
            if (fh_less(&h[k], &h[c]))
                c = k;
        if (!fh_less(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static void fh_push(struct rt__flownet *fn, struct nf_ent e)
{
    struct nf_ent *h = fn->fh;
    uint32_t i = fn->nfh++;
    while (i > 0) {
        uint32_t p = (i - 1) / FH_D;
        if (!fh_less(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static struct nf_ent fh_pop(struct rt__flownet *fn)
{
    struct nf_ent top = fn->fh[0];
    if (--fn->nfh > 0) {
        fn->fh[0] = fn->fh[fn->nfh];
        fh_down(fn->fh, fn->nfh, 0);
    }
    return top;
}

/* ---- helpers ---- */

static uint32_t nf_epoch(struct rt__flownet *fn)
{
    if (++fn->epoch == 0) { /* wrapped: clear the stale marks once */
        for (uint32_t l = 0; l < fn->nlinks; l++)
            fn->links[l].mark = 0;
        for (uint32_t f = 0; f < fn->nflows; f++)
            fn->flows[f].mark = 0;
        fn->epoch = 1;
    }
    return fn->epoch;
}

static uint32_t nf_tepoch(struct rt__flownet *fn)
{
    if (++fn->tepoch == 0) {
        for (uint32_t l = 0; l < fn->nlinks; l++)
            fn->links[l].touch = 0;
        for (uint32_t f = 0; f < fn->nflows; f++)
            fn->flows[f].pmark = 0;
        fn->tepoch = 1;
    }
    return fn->tepoch;
}

/* A flow due now (or earlier) is done: it takes no bandwidth in a recomputation now. */
static inline int nf_due(const struct rt__flownet *fn, const struct nf_flow *f)
{
    return f->finish <= fn->now;
}

/* max(1, ceil(q)) ps for q = rem / rate, a q within 4 ulps above an integer counting as it. */
static rt_time_ps nf_dur(double rem, double rate)
{
    double q = rem / rate;
    if (!(q < (double)NF_MAXDUR))
        return NF_MAXDUR;
    double fl = floor(q);
    double d = (q - fl <= q * (4 * DBL_EPSILON)) ? fl : fl + 1;
    return d < 1 ? 1 : (rt_time_ps)d;
}

static void nf_flush_delay(struct nf_flow *f, rt_time_ps now)
{
    if (f->bneck >= 0 && now > f->delay_since)
        f->delay[f->bneck] += (double)(now - f->delay_since) * (1.0 - f->rate / f->max_rate);
    f->delay_since = now;
}

/* ---- components and progressive filling ---- */

/* Adds link @p l to the component, with the flows over it (discovered flows start with their own
 * limit as effective limit), and counts them (n_l). A link that carries one flow only is that
 * flow's limit until the flow freezes: it is folded into the flow's effective limit (ties: its
 * own limit first, then the lower route position), so that the filling only sees shared links.
 * Locals instead of fn-> fields: the stores into uint32_t arrays could alias them otherwise. */
static inline void nf_visit_link(struct rt__flownet *fn, uint32_t l, uint32_t ep)
{
    struct nf_link *L = &fn->links[l];
    struct nf_flow *flows = fn->flows;
    uint32_t *cf = fn->cf, ncf = fn->ncf, cnt = 0, only = 0, n = L->n;
    const struct nf_ref *ref = nf_refs(L);
    rt_time_ps now = fn->now;
    L->mark = ep;
    fn->cl[fn->ncl++] = l;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t gid = ref[k].flow;
        struct nf_flow *g = &flows[gid];
        if (g->finish <= now)
            continue; /* due: takes no bandwidth now */
        cnt++;
        only = k;
        if (g->mark != ep) {
            g->mark = ep;
            g->eff = g->max_rate;
            g->eff_pos = -1;
            cf[ncf++] = gid;
        }
    }
    fn->ncf = ncf;
    L->cnt = cnt;
    if (cnt == 1) {
        struct nf_flow *g = &flows[ref[only].flow];
        int32_t pos = (int32_t)ref[only].pos;
        if (L->cap < g->eff || (L->cap == g->eff && g->eff_pos >= 0 && pos < g->eff_pos)) {
            g->eff = L->cap;
            g->eff_pos = pos;
        }
    }
}

/* Collects into cf/cl the component of flow @p seed (or of link @p lseed when seed is NF_NONE). */
static void nf_component(struct rt__flownet *fn, uint32_t seed, uint32_t lseed, uint32_t ep)
{
    fn->ncf = fn->ncl = 0;
    if (seed != NF_NONE) {
        struct nf_flow *f = &fn->flows[seed];
        f->mark = ep;
        f->eff = f->max_rate;
        f->eff_pos = -1;
        fn->cf[fn->ncf++] = seed;
    } else {
        nf_visit_link(fn, lseed, ep);
    }
    const struct nf_link *links = fn->links;
    for (uint32_t i = 0; i < fn->ncf; i++) {
        const struct nf_flow *f = &fn->flows[fn->cf[i]];
        const uint32_t *route = f->links;
        for (uint32_t k = 0, n = f->n; k < n; k++)
            if (links[route[k]].mark != ep)
                nf_visit_link(fn, route[k], ep);
    }
}

/* Whether the component of flow @p seed (or of link @p lseed when seed is NF_NONE) has at most
 * @p cap flows plus links: a search that stops past @p cap, or where it meets a flow or link marked
 * @p big, the mark it leaves on what it saw when it stops (a later seed of the same large
 * component then stops at once). Its marks are the links' touch and the flows' pmark, under an
 * epoch of fn->tepoch (not fn->epoch: the component searches' marks stay as they are). */
static int nf_small_in(struct rt__flownet *fn, uint32_t seed, uint32_t lseed, uint32_t cap, uint32_t big, uint32_t *qf,
                       uint32_t *ql)
{
    uint32_t ep = nf_tepoch(fn), nf = 0, nl = 0;
    if (seed != NF_NONE) {
        if (fn->flows[seed].pmark == big)
            return 0;
        fn->flows[seed].pmark = ep;
        qf[nf++] = seed;
    } else {
        if (fn->links[lseed].touch == big)
            return 0;
        fn->links[lseed].touch = ep;
        ql[nl++] = lseed;
    }
    for (uint32_t i = 0, j = 0; i < nf || j < nl;) {
        if (j < nl) {
            struct nf_link *L = &fn->links[ql[j++]];
            const struct nf_ref *ref = nf_refs(L);
            for (uint32_t k = 0; k < L->n; k++) {
                struct nf_flow *g = &fn->flows[ref[k].flow];
                if (g->pmark == ep)
                    continue;
                if (g->pmark == big)
                    goto large;
                g->pmark = ep;
                qf[nf++] = ref[k].flow;
                if (nf + nl > cap)
                    goto large;
            }
        } else {
            const struct nf_flow *f = &fn->flows[qf[i++]];
            for (uint32_t k = 0; k < f->n; k++) {
                struct nf_link *L = &fn->links[f->links[k]];
                if (L->touch == ep)
                    continue;
                if (L->touch == big)
                    goto large;
                L->touch = ep;
                ql[nl++] = f->links[k];
                if (nf + nl > cap)
                    goto large;
            }
        }
    }
    return 1;
large:
    for (uint32_t i = 0; i < nf; i++)
        fn->flows[qf[i]].pmark = big;
    for (uint32_t j = 0; j < nl; j++)
        fn->links[ql[j]].touch = big;
    return 0;
}

/* nf_small_in with the component search's arrays (cf, cl) as its queues. */
static int nf_small(struct rt__flownet *fn, uint32_t seed, uint32_t lseed, uint32_t cap, uint32_t big)
{
    return nf_small_in(fn, seed, lseed, cap, big, fn->cf, fn->cl);
}

/* Freezes flow @p id at rate @p r (bottleneck route position @p b, -1: own limit), subtracting
 * it from its links other than @p skip and remembering them as touched. */
static void nf_freeze(struct rt__flownet *fn, uint32_t id, double r, int32_t b, uint32_t skip, uint32_t tep)
{
    struct nf_flow *f = &fn->flows[id];
    f->frozen = 1;
    f->new_rate = r;
    f->new_bneck = b;
    f->new_lk = skip != NF_NONE; /* frozen by a link's share */
    fn->left--;
    struct nf_link *links = fn->links;
    struct nf_lfill *lfill = fn->lfill;
    uint32_t *touched = fn->touched, nt = fn->ntouched;
    const uint32_t *route = f->links;
    for (uint32_t k = 0, n = f->n; k < n; k++) {
        uint32_t m = route[k];
        if (m == skip)
            continue;
        struct nf_link *M = &links[m];
        if (--M->cnt == 0)
            continue; /* its c_l is read no more (a link folded into a limit never had one) */
        lfill[m].rem -= r;
        if (M->touch != tep) {
            M->touch = tep;
            touched[nt++] = m;
        }
    }
    fn->ntouched = nt;
}

/* Freezes every unfrozen flow over link @p l at its share @p r (the link is their bottleneck). */
static void nf_freeze_link(struct rt__flownet *fn, uint32_t l, double r, uint32_t tep)
{
    struct nf_link *L = &fn->links[l];
    const struct nf_ref *ref = nf_refs(L);
    for (uint32_t k = 0; k < L->n; k++) {
        const struct nf_flow *g = &fn->flows[ref[k].flow];
        if (g->frozen || nf_due(fn, g))
            continue;
        nf_freeze(fn, ref[k].flow, r, (int32_t)ref[k].pos, l, tep);
    }
    L->cnt = 0;
}

/* Computes the touched links' new shares, clamped never to decrease. */
static void nf_share_touched(struct rt__flownet *fn)
{
    const struct nf_link *links = fn->links;
    for (uint32_t i = 0; i < fn->ntouched; i++) {
        uint32_t m = fn->touched[i];
        const struct nf_link *M = &links[m];
        if (M->cnt == 0)
            continue;
        struct nf_lfill *F = &fn->lfill[m];
        double s = F->rem / (double)M->cnt;
        if (s > F->share)
            F->share = s;
    }
    fn->ntouched = 0;
}

/*
 * Progressive filling over the collected component: sets new_rate and new_bneck of its flows.
 * The next level is the least (level, kind, id) over the unfrozen flows' limits (kind 0) and the
 * shares of the shared links that still carry unfrozen flows (kind 1). Large components keep
 * those in a heap, one entry per flow and link: as shares never decrease, a link's entry is left
 * with its old share when the share grows and is pushed again with the new one when popped, so
 * an entry whose key is current is the true least. Small components (at most fn->small flows
 * plus links) scan instead, which is cheaper there and freezes in the very same order, so both
 * give the same bits (checked by the tests).
 */
static void nf_fill(struct rt__flownet *fn)
{
    int heap = fn->ncf + fn->ncl > fn->small;
    fn->nfh = 0;
    for (uint32_t i = 0; i < fn->ncl; i++) {
        const struct nf_link *L = &fn->links[fn->cl[i]];
        if (L->cnt < 2)
            continue; /* folded into its flow's limit */
        struct nf_lfill *F = &fn->lfill[fn->cl[i]];
        F->rem = L->cap;
        F->share = L->cap / (double)L->cnt;
        if (heap)
            fn->fh[fn->nfh++] = fh_ent(F->share, NF_LINKKEY, L->key, fn->cl[i]);
        else
            fn->sl[fn->nfh++] = fn->cl[i]; /* links still to consider */
    }
    uint32_t nsl = fn->nfh, nsf = fn->ncf;
    for (uint32_t i = 0; i < fn->ncf; i++) {
        struct nf_flow *f = &fn->flows[fn->cf[i]];
        f->frozen = 0;
        if (heap)
            fn->fh[fn->nfh++] = fh_ent(f->eff, 0, fn->cf[i], fn->cf[i]);
        else
            fn->sf[i] = fn->cf[i]; /* flows still unfrozen */
    }
    fn->left = fn->ncf;
    if (heap) {
        for (uint32_t i = fn->nfh / FH_D + 1; i-- > 0;)
            if (i < fn->nfh)
                fh_down(fn->fh, fn->nfh, i);
        while (fn->left > 0) {
            struct nf_ent e = fh_pop(fn);
            uint32_t id = (uint32_t)(e.k2 & NF_IDMASK);
            double v = fh_level(&e);
            uint32_t tep = nf_tepoch(fn);
            if (!(e.k2 & NF_LINKKEY)) {
                if (fn->flows[id].frozen)
                    continue;
                nf_freeze(fn, id, v, fn->flows[id].eff_pos, NF_NONE, tep);
            } else {
                const struct nf_link *L = &fn->links[id];
                if (L->cnt == 0)
                    continue; /* all its flows are frozen */
                double share = fn->lfill[id].share;
                if (v != share) {
                    fh_push(fn, fh_ent(share, NF_LINKKEY, L->key, id)); /* its share grew since */
                    continue;
                }
                nf_freeze_link(fn, id, v, tep);
            }
            nf_share_touched(fn);
        }
        return;
    }
    while (fn->left > 0) {
        /* The least unfrozen limit, dropping frozen flows from the scan list. */
        double v = INFINITY;
        uint32_t best = NF_NONE;
        int link = 0;
        for (uint32_t i = 0; i < nsf;) {
            uint32_t id = fn->sf[i];
            const struct nf_flow *f = &fn->flows[id];
            if (f->frozen) {
                fn->sf[i] = fn->sf[--nsf];
                continue;
            }
            if (f->eff < v || (f->eff == v && id < best)) {
                v = f->eff;
                best = id;
            }
            i++;
        }
        /* A link's share wins only if strictly less, or equal with a lower id among links. */
        uint32_t bestl = NF_NONE;
        for (uint32_t i = 0; i < nsl;) {
            uint32_t l = fn->sl[i];
            const struct nf_link *L = &fn->links[l];
            if (L->cnt == 0) {
                fn->sl[i] = fn->sl[--nsl];
                continue;
            }
            double share = fn->lfill[l].share;
            if (share < v || (share == v && link && L->key < fn->links[bestl].key)) {
                v = share;
                bestl = l;
                link = 1;
            }
            i++;
        }
        uint32_t tep = nf_tepoch(fn);
        if (link)
            nf_freeze_link(fn, bestl, v, tep);
        else
            nf_freeze(fn, best, v, fn->flows[best].eff_pos, NF_NONE, tep);
        nf_share_touched(fn);
    }
}

/* The filling-order key of flow @p id frozen at @p r by its limit (@p lk 0) or by the link at
 * route position @p b (nf_fill's heap entries, nf_region's events). */
static inline struct nf_ent nf_fkey(const struct rt__flownet *fn, uint32_t id, double r, int lk, int32_t b)
{
    if (lk) {
        uint32_t l = fn->flows[id].links[b];
        return fh_ent(r, NF_LINKKEY, fn->links[l].key, l);
    }
    return fh_ent(r, 0, id, id);
}

/* Remembers flow @p id's key from its rate, bottleneck and kind just set. */
static inline void nf_setkey(struct rt__flownet *fn, uint32_t id)
{
    struct nf_flow *f = &fn->flows[id];
    struct nf_ent k = nf_fkey(fn, id, f->rate, f->lkind, f->bneck);
    f->ok1 = k.k1;
    f->ok2 = k.k2;
}

/* Gives flow @p id rate @p nr and bottleneck @p nb at time now (nothing when neither changed). */
static inline void nf_set(struct rt__flownet *fn, uint32_t id, double nr, int32_t nb)
{
    struct nf_flow *f = &fn->flows[id];
    rt_time_ps now = fn->now;
    if (nr == f->rate && nb == f->bneck)
        return;
    nf_flush_delay(f, now);
    f->bneck = nb;
    if (nr == f->rate)
        return;
    if (now > f->last_update) {
        f->remaining -= f->rate * (double)(now - f->last_update);
        if (f->remaining < 0)
            f->remaining = 0;
        f->last_update = now;
    }
    f->rate = nr;
    rt_time_ps d = nf_dur(f->remaining, nr);
    f->finish = d > INT64_MAX - 1 - now ? INT64_MAX - 1 : now + d;
    ch_update(fn, id, f->finish);
}

/* Applies the filling's rates at time now to flows whose rate or bottleneck changed. */
static void nf_apply(struct rt__flownet *fn)
{
    fn->filled += fn->ncf;
    for (uint32_t i = 0; i < fn->ncf; i++) {
        struct nf_flow *f = &fn->flows[fn->cf[i]];
        nf_set(fn, fn->cf[i], f->new_rate, f->new_bneck);
        f->lkind = f->new_lk;
        nf_setkey(fn, fn->cf[i]);
    }
}

/* Flow @p id's limit in the filling: M_f folded with the capacities of the links it alone crosses
 * (the lower route position on ties, its own limit before any), as nf_visit_link gives it. */
static void nf_reff(const struct rt__flownet *fn, uint32_t id, double *eff, int32_t *pos)
{
    const struct nf_flow *f = &fn->flows[id];
    double e = f->max_rate;
    int32_t p = -1;
    for (uint32_t k = 0; k < f->n; k++) {
        const struct nf_link *L = &fn->links[f->links[k]];
        if (L->n == 1 && L->cap < e) {
            e = L->cap;
            p = (int32_t)k;
        }
    }
    *eff = e;
    *pos = p;
}

/*
 * The component of a flow that is the only one over each of its links (none due there either) is
 * that flow alone, and its filling freezes it at its effective limit: M_f folded with its links'
 * capacities in route order (strictly less replaces: its own limit first, then the lower route
 * position), which is what nf_component and nf_fill compute for it, bit for bit. This does the
 * same without the search and the filling (most flows of a sparse network start and end alone),
 * marking the flow and its links as the search would. Returns 0 (nothing done) when @p id is not
 * alone or is due now.
 */
static int nf_alone(struct rt__flownet *fn, uint32_t id, uint32_t ep)
{
    struct nf_flow *f = &fn->flows[id];
    struct nf_link *links = fn->links;
    const uint32_t *route = f->links;
    uint32_t n = f->n;
    for (uint32_t k = 0; k < n; k++)
        if (links[route[k]].n != 1)
            return 0;
    if (nf_due(fn, f))
        return 0;
    for (uint32_t k = 0; k < n; k++)
        links[route[k]].mark = ep;
    nf_reff(fn, id, &f->eff, &f->eff_pos); /* every link of it folded: its limit is its rate */
    f->mark = ep;
    f->lkind = 0;
    fn->filled++;
    nf_set(fn, id, f->eff, f->eff_pos);
    nf_setkey(fn, id);
    return 1;
}

/*
 * Whether the flows that ended over link @p l (since the last recomputation) leave the rates of
 * those still over it as they are: when none of these had @p l as its bottleneck, and a single
 * one left over it gets no lower limit from it (C_l above its rate). Then, in the filling of the
 * component as it was, no freeze of another flow came from @p l, and without the flows ended
 * its share is no lower at any step (fewer flows, more capacity), so that it still freezes none
 * and the other freezes come in the same order on the same values: the same rates and
 * bottlenecks, bit for bit. A component is recomputed when any of its freed links fails this.
 * Not used for flows due now or not yet computed (conservative), nor is @p l marked: a link
 * failing it searches its component through @p l.
 */
static int nf_kept(struct rt__flownet *fn, uint32_t l)
{
    struct nf_link *L = &fn->links[l];
    const struct nf_ref *ref = nf_refs(L);
    for (uint32_t k = 0; k < L->n; k++) {
        const struct nf_flow *g = &fn->flows[ref[k].flow];
        if (g->bneck == (int32_t)ref[k].pos || !(g->rate > 0) || nf_due(fn, g))
            return 0;
    }
    return L->n != 1 || L->cap > fn->flows[ref[0].flow].rate;
}

/* Makes room for a recomputation so that it cannot fail halfway. */
static int nf_reserve(struct rt__flownet *fn)
{
    uint64_t need = (uint64_t)fn->nlinks + fn->nflows + fn->nentries;
    if (need > UINT32_MAX)
        return RT_ENOMEM;
    if (rt__grow((void **)&fn->fh, &fn->fh_cap, sizeof *fn->fh, (uint32_t)need) ||
        rt__grow((void **)&fn->cf, &fn->cf_cap, sizeof *fn->cf, fn->nflows) ||
        rt__grow((void **)&fn->sf, &fn->sf_cap, sizeof *fn->sf, fn->nflows))
        return RT_ENOMEM;
    return RT_OK;
}

static int nf_dirty(const struct rt__flownet *fn)
{
    return fn->ndflows > 0 || fn->ndlinks > 0;
}

/* Whether any active flow is due now (its completion not advanced to yet): the completion heap's
 * least. Without one, every flow over a link takes bandwidth. */
static int nf_any_due(const struct rt__flownet *fn)
{
    return fn->nheap > 0 && fn->heap[0].finish <= fn->now;
}

/* The flows over link @p l that take bandwidth now (not due), counted once per batch @p tep. */
static uint32_t nf_live(struct rt__flownet *fn, uint32_t l, uint32_t tep)
{
    struct nf_link *L = &fn->links[l];
    if (!fn->due_now)
        return L->n;
    if (L->touch == tep)
        return L->cnt;
    uint32_t cnt = 0;
    const struct nf_ref *ref = nf_refs(L);
    for (uint32_t k = 0; k < L->n; k++)
        cnt += !nf_due(fn, &fn->flows[ref[k].flow]);
    L->touch = tep;
    L->cnt = cnt;
    return cnt;
}

/* Flow @p f's fast rate, min(M_f, C_l / n_l over its links), and in *@p bneck the route position
 * of the link that gives it (-1: its own limit; ties: its own limit, then the lower position). */
static double nf_fast_rate(struct rt__flownet *fn, const struct nf_flow *f, uint32_t tep, int32_t *bneck)
{
    double r = f->max_rate;
    *bneck = -1;
    for (uint32_t k = 0; k < f->n; k++) {
        double share = fn->links[f->links[k]].cap / (double)nf_live(fn, f->links[k], tep);
        if (share < r) {
            r = share;
            *bneck = (int32_t)k;
        }
    }
    return r;
}

/* Link @p l's count changed: adds to the flows to recompute (cf, once per epoch @p ep) the live
 * flows over it whose rate it can change: those it held (their bottleneck) and those its new share
 * C_l / n_l reaches (at or below their rate). Any other flow's least share is elsewhere and
 * unchanged, so its rate and bottleneck are what a recomputation would give them. */
static void nf_fast_link(struct rt__flownet *fn, uint32_t l, uint32_t ep, uint32_t tep)
{
    struct nf_link *L = &fn->links[l];
    if (L->mark == ep)
        return;
    L->mark = ep;
    uint32_t live = nf_live(fn, l, tep);
    double share = live ? L->cap / (double)live : INFINITY;
    const struct nf_ref *ref = nf_refs(L);
    for (uint32_t k = 0; k < L->n; k++) {
        uint32_t gid = ref[k].flow;
        struct nf_flow *g = &fn->flows[gid];
        if (g->mark == ep || nf_due(fn, g) || ((int32_t)ref[k].pos != g->bneck && share > g->rate))
            continue;
        g->mark = ep;
        fn->cf[fn->ncf++] = gid;
    }
}

/*
 * The fast approximation (rt__flownet_set_fast): each flow's rate is the least of its own limit
 * and its links' capacities divided by the flows on them, r_f = min(M_f, min_l C_l / n_l); the
 * bottleneck is that link (ties: its own limit, then the lower route position). No link is ever
 * loaded beyond its capacity, but capacity a flow leaves unused on a link is not given to the
 * others there, as max-min would: rates are a lower bound of the fair ones. Only the flows over
 * links whose count changed (links of flows started or ended since the last recomputation) that
 * the change can reach are recomputed (nf_fast_link): the work follows the change, whatever the
 * connected component.
 */
static void nf_fast(struct rt__flownet *fn, uint32_t ep)
{
    uint32_t tep = nf_tepoch(fn);
    fn->due_now = nf_any_due(fn);
    fn->ncf = 0;
    for (uint32_t i = 0; i < fn->ndflows; i++) { /* the flows started: their own rates */
        struct nf_flow *f = &fn->flows[fn->dflows[i]];
        if (!f->active || nf_due(fn, f) || f->mark == ep)
            continue;
        f->mark = ep;
        fn->cf[fn->ncf++] = fn->dflows[i];
    }
    for (uint32_t i = 0; i < fn->ndflows; i++) { /* then the others their links' new counts reach */
        const struct nf_flow *f = &fn->flows[fn->dflows[i]];
        if (f->active && !nf_due(fn, f))
            for (uint32_t k = 0; k < f->n; k++)
                nf_fast_link(fn, f->links[k], ep, tep);
    }
    for (uint32_t i = 0; i < fn->ndlinks; i++)
        nf_fast_link(fn, fn->dlinks[i], ep, tep);
    for (uint32_t i = 0; i < fn->ncf; i++) {
        struct nf_flow *f = &fn->flows[fn->cf[i]];
        f->new_rate = nf_fast_rate(fn, f, tep, &f->new_bneck);
    }
    nf_apply(fn);
}

/* ---- exact recomputation by region ---- */

/*
 * A flow's start or end changes the rates of few flows even in a large component (a Shift on a
 * randomly mapped torus: 2.4 of the 146 flows of the average component recomputed), yet
 * recomputing the component refills all of it. nf_region finds the flows that change without
 * refilling the rest, and gives every flow the rate and bottleneck the filling of its whole
 * component gives it, bit for bit.
 *
 * Every frozen flow has a key, the filling event that froze it: (level, 0, id) for its limit,
 * (level, 1, link key) for a link's share. A link's state at any point of the filling (c_l, n_l and
 * its clamped share) is a function of its initial count and of the keys and rates of its flows
 * frozen before that point: the subtractions come in key order, the share is computed after each
 * event (nf_rstate rebuilds it so). Call a link clean while that sequence is the one of the last
 * filling: a clean link then fires, if at all, at its old key and freezes the flows it froze.
 * nf_region runs the new filling's events in key order, but only for the links that are not clean
 * (dirty) and the flows watched:
 * - dirty from the start: the links of the flows started and of those ended (their counts
 *   changed); watched from the start: the flows started, and the flows over those links whose
 *   limit eff changed (a link's count went to or from 1) or whose bottleneck is one of them;
 * - a dirty link's share is an event; when it fires it freezes its flows still unfrozen: those
 *   watched and not yet frozen, and the others whose old key is later;
 * - a watched flow has its limit as an event, and a check at its old key, after the events at
 *   that key: still unfrozen there, it is frozen then if its old bottleneck link is clean (that link
 *   fires at its old key as before), and otherwise it changed;
 * - a flow changed when it freezes under another key, or passes its old key unfrozen: every link
 *   of it is then dirty from that point on, and the flows those links froze at a later key are
 *   watched (their bottleneck is no longer what it was);
 * - any other flow freezes at its old key: it is over clean links or dirty ones, and in either
 *   case nothing before its key could freeze it (a dirty link that could was an event, and
 *   froze it), and its freezer is clean at its key (else it would be watched).
 * A dirty link's pending share event is kept a lower bound of its share, as in nf_fill: its share
 * only grows as flows freeze, and when a flow's change makes it lower (the flow no longer freezes
 * at its old key) the new share is pushed at once; that share is still above the current key,
 * as the old filling did not fire the link before it. The flows left out keep their rates,
 * keys and bottlenecks, which are the new filling's. The work follows the flows that change
 * and the links they cross (and their flows' keys), not the component.
 * Due flows (finish <= now) would change counts without a start or an end: with any, the
 * recomputation goes by components (nf_recompute).
 */

#define NF_RCHECK 1 /* tag of a watched flow's check at its old key */
#define NF_RFALLBACK 1000 /* nf_region: a state it cannot continue from (never seen; checked) */
#define NF_RHEAVY 1001    /* nf_region: past its budget (most rates change: refilling is cheaper) */
/* The budget: work (flows read rebuilding links' states, events) at most this many times the flows
 * over the links it made dirty, plus 64 each. A region that changes a few flows reads each dirty
 * link's flows about twice; under heavy traffic where a start changes a fifth of a component of
 * thousands it read them 8-9 times, and refilling the component was 3.6x cheaper (a 16x16 torus
 * with 97 % of its nodes sending bursts, tests/network.sh). Past the budget, a component no larger
 * than twice the work so far is refilled instead (nf_region); a larger one goes on by region. */
#define NF_RWORK 4

static inline int nf_kless(struct nf_ent a, struct nf_ent b)
{
    return a.k1 < b.k1 || (a.k1 == b.k1 && a.k2 < b.k2);
}

static inline int rh_less(const struct nf_rent *a, const struct nf_rent *b)
{
    if (a->k1 != b->k1)
        return a->k1 < b->k1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2;
    if (a->tag != b->tag)
        return a->tag < b->tag;
    return a->id < b->id;
}

static void rh_push(struct rt__flownet *fn, struct nf_ent k, uint32_t tag, uint32_t id)
{
    if (rt__grow((void **)&fn->rh, &fn->rh_cap, sizeof *fn->rh, fn->nrh + 1)) {
        fn->rfail = RT_ENOMEM;
        return;
    }
    struct nf_rent e = {k.k1, k.k2, tag, id}, *h = fn->rh;
    uint32_t i = fn->nrh++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!rh_less(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static struct nf_rent rh_pop(struct rt__flownet *fn)
{
    struct nf_rent *h = fn->rh, top = h[0], e = h[--fn->nrh];
    uint32_t n = fn->nrh, i = 0;
    if (n == 0)
        return top;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && rh_less(&h[c + 1], &h[c]))
            c++;
        if (!rh_less(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
    return top;
}

/* Flow @p id's key in the last filling. */
static inline struct nf_ent nf_okey(const struct rt__flownet *fn, uint32_t id)
{
    const struct nf_flow *f = &fn->flows[id];
    return (struct nf_ent){f->ok1, f->ok2};
}

/* Watches flow @p id: its limit becomes an event and, when it has an old key, a check there. */
static void nf_rwatch(struct rt__flownet *fn, uint32_t id, uint32_t ep)
{
    struct nf_flow *f = &fn->flows[id];
    f->mark = ep;
    f->frozen = 0;
    fn->cf[fn->ncf++] = id;
    nf_reff(fn, id, &f->eff, &f->eff_pos);
    rh_push(fn, fh_ent(f->eff, 0, id, id), 0, id);
    if (f->rate > 0)
        rh_push(fn, nf_okey(fn, id), NF_RCHECK, id);
}

/* Freezes flow @p id at @p r under key @p key; a key other than its old one is a change. */
static void nf_rfreeze(struct rt__flownet *fn, uint32_t id, double r, int lk, int32_t b, struct nf_ent key,
                       uint32_t ep)
{
    struct nf_flow *f = &fn->flows[id];
    if (f->mark != ep) {
        f->mark = ep;
        fn->cf[fn->ncf++] = id;
    }
    f->frozen = 1;
    f->new_rate = r;
    f->new_lk = (uint8_t)lk;
    f->new_bneck = b;
    struct nf_ent o = f->rate > 0 ? nf_okey(fn, id) : (struct nf_ent){0, 0};
    if (o.k1 != key.k1 || o.k2 != key.k2)
        fn->sf[fn->nchg++] = id;
}

static inline int rz_less(const struct nf_rfz *x, const struct nf_rfz *y)
{
    return x->k1 < y->k1 || (x->k1 == y->k1 && x->k2 < y->k2);
}
/* (stable: the subtractions of one key come in the order the flows were found) */
RT_SORT_DEFINE(rz_sort, struct nf_rfz, rz_less)

/*
 * Rebuilds link @p l's filling state (c_l in rem, n_l in cnt, the clamped share) as of key @p K
 * (the freezes at @p K included with @p incl): its flows frozen by then in key order, each event's
 * subtractions then its share, as nf_freeze and nf_share_touched make them. Watched flows count
 * by their new freezes, the others by their old keys. Returns whether it still has unfrozen flows
 * and a share (a link of one flow has none: it is folded into that flow's limit).
 */
static int nf_rstate(struct rt__flownet *fn, uint32_t l, struct nf_ent K, int incl, uint32_t ep)
{
    struct nf_link *L = &fn->links[l];
    uint32_t n = L->n, nz = 0;
    fn->rwork += n;
    L->cnt = 0;
    if (n < 2)
        return 0;
    if (rt__grow((void **)&fn->rz, &fn->rz_cap, sizeof *fn->rz, n + n / 2)) { /* (room to sort them) */
        fn->rfail = RT_ENOMEM;
        return 0;
    }
    const struct nf_ref *ref = nf_refs(L);
    for (uint32_t k = 0; k < n && (K.k1 | K.k2); k++) { /* nothing is frozen before every level */
        uint32_t x = ref[k].flow;
        const struct nf_flow *f = &fn->flows[x];
        struct nf_ent key;
        double r;
        if (f->mark == ep) {
            if (!f->frozen)
                continue;
            key = nf_fkey(fn, x, f->new_rate, f->new_lk, f->new_bneck);
            r = f->new_rate;
        } else {
            key = nf_okey(fn, x);
            r = f->rate;
        }
        if (nf_kless(key, K) || (incl && key.k1 == K.k1 && key.k2 == K.k2)) {
            struct nf_rfz *z = &fn->rz[nz++];
            z->k1 = key.k1;
            z->k2 = key.k2;
            z->r = r;
        }
    }
    rz_sort(fn->rz, fn->rz + nz, nz);
    double rem = L->cap, share = L->cap / (double)n;
    uint32_t cnt = n;
    for (uint32_t i = 0; i < nz && cnt > 0;) {
        uint32_t j = i;
        for (; j < nz && fn->rz[j].k1 == fn->rz[i].k1 && fn->rz[j].k2 == fn->rz[i].k2; j++)
            if (--cnt > 0)
                rem -= fn->rz[j].r;
        if (cnt > 0) {
            double s = rem / (double)cnt;
            if (s > share)
                share = s;
        }
        i = j;
    }
    L->cnt = cnt;
    fn->lfill[l].rem = rem;
    fn->lfill[l].share = share;
    return cnt > 0;
}

/*
 * Link @p l is dirty from key @p K on (@p d0: from the start, its count changed): the first time,
 * the flows it froze later than @p K are watched (with @p d0 also those whose limit changed);
 * each time, its state is rebuilt as of @p K (inclusive) and its share pushed when it moved.
 */
static void nf_rlink(struct rt__flownet *fn, uint32_t l, struct nf_ent K, int d0, uint32_t ep)
{
    struct nf_link *L = &fn->links[l];
    if (L->mark != ep) {
        L->mark = ep;
        fn->cl[fn->ncl++] = l;
        fn->rseen += L->n;
        fn->lfill[l].pushed = -1.0;
        const struct nf_ref *ref = nf_refs(L);
        for (uint32_t k = 0; k < L->n; k++) {
            uint32_t x = ref[k].flow;
            struct nf_flow *f = &fn->flows[x];
            if (f->mark == ep)
                continue;
            int w = 0;
            if (d0) { /* its limit changes if this link was folded into it, or now is */
                int32_t pos = (int32_t)ref[k].pos;
                if (L->n >= 2)
                    w = f->eff_pos == pos;
                else
                    w = L->cap < f->eff || (L->cap == f->eff && f->eff_pos >= 0 && pos < f->eff_pos);
            }
            if (!w && f->lkind && f->links[f->bneck] == l)
                w = nf_kless(K, nf_okey(fn, x));
            if (w)
                nf_rwatch(fn, x, ep);
        }
    }
    if (!nf_rstate(fn, l, K, 1, ep))
        return;
    double s = fn->lfill[l].share;
    if (s != fn->lfill[l].pushed) {
        struct nf_ent e = fh_ent(s, NF_LINKKEY, L->key, l);
        if (!nf_kless(K, e) && !fn->rfail)
            fn->rfail = NF_RFALLBACK; /* the argument above says it cannot be */
        fn->lfill[l].pushed = s;
        rh_push(fn, e, 0, l);
    }
}

/*
 * The exact recomputation by region for the @p nd flows started in fn->dflows (not alone) and the
 * @p nl links freed in fn->dlinks (not kept), at time now with no flow due. RT_OK (rates applied),
 * RT_ENOMEM, or NF_RFALLBACK or NF_RHEAVY (nothing applied: recompute by components).
 */
static int nf_region(struct rt__flownet *fn, uint32_t nd, uint32_t nl)
{
    uint32_t ep = nf_epoch(fn);
    const struct nf_ent k0 = {0, 0}; /* before every level */
    fn->ncf = fn->ncl = fn->nrh = fn->nchg = 0;
    fn->rfail = 0;
    fn->rwork = fn->rseen = 0;
    fn->rlarge = 0;
    for (uint32_t i = 0; i < nd; i++)
        if (fn->flows[fn->dflows[i]].mark != ep)
            nf_rwatch(fn, fn->dflows[i], ep);
    for (uint32_t i = 0; i < nd; i++) {
        const struct nf_flow *f = &fn->flows[fn->dflows[i]];
        for (uint32_t k = 0; k < f->n; k++)
            nf_rlink(fn, f->links[k], k0, 1, ep);
    }
    for (uint32_t i = 0; i < nl; i++)
        nf_rlink(fn, fn->dlinks[i], k0, 1, ep);
    while (fn->nrh > 0 && !fn->rfail) {
        struct nf_rent e = rh_pop(fn);
        struct nf_ent K = {e.k1, e.k2};
        double v = fh_level(&K);
        fn->rwork++;
        if (e.tag == NF_RCHECK) {
            const struct nf_flow *f = &fn->flows[e.id];
            if (f->frozen)
                continue;
            if (f->lkind && fn->links[f->links[f->bneck]].mark != ep)
                nf_rfreeze(fn, e.id, f->rate, 1, f->bneck, K, ep); /* its clean link fires as before */
            else
                fn->sf[fn->nchg++] = e.id; /* unfrozen past its old key */
        } else if (!(e.k2 & NF_LINKKEY)) {
            const struct nf_flow *f = &fn->flows[e.id];
            if (f->frozen)
                continue;
            nf_rfreeze(fn, e.id, v, 0, f->eff_pos, K, ep);
        } else {
            uint32_t l = e.id;
            if (!nf_rstate(fn, l, K, 0, ep))
                continue;
            double s = fn->lfill[l].share;
            if (s != v) { /* a stale entry: the share grew since, or a lower one is pending */
                if (s != fn->lfill[l].pushed) {
                    if (s < v) {
                        fn->rfail = NF_RFALLBACK; /* no entry of it pending: cannot be */
                        break;
                    }
                    fn->lfill[l].pushed = s;
                    rh_push(fn, fh_ent(s, NF_LINKKEY, fn->links[l].key, l), 0, l);
                }
                continue;
            }
            const struct nf_ref *ref = nf_refs(&fn->links[l]);
            for (uint32_t k = 0; k < fn->links[l].n; k++) {
                uint32_t x = ref[k].flow;
                const struct nf_flow *g = &fn->flows[x];
                if (g->mark == ep ? g->frozen : nf_kless(nf_okey(fn, x), K))
                    continue;
                nf_rfreeze(fn, x, v, 1, (int32_t)ref[k].pos, K, ep);
            }
        }
        if (fn->nchg > 0) { /* the changed flows' links, each rebuilt once */
            uint32_t t = nf_tepoch(fn);
            if (e.tag != NF_RCHECK && (e.k2 & NF_LINKKEY))
                fn->links[e.id].touch = t; /* the link that fired: all its flows are frozen */
            for (uint32_t i = 0; i < fn->nchg; i++) {
                const struct nf_flow *g = &fn->flows[fn->sf[i]];
                for (uint32_t k = 0; k < g->n; k++) {
                    struct nf_link *M = &fn->links[g->links[k]];
                    if (M->touch == t)
                        continue;
                    M->touch = t;
                    nf_rlink(fn, g->links[k], K, 0, ep);
                }
            }
            fn->nchg = 0;
        }
        if (!fn->rfail && !fn->rlarge && fn->rwork > NF_RWORK * (fn->rseen + 64)) {
            /* Past the budget: refill if the component is at most twice the work so far (a
             * search as long as that at most; sf and sl are free between events). */
            uint64_t twice = 2 * fn->rwork;
            uint32_t cap = twice < UINT32_MAX ? (uint32_t)twice : UINT32_MAX;
            if (nf_small_in(fn, fn->cf[0], NF_NONE, cap, nf_tepoch(fn), fn->sf, fn->sl)) {
                fn->rfail = NF_RHEAVY;
            } else {
                fn->rlarge = 1; /* larger: the region goes on, unchecked */
            }
        }
    }
    if (fn->rfail)
        return fn->rfail;
    fn->filled += fn->ncf;
    for (uint32_t i = 0; i < fn->ncf; i++) {
        struct nf_flow *f = &fn->flows[fn->cf[i]];
        nf_set(fn, fn->cf[i], f->new_rate, f->new_bneck);
        f->lkind = f->new_lk;
        nf_setkey(fn, fn->cf[i]);
    }
    return RT_OK;
}

/* Recomputes the rates of the components of the flows started and the links freed since the
 * last recomputation (of all flows in full mode; of the flows over those links in fast mode),
 * at time now. */
static int nf_recompute(struct rt__flownet *fn)
{
    if (nf_reserve(fn))
        return RT_ENOMEM;
    uint32_t ep = nf_epoch(fn);
    if (fn->fast) {
        nf_fast(fn, ep);
    } else if (fn->full) {
        for (uint32_t id = 0; id < fn->nflows; id++) {
            const struct nf_flow *f = &fn->flows[id];
            if (!f->active || f->mark == ep || nf_due(fn, f))
                continue;
            nf_component(fn, id, 0, ep);
            nf_fill(fn);
            nf_apply(fn);
        }
    } else {
        /* The flows started that are not alone, and the links freed whose flows may change. */
        uint32_t nd = 0, nl = 0;
        for (uint32_t i = 0; i < fn->ndflows; i++) {
            uint32_t id = fn->dflows[i];
            const struct nf_flow *f = &fn->flows[id];
            if (!f->active || f->mark == ep || nf_alone(fn, id, ep))
                continue;
            fn->dflows[nd++] = id;
        }
        for (uint32_t i = 0; i < fn->ndlinks; i++) {
            uint32_t l = fn->dlinks[i];
            struct nf_link *L = &fn->links[l];
            L->dirty = 0;
            /* An idle link has no component; one whose only flow is alone, that flow alone. */
            if (L->mark == ep || L->n == 0 || (L->n == 1 && nf_alone(fn, nf_refs(L)[0].flow, ep)))
                continue;
            if (nf_kept(fn, l)) {
                if (L->n == 1) { /* its rate stays, but the link is now part of its limit */
                    struct nf_flow *f = &fn->flows[nf_refs(L)[0].flow];
                    nf_reff(fn, nf_refs(L)[0].flow, &f->eff, &f->eff_pos);
                }
                continue;
            }
            fn->dlinks[nl++] = l;
        }
        int rc = NF_RFALLBACK;
        if (fn->region && !nf_any_due(fn)) {
            /* Small components are refilled whole (cheaper there than the region's events), the
             * others recomputed by region. */
            uint32_t cep = nf_epoch(fn), big = nf_tepoch(fn), nb = 0, nbl = 0;
            uint32_t most = fn->small < NF_REGION ? fn->small : NF_REGION;
            for (uint32_t i = 0; i < nd; i++) {
                uint32_t id = fn->dflows[i];
                if (fn->flows[id].mark == cep)
                    continue;
                if (!nf_small(fn, id, NF_NONE, most, big)) {
                    fn->dflows[nb++] = id;
                    continue;
                }
                nf_component(fn, id, 0, cep);
                nf_fill(fn);
                nf_apply(fn);
            }
            for (uint32_t i = 0; i < nl; i++) {
                uint32_t l = fn->dlinks[i];
                if (fn->links[l].mark == cep)
                    continue;
                if (!nf_small(fn, NF_NONE, l, most, big)) {
                    fn->dlinks[nbl++] = l;
                    continue;
                }
                nf_component(fn, NF_NONE, l, cep);
                if (fn->ncf == 0)
                    continue;
                nf_fill(fn);
                nf_apply(fn);
            }
            nd = nb;
            nl = nbl;
            rc = nd + nl > 0 ? nf_region(fn, nd, nl) : RT_OK;
        }
        if (rc == RT_ENOMEM)
            return RT_ENOMEM;
        if (rc != RT_OK) { /* by components */
            ep = nf_epoch(fn);
            for (uint32_t i = 0; i < nd; i++) {
                if (fn->flows[fn->dflows[i]].mark == ep)
                    continue;
                nf_component(fn, fn->dflows[i], 0, ep);
                nf_fill(fn);
                nf_apply(fn);
            }
            for (uint32_t i = 0; i < nl; i++) {
                uint32_t l = fn->dlinks[i];
                if (fn->links[l].mark == ep)
                    continue;
                nf_component(fn, NF_NONE, l, ep);
                if (fn->ncf == 0)
                    continue;
                nf_fill(fn);
                nf_apply(fn);
            }
        }
    }
    for (uint32_t i = 0; i < fn->ndlinks; i++)
        fn->links[fn->dlinks[i]].dirty = 0;
    fn->ndflows = fn->ndlinks = 0;
    return RT_OK;
}

/* ---- public ---- */

/* Makes room for @p need links in every per-link array, doubling (or exactly @p need with
 * @p exact). The room is not written: a link's state is set when it is added (nf_link_init), so
 * room never used costs no memory, only address space (rt__flownet_reserve_links). */
static int nf_links_room(struct rt__flownet *fn, uint32_t need, int exact)
{
    if (need <= fn->links_cap)
        return 0;
    if (need > NF_MAXIDS)
        return -1;
    uint32_t c = fn->links_cap ? fn->links_cap : 16;
    while (c < need)
        c = c > NF_MAXIDS / 2 ? NF_MAXIDS : 2 * c;
    if (exact)
        c = need;
    /* The links on cache lines of their own: aligned_alloc, as realloc does not align. */
    struct nf_link *links = aligned_alloc(NF_LINE, (size_t)c * sizeof *links);
    if (!links)
        return -1;
    if (fn->nlinks)
        memcpy(links, fn->links, (size_t)fn->nlinks * sizeof *links);
    free(fn->links);
    fn->links = links;
    void *p[6] = {fn->lstat, fn->dlinks, fn->cl, fn->touched, fn->sl, fn->lfill};
    size_t sz[6] = {sizeof *fn->lstat, sizeof *fn->dlinks, sizeof *fn->cl, sizeof *fn->touched, sizeof *fn->sl,
                    sizeof *fn->lfill};
    for (int i = 0; i < 6; i++) { /* each array grown in turn: a failure leaves the others valid */
        void *q = realloc(p[i], (size_t)c * sz[i]);
        if (!q)
            return -1;
        p[i] = q;
        switch (i) {
        case 0: fn->lstat = q; break;
        case 1: fn->dlinks = q; break;
        case 2: fn->cl = q; break;
        case 3: fn->touched = q; break;
        case 4: fn->sl = q; break;
        default: fn->lfill = q; break;
        }
    }
    fn->links_cap = c;
    return 0;
}

/* Link @p l, of capacity @p cap and tie key @p key, as new: no flow, nothing counted. */
static void nf_link_init(struct rt__flownet *fn, uint32_t l, double cap, uint32_t key)
{
    memset(&fn->links[l], 0, sizeof fn->links[l]);
    memset(&fn->lstat[l], 0, sizeof fn->lstat[l]);
    fn->links[l].cap = cap;
    fn->links[l].key = key;
}

void rt__flownet_prefetch_link(const struct rt__flownet *fn, uint32_t link)
{
    if (fn && link < fn->nlinks)
        __builtin_prefetch(&fn->links[link], 1);
}

int rt__flownet_reserve_links(struct rt__flownet *fn, uint32_t nlinks)
{
    if (!fn)
        return RT_EINVAL;
    return nf_links_room(fn, nlinks, 1) ? RT_ENOMEM : RT_OK;
}

int rt__flownet_create(uint32_t nlinks, const double *capacity, struct rt__flownet **out)
{
    if (!out || (nlinks > 0 && !capacity))
        return RT_EINVAL;
    *out = NULL;
    for (uint32_t l = 0; l < nlinks; l++)
        if (!(capacity[l] > 0) || !isfinite(capacity[l]))
            return RT_EINVAL;
    struct rt__flownet *fn = calloc(1, sizeof *fn);
    if (!fn)
        return RT_ENOMEM;
    fn->small = NF_SMALL;
    fn->region = 1;
    if (nf_links_room(fn, nlinks ? nlinks : 1, 0)) {
        rt__flownet_destroy(fn);
        return RT_ENOMEM;
    }
    fn->nlinks = nlinks;
    for (uint32_t l = 0; l < nlinks; l++)
        nf_link_init(fn, l, capacity[l], l);
    *out = fn;
    return RT_OK;
}

int rt__flownet_add_link(struct rt__flownet *fn, double capacity, uint32_t key, uint32_t *link)
{
    if (!fn || !link || !(capacity > 0) || !isfinite(capacity))
        return RT_EINVAL;
    if (nf_links_room(fn, fn->nlinks + 1, 0))
        return RT_ENOMEM;
    nf_link_init(fn, fn->nlinks, capacity, key);
    *link = fn->nlinks++;
    return RT_OK;
}

void rt__flownet_destroy(struct rt__flownet *fn)
{
    if (!fn)
        return;
    if (fn->links)
        for (uint32_t l = 0; l < fn->nlinks; l++)
            if (fn->links[l].lcap > NF_INREF)
                free(fn->links[l].ref.heap);
    for (uint32_t f = 0; f < fn->nflows; f++)
        free(fn->flows[f].delay);
    free(fn->links);
    free(fn->lstat);
    free(fn->lfill);
    free(fn->rh);
    free(fn->rz);
    free(fn->flows);
    free(fn->free_ids);
    free(fn->heap);
    free(fn->hpos);
    free(fn->dflows);
    free(fn->dlinks);
    free(fn->cf);
    free(fn->cl);
    free(fn->fh);
    free(fn->touched);
    free(fn->sl);
    free(fn->sf);
    free(fn->done);
    free(fn);
}

/* Makes room for one more flow on link @p L (from 4: most links carry few flows at once). */
static int nf_link_reserve(struct nf_link *L)
{
    if (L->n < (L->lcap > NF_INREF ? L->lcap : NF_INREF))
        return 0;
    if (L->lcap > UINT32_MAX / 2)
        return -1;
    if (L->lcap <= NF_INREF) { /* the list leaves the link: 2 * NF_INREF entries outside */
        struct nf_ref *h = malloc(2 * NF_INREF * sizeof *h);
        if (!h)
            return -1;
        memcpy(h, L->ref.in, sizeof L->ref.in);
        L->ref.heap = h;
        L->lcap = 2 * NF_INREF;
        return 0;
    }
    void *p = realloc(L->ref.heap, (size_t)L->lcap * 2 * sizeof *L->ref.heap);
    if (!p)
        return -1;
    L->ref.heap = p;
    L->lcap *= 2;
    return 0;
}

int rt__flownet_start(struct rt__flownet *fn, rt_time_ps now, const uint32_t *links, uint32_t n, double bytes,
                      double max_rate, uint64_t user, uint32_t *id)
{
    if (!fn || (n > 0 && !links) || !(bytes > 0) || !isfinite(bytes) || !(max_rate > 0) || !isfinite(max_rate))
        return RT_EINVAL;
    if (now < fn->now || (fn->in_advance && now != fn->now))
        return RT_EINVAL;
    uint32_t ep = nf_epoch(fn);
    for (uint32_t i = 0; i < n; i++) {
        if (links[i] >= fn->nlinks || fn->links[links[i]].mark == ep)
            return RT_EINVAL; /* out of range, or a link twice */
        fn->links[links[i]].mark = ep;
    }
    if (now > fn->now) {
        /* The rates of the flows started at the old time apply from then on. */
        if (nf_dirty(fn) && nf_recompute(fn))
            return RT_ENOMEM;
        if (ch_first(fn) < now)
            return RT_EINVAL; /* a completion before now was not advanced to */
        fn->now = now;
    }

    /* Make room everywhere first, so that a failure changes nothing. */
    if (rt__grow((void **)&fn->dflows, &fn->dflows_cap, sizeof *fn->dflows, fn->ndflows + 1) ||
        rt__grow((void **)&fn->heap, &fn->heap_cap, sizeof *fn->heap, fn->active + 1))
        return RT_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (nf_link_reserve(&fn->links[links[i]]))
            return RT_ENOMEM;
    uint32_t fid;
    if (fn->nfree > 0) {
        fid = fn->free_ids[fn->nfree - 1];
    } else {
        if (fn->nflows >= NF_MAXIDS ||
            rt__grow((void **)&fn->flows, &fn->flows_cap, sizeof *fn->flows, fn->nflows + 1) ||
            rt__grow((void **)&fn->free_ids, &fn->free_cap, sizeof *fn->free_ids, fn->nflows + 1) ||
            rt__grow((void **)&fn->hpos, &fn->hpos_cap, sizeof *fn->hpos, fn->nflows + 1))
            return RT_ENOMEM;
        fid = fn->nflows++;
        memset(&fn->flows[fid], 0, sizeof fn->flows[fid]);
        fn->free_ids[fn->nfree++] = fid;
    }
    struct nf_flow *f = &fn->flows[fid];
    if (n > f->rcap) {
        /* One block: delays (8-byte aligned) first, then links and list positions. */
        void *blk = realloc(f->delay, (size_t)n * (sizeof(double) + 2 * sizeof(uint32_t)));
        if (!blk)
            return RT_ENOMEM; /* the slot stays on the free list */
        f->delay = blk;
        f->rcap = n;
    }
    f->links = (uint32_t *)(f->delay + f->rcap);
    f->lpos = f->links + f->rcap;
    fn->nfree--;

    f->remaining = bytes;
    f->rate = 0;
    f->max_rate = max_rate;
    f->bytes = bytes;
    f->start = f->last_update = f->delay_since = now;
    f->finish = INT64_MAX;
    f->user = user;
    f->n = n;
    fn->hpos[fid] = NF_NONE;
    f->bneck = -1;
    f->lkind = 0;
    f->active = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = links[i];
        struct nf_link *L = &fn->links[l];
        f->delay[i] = 0;
        f->links[i] = l;
        f->lpos[i] = L->n;
        nf_refs(L)[L->n] = (struct nf_ref){fid, i};
        if (L->n++ == 0)
            L->busy_since = now;
        if (L->n > L->max_flows)
            L->max_flows = L->n;
    }
    fn->dflows[fn->ndflows++] = fid;
    fn->nentries += n;
    fn->active++;
    if (id)
        *id = fid;
    return RT_OK;
}

rt_time_ps rt__flownet_next(struct rt__flownet *fn)
{
    if (!fn)
        return INT64_MAX;
    if (nf_dirty(fn) && nf_recompute(fn))
        return INT64_MIN;
    return ch_first(fn);
}

static inline int done_less(const struct nf_done *x, const struct nf_done *y)
{
    return x->start < y->start || (x->start == y->start && x->id < y->id);
}
RT_SORT_DEFINE(done_sort, struct nf_done, done_less)

/* Fetches the lines flow @p f's end writes on each of its links: the link and its totals. */
static inline void nf_prefetch_route(const struct rt__flownet *fn, const struct nf_flow *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        __builtin_prefetch(&fn->links[f->links[i]], 1);
        __builtin_prefetch(&fn->lstat[f->links[i]], 1);
    }
}

/* Takes completed flow @p id off its links at time @p t and adds it to their totals. */
static void nf_retire(struct rt__flownet *fn, uint32_t id, rt_time_ps t)
{
    struct nf_flow *f = &fn->flows[id];
    nf_prefetch_route(fn, f);
    nf_flush_delay(f, t);
    f->remaining = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t l = f->links[i];
        struct nf_link *L = &fn->links[l];
        struct rt__link_stats *ls = &fn->lstat[l];
        uint32_t k = f->lpos[i], last = --L->n;
        if (k != last) { /* swap-remove: the last entry moves into k */
            struct nf_ref *ref = nf_refs(L);
            ref[k] = ref[last];
            fn->flows[ref[k].flow].lpos[ref[k].pos] = k;
        }
        if (L->n == 0)
            ls->busy_ps += t - L->busy_since;
        ls->bytes += f->bytes;
        ls->delay_ps += f->delay[i];
        ls->done++;
        if (f->user & RT__FLOW_APART) {
            ls->apart_flows++;
            ls->apart_bytes += f->bytes;
        }
        if (!L->dirty) {
            L->dirty = 1;
            fn->dlinks[fn->ndlinks++] = l;
        }
    }
    fn->nentries -= f->n;
    fn->active--;
}

int rt__flownet_advance(struct rt__flownet *fn, rt_time_ps t,
                        void (*done)(void *ud, const struct rt__flow_done *f), void *ud)
{
    if (!fn || fn->in_advance || t < fn->now)
        return RT_EINVAL;
    if (nf_dirty(fn) && nf_recompute(fn))
        return RT_ENOMEM;
    if (ch_first(fn) < t)
        return RT_EINVAL; /* it would skip a completion */
    fn->now = t;
    if (fn->nheap == 0 || fn->heap[0].finish > t)
        return RT_OK;
    /* (and room after them to sort them) */
    if (rt__grow((void **)&fn->done, &fn->done_cap, sizeof *fn->done, 2 * fn->nheap))
        return RT_ENOMEM; /* nothing changed but the time, which is allowed to move */
    uint32_t nd = 0;
    while (fn->nheap > 0 && fn->heap[0].finish <= t) {
        uint32_t id = ch_pop(fn);
        fn->done[nd].start = fn->flows[id].start;
        fn->done[nd++].id = id;
    }
    done_sort(fn->done, fn->done + nd, nd);
    for (uint32_t i = 0; i < nd; i++)
        nf_retire(fn, fn->done[i].id, t);
    fn->in_advance = 1;
    for (uint32_t i = 0; i < nd && done; i++) {
        const struct nf_flow *f = &fn->flows[fn->done[i].id];
        struct rt__flow_done info = {
            .user = f->user,
            .id = fn->done[i].id,
            .n = f->n,
            .start = f->start,
            .finish = t,
            .alone = nf_dur(f->bytes, f->max_rate),
            .bytes = f->bytes,
            .links = f->links,
            .delay_ps = f->delay,
        };
        done(ud, &info); /* may start flows, which may move fn->flows */
    }
    fn->in_advance = 0;
    for (uint32_t i = 0; i < nd; i++) {
        fn->flows[fn->done[i].id].active = 0;
        fn->free_ids[fn->nfree++] = fn->done[i].id;
    }
    if (fn->nheap) /* the next flow to end: its links' lines on their way while the caller works */
        nf_prefetch_route(fn, &fn->flows[fn->heap[0].id]);
    return RT_OK;
}

uint32_t rt__flownet_active(const struct rt__flownet *fn)
{
    return fn ? fn->active : 0;
}

uint32_t rt__flownet_link_load(const struct rt__flownet *fn, uint32_t link)
{
    return fn && link < fn->nlinks ? fn->links[link].n : 0;
}

void rt__flownet_add_delay(struct rt__flownet *fn, uint32_t id, uint32_t pos, double ps)
{
    if (fn && id < fn->nflows && pos < fn->flows[id].n)
        fn->flows[id].delay[pos] += ps;
}

rt_time_ps rt__flownet_now(const struct rt__flownet *fn)
{
    return fn ? fn->now : 0;
}

double rt__flownet_rate(const struct rt__flownet *fn, uint32_t id)
{
    if (!fn || id >= fn->nflows || !fn->flows[id].active)
        return 0;
    return fn->flows[id].rate;
}

const struct rt__link_stats *rt__flownet_link(const struct rt__flownet *fn, uint32_t link)
{
    if (!fn || link >= fn->nlinks)
        return NULL;
    struct rt__link_stats *ls = &fn->lstat[link];
    ls->flows = ls->done + fn->links[link].n;
    ls->max_flows = fn->links[link].max_flows;
    return ls;
}

void rt__flownet_set_full(struct rt__flownet *fn, int on)
{
    if (fn)
        fn->full = on != 0;
}

void rt__flownet_set_fast(struct rt__flownet *fn, int on)
{
    if (fn) {
        fn->fast = on != 0;
        fn->region &= !fn->fast; /* the fast rates' keys are not a filling's */
    }
}

uint64_t rt__flownet_filled(const struct rt__flownet *fn)
{
    return fn ? fn->filled : 0;
}

void rt__flownet_set_small(struct rt__flownet *fn, uint32_t n)
{
    if (fn)
        fn->small = n;
}

/* Whether link @p l carries more than its capacity (relative 1e-9) at the flows' rates in use. */
static int nf_overloaded(struct rt__flownet *fn, uint32_t l)
{
    struct nf_link *L = &fn->links[l];
    const struct nf_ref *ref = nf_refs(L);
    double load = 0;
    for (uint32_t k = 0; k < L->n; k++)
        if (!nf_due(fn, &fn->flows[ref[k].flow]))
            load += fn->flows[ref[k].flow].rate;
    return load > L->cap * (1 + 1e-9);
}

int rt__flownet_check(struct rt__flownet *fn)
{
    if (!fn || fn->in_advance)
        return RT_EINVAL;
    if (nf_dirty(fn) && nf_recompute(fn))
        return RT_ENOMEM;
    if (nf_reserve(fn))
        return RT_ENOMEM;
    int rc = RT_OK;
    if (fn->fast) { /* every flow's fast rate from scratch, and no link over its capacity */
        uint32_t tep = nf_tepoch(fn);
        fn->due_now = 1; /* counts by scanning every link, whatever nf_fast's shortcut said */
        for (uint32_t id = 0; id < fn->nflows; id++) {
            const struct nf_flow *f = &fn->flows[id];
            if (!f->active || nf_due(fn, f))
                continue;
            int32_t b;
            if (nf_fast_rate(fn, f, tep, &b) != f->rate || b != f->bneck)
                rc = RT_ERANGE;
        }
        for (uint32_t l = 0; l < fn->nlinks; l++)
            if (nf_overloaded(fn, l))
                rc = RT_ERANGE;
        return rc;
    }
    /* What nf_region reads of the last filling: each flow's limit and the kind of its key. */
    struct {
        double eff;
        int32_t pos;
    } *eff = malloc((fn->nflows ? fn->nflows : 1) * sizeof *eff);
    if (!eff)
        return RT_ENOMEM;
    for (uint32_t id = 0; id < fn->nflows; id++) {
        eff[id].eff = fn->flows[id].eff;
        eff[id].pos = fn->flows[id].eff_pos;
    }
    int due = nf_any_due(fn); /* limits are then those of the flows not due */
    uint32_t ep = nf_epoch(fn);
    for (uint32_t id = 0; id < fn->nflows && rc == RT_OK; id++) {
        const struct nf_flow *f = &fn->flows[id];
        if (!f->active || f->mark == ep || nf_due(fn, f))
            continue;
        nf_component(fn, id, 0, ep);
        nf_fill(fn);
        for (uint32_t i = 0; i < fn->ncf; i++) {
            const struct nf_flow *g = &fn->flows[fn->cf[i]];
            struct nf_ent k = nf_fkey(fn, fn->cf[i], g->rate, g->lkind, g->bneck);
            if (g->new_rate != g->rate || g->new_bneck != g->bneck || !(g->rate > 0) || g->rate > g->max_rate ||
                g->new_lk != g->lkind || k.k1 != g->ok1 || k.k2 != g->ok2)
                rc = RT_ERANGE;
            if (!due && (g->eff != eff[fn->cf[i]].eff || eff[fn->cf[i]].pos != g->eff_pos))
                rc = RT_ERANGE;
        }
        for (uint32_t i = 0; i < fn->ncl; i++)
            if (nf_overloaded(fn, fn->cl[i]))
                rc = RT_ERANGE;
    }
    free(eff);
    return rc;
}

rt_time_ps rt__flownet_duration(double bytes, double rate)
{
    return nf_dur(bytes, rate);
}
