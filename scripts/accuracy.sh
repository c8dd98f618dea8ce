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
#     time with the untraced measurement;
#  4. (issue #36) fit alpha and beta from the Shift traces themselves (`retime calibrate` over all
#     of them: their MPI_Ssend messages, the rendezvous fit) and replay under them too, with the
#     least-squares beta and with the beta per size: the calibrated columns;
#  5. the same for a second program, the 1D stencil (instrument/stencil: compute, then MPI_Sendrecv
#     halos of 10 B .. 100 kB; ACCURACY_STENCIL_ITERS=2000 untraced, ACCURACY_STENCIL_TRACED_ITERS=1000
#     traced iterations): measured, Hockney with the MPI_Send alpha and beta, LogP-lite, and
#     calibrated from its own traces (the eager fit);
#  6. the fits beside pingpong's, and `retime validate` of one trace of each program.
# Writes OUT/accuracy.md (a Markdown table) and OUT/accuracy.csv, OUT/accuracy-stencil.{md,csv},
# OUT/calibrate-shift.txt, OUT/calibrate-stencil.txt, OUT/fits.md; with RANKS >= 6 also Team Shift's
# OUT/accuracy-team.md and OUT/accuracy-team.csv (docs/team-shift.md).
# ACCURACY_RUNS=N (default 3) runs all of it N times (OUT/run-1 ..) and writes the spread of the
# median errors and of the fits over the runs to OUT/accuracy-reruns.md.
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
stencil_bin=$build/instrument/stencil
lib=$build/instrument/libretime-trace.so
for f in "$retime" "$shift_bin" "$pingpong" "$stencil_bin" "$lib"; do
  [ -e "$f" ] || { echo "accuracy.sh: error: $f not found; build with RT_WITH_MPI=ON first" >&2; exit 1; }
done
rm -rf "$out"; mkdir -p "$out"
# median of the absolute values of a CSV column (header skipped)
median_abs() { awk -F, -v c="$1" 'NR > 1 && $c != "" && $c != "nan" { v = $c < 0 ? -$c : $c; print v }' "$2" | sort -g |
               awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# a parameter file's value of KEY in ns (or ns/B): 2.122us -> 2122
param_ns() { awk -F' *= *' -v k="$1" '{ sub(/ *#.*/, "", $2) } $1 == k { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z\/B]+$/, "", v)
             f = u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1; printf "%.6g", v * f; found = 1 }
             END { if (!found) print "nan" }' "$2"; }

runs=${ACCURACY_RUNS:-3}
if [ "$runs" -gt 1 ] && [ -z "${ACCURACY_RUN_INDEX:-}" ]; then
  # N whole runs, then the spread over them
  for i in $(seq 1 "$runs"); do
    echo "== run $i of $runs" >&2
    ACCURACY_RUN_INDEX=$i "$0" "$build" "$out/run-$i" "$np" >"$out/run-$i.log"
  done
  {
    echo "Median |error| per setting in each run, and the spread (max - min) over the $runs runs (means: the"
    echo "benchmark's mean iteration against the replay's mean; medians: both medians):"
    echo
    printf "| program, statistic | setting |"; for i in $(seq 1 "$runs"); do printf " run %d |" "$i"; done; echo " spread |"
    printf "|---|---|"; for i in $(seq 1 "$runs"); do printf -- "---:|"; done; echo "---:|"
    while IFS=';' read -r prog file col name; do
      printf "| %s | %s |" "$prog" "$name"; vals=""
      for i in $(seq 1 "$runs"); do
        v=$(median_abs "$col" "$out/run-$i/$file"); vals="$vals $v"
        [ "$v" = nan ] && printf " n/a |" || printf " %.1f%% |" "$v"
      done
      echo "$vals" | awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i != "nan") { if (!n++ || $i < lo) lo = $i; if (n == 1 || $i > hi) hi = $i }
                            if (n > 1) printf " %.1f pp |\n", hi - lo; else print " n/a |" }'
    done <<'LIST'
