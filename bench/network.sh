#!/bin/sh
# SPDX-License-Identifier: MIT
# Network benchmark (issue #20, item 8): the replay rate with a routed topology beside the crossbar
# rate, on synthetic Shift traces of 512 ranks (made once through traces.sh), target >= 0.3x.
# usage: BUILD=build bench/network.sh [--sizes 1e6,1e7] [--repeat R] [--perturb SPEC] [--no-perturb]
#                                     [--no-dragonfly] [--no-cli] [--no-coll] [--no-mappings] [--no-machine]
# Then (unless --no-coll) the collective-heavy traces of issue #30 (an 8 B allreduce and a 64 KiB
# bcast per iteration, no point-to-point messages; 64 and 512 ranks, the first size only): their
# replay rate on a torus and a fat tree beside the crossbar's, where collectives are timed in one
# go; target >= 0.3x.
# For each size, two measurements, each interleaved (round r runs every network once, in order):
#   1. retime-bench-network: the trace read once, then rt_replay_run alone per network (replay rate);
#   2. the CLI end to end, `retime replay TRACE --alpha 2.122us --beta 0.7595ns/B [--topology T]
#      [--perturb P]` under /usr/bin/time: wall time (read + replay + output) and peak RSS.
# Networks: crossbar (no --topology: the single-port reference), crossbar-flow, torus:8x8x8,
# fattree:512, dragonfly:16,8,4,4 (512 nodes each: one rank per node, block mapping); and, with
# background traffic, which needs nodes the trace leaves free, the same kinds at 1024 nodes
# (torus:8x8x16, fattree:1024, dragonfly:32,8,4,4) without and with --perturb SPEC (default
# ratio=0.1,pattern=uniform,size=4KiB,interval=20us: 102 nodes, each 4 KiB to a random other every
# 20 us, about 16 % of their NICs' bandwidth). Figures are min and median over R rounds (default 3).
# Then (unless --no-mappings, issue #35) the first size on torus:8x8x8 and a 3-level fat tree with
# the block and a random mapping, under the exact contention model and the fast one: time, the
# model's work (flows recomputed per routed message), random against block (target <= 3x), and the
# fast model's error against the exact one; and (unless --no-machine) the machine-size rows: the
# same trace on fat trees of 10^3 to 10^7 nodes, random mapping, CLI time and peak RSS.
# Builds nothing: cmake --build BUILD --target retime retime-make-trace retime-bench-network.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
sizes=1e6,1e7
repeat=3
perturb=ratio=0.1,pattern=uniform,size=4KiB,interval=20us
with_perturb=1 with_dragonfly=1 with_cli=1 with_coll=1 with_mappings=1 with_machine=1
ranks=512
while [ $# -gt 0 ]; do
    case $1 in
    --sizes) [ $# -ge 2 ] || { echo "network.sh: error: --sizes needs a list such as 1e6,1e7" >&2; exit 1; }
        sizes=$2; shift 2 ;;
    --repeat) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || { echo "network.sh: error: --repeat needs a count >= 1" >&2; exit 1; }
        repeat=$2; shift 2 ;;
    --perturb) [ $# -ge 2 ] || { echo "network.sh: error: --perturb needs a spec (retime replay --perturb)" >&2; exit 1; }
        perturb=$2; shift 2 ;;
    --no-perturb) with_perturb=0; shift ;;
    --no-dragonfly) with_dragonfly=0; shift ;;
    --no-cli) with_cli=0; shift ;;
    --no-coll) with_coll=0; shift ;;
    --no-mappings) with_mappings=0; shift ;;
    --no-machine) with_machine=0; shift ;;
    -h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "network.sh: error: unexpected argument '$1'" >&2; exit 1 ;;
    esac
done

make_trace="$build/bench/retime-make-trace"
bench="$build/bench/retime-bench-network"
retime="$build/cli/retime"
for exe in "$make_trace" "$bench" "$retime"; do
    if [ ! -x "$exe" ]; then
        echo "network.sh: error: $exe not found; build with -DRT_BUILD_BENCH=ON first" >&2
        exit 1
    fi
done
if [ "$with_cli" = 1 ] && [ ! -x /usr/bin/time ]; then
    echo "network.sh: error: /usr/bin/time (GNU time) is needed for the CLI's peak RSS; or pass --no-cli" >&2
    exit 1
