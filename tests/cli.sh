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

# COMMAND --help: that command's usage on stdout, status 0 (not an unknown option), not the
# global one (issue #32 item 4): its synopsis, no other command's, the model options where it
# takes them; plot's and predict's subcommands alike; `retime help COMMAND` and -h the same
for c in info replay analyze sweep check calibrate "plot timeline" "plot montecarlo" "plot shift" "plot sweep" \
         "predict shift" "predict team-shift" "predict tradeoff"; do
    out=$("$retime" $c --help); rc=$?
    n=${c// /-}
    check help-$n has "rc=$rc $(head -1 <<<"$out")" "rc=0 usage: retime $c "
    check help-$n-own-only same "$(grep -c '^usage: \|^ *retime [a-z]' <<<"$out")" 1
done
check help-info-no-model-options same "$("$retime" info --help | grep -c -- '--model hockney')" 0
check help-replay-model-options has "$("$retime" replay --help)" "  model:   --model hockney|logp"
check help-replay-output-options has "$("$retime" replay --help)" "OUTPUT-OPTIONS"
check help-analyze-anywhere has "$("$retime" analyze traces.otf2 --help | head -1)" "usage: retime analyze TRACE"
check help-command same "$("$retime" help sweep)" "$("$retime" sweep --help)"
check help-h same "$("$retime" check -h)" "$("$retime" check --help)"
check help-global-points-to-command has "$("$retime" --help)" "retime COMMAND --help"
check help-unknown-command fails_with "unknown command 'nosuch'" "$retime" help nosuch
check unknown-command-one-line fails_with "unknown command 'nosuch' (commands: info, replay" "$retime" nosuch
# another model's parameter is refused, not ignored (#47); a parameter file may hold both models'
check other-model-option fails_with "--alpha is a parameter of the hockney model, not of logp" \
  "$retime" replay "$T1" --model logp --L 1us --o 100ns --g 0ns --G 1ns/B --alpha 2us
check other-model-option-hockney fails_with "--G is a parameter of the logp model, not of hockney" \
  "$retime" replay "$T1" --alpha 1us --beta 1ns/B --G 1ns/B

# predict: the paper's numbers (eq. 1-3) for alpha = 2.122us, beta = 0.7595ns/B
out=$("$retime" predict shift --dims 1 --k 1 --m1 1000 --mode ssend "${H[@]}" --format json)
check predict-1d-ssend has "$out" '"iteration_ns": 11526,'
out=$("$retime" predict shift --dims 3 --k 1 --m1 1000 --mode ssend "${H[@]}" --format json)
check predict-3d-ssend has "$out" '"iteration_ns": 64958,'
out=$("$retime" predict shift --dims 3 --k 1 --m1 1KB --mode isend "${H[@]}")
check predict-3d-isend has "$out" '(32479.0 ns)'
check predict-bad-dims fails_with "bad --dims '2'" "$retime" predict shift --dims 2 --k 1 --m1 1000 "${H[@]}"

# predict team-shift (docs/team-shift.md), by hand with T(1000) = 2881.5 ns:
# c = 1 is the Shift's 4k*T(m1): k = 2 gives 8*2881.5 = 23052 (Table 2's 23,051)
out=$("$retime" predict team-shift --dims 1 --k 2 --team 1 --m1 1000 "${H[@]}" --format json)
check team-shift-c1-is-shift has "$out" '"iteration_ns": 23052,'
# c = 2, k = 3: q = 1, M = ceil(7/2) - 0 = 4, tilt (2 does not divide 3):
#   T(m) + 2T(m) + 6T(m) + T(4m) = 9*2881.5 + (2122 + 3038) = 31093.5; Shift 12*2881.5 = 34578
out=$("$retime" predict team-shift --dims 1 --k 3 --team 2 --m1 1000 "${H[@]}" --format json)
check team-shift-1d has "$out" '"q": 1, "M": 4, "iteration_ns": 31093.5,'
check team-shift-1d-steps has "$out" '"broadcast_ns": 2881.5, "tilt_ns": 5763, "shift_ns": 17289, "reduce_ns": 5160,'
check team-shift-beside-shift has "$out" '"shift_ns": 34578,'
# 3D, c = 4, k = 1: q = 2, M = 1, per dimension 5T(m_d) + T(2m_d), m_d = 1000, 3000, 9000 B:
#   18048.5 + 28681.5 + 60580.5 = 107310.5
out=$("$retime" predict team-shift --dims 3 --k 1 --team 4 --m1 1000 "${H[@]}")
check team-shift-3d has "$out" '(107310.5 ns)'
check team-shift-3d-slower has "$out" 'team-shift is slower'
check team-shift-no-team fails_with "predict team-shift needs --team C" "$retime" predict team-shift --k 1 --m1 1000 "${H[@]}"
check team-shift-isend fails_with "Team Shift is modelled with ssend only" "$retime" predict team-shift --k 1 --team 2 --m1 1000 --mode isend "${H[@]}"
check predict-unknown fails_with "predict knows shift, team-shift and tradeoff" "$retime" predict stencil

# predict tradeoff, k = 3, m1 = 1000 B: c = 3 (M = ceil(7/3) - 1 = 2, q = 2, no tilt):
#   2T + 4T + 2*T(2m) = 6*2881.5 + 2*3641 = 24571 < 34578, the best of c = 2, 3;
# c = 2 is slower at k = 1 (T + 2T + 2T + T(2m) = 18048.5 > 11526) and faster from k = 2
# (k = 2: M = 2, no tilt, T + 4T + T(2m) = 18048.5 < 23052); c = 3 from k = 3 (k = 2: 24571 > 23052);
# speed-ups 34578/31093.5 and 34578/24571
out=$("$retime" predict tradeoff --dims 1 --k 3 --m1 1000 --c 2,3 "${H[@]}" --format json)
check tradeoff-best has "$out" '"best": {"algorithm": "team-shift", "c": 3, "ns": 24571}'
check tradeoff-c2 has "$out" '{"c": 2, "teams": null, "k_valid": 100, "team_shift_ns": 31093.5, "speedup": 1.1120652226349559, "faster": true, "crossover_k": 2}'
check tradeoff-c3 has "$out" '"team_shift_ns": 24571, "speedup": 1.407268731431362, "faster": true, "crossover_k": 3}'
check tradeoff-first has "$out" '"first_crossover": {"c": 2, "k": 2}'
out=$("$retime" predict tradeoff --dims 1 --k 3 --m1 1000 --c 2,3 "${H[@]}")
check tradeoff-text has "$out" 'answer       at k=3, Team Shift with c=3: 24.57us against Shift'
check tradeoff-text-ranges has "$out" 'k = 3..100'
# k = 1: Shift (11526) beats every team size (c >= 2 pays a broadcast and a gather at least)
out=$("$retime" predict tradeoff --dims 1 --k 1 --m1 1000 "${H[@]}" --format json)
check tradeoff-k1-shift has "$out" '"best": {"algorithm": "shift", "c": 1, "ns": 11526}'
# with P = 16 ranks: c = 2 gives 8 teams (k up to 3), c = 4 gives 4 teams (k up to 1), c = 8 two
out=$("$retime" predict tradeoff --dims 1 --k 3 --m1 1000 --P 16 "${H[@]}" --format json)
check tradeoff-P-c2 has "$out" '{"c": 2, "teams": 8, "k_valid": 3, "team_shift_ns": 31093.5,'
check tradeoff-P-c4 has "$out" '{"c": 4, "teams": 4, "k_valid": 1, "team_shift_ns": null,'
check tradeoff-P-no-c8 differ "$(grep -c '"c": 8' <<<"$out")" 1
check tradeoff-P-c fails_with "--c 3 does not divide --P 16" "$retime" predict tradeoff --k 3 --m1 1000 --P 16 --c 3 "${H[@]}"
check tradeoff-P-small fails_with "6 ranks do not hold the Shift's cut-off k=3" "$retime" predict tradeoff --k 3 --m1 1000 --P 6 "${H[@]}"
# the plot (with gnuplot): Shift's line 4k*T(m1) in µs, the crossovers at (2, 18.0485) and (3, 24.571)
if command -v gnuplot >/dev/null; then
  out=$("$retime" predict tradeoff --dims 1 --k 3 --m1 1000 --c 2,3 "${H[@]}" --output "$work/tradeoff")
  check tradeoff-plot-wrote has "$out" "wrote $work/tradeoff.svg $work/tradeoff.png"
  check tradeoff-plot-files [ -s "$work/tradeoff.svg" ] && [ -s "$work/tradeoff.png" ]
  check tradeoff-plot-shift-line same "$(grep -x '3 [0-9. ]*' "$work/tradeoff.dat" | head -1)" '3 34.578 24.571 31.0935'
  check tradeoff-plot-crossovers same "$(sed -n '/one point per team size/{n;p;n;p}' "$work/tradeoff.dat")" $'3 24.571\n2 18.0485'
fi
check tradeoff-json-plot fails_with "--output goes with the text output" "$retime" predict tradeoff --k 3 --m1 1000 "${H[@]}" --format json --output "$work/t"
# The same answer from replays (--traces): the stored runs at m1 = 1000 B replayed at compute
# scale 0 take the closed forms above (Shift 11526, 23052, 34578 at k = 1..3; c = 2: 18048.5,
# 18048.5, 31093.5; c = 3: 17289, 24571, 24571), so from the replays alone c = 3 is the answer at
# k = 3, c = 2 crosses over at k = 2, c = 3 at k = 3. Skipped: the isend, the two 3D and the two
# m1 = 100000 runs.
ts=$traces/team-shift
out=$("$retime" predict tradeoff --dims 1 --k 3 --m1 1000 --c 2,3 "${H[@]}" --traces "$traces" --traces "$ts" --format json)
check tradeoff-replay-answer has "$out" '"answer": {"algorithm": "team-shift", "c": 3, "ns": 24571, "shift_ns": 34578, "closed_form_c": 3}'
check tradeoff-replay-c2 has "$out" '{"c": 2, "k_replayed": 3, "k_min": 1, "k_max": 3, "crossover_k": 2, "closed_form_crossover_k": 2}'
check tradeoff-replay-c3 has "$out" '{"c": 3, "k_replayed": 3, "k_min": 1, "k_max": 3, "crossover_k": 3, "closed_form_crossover_k": 3}'
check tradeoff-replay-run has "$out" '"c": 2, "k": 3, "ranks": 16, "iterations": 10, "replayed_ns": 31093.5, "closed_form_ns": 31093.5}'
check tradeoff-replay-skipped has "$out" '"skipped": 5,'
out=$("$retime" predict tradeoff --dims 1 --k 2 --m1 1000 "${H[@]}" --traces "$ts/teamshift1d-ssend-p16-c2-k2-m1000" \
      --traces "$traces/shift1d-ssend-p8-k2-m1000")
check tradeoff-replay-text-k2 has "$out" "replayed     at k=2, Team Shift with c=2: 18.05us against Shift's 23.05us (speed-up 1.277); closed form on the same runs: the same answer"
out=$("$retime" predict tradeoff --dims 1 --k 1 --m1 1000 "${H[@]}" --traces "$ts/teamshift1d-ssend-p16-c2-k2-m1000")
check tradeoff-replay-no-shift has "$out" "no Shift run at k=1 among the traces"
check tradeoff-replay-none fails_with "--traces: no 1D ssend run with m1=1000B among them (1 skipped" "$retime" predict tradeoff \
  --k 1 --m1 1000 "${H[@]}" --traces "$traces/shift3d-ssend-p64-k1-m1000"
check tradeoff-replay-not-runs fails_with "neither a shift benchmark run" "$retime" predict tradeoff --k 1 --m1 1000 "${H[@]}" --traces "$work"
mkdir -p "$work/badrun" && cp -r "$traces/shift1d-ssend-p8-k1-m1000/." "$work/badrun/" && echo "shift 1000" >"$work/badrun/shift.txt"
check tradeoff-replay-bad-header fails_with "$work/badrun/shift.txt: line 1 is not the shift benchmark's header" "$retime" \
  predict tradeoff --k 1 --m1 1000 "${H[@]}" --traces "$work/badrun"

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
one=$("$retime" replay "$T1" --alpha 1us --beta 0.38ns/B --compute-scale 1 --format csv | grep '^window' | cut -d, -f5)
check sweep-equals-replay same "$(sed -n 9p <<<"$j1" | cut -d, -f5)" "$one"
sj=$("$retime" sweep "$T1" --model logp --params "$work/p.txt" --L 1us,2us --compute-scale 0 --format json)
check sweep-json has "$sj" '"varied": ["L_ns", "compute_scale"]'
check sweep-bad-list fails_with "--alpha: bad duration '3'" "$retime" sweep "$T1" --alpha 1us,3 --beta 1ns/B
check sweep-twice fails_with "given twice" "$retime" sweep "$T1" --alpha 1us --alpha 2us --beta 1ns/B
# text speed-ups in 4 decimals, as the Monte Carlo's slowdown (issue #32 item 4: "1" beside "1.81")
st=$("$retime" sweep "$T1" --alpha 2.122us,1us --beta 0.7595ns/B --compute-scale 0 --region shift_iteration)
check sweep-text-speedup-first has "$st" "     0      2.122us   0.7595ns/B            0        240.6us   1.0000          11.53us   1.0000"
check sweep-text-speedup-decimals has "$st" "        132.9us   1.8104          7.038us   1.6377"

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

# Collective rule sets (issue #31): info lists the plans; the three sets differ on a 64 KiB bcast
C=$traces/collbench/collbench-p16-m65536
out=$("$retime" info "$C" --collectives --coll-algos mpich)
check coll-info-mpich has "$out" 'bcast              16      64KiB       1MiB         12  scatter-recdbl'
out=$("$retime" info "$C" --collectives --coll-algos openmpi --format json)
check coll-info-openmpi has "$out" '{"operation": "bcast", "ranks": 16, "block_bytes": 65536, "total_bytes": 1048576, "instances": 12, "algorithm": "binomial", "segment_bytes": 0, "fanout": 1}'
out=$("$retime" info "$C" --coll bcast=knomial)
check coll-info-override has "$out" 'bcast              16      64KiB       1MiB         12  knomial'
r0=$("$retime" replay "$C" "${H[@]}" --format json)
r1=$("$retime" replay "$C" "${H[@]}" --coll-algos retime --format json)
r2=$("$retime" replay "$C" "${H[@]}" --coll-algos mpich --format json)
check coll-retime-is-default same "$r0" "$r1"
check coll-mpich-differs differ "$(grep -o '"predicted_ns": [0-9.]*' <<<"$r0")" "$(grep -o '"predicted_ns": [0-9.]*' <<<"$r2")"
check coll-mpich-reported has "$r2" '"coll_algos": "mpich"'
printf 'bcast * * ring\n' >"$work/bad-rules.txt"
check coll-rules-bad fails_with "--coll-algos: $work/bad-rules.txt:1: algorithm 'ring' does not apply to bcast" \
    "$retime" replay "$C" "${H[@]}" --coll-algos "$work/bad-rules.txt"
check coll-rules-missing fails_with "--coll-algos: $work/none.txt: cannot open collective rules" \
    "$retime" replay "$C" "${H[@]}" --coll-algos "$work/none.txt"
printf 'bcast * * pipeline seg=8KiB\n' >"$work/rules.txt"
r3=$("$retime" replay "$C" "${H[@]}" --coll-algos "$work/rules.txt" --format json)
check coll-rules-file-used has "$r3" "\"coll_algos\": \"$work/rules.txt\""

# The measured window (issue #32): halving alpha moves the headline (MPI_Init's end to
# MPI_Finalize's start) by 18 %, where the whole run, mostly MPI_Init, hardly moves
w=$("$retime" sweep "$T1" --alpha 2.122us,1.061us --beta 0.7595ns/B --format csv | sed -n 3p | cut -d, -f5)
a=$("$retime" sweep "$T1" --alpha 2.122us,1.061us --beta 0.7595ns/B --window all --format csv | sed -n 3p | cut -d, -f5)
check window-moves-headline holds '$1 > 1.15 && $2 < 1.001' "$w" "$a"
out=$("$retime" replay "$T1" "${H[@]}")
check window-text has "$out" "window      MPI_Init's end to MPI_Finalize's start (--window mpi; --window all for the whole run)"
check window-whole-run-line has "$out" "whole run   measured 361.9ms, predicted 360.2ms"
out=$("$retime" replay "$T1" "${H[@]}" --window region:shift_iteration#1-2 --format json)
check window-region-json has "$out" '"window": {"spec": "region:shift_iteration#1-2", "text": "region shift_iteration #1-2", "ranks": 8,'
# the window's instances are the region table's, counted from 0 (issue #44): the window of one
# instance K measures exactly the table's row K (its measured_max: the same ranks' span)
rows=$("$retime" replay "$T1" "${H[@]}" --region shift_iteration --format json)
for k in 0 1 3; do
  wk=$("$retime" replay "$T1" "${H[@]}" --window region:shift_iteration#$k --format json |
       python3 -c 'import json, sys; print(json.load(sys.stdin)["window"]["measured_ns"])' 2>&1)
  rk=$(python3 -c 'import json, sys; print(int(json.load(sys.stdin)["region"]["instances"]['$k']["measured_max_ns"]))' <<<"$rows" 2>&1)
  check window-instance-$k-is-row-$k [ "$wk" = "$rk" ]
done
check window-instance-0 has "$("$retime" replay "$T1" "${H[@]}" --window region:shift_iteration#0 2>&1)" "region shift_iteration #0-0"
check window-no-such-instance fails_with "no rank has instance 10 of region 'shift_iteration' (counted from 0)" "$retime" replay "$T1" "${H[@]}" --window region:shift_iteration#10
out=$("$retime" replay "$T1" "${H[@]}" --window time:355ms-362ms)
check window-time has "$out" 'window      time 355ms-362ms'
check window-bad-region fails_with "window 'region:nosuch': no region 'nosuch' (regions: " "$retime" replay "$T1" "${H[@]}" --window region:nosuch
check window-bad-spec fails_with "--window: unknown window 'first' (all, mpi, region:NAME[#FROM-TO] or time:T1-T2)" "$retime" replay "$T1" "${H[@]}" --window first
check window-bad-range fails_with "bad instance range (FROM-TO, FROM <= TO)" "$retime" replay "$T1" "${H[@]}" --window region:shift_iteration#3-2

quiet_ok() { "$@" >/dev/null 2>&1; }
# Work estimated before any run (issues #32 and #34): an overloaded --perturb warns and stops
# within a second, detours every nanosecond are refused before it starts; --max-work sets the bound
P=(--topology torus:4x4x2 --perturb ratio=0.75,pattern=random-permutation,size=1MiB,interval=10us)
# (timeout 60: a hang detector; the stop itself takes well under a second of CPU)
err=$( { timeout 60 "$retime" replay "$T1" --alpha 2us --beta 0.1ns/B "${P[@]}" --runs 100 >/dev/null; } 2>&1); rc=$?
check work-perturb-refused holds '$1 == 1' "$rc"
check work-perturb-overload-warned has "$err" "warning: --perturb: each perturbing node offers 10.5x what its NIC link carries"
# (past the mark of 8 per node, 1200 here, the pile grew to 4x without falling back: 10.5x overload)
check work-perturb-stopped has "$err" "--perturb: 4800 background messages on the wire at once at predicted time 2ms: the other jobs offer more than the links carry"
check work-perturb-estimate fails_with "(200 replay(s) of 2048 trace events, 868492 background messages, over 3.93e+06 links of routes and 0 OS detours each over the trace's 361.9ms): more than --max-work 1e+08" \
    "$retime" replay "$T1" --alpha 2us --beta 0.1ns/B --topology torus:4x4x2 \
    --perturb ratio=0.75,pattern=random-permutation,size=1KiB,interval=10us --runs 200 --max-work 1e8
check work-os-noise-refused fails_with "2.89e+09 OS detours each over the trace's 361.9ms): more than --max-work 2e+09" \
    "$retime" replay "$T1" "${H[@]}" --os-noise periodic:period=1ns,duration=0.5ns
# the chains' changes of state are work too (issue #47 item 1): bursts of 0.1 ns on 361.9 ms,
# 2 x 1/0.1ns x 1/2 x 361.9e6 ns = 3.62e9 changes, refused at once (they ran out of memory after
# 25 s); ipp sources that switch every us and send at 1e-300/us run as far as the replay (they
# walked to a 46-day horizon: a hang), and chains of 1e308/us are refused (an infinite estimate)
check work-burst-switches fails_with "about 3.62e+09 events of work (1 replay(s) of 2048 trace events, 0 background messages, 3.62e+09 burst or ipp state changes and 0 OS detours each over the trace's 361.9ms)" \
    "$retime" replay "$T1" --alpha 2us --beta 0.1ns/B --net-burst mmpp:on=0.1ns,off=0.1ns,latency=2,bandwidth=0.5
# a switch every ns (3.6e8 changes, under the bound) in 400 MB of address space: a chain keeps a
# mark per 64 switches, not each switch (it took 2.7 GB, 8 B each; not under the sanitizers, which
# reserve terabytes of address space)
if [ -z "${RT_ASAN:-}" ]; then
  check burst-chain-memory quiet_ok bash -c 'ulimit -v 400000; exec "$0" replay "$1" --alpha 2us --beta 0.1ns/B --net-burst mmpp:on=1ns,off=1ns,latency=2,bandwidth=0.5' \
    "$retime" "$T1"
fi
check work-ipp-rare-sender quiet_ok timeout 60 "$retime" replay "$T1" --alpha 2us --beta 0.1ns/B --topology torus:4x4x2 \
    --perturb ratio=0.5,pattern=ipp,size=4KiB,rate=1e-300/us,sigma1=1/us,sigma2=1/us
check work-ipp-infinite fails_with "about inf events of work" timeout 60 "$retime" replay "$T1" --alpha 2us --beta 0.1ns/B \
    --topology torus:4x4x2 --perturb ratio=0.5,pattern=ipp,size=4KiB,rate=1/us,sigma1=1e308/us,sigma2=1e308/us
check work-runs-multiply fails_with "(100 replay(s) of 2048 trace events, 0 background messages and 2.89e+07 OS detours" \
    "$retime" replay "$T1" "${H[@]}" --os-noise periodic:period=100ns,duration=10ns --runs 100
check work-raised quiet_ok "$retime" replay "$T1" "${H[@]}" --os-noise periodic:period=100ns,duration=10ns --max-work 1e8
check work-bad fails_with "bad --max-work '0' (a number of events from 1 to 1e18, e.g. 5e9)" "$retime" replay "$T1" "${H[@]}" --max-work 0

# Frictions of a new user's first hour (issue #32 item 4), each failing before its change
out=$("$retime" info "$T1")
# only the regions a rank enters (issue #44): not the call-site functions main, hop_ssend, shift_dim
check info-region-names has "$out" 'regions        shift_warmup, shift_iteration, shift_dim_x (3 entered besides MPI calls; 48 regions defined)'
# a region that is defined but never entered has no instance: an error naming the ones that do
check region-no-instance fails_with "no instance of region 'hop_ssend' in this trace (regions: shift_warmup, shift_iteration, shift_dim_x (3 entered" \
    "$retime" replay "$T1" "${H[@]}" --region hop_ssend
check region-no-instance-sweep fails_with "no instance of region 'hop_ssend'" "$retime" sweep "$T1" --alpha 1us,2us --beta 0.7595ns/B --region hop_ssend
check info-region-list-json has "$("$retime" info "$T1" --format json)" '"region_list": [{"name": "MPI_Init", "mpi": true}'
check region-unknown-lists fails_with "no region named 'nosuch' in this trace (regions: shift_warmup, shift_iteration" \
    "$retime" replay "$T1" "${H[@]}" --region nosuch
# a 10 kB name is cut at 80 characters in the one error line (#47), in sweep as in replay
long=$(printf 'x%.0s' $(seq 10000))
for c in replay sweep; do
  err=$("$retime" $c "$T1" "${H[@]}" --region "$long" 2>&1 >/dev/null)
  check region-long-name-$c holds '$1 == 1 && $2 < 400' "$(grep -c . <<<"$err")" "${#err}"
  check region-long-name-$c-cut has "$err" "no region named '$(printf 'x%.0s' $(seq 80))...' in this trace"
done
check alpha-zero-no-unit quiet_ok "$retime" replay "$T1" --alpha 0 --beta 0.7595ns/B
usage2() { "$@" >/dev/null 2>&1; [ $? -eq 2 ]; }
check usage-unknown-option-exit-2 usage2 "$retime" replay "$T1" "${H[@]}" --bogus
check usage-bad-format-exit-2 usage2 "$retime" replay "$T1" "${H[@]}" --format yaml
check usage-missing-against-exit-2 usage2 "$retime" analyze "$T1" "${H[@]}"
check usage-sweep-exit-2 usage2 "$retime" sweep "$T1" --alpha 1us,2us --beta 1ns/B --bogus
out=$("$retime" replay "$T1" "${H[@]}" --os-noise periodic:period=10us,duration=1us,ranks=5)
check noise-load-of-its-rank has "$out" "(10% of rank 5's CPU)"
out=$("$retime" analyze "$T1" "${H[@]}" --against measured)
check clock-violations-hint has "$out" "--fix-clocks corrects them"
out=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 --region shift_iteration)
check region-rows-auto-units has "$out" "     0      8          107.2us          154.1us          11.53us          11.53us"
check region-summary-total has "$out" "        total          810.9us           1.22ms          115.3us          115.3us"
# Lists of mappings and topologies (issue #32 item 4: "--mapping block,random:1" said "unknown
# mapping"): sweep splits a --mapping list as it does a parameter's, unless a file: mapping is in
# it (its PATH may hold commas: refused with the hint to repeat the option; file:PATH alone is
# whole); a topology spec holds commas itself, so a list of topologies is refused with the hint;
# replay, which takes one of each, says so and points to sweep.
SW=(--alpha 1us,2us --beta 1ns/B --topology torus:2x2x2 --format csv)
l1=$("$retime" sweep "$T1" "${SW[@]}" --mapping block,random:1)
l2=$("$retime" sweep "$T1" "${SW[@]}" --mapping block --mapping random:1)
check mapping-list-as-repeated same "$l1" "$l2"
check mapping-list-rows same "$(grep -c '^[0-9]' <<<"$l1")" 4
for r in $(seq 0 7); do echo "$r $r"; done >"$work/map,8.txt"
check mapping-file-with-comma-whole quiet_ok "$retime" sweep "$T1" "${SW[@]}" --mapping "file:$work/map,8.txt"
check mapping-list-with-file fails_with "--mapping 'block,file:$work/map,8.txt': a file: mapping's PATH may hold commas, so this list is not split: give each mapping its own --mapping (--mapping block --mapping file:PATH)" \
    "$retime" sweep "$T1" "${SW[@]}" --mapping "block,file:$work/map,8.txt"
check mapping-list-empty fails_with "--mapping 'block,': an empty mapping in the list" "$retime" sweep "$T1" "${SW[@]}" --mapping block,
check topology-list-refused fails_with "--topology 'torus:2x2x2,mesh:2x4': a topology spec holds commas itself (torus:4x4x4,adaptive), so a list is not split: give each topology its own --topology (--topology torus:2x2x2 --topology mesh:2x4)" \
    "$retime" sweep "$T1" --alpha 1us,2us --beta 1ns/B --topology torus:2x2x2,mesh:2x4
check topology-own-commas-kept quiet_ok "$retime" sweep "$T1" --alpha 1us,2us --beta 1ns/B --topology torus:2x2x2,adaptive --topology dragonfly:2,2,2,1
check replay-mapping-list fails_with "--mapping 'block,random:1': one mapping per replay; retime sweep compares several (--mapping block,random:1)" \
    "$retime" replay "$T1" "${H[@]}" --topology torus:2x2x2 --mapping block,random:1
check replay-topology-list fails_with "--topology 'torus:2x2x2,mesh:2x4': one topology per replay; retime sweep compares several (--topology torus:2x2x2 --topology mesh:2x4)" \
    "$retime" replay "$T1" "${H[@]}" --topology torus:2x2x2,mesh:2x4
check replay-mapping-file-comma quiet_ok "$retime" replay "$T1" "${H[@]}" --topology torus:2x2x2 --mapping "file:$work/map,8.txt"

# Link and congestion tables on a network (issue #32 item 4): each column's last K values end
# where a word of the header ends (the header lined up with its columns), and "most at once" is
# explained. aligned K: stdin holds the header line, then rows.
aligned() { awk -v k="$1" '
  function ends(s, e,   i, n, c, d) { n = 0; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1); d = substr(s, i + 1, 1)
    if (c != " " && (d == " " || d == "")) e[++n] = i }; return n }
  NR == 1 { nh = ends($0, he); for (i = 1; i <= nh; i++) hend[he[i]] = 1; next }
  { n = ends($0, re); for (i = n - k + 1; i <= n; i++) if (!(re[i] in hend)) { if (!bad++) print "  column ending at " re[i] " of: " $0 } }
  END { exit bad > 0 || NR < 2 }'; }
