#!/bin/sh
# SPDX-License-Identifier: MIT
# retime against LogGOPSim (issue #18, item 3): the same 1D Shift pattern replayed by `retime replay
# --model logp` from its OTF2 archive (read included) and by LogGOPSim's batch mode from the binary
# GOAL schedule of the same messages; messages/s, peak RSS and the predicted end time of each.
# usage: BUILD=build bench/vs_loggopsim.sh --lgs-src PATH [--iters N | --events N] [--repeat R]
#            [--L NS] [--o NS] [--g NS] [--G NS_PER_B] [--goal coll,p2p,bare] [--net LIST|none] [--breakdown]
#            [--coll-events N] [--no-coll-heavy]
# --lgs-src PATH (or LGS_SRC): a LogGOPSim source tree (LogGOPSim.cpp, txt2bin.re, *.ggo and the
# headers LogGOPSim.cpp and txt2bin include, in PATH or PATH/src/LogGOPSim: today's layout, whose *_cmdline.c/.h
# and txt2bin.cpp are generated, or the older flat one); the simulator and txt2bin are built from it
# into a temporary folder (g++ LGS_CXXFLAGS, default -O3; gengetopt, re2c and graphviz's cgraph where
# the tree lacks the generated files). The headers needed are those the sources include, found in
# the simulator's folder or the tree's top; MersenneTwister.h, which the tree dropped in 2023 while an
# older Noise.hpp still includes it, is replaced by a few lines on std::mt19937 when missing (it only
# seeds --noise-trace runs, which this bench does not use). Nothing is downloaded: without a tree
# the script says so on one line and exits 0. The pattern: retime-make-trace --ranks 64 --m1 8KiB --hops 2, N iterations
# (default 2000: 512,000 messages, 4.48 M OTF2 records). The GOAL schedule is written from that
# archive (otf2-print, Debian otf2-tools) in up to three variants: coll = the same pattern (compute
# as calc, the point-to-point messages, each 8-byte MPI_Allreduce as the recursive doubling retime's
# collective model runs: log2(64) rounds of 8-byte exchanges); p2p = without the allreduces; bare =
# the point-to-point messages alone. Each tool runs R times (default 3), interleaved, under
# /usr/bin/time; figures are min and median wall and max peak RSS. Model parameters in ns (default
# L 2000, o 100, g 0, G 0.76 per byte); LogGOPSim gets them in picoseconds (see bench/README.md).
# --net LIST: retime also replays the trace on these networks (comma-separated topologies, one rank
# per node, block mapping; default torus:4x4x4,fattree:64) in the same rounds: their rate beside the
# others and the contention model's cost per routed message and per link crossed (issue #18 item 4).
# --breakdown: then both tools' predicted ends after 1, 2, 3 and 4 iterations (coll schedule), to
# show per iteration kind where their models differ.
# Then (unless --no-coll-heavy; issue #49 item 1) the collective-heavy trace: retime-make-trace
# --pattern coll --ranks 64 (an 8 B MPI_Allreduce and a 64 KiB MPI_Bcast from a root that moves
# round the ranks, per iteration; --coll-events N records, default 1e6: 1563 iterations), replayed
# by retime on the networks of --net and crossbar-flow, where every collective runs as its
# algorithm's messages (recursive doubling, binomial tree: `retime info --collectives`), and by
# LogGOPSim from a GOAL schedule of the same messages (each allreduce as above, each bcast as the
# binomial tree down from its root: the receive from the parent, then the sends to the children,
# largest subtree first, each after the one before); both time the same sends one by one, the
# target is retime at >= 2x LogGOPSim's messages/s on every network.
set -eu

me=vs_loggopsim.sh
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
lgs_src=${LGS_SRC:-}
iters=2000 events='' repeat=3
L=2000 o=100 g=0 G=0.76
variants=bare,p2p,coll breakdown=0 coll_heavy=1 coll_events=1e6
nets=torus:4x4x4,fattree:64
ranks=64 hops=2
while [ $# -gt 0 ]; do
    case $1 in
    --lgs-src) [ $# -ge 2 ] || { echo "$me: error: --lgs-src needs a path" >&2; exit 1; }
        lgs_src=$2; shift 2 ;;
    --iters) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || { echo "$me: error: --iters needs a count >= 1" >&2; exit 1; }
        iters=$2; events=; shift 2 ;;
    --events) [ $# -ge 2 ] || { echo "$me: error: --events needs a count such as 1e6" >&2; exit 1; }
        events=$2; iters=; shift 2 ;;
    --repeat) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || { echo "$me: error: --repeat needs a count >= 1" >&2; exit 1; }
        repeat=$2; shift 2 ;;
    --L|--o|--g|--G) [ $# -ge 2 ] && awk -v v="$2" 'BEGIN { exit !(v ~ /^[0-9]*\.?[0-9]+$/) }' ||
            { echo "$me: error: $1 needs a number (ns, or ns per byte for --G)" >&2; exit 1; }
        eval "${1#--}=\$2"; shift 2 ;;
    --goal) [ $# -ge 2 ] && echo "$2" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i !~ /^(coll|p2p|bare)$/) exit 1 }' ||
            { echo "$me: error: --goal needs a list of coll, p2p, bare" >&2; exit 1; }
        variants=$2; shift 2 ;;
    --net) [ $# -ge 2 ] && [ -n "$2" ] || { echo "$me: error: --net needs a list of topologies or none" >&2; exit 1; }
        nets=$2; [ "$nets" != none ] || nets=; shift 2 ;;
    --breakdown) breakdown=1; shift ;;
    --coll-events) [ $# -ge 2 ] || { echo "$me: error: --coll-events needs a count such as 1e6" >&2; exit 1; }
        coll_events=$2; shift 2 ;;
    --no-coll-heavy) coll_heavy=0; shift ;;
    -h|--help) awk 'NR >= 3 && !/^#/ { exit } NR >= 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "$me: error: unexpected argument '$1'" >&2; exit 1 ;;
    esac