fi
. "$here/traces.sh"

# The networks, one per line: SPEC as retime-bench-network --net takes it (TOPOLOGY[+PERTURB]).
nets=$(
    echo crossbar; echo crossbar-flow; echo torus:8x8x8; echo fattree:512
    [ "$with_dragonfly" = 0 ] || echo dragonfly:16,8,4,4
    if [ "$with_perturb" = 1 ]; then
        echo torus:8x8x16; echo "torus:8x8x16+$perturb"
        echo fattree:1024; echo "fattree:1024+$perturb"
        if [ "$with_dragonfly" = 1 ]; then echo dragonfly:32,8,4,4; echo "dragonfly:32,8,4,4+$perturb"; fi
    fi
)
model="--alpha 2.122us --beta 0.7595ns/B"

tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/retime-network.XXXXXX")
trap 'rm -f "$work"/lines "$work"/cli "$work"/time "$work"/out.json; rmdir "$work"' EXIT INT TERM
: > "$work/lines"; : > "$work/cli"

now() { date +%s.%N; }
echo "# $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# perturb: $perturb"
for s in $(echo "$sizes" | tr ',' ' '); do
    events=$(to_events "$s") || { echo "network.sh: error: bad size '$s'" >&2; exit 1; }
    trace=$(trace_for "$events" "$ranks")
    echo
    # 1. the replay alone, in one process
    set --
    for n in $nets; do set -- "$@" --net "$n"; done
    "$bench" "$trace" --repeat "$repeat" "$@" | tee -a "$work/lines"
    # the CLI's JSON once (the first topology): its routed count and links' messages agree with the above
    js=$("$retime" replay "$trace" $model --topology torus:8x8x8 --format json --quiet)
    routed=$(echo "$js" | sed 's/"links": .*//; s/.*"network": {//' | tr ',' '\n' | awk '/"routed": / { print $2 + 0 }')
    sum=$(echo "$js" | sed 's/"per_rank".*//; s/.*"network": {//' | tr ',' '\n' |
          awk '/"messages": / { sub(/.*"messages": /, ""); s += $0 } END { print s + 0 }')
    want=$(grep '"net":"torus:8x8x8"' "$work/lines" | tail -1)
    case $want in
    *"\"routed\":$routed,"*"\"link_crossings\":$sum,"*) same="same as above" ;;
    *) same="DIFFERENT from above" ;;
    esac
    echo "retime replay --topology torus:8x8x8 --format json: routed $routed, links' messages $sum" \
         "($(awk -v s="$sum" -v r="$routed" 'BEGIN { printf "%.3f", r ? s / r : 0 }') links per route): $same"
    # 2. the CLI end to end
    [ "$with_cli" = 1 ] || continue
    r=1
    while [ "$r" -le "$repeat" ]; do
        for n in $nets; do
            case $n in
            crossbar) set -- ;;
            *+*) set -- --topology "${n%%+*}" --perturb "${n#*+}" ;;
            *) set -- --topology "$n" ;;
            esac
            a=$(now)
            /usr/bin/time -f "%M" -o "$work/time" "$retime" replay "$trace" $model "$@" --quiet > /dev/null
            b=$(now)
            echo "$trace $n $r $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b - a }') $(tail -1 "$work/time")" >> "$work/cli"
        done
        r=$((r + 1))
    done
done

