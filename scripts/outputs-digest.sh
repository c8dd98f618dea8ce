#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A digest of retime's outputs, to show that a refactor changed no output byte:
#   scripts/outputs-digest.sh RETIME OUTDIR
# runs the retime binary RETIME over every OTF2 archive it finds (traces/, ../shared/ext-traces,
# build/tests) with a broad set of commands (info, replay under Hockney and LogP-lite in every
# format, noise and Monte Carlo, analyze, topologies and other jobs' traffic, --output-trace read
# back with otf2-print and retime, --perfetto, sweep), plus a few trace-independent commands
# (predict, check, plot, usage errors, mpirun), and writes one file per command to OUTDIR: the
# command line, its exit status, stdout and stderr. Compare two binaries with
#   scripts/outputs-digest.sh old/retime /tmp/d1; scripts/outputs-digest.sh new/retime /tmp/d2
#   diff -r /tmp/d1 /tmp/d2
# Every command runs under `timeout` (DIGEST_TIMEOUT seconds, default 60); a timeout is output
# too (exit 124). A failing command is not an error of this script: its one-line error and exit
# status are the output. The script itself exits 0 unless it cannot run at all (exit 2).
# What varies run to run is normalised, and only that (norm_otf2, norm_junit below; found by
# running the script twice with one binary and diffing):
#  * the OTF2 anchor's "Trace identifier" (OTF2 draws a random one per archive written);
#  * JUnit's time="..." attributes of `retime check --junit` (wall-clock seconds).
# Everything else is written as the binary prints it. Paths in the outputs do not depend on
# OUTDIR or on where the repository is: commands run in OUTDIR/tmp and reach the traces through
# symlinks there (tr/main, tr/ext, tr/build-tests), so the outputs show e.g.
# tr/main/shift1d-ssend-p8-k1-m1000/traces.otf2 and work/pred/traces.otf2.
set -u
export LC_ALL=C   # sort order of the trace list, and byte-wise sanitising of odd names

