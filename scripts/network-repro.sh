#!/bin/sh
# SPDX-License-Identifier: MIT
# The network reproductions of docs/network-repro.md (issue #20, item 6; issue #30, item 4): 002's
# binomial tree under other jobs' traffic on fat trees of growing size (its Figure 10) and its
# congestion-free Figure 7 example, 004's mean latency against offered IPP load on a 16x16 torus,
# a sweep of the stored 3D Shift trace over topologies and mappings, and 002's Figures 3-5 and 10
# from collectives: the traced collective benchmark (traces/collbench) and generated traces of its
# calls on up to 5184 ranks. Traces are written with Debian's python3-otf2
# (scripts/network_traces.py); figures are CSV, gnuplot scripts and their SVG/PNG.
#
# usage: [BUILD=build | RETIME=path/to/retime] scripts/network-repro.sh OUT [--quick] [--runs N]
#            [--mtu SIZE] [--part fig7|xgft|torus|sweep|coll|coll-xgft]...
#   OUT      a new or empty directory, or one named */network (cleared first)
#   --quick  small sizes and few runs (about 45 s); default: the sizes of 002's Table 1 up to
#            10368 endpoints, 1000 runs each but 30 at 10368 (xgft), 130 per communicator size
#            (coll), 100 per tree but 3 at 10368 (coll-xgft): about 90 minutes on 2 cores
#   --runs N runs per fat tree or communicator size (10 mappings x N/10 background draws; N a
#            multiple of 10); above 4000 endpoints 3 mappings x N/100 draws (at least 1)
#   --mtu SIZE  the links' packet size: a message waits at each link for a packet of each flow on
#            it (retime --mtu; 4KiB is InfiniBand's): small messages then slow down under other
#            jobs' traffic too (002); default 0, bandwidth sharing only
# Exits non-zero when a figure contradicts what the papers report and the model must give:
# Figure 7's tree is not congestion free, the fat-tree slowdown (point-to-point tree or
# collective) does not grow from the smallest to the largest tree, the traced 64 KiB collectives
# are not slower under other jobs' traffic or not more so at ratio 0.5 than at 0.125, or the torus
# latency does not rise with load.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
retime=${RETIME:-$build/cli/retime}
gen="$here/network_traces.py"
py=/usr/bin/python3

die() { echo "network-repro.sh: error: $*" >&2; exit 1; }

out="" quick=0 runs="" parts="" mtu=0
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1; shift ;;
    --mtu) [ $# -ge 2 ] || die "--mtu needs a size (4KiB; 0: none)"; mtu=$2; shift 2 ;;
    --runs) [ $# -ge 2 ] && [ "$2" -ge 10 ] 2>/dev/null && [ $(($2 % 10)) = 0 ] || die "--runs needs a multiple of 10"
        runs=$2; shift 2 ;;
    --part) [ $# -ge 2 ] || die "--part needs fig7, xgft, torus, sweep, coll or coll-xgft"
        case $2 in fig7|xgft|torus|sweep|coll|coll-xgft) parts="$parts $2" ;;
        *) die "unknown part '$2' (fig7, xgft, torus, sweep, coll, coll-xgft)" ;; esac
        shift 2 ;;
    -h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unexpected option '$1'" ;;
    *) [ -z "$out" ] || die "one OUT directory only"; out=$1; shift ;;
    esac
done
[ -n "$out" ] || die "no OUT directory (usage: scripts/network-repro.sh OUT [--quick] [--runs N] [--part P]...)"
[ -n "$parts" ] || parts="fig7 xgft torus sweep coll coll-xgft"
[ -x "$retime" ] || die "$retime not found: build first (README)"
$py -c 'import otf2' 2>/dev/null || die "python3-otf2 is missing (scripts/install-deps.sh installs it)"
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
    case $out in */network) rm -rf "$out" ;; *) die "$out is not empty (only a directory named */network is cleared)" ;; esac
