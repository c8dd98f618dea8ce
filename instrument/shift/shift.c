/* SPDX-License-Identifier: MIT */
/* Plimpton's Shift halo exchange on a periodic 1D ring or 3D torus, timed and verified, with the
 * closed-form Hockney prediction of the Shift paper (000_7e9d5dd1e6b01527, eq. 1-3).
 *
 * Every rank owns one box of m1 bytes. In dimension d (x, y, z) it exchanges with its two ring
 * neighbours k times in each direction, forwarding what it received (daisy chaining), so that
 * afterwards it holds the 2k+1 blocks of that ring line; the next dimension forwards the whole
 * accumulated buffer, hence m_d = (2k+1)^(d-1) * m1 (eq. 2).
 *
 * Every received byte is checked against the box it must come from ("verification: passed") and
 * hashed into a checksum of the run ("checksum: ..."), which depends only on the options and
 * the rank count, so runs with and without the tracer can be compared exactly.
 *
 * Predictions with T(m) = alpha + beta * m:
 *   ssend (MPI_Ssend/MPI_Recv, even/odd phases, a rank never sends and receives at once):
 *     t = sum_d 4k * T(m_d)    (1D: eq. 1 times two; 3D: eq. 3)
 *   isend (per hop Irecv left+right, Isend right+left, one Waitall, both directions overlap):
 *     t = sum_d 2k * T(m_d)    (eq. 2)
 *
 * --algorithm team-shift --team C (Driscoll et al. 2013, the Shift paper's §2.3; derivation in
 * docs/team-shift.md): the P ranks form T = P/C teams of C members (rank = team*C + member), the
 * teams lie on the ring or torus instead of the ranks, and each team owns one box. Per dimension,
 * with MPI_Ssend/MPI_Recv only:
 *   1. team broadcast: the leader (member 0) sends the team's block to its members (binomial tree);
 *   2. tilt: member j collects the window offsets o in [-k, k] with o = j + b (mod C), b = k mod C;
 *      unless its class holds offset 0 (its own block), it first fetches its first offset directly;
 *   3. shift: then it daisy-chains in steps of C teams, one direction only, wrapping once around
 *      the cut-off window (from its largest offset to its most negative one);
 *   4. team reduce: a binomial gather of every member's blocks (M blocks each, padded) to the
 *      leader, which then holds all 2k+1 blocks, the same buffer as Shift's.
 * With M = ceil((2k+1)/C) - [C divides k] and q = ceil(log2 C), the leader (the last to finish):
 *     t = sum_d q*T(m_d) + 2M*T(m_d) + sum_{i<q} T(min(2^i, C-2^i) * M * m_d)
 * which for C = 1 is Shift's sum_d 4k*T(m_d): the same messages but one, the wrap, whose block the
 * Shift gets from the other side. Statistics are over the team leaders (a team's iteration ends
 * at its leader); every rank verifies every byte it holds.
 */
#include "retime/region.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIFT_MAX_BYTES (1ull << 30)

enum shift_mode { SHIFT_SSEND, SHIFT_ISEND };
enum shift_algo { ALGO_SHIFT, ALGO_TEAM };

struct shift_opts {
    int dims;           /* 1 or 3 */
    int grid[3];        /* extents, x fastest; 0 = choose with MPI_Dims_create */
    int k;
    uint64_t m1;
    enum shift_mode mode;
    enum shift_algo algo;
    int team;           /* team size C of team-shift (1 for shift) */
    int iters, warmup;
    double alpha_ns, beta_ns_per_byte;
    int have_alpha, have_beta;
};

struct shift_ctx {
    struct shift_opts o;
    int rank, size;
    int coord[3];
    uint64_t unit[3];      /* message size m_d of dimension d */
    unsigned char *buf[3]; /* (2k+1) * unit[d] bytes: slot k holds the own accumulated data */
    int iter_tag;          /* iteration number folded into the test data */
    /* team-shift: this rank is member `member` of team `tid`; coord[] are the team's coordinates
     * on the team grid (o.grid); nteams = size / team. */
    int tid, member, nteams;
    int hops;              /* M: slots per member in the gather */
    unsigned char *pack;   /* the gather's send/receive buffer: team * M * unit[dims-1] bytes */
};

/* --- option parsing --------------------------------------------------------------------- */

static char shift_err[256];

