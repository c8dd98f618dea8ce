#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `retime check` (the CI gate on stored traces) through the CLI: the stored baseline passes and
# holds the Shift paper's closed forms; edited baselines and changed, missing or extra traces fail
# on purpose with the right trace, numbers and reasons; tolerances decide; --update records what
# a check then passes; JUnit XML is valid and counts right; bad baselines and options are errors.
set -u
retime=$1; traces=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"

# output with runs of spaces squeezed (the report pads its columns to the longest name)
sq() { tr -s ' ' <<<"$1"; }
# exit status N: exits N command...
exits() { local want=$1 rc=0; shift; "$@" >/dev/null 2>&1 || rc=$?; [ "$rc" -eq "$want" ] || { echo "  got rc=$rc"; false; }; }
# exit status 2 (a usage error or a bad baseline) and one error line containing the text
usage_fails() {
  local text=$1 err rc; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && has "$err" "$text" || { echo "  got rc=$rc: $err"; false; }
}
# "cases=N failures=N errors=N skipped=N" of a JUnit file, counted from its elements, after
# checking the suite's own counters and name (python3 exits non-zero on invalid XML)
junit() {
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
n = {k: sum(1 for c in cases if c.find(k) is not None) for k in ("failure", "error", "skipped")}
assert root.tag == "testsuites" and suite.get("name") == "retime check", "suite name"
assert all(c.get("classname") and c.get("name") and float(c.get("time")) >= 0 for c in cases), "testcase attributes"
assert int(suite.get("tests")) == len(cases) and int(suite.get("failures")) == n["failure"], "suite counters"
assert int(suite.get("errors")) == n["error"] and int(suite.get("skipped")) == n["skipped"], "suite counters"
print("cases=%d failures=%d errors=%d skipped=%d" % (len(cases), n["failure"], n["error"], n["skipped"]))
PY
}
# the text of a testcase's failure element: junit_failure FILE TRACE
junit_failure() {
  python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
for c in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if c.get("name") == sys.argv[2] and c.find("failure") is not None:
        f = c.find("failure"); print(f.get("message")); print(f.get("type")); print(f.text)
PY
}
# edit a baseline with a python expression over b (the parsed JSON) and t (its traces by path)
edit() { # in out expression
  python3 - "$1" "$2" "$3" <<'PY'
import sys, json
b = json.load(open(sys.argv[1])); t = {e["path"]: e for e in b["traces"]}
exec(sys.argv[3])
json.dump(b, open(sys.argv[2], "w"), indent=2)
PY
}
# a field of the stored baseline's entry: field TRACE PYTHON-EXPR-OVER-e
field() {
  python3 -c 'import sys, json; e = {x["path"]: x for x in json.load(open(sys.argv[1]))["traces"]}[sys.argv[2]]; print(eval(sys.argv[3]))' \
    "$traces/baseline.json" "$1" "$2"
}

B=$traces/baseline.json
W=$work/traces # a writable copy of the stored traces and their baseline
cp -r "$traces" "$W"
K2=shift1d-ssend-p8-k2-m1000

# 1. The stored traces pass against the stored baseline, from any directory, and JUnit says so.
out=$("$retime" check "$traces" --baseline "$B" --junit "$work/pass.xml"); rc=$?
check pass-exit-0 [ "$rc" -eq 0 ]
check pass-summary has "$(sq "$out")" "7 passed, 0 failed, 0 errors, 0 not checked"
check pass-settings has "$(sq "$out")" "model hockney alpha=2.122us beta=0.7595ns/B eager-limit=65536B compute-scale=0"
check pass-junit same "$(junit "$work/pass.xml")" "cases=7 failures=0 errors=0 skipped=0"
out=$(cd "$traces" && "$retime" check --baseline baseline.json); rc=$?
check pass-no-operands-elsewhere [ "$rc" -eq 0 ]
check pass-no-operands-names has "$(sq "$out")" "PASS shift3d-isend-p64-k1-m1000 "
out=$("$retime" check "$traces/$K2/traces.otf2" --baseline "$B"); rc=$?
check anchor-file-named-by-dir has "$(sq "$out")" "PASS $K2 "
check subset-others-not-checked has "$(sq "$out")" "1 passed, 0 failed, 0 errors, 6 not checked"
check subset-exit-0 [ "$rc" -eq 0 ]