fi
mkdir -p "$out"
# the collective parts' sizes: communicator sizes, operations and perturbation ratios (coll), and
# per fat tree the operations of the generated trace (coll-xgft: its allreduce costs 2 s a run at
# 1152 endpoints and 11 s at 2304, so it stops at 1152)
if [ "$quick" = 1 ]; then
    sizes="144 288 1152" loads="0.1 0.3 0.45" probes=8
    coll_runs=${runs:-10} coll_maps="1 2" coll_ks="2 4 8 16" coll_ops="allreduce" ratios="0.125 0.5"
    cx_runs=${runs:-10} cx_sizes="reduce:144,288,1152 allreduce:144,288"
    runs=${runs:-40}
else
    sizes="144 288 1152 2304 3456 10368" loads="0.05 0.1 0.2 0.3 0.35 0.4 0.45 0.5" probes=12
    coll_runs=${runs:-130} coll_maps="1 2 3 4 5 6 7 8 9 10" coll_ks="2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"
    coll_ops="allreduce reduce bcast"
    ratios="0.125 0.25 0.375 0.5"
    cx_runs=${runs:-100}
    cx_sizes="reduce:144,288,1152,2304,3456,10368 allreduce:144,288,1152"
    runs=${runs:-1000}
fi
have_gnuplot=0
command -v gnuplot > /dev/null && have_gnuplot=1
# 002's simulation is flow level: a node's messages share its NIC links (retime's --injection
# shared; the default, in order, queues them at the ports: docs/network.md, "One discipline")
# With --mtu a message also waits for the packets ahead of it at each link, so small messages slow
# down under congestion too, as 002 measured (issue #46, item 4).
model="--alpha 2.122us --beta 0.7595ns/B --injection shared --mtu $mtu"

# plot NAME: draws OUT/NAME.svg and OUT/NAME.png from OUT/NAME.gp (whose first lines set the output).
plot() {
    [ "$have_gnuplot" = 1 ] || { echo "  (gnuplot missing: $1.gp not drawn)"; return 0; }
    (cd "$out" && gnuplot "$1.gp")
}
terminal() { # the common head of a .gp: both files, one terminal each; $2 the size (720,440)
    cat <<EOF
set encoding utf8
do for [term in "svg pngcairo"] {
if (term eq "svg") { set terminal svg size ${2:-720,440} font "DejaVu Sans,11" background "white" noenhanced; set output "$1.svg" }
else { set terminal pngcairo size ${2:-720,440} font "DejaVu Sans,10" background "white" noenhanced; set output "$1.png" }
EOF
}

# The mean, 5th and 95th percentile and sample sd of the numbers on stdin (one per line).
stats() {
    sort -g | awk '{ v[NR] = $1; s += $1 } END {
        if (!NR) exit 1
        m = s / NR; for (i = 1; i <= NR; i++) q += (v[i] - m) ^ 2
        lo = v[int(0.05 * (NR - 1)) + 1]; hi = v[int(0.95 * (NR - 1) + 0.999999) + 1]
        printf "%.6f %.6f %.6f %.6f", m, lo, hi, (NR > 1 ? sqrt(q / (NR - 1)) : 0) }'
}

# The minimum, quartiles (linear between order statistics), maximum and mean of the numbers on stdin.
quartiles() {
    sort -g | awk '{ v[NR] = $1; s += $1 }
        function q(p,   h, i) { h = (NR - 1) * p + 1; i = int(h); return i >= NR ? v[NR] : v[i] + (h - i) * (v[i + 1] - v[i]) }
        END { if (!NR) exit 1; printf "%.6f %.6f %.6f %.6f %.6f %.6f", v[1], q(0.25), q(0.5), q(0.75), v[NR], s / NR }'
}

# mc TRACE REGION TOPOLOGY RATIO RUNS SEEDS RAW: for each seed S, RUNS Monte Carlo replays of TRACE
# with the ranks on random nodes (--mapping random:S, --seed S) and the other jobs' traffic of
# xgft at ratio RATIO; appends per run to RAW "S mean max alone_mean alone_max": the region's
# mean (over instances and ranks) and max (over instances and ranks), and the same mapping's
# without the other jobs.
mc() {
    for seed in $6; do
        "$retime" replay "$1" $model --compute-scale 0 --topology "$3" --mapping "random:$seed" --seed "$seed" \
            --perturb "ratio=$4,pattern=random-permutation,size=64KiB,interval=100us" --runs "$5" --region "$2" \
            --format csv | awk -F, -v s="$seed" '$1 == "noise_free" { m = $5; x = $6 } $1 == "run" { r[n++] = $5 " " $6 }
                                              END { for (i = 0; i < n; i++) print s, r[i], m, x }' >> "$7"
    done
}