done

# ---- LogGOPSim's sources: skip (one line, exit 0) when there are none; nothing is fetched.
skip() { echo "$me: skipped: $*"; exit 0; }
[ -n "$lgs_src" ] || skip "no LogGOPSim source tree given (--lgs-src PATH or LGS_SRC); nothing is downloaded"
[ -d "$lgs_src" ] || skip "LogGOPSim source tree '$lgs_src' does not exist"
lgs_src=$(cd "$lgs_src" && pwd)
# the simulator's folder: upstream's src/LogGOPSim/ or the older flat layout
if [ -f "$lgs_src/src/LogGOPSim/LogGOPSim.cpp" ]; then lgs_dir="$lgs_src/src/LogGOPSim"
elif [ -f "$lgs_src/LogGOPSim.cpp" ]; then lgs_dir=$lgs_src
else skip "'$lgs_src' holds no LogGOPSim sources (LogGOPSim.cpp in it or in src/LogGOPSim)"
fi
# find_src FILE: where the tree has it (the simulator's folder first, then the top level).
find_src() {
    for d in "$lgs_dir" "$lgs_src" "$lgs_src/src/LogGOPSim"; do
        [ -f "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
# The headers the two programs need: those LogGOPSim.cpp and txt2bin's source include with quotes,
# and theirs, but the gengetopt parser's (*cmdline*.h, made below) and MersenneTwister.h (replaced
# when missing). (txt2bin.re includes Goal.hpp, which LogGOPSim.cpp does not: the walk from the
# simulator alone left it out, issue #49 item 5.)
lgs_headers= lgs_mt=tree
lgs_todo="LogGOPSim.cpp txt2bin.re txt2bin.cpp"
while [ -n "$lgs_todo" ]; do
    set -- $lgs_todo; f=$1; shift; lgs_todo=$*
    s=$(find_src "$f") || continue
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$s"); do
        case " $lgs_headers " in *" $h "*) continue ;; esac
        case $h in
        *cmdline*.h) continue ;;
        MersenneTwister.h) find_src "$h" > /dev/null || { lgs_mt=shim; continue; } ;;
        *) find_src "$h" > /dev/null || skip "the LogGOPSim tree '$lgs_src' lacks $h (included by $f)" ;;
        esac
        lgs_headers="$lgs_headers $h"; lgs_todo="$lgs_todo $h"
    done
done
find_src txt2bin.re > /dev/null || find_src txt2bin.cpp > /dev/null || skip "the LogGOPSim tree '$lgs_src' lacks txt2bin.re"
command -v otf2-print > /dev/null 2>&1 || skip "otf2-print (Debian otf2-tools) not found; it is needed to write the GOAL schedule"
[ -x /usr/bin/time ] || skip "/usr/bin/time (GNU time, Debian time) not found; it is needed for the peak RSS"
cxx=${CXX:-c++}
command -v "$cxx" > /dev/null 2>&1 || skip "no C++ compiler ($cxx) to build LogGOPSim"
if pkg-config --exists libcgraph 2> /dev/null; then
    gv_cflags=$(pkg-config --cflags libcgraph); gv_libs=$(pkg-config --libs libcgraph)
elif [ -f /usr/include/graphviz/cgraph.h ]; then
    gv_cflags=-I/usr/include/graphviz; gv_libs=-lcgraph
else
    skip "graphviz's cgraph (Debian libgraphviz-dev; scripts/install-deps.sh --bench), which LogGOPSim's Network.hpp includes, not found"
fi

make_trace="$build/bench/retime-make-trace"
retime="$build/cli/retime"
for exe in "$make_trace" "$retime"; do
    if [ ! -x "$exe" ]; then
        echo "$me: error: $exe not found; build with -DRT_BUILD_BENCH=ON first" >&2
        exit 1
    fi
done

# ---- model parameters: retime in ns, LogGOPSim in integer picoseconds (its options are ints).
ps() { awk -v v="$1" -v n="$2" 'BEGIN { p = v * 1000; if (p != int(p) || p > 2147483647) {
    printf "%s: error: %s = %s is not a whole number of picoseconds below 2^31\n", "'"$me"'", n, v > "/dev/stderr"; exit 1 }
    printf "%d", p }'; }