if [ $# -ne 2 ]; then
  echo "usage: $0 RETIME OUTDIR" >&2; exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
retime=$1
case $retime in /*) ;; *) retime=$PWD/$retime ;; esac
if [ ! -x "$retime" ] || [ -d "$retime" ]; then
  echo "outputs-digest: $1: not an executable file" >&2; exit 2
fi
out=$2
tmo=${DIGEST_TIMEOUT:-60}
marker=.outputs-digest   # a directory with this file was written by this script: safe to replace

# OUTDIR is replaced as a whole so that no file of an earlier run is left to compare; refuse to
# remove a non-empty directory this script did not write.
if [ -e "$out" ]; then
  if [ -d "$out" ] && { [ -f "$out/$marker" ] || [ -z "$(ls -A "$out")" ]; }; then
    rm -rf "$out"
  else
    echo "outputs-digest: $out exists and was not written by this script; remove it first" >&2
    exit 2
  fi
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
echo "retime outputs digest (scripts/outputs-digest.sh); compare two with diff -r" >"$out/$marker"
tmp=$out/tmp
rm -rf "$tmp"; mkdir -p "$tmp/tr"
start=$SECONDS

# Trace roots, each behind a fixed symlink name so the trace paths in outputs are the same
# wherever the repository and OUTDIR are.
roots=()
link_root() {   # NAME DIR
  [ -d "$2" ] || return 0
  ln -s "$2" "$tmp/tr/$1" && roots+=("$1")
}
link_root main "$repo/traces"
link_root ext "$(cd "$repo/.." && pwd)/shared/ext-traces"
link_root build-tests "$repo/build/tests"

# sanitise P: a file name made of [A-Za-z0-9._+-] per path component; a component with other
# bytes gets a checksum of its raw bytes appended, so two odd names cannot collide.
sanitise() {
  local IFS=/ c s r=() parts
  read -ra parts <<<"$1"
  for c in "${parts[@]}"; do
    s=${c//[^A-Za-z0-9._+-]/_}
    [ "$s" = "$c" ] || s="$s~$(printf '%s' "$c" | cksum | cut -d' ' -f1)"
    r+=("$s")
  done
  printf '%s' "${r[*]}"
}

# run NAME CMD ARGS...: runs CMD in $tmp (retime as "retime" in the header) under timeout and
# writes $dest/NAME: the command, exit status, stdout and stderr. Optional, as variables set
# for one call: FILTER (a function stdout goes through), SUMS (files, relative to $tmp, whose
# size and sha256 are appended: files too big or binary to keep whole).
ncmd=0
run() {
  local name=$1; shift
  local f=$dest/$name rc cmd=() a
  if [ -e "$f" ]; then echo "outputs-digest: BUG: two commands named $f" >&2; exit 2; fi
  for a in "$@"; do   # no path of this machine in the header: retime, scripts/mpirun.sh
    if [ "$a" = "$retime" ]; then cmd+=(retime); else cmd+=("${a#"$repo/"}"); fi
  done
  (cd "$tmp" && timeout -k 5 "$tmo" "$@") >"$f.stdout" 2>"$f.stderr" </dev/null
  rc=$?
  {
    printf 'command:'; printf ' %q' "${cmd[@]}"; printf '\n'
    printf 'exit: %s%s\n' "$rc" "$([ "$rc" = 124 ] && echo " (timeout after ${tmo}s)")"
    echo "--- stdout"
    if [ -n "${FILTER:-}" ]; then "$FILTER" <"$f.stdout"; else cat "$f.stdout"; fi
    echo "--- stderr"
    cat "$f.stderr"
    local s
    for s in ${SUMS:-}; do
      if [ -f "$tmp/$s" ]; then
        echo "--- file $s: $(wc -c <"$tmp/$s") bytes, sha256 $(sha256sum <"$tmp/$s" | cut -d' ' -f1)"
      else
        echo "--- file $s: absent"
      fi
    done
  } >"$f"
  rm -f "$f.stdout" "$f.stderr"
  ncmd=$((ncmd + 1))
}
R=$retime

# OTF2 writes a random trace identifier into every anchor file it creates: the only line of
# `otf2-print -A` that differs between two writes of the same archive.
norm_otf2() { sed 's/^\(Trace identifier  *\).*/\1(normalised)/'; }
# otf2-print -A of an archive as its line count and checksum (the whole text is 14 MB for a
# 64-rank trace, and the same archive's text is kept whole once per trace already)
otf2_sum() {
  norm_otf2 >"$tmp/otf2-print.txt"
  echo "lines: $(wc -l <"$tmp/otf2-print.txt")"
  echo "sha256 of the normalised text: $(sha256sum <"$tmp/otf2-print.txt" | cut -d' ' -f1)"
}
# JUnit time="seconds" attributes are wall-clock time
norm_junit() { sed 's/ time="[0-9.]*"/ time="(normalised)"/g'; }

H=(--alpha 2.122us --beta 0.7595ns/B)                          # the Shift paper's Hockney
L=(--model logp --L 2us --o_s 400ns --o_r 600ns --g 1us --G 0.76ns/B)   # LogP-lite
# shellcheck disable=SC2054  # commas inside the noise specs, not array separators
N=(--net-noise exp:mean=1us --os-noise periodic:period=1ms,duration=10us --seed 3)
FT='fattree:XGFT(2;8,16;1,8)'   # 128 nodes: room for other jobs beside a 64-rank trace
# Other jobs' traffic runs for a trace's whole span (20 s for the Score-P casita trace), so the
# interval is long (10 ms): each such replay stays well under a second. No command is skipped by
# trace size: the largest trace here (51,200 events) takes under a second for any of them.
PERTURB=ratio=0.25,pattern=random-permutation,size=4KB,interval=10ms
PERTURB_IPP=ratio=0.25,pattern=ipp,size=4KB,rate=0.001/us,sigma1=0.0001/us,sigma2=0.0001/us

# Every archive under the roots, in a fixed order; listed in OUTDIR so a changed set shows.
mapfile -d '' traces < <(cd "$tmp/tr" && for r in "${roots[@]}"; do
  find "$r/" -name traces.otf2 -type f -print0; done | sort -z)
: >"$out/traces.list"
ntr=0
for anchor in "${traces[@]}"; do
  t=${anchor%/traces.otf2}                  # e.g. tr/main/team-shift/teamshift1d-...
  t=tr/$t
  printf '%q\n' "$t" >>"$out/traces.list"
  dest=$out/traces/$(sanitise "${t#tr/}")
  mkdir -p "$dest"
  rm -rf "$tmp/work"; mkdir "$tmp/work"     # --output-trace needs a new directory
  ntr=$((ntr + 1))

  run info.txt                 "$R" info "$t"
  run info.json                "$R" info "$t" --format json
  run hockney.txt              "$R" replay "$t" "${H[@]}"
  run hockney.json             "$R" replay "$t" "${H[@]}" --format json
  run hockney.csv              "$R" replay "$t" "${H[@]}" --format csv
  # the Shift's region; the other traces have none, and their error line is output too
  run hockney-region.json      "$R" replay "$t" "${H[@]}" --compute-scale 0 --region shift_iteration --format json
  run hockney-eager-coll.json  "$R" replay "$t" "${H[@]}" --eager-limit 512B --compute-scale 0.5 \
                                 --coll allreduce=ring,allgather=ring,bcast=binomial,barrier=dissemination --format json
  run hockney-bandwidth.txt    "$R" replay "$t" --alpha 1us --beta 10GB/s --quiet
  run logp.txt                 "$R" replay "$t" "${L[@]}"
  run logp.json                "$R" replay "$t" "${L[@]}" --format json
  run logp-o.csv               "$R" replay "$t" --model logp --L 1us --o 500ns --g 800ns --G 0.5ns/B --compute-scale 0 --format csv
  run fix-clocks.json          "$R" replay "$t" "${H[@]}" --fix-clocks=lmin=1us,gamma=0.9999 --format json
  # noise: one noisy run, and a short Monte Carlo in every format
  run noise-one.json           "$R" replay "$t" "${H[@]}" --net-noise lognormal:median=500ns,sigma=1 \
                                 --os-noise poisson:interval=2ms,duration=20us \
                                 --net-burst mmpp:on=100us,off=1ms,latency=3,bandwidth=0.5 --seed 7 --format json
  run noise-runs3.txt          "$R" replay "$t" "${H[@]}" "${N[@]}" --runs 3
  run noise-runs3.json         "$R" replay "$t" "${H[@]}" "${N[@]}" --runs 3 --jobs 2 --format json
  run noise-runs3.csv          "$R" replay "$t" "${L[@]}" --net-noise uniform:min=0ns,max=2us \
                                 --os-noise periodic:period=500us,duration=5us,phase=aligned --seed 11 --runs 3 --format csv
  # analyze: against the measured run and against the noise-free model
  run analyze-measured.txt     "$R" analyze "$t" "${H[@]}" --against measured
  run analyze-measured.json    "$R" analyze "$t" "${H[@]}" --against measured --format json
  run analyze-model.txt        "$R" analyze "$t" "${H[@]}" --compute-scale 0 --net-noise exp:mean=1us --seed 3 --against model --top 3
  run analyze-model.json       "$R" analyze "$t" "${H[@]}" "${N[@]}" --against model --format json
  run analyze-logp-model.json  "$R" analyze "$t" "${L[@]}" --against model --top 2 --format json
  # networks: torus, fat tree, dragonfly; other jobs' traffic (--perturb)
  run torus.txt                "$R" replay "$t" "${H[@]}" --topology torus:4x4x4
  run torus-adaptive.json      "$R" replay "$t" "${H[@]}" --topology torus:4x4x4,adaptive --mapping random:7 --format json
  run fattree.json             "$R" replay "$t" "${H[@]}" --topology "$FT" --mapping round-robin --ranks-per-node 2 \
                                 --link-bw 2ns/B --hop-latency 100ns --shm-alpha 300ns --shm-beta 0.1ns/B --format json
  run fattree64.txt            "$R" replay "$t" "${H[@]}" --topology fattree:64
  run dragonfly.json           "$R" replay "$t" "${H[@]}" --topology dragonfly:4,4,4,2,valiant --format json
  run perturb.txt              "$R" replay "$t" "${H[@]}" --topology "$FT" --perturb "$PERTURB" --seed 5
  run perturb-ipp.json         "$R" replay "$t" "${H[@]}" --topology torus:4x4x8 --perturb "$PERTURB_IPP" --seed 5 --format json
  run perturb-runs2.json       "$R" replay "$t" "${H[@]}" --topology "$FT" --perturb "$PERTURB" --seed 5 --runs 2 --format json
  run analyze-crossbar.txt     "$R" analyze "$t" "${H[@]}" --topology torus:4x4x4 --mapping random:7 --against crossbar --top 3
  run analyze-perturb.json     "$R" analyze "$t" "${H[@]}" --topology "$FT" --perturb "$PERTURB" --seed 5 --against model --format json
  # output files: the predicted archive (read back by otf2-print and by retime), the timeline
  SUMS=work/replay.json run output-trace.txt "$R" replay "$t" "${H[@]}" --output-trace work/pred --perfetto work/replay.json
  FILTER=norm_otf2 run output-trace-otf2-print.txt otf2-print -A work/pred/traces.otf2
  run output-trace-info.json   "$R" info work/pred --format json
  run output-trace-replay.txt  "$R" replay work/pred "${H[@]}"
  SUMS=work/analyze.json run analyze-output-trace.txt "$R" analyze "$t" "${H[@]}" "${N[@]}" --against model \
                                 --output-trace work/apred --perfetto work/analyze.json
  # otf2-print of analyze's archive is as long as the one above: its count and checksum only
  FILTER=otf2_sum run analyze-output-trace-otf2-print.txt otf2-print -A work/apred/traces.otf2
  # sweep: one small list per model, and topologies as an axis
  run sweep.txt                "$R" sweep "$t" --alpha 1us,2.122us --beta 0.38ns/B,0.7595ns/B
  run sweep.csv                "$R" sweep "$t" "${H[@]}" --compute-scale 0,0.5,1 --format csv
  run sweep-logp.json          "$R" sweep "$t" --model logp --L 1us,2us --o 500ns --g 1us --G 0.76ns/B --jobs 1 --format json
  run sweep-topology.txt       "$R" sweep "$t" "${H[@]}" --topology crossbar --topology torus:4x4x4 --compute-scale 0,1
done

# Trace-independent commands, and a few on the stored Shift traces only (plots, the CI gate,
# mpirun), in their own directory.
dest=$out/global
mkdir -p "$dest"
rm -rf "$tmp/work"; mkdir "$tmp/work"
S1=tr/main/shift1d-ssend-p8-k1-m1000
S2=tr/main/shift1d-ssend-p8-k2-m1000
run version.txt        "$R" --version
run help.txt           "$R" --help
run plot-help.txt      "$R" plot --help
run no-args.txt        "$R"
run unknown-command.txt "$R" bogus
run bad-unit.txt       "$R" replay "$S1" --alpha 2 --beta 0.7595ns/B
run missing-trace.txt  "$R" info tr/main/no-such-trace
run predict-shift1d.txt     "$R" predict shift --dims 1 --k 3 --m1 1000 --mode ssend "${H[@]}"
run predict-shift3d.json    "$R" predict shift --dims 3 --k 2 --m1 100KB --mode isend "${H[@]}" --format json
run predict-team-shift.txt  "$R" predict team-shift --dims 1 --k 2 --m1 1000 --team 4 "${H[@]}"
run predict-team-shift.json "$R" predict team-shift --dims 3 --k 1 --m1 10KB --team 2 "${H[@]}" --format json
run predict-tradeoff.txt    "$R" predict tradeoff --dims 1 --k 3 --m1 1000 "${H[@]}" --P 24 --c 2,3,4 --traces tr/main/team-shift
run predict-tradeoff.json   "$R" predict tradeoff --dims 1 --k 2 --m1 1000 "${H[@]}" --format json
SUMS="work/tradeoff.svg work/tradeoff.png work/tradeoff.dat work/tradeoff.gp" \
  run predict-tradeoff-plot.txt "$R" predict tradeoff --dims 1 --k 2 --m1 1000 "${H[@]}" --output work/tradeoff
# the CI gate on the stored traces: passing, failing on purpose, and a baseline recorded anew
run check-pass.txt     "$R" check tr/main --baseline tr/main/baseline.json --junit work/junit.xml
FILTER=norm_junit run check-pass-junit.xml cat work/junit.xml
run check-fail.txt     "$R" check tr/main --baseline tr/main/baseline.json --alpha 3us --beta 0.7595ns/B --compute-scale 0
run check-update.txt   "$R" check tr/main --baseline work/baseline.json --update "${H[@]}" --compute-scale 0 --region shift_iteration
run check-update-baseline.json cat work/baseline.json
# plots: their data and gnuplot script whole, the pictures as checksums
plot() {  # NAME ARGS...
  local n=$1; shift
  run "plot-$n.txt" "$R" plot "$n" "$@" --output "work/$n"
  run "plot-$n.dat" cat "work/$n.dat"
  run "plot-$n.gp" cat "work/$n.gp"
  SUMS="work/$n.svg work/$n.png" run "plot-$n.sums" true
}
plot shift tr/main/shift1d-ssend-p8-k1-m1000 tr/main/shift1d-ssend-p8-k2-m1000 tr/main/shift1d-ssend-p8-k3-m1000 "${H[@]}"
plot timeline "$S2" "${H[@]}" --region shift_iteration --instances 3-4 --measured
plot montecarlo "$S1" "${H[@]}" --compute-scale 0 --net-noise exp:mean=1us --seed 3 --runs 100
plot sweep "$S2" --alpha 2.122us,1us,0.5us --beta 0.7595ns/B,0.38ns/B,0.19ns/B --compute-scale 0 --value speedup
# distributed replay (one process per part) must print what one process prints
if command -v mpirun >/dev/null; then
  run mpirun-replay.txt  "$repo/scripts/mpirun.sh" -np 2 "$R" replay "$S1" "${H[@]}" "${N[@]}"
  run mpirun-analyze.json "$repo/scripts/mpirun.sh" -np 2 "$R" analyze tr/main/shift3d-isend-p64-k1-m1000 "${H[@]}" "${N[@]}" --against model --format json
fi

rm -rf "$tmp"   # archives and timelines are in the outputs as text or checksums
echo "outputs-digest: $ntr traces, $ncmd outputs in $out ($((SECONDS - start)) s)"
