#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/overhead.sh runs through on a small count: its table has a figure in every row of the four
# configurations and the OTF2 floor's rows (the figures are benchmarks, not checked here).
# usage: overhead_smoke.sh OVERHEAD_SH BUILD_DIR MPIRUN_SH
set -uo pipefail
out=$(CALLS=2000 ROUNDS=1 MPIRUN=$3 "$1" "$2" 2>&1) || { echo "$out"; echo "FAIL: overhead.sh failed"; exit 1; }
n=$(grep -cE '^(untraced|traced|monotonic|no-callsites) +[0-9.]+ ns +[0-9.]+ ns' <<<"$out")
f=$(grep -cE '^  .* [0-9.]+ ns$' <<<"$out")
if [ "$n" -eq 4 ] && [ "$f" -ge 3 ]; then
  echo "$out"
  echo "PASS: overhead.sh's table"
else
  echo "$out"
  echo "FAIL: overhead.sh: $n configuration rows (4 wanted), $f floor rows (3 or more wanted)"
fi
