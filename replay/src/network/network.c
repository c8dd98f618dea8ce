/* SPDX-License-Identifier: MIT */
/*
 * The replay's network layer (retime/network.h, docs/network.md): a topology and a mapping
 * (rt_network, immutable, shared by replays), and one replay's traffic on it (struct rt__netrun:
 * the flows in flight and their latencies).
 *
 * A point-to-point message of m bytes from rank a to rank b, started at t, whose model gives it
 * the wire time W(m) (noise included) and the per-byte part B(m) = W(m) - W(0):
 *   - a and b on one node: it arrives at t + shm_alpha + shm_beta·m (the model's W(m) when
 *     shared memory has no parameters of its own), without contention;
 *   - otherwise its bytes are a flow over route(node(a), node(b)) (the topology's links, the
 *     sender's injection and the receiver's ejection link first and last) from t, limited to
 *     its own rate m / B(m) (the model's bandwidth) and sharing every link max-min fairly
 *     (netflow.c); when its last byte is out at f it arrives at
 *         f + (W(m) - B(m)) + h·hop_latency,
 *     h the switches or routers crossed (the route's links but the injection link). Alone on
 *     its route, with links as fast as the model, f = t + B(m): the model's own W(m).
 * Capacities: NIC links 1/nic_beta, the topology's links 1/link_beta (in B/ps).
 *
 * Memory follows the links the traffic uses, not the machine: a replay meets a link when a route
 * first crosses it and only then gives it a place in the flow model (a table or hash of topology
 * link id to flow-model link, struct linkmap), so that an 8-rank trace on a machine of 2^31 nodes costs
 * what it costs on 8. The flow model breaks its ties by the topology's link id, not by the order
 * links were met in, so the results are those of a model holding every link.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "map.h"
#include "netflow.h"
#include "network_internal.h"
#include "noise_internal.h"
#include "retime/noise.h"
#include "retime/topology.h"
#include "retime/units.h"

enum { PAT_PERM, PAT_UNIFORM, PAT_IPP };

/* The background traffic of --perturb (network.h), parsed. */
struct perturb {
    int on, pattern;
    double ratio, size, interval_ps, sigma1_per_ps, sigma2_per_ps, rate_per_ps;
    uint32_t count;     /* perturbing nodes */
    uint32_t *used;     /* the nodes the trace uses, ascending, each once (nused) */
    uint32_t nused, nfree; /* nfree: the nodes it does not use */
};

/* The @p i-th (from 0) of the nodes the trace does not use, in ascending order: i plus the
 * used nodes below it, the least j with used[j] - j > i (the free nodes below used[j]). */
static uint32_t free_node(const struct perturb *b, uint32_t i)
{
    uint32_t lo = 0, hi = b->nused;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->used[mid] - mid > i)
            hi = mid;
        else
            lo = mid + 1;
    }
    return i + lo;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct rt_network {
    struct rt_network_params p;
    rt_topology *topo;
    rt_mapping *map;
    uint32_t ranks;
    char *topo_spec, *map_spec, *perturb_spec; /* the params' strings, owned */
    struct perturb bg;
    char describe[512];
};

/* Parses --perturb's spec into @p b; the perturbers are counted from the topology's nodes. */
static int perturb_parse(const char *spec, struct perturb *b, rt_error *err)
{
    static const char *const keys[] = {"ratio", "pattern", "size", "interval", "sigma1", "sigma2", "rate", NULL};
    char what[80], qs[64];
    size_t n;
    int rc;
    rt__noise_quote(qs, sizeof qs, spec, strlen(spec));
    const char *q = rt__noise_param(spec, "pattern", &n);
    if ((rc = rt__noise_only("perturb", spec, spec, keys, err)) || (rc = rt__noise_get("perturb", spec, spec, "ratio", 0, &b->ratio, err)))
        return rc;
    if (!q)
        return rt_error_set(err, RT_EINVAL, "perturb '%s': needs pattern=random-permutation|uniform|ipp", qs);
    if (n == 18 && !strncmp(q, "random-permutation", n))
        b->pattern = PAT_PERM;
    else if (n == 7 && !strncmp(q, "uniform", n))
        b->pattern = PAT_UNIFORM;
    else if (n == 3 && !strncmp(q, "ipp", n))
        b->pattern = PAT_IPP;
    else
        return rt_error_set(err, RT_EINVAL, "perturb '%s': pattern must be random-permutation, uniform or ipp", qs);
    const char *sz = rt__noise_param(spec, "size", &n);
    rt_bytes bytes = 0;
    snprintf(what, sizeof what, "%.*s", (int)(n < 40 ? n : 40), sz ? sz : "");
    if (!sz)
        return rt_error_set(err, RT_EINVAL, "perturb '%s': needs size=SIZE (bytes per message, > 0)", qs);
    if ((rc = rt_parse_bytes(what, &bytes, err))) { /* its own reason (#47: "needs size > 0" for 1TiB) */
        char why[200];
        snprintf(why, sizeof why, "%.190s", err->msg);
        return rt_error_set(err, rc, "perturb '%s': size: %s", qs, why);
    }
    if (bytes == 0)
        return rt_error_set(err, RT_ERANGE, "perturb '%s': size must be above 0", qs);
    b->size = (double)bytes;
    if (!(b->ratio > 0) || b->ratio > 1)
        return rt_error_set(err, RT_ERANGE, "perturb '%s': ratio must be in (0, 1]", qs);
    if (b->pattern == PAT_IPP) {
        double r;
        const char *k[3] = {"sigma1", "sigma2", "rate"};
        double *dst[3] = {&b->sigma1_per_ps, &b->sigma2_per_ps, &b->rate_per_ps};
        for (int i = 0; i < 3; i++) {
            const char *v = rt__noise_param(spec, k[i], &n);
            snprintf(what, sizeof what, "%.*s", (int)(n < 40 ? n : 40), v ? v : "");
            if (!v || rt_parse_rate_per_ns(what, &r, err) || !(r > 0))
                return rt_error_set(err, RT_EINVAL, "perturb '%s': ipp needs %s=RATE (> 0, e.g. 0.2/us)", qs, k[i]);
            *dst[i] = r / 1e3;
        }
    } else {
        double ns;
        if ((rc = rt__noise_get("perturb", spec, spec, "interval", 1, &ns, err)))
            return rc;
        if (!(ns > 0) || ns > RT_MAX_DELAY_NS) /* (#47: 1e7s ran out of memory in the replay) */
            return rt_error_set(err, RT_ERANGE, "perturb '%s': interval must be above 0 and at most 1000s", qs);
        b->interval_ps = ns * 1e3;
    }
    b->on = 1;
    return RT_OK;
}

