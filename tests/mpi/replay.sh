#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Traces a Shift run and replays the archive with the retime CLI (Hockney model).
# usage: replay.sh MPIRUN_SH NP TRACE_LIB RETIME PROGRAM [ARGS...]
set -euo pipefail
mpirun_sh=$1 np=$2 lib=$3 retime=$4
shift 4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib" "$@" >"$tmp/out" 2>&1 || {
  echo "FAIL: traced run"; cat "$tmp/out"; exit 1; }
"$retime" replay "$tmp/trace/traces.otf2" --model hockney --alpha 2.122us --beta 0.7595ns/B
echo "PASS: replayed"
