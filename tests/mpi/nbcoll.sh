#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Non-blocking collectives through the tracer (issue #30, item 1): nbcoll_test's MPI_Iallreduce,
# MPI_Ibcast, MPI_Ireduce and MPI_Ibarrier are recorded as Score-P records them (a
# NonBlockingCollectiveRequest in the MPI_I<coll> call, a NonBlockingCollectiveComplete in the
# MPI_Wait, MPI_Test or MPI_Waitall that completed it), and retime replays them: info counts them as
# non-blocking collectives with no "not replayed" line, and the replay runs on the model's crossbar
# and on a network.
# usage: nbcoll.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME PROGRAM
set -euo pipefail
mpirun_sh=$1 np=$2 lib=$3 otf2_print=$4 retime=$5 prog=$6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib" "$prog" >"$tmp/out" 2>"$tmp/err" || {
  echo "FAIL: traced run exited non-zero"; cat "$tmp/out" "$tmp/err"; exit 1; }
grep -q '^verification: passed$' "$tmp/out" || { echo "FAIL: no 'verification: passed'"; cat "$tmp/out"; exit 1; }
if grep -q 'retime-trace:' "$tmp/err"; then echo "FAIL: tracer warned:"; cat "$tmp/err"; exit 1; fi
"$otf2_print" "$tmp/trace/traces.otf2" >"$tmp/print" 2>"$tmp/print.err" || {
  echo "FAIL: otf2-print failed"; cat "$tmp/print.err"; exit 1; }
if [ -s "$tmp/print.err" ]; then echo "FAIL: otf2-print warned:"; head "$tmp/print.err"; exit 1; fi
want=$((154 * np)) # 154 non-blocking collectives on every rank: 4, then 150 allreduces at once
nreq=$(grep -c '^NON_BLOCKING_COLLECTIVE_REQUEST ' "$tmp/print" || true)
ncom=$(grep -c '^NON_BLOCKING_COLLECTIVE_COMPLETE ' "$tmp/print" || true)
[ "$nreq" -eq "$want" ] && [ "$ncom" -eq "$want" ] || {
  echo "FAIL: $nreq requests and $ncom completions, want $want each"; exit 1; }
for x in ALLREDUCE:151 BCAST:1 REDUCE:1 BARRIER:1; do
  op=${x%%:*} k=${x##*:}
  n=$(grep '^NON_BLOCKING_COLLECTIVE_COMPLETE ' "$tmp/print" | grep -c "Operation: $op," || true)
  [ "$n" -eq "$((k * np))" ] || { echo "FAIL: $n completions of $op, want $((k * np))"; grep '^NON_BLOCKING_COLLECTIVE_COMPLETE ' "$tmp/print" | head -3; exit 1; }
done
info=$("$retime" info "$tmp/trace" 2>&1)
grep -q "collectives    $((want + np)) (calls, summed over ranks); $want of them non-blocking" <<<"$info" || {
  echo "FAIL: info's collectives line:"; echo "$info"; exit 1; }
if grep -q "not replayed" <<<"$info"; then echo "FAIL: a 'not replayed' line:"; echo "$info"; exit 1; fi
"$retime" replay "$tmp/trace" --alpha 2us --beta 1ns/B >"$tmp/replay" 2>&1 || {
  echo "FAIL: replay"; cat "$tmp/replay"; exit 1; }
"$retime" replay "$tmp/trace" --alpha 2us --beta 1ns/B --topology crossbar-flow >"$tmp/replay-net" 2>&1 || {
  echo "FAIL: replay on crossbar-flow"; cat "$tmp/replay-net"; exit 1; }
# instances: the 154 non-blocking ones and the program's closing MPI_Allreduce
grep -q "collectives 155$" "$tmp/replay" || { echo "FAIL: replay's collectives:"; cat "$tmp/replay"; exit 1; }
echo "PASS: $want non-blocking collectives recorded, counted and replayed"
