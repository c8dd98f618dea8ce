#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's event clock and its sparse call sites (issue #45, item 6), on event_clock_test.c,
# 3 ranks, traced with the default clock and with RETIME_TRACE_CLOCK=monotonic:
#   - the archive names its clock (retime info "event clock"): the time-stamp counter where the
#     kernel keeps time with it (clocksource tsc) and the CPU says it is invariant, else
#     CLOCK_MONOTONIC; with the counter, its rate stayed within 1 ppm of CLOCK_MONOTONIC_RAW;
#   - the region "sleep" lasts, in the trace, what the program measured with CLOCK_MONOTONIC
#     around its 300 ms sleep: not shorter by more than 30 us (100 ppm: a calibration that is off
#     shows here), not longer by more than 50 ms (a rank kept off a CPU between the reads);
#   - the call sites are written only when they change for their region, yet every MPI_Barrier
#     call is attributed to its own site: validate's per-call-site counts are 7P, 4P, 8P and P
#     (site A 7 times in a row, B and C in turn, D once) and the trace has 12 call-site
#     attributes per rank, not one per call (22);
#   - the ranks of the one host have clock offset 0.
# usage: event_clock.sh MPIRUN_SH TRACE_LIB OTF2_PRINT RETIME PROGRAM
set -uo pipefail
mpirun_sh=$1 lib=$2 otf2_print=$3 retime=$4 prog=$5
np=3
. "$(dirname "$0")/../checks.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tsc_here=0
if [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] &&
   grep -m1 '^flags' /proc/cpuinfo | grep -qw constant_tsc &&
   grep -m1 '^flags' /proc/cpuinfo | grep -qw nonstop_tsc && [ "$(uname -m)" = x86_64 ]; then
  tsc_here=1
fi
echo "the kernel keeps time with the time-stamp counter: $tsc_here"

for clock in default monotonic; do
  dir=$tmp/$clock
  env=()
  [ "$clock" = monotonic ] && env=(-x RETIME_TRACE_CLOCK=monotonic)
  "$mpirun_sh" -np $np -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "${env[@]}" "$prog" >"$tmp/out" 2>&1
  rc=$?
  check "$clock: program-ok" bash -c '[ "$0" -eq 0 ] && grep -q "event_clock_test: ok" "$1"' "$rc" "$tmp/out" ||
    cat "$tmp/out"
  "$retime" info "$dir" >"$tmp/info" 2>&1
  line=$(grep '^event clock' "$tmp/info")
  if [ "$clock" = default ] && [ $tsc_here = 1 ]; then
    check "$clock: names the counter" has "$line" "tsc at " || echo "  $line"
    ppm=$(sed -n 's/.*at most \([0-9.]*\) ppm from CLOCK_MONOTONIC_RAW.*/\1/p' <<<"$line")
    check "$clock: counter's rate within 1 ppm ($ppm)" holds '$1 != "" && $1 <= 1' "${ppm:-x}"
  else
    check "$clock: names CLOCK_MONOTONIC" same "$line" "event clock    CLOCK_MONOTONIC" || echo "  $line"
  fi
  if grep -q '^clock offsets' "$tmp/info"; then
    check "$clock: offsets 0 on one host" false; grep '^clock offsets' "$tmp/info"
  fi

  # the sleep: trace's region length against the program's own reading, per rank
  "$otf2_print" "$dir/traces.otf2" >"$tmp/print" 2>/dev/null
  awk '$1 == "ENTER" && /"sleep"/ { b[$2] = $3 } $1 == "LEAVE" && /"sleep"/ { print $2, $3 - b[$2] }' \
    "$tmp/print" | sort >"$tmp/traced"
  sed -n 's/^rank \([0-9]*\) slept_ns \([0-9]*\)$/\1 \2/p' "$tmp/out" | sort >"$tmp/slept"
  both=$(join "$tmp/traced" "$tmp/slept")
  check "$clock: every rank's sleep traced" same "$(grep -c . <<<"$both")" $np
  while read -r r traced slept; do
    check "$clock: rank $r sleep $traced ns traced, $slept ns measured" \
      holds '$1 >= $2 - 30000 && $1 <= $2 + 50000000' "$traced" "$slept"
  done <<<"$both"

  # call sites: counts per site, and how many attributes were written
  "$retime" validate "$dir" --alpha 1us --beta 0.1ns/B --format csv --top 1000 >"$tmp/val" 2>&1
  counts=$(awk -F, '$1 == "callsite" && /MPI_Barrier/ { print $(NF - 3) }' "$tmp/val" | sort -n | tr '\n' ' ')
  check "$clock: per-site counts" same "$counts" "$np $((4 * np)) $((7 * np)) $((8 * np)) " ||
    grep '^callsite' "$tmp/val"
  attrs=$(grep -c 'retime::callsite' "$tmp/print")
  check "$clock: call sites written when they change ($attrs)" same "$attrs" $((12 * np))
done
checks_done && echo "PASS: event clock and sparse call sites" || echo "FAIL: event clock"