/* The nodes the mapping leaves free (kept as the used ones: the trace's, few next to a
 * machine's), and how many of them perturb. */
static int perturb_nodes(rt_network *n, rt_error *err)
{
    struct perturb *b = &n->bg;
    uint32_t nodes = rt_topology_nodes(n->topo);
    b->used = malloc((n->ranks ? n->ranks : 1) * sizeof *b->used);
    if (!b->used)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < n->ranks; r++)
        b->used[r] = rt_mapping_node(n->map, r);
    if (n->ranks > 1)
        qsort(b->used, n->ranks, sizeof *b->used, u32_cmp);
    for (uint32_t r = 0; r < n->ranks; r++)
        if (r == 0 || b->used[r] != b->used[b->nused - 1])
            b->used[b->nused++] = b->used[r];
    b->nfree = nodes - b->nused;
    double want = b->ratio * nodes;
    b->count = (uint32_t)(want + 0.5);
    if (b->count > b->nfree)
        return rt_error_set(err, RT_EINVAL, "perturb: ratio %g of %u nodes is %u perturbing nodes, but the trace leaves "
                            "only %u free", b->ratio, nodes, b->count, b->nfree);
    if (b->count < 2)
        return rt_error_set(err, RT_EINVAL, "perturb: ratio %g of %u nodes is %u perturbing nodes: at least 2 are "
                            "needed to send to each other", b->ratio, nodes, b->count);
    return RT_OK;
}

void rt_network_params_default(struct rt_network_params *p)
{
    memset(p, 0, sizeof *p);
    p->shm_alpha_ns = -1;
    p->shm_ns_per_byte = -1;
}

static int finite_nonneg(double x)
{
    return x >= 0 && x <= 1e12;
}

static const char *const contention_names[] = {"exact", "exact-full", "fast", "none"};

int rt_contention_parse(const char *s, int *out, rt_error *err)
{
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, contention_names[i])) {
            *out = i;
            return RT_OK;
        }
    return rt_error_set(err, RT_EINVAL, "contention model '%.40s': must be exact, exact-full, fast or none",
                         s ? s : "");
}

const char *rt_contention_name(int contention)
{
    return contention >= 0 && contention < 4 ? contention_names[contention] : "?";
}

int rt_network_create(const struct rt_network_params *p, uint32_t ranks, rt_network **out, rt_error *err)
{
    rt_network *n = NULL;
    int rc = RT_OK;
    *out = NULL;
    if (!p->topology || !*p->topology)
        return rt_error_set(err, RT_EINVAL, "network: no topology given");
    if (p->contention < RT_CONTENTION_EXACT || p->contention > RT_CONTENTION_NONE)
        return rt_error_set(err, RT_EINVAL, "network: unknown contention model %d", p->contention);
    if (p->perturb && p->contention == RT_CONTENTION_NONE) /* it acts only through shared links */
        return rt_error_set(err, RT_EINVAL, "network: --perturb needs links that are shared: not with --contention "
                                            "none (give exact or fast)");
    if (!finite_nonneg(p->link_ns_per_byte) || !finite_nonneg(p->nic_ns_per_byte) ||
        !finite_nonneg(p->hop_latency_ns) || !finite_nonneg(p->packet_bytes) ||
        !(p->shm_alpha_ns < 0 || finite_nonneg(p->shm_alpha_ns)) ||
        !(p->shm_ns_per_byte < 0 || finite_nonneg(p->shm_ns_per_byte)))
        return rt_error_set(err, RT_EINVAL, "network: a bandwidth or latency is negative or not finite");
    n = calloc(1, sizeof *n);
    if (!n)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    n->p = *p;
    n->ranks = ranks;
    if (!n->p.ranks_per_node)
        n->p.ranks_per_node = 1;
    n->topo_spec = strdup(p->topology);
    n->map_spec = strdup(p->mapping ? p->mapping : "block");
    if (!n->topo_spec || !n->map_spec) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto fail;
    }
    n->p.topology = n->topo_spec;
    n->p.mapping = n->map_spec;
    /* "crossbar-flow" (or "crossbar" given here) is one switch with as many nodes as the ranks
     * need on it: only the NICs are shared */
    char spec[64];
    if (!strcmp(p->topology, "crossbar-flow") || !strcmp(p->topology, "crossbar")) {
        uint32_t rpn = n->p.ranks_per_node, nodes = ranks / rpn + (ranks % rpn != 0);
        snprintf(spec, sizeof spec, "crossbar:%u", nodes ? nodes : 1);
    } else {
        snprintf(spec, sizeof spec, "%s", "");
    }
    if ((rc = rt_topology_create(spec[0] ? spec : p->topology, &n->topo, err)))
        goto fail;
    if ((rc = rt_mapping_create(n->map_spec, ranks, rt_topology_nodes(n->topo), n->p.ranks_per_node, &n->map, err)))
        goto fail;
    size_t k = (size_t)snprintf(n->describe, sizeof n->describe, "%s, %s mapping, %u rank%s per node",
                                rt_topology_spec(n->topo), rt_mapping_spec(n->map), n->p.ranks_per_node,
                                n->p.ranks_per_node == 1 ? "" : "s");
    if (p->perturb) {
        if (!(n->perturb_spec = strdup(p->perturb))) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto fail;
        }
        n->p.perturb = n->perturb_spec;
        if ((rc = perturb_parse(p->perturb, &n->bg, err)) || (rc = perturb_nodes(n, err)))
            goto fail;
        if (k < sizeof n->describe)
            k += (size_t)snprintf(n->describe + k, sizeof n->describe - k, ", background traffic from %u nodes (%.240s)",
                                  n->bg.count, p->perturb);
    }
    if (n->p.packet_bytes > 0 && k < sizeof n->describe)
        k += (size_t)snprintf(n->describe + k, sizeof n->describe - k, ", %.0f B packets queue", n->p.packet_bytes);
    if (n->p.contention != RT_CONTENTION_EXACT && k < sizeof n->describe)
        snprintf(n->describe + k, sizeof n->describe - k, ", %s contention", rt_contention_name(n->p.contention));
    *out = n;
    return RT_OK;
fail:
    rt_network_destroy(n);
    return rc;
}