NT=(--alpha 1us --beta 0.1ns/B --topology torus:2x2 --ranks-per-node 2 --link-bw 1GB/s)
out=$("$retime" replay "$traces/shift1d-ssend-p8-k2-m100000" "${NT[@]}")
check links-table-aligned aligned 4 <<<"$(sed -n '/^  top [0-9]* links by contention/,/^$/p' <<<"$out" | grep -v '^  (' | grep .)"
check links-most-at-once-explained has "$out" "most at once: the most messages that shared the link at one time"
out=$("$retime" analyze "$traces/shift1d-ssend-p8-k2-m100000" "${NT[@]}" --against crossbar)
check congestion-kinds-aligned aligned 3 <<<"$(sed -n '/^  by kind of link/,/^  top/p' <<<"$out" | sed '$d')"
check congestion-links-aligned aligned 3 <<<"$(sed -n '/^  top [0-9]* links  /,/^$/p' <<<"$out" | grep -v '^  (' | grep .)"

# The README keeps the set-up, the synopsis and pointers (issue #32 item 4: "Tracing a program"
# sat at line 690 of 925): short, its two set-up commands as they were (.ci/run runs the second),
# the reference in docs/, and every relative link of the README and docs/ into the checkout leads
# to a file
root=$traces/..
check readme-short holds '$1 <= 200' "$(wc -l <"$root/README.md")"
check readme-setup-commands same "$(grep -x '\./scripts/run-[a-z]*\.sh' "$root/README.md")" $'./scripts/run-example.sh\n./scripts/run-tests.sh'
check readme-tracing-in-docs same "$(grep -c '^## Tracing a program' "$root/README.md" "$root/docs/tracing.md" | tr '\n' ' ')" \
    "$root/README.md:0 $root/docs/tracing.md:1 "
