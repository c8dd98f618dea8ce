#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs an MPI program traced (tracer preloaded, or linked into the program) into a fresh archive
# and checks that the program verified its data and that otf2-print reads the archive, cleanly,
# with point-to-point message records in it.
# usage: trace_shift.sh MPIRUN_SH NP preload|linked TRACE_LIB OTF2_PRINT PROGRAM [ARGS...]
set -euo pipefail
mpirun_sh=$1 np=$2 mode=$3 lib=$4 otf2_print=$5
shift 5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/trace
env_args=(-x RETIME_TRACE_DIR="$dir")
[ "$mode" = preload ] && env_args+=(-x LD_PRELOAD="$lib")
"$mpirun_sh" -np "$np" "${env_args[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || {
  echo "FAIL: traced run exited non-zero"; cat "$tmp/out" "$tmp/err"; exit 1; }
cat "$tmp/out"
grep -q '^verification: passed$' "$tmp/out" || { echo "FAIL: no 'verification: passed'"; exit 1; }
if grep -q 'retime-trace:' "$tmp/err"; then echo "FAIL: tracer warned:"; cat "$tmp/err"; exit 1; fi
[ -f "$dir/traces.otf2" ] || { echo "FAIL: no archive $dir/traces.otf2"; exit 1; }
"$otf2_print" "$dir/traces.otf2" >"$tmp/print" 2>"$tmp/print.err" || {
  echo "FAIL: otf2-print failed"; cat "$tmp/print.err"; exit 1; }
if [ -s "$tmp/print.err" ]; then echo "FAIL: otf2-print warned:"; head "$tmp/print.err"; exit 1; fi
grep -Eq '^MPI_I?SEND ' "$tmp/print" || { echo "FAIL: no MPI_SEND/MPI_ISEND records"; exit 1; }
grep -Eq '^MPI_I?RECV ' "$tmp/print" || { echo "FAIL: no MPI_RECV/MPI_IRECV records"; exit 1; }
grep -q '"retime::callsite"' "$tmp/print" || { echo "FAIL: no call-site attributes"; exit 1; }
locs=$(grep -c '^ENTER .*"MPI_Init"' "$tmp/print" || true)
[ "$locs" -eq "$np" ] || { echo "FAIL: $locs of $np locations have MPI_Init"; exit 1; }
echo "PASS: $(grep -c . "$tmp/print") lines of otf2-print output, $np locations"
