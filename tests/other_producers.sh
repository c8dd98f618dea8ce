#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Traces from other producers (issue 16): synthetic ones written by a second OTF2 writer, Debian's
# python3-otf2 (tests/ext/gen_traces.py: self communicators, a root recording one block, OpenMP
# thread teams, a CUDA stream, RMA and MPI on a worker thread, records the replay leaves out, a rank
# that wrote nothing), with answers worked out by hand
# below, and the real Score-P traces of ../shared/ext-traces when they are there.
set -u
retime=$1; work=$2; ext=${3:-}
case $work in # it is cleared: only ever a directory of this test's own
  */other-producers) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not an .../other-producers work directory)"; exit 1 ;;
esac
. "$(dirname "$0")/checks.sh"
if ! /usr/bin/python3 -c 'import otf2' 2>/dev/null; then
  echo "FAIL python3-otf2 is missing (scripts/install-deps.sh installs it)"; exit 1
fi
/usr/bin/python3 "$(dirname "$0")/ext/gen_traces.py" "$work" || { echo "FAIL gen_traces.py"; exit 1; }
H=(--alpha 1us --beta 1ns/B)
rank_end() { grep "^rank,$2," <<<"$1" | cut -d, -f5; } # predicted end of rank $2 in CSV $1

# --- self communicators: each rank's eight collectives on MPI_COMM_SELF (1000 ns of work before
# each, the calls cost nothing: the only member needs no message) are its own, then one 8-byte
# allreduce on MPI_COMM_WORLD. Rank r starts at 100r and enters the allreduce at 17000 + 100r
# measured, 13000 + 100r predicted (8 x 1000 of work, then 5000); recursive doubling takes
# log2(P) rounds of alpha + 8 B x beta = 1008 ns from the last entry, then 1000 ns to the end.
#   P = 2: 13100 + 1008 + 1000 = 15108;  P = 8: 13700 + 3 x 1008 + 1000 = 17724
for P in 2 8; do
  out=$("$retime" replay "$work/self-coll-p$P" "${H[@]}" --format csv 2>"$work/err"); rc=$?
  check "self-p$P-replays" [ "$rc" -eq 0 ]
  want=$([ "$P" -eq 2 ] && echo 15108 || echo 17724)
  for r in 0 $((P - 1)); do
    check "self-p$P-rank$r-end" same "$(rank_end "$out" $r)" "$want"
  done
  info=$("$retime" info "$work/self-coll-p$P" --format json)
  check "self-p$P-info-comms" has "$info" '"communicators": 2, "self_communicators": 1,'
  check "self-p$P-info-collectives" has "$info" "\"collectives\": $((9 * P))}"
done
out=$("$retime" replay "$work/self-coll-p3" "${H[@]}" 2>&1); rc=$?
check self-p3-replays [ "$rc" -eq 0 ]
# every kind of collective on the self communicators, under LogP-lite and with noise too
out=$("$retime" replay "$work/self-coll-p8" --model logp --L 1us --o 100ns --g 50ns --G 1ns/B \
      --net-noise exp:mean=100ns --os-noise periodic:period=10us,duration=1us --seed 3 2>&1); rc=$?
check self-p8-logp-noise [ "$rc" -eq 0 ]
out=$("$retime" analyze "$work/self-coll-p8" "${H[@]}" --os-noise periodic:period=10us,duration=1us \
      --against model 2>&1); rc=$?
check self-p8-analyze [ "$rc" -eq 0 ]

# --- one block at the root: bcast, reduce, gather, scatter of 1000 B on 4 ranks whose root
# records 1000 B as its total. Each is a binomial tree of 2 rounds of alpha + 1000 B x beta
# = 2000 ns: 4000 ns from its entry on the critical chain through the root, and every rank
# enters each call 5000 ns after leaving the previous one: 1000 + 4 x 4000 + 3 x 5000 of work,
# then 50000 - 36000 = 14000 to the end: 46000 ns on every rank.
out=$("$retime" replay "$work/rooted-one-block" "${H[@]}" --format csv 2>&1); rc=$?
check rooted-one-block-replays [ "$rc" -eq 0 ]
for r in 0 1 2 3; do check "rooted-one-block-rank$r" same "$(rank_end "$out" $r)" 46000; done
# a real mismatch names both ranks and both counts, and the block most ranks agree on
check rooted-mismatch fails_with "(bcast): rank 0 event 2 (MPI_Bcast) sends 1000 and receives 0 bytes (blocks of 1000 bytes) but rank 2 event 2 (MPI_Bcast) sends 0 and receives 999 bytes" \
  "$retime" replay "$work/rooted-mismatch" "${H[@]}"