# 2. The baseline's numbers, derived independently: each shift_iteration mean is the paper's
#    closed form (eq. 1-3, as `retime predict shift` gives it), and each predicted total is
#    what `retime replay` predicts with the recorded settings.
check baseline-1d-k1-closed-form same "$(field shift1d-ssend-p8-k1-m1000 'e["regions"]["shift_iteration"]["predicted_mean_ns"]')" \
  "$("$retime" predict shift --dims 1 --k 1 --m1 1000 --mode ssend --alpha 2.122us --beta 0.7595ns/B --format json |
     grep -o '"iteration_ns": [0-9.]*' | awk '{print $2}')"
check baseline-3d-ssend-closed-form same "$(field shift3d-ssend-p64-k1-m1000 'e["regions"]["shift_iteration"]["predicted_mean_ns"]')" 64958
check baseline-3d-isend-closed-form same "$(field shift3d-isend-p64-k1-m1000 'e["regions"]["shift_iteration"]["predicted_mean_ns"]')" 32479
for tr in shift1d-isend-p8-k2-m1000 $K2 shift3d-ssend-p64-k1-m1000; do
  r=$("$retime" replay "$traces/$tr" --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 --format csv | awk -F, '$1 == "total" {print $5}')
  check "baseline-total-is-replay $tr" holds '$1 == $2' "$(field $tr 'e["predicted_ns"]')" "$r"
done
# shares add up to 100 (to the 0.001 they are kept to), and the events are those `info` counts
check baseline-shares-sum holds '$1 > 99.997 && $1 < 100.003' \
  "$(field $K2 'sum(e["critical_path"][k] for k in ("compute_pct", "cpu_overhead_pct", "transfer_pct", "collective_pct"))')"
check baseline-events same "$(field $K2 'e["events"]')" \
  "$("$retime" info "$traces/$K2" --format json | grep -o '"events": [0-9]*' | awk '{print $2}')"

# 3. A predicted value moved beyond the tolerance: exit 1, the diff names the trace and numbers.
edit "$B" "$W/moved.json" 't["'$K2'"]["predicted_ns"] = 416835.9536'   # 1.1 x 378941.776
out=$("$retime" check "$W" --baseline "$W/moved.json" --junit "$work/moved.xml"); rc=$?
check moved-exit-1 [ "$rc" -eq 1 ]
check moved-names-trace has "$(sq "$out")" "FAIL $K2 predicted total -9.09% (> 5%)"
check moved-row has "$(grep '^      predicted total' <<<"$out")" " 416.836us   378.9418us  -37.89418us   -9.09%  FAIL (> 5%)"
check moved-others-pass has "$(sq "$out")" "6 passed, 1 failed, 0 errors, 0 not checked"
check moved-hint has "$(sq "$out")" "retime check: FAILED."
check moved-junit same "$(junit "$work/moved.xml")" "cases=7 failures=1 errors=0 skipped=0"
jf=$(junit_failure "$work/moved.xml" $K2)
check moved-junit-message has "$(sed -n 1p <<<"$jf")" "predicted total -9.09% (> 5%)"
check moved-junit-type same "$(sed -n 2p <<<"$jf")" "prediction"
check moved-junit-diff has "$jf" " 416.836us   378.9418us  -37.89418us   -9.09%  FAIL (> 5%)"
# a wider tolerance lets the same change pass; within the default 5% it passes too
out=$("$retime" check "$W" --baseline "$W/moved.json" --tolerance 9.5%); rc=$?
check moved-within-wider-tolerance [ "$rc" -eq 0 ]
check moved-pass-line has "$(sq "$out")" "PASS $K2 predicted 378.9418us (baseline 416.836us, -9.09%)"
edit "$B" "$W/near.json" 't["'$K2'"]["predicted_ns"] = 394099.447'    # 1.04 x
out=$("$retime" check "$W" --baseline "$W/near.json"); rc=$?
check within-tolerance-exit-0 [ "$rc" -eq 0 ]
check within-tolerance-line has "$(sq "$out")" "predicted 378.9418us (baseline 394.0994us, -3.85%)"
check zero-tolerance-exit-1 exits 1 "$retime" check "$W" --baseline "$W/near.json" --tolerance 0%
# a region mean moved (total untouched)
edit "$B" "$W/region.json" 't["'$K2'"]["regions"]["shift_iteration"]["predicted_mean_ns"] = 20000'
out=$("$retime" check "$W" --baseline "$W/region.json"); rc=$?
check region-moved-exit-1 [ "$rc" -eq 1 ]
check region-moved-reason has "$(sq "$out")" "FAIL $K2 region shift_iteration mean +15.26% (> 5%)"

