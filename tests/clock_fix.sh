#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --fix-clocks through the CLI: the corpus's clock-skew trace (analyze --against measured counts
# 1 violation of 500 ns at rank 1 event 1) has none after the fix, the report in text and JSON
# of replay, replay --runs, analyze and plot timeline, the stored traces, the broken-trace corpus
# (a clear error or a result, never a crash), and bad option values (exit 1, one error line).
set -u
retime=$1; make_bad=$2; work=$3; traces=$4
. "$(dirname "$0")/checks.sh"
rm -rf "$work"; mkdir -p "$work"
"$make_bad" "$work/corpus" >/dev/null || { echo "cannot make test traces"; exit 1; }
num() { grep -o "\"$2\": -\\?[0-9.]*" <<<"$1" | head -1 | awk '{print $2}'; }
H=(--alpha 2.122us --beta 0.7595ns/B)
S=$work/corpus/clock-skew

j=$("$retime" analyze "$S" "${H[@]}" --against measured --format json)
check "skew: 1 violation before" has "$j" '"measured": {"violations": 1, "worst_ns": 500, "worst_rank": 1, "worst_index": 1}'
check "skew: no clock_fix without the option" has "$j" '"clock_fix": null'
j=$("$retime" analyze "$S" "${H[@]}" --against measured --fix-clocks --format json)
check "skew fixed: 0 violations" has "$j" '"measured": {"violations": 0, "worst_ns": 0, "worst_rank": null, "worst_index": null}'
check "skew fixed: report" has "$j" '"clock_fix": {"min_latency_ns": 0, "gamma": 0.99999, "eager_limit_bytes": 65536, "constraints": 1, "violations_before": 1, "violations_after": 0, "worst_ns": 500, "worst_rank": 1, "worst_index": 1, "events_moved": 2, "max_correction_ns": 500, "total_correction_ns": 1000}'
t=$("$retime" analyze "$S" "${H[@]}" --against measured --fix-clocks)
check "skew fixed: text report" has "$t" "clock fix   1 violation of 1 constraint (worst 500 ns at rank 1 event 1), 2 events moved, max correction 500 ns"
check "skew fixed: text measured" has "$t" "measured    0 causality violations"
# l_min 1us: the receive ends 1 us after the send, 1.5 us later than read
for spec in --fix-clocks=1us --fix-clocks=lmin=1us,gamma=0.5 --fix-clocks=gamma=0.5,1000ns; do
  j=$("$retime" analyze "$S" "${H[@]}" --against measured "$spec" --format json)
  check "skew $spec: worst 1500 ns, 0 after" holds '$1 == 1500 && $2 == 1500 && $3 == 0 && $4 == 1000' \
    "$(num "$j" worst_ns)" "$(num "$j" max_correction_ns)" "$(num "$j" violations_after)" "$(num "$j" min_latency_ns)"
done

j=$("$retime" replay "$S" "${H[@]}" --fix-clocks --format json)
check "replay json: report" has "$j" '"clock_fix": {"min_latency_ns": 0'
check "replay json: the span grew to 1100 ns" has "$j" '"measured_ns": 1100'
check "replay json: null without" has "$("$retime" replay "$S" "${H[@]}" --format json)" '"clock_fix": null'
check "replay text" has "$("$retime" replay "$S" "${H[@]}" --fix-clocks)" "clock fix   1 violation of 1 constraint"
check "replay csv" has "$("$retime" replay "$S" "${H[@]}" --fix-clocks --format csv)" "total,,,1100,"
check "replay --runs text" has "$("$retime" replay "$S" "${H[@]}" --net-noise exp:mean=1us --runs 3 --fix-clocks)" \
  "clock fix   1 violation of 1 constraint"
check "replay --runs json" has "$("$retime" replay "$S" "${H[@]}" --net-noise exp:mean=1us --runs 3 --fix-clocks --format json)" \
  '"clock_fix": {"min_latency_ns": 0'
if command -v gnuplot >/dev/null 2>&1; then
  o=$("$retime" plot timeline "$S" "${H[@]}" --measured --fix-clocks --output "$work/tl" 2>&1)
  check "plot timeline: report" has "$o" "clock fix: 1 violation of 1 constraint (worst 500 ns at rank 1 event 1)"
  check "plot timeline: no violations in the title" bash -c "! grep -q 'received before sent' '$work/tl.gp'"
