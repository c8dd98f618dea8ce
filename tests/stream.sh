#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The streamed replay (issue #49 item 3, docs/streaming.md): every trace we have, replayed streamed
# (--memory-budget 0) with the reader's pieces cut small (RETIME_STREAM_CHUNK: 1 record, 7, the
# default), by the reader thread and by the replay itself (RETIME_READ_THREADS=1), prints byte for
# byte what the replay of the trace read whole prints, under several models, noise and formats;
# what cannot be streamed is refused in one line with the size it needs.
set -u
retime=$1; traces=$2; work=$3; ext=${4:-}
case $work in # it is cleared: only ever a directory of this test's own
  */stream) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../stream work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"

list=()
for d in "$traces"/*/; do [ -e "$d/traces.otf2" ] && list+=("${d%/}"); done
for d in "$traces"/*/*/; do [ -e "$d/traces.otf2" ] && list+=("${d%/}"); done # collbench, team-shift
if /usr/bin/python3 -c 'import otf2' 2>/dev/null; then # python3-otf2's traces: other producers' shapes
  /usr/bin/python3 "$(dirname "$0")/ext/gen_traces.py" "$work/gen" >/dev/null ||
    { echo "FAIL gen_traces.py"; exit 1; }
  for d in "$work"/gen/*/; do [ -e "$d/traces.otf2" ] && list+=("${d%/}"); done
else
  echo "FAIL python3-otf2 is missing (scripts/install-deps.sh installs it)"; exit 1
fi
if [ -n "$ext" ]; then for d in "$ext"/*/; do [ -e "$d/traces.otf2" ] && list+=("${d%/}"); done; fi
echo "traces: ${#list[@]}"

