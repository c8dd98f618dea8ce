# SPDX-License-Identifier: MIT
# The synthetic traces the benchmark scripts share (sourced by run.sh, scale.sh and distributed.sh):
# one per event count under $TMPDIR, made once. The generator's defaults (32 ranks, 8 KiB, 2 hops,
# seed 1) are part of the name, so a trace is only reused for the same request. The .complete
# marker is written last: an interrupted generation leaves no marker and is redone.
# Needs: $make_trace (retime-make-trace).

bench_tmp=${TMPDIR:-/tmp}

# to_events SIZE: prints SIZE (1e7, 250000, ...) as a whole number of events; fails on a bad one.
to_events() {
    awk -v s="$1" 'BEGIN { if (s !~ /^[0-9.]+([eE][0-9]+)?$/ || s + 0 < 1) exit 1; printf "%.0f", s }'
}

# trace_for EVENTS [RANKS]: makes (once) the trace of EVENTS events, the generator's output on
# stderr, and prints its directory. About 11.7 B/event on disk (plus two small files per rank):
# the room is checked first (10^8 events is ~1.2 GB). RANKS other than the generator's 32 is in
# the name (retime-bench-shift-EVENTS-pRANKS; bench/network.sh uses 512).
trace_for() {
    t="$bench_tmp/retime-bench-shift-$1"
    set -- "$1" "${2:-32}"
    [ "$2" = 32 ] || t="$t-p$2"
    if [ ! -f "$t/.complete" ]; then
        need_kb=$(awk -v n="$1" -v p="$2" 'BEGIN { printf "%.0f", n * 12.5 / 1024 + 1024 + p * 8 }')
        avail_kb=$(df -Pk "$bench_tmp" | awk 'NR == 2 { print $4 }')
        if [ "$avail_kb" -lt "$need_kb" ]; then
            echo "${0##*/}: error: $bench_tmp has $avail_kb KiB free, the trace of $1 events needs ~$need_kb KiB" >&2
            exit 1
        fi
        rm -rf "$t"
        "$make_trace" "$t" --events "$1" --ranks "$2" >&2
        touch "$t/.complete"
    fi
    echo "$t"
}

# coll_trace_for EVENTS RANKS: as trace_for, the collective-heavy pattern (retime-make-trace
# --pattern coll: an 8 B MPI_Allreduce and a 64 KiB MPI_Bcast per iteration; bench/network.sh).
coll_trace_for() {
    t="$bench_tmp/retime-bench-coll-$1-p$2"
    if [ ! -f "$t/.complete" ]; then
        rm -rf "$t"
        "$make_trace" "$t" --events "$1" --ranks "$2" --pattern coll >&2
        touch "$t/.complete"
    fi
    echo "$t"
}