# 4. The critical path's composition drifted (same total): fails on the share tolerance.
edit "$B" "$W/drift.json" 'cp = t["'$K2'"]["critical_path"]; cp["transfer_pct"] -= 3; cp["collective_pct"] += 3'
out=$("$retime" check "$W" --baseline "$W/drift.json"); rc=$?
check drift-exit-1 [ "$rc" -eq 1 ]
check drift-reason has "$(sq "$out")" "FAIL $K2 critical path transfer +3.000pp (> 2pp); critical path collective -3.000pp (> 2pp)"
check drift-row has "$(sq "$out")" "critical path transfer 69.999% 72.999% +3.000pp FAIL (> 2pp)"
out=$("$retime" check "$W" --baseline "$W/drift.json" --share-tolerance 3pp); rc=$?
check drift-within-3pp [ "$rc" -eq 0 ]
edit "$B" "$W/callsite.json" 'cs = t["'$K2'"]["critical_path"]["callsites"]; cs[0]["pct"] -= 2.5'
out=$("$retime" check "$W" --baseline "$W/callsite.json"); rc=$?
check callsite-drift-exit-1 [ "$rc" -eq 1 ]
check callsite-drift-reason has "$(sq "$out")" "call site hop_ssend shift.c:288 (MPI_Recv) +2.500pp (> 2pp)"

# 5. The trace changed: its fingerprint differs (reported, and a failure unless allowed).
edit "$B" "$W/fp.json" 't["'$K2'"]["fingerprint"] = "fnv1a64-untimed:0123456789abcdef"'
out=$("$retime" check "$W" --baseline "$W/fp.json" --junit "$work/fp.xml"); rc=$?
check fingerprint-exit-1 [ "$rc" -eq 1 ]
check fingerprint-reason has "$(sq "$out")" "FAIL $K2 trace changed (fingerprint differs)"
check fingerprint-detail has "$(sq "$out")" "trace changed since the baseline was recorded: fingerprint fnv1a64-untimed:0123456789abcdef -> fnv1a64-untimed:$(field $K2 'e["fingerprint"][16:]')"
# A baseline of before issue #45 (fingerprints with the events' times, "fnv1a64:") still matches
# the traces it was recorded from, and a wrong one of that kind is still a changed trace.
cp "$(dirname "$0")/check_baseline_timed.json" "$W/timed.json"
check fingerprint-timed-matches exits 0 "$retime" check "$W" --baseline "$W/timed.json"
edit "$W/timed.json" "$W/timed-bad.json" 't["'$K2'"]["fingerprint"] = "fnv1a64:0123456789abcdef"'
check fingerprint-timed-differs has "$(sq "$("$retime" check "$W" --baseline "$W/timed-bad.json")")" \
  "FAIL $K2 trace changed (fingerprint differs)"
# --name keys one trace by a name: recorded, then checked from another path; a bad use is refused
rm -f "$work/named.json"
"$retime" check "$W/$K2" --name solver/ci --baseline "$work/named.json" --update --alpha 2.122us --beta 0.7595ns/B >/dev/null
check name-recorded has "$(cat "$work/named.json")" '"path": "solver/ci",'
check name-checked-elsewhere exits 0 "$retime" check "$traces/$K2" --name solver/ci --baseline "$work/named.json"
check name-other-trace-differs exits 1 "$retime" check "$traces/shift1d-ssend-p8-k1-m1000" --name solver/ci \
  --baseline "$work/named.json"