# Replays trace $1 with options $2.. whole and streamed in each of the $ways: the same stdout and
# exit status, or (a rank whose threads hold its events: APEX) the refusal in one line. A way is
# CHUNK:THREADS:RESERVE: records read per piece (empty: the default), RETIME_READ_THREADS (1: no
# reader thread), and the events first reserved per row (a declared count too low: the arrays
# move while the replay runs; empty: twice the declared count).
H=(--alpha 2.122us --beta 0.7595ns/B)
ALL_WAYS="1:2: 7:1:64 :2:100"
compare() {
  local t=$1; shift
  local whole rc_w s rc_s chunk threads reserve ok=1
  whole=$("$retime" --quiet replay "$t" "$@" 2>/dev/null); rc_w=$?
  [ "$rc_w" -eq 0 ] && replayed=$((replayed + 1))
  for way in $ways; do
    IFS=: read -r chunk threads reserve <<<"$way"
    s=$(RETIME_STREAM_CHUNK=$chunk RETIME_READ_THREADS=$threads RETIME_STREAM_RESERVE=$reserve \
      "$retime" --quiet --memory-budget 0 replay "$t" "$@" 2>"$work/err"); rc_s=$?
    if grep -q "a streamed read cannot take it as empty" "$work/err"; then
      [ "$rc_s" -eq 1 ] && [ "$(grep -c . "$work/err")" -eq 1 ] || ok=0
      echo "$t" >>"$work/refused"
      break
    fi
    if [ "$rc_w" -ne "$rc_s" ] || [ "$whole" != "$s" ]; then
      ok=0
      echo "  $t $* way '$way': rc $rc_w / $rc_s"
      diff <(printf '%s\n' "$whole") <(printf '%s\n' "$s") | head -4
    fi
  done
  [ "$ok" -eq 1 ]
}
replayed=0
for t in "${list[@]}"; do
  name=${t#"$work"/}
  ways=$ALL_WAYS # every way on the plain replay; one each on the rest (the suite's time, under ASan too)
  check "same-hockney $name" compare "$t" "${H[@]}"
  ways="1:2:"
  check "same-logp-noise $name" compare "$t" --model logp --L 1.5us --o 0.3us --g 0.5us --G 0.76ns/B \
    --net-noise exp:mean=200ns --os-noise periodic:period=1ms,duration=20us --seed 7 --format json
  ways=":1:64"
  check "same-window-all $name" compare "$t" "${H[@]}" --window all --compute-scale 0.5 --eager-limit 1KiB \
    --scale-bytes 3 --coll-algos openmpi --compute wall --format csv
  # a network: collectives run as messages look ahead in the other members' events (with the
  # thread no row may move: reserved as streamed reads reserve; see "moves" below)
  ways="7:2: 3:1:64"
  check "same-network $name" compare "$t" "${H[@]}" --topology torus:8x8x8 --mapping random:3 --coll-algos mpich \
    --format json
done
refusals=$(sort -u "$work/refused" 2>/dev/null | grep -c .)
echo "refused (a rank empty, its threads not): $refusals of ${#list[@]} traces; replays compared: $replayed"
check "few-refused" holds '$1 <= 1' "$refusals"
check "most-replay" holds '$1 >= 3.5 * $2' "$replayed" "${#list[@]}" # (the compared replays must run, not fail alike)

# --- other jobs' traffic runs until the trace is done (the streamed replay's total grows as it reads)
ways="1:2: 7:1:64" # (on a network with the thread no row may move: see "moves" below)
for t in "$traces"/shift3d-isend-p64-k1-m1000 "$traces"/collbench/collbench-p16; do
  check "same-perturb ${t##*/}" compare "$t" "${H[@]}" --topology torus:4x4x8 --mapping random:5 \
    --perturb ratio=0.5,pattern=uniform,size=4KiB,interval=20us --seed 5 --format json
done

# --- moves: on a network, a rank that outgrows what a streamed read reserved for it is refused in
# one line with the reader thread (a collective's look-ahead holds pointers); without it, it moves
t=$traces/collbench/collbench-p16
check "moves-refused" fails_with "on a network the reader thread cannot move them" env RETIME_STREAM_RESERVE=100 \
  "$retime" --quiet --memory-budget 0 replay "$t" "${H[@]}" --topology torus:8x8x8 --coll-algos mpich

# --- the budget decides: a trace over it is streamed (a note on stderr), one under it is not
t=$traces/shift1d-isend-p8-k2-m1000
"$retime" replay "$t" "${H[@]}" >"$work/whole.txt" 2>"$work/whole.err"
"$retime" --memory-budget 1KiB replay "$t" "${H[@]}" >"$work/small.txt" 2>"$work/small.err"
check "budget-note" grep -q "over --memory-budget 1KiB: streamed" "$work/small.err"
check "budget-note-one-line" [ "$(grep -c . "$work/small.err")" -eq 1 ]
check "budget-same" cmp -s "$work/whole.txt" "$work/small.txt"
check "no-note-under" [ ! -s "$work/whole.err" ]
"$retime" --memory-budget=1GiB replay "$t" "${H[@]}" >"$work/big.txt" 2>"$work/big.err"
check "budget-eq-form" [ ! -s "$work/big.err" ]
check "quiet-no-note" [ -z "$("$retime" --quiet --memory-budget 0 replay "$t" "${H[@]}" 2>&1 >/dev/null)" ]
# the declared events times 17 B: 8 ranks' events; at exactly that budget it is read whole
n=$("$retime" info "$t" --format json | grep -o '"events": [0-9]*' | head -1 | awk '{print $2}')
check "at-budget-whole" [ -z "$("$retime" --memory-budget "$((n * 17))" replay "$t" "${H[@]}" 2>&1 >/dev/null)" ]
check "past-budget-streamed" has "$("$retime" --memory-budget "$((n * 17 - 1))" replay "$t" "${H[@]}" 2>&1 >/dev/null)" \
  "streamed"

# --- what needs every event is refused over the budget, in one line with the size it needs
check "refuse-analyze" fails_with "analyze holds every event and its dependency graph" \
  "$retime" --memory-budget 0 analyze "$t" "${H[@]}" --against measured
check "refuse-analyze-size" fails_with "need about" "$retime" --memory-budget 0 analyze "$t" "${H[@]}" --against measured
check "refuse-runs" fails_with "--runs" "$retime" --memory-budget 0 replay "$t" "${H[@]}" --runs 3 --net-noise exp:mean=200ns
check "refuse-region" fails_with "--region" "$retime" --memory-budget 0 replay "$t" "${H[@]}" --region shift_iteration
check "refuse-window" fails_with "--window region" "$retime" --memory-budget 0 replay "$t" "${H[@]}" \
  --window region:shift_iteration
check "refuse-perfetto" fails_with "--perfetto" "$retime" --memory-budget 0 replay "$t" "${H[@]}" \
  --perfetto "$work/p.json"
check "refuse-fix" fails_with "--fix-clocks" "$retime" --memory-budget 0 replay "$t" "${H[@]}" --fix-clocks
check "refuse-info" fails_with "this command holds every event" "$retime" --memory-budget 0 info "$t"
check "bad-budget" fails_with "bad --memory-budget 'lots'" "$retime" --memory-budget lots replay "$t" "${H[@]}"
check "bad-budget-missing" fails_with "bad --memory-budget ''" "$retime" replay "$t" "${H[@]}" --memory-budget
check "bad-budget-rc" bash -c '"$0" --memory-budget -1 replay "$1" --alpha 1us --beta 1ns/B 2>/dev/null; [ $? -eq 2 ]' \
  "$retime" "$t"

# --- bad input streamed: a truncated event file is one error line naming the location, as whole
cp -r "$t" "$work/trunc"
f=$(ls "$work"/trunc/traces/*.evt | sort | sed -n 3p)
head -c "$(( $(stat -c %s "$f") / 2 ))" "$f" >"$f.tmp" && mv "$f.tmp" "$f"
check "trunc-whole" fails_with "truncated or corrupt" "$retime" replay "$work/trunc" "${H[@]}"
check "trunc-streamed" fails_with "truncated or corrupt" "$retime" --quiet --memory-budget 0 replay "$work/trunc" "${H[@]}"
w=$("$retime" replay "$work/trunc" "${H[@]}" 2>&1 >/dev/null)
s=$("$retime" --quiet --memory-budget 0 replay "$work/trunc" "${H[@]}" 2>&1 >/dev/null)
check "trunc-same-line" same "$w" "$s"

checks_done
