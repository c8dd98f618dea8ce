#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What if the messages were bigger (issue #48, item 1): --scale-bytes in replay, sweep, analyze
# and check. The answer it must give is the replay of the same program traced with the bigger
# sizes: the stored Shift trace of 1000 B times 100 against the one of 100000 B, and random
# programs written twice by a second OTF2 writer (tests/ext/gen_scaled.py) with every count F
# times larger, under models and collective rules whose protocol and algorithm choices the new
# sizes cross.
set -u
retime=$1; traces=$2; work=$3
case $work in # it is cleared: only ever a directory of this test's own
  */scale) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../scale work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"
H=(--model hockney --alpha 2.122us --beta 0.7595ns/B)
S1=$traces/shift1d-ssend-p8-k2-m1000
json() { /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
predicted() { "$retime" replay "$@" --format json | json 'd["window"]["predicted_ns"]'; } # (MPI_Init to Finalize)

# --- the issue's case: shift_iteration of the 1000 B trace times 100 is that of the 100000 B
# trace (communication only; within 0.1 %, here to the ps: every count is 100 times larger)
region_mean='sum(i["predicted_mean_ns"] for i in d["region"]["instances"]) / len(d["region"]["instances"])'
a=$("$retime" replay "$S1" "${H[@]}" --compute-scale 0 --scale-bytes 100 --region shift_iteration --format json | json "$region_mean")
b=$("$retime" replay "$traces/shift1d-ssend-p8-k2-m100000" "${H[@]}" --compute-scale 0 --region shift_iteration --format json | json "$region_mean")
c=$("$retime" replay "$S1" "${H[@]}" --compute-scale 0 --region shift_iteration --format json | json "$region_mean")
echo "  shift_iteration: x100 $a ns, traced at 100000 B $b ns, as traced $c ns"
check shift-x100-is-m100000 holds '$1 > 0 && ($1 - $2 < $2 / 1000) && ($2 - $1 < $2 / 1000)' "$a" "$b"
check shift-x100-not-m1000 holds '$1 > 5 * $2' "$a" "$c"

# --- random programs, each written twice (every count F times the first's): the first replayed
# with --scale-bytes F gives the second's output, byte for byte, per rank; P up to 33, sizes at
# the eager limit, collectives whose algorithm changes with size (mpich, openmpi), a network
if ! /usr/bin/python3 -c 'import otf2' 2>/dev/null; then
  echo "FAIL python3-otf2 is missing (scripts/install-deps.sh installs it)"; exit 1
fi
/usr/bin/python3 "$(dirname "$0")/ext/gen_scaled.py" "$work" 48 10 || { echo "FAIL gen_scaled.py"; exit 1; }
models=("--model hockney --alpha 1us --beta 1ns/B --eager-limit 65536B"
        "--model logp --L 2us --o 100ns --g 50ns --G 0.5ns/B --eager-limit 4096B --coll-algos mpich"
        "--model hockney --alpha 1us --beta 1ns/B --coll-algos openmpi --topology torus:2x2x2 --ranks-per-node 5")
equal=0; pairs=0; moved=0
while read -r n F; do
  for M in "${models[@]}"; do
    # shellcheck disable=SC2086 # (a model's options, split)
    x=$("$retime" replay "$work/p$n-base" --scale-bytes "$F" $M --compute wall --format csv 2>&1)
    # shellcheck disable=SC2086
    y=$("$retime" replay "$work/p$n-big" $M --compute wall --format csv 2>&1)
    # shellcheck disable=SC2086
    z=$("$retime" replay "$work/p$n-base" $M --compute wall --format csv 2>&1)
    pairs=$((pairs+1))
    if same "$x" "$y"; then equal=$((equal+1)); else echo "  pair $n (F = $F) under $M differs:"; diff <(echo "$x") <(echo "$y") | head -4; fi
    differ "$x" "$z" && moved=$((moved+1))
  done
done <"$work/pairs.txt"
echo "  $equal of $pairs random pairs equal; $moved of them moved by the factor"
check random-pairs-equal holds '$1 == $2 && $2 == 30' "$equal" "$pairs"
check random-pairs-moved holds '$1 >= 25' "$moved"

# --- which rule applies: call site before communicator before the plain factor, later before
# earlier; every rule that covers all calls is the plain factor
p0=$(predicted "$S1" "${H[@]}")
p4=$(predicted "$S1" "${H[@]}" --scale-bytes 4)
check plain-moves differ "$p0" "$p4"
check comm-world-is-all same "$(predicted "$S1" "${H[@]}" --scale-bytes 4@comm:MPI_COMM_WORLD)" "$p4"
check every-site-is-all same "$(predicted "$S1" "${H[@]}" --scale-bytes 4@main,4@hop_ssend,4@shift_dim)" "$p4"
check every-file-is-all same "$(predicted "$S1" "${H[@]}" --scale-bytes 4@shift/shift.c)" "$p4"
check comm-before-plain same "$(predicted "$S1" "${H[@]}" --scale-bytes 4,1@comm:MPI_COMM_WORLD)" "$p0"
psite=$(predicted "$S1" "${H[@]}" --scale-bytes 4@shift_dim)
check site-before-comm same "$(predicted "$S1" "${H[@]}" --scale-bytes 4@shift_dim,1@comm:MPI_COMM_WORLD)" "$psite"
check later-before-earlier same "$(predicted "$S1" "${H[@]}" --scale-bytes 9@shift_dim,4@shift_dim)" "$psite"
check one-site-between holds '$1 > $2 && $1 < $3' "$psite" "$p0" "$p4"
pline=$(predicted "$S1" "${H[@]}" --scale-bytes 4@shift.c:328)
check file-line-between holds '$1 > $2 && $1 < $3' "$pline" "$p0" "$psite"
check factor-one-is-none same "$(predicted "$S1" "${H[@]}" --scale-bytes 1)" "$p0"
# rounding to the nearest byte (factors exact in binary): 1000 B x (1 + 2^-10) = 1000.977 B -> 1001 B,
# the same as x 1.001; x (1 + 2^-11) = 1000.488 B -> 1000 B, as traced
check above-half-up same "$(predicted "$S1" "${H[@]}" --scale-bytes 1.0009765625)" "$(predicted "$S1" "${H[@]}" --scale-bytes 1.001)"
check above-half-moves differ "$(predicted "$S1" "${H[@]}" --scale-bytes 1.0009765625)" "$p0"
check below-half-down same "$(predicted "$S1" "${H[@]}" --scale-bytes 1.00048828125)" "$p0"
# a fraction on a collective scales its block, not each count (rank 0's reduce receives 8 blocks)
check fraction-on-reduce [ -n "$(predicted "$traces/shift1d-isend-p8-k2-m1000" "${H[@]}" --scale-bytes 2.3)" ]

# --- the protocol follows the new size, at the eager limit: 1000 B x 65.536 = 65536 B is eager
# (a message of exactly the limit is), x 65.537 = 65537 B rendezvous
I=$traces/shift1d-isend-p8-k2-m1000
rdv() { "$retime" replay "$I" "${H[@]}" --eager-limit 65536B --scale-bytes "$1" --format json | json 'd["rendezvous"]'; }
check eager-at-limit same "$(rdv 65.536)" 0
check rendezvous-above-limit holds '$1 > 0' "$(rdv 65.537)"

# --- outputs carry it: the model line, JSON's scale_bytes, analyze's sizes, sweep's axis
out=$("$retime" replay "$S1" "${H[@]}" --scale-bytes 4@shift_dim)
check text-says has "$out" "scale-bytes=4@shift_dim"
check json-says same "$("$retime" replay "$S1" "${H[@]}" --scale-bytes 4@shift_dim --format json | json 'd["model"]["scale_bytes"]')" "4@shift_dim"
an=$("$retime" analyze "$S1" "${H[@]}" --against model --scale-bytes 100)
check analyze-sizes-scaled has "$an" "65536-131071 B"
an1=$("$retime" analyze "$S1" "${H[@]}" --against model)
check analyze-sizes-traced has "$an1" "512-1023 B"
sw=$("$retime" sweep "$S1" "${H[@]}" --scale-bytes 1,4,100 --format csv)
check sweep-axis-column has "$(head -1 <<<"$sw")" "scale_bytes"
check sweep-x4-is-replay holds '$1 == $2' "$(awk -F, 'NR == 3 {print $5}' <<<"$sw")" "$p4"
check sweep-x1-is-replay holds '$1 == $2' "$(awk -F, 'NR == 2 {print $5}' <<<"$sw")" "$p0"

# --- check records it, replays with it, and says when the command line's differs
mkdir -p "$work/ck" && cp -r "$S1" "$work/ck/"
( cd "$work/ck" && "$retime" check shift1d-ssend-p8-k2-m1000 --baseline b.json --update "${H[@]}" --scale-bytes 4@shift_dim >/dev/null )
check baseline-records same "$(json 'd["settings"]["scale_bytes"]' <"$work/ck/b.json")" "4@shift_dim"
ck=$(cd "$work/ck" && "$retime" check shift1d-ssend-p8-k2-m1000 --baseline b.json); rc=$?
check check-passes-with-it [ "$rc" -eq 0 ]
ck=$(cd "$work/ck" && "$retime" check shift1d-ssend-p8-k2-m1000 --baseline b.json "${H[@]}"); rc=$?
check check-says-settings has "$ck" "scale_bytes        4@shift_dim -> 1"
check check-fails-without [ "$rc" -ne 0 ]

# --- bad values: one line each
check bad-1 fails_with "not a number from 0 to 1e6" "$retime" replay "$S1" "${H[@]}" --scale-bytes -1
check bad-2 fails_with "not a number from 0 to 1e6" "$retime" replay "$S1" "${H[@]}" --scale-bytes 2e6
check bad-3 fails_with "needs a factor" "$retime" replay "$S1" "${H[@]}" --scale-bytes @shift_dim
check bad-4 fails_with "needs what it applies to" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4@
check bad-5 fails_with "a line number from 1" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4@shift.c:0
check bad-6 fails_with "an empty rule" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4,,2
check bad-7 fails_with "needs a communicator's name" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4@comm:
check bad-8 fails_with "function 'nope' is not in" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4@nope
check bad-9 fails_with "call site 'shift.c:9999' is not in" "$retime" replay "$S1" "${H[@]}" --scale-bytes 4@shift.c:9999
check bad-10 fails_with "communicator 'rows' is not in" "$retime" analyze "$S1" "${H[@]}" --against model --scale-bytes 4@comm:rows
check bad-11 fails_with "sweep varies one factor" "$retime" sweep "$S1" "${H[@]}" --scale-bytes 2@shift_dim
# a count past 4 TiB: 2^40 B times 8
/usr/bin/python3 "$(dirname "$0")/ext/gen_scaled.py" "$work/huge" huge || echo "FAIL writing the huge trace"
# a barrier moves no bytes: a member that never enters it is the deadlock it is, not a factor
# that differs (on a network every member's part starts alone)
/usr/bin/python3 "$(dirname "$0")/ext/gen_scaled.py" "$work/nobar" nobar || echo "FAIL writing the barrier trace"
check bad-12 fails_with "deadlock" "$retime" replay "$work/nobar" "${H[@]}" --topology torus:2x2x2 --scale-bytes 2
check bad-13 fails_with "rank 0 event 1 (MPI_Send): 1099511627776 bytes times 8 is more than the 4 TiB" \
  "$retime" replay "$work/huge" "${H[@]}" --scale-bytes 8
check huge-x2-fits [ -n "$(predicted "$work/huge" "${H[@]}" --scale-bytes 2)" ]
checks_done