void rt_network_destroy(rt_network *n)
{
    if (!n)
        return;
    rt_mapping_destroy(n->map);
    rt_topology_destroy(n->topo);
    free(n->topo_spec);
    free(n->map_spec);
    free(n->perturb_spec);
    free(n->bg.used);
    free(n);
}

const char *rt_network_describe(const rt_network *n) { return n->describe; }
uint32_t rt_network_node(const rt_network *n, uint32_t rank) { return rt_mapping_node(n->map, rank); }
uint32_t rt_network_links(const rt_network *n) { return rt_topology_links(n->topo); }
const struct rt_network_params *rt_network_params_of(const rt_network *n) { return &n->p; }
const struct rt_topology *rt_network_topology(const rt_network *n) { return n->topo; }

const char *rt_network_link_name(const rt_network *n, uint32_t link, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    rt_topology_link_name(n->topo, link, buf, len);
    return buf;
}

/* ------------------------------------------------------------------ one replay's traffic */

/* Topology link id -> flow-model link. Up to LM_DIRECT topology links, a table indexed by link
 * id (calloc'ed: the pages of links never met are never touched); beyond, the project's hash map
 * (util/map.h) of the links met. */
#define LM_EMPTY UINT32_MAX
#define LM_DIRECT (UINT32_C(1) << 22)
struct linkmap {
    uint32_t *direct; /* NULL, or flow-model link + 1 per topology link (0: not met) */
    struct rt__map hash;
};

static uint32_t lm_get(const struct linkmap *m, uint32_t key)
{
    if (m->direct)
        return m->direct[key] - 1; /* 0 - 1 is LM_EMPTY */
    const uint64_t *v = rt__map_get(&m->hash, key, 0);
    return v ? (uint32_t)*v : LM_EMPTY;
}

/* Records @p key's flow-model link; 0 or -1 (out of memory, nothing changed). */
static int lm_put(struct linkmap *m, uint32_t key, uint32_t val)
{
    if (m->direct) {
        m->direct[key] = val + 1;
        return 0;
    }
    return rt__map_put(&m->hash, key, 0, val);
}

/* An ipp source in the heap of rt__netrun.bg_heap: its next message's time and its index. */
struct bg_ent {
    rt_time_ps t;
    uint32_t i;
};

/* An ipp source's chain: its own random stream, its state and its next draws, together (a
 * message reads and writes all of it: one cache miss among 10^5 sources, not four). */
struct bg_src {
    uint64_t rng;
    rt_time_ps sw, arrive; /* its next change of state; its next message while on */
    uint8_t on;
    uint8_t walking;       /* its heap time is where its chain's walk goes on, not a message (ipp_next) */
};

struct rt__netrun {
    const rt_network *net;
    struct rt__flownet *fn;
    double nic_cap, link_cap; /* B/ps */
    struct linkmap lmap;    /* topology link -> flow-model link, for the links met so far */
    uint32_t *topo_link;    /* per flow-model link: its topology link */
    uint32_t nmet, captopo, capuse; /* links met; room in topo_link and use */
    int use_zeroed;         /* use was calloc'ed for every link: a link met needs no zeroing */
    /* --contention none: no flows; per link met, its capacity and the end of its last message */
    int solo;
    struct solo_link {
        double cap;
        rt_time_ps busy_until;
    } *sl;
    uint32_t capsl;
    uint32_t *route;        /* room for the longest route */
    uint32_t *ahead[2], ahead_len[2]; /* a round's next two background routes (bg_round_send) */
    uint32_t *troute;       /* the same, for a route given back in topology link ids */
    rt_time_ps *lat;        /* per flow id: its latency after its last byte */
    uint32_t caplat;
    double shm_alpha_ps, shm_ps_per_byte; /* < 0: the model's wire time */
    double hop_ps;
    double pkt_nic_ps, pkt_link_ps; /* one packet's time on a NIC link and on a network link (0: no queues) */
    double *pkt_ps;         /* per flow-model link met: its packet time (with queues only) */
    uint32_t cappkt;
    double *qwait;          /* per route position: the message's wait in that link's queue [ps] */
    int in_order;           /* rt__netrun_set_in_order */
    int routes;             /* rt__netrun_set_routes: advance's callback gets each message's route */
    /* no background traffic and flows: a link's use is the flow model's own totals of it
     * (rt__flownet_link, the same sums in the same order), not summed again per message */
    int use_of_flows;
    /* advance's callback, passed through netflow's */
    rt__net_arrived *arrived;
    void *ud;
    uint64_t routed, local;
    struct rt_link_use *use; /* per flow-model link: the trace's messages (and background totals) */
    /* background traffic: this run's perturbing nodes and their sources */
    uint32_t nbg, *bg_node;
    uint64_t *bg_rng;        /* the rounds' one stream (bg_rng[nbg]) */
    struct bg_src *bg_src;   /* ipp: per source */
    rt_time_ps bg_next;      /* the next injection time (INT64_MAX: none) */
    uint64_t bg_round, bg_sent, bg_done; /* background messages started, and arrived */
    uint64_t bg_over;        /* on the wire when they last passed the pile-up mark (0: below it) */
    uint32_t *bg_perm;
    struct bg_ent *bg_heap;  /* ipp: every source by (its next message, index), the least first */
    int bg_dry;              /* rt_network_background_traffic: count messages, start no flows */
    int bg_dry_routes;       /* ... and add their routes' lengths to bg_links */
    uint64_t bg_links;
};

