#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The vector and prefix collectives through the tracer: every one vcoll_test calls (MPI_Gatherv,
# MPI_Scatterv, MPI_Allgatherv, MPI_Alltoallv, MPI_Alltoallw, MPI_Reduce_scatter,
# MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan, with counts that differ from rank to rank, and in
# place where MPI allows it) is recorded blocking as an MpiCollectiveEnd and as its MPI_I twin as a
# NonBlockingCollectiveComplete, each with the operation, root and byte counts derived here by hand
# from the list in vcoll_test.c the way Score-P counts them (scorep_mpi_coll_bytes_*); the program's
# results stay right; and retime replays them: info counts them with no "not replayed" line, its
# census takes the vector ones as vector collectives, and the replay runs on the model's crossbar,
# crossbar-flow and a torus.
# usage: vcoll.sh MPIRUN_SH NP TRACE_LIB OTF2_PRINT RETIME PROGRAM
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=coll_lib.sh
. "$(dirname "$0")/coll_lib.sh"
coll_setup "$@"

# Rank r's records of one round, as coll_records lists them (all on MPI_COMM_WORLD; root: its rank,
# NONE for the rootless), in vcoll_test.c's order; $2 is "" for the blocking round and "I" for the
# non-blocking one (MPI_I<lowercased name>, completed by one MPI_Waitall).
round() {
  local r=$1 i=$2 L=$((P - 1)) s=$((1 % P)) T
  call() { # NAME OPERATION ROOT SENT RECEIVED
    local c="MPI_$1"
    [ -z "$i" ] || c="MPI_I${1,} MPI_Waitall"
    echo "$r $c $2 MPI_COMM_WORLD $3 $4 $5"
  }
  # 1: i + 1 MPI_INT gathered by the last rank (its own block, P ints, sent to itself)
  if [ "$r" -eq "$L" ]; then call Gatherv GATHERV $L $((4 * P)) $((4 * P * (P + 1) / 2))
  else call Gatherv GATHERV $L $((4 * (r + 1))) 0; fi
  # 2: 2i + 1 MPI_DOUBLE gathered by rank 0 in place (the others' sum P^2 - 1)
  if [ "$r" -eq 0 ]; then call Gatherv GATHERV 0 0 $((8 * (P * P - 1)))
  else call Gatherv GATHERV 0 $((8 * (2 * r + 1))) 0; fi
  # 3: P - i MPI_SHORT scattered by rank 1 % P (all P(P+1)/2 sent, its own among them)
  if [ "$r" -eq "$s" ]; then call Scatterv SCATTERV $s $((P * (P + 1))) $((2 * (P - r)))
  else call Scatterv SCATTERV $s 0 $((2 * (P - r))); fi
  # 4: i + 2 MPI_INT scattered by rank 0 in place (ranks 1..P-1: P(P-1)/2 + 2(P-1))
  if [ "$r" -eq 0 ]; then call Scatterv SCATTERV 0 $((4 * (P * (P - 1) / 2 + 2 * (P - 1)))) 0
  else call Scatterv SCATTERV 0 0 $((4 * (r + 2))); fi
  # 5: i + 1 MPI_DOUBLE allgathered; 6: 2i + 1 MPI_INT allgathered in place
  call Allgatherv ALLGATHERV NONE $((8 * P * (r + 1))) $((8 * P * (P + 1) / 2))
  call Allgatherv ALLGATHERV NONE $((4 * (P - 1) * (2 * r + 1))) $((4 * (P * P - 2 * r - 1)))
  # 7: i + 2j + 1 MPI_INT from i to j; 8: i + j + 1 MPI_INT both ways, in place
  call Alltoallv ALLTOALLV NONE $((4 * (P * (r + 1) + P * (P - 1)))) $((4 * (P * (2 * r + 1) + P * (P - 1) / 2)))
  local x=$((4 * (P * (r + 1) + P * (P - 1) / 2 - 2 * r - 1)))
  call Alltoallv ALLTOALLV NONE $x $x
  # 9: i + 1 of T(i) (8 B for odd i, else 2 B) from i to each rank
  local w=0 j
  for ((j = 0; j < P; j++)); do w=$((w + (j + 1) * (j % 2 ? 8 : 2))); done
  T=$((r % 2 ? 8 : 2))
  call Alltoallw ALLTOALLW NONE $((P * (r + 1) * T)) $w
  # 10: i + 1 MPI_INT to rank i (the whole P(P+1)/2 sent); 11: P - i MPI_INT, in place
  call Reduce_scatter REDUCE_SCATTER NONE $((2 * P * (P + 1))) $((4 * P * (r + 1)))
  call Reduce_scatter REDUCE_SCATTER NONE $((4 * (P * (P + 1) / 2 - P + r))) $((4 * (P - 1) * (P - r)))
  # 12: 3 MPI_INT per rank; 13: 2 MPI_DOUBLE per rank, in place
  call Reduce_scatter_block REDUCE_SCATTER_BLOCK NONE $((12 * P)) $((12 * P))
  call Reduce_scatter_block REDUCE_SCATTER_BLOCK NONE $((16 * (P - 1))) $((16 * (P - 1)))
  # 14: 5 MPI_INT; 15: 2 MPI_DOUBLE in place; 16: 3 MPI_INT; 17: 1 MPI_LONG_LONG in place
  call Scan SCAN NONE $((20 * (P - r))) $((20 * (r + 1)))
  call Scan SCAN NONE $((16 * (P - r - 1))) $((16 * r))
  call Exscan EXSCAN NONE $((12 * (P - r - 1))) $((12 * r))
  call Exscan EXSCAN NONE $((8 * (P - r - 1))) $((8 * r))
}
expect() {
  local r
  for ((r = 0; r < P; r++)); do round "$r" ""; round "$r" I; done
}
coll_check 1
coll_info $((want + P)) $((want / 2))
# The replay's census, instances per operation: the vector ones (and both reduce-scatters, the
# block one included) as vector collectives "(v)", each item twice (blocking and non-blocking);
# the program's closing MPI_Allreduce is the only plain allreduce.
instances=$(sed -n '/^  operation /,$p' <<<"$info" | awk 'NR > 1 { n[$1] += $5 } END { for (o in n) print o, n[o] }' | sort)
expected_inst=$(printf '%s\n' "allgather(v) 4" "allreduce 1" "allreduce(v) 8" "alltoall(v) 6" "gather(v) 4" \
  "scan 8" "scatter(v) 4" | sort)
[ "$instances" = "$expected_inst" ] || {
  echo "FAIL: info's census, instances per operation (want, then info):"; echo "$expected_inst"; echo "$instances"
  echo "$info"; exit 1; }

inst=$((want / P + 1))
coll_replay "$retime" "$np" "$inst"
echo "PASS: $want vector and prefix collectives on $P ranks recorded with their hand-derived counts, counted and replayed"