# 002, Figure 7: an 8-rank binomial broadcast on a 16-node fat tree of 4-port crossbars, ranks on
# the nodes 002 gives; congestion free alone, slowed when the other 8 nodes talk (ratio 0.5).
fig7() {
    echo "== 002 Figure 7: 8-rank binomial tree on fattree:16,radix=4, 002's mapping"
    $py "$gen" tree "$out/fig7-bcast8" 8 65536 bcast
    printf '# 002 Figure 7: rank node\n0 3\n1 6\n2 5\n3 13\n4 7\n5 9\n6 0\n7 10\n' > "$out/fig7.map"
    net="--topology fattree:16,radix=4 --mapping file:$out/fig7.map"
    "$retime" replay "$out/fig7-bcast8" $model --compute-scale 0 $net --format json > "$out/fig7-alone.json"
    c=$($py -c 'import json, sys; print(json.load(open(sys.argv[1]))["network"]["contention_ns"])' "$out/fig7-alone.json")
    echo "  alone: contention $c ns (002: congestion free for this mapping)"
    [ "$c" = 0 ] || die "Figure 7's tree is not congestion free here: contention $c ns"
    "$retime" replay "$out/fig7-bcast8" $model --compute-scale 0 $net --runs "$runs" --format csv \
        --perturb ratio=0.5,pattern=random-permutation,size=64KiB,interval=100us > "$out/fig7-perturbed.csv"
    awk -F, '$1 == "noise_free" { printf "  noise-free %.1f us; ", $3 / 1e3 }
             $1 == "mean" { printf "with the other 8 nodes (random permutation, 64 KiB every 100 us): mean slowdown %.3f", $4 }
             $1 == "max" { printf ", max %.3f\n", $4 }' "$out/fig7-perturbed.csv"
}

# 002, Figure 10: a binomial reduce on half the nodes of full-bisection fat trees of 24-port
# switches (002's Table 1 sizes), the other half sending 64 KiB to a random permutation every
# 100 us (half their NICs' bandwidth); 10 random mappings x runs/10 background draws per size.
xgft() {
    echo "== 002 Figure 10: binomial reduce on half of fat trees of 24-port switches, perturbation ratio 0.5"
    echo "endpoints,topology,ranks,runs,noise_free_mean_ns,slowdown_mean,slowdown_p5,slowdown_p95,slowdown_sd" > "$out/xgft.csv"
    for n in $sizes; do
        p=$((n / 2))
        t="$out/reduce-p$p"
        [ -d "$t" ] || $py "$gen" tree "$t" "$p" 65536 reduce
        : > "$out/xgft-$n.runs"
        # above 4000 endpoints a replay takes 10-20 s here: 3 mappings x runs/100 (at least 1) draws
        per=$((runs / 10)) seeds="1 2 3 4 5 6 7 8 9 10" nseeds=10
        [ "$n" -le 4000 ] || { per=$((runs / 100)) seeds="1 2 3" nseeds=3; }
        [ "$per" -ge 1 ] || per=1
        nf=0
        for seed in $seeds; do
            "$retime" replay "$t" $model --compute-scale 0 --topology "fattree:$n,radix=24" --mapping "random:$seed" \
                --perturb "ratio=0.5,pattern=random-permutation,size=64KiB,interval=100us" --runs "$per" --seed "$seed" \
                --format csv > "$out/xgft.tmp"
            awk -F, '$1 == "run" { print $4 }' "$out/xgft.tmp" >> "$out/xgft-$n.runs"
            nf=$(awk -F, -v s="$nf" '$1 == "noise_free" { print s + $3 }' "$out/xgft.tmp")
        done
        topo=$("$retime" replay "$t" $model --compute-scale 0 --topology "fattree:$n,radix=24" --format json |
               $py -c 'import json, sys; print(json.load(sys.stdin)["network"]["topology"].split(", ")[0])')
        set -- $(stats < "$out/xgft-$n.runs")
        echo "$n,\"$topo\",$p,$(wc -l < "$out/xgft-$n.runs"),$(awk -v s="$nf" -v k="$nseeds" 'BEGIN { printf "%.3f", s / k }'),$1,$2,$3,$4" \
            >> "$out/xgft.csv"
        printf '  %6d endpoints (%s), %5d ranks: mean slowdown %.3f (p5 %.3f, p95 %.3f)\n' "$n" "$topo" "$p" "$1" "$2" "$3"
    done
    rm -f "$out/xgft.tmp"
    { terminal xgft; cat <<'EOF'
set title "Binomial reduce on half of a full-bisection fat tree, other half random permutation (ratio 0.5)"
set xlabel "endpoints (log scale)"; set ylabel "slowdown (perturbed / alone)"
set logscale x; set grid; set key top left; set datafile separator ","; set offsets graph 0.03, graph 0.03, 0, 0
plot "xgft.csv" skip 1 using 1:6:7:8 with yerrorlines lw 2 pt 7 title "mean, p5..p95 over the runs"
}
EOF
    } > "$out/xgft.gp"
    plot xgft
    # slowdown_mean, counted from the end: the topology column holds quoted commas
    awk -F, 'NR == 2 { a = $(NF - 3) } END { if (NR > 2 && !($(NF - 3) > a)) exit 1 }' "$out/xgft.csv" ||
        die "the slowdown does not grow from the smallest to the largest fat tree ($out/xgft.csv)"
}

