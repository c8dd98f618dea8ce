#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `retime analyze` through the CLI: the identity end(B) - end(A) = accumulated - slack in the
# JSON of noisy replays (several seeds and noise kinds) and against the measured run, the text
# sections, the Score-P casita trace's late sender and barrier culprit, and option errors.
set -u
retime=$1; traces=$2; ext=$3
. "$(dirname "$0")/checks.sh"
# first number after "KEY": in a JSON text
num() { grep -o "\"$2\": -\\?[0-9.]*" <<<"$1" | head -1 | awk '{print $2}'; }
# the identity, in ns with ps precision: delta_end == accumulated - slack and residual == 0
identity() {
  local d a s r
  d=$(num "$1" delta_end_ns); a=$(num "$1" accumulated_ns); s=$(num "$1" slack_ns); r=$(num "$1" residual_ns)
  [ -n "$d" ] && [ -n "$a" ] && [ -n "$s" ] && holds '$4 == 0 && ($1 - ($2 - $3)) < 0.0005 && ($1 - ($2 - $3)) > -0.0005 && $3 >= 0' "$d" "$a" "$s" "$r"
}
# first row under a heading of one wait kind in the text output: row KIND HEADING-PREFIX TEXT
row() {
  awk -v k="$1" -v h="$2" '
    /^  [a-z_]+ / { inkind = ($1 == k) }
    inkind && index($0, h) == 5 { getline; sub(/^ +/, ""); print; exit }' <<<"$3"
}

H=(--alpha 2.122us --beta 0.7595ns/B)
T1=$traces/shift1d-ssend-p8-k1-m1000
T3=$traces/shift3d-isend-p64-k1-m1000

for seed in 1 2 3; do
  for noise in "--net-noise exp:mean=1us" "--os-noise periodic:period=10us,duration=1us" \
               "--net-noise lognormal:median=500ns,sigma=1 --net-burst mmpp:on=50us,off=200us,latency=3,bandwidth=0.5"; do
    for tr in "$T1" "$T3"; do
      # shellcheck disable=SC2086
      j=$("$retime" analyze "$tr" "${H[@]}" --compute-scale 0 $noise --seed $seed --against model --format json)
      check "identity $(basename "$tr") seed $seed ${noise%% *}" identity "$j"
    done
  done
done
j=$("$retime" analyze "$T1" "${H[@]}" --against measured --format json)
check "identity against measured" identity "$j"
check "measured block" has "$j" '"measured": {"violations": '
# the measured window (default: MPI_Init's end to MPI_Finalize's start): the path covers it
jw=$("$retime" analyze "$T1" "${H[@]}" --against measured --window all --format json)
cpj=$(grep -o '"critical_path": {"end_ns": [0-9.]*, "length_ns": [0-9.]*' <<<"$jw")
check "critical path length = end (whole run)" holds '$3 == $5 && $3 > 0' ${cpj//,/}
wlen=$(grep -o '"critical_path": {"end_ns": [0-9.]*, "length_ns": [0-9.]*' <<<"$j" | awk '{print $5}')
wmeas=$("$retime" replay "$T1" "${H[@]}" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["window"]["measured_ns"])')
check "critical path length = the measured window" holds '$1 == $2 && $1 > 0' "${wlen%.000}" "$wmeas"
check "window named" has "$j" '"window": {"spec": "mpi", "text": "MPI_Init'"'"'s end to MPI_Finalize'"'"'s start"}'
j=$("$retime" analyze "$T1" "${H[@]}" --against model --format json)
check "no noise: deviation null" has "$j" '"deviation": null'

txt=$("$retime" analyze "$T1" "${H[@]}" --compute-scale 0 --net-noise exp:mean=1us --seed 7 --against model --top 3)
for s in "critical path of B" "by call site (top 3)" "by region (top 3)" "wait states of B" "late_receiver" \
         "end(B) - end(A) = accumulated - slack" "top 3 by message size" "shift.c:"; do
  check "text has '$s'" has "$txt" "$s"
done

casita=$ext/scorep-casita-late-sender-4
if [ -e "$casita/traces.otf2" ]; then
  c=$("$retime" analyze "$casita" "${H[@]}" --against measured)
  # The send chain 0 -> 1 -> 2 -> 3 starts with rank 0's long foo(): the late sender. Each
  # receiver waits for its direct predecessor, but the waits' critical path runs through rank 0.
  check "casita: late sender caused by rank 0" has "$(row late_sender 'caused by' "$c")" "rank 0 "
  check "casita: late sender waits on ranks 1-3" has "$(row late_sender 'waiting ranks' "$c")" "rank 3 "
  # In this trace rank 0 computes ~9.85 s in barrier()'s foo() and enters MPI_Barrier last.
  check "casita: barrier waits for rank 0" has "$(row barrier 'waited for' "$c")" "rank 0 "
  check "casita: barrier caused by rank 0" has "$(row barrier 'caused by' "$c")" "rank 0 "
  cj=$("$retime" analyze "$casita" "${H[@]}" --against measured --format json)
  check "casita: identity against measured" identity "$cj"
  check "casita: no clock violations" has "$cj" '"violations": 0'
else
  echo "skipped: $casita not present"
fi

check "error: analyze needs --against" fails_with "analyze needs --against" "$retime" analyze "$T1" "${H[@]}"
check "error: bad --against 'both'" fails_with "bad --against 'both'" "$retime" analyze "$T1" "${H[@]}" --against both
check "error: bad --top '0'" fails_with "bad --top '0'" "$retime" analyze "$T1" "${H[@]}" --against model --top 0
check "error: bad --top 'x'" fails_with "bad --top 'x'" "$retime" analyze "$T1" "${H[@]}" --against model --top x
check "error: bad --format 'csv'" fails_with "bad --format 'csv'" "$retime" analyze "$T1" "${H[@]}" --against model --format csv
check "error: --region is not an option of analyze" fails_with "--region is not an option of analyze" "$retime" analyze "$T1" "${H[@]}" --against model --region shift_iteration
check "error: unknown option '--bogus'" fails_with "unknown option '--bogus'" "$retime" analyze "$T1" "${H[@]}" --against model --bogus
check "error: analyze needs a TRACE" fails_with "analyze needs a TRACE" "$retime" analyze "${H[@]}" --against model
check "error: no-such-dir" fails_with "no-such-dir" "$retime" analyze "$traces/no-such-dir" "${H[@]}" --against model
check "error: must not be negative" fails_with "must not be negative" "$retime" analyze "$T1" "${H[@]}" --against model --net-noise exp:mean=-1us
# a per-region profile over the instances beside the instance rows (issue #32)
out=$("$retime" analyze "$T1" "${H[@]}" --against measured)
check "region profile" has "$out" "    shift_dim_x (10 instances)                            1.017ms   42.2%"
check "region profile json" has "$j" '"by_region_total": [{"region": "(no region)", "instances": 1, "ns": '

checks_done
