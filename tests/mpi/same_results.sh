#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer must not change a program's results: runs the program untraced and traced and
# compares everything it prints except the timing row (the line after the table header).
# usage: same_results.sh MPIRUN_SH NP TRACE_LIB PROGRAM [ARGS...]
set -euo pipefail
mpirun_sh=$1 np=$2 lib=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
strip_times() { awk 'skip { skip = 0; next } /^k\t/ { skip = 1 } { print }' "$1"; }
"$mpirun_sh" -np "$np" "$@" >"$tmp/plain" 2>&1 || { echo "FAIL: untraced run"; cat "$tmp/plain"; exit 1; }
"$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib" "$@" >"$tmp/traced" 2>&1 || {
  echo "FAIL: traced run"; cat "$tmp/traced"; exit 1; }
grep -q '^verification: passed$' "$tmp/plain" || { echo "FAIL: untraced run did not verify"; exit 1; }
grep -q '^verification: passed$' "$tmp/traced" || { echo "FAIL: traced run did not verify"; exit 1; }
if ! diff <(strip_times "$tmp/plain") <(strip_times "$tmp/traced"); then
  echo "FAIL: output differs with the tracer"; exit 1
fi
[ -f "$tmp/trace/traces.otf2" ] || { echo "FAIL: traced run left no archive"; exit 1; }
echo "PASS: identical results with and without the tracer"
