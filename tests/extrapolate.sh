#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# retime extrapolate (issue #48, item 2): a synthetic SPMD program written by a second OTF2 writer
# (tests/ext/gen_extrap.py, Debian's python3-otf2) at 4, 8 and 16 ranks, extrapolated to 32 and
# 64, replays exactly as the program written at 32 and 64 does: rank classes by parity and rank 0,
# ring offsets, 2D and 3D periodic grid neighbours whose +1 and -1 the small traces cannot tell
# apart, a strong-scaling halo of 2^20/P bytes and compute of 2^20/P ns, collectives whose recorded
# counts grow with P. Then what cannot be extrapolated: one line each.
set -u
retime=$1; work=$2
case $work in # it is cleared: only ever a directory of this test's own
  */extrapolate) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../extrapolate work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"
if ! /usr/bin/python3 -c 'import otf2' 2>/dev/null; then
  echo "FAIL python3-otf2 is missing (scripts/install-deps.sh installs it)"; exit 1
fi
gen() { /usr/bin/python3 "$(dirname "$0")/ext/gen_extrap.py" "$@" || echo "FAIL gen_extrap.py $*"; }
for P in 4 8 16 32 64; do gen "$work/p$P" "$P"; done

out=$("$retime" extrapolate "$work/p4" "$work/p16" "$work/p8" --ranks 64 --output "$work/x64"); rc=$?
check writes test "$rc" -eq 0 -a -e "$work/x64/traces.otf2"
check no-temporary-left test -z "$(find "$work" -maxdepth 1 -name '.x64.*')" # (written beside, then moved)
check classes has "$out" "classes     3: rank 0, odd ranks, the other even ranks"
check peers has "$out" "peers       24 ring offsets, 96 2D grid neighbours, 24 3D grid neighbours, 0 fixed ranks"
check sizes-scaled has "$out" "49 scaling with it"
"$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 32 --output "$work/x32" >/dev/null
js=$("$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 32 --output "$work/x32j" --format json)
check json-fit-exact holds '$1 < 1e-9' "$(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["fit_error_max"])' <<<"$js")"

# the call sites go with the calls (retime::callsite calling contexts, as retime-trace writes them)
sites() { "$retime" info "$1" | sed -n '/^call sites/,/^[a-z]/p' | grep -o 'step gen.c:[0-9]*' | sort -u; }
check call-sites-kept same "$(sites "$work/x64")" "$(sites "$work/p64")"
check call-sites-there holds '$1 >= 8' "$(sites "$work/x64" | wc -l)"

# the replays: every rank's measured and predicted end, communication only and with compute, under
# both models (the compute of 2^20/P ns per iteration is recovered as c*P^-1, exactly)
models=("--model hockney --alpha 1us --beta 1ns/B"
        "--model logp --L 2us --o 100ns --g 50ns --G 0.5ns/B --eager-limit 4096B --coll-algos mpich")
for P in 32 64; do
  for M in "${models[@]}"; do
    for cs in 0 1; do
      # shellcheck disable=SC2086 # (a model's options, split)
      a=$("$retime" replay "$work/x$P" $M --compute-scale $cs --format csv 2>&1)
      # shellcheck disable=SC2086
      b=$("$retime" replay "$work/p$P" $M --compute-scale $cs --format csv 2>&1)
      name=${M#--model }
      check "replay-x$P-${name%% *}-compute-scale$cs" same "$a" "$b"
    done
  done
done
check moved-with-P differ "$("$retime" replay "$work/x64" --alpha 1us --beta 1ns/B --format csv)" \
  "$("$retime" replay "$work/x32" --alpha 1us --beta 1ns/B --format csv)"
# weak scaling: the compute is taken as the same at every P, so 2^20/P ns is not recovered
"$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 64 --output "$work/w64" --scaling weak >/dev/null
check weak-keeps-compute differ "$("$retime" replay "$work/w64" --alpha 1us --beta 1ns/B --format csv)" \
  "$("$retime" replay "$work/p64" --alpha 1us --beta 1ns/B --format csv)"
predicted() { "$retime" replay "$@" --format csv | cut -d, -f1,2,5; } # (the measured times differ)
check weak-same-communication same "$(predicted "$work/w64" --alpha 1us --beta 1ns/B --compute-scale 0)" \
  "$(predicted "$work/p64" --alpha 1us --beta 1ns/B --compute-scale 0)"

# a loop whose iterations grow with P (1 + log2(P): 3, 4, 5 at 4, 8, 16 ranks; 6 and 7 written)
for P in 4 8 16 32 64; do gen "$work/l$P" "$P" log-iters; done
out=$("$retime" extrapolate "$work/l4" "$work/l8" "$work/l16" --ranks 64 --output "$work/lx64")
check loop-found has "$out" "loop        class 1: 48 events an iteration, 3, 4, 5 times at 4, 8, 16 ranks: 1 + 1 * log2(P)"
"$retime" extrapolate "$work/l4" "$work/l8" "$work/l16" --ranks 32 --output "$work/lx32" >/dev/null
for P in 32 64; do
  check "loop-replay-x$P" same "$("$retime" replay "$work/lx$P" --alpha 1us --beta 1ns/B --format csv 2>&1)" \
    "$("$retime" replay "$work/l$P" --alpha 1us --beta 1ns/B --format csv 2>&1)"
done

# communicators of a split: the 2D grid's rows and columns (an allreduce on the row, counted 64 B
# per member; an allgather on the column; a send to the row's next rank, a rank of the row)
for P in 4 8 16 64; do gen "$work/s$P" "$P" splits; done
out=$("$retime" extrapolate "$work/s4" "$work/s8" "$work/s16" --ranks 64 --output "$work/sx64")
check splits-found has "$out" "splits      36 sends and collectives on communicators of a split"
predicted() { "$retime" replay "$@" --format csv | cut -d, -f1,2,5; } # (measured times may differ by ns)
for cs in 0 1; do
  check "splits-replay-x64-compute-scale$cs" same "$(predicted "$work/sx64" --alpha 1us --beta 1ns/B --compute-scale $cs)" \
    "$(predicted "$work/s64" --alpha 1us --beta 1ns/B --compute-scale $cs)"
done

# rank 0's extra compute (a class of its own: not spread over the others, and no MPI_Comm_rank of
# theirs held up to rank 0's time), and two gaps between the same calls from different lines
for P in 4 8 16 64; do gen "$work/e$P" "$P" extra; done
out=$("$retime" extrapolate "$work/e4" "$work/e8" "$work/e16" --ranks 64 --output "$work/ex64")
check extra-rank0-own-class has "$out" "classes     3: rank 0, odd ranks, the other even ranks"
for cs in 0 1; do
  check "extra-replay-x64-compute-scale$cs" same "$(predicted "$work/ex64" --alpha 1us --beta 1ns/B --compute-scale $cs)" \
    "$(predicted "$work/e64" --alpha 1us --beta 1ns/B --compute-scale $cs)"
done

# refused, one line each
gen "$work/m8" 8 more-iters
for P in 4 8 16; do gen "$work/r$P" "$P" random-peer; done
check refused-1 fails_with "its loop of 48 events runs 4 times at 4 ranks, 5 times at 8 ranks, 4 times at 16 ranks: no c0" \
  "$retime" extrapolate "$work/p4" "$work/m8" "$work/p16" --ranks 64 --output "$work/no1"
check refused-2 fails_with "(MPI_Send at gen.c:101 in step): its peer, rank 3, fits no pattern" "$retime" extrapolate "$work/r4" "$work/r8" "$work/r16" --ranks 64 \
  --output "$work/no2"
check refused-3 fails_with "3 or more rank counts (2 given)" "$retime" extrapolate "$work/p4" "$work/p8" --ranks 64 --output "$work/no3"
check refused-4 fails_with "both have 8 ranks" "$retime" extrapolate "$work/p4" "$work/p8" "$work/p8" --ranks 64 --output "$work/no4"
check refused-5 fails_with "an odd rank count is not extrapolated" "$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 63 \
  --output "$work/no5"
check refused-6 fails_with "already exists" "$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 64 --output "$work/x64"
check refused-7 fails_with "needs --ranks P" "$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --output "$work/no6"
check refused-8 fails_with "bad --scaling 'linear'" "$retime" extrapolate "$work/p4" "$work/p8" "$work/p16" --ranks 64 --output "$work/no7" \
  --scaling linear
check nothing-left-behind test ! -e "$work/no1" -a ! -e "$work/no2" -a ! -e "$work/no5"
checks_done