# 004: mean latency of 4 KiB probe messages across a 16x16 torus (dimension order, 16 hops) while
# the other 248 nodes are interrupted Poisson sources (on half the time, sigma1 = sigma2 = 0.1/us)
# of 4 KiB messages to uniformly random nodes; offered load = the share of a NIC's bandwidth a
# node sends on average = rate_on x 1/2 x 4 KiB x beta. Uniform traffic crosses 8 of a node's 4
# outgoing links on average, so links saturate at a load of 0.5.
torus() {
    echo "== 004: mean probe latency on a 16x16 torus against offered IPP load"
    period=40000 # ns between a route's probes
    $py "$gen" probes "$out/probes" "$out/probes.map" 256 0:136,17:153,34:170,51:187 "$probes" "$period" 4096 20000 \
        > "$out/probes.lines"
    echo "load,rate_on_per_us,probes,latency_mean_ns,latency_p5_ns,latency_p95_ns,latency_alone_ns" > "$out/torus.csv"
    net="--topology torus:16x16 --mapping file:$out/probes.map --ranks-per-node $probes --hop-latency 50ns"
    "$retime" replay "$out/probes" $model $net --format json > "$out/torus-alone.json"
    alone=$(latencies "$out/torus-alone.json" | stats | cut -d' ' -f1)
    for load in $loads; do
        # rate while on: load / (1/2 x 4096 B x 0.7595 ns/B) per ns
        rate=$(awk -v l="$load" 'BEGIN { printf "%.6f", l / (0.5 * 4096 * 0.7595) * 1e3 }')
        "$retime" replay "$out/probes" $model $net --format json \
            --perturb "ratio=0.96875,pattern=ipp,size=4KiB,rate=$rate/us,sigma1=0.1/us,sigma2=0.1/us" > "$out/torus-$load.json"
        set -- $(latencies "$out/torus-$load.json" | stats)
        echo "$load,$rate,$(wc -l < "$out/probes.lines"),$1,$2,$3,$alone" >> "$out/torus.csv"
        printf '  load %.2f (%s msg/us while on): mean latency %.2f us (p5 %.2f, p95 %.2f; alone %.2f)\n' \
            "$load" "$rate" "$(echo "$1" | awk '{ print $1 / 1e3 }')" "$(echo "$2" | awk '{ print $1 / 1e3 }')" \
            "$(echo "$3" | awk '{ print $1 / 1e3 }')" "$(echo "$alone" | awk '{ print $1 / 1e3 }')"
    done
    { terminal torus; cat <<'EOF'
set title "16x16 torus: 4 KiB probes over 16 hops, 248 IPP sources of uniform traffic"
set xlabel "offered load (share of a NIC's bandwidth)"; set ylabel "probe latency (us)"
set grid; set key top left; set datafile separator ","; set offsets graph 0.03, graph 0.03, 0, 0
plot "torus.csv" skip 1 using 1:($4/1e3):($5/1e3):($6/1e3) with yerrorlines lw 2 pt 7 title "mean, p5..p95", \
     "" skip 1 using 1:($7/1e3) with lines dt 2 title "alone"
}
EOF
    } > "$out/torus.gp"
    plot torus
    awk -F, 'NR == 2 { a = $4 } END { if (NR > 2 && !($4 > a)) exit 1 }' "$out/torus.csv" ||
        die "the torus latency does not rise with load ($out/torus.csv)"
}

