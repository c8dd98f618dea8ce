#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A killed run replays (issue #45, item 5): Shift on 8 ranks is stopped with SIGTERM while it runs
# (as a batch system ends a job that hangs or runs out of time). The tracer's lines say how many
# ranks the archive holds after each save, never "so far" as if ranks were lost; the archive
# says it is an emergency save, so replay, analyze and validate take it up to where it stopped
# (no --cut needed): exit 0, the sends in flight named in a warning, and analyze lists where each
# rank was when the run stopped.
# usage: killed_run.sh MPIRUN_SH TRACE_LIB RETIME SHIFT
set -uo pipefail
mpirun_sh=$1 lib=$2 retime=$3 prog=$4
. "$(dirname "$0")/../checks.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retime-test.XXXXXX")
pid=
trap '[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
dir=$tmp/trace
"$mpirun_sh" -np 8 -x RETIME_TRACE_DIR="$dir" -x LD_PRELOAD="$lib" "$prog" --dims 1 --mode isend --k 1 \
  --m1 8192 --iters 100000000 >"$tmp/out" 2>&1 &
pid=$!
# running once the archive's directory is there (every rank has passed MPI_Init), then 3 s more
for _ in $(seq 1200); do
  [ -d "$dir/traces" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
sleep 3
kill -TERM "$pid"
wait "$pid"
pid=
check killed-archive [ -f "$dir/traces.otf2" ] || { cat "$tmp/out"; ls -R "$tmp"; }
check save-lines-count same "$(grep -c '^retime-trace: rank [0-9]*: terminated by SIGTERM; saved: .* holds [0-9]* of 8 ranks after this save (each rank that stops adds its own)$' "$tmp/out")" \
  "$(grep -c '^retime-trace: rank [0-9]*: terminated by SIGTERM' "$tmp/out")" || cat "$tmp/out"
check no-so-far bash -c '! grep -q "so far" "$0"' "$tmp/out"
ranks=$("$retime" info "$dir" --allow-missing-ranks 2>/dev/null | awk '$1 == "ranks" { print $2 }')
check ranks-saved holds '$1 >= 2' "${ranks:-0}"
A=(--alpha 2.122us --beta 0.7595ns/B --allow-missing-ranks)
"$retime" replay "$dir" "${A[@]}" >"$tmp/replay" 2>"$tmp/replay.err"; rc=$?
check replays [ "$rc" -eq 0 ] || cat "$tmp/replay.err"
check no-unmatched-error bash -c '! grep -q "error" "$0"' "$tmp/replay.err"
"$retime" analyze "$dir" "${A[@]}" --against measured >"$tmp/analyze" 2>"$tmp/analyze.err"; rc=$?
check analyzes [ "$rc" -eq 0 ] || cat "$tmp/analyze.err"
check analyze-where has "$(cat "$tmp/analyze")" "where the ranks were when the run stopped"
rows=$(sed -n '/^where the ranks were/,$p' "$tmp/analyze" | grep -cE '^ +[0-9]+  ')
check analyze-a-row-per-rank same "$rows" "$ranks"
"$retime" validate "$dir" "${A[@]}" >/dev/null 2>"$tmp/validate.err"; rc=$?
check validates [ "$rc" -eq 0 ] || cat "$tmp/validate.err"
sed -n '/^where the ranks were/,$p' "$tmp/analyze"
checks_done && echo "PASS: a killed 8-rank run ($ranks ranks saved) replays, analyzes and validates" || echo "FAIL: killed run"