err=$("$retime" replay "$work/rooted-mismatch" "${H[@]}" 2>&1)
check rooted-mismatch-no-empty-block bash -c '! grep -q "blocks of 0 bytes" <<<"$1"' _ "$err"

# --- hybrid MPI + OpenMP: 2 processes of 3 CPU threads, one thread team each, then rank 0
# sends 8 B to rank 1 (eager: under Hockney the blocking send stays in its call for the wire
# time, alpha + 8 B x beta = 1008 ns). Rank 0 forks at 1000; its own work ends at 3000, its
# threads' at 2000 and 4900 (all leave the barrier at 5000): the join is at
# fork + max(1000, 3900) = fork + 3900 x s. Rank 1 forks at 1000, works to 1500, its threads
# to 1900 and 1200: join at fork + 900 x s.
#  s = 1:   rank 0: join 4900, send at 5900, back at 6908, end 6908 + 900 = 7808.
#           rank 1: join 1900, recv posted 2400, message at 6908, end 6908 + 800 = 7708.
#  s = 0.5: rank 0: fork 500, join 500 + 1950 = 2450, send 2950, back 3958, end 3958 + 450 = 4408.
#           rank 1: fork 500, join 500 + 450 = 950, message at 3958, end 3958 + 400 = 4358.
T=$work/hybrid-omp-cuda
info=$("$retime" info "$T" --format json 2>&1)
check hybrid-info-ranks has "$info" '"ranks": 2,'
check hybrid-info-threads has "$info" '"threads": 4, "thread_records": 32, "thread_teams": 2,'
check hybrid-info-accel has "$info" '"accelerator_locations": 1, "accelerator_records": 6,'
check hybrid-info-rma has "$info" '"rma_records": 2,'
text=$("$retime" info "$T")
check hybrid-info-text-dropped has "$text" 'dropped        6 records on 1 accelerator location, 2 RMA records (not replayed)'
check hybrid-info-text-threads has "$text" 'threads        4 besides the ranks'"'"' own (32 records; 2 thread teams forked and joined)'
out=$("$retime" replay "$T" "${H[@]}" --format csv 2>"$work/err"); rc=$?
check hybrid-replays [ "$rc" -eq 0 ]
check hybrid-warning-one-line same "$(cat "$work/err")" \
  "retime: warning: $T/traces.otf2: dropped 6 records on 1 accelerator location, 2 RMA records (not replayed)"
