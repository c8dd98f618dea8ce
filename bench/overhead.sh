#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's cost per MPI call (issue #45, item 6), beside the floor under it, in one run:
# instrument/bench_overhead untraced, traced (default clock, call sites on), traced with
# RETIME_TRACE_CLOCK=monotonic, traced with call sites off; and retime-bench-otf2-floor, what OTF2
# itself takes to write the two records of a call with the two clock reads that stamp them.
# Each figure is by the thread's CPU time (so that a busy machine's waits for a CPU stay out):
# "best", the best of 20 rounds, is what a call costs in itself; "mean", over all rounds, adds the
# tracer's deferred work (encoding its event log into OTF2, flushing it to disk: a few ms every few
# hundred thousand calls). The tracer's cost is the traced figure minus the untraced one. The runs
# repeat ROUNDS times (3), interleaved, and the best of each figure is kept. The load average is
# printed with the table.
# usage: bench/overhead.sh [BUILD_DIR]   (default: build)
# env: CALLS (per round, 50000), ROUNDS (3), MPIRUN (scripts/mpirun.sh)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
bench=$build/instrument/bench_overhead lib=$build/instrument/libretime-trace.so floor=$build/bench/retime-bench-otf2-floor
for f in "$bench" "$lib" "$floor"; do
  [ -e "$f" ] || { echo "overhead.sh: error: $f not found; build with RT_WITH_MPI=ON first" >&2; exit 1; }
done
calls=${CALLS:-50000} rounds=${ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
run() { # name, env...: appends "name send_cpu test_cpu send_mean test_mean mono tsc" to $tmp/rows
  local name=$1; shift
  local env=() e
  for e in "$@"; do env+=(-x "$e"); done
  "${MPIRUN:-$repo/scripts/mpirun.sh}" -np 1 -x RETIME_TRACE_DIR="$tmp/trace-$name-$RANDOM" "${env[@]}" "$bench" "$calls" \
    >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  awk -v n="$name" '/^MPI_Send/ { sc = $5; sm = $11 } /^MPI_Test/ { tc = $5; tm = $11 }
    /^clock_gettime/ { m = $2 } /^rdtsc/ { r = $2 }
    END { print n, sc, tc, sm, tm, m, (r == "" ? "-" : r) }' \
    "$tmp/out" >>"$tmp/rows"
}
for ((i = 0; i < rounds; i++)); do
  run untraced
  run traced "LD_PRELOAD=$lib"
  run monotonic "LD_PRELOAD=$lib" RETIME_TRACE_CLOCK=monotonic
  run no-callsites "LD_PRELOAD=$lib" RETIME_TRACE_CALLSITE=0
  rm -rf "$tmp"/trace-*
  rm -rf "$tmp/floor"; "$floor" "$tmp/floor" "$calls" >>"$tmp/floor.out"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
# best per configuration
awk '{ k = $1; for (i = 2; i <= 5; i++) if (!((k, i) in b) || $i < b[k, i]) b[k, i] = $i
       if (!(k in mono) || $6 < mono[k]) mono[k] = $6; if ($7 != "-" && (!(k in tsc) || $7 < tsc[k])) tsc[k] = $7 }
     END { for (k in mono) print k, b[k, 2], b[k, 3], b[k, 4], b[k, 5], mono[k], (k in tsc ? tsc[k] : "-") }' \
  "$tmp/rows" >"$tmp/best"
get() { awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$tmp/best"; }
printf 'tracer overhead per MPI call, by CPU time: best of 20 rounds of %s calls, and mean of the rounds; %s runs\n' "$calls" "$rounds"
printf 'load average %s before, %s after; %s\n' "$load0" "$load1" "$(nproc) CPUs"
printf '%-14s %12s %12s %12s %12s   %s\n' configuration "Send best" "Test best" "Send mean" "Test mean" "added (Send / Test): best; mean"
for k in untraced traced monotonic no-callsites; do
  added=$(awk -v a="$(get "$k" 2)" -v b="$(get "$k" 3)" -v c="$(get "$k" 4)" -v d="$(get "$k" 5)" \
    -v ua="$(get untraced 2)" -v ub="$(get untraced 3)" -v uc="$(get untraced 4)" -v ud="$(get untraced 5)" \
    -v k="$k" 'BEGIN { if (k == "untraced") print "-"; else printf "%.1f / %.1f ns; %.1f / %.1f ns\n", a - ua, b - ub, c - uc, d - ud }')
  printf '%-14s %9s ns %9s ns %9s ns %9s ns   %s\n' "$k" "$(get "$k" 2)" "$(get "$k" 3)" "$(get "$k" 4)" "$(get "$k" 5)" "$added"
done
printf 'one clock read: clock_gettime(CLOCK_MONOTONIC) %s ns, time-stamp counter %s ns\n' \
  "$(get untraced 6)" "$(get untraced 7)"
echo "OTF2 alone (retime-bench-otf2-floor), best of the runs, per Enter + Leave pair:"
awk '/ns\/pair$/ { v = $(NF - 1); k = $1; for (i = 2; i <= NF - 2; i++) k = k " " $i
       if ($1 == "+" || $1 == "the") k = "  " k
       if (!(k in b) || v < b[k]) { b[k] = v; if (!(k in o)) o[k] = ++n } }
     END { for (k in o) line[o[k]] = sprintf("  %-50s %6.1f ns", k, b[k]); for (i = 1; i <= n; i++) print line[i] }' \
  "$tmp/floor.out"
