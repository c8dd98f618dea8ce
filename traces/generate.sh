#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the stored sample traces from real traced Shift runs: each run is traced through
# LD_PRELOAD into traces/<name>/ (anchor traces/<name>/traces.otf2), and the benchmark's own
# output is kept beside it as shift.txt. Existing sample directories are replaced.
# usage: traces/generate.sh [BUILD_DIR]     (default: <repo>/build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
shift_bin=$build/instrument/shift
lib=$build/instrument/libretime-trace.so
mpirun_sh=$repo/scripts/mpirun.sh
for f in "$shift_bin" "$lib"; do
  [ -e "$f" ] || { echo "generate.sh: error: $f not found; build with RT_WITH_MPI=ON first" >&2; exit 1; }
done

# name  ranks  shift options (10 measured iterations, 2 warm-up iterations each)
runs=(
  "shift1d-ssend-p8-k1-m1000     8 --dims 1 --mode ssend --k 1 --m1 1000"
  "shift1d-ssend-p8-k2-m1000     8 --dims 1 --mode ssend --k 2 --m1 1000"
  "shift1d-ssend-p8-k3-m1000     8 --dims 1 --mode ssend --k 3 --m1 1000"
  "shift1d-ssend-p8-k2-m100000   8 --dims 1 --mode ssend --k 2 --m1 100000"
  "shift1d-isend-p8-k2-m1000     8 --dims 1 --mode isend --k 2 --m1 1000"
  "shift3d-ssend-p64-k1-m1000   64 --dims 3 --grid 4x4x4 --mode ssend --k 1 --m1 1000"
  "shift3d-isend-p64-k1-m1000   64 --dims 3 --grid 4x4x4 --mode isend --k 1 --m1 1000"
)

for spec in "${runs[@]}"; do
  read -r name np opts <<<"$spec"
  out=$here/$name
  rm -rf "$out"
  echo "== $name ($np ranks): shift $opts --iters 10 --warmup 2"
  # 64 ranks on a laptop or CI box are heavily oversubscribed: idle ranks must yield the core.
  # shellcheck disable=SC2086
  "$mpirun_sh" -np "$np" --mca mpi_yield_when_idle 1 -x RETIME_TRACE_DIR="$out" -x LD_PRELOAD="$lib" \
    "$shift_bin" $opts --iters 10 --warmup 2 --alpha 2.122us --beta 0.7595ns/B >"$out.txt.tmp"
  mv "$out.txt.tmp" "$out/shift.txt"
  grep -q '^verification: passed$' "$out/shift.txt" || { echo "generate.sh: error: $name did not verify" >&2; exit 1; }
  otf2-print "$out/traces.otf2" >/dev/null
  du -sh "$out" | sed 's/^/   /'
done
echo "all sample traces regenerated"
