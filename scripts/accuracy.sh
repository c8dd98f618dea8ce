#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Accuracy of retime's predictions on this machine (issue #3, like the Shift paper's Tables 2-6):
#  1. measure the model parameters with `pingpong` (ranks 0 and 1): params.txt with MPI_Send
#     ping-pongs (LogP-lite, and Hockney as most benchmarks measure it), params-ssend.txt with
#     MPI_Ssend ping-pongs (Hockney for synchronous sends, as the Shift paper measured it);
#  2. run the 1D Shift with MPI_Ssend for k = 1..4 and m1 = 10 B .. 100 kB, untraced (its own
#     timing: mean and sigma per iteration over ranks and iterations) and traced (an OTF2 trace);
#  3. replay each trace with `retime replay --params ...` (compute intervals as measured) under
#     Hockney (alpha, beta from MPI_Send; from MPI_Ssend with the least-squares beta; from MPI_Ssend
#     with the beta per size, --beta-table) and LogP-lite, and compare the predicted per-iteration
#     time with the untraced measurement.
# Writes OUT/accuracy.md (a Markdown table) and OUT/accuracy.csv; with RANKS >= 6 also Team Shift's
# OUT/accuracy-team.md and OUT/accuracy-team.csv (docs/team-shift.md).
# usage: scripts/accuracy.sh [BUILD_DIR] [OUT_DIR] [RANKS]   (defaults: build, build/accuracy, 2)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
out=${2:-$build/accuracy}
np=${3:-2}
mpirun_sh=$repo/scripts/mpirun.sh
retime=$build/cli/retime
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
ppsizes=0,10,100,1000,10000,100000
"$mpirun_sh" -np 2 "$pingpong" --sizes $ppsizes --output "$out/params.txt" \
  --histogram "$out/pingpong-histogram.csv" >"$out/pingpong.txt"
"$mpirun_sh" -np 2 "$pingpong" --sizes $ppsizes --send ssend --output "$out/params-ssend.txt" \
  >"$out/pingpong-ssend.txt"

csv=$out/accuracy.csv
models=(hockney_send hockney_ssend hockney_ssend_table logp)
opts_hockney_send=(--model hockney --params "$out/params.txt")
opts_hockney_ssend=(--model hockney --params "$out/params-ssend.txt")
opts_hockney_ssend_table=(--model hockney --params "$out/params-ssend.txt" --beta-table)
opts_logp=(--model logp --params "$out/params.txt")
{
  printf "k,m1_bytes,measured_mean_ns,measured_sigma_ns,traced_mean_ns"
  for mo in "${models[@]}"; do printf ",%s_ns,%s_error_pct" "$mo" "$mo"; done
  echo
} >"$csv"
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
    row="$k,$m,$mean,$sigma"
    for mo in "${models[@]}"; do
      declare -n mopts="opts_$mo"
      r=$("$retime" replay "$tdir" "${mopts[@]}" --region shift_iteration --format csv)
      [ "$mo" = "${models[0]}" ] && row="$row,$(region_mean 4 <<<"$r")"
      p=$(region_mean 5 <<<"$r")
      row="$row,$p,$(awk -v p="$p" -v m="$mean" 'BEGIN { printf "%.1f", 100 * (p - m) / m }')"
    done
    echo "$row" >>"$csv"
  done
done

# Markdown table and the median absolute errors.
{
  echo "| k | m1 [B] | measured mean ± σ [ns] | traced [ns] | Hockney, Send α β | err | Hockney, Ssend α β | err | Hockney, Ssend α, β per size | err | LogP-lite | err |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 { printf "| %d | %d | %.0f ± %.0f | %.0f | %.0f | %+.1f%% | %.0f | %+.1f%% | %.0f | %+.1f%% | %.0f | %+.1f%% |\n",
                    $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$csv"
  echo
  names=("Hockney, Send alpha/beta" "Hockney, Ssend alpha/beta" "Hockney, Ssend alpha, beta per size" "LogP-lite")
  for i in 0 1 2 3; do
    col=$((7 + 2 * i)); name=${names[$i]}
    med=$(awk -F, -v c=$col 'NR > 1 { v = $c < 0 ? -$c : $c; print v }' "$csv" | sort -g |
          awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    echo "median |error| $name: ${med}%"
  done
} >"$out/accuracy.md"
cat "$out/accuracy.md"

# Team Shift (docs/team-shift.md), with RANKS >= 6: teams of c = 2 and 3 on RANKS/c >= 3 teams,
# k = 1, 2, the benchmark's leaders' mean against the replay's max over ranks (a team's
# iteration ends at its leader), under the Ssend settings, and the closed form. Below 6 ranks no
# team of two has a ring that holds the window, and the section is skipped.
if [ "$np" -ge 6 ]; then
  tcsv=$out/accuracy-team.csv
  tmodels=(hockney_ssend hockney_ssend_table)
  echo "c,k,m1_bytes,measured_mean_ns,measured_sigma_ns,closed_form_ns,hockney_ssend_ns,hockney_ssend_error_pct,hockney_ssend_table_ns,hockney_ssend_table_error_pct" >"$tcsv"
  read -r alpha_ss beta_ss < <(awk -F' *= *' '{ sub(/ *#.*/, "", $2) } $1 == "alpha" { a = $2 } $1 == "beta" { b = $2 }
                                             END { print a, b }' "$out/params-ssend.txt")
  for c in 2 3; do
    [ $((np % c)) -eq 0 ] && [ $((np / c)) -ge 3 ] || continue
    for k in 1 2; do
      [ $((np / c)) -ge $((2 * k + 1)) ] || continue
      for m in 100 1000 10000; do
        echo "== team-shift c=$c k=$k m1=$m" >&2
        base=$out/team-c$c-k$k-m$m
        "$mpirun_sh" -np "$np" "$shift_bin" --algorithm team-shift --team "$c" --k "$k" --m1 "$m" \
          --iters "$iters" --warmup "$warmup" >"$base.txt"
        read -r mean sigma < <(awk -F'\t' -v k="$k" '$1 == k { print $2, $3 }' "$base.txt")
        "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$base.trace" -x LD_PRELOAD="$lib" "$shift_bin" \
          --algorithm team-shift --team "$c" --k "$k" --m1 "$m" --iters "$titers" --warmup "$warmup" >"$base.trace.txt"
        cf=$("$retime" predict team-shift --dims 1 --k "$k" --team "$c" --m1 "$m" --alpha "$alpha_ss" \
          --beta "$beta_ss" --format json | sed 's/.*"iteration_ns": \([0-9.e+]*\).*/\1/')
        row="$c,$k,$m,$mean,$sigma,$cf"
        for mo in "${tmodels[@]}"; do
          declare -n mopts="opts_$mo"
          p=$("$retime" replay "$base.trace" "${mopts[@]}" --region shift_iteration --format csv | region_mean 7)
          row="$row,$p,$(awk -v p="$p" -v m="$mean" 'BEGIN { printf "%.1f", 100 * (p - m) / m }')"
        done
        echo "$row" >>"$tcsv"
      done
    done
  done
  {
    echo "| c | k | m1 [B] | measured (leaders) mean ± σ [ns] | closed form, Ssend α β [ns] | replay, Ssend α β | err | replay, Ssend α, β per size | err |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { printf "| %d | %d | %d | %.0f ± %.0f | %.0f | %.0f | %+.1f%% | %.0f | %+.1f%% |\n",
                      $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$tcsv"
  } >"$out/accuracy-team.md"
  cat "$out/accuracy-team.md"
fi
