#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Accuracy of retime's predictions on this machine (issue #3, like the Shift paper's Tables 2-6):
#  1. measure the model parameters with `pingpong` (ranks 0 and 1) into params.txt;
#  2. run the 1D Shift with MPI_Ssend for k = 1..4 and m1 = 10 B .. 100 kB, untraced (its own
#     timing: mean and sigma per iteration over ranks and iterations) and traced (an OTF2 trace);
#  3. replay each trace with `retime replay --params params.txt` under Hockney and LogP-lite
#     (compute intervals as measured) and compare the predicted per-iteration time with the
#     untraced measurement.
# Writes OUT/accuracy.md (a Markdown table) and OUT/accuracy.csv.
# usage: scripts/accuracy.sh [BUILD_DIR] [OUT_DIR] [RANKS]   (defaults: build, build/accuracy, 2)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
out=${2:-$build/accuracy}
np=${3:-2}
mpirun_sh=$repo/scripts/mpirun.sh
retime=$build/replay/retime
shift_bin=$build/instrument/shift
pingpong=$build/instrument/pingpong
lib=$build/instrument/libretime-trace.so
for f in "$retime" "$shift_bin" "$pingpong" "$lib"; do
  [ -e "$f" ] || { echo "accuracy.sh: error: $f not found; build with RT_WITH_MPI=ON first" >&2; exit 1; }
done
rm -rf "$out"; mkdir -p "$out"
iters=${ACCURACY_ITERS:-200}; titers=${ACCURACY_TRACED_ITERS:-50}; warmup=10
sizes="10 100 1000 10000 100000"

echo "== pingpong: measuring the parameters" >&2
"$mpirun_sh" -np 2 "$pingpong" --sizes 0,10,100,1000,10000,100000 --output "$out/params.txt" \
  --histogram "$out/pingpong-histogram.csv" >"$out/pingpong.txt"

csv=$out/accuracy.csv
echo "k,m1_bytes,measured_mean_ns,measured_sigma_ns,traced_mean_ns,hockney_ns,hockney_error_pct,logp_ns,logp_error_pct" >"$csv"
# mean over instances of the per-instance mean over ranks, from `retime replay --format csv`
region_mean() { awk -F, -v col="$1" '$1 == "region" { s += $col; n++ } END { if (n) printf "%.1f", s / n; else print "nan" }'; }
for k in 1 2 3 4; do
  for m in $sizes; do
    echo "== shift k=$k m1=$m" >&2
    "$mpirun_sh" -np "$np" "$shift_bin" --dims 1 --mode ssend --k "$k" --m1 "$m" --iters "$iters" \
      --warmup "$warmup" >"$out/shift-k$k-m$m.txt"
    read -r mean sigma < <(awk -F'\t' -v k="$k" '$1 == k { print $2, $3 }' "$out/shift-k$k-m$m.txt")
    tdir=$out/trace-k$k-m$m
    "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tdir" -x LD_PRELOAD="$lib" "$shift_bin" --dims 1 --mode ssend \
      --k "$k" --m1 "$m" --iters "$titers" --warmup "$warmup" >"$tdir.txt"
    h=$("$retime" replay "$tdir" --model hockney --params "$out/params.txt" --region shift_iteration --format csv)
    l=$("$retime" replay "$tdir" --model logp --params "$out/params.txt" --region shift_iteration --format csv)
    traced=$(region_mean 4 <<<"$h")
    hp=$(region_mean 5 <<<"$h")
    lp=$(region_mean 5 <<<"$l")
    awk -v k="$k" -v m="$m" -v mean="$mean" -v sd="$sigma" -v tr="$traced" -v h="$hp" -v l="$lp" 'BEGIN {
      printf "%d,%d,%s,%s,%s,%s,%.1f,%s,%.1f\n", k, m, mean, sd, tr, h, 100 * (h - mean) / mean, l, 100 * (l - mean) / mean }' >>"$csv"
  done
done

# Markdown table and the median absolute errors.
{
  echo "| k | m1 [B] | measured mean ± σ [ns] | traced mean [ns] | Hockney [ns] | error | LogP-lite [ns] | error |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %d | %d | %.0f ± %.0f | %.0f | %.0f | %+.1f%% | %.0f | %+.1f%% |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$csv"
  echo
  for col in 7 9; do
    name=$([ $col -eq 7 ] && echo Hockney || echo LogP-lite)
    med=$(awk -F, -v c=$col 'NR > 1 { v = $c < 0 ? -$c : $c; print v }' "$csv" | sort -g |
          awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    echo "median |error| $name: ${med}%"
  done
} >"$out/accuracy.md"
cat "$out/accuracy.md"