check name-needs-a-trace usage_fails "--name needs a TRACE" "$retime" check --name x --baseline "$work/named.json"
# --name with several TRACEs: runs of one program, judged by the run whose predicted total is
# their median (the lower of the two middle ones of an even number). The runs: $K2's predicted
# run written at compute scales 1, 1.5 and 3 (the same events, so the same untimed fingerprint),
# replayed under 2.122us/0.7595ns/B: 675.3us, 823.5us and 1.27ms (checked below).
for s in 1 1.5 3; do
  "$retime" replay "$traces/$K2" --alpha 2.122us --beta 0.7595ns/B --compute-scale $s --output-trace "$work/run$s" >/dev/null
done
R="$work/run"
rm -f "$work/runs.json"
out=$("$retime" check "${R}3" "${R}1" "${R}1.5" --name prog --baseline "$work/runs.json" --update --alpha 2.122us \
  --beta 0.7595ns/B); rc=$?
check runs-recorded [ "$rc" -eq 0 ]
check runs-recorded-median has "$(sq "$out")" "ADD prog predicted 823.5"
check runs-recorded-spread has "$out" "median of 3 runs (675.3"
check runs-recorded-spread-hi has "$out" "to 1.269869ms, 72.2 % apart)"
check runs-median-recorded holds '$1 == $2' \
  "$(python3 -c 'import sys, json; print(json.load(open(sys.argv[1]))["traces"][0]["predicted_ns"])' "$work/runs.json")" \
  "$("$retime" replay "${R}1.5" --alpha 2.122us --beta 0.7595ns/B --format csv | awk -F, '$1 == "window" {print $5}')"
out=$("$retime" check "${R}1.5" "${R}3" "${R}1" --name prog --baseline "$work/runs.json"); rc=$?
check runs-any-order-pass [ "$rc" -eq 0 ]
check runs-any-order-same has "$(sq "$out")" "PASS prog predicted 823.5"
check runs-any-order-exact has "$out" "+0.00%); median of 3 runs"
check runs-spread-over-tolerance has "$out" "apart, more than the 5% tolerance)"
# one slow or fast run among three moves nothing; two do
check runs-one-outlier-passes exits 0 "$retime" check "${R}1.5" "${R}1" "${R}1.5" --name prog --baseline "$work/runs.json"
check runs-two-outliers-fail exits 1 "$retime" check "${R}1" "${R}1" "${R}1.5" --name prog --baseline "$work/runs.json"
check runs-alone-fails exits 1 "$retime" check "${R}3" --name prog --baseline "$work/runs.json"
# an even number: the lower middle run (1 and 1.5 -> 1: fails; 1.5 and 3 -> 1.5: passes)
check runs-even-lower-fails exits 1 "$retime" check "${R}1.5" "${R}1" --name prog --baseline "$work/runs.json"
check runs-even-lower-passes exits 0 "$retime" check "${R}3" "${R}1.5" --name prog --baseline "$work/runs.json"
out=$("$retime" check "${R}1" "${R}1" "${R}3" --name prog --baseline "$work/runs.json")
check runs-fail-names-median-run has "$out" "now: the median of 3 runs (675.3"
check runs-fail-names-median-path has "$out" "that of ${R}1"
# runs that did other communication are not runs of one program; a missing run is not a removal
out=$("$retime" check "${R}1" "$traces/shift1d-ssend-p8-k1-m1000" --name prog --baseline "$work/runs.json" --update 2>&1); rc=$?
check runs-other-program has "$out" "$traces/shift1d-ssend-p8-k1-m1000: not a run of the same program as ${R}1 (fingerprint"
check runs-other-program-exit [ "$rc" -eq 1 ]
check runs-other-program-check has "$("$retime" check "${R}1" "$traces/shift1d-ssend-p8-k1-m1000" --name prog \
  --baseline "$work/runs.json")" "ERROR prog"
cp "$work/runs.json" "$work/runs.before"
check runs-missing-not-removed exits 1 "$retime" check "${R}1" "$work/none" "${R}3" --name prog --baseline "$work/runs.json" --update
check runs-missing-kept-file same "$(cmp "$work/runs.json" "$work/runs.before" && echo same)" same
check runs-missing-check has "$("$retime" check "${R}1" "$work/none" --name prog --baseline "$work/runs.json")" \
  "trace missing: no such file or directory: $work/none"
check name-not-a-directory fails_with "--name: $W is a directory of traces, not one trace" \
  "$retime" check "$W" --name x --baseline "$work/named.json"
