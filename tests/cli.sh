#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI tests of the model options, parameter files, `retime sweep` and `retime predict`, with
# answers known in advance (the Shift paper's closed forms, Tables 2-6).
set -u
retime=$1; traces=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
T1=$traces/shift1d-ssend-p8-k1-m1000
H=(--alpha 2.122us --beta 0.7595ns/B)

# predict: the paper's numbers (eq. 1-3) for alpha = 2.122us, beta = 0.7595ns/B
out=$("$retime" predict shift --dims 1 --k 1 --m1 1000 --mode ssend "${H[@]}" --format json)
check predict-1d-ssend has "$out" '"iteration_ns": 11526,'
out=$("$retime" predict shift --dims 3 --k 1 --m1 1000 --mode ssend "${H[@]}" --format json)
check predict-3d-ssend has "$out" '"iteration_ns": 64958,'
out=$("$retime" predict shift --dims 3 --k 1 --m1 1KB --mode isend "${H[@]}")
check predict-3d-isend has "$out" '(32479.0 ns)'
check predict-bad-dims fails_with "bad --dims '2'" "$retime" predict shift --dims 2 --k 1 --m1 1000 "${H[@]}"

# replay agrees with predict on the stored trace
out=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 --region shift_iteration --format csv)
check replay-matches-predict has "$out" 'region,,0,'
check replay-matches-predict-value has "$(grep '^region,,0,' <<<"$out" | cut -d, -f5)" '11526.000'

# parameter files: values from the file, options override single values
cat > "$work/p.txt" <<'P'
format = retime-params 1
alpha = 5us
beta = 0.7595ns/B   # measured
info.host = test
L = 1us
o_s = 0.5us
o_r = 0.5us
g = 0.2us
G = 0.76ns/B
P
a=$("$retime" replay "$T1" --params "$work/p.txt" --alpha 2.122us --compute-scale 0 --region shift_iteration --format csv)
check params-override has "$(grep '^region,,0,' <<<"$a" | cut -d, -f5)" '11526.000'
b=$("$retime" replay "$T1" --params "$work/p.txt" --compute-scale 0 --format json)
check params-file-alpha has "$b" '"alpha_ns": 5000'
c=$("$retime" replay "$T1" --model logp --params "$work/p.txt" --compute-scale 0 --region shift_iteration --format json)
check params-logp has "$c" '"L_ns": 1000, "o_s_ns": 500, "o_r_ns": 500, "g_ns": 200, "G_ns_per_byte": 0.76'
# LogP-lite 1D Shift, rendezvous phases: max over ranks = 2k·(2D + 2·o_r), D = 2o_s + o_r + 2L + (m-1)G
check logp-shift has "$c" '"predicted_max_ns": 19036.960'
check logp-missing fails_with "the logp model needs --o_s, --o_r and --g" "$retime" replay "$T1" --model logp --L 1us --G 1ns/B
check params-missing fails_with "$work/none.txt: cannot open parameter file" "$retime" replay "$T1" --params "$work/none.txt"
echo "alpha = 2" > "$work/bad.txt"
check params-bad fails_with "$work/bad.txt:1: alpha: bad duration '2': needs a unit" "$retime" replay "$T1" --params "$work/bad.txt"
# --beta-table: the paper's T(1000) = 2881.5 ns from a per-size beta; the 500 B entry is not used
printf 'alpha = 2.122us\nbeta@500B = 2ns/B\nbeta@1000B = 0.7595ns/B\nbeta@4000B = 0.1ns/B\n' > "$work/table.txt"
t=$("$retime" replay "$T1" --params "$work/table.txt" --beta-table --compute-scale 0 --region shift_iteration --format csv)
check beta-table has "$(grep '^region,,0,' <<<"$t" | cut -d, -f5)" '11526.000'
check beta-table-no-file fails_with "--beta-table needs --params FILE" "$retime" replay "$T1" --alpha 1us --beta-table
check beta-table-logp fails_with "--beta-table is for the hockney model" "$retime" replay "$T1" --model logp --params "$work/p.txt" --beta-table
check beta-table-empty fails_with "p.txt has no beta@SIZE entries" "$retime" replay "$T1" --params "$work/p.txt" --beta-table
check beta-table-and-beta fails_with "--beta and --beta-table exclude each other" "$retime" replay "$T1" --params "$work/table.txt" --beta-table --beta 1ns/B
check coll-bad fails_with "--coll:" "$retime" replay "$T1" "${H[@]}" --coll bcast=ring

