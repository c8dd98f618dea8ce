#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Outputs written whole or not at all (issue #34):
#  * standard output is checked like any file: a command whose stdout is /dev/full or closed fails
#    with one line "retime: error: standard output: No space left on device" (or "Bad file
#    descriptor") and a non-zero exit, for every command that prints;
#  * every output file (--perfetto, --output-trace, --junit, plots and their data, predict
#    tradeoff's plot, check --update's baseline) is refused when its path is a FIFO (whose open
#    would block) or a directory; written through a temporary file beside it and renamed when
#    whole: a write that fails (a file size limit; a full disk on a small tmpfs when `unshare -rm`
#    can mount one) is one line naming the cause and leaves no partial file, nor a temporary one,
#    and an older file at the path as it was; two runs writing one timeline at once leave a
#    valid one;
#  * a trace given through a symbolic link keeps the link's name in retime check (a directory of
#    traces given through one is resolved, as the baseline's directory is).
# Usage: outputs_atomic.sh RETIME TRACES_DIR WORKDIR
set -u
retime=$1; traces=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
here=$(dirname "$0")
T=$traces/shift1d-ssend-p8-k1-m1000
H=(--alpha 2.122us --beta 0.7595ns/B)
has_gnuplot=0; command -v gnuplot >/dev/null && has_gnuplot=1

# fails_out NAME TEXT STDOUT-REDIRECTION COMMAND...: a non-zero exit and, last on stderr, one
# "retime: error:" line with TEXT
fails_out() {
  local text=$1 redir=$2 err rc; shift 2
  case $redir in
  full) err=$("$@" 2>&1 >/dev/full); rc=$? ;;
  closed) err=$("$@" 2>&1 >&-); rc=$? ;;
  esac
  [ "$rc" -ne 0 ] && [ "$(grep -c '^retime: error:' <<<"$err")" -eq 1 ] && has "$(tail -n 1 <<<"$err")" "$text" ||
    { echo "  got rc=$rc: $err"; false; }
}
# fails_rc RC TEXT COMMAND...: exit status RC and one error line with TEXT (retime check: 2)
fails_rc() {
  local want=$1 text=$2 err rc; shift 2
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq "$want" ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && has "$err" "$text" || { echo "  got rc=$rc: $err"; false; }
}
# leaves_none DIR: no temporary file of retime's (".NAME.XXXXXX") is left in DIR
leaves_none() { [ -z "$(find "$1" -maxdepth 1 -name '.*.??????' -print -quit)" ] || { ls -a "$1"; false; }; }

