#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A full disk must not change the traced program: it finishes with exit status 0 and the same
# results (stdout, with Shift's checksum, as untraced, measured times aside), never hangs, and
# the tracer prints exactly one line on stderr, naming the directory and the errno text, e.g.
#   retime-trace: rank 0: cannot write trace to DIR: No space left on device; tracing stopped, the program goes on
# Modes:
#   tmpfs   the archive directory on a real tmpfs (mount needs CAP_SYS_ADMIN; without it the
#           test is skipped, exit 77, and the inject mode covers the same code)
#   inject  a LD_PRELOAD fault injector (full_disk_inject.c) that gives the directory that much
#           space per process; plus a run where only rank 1's disk is full, so rank 0 reports
#           for it and the archive holds the other ranks
# Scenarios, each with a 2 MiB event buffer except the first:
#   short   256 KiB: a short run whose events are flushed only at MPI_Finalize
#   long    256 KiB: a long run whose first flush during the run finds no room
#   fills   8 MiB (tmpfs) / 12 MiB per process (inject): flushes succeed and write data, then
#           the disk fills up during the run
#   fsize   (inject mode) `ulimit -f 8192` on the ranks: the trace must stop at the limit with
#           "File too large" instead of the program being killed by SIGXFSZ
# The program is fill_test (fill_test.c): its steps write 23 KiB of events per rank with two MPI
# calls, so that filling megabytes costs a few hundred synchronisations, not the hundreds of
# thousands of a communication-bound program (a 12,000-iteration Shift took 10 minutes beside
# four CPU hogs on two cores). Step counts below: the KiB of events each scenario needs.
# usage: full_disk.sh tmpfs|inject MPIRUN_SH NP TRACE_LIB OTF2_PRINT FILL_TEST [INJECT_LIB]
set -uo pipefail
mode=$1 mpirun_sh=$2 np=$3 lib=$4 otf2_print=$5 fill_prog=$6 inject=${7:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
mnt=$tmp/disk
mkdir -p "$mnt"
cleanup() {
  mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
  rm -rf "$tmp"
}
trap cleanup EXIT

preload=$lib
envs=()
wrap=()                            # runs the ranks through this (ulimit)
errtext="No space left on device"  # the errno text the line must give
# disk KIB: a fresh full-disk directory of KIB KiB.
disk() {
  if [ "$mode" = tmpfs ]; then
    mountpoint -q "$mnt" && umount "$mnt"
    if ! mount -t tmpfs -o "size=${1}k" tmpfs "$mnt" 2>"$tmp/mount.err"; then
      echo "SKIP: cannot mount a tmpfs here ($(head -1 "$tmp/mount.err")); the inject mode tests the same"
      exit 77
    fi
  else
    [ -f "$inject" ] || { echo "FAIL: no injector library '$inject'"; exit 1; }
    preload=$inject:$lib
    envs=(-x RT_FAKE_FULL_DIR="$mnt" -x RT_FAKE_FULL_BYTES=$(($1 * 1024)))
  fi
}

strip_times() { awk -F'\t' 'row { print "row\t" $1 "\t" $NF; row = 0; next } /^k\t/ { row = 1 } { print }' "$1"; }

# scenario NAME STEPS [extra mpirun args...]: one untraced and one traced run on the full disk.
scenario() {
  local name=$1 steps=$2
  shift 2
  local args=(--steps "$steps" --regions 1000)
  "$mpirun_sh" -np "$np" "${wrap[@]}" "$fill_prog" "${args[@]}" >"$tmp/$name.plain" 2>&1 || {
    echo "FAIL: $name: untraced run"; cat "$tmp/$name.plain"; exit 1; }
  dir=$mnt/$name
  local t0 t1
  t0=$(date +%s.%N)
  # 600 s only catches a hang.
  timeout 600 "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$preload" "${envs[@]}" "$@" \
    "${wrap[@]}" "$fill_prog" "${args[@]}" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  [ "$rc" -ne 124 ] || { echo "FAIL: $name: the traced run hung (killed after 600 s)"; cat "$tmp/$name.err"; exit 1; }
  [ "$rc" -eq 0 ] || { echo "FAIL: $name: the traced run exited $rc"; cat "$tmp/$name.out" "$tmp/$name.err"; exit 1; }
  grep -q '^verification: passed$' "$tmp/$name.out" || { echo "FAIL: $name: no 'verification: passed'"; exit 1; }
  diff <(strip_times "$tmp/$name.plain") <(strip_times "$tmp/$name.out") || {
    echo "FAIL: $name: results differ from the untraced run"; exit 1; }
  [ "$(wc -l <"$tmp/$name.err")" -eq 1 ] || {
    echo "FAIL: $name: want exactly one line on stderr, got $(wc -l <"$tmp/$name.err"):"; cat "$tmp/$name.err"; exit 1; }
  line=$(cat "$tmp/$name.err")
  want="^retime-trace: rank [0-9]+: cannot write trace to $dir: $errtext; tracing stopped, the program goes on"
  [[ $line =~ $want ]] || { echo "FAIL: $name: unexpected line: $line"; exit 1; }
  elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

used_kib() { df -k "$mnt" | awk 'NR == 2 { print $3 }'; }

disk 256
scenario short 4
echo "short ($mode, 256 KiB): exit 0, same results, ${elapsed}s; $line"
scenario long 100 -x RETIME_TRACE_BUFFER_MB=2
echo "long ($mode, 256 KiB): exit 0, same results, ${elapsed}s; $line"
[ "$mode" = tmpfs ] && echo "tmpfs use after both runs: $(used_kib) KiB of 256 KiB (the stopped ranks' event files are removed)"
# 8 MiB: the second flush reserves and writes, the third finds no room (the injector counts
# reserved and written bytes separately, hence 12 MiB there).
if [ "$mode" = tmpfs ]; then disk 8192; else disk 12288; fi
scenario fills 240 -x RETIME_TRACE_BUFFER_MB=2
echo "fills ($mode, $([ "$mode" = tmpfs ] && echo "8 MiB" || echo "12 MiB per process")): exit 0, same results, ${elapsed}s; $line"
[ "$mode" = tmpfs ] && echo "tmpfs use after the run: $(used_kib) KiB of 8192 KiB"

# other_ranks_archive NAME: the archive holds the np - 1 ranks that could write, and reads.
other_ranks_archive() {
  "$otf2_print" -G "$dir/traces.otf2" >"$tmp/$1.defs" 2>&1 || {
    echo "FAIL: $1: otf2-print cannot read the archive of the other ranks"; cat "$tmp/$1.defs"; exit 1; }
  n=$(grep -c '^LOCATION ' "$tmp/$1.defs")
  [ "$n" -eq $((np - 1)) ] || { echo "FAIL: $1: $n locations in the archive, want $((np - 1))"; exit 1; }
  "$otf2_print" "$dir/traces.otf2" >/dev/null 2>"$tmp/$1.print.err" || {
    echo "FAIL: $1: otf2-print cannot read the events"; cat "$tmp/$1.print.err"; exit 1; }
}

if [ "$mode" = inject ]; then
  # Only rank 1's disk is full: one line from rank 0 for it, and the others' archive is readable.
  envs=(-x RT_FAKE_FULL_DIR="$mnt" -x RT_FAKE_FULL_BYTES=65536 -x RT_FAKE_FULL_RANK=1)
  scenario rank1 100 -x RETIME_TRACE_BUFFER_MB=2
  [[ $line =~ ^retime-trace:\ rank\ 1:\ .*\(1\ of\ $np\ ranks\ stopped\;\ $dir/traces.otf2\ holds\ the\ other\ $((np - 1))\)$ ]] || {
    echo "FAIL: rank1: the line does not say that the archive holds the other ranks: $line"; exit 1; }
  other_ranks_archive rank1
  echo "only rank 1 full: exit 0, same results; $line"
  # Only rank 0's event file cannot grow: rank 0 reports at once, and at MPI_Finalize merges
  # the other ranks into an archive without itself.
  envs=(-x RT_FAKE_FULL_DIR="$mnt" -x RT_FAKE_FULL_BYTES=65536 -x RT_FAKE_FULL_RANK=0
        -x RT_FAKE_FULL_MATCH=.evt -x RT_FAKE_FULL_STATVFS=0)
  scenario rank0 160 -x RETIME_TRACE_BUFFER_MB=2
  [[ $line =~ ^retime-trace:\ rank\ 0:\  ]] || { echo "FAIL: rank0: the line is not rank 0's: $line"; exit 1; }
  other_ranks_archive rank0
  echo "only rank 0's events full: exit 0, same results, archive of the other $n rank(s); $line"
  # RLIMIT_FSIZE: an 8 MiB file size limit, which the untraced program lives with.
  envs=()
  preload=$lib
  # shellcheck disable=SC2016 # expanded by the inner shell
  wrap=(bash -c 'ulimit -f 8192 && exec "$0" "$@"')
  errtext="File too large"
  scenario fsize 240 -x RETIME_TRACE_BUFFER_MB=2
  echo "ulimit -f 8192: exit 0, same results, ${elapsed}s; $line"
fi
echo "PASS: full disk ($mode): the program finished unchanged, one line on stderr, no hang"