# sweep: 2 x 2 x 1 combinations, first option slowest, speed-up against the first
s=$("$retime" sweep "$T1" --alpha 2.122us,1us --beta 0.7595ns/B,0.38ns/B --compute-scale 0 --region shift_iteration --format csv)
check sweep-rows [ "$(grep -c '^[0-9]' <<<"$s")" -eq 4 ]
check sweep-header has "$s" 'combo,alpha_ns,beta_ns_per_byte,compute_scale,predicted_ns,speedup,region_ns,region_speedup'
check sweep-first has "$(sed -n 2p <<<"$s")" '0,2122,0.7595,0,'
check sweep-first-region has "$(sed -n 2p <<<"$s" | cut -d, -f7,8)" '11526.000,1.000000'
# combination 3: alpha 1us, beta 0.38ns/B: 4·(1000 + 380) = 5520 ns, speed-up 11526/5520
check sweep-last has "$(sed -n 5p <<<"$s" | cut -d, -f7,8)" '5520.000,2.088043'
# the sweep gives the same numbers as single replays, with any number of threads
j1=$("$retime" sweep "$T1" --alpha 2.122us,1us --beta 0.7595ns/B,0.38ns/B --compute-scale 0,1 --jobs 1 --format csv)
j3=$("$retime" sweep "$T1" --alpha 2.122us,1us --beta 0.7595ns/B,0.38ns/B --compute-scale 0,1 --jobs 3 --format csv)
check sweep-jobs-deterministic same "$j1" "$j3"
one=$("$retime" replay "$T1" --alpha 1us --beta 0.38ns/B --compute-scale 1 --format csv | grep '^total' | cut -d, -f5)
check sweep-equals-replay same "$(sed -n 9p <<<"$j1" | cut -d, -f5)" "$one"
sj=$("$retime" sweep "$T1" --model logp --params "$work/p.txt" --L 1us,2us --compute-scale 0 --format json)
check sweep-json has "$sj" '"varied": ["L_ns", "compute_scale"]'
check sweep-bad-list fails_with "--alpha: bad duration '3'" "$retime" sweep "$T1" --alpha 1us,3 --beta 1ns/B
check sweep-twice fails_with "given twice" "$retime" sweep "$T1" --alpha 1us --alpha 2us --beta 1ns/B

# network noise: same seed -> identical output, another seed -> different; the injected total is reported
n1=$("$retime" replay "$T1" "${H[@]}" --net-noise lognormal:median=1us,sigma=0.5 --seed 3 --format json)
n2=$("$retime" replay "$T1" "${H[@]}" --net-noise lognormal:median=1us,sigma=0.5 --seed 3 --format json)
n3=$("$retime" replay "$T1" "${H[@]}" --net-noise lognormal:median=1us,sigma=0.5 --seed 4 --format json)
check noise-same-seed same "$n1" "$n2"
check noise-other-seed differ "$n1" "$n3"
check noise-reported has "$n1" '"noise": {"seed": 3, "net": "lognormal:median=1us,sigma=0.5", "net_mean_ns": 1133.1484530668263, "os": []'
check noise-bad fails_with "--net-noise: noise 'exp:mean=2': mean: bad duration '2': needs a unit" "$retime" replay "$T1" "${H[@]}" --net-noise exp:mean=2
check seed-bad fails_with "bad --seed '-1'" "$retime" replay "$T1" "${H[@]}" --net-noise exp:mean=2us --seed -1

# OS noise: random phases follow the seed; aligned phases draw nothing, so the seed does not matter
O=(--os-noise periodic:period=10us,duration=1us)
o1=$("$retime" replay "$T1" "${H[@]}" "${O[@]}" --seed 1 --format json)
o2=$("$retime" replay "$T1" "${H[@]}" "${O[@]}" --seed 1 --format json)
o3=$("$retime" replay "$T1" "${H[@]}" "${O[@]}" --seed 2 --format json)
check os-noise-same-seed same "$o1" "$o2"
check os-noise-other-seed differ "$o1" "$o3"
a1=$("$retime" replay "$T1" "${H[@]}" "${O[@]},phase=aligned" --seed 1 --format json | sed 's/"seed": [0-9]*//')
a2=$("$retime" replay "$T1" "${H[@]}" "${O[@]},phase=aligned" --seed 2 --format json | sed 's/"seed": [0-9]*//')
check os-noise-aligned-no-draws same "$a1" "$a2"
check os-noise-reported has "$o1" '"os": ["periodic:period=10us,duration=1us"], "os_load_rank0": 0.1'
# two sources add up; a file source needs its file
o4=$("$retime" replay "$T1" "${H[@]}" "${O[@]}" --os-noise poisson:interval=50us,duration=exp:mean=2us --seed 1)
check os-noise-two-sources has "$o4" 'os periodic:period=10us,duration=1us; os poisson:interval=50us,duration=exp:mean=2us (14% of rank'
check os-noise-bad fails_with "--os-noise: noise 'periodic:period=1ms': needs duration=" "$retime" replay "$T1" "${H[@]}" --os-noise periodic:period=1ms
check os-noise-file-missing fails_with "$work/none.txt: cannot open noise file" "$retime" replay "$T1" "${H[@]}" --os-noise "file:$work/none.txt"
# bursts: reported with their share of time on, and the extra wire time they cost
b1=$("$retime" replay "$T1" "${H[@]}" --net-burst mmpp:on=5us,off=20us,latency=3 --seed 1 --format json)
check burst-reported has "$b1" '"burst": "mmpp:on=5us,off=20us,latency=3", "burst_on_share": 0.2'
check burst-injected differ "$(grep -o '"burst_ns": [0-9.]*' <<<"$b1")" '"burst_ns": 0'
check burst-bad fails_with "--net-burst: burst 'mmpp:on=5us': needs sigma2= (a rate) or off=" "$retime" replay "$T1" "${H[@]}" --net-burst mmpp:on=5us

checks_done
