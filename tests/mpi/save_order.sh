#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Dying ranks' saves in a forced order: a save never leaves fewer ranks in the archive than a
# save before it, and the line each rank prints is true of the archive it leaves (issue #28).
# Rank 0 gets SIGTERM first and saves its blob, then waits 3 s before the merge lock
# (RETIME_TRACE_TEST_MERGE_DELAY=0:3000); meanwhile ranks 1-3 get SIGTERM and merge all four.
# Rank 0's merge, last, must then hold all four ranks too: a merge of the blobs read before the
# lock (the bug) holds rank 0 only and says "1 rank(s)". The program's own SIGTERM handler lets
# every rank go on, so no process dies and mpirun kills nobody: the order is the test's alone.
# usage: save_order.sh MPIRUN_SH TRACE_LIB RETIME SIGNAL_TEST
set -uo pipefail
mpirun_sh=$1 lib=$2 retime=$3 sig_prog=$4
np=4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  for p in $(awk '/^signal_test: rank [0-9]* pid / { print $5 }' "$tmp/out" 2>/dev/null); do
    kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/out "$tmp"/err; do echo "--- $f"; cat "$f"; done; exit 1; }
# Waits up to 180 s until COMMAND succeeds (long for a loaded machine; a passing run never waits),
# or until the program has ended.
wait_until() {
  for _ in $(seq 1800); do "$@" && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  "$@" # one more look (its status is the function's): the program may have written it just before it ended
}
pid_of() { awk -v r="$1" '$1 == "signal_test:" && $2 == "rank" && $3 == r { print $5 }' "$tmp/out"; }
n_pids() { [ "$(grep -c '^signal_test: rank [0-9]* pid ' "$tmp/out")" -eq "$np" ]; }
n_said() { [ "$(grep -c '^retime-trace: rank [0-9]*: terminated by SIGTERM; ' "$tmp/err")" -eq "$1" ]; }

dir=$tmp/trace
env --default-signal=INT,TERM RETIME_TRACE_TEST_MERGE_DELAY=0:3000 "$mpirun_sh" -np "$np" \
  -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" -x RETIME_TRACE_TEST_MERGE_DELAY \
  "$sig_prog" --handler-go-on term --seconds 300 --until-file "$tmp/stop" --pids >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_until n_pids || fail "the ranks did not start"
wait_until grep -q '^signal_test: ready' "$tmp/out" || fail "the program did not start"
kill -TERM "$(pid_of 0)"
# Rank 0's blob is in place before its merge waits: the others come after it.
wait_until test -f "$dir/traces/0.rtdefs" || fail "rank 0 saved no blob"
for r in 1 2 3; do kill -TERM "$(pid_of $r)"; done
wait_until n_said "$np" || fail "not every rank said what it saved"
# Every first line says what that rank's merge left; rank 0's merge came after the others'
# blobs were all in place, so it holds all four.
said0=$(sed -n 's/^retime-trace: rank 0: terminated by SIGTERM; saved: .* holds \([0-9]*\) of [0-9]* ranks after this save .*/\1/p' "$tmp/err")
[ "$said0" = "$np" ] || fail "rank 0's save, the last, says it left ${said0:-no} rank(s), want $np"
# The archive as the saves left it, before MPI_Finalize rewrites it: all four ranks.
"$retime" info "$dir" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "retime info failed on the saved archive"; }
ranks=$(awk '$1 == "ranks" { print $2 }' "$tmp/info")
[ "$ranks" = "$np" ] || { cat "$tmp/info"; fail "the saved archive holds ${ranks:-no} ranks, want $np"; }
# Only now may the program end (a fixed run time could end before the checks on a loaded machine).
touch "$tmp/stop"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] || fail "exit status $rc, want 0 (the program's handler lets it go on)"
"$retime" info "$dir" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "retime info failed after MPI_Finalize"; }
ranks=$(awk '$1 == "ranks" { print $2 }' "$tmp/info")
[ "$ranks" = "$np" ] || fail "the final archive holds ${ranks:-no} ranks, want $np"
echo "PASS: rank 0 saved last after a 3 s wait and its merge holds all $np ranks; so does the final archive"