static int shift_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(shift_err, sizeof shift_err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Time with a unit (ns, us, ms, s) into nanoseconds. */
static int parse_time_unit(const char *u, double *scale)
{
    if (!strcmp(u, "ns"))
        *scale = 1.0;
    else if (!strcmp(u, "us"))
        *scale = 1e3;
    else if (!strcmp(u, "ms"))
        *scale = 1e6;
    else if (!strcmp(u, "s"))
        *scale = 1e9;
    else
        return -1;
    return 0;
}

static int parse_size_unit(const char *u, double *bytes)
{
    static const struct {
        const char *name;
        double bytes;
    } units[] = {{"B", 1.0},      {"KB", 1e3},           {"MB", 1e6},
                 {"GB", 1e9},     {"KiB", 1024.0},       {"MiB", 1048576.0},
                 {"GiB", 1073741824.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(u, units[i].name)) {
            *bytes = units[i].bytes;
            return 0;
        }
    return -1;
}

static int parse_alpha(const char *s, double *ns)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double scale;
    if (end == s || errno || !isfinite(v) || v < 0 || parse_time_unit(end, &scale) != 0)
        return shift_fail("bad --alpha '%s' (want a time such as 2.122us; units ns, us, ms, s)", s);
    *ns = v * scale;
    return 0;
}

static int parse_beta(const char *s, double *ns_per_byte)
{
    char *end, unit[16];
    errno = 0;
    double v = strtod(s, &end);
    const char *slash = strchr(end, '/');
    double tscale, bytes;
    if (end == s || errno || !isfinite(v) || v < 0 || !slash || (size_t)(slash - end) >= sizeof unit)
        goto bad;
    memcpy(unit, end, (size_t)(slash - end));
    unit[slash - end] = 0;
    if (parse_time_unit(unit, &tscale) != 0 || parse_size_unit(slash + 1, &bytes) != 0)
        goto bad;
    *ns_per_byte = v * tscale / bytes;
    return 0;
bad:
    return shift_fail("bad --beta '%s' (want time per size such as 0.7595ns/B or 0.76us/KB)", s);
}

static int parse_int(const char *s, const char *opt, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return shift_fail("bad %s '%s' (want an integer in [%ld, %ld])", opt, s, lo, hi);
    *out = v;
    return 0;
}

static int parse_grid(const char *s, int grid[3], int *n)
{
    *n = 0;
    const char *p = s;
    while (*n < 3) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 1 << 20)
            break;
        grid[(*n)++] = (int)v;
        if (*end == 0)
            return 0;
        if (*end != 'x')
            break;
        p = end + 1;
    }
    return shift_fail("bad --grid '%s' (want X, or XxYxZ such as 4x4x4)", s);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shift [--dims 1|3] [--grid X|XxYxZ] [--k K] [--m1 BYTES] [--mode ssend|isend]\n"
            "             [--algorithm shift|team-shift] [--team C]\n"
            "             [--iters N] [--warmup W] [--alpha TIME --beta TIME/SIZE]\n"
            "Plimpton's Shift on a periodic ring (1D) or torus (3D); prints the iteration time\n"
            "statistics over all ranks and iterations and, with --alpha/--beta, the Hockney\n"
            "prediction (1D ssend 4k*T(m1); 3D ssend sum_d 4k*T(m_d); isend sum_d 2k*T(m_d)).\n"
            "--algorithm team-shift (or --mode team-shift) runs Team Shift with teams of C ranks\n"
            "(ssend only; --grid is then the grid of the P/C teams); statistics over the team\n"
            "leaders, prediction sum_d q*T(m_d) + 2M*T(m_d) + sum_{i<q} T(min(2^i,C-2^i)*M*m_d),\n"
            "q = ceil(log2 C), M = ceil((2k+1)/C) - [C divides k] (docs/team-shift.md).\n");
}