#define BG_USER RT__FLOW_APART /* a flow of background traffic: no message of the trace, counted
                                  per link by the flow model (rt__link_stats' apart_*) */
#define DOMAIN_PERTURB 0x50455254ull /* "PERT" */

int rt__netrun_create(const rt_network *net, double model_ns_per_byte, struct rt__netrun **out, rt_error *err)
{
    struct rt__netrun *n = calloc(1, sizeof *n);
    int rc = RT_OK;
    *out = NULL;
    if (!n)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    n->net = net;
    rt__map_init(&n->lmap.hash);
    double nic = net->p.nic_ns_per_byte > 0 ? net->p.nic_ns_per_byte : model_ns_per_byte;
    double link = net->p.link_ns_per_byte > 0 ? net->p.link_ns_per_byte : nic;
    if (!(nic > 0)) {
        rc = rt_error_set(err, RT_EINVAL, "network: the model moves bytes in no time (β = 0): give --nic-bw");
        goto fail;
    }
    n->nic_cap = 1.0 / (nic * 1e3);
    n->link_cap = 1.0 / (link * 1e3);
    size_t room = (size_t)rt_topology_max_route(net->topo) + 1;
    n->route = malloc(room * sizeof *n->route);
    int queues = net->p.packet_bytes > 0 && net->p.contention != RT_CONTENTION_NONE;
    if (queues) /* (a route's room per message: only with queues) */
        n->qwait = malloc(room * sizeof *n->qwait);
    n->troute = malloc(room * sizeof *n->troute);
    n->ahead[0] = malloc(room * sizeof *n->ahead[0]);
    n->ahead[1] = malloc(room * sizeof *n->ahead[1]);
    uint32_t nl = rt_topology_links(net->topo);
    if (nl <= LM_DIRECT && !(n->lmap.direct = calloc(nl ? nl : 1, sizeof *n->lmap.direct))) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto fail;
    }
    if (!n->route || (queues && !n->qwait) || !n->troute || !n->ahead[0] || !n->ahead[1] ||
        rt__flownet_create(0, NULL, &n->fn)) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto fail;
    }
    rt__flownet_set_full(n->fn, net->p.contention == RT_CONTENTION_EXACT_FULL);
    rt__flownet_set_fast(n->fn, net->p.contention == RT_CONTENTION_FAST);
    n->solo = net->p.contention == RT_CONTENTION_NONE;
    n->use_of_flows = !n->solo && !net->p.perturb;
    if (n->lmap.direct && nl > 0) {
        /* Room for every link of the topology at once, as its table has: the links met are then
         * never copied as more are met (a quarter of a replay whose background traffic meets a
         * whole machine's links), and room never met is address space only, never written. Without
         * the room (out of memory) the arrays grow as links are met. */
        if (rt__flownet_reserve_links(n->fn, nl) == RT_OK &&
            !rt__grow((void **)&n->topo_link, &n->captopo, sizeof *n->topo_link, nl) &&
            (n->use = calloc(nl, sizeof *n->use))) { /* zero, and untouched until written: the
                                                        use of a link only background crosses is never */
            n->capuse = nl;
            n->use_zeroed = 1;
            if (n->solo)
                (void)rt__grow((void **)&n->sl, &n->capsl, sizeof *n->sl, nl);
        }
    }
    n->bg_next = INT64_MAX;
    n->shm_alpha_ps = net->p.shm_alpha_ns < 0 ? -1 : net->p.shm_alpha_ns * 1e3;
    n->shm_ps_per_byte = net->p.shm_ns_per_byte < 0 ? -1 : net->p.shm_ns_per_byte * 1e3;
    n->hop_ps = net->p.hop_latency_ns * 1e3;
    if (!n->solo && net->p.packet_bytes > 0) { /* (without sharing there is no queue either) */
        n->pkt_nic_ps = net->p.packet_bytes / n->nic_cap;
        n->pkt_link_ps = net->p.packet_bytes / n->link_cap;
    }
    *out = n;
    return RT_OK;
fail:
    rt__netrun_destroy(n);
    return rc;
}

void rt__netrun_set_in_order(struct rt__netrun *n, int in_order) { n->in_order = in_order; }

void rt__netrun_set_routes(struct rt__netrun *n, int on) { n->routes = on; }

void rt__netrun_destroy(struct rt__netrun *n)
{
    if (!n)
        return;
    rt__flownet_destroy(n->fn);
    free(n->lmap.direct);
    rt__map_free(&n->lmap.hash);
    free(n->topo_link);
    free(n->sl);
    free(n->pkt_ps);
    free(n->qwait);
    free(n->route);
    free(n->troute);
    free(n->lat);
    free(n->use);
    free(n->bg_node);
    free(n->bg_rng);
    free(n->bg_src);
    free(n->ahead[0]);
    free(n->ahead[1]);
    free(n->bg_perm);
    free(n->bg_heap);
    free(n);
}

/* The load adaptive routing reads: the flows on a link now (none on a link not met yet). */
static uint32_t link_load(void *ctx, uint32_t link)
{
    const struct rt__netrun *n = ctx;
    uint32_t l = lm_get(&n->lmap, link);
    return l == LM_EMPTY ? 0 : rt__flownet_link_load(n->fn, l);
}

/* Turns the route in n->route (@p len topology links) into flow-model links in place, giving
 * each link met for the first time its place (and its capacity by its kind). RT_OK or RT_ENOMEM. */
static int meet_route(struct rt__netrun *n, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        uint32_t t = n->route[i], l = lm_get(&n->lmap, t);
        if (l == LM_EMPTY) {
            struct rt_link_info li;
            rt_topology_link(n->net->topo, t, &li);
            double cap = li.kind == RT_LINK_NET ? n->link_cap : n->nic_cap;
            if (rt__grow((void **)&n->topo_link, &n->captopo, sizeof *n->topo_link, n->nmet + 1) ||
                rt__grow((void **)&n->use, &n->capuse, sizeof *n->use, n->nmet + 1) ||
                (n->solo && rt__grow((void **)&n->sl, &n->capsl, sizeof *n->sl, n->nmet + 1)) ||
                rt__flownet_add_link(n->fn, cap, t, &l))
                return RT_ENOMEM;
            if (n->solo)
                n->sl[l] = (struct solo_link){cap, INT64_MIN};
            if (n->pkt_nic_ps != 0) {
                if (rt__grow((void **)&n->pkt_ps, &n->cappkt, sizeof *n->pkt_ps, l + 1))
                    return RT_ENOMEM;
                n->pkt_ps[l] = li.kind == RT_LINK_NET ? n->pkt_link_ps : n->pkt_nic_ps;
            }
            if (lm_put(&n->lmap, t, l))
                return RT_ENOMEM; /* the flow model holds a link no route names: harmless */
            n->topo_link[l] = t;
            if (!n->use_zeroed)
                memset(&n->use[l], 0, sizeof n->use[l]);
            n->nmet++;
        }
        n->route[i] = l;
    }
    return RT_OK;
}

/* --contention none: the message of @p m bytes starting at @p t over the route in n->route (@p len
 * flow-model links) takes the least of its own rate and its links' capacities, as the flow model
 * gives a flow alone on its links (to the bit: the same rate and rounding). Each link counts it
 * and its busy time (the union of its messages' times: starts come in time order). Returns the
 * time its last byte leaves. */
