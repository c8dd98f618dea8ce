#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RETIME_TRACE_CALLSITE_SKIP=1 attributes each MPI call to the caller one frame further up
# (libunwind, loaded by the tracer only then and privately): Shift's calls in hop_ssend must be
# attributed to shift_dim. And the program keeps its own unwinding functions: with the tracer
# preloaded and libunwind in use, backtrace() and _Unwind_* must not come from libunwind.
# usage: callsite_skip.sh MPIRUN_SH TRACE_LIB RETIME SHIFT INTERPOSE_TEST
set -uo pipefail
mpirun_sh=$1 lib=$2 retime=$3 shift_prog=$4 interpose=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for skip in 0 1; do
  "$mpirun_sh" -np 2 -x RETIME_TRACE_DIR="$tmp/skip$skip" -x LD_PRELOAD="$lib" -x RETIME_TRACE_CALLSITE_SKIP=$skip \
    "$shift_prog" --dims 1 --mode ssend --k 1 --m1 100 --iters 2 >"$tmp/out$skip" 2>&1 || {
    cat "$tmp/out$skip"; fail "traced run (skip $skip)"; }
  if grep -q 'retime-trace:' "$tmp/out$skip"; then cat "$tmp/out$skip"; fail "the tracer warned (skip $skip)"; fi
  "$retime" info "$tmp/skip$skip" >"$tmp/info$skip" 2>&1 || { cat "$tmp/info$skip"; fail "retime info (skip $skip)"; }
done
grep -q ' hop_ssend ' "$tmp/info0" || { cat "$tmp/info0"; fail "without a skip, no call site in hop_ssend"; }
if grep -q ' hop_ssend ' "$tmp/info1"; then cat "$tmp/info1"; fail "RETIME_TRACE_CALLSITE_SKIP=1 still names hop_ssend"; fi
grep -q ' shift_dim ' "$tmp/info1" || { cat "$tmp/info1"; fail "RETIME_TRACE_CALLSITE_SKIP=1 does not name shift_dim"; }

"$mpirun_sh" -np 2 -x RETIME_TRACE_DIR="$tmp/interpose" -x LD_PRELOAD="$lib" -x RETIME_TRACE_CALLSITE_SKIP=1 \
  "$interpose" >"$tmp/interpose.out" 2>&1
cat "$tmp/interpose.out"
grep -q '^interpose_test: passed' "$tmp/interpose.out" || fail "the tracer changed the program's unwinding functions"
echo "PASS: call sites one frame up with RETIME_TRACE_CALLSITE_SKIP=1; the program's unwinder untouched"
