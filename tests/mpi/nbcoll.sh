#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Non-blocking collectives through the tracer (issue #30, item 1): every MPI_I<coll> nbcoll_test
# calls (MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce, MPI_Ibarrier, MPI_Igather, MPI_Iscatter,
# MPI_Iallgather, MPI_Ialltoall; two at once on MPI_COMM_SELF, which Open MPI gives one request) is
# recorded as Score-P records it (a NonBlockingCollectiveRequest in the MPI_I<coll> call, a
# NonBlockingCollectiveComplete in the MPI_Wait, MPI_Test, MPI_Testall or MPI_Waitall that completed
# it) with the operation, root and byte counts of its blocking twin, derived here by hand from the
# counts and types nbcoll_test.c lists; the program's results stay right; and retime replays them:
# info counts them as non-blocking collectives with no "not replayed" line, its census sees each
# operation with its block, the replay runs on the model's crossbar, crossbar-flow and a torus,
# and replay and analyze under mpirun print what one process prints.
# usage: nbcoll.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME PROGRAM
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=coll_lib.sh
. "$(dirname "$0")/coll_lib.sh"
coll_setup "$@"

# Every rank's non-blocking collectives in the order it completes them: "rank call completed-in
# operation communicator root sent received" (root: its rank in the communicator; "comm" is the
# communicator of the ranks of one parity). Byte counts as the blocking twins' (Score-P's
# scorep_mpi_coll_bytes_*): a rooted operation's root counts its own block unless in place.
expect() {
  local r q b=$((P > 1 ? 1 : 0)) s=$((1 % P)) l=$((P - 1))
  for ((r = 0; r < P; r++)); do
    q=$(((P - r % 2 + 1) / 2))
    echo "$r MPI_Iallreduce MPI_Wait ALLREDUCE MPI_COMM_WORLD NONE $((1000 * P)) $((1000 * P))" # 250 MPI_INT
    if [ "$r" -eq "$b" ]; then echo "$r MPI_Ibcast MPI_Test BCAST MPI_COMM_WORLD $b $((1000 * P)) 1000"
    else echo "$r MPI_Ibcast MPI_Test BCAST MPI_COMM_WORLD $b 0 1000"; fi
    if [ "$r" -eq 0 ]; then echo "$r MPI_Ireduce MPI_Waitall REDUCE MPI_COMM_WORLD 0 1000 $((1000 * P))"
    else echo "$r MPI_Ireduce MPI_Waitall REDUCE MPI_COMM_WORLD 0 1000 0"; fi
    echo "$r MPI_Ibarrier MPI_Waitall BARRIER MPI_COMM_WORLD NONE 0 0"
    for ((i = 0; i < 150; i++)); do echo "$r MPI_Iallreduce MPI_Waitall ALLREDUCE MPI_COMM_WORLD NONE $((4 * P)) $((4 * P))"; done
    # 1: 3 MPI_DOUBLE gathered by the last rank (24 B blocks, the root's own included)
    if [ "$r" -eq "$l" ]; then echo "$r MPI_Igather MPI_Wait GATHER MPI_COMM_WORLD $l 24 $((24 * P))"
    else echo "$r MPI_Igather MPI_Wait GATHER MPI_COMM_WORLD $l 24 0"; fi
    # 2: 5 MPI_INT gathered in place by rank 0 (20 B blocks, not the root's own)
    if [ "$r" -eq 0 ]; then echo "$r MPI_Igather MPI_Wait GATHER MPI_COMM_WORLD 0 0 $((20 * (P - 1)))"
    else echo "$r MPI_Igather MPI_Wait GATHER MPI_COMM_WORLD 0 20 0"; fi
    # 3: 7 MPI_SHORT scattered by rank 1 % P (14 B blocks)
    if [ "$r" -eq "$s" ]; then echo "$r MPI_Iscatter MPI_Testall SCATTER MPI_COMM_WORLD $s $((14 * P)) 14"
    else echo "$r MPI_Iscatter MPI_Testall SCATTER MPI_COMM_WORLD $s 0 14"; fi
    # 4: 2 MPI_LONG_LONG scattered in place by the last rank (16 B blocks, not the root's own)
    if [ "$r" -eq "$l" ]; then echo "$r MPI_Iscatter MPI_Testall SCATTER MPI_COMM_WORLD $l $((16 * (P - 1))) 0"
    else echo "$r MPI_Iscatter MPI_Testall SCATTER MPI_COMM_WORLD $l 0 16"; fi
    # 5: 2 MPI_DOUBLE allgathered; 6: 4 MPI_INT allgathered in place (16 B blocks both)
    echo "$r MPI_Iallgather MPI_Waitall ALLGATHER MPI_COMM_WORLD NONE $((16 * P)) $((16 * P))"
    echo "$r MPI_Iallgather MPI_Waitall ALLGATHER MPI_COMM_WORLD NONE $((16 * (P - 1))) $((16 * (P - 1)))"
    # 7: 1 contiguous type of 3 MPI_SHORT sent, 3 MPI_SHORT received per peer (6 B);
    # 8: 1 MPI_INT per peer among the q ranks of my parity
    echo "$r MPI_Ialltoall MPI_Waitall ALLTOALL MPI_COMM_WORLD NONE $((6 * P)) $((6 * P))"
    echo "$r MPI_Ialltoall MPI_Waitall ALLTOALL comm NONE $((4 * q)) $((4 * q))"
    # 9 and 10: 2 MPI_INT allreduced, 1 MPI_INT allgathered on MPI_COMM_SELF
    echo "$r MPI_Iallreduce MPI_Testall ALLREDUCE MPI_COMM_SELF NONE 8 8"
    echo "$r MPI_Iallgather MPI_Testall ALLGATHER MPI_COMM_SELF NONE 4 4"
  done
}
coll_check 0
coll_info $((want + np)) "$want"
# The replay's census: each operation with the block its members move and its instances (the
# 4 B allreduces include the program's closing MPI_Allreduce; a one-rank alltoall is not listed).
census=$(sed -n '/^  operation /,$p' <<<"$info" | awk 'NR > 1 { print $1, $2, $3, $4, $5 }')
{
  echo "barrier $P 0B 0B 1"
  echo "bcast $P 1000B $((1000 * P))B 1"
  echo "gather $P 20B $((20 * P))B 1"
  echo "gather $P 24B $((24 * P))B 1"
  echo "scatter $P 14B $((14 * P))B 1"
  echo "scatter $P 16B $((16 * P))B 1"
  # the in-place allgather's (P-1)·16 B would also read as P blocks of (P-1)·16/P B where P divides
  # it (Score-P's counts cannot tell them apart); retime-trace's retime::in_place says which
  # (issue #45): both allgathers move 16 B blocks
  echo "allgather $P 16B $((16 * P))B 2"
  [ "$P" -ge 4 ] && echo "alltoall $((P / 2)) 4B $((4 * (P / 2)))B 2"
  [ "$P" -eq 3 ] && echo "alltoall 2 4B 8B 1"
  echo "alltoall $P 6B $((6 * P))B 1"
  echo "reduce $P 1000B $((1000 * P))B 1"
  echo "allreduce $P 4B $((4 * P))B 151"
  echo "allreduce $P 1000B $((1000 * P))B 1"
} >"$tmp/census"
diff "$tmp/census" <(echo "$census") || { echo "FAIL: info's census (< expected, > info):"; echo "$info"; exit 1; }

