#!/bin/sh
# SPDX-License-Identifier: MIT
# The network reproductions of docs/network-repro.md (issue #20, item 6): 002's binomial tree under
# other jobs' traffic on fat trees of growing size (its Figure 10) and its congestion-free Figure 7
# example, 004's mean latency against offered IPP load on a 16x16 torus, and a sweep of the stored
# 3D Shift trace over topologies and mappings. Traces are written with Debian's python3-otf2
# (scripts/network_traces.py); figures are CSV, gnuplot scripts and their SVG/PNG.
#
# usage: [BUILD=build | RETIME=path/to/retime] scripts/network-repro.sh OUT [--quick] [--runs N] [--part fig7|xgft|torus|sweep]...
#   OUT      a new or empty directory, or one named */network (cleared first)
#   --quick  small sizes and 40 runs (about 40 s); default: the sizes of 002's Table 1 up to
#            10368 endpoints, 1000 runs each but 30 at 10368 (about 50 minutes on 2 cores)
#   --runs N runs per fat tree (10 mappings x N/10 background draws; N a multiple of 10); above
#            4000 endpoints 3 mappings x N/100 draws (at least 1)
# Exits non-zero when a figure contradicts what the papers report and the model must give:
# Figure 7's tree is not congestion free, the fat-tree slowdown does not grow from the smallest to
# the largest tree, or the torus latency does not rise with load.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
retime=${RETIME:-$build/cli/retime}
gen="$here/network_traces.py"
py=/usr/bin/python3

die() { echo "network-repro.sh: error: $*" >&2; exit 1; }

out="" quick=0 runs="" parts=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1; shift ;;
    --runs) [ $# -ge 2 ] && [ "$2" -ge 10 ] 2>/dev/null && [ $(($2 % 10)) = 0 ] || die "--runs needs a multiple of 10"
        runs=$2; shift 2 ;;
    --part) [ $# -ge 2 ] || die "--part needs fig7, xgft, torus or sweep"
        case $2 in fig7|xgft|torus|sweep) parts="$parts $2" ;; *) die "unknown part '$2' (fig7, xgft, torus, sweep)" ;; esac
        shift 2 ;;
    -h|--help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unexpected option '$1'" ;;
    *) [ -z "$out" ] || die "one OUT directory only"; out=$1; shift ;;
    esac
done
[ -n "$out" ] || die "no OUT directory (usage: scripts/network-repro.sh OUT [--quick] [--runs N] [--part P]...)"
[ -n "$parts" ] || parts="fig7 xgft torus sweep"
[ -x "$retime" ] || die "$retime not found: build first (README)"
$py -c 'import otf2' 2>/dev/null || die "python3-otf2 is missing (scripts/install-deps.sh installs it)"
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
    case $out in */network) rm -rf "$out" ;; *) die "$out is not empty (only a directory named */network is cleared)" ;; esac
fi
mkdir -p "$out"
if [ "$quick" = 1 ]; then
    sizes="144 288 1152" runs=${runs:-40} loads="0.1 0.3 0.45" probes=8
else
    sizes="144 288 1152 2304 3456 10368" runs=${runs:-1000} loads="0.05 0.1 0.2 0.3 0.35 0.4 0.45 0.5" probes=12
fi
have_gnuplot=0
command -v gnuplot > /dev/null && have_gnuplot=1
model="--alpha 2.122us --beta 0.7595ns/B"

# plot NAME: draws OUT/NAME.svg and OUT/NAME.png from OUT/NAME.gp (whose first lines set the output).
plot() {
    [ "$have_gnuplot" = 1 ] || { echo "  (gnuplot missing: $1.gp not drawn)"; return 0; }
    (cd "$out" && gnuplot "$1.gp")
}
terminal() { # the common head of a .gp: both files, one terminal each
    cat <<EOF
set encoding utf8
do for [term in "svg pngcairo"] {
if (term eq "svg") { set terminal svg size 720,440 font "DejaVu Sans,11" background "white" noenhanced; set output "$1.svg" }
else { set terminal pngcairo size 720,440 font "DejaVu Sans,10" background "white" noenhanced; set output "$1.png" }
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

for part in $parts; do "$part"; done
echo "written to $out"
