#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# retime validate through the CLI (issue #36, item 2): its table, JSON and CSV, the plot, the exit
# codes of --max-error, and bad options (one error line, exit 2).
# usage: validate.sh RETIME TRACES_DIR WORK_DIR TEST_CALIBRATE
set -u
retime=$1; traces=$2; work=$3; test_calibrate=$4
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
T=$traces/shift1d-ssend-p8-k2-m1000
H=(--alpha 2.122us --beta 0.7595ns/B)
rc_is() { local want=$1; shift; "$@" >/dev/null 2>&1; [ $? -eq "$want" ]; }

# the table: the window as replay reports it at compute scale 1, the four tables, the worst rows
out=$("$retime" validate "$T" "${H[@]}"); rc=$?
check text-rc same "$rc" 0
rep=$("$retime" replay "$T" "${H[@]}" --compute-scale 1)
check text-window-as-replay has "$out" "$(grep '^predicted ' <<<"$rep")"
check text-error has "$out" "error       -87.7% (predicted against measured over the window)"
# the worst rows are the ones that lose the most time (issue #44): rank 5 (4.838ms lost, -85.2%)
# before rank 7 (4.81ms, -87.7%, the larger relative error)
check text-rank-row has "$out" "per rank                    8           69.7%  rank 5 -85.2%"
check text-rank-order has "$(grep -A3 '^per rank: the' <<<"$out" | tail -2 | awk '{ print $2 }' | tr '\n' ' ')" "5 7 "
check text-region-row has "$out" "per region instance        22           76.2%  shift_warmup #0 -86.5%"
check text-size-row has "$out" "per message size            1           79.2%  1000-9999 B -79.2%"
check text-worst-region has "$out" "  shift_warmup #0           8        244.4us        32.96us        1.691ms    -86.5%"
check text-top-default has "$out" "per call site: the 5 worst of 11 (by time lost: |predicted - measured|)"
out=$("$retime" validate "$T" "${H[@]}" --top 0)
check text-top-0 [ "$(grep -c 'worst of' <<<"$out")" -eq 0 ]

# JSON: every row, the worst first by index, the same window error
out=$("$retime" validate "$T" "${H[@]}" --format json)
check json-parses python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out"
check json-tables python3 -c '
import json, sys
d = json.loads(sys.argv[1]); t = d["tables"]
assert [len(t[k]["rows"]) for k in ("rank", "region", "callsite", "size")] == [8, 22, 11, 1], t.keys()
w = t["rank"]["worst"]; r = t["rank"]["rows"]
assert abs(r[w[0]]["error_pct"]) >= abs(r[w[-1]]["error_pct"])
assert abs(d["error_pct"] - 100 * (d["predicted_ns"] - d["measured_ns"]) / d["measured_ns"]) < 1e-9
assert d["passed"] is True and d["max_error_pct"] is None' "$out"

# CSV: a header, the window, then every row of the four tables
out=$("$retime" validate "$T" "${H[@]}" --format csv)
check csv-header same "$(head -1 <<<"$out")" "table,id,name,instance,count,measured_ns,predicted_ns,error_pct"
check csv-rows same "$(tail -n +2 <<<"$out" | cut -d, -f1 | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')" \
    "callsite=11 rank=8 region=22 size=1 window=1 "
check csv-window has "$out" "window,,,,,5510395.000,675339.776,-87.744"

# --max-error: 0 within, 1 above (said), for CI
check max-error-within rc_is 0 "$retime" validate "$T" "${H[@]}" --max-error 90%
check max-error-above rc_is 1 "$retime" validate "$T" "${H[@]}" --max-error 50
out=$("$retime" validate "$T" "${H[@]}" --max-error 50)
check max-error-said has "$out" "max-error   FAILED: |error| 87.7% over the window > --max-error 50%"
out=$("$retime" validate "$T" "${H[@]}" --max-error 50 --format json)
check max-error-json has "$out" '"max_error_pct": 50, "passed": false'

# --params: the file's parameters, as --alpha/--beta give them
printf 'format = retime-params 1\nalpha = 2.122us\nbeta = 0.7595ns/B\n' >"$work/p.txt"
check params-same same "$("$retime" validate "$T" --params "$work/p.txt" --format csv)" \
    "$("$retime" validate "$T" "${H[@]}" --format csv)"

# the plot: measured against predicted per region instance, the diagonal drawn
out=$("$retime" validate "$T" "${H[@]}" --plot "$work/v")
check plot-written has "$out" "wrote $work/v.svg $work/v.png"
check plot-files [ -s "$work/v.svg" ] && [ -s "$work/v.png" ]
check plot-points same "$(grep -vc '^#\|^$' "$work/v.dat")" 22
check plot-diagonal grep -q "plot x with lines" "$work/v.gp"

# what a trace cannot give is said: no regions besides MPI calls, no point-to-point messages
RETIME_TEST_KEEP=$work/plain "$test_calibrate" >/dev/null
out=$("$retime" validate "$work/plain" --alpha 2us --beta 0.5ns/B)
check no-regions-said has "$out" "per region instance         0               -  no region instance in the window: the trace has no measured times of a region besides MPI calls"
check no-regions-plot fails_with "--plot: no region instance in the window to plot" \
    "$retime" validate "$work/plain" --alpha 2us --beta 0.5ns/B --plot "$work/none"
out=$("$retime" validate "$traces/collbench/collbench-p16" --alpha 1us --beta 1ns/B)
check no-messages-said has "$out" "no MPI call with a point-to-point message in the window"

# bad options: one error line, exit 2
check bad-option fails_with "unknown option '--bogus' for validate" "$retime" validate "$T" "${H[@]}" --bogus
check bad-option-rc rc_is 2 "$retime" validate "$T" "${H[@]}" --bogus
check no-trace fails_with "validate needs a TRACE" "$retime" validate "${H[@]}"
check two-traces fails_with "more than one trace given" "$retime" validate "$T" "$T" "${H[@]}"
check bad-max-error fails_with "bad --max-error 'ten'" "$retime" validate "$T" "${H[@]}" --max-error ten
check bad-max-error-rc rc_is 2 "$retime" validate "$T" "${H[@]}" --max-error -5
check bad-format fails_with "bad --format 'xml' (text, json or csv)" "$retime" validate "$T" "${H[@]}" --format xml
check bad-top fails_with "bad --top 'x'" "$retime" validate "$T" "${H[@]}" --top x
check scale-not-1 fails_with "validate replays at --compute-scale 1" "$retime" validate "$T" "${H[@]}" --compute-scale 0.5
check scale-not-1-rc rc_is 2 "$retime" validate "$T" "${H[@]}" --compute-scale 0
check noise-refused fails_with "validate replays without noise" "$retime" validate "$T" "${H[@]}" --net-noise exp:mean=1us
check plot-no-dir fails_with "--plot '$work/nodir/v': directory '$work/nodir' does not exist" \
    "$retime" validate "$T" "${H[@]}" --plot "$work/nodir/v"
check missing-trace fails_with "$work/missing" "$retime" validate "$work/missing" "${H[@]}"
check missing-trace-rc rc_is 2 "$retime" validate "$work/missing" "${H[@]}"
checks_done
