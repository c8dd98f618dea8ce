#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compute as CPU time on a busy machine (issue #45, docs/cpu-time.md): traces instrument/stencil
# on 8 ranks twice, once as the machine is (run it idle) and once beside four CPU hogs
# (`while :; do :; done`), and replays both with --compute cpu and with --compute wall. Prints
# the predicted window (MPI_Init's end to MPI_Finalize's start) of each, the busy trace's against
# the idle one's (target for cpu: within 5 %), the measured windows, and the time each run
# waited for a CPU while computing (retime info). The load average is printed beside each run.
# usage: bench/busy.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, ${TMPDIR:-/tmp}/retime-busy)
# env: BUSY_ITERS (300), BUSY_N (doubles per rank, 65536), BUSY_SWEEPS (per iteration, 1),
#      BUSY_HALO (bytes, 8192), BUSY_RANKS (8), BUSY_YIELD (1: waiting ranks yield the CPU,
#      Open MPI's mpi_yield_when_idle; 0: they spin, Open MPI's default)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
out=${2:-${TMPDIR:-/tmp}/retime-busy}
retime=$build/cli/retime lib=$build/instrument/libretime-trace.so prog=$build/instrument/stencil
for f in "$retime" "$lib" "$prog"; do
  [ -e "$f" ] || { echo "busy.sh: error: $f not found; build with RT_WITH_MPI=ON first" >&2; exit 1; }
done
np=${BUSY_RANKS:-8} iters=${BUSY_ITERS:-300} n=${BUSY_N:-65536} halo=${BUSY_HALO:-8192} sweeps=${BUSY_SWEEPS:-1} yield=${BUSY_YIELD:-1}
model=(--alpha 2.122us --beta 0.7595ns/B)
rm -rf "$out"; mkdir -p "$out"
hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; hogs=(); }
trap stop_hogs EXIT
trace() { # name
  echo "$1: load average $(cut -d' ' -f1-3 /proc/loadavg) before, $np ranks, $iters iterations" >&2
  OMPI_MCA_mpi_yield_when_idle=$yield "$repo/scripts/mpirun.sh" -np "$np" -x OMPI_MCA_mpi_yield_when_idle \
    -x RETIME_TRACE_DIR="$out/$1" -x LD_PRELOAD="$lib" "$prog" --n "$n" --sweeps "$sweeps" --halo "$halo" --iters "$iters" \
    --warmup 0 >"$out/$1.out" 2>&1 || { cat "$out/$1.out" >&2; exit 1; }
}
trace idle
for _ in 1 2 3 4; do bash -c 'while :; do :; done' & hogs+=($!); done
sleep 1
trace busy
load_busy=$(cut -d' ' -f1-3 /proc/loadavg)
stop_hogs
window() { # trace, compute: the predicted window in ns
  "$retime" replay "$out/$1" "${model[@]}" --compute "$2" --format json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["window"]["predicted_ns"])'
}
measured() {
  "$retime" replay "$out/$1" "${model[@]}" --format json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["window"]["measured_ns"])'
}
ms() { awk -v v="$1" 'BEGIN { printf "%.3f", v / 1e6 }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", 100 * (a - b) / b }'; }
ci=$(window idle cpu) cb=$(window busy cpu) wi=$(window idle wall) wb=$(window busy wall)
mi=$(measured idle) mb=$(measured busy)
echo
echo "stencil, $np ranks on $(nproc) cores, --n $n --sweeps $sweeps --halo $halo, $iters iterations; Hockney ${model[*]}"
echo "busy run beside 4 CPU hogs (load average after it: $load_busy); waiting ranks yield: $yield"
echo
printf '%-16s %14s %14s %12s\n' "" "idle [ms]" "busy [ms]" "busy/idle"
printf '%-16s %14s %14s %12s\n' "measured" "$(ms "$mi")" "$(ms "$mb")" "$(pct "$mb" "$mi")"
printf '%-16s %14s %14s %12s\n' "--compute cpu" "$(ms "$ci")" "$(ms "$cb")" "$(pct "$cb" "$ci")"
printf '%-16s %14s %14s %12s\n' "--compute wall" "$(ms "$wi")" "$(ms "$wb")" "$(pct "$wb" "$wi")"
echo
for r in idle busy; do
  printf '%s: %s\n' "$r" "$("$retime" info "$out/$r" | sed -n 's/^cpu time *//p')"
done
awk -v a="$cb" -v b="$ci" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; print (d <= 0.05 ? "cpu: within 5 %" : "cpu: NOT within 5 %") }'