check name-bad usage_fails "--name needs a NAME" "$retime" check "$W/$K2" --name /abs --baseline "$work/named.json"
check fingerprint-junit-type same "$(junit_failure "$work/fp.xml" $K2 | sed -n 2p)" "trace changed"
out=$("$retime" check "$W" --baseline "$W/fp.json" --allow-trace-changes); rc=$?
check fingerprint-allowed-exit-0 [ "$rc" -eq 0 ]
check fingerprint-allowed-noted has "$(sq "$out")" "trace changed, allowed by --allow-trace-changes"
# a real change: another recording under the same name (k = 3 instead of 2)
cp -r "$W" "$work/swapped"; rm -rf "$work/swapped/$K2"; cp -r "$traces/shift1d-ssend-p8-k3-m1000" "$work/swapped/$K2"
out=$("$retime" check "$work/swapped" --baseline "$work/swapped/baseline.json"); rc=$?
check swapped-exit-1 [ "$rc" -eq 1 ]
check swapped-reasons has "$(sq "$out")" "FAIL $K2 trace changed (fingerprint differs); predicted total +36.50% (> 5%); region shift_iteration mean +50.00% (> 5%)"
check swapped-events has "$(sq "$out")" "(ranks 8 -> 8, events 3200 -> 4352, measured run"
check swapped-allowed-still-fails exits 1 "$retime" check "$work/swapped" --baseline "$work/swapped/baseline.json" --allow-trace-changes

# 6. Missing, extra and unlisted traces.
cp -r "$W" "$work/gone"; rm -rf "$work/gone/$K2"; cp -r "$traces/$K2" "$work/gone/extra-trace"
out=$("$retime" check "$work/gone" --baseline "$work/gone/baseline.json" --junit "$work/gone.xml"); rc=$?
check missing-exit-1 [ "$rc" -eq 1 ]
check missing-reason has "$(sq "$out")" "FAIL $K2 trace missing: no such file or directory: $work/gone/$K2"
check extra-reason has "$(sq "$out")" "FAIL extra-trace not in the baseline (predicted 378.9418us); add it with --update"
check missing-junit same "$(junit "$work/gone.xml")" "cases=8 failures=2 errors=0 skipped=0"
out=$("$retime" check "$W/$K2" "$W/shift1d-ssend-p8-k1-m1000" --baseline "$W/baseline.json" --junit "$work/some.xml"); rc=$?
check not-given-exit-0 [ "$rc" -eq 0 ]
check not-given-skip has "$(sq "$out")" "SKIP shift3d-ssend-p64-k1-m1000 in the baseline, not among the TRACEs given: not checked"
check not-given-junit same "$(junit "$work/some.xml")" "cases=7 failures=0 errors=0 skipped=5"
out=$("$retime" check "$work/none-here" --baseline "$W/baseline.json"); rc=$?
check operand-missing-exit-1 [ "$rc" -eq 1 ]
# a directory that is not a trace is an error of that trace, not of the whole check
mkdir -p "$work/empty/not-a-trace"; cp "$B" "$work/empty/baseline.json"
out=$("$retime" check "$work/empty/not-a-trace" --baseline "$work/empty/baseline.json" --junit "$work/err.xml"); rc=$?
check unreadable-exit-1 [ "$rc" -eq 1 ]
check unreadable-error has "$(sq "$out")" "ERROR not-a-trace"
check unreadable-junit same "$(junit "$work/err.xml")" "cases=8 failures=0 errors=1 skipped=7"

# JUnit escapes what trace names may hold: markup characters and a name that is not UTF-8
odd=$'a&b<c>"d\'e\xff'
mkdir -p "$work/odd"; cp -r "$traces/$K2" "$work/odd/$odd"; cp "$B" "$work/odd/baseline.json"
"$retime" check "$work/odd" --baseline "$work/odd/baseline.json" --junit "$work/odd.xml" >/dev/null
check junit-escaped same "$(junit "$work/odd.xml")" "cases=8 failures=8 errors=0 skipped=0"
check junit-escaped-name same "$(python3 -c 'import sys, xml.etree.ElementTree as ET; print(sorted(c.get("name") for c in ET.parse(sys.argv[1]).iter("testcase"))[0])' "$work/odd.xml")" \
  "a&b<c>\"d'e?"