L_ps=$(ps "$L" L) o_ps=$(ps "$o" o) g_ps=$(ps "$g" g) G_ps=$(ps "$G" G)
eager=65536 # retime's default eager limit (64 KiB): eager iff bytes <= it, as LogGOPSim's -S
retime_model="--model logp --L ${L}ns --o ${o}ns --g ${g}ns --G ${G}ns/B --eager-limit ${eager}B"
lgs_model="-L $L_ps -o $o_ps -g $g_ps -G $G_ps -O 0 -S $eager"

tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/retime-vs-lgs.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# ---- build LogGOPSim and txt2bin from the tree, into $work/lgs
lb="$work/lgs"
mkdir -p "$lb"
for f in LogGOPSim.cpp $lgs_headers txt2bin.re txt2bin.cpp; do
    s=$(find_src "$f") && cp "$s" "$lb/"
done
if [ "$lgs_mt" = shim ]; then
    # What Noise.hpp uses of the Mersenne Twister class the tree no longer has: MTRand, rand(max) in
    # [0, max]. Only --noise-trace runs draw from it; this bench's runs never do.
    cat > "$lb/MersenneTwister.h" << 'EOF'
#include <random>
class MTRand {
    std::mt19937 g;
  public:
    double rand(double n) { return std::uniform_real_distribution<double>(0.0, n)(g); }
};
EOF
fi
# gengetopt's parser: the .c/.h the tree ships, or made from its .ggo
cmdline_for() { # FILE-THAT-INCLUDES-IT GGO...: makes $lb/NAME.c and .h, sets cl_name=NAME
    cl_name=$(sed -n 's/^#include "\([A-Za-z0-9_]*cmdline[A-Za-z0-9_]*\)\.h".*/\1/p' "$lb/$1" | head -1)
    [ -n "$cl_name" ] || return 1
    if cs=$(find_src "$cl_name.c") && hs=$(find_src "$cl_name.h"); then
        cp "$cs" "$hs" "$lb/"
        return 0
    fi
    shift
    for gg in "$cl_name.ggo" "$@"; do
        if ggo=$(find_src "$gg"); then
            command -v gengetopt > /dev/null 2>&1 ||
                skip "gengetopt (Debian gengetopt) not found, needed for LogGOPSim's $cl_name.c"
            (cd "$lb" && gengetopt --file-name="$cl_name" < "$ggo") || return 1
            return 0
        fi
    done
    skip "the LogGOPSim tree '$lgs_src' has neither $cl_name.c nor a .ggo to make it"
}
if [ -f "$lb/txt2bin.re" ]; then
    if command -v re2c > /dev/null 2>&1; then
        re2c -o "$lb/txt2bin.cpp" "$lb/txt2bin.re" > "$lb/build.log" 2>&1 ||
            { echo "$me: error: re2c failed on $(find_src txt2bin.re):" >&2; tail -5 "$lb/build.log" >&2; exit 1; }
    elif [ ! -f "$lb/txt2bin.cpp" ]; then
        skip "re2c (Debian re2c) not found, needed for LogGOPSim's txt2bin.re"
    fi
fi
cmdline_for LogGOPSim.cpp simulator.ggo || { echo "$me: error: cannot make LogGOPSim's command line parser" >&2; exit 1; }
sim_cl=$cl_name
cmdline_for txt2bin.cpp txt2bin.ggo || { echo "$me: error: cannot make txt2bin's command line parser" >&2; exit 1; }
t2b_cl=$cl_name
lgs_cxxflags=${LGS_CXXFLAGS:--O3}
# shellcheck disable=SC2086 # flags are lists
if ! (cd "$lb" && "$cxx" $lgs_cxxflags -w $gv_cflags -o LogGOPSim LogGOPSim.cpp "$sim_cl.c" $gv_libs &&
      "$cxx" $lgs_cxxflags -w -o txt2bin txt2bin.cpp "$t2b_cl.c") >> "$lb/build.log" 2>&1; then
    echo "$me: error: building LogGOPSim from $lgs_src failed:" >&2
    tail -20 "$lb/build.log" >&2
    exit 1
fi

# ---- the trace (made once under $TMPDIR, shared with the other bench scripts)
. "$here/traces.sh"
# events_of N: the records of N iterations (the generator stops after the iteration that reaches
# the count asked for, so asking exactly this gives N iterations)
events_of() {
    awk -v n="$1" -v p="$ranks" -v k="$hops" 'BEGIN {
        for (i = 0; i < n; i++) e += 8 * p + (i % 4 == 3 ? 18 * k * p : 12 * k * p); printf "%.0f", e }'
}
if [ -n "$iters" ]; then
    events=$(events_of "$iters")
else
    events=$(to_events "$events") || { echo "$me: error: bad --events value" >&2; exit 1; }
fi
trace=$(trace_for "$events" "$ranks")