# ---------------------------------------------------------------- standard output
"$retime" check "$T" --baseline "$work/base.json" --update "${H[@]}" >/dev/null
stdout_cmds=(
  "info|$T"
  "info-json|$T --format json"
  "replay|$T ${H[*]}"
  "replay-json|$T ${H[*]} --format json"
  "replay-csv|$T ${H[*]} --format csv"
  "replay-runs|$T ${H[*]} --net-noise exp:mean=1us --runs 3"
  "analyze|$T ${H[*]} --against measured"
  "sweep|$T --alpha 1us,2us --beta 0.7595ns/B"
  "check|$T --baseline $work/base.json"
  "predict-shift|--dims 1 --k 2 --m1 1000 --mode ssend ${H[*]}"
  "help|--help"
)
for c in "${stdout_cmds[@]}"; do
  name=${c%%|*}; args=${c#*|}
  cmd=${name%%-*}; [ "$cmd" = predict ] && cmd="predict shift"; [ "$cmd" = help ] && cmd=""
  # shellcheck disable=SC2086 # the arguments hold no spaces
  check "stdout-full-$name" fails_out "standard output: No space left on device" full "$retime" $cmd $args
  # shellcheck disable=SC2086
  check "stdout-closed-$name" fails_out "standard output: Bad file descriptor" closed "$retime" $cmd $args
done
# a closed stdout does not let an output file take its descriptor: the timeline is still written
"$retime" replay "$T" "${H[@]}" --perfetto "$work/closed.json" >&- 2>/dev/null
check stdout-closed-perfetto-whole python3 "$here/perfetto_schema.py" "$work/closed.json"

# ---------------------------------------------------------------- paths that are not regular files
mkfifo "$work/fifo.json" "$work/fifo.xml" "$work/fifo-plot.svg" "$work/fifo-base.json" "$work/fifo-trade.png"
mkdir "$work/dir.json"
check fifo-perfetto fails_with "fifo.json: is a FIFO, not a regular file (the timeline is written to one)" \
  timeout 10 "$retime" replay "$T" "${H[@]}" --perfetto "$work/fifo.json"
check dir-perfetto fails_with "dir.json: is a directory, not a regular file" \
  timeout 10 "$retime" replay "$T" "${H[@]}" --perfetto "$work/dir.json"
check fifo-analyze-perfetto fails_with "fifo.json: is a FIFO" \
  timeout 10 "$retime" analyze "$T" "${H[@]}" --against measured --perfetto "$work/fifo.json"
check fifo-output-trace fails_with "fifo.json: already exists" \
  timeout 10 "$retime" replay "$T" "${H[@]}" --output-trace "$work/fifo.json"
check fifo-junit fails_rc 2 "fifo.xml: is a FIFO, not a regular file (the JUnit report is written to one)" \
  timeout 10 "$retime" check "$T" --baseline "$work/base.json" --junit "$work/fifo.xml"
check fifo-baseline-update fails_rc 2 "fifo-base.json: is a FIFO" \
  timeout 10 "$retime" check "$T" --baseline "$work/fifo-base.json" --update "${H[@]}"
if [ "$has_gnuplot" = 1 ]; then
  check fifo-plot fails_with "fifo-plot.svg: is a FIFO, not a regular file (the picture is written to one)" \
    timeout 10 "$retime" plot timeline "$T" "${H[@]}" --output "$work/fifo-plot"
  check fifo-tradeoff fails_with "fifo-trade.png: is a FIFO" \
    timeout 10 "$retime" predict tradeoff --dims 1 --k 2 --m1 1000 "${H[@]}" --output "$work/fifo-trade"
fi
check fifo-none-left leaves_none "$work"

# ---------------------------------------------------------------- a write that fails
# A file size limit (portable; SIGXFSZ ignored so that the write fails with EFBIG instead of
# killing retime): one line, the old file as it was, nothing partial.
limited() { local blocks=$1; shift; (trap '' XFSZ; ulimit -f "$blocks"; "$@"); } # blocks of 512 bytes
"$retime" replay "$T" "${H[@]}" --perfetto "$work/old.json" >/dev/null
sum=$(md5sum <"$work/old.json")
check fsize-perfetto fails_with "old.json: cannot write the timeline: File too large" \
  limited 64 "$retime" replay "$T" "${H[@]}" --net-noise exp:mean=1us --perfetto "$work/old.json"
check fsize-perfetto-old-kept same "$(md5sum <"$work/old.json")" "$sum"
check fsize-output-trace fails_with "cannot write the OTF2 archive: File too large" \
  limited 4 "$retime" replay "$T" "${H[@]}" --output-trace "$work/big.otf2"
check fsize-output-trace-none [ ! -e "$work/big.otf2" ]
if [ "$has_gnuplot" = 1 ]; then
  check fsize-plot fails_with "cannot write the picture: File too large" \
    limited 64 "$retime" plot timeline "$T" "${H[@]}" --output "$work/lim"
  check fsize-plot-no-pictures [ ! -e "$work/lim.svg" ] && [ ! -e "$work/lim.png" ]
fi
check fsize-none-left leaves_none "$work"

# A full disk: a 64 KiB tmpfs in a mount namespace of our own, where the system lets us make one.
if unshare -rm true 2>/dev/null && mkdir -p "$work/disk" &&
   unshare -rm sh -c "mount -t tmpfs -o size=64k none '$work/disk'" 2>/dev/null; then
  full() { # NAME TEXT COMMAND...: on the full disk, one line with TEXT, nothing left on it
    local name=$1 text=$2; shift 2
    check "enospc-$name" unshare -rm bash -c '
      mount -t tmpfs -o size=64k none "$1" || exit 9
      shift; text=$1; shift
      head -c 65536 /dev/zero >"'"$work"'/disk/filler" 2>/dev/null # the disk full
      err=$("$@" 2>&1 >/dev/null); rc=$?
      left=$(ls -A "'"$work"'/disk" | grep -v "^filler$")
      [ "$rc" -ge 1 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && [[ "$err" == *"$text"* ]] && [ -z "$left" ] ||
        { echo "  got rc=$rc, left: $left: $err"; exit 1; }' _ "$work/disk" "$text" "$@"
  }
  D=$work/disk
  full perfetto "$D/t.json: cannot write the timeline: No space left on device" \
    "$retime" replay "$T" "${H[@]}" --perfetto "$D/t.json"
  full output-trace "$D/pred: cannot write the OTF2 archive: No space left on device" \
    "$retime" replay "$T" "${H[@]}" --output-trace "$D/pred"
  full junit "No space left on device" "$retime" check "$T" --baseline "$work/base.json" --junit "$D/j.xml"
  if [ "$has_gnuplot" = 1 ]; then
    full plot "No space left on device" "$retime" plot timeline "$T" "${H[@]}" --output "$D/p"
    full tradeoff "No space left on device" \
      "$retime" predict tradeoff --dims 1 --k 2 --m1 1000 "${H[@]}" --output "$D/trade"
  fi
else
  echo "skip enospc-*: cannot mount a tmpfs in a mount namespace here (the file size limit above covers the same code)"
fi

# ---------------------------------------------------------------- two writers of one timeline
bad=0
for i in 1 2 3 4 5 6 7 8; do
  "$retime" replay "$T" "${H[@]}" --perfetto "$work/both.json" >/dev/null &
  "$retime" replay "$T" "${H[@]}" --net-noise exp:mean=1us --perfetto "$work/both.json" >/dev/null &
  wait
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/both.json" 2>/dev/null || bad=$((bad + 1))
done
check concurrent-perfetto-valid same "$bad" 0
check concurrent-none-left leaves_none "$work"

# ---------------------------------------------------------------- a trace through a link
mkdir "$work/ck"; cp -r "$T" "$work/ck/run-42"; ln -s run-42 "$work/ck/current"
"$retime" check "$work/ck/current" --baseline "$work/ck/b.json" --update "${H[@]}" >/dev/null
check symlink-keeps-name grep -q '"path": "current"' "$work/ck/b.json"
out=$("$retime" check "$work/ck/current" --baseline "$work/ck/b.json")
check symlink-checks has "$out" "PASS  current"
out=$("$retime" check "$work/ck/current/traces.otf2" --baseline "$work/ck/b.json")
check symlink-anchor-checks has "$out" "PASS  current"
# a directory of traces reached through a link, its baseline in it: resolved as the baseline's is
ln -s ck "$work/ck-link"
out=$("$retime" check "$work/ck-link" --baseline "$work/ck-link/b.json")
check symlink-collection-checks has "$out" "PASS  current"

rm -f "$work"/fifo*
checks_done