check hybrid-s1-rank0 same "$(rank_end "$out" 0)" 7808
check hybrid-s1-rank1 same "$(rank_end "$out" 1)" 7708
out=$("$retime" replay "$T" "${H[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
check hybrid-s05-rank0 same "$(rank_end "$out" 0)" 4408
check hybrid-s05-rank1 same "$(rank_end "$out" 1)" 4358
# hybrid-zero-byte: a barrier on MPI_COMM_SELF costs nothing (100 ns less than measured, on both
# ranks) and 0 bytes after the joins take alpha alone on the wire (8 ns less than above): ends
# 7808 - 108 = 7700 and 7708 - 108 = 7600, whatever work the joins carry (a message sharing a
# join's payload would carry the join's work as its bytes)
out=$("$retime" replay "$work/hybrid-zero-byte" "${H[@]}" --format csv 2>/dev/null)
check hybrid-zero-byte-rank0 same "$(rank_end "$out" 0)" 7700
check hybrid-zero-byte-rank1 same "$(rank_end "$out" 1)" 7600
# --- two communicators (two-comms): rank 0's eager sends of 8 B stay in their calls for
# alpha + 8 B x beta = 1008 ns: 1000-2008, then 900 of work, 2908-3916, then 900: end 4816.
# Rank 1's receive on MPI_COMM_WORLD matches the second send (arrives 3916), 1000 of work, then
# the receive on "reversed" finds the first one there (arrived 2008): 4916, then 900: end 5816.
# A reader giving the second send the first's communicator leaves the world receive unmatched.
out=$("$retime" replay "$work/two-comms" "${H[@]}" --format csv 2>&1); rc=$?
check two-comms-replays [ "$rc" -eq 0 ]
check two-comms-rank0 same "$(rank_end "$out" 0)" 4816
check two-comms-rank1 same "$(rank_end "$out" 1)" 5816

# --- Score-P 8 and 9 (scorep8-init): MPI_Init, MPI_Comm_split and MPI_Finalize recorded as
# collectives of the handle operations (CREATE_HANDLE, DESTROY_HANDLE) keep their measured time as
# compute. With alpha = beta = 0 and compute scale 1, rank r: MPI_Init 10 .. 1000000 + 1000r kept;
# 100 us of work, the allreduce entered at 1100000 + 1000r ends at the last entry, 1103000, on
# every rank; 10 us of work, MPI_Comm_split 1113000 .. 1114000 + 100r (kept); 4000 - 100r of work,
# MPI_Finalize from 1118000 for its 50000 + 500r; main left 1000 later: 1169000 + 500r. The
# window (MPI_Init's end on every rank, 1003000, to MPI_Finalize's start) is 115000 predicted,
# 117000 measured. (As dissemination rounds of 0 cost, MPI_Init ended at 10: 115010 in all.)
Z=(--alpha 0 --beta 0ns/B)
out=$("$retime" replay "$work/scorep8-init" "${Z[@]}" --format csv 2>"$work/err"); rc=$?
check scorep8-replays [ "$rc" -eq 0 ]
for r in 0 1 2 3; do check "scorep8-rank$r-keeps-startup" same "$(rank_end "$out" $r)" $((1169000 + 500 * r)); done
check scorep8-window same "$(grep '^window,' <<<"$out")" "window,,,117000,115000,,"
check scorep8-note-one-line same "$(cat "$work/err")" \
  "retime: note: $work/scorep8-init/traces.otf2: 12 set-up collective records (MPI_Init, MPI_Finalize, communicator or window creation) kept as measured time, not timed by the model"
text=$("$retime" replay "$work/scorep8-init" "${Z[@]}" 2>/dev/null)
check scorep8-window-found has "$text" "MPI_Init's end to MPI_Finalize's start"
info=$("$retime" info "$work/scorep8-init" --format json)
check scorep8-info-counts has "$info" '"collectives": 4}'
check scorep8-info-measured has "$info" '"measured_collectives": 12, "unknown_collective_ops": 0,'
# at compute scale 0.5 the kept calls are halved as any compute: MPI_Init from 5 to 500000 + 500r,
# the allreduce entered at 550000 + 500r, everyone leaves it at 551500; then 5000 of work, the
# split's 500 + 50r, 2000 - 50r of work, MPI_Finalize's 25000 + 250r, 500: 584500 + 250r
out=$("$retime" replay "$work/scorep8-init" "${Z[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
for r in 0 3; do check "scorep8-half-rank$r" same "$(rank_end "$out" $r)" $((584500 + 250 * r)); done
# scorep8-unknown-op: MPI_Comm_split's operation is 23, which OTF2 3 does not define: one warning
# line, and it is timed as dissemination rounds (0 cost: everyone leaves at the last entry,
# 1113000), 4000 - 100r of work, MPI_Finalize's 50000 + 500r, 1000: 1168000 + 400r
out=$("$retime" replay "$work/scorep8-unknown-op" "${Z[@]}" --format csv 2>"$work/err")
for r in 0 3; do check "scorep8-unknown-op-rank$r" same "$(rank_end "$out" $r)" $((1168000 + 400 * r)); done
check scorep8-unknown-op-warning has "$(cat "$work/err")" \
  "retime: warning: $work/scorep8-unknown-op/traces.otf2: 4 collective records of an operation OTF2 3 does not define"

# against the measured run, a negative absorbed total says why
out=$("$retime" analyze "$T" "${H[@]}" --against measured 2>/dev/null); rc=$?
check hybrid-analyze [ "$rc" -eq 0 ]
check hybrid-analyze-negative-explained has "$out" 'negative: B was faster than A on some edges'
json=$("$retime" analyze "$T" "${H[@]}" --against measured --format json 2>/dev/null)
check hybrid-analyze-json-negative has "$json" '"injected_negative_ns": -'
# the predicted archive keeps the ranks' own threads and reads back
out=$("$retime" replay "$T" "${H[@]}" --output-trace "$work/hybrid-out" 2>/dev/null); rc=$?
check hybrid-output-trace [ "$rc" -eq 0 ]
check hybrid-output-trace-reads has "$("$retime" info "$work/hybrid-out" --format json)" '"ranks": 2,'

# --output-trace keeps the communicators as defined (comms-split-self, Score-P's layout): one
# COMM_SELF group that MPI_COMM_SELF and "alone" share, the duplicate sharing MPI_COMM_WORLD's
# group, the splits' parents; per communicator (ref, group ref, parent ref) as in the input, and
# otf2-print has no warning (it warned of a duplicate COMM_SELF group, and the parents were lost)
comm_refs() { otf2-print -G "$1/traces.otf2" 2>/dev/null | grep '^COMM ' |
  sed -E 's/^COMM +([0-9]+) .*Group: "[^"]*" <([0-9]+)>, Parent: ("[^"]*" <([0-9]+)>|UNDEFINED).*/\1 \2 \4/'; }
"$retime" replay "$work/comms-split-self" "${H[@]}" --output-trace "$work/comms-out" >/dev/null 2>&1; rc=$?
check comms-output-trace [ "$rc" -eq 0 ]
check comms-output-same-comms same "$(comm_refs "$work/comms-out")" "$(comm_refs "$work/comms-split-self")"
check comms-output-parents has "$(comm_refs "$work/comms-out" | tr '\n' ';')" "2 3 0;3 4 0;4 2 2;5 1 0;"
check comms-output-one-self-group same "$(otf2-print -G "$work/comms-out/traces.otf2" 2>/dev/null | grep -c 'Type: COMM_SELF')" 1
check comms-output-reads has "$("$retime" info "$work/comms-out" --format json)" '"communicators": 6, "self_communicators": 2,'
# and no archive written from a trace here or beside the checkout makes otf2-print warn
warned=
for d in "$work"/*/ ${ext:+"$ext"/*/}; do
  [ -f "$d/traces.otf2" ] || continue
  case $d in */comms-out/|*/hybrid-out/|*/written-*/) continue ;; esac
  o=$work/written-$(basename "$d")
  "$retime" replay "$d" "${H[@]}" --output-trace "$o" >/dev/null 2>&1 || continue # the refused ones
  w=$(otf2-print -G "$o/traces.otf2" 2>&1 >/dev/null | grep -i warn | head -1)
  [ -n "$w" ] && warned="$warned $(basename "$d"): $w;"
  rm -rf "$o"
