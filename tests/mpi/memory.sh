#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's memory must not grow with the length of the run: its event buffers are flushed
# to disk when RETIME_TRACE_BUFFER_MB is used up. Runs fill_test (fill_test.c: 2,000 events per
# rank and step, two MPI calls; a communication-bound Shift of as many events took 10 minutes
# beside four CPU hogs on two cores) for each length untraced and traced (default buffer, and a
# 2 MiB buffer), measures the peak RSS of
# every rank (rss_wrap: getrusage of the finished process, MPI_Finalize included), and prints
# the largest rank's RSS and the wall time of each run. The tracer's share is traced minus
# untraced RSS; between the shortest and the longest run it may grow by at most the buffer
# plus SLACK_MIB (OTF2's 4 MiB file buffer and allocator slack), not with the event count.
# usage: memory.sh MPIRUN_SH NP TRACE_LIB RSS_WRAP FILL_TEST SLACK_MIB STEPS...
set -uo pipefail
mpirun_sh=$1 np=$2 lib=$3 wrap=$4 fill_prog=$5 slack=$6
shift 6
lengths=("$@")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure NAME STEPS [mpirun args...]: sets rss (KiB, max over ranks), secs and size (MiB of
# trace written), and removes the trace.
measure() {
  local name=$1 steps=$2
  shift 2
  rm -rf "$tmp/$name.rss" "$tmp/trace"
  local t0 t1
  t0=$(date +%s.%N)
  "$mpirun_sh" -np "$np" "$@" "$wrap" "$tmp/$name.rss" "$fill_prog" --steps "$steps" --regions 1000 \
    >"$tmp/$name.out" 2>&1 || {
    echo "FAIL: $name run"; cat "$tmp/$name.out"; exit 1; }
  t1=$(date +%s.%N)
  grep -q '^verification: passed$' "$tmp/$name.out" || { echo "FAIL: $name did not verify"; cat "$tmp/$name.out"; exit 1; }
  if grep -q 'retime-trace:' "$tmp/$name.out"; then echo "FAIL: $name: the tracer warned"; cat "$tmp/$name.out"; exit 1; fi
  [ "$(grep -c '^maxrss_kib ' "$tmp/$name.rss")" -eq "$np" ] || { echo "FAIL: $name: missing RSS figures"; exit 1; }
  rss=$(awk '$2 > m { m = $2 } END { print m }' "$tmp/$name.rss")
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  size=-
  [ -d "$tmp/trace" ] && size=$(du -sk "$tmp/trace" | awk '{ printf "%.1f", $1 / 1024 }')
  rm -rf "$tmp/trace"
}

printf '%-8s %-12s %10s %11s %8s %10s\n' steps run rss_kib tracer_kib wall_s trace_mib
declare -A over
for it in "${lengths[@]}"; do
  measure plain "$it"
  plain=$rss
  printf '%-8s %-12s %10s %11s %8s %10s\n' "$it" untraced "$rss" - "$secs" -
  for buf in default 2; do
    args=(-x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib")
    [ "$buf" = default ] || args+=(-x RETIME_TRACE_BUFFER_MB="$buf")
    measure traced "$it" "${args[@]}"
    over[$it,$buf]=$((rss - plain))
    printf '%-8s %-12s %10s %11s %8s %10s\n' "$it" "traced:$buf" "$rss" "${over[$it,$buf]}" "$secs" "$size"
  done
done

first=${lengths[0]} last=${lengths[${#lengths[@]} - 1]}
status=0
for buf in default 2; do
  budget=$([ "$buf" = default ] && echo 16 || echo "$buf")
  limit=$(((budget + slack) * 1024))
  growth=$((over[$last,$buf] - over[$first,$buf]))
  echo "buffer $budget MiB: the tracer's RSS grew by $growth KiB from $first to $last steps (limit $limit KiB)"
  [ "$growth" -le "$limit" ] || { echo "FAIL: the tracer's memory grows with the run (buffer $budget MiB)"; status=1; }
done
[ "$status" -eq 0 ] && echo "PASS: the tracer's memory stays bounded by its buffer"
exit "$status"