Shift, means;accuracy.csv;7;Hockney, Send alpha/beta (pingpong)
Shift, means;accuracy.csv;9;Hockney, Ssend alpha/beta (pingpong)
Shift, means;accuracy.csv;11;Hockney, Ssend alpha, beta per size (pingpong)
Shift, means;accuracy.csv;13;LogP-lite (pingpong)
Shift, means;accuracy.csv;15;Hockney, calibrated alpha/beta
Shift, means;accuracy.csv;17;Hockney, calibrated alpha, beta per size
stencil, means;accuracy-stencil.csv;6;Hockney, Send alpha/beta (pingpong)
stencil, means;accuracy-stencil.csv;8;LogP-lite (pingpong)
stencil, means;accuracy-stencil.csv;10;Hockney, calibrated alpha/beta
stencil, means;accuracy-stencil.csv;12;Hockney, calibrated alpha, beta per size
Shift, medians;accuracy-median.csv;7;Hockney, Send alpha/beta (pingpong)
Shift, medians;accuracy-median.csv;9;Hockney, Ssend alpha/beta (pingpong)
Shift, medians;accuracy-median.csv;11;Hockney, Ssend alpha, beta per size (pingpong)
Shift, medians;accuracy-median.csv;13;LogP-lite (pingpong)
Shift, medians;accuracy-median.csv;15;Hockney, calibrated alpha/beta
Shift, medians;accuracy-median.csv;17;Hockney, calibrated alpha, beta per size
stencil, medians;accuracy-stencil-median.csv;6;Hockney, Send alpha/beta (pingpong)
stencil, medians;accuracy-stencil-median.csv;8;LogP-lite (pingpong)
stencil, medians;accuracy-stencil-median.csv;10;Hockney, calibrated alpha/beta
stencil, medians;accuracy-stencil-median.csv;12;Hockney, calibrated alpha, beta per size
LIST
    echo
    echo "The fits in each run (calibrated from the traces against pingpong's; difference in % of pingpong's):"
    echo
    echo "| run | Shift: calibrated α | pingpong Ssend α | diff | calibrated β | pingpong Ssend β | diff | stencil: calibrated α | pingpong Send α | diff | calibrated β | pingpong Send β | diff |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for i in $(seq 1 "$runs"); do
      tail -n 1 "$out/run-$i/fits.csv" | awk -F, -v i="$i" '
        function v(x, f) { return x == "nan" ? "n/a" : sprintf(f, x) }
        function d(x, y) { return x == "nan" ? "n/a" : sprintf("%+.0f%%", 100 * (x - y) / y) }
        { printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", i,
            v($1, "%.0f ns"), v($2, "%.0f ns"), d($1, $2), v($3, "%.4f ns/B"), v($4, "%.4f ns/B"), d($3, $4),
            v($5, "%.0f ns"), v($6, "%.0f ns"), d($5, $6), v($7, "%.4f ns/B"), v($8, "%.4f ns/B"), d($7, $8) }'
    done
  } >"$out/accuracy-reruns.md"
  cat "$out/accuracy-reruns.md"
  exit 0
fi
iters=${ACCURACY_ITERS:-200}; titers=${ACCURACY_TRACED_ITERS:-50}; warmup=10
sizes="10 100 1000 10000 100000"

echo "== pingpong: measuring the parameters" >&2
ppsizes=0,10,100,1000,10000,100000
"$mpirun_sh" -np 2 "$pingpong" --sizes $ppsizes --output "$out/params.txt" \
  --histogram "$out/pingpong-histogram.csv" >"$out/pingpong.txt"
"$mpirun_sh" -np 2 "$pingpong" --sizes $ppsizes --send ssend --output "$out/params-ssend.txt" \
  >"$out/pingpong-ssend.txt"

