#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every request kept (issue #45, item 3): requests_test.c's pending sends share one handle (Open MPI
# sends small messages inline and returns one request for all of them). In the trace every
# MPI_ISEND must have exactly one MPI_ISEND_COMPLETE on its location, after it; the completions of
# rank 0's phases come in the order the program completed them (phase 2: a before b; phase 3: b
# before a; phase 3b: the wait on a copy takes the oldest, then the other); every MPI_IRECV_REQUEST has its MPI_IRECV;
# and retime info reads it without a warning about sends without completions.
# With LOG_WORDS, the tracer's event log (instrument/src/evlog.h) holds that many words only, so
# that it drains into OTF2 many times, within calls too (a Waitall's completions do not fit): the
# same checks hold, every location's times never go back, and the drains are in the trace as
# BufferFlush records of their span.
# usage: requests.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME PROGRAM [LOG_WORDS]
set -uo pipefail
mpirun_sh=$1 np=$2 lib=$3 otf2_print=$4 retime=$5 prog=$6 log_words=${7:-}
. "$(dirname "$0")/../checks.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/trace
log_env=()
[ -n "$log_words" ] && log_env=(-x RETIME_TRACE_TEST_LOG_WORDS="$log_words")
"$mpirun_sh" -np "$np" -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "${log_env[@]}" "$prog" >"$tmp/out" 2>&1; rc=$?
check program-ok bash -c '[ "$0" -eq 0 ] && grep -q "requests_test: ok" "$1"' "$rc" "$tmp/out" || cat "$tmp/out"
"$otf2_print" "$dir/traces.otf2" >"$tmp/print" 2>"$tmp/err"
check trace-readable [ -s "$tmp/print" ]
if [ -n "$log_words" ]; then
  back=$(awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { if (($2 in t) && $3 < t[$2]) n++; t[$2] = $3 } END { print n + 0 }' "$tmp/print")
  check small-log-times-in-order same "$back" 0
  flushes=$(awk '$1 == "BUFFER_FLUSH" && $2 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$tmp/print")
  check small-log-drains-written holds '$1 >= 10' "$flushes"
fi
# "location kind id tag" per request record; tags come with the start records only
awk '$2 ~ /^[0-9]+$/ && $1 ~ /^MPI_(ISEND|ISEND_COMPLETE|IRECV_REQUEST|IRECV)$/ {
       id = ""; tag = "-"
       for (i = 4; i <= NF; i++) { if ($i == "Request:") id = $(i + 1); if ($i == "Tag:") tag = $(i + 1) }
       gsub(/,/, "", id); gsub(/,/, "", tag); print $2, $1, id, tag }' "$tmp/print" >"$tmp/reqs"
sends=$(grep -c ' MPI_ISEND ' "$tmp/reqs")
# 3 + 2 + 2 + 2 on rank 0, then per iteration every rank's P - 1 small sends and one 64 KiB send
want=$((9 + 8 * np * np))
check isend-count same "$sends" "$want"
bad=$(awk '{ k = $1 " " $3 }
  $2 == "MPI_ISEND" { if (k in s) dup++; s[k] = 1 }
  $2 == "MPI_ISEND_COMPLETE" { if (!(k in s) || (k in c)) bad++; c[k] = 1 }
  $2 == "MPI_IRECV_REQUEST" { r[k] = 1 }
  $2 == "MPI_IRECV" { if (!(k in r) || (k in d)) bad++; d[k] = 1 }
  END { for (k in s) if (!(k in c)) { print "no completion of isend", k; n++ }
        for (k in r) if (!(k in d)) { print "no completion of irecv", k; n++ }
        if (bad + dup) print bad + dup, "unmatched or repeated completions" }' "$tmp/reqs")
check every-isend-completed-once same "${bad:-none}" none || echo "$bad" | head
# rank 0's first nine completions, as the tags of the sends they complete
order=$(awk '$1 == 0 && $2 == "MPI_ISEND" { tag[$3] = $4 }
             $1 == 0 && $2 == "MPI_ISEND_COMPLETE" && n < 9 { printf "%s%s", n++ ? " " : "", tag[$3] }' "$tmp/reqs")
first3=$(echo "$order" | cut -d' ' -f1-3 | tr ' ' '\n' | sort | tr '\n' ' ')
check phase1-all-three same "$first3" "1000 1001 1002 "
check phase2-3-order same "$(echo "$order" | cut -d' ' -f4-9)" "2000 2001 3001 3000 3500 3501"
info=$("$retime" info "$dir")
check info-no-lost-completions bash -c '! grep -q "no completion record" <<<"$0"' "$info"
check info-isends has "$info" "$sends isend"
"$retime" replay "$dir" --alpha 1us --beta 1ns/B >/dev/null 2>"$tmp/err"; rc=$?
check replays [ "$rc" -eq 0 ] || cat "$tmp/err"
# The MPI the run used (issue #45, item 4): its library and, from its control variables, the eager
# limit between these ranks of one node (Open MPI: btl_vader_eager_limit), which the replay takes
# unless --eager-limit is given: the 64 KiB sends are then rendezvous, one per rank and iteration
check info-mpi-library grep -q '^mpi  *[A-Za-z]' <<<"$info"
# (the setting, and the payload limit it gives, read as Open MPI reads it: less its 56 B header)
limit=$(sed -n 's/^eager limit  *\([0-9]*\)B between the ranks (\([A-Za-z_0-9]*\); \([0-9]*\)B of payload.*/\3 \2 \1/p' <<<"$info")
check info-eager-limit holds '$1 > 0 && $1 < 65536 && $1 + 56 == $3' ${limit:-0 x 0}
json=$("$retime" replay "$dir" --alpha 1us --beta 1ns/B --format json)
set -- $limit
check replay-eager-from-trace has "$json" "\"eager_limit_bytes\": $1, \"eager_limit_source\": \"$2\""
check replay-rendezvous-64KiB has "$json" "\"rendezvous\": $((8 * np))"
json=$("$retime" replay "$dir" --alpha 1us --beta 1ns/B --eager-limit 64KiB --format json)
check replay-eager-given has "$json" '"eager_limit_bytes": 65536, "compute_scale"'
check replay-eager-given-eager has "$json" '"rendezvous": 0'
# more ranks than the node's CPUs: said in one line (np ranks on this one node of nproc CPUs)
if [ "$np" -gt "$(nproc)" ]; then
  check info-oversubscribed has "$info" "warning        up to $np ranks on a node of $(nproc) CPUs: oversubscribed"
  check calibrate-says-busy has "$("$retime" calibrate "$dir" 2>&1)" "its message times hold scheduling delays"
else
  check info-not-oversubscribed bash -c '! grep -q oversubscribed <<<"$0"' "$info"
fi

checks_done && echo "PASS: $sends nonblocking sends on $np ranks, each with its completion" || echo "FAIL: requests"