# 7. Model options on the command line: used instead of the recorded ones, and the difference said.
out=$("$retime" check "$W" --baseline "$W/baseline.json" --alpha 2.3us --beta 0.7595ns/B --compute-scale 0 --junit "$work/alpha.xml"); rc=$?
check settings-differ-exit-1 [ "$rc" -eq 1 ]
check settings-differ-noted has "$(sq "$out")" "alpha_ns 2122 -> 2300"
check settings-differ-source has "$(sq "$out")" "settings from the command line, not those recorded in the baseline (baseline -> now):"
check settings-differ-junit has "$(junit_failure "$work/alpha.xml" $K2)" "the model settings differ from the baseline's (baseline -> now):"
out=$("$retime" check "$W" --baseline "$W/baseline.json" --alpha 2.122us --beta 0.7595ns/B --compute-scale 0); rc=$?
check settings-same-exit-0 [ "$rc" -eq 0 ]
check settings-same-source has "$(sq "$out")" "from the command line, the same as recorded in the baseline"

# 8. --update records what a check then passes; twice gives the same bytes; from scratch, the
#    same options give the stored baseline byte for byte.
out=$("$retime" check "$W" --baseline "$W/moved.json" --update); rc=$?
check update-exit-0 [ "$rc" -eq 0 ]
check update-line has "$(sq "$out")" "UPDATE $K2 predicted 378.9418us (was 416.836us, -9.09%)"
check update-counts has "$(sq "$out")" "wrote $W/moved.json: 7 traces (0 added, 1 updated, 6 unchanged, 0 removed, 0 kept)"
"$retime" check "$W" --baseline "$W/moved.json" >/dev/null; rc=$?
check update-then-pass [ "$rc" -eq 0 ]
check update-equals-stored cmp -s "$W/moved.json" "$B"
"$retime" check "$work/gone" --baseline "$work/gone/baseline.json" --update >/dev/null; rc=$?
check update-add-remove [ "$rc" -eq 0 ]
check update-add-remove-then-pass exits 0 "$retime" check "$work/gone" --baseline "$work/gone/baseline.json"
check update-removed-entry [ "$(grep -c '"path": "'$K2'"' "$work/gone/baseline.json")" -eq 0 ]
rm -f "$W/new.json"
"$retime" check "$W" --baseline "$W/new.json" --update --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 \
  --region shift_iteration --window all >/dev/null
check update-from-scratch-equals-stored cmp -s "$W/new.json" "$B"
# a new baseline records the measured window by default; its predictions are the window's
rm -f "$W/win.json"
"$retime" check "$W" --baseline "$W/win.json" --update --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 >/dev/null
check update-window-recorded has "$(cat "$W/win.json")" '"window": "mpi",'
check update-window-then-pass exits 0 "$retime" check "$W" --baseline "$W/win.json"
check update-window-not-in-old [ "$(grep -c '"window"' "$B")" -eq 0 ]
# a rule set other than retime's is recorded (coll_algos), used by the next check, and a check
# with the stored baseline's settings then differs from it only where the rules do
rm -f "$W/mpich.json"
"$retime" check "$W" --baseline "$W/mpich.json" --update --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 \
  --coll-algos mpich >/dev/null
check update-coll-algos-recorded has "$(cat "$W/mpich.json")" '"coll_algos": "mpich",'
check update-coll-algos-then-pass exits 0 "$retime" check "$W" --baseline "$W/mpich.json"
check update-coll-algos-absent-for-retime [ "$(grep -c coll_algos "$B")" -eq 0 ]
# other settings for a subset would strand the other entries: refused, nothing written
cp "$B" "$W/subset.json"
check update-subset-other-settings usage_fails "not among the TRACEs given" \
  "$retime" check "$W/$K2" --baseline "$W/subset.json" --update --alpha 3us --beta 0.7595ns/B
check update-subset-untouched cmp -s "$W/subset.json" "$B"
out=$("$retime" check "$W/$K2" --baseline "$W/subset.json" --update); rc=$?
check update-subset-same-settings has "$(sq "$out")" "(0 added, 0 updated, 1 unchanged, 0 removed, 6 kept)"
check update-bad-trace-not-written exits 1 "$retime" check "$work/none-here" --baseline "$W/subset.json" --update
check update-bad-trace-untouched cmp -s "$W/subset.json" "$B"

