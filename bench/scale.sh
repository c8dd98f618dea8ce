#!/bin/sh
# SPDX-License-Identifier: MIT
# Scaling benchmark: for each size, makes (once) a synthetic Shift trace and prints retime's rates
# beside the raw OTF2 decode of the same archive, then a table over all sizes with the linearity.
# usage: BUILD=build bench/scale.sh [--sizes 1e5,1e6,1e7,1e8] [--mc-budget EVENTS] [retime-bench-replay --scale options]
# --mc-budget caps each size's Monte Carlo at EVENTS replayed events in all (runs = min(100, EVENTS / size),
# at least 1), so that 10^8 does not take 100 full replays; the rate stays comparable (events/s).
# Builds nothing: configure and build first (cmake -S . -B build && cmake --build build).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
sizes=1e5,1e6,1e7,1e8
budget=
while [ $# -gt 0 ]; do
    case $1 in
    --sizes)
        [ $# -ge 2 ] || { echo "scale.sh: error: --sizes needs a list such as 1e5,1e6" >&2; exit 1; }
        sizes=$2
        shift 2 ;;
    --mc-budget)
        [ $# -ge 2 ] || { echo "scale.sh: error: --mc-budget needs a number of events such as 1e9" >&2; exit 1; }
        budget=$(awk -v s="$2" 'BEGIN { if (s !~ /^[0-9.]+([eE][0-9]+)?$/ || s + 0 < 1) exit 1; printf "%.0f", s }') ||
            { echo "scale.sh: error: bad --mc-budget '$2'" >&2; exit 1; }
        shift 2 ;;
    *) break ;;
    esac
done

make_trace="$build/bench/retime-make-trace"
. "$here/traces.sh"
bench="$build/bench/retime-bench-replay"
for exe in "$make_trace" "$bench"; do
    if [ ! -x "$exe" ]; then
        echo "scale.sh: error: $exe not found; build with -DRT_BUILD_BENCH=ON first" >&2
        exit 1
    fi
done

tmp=${TMPDIR:-/tmp}
lines=$(mktemp "$tmp/retime-scale.XXXXXX")
trap 'rm -f "$lines"' EXIT INT TERM
echo "# $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for s in $(echo "$sizes" | tr ',' ' '); do
    events=$(to_events "$s") || { echo "scale.sh: error: bad size '$s'" >&2; exit 1; }
    trace=$(trace_for "$events")
    echo
    if [ -n "$budget" ]; then
        runs=$(awk -v b="$budget" -v n="$events" 'BEGIN { r = int(b / n); if (r > 100) r = 100; if (r < 1) r = 1; print r }')
        "$bench" "$trace" --scale "$@" --mc-runs "$runs" | tee -a "$lines"
    else
        "$bench" "$trace" --scale "$@" | tee -a "$lines"
    fi
done

# The summary: one row per size from the BENCH lines (flat JSON: split on , and :).
echo
awk '
function field(line, key,    i, n, kv, parts) {
    n = split(line, parts, ",")
    for (i = 1; i <= n; i++) {
        split(parts[i], kv, ":")
        gsub(/[{}" ]/, "", kv[1])
        if (kv[1] == key) { gsub(/[{}" ]/, "", kv[2]); return kv[2] + 0 }
    }
    return 0
}
/^BENCH / {
    r++
    ev[r] = field($0, "otf2_events")
    for (c = 1; c <= nc; c++) v[r, c] = field($0, col[c])
    ratio[r] = field($0, "ratio"); sratio[r] = field($0, "serial_ratio"); acct[r] = field($0, "bpe_accounted"); rss[r] = field($0, "bpe_rss")
    mcr = field($0, "mc_runs")
}
BEGIN {
    nc = split("decode_eps read_eps serial_read_eps hockney_eps logp_eps total_eps analyze_eps mc_eps", col, " ")
    split("raw decode,read,read 1 thread,replay Hockney,replay LogP,read+replay,analyze,Monte Carlo", name, ",")
}
END {
    if (!r) exit 1
    printf "events/s (millions), best of the repeats; ratio = read+replay Hockney / raw decode (target >= 0.6),\n"
    printf "ratio 1t = the same with the read on one thread\n"
    printf "%12s", "events"
    for (c = 1; c <= nc; c++) printf " %14s", name[c]
    printf " %7s %8s %9s %9s\n", "ratio", "ratio 1t", "acct B/ev", "RSS B/ev"
    for (i = 1; i <= r; i++) {
        printf "%12d", ev[i]
        for (c = 1; c <= nc; c++) printf " %14.2f", v[i, c] / 1e6
        printf " %7.2f %8.2f %9.2f %9.2f\n", ratio[i], sratio[i], acct[i], rss[i]
    }
    printf "%12s", "max/min"
    for (c = 1; c <= nc; c++) {
        lo = hi = v[1, c]
        for (i = 2; i <= r; i++) { if (v[i, c] < lo) lo = v[i, c]; if (v[i, c] > hi) hi = v[i, c] }
        printf " %14s", (lo > 0 ? sprintf("%.2f", hi / lo) : "-")
    }
    printf "\n(linearity: max/min events/s per column across the sizes; target < 1.3)\n"
    json = "SCALE {\"sizes\":["
    for (i = 1; i <= r; i++) json = json (i > 1 ? "," : "") ev[i]
    json = json "]"
    for (c = 1; c <= nc; c++) {
        lo = hi = v[1, c]
        for (i = 2; i <= r; i++) { if (v[i, c] < lo) lo = v[i, c]; if (v[i, c] > hi) hi = v[i, c] }
        json = json sprintf(",\"%s_maxmin\":%.4f", col[c], (lo > 0 ? hi / lo : 0))
    }
    print json "}"
}' "$lines"