# The table: the replay alone (BENCH lines) and the CLI (wall, RSS) per size and network.
echo
awk -v cli="$work/cli" '
function field(line, key,    i, n, kv, parts) {
    n = split(line, parts, ",\"")
    for (i = 1; i <= n; i++) {
        split(parts[i], kv, "\":")
        gsub(/[{}" ]/, "", kv[1])
        if (kv[1] == key) { v = kv[2]; gsub(/^"|"$/, "", v); return v }
    }
    return ""
}
function med(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function mn(list,    n, a, i, m) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
BEGIN {
    while ((getline line < cli) > 0) {
        split(line, f, " ")
        k = f[1] SUBSEP f[2]
        wall[k] = wall[k] (wall[k] == "" ? "" : " ") f[4]
        if (f[5] + 0 > rss[k]) rss[k] = f[5] + 0
    }
}
/^BENCH / {
    r++
    ev[r] = field($0, "events"); net[r] = field($0, "net"); msgs[r] = field($0, "messages"); tr[r] = field($0, "trace")
    rmin[r] = field($0, "min_s"); rmed[r] = field($0, "median_s"); ratio[r] = field($0, "ratio")
    routed[r] = field($0, "routed"); cross[r] = field($0, "link_crossings")
    if (net[r] == "crossbar") ref = r
    refmed[r] = rmed[ref]; refev[r] = ev[ref]
}
END {
    if (!r) exit 1
    printf "replay = rt_replay_run alone (trace read once); CLI = retime replay end to end (read, replay, output);\n"
    printf "min and median over the rounds; rates and ratios at the median; ratio = rate / crossbar rate (target >= 0.3);\n"
    printf "links/route = links'"'"' message counts / routed (NIC links included); ns/msg, ns/link = replay time over the\n"
    printf "crossbar'"'"'s per routed message and per link crossed\n"
    printf "%10s %-34s %7s %7s %7s %7s %6s %7s %7s %6s %7s %7s %6s %6s %6s\n", "events", "network", "rep_min", "rep_med",
           "Mev/s", "Mmsg/s", "ratio", "cli_min", "cli_med", "ratio", "RSS_MB", "routed", "links", "ns/msg", "ns/lnk"
    for (i = 1; i <= r; i++) {
        k = tr[i] SUBSEP net[i]
        kr = tr[i] SUBSEP "crossbar"
        cm = cmin = 0
        if (wall[k] != "") { cm = med(wall[k]); cmin = mn(wall[k]) }
        crat = 0
        if (cm > 0 && wall[kr] != "") crat = med(wall[kr]) / cm
        name = net[i]; if (length(name) > 34) name = substr(name, 1, 31) "..."
        extra = rmed[i] - refmed[i]
        s_cmin = s_cmed = s_crat = s_rss = s_links = s_msg = s_lnk = "-"
        if (cm > 0) { s_cmin = sprintf("%.3f", cmin); s_cmed = sprintf("%.3f", cm) }
        if (crat > 0) s_crat = sprintf("%.2f", crat)
        if (rss[k] > 0) s_rss = sprintf("%.1f", rss[k] / 1024)
        if (routed[i] > 0) { s_links = sprintf("%.2f", cross[i] / routed[i]); s_msg = sprintf("%.0f", extra / routed[i] * 1e9) }
        if (cross[i] > 0) s_lnk = sprintf("%.0f", extra / cross[i] * 1e9)
        printf "%10d %-34s %7.3f %7.3f %7.2f %7.3f %6.2f %7s %7s %6s %7s %7d %6s %6s %6s\n", ev[i], name, rmin[i], rmed[i],
               ev[i] / rmed[i] / 1e6, msgs[i] / rmed[i] / 1e6, ratio[i], s_cmin, s_cmed, s_crat, s_rss, routed[i], s_links,
               s_msg, s_lnk
        if (net[i] ~ /^(torus:8x8x8|fattree:512)$/) { named++; if (ratio[i] + 0 < 0.3) miss = miss " " net[i] "@" ev[i] }
        else if (net[i] != "crossbar" && ratio[i] + 0 < 0.3) other = other " " net[i] "@" ev[i]
    }
    verdict = "NOT met:" miss
    if (miss == "") verdict = "met (" named " of " named ")"
    printf "\ntarget (replay rate on torus:8x8x8 and fattree:512 >= 0.3x the crossbar rate, at the median): %s\n", verdict
    if (other != "") printf "other networks below 0.3x:%s\n", other
}' "$work/lines"

# Mappings and the contention model (issue #35): block against random, exact against fast.
if [ "$with_mappings" = 1 ]; then
    events=$(to_events "$(echo "$sizes" | cut -d, -f1)")
    trace=$(trace_for "$events" "$ranks")
    ft3='fattree:XGFT(3;8,8,8;1,8,8)'
    set --
    for t in torus:8x8x8 "$ft3"; do
        for c in exact fast; do
            set -- "$@" --net "$t%$c" --net "$t@random:1%$c"
        done
    done
    echo
    "$bench" "$trace" --repeat "$repeat" --net crossbar "$@" | tee "$work/lines"
    echo
    awk '
function field(line, key,    v) { # a string value ends at its quote (specs hold commas), a number at , or }
    v = line; sub(".*\"" key "\":", "", v)
    if (substr(v, 1, 1) == "\"") { v = substr(v, 2); sub(/".*/, "", v) } else sub(/[,}].*/, "", v)
    return v
}
/^BENCH / {
    net = field($0, "net"); if (net == "crossbar") next
    med[net] = field($0, "median_s") + 0; rec[net] = field($0, "recomputed") / field($0, "routed")
    order[++n] = net
}
/^BENCH_FAST / { err[field($0, "net")] = sprintf("%+.3f%%", 100 * field($0, "end_error")) }
END {
    printf "%-36s %-8s %8s %14s %9s %10s\n", "network", "mapping", "med_s", "random/block", "rec/msg", "end vs exact"
    for (i = 1; i <= n; i++) {
        net = order[i]; if (net ~ /@random/) continue
        base = net; sub(/%.*/, "", base); c = net; sub(/.*%/, "", c)
        rnd = base "@random:1%" c
        x = med[net] > 0 ? med[rnd] / med[net] : 0
        e1 = (net in err) ? err[net] : "-"; e2 = (rnd in err) ? err[rnd] : "-"
        printf "%-36s %-8s %8.3f %14s %9.1f %10s\n", base "%" c, "block", med[net], "", rec[net], e1
        printf "%-36s %-8s %8.3f %13.1fx %9.1f %10s\n", base "%" c, "random:1", med[rnd], x, rec[rnd], e2
        verdict[c] = verdict[c] sprintf(" %s %.1fx", base, x)
        if (x > 3) bad[c] = 1
    }
    for (c in verdict) printf "target (random <= 3x block, %s contention):%s: %s\n", c, verdict[c], bad[c] ? "NOT met" : "met"
}' "$work/lines"
fi

# Machine size (issue #35): the same 512 ranks scattered (random mapping) over fat trees of 10^3 to
# 10^7 nodes, the CLI end to end: wall time and peak RSS; memory follows the links used.
if [ "$with_machine" = 1 ] && [ "$with_cli" = 1 ]; then
    events=$(to_events "$(echo "$sizes" | cut -d, -f1)")
    trace=$(trace_for "$events" "$ranks")
    echo
    printf "%-14s %-8s %8s %8s\n" "machine" "model" "wall_s" "RSS_MB"
    for nodes in 1000 10000 100000 1000000 10000000; do
        for c in exact fast; do
            a=$(now)
            /usr/bin/time -f "%M" -o "$work/time" "$retime" replay "$trace" $model --topology "fattree:$nodes" \
                --mapping random:1 --contention "$c" --quiet > /dev/null
            b=$(now)
            printf "%-14s %-8s %8.3f %8.1f\n" "fattree:$nodes" "$c" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')" \
                "$(awk '{ print $1 / 1024 }' "$work/time")"
        done
    done
fi

# Collectives on the network (issue #30): the collective-heavy traces, the replay alone.
[ "$with_coll" = 1 ] || exit 0
events=$(to_events "$(echo "$sizes" | cut -d, -f1)")
: > "$work/lines"
for p in 64 512; do
    trace=$(coll_trace_for "$events" "$p")
    if [ "$p" = 64 ]; then set -- --net crossbar --net torus:4x4x4 --net fattree:64
    else set -- --net crossbar --net torus:8x8x8 --net fattree:512; fi
    echo
    "$bench" "$trace" --repeat "$repeat" "$@" | tee -a "$work/lines"
done
echo
awk '/^BENCH / {
    n = $0; sub(/.*"net":"/, "", n); sub(/".*/, "", n)
    r = $0; sub(/.*"ratio":/, "", r); sub(/,.*/, "", r)
    k = $0; sub(/.*"ranks":/, "", k); sub(/,.*/, "", k)
    if (n == "crossbar") next
    total++
    if (r + 0 < 0.3) miss = miss " " n "@p" k "(" r ")"
}
END {
    if (miss == "") printf "target (collective-heavy replay on a torus and a fat tree >= 0.3x the crossbar rate, at the median): met (%d of %d)\n", total, total
    else printf "target (collective-heavy replay on a torus and a fat tree >= 0.3x the crossbar rate, at the median): NOT met:%s\n", miss
}' "$work/lines"
