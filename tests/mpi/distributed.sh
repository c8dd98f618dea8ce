#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# retime replay and retime analyze under mpirun (docs/distributed.md): on every stored trace,
# split over 2 and 4 processes, the output is byte-identical to one process's (replay: Hockney;
# LogP-lite with network, OS and bursty noise; CSV; a Monte Carlo, its runs distributed or spread
# over the processes with --split runs. analyze: against the model with noise and against the
# measured timestamps, JSON and text); broken traces and what does not run distributed give one
# error line and a non-zero exit.
# usage: distributed.sh MPIRUN_SH RETIME MAKE_BAD_TRACES TRACES_DIR
set -uo pipefail
mpirun_sh=$1 retime=$2 make_bad=$3 traces=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

H=(--model hockney --alpha 2.122us --beta 0.7595ns/B)
L=(--model logp --L 1us --o_s 300ns --o_r 500ns --g 700ns --G 0.76ns/B --eager-limit 1KiB
   --net-noise exp:mean=500ns --os-noise poisson:interval=200us,duration=exp:mean=10us
   --net-burst mmpp:on=5us,off=20us,latency=3,bandwidth=0.5,scope=rank --seed 7)

# same NAME NP ARGS...: the distributed output equals the serial one, byte for byte
same() {
  local name=$1 np=$2
  shift 2
  "$retime" "$@" >"$tmp/serial" 2>"$tmp/serial.err" || { bad "$name: serial run failed: $(cat "$tmp/serial.err")"; return; }
  if ! "$mpirun_sh" -np "$np" "$retime" "$@" >"$tmp/dist" 2>"$tmp/dist.err"; then
    bad "$name: -np $np failed: $(head -3 "$tmp/dist.err")"
    return
  fi
  if cmp -s "$tmp/serial" "$tmp/dist" && [ -s "$tmp/dist" ]; then
    ok "$name -np $np ($(wc -c <"$tmp/dist") bytes identical)"
  else
    bad "$name -np $np: output differs"
    diff "$tmp/serial" "$tmp/dist" | head -10
  fi
}

n=0
for t in "$traces"/shift*; do
  name=$(basename "$t")
  same "$name json" 2 replay "$t" "${H[@]}" --format json
  same "$name json" 4 replay "$t" "${H[@]}" --format json
  n=$((n + 1))
done
[ "$n" -ge 7 ] && ok "all $n stored traces" || bad "only $n stored traces"
same "logp+noise 3d" 3 replay "$traces/shift3d-isend-p64-k1-m1000" "${L[@]}" --format json
same "logp+noise 1d rendezvous" 4 replay "$traces/shift1d-ssend-p8-k2-m100000" "${L[@]}" --format json
same "text" 2 replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}"
same "csv" 3 replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --format csv
same "monte carlo" 2 replay "$traces/shift1d-ssend-p8-k2-m1000" "${L[@]}" --runs 4 --format json
same "monte carlo, runs over processes" 3 replay "$traces/shift1d-isend-p8-k2-m1000" "${L[@]}" --runs 7 \
  --region shift_iteration --split runs --format json
# a network with --split runs (issue #50 item 1's Monte Carlo part): each process replays whole
# runs, each with its own copy of the network; the runs' order and noise streams are the serial
# run's (a random mapping; the fast contention model; background traffic, on a larger torus)
T3=$traces/shift3d-isend-p64-k1-m1000
same "monte carlo, runs over processes, torus random mapping" 3 replay "$T3" "${L[@]}" --runs 5 --split runs \
  --topology torus:4x4x4 --mapping random:1 --format json
same "monte carlo, runs over processes, fat tree fast" 2 replay "$T3" "${L[@]}" --runs 5 --split runs \
  --topology fattree:64 --contention fast --format json
same "monte carlo, runs over processes, perturbed" 3 replay "$T3" "${L[@]}" --runs 4 --split runs \
  --topology torus:4x4x8 --perturb ratio=0.2,pattern=uniform,size=4KiB,interval=20us --format json
# networks with the ranks split (issue #50 item 1): every process runs a copy of the network, its
# collectives as messages; byte-identical to one process (topologies, a random mapping, the fast
# contention model, background traffic, shared memory with hop latencies, network noise)
same "torus" 2 replay "$T3" "${H[@]}" --topology torus:4x4x4 --format json
same "torus, text" 3 replay "$T3" "${H[@]}" --topology torus:4x4x4
same "fat tree, random mapping, fast" 4 replay "$T3" "${L[@]}" --topology fattree:64 --mapping random:1 \
  --contention fast --format json
same "torus, background traffic" 2 replay "$T3" "${H[@]}" --topology torus:4x4x8 \
  --perturb ratio=0.2,pattern=uniform,size=4KiB,interval=20us --format json
same "dragonfly, 2 per node, hop latency, rendezvous" 3 replay "$traces/shift1d-ssend-p8-k2-m100000" "${L[@]}" \
  --topology dragonfly:2,2,2,1 --ranks-per-node 2 --hop-latency 50ns --format json
