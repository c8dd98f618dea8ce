#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main jobs under valgrind memcheck: no invalid read or write, no use of uninitialised
# memory, no definite leak (--error-exitcode=1). Skipped (77) without valgrind.
set -u
retime=$1; traces=$2; work=$3
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
T1=$traces/shift1d-ssend-p8-k1-m1000
T3=$traces/shift3d-isend-p64-k1-m1000
H=(--alpha 2.122us --beta 0.7595ns/B)
vg() { valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite "$@" >/dev/null; }
# the README's example (scripts/run-example.sh)
check example vg "$retime" replay "$T1" "${H[@]}" --compute-scale 0 --region shift_iteration
check logp-3d vg "$retime" replay "$T3" --model logp --L 1us --o 0.5us --g 0.2us --G 0.76ns/B
check analyze-outputs vg "$retime" analyze "$T1" "${H[@]}" --against measured \
  --output-trace "$work/a.otf2" --perfetto "$work/a.json" --format json
check montecarlo-threads vg "$retime" replay "$T1" "${H[@]}" --net-noise exp:mean=1us \
  --os-noise poisson:interval=50us,duration=2us --runs 4 --jobs 2
check check-gate vg "$retime" check "$traces" --baseline "$traces/baseline.json"
# an error path: retime's own exit status 1, not valgrind's 99
valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
  "$retime" replay "$work/missing" "${H[@]}" >/dev/null 2>&1
check error-path same "$?" 1
checks_done
