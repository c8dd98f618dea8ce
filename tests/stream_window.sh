#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A streamed replay holds a window of the trace, not the trace (issue #49 item 3, docs/streaming.md):
# on a synthetic trace of 6*10^6 events over 4 ranks (bench's retime-make-trace), the streamed
# replay (--memory-budget 0) prints what the whole read's replay prints, and its peak RSS is at most
# half the whole read's (measured: about a quarter). What would break it: pages given back late or
# never, or faulted in ahead of the reader (trace_stream.c's prefault) past the events it reads next.
# Under AddressSanitizer (its shadow memory and quarantine) only the output is compared.
set -u
retime=$1; make_trace=$2; work=$3; asan=${4:-OFF}
case $work in # it is cleared: only ever a directory of this test's own
  */stream-window) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../stream-window work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"

"$make_trace" "$work/t" --events 6e6 --ranks 4 >/dev/null 2>&1 || { echo "FAIL retime-make-trace"; exit 1; }
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
whole=$(peak_rss "$work/whole.txt" "$retime" --quiet replay "$work/t" "${H[@]}") || whole=
streamed=$(peak_rss "$work/streamed.txt" "$retime" --quiet --memory-budget 0 replay "$work/t" "${H[@]}") || streamed=
echo "peak RSS: whole read ${whole:-?} KiB, streamed ${streamed:-?} KiB"
check "replayed" holds '$1 > 0 && $2 > 0' "${whole:-0}" "${streamed:-0}"
check "same-output" cmp -s "$work/whole.txt" "$work/streamed.txt"
if [ "$asan" = ON ]; then
  echo "ok   window-rss (not judged under AddressSanitizer)"
else
  check "window-rss" holds '$2 > 0 && $2 <= 0.5 * $1' "${whole:-0}" "${streamed:-0}"
fi
checks_done
