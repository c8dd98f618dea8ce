#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer must not change a program's results. Runs the program untraced, traced through
# LD_PRELOAD and, given a build with the tracer linked in, that build too, and requires for each
# traced run: the same exit status, stdout identical to the untraced run except the measured
# times (the row after the table header keeps its first and last columns, k and the predicted
# latency), "verification: passed" and a "checksum:" line (Shift's hash of every received
# byte), no tracer warning, and an archive left behind.
# usage: same_results.sh MPIRUN_SH NP TRACE_LIB LINKED_PROGRAM|none PROGRAM [ARGS...]
set -uo pipefail
mpirun_sh=$1 np=$2 lib=$3 linked=$4
shift 4
prog=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Tab-separated timing row: keep k (first field) and the prediction (last field).
strip_times() {
  awk -F'\t' 'row { print "row\t" $1 "\t" $NF; row = 0; next } /^k\t/ { row = 1 } { print }' "$1"
}

run() { # NAME [MPIRUN OPTIONS...] -- PROGRAM
  local name=$1
  shift
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "$mpirun_sh" -np "$np" "${opts[@]}" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}

run plain -- "$prog" "$@"
grep -q '^verification: passed$' "$tmp/plain.out" || {
  echo "FAIL: untraced run did not verify"; cat "$tmp/plain.out" "$tmp/plain.err"; exit 1; }
grep -q '^checksum: [0-9a-f]\{16\}$' "$tmp/plain.out" || { echo "FAIL: untraced run printed no checksum"; exit 1; }
variants=(preload)
run preload -x RETIME_TRACE_DIR="$tmp/preload.trace" -x LD_PRELOAD="$lib" -- "$prog" "$@"
if [ "$linked" != none ]; then
  variants+=(linked)
  run linked -x RETIME_TRACE_DIR="$tmp/linked.trace" -- "$linked" "$@"
fi

for v in "${variants[@]}"; do
  [ "$(cat "$tmp/$v.rc")" = "$(cat "$tmp/plain.rc")" ] || {
    echo "FAIL: $v: exit status $(cat "$tmp/$v.rc"), untraced $(cat "$tmp/plain.rc")"; cat "$tmp/$v.out" "$tmp/$v.err"; exit 1; }
  grep -q '^verification: passed$' "$tmp/$v.out" || { echo "FAIL: $v: the traced run did not verify"; cat "$tmp/$v.out"; exit 1; }
  if ! diff <(strip_times "$tmp/plain.out") <(strip_times "$tmp/$v.out"); then
    echo "FAIL: $v: output differs with the tracer"; exit 1
  fi
  if grep 'retime-trace:' "$tmp/$v.err"; then echo "FAIL: $v: the tracer warned"; exit 1; fi
  [ -f "$tmp/$v.trace/traces.otf2" ] || { echo "FAIL: $v: the traced run left no archive"; exit 1; }
done
echo "PASS: identical results with and without the tracer (${variants[*]}): $(grep '^checksum:' "$tmp/plain.out"), $(grep '^# shift:' "$tmp/plain.out" | cut -c3-)"
