#!/bin/sh
# SPDX-License-Identifier: MIT
# The streamed replay against the whole read (issue #49 item 3): for each size, the synthetic Shift
# trace (traces.sh) replayed whole and streamed (--memory-budget 0) by the retime command, beside
# the raw OTF2 decode of the same archive (retime-bench-replay's decode_s), rounds interleaved;
# wall time and peak RSS (/usr/bin/time) of each, and whether the two replays print the same bytes.
# Targets: streamed read+replay at least 0.8x the raw decode's rate by wall time, streamed peak
# RSS at most a tenth of the whole read's at 10^8 events.
# usage: BUILD=build bench/stream.sh [--sizes 1e7,1e8] [--rounds 3]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
sizes=1e7,1e8
rounds=3
while [ $# -gt 0 ]; do
    case $1 in
    --sizes) [ $# -ge 2 ] || { echo "stream.sh: error: --sizes needs a list such as 1e7,1e8" >&2; exit 1; }
        sizes=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || { echo "stream.sh: error: --rounds needs a count" >&2; exit 1; }
        rounds=$2; shift 2 ;;
    *) echo "stream.sh: error: unknown option '$1'" >&2; exit 1 ;;
    esac
done
make_trace="$build/bench/retime-make-trace"
bench="$build/bench/retime-bench-replay"
retime="$build/cli/retime"
for exe in "$make_trace" "$bench" "$retime" /usr/bin/time; do
    [ -x "$exe" ] || { echo "stream.sh: error: $exe not found (build with -DRT_BUILD_BENCH=ON; Debian's time package)" >&2; exit 1; }
done
. "$here/traces.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-stream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
model="--alpha 2.122us --beta 0.7595ns/B"

echo "# $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
printf '%12s %6s %10s %10s %10s %10s %10s %8s %8s %5s %s\n' events round "decode s" "whole s" "whole RSS" \
    "stream s" "stream RSS" "rate/dec" "RSS s/w" same load
for s in $(echo "$sizes" | tr ',' ' '); do
    events=$(to_events "$s") || { echo "stream.sh: error: bad size '$s'" >&2; exit 1; }
    trace=$(trace_for "$events")
    cat "$trace"/traces/* >/dev/null # the page cache holds the archive for every run alike
    r=1
    while [ "$r" -le "$rounds" ]; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        dec=$("$bench" "$trace" --repeat 1 | sed -n 's/^BENCH .*"decode_s":\([0-9.e+-]*\).*/\1/p')
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" -o "$tmp/w.time" "$retime" --quiet replay "$trace" $model >"$tmp/w.out"
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" -o "$tmp/s.time" "$retime" --quiet --memory-budget 0 replay "$trace" $model >"$tmp/s.out"
        same=no
        cmp -s "$tmp/w.out" "$tmp/s.out" && same=yes
        read -r ws wk <"$tmp/w.time"
        read -r ss sk <"$tmp/s.time"
        awk -v n="$events" -v r="$r" -v d="$dec" -v ws="$ws" -v wk="$wk" -v ss="$ss" -v sk="$sk" -v same="$same" \
            -v load="$load" 'BEGIN {
                printf "%12d %6d %10.2f %10.2f %9.0fM %10.2f %9.0fM %8.2f %8.3f %5s %s\n", n, r, d, ws, wk / 1024,
                       ss, sk / 1024, (ss > 0 ? d / ss : 0), (wk > 0 ? sk / wk : 0), same, load
                printf "STREAM {\"events\":%d,\"round\":%d,\"decode_s\":%s,\"whole_s\":%s,\"whole_rss_kib\":%s,", n, r, d, ws, wk
                printf "\"stream_s\":%s,\"stream_rss_kib\":%s,\"same\":\"%s\",\"load\":%s}\n", ss, sk, same, load
            }' >>"$tmp/lines"
        tail -2 "$tmp/lines" | head -1
        r=$((r + 1))
    done
done
echo
echo "rate/dec: the streamed replay's events/s over the raw decode's, by wall time (target >= 0.8);"
echo "RSS s/w: streamed peak RSS over the whole read's (target <= 0.1 at 10^8 events); best round per size:"
awk '/^STREAM / {
    line = $0; gsub(/[{}"]/, "", line); sub(/^STREAM /, "", line)
    n = split(line, kv, ","); delete f
    for (i = 1; i <= n; i++) { split(kv[i], p, ":"); f[p[1]] = p[2] }
    e = f["events"]; q = f["decode_s"] / f["stream_s"]; m = f["stream_rss_kib"] / f["whole_rss_kib"]
    if (!(e in best) || q > best[e]) best[e] = q
    if (!(e in mem) || m < mem[e]) mem[e] = m
    if (f["same"] != "yes") diff[e] = 1
}
END {
    for (e in best)
        printf "%12d  rate/dec %.2f (%s)  RSS s/w %.3f (%s)  output %s\n", e, best[e], (best[e] >= 0.8 ? "met" : "NOT met"),
               mem[e], (e < 1e8 ? "judged at 10^8" : (mem[e] <= 0.1 ? "met" : "NOT met")), (diff[e] ? "DIFFERS" : "byte-identical")
}' "$tmp/lines" | sort -n