done
check output-trace-no-otf2-print-warning same "${warned:-none}" none

# MPI on a worker thread: refused in one line naming the thread and its rank
check hybrid-mpi-on-thread fails_with "thread location 3 of rank 0: an MPI send on a thread other than the process's MPI thread" \
  "$retime" replay "$work/hybrid-mpi-on-thread" "${H[@]}"

# --- OpenMP only, one process of 10 threads: 1 rank, 9 threads. Two teams; thread t works
# (t + 1) x 500 ns from the fork, all leave the barrier at fork + 6000: the join is at
# fork + 5000 (thread 9), 1000 ns earlier than measured each time: 30000 - 2000 = 28000.
info=$("$retime" info "$work/openmp-only" --format json)
check openmp-ranks has "$info" '"ranks": 1,'
check openmp-threads has "$info" '"threads": 9,'
out=$("$retime" replay "$work/openmp-only" "${H[@]}" --format csv 2>/dev/null)
check openmp-end same "$(rank_end "$out" 0)" 28000
out=$("$retime" replay "$work/openmp-only" "${H[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
check openmp-end-half same "$(rank_end "$out" 0)" 14000

# the same with the OmpFork/OmpJoin records of older Score-P versions
out=$("$retime" replay "$work/openmp-only-legacy" "${H[@]}" --format csv 2>/dev/null)
check openmp-legacy-end same "$(rank_end "$out" 0)" 28000

# --- a worker whose first record of the team comes 3 us before the master's fork (omp-early-worker,
# one process of 3 threads): its work ends at 15000, 5000 after the fork at 10000, the latest of
# the team (worker 1: 2000; the master's own to 11000, then it waits in the barrier), with a
# nested team inside that counts as part of it. Join = max(11000, 10000 + 5000 s) at s = 1:
# 15000, then 4000 of work: 19000; s = 0.5: fork 5000, join 7500, end 9500. (Leaving out the
# early worker, the join came at fork + 2000: 16000 and 8000.)
out=$("$retime" replay "$work/omp-early-worker" "${Z[@]}" --format csv 2>/dev/null)
check omp-early-worker-joins same "$(rank_end "$out" 0)" 19000
out=$("$retime" replay "$work/omp-early-worker" "${Z[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
check omp-early-worker-joins-half same "$(rank_end "$out" 0)" 9500

# --- threads without MPI (threads-only, as APEX writes them): the process's MPI location holds no
# events, its first thread with events is the rank and the other its thread. Fork at 1000 (the
# parallel region), the rank's own work to 2000, its thread's to 4000: join at
# max(2000, 1000 + 3000 s); then 1000 to the end: 5000 at s = 1, 2500 at s = 0.5 (fork 500,
# join 2000). Before: "the trace holds no events".
out=$("$retime" replay "$work/threads-only" "${Z[@]}" --format csv 2>&1); rc=$?
check threads-only-replays [ "$rc" -eq 0 ]
check threads-only-end same "$(rank_end "$out" 0)" 5000
out=$("$retime" replay "$work/threads-only" "${Z[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
check threads-only-end-half same "$(rank_end "$out" 0)" 2500
text=$("$retime" info "$work/threads-only")
check threads-only-info-no-mpi has "$text" 'ranks          1 (processes; no MPI calls)'
check threads-only-info-threads has "$text" '(8 records; 1 thread teams forked and joined)'
"$retime" analyze "$work/threads-only" "${Z[@]}" --against measured >/dev/null 2>&1; rc=$?
check threads-only-analyzes [ "$rc" -eq 0 ]
# the same whose MPI location declares 79 events it does not hold (APEX's anchor, issue #47 item
# 6): decided from the records, the same answers (before: "the trace holds no events")
out=$("$retime" replay "$work/threads-only-dishonest" "${Z[@]}" --format csv 2>&1); rc=$?
check threads-only-dishonest-replays [ "$rc" -eq 0 ]
check threads-only-dishonest-end same "$(rank_end "$out" 0)" 5000
out=$("$retime" replay "$work/threads-only-dishonest" "${Z[@]}" --compute-scale 0.5 --format csv 2>/dev/null)
check threads-only-dishonest-end-half same "$(rank_end "$out" 0)" 2500

# --- 65 ranks in a ring with persistent requests, MPI_Waitany and MPI_Testsome, then a barrier
# on the even (33) or odd (32) ranks of a split communicator. Per iteration (t0 = 1000 + 10000 i
# measured): the starts cost nothing, the vain MPI_Testsome keeps its 10 ns (it moves nothing),
# the 100-byte message from the left, sent at t0 + 10 predicted, arrives alpha + 100 B x beta =
# 1100 ns later, at t0 + 1110, and MPI_Waitany returns then instead of after 1900 ns: the
# iteration ends at t0 + 1210 instead of t0 + 2110, 900 ns earlier. The barrier is entered at
# 25000 - 1800 = 23200 by every rank; a dissemination barrier takes ceil(log2 P) rounds of
# alpha: 6 x 1000 on 33 ranks, 5 x 1000 on 32, then 3000 to the end:
# even ranks 23200 + 6000 + 3000 = 32200, odd ranks 23200 + 5000 + 3000 = 31200.
out=$("$retime" replay "$work/requests-p65" "${H[@]}" --format csv 2>&1); rc=$?
check requests-p65-replays [ "$rc" -eq 0 ]
for r in 0 2 64; do check "requests-p65-even-$r" same "$(rank_end "$out" $r)" 32200; done
for r in 1 63; do check "requests-p65-odd-$r" same "$(rank_end "$out" $r)" 31200; done
info=$("$retime" info "$work/requests-p65" --format json)
check requests-p65-counts has "$info" '"isend": 130, "recv": 0, "irecv": 130, "collectives": 65}'

# --- what a replay leaves out (coverage-mix, issue #33 item 5): every kind of record not replayed
# is counted, and where it has time, the rank with the largest share of its span inside it is
# named. By hand (gen_traces.py): rank 0 spans 10000, rank 1 20000. Accelerator: rank 0's CUDA
# call 1000-3000, 2000/10000 = 20 %. RMA: rank 0's MPI_Put holds 500 (5 %), rank 1's 4000 (20 %).
# Communicator: MPI_Comm_dup 400, 4.0 % of rank 0's. Measurement off: rank 0 1000 (10 %), rank 1
# from 15000 to its end, 5000 (25 %). Flush: 300, 3.0 % of rank 0's. Locks and program begin/end
# are counted without time. The non-blocking collective (MPI_Iallreduce + MPI_Wait of 16 B on both
# ranks, issue #30) is replayed, so it is not on the line. Every other call keeps its measured
# time: both ranks enter the MPI_Iallreduce at 8600 as measured; a 2-rank allreduce of 8 B is one
# exchange, alpha + 8 B x beta = 1008 ns, done at 9608; the MPI_Wait (entered 100 ns after the
# MPI_Iallreduce returned, at 8700) returns then, and the ranks end 1000 and 11000 ns later:
# 10608 and 20608 (measured 10000 and 20000). (Rank 0's flush, outside MPI calls, is taken out of
# its compute: it enters the MPI_Iallreduce at 8300, and waits for rank 1 all the same.)
C=$work/coverage-mix
line='4 accelerator records (20 % of rank 0'"'"'s time in accelerator API calls), 2 RMA records (20 % of rank 1'"'"'s time in the MPI calls that hold them), 1 communicator record (4.0 % of rank 0'"'"'s time in the MPI calls that hold them), 3 measurement on/off records (25 % of rank 1'"'"'s time with measurement off), 1 buffer flush record (3.0 % of rank 0'"'"'s time flushing), 2 thread lock/task/create records, 4 program begin/end records'
check coverage-info-line has "$("$retime" info "$C")" "not replayed   $line"
out=$("$retime" replay "$C" "${H[@]}" 2>/dev/null); rc=$?
check coverage-replays [ "$rc" -eq 0 ]
check coverage-replay-line has "$out" "not replayed $line"
check coverage-analyze-line has "$("$retime" analyze "$C" "${H[@]}" --against measured 2>/dev/null)" "not replayed $line"
check coverage-sweep-line has "$("$retime" sweep "$C" --alpha 1us,2us --beta 1ns/B 2>/dev/null)" "not replayed $line"
json=$("$retime" replay "$C" "${H[@]}" --format json 2>/dev/null)
check coverage-json-measurement has "$json" '{"kind": "measurement on/off", "records": 3, "worst_rank": 1, "time_ns": 5000, "rank_span_ns": 20000, "share": 0.250000}'
check coverage-json-program has "$json" '{"kind": "program begin/end", "records": 4}'
check coverage-info-json has "$("$retime" info "$C" --format json)" '{"kind": "accelerator", "records": 4, "worst_rank": 0, "time_ns": 2000, "rank_span_ns": 10000, "share": 0.200000}'
out=$("$retime" replay "$C" "${H[@]}" --format csv 2>/dev/null)
check coverage-rank0-nbcoll-replayed same "$(rank_end "$out" 0)" 10608
check coverage-rank1-nbcoll-replayed same "$(rank_end "$out" 1)" 20608
# a trace that leaves nothing out has no such line (outputs of retime's own traces stay as they were)
check coverage-none bash -c '! grep -q "not replayed" <<<"$1"' _ "$("$retime" replay "$work/two-comms" "${H[@]}" 2>/dev/null)"
check coverage-none-json bash -c '! grep -q "not_replayed" <<<"$1"' _ "$("$retime" info "$work/two-comms" --format json)"

# --- non-blocking collectives (issue #30, item 1; gen_traces.py's nbcoll): each member enters the
# collective at its MPI_I<coll> call and its MPI_Wait returns when its own part is done, so the
# compute between them hides the collective or not. 4 ranks, MPI_Iallreduce of 1000 B (recursive
# doubling: 2 exchanges of alpha + 1000 B x beta = 2000 ns, 4000 ns from the last entry), entered at
# 1000 (the MPI_I<coll> call itself costs nothing: it returns at 1000), then compute, the MPI_Wait,
# and 1000 ns of compute to the end: end = 1000 + max(compute, 4000) + 1000.
#   hidden:  5000 ns of compute: 1000 + 5000 + 1000 = 7000 (measured 7200: the calls' 200 ns)
#   exposed: 2000 ns of compute: 1000 + 4000 + 1000 = 6000 (measured 4200)
#   late:    rank 3 enters at 3000: done at 3000 + 4000 = 7000 on every rank, ends 8000 on all
#            (rank 3's wait is entered at 5000, the others' at 3000)
for t in hidden:7000 exposed:6000 late:8000; do
  out=$("$retime" replay "$work/nbcoll-${t%%:*}" "${H[@]}" --format csv 2>/dev/null)
  for r in 0 1 2 3; do check "nbcoll-${t%%:*}-rank$r" same "$(rank_end "$out" $r)" "${t##*:}"; done
done
# MPI_Ibcast of 1000 B from rank 0, 3000 ns of compute (the waits entered at 4000). Binomial: 0 -> 2
# arrives at 3000; the root's port then sends 0 -> 1 while 2 -> 3: both arrive at 5000, and the
# root's second eager send is done then too: every wait returns at 5000, ends 6000. Linear (--coll
# bcast=linear): the root's port sends to 1, 2, 3 in turn, arriving at 3000, 5000, 7000, and its
# last send is done at 7000: ends 5000 (rank 1, its wait entered after), 6000, 8000, and 8000 (root).
out=$("$retime" replay "$work/nbcoll-ibcast" "${H[@]}" --format csv 2>/dev/null)
for r in 0 1 2 3; do check "nbcoll-ibcast-rank$r" same "$(rank_end "$out" $r)" 6000; done
out=$("$retime" replay "$work/nbcoll-ibcast" "${H[@]}" --coll bcast=linear --format csv 2>/dev/null)
check nbcoll-ibcast-linear-ends same "$(for r in 0 1 2 3; do rank_end "$out" $r; done | tr '\n' ' ')" "8000 5000 6000 8000 "
# the critical path of the late case goes through the collective from rank 3's entry: rank 3's
# events 0-2 (main, 3000 ns of compute, MPI_Iallreduce's request) to 3000, the collective's 4000 ns
# into rank 0's wait (event 5), its 1000 ns to the end; ranks 0-2 wait 4000 ns each in MPI_Wait.
json=$("$retime" analyze "$work/nbcoll-late" "${H[@]}" --against model --format json 2>/dev/null)
check nbcoll-late-path has "$json" '"segments": [{"rank": 3, "first": 0, "last": 2, "begin_ns": 0, "end_ns": 3000}, {"rank": 0, "first": 5, "last": 7, "begin_ns": 3000, "end_ns": 8000}]'
check nbcoll-late-path-collective has "$json" '"activity": {"compute_ns": 4000, "cpu_overhead_ns": 0, "transfer_ns": 0, "collective_ns": 4000, "waiting_ns": 0}'
check nbcoll-late-waits has "$("$retime" analyze "$work/nbcoll-late" "${H[@]}" --against model 2>/dev/null)" "collective                                               12us  (3)"
# info: counted as collectives, said to be non-blocking, not on the "not replayed" line
text=$("$retime" info "$work/nbcoll-hidden")
check nbcoll-info has "$text" "collectives    4 (calls, summed over ranks); 4 of them non-blocking"
check nbcoll-info-replayed bash -c '! grep -q "not replayed" <<<"$1"' _ "$text"
json=$("$retime" info "$work/nbcoll-hidden" --format json)
check nbcoll-info-json has "$json" '"collectives": 4}'
check nbcoll-info-json-nb has "$json" '"nonblocking_collectives": 4,'
check nbcoll-info-census has "$("$retime" info "$work/nbcoll-ibcast" --collectives)" "bcast               4      1000B      4000B          1  binomial"
# an unpaired record is one error line naming the file, the rank and the event
check nbcoll-never-completed fails_with "nbcoll-never-completed/traces.otf2: rank 1 event 2: non-blocking collective request 7 never completed" \
  "$retime" replay "$work/nbcoll-never-completed" "${H[@]}"
check nbcoll-no-request fails_with "nbcoll-no-request/traces.otf2: rank 1 event 5: non-blocking collective completion (allreduce) of request 8 without its request" \
  "$retime" info "$work/nbcoll-no-request"

# --- sends whose completions a tracer lost (isend-lost-completion: 3 MPI_Isend, the completion of
# the last one only, as retime-trace wrote them before issue #45): replayed, and info says so.
L=$work/isend-lost-completion
"$retime" replay "$L" "${H[@]}" >/dev/null 2>"$work/err"; rc=$?
check lost-completion-replays [ "$rc" -eq 0 ]
check lost-completion-info has "$("$retime" info "$L")" \
  "warning        2 of 3 nonblocking sends have no completion record (the tracer lost them:"
check lost-completion-info-json has "$("$retime" info "$L" --format json)" '"uncompleted_isends": 2,'
check lost-completion-none-when-complete bash -c '! grep -q "uncompleted_isends" <<<"$1"' _ \
  "$("$retime" info "$work/missing-rank" --format json)"

# --- a rank that wrote nothing (missing-rank: 4 ranks, rank 2's event file deleted). Refused, the
# error naming the option; with --allow-missing-ranks the messages to and from rank 2 are dropped
# (2 sends to it: rank 1's MPI_Send, rank 3's MPI_Isend; 2 receives from it: rank 3's MPI_Recv,
# rank 1's MPI_Irecv), the barrier is timed over ranks 0, 1, 3 (3 records) and the bcast rooted
# at rank 2 keeps its measured 600 ns (3 records); every call that lost its message keeps its
# measured time. By hand, Hockney alpha = 1 us, beta = 1 ns/B: rank 0's eager 1000 B send stays
# in MPI_Send for alpha + 1000 B x beta = 2000 ns (1000-3000), 2900 of work: barrier at 5900.
# Rank 1's receive ends at 3000, then 100 + 100 (the send, kept) + 100 + 50 + 50 + 200 (MPI_Irecv,
# MPI_Wait, kept) + 1400: barrier at 5000. Rank 3: its MPI_Recv kept (1000-3000), ..., barrier at
# 4000 as measured. A dissemination barrier of 3 takes ceil(log2 3) = 2 rounds of alpha from the
# last entry: 7900 on all; then 500 of work, the bcast's 600, 1400: 10400 on rows 0, 1, 2, which
# every output names by their MPI ranks 0, 1, 3 (issue #47 item 4). (Waiting for rank 2 the barrier
# never ends; timing the bcast needs its root.)
M=$work/missing-rank
rm -f "$M/traces/2.evt"
check missing-rank-refused-names-option fails_with \
  "location 2 (rank 2): no event reader: $M/traces/2.evt is missing (a rank killed before it wrote? --allow-missing-ranks replays without it)" \
  "$retime" replay "$M" "${H[@]}"
out=$("$retime" replay "$M" "${H[@]}" --allow-missing-ranks --format csv 2>"$work/err"); rc=$?
check missing-rank-replays [ "$rc" -eq 0 ]
for r in 0 1 3; do check "missing-rank-rank$r-end" same "$(rank_end "$out" $r)" 10400; done
check missing-rank-csv-labels same "$(grep '^rank,' <<<"$out" | cut -d, -f2 | tr '\n' ' ')" "0 1 3 "
check missing-rank-table-labels same "$("$retime" replay "$M" "${H[@]}" --allow-missing-ranks 2>/dev/null |
  awk 'on { print $1 } $1 == "rank" && $2 == "measured_end" { on = 1 }' | tr '\n' ' ')" "0 1 3 "
check missing-rank-json-labels has "$("$retime" replay "$M" "${H[@]}" --allow-missing-ranks --format json 2>/dev/null)" \
  '{"rank": 3, "measured_end_ns": '
a=$("$retime" analyze "$M" "${H[@]}" --allow-missing-ranks --against measured 2>/dev/null)
check missing-rank-analyze-labels bash -c '! grep -q "^ *rank 2 " <<<"$0" && grep -q "^ *rank 3 " <<<"$0"' "$a"
check missing-rank-warning-one-line same "$(cat "$work/err")" \
  "retime: warning: $M/traces.otf2: MPI rank 2 missing: 2 messages to it and 2 from it dropped, 3 collective records timed without it, 3 rooted at it kept as measured time (--allow-missing-ranks)"
check missing-rank-replay-line has "$("$retime" replay "$M" "${H[@]}" --allow-missing-ranks 2>/dev/null)" \
  "not replayed MPI rank 2 missing: 2 messages to it and 2 from it dropped"
check missing-rank-info-json has "$("$retime" info "$M" --allow-missing-ranks --format json)" \
  '"missing_ranks": [2], "missing_messages_to": 2, "missing_messages_from": 2, "collectives_without_missing": 3, "collectives_rooted_at_missing": 3}, "ranks": 3,'
"$retime" analyze "$M" "${H[@]}" --allow-missing-ranks --against measured >/dev/null 2>&1; rc=$?
check missing-rank-analyzes [ "$rc" -eq 0 ]
"$retime" sweep "$M" --alpha 1us,2us --beta 1ns/B --allow-missing-ranks >/dev/null 2>&1; rc=$?
check missing-rank-sweeps [ "$rc" -eq 0 ]

# --- the real Score-P traces beside the checkout: replay and analyze must succeed
if [ -n "$ext" ] && [ -d "$ext" ]; then
  for d in "$ext"/*/; do
    [ -f "$d/traces.otf2" ] || continue
    n=$(basename "$d")
    "$retime" replay "$d" "${H[@]}" >/dev/null 2>"$work/err"; rc=$?
    check "scorep-$n-replays" [ "$rc" -eq 0 ]
    "$retime" analyze "$d" "${H[@]}" --against measured >/dev/null 2>>"$work/err"; rc=$?
    check "scorep-$n-analyzes" [ "$rc" -eq 0 ]
    # the coverage line against otf2-print: the measurement on/off records (Score-P 3's traces
    # hold them) counted, and the rank of the largest share of its span with measurement off;
    # a trace of nothing but regions and MPI records has no line
    kinds=$(otf2-print "$d/traces.otf2" 2>/dev/null | awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {print $1}' |
            sort -u | grep -Ev '^(ENTER|LEAVE|MPI_[A-Z_]+)$' | tr '\n' ' ')
    want=$(otf2-print "$d/traces.otf2" 2>/dev/null | awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
        l = $2; t = $3; if (!(l in f)) f[l] = t; e[l] = t
        if ($1 == "MEASUREMENT_ON_OFF") { n++; if ($5 == "OFF") { if (!(l in off)) off[l] = t }
                                          else if (l in off) { s[l] += t - off[l]; delete off[l] } } }
      END { if (!n) exit; best = -1
            for (l = 0; l in f; l++) { if (l in off) s[l] += e[l] - off[l]; sh = 100 * s[l] / (e[l] - f[l])
                                       if (sh > best) { best = sh; bl = l } }
            printf "%d measurement on/off records (%.*f %% of rank %d'"'"'s time with measurement off)", n, best < 9.95 ? 1 : 0, best, bl }')
    text=$("$retime" info "$d")
    if [ -n "$want" ]; then
      check "scorep-$n-coverage" has "$text" "not replayed   $want"
    elif [ -z "$kinds" ]; then
      check "scorep-$n-coverage-none" bash -c '! grep -q "not replayed" <<<"$1"' _ "$text"
    fi
  done
else
  echo "skip Score-P traces: ${ext:-no directory given} not found"
fi
checks_done
