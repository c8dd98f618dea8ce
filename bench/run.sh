#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the replay benchmark on a synthetic Shift trace of EVENTS events (default 1e7), making the trace once.
# usage: BUILD=build bench/run.sh [EVENTS] [extra retime-bench-replay options, e.g. --repeat 5]
# Builds nothing: configure and build first (cmake -S . -B build && cmake --build build).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
events=${1:-10000000}
[ $# -gt 0 ] && shift

make_trace="$build/bench/retime-make-trace"
bench="$build/bench/retime-bench-replay"
for exe in "$make_trace" "$bench"; do
    if [ ! -x "$exe" ]; then
        echo "run.sh: error: $exe not found; build with -DRT_BUILD_BENCH=ON first" >&2
        exit 1
    fi
done

# The defaults of retime-make-trace (32 ranks, 8 KiB, 2 hops, seed 1) are part of the name, so a
# trace made here is only reused for the same request. The .complete marker is written last:
# an interrupted generation leaves no marker and is redone.
trace="${TMPDIR:-/tmp}/retime-bench-shift-$events"
if [ ! -f "$trace/.complete" ]; then
    rm -rf "$trace"
    "$make_trace" "$trace" --events "$events"
    touch "$trace/.complete"
fi
exec "$bench" "$trace" "$@"