now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# $(uname -n), $(nproc) CPUs, load average $(load), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# trace: $trace (retime-make-trace --ranks $ranks --m1 8KiB --hops $hops)"
echo "# LogGOPSim: built from $lgs_src with $cxx $lgs_cxxflags (headers:$lgs_headers$([ "$lgs_mt" = tree ] || echo "; MersenneTwister.h replaced: the tree has none"))"
echo "# retime replay TRACE $retime_model"
[ -z "$nets" ] || echo "# and with --topology NET for each of $nets (1 rank per node, block mapping)"
echo "# LogGOPSim -f SCHEDULE.bin -b $lgs_model   (time unit 1 ps)"

# ---- the GOAL schedules, from the archive's records (otf2-print lists them in time order).
# Per rank, in program order: the measured time between MPI calls is a calc (what retime replays as
# compute: from the earliest rank's first record, then from each call's Leave to the next call's
# Enter, and after the last call); MPI_Send/Ssend/Recv are blocking send/recv; MPI_Isend/Irecv start a
# send/recv that the rest of the rank only irequires, and the op after the MPI_Waitall requires them
# all; MPI_Allreduce (coll only) is recursive doubling, round k exchanging the 8 bytes with rank XOR
# 2^k (both requiring the round before), with tags apart from the trace's. The requires lines go
# after all ops of the rank, since an irecv's peer is only known from its completion record.
cat > "$work/goal.awk" << 'EOF'
function field(key,    i) { for (i = 4; i < NF; i++) if ($i == key) return $(i + 1) + 0; return -1 }
function deps(l, list,    n, i, d) {
    n = split(list, d, " ")
    for (i = 1; i <= n; i++)
        print l (substr(d[i], 1, 1) == "R" ? " requires " : " irequires ") substr(d[i], 2) > (dir "/deps." r)
    nedges += n
}
function op(r, text,    l) {
    l = "l" (++lab[r])
    print l ": " text > (dir "/ops." r)
    deps(l, dep[r]); nops++
    return l
}
function calc(r, gap,    l) {
    if (nocalc || gap <= 0) return
    dep[r] = "R" op(r, "calc " sprintf("%.0f", gap * 1000)); ncalc++
}
BEGIN { first = -1 }
NF < 3 || $3 !~ /^[0-9]+$/ { next }
{
    kind = $1; r = $2 + 0; t = $3 + 0
    if (first < 0) first = t
    if (!(r in tref)) { tref[r] = first; dep[r] = ""; depth[r] = 0; wait[r] = ""; lab[r] = 0; nr++ }
    last[r] = t
}
kind == "ENTER" { if ($5 ~ /^"MPI_/ && depth[r]++ == 0) calc(r, t - tref[r]); next }
kind == "LEAVE" {
    if ($5 ~ /^"MPI_/ && depth[r] > 0 && --depth[r] == 0) {
        tref[r] = t
        if (wait[r] != "") { dep[r] = dep[r] wait[r]; wait[r] = "" }
    }
    next
}
kind == "MPI_SEND" { dep[r] = "R" op(r, "send " field("Length:") "b to " field("Receiver:") " tag " field("Tag:")); np2p++; next }
kind == "MPI_RECV" { dep[r] = "R" op(r, "recv " field("Length:") "b from " field("Sender:") " tag " field("Tag:")); next }
kind == "MPI_ISEND" {
    q = field("Request:")
    l = op(r, "send " field("Length:") "b to " field("Receiver:") " tag " field("Tag:")); np2p++
    req[r, q] = l; dep[r] = "I" l; next
}
kind == "MPI_IRECV_REQUEST" {
    q = field("Request:"); l = "l" (++lab[r])
    req[r, q] = l; rdep[r, q] = dep[r]; dep[r] = "I" l; next
}
kind == "MPI_IRECV" {
    q = field("Request:"); l = req[r, q]
    print l ": recv " field("Length:") "b from " field("Sender:") " tag " field("Tag:") > (dir "/ops." r)
    deps(l, rdep[r, q]); nops++
    delete req[r, q]; delete rdep[r, q]
    wait[r] = wait[r] " R" l; next
}
kind == "MPI_ISEND_COMPLETE" { q = field("Request:"); wait[r] = wait[r] " R" req[r, q]; delete req[r, q]; next }
kind == "MPI_COLLECTIVE_BEGIN" { next }
kind == "MPI_COLLECTIVE_END" && $5 == "BCAST," {
    # the binomial tree down from the root (retime's rt__cs_binomial_down): rel = place from the
    # root; rel != 0 receives from rel less its lowest set bit, then sends to rel + mask for each
    # mask below that bit (the root: below the least power of two >= P), largest first
    if (!coll) next
    m = field("Received:"); R = field("Root:"); rel = (r - R + P) % P
    for (top = 1; top < P; top *= 2) ;
    low = top
    if (rel) {
        for (low = 1; int(rel / low) % 2 == 0; low *= 2) ;
        dep[r] = "R" op(r, "recv " m "b from " ((rel - low + R) % P) " tag " (ctag + 100))
    }
    for (mask = low / 2; mask >= 1; mask /= 2)
        if (rel + mask < P) { dep[r] = "R" op(r, "send " m "b to " ((rel + mask + R) % P) " tag " (ctag + 100)); ncoll++ }
    next
}
kind == "MPI_COLLECTIVE_END" {
    if ($5 != "ALLREDUCE,") { print "unsupported collective " $5 > "/dev/stderr"; bad = 1; exit 2 }
    if (!coll) next
    m = field("Sent:"); round = 0
    for (k = 1; k < P; k *= 2) {
        p = int(r / k) % 2 ? r - k : r + k
        s = op(r, "send " m "b to " p " tag " (ctag + round))
        v = op(r, "recv " m "b from " p " tag " (ctag + round))
        dep[r] = "R" s " R" v; ncoll++; round++
    }
    next
}
/^MPI_/ { print "unsupported record " $1 > "/dev/stderr"; bad = 1; exit 2 }
END {
    if (bad) exit 2
    if (nr != P) { print "expected " P " ranks, found " nr > "/dev/stderr"; exit 2 }
    for (r in tref) calc(r, last[r] - tref[r])
    printf "%d %d %d %d %d\n", np2p, ncoll, ncalc, nops, nedges
}
EOF
if [ $((ranks & (ranks - 1))) -ne 0 ]; then echo "$me: error: the allreduce rounds need a power-of-two rank count" >&2; exit 1; fi
# write_goal NAME VARIANT TRACE: $work/NAME.bin, the VARIANT schedule of TRACE; a line in $work/goals
write_goal() {
    case $2 in coll) wg_c=1 wg_n=0 ;; p2p) wg_c=0 wg_n=0 ;; bare) wg_c=0 wg_n=1 ;; esac
    mkdir "$work/g"
    counts=$(otf2-print "$3/traces.otf2" | awk -v P="$ranks" -v coll="$wg_c" -v nocalc="$wg_n" -v ctag=900000 \
             -v dir="$work/g" -f "$work/goal.awk") || { echo "$me: error: writing the GOAL schedule ($2) failed" >&2; exit 1; }
    {
        echo "num_ranks $ranks"
        wg_r=0
        while [ "$wg_r" -lt "$ranks" ]; do
            echo "rank $wg_r {"; cat "$work/g/ops.$wg_r"; [ ! -f "$work/g/deps.$wg_r" ] || cat "$work/g/deps.$wg_r"; echo "}"
            wg_r=$((wg_r + 1))
        done
    } > "$work/$1.goal"
    rm -r "$work/g"
    goal_mb=$(du -m "$work/$1.goal" | cut -f1)
    wg_a=$(now)
    "$lb/txt2bin" -i "$work/$1.goal" -o "$work/$1.bin" > "$work/txt2bin.out" 2>&1 ||
        { echo "$me: error: txt2bin failed on the $2 schedule:" >&2; tail -5 "$work/txt2bin.out" >&2; exit 1; }
    wg_b=$(now)
    rm "$work/$1.goal"
    echo "$1 $counts $goal_mb $(du -m "$work/$1.bin" | cut -f1) $(awk -v a="$wg_a" -v b="$wg_b" 'BEGIN { printf "%.2f", b - a }')" >> "$work/goals"
}
# predicted ends: retime's predicted_ns from its JSON, LogGOPSim's maximum finishing time (ps) in ns
json_field() { sed 's/"per_rank".*//' "$1" | tr ',' '\n' | awk -v k="\"$2\": " 'index($0, k) { sub(/.*: /, ""); print; exit }'; }
# net_counts JSON: "ROUTED CROSSINGS", the routed messages and the sum of the links' message counts
net_counts() {
    sed 's/"per_rank".*//' "$1" | awk '{
        i = index($0, "\"routed\": "); routed = substr($0, i + 10) + 0
        n = split(substr($0, index($0, "\"links\": [")), l, "{\"link\": ")
        for (k = 2; k <= n; k++) { j = index(l[k], "\"messages\": "); c += substr(l[k], j + 12) + 0 }
        printf "%.0f %.0f", routed, c }'
}
lgs_end() {
    le=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\) .*/\1/p' "$1")
    [ -n "$le" ] || { echo "$me: error: LogGOPSim did not finish the schedule:" >&2; tail -5 "$1" >&2; exit 1; }
    awk -v p="$le" 'BEGIN { printf "%.3f", p / 1000 }'
}
: > "$work/goals"
for v in $(echo "$variants" | tr ',' ' '); do write_goal "$v" "$v" "$trace"; done
awk '{ printf "# GOAL %-4s: %d sends (%d point-to-point, %d allreduce), %d calcs, %d ops, %d dependencies; %d MB text, %d MB binary; txt2bin %.2f s (not counted)\n",
       $1, $2 + $3, $2, $3, $4, $5, $6, $7, $8, $9 }' "$work/goals"

