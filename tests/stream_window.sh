#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A streamed replay holds a window of the trace, not the trace (issue #49 item 3, docs/streaming.md):
# on synthetic traces (bench's retime-make-trace), the streamed replay (--memory-budget 0) prints
# what the whole read's replay prints, and its peak RSS stays within a bound of the whole read's.
# What would break it: pages given back late or never, faulted in ahead of the reader
# (trace_stream.c's prefault) past the events it reads next, pieces too large for many ranks, or
# short rows kept open for reading (trace_stream.c's piece_of).
# Under AddressSanitizer (its shadow memory and quarantine) only the output is compared.
set -u
retime=$1; make_trace=$2; work=$3; asan=${4:-OFF}
case $work in # it is cleared: only ever a directory of this test's own
  */stream-window) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../stream-window work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"

H=(--alpha 2.122us --beta 0.7595ns/B)
# peak_rss OUT CMD...: runs CMD with stdout to OUT, prints its peak RSS [KiB] (fails with it)
peak_rss() {
  local out=$1; shift
  /usr/bin/python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "wb") as f:
    rc = subprocess.run(sys.argv[2:], stdout=f).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$out" "$@"
}
# compare NAME EVENTS RANKS BOUND: the trace made, replayed whole and streamed: the same output and
# the streamed peak RSS at most BOUND times the whole read's
compare() {
  local name=$1 t=$work/$1 whole streamed
  "$make_trace" "$t" --events "$2" --ranks "$3" >/dev/null 2>&1 || { check "$name-trace" false; return; }
  whole=$(peak_rss "$t.whole" "$retime" --quiet replay "$t" "${H[@]}") || whole=
  streamed=$(peak_rss "$t.streamed" "$retime" --quiet --memory-budget 0 replay "$t" "${H[@]}") || streamed=
  echo "$name: $2 events over $3 ranks, peak RSS whole read ${whole:-?} KiB, streamed ${streamed:-?} KiB"
  check "$name-replayed" holds '$1 > 0 && $2 > 0' "${whole:-0}" "${streamed:-0}"
  check "$name-same-output" cmp -s "$t.whole" "$t.streamed"
  if [ "$asan" = ON ]; then
    echo "ok   $name-rss (not judged under AddressSanitizer)"
  else
    check "$name-rss" holds "\$2 > 0 && \$2 <= $4 * \$1" "${whole:-0}" "${streamed:-0}"
  fi
}
# long rows: the windows, a fifth of the whole read (at most half)
compare long 6e6 4 0.5
# many ranks: each rank open for reading holds OTF2's buffers (about 2 MiB), so the streamed replay
# is no smaller than the whole read here, but no larger either: rows of 1.6*10^4 events read in one
# piece each, their readers closed at once (in pieces: 4x the whole read's) ...
compare short-rows 4e6 256 1.2
# ... and rows of 7.8*10^4 events in pieces of the read-ahead's share, 8192 (in pieces of 2^15:
# 1.6x the whole read's)
compare mid-rows 1e7 128 1.2
checks_done