same "analyze measured on a torus" 2 analyze "$T3" "${H[@]}" --topology torus:4x4x4 --against measured \
  --top 1000000 --format json
# the congestion attribution (process 0's copy of the network makes the records; every process
# finds the critical path's messages on its ranks): against the crossbar, against the model
same "analyze against the crossbar on a torus, congestion" 3 analyze "$T3" "${H[@]}" --topology torus:4x4x4 \
  --against crossbar --top 1000000 --format json
same "analyze against the model, fat tree random mapping, congestion" 2 analyze "$T3" "${L[@]}" \
  --topology fattree:64 --mapping random:1 --against model --top 1000000
# collectives as messages whose completions tie at a member (the processes take them in other orders)
same "analyze collectives against the crossbar on a torus" 4 analyze "$traces/collbench/collbench-p16" "${H[@]}" \
  --topology torus:2x2x4 --against crossbar --top 1000000 --format json
# more processes than ranks, with MPI_Init in the trace: the empty process's window is the others'
# (it found no MPI_Init of its own, took the whole run and made other reductions: a hang)
same "more processes than ranks, mpi window" 9 replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --format json
same "more processes than ranks, network, congestion" 9 analyze "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" \
  --topology torus:2x2x2 --against crossbar
same "3 processes, uneven split" 3 replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --format json
# --scale-bytes (issue #48): a member's factor travels with its collective entry to the coordinator
# (a fraction scales the blocks; communicators of a split; call-site rules on p2p sends)
same "scale-bytes on split communicators" 3 replay "$traces/collbench/collbench-p16" "${L[@]}" \
  --scale-bytes '2.3,5@comm:MPI_Comm_split 2' --format json
same "scale-bytes by call site" 4 replay "$traces/shift3d-isend-p64-k1-m1000" "${H[@]}" --scale-bytes 3,70@shift_dim \
  --format csv
# a rank missing (--allow-missing-ranks, issue #47 item 3): what was dropped is counted over every
# process's ranks, so the warning and the JSON counts are the serial run's (each process counted
# its own share before: 48/48/64 with 2 processes, 24/24/48 with 3, for 48/48/112)
cp -r "$traces/shift1d-isend-p8-k2-m1000" "$tmp/missing" && rm "$tmp/missing/traces/3.evt"
same "missing rank json" 2 replay "$tmp/missing" "${H[@]}" --allow-missing-ranks --format json
same "missing rank text" 3 replay "$tmp/missing" "${H[@]}" --allow-missing-ranks
"$mpirun_sh" -np 3 "$retime" replay "$tmp/missing" "${H[@]}" --allow-missing-ranks >/dev/null 2>"$tmp/warn"
if grep -q "48 messages to it and 48 from it dropped, 112 collective records timed without it" "$tmp/warn" &&
   [ "$(grep -c 'MPI rank 3 missing' "$tmp/warn")" -eq 1 ]; then ok "missing rank warning once, whole counts"
else bad "missing rank warning: $(cat "$tmp/warn")"; fi

# analyze: the analysis is collective and process 0 prints. --top 1000000 prints every row of
# the shares that process 0 gathers, not only the first five of each group.
# 2 and 4 processes take turns over the traces (each trace is split both ways in the replay
# above): every mpirun costs seconds on a loaded 2-core CI machine.
n=0
for t in "$traces"/shift*; do
  name=$(basename "$t")
  np=$((2 + 2 * (n % 2)))
  same "analyze $name model json" $np analyze "$t" "${L[@]}" --against model --format json
  same "analyze $name measured json" $((6 - np)) analyze "$t" "${H[@]}" --against measured --top 1000000 --format json
  n=$((n + 1))
done
[ "$n" -ge 7 ] && ok "analyze: all $n stored traces" || bad "analyze: only $n stored traces"
same "analyze text" 2 analyze "$traces/shift1d-isend-p8-k2-m1000" "${L[@]}" --against model
same "analyze text, measured, noisy model" 3 analyze "$traces/shift3d-ssend-p64-k1-m1000" "${L[@]}" --against measured \
  --top 3
same "analyze hockney+noise, all rows" 4 analyze "$traces/shift3d-isend-p64-k1-m1000" "${H[@]}" \
  --net-noise exp:mean=1us --seed 3 --against model --top 1000000 --format json

# one_error NAME EXPECTED ARGS...: mpirun -np 2 fails with exactly one error line containing EXPECTED
one_error() {
  local name=$1 want=$2
  shift 2
  if "$mpirun_sh" -np 2 "$retime" "$@" >"$tmp/out" 2>"$tmp/err"; then
    bad "$name: succeeded"
    return
  fi
  local lines
  lines=$(grep -c '^retime: error:' "$tmp/err")
  if [ "$lines" = 1 ] && grep -q -- "$want" "$tmp/err"; then
    ok "$name: $(grep '^retime: error:' "$tmp/err")"
  else
    bad "$name: $lines error lines, want one with '$want'"
    cat "$tmp/err" | head -5
  fi
}

