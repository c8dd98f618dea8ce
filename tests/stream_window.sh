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
# the peak RSS of a replay of next to nothing: what the estimates below leave out
base=$(peak_rss "$work/base.txt" "$retime" --quiet replay "$(dirname "$0")/../traces/shift1d-ssend-p8-k1-m1000" "${H[@]}")
# estimate T: the streamed replay's memory [KiB] the budget's note or refusal gives ("streamed in
# about 98MiB", "and about 50MiB streamed")
estimate() {
  "$retime" --memory-budget 1B replay "$1" "${H[@]}" 2>&1 >/dev/null |
    sed -n -e 's/.*streamed in about \([0-9.]*\)\([KMG]\)iB.*/\1 \2/p' \
      -e 's/.*and about \([0-9.]*\)\([KMG]\)iB streamed.*/\1 \2/p' |
    awk '{ print int($1 * ($2 == "K" ? 1 : $2 == "M" ? 1024 : 1048576)) }'
}
# compare NAME EVENTS RANKS BOUND [MAKE_TRACE OPTIONS]: the trace made, replayed whole and streamed:
# the same output, the streamed peak RSS at most BOUND times the whole read's, and the budget's
# estimate of it not short by more than a tenth (beside the replay of nothing)
compare() {
  local name=$1 t=$work/$1 whole streamed est
  "$make_trace" "$t" --events "$2" --ranks "$3" "${@:5}" >/dev/null 2>&1 || { check "$name-trace" false; return; }
  whole=$(peak_rss "$t.whole" "$retime" --quiet replay "$t" "${H[@]}") || whole=
  streamed=$(peak_rss "$t.streamed" "$retime" --quiet --memory-budget 0 replay "$t" "${H[@]}") || streamed=
  est=$(estimate "$t")
  echo "$name: $2 events over $3 ranks, peak RSS whole read ${whole:-?} KiB, streamed ${streamed:-?} KiB" \
    "(estimated ${est:-?} KiB beside ${base:-?})"
  check "$name-replayed" holds '$1 > 0 && $2 > 0' "${whole:-0}" "${streamed:-0}"
  check "$name-same-output" cmp -s "$t.whole" "$t.streamed"
  if [ "$asan" = ON ]; then
    echo "ok   $name-rss (not judged under AddressSanitizer)"
  else
    [ "$4" = - ] || check "$name-rss" holds "\$2 > 0 && \$2 <= $4 * \$1" "${whole:-0}" "${streamed:-0}"
    check "$name-estimate" holds '$1 > 0 && $1 + $2 >= 0.9 * $3' "${est:-0}" "${base:-0}" "${streamed:-0}"
  fi
}
# long rows: the windows, a fifth of the whole read (at most half)
compare long 6e6 4 0.5
# many ranks: each rank open for reading holds OTF2's buffers (about 2 MiB), so the streamed replay
# is no smaller than the whole read here, but no larger either: rows of 1.6*10^4 events read in one
# piece each, their readers closed at once (in pieces: 4x the whole read's) ...
compare short-rows 4e6 256 1.2
# ... and rows of 7.8*10^4 events in pieces of the read-ahead's share, 8192 (in pieces of 2^15:
# 1.6x the whole read's; now 1.07x, and at most about 1.2x were every rank at once as far behind
# the reader as it may be: the read-ahead, the piece read, one not yet given back, one faulted in)
compare mid-rows 1e7 128 1.3
# ... but ranks of more than a chunk's worth of events each, and many, hold more streamed than read
# whole (64 ranks of 2*10^4 events in 256 KiB chunks: 44 MiB against 29, estimated 50+13): a budget
# that neither fits is refused in one line with both sizes; --memory-budget 0 still streams it
compare over-chunk 1.28e6 64 - --chunk 256KiB
check "over-chunk-refused" fails_with "MiB streamed (64 ranks read at once, each holding one or two of OTF2's event chunks)" \
  "$retime" --memory-budget 10MiB replay "$work/over-chunk" "${H[@]}"
check "over-chunk-whole-fits" [ -z "$("$retime" --memory-budget 30MiB replay "$work/over-chunk" "${H[@]}" 2>&1 >/dev/null)" ]
checks_done