static rt_time_ps solo_send(struct rt__netrun *n, uint32_t len, rt_bytes m, rt_time_ps t, double rate)
{
    for (uint32_t i = 0; i < len; i++)
        rate = n->sl[n->route[i]].cap < rate ? n->sl[n->route[i]].cap : rate;
    rt_time_ps end = t + rt__flownet_duration((double)m, rate);
    for (uint32_t i = 0; i < len; i++) {
        struct rt_link_use *u = &n->use[n->route[i]];
        struct solo_link *s = &n->sl[n->route[i]];
        u->flows++;
        u->bytes += (double)m;
        if (end > s->busy_until) {
            u->busy_ps += end - (t > s->busy_until ? t : s->busy_until);
            s->busy_until = end;
        }
    }
    return end;
}

/* The queue ahead of a message's first packet (--mtu): at each link of its route, one packet of
 * each flow on it now (round-robin arbitration between the flows, a packet at a time), each taking
 * the link's packet time; n->qwait[i] for route position i, the sum returned. The message's own
 * bytes then share the links max-min fairly as before: this is the wait of its head, which a
 * message of a packet or less would otherwise not see at all. @p mapped: n->route holds flow-model
 * links (meet_route), else the topology's. */
static rt_time_ps queue_wait(struct rt__netrun *n, uint32_t len, int mapped)
{
    double w = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t k = mapped ? rt__flownet_link_load(n->fn, n->route[i]) : link_load(n, n->route[i]);
        double q = 0;
        if (k) {
            double pkt = mapped ? n->pkt_ps[n->route[i]] : 0;
            if (!mapped) {
                struct rt_link_info li;
                rt_topology_link(n->net->topo, n->route[i], &li);
                pkt = li.kind == RT_LINK_NET ? n->pkt_link_ps : n->pkt_nic_ps;
            }
            q = (double)k * pkt;
        }
        n->qwait[i] = q;
        w += q;
    }
    return (rt_time_ps)llround(w);
}

/* The part of rt__netrun_send that shares links: the message's bytes over the route in n->route
 * (@p len links), then @p lat. */
static int route_flow(struct rt__netrun *n, uint32_t len, rt_bytes m, rt_time_ps t, rt_time_ps byte_ps, uint64_t user,
                      rt_time_ps lat, rt_time_ps *arrive)
{
    if (meet_route(n, len))
        return RT_ENOMEM;
    if (n->solo) {
        *arrive = solo_send(n, len, m, t, (double)m / (double)byte_ps) + lat;
        return 0;
    }
    uint32_t id;
    rt_time_ps queued = n->pkt_nic_ps != 0 ? queue_wait(n, len, 1) : 0;
    if (rt__flownet_start(n->fn, t, n->route, len, (double)m, (double)m / (double)byte_ps, user, &id))
        return RT_ENOMEM;
    if (queued) { /* charged to the links it queued at, as congestion */
        lat += queued;
        for (uint32_t i = 0; i < len; i++)
            if (n->qwait[i] != 0)
                rt__flownet_add_delay(n->fn, id, i, n->qwait[i]);
    }
    if (id >= n->caplat && rt__grow((void **)&n->lat, &n->caplat, sizeof *n->lat, id + 1))
        return RT_ENOMEM;
    n->lat[id] = lat;
    return 1;
}

rt_time_ps rt__netrun_shm_latency(const struct rt__netrun *n)
{
    /* (rt__netrun_send: t + llround(alpha + per byte), never below alpha's integer part) */
    return n->shm_alpha_ps < 0 ? INT64_MAX : (rt_time_ps)floor(n->shm_alpha_ps);
}

int rt__netrun_send(struct rt__netrun *n, uint32_t src, uint32_t dst, rt_bytes m, rt_time_ps t, rt_time_ps wire,
                    rt_time_ps byte_ps, uint64_t user, rt_time_ps *arrive)
{
    const rt_network *net = n->net;
    uint32_t a = rt_mapping_node(net->map, src), b = rt_mapping_node(net->map, dst);
    if (a == b) { /* shared memory */
        n->local++;
        if (n->shm_alpha_ps < 0 && n->shm_ps_per_byte < 0) {
            *arrive = t + wire;
            return 0;
        }
        double lat = n->shm_alpha_ps < 0 ? (double)(wire - byte_ps) : n->shm_alpha_ps;
        double per = n->shm_ps_per_byte < 0 ? (m ? (double)byte_ps / (double)m : 0) : n->shm_ps_per_byte;
        *arrive = t + (rt_time_ps)llround(lat + per * (double)m);
        return 0;
    }
    int shares = m != 0 && byte_ps > 0;
    rt_time_ps lat = wire - byte_ps;
    n->routed++;
    if (shares || n->hop_ps != 0 || n->pkt_nic_ps != 0) { /* (an empty message's route: its hops and queues) */
        uint32_t len = rt_topology_route_load(net->topo, a, b, user, link_load, n, n->route);
        if (n->hop_ps != 0) /* (no libm call per message without a hop latency) */
            lat += (rt_time_ps)llround(n->hop_ps * (double)(len ? len - 1 : 0));
        if (n->in_order && len > 0) { /* the receive port is the engine's (rt__netrun_set_in_order) */
            struct rt_link_info li;
            rt_topology_link(net->topo, n->route[len - 1], &li);
            len -= li.kind == RT_LINK_EJECT;
        }
        if (shares)
            return route_flow(n, len, m, t, byte_ps, user, lat, arrive);
        if (n->pkt_nic_ps != 0) /* an empty message is a packet too: it queues (not charged to links) */
            lat += queue_wait(n, len, 0);
    }
    *arrive = t + lat; /* nothing to share: latency only */
    return 0;
}

rt_time_ps rt__netrun_next(struct rt__netrun *n)
{
    return rt__flownet_next(n->fn);
}

static void flow_done(void *ud, const struct rt__flow_done *f)
{
    struct rt__netrun *n = ud;
    if (f->user & BG_USER) {
        n->bg_done += f->n > 0;
        return;
    }
    for (uint32_t i = 0; !n->use_of_flows && i < f->n; i++) {
        struct rt_link_use *u = &n->use[f->links[i]];
        u->flows++;
        u->bytes += f->bytes;
        u->delay_ps += f->delay_ps[i];
    }
    if (!n->routes) {
        n->arrived(n->ud, f->user, f->finish + n->lat[f->id], 0, NULL, NULL);
        return;
    }
    for (uint32_t i = 0; i < f->n; i++)
        n->troute[i] = n->topo_link[f->links[i]];
    n->arrived(n->ud, f->user, f->finish + n->lat[f->id], f->n, n->troute, f->delay_ps);
}