# 8b. Two updates at once take turns on the baseline's lock: while another process holds it
#     neither writes, and after it each keeps what the other recorded (issue #28).
C=$W/turns.json
K1=shift1d-ssend-p8-k1-m1000
exec 9>"$C.lock"
flock 9
turns=()
for k in $K1 $K2; do
  "$retime" check "$W/$k" --baseline "$C" --update --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 \
    >"$work/turns-$k.out" 2>&1 &
  turns+=($!)
done
sleep 1
check update-waits-for-lock [ ! -e "$C" ]
check update-waits-running kill -0 "${turns[@]}"
flock -u 9
exec 9>&-
wait "${turns[0]}"; rc1=$?
wait "${turns[1]}"; rc2=$?
check update-turns-exit-0 [ "$rc1$rc2" = 00 ]
check update-turns-keep-both [ "$(grep -c '"path": "\('$K1'\|'$K2'\)"' "$C")" -eq 2 ]
check update-turns-clean [ -z "$(ls "$W" | grep '^turns\.json\.')" ]
check update-turns-pass exits 0 "$retime" check "$W/$K1" "$W/$K2" --baseline "$C"

# 9. Bad baselines: exit 2 and one line naming the file and what is wrong.
head -c 300 "$B" > "$work/truncated.json"
check bad-json usage_fails "$work/truncated.json:" "$retime" check "$W" --baseline "$work/truncated.json"
check bad-json-says-json usage_fails "not valid JSON" "$retime" check "$W" --baseline "$work/truncated.json"
echo '[1, 2]' > "$work/array.json"
check bad-not-baseline usage_fails "$work/array.json: not a retime check baseline" "$retime" check "$W" --baseline "$work/array.json"
edit "$B" "$work/type.json" 't["'$K2'"]["ranks"] = "8"'
check bad-type usage_fails "$work/type.json: traces[2].ranks: expected a whole number, got a string" \
  "$retime" check "$W" --baseline "$work/type.json"
edit "$B" "$work/key.json" 't["'$K2'"]["critical_path"]["transfer"] = 1'
check bad-unknown-key usage_fails 'traces[2].critical_path: unknown key "transfer"' "$retime" check "$W" --baseline "$work/key.json"
edit "$B" "$work/nokey.json" 'del b["settings"]["params"]["beta_ns_per_byte"]'
check bad-missing-param usage_fails 'settings.params: missing key "beta_ns_per_byte" (the hockney model needs it)' \
  "$retime" check "$W" --baseline "$work/nokey.json"
edit "$B" "$work/neg.json" 'b["settings"]["params"]["alpha_ns"] = -1'
check bad-range usage_fails "settings.params.alpha_ns: -1 is out of range" "$retime" check "$W" --baseline "$work/neg.json"
edit "$B" "$work/coll.json" 'b["settings"]["collectives"]["bcast"] = "ring"'
check bad-collective usage_fails "settings.collectives: algorithm 'ring' does not apply to bcast" "$retime" check "$W" --baseline "$work/coll.json"
edit "$B" "$work/version.json" 'b["version"] = 2'
check bad-version usage_fails "version: baseline version 2; this retime reads version 1" "$retime" check "$W" --baseline "$work/version.json"
sed '0,/"ranks": 8,/s//"ranks": 8, "ranks": 9,/' "$B" > "$work/dup.json"
check bad-duplicate-key usage_fails "duplicate object key" "$retime" check "$W" --baseline "$work/dup.json"
edit "$B" "$work/fp-bad.json" 't["'$K2'"]["fingerprint"] = "abc"'
check bad-fingerprint usage_fails 'traces[2].fingerprint: expected "fnv1a64-untimed:" or "fnv1a64:" and 16 hex digits, got "abc"' \
  "$retime" check "$W" --baseline "$work/fp-bad.json"
check bad-missing-file usage_fails "$work/nope.json: cannot open baseline: No such file or directory" \
  "$retime" check "$W" --baseline "$work/nope.json"
check bad-directory usage_fails "is a directory, not a baseline" "$retime" check "$W" --baseline "$work"
check bad-update-corrupt usage_fails "not valid JSON" "$retime" check "$W" --baseline "$work/truncated.json" --update

