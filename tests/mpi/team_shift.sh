#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Team Shift in the shift benchmark (docs/team-shift.md): with teams of one it must give the
# Shift's result, byte for byte (the same checksum over every rank's final buffer) and the same
# prediction, in 1D and 3D; larger teams verify every byte, and the prediction is the closed form
# (c = 2, k = 1, m1 = 1000 B: T(m) + 4T(m) + T(2m) = 5*2881.5 + 3641 = 18048.5 ns, printed 18048).
# usage: team_shift.sh MPIRUN_SH SHIFT
set -uo pipefail
mpirun_sh=$1 shift_bin=$2
H=(--alpha 2.122us --beta 0.7595ns/B --iters 2 --warmup 1)
fail() { echo "FAIL: $*"; exit 1; }
run() { # NP ARGS...: the run's stdout, failing on a non-zero exit
  local np=$1; shift
  "$mpirun_sh" -np "$np" "$shift_bin" "$@" "${H[@]}" 2>&1 || fail "shift $* exited non-zero"
}
pred() { awk -F'\t' 'row { print $NF; exit } /^k\t/ { row = 1 }' <<<"$1"; }
sum() { grep '^checksum:' <<<"$1"; }

for args in "4 --dims 1 --k 1 --m1 300" "4 --dims 1 --k 3 --m1 100" "8 --dims 3 --grid 2x2x2 --k 1 --m1 50"; do
  read -r np rest <<<"$args"
  # shellcheck disable=SC2086
  a=$(run "$np" $rest) && b=$(run "$np" $rest --algorithm team-shift --team 1) || exit 1
  grep -q '^verification: passed$' <<<"$b" || fail "team-shift c=1 ($rest) did not verify: $b"
  [ -n "$(sum "$a")" ] && [ "$(sum "$a")" = "$(sum "$b")" ] || fail "c=1 ($rest): $(sum "$b"), shift $(sum "$a")"
  [ "$(pred "$a")" = "$(pred "$b")" ] || fail "c=1 ($rest): predicted $(pred "$b"), shift $(pred "$a")"
done
out=$(run 8 --mode team-shift --team 2 --k 1 --m1 1000) || exit 1
grep -q '^verification: passed$' <<<"$out" || fail "c=2 did not verify: $out"
[ "$(pred "$out")" = 18048 ] || fail "c=2: predicted $(pred "$out"), want 18048"
grep -q 'algorithm=team-shift team=2 teams=4' <<<"$out" || fail "c=2: header: $out"
grep -q '^# statistics over 8 samples (team leaders x measured iterations)$' <<<"$out" || fail "c=2: samples: $out"
# teams of 4 on 2 teams: hops that are local copies are said to be off the closed form
out=$(run 8 --algorithm team-shift --team 4 --k 2 --m1 64) || exit 1
grep -q '^# note: 2 of the leader.s hops are local copies' <<<"$out" || fail "c=4: no note: $out"
# errors: one line each
err=$("$mpirun_sh" -np 6 "$shift_bin" --algorithm team-shift --team 4 2>&1 >/dev/null)
grep -q 'shift: error: 6 ranks do not form teams of 4' <<<"$err" || fail "bad team size: $err"
err=$("$mpirun_sh" -np 2 "$shift_bin" --algorithm team-shift --mode isend 2>&1 >/dev/null)
grep -q 'shift: error: team-shift runs with --mode ssend only' <<<"$err" || fail "isend: $err"
err=$("$mpirun_sh" -np 2 "$shift_bin" --team 2 2>&1 >/dev/null)
grep -q 'shift: error: --team needs --algorithm team-shift' <<<"$err" || fail "--team alone: $err"
echo "PASS: team-shift c=1 equals shift (1D, 3D), c=2 verifies with the closed form, errors"