# instances: every non-blocking one once per communicator (two parity ones, P self ones), and the
# program's closing MPI_Allreduce
inst=$((want / P + (P > 1 ? 1 : 0) + 2 * (P - 1) + 1))
coll_replay "$retime" "$np" "$inst"
# under mpirun (docs/distributed.md; issue #50, item 2): the distributed replay and analysis of the
# traced program print what one process prints, byte for byte, on 2 processes and on as many as ranks
for dnp in 2 "$P"; do
  for cmd in "replay --format json" "analyze --against measured --format json"; do
    # shellcheck disable=SC2086
    "$retime" $cmd "$tmp/trace" --alpha 2.122us --beta 0.76ns/B >"$tmp/one" 2>"$tmp/one.err" ||
      { echo "FAIL: $cmd (one process):"; cat "$tmp/one.err"; exit 1; }
    # shellcheck disable=SC2086
    "$1" -np "$dnp" "$retime" $cmd "$tmp/trace" --alpha 2.122us --beta 0.76ns/B >"$tmp/dist" 2>"$tmp/dist.err" ||
      { echo "FAIL: $cmd under mpirun -np $dnp:"; head -5 "$tmp/dist.err"; exit 1; }
    cmp -s "$tmp/one" "$tmp/dist" || { echo "FAIL: $cmd under mpirun -np $dnp differs:"; diff "$tmp/one" "$tmp/dist" | head; exit 1; }
  done
done
echo "PASS: $want non-blocking collectives on $P ranks recorded with their hand-derived counts, counted and replayed (also under mpirun -np 2 and $P, byte-identical)"
