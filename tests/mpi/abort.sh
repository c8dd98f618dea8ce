#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced program that calls MPI_Abort must still leave an archive otf2-print can read, holding
# at least the aborting rank with its MPI_Abort call.
# usage: abort.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT PROGRAM
set -uo pipefail
mpirun_sh=$1 np=$2 lib=$3 otf2_print=$4 prog=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/trace
"$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "$prog" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: MPI_Abort should make the run fail"; cat "$tmp/out"; exit 1; }
grep 'retime-trace:' "$tmp/out" || true
[ -f "$dir/traces.otf2" ] || { echo "FAIL: no archive after MPI_Abort"; cat "$tmp/out"; ls -R "$tmp"; exit 1; }
"$otf2_print" "$dir/traces.otf2" >"$tmp/print" 2>"$tmp/print.err" || {
  echo "FAIL: otf2-print cannot read the archive"; cat "$tmp/print.err"; exit 1; }
grep -q '^ENTER .*"MPI_Abort"' "$tmp/print" || { echo "FAIL: no MPI_Abort event"; exit 1; }
grep -q '^ENTER .*"before_abort"' "$tmp/print" || { echo "FAIL: no user region"; exit 1; }
n=$("$otf2_print" -G "$dir/traces.otf2" | grep -c '^LOCATION ' || true)
echo "PASS: archive readable after MPI_Abort with $n of $np locations"