int rt__netrun_advance(struct rt__netrun *n, rt_time_ps t, rt__net_arrived *arrived, void *ud)
{
    n->arrived = arrived;
    n->ud = ud;
    return rt__flownet_advance(n->fn, t, flow_done, n);
}

static int use_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct rt_link_use *)a)->link, y = ((const struct rt_link_use *)b)->link;
    return x < y ? -1 : x > y;
}

/* The trace's messages over flow-model link @p l (see use_of_flows). */
static struct rt_link_use link_use(const struct rt__netrun *n, uint32_t l)
{
    if (!n->use_of_flows)
        return n->use[l];
    const struct rt__link_stats *s = rt__flownet_link(n->fn, l);
    return (struct rt_link_use){.flows = s->done, .bytes = s->bytes, .delay_ps = s->delay_ps};
}

int rt__netrun_links(const struct rt__netrun *n, struct rt_link_use **out, uint32_t *count, rt_time_ps *delay)
{
    uint32_t k = 0;
    double total = 0;
    *out = NULL;
    *count = 0;
    for (uint32_t l = 0; l < n->nmet; l++)
        k += link_use(n, l).flows != 0;
    struct rt_link_use *v = calloc(k ? k : 1, sizeof *v);
    if (!v)
        return RT_ENOMEM;
    k = 0;
    for (uint32_t l = 0; l < n->nmet; l++) { /* the links the trace's messages used */
        const struct rt__link_stats *s = rt__flownet_link(n->fn, l);
        struct rt_link_use u = link_use(n, l);
        if (!u.flows)
            continue;
        v[k] = u;
        v[k].link = n->topo_link[l];
        v[k].bg_flows = s->apart_flows; /* in the same order as flow_done would have added them */
        v[k].bg_bytes = s->apart_bytes;
        if (!n->solo) { /* (with none: busy_ps is the use's own, and nothing shares a link) */
            v[k].max_flows = s->max_flows;
            v[k].busy_ps = s->busy_ps;
        } else {
            v[k].max_flows = 1;
        }
        k++;
    }
    if (k > 1) /* by topology link id, as always */
        qsort(v, k, sizeof *v, use_cmp);
    for (uint32_t i = 0; i < k; i++) /* summed in that order: the same total to the bit */
        total += v[i].delay_ps;
    *out = v;
    *count = k;
    *delay = (rt_time_ps)llround(total);
    return RT_OK;
}

void rt__netrun_counts(const struct rt__netrun *n, uint64_t *routed, uint64_t *local, uint64_t *recomputed)
{
    *routed = n->routed;
    *local = n->local;
    *recomputed = rt__flownet_filled(n->fn);
}

/* ------------------------------------------------------------------ background traffic */

/* An exponential draw of rate @p per_ps (at least 1 ps). */
static rt_time_ps draw_exp(uint64_t *st, double per_ps)
{
    double u = rt_rng_uniform(st);
    double x = -log(1.0 - u) / per_ps;
    return x < 1 ? 1 : x > 4e18 ? (rt_time_ps)4e18 : (rt_time_ps)llround(x);
}

/* An ipp source sends nothing from this time on (about 46 days of predicted time), and no chain
 * changes state past it: its times, each at most this plus one draw, stay below INT64_MAX. */
#define BG_HORIZON_PS ((rt_time_ps)4000000000000000000LL)

/* Changes of state an ipp source's chain takes in one go; past them its walk goes on at its next
 * change, as an event of its own (struct bg_src.walking): a source that sends rarely and switches
 * often (rate=1e-300/us, sigma1=sigma2=1/us) is walked as far as the replay goes, not to the
 * horizon, and the work is the switches the estimate counts (rt_network_background_switch_rate). */
#define BG_WALK 256

/* Takes ipp source @p s's changes of state up to its next message and returns that message's time
 * (INT64_MAX: none before BG_HORIZON_PS), or after BG_WALK of them the time its walk goes on
 * (s->walking set). A source's draws come from its own stream only, so taking its changes of state
 * here, ahead of the other sources' events, draws exactly what taking each in time order did: the
 * chain's switches need no event of their own, and the heap holds messages (a third of the events
 * at sigma1 = sigma2 = rate) and the walks of sources that switch far more often than they send. */
static rt_time_ps ipp_next(const struct perturb *b, struct bg_src *s)
{
    s->walking = 0;
    for (unsigned steps = 0; !(s->on && s->arrive < s->sw); steps++) { /* the chain changes state at s->sw */
        rt_time_ps t = s->sw;
        if (t >= BG_HORIZON_PS)
            return INT64_MAX;
        if (steps == BG_WALK) {
            s->walking = 1;
            return t;
        }
        s->on = !s->on;
        s->sw = t + draw_exp(&s->rng, s->on ? b->sigma1_per_ps : b->sigma2_per_ps);
        if (s->on)
            s->arrive = t + draw_exp(&s->rng, b->rate_per_ps);
    }
    return s->arrive < BG_HORIZON_PS ? s->arrive : INT64_MAX;
}

/* The ipp sources are kept in a heap by (next message, index): sources due at one time are taken
 * in ascending index, as a scan of all sources per event took them (the order that numbers the
 * messages), at O(log k) per message instead of O(k): with 10^4 sources the scan was 90 % of a
 * replay (bench/network.sh, "perturbation at scale"). Only the root's key ever changes (it grows),
 * so sifting down is all it needs. */
static inline int bg_less(const struct bg_ent *a, const struct bg_ent *b)
{
    return a->t < b->t || (a->t == b->t && a->i < b->i);
}