# The probes' latencies of one replay: a receiver's predicted end minus its probe's send time.
latencies() {
    $py - "$1" "$out/probes.lines" <<'EOF'
import json, sys
ends = {r["rank"]: r["predicted_end_ns"] for r in json.load(open(sys.argv[1]))["per_rank"]}
for line in open(sys.argv[2]):
    rank, sent, _ = line.split()
    print("%.3f" % (ends[int(rank)] - int(sent)))
EOF
}

# A sweep of the stored 3D Shift trace (64 ranks, nearest neighbours on a 4x4x4 grid) over a
# matching torus and a thin (4:1) fat tree, block and random mappings, at compute scale 0.
sweep() {
    echo "== sweep: traces/shift3d-ssend-p64-k1-m1000 on torus:4x4x4 and fattree:XGFT(2;8,8;1,2)"
    "$retime" sweep "$root/traces/shift3d-ssend-p64-k1-m1000" $model --compute-scale 0 --topology crossbar \
        --topology torus:4x4x4 --topology "fattree:XGFT(2;8,8;1,2)" --mapping block --mapping random:1 \
        --format csv > "$out/sweep.csv"
    "$retime" sweep "$root/traces/shift3d-ssend-p64-k1-m1000" $model --compute-scale 0 --topology crossbar \
        --topology torus:4x4x4 --topology "fattree:XGFT(2;8,8;1,2)" --mapping block --mapping random:1 |
        tee "$out/sweep.txt" | sed 's/^/  /'
}

# inst TRACE REGION TOPOLOGY RATIO DRAWS SEEDS RAW: per seed S, the replay of TRACE with the
# ranks on random nodes (--mapping random:S) alone, then DRAWS replays with the other jobs'
# traffic of xgft at ratio RATIO (--seed S*1000+j: each its own perturbing nodes and traffic);
# appends per draw to RAW "S j last mean alone_last alone_mean": the region's last rank's time
# (the max over its ranks, 002's measure) and its ranks' mean time, each averaged over the
# region's instances. (`--runs` reports the ranks' mean per run but only the slowest instance's
# max, hence a replay per draw here.)
inst() {
    for seed in $6; do
        alone=$("$retime" replay "$1" $model --compute-scale 0 --topology "$3" --mapping "random:$seed" --region "$2" \
                --format csv | awk -F, '$1 == "region" { x += $7; m += $5; n++ } END { printf "%.6f %.6f", x / n, m / n }')
        j=1
        while [ "$j" -le "$5" ]; do
            "$retime" replay "$1" $model --compute-scale 0 --topology "$3" --mapping "random:$seed" --seed $((seed * 1000 + j)) \
                --perturb "ratio=$4,pattern=random-permutation,size=64KiB,interval=100us" --region "$2" --format csv |
                awk -F, -v s="$seed" -v j="$j" -v a="$alone" '$1 == "region" { x += $7; m += $5; n++ }
                    END { printf "%s %s %.6f %.6f %s\n", s, j, x / n, m / n, a }' >> "$7"
            j=$((j + 1))
        done
    done
}

