# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by nbcoll.sh and vcoll.sh: trace a collective test program, list each rank's collective
# records, and replay the trace on three networks.

# coll_setup MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME PROGRAM (the scripts' arguments): sets np, P,
# retime and tmp (a scratch directory, removed on exit) and traces PROGRAM (coll_trace).
coll_setup() {
  # shellcheck disable=SC2034 # P and retime are the sourcing script's
  np=$2 P=$2 retime=$5
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  coll_trace "$1" "$2" "$3" "$4" "$6"
}

# coll_trace MPIRUN_SH NP TRACE_LIB OTF2_PRINT PROGRAM: runs PROGRAM traced into $tmp/trace, fails
# unless it printed "verification: passed" and the tracer warned nothing, and leaves otf2-print's
# text of the archive in $tmp/print.
coll_trace() {
  local mpirun_sh=$1 np=$2 lib=$3 otf2_print=$4 prog=$5
  "$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$tmp/trace" -x LD_PRELOAD="$lib" "$prog" >"$tmp/out" 2>"$tmp/err" || {
    echo "FAIL: traced run exited non-zero"; cat "$tmp/out" "$tmp/err"; exit 1; }
  grep -q '^verification: passed$' "$tmp/out" || { echo "FAIL: no 'verification: passed'"; cat "$tmp/out"; exit 1; }
  if grep -q 'retime-trace:' "$tmp/err"; then echo "FAIL: tracer warned:"; cat "$tmp/err"; exit 1; fi
  "$otf2_print" "$tmp/trace/traces.otf2" >"$tmp/print" 2>"$tmp/print.err" || {
    echo "FAIL: otf2-print failed"; cat "$tmp/print.err"; exit 1; }
  if [ -s "$tmp/print.err" ]; then echo "FAIL: otf2-print warned:"; head "$tmp/print.err"; exit 1; fi
}

# coll_records BLOCKING: each rank's collectives in $tmp/print, in the order it completes them:
# "rank call [completed-in] operation communicator root sent received". A non-blocking one is named
# by the call that holds its request (requests in order, which is also the test programs' completion
# order) beside the MPI_Wait/Test that completed it; with BLOCKING 1 a blocking one's end is listed
# too, but for the test programs' closing MPI_Allreduce. Root: its rank in the communicator, NONE for
# the rootless; a communicator made by MPI_Comm_split reads "comm".
coll_records() {
  awk -v blocking="$1" '
    $1 == "ENTER" { match($0, /Region: "[^"]*"/); region[$2] = substr($0, RSTART + 9, RLENGTH - 10) }
    $1 == "NON_BLOCKING_COLLECTIVE_REQUEST" { reqs[$2, ++nreq[$2]] = region[$2] }
    $1 == "NON_BLOCKING_COLLECTIVE_COMPLETE" || ($1 == "MPI_COLLECTIVE_END" && blocking && region[$2] != "MPI_Allreduce") {
      loc = $2; s = $0
      call = $1 == "MPI_COLLECTIVE_END" ? region[loc] : reqs[loc, ++ncom[loc]] " " region[loc]
      sub(/.*Operation: /, "", s); op = s; sub(/,.*/, "", op)
      sub(/.*Communicator: "/, "", s); comm = s; sub(/".*/, "", comm)
      if (comm ~ /^MPI_Comm_split /) comm = "comm"
      sub(/.*Root: /, "", s); root = s; sub(/[ ,].*/, "", root)
      sub(/.*Sent: /, "", s); sent = s; sub(/,.*/, "", sent)
      sub(/.*Received: /, "", s); recv = s; sub(/,.*/, "", recv)
      line[loc, ++n[loc]] = call " " op " " comm " " root " " sent " " recv
      if (loc + 1 > nloc) nloc = loc + 1
    }
    END {
      for (l = 0; l < nloc; l++) {
        if (nreq[l] != ncom[l]) printf "%d: %d requests, %d completions\n", l, nreq[l], ncom[l]
        for (k = 1; k <= n[l]; k++) print l, line[l, k]
      }
    }' "$tmp/print"
}

# coll_check BLOCKING: coll_records BLOCKING is the caller's expect's text line for line; sets want
# to the number of lines.
coll_check() {
  coll_records "$1" >"$tmp/records"
  expect >"$tmp/expected"
  diff "$tmp/expected" "$tmp/records" >"$tmp/diff" || {
    echo "FAIL: the collectives' records differ from the hand-derived ones (< expected, > traced):"
    head -20 "$tmp/diff"; exit 1; }
  # shellcheck disable=SC2034 # the sourcing script's
  want=$(wc -l <"$tmp/expected")
}

# coll_info CALLS NONBLOCKING: retime info counts CALLS collective calls, NONBLOCKING of them
# non-blocking, and has no "not replayed" line; sets info to its text (with the census).
coll_info() {
  info=$("$retime" info "$tmp/trace" --collectives 2>&1)
  grep -q "collectives    $1 (calls, summed over ranks); $2 of them non-blocking" <<<"$info" || {
    echo "FAIL: info's collectives line:"; echo "$info"; exit 1; }
  if grep -q "not replayed" <<<"$info"; then echo "FAIL: a 'not replayed' line:"; echo "$info"; exit 1; fi
}

# coll_replay RETIME NP INSTANCES: the trace replays on the model's crossbar, crossbar-flow and a
# torus (2x2 for up to 4 ranks, else a ring), with INSTANCES collectives, and the networks route
# some of their messages.
coll_replay() {
  local retime=$1 np=$2 inst=$3 torus=$2 net
  [ "$np" -le 4 ] && torus=2x2
  for net in "" "--topology crossbar-flow" "--topology torus:$torus"; do
    # shellcheck disable=SC2086
    "$retime" replay "$tmp/trace" --alpha 2us --beta 1ns/B $net >"$tmp/replay" 2>&1 || {
      echo "FAIL: replay ${net:-on the crossbar}"; cat "$tmp/replay"; exit 1; }
    grep -q "collectives $inst$" "$tmp/replay" || {
      echo "FAIL: replay ${net:-on the crossbar}: collectives, want $inst:"; cat "$tmp/replay"; exit 1; }
    [ -z "$net" ] || grep -Eq "^network .*: [1-9][0-9]* messages routed" "$tmp/replay" || {
      echo "FAIL: replay $net routed no collective's messages:"; cat "$tmp/replay"; exit 1; }
  done
}