/* Returns 0 on success, 1 for --help, -1 with shift_err set on a bad option. */
static int parse_opts(int argc, char **argv, struct shift_opts *o)
{
    *o = (struct shift_opts){.dims = 1, .k = 1, .m1 = 1000, .mode = SHIFT_SSEND, .algo = ALGO_SHIFT,
                             .team = 1, .iters = 10, .warmup = 2};
    int team_given = 0;
    int grid_n = 0, dims_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char name[32];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        if (strncmp(a, "--", 2) != 0)
            return shift_fail("unexpected argument '%s'", a);
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name)
            return shift_fail("unknown option '%s'", a);
        memcpy(name, a, nlen);
        name[nlen] = 0;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else
            return shift_fail("option %s needs a value", name);
        long n;
        if (!strcmp(name, "--dims")) {
            if (parse_int(v, name, 1, 3, &n) || n == 2)
                return shift_fail("bad --dims '%s' (want 1 or 3)", v);
            o->dims = (int)n;
            dims_given = 1;
        } else if (!strcmp(name, "--grid")) {
            if (parse_grid(v, o->grid, &grid_n))
                return -1;
        } else if (!strcmp(name, "--k")) {
            if (parse_int(v, name, 1, 1000, &n))
                return -1;
            o->k = (int)n;
        } else if (!strcmp(name, "--m1")) {
            if (parse_int(v, name, 0, 1L << 30, &n))
                return -1;
            o->m1 = (uint64_t)n;
        } else if (!strcmp(name, "--mode")) {
            if (!strcmp(v, "ssend"))
                o->mode = SHIFT_SSEND;
            else if (!strcmp(v, "isend"))
                o->mode = SHIFT_ISEND;
            else if (!strcmp(v, "team-shift")) /* shorthand: Team Shift, which runs on ssend */
                o->mode = SHIFT_SSEND, o->algo = ALGO_TEAM;
            else
                return shift_fail("bad --mode '%s' (want ssend, isend or team-shift)", v);
        } else if (!strcmp(name, "--algorithm")) {
            if (!strcmp(v, "shift"))
                o->algo = ALGO_SHIFT;
            else if (!strcmp(v, "team-shift"))
                o->algo = ALGO_TEAM;
            else
                return shift_fail("bad --algorithm '%s' (want shift or team-shift)", v);
        } else if (!strcmp(name, "--team")) {
            if (parse_int(v, name, 1, 1 << 20, &n))
                return -1;
            o->team = (int)n;
            team_given = 1;
        } else if (!strcmp(name, "--iters")) {
            if (parse_int(v, name, 1, 100000000, &n))
                return -1;
            o->iters = (int)n;
        } else if (!strcmp(name, "--warmup")) {
            if (parse_int(v, name, 0, 100000000, &n))
                return -1;
            o->warmup = (int)n;
        } else if (!strcmp(name, "--alpha")) {
            if (parse_alpha(v, &o->alpha_ns))
                return -1;
            o->have_alpha = 1;
        } else if (!strcmp(name, "--beta")) {
            if (parse_beta(v, &o->beta_ns_per_byte))
                return -1;
            o->have_beta = 1;
        } else {
            return shift_fail("unknown option '%s'", name);
        }
    }
    if (o->have_alpha != o->have_beta)
        return shift_fail("--alpha and --beta go together");
    if (grid_n == 3 && !dims_given)
        o->dims = 3;
    if (grid_n && grid_n != o->dims)
        return shift_fail("--grid has %d extents but --dims is %d", grid_n, o->dims);
    if (o->algo == ALGO_TEAM && o->mode != SHIFT_SSEND)
        return shift_fail("team-shift runs with --mode ssend only");
    if (o->algo == ALGO_SHIFT && team_given && o->team != 1)
        return shift_fail("--team needs --algorithm team-shift");
    return 0;
}

/* --- test data -------------------------------------------------------------------------- */

/* Byte j of the box of rank @p origin in iteration @p iter: changes with all three, so a block
 * from the wrong origin, at the wrong offset or left over from the previous iteration shows. */
static inline unsigned char box_byte(int origin, uint64_t j, int iter)
{
    return (unsigned char)(origin * 131u + (unsigned)j * 7u + (unsigned)(j >> 8) * 3u +
                           (unsigned)iter * 29u + 1u);
}

static int rank_of(const struct shift_ctx *c, const int coord[3])
{
    const int *g = c->o.grid;
    return coord[0] + g[0] * (coord[1] + g[1] * coord[2]);
}

/* --- the exchange ----------------------------------------------------------------------- */

static int ring_neighbour(const struct shift_ctx *c, int d, int step)
{
    int co[3] = {c->coord[0], c->coord[1], c->coord[2]};
    int n = c->o.grid[d];
    co[d] = ((co[d] + step) % n + n) % n;
    return rank_of(c, co);
}

/* One hop of one direction with MPI_Ssend/MPI_Recv (paper §4.2). Position p is the coordinate
 * along the direction of travel. Even positions send first while odd ones receive, then the
 * roles swap; on a ring of odd length the wrap pair (n-1 -> 0) are both even, so rank n-1 sends
 * and rank 0 receives in an extra third phase instead. */
/* Never inlined, nor shift_dim: the call sites of the traced benchmark name these two functions
 * in every build type (tests/mpi/callsite_skip.sh: hop_ssend's caller one frame up). */
__attribute__((noinline)) static void hop_ssend(int n, int p, const void *sbuf, void *rbuf,
                                                uint64_t bytes, int to, int from, int tag,
                                                MPI_Comm comm)
{
    int send_first;
    if (n % 2 == 1 && p == n - 1)
        send_first = 0; /* receive in phase 2, send to 0 in phase 3 */
    else
        send_first = p % 2 == 0;
    if (send_first) {
        MPI_Ssend(sbuf, (int)bytes, MPI_BYTE, to, tag, comm);
        MPI_Recv(rbuf, (int)bytes, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)bytes, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
        MPI_Ssend(sbuf, (int)bytes, MPI_BYTE, to, tag, comm);
    }
}