# 002, Figures 3-5 (§2) from traced collectives: traces/collbench (MPI_Allreduce, MPI_Reduce and
# MPI_Bcast on the first k = 2..16 of 16 ranks, 10 repetitions each in the region <op>_k<k>; 8 B
# and 64 KiB) on a full-bisection fat tree of 24-port switches, fattree:32,radix=24 =
# XGFT(2;12,3;1,12) (36 nodes): the ranks on random nodes (002 draws random subsets), half of the
# nodes perturbing as in xgft (ratio 0.5). Per (op, k) 10 mappings x runs/10 draws (--quick: 2 x
# runs/2); a run's
# slowdown is the last rank's time in the operation (002's measure; averaged over the 10
# instances) over the same mapping's without the other jobs; the ranks' mean time's slowdown
# beside it. Figure 4: the 64 KiB slowdown at k = 16 against the perturbation ratio.
coll() {
    echo "== 002 Figures 3-5: traced collectives on k = 2..16 of 16 ranks, fattree:32,radix=24, ratio 0.5"
    topo="fattree:32,radix=24" per=$((coll_runs / $(echo $coll_maps | wc -w))) seeds=$coll_maps
    echo "bytes,op,k,runs,alone_mean_ns,perturbed_median_ns,slowdown_min,slowdown_q1,slowdown_median,slowdown_q3,slowdown_max,slowdown_mean,rank_mean_slowdown_median" \
        > "$out/coll.csv"
    for bytes in 8 65536; do
        t="$root/traces/collbench/collbench-p16"
        [ "$bytes" = 8 ] || t="$t-m$bytes"
        for op in $coll_ops; do
            for k in $coll_ks; do
                raw="$out/coll-$bytes-$op-k$k.runs"
                : > "$raw"
                inst "$t" "${op}_k$k" "$topo" 0.5 "$per" "$seeds" "$raw"
                alone=$(awk '!($1 in s) { s[$1]; a += $5; n++ } END { printf "%.3f", a / n }' "$raw")
                pmed=$(awk '{ print $3 }' "$raw" | quartiles | cut -d' ' -f3)
                rmed=$(awk '{ print $4 / $6 }' "$raw" | quartiles | cut -d' ' -f3)
                set -- $(awk '{ print $3 / $5 }' "$raw" | quartiles)
                echo "$bytes,$op,$k,$(wc -l < "$raw"),$alone,$pmed,$1,$2,$3,$4,$5,$6,$rmed" >> "$out/coll.csv"
            done
            awk -F, -v b="$bytes" -v o="$op" '$1 == b && $2 == o { l = l sprintf(" %d:%.3f", $3, $9) }
                END { printf "  %5s B %-9s median slowdown per k:%s\n", b, o, l }' "$out/coll.csv"
        done
    done
    echo "bytes,op,k,ratio,perturbing_nodes,runs,slowdown_mean,slowdown_p5,slowdown_p95,slowdown_sd" > "$out/coll-ratio.csv"
    for bytes in 8 65536; do
      t="$root/traces/collbench/collbench-p16"
      [ "$bytes" = 8 ] || t="$t-m$bytes"
      for op in $coll_ops; do
        for ratio in $ratios; do
            raw="$out/coll-ratio-$bytes-$op-$ratio.runs"
            : > "$raw"
            inst "$t" "${op}_k16" "$topo" "$ratio" "$per" "$seeds" "$raw"
            nodes=$("$retime" replay "$root/traces/collbench/collbench-p16" $model --compute-scale 0 --topology "$topo" \
                    --perturb "ratio=$ratio,pattern=random-permutation,size=64KiB,interval=100us" --format json |
                    $py -c 'import json, re, sys; print(re.search(r"traffic from (\d+) nodes", json.load(sys.stdin)["network"]["topology"]).group(1))')
            set -- $(awk '{ print $3 / $5 }' "$raw" | stats)
            echo "$bytes,$op,16,$ratio,$nodes,$(wc -l < "$raw"),$1,$2,$3,$4" >> "$out/coll-ratio.csv"
        done
        awk -F, -v b="$bytes" -v o="$op" '$1 == b && $2 == o { l = l sprintf(" %s (%d nodes):%.3f", $4, $5, $7) }
            END { printf "  %5s B %-9s k=16 mean slowdown per ratio:%s\n", b, o, l }' "$out/coll-ratio.csv"
      done
    done
    nops=$(echo $coll_ops | wc -w)
    { terminal coll "720,$((60 + 300 * nops))"; cat <<'EOF'
set datafile separator ","; set grid; set key top right; set xrange [1:17]
set xlabel "communicator size k (of 16 ranks; 36-node fat tree, 18 nodes perturbing)"; set ylabel "slowdown of the last rank"
EOF
      echo "set multiplot layout $nops,1 title \"Traced collectives under other jobs' traffic (ratio 0.5): slowdown per run, quartiles and range\""
      for op in $coll_ops; do
          cat <<EOF
set title "$op"
plot "coll.csv" skip 1 using (\$1 == 65536 && strcol(2) eq "$op" ? \$3 : NaN):8:7:11:10 with candlesticks whiskerbars lw 1.5 lc rgb "#1f77b4" title "64 KiB: q1..q3, min..max", \\
     "" skip 1 using (\$1 == 65536 && strcol(2) eq "$op" ? \$3 : NaN):9:9:9:9 with candlesticks lw 3 lc rgb "#1f77b4" notitle, \\
     "" skip 1 using (\$1 == 8 && strcol(2) eq "$op" ? \$3 : NaN):9 with linespoints dt 2 pt 7 lc rgb "#d62728" title "8 B: median"
EOF
      done
      echo "unset multiplot"; echo "}"
    } > "$out/coll.gp"
    plot coll
    { terminal coll-ratio; cat <<'EOF'
set title "Traced collectives on 16 ranks: slowdown against the perturbation ratio"
set xlabel "perturbation ratio (share of the 36 nodes that perturb)"; set ylabel "slowdown (perturbed / alone)"
set grid; set key top left; set datafile separator ","; set offsets graph 0.03, graph 0.03, 0, 0
EOF
      printf 'plot '
      sep=""
      for op in $coll_ops; do
        for bytes in 65536 8; do
          printf '%s"coll-ratio.csv" skip 1 using ($1 == %s && strcol(2) eq "%s" ? $4 : NaN):7:8:9 with yerrorlines lw 2 pt 7 %stitle "%s %s B: mean, p5..p95"' \
              "$sep" "$bytes" "$op" "$([ "$bytes" = 8 ] && echo 'dt 2 ')" "$op" "$bytes"
          sep=", \\
     "
        done
      done
      printf '\n}\n'
    } > "$out/coll-ratio.gp"
    plot coll-ratio
    # 002's trends: slower under the other jobs (the mean over k of the median slowdown > 1, no
    # median below 1; with queues, below 0.95: other jobs' traffic can break up a collective's own
    # messages that would have queued behind each other, measured 0.967 at the least), and more so
    # at ratio 0.5 than at the smallest ratio; for 64 KiB (bandwidth) and, with queues (--mtu),
    # for 8 B too: without them an 8 B message loses only its bytes' share of a link
    # (docs/network-repro.md)
    sizes_checked=65536
    case $mtu in 0|0B|0KiB) ;; *) sizes_checked="8 65536" ;; esac
    for bytes in $sizes_checked; do
      for op in $coll_ops; do
        awk -F, -v b="$bytes" -v o="$op" -v lo="$([ "$sizes_checked" = 65536 ] && echo 1 || echo 0.95)" \
            '$1 == b && $2 == o { s += $9; n++; if ($9 < lo) bad = 1 } END { exit !(n && !bad && s / n > 1) }' \
            "$out/coll.csv" || die "the traced $bytes B $op is not slower under other jobs' traffic ($out/coll.csv)"
        awk -F, -v b="$bytes" -v o="$op" '$1 == b && $2 == o { if (!n++) a = $7; z = $7 } END { exit !(n > 1 && z > a) }' "$out/coll-ratio.csv" ||
            die "the traced $bytes B $op is not slower at ratio 0.5 than at the smallest ratio ($out/coll-ratio.csv)"
      done
    done
}

