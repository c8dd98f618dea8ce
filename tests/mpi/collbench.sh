#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 002's collective benchmark (instrument/collbench) traced through LD_PRELOAD and replayed: it
# verifies its results, the archive holds exactly the collectives and region instances its
# scheme makes, the replay's region statistics are the closed forms, the trace that
# scripts/network_traces.py writes for the same calls without MPI replays byte-identically (also
# on a fat tree with other jobs' traffic, which slows it), and bad options are one error line.
# usage: collbench.sh MPIRUN_SH TRACE_LIB RETIME COLLBENCH NETWORK_TRACES_PY
set -uo pipefail
mpirun_sh=$1 lib=$2 retime=$3 prog=$4 gen=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 4 ranks, k = 2..4, 2 warm-up calls and 3 repetitions of 8 B
"$mpirun_sh" -np 4 -x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib" "$prog" --reps 3 >"$tmp/out" 2>"$tmp/err" || {
  cat "$tmp/out" "$tmp/err"; fail "traced run exited non-zero"; }
cat "$tmp/out"
grep -q '^verification: passed$' "$tmp/out" || fail "no 'verification: passed'"
if grep -q 'retime-trace:' "$tmp/err"; then cat "$tmp/err"; fail "the tracer warned"; fi
[ "$(grep -cE '^(allreduce|reduce|bcast) +[234] ' "$tmp/out")" = 9 ] || fail "not one line per (op, k)"

# Collectives: per (op, k) each of the k members makes 5 barriers, 5 operations and the timings'
# reduce (11 k), and all 4 ranks the MPI_COMM_WORLD barrier: 3 x (11 x (2+3+4) + 3 x 4) = 333,
# and the final reduce on 4 ranks: 337.
"$retime" info "$tmp/trace" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "retime info"; }
grep -q '^collectives *337 ' "$tmp/info" || { cat "$tmp/info"; fail "not 337 collective calls"; }
# (the traced run's eager limit, btl_vader's 4 KiB, given as the generated trace's default: 64 KiB)
H=(--alpha 2.122us --beta 0.7595ns/B --compute-scale 0 --eager-limit 64KiB)
# allreduce_k4 of 8 B: recursive doubling, 2 rounds of alpha + 8 beta = 2 x 2128.076 ns on every rank
"$retime" replay "$tmp/trace" "${H[@]}" --region allreduce_k4 --format csv >"$tmp/replay.csv" 2>&1 || {
  cat "$tmp/replay.csv"; fail "retime replay"; }
inst=$(grep -c '^region,' "$tmp/replay.csv")
[ "$inst" = 3 ] || { cat "$tmp/replay.csv"; fail "allreduce_k4 has $inst instances, not 3"; }
awk -F, '$1 == "region" && ($5 != "4256.152" || $7 != "4256.152") { bad = 1 } END { exit bad }' "$tmp/replay.csv" || {
  grep '^region,' "$tmp/replay.csv"; fail "allreduce_k4 is not 2 (alpha + 8 beta) = 4256.152 ns"; }

# The same calls written without MPI replay byte-identically: on the crossbar, and on a fat tree
# whose other half of the nodes perturbs (the run gets slower, by 0.1 %: 8 B lose only their
# bytes' share of a link, docs/network-repro.md; on random:3 the ranks share links with the others)
/usr/bin/python3 "$gen" coll "$tmp/gen" 4 allreduce,reduce,bcast 2-4 3 8 || fail "network_traces.py coll"
# shellcheck disable=SC2054
N=(--topology fattree:8,radix=4 --mapping random:3 --runs 4 --seed 1
   --perturb ratio=0.5,pattern=random-permutation,size=64KiB,interval=10us)
predicted() { # the replay's JSON but the trace's name, measured times and compute kind (the traced
  # trace has CPU times, the generated one not; at --compute-scale 0 there is no compute)
  "$retime" replay "$@" --region bcast_k3 --format json 2>&1 |
    sed -E 's/"trace": "[^"]*"//; s/"measured[a-z_]*": [0-9.]*//g; s/, "compute": "[a-z]*"//'
}
for opts in "" "${N[*]}"; do
  # shellcheck disable=SC2086
  a=$(predicted "$tmp/trace" "${H[@]}" $opts)
  # shellcheck disable=SC2086
  b=$(predicted "$tmp/gen" "${H[@]}" $opts)
  [ "$a" = "$b" ] || { echo "traced: $a"; echo "generated: $b"; fail "the generated trace replays differently (${opts:-crossbar})"; }
done
slow=$(grep -o '"slowdown": {"min": [0-9.]*, "median": [0-9.]*' <<<"$a" | awk '{ print $NF }')
awk -v s="$slow" 'BEGIN { exit !(s > 1) }' || { echo "$a"; fail "no slowdown under other jobs' traffic ($slow)"; }

# bad options: one error line on rank 0's stderr, exit status 2
for bad in "--sizes 5" "--sizes 2,2" "--ops scan" "--reps 0" "--bytes x" "--frob 1"; do
  # shellcheck disable=SC2086
  "$mpirun_sh" -np 2 "$prog" $bad >"$tmp/bad.out" 2>"$tmp/bad.err"; rc=$?
  n=$(grep -c '^collbench: error: ' "$tmp/bad.err")
  if [ "$rc" = 0 ] || [ "$n" != 1 ] || [ -s "$tmp/bad.out" ]; then
    cat "$tmp/bad.out" "$tmp/bad.err"; fail "'$bad': rc $rc, $n error lines"
  fi
  grep -q 'exit code: *2\|Exit code: *2' "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "'$bad' did not exit with status 2"; }
done
echo "PASS: collbench traced and replayed (337 collectives, allreduce_k4 = 4256.152 ns, generated trace identical, slowdown $slow)"