csv=$out/accuracy.csv
models=(hockney_send hockney_ssend hockney_ssend_table logp hockney_calib hockney_calib_table)
opts_hockney_send=(--model hockney --params "$out/params.txt")
opts_hockney_ssend=(--model hockney --params "$out/params-ssend.txt")
opts_hockney_ssend_table=(--model hockney --params "$out/params-ssend.txt" --beta-table)
opts_logp=(--model logp --params "$out/params.txt")
opts_hockney_calib=(--model hockney --params "$out/params-calib-shift.txt")
opts_hockney_calib_table=(--model hockney --params "$out/params-calib-shift.txt" --beta-table)
# The same rows with medians (OUT/accuracy-median.csv): the benchmark's median iteration, and the
# median over instances of the replay's per-instance mean (a loaded machine stretches a few
# iterations by milliseconds, which move a mean but not a median).
mcsv=$out/accuracy-median.csv
# headers CSV MEDIAN_CSV KEYS MODEL...: the header lines of the means' and the medians' tables
# (KEYS: their first columns), for one program's models
headers() {
  local csv=$1 mcsv=$2 keys=$3 mo; shift 3
  { printf "%s,measured_mean_ns,measured_sigma_ns,traced_mean_ns" "$keys"
    for mo; do printf ",%s_ns,%s_error_pct" "$mo" "$mo"; done; echo; } >"$csv"
  { printf "%s,measured_median_ns,measured_min_ns,traced_median_ns" "$keys"
    for mo; do printf ",%s_ns,%s_error_pct" "$mo" "$mo"; done; echo; } >"$mcsv"
}
headers "$csv" "$mcsv" k,m1_bytes "${models[@]}"
# mean over instances of the per-instance mean over ranks, from `retime replay --format csv`
region_mean() { awk -F, -v col="$1" '$1 == "region" { s += $col; n++ } END { if (n) printf "%.1f", s / n; else print "nan" }'; }
# the same as a median over the instances: robust to the instances a descheduled rank stretched
region_median() { awk -F, -v col="$1" '$1 == "region" { print $col }' | sort -g |
                  awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else printf "%.1f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# replay TRACE REGION MODEL-OPTIONS...: replay's CSV, or nothing (nan) when the parameter file is not there
replay_or_nan() {
  local t=$1 region=$2; shift 2
  local a prev=
  for a in "$@"; do [ "$prev" = --params ] && [ ! -e "$a" ] && return 0; prev=$a; done
  "$retime" replay "$t" "$@" --region "$region" --format csv
}
pct() { awk -v p="$1" -v m="$2" 'BEGIN { if (p == "nan") print "nan"; else printf "%.1f", 100 * (p - m) / m }'; }
# rows CSV MEDIAN_CSV KEYS MEAN SIGMA MIN MEDIAN TRACE REGION MODEL...: replays TRACE under each
# model (its options in the array opts_MODEL) and appends to each table one row: KEYS, the
# measured figures, the traced run's own (from the first model's replay), and per model the
# replay's region time and its error against the measured one.
rows() {
  local csv=$1 mcsv=$2 keys=$3 mean=$4 sigma=$5 mn=$6 med=$7 t=$8 region=$9 mo r p q first=1; shift 9
  local row="$keys,$mean,$sigma" mrow="$keys,$med,$mn"
  for mo; do
    declare -n mopts="opts_$mo"
    r=$(replay_or_nan "$t" "$region" "${mopts[@]}")
    if [ "$first" = 1 ]; then
      row="$row,$(region_mean 4 <<<"$r")"; mrow="$mrow,$(region_median 4 <<<"$r")"; first=0
    fi
    p=$(region_mean 5 <<<"$r"); q=$(region_median 5 <<<"$r")
    row="$row,$p,$(pct "$p" "$mean")"; mrow="$mrow,$q,$(pct "$q" "$med")"
  done
  echo "$row" >>"$csv"; echo "$mrow" >>"$mcsv"
}
for k in 1 2 3 4; do
  for m in $sizes; do
    echo "== shift k=$k m1=$m" >&2
    "$mpirun_sh" -np "$np" "$shift_bin" --dims 1 --mode ssend --k "$k" --m1 "$m" --iters "$iters" \
      --warmup "$warmup" >"$out/shift-k$k-m$m.txt"
    tdir=$out/trace-k$k-m$m
    "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tdir" -x LD_PRELOAD="$lib" "$shift_bin" --dims 1 --mode ssend \
      --k "$k" --m1 "$m" --iters "$titers" --warmup "$warmup" >"$tdir.txt"
  done
done
# The Shift's alpha and beta from its own traces: all of them together (one m1 each), MPI_Ssend
# messages, so the rendezvous fit.
# A run whose traces determine no line (too noisy: times that do not grow with the size) gets no
# calibrated columns (nan), and says why in OUT/calibrate-shift.txt.
"$retime" calibrate "$out"/trace-k*-m*/ --fit rendezvous --output "$out/params-calib-shift.txt" \
  >"$out/calibrate-shift.txt" 2>&1 || echo "accuracy.sh: no calibrated Shift parameters: $(tail -n 1 "$out/calibrate-shift.txt")" >&2
for k in 1 2 3 4; do
  for m in $sizes; do
    read -r mean sigma mn med < <(awk -F'\t' -v k="$k" '$1 == k { print $2, $3, $4, $5 }' "$out/shift-k$k-m$m.txt")
    rows "$csv" "$mcsv" "$k,$m" "$mean" "$sigma" "$mn" "$med" "$out/trace-k$k-m$m" shift_iteration "${models[@]}"
  done
done

# Markdown table and the median absolute errors.
{
  echo "| k | m1 [B] | measured mean ± σ [ns] | traced [ns] | Hockney, Send α β | err | Hockney, Ssend α β | err | Hockney, Ssend α, β per size | err | LogP-lite | err | Hockney, calibrated α β | err | calibrated α, β per size | err |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'function v(x) { return x == "nan" ? "n/a" : sprintf("%.0f", x) }
           function e(x) { return x == "nan" ? "n/a" : sprintf("%+.1f%%", x) }
           NR > 1 { printf "| %d | %d | %.0f ± %.0f | %s |", $1, $2, $3, $4, v($5)
                    for (i = 6; i <= 17; i += 2) printf " %s | %s |", v($i), e($(i + 1)); print "" }' "$csv"
  echo
  names=("Hockney, Send alpha/beta" "Hockney, Ssend alpha/beta" "Hockney, Ssend alpha, beta per size" "LogP-lite"
         "Hockney, calibrated alpha/beta" "Hockney, calibrated alpha, beta per size")
  for i in 0 1 2 3 4 5; do
    echo "median |error| ${names[$i]}: $(median_abs $((7 + 2 * i)) "$csv")% (medians: $(median_abs $((7 + 2 * i)) "$mcsv")%)"
  done
} >"$out/accuracy.md"
cat "$out/accuracy.md"

# The second program: the 1D stencil (MPI_Sendrecv halos of m bytes after a compute sweep),
# measured untraced and traced, calibrated from its own traces (eager messages: the eager fit).
scsv=$out/accuracy-stencil.csv
smodels=(hockney_send logp hockney_calib_st hockney_calib_st_table)
opts_hockney_calib_st=(--model hockney --params "$out/params-calib-stencil.txt")
opts_hockney_calib_st_table=(--model hockney --params "$out/params-calib-stencil.txt" --beta-table)
# An iteration is a few us: 2000 untraced and 1000 traced ones (a few ms) so that a descheduled
# rank's millisecond stall does not cover a whole run.
siters=${ACCURACY_STENCIL_ITERS:-2000}; stiters=${ACCURACY_STENCIL_TRACED_ITERS:-1000}
for m in $sizes; do
  echo "== stencil halo=$m" >&2
  "$mpirun_sh" -np "$np" "$stencil_bin" --halo "$m" --iters "$siters" --warmup "$warmup" >"$out/stencil-m$m.txt"
  "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$out/stencil-trace-m$m" -x LD_PRELOAD="$lib" "$stencil_bin" \
    --halo "$m" --iters "$stiters" --warmup "$warmup" >"$out/stencil-trace-m$m.txt"
done
"$retime" calibrate "$out"/stencil-trace-m*/ --fit eager --output "$out/params-calib-stencil.txt" \
  >"$out/calibrate-stencil.txt" 2>&1 || echo "accuracy.sh: no calibrated stencil parameters: $(tail -n 1 "$out/calibrate-stencil.txt")" >&2
smcsv=$out/accuracy-stencil-median.csv
headers "$scsv" "$smcsv" m_bytes "${smodels[@]}"
for m in $sizes; do
  read -r mean sigma mn med < <(awk -F'\t' -v m="$m" '$1 == m { print $2, $3, $4, $5 }' "$out/stencil-m$m.txt")
  rows "$scsv" "$smcsv" "$m" "$mean" "$sigma" "$mn" "$med" "$out/stencil-trace-m$m" stencil_iteration "${smodels[@]}"
done
{
  echo "| halo [B] | measured mean ± σ [ns] | traced [ns] | Hockney, Send α β | err | LogP-lite | err | Hockney, calibrated α β | err | calibrated α, β per size | err |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'function v(x) { return x == "nan" ? "n/a" : sprintf("%.0f", x) }
           function e(x) { return x == "nan" ? "n/a" : sprintf("%+.1f%%", x) }
           NR > 1 { printf "| %d | %.0f ± %.0f | %s |", $1, $2, $3, v($4)
                    for (i = 5; i <= 12; i += 2) printf " %s | %s |", v($i), e($(i + 1)); print "" }' "$scsv"
  echo
  names=("Hockney, Send alpha/beta" "LogP-lite" "Hockney, calibrated alpha/beta" "Hockney, calibrated alpha, beta per size")
  for i in 0 1 2 3; do
    echo "median |error| ${names[$i]}: $(median_abs $((6 + 2 * i)) "$scsv")% (medians: $(median_abs $((6 + 2 * i)) "$smcsv")%)"
  done
} >"$out/accuracy-stencil.md"
cat "$out/accuracy-stencil.md"

# The fits beside pingpong's (the Shift's rendezvous fit against the MPI_Ssend ping-pong, the
# stencil's eager fit against the MPI_Send one), and validate of one trace of each program.
{
  echo "shift_alpha_ns,pingpong_ssend_alpha_ns,shift_beta,pingpong_ssend_beta,stencil_alpha_ns,pingpong_send_alpha_ns,stencil_beta,pingpong_send_beta"
  echo "$(param_ns alpha "$out/params-calib-shift.txt"),$(param_ns alpha "$out/params-ssend.txt"),$(param_ns beta "$out/params-calib-shift.txt"),$(param_ns beta "$out/params-ssend.txt"),$(param_ns alpha "$out/params-calib-stencil.txt"),$(param_ns alpha "$out/params.txt"),$(param_ns beta "$out/params-calib-stencil.txt"),$(param_ns beta "$out/params.txt")"
} >"$out/fits.csv"
{
  echo "| | calibrated α | pingpong α | calibrated β | pingpong β |"
  echo "|---|---:|---:|---:|---:|"
  tail -n 1 "$out/fits.csv" | awk -F, '
    function v(x, f) { return x == "nan" ? "n/a" : sprintf(f, x) }
    { printf "| Shift (rendezvous fit) vs MPI_Ssend ping-pong | %s | %s | %s | %s |\n", v($1, "%.0f ns"), v($2, "%.0f ns"), v($3, "%.4f ns/B"), v($4, "%.4f ns/B")
      printf "| stencil (eager fit) vs MPI_Send ping-pong | %s | %s | %s | %s |\n", v($5, "%.0f ns"), v($6, "%.0f ns"), v($7, "%.4f ns/B"), v($8, "%.4f ns/B") }'
  echo
  echo "validate, k=2 m1=1000 Shift under its calibration:"
  [ -e "$out/params-calib-shift.txt" ] && "$retime" validate "$out/trace-k2-m1000" --params "$out/params-calib-shift.txt" --top 0 | sed -n '/^error/,$p'
  echo
  echo "validate, 1 kB stencil under its calibration:"
  [ -e "$out/params-calib-stencil.txt" ] && "$retime" validate "$out/stencil-trace-m1000" --params "$out/params-calib-stencil.txt" --top 0 | sed -n '/^error/,$p'
} >"$out/fits.md"
cat "$out/fits.md"

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
