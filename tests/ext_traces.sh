#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# External traces (Score-P, not written by us): they replay with exit 0, and retime counts the
# same point-to-point records as otf2-print does.
set -u
retime=$1; trace=$2
[ -e "$trace/traces.otf2" ] || { echo "skipped: $trace not present"; exit 77; }
count() { otf2-print "$trace/traces.otf2" | awk -v k="$1" '$1 == k' | wc -l; }
json=$("$retime" info "$trace" --format json) || { echo "FAIL: retime info"; exit 1; }
field() { printf '%s' "$json" | grep -o "\"$1\": [0-9]*" | head -1 | awk '{print $2}'; }
fails=0
for pair in send:MPI_SEND isend:MPI_ISEND recv:MPI_RECV irecv:MPI_IRECV; do
  ours=$(field "${pair%%:*}"); theirs=$(count "${pair#*:}")
  if [ "$ours" != "$theirs" ]; then echo "FAIL ${pair%%:*}: retime $ours, otf2-print $theirs"; fails=$((fails+1));
  else echo "ok ${pair%%:*}: $ours"; fi
done
out=$("$retime" replay "$trace" --alpha 2.122us --beta 0.7595ns/B --format json) || { echo "FAIL: replay"; exit 1; }
msgs=$(printf '%s' "$out" | grep -o '"messages": [0-9]*' | awk '{print $2}')
sends=$(( $(count MPI_SEND) + $(count MPI_ISEND) ))
[ "$msgs" = "$sends" ] && echo "ok replayed messages: $msgs" || { echo "FAIL replayed $msgs of $sends messages"; fails=$((fails+1)); }
echo "$((5 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