else
  echo "skip plot timeline (no gnuplot)"
fi

# Non-blocking collectives (python3-otf2's nbcoll-skewed): an MPI_Iallreduce whose rank 3 request
# is read at 8000 ns, after ranks 0-2 completed theirs at 3200: 4 constraints (each completion
# after the other members' requests), 3 violated by 4800 ns, none after; before, non-blocking
# collectives were no constraints at all (0 of 0).
/usr/bin/python3 "$(dirname "$0")/ext/gen_traces.py" "$work/gen" >/dev/null || { echo "FAIL gen_traces.py"; exit 1; }
j=$("$retime" analyze "$work/gen/nbcoll-skewed" "${H[@]}" --against measured --fix-clocks --format json)
check "nbcoll skewed: constraints and violations" has "$j" '"constraints": 4, "violations_before": 3, "violations_after": 0, "worst_ns": 4800, "worst_rank": 0, "worst_index": 5'
check "nbcoll skewed: no violation after" has "$j" '"measured": {"violations": 0,'
# An MPI_Ibcast whose root's request is read at 8000, after the others completed at 4200: a
# one-to-all operation, so 3 constraints (the others' completions after the root's request), all
# violated by 3800 ns; the root waits for nobody.
j=$("$retime" analyze "$work/gen/nbcoll-ibcast-skewed" "${H[@]}" --against measured --fix-clocks --format json)
check "nbcoll ibcast skewed: one-to-all constraints" has "$j" '"constraints": 3, "violations_before": 3, "violations_after": 0, "worst_ns": 3800, "worst_rank": 1, "worst_index": 5'

# Stored traces: every constraint holds afterwards; the rooted-collective edges of the model's
# algorithms are not constraints of MPI and may stay (docs/clock-fix.md).
for tr in "$traces"/shift*; do
  j=$("$retime" analyze "$tr" "${H[@]}" --against measured --fix-clocks --format json --quiet)
  check "$(basename "$tr"): 0 violations after" holds '$1 == 0' "$(num "$j" violations_after)"
done

# The broken-trace corpus: a result (with at most one warning line) or one clear error line, never
# a crash.
for tr in "$work"/corpus/*/; do
  err=$("$retime" analyze "$tr" "${H[@]}" --against measured --fix-clocks 2>&1 >/dev/null); rc=$?
  check "corpus $(basename "$tr"): rc $rc" holds '($1 == 0 && ($2 == 0 || $3 == 1)) || ($1 == 1 && $2 == 1)' \
    "$rc" "$(grep -c . <<<"$err")" "$(grep -c '^retime: warning: ' <<<"$err")"
done

for cmd in "replay $S" "analyze $S --against measured" "plot timeline $S --output $work/bad"; do
  # shellcheck disable=SC2086
  set -- $cmd
  check "$1: --fix-clocks=" fails_with "bad --fix-clocks ''" "$retime" "$@" "${H[@]}" --fix-clocks=
  check "$1: no unit" fails_with "needs a unit" "$retime" "$@" "${H[@]}" --fix-clocks=5
  check "$1: negative" fails_with "must not be negative" "$retime" "$@" "${H[@]}" --fix-clocks=-1us
  check "$1: too long" fails_with "outside 0ns .. 1s" "$retime" "$@" "${H[@]}" --fix-clocks=2s
  check "$1: gamma 0" fails_with "gamma '0' is not a number in (0, 1]" "$retime" "$@" "${H[@]}" --fix-clocks=gamma=0
  check "$1: gamma x" fails_with "gamma 'x' is not a number" "$retime" "$@" "${H[@]}" --fix-clocks=lmin=1us,gamma=x
  check "$1: --fix-clocks-x" fails_with "unknown option '--fix-clocksx'" "$retime" "$@" "${H[@]}" --fix-clocksx
done
check "sweep has no --fix-clocks" fails_with "--fix-clocks" "$retime" sweep "$S" --beta 0.7595ns/B --alpha 1us,2us --fix-clocks
checks_done
