#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the stored sample traces from real traced Shift and collbench runs: each run is
# traced through LD_PRELOAD into traces/<name>/ (anchor traces/<name>/traces.otf2), and the
# benchmark's own output is kept beside it as shift.txt or collbench.txt. Existing sample
# directories are replaced.
# usage: traces/generate.sh [BUILD_DIR [NAME-PATTERN]]     (default: <repo>/build, every trace)
# NAME-PATTERN (a shell pattern, e.g. 'team-shift/*') remakes only the traces whose name matches:
# re-recording a trace changes it, and traces/baseline.json then needs --update (README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
only=${2:-*}
shift_bin=$build/instrument/shift
coll_bin=$build/instrument/collbench
lib=$build/instrument/libretime-trace.so
mpirun_sh=$repo/scripts/mpirun.sh
for f in "$shift_bin" "$coll_bin" "$lib"; do
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
  # Team Shift (docs/team-shift.md), in a directory of their own: C ranks per box, P/C teams
  "team-shift/teamshift1d-ssend-p8-c1-k2-m1000     8 --algorithm team-shift --team 1 --k 2 --m1 1000"
  "team-shift/teamshift1d-ssend-p8-c2-k1-m1000     8 --algorithm team-shift --team 2 --k 1 --m1 1000"
  "team-shift/teamshift1d-ssend-p8-c2-k1-m100000   8 --algorithm team-shift --team 2 --k 1 --m1 100000"
  "team-shift/teamshift1d-ssend-p12-c3-k1-m1000   12 --algorithm team-shift --team 3 --k 1 --m1 1000"
  "team-shift/teamshift1d-ssend-p16-c2-k3-m1000   16 --algorithm team-shift --team 2 --k 3 --m1 1000"
  "team-shift/teamshift1d-ssend-p16-c4-k1-m1000   16 --algorithm team-shift --team 4 --k 1 --m1 1000"
  # with the ones above and the Shift's k = 1..3: c = 2 and 3 at every k = 1..3, for
  # `retime predict tradeoff --traces` (the crossover from replays)
  "team-shift/teamshift1d-ssend-p16-c2-k2-m1000   16 --algorithm team-shift --team 2 --k 2 --m1 1000"
  "team-shift/teamshift1d-ssend-p24-c3-k2-m1000   24 --algorithm team-shift --team 3 --k 2 --m1 1000"
  "team-shift/teamshift1d-ssend-p24-c3-k3-m1000   24 --algorithm team-shift --team 3 --k 3 --m1 1000"
)

# 002's collective benchmark (instrument/collbench, docs/network-repro.md): allreduce, reduce and
# bcast on the first k = 2..16 ranks, 2 warm-up calls and 10 repetitions per (op, k), each in
# the user region <op>_k<k>; 8 B (issue #30's size) and 64 KiB. In a directory of their own, with their
# own baseline (collbench/README.md), like team-shift/.
coll_runs=(
  "collbench/collbench-p16          16 --reps 10"
  "collbench/collbench-p16-m65536   16 --reps 10 --bytes 65536"
)

# record NAME NP PROGRAM OUTPUT-NAME OPTIONS...: one traced run into traces/NAME
record() {
  local name=$1 np=$2 bin=$3 txt=$4 out=$here/$1
  shift 4
  # shellcheck disable=SC2254
  case $name in $only) ;; *) return 0 ;; esac
  mkdir -p "$(dirname "$out")"
  rm -rf "$out"
  echo "== $name ($np ranks): $(basename "$bin") $*"
  # 64 ranks on a laptop or CI box are heavily oversubscribed: idle ranks must yield the core.
  "$mpirun_sh" -np "$np" --mca mpi_yield_when_idle 1 -x RETIME_TRACE_DIR="$out" -x LD_PRELOAD="$lib" \
    "$bin" "$@" >"$out.txt.tmp"
  mv "$out.txt.tmp" "$out/$txt"
  grep -q '^verification: passed$' "$out/$txt" || { echo "generate.sh: error: $name did not verify" >&2; exit 1; }
  otf2-print "$out/traces.otf2" >/dev/null
  du -sh "$out" | sed 's/^/   /'
}

for spec in "${runs[@]}"; do
  read -r name np opts <<<"$spec"
  # shellcheck disable=SC2086
  record "$name" "$np" "$shift_bin" shift.txt $opts --iters 10 --warmup 2 --alpha 2.122us --beta 0.7595ns/B
done
for spec in "${coll_runs[@]}"; do
  read -r name np opts <<<"$spec"
  # shellcheck disable=SC2086
  record "$name" "$np" "$coll_bin" collbench.txt $opts
done
echo "all sample traces regenerated"