check docs-links-resolve python3 - "$root" <<'PY'
import glob, os, re, sys
root, bad = sys.argv[1], []
for f in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    fence = False
    for n, line in enumerate(open(f, encoding="utf-8"), 1):
        fence ^= line.startswith("```")
        for t in [] if fence else re.findall(r"\]\(([^)\s]+)\)", line):
            path = os.path.normpath(os.path.join(os.path.dirname(f), t.split("#")[0]))
            inside = not os.path.relpath(path, root).startswith("..")  # ../shared beside the checkout may be absent
            if inside and t.split("#")[0] and not re.match(r"(https?|mailto):", t) and not os.path.exists(path):
                bad.append("%s:%d: %s" % (os.path.relpath(f, root), n, t))
print("\n".join("  broken link " + b for b in bad))
sys.exit(1 if bad else 0)
PY

# retime calibrate (issue #36): what a trace cannot determine is said, and no file is written
out=$("$retime" calibrate "$traces/shift1d-ssend-p8-k2-m100000")
check calibrate-rendezvous-one-size has "$out" "one message size only (100000 B): beta cannot be determined, nor alpha (no 0-byte messages)"
check calibrate-no-eager has "$out" "check       none: the eager or rendezvous messages do not determine alpha and beta"
check calibrate-no-file fails_with "$work/calib.txt: not written: 0 samples: at least 3 are needed" \
    "$retime" calibrate "$traces/shift1d-ssend-p8-k2-m100000" --output "$work/calib.txt"
check calibrate-no-file-left [ ! -e "$work/calib.txt" ]
check calibrate-bad-cut fails_with "bad --cut-coef '0.5'" "$retime" calibrate "$T1" --cut-coef 0.5
# several traces pooled (one size each): the rendezvous fit, a file --params reads, LogP-lite said
out=$("$retime" calibrate "$traces/shift1d-ssend-p8-k2-m1000" "$traces/shift1d-ssend-p8-k2-m100000" --output "$work/calib2.txt")
check calibrate-pooled-sizes has "$out" "rendezvous  597 samples of 2 sizes"
check calibrate-pooled-check has "$out" "check       a replay under the rendezvous alpha and beta:"
check calibrate-logp-said has "$out" "L   not determined: L is alpha - o_s - o_r and the eager alpha is not"
check calibrate-file-beta-table grep -q "^beta@100000B = " "$work/calib2.txt"
check calibrate-file-replays "$retime" replay "$T1" --params "$work/calib2.txt" --beta-table
check calibrate-bad-fit fails_with "bad --fit 'x' (auto, eager or rendezvous" "$retime" calibrate "$T1" --fit x

checks_done
