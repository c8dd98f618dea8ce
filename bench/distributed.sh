#!/bin/sh
# SPDX-License-Identifier: MIT
# Distributed replay benchmark: for each size, makes (once) a synthetic Shift trace of 32 ranks and
# runs `retime replay` serially and under `scripts/mpirun.sh -np P` for each P. Prints the wall time,
# the peak RSS of every process (each rank under /usr/bin/time -f %M), the RSS per event held by a
# process, its ratio to the serial RSS, and whether the output is byte-identical to the serial one.
# usage: BUILD=build bench/distributed.sh [--sizes 1e5,1e6] [--procs 1,2,4] [--repeat R] [--analyze]
# --repeat: runs per case, the best wall time counts (default 3, 2 from 5e6 events up).
# --analyze: times `retime analyze --against model --net-noise exp:mean=1us --seed 1 --format json`
#            (two replays with the dependency graph, critical paths, wait states, comparison).
# --net 'ARGS': replays on a network instead of the crossbar, ARGS added to every run, e.g.
#            --net '--topology torus:4x4x2 --mapping random:1' (issue #50 item 4; every process
#            runs a copy of the network). With --analyze: --against model as on the crossbar, the
#            congestion attribution included.
# Builds nothing: configure and build first (cmake -S . -B build && cmake --build build).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
sizes=1e5,1e6
procs=1,2,4
repeat=
command=replay
net=
while [ $# -gt 0 ]; do
    case $1 in
    --sizes)
        [ $# -ge 2 ] || { echo "distributed.sh: error: --sizes needs a list such as 1e5,1e6" >&2; exit 1; }
        sizes=$2
        shift 2 ;;
    --procs)
        [ $# -ge 2 ] || { echo "distributed.sh: error: --procs needs a list such as 1,2,4" >&2; exit 1; }
        procs=$2
        shift 2 ;;
    --repeat)
        [ $# -ge 2 ] || { echo "distributed.sh: error: --repeat needs a number" >&2; exit 1; }
        repeat=$2
        shift 2 ;;
    --analyze)
        command=analyze
        shift ;;
    --net)
        [ $# -ge 2 ] || { echo "distributed.sh: error: --net needs retime's network options, e.g. '--topology torus:4x4x2'" >&2; exit 1; }
        net=$2
        shift 2 ;;
    -h | --help)
        sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
        exit 0 ;;
    *)
        echo "distributed.sh: error: unknown option '$1'" >&2
        exit 1 ;;
    esac
done
for p in $(echo "$procs" | tr ',' ' '); do
    case $p in '' | *[!0-9]* | 0) echo "distributed.sh: error: bad process count '$p' in --procs" >&2; exit 1 ;; esac
done
case ${repeat:-1} in '' | *[!0-9]* | 0) echo "distributed.sh: error: bad --repeat '$repeat'" >&2; exit 1 ;; esac

make_trace="$build/bench/retime-make-trace"
retime="$build/cli/retime"
. "$here/traces.sh"
mpirun_sh="$root/scripts/mpirun.sh"
for exe in "$make_trace" "$retime"; do
    if [ ! -x "$exe" ]; then
        echo "distributed.sh: error: $exe not found; build with -DRT_BUILD_BENCH=ON first" >&2
        exit 1
    fi
done
if [ ! -x /usr/bin/time ]; then
    echo "distributed.sh: error: /usr/bin/time not found (Debian package 'time'); it measures each process's peak RSS" >&2
    exit 1
fi
command -v mpirun >/dev/null 2>&1 || { echo "distributed.sh: error: mpirun not found" >&2; exit 1; }

tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/retime-distributed.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The same model as bench_replay and the README's example.
set -- --alpha 2.122us --beta 0.7595ns/B --quiet
if [ "$command" = analyze ]; then
    set -- "$@" --against model --net-noise exp:mean=1us --seed 1 --format json
fi
# shellcheck disable=SC2086 # (the network's options, split on purpose)
[ -z "$net" ] || set -- "$@" $net

