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

. "$here/traces.sh"
trace=$(trace_for "$events")
exec "$bench" "$trace" "$@"