static void bg_sift_down(struct bg_ent *h, uint32_t k, uint32_t i)
{
    struct bg_ent e = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= k)
            break;
        if (c + 1 < k && bg_less(&h[c + 1], &h[c]))
            c++;
        if (!bg_less(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static void bg_update_next(struct rt__netrun *n)
{
    const struct perturb *b = &n->net->bg;
    if (b->pattern != PAT_IPP) {
        n->bg_next = (rt_time_ps)llround((double)n->bg_round * b->interval_ps);
        return;
    }
    n->bg_next = n->nbg ? n->bg_heap[0].t : INT64_MAX;
}

int rt__netrun_perturb_start(struct rt__netrun *n, uint64_t seed, uint64_t run)
{
    const struct perturb *b = &n->net->bg;
    if (!b->on)
        return RT_OK;
    uint32_t k = b->count;
    n->nbg = k;
    n->bg_node = malloc(k * sizeof *n->bg_node);
    n->bg_perm = malloc(k * sizeof *n->bg_perm);
    n->bg_rng = malloc((size_t)(k + 1) * sizeof *n->bg_rng);
    if (!n->bg_node || !n->bg_perm || !n->bg_rng)
        return RT_ENOMEM;
    /* This run's perturbing nodes: k of the free ones, a partial Fisher-Yates shuffle of the free
     * nodes in ascending order. Only the places it swapped into are kept (a hash of place to
     * node; a place not in it holds its own free node), so a run costs O(k), not O(machine). */
    struct rt__map pool;
    rt__map_init(&pool);
    uint64_t st = rt_rng_stream(seed ^ DOMAIN_PERTURB, run, 0);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t j = i + (uint32_t)(rt_rng_uniform(&st) * (double)(b->nfree - i));
        j = j < b->nfree ? j : b->nfree - 1;
        uint64_t *pi = rt__map_get(&pool, i, 0), *pj = rt__map_get(&pool, j, 0);
        uint32_t xi = pi ? (uint32_t)*pi : free_node(b, i), xj = pj ? (uint32_t)*pj : free_node(b, j);
        n->bg_node[i] = xj;
        if (j != i && rt__map_put(&pool, j, 0, xi)) { /* place i is never read again */
            rt__map_free(&pool);
            return RT_ENOMEM;
        }
    }
    rt__map_free(&pool);
    for (uint32_t i = 0; i <= k; i++)
        n->bg_rng[i] = rt_rng_stream(seed ^ DOMAIN_PERTURB, run, 1 + (uint64_t)i);
    if (b->pattern == PAT_IPP) {
        n->bg_src = malloc(k * sizeof *n->bg_src);
        n->bg_heap = malloc(k * sizeof *n->bg_heap);
        if (!n->bg_src || !n->bg_heap)
            return RT_ENOMEM;
        double p_on = b->sigma2_per_ps / (b->sigma1_per_ps + b->sigma2_per_ps); /* the chain's stationary share */
        for (uint32_t i = 0; i < k; i++) {
            struct bg_src *s = &n->bg_src[i];
            s->rng = n->bg_rng[i];
            s->on = rt_rng_uniform(&s->rng) < p_on;
            s->sw = draw_exp(&s->rng, s->on ? b->sigma1_per_ps : b->sigma2_per_ps);
            s->arrive = draw_exp(&s->rng, b->rate_per_ps);
            n->bg_heap[i] = (struct bg_ent){ipp_next(b, s), i};
        }
        for (uint32_t i = k / 2; i-- > 0;)
            bg_sift_down(n->bg_heap, k, i);
    }
    n->bg_round = 0;
    bg_update_next(n);
    return RT_OK;
}

rt_time_ps rt__netrun_perturb_next(const struct rt__netrun *n)
{
    return n->nbg ? n->bg_next : INT64_MAX;
}

/* A uniformly random perturber other than @p i of @p k, drawn from stream @p st. */
static uint32_t bg_other(uint64_t *st, uint32_t k, uint32_t i)
{
    uint32_t j = (uint32_t)(rt_rng_uniform(st) * (double)(k - 1));
    j = j < k - 1 ? j : k - 2;
    return j >= i ? j + 1 : j;
}

/* A background message from perturber @p i to perturber @p j at @p t. */
static int bg_send(struct rt__netrun *n, uint32_t i, uint32_t j, rt_time_ps t)
{
    uint32_t a = n->bg_node[i], b = n->bg_node[j];
    uint64_t user = BG_USER | n->bg_sent++;
    uint32_t len = n->bg_dry && !n->bg_dry_routes ? 0 : rt_topology_route_load(n->net->topo, a, b, user, link_load, n,
                                                                                 n->route);
    if (n->bg_dry) { /* counted, arrived at once */
        n->bg_done++;
        n->bg_links += len;
        return RT_OK;
    }
    if (meet_route(n, len))
        return RT_ENOMEM;
    /* no limit of its own: its NIC links, the first and last of its route, hold it to a NIC's rate */
    return rt__flownet_start(n->fn, t, n->route, len, n->net->bg.size, 1e300, user, NULL) ? RT_ENOMEM : RT_OK;
}

/* A round's message @p i: from perturber *@p a to perturber *@p b (bg_perm: a cycle, or the one
 * each sends to). */
static void bg_round_pair(const struct rt__netrun *n, int cycle, uint32_t i, uint32_t *a, uint32_t *b)
{
    *a = cycle ? n->bg_perm[i] : i;
    *b = cycle ? n->bg_perm[(i + 1) % n->nbg] : n->bg_perm[i];
}

/* Starts a round's messages at @p t, one per perturber in order. A round starts 10^5 flows over a
 * whole machine at once, each link a likely cache miss: the route of the message two ahead is
 * computed and its topology-to-model entries fetched, and the flow-model links of the next one, so
 * that these misses overlap with the current message's work. The routes ahead are hints only
 * (an adaptive route may differ when the message leaves; it is computed again then): prefetches
 * change no result. */
static int bg_round_send(struct rt__netrun *n, int cycle, rt_time_ps t)
{
    uint32_t k = n->nbg, a, b;
    int ahead = !n->bg_dry && n->lmap.direct;
    for (uint32_t i = 0; i < k; i++) {
        if (ahead && i + 2 < k) {
            uint32_t *r = n->ahead[i % 2];
            bg_round_pair(n, cycle, i + 2, &a, &b);
            n->ahead_len[i % 2] = rt_topology_route_load(n->net->topo, n->bg_node[a], n->bg_node[b],
                                                         BG_USER | (n->bg_sent + 2), link_load, n, r);
            for (uint32_t x = 0; x < n->ahead_len[i % 2]; x++)
                __builtin_prefetch(&n->lmap.direct[r[x]]);
        }
        if (ahead && i + 1 < k && i >= 1) { /* the route computed one message ago */
            const uint32_t *r = n->ahead[(i + 1) % 2];
            for (uint32_t x = 0; x < n->ahead_len[(i + 1) % 2]; x++) {
                uint32_t l = lm_get(&n->lmap, r[x]);
                if (l != LM_EMPTY)
                    rt__flownet_prefetch_link(n->fn, l);
            }
        }
        bg_round_pair(n, cycle, i, &a, &b);
        if (bg_send(n, a, b, t))
            return RT_ENOMEM;
    }
    return RT_OK;
}

int rt__netrun_perturb_fire(struct rt__netrun *n, rt_time_ps t)
{
    const struct perturb *b = &n->net->bg;
    uint32_t k = n->nbg;
    if (t != n->bg_next)
        return RT_OK;
    /* The links are overloaded when the pile grows without bound (network_internal.h; checked
     * when messages leave, the only times it grows). */
    uint64_t wire = n->bg_sent - n->bg_done, mark = (uint64_t)RT_NET_BG_MAX_PER_NODE * k + RT_NET_BG_MAX_SLACK;
    if (wire <= mark)
        n->bg_over = 0;
    else if (!n->bg_over)
        n->bg_over = wire;
    else if (wire >= RT_NET_BG_GROWTH * n->bg_over)
        return RT_ERANGE;
    if (b->pattern == PAT_IPP) {
        while (n->bg_heap[0].t == t) { /* the sources due now, by index */
            uint32_t i = n->bg_heap[0].i;
            struct bg_src *s = &n->bg_src[i];
            if (!s->walking) { /* (a walk only goes on) */
                if (bg_send(n, i, bg_other(&s->rng, k, i), t))
                    return RT_ENOMEM;
                s->arrive = t + draw_exp(&s->rng, b->rate_per_ps);
            }
            n->bg_heap[0].t = ipp_next(b, s);
            bg_sift_down(n->bg_heap, k, 0);
        }
        __builtin_prefetch(&n->bg_src[n->bg_heap[0].i], 1); /* the next source due: a miss among 10^5 */
    } else {
        uint64_t *st = &n->bg_rng[k];
        if (b->pattern == PAT_PERM) { /* a random cycle through all: each sends to one, receives from one */
            for (uint32_t i = 0; i < k; i++)
                n->bg_perm[i] = i;
            for (uint32_t i = k - 1; i > 0; i--) {
                uint32_t j = (uint32_t)(rt_rng_uniform(st) * (double)(i + 1));
                j = j <= i ? j : i;
                uint32_t x = n->bg_perm[i];
                n->bg_perm[i] = n->bg_perm[j];
                n->bg_perm[j] = x;
            }
        } else { /* each to a random other: bg_perm[i] the one i sends to, the draws in order */
            for (uint32_t i = 0; i < k; i++)
                n->bg_perm[i] = bg_other(st, k, i);
        }
        if (bg_round_send(n, b->pattern == PAT_PERM, t))
            return RT_ENOMEM;
        n->bg_round++;
    }
    bg_update_next(n);
    return RT_OK;
}

double rt_network_background_rate(const rt_network *net, double model_ns_per_byte, double *nic_load)
{
    const struct perturb *b = &net->bg;
    *nic_load = 0;
    if (!b->on || !b->count)
        return 0;
    double per_node_per_ps; /* messages each perturbing node sends per ps */
    if (b->pattern == PAT_IPP)
        per_node_per_ps = b->rate_per_ps * b->sigma2_per_ps / (b->sigma1_per_ps + b->sigma2_per_ps);
    else
        per_node_per_ps = 1.0 / b->interval_ps;
    double nic = net->p.nic_ns_per_byte > 0 ? net->p.nic_ns_per_byte : model_ns_per_byte;
    /* the share of its NIC link's time each perturber's messages need: over 1, they pile up */
    *nic_load = per_node_per_ps * 1e3 * b->size * nic;
    return per_node_per_ps * 1e3 * b->count;
}

double rt_network_background_route(const rt_network *net, uint32_t *longest)
{
    *longest = 0;
    uint32_t nodes = rt_topology_nodes(net->topo);
    if (!net->bg.on || !net->bg.count || nodes < 2)
        return 0;
    uint32_t *links = malloc(((size_t)rt_topology_max_route(net->topo) + 1) * sizeof *links);
    if (!links)
        return HUGE_VAL;
    uint64_t st = rt_rng_stream(DOMAIN_PERTURB, 0x524f555445ull /* "ROUTE" */, 0);
    double sum = 0;
    int n = 0;
    for (int i = 0; i < 64; i++) {
        uint32_t a = (uint32_t)(rt_rng_uniform(&st) * nodes), b = (uint32_t)(rt_rng_uniform(&st) * nodes);
        if (a >= nodes || b >= nodes || a == b)
            continue;
        uint32_t l = rt_topology_route(net->topo, a, b, 0, links);
        sum += l;
        n++;
        if (l > *longest)
            *longest = l;
    }
    free(links);
    return n ? sum / n : 0;
}

double rt_network_background_switch_rate(const rt_network *net)
{
    const struct perturb *b = &net->bg;
    if (!b->on || !b->count || b->pattern != PAT_IPP)
        return 0;
    /* a two-state chain leaving on at sigma1 and off at sigma2 changes state 2 s1 s2 / (s1 + s2)
     * times per unit of time */
    double s1 = b->sigma1_per_ps, s2 = b->sigma2_per_ps, hi = s1 > s2 ? s1 : s2, lo = s1 > s2 ? s2 : s1;
    double r = 2 * lo * (hi / (hi + lo)) * 1e3 * b->count; /* (no overflow before the last products) */
    return isfinite(r) ? r : HUGE_VAL;
}

int rt_network_background_traffic(const rt_network *net, uint64_t seed, uint64_t run, int64_t until_ps,
                                  uint64_t *messages, uint64_t *links)
{
    struct rt__netrun *n;
    int rc;
    *messages = 0;
    if (links)
        *links = 0;
    if (!net->bg.on)
        return RT_OK;
    if (rt__netrun_create(net, 1, &n, NULL)) /* a NIC bandwidth that starts no flow is harmless */
        return RT_ENOMEM;
    n->bg_dry = 1;
    n->bg_dry_routes = links != NULL;
    rc = rt__netrun_perturb_start(n, seed, run);
    for (rt_time_ps t; !rc && (t = rt__netrun_perturb_next(n)) <= until_ps;)
        rc = rt__netrun_perturb_fire(n, t);
    *messages = n->bg_sent;
    if (links)
        *links = n->bg_links;
    rt__netrun_destroy(n);
    return rc;
}

int rt_network_background_messages(const rt_network *net, uint64_t seed, uint64_t run, int64_t until_ps,
                                   uint64_t *count)
{
    return rt_network_background_traffic(net, seed, run, until_ps, count, NULL);
}

uint64_t rt__netrun_bg_on_wire(const struct rt__netrun *n)
{
    return n->bg_sent - n->bg_done;
}