# net_replay TRACE NET: `retime replay TRACE --topology NET`, timed into $work/time (seconds, peak
# KiB) with its JSON in $work/out.json; sets wall to its wall time [s]. lgs_run BIN: LogGOPSim on
# the binary schedule BIN the same way, its output in $work/lgs.out.
wall_since() { wall=$(awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.4f", b - a }'); }
net_replay() {
    nr_a=$(now)
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$work/time" "$retime" replay "$1" $retime_model --topology "$2" \
        --format json --quiet > "$work/out.json" 2> "$work/net.err" ||
        { echo "$me: error: retime replay --topology $2 failed:" >&2; cat "$work/net.err" >&2; exit 1; }
    wall_since "$nr_a"
}
lgs_run() {
    lr_a=$(now)
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$work/time" "$lb/LogGOPSim" -f "$1" -b $lgs_model > "$work/lgs.out"
    wall_since "$lr_a"
}
# The median and the least of a list of numbers, for the tables' awk programs.
awk_stats='
function med(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function mn(list,    n, a, i, m) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
'

# ---- the runs: round r runs retime, then each LogGOPSim variant; files read once first (page cache)
cat "$trace"/traces.otf2 "$trace"/traces.def "$trace"/traces/* "$work"/*.bin > /dev/null
: > "$work/runs"
: > "$work/nets"
r=1
while [ "$r" -le "$repeat" ]; do
    a=$(now)
    /usr/bin/time -f '%e %M' -o "$work/time" "$retime" replay "$trace" $retime_model --format json --quiet > "$work/out.json"
    wall_since "$a"
    pred=$(json_field "$work/out.json" predicted_ns)
    msgs=$(json_field "$work/out.json" messages)
    recs=$(json_field "$work/out.json" events)
    colls=$(sed 's/"per_rank".*//' "$work/out.json" | tr ',' '\n' | awk '/"collectives": [0-9]/ { sub(/.*: /, ""); print; exit }')
    echo "retime $r $wall $(tail -1 "$work/time") $pred $msgs $recs $colls" >> "$work/runs"
    # retime's input step alone: the archive read into the replay's events (retime info reads all)
    a=$(now)
    /usr/bin/time -f '%e %M' -o "$work/time" "$retime" info "$trace" --format json > /dev/null
    wall_since "$a"
    echo "read $r $wall $(tail -1 "$work/time")" >> "$work/runs"
    for n in $(echo "$nets" | tr ',' ' '); do
        net_replay "$trace" "$n"
        echo "net:$n $r $wall $(tail -1 "$work/time") $(json_field "$work/out.json" predicted_ns)" >> "$work/runs"
        [ "$r" -gt 1 ] || echo "net:$n $(net_counts "$work/out.json")" >> "$work/nets"
    done
    for v in $(echo "$variants" | tr ',' ' '); do
        lgs_run "$work/$v.bin"
        echo "lgs-$v $r $wall $(tail -1 "$work/time") $(lgs_end "$work/lgs.out")" >> "$work/runs"
    done
    r=$((r + 1))
done

# ---- the table
echo "# load average after the runs: $(load)"
echo
awk -v goals="$work/goals" -v netsf="$work/nets" -v R="$repeat" "$awk_stats"'
function verdict(ok) { return ok ? "met" : "NOT met" }
BEGIN {
    # the like-for-like variant first: bare (the same sends, nothing else), then p2p, then coll
    while ((getline line < goals) > 0) {
        split(line, f, " "); g[f[1]] = 1; sends["lgs-" f[1]] = f[2] + f[3]; ars["lgs-" f[1]] = f[3]; conv["lgs-" f[1]] = f[9]
    }
    split("bare p2p coll", order, " ")
    for (i = 1; i <= 3; i++) if (order[i] in g) vn[++nv] = order[i]
    desc["coll"] = "GOAL coll: the same pattern"; desc["p2p"] = "GOAL p2p: no allreduce"
    desc["bare"] = "GOAL bare: no allreduce, no compute"
    while ((getline line < netsf) > 0) { split(line, f, " "); nn++; nk[nn] = f[1]; routed[f[1]] = f[2]; cross[f[1]] = f[3] }
}
{
    k = $1; wall[k] = wall[k] (wall[k] == "" ? "" : " ") $3
    if ($5 + 0 > rss[k]) rss[k] = $5 + 0
    pred[k] = $6
    if (k == "retime") { msgs = $7; recs = $8; colls = $9 }
}
END {
    if (!("retime" in wall)) exit 1
    printf "sends each tool simulates: retime %d point-to-point messages and %d collectives, each collective timed in one\n", msgs, colls
    printf "go (on a network: as its algorithm'"'"'s messages, the routed count in sends below)"
    for (i = 1; i <= nv; i++) printf "; LogGOPSim %s %d%s", vn[i], sends["lgs-" vn[i]],
                                     ars["lgs-" vn[i]] ? " (" ars["lgs-" vn[i]] " of them the allreduces'"'"' rounds)" : ""
    printf "\n\n"
    printf "messages = the pattern'"'"'s point-to-point messages (retime'"'"'s count); msgs/s = messages / median wall; sends = the\n"
    printf "messages each tool times one by one; wall = the whole process (read, replay, output), min and median of %d rounds;\n", R
    printf "RSS = the largest peak of the rounds; end = predicted end time, diff = its difference from retime'"'"'s;\n"
    printf "input_s = each tool'"'"'s input step on its own: retime'"'"'s OTF2 read (retime info, median; inside its wall),\n"
    printf "LogGOPSim'"'"'s GOAL text to binary (txt2bin, once; before its wall)\n"
    printf "%-10s %-36s %8s %8s %7s %7s %7s %8s %10s %8s %8s\n", "tool", "input", "messages", "sends", "min_s", "med_s",
           "Mmsg/s", "RSS_MiB", "end_ms", "diff", "input_s"
    rm = med(wall["retime"]); rr = rss["retime"]; rd = med(wall["read"])
    printf "%-10s %-36s %8d %8d %7.3f %7.3f %7.3f %8.1f %10.3f %8s %8.3f\n", "retime", "OTF2, " recs " records, read incl.",
           msgs, msgs, mn(wall["retime"]), rm, msgs / rm / 1e6, rr / 1024, pred["retime"] / 1e6, "-", rd
    for (i = 1; i <= nn; i++) {
        k = nk[i]; m = med(wall[k])
        printf "%-10s %-36s %8d %8d %7.3f %7.3f %7.3f %8.1f %10.3f %+7.2f%%\n", "retime", "OTF2, on " substr(k, 5), msgs, routed[k],
               mn(wall[k]), m, msgs / m / 1e6, rss[k] / 1024, pred[k] / 1e6, (pred[k] - pred["retime"]) / pred["retime"] * 100
    }
    for (i = 1; i <= nv; i++) {
        k = "lgs-" vn[i]; m = med(wall[k])
        printf "%-10s %-36s %8d %8d %7.3f %7.3f %7.3f %8.1f %10.3f %+7.2f%% %8.3f\n", "LogGOPSim", desc[vn[i]], msgs,
               sends[k], mn(wall[k]), m, msgs / m / 1e6, rss[k] / 1024, pred[k] / 1e6, (pred[k] - pred["retime"]) / pred["retime"] * 100,
               conv[k]
    }
    printf "\nretime / LogGOPSim, at the medians (targets: messages/s >= 2x, memory <= 0.5x); bare first, like for like:\n"
    printf "both time the same %d sends one by one, LogGOPSim with nothing else in its schedule:\n", msgs
    for (i = 1; i <= nv; i++) {
        k = "lgs-" vn[i]; s = med(wall[k]) / rm; mr = rr / rss[k]
        printf "  vs %-4s: messages/s %.2fx (%s), peak RSS %.2fx (%s)%s\n", vn[i], s, verdict(s >= 2), mr, verdict(mr <= 0.5),
               vn[i] == "bare" ? "   <- like for like" : vn[i] == "coll" ? "   (LogGOPSim also times the allreduces'"'"' rounds)" : ""
        for (j = 1; j <= nn; j++) {
            k = nk[j]; s = med(wall["lgs-" vn[i]]) / med(wall[k]); mr = rss[k] / rss["lgs-" vn[i]]
            printf "    on %-20s messages/s %.2fx (%s), peak RSS %.2fx (%s)\n", substr(k, 5) ":", s, verdict(s >= 2), mr, verdict(mr <= 0.5)
        }
    }
    if ("lgs-bare" in wall) { # the input steps apart, on the like-for-like variant
        lb = med(wall["lgs-bare"])
        printf "\nthe bare row with the input steps apart: replay alone (retime: its wall less its read, %.3f s) %.2fx\n",
               rm - rd, lb / (rm - rd)
        printf "LogGOPSim'"'"'s run; both inputs counted (retime'"'"'s wall; LogGOPSim'"'"'s txt2bin + run, %.3f s) %.2fx\n",
               conv["lgs-bare"] + lb, (conv["lgs-bare"] + lb) / rm
    }
    if (nn) printf "\nthe network layer'"'"'s cost: (median wall on the network - retime'"'"'s without) per routed message and per link crossed:\n"
    for (i = 1; i <= nn; i++) {
        k = nk[i]; d = (med(wall[k]) - rm) * 1e9
        printf "  %-20s %8d routed, %.2f links per route: %+8.1f ns per message, %+8.1f ns per link\n", substr(k, 5) ":",
               routed[k], routed[k] ? cross[k] / routed[k] : 0, routed[k] ? d / routed[k] : 0, cross[k] ? d / cross[k] : 0
    }
}' "$work/runs"

# ---- the collective-heavy trace (issue #49 item 1): the same collectives' messages in both tools
if [ "$coll_heavy" = 1 ]; then
    cevents=$(to_events "$coll_events") || { echo "$me: error: bad --coll-events value" >&2; exit 1; }
    ctrace=$(coll_trace_for "$cevents" "$ranks")
    write_goal collheavy coll "$ctrace"
    cnets="crossbar-flow${nets:+,$nets}"
    cat "$ctrace"/traces.otf2 "$ctrace"/traces.def "$ctrace"/traces/* "$work/collheavy.bin" > /dev/null
    : > "$work/cruns"
    r=1
    while [ "$r" -le "$repeat" ]; do
        for n in $(echo "$cnets" | tr ',' ' '); do
            net_replay "$ctrace" "$n"
            echo "$n $r $wall $(tail -1 "$work/time") $(json_field "$work/out.json" predicted_ns) $(net_counts "$work/out.json")" >> "$work/cruns"
        done
        lgs_run "$work/collheavy.bin"
        echo "lgs $r $wall $(tail -1 "$work/time") $(lgs_end "$work/lgs.out")" >> "$work/cruns"
        r=$((r + 1))
    done
    echo
    echo "# load average after the collective-heavy runs: $(load)"
    awk -v goal="$(grep '^collheavy ' "$work/goals")" -v trace="$ctrace" -v R="$repeat" "$awk_stats"'
    {
        k = $1; if (!(k in wall)) order[++nk] = k
        wall[k] = wall[k] (wall[k] == "" ? "" : " ") $3
        if ($5 + 0 > rss[k]) rss[k] = $5 + 0
        pred[k] = $6; routed[k] = $7
    }
    END {
        split(goal, g, " "); sends = g[2] + g[3]
        printf "collective-heavy trace %s: every collective as its algorithm'"'"'s messages in both tools\n", trace
        printf "(LogGOPSim: %d sends in its GOAL schedule, txt2bin %.2f s not counted); min and median wall of %d rounds\n", sends, g[9], R
        printf "%-10s %-22s %8s %7s %7s %7s %8s %10s %8s\n", "tool", "network", "sends", "min_s", "med_s", "Msend/s", "RSS_MiB", "end_ms", "diff"
        lm = med(wall["lgs"])
        for (i = 1; i <= nk; i++) {
            k = order[i]; if (k == "lgs") continue
            m = med(wall[k])
            printf "%-10s %-22s %8d %7.3f %7.3f %7.3f %8.1f %10.3f %+7.2f%%\n", "retime", k, routed[k], mn(wall[k]), m,
                   routed[k] / m / 1e6, rss[k] / 1024, pred[k] / 1e6, (pred[k] - pred["lgs"]) / pred["lgs"] * 100
            if (routed[k] != sends) diff = diff " " k "(" routed[k] ")"
        }
        printf "%-10s %-22s %8d %7.3f %7.3f %7.3f %8.1f %10.3f %8s\n", "LogGOPSim", "GOAL (LogGOP)", sends, mn(wall["lgs"]), lm,
               sends / lm / 1e6, rss["lgs"] / 1024, pred["lgs"] / 1e6, "-"
        if (diff != "") printf "NOT the same messages: LogGOPSim %d, retime%s\n", sends, diff
        printf "retime / LogGOPSim, sends/s at the medians (target >= 2x):"
        for (i = 1; i <= nk; i++) {
            k = order[i]; if (k == "lgs") continue
            x = lm / med(wall[k]); printf " %s %.2fx (%s)%s", k, x, (x >= 2 ? "met" : "NOT met"), (i < nk - 1 ? "," : "")
            if (x < 2) miss = 1
        }
        printf "\ntarget (collective-heavy trace, every network >= 2x LogGOPSim'"'"'s messages/s): %s\n", miss ? "NOT met" : "met"
    }' "$work/cruns"
fi

# ---- per iteration: both tools' predicted ends after 1..4 iterations, one run each
[ "$breakdown" = 1 ] || exit 0
echo
echo "per iteration (coll schedule; the increase of each tool's predicted end from the iteration before):"
prev_r=0 prev_l=0 bd=1
while [ "$bd" -le 4 ]; do
    t=$(trace_for "$(events_of "$bd")" "$ranks")
    write_goal bd coll "$t"
    "$retime" replay "$t" $retime_model --format json --quiet > "$work/out.json"
    # shellcheck disable=SC2086
    "$lb/LogGOPSim" -f "$work/bd.bin" -b $lgs_model > "$work/lgs.out"
    pr=$(json_field "$work/out.json" predicted_ns) pl=$(lgs_end "$work/lgs.out")
    case $(((bd - 1) % 4)) in
    0|1) kind="MPI_Ssend/MPI_Recv (rendezvous in retime)" ;;
    2) kind="MPI_Send/MPI_Recv (eager)" ;;
    *) kind="MPI_Irecv x2, MPI_Isend x2, MPI_Waitall" ;;
    esac
    awk -v n="$bd" -v k="$kind" -v r="$pr" -v l="$pl" -v pr="$prev_r" -v pl="$prev_l" 'BEGIN {
        printf "  iteration %d, %-42s retime %+9.3f us, LogGOPSim %+9.3f us, retime - LogGOPSim %+8.3f us\n",
               n - 1, k ":", (r - pr) / 1e3, (l - pl) / 1e3, ((r - pr) - (l - pl)) / 1e3 }'
    prev_r=$pr prev_l=$pl bd=$((bd + 1))
done