# events SERIAL_OUTPUT TRACE: the events replayed (analyze does not print them: a replay counts them)
events_of() {
    if [ "$command" = replay ]; then
        awk '$1 == "events" { print $2; exit }' "$1"
    else
        "$retime" replay "$2" --alpha 2.122us --beta 0.7595ns/B --quiet | awk '$1 == "events" { print $2; exit }'
    fi
}

now_ns() { date +%s%N; }

# run_case P TRACE REF REPS: P = 0 runs retime without mpirun. Sets wall (best, s), rss_max and
# rss_mean (KiB, from the run with the largest max: peak RSS barely varies, this is the safe side)
# and same (yes if every run's stdout equals REF, "-" without REF).
run_case() {
    p=$1 tr=$2 ref=$3 reps=$4
    shift 4
    wall= rss_max=0 rss_mean=0 same=yes
    [ -n "$ref" ] || same=-
    i=0
    while [ "$i" -lt "$reps" ]; do
        i=$((i + 1))
        rc=0
        rm -f "$work/rss"
        t0=$(now_ns)
        if [ "$p" -eq 0 ]; then
            n_expect=1
            /usr/bin/time -a -o "$work/rss" -f 'RTRSS %M' "$retime" "$command" "$tr" "$@" >"$work/out" 2>"$work/err" || rc=$?
        else
            n_expect=$p
            "$mpirun_sh" -np "$p" /usr/bin/time -a -o "$work/rss" -f 'RTRSS %M' "$retime" "$command" "$tr" "$@" >"$work/out" 2>"$work/err" || rc=$?
        fi
        t1=$(now_ns)
        if [ "$rc" -ne 0 ]; then
            echo "distributed.sh: error: retime $command $tr (P=$p) exited with $rc:" >&2
            cat "$work/err" >&2
            exit 1
        fi
        # n, max, mean of the RTRSS lines, one per process: time -a -o appends its line in one write
        # at exit (stderr would interleave the processes' lines character by character)
        stats=$(awk '/^RTRSS [0-9]+$/ { n++; s += $2; if ($2 > m) m = $2 } END { printf "%d %d %.0f", n, m, n ? s / n : 0 }' "$work/rss")
        n=${stats%% *} mean=${stats##* } m=${stats#* } m=${m%% *}
        if [ "$n" -ne "$n_expect" ]; then
            echo "distributed.sh: error: expected $n_expect RSS lines from /usr/bin/time, got $n:" >&2
            cat "$work/rss" "$work/err" >&2
            exit 1
        fi
        w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
        if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then wall=$w; fi
        if [ "$m" -gt "$rss_max" ]; then rss_max=$m rss_mean=$mean; fi
        if [ -n "$ref" ] && ! cmp -s "$ref" "$work/out"; then
            same=NO
            cp "$work/out" "$work/diff-P$p.out"
        fi
    done
}

load() { cut -d' ' -f1 /proc/loadavg; }

# check_same P REF: stops if a run under mpirun -np P printed something else than REF.
check_same() {
    [ "$same" = yes ] && return 0
    echo "distributed.sh: error: the output under mpirun -np $1 differs from the serial output" \
        "(a retime built without MPI, RT_WITH_MPI=OFF, replays the whole trace in every process):" >&2
    diff "$2" "$work/diff-P$1.out" | head -20 >&2 || true
    exit 1
}

echo "# $(uname -n), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(mpirun --version 2>&1 | head -1)"
echo "# retime $command TRACE $*; synthetic Shift traces of 32 ranks (bench/make_trace.c)"

# Fixed cost: a 1e3-event trace (one iteration), serially and under mpirun for each P.
base_trace=$(trace_for 1000)
base_reps=${repeat:-3}
run_case 0 "$base_trace" "" "$base_reps" "$@"
cp "$work/out" "$work/base-ref"
base_events=$(events_of "$work/base-ref" "$base_trace")
base_wall_0=$wall base_rss_0=$rss_max
echo
echo "fixed cost: retime $command of a $base_events-event trace (best of $base_reps; RSS in MiB, per process)"
printf '%8s %6s %8s %11s %11s %5s\n' P load wall_s RSS_max_MiB RSS_mean_MiB same
awk -v w="$wall" -v m="$rss_max" -v l="$(load)" 'BEGIN { printf "%8s %6s %8.3f %11.1f %11.1f %5s\n", "serial", l, w, m / 1024, m / 1024, "-" }'
for p in $(echo "$procs" | tr ',' ' '); do
    run_case "$p" "$base_trace" "$work/base-ref" "$base_reps" "$@"
    eval "base_wall_$p=\$wall base_rss_$p=\$rss_max"
    awk -v p="$p" -v w="$wall" -v m="$rss_max" -v a="$rss_mean" -v s="$same" -v l="$(load)" \
        'BEGIN { printf "%8s %6s %8.3f %11.1f %11.1f %5s\n", p, l, w, m / 1024, a / 1024, s }'
    check_same "$p" "$work/base-ref"
done

echo
echo "events/s on the whole wall time (mpirun's start included) and net of the fixed cost (wall minus the"
echo "1e3-event run's wall at the same P); RSS: peak per process, max and mean over the processes;"
echo "B/ev = max RSS / (events / P); net = the same less the 1e3-event run's max RSS at the same P;"
echo "xserial = max RSS / serial RSS, net xserial = (max RSS - fixed) / (serial RSS - serial fixed), target 1/P;"
echo "same = stdout byte-identical to the serial run's in every repeat (cmp)"
hdr='%11s %6s %5s %8s %6s %7s %9s %10s %11s %7s %8s %7s %8s %5s %4s\n'
# row P LOAD FIXED_WALL FIXED_RSS LABEL: one line of the table from run_case's results
row() {
    awk -v ev="$n_ev" -v p="$1" -v l="$2" -v w="$wall" -v bw="$3" -v m="$rss_max" -v a="$rss_mean" \
        -v bm="$4" -v sm="$ser_rss" -v sb="$base_rss_0" -v same="$same" -v label="$5" -v fmt="$hdr" 'BEGIN {
        net = w - bw
        per = ev / p
        printf fmt, ev, label, l, sprintf("%.3f", w), sprintf("%.2f", ev / w / 1e6), sprintf("%.3f", net),
            (net > 0 ? sprintf("%.2f", ev / net / 1e6) : "-"),
            sprintf("%.1f", m / 1024), sprintf("%.1f", a / 1024),
            sprintf("%.1f", m * 1024 / per), sprintf("%.1f", (m - bm) * 1024 / per),
            sprintf("%.3f", m / sm), (sm > sb ? sprintf("%.3f", (m - bm) / (sm - sb)) : "-"),
            sprintf("%.3f", 1 / p), same
    }'
}
printf "$hdr" events P load wall_s Mev/s net_s net_Mev/s RSSmax_MiB RSSmean_MiB B/ev net_B/ev xserial net_xser 1/P same
for s in $(echo "$sizes" | tr ',' ' '); do
    events=$(to_events "$s") || { echo "distributed.sh: error: bad size '$s'" >&2; exit 1; }
    trace=$(trace_for "$events")
    if [ -n "$repeat" ]; then
        reps=$repeat
    else
        reps=$(awk -v n="$events" 'BEGIN { print (n >= 5e6 ? 2 : 3) }')
    fi
    l=$(load)
    run_case 0 "$trace" "" "$reps" "$@"
    cp "$work/out" "$work/ref"
    n_ev=$(events_of "$work/ref" "$trace")
    ser_rss=$rss_max
    row 1 "$l" "$base_wall_0" "$base_rss_0" serial
    for p in $(echo "$procs" | tr ',' ' '); do
        l=$(load)
        run_case "$p" "$trace" "$work/ref" "$reps" "$@"
        eval "bw=\$base_wall_$p bm=\$base_rss_$p"
        row "$p" "$l" "$bw" "$bm" "$p"
        check_same "$p" "$work/ref"
    done
done
echo "# done, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