# refusals every process makes alike are said once, by process 0 (issue #50, item 5; each process
# printed its own before, the lines interleaved)
one_error "cut refused once" "a run that stopped early is not replayed under mpirun yet" \
  replay "$traces/shift1d-ssend-p8-k2-m1000" "${H[@]}" --cut
one_error "scale rule refused once" "function 'nope' is not in" \
  replay "$traces/shift1d-ssend-p8-k2-m1000" "${H[@]}" --scale-bytes 2@nope

"$make_bad" "$tmp/bad" >/dev/null || { bad "cannot make broken traces"; exit 1; }
same "more processes than ranks" 2 replay "$tmp/bad/one-rank" "${H[@]}" --format json
same "analyze, more processes than ranks" 2 analyze "$tmp/bad/one-rank" "${L[@]}" --against model --format json
same "analyze, a causality violation" 2 analyze "$tmp/bad/clock-skew" "${H[@]}" --against measured --format json
# the corpus's other traces that replay: the replay corpus below covers the errors, which
# analyze reports through the same calls
for name in good ring3 time-long; do
  same "analyze $name" 2 analyze "$tmp/bad/$name" "${H[@]}" --against measured --format json
done
one_error deadlock "deadlock: rank 0 event 1 (MPI_Recv from rank 1, tag 0) waits for rank 1, which is blocked at event 1 (MPI_Recv)" \
  replay "$tmp/bad/deadlock" "${H[@]}"
one_error unmatched-send "unmatched send: rank 0 event 4 (MPI_Send to rank 1, tag 7" replay "$tmp/bad/unmatched-send" "${H[@]}"
# rank 1 is read by process 1 only: its error is the one reported
cp -r "$tmp/bad/good" "$tmp/bad/truncated-evt"
evt="$tmp/bad/truncated-evt/traces/1.evt"
truncate -s $(($(stat -c %s "$evt") / 2)) "$evt"
one_error truncated "location 1 (rank 1): event data truncated or corrupt" replay "$tmp/bad/truncated-evt" "${H[@]}"
one_error missing "no-such-trace" replay "$tmp/no-such-trace" "${H[@]}"
one_error analyze-deadlock "deadlock: rank 0 event 1 (MPI_Recv from rank 1, tag 0) waits for rank 1, which is blocked at event 1 (MPI_Recv)" \
  analyze "$tmp/bad/deadlock" "${L[@]}" --against model
one_error analyze-truncated "location 1 (rank 1): event data truncated or corrupt" analyze "$tmp/bad/truncated-evt" \
  "${H[@]}" --against measured
one_error analyze-missing "no-such-trace" analyze "$tmp/no-such-trace" "${H[@]}" --against model
one_error split-runs-deadlock "deadlock: rank 0 event 1" replay "$tmp/bad/deadlock" "${H[@]}" --runs 3 \
  --net-noise exp:mean=1us --split runs
one_error split-without-runs "--split runs needs --runs" replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --split runs
# The corpus of tests/bad_input.sh, split over 2 processes: the same error line as one process,
# or a replay where one process replays (time-apart's span is only too long across the processes).
for d in "$tmp"/bad/*; do
  name=$(basename "$d")
  [ -f "$d/traces.otf2" ] || continue
  "$retime" replay "$d" "${H[@]}" >/dev/null 2>"$tmp/s.err"; src=$?
  "$mpirun_sh" -np 2 "$retime" replay "$d" "${H[@]}" >/dev/null 2>"$tmp/p.err"; prc=$?
  s_line=$(grep '^retime: error:' "$tmp/s.err"); p_line=$(grep '^retime: error:' "$tmp/p.err")
  p_count=$(grep -c '^retime: error:' "$tmp/p.err")
  if [ "$s_line" = "$p_line" ] && { { [ $src -eq 0 ] && [ $prc -eq 0 ]; } ||
                                      { [ $src -ne 0 ] && [ $prc -ne 0 ] && [ "$p_count" = 1 ]; }; }; then
    ok "corpus $name: ${s_line:-replays}"
  else
    bad "corpus $name: serial '$s_line' ($src), distributed '$p_line' ($prc, $p_count lines)"
  fi
done
# refused NAME WANT FILE ARGS...: refused under mpirun with one error line, and FILE not written
refused() {
  local name=$1 want=$2 file=$3
  shift 3
  one_error "$name" "$want" "$@"
  [ ! -e "$file" ] && ok "$name: nothing written" || bad "$name: wrote $file"
}
refused "analyze --output-trace" "--output-trace" "$tmp/a-otf2" analyze "$traces/shift1d-isend-p8-k2-m1000" \
  "${H[@]}" --against measured --output-trace "$tmp/a-otf2"
refused "analyze --perfetto" "--perfetto" "$tmp/a.json" analyze "$traces/shift1d-isend-p8-k2-m1000" \
  "${L[@]}" --against model --perfetto "$tmp/a.json"
one_error "analyze --fix-clocks" "--fix-clocks" analyze "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" \
  --against measured --fix-clocks
one_error region "need every rank's events" replay "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --region MPI_Barrier

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && echo "PASS: distributed replay and analyze"
[ "$fail" = 0 ]