__attribute__((noinline)) static void shift_dim(struct shift_ctx *c, int d)
{
    const int k = c->o.k, n = c->o.grid[d];
    const uint64_t u = c->unit[d];
    unsigned char *b = c->buf[d];
    const int right = ring_neighbour(c, d, +1), left = ring_neighbour(c, d, -1);
    if (c->o.mode == SHIFT_ISEND) {
        for (int s = 1; s <= k; s++) {
            MPI_Request rq[4];
            int tag = 100 * d + s;
            MPI_Irecv(b + (size_t)(k - s) * u, (int)u, MPI_BYTE, left, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Irecv(b + (size_t)(k + s) * u, (int)u, MPI_BYTE, right, tag + 50, MPI_COMM_WORLD,
                      &rq[1]);
            MPI_Isend(b + (size_t)(k - s + 1) * u, (int)u, MPI_BYTE, right, tag, MPI_COMM_WORLD,
                      &rq[2]);
            MPI_Isend(b + (size_t)(k + s - 1) * u, (int)u, MPI_BYTE, left, tag + 50, MPI_COMM_WORLD,
                      &rq[3]);
            MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        }
        return;
    }
    if (n == 1) {
        /* A ring of one: every neighbour is this rank, and an Ssend to oneself before the
         * matching receive would deadlock, so the blocks are copied locally. */
        for (int s = 1; s <= k; s++) {
            memcpy(b + (size_t)(k - s) * u, b + (size_t)(k - s + 1) * u, u);
            memcpy(b + (size_t)(k + s) * u, b + (size_t)(k + s - 1) * u, u);
        }
        return;
    }
    /* All right-going messages first (data from the left), then all left-going ones. */
    for (int s = 1; s <= k; s++)
        hop_ssend(n, c->coord[d], b + (size_t)(k - s + 1) * u, b + (size_t)(k - s) * u, u, right,
                  left, 100 * d + s, MPI_COMM_WORLD);
    for (int s = 1; s <= k; s++)
        hop_ssend(n, (n - c->coord[d]) % n, b + (size_t)(k + s - 1) * u, b + (size_t)(k + s) * u,
                  u, left, right, 100 * d + 50 + s, MPI_COMM_WORLD);
}

static const char *const dim_region[3] = {"shift_dim_x", "shift_dim_y", "shift_dim_z"};

/* --- Team Shift ------------------------------------------------------------------------- */

/* q = ceil(log2 C): rounds of the binomial broadcast and gather. */
static int tree_rounds(int n)
{
    int q = 0;
    while ((1 << q) < n)
        q++;
    return q;
}

static int gcd_int(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* M = ceil((2k+1)/C) - [C divides k]: the blocks of the largest class, less offset 0's own block
 * (docs/team-shift.md). */
static int team_hops(int k, int C)
{
    return (2 * k + 1 + C - 1) / C - (k % C == 0);
}

/* The class of a member: the leader gets b = k mod C, the class whose hop count is M. */
static int team_class(const struct shift_ctx *c, int member)
{
    return (member + c->o.k % c->o.team) % c->o.team;
}

/* The window offsets o in [-k, k] with o = s (mod C) in visiting order: ascending from the
 * smallest non-negative one, then, after the wrap, ascending from the most negative one. */
static int class_offsets(int k, int C, int s, int *out)
{
    int n = 0;
    for (int o = s; o <= k; o += C)
        out[n++] = o;
    for (int o = s - C * ((k + s) / C); o < 0; o += C)
        out[n++] = o;
    return n;
}

/* Rank of this rank's counterpart (the same member) in the team @p step teams away along d. */
static int team_neighbour(const struct shift_ctx *c, int d, int step)
{
    int co[3] = {c->coord[0], c->coord[1], c->coord[2]};
    int n = c->o.grid[d];
    co[d] = ((co[d] + step) % n + n) % n;
    return rank_of(c, co) * c->o.team + c->member;
}

/* One hop of member j's ring along d: the block of offset o_old goes to the team delta before,
 * the one of o_new = o_old + delta comes from the team delta after (which holds its o_old).
 * The permutation t -> t - delta splits the ring of n teams into gcd(delta, n) cycles of
 * n/gcd teams; along each cycle the Shift's even/odd phases (hop_ssend) avoid deadlock. */
static void team_hop(struct shift_ctx *c, int d, int delta, int o_old, int o_new, int tag)
{
    const int k = c->o.k, n = c->o.grid[d];
    const uint64_t u = c->unit[d];
    unsigned char *sb = c->buf[d] + (size_t)(k + o_old) * u, *rb = c->buf[d] + (size_t)(k + o_new) * u;
    const int dm = (delta % n + n) % n;
    if (dm == 0) { /* the team itself: an Ssend to oneself would deadlock */
        memcpy(rb, sb, u);
        return;
    }
    const int g = gcd_int(dm, n), me = c->coord[d];
    int p = 0;
    for (int x = me % g; x != me; x = (x - dm + n) % n)
        p++;
    hop_ssend(n / g, p, sb, rb, u, team_neighbour(c, d, -delta), team_neighbour(c, d, +delta), tag,
              MPI_COMM_WORLD);
}

/* Binomial broadcast of the team's block (slot k) from the leader, as MPICH orders it. */
static void team_bcast(struct shift_ctx *c, int d)
{
    const int C = c->o.team, j = c->member, q = tree_rounds(C), base = c->tid * C;
    const uint64_t u = c->unit[d];
    unsigned char *own = c->buf[d] + (size_t)c->o.k * u;
    for (int i = 0; i < q; i++) {
        int mask = 1 << (q - 1 - i);
        if (j % (2 * mask) == 0 && j + mask < C)
            MPI_Ssend(own, (int)u, MPI_BYTE, base + j + mask, 5000 + d, MPI_COMM_WORLD);
        else if (j % (2 * mask) == mask)
            MPI_Recv(own, (int)u, MPI_BYTE, base + j - mask, 5000 + d, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Packs (or, with @p unpack, unpacks) the blocks of members [first, first+count) between buf[d]
 * and the gather buffer: M slots of unit[d] per member, its class's offsets without offset 0
 * (every member has the team's own block), zero-padded. */
static void team_pack(struct shift_ctx *c, int d, int first, int count, int *offs, int unpack)
{
    const int k = c->o.k, M = c->hops;
    const uint64_t u = c->unit[d];
    unsigned char *p = c->pack;
    for (int x = first; x < first + count; x++) {
        int n = class_offsets(k, c->o.team, team_class(c, x), offs), used = 0;
        for (int i = 0; i < n; i++) {
            if (offs[i] == 0)
                continue;
            unsigned char *slot = c->buf[d] + (size_t)(k + offs[i]) * u;
            if (unpack)
                memcpy(slot, p, u);
            else
                memcpy(p, slot, u);
            p += u;
            used++;
        }
        if (!unpack)
            memset(p, 0, (size_t)(M - used) * u);
        p += (size_t)(M - used) * u;
    }
}

/* Binomial gather to the leader (the mirror image of the broadcast): in round i every member
 * j = 2^i (mod 2^(i+1)) sends the blocks of its subtree [j, j + 2^i) to j - 2^i. */
static void team_gather(struct shift_ctx *c, int d, int *offs)
{
    const int C = c->o.team, j = c->member, q = tree_rounds(C), base = c->tid * C;
    const uint64_t share = (uint64_t)c->hops * c->unit[d];
    for (int i = 0; i < q; i++) {
        int step = 1 << i;
        if (j % (2 * step) == step) {
            int cnt = step < C - j ? step : C - j;
            team_pack(c, d, j, cnt, offs, 0);
            MPI_Ssend(c->pack, (int)(share * (uint64_t)cnt), MPI_BYTE, base + j - step, 6000 + d, MPI_COMM_WORLD);
            return;
        }
        if (j + step < C) {
            int cnt = step < C - j - step ? step : C - j - step;
            MPI_Recv(c->pack, (int)(share * (uint64_t)cnt), MPI_BYTE, base + j + step, 6000 + d, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            team_pack(c, d, j + step, cnt, offs, 1);
        }
    }
}

static void team_exchange(struct shift_ctx *c, int with_regions)
{
    const int k = c->o.k;
    int *offs = malloc((size_t)(2 * k + 1) * sizeof *offs);
    if (!offs)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int d = 0; d < c->o.dims; d++) {
        if (d > 0 && c->member == 0) /* the leader forwards all it gathered as the team's block */
            memcpy(c->buf[d] + (size_t)k * c->unit[d], c->buf[d - 1], (size_t)(2 * k + 1) * c->unit[d - 1]);
        if (with_regions)
            rt_region_begin(dim_region[d]);
        if (with_regions)
            rt_region_begin("team_broadcast");
        team_bcast(c, d);
        if (with_regions) {
            rt_region_end();
            rt_region_begin("team_tilt");
        }
        int n = class_offsets(k, c->o.team, team_class(c, c->member), offs);
        if (n > 0 && offs[0] != 0) /* fetch the first block of the class directly */
            team_hop(c, d, offs[0], 0, offs[0], 10000 * (d + 1));
        if (with_regions) {
            rt_region_end();
            rt_region_begin("team_shift");
        }
        for (int i = 1; i < n; i++) /* steps of C, and one wrap from the largest to the most negative */
            team_hop(c, d, offs[i] - offs[i - 1], offs[i - 1], offs[i], 10000 * (d + 1) + i);
        if (with_regions) {
            rt_region_end();
            rt_region_begin("team_reduce");
        }
        team_gather(c, d, offs);
        if (with_regions) {
            rt_region_end();
            rt_region_end();
        }
    }
    free(offs);
}

/* Fills the own box and clears everything else, outside the timed region. */
static void prepare(struct shift_ctx *c, int iter)
{
    const int k = c->o.k;
    c->iter_tag = iter;
    for (int d = 0; d < c->o.dims; d++)
        memset(c->buf[d], 0, (size_t)(2 * k + 1) * c->unit[d]);
    if (c->o.algo == ALGO_TEAM && c->member != 0)
        return; /* the team's box arrives with the broadcast */
    unsigned char *own = c->buf[0] + (size_t)k * c->unit[0];
    int origin = c->o.algo == ALGO_TEAM ? c->tid : c->rank;
    for (uint64_t j = 0; j < c->o.m1; j++)
        own[j] = box_byte(origin, j, iter);
}

static void exchange(struct shift_ctx *c, int with_regions)
{
    const int k = c->o.k;
    if (c->o.algo == ALGO_TEAM) {
        team_exchange(c, with_regions);
        return;
    }
    for (int d = 0; d < c->o.dims; d++) {
        if (d > 0) /* forward everything gathered so far: it becomes the own slot of dim d */
            memcpy(c->buf[d] + (size_t)k * c->unit[d], c->buf[d - 1],
                   (size_t)(2 * k + 1) * c->unit[d - 1]);
        if (with_regions)
            rt_region_begin(dim_region[d]);
        shift_dim(c, d);
        if (with_regions)
            rt_region_end();
    }
}

/* FNV-1a over the bytes a rank received, folded over its iterations: a result of the run that
 * must not depend on how it was run (traced or not, timing, message protocol). */
#define SHIFT_FNV_OFFSET 1469598103934665603ull
#define SHIFT_FNV_PRIME 1099511628211ull

/* Checks every byte of the slots of buf[@p D - 1] that @p held marks (all when NULL) against
 * the box it must come from (of the rank, or in team-shift of the team), and folds them into
 * @p hash when it is not NULL. */
static uint64_t verify_buf(const struct shift_ctx *c, int D, const unsigned char *held, uint64_t *hash)
{
    const int k = c->o.k, w = 2 * k + 1;
    const unsigned char *b = c->buf[D - 1];
    uint64_t bad = 0, blocks = 1, per_slot = 1;
    for (int d = 0; d < D; d++)
        blocks *= (uint64_t)w;
    per_slot = blocks / (uint64_t)w;
    for (uint64_t blk = 0; blk < blocks; blk++) {
        if (held && !held[blk / per_slot])
            continue;
        int co[3] = {c->coord[0], c->coord[1], c->coord[2]};
        uint64_t rest = blk;
        for (int d = 0; d < D; d++) {
            int off = (int)(rest % (uint64_t)w) - k;
            rest /= (uint64_t)w;
            int n = c->o.grid[d];
            co[d] = ((co[d] + off) % n + n) % n;
        }
        int origin = rank_of(c, co);
        const unsigned char *p = b + blk * c->o.m1;
        for (uint64_t j = 0; j < c->o.m1; j++)
            bad += p[j] != box_byte(origin, j, c->iter_tag);
        if (hash) {
            uint64_t h = *hash;
            for (uint64_t j = 0; j < c->o.m1; j++)
                h = (h ^ p[j]) * SHIFT_FNV_PRIME;
            *hash = h;
        }
    }
    return bad;
}

/* Shift: every rank holds all (2k+1)^D blocks. Team Shift: in every dimension each rank holds
 * the team's block and the blocks of the members whose gather passed through it (the leader:
 * all, the same buffer as Shift's); the last dimension's go into the hash. */
static uint64_t verify(const struct shift_ctx *c, uint64_t *hash)
{
    if (c->o.algo != ALGO_TEAM)
        return verify_buf(c, c->o.dims, NULL, hash);
    const int k = c->o.k, w = 2 * k + 1, C = c->o.team, j = c->member;
    unsigned char *held = calloc((size_t)w, 1);
    int *offs = malloc((size_t)w * sizeof *offs);
    if (!held || !offs)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int last = j == 0 ? C : j + (j & -j) < C ? j + (j & -j) : C; /* the gather subtree [j, last) */
    held[k] = 1;
    for (int x = j; x < last; x++) {
        int n = class_offsets(k, C, team_class(c, x), offs);
        for (int i = 0; i < n; i++)
            held[k + offs[i]] = 1;
    }
    uint64_t bad = 0;
    for (int D = 1; D <= c->o.dims; D++)
        bad += verify_buf(c, D, held, D == c->o.dims ? hash : NULL);
    free(held);
    free(offs);
    return bad;
}

/* --- statistics and output -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double predict_ns(const struct shift_opts *o, const uint64_t unit[3])
{
    if (o->algo == ALGO_TEAM) { /* the leader's time, docs/team-shift.md */
        const int q = tree_rounds(o->team), M = team_hops(o->k, o->team);
        double t = 0;
        for (int d = 0; d < o->dims; d++) {
            double m = (double)unit[d], T = o->alpha_ns + o->beta_ns_per_byte * m;
            t += (q + 2.0 * M) * T;
            for (int i = 0; i < q; i++) {
                int blocks = (1 << i) < o->team - (1 << i) ? (1 << i) : o->team - (1 << i);
                t += o->alpha_ns + o->beta_ns_per_byte * (double)blocks * M * m;
            }
        }
        return t;
    }
    double t = 0, hops = (o->mode == SHIFT_SSEND ? 4.0 : 2.0) * o->k;
    for (int d = 0; d < o->dims; d++)
        t += hops * (o->alpha_ns + o->beta_ns_per_byte * (double)unit[d]);
    return t;
}

/* The closed form assumes that each of the leader's hops is two phases of T(m): its ring's
 * cycles have even length. Says so when a hop is a local copy or runs on an odd cycle. */
static void team_note(const struct shift_ctx *c)
{
    const int k = c->o.k, C = c->o.team;
    int *offs = malloc((size_t)(2 * k + 1) * sizeof *offs);
    if (!offs)
        return;
    int n = class_offsets(k, C, team_class(c, 0), offs), odd = 0, local = 0;
    for (int d = 0; d < c->o.dims; d++)
        for (int i = offs[0] == 0 ? 1 : 0; i < n; i++) {
            int nd = c->o.grid[d], delta = i ? offs[i] - offs[i - 1] : offs[0];
            int dm = (delta % nd + nd) % nd;
            if (dm == 0)
                local++;
            else if ((nd / gcd_int(dm, nd)) % 2)
                odd++;
        }
    free(offs);
    if (odd || local)
        printf("\n# note: %d of the leader's hops are local copies and %d run on odd cycles (3 phases); the "
               "prediction counts 2 phases each (it wants rings of an even number of teams > 2k)",
               local, odd);
}

static void report(const struct shift_ctx *c, double *all, size_t n)
{
    const struct shift_opts *o = &c->o;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += all[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (all[i] - mean) * (all[i] - mean);
    double sigma = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    qsort(all, n, sizeof *all, cmp_double);
    double median = n % 2 ? all[n / 2] : 0.5 * (all[n / 2 - 1] + all[n / 2]);
    printf("# shift: dims=%d grid=", o->dims);
    for (int d = 0; d < o->dims; d++)
        printf(d ? "x%d" : "%d", o->grid[d]);
    printf(" P=%d mode=%s k=%d m1=%llu iters=%d warmup=%d", c->size,
           o->mode == SHIFT_SSEND ? "ssend" : "isend", o->k, (unsigned long long)o->m1, o->iters,
           o->warmup);
    if (o->algo == ALGO_TEAM)
        printf(" algorithm=team-shift team=%d teams=%d", o->team, c->nteams);
    printf("\n# message sizes:");
    for (int d = 0; d < o->dims; d++)
        printf(" m%d=%llu B", d + 1, (unsigned long long)c->unit[d]);
    if (o->algo == ALGO_TEAM) {
        printf("\n# team-shift: q=%d broadcast/gather rounds, M=%d hops of the leader, gather share M*m_d",
               tree_rounds(o->team), c->hops);
        team_note(c);
        printf("\n# statistics over %zu samples (team leaders x measured iterations)\n", n);
    } else {
        printf("\n# statistics over %zu samples (ranks x measured iterations)\n", n);
    }
    if (o->have_alpha)
        printf("# model: T(m) = %.3f ns + %.6f ns/B * m\n", o->alpha_ns, o->beta_ns_per_byte);
    printf("k\tmeasured latency [ns]\tsigma [ns]\tmin [ns]\tmedian [ns]\tpredicted latency [ns]\n");
    printf("%d\t%.0f\t%.0f\t%.0f\t%.0f\t", o->k, mean * 1e9, sigma * 1e9, all[0] * 1e9,
           median * 1e9);
    if (o->have_alpha)
        printf("%.0f\n", predict_ns(o, c->unit));
    else
        printf("-\n");
}

/* --- main ------------------------------------------------------------------------------- */

static int setup(struct shift_ctx *c)
{
    struct shift_opts *o = &c->o;
    int boxes = c->size; /* Shift: a box per rank; Team Shift: a box per team */
    if (o->algo == ALGO_TEAM) {
        if (c->size % o->team)
            return shift_fail("%d ranks do not form teams of %d", c->size, o->team);
        boxes = c->nteams = c->size / o->team;
        c->tid = c->rank / o->team;
        c->member = c->rank % o->team;
        c->hops = team_hops(o->k, o->team);
    }
    if (o->grid[0] == 0) {
        int g[3] = {0, 0, 0};
        MPI_Dims_create(boxes, o->dims, g);
        for (int d = 0; d < o->dims; d++)
            o->grid[d] = g[d];
    }
    long prod = 1;
    for (int d = 0; d < o->dims; d++)
        prod *= o->grid[d];
    if (prod != boxes)
        return shift_fail(o->algo == ALGO_TEAM ? "grid has %ld boxes but there are %d teams"
                                                : "grid has %ld boxes but there are %d ranks",
                          prod, boxes);
    for (int d = o->dims; d < 3; d++)
        o->grid[d] = 1;
    int r = o->algo == ALGO_TEAM ? c->tid : c->rank;
    c->coord[0] = r % o->grid[0];
    c->coord[1] = r / o->grid[0] % o->grid[1];
    c->coord[2] = r / (o->grid[0] * o->grid[1]);
    uint64_t u = o->m1;
    for (int d = 0; d < o->dims; d++) {
        c->unit[d] = u;
        if (u > SHIFT_MAX_BYTES / (uint64_t)(2 * o->k + 1) || u > (uint64_t)INT32_MAX)
            return shift_fail("messages of dimension %d would exceed %llu bytes", d + 1,
                              (unsigned long long)SHIFT_MAX_BYTES);
        u *= (uint64_t)(2 * o->k + 1);
        c->buf[d] = malloc((size_t)u ? (size_t)u : 1);
        if (!c->buf[d])
            return shift_fail("out of memory for %llu bytes", (unsigned long long)u);
    }
    if (o->algo == ALGO_TEAM) { /* the gather buffer: at most C members' shares of the last dimension */
        uint64_t share = c->unit[o->dims - 1] * (uint64_t)c->hops;
        if (share > (uint64_t)INT32_MAX / (uint64_t)o->team)
            return shift_fail("the team gather would exceed %d bytes", INT32_MAX);
        c->pack = malloc((size_t)(share * (uint64_t)o->team) + 1);
        if (!c->pack)
            return shift_fail("out of memory for the team gather");
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct shift_ctx c = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    int rc = parse_opts(argc, argv, &c.o);
    if (rc == 1) {
        if (c.rank == 0)
            usage(stdout);
        MPI_Finalize();
        return 0;
    }
    if (rc == 0)
        rc = setup(&c);
    int any_bad = 0;
    MPI_Allreduce(&rc, &any_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (any_bad < 0) {
        if (c.rank == 0)
            fprintf(stderr, "shift: error: %s\n", shift_err[0] ? shift_err : "bad setup");
        MPI_Finalize();
        return 2;
    }

    double *times = malloc((size_t)c.o.iters * sizeof *times);
    uint64_t bad = 0, hash = SHIFT_FNV_OFFSET;
    for (int it = 0; it < c.o.warmup + c.o.iters; it++) {
        int warm = it < c.o.warmup;
        prepare(&c, it);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        rt_region_begin(warm ? "shift_warmup" : "shift_iteration");
        exchange(&c, !warm);
        rt_region_end();
        double t1 = MPI_Wtime();
        if (!warm)
            times[it - c.o.warmup] = t1 - t0;
        bad += verify(&c, &hash);
    }

    uint64_t bad_all = 0;
    MPI_Reduce(&bad, &bad_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double *all = c.rank == 0 ? malloc((size_t)c.size * (size_t)c.o.iters * sizeof *all) : NULL;
    MPI_Gather(times, c.o.iters, MPI_DOUBLE, all, c.o.iters, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    uint64_t *hashes = c.rank == 0 ? malloc((size_t)c.size * sizeof *hashes) : NULL;
    MPI_Gather(&hash, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int status = 0;
    if (c.rank == 0) {
        size_t nsamples = (size_t)c.size * (size_t)c.o.iters;
        if (c.o.algo == ALGO_TEAM) { /* keep the leaders' rows: rank = team * C */
            nsamples = 0;
            for (int r = 0; r < c.size; r += c.o.team)
                for (int it = 0; it < c.o.iters; it++)
                    all[nsamples++] = all[(size_t)r * (size_t)c.o.iters + (size_t)it];
        }
        report(&c, all, nsamples);
        uint64_t run_hash = SHIFT_FNV_OFFSET;
        for (int r = 0; hashes && r < c.size; r++)
            run_hash = (run_hash ^ hashes[r]) * SHIFT_FNV_PRIME;
        printf("checksum: %016llx\n", (unsigned long long)run_hash);
        if (bad_all) {
            printf("verification: FAILED (%llu wrong bytes)\n", (unsigned long long)bad_all);
            status = 1;
        } else {
            printf("verification: passed\n");
        }
        fflush(stdout);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(hashes);
    free(times);
    for (int d = 0; d < c.o.dims; d++)
        free(c.buf[d]);
    free(c.pack);
    MPI_Finalize();
    return status;
}
