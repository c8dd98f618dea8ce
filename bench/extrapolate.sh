#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rank extrapolation checked against reality (issue #48, item 3; docs/extrapolate.md): three
# programs traced at 2, 4, 8, 16 and 32 ranks on this machine (the 1D stencil, the Shift 1D and
# the 2D Jacobi solver with an allreduce per iteration), the traces at 2, 4 and 8 extrapolated to
# 16 and 32, and both replayed the same way: communication only (--compute-scale 0) and with
# compute (the real trace's CPU time; the extrapolated trace's fitted gaps), over the program's
# iteration region (--window region:NAME: its steady state, without the start-up). Prints the
# error table (predicted window, extrapolated against real) and the median error per rank count.
# usage: bench/extrapolate.sh [BUILD_DIR [WORK_DIR]]   (default: <repo>/build, /tmp/retime-extrapolate)
# Tracing 32 ranks on two cores is oversubscribed: the runs take a minute or two in all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
work=${2:-/tmp/retime-extrapolate}
retime=$build/cli/retime
lib=$build/instrument/libretime-trace.so
mkdir -p "$work"
H=(--model hockney --alpha 2.122us --beta 0.7595ns/B)
# name  program and options (each traced as is at every rank count: weak scaling)
# (the window: the program's iteration region, its steady state without start-up)
progs=(
  "stencil   stencil_iteration  $build/instrument/stencil --halo 1000 --n 4096 --iters 20 --warmup 2"
  "shift1d   shift_iteration    $build/instrument/shift --dims 1 --mode ssend --k 1 --m1 1000 --iters 10 --warmup 2"
  "jacobi2d  jacobi_iteration   $build/instrument/jacobi2d --n 64 --iters 20 --warmup 2"
)
trace() { # name P command...: traces it into $work/NAME-pP unless that is there
  local name=$1 P=$2; shift 2
  local dir=$work/$name-p$P
  [ -e "$dir/traces.otf2" ] && return 0
  rm -rf "$dir"
  "$repo/scripts/mpirun.sh" -np "$P" --mca mpi_yield_when_idle 1 -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" \
    "$@" >"$work/$name-p$P.txt" 2>&1 || { echo "extrapolate.sh: $name at $P ranks failed (see $work/$name-p$P.txt)" >&2; exit 1; }
}
iteration() { # REGION TRACE ARGS...: the predicted iteration in ns: the mean over the region's instances
  # after the 2 warm-up ones of the mean over ranks (free of the ranks' start-up skew, which a
  # real run on an oversubscribed machine has and the extrapolation does not)
  local region=$1; shift
  "$retime" replay "$@" --region "$region" --format json | python3 -c '
import json, sys
v = json.load(sys.stdin)["region"]["instances"][2:]
print(sum(i["predicted_mean_ns"] for i in v) / len(v))'
}
echo "load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
printf '%-9s %5s  %14s %14s %8s   %14s %14s %8s\n' program ranks "real, comm" "extrap, comm" error "real, +cpu" \
  "extrap, +comp" error # (per iteration)
errs_comm=""; errs_comp=""
for p in "${progs[@]}"; do
  read -r name region cmd <<<"$p"
  for P in 2 4 8 16 32; do
    # shellcheck disable=SC2086 # (the program's options, split)
    trace "$name" "$P" $cmd
  done
  for P in 16 32; do
    x=$work/$name-x$P
    rm -rf "$x"
    "$retime" extrapolate "$work/$name-p2" "$work/$name-p4" "$work/$name-p8" --ranks "$P" --output "$x" --top 0 \
      >"$work/$name-x$P.txt"
    rc=$(iteration "$region" "$work/$name-p$P" "${H[@]}" --compute-scale 0)
    xc=$(iteration "$region" "$x" "${H[@]}" --compute-scale 0 --compute wall)
    rt=$(iteration "$region" "$work/$name-p$P" "${H[@]}" --compute cpu)
    xt=$(iteration "$region" "$x" "${H[@]}" --compute wall)
    ec=$(python3 -c "print(f'{100 * ($xc - $rc) / $rc:+.2f}')")
    et=$(python3 -c "print(f'{100 * ($xt - $rt) / $rt:+.2f}')")
    printf '%-9s %5s  %12.1fus %12.1fus %7s%%   %12.1fus %12.1fus %7s%%\n' "$name" "$P" \
      "$(python3 -c "print($rc / 1e3)")" "$(python3 -c "print($xc / 1e3)")" "$ec" \
      "$(python3 -c "print($rt / 1e3)")" "$(python3 -c "print($xt / 1e3)")" "$et"
    errs_comm="$errs_comm $P:$ec"; errs_comp="$errs_comp $P:$et"
  done
done
median() { # P "P:err ...": the median |error| at P
  python3 -c "import sys, statistics; v=[abs(float(e.split(':')[1])) for e in sys.argv[2].split() if e.split(':')[0]==sys.argv[1]]; print(f'{statistics.median(v):.2f}')" "$1" "$2"
}
for P in 16 32; do
  echo "median |error| at $P ranks: communication only $(median $P "$errs_comm") %, with compute $(median $P "$errs_comp") %"
done