# 10. Bad options: exit 2 and one error line.
for t in 5 -1% abc 0x5% nan% 5%%; do
  check "bad-tolerance $t" usage_fails "bad --tolerance '$t'" "$retime" check "$W" --baseline "$B" --tolerance "$t"
done
for t in 2 -1pp 101pp 2%; do
  check "bad-share-tolerance $t" usage_fails "bad --share-tolerance '$t'" "$retime" check "$W" --baseline "$B" --share-tolerance "$t"
done
check no-baseline usage_fails "check needs --baseline FILE" "$retime" check "$W"
check junit-with-update usage_fails "--junit is for checking" "$retime" check "$W" --baseline "$B" --update --junit x.xml
check region-without-update usage_fails "--region is recorded with --update" "$retime" check "$W" --baseline "$B" --region x
check unknown-option usage_fails "unknown option '--bogus' for check" "$retime" check "$W" --baseline "$B" --bogus
check new-baseline-needs-model usage_fails "does not exist yet: give the model options" \
  "$retime" check "$W" --baseline "$work/fresh.json" --update
check bad-model-option usage_fails "the logp model needs" "$retime" check "$W" --baseline "$B" --model logp --L 1us

# 9. The same program built and traced in another directory (its call sites' absolute paths
#    differ: here the definitions' bytes with /work/main/ replaced by a path of the same length)
#    checks clean: call sites are compared by their path relative to the trace's common source
#    directory (or --source-root).
mkdir -p "$work/elsewhere"
cp -r "$traces/shift1d-ssend-p8-k1-m1000" "$work/elsewhere/"
python3 - "$work/elsewhere/shift1d-ssend-p8-k1-m1000/traces.def" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
old = b'/work/main/'
assert old in b
open(p, 'wb').write(b.replace(old, b'/ci/build1/'))
PY
"$retime" check "$work/elsewhere" --baseline "$work/elsewhere/baseline.json" --update --alpha 2.122us \
  --beta 0.7595ns/B >/dev/null
check relative-labels-stored has "$(cat "$work/elsewhere/baseline.json")" '"label": "main shift.c:500 (MPI_Barrier)"'
mkdir -p "$work/here"
cp -r "$traces/shift1d-ssend-p8-k1-m1000" "$work/here/"
cp "$work/elsewhere/baseline.json" "$work/here/baseline.json"
check other-checkout-checks-clean exits 0 "$retime" check "$work/here" --baseline "$work/here/baseline.json"
out=$("$retime" check "$work/here" --baseline "$work/here/baseline.json" --source-root /nowhere); rc=$?
check source-root-used [ "$rc" -eq 1 ]

# 10. Numbers written short (issue #32 item 4): a region's mean is kept to the ps, as the
#     predicted total is, so the file holds 7464.064, not 7464.063750000001 (the mean over
#     instances of the mean over ranks); a baseline that holds the long form still loads and
#     compares exactly as the short one does (--tolerance 0%).
mkdir -p "$work/short"
cp -r "$traces/shift1d-ssend-p8-k1-m1000" "$work/short/"
"$retime" check "$work/short" --baseline "$work/short/b.json" --update --alpha 1us --beta 0.7595ns/B \
  --compute-scale 0.3 --region shift_iteration >/dev/null
check baseline-mean-short has "$(cat "$work/short/b.json")" '"predicted_mean_ns": 7464.064}'
check baseline-numbers-short [ -z "$(grep -E '[0-9]\.[0-9]{6,}' "$work/short/b.json")" ]
sed 's/"predicted_mean_ns": 7464.064}/"predicted_mean_ns": 7464.063750000001}/' "$work/short/b.json" >"$work/short/old.json"
check baseline-old-long-form has "$(cat "$work/short/old.json")" '7464.063750000001}'
a=$("$retime" check "$work/short" --baseline "$work/short/b.json" --tolerance 0% --share-tolerance 0pp); ra=$?
b=$("$retime" check "$work/short" --baseline "$work/short/old.json" --tolerance 0% --share-tolerance 0pp); rb=$?
check baseline-old-loads-and-passes [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]
check baseline-old-compares-identically same "$(sed 1d <<<"$a")" "$(sed 1d <<<"$b")"

checks_done
