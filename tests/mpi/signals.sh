#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGTERM and SIGINT must leave a readable archive of what was recorded, and must still end the
# program as they would without the tracer. Cases:
#   mpirun-term  a long Shift run under mpirun gets SIGTERM on mpirun (which passes it to the
#                ranks as SIGTERM); the archive is read by otf2-print and `retime info`
#   ranks-int    the same with SIGINT sent to each rank (Ctrl-C reaching the processes)
#   handler      an MPI singleton whose own SIGTERM handler (installed before MPI_Init) must
#                still run, and which must still die by SIGTERM (exit status 143)
#   default-int  an MPI singleton without a handler dies by SIGINT (130)
#   ignored      an MPI singleton that ignores SIGINT keeps running after one and finishes
#                normally, with a complete archive (the tracer must not make it fatal)
#   go-on        2 ranks under mpirun whose own SIGINT handler lets them go on; SIGINT reaches
#                one rank only: both finish normally (no rank waits forever in the tracer's
#                MPI_Finalize) and the archive holds both ranks (the signalled one's events end
#                at the signal, so its peer's later messages are unmatched in a replay)
# For the unfinished runs `retime replay` must either replay the archive or fail with its one
# clear error line (an unfinished run can end inside a collective); the test prints which.
# usage: signals.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME SHIFT SIGNAL_TEST
set -uo pipefail
mpirun_sh=$1 np=$2 lib=$3 otf2_print=$4 retime=$5 shift_prog=$6 sig_prog=$7
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
pids=()
# On a failure, processes this test started may still run: their children (the ranks) first,
# so that none is left behind.
cleanup() {
  local p c
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || continue
    for c in $(children_of "$p"); do kill -KILL "$c" 2>/dev/null; done
    kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $case: $*"; for f in "$tmp/$case".{out,err}; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# Background jobs of a non-interactive shell start with SIGINT ignored; start them with the
# default disposition, as an interactive shell or a batch system would.
bg_default() { env --default-signal=INT,TERM "$@" & }
# Child process ids of PID, from /proc (procps may not be installed).
children_of() {
  local parent=$1 f line fields
  for f in /proc/[0-9]*/stat; do
    read -r line <"$f" 2>/dev/null || continue
    read -ra fields <<<"${line##*) }" # state ppid ...: after the command name
    [ "${fields[1]:-}" = "$parent" ] && { f=${f%/stat}; echo "${f#/proc/}"; }
  done
  return 0
}
# The waits below are long on purpose: at a load of 50 on two cores a rank can take tens of
# seconds to start or to save its archive. A passing run never waits for them.
# Waits until FILE contains PATTERN, or with PATTERN "-d" until FILE is a directory (120 s, or
# until the program started last, $pid, has ended).
wait_for() {
  local ended=
  for _ in $(seq 1200); do
    if [ "$2" = -d ]; then [ -d "$1" ] && return 0; else grep -q "$2" "$1" 2>/dev/null && return 0; fi
    [ -n "$ended" ] && return 1
    kill -0 "$pid" 2>/dev/null || ended=1 # one more look: it may have written just before it ended
    sleep 0.1
  done
  return 1
}
# Waits up to 180 s for PID; sets rc to its exit status.
wait_exit() {
  local pid=$1
  for _ in $(seq 1800); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "still running 180 s after the signal"
  wait "$pid"
  rc=$?
}
# Whether PID runs (a zombie does not: in a container nobody may reap it).
running() {
  local line fields
  read -r line <"/proc/$1/stat" 2>/dev/null || return 1
  read -ra fields <<<"${line##*) }"
  [ "${fields[0]:-Z}" != Z ]
}
# Waits up to 180 s until none of the PIDs runs any more.
wait_gone() {
  local p live
  for _ in $(seq 1800); do
    live=
    for p in "$@"; do running "$p" && { live=$p; break; }; done
    [ -z "$live" ] && return 0
    sleep 0.1
  done
  fail "rank process $live still running 180 s after the signal"
}
# check_archive DIR NRANKS_WANTED NP: readable by otf2-print and retime info, with events; replays
# or fails with one clear error line. NRANKS_WANTED "some" accepts 1..NP locations.
check_archive() {
  local dir=$1 want=$2
  [ -f "$dir/traces.otf2" ] || fail "no archive $dir/traces.otf2"
  "$otf2_print" "$dir/traces.otf2" >"$tmp/$case.print" 2>"$tmp/$case.print.err" || {
    cat "$tmp/$case.print.err"; fail "otf2-print cannot read the archive"; }
  "$retime" info "$dir" >"$tmp/$case.info" 2>&1 || { cat "$tmp/$case.info"; fail "retime info failed"; }
  local ranks events
  ranks=$(awk '$1 == "ranks" { print $2 }' "$tmp/$case.info")
  events=$(awk '$1 == "events" { print $2 }' "$tmp/$case.info")
  [ "${events:-0}" -gt 0 ] || { cat "$tmp/$case.info"; fail "no events in the archive"; }
  if [ "$want" = some ]; then
    [ "${ranks:-0}" -ge 1 ] || fail "no rank in the archive"
  else
    [ "${ranks:-0}" -eq "$want" ] || { cat "$tmp/$case.info"; fail "$ranks ranks in the archive, want $want"; }
  fi
  if "$retime" replay "$dir" --alpha 2.122us --beta 0.7595ns/B >"$tmp/$case.replay" 2>"$tmp/$case.replay.err"; then
    replay="replays"
  else
    local r=$?
    if [ "$r" -ne 1 ] || [ "$(wc -l <"$tmp/$case.replay.err")" -ne 1 ] ||
       ! grep -q '^retime: error: ' "$tmp/$case.replay.err"; then
      cat "$tmp/$case.replay.err"; fail "retime replay failed without one clear error line (exit $r)"
    fi
    replay="replay refuses it: $(sed 's/^retime: error: [^:]*: //' "$tmp/$case.replay.err")"
  fi
  summary="$ranks of $3 ranks, $events events; $replay"
}

# --- under mpirun --------------------------------------------------------------------------
for case in mpirun-term ranks-int; do
  dir=$tmp/$case.trace
  # Rendezvous-size messages: fewer iterations per second, a smaller trace to read.
  bg_default "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "$shift_prog" \
    --dims 1 --mode ssend --k 2 --m1 200000 --iters 100000000 >"$tmp/$case.out" 2>"$tmp/$case.err"
  pid=$!
  pids+=("$pid")
  wait_for "$dir/traces" -d || fail "the traced run did not start"
  sleep 1
  kill -0 "$pid" 2>/dev/null || fail "the run ended before the signal"
  ranks=$(children_of "$pid" | tr '\n' ' ')
  if [ "$case" = mpirun-term ]; then
    kill -TERM "$pid"
  else
    [ -n "$ranks" ] || fail "no rank processes under mpirun $pid"
    # shellcheck disable=SC2086
    kill -INT $ranks
  fi
  wait_exit "$pid"
  [ "$rc" -ne 0 ] || fail "mpirun exited 0 after the signal"
  # mpirun may exit while its ranks still save their part of the archive: wait for them too
  # shellcheck disable=SC2086
  wait_gone $ranks
  grep -q 'retime-trace: rank [0-9]*: \(terminated by SIGTERM\|interrupted by SIGINT\); ' "$tmp/$case.err" ||
    fail "no tracer line about the signal"
  check_archive "$dir" some "$np"
  echo "$case: mpirun exit $rc; $summary"
done

# --- a handler that lets the program go on, one rank signalled --------------------------------
# The program runs until the test creates its stop file (after the handler ran), not for a fixed
# time: on a loaded machine a fixed time could end before the signal is sent.
case=go-on
dir=$tmp/$case.trace
bg_default "$mpirun_sh" -np 2 -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "$sig_prog" \
  --handler-go-on int --seconds 300 --until-file "$tmp/$case.stop" >"$tmp/$case.out" 2>"$tmp/$case.err"
pid=$!
pids+=("$pid")
wait_for "$tmp/$case.out" 'signal_test: ready' || fail "the program did not start"
sleep 1
one=$(children_of "$pid" | head -1)
[ -n "$one" ] || fail "no rank process under mpirun $pid"
kill -INT "$one" || fail "rank process $one was gone before the signal"
wait_for "$tmp/$case.err" 'caught SIGINT, going on' || fail "the program's handler did not run"
sleep 1 # the ranks go on past the signal before they are told to stop
touch "$tmp/$case.stop"
wait_exit "$pid"
[ "$rc" -eq 0 ] || fail "exit status $rc, want 0"
grep -q '^signal_test: caught SIGINT, going on$' "$tmp/$case.err" || fail "the program's handler did not run"
grep -q '^signal_test: done after' "$tmp/$case.out" || fail "the program did not finish"
check_archive "$dir" 2 2
echo "$case: one rank got SIGINT, its handler went on, exit 0; $summary"

# --- MPI singletons: the exit status and the program's own disposition ----------------------
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
# Every singleton runs until its stop file exists (at most 300 s): the one that survives its
# signal is told to stop 1 s after it.
single() { # CASE SIGNAL WANT_RC [signal_test options]
  case=$1
  local sig=$2 want=$3
  shift 3
  dir=$tmp/$case.trace
  bg_default RETIME_TRACE_DIR="$dir" LD_PRELOAD="$lib" "$sig_prog" "$@" --seconds 300 \
    --until-file "$tmp/$case.stop" >"$tmp/$case.out" 2>"$tmp/$case.err"
  pid=$!
  pids+=("$pid")
  wait_for "$tmp/$case.out" 'signal_test: ready' || fail "the program did not start"
  sleep 1
  kill "-$sig" "$pid" || fail "the program was gone before the signal"
  sleep 1
  touch "$tmp/$case.stop"
  wait_exit "$pid"
  [ "$rc" -eq "$want" ] || fail "exit status $rc, want $want"
}

single handler TERM 143 --handler term
grep -q '^signal_test: caught SIGTERM$' "$tmp/$case.err" || fail "the program's own SIGTERM handler did not run"
check_archive "$dir" 1 1
echo "$case: exit 143 after the program's handler ran; $summary"

single default-int INT 130
check_archive "$dir" 1 1
echo "$case: exit 130; $summary"

single ignored INT 0 --ignore int
grep -q '^signal_test: done after' "$tmp/$case.out" || fail "the program did not finish"
if grep -q 'retime-trace:' "$tmp/$case.err"; then fail "the tracer reacted to an ignored SIGINT"; fi
check_archive "$dir" 1 1
case $replay in replays) ;; *) fail "the finished run does not replay: $replay" ;; esac
echo "$case: SIGINT ignored, finished with exit 0; $summary"
echo "PASS: SIGTERM/SIGINT left readable archives and the programs ended as without the tracer"
