#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tutorial's CI gate on a program traced anew on every run (issue #45, item 7). The stencil
# (2 ranks, 200 iterations of 100 sweeps over 2048 doubles: compute bound, in the cache) is
# traced three times and recorded under a name (retime check --name stencil --update, the median
# run); then traced again beside four CPU hogs (started here), into other directories and into
# the first ones: both pass the default gate (5 %), because the fingerprint does not depend on the
# events' times and compute is taken as CPU time; runs whose compute is 10 % longer (110 sweeps)
# fail it, on the prediction. (On the project's 2-core VM beside 4 hogs the CPU time of the same work still varies
# by about 3 % from run to run, measured: 62.5-64.4 ms predicted for 100 sweeps, 67.8-69.1 ms for
# 110; a program whose arrays do not fit in the cache varies far more, as every preemption
# refills them: 16-21 ms for 4 ranks of 32768 doubles.)
# With no-timing (an ASan build, whose CPU times are its instrumentation's and vary by 25 % beside
# other work: measured -24.7 % to +18.4 % for the same program) only what does not depend on
# timing is checked: every re-trace keeps the recorded fingerprint.
# usage: ci_gate.sh MPIRUN_SH TRACE_LIB RETIME STENCIL [timing|no-timing]
set -uo pipefail
mpirun_sh=$1 lib=$2 retime=$3 prog=$4 timing=${5:-timing}
. "$(dirname "$0")/../checks.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null; hogs=(); }
trap 'stop_hogs; rm -rf "$tmp"' EXIT
run() { # dir, sweeps per iteration
  rm -rf "$1"
  "$mpirun_sh" -np 2 -x RETIME_TRACE_DIR="$1" -x LD_PRELOAD="$lib" "$prog" --n 2048 --sweeps "$2" --halo 8 \
    --iters 200 --warmup 0 >"$tmp/out" 2>&1 || { cat "$tmp/out"; return 1; }
}
gate() { "$retime" check "$1" --name stencil --baseline "$tmp/perf.json" "${@:2}"; }

# The baseline is the median of three runs (check --name with several TRACEs): one run that the
# VM slowed must not become the baseline. Seen once in CI with a single baseline run, traced
# alone: 105.5 ms predicted, against 54.2-58.4 ms for all five re-traces beside four hogs (and
# 54.6-56.5 ms alone, 56.5-58.3 ms beside hogs on the next machine).
runs() { # dir-prefix sweeps: three runs into PREFIX-1..3
  local i; for i in 1 2 3; do run "$1-$i" "$2" || return 1; done
}
# And the three must agree within the gate's tolerance (5 %): seen in CI on 2026-12-01, two of three
# slowed alone (62.1-68.9 ms, 10 % apart, the median 67.5 ms against 59.3-64.0 ms for all ten
# re-traces after it); such a recording is traced again, up to 5 times, as a verdict is asked again.
# (no --region: a region's mean over its instances carries the first instance's start-up wait,
# which alone moves it by 10 % between runs; the predicted total does not)
for try in 1 2 3 4 5; do
  rm -f "$tmp/perf.json"
  runs "$tmp/first" 100; traced=$?
  [ "$traced" -eq 0 ] || break
  gate "$tmp/first-1" "$tmp/first-2" "$tmp/first-3" --update --alpha 2.122us --beta 0.7595ns/B >"$tmp/update" 2>&1; rc=$?
  apart=$(sed -n 's/^ADD .*, \([0-9.]*\) % apart).*/\1/p' "$tmp/update")
  if [ "$rc" -ne 0 ] || [ "$timing" = no-timing ] || awk -v a="${apart:-100}" 'BEGIN { exit !(a <= 5) }'; then
    break # (a failed recording is checked below; untimed runs have nothing to agree on)
  fi
  echo "  baseline try $try: its runs ${apart:-?} % apart, more than the 5 % tolerance: traced again"
done
check traced [ "$traced" -eq 0 ]
check recorded [ "$rc" -eq 0 ] || cat "$tmp/update"
grep ADD "$tmp/update"
check recorded-untimed has "$(cat "$tmp/perf.json")" '"fingerprint": "fnv1a64-untimed:'
# A verdict is the median of three new runs, as the baseline; one that the machine's noise can
# still flip is asked up to 5 times (new traces each time): the gate must give it once. What does
# not depend on timing (the fingerprint) is asked every time.
verdict() { # want (0: pass, 1: fail), dir-prefix, sweeps -> the last gate output in $out
  local want=$1 i rc
  for i in 1 2 3 4 5; do
    runs "$2" "$3" || return 1
    out=$(gate "$2-1" "$2-2" "$2-3" 2>&1); rc=$?
    if grep -q "trace changed" <<<"$out"; then echo "  trace changed on try $i"; return 1; fi
    if [ "$timing" = no-timing ]; then echo "  no timing verdict (exit $rc): the fingerprint held"; return 0; fi
    [ "$rc" -eq "$want" ] && { echo "  gate exit $rc on try $i: $(grep -m1 -E '^(PASS|FAIL) ' <<<"$out")"; return 0; }
    echo "  try $i: exit $rc, not $want:"; grep -E "FAIL|^ +[a-z].*%" <<<"$out" | head -6
  done
  return 1
}
for _ in 1 2 3 4; do bash -c 'while :; do :; done' & hogs+=($!); done
check busy-retrace-passes verdict 0 "$tmp/again" 100
check busy-same-path-passes verdict 0 "$tmp/first" 100
stop_hogs
check longer-compute-fails verdict 1 "$tmp/longer" 110
[ "$timing" = no-timing ] || check longer-compute-on-prediction has "$out" "FAIL  stencil"
if [ "$timing" = no-timing ]; then what="re-traces keep the recorded fingerprint (no timing verdicts here)"
else what="a re-trace beside 4 hogs passes the gate, 10 % more compute fails it"; fi
checks_done && echo "PASS: $what" || echo "FAIL: CI gate"