# 002, Figure 10 from collectives: the calls of the collective benchmark, generated for P = N/2
# ranks (network_traces.py coll: one MPI_Reduce or MPI_Allreduce of 64 KiB on all of them, no
# warm-up, one repetition, so that the region's longest rank time is 002's measure, the last
# process's), on xgft's fat trees of 24-port switches, the other half of the nodes perturbing as
# there; slowdown = that time over the same mapping's without the other jobs; 10 mappings x
# runs/10 draws, above 4000 endpoints 3 x runs/100 (at least 1).
coll_xgft() {
    echo "== 002 Figure 10 from collectives: 64 KiB reduce/allreduce on half of fat trees of 24-port switches, ratio 0.5"
    echo "endpoints,topology,op,ranks,runs,noise_free_mean_ns,slowdown_mean,slowdown_p5,slowdown_p95,slowdown_sd,rank_mean_slowdown_mean" \
        > "$out/coll-xgft.csv"
    for spec in $cx_sizes; do
        op=${spec%%:*}
        for n in $(echo "${spec#*:}" | tr , ' '); do
            p=$((n / 2)) t="$out/coll-$op-p$((n / 2))"
            [ -d "$t" ] || $py "$gen" coll "$t" "$p" "$op" "$p" 1 65536 0
            per=$((cx_runs / 10)) seeds="1 2 3 4 5 6 7 8 9 10"
            [ "$n" -le 4000 ] || { per=$((cx_runs / 100)) seeds="1 2 3"; }
            [ "$per" -ge 1 ] || per=1
            raw="$out/coll-xgft-$n-$op.runs"
            : > "$raw"
            mc "$t" "${op}_k$p" "fattree:$n,radix=24" 0.5 "$per" "$seeds" "$raw"
            topo=$("$retime" replay "$t" $model --compute-scale 0 --topology "fattree:$n,radix=24" --format json |
                   $py -c 'import json, sys; print(json.load(sys.stdin)["network"]["topology"].split(", ")[0])')
            nf=$(awk '!($1 in s) { s[$1]; a += $5; n++ } END { printf "%.3f", a / n }' "$raw")
            rmean=$(awk '{ s += $2 / $4 } END { printf "%.6f", s / NR }' "$raw")
            set -- $(awk '{ print $3 / $5 }' "$raw" | stats)
            echo "$n,\"$topo\",$op,$p,$(wc -l < "$raw"),$nf,$1,$2,$3,$4,$rmean" >> "$out/coll-xgft.csv"
            printf '  %6d endpoints (%s), %5d ranks, %-9s: mean slowdown %.3f (p5 %.3f, p95 %.3f; %d runs)\n' \
                "$n" "$topo" "$p" "$op" "$1" "$2" "$3" "$(wc -l < "$raw")"
        done
    done
    { terminal coll-xgft; cat <<'EOF'
set title "64 KiB collectives on half of a full-bisection fat tree, other half random permutation (ratio 0.5)"
set xlabel "endpoints (log scale)"; set ylabel "slowdown (perturbed / alone)"
set logscale x; set grid; set key top left; set datafile separator ","; set offsets graph 0.03, graph 0.03, 0, 0
plot "coll-xgft.csv" skip 1 using (strcol(3) eq "reduce" ? $1 : NaN):7:8:9 with yerrorlines lw 2 pt 7 title "MPI_Reduce (collbench's calls, generated): mean, p5..p95", \
     "" skip 1 using (strcol(3) eq "allreduce" ? $1 : NaN):7:8:9 with yerrorlines lw 2 pt 5 title "MPI_Allreduce: mean, p5..p95"\
EOF
      # beside them the point-to-point tree of the xgft part, when it ran into the same OUT
      [ ! -f "$out/xgft.csv" ] || printf ', \\\n     "xgft.csv" skip 1 using 1:6 with linespoints dt 2 pt 6 title "point-to-point binomial reduce (xgft): mean"'
      printf '\n}\n'
    } > "$out/coll-xgft.gp"
    plot coll-xgft
    # per operation, slowdown_mean (counted from the end) grows from the smallest to the largest tree
    for spec in $cx_sizes; do
        op=${spec%%:*}
        awk -F, -v o="$op" '$(NF - 8) == o { if (!n++) a = $(NF - 4); z = $(NF - 4) } END { exit !(n < 2 || z > a) }' "$out/coll-xgft.csv" ||
            die "the $op slowdown does not grow from the smallest to the largest fat tree ($out/coll-xgft.csv)"
    done
}

for part in $parts; do "$(echo "$part" | tr - _)"; done
echo "written to $out"
