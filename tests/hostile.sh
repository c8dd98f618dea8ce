#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hostile-input corpus (issue #47, Deliver 4): tests/hostile/cases.txt's cases, each against
# the file its generator here writes (side files and damaged archives are made from a stored
# trace and a few bytes, never stored), plus damaged copies of a stored archive made by a seeded
# generator (bytes overwritten at places an LCG picks). Each case must end within its limit
# (20 s, the whole corpus within a minute on an idle machine), give no sanitizer report and no
# core, and: a failure exits 1 or 2 with exactly one line "retime: error: ...", printable and at
# most 600 characters; a success exits 0. A damaged archive may read (exit 0) or be refused in one
# such line, after the warnings that say what was dropped (an unknown record type), never anything
# else.
# usage: hostile.sh RETIME TRACES_DIR WORKDIR
set -u
retime=$1; traces=$2; work=$3
case $work in # it is cleared: only ever a directory of this test's own
  */hostile) rm -rf "$work"; mkdir -p "$work" ;;
  *) echo "FAIL refusing to clear $work (not a .../hostile work directory)"; exit 1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
T=$traces/shift1d-isend-p8-k2-m1000
T64=$traces/shift3d-isend-p64-k1-m1000
W=$work
LONG=$(head -c 3000 /dev/zero | tr '\0' y)
passes=0 fails=0
t_start=$(date +%s)

# --- generators: side files
: >"$W/noise-empty"
printf '# only a comment\n\n' >"$W/noise-comment"
printf '\001\002\377\376 binary\000 noise\n' >"$W/noise-bytes"
printf '\357\273\277# a rules file saved with a byte-order mark\nallreduce * * recdbl\n' >"$W/rules-bom"
printf 'allreduce * * ring-of-fire\n' >"$W/rules-bad"
printf '0 0\n1 1\n' >"$W/mapping-short"
# --- generators: archives (copies of the stored trace, one file damaged each)
copy() { rm -rf "$W/$1"; cp -r "$T" "$W/$1"; }
copy missing && rm "$W/missing/traces/3.evt"
copy anchor-cut && truncate -s 30 "$W/anchor-cut/traces.otf2"
copy def-cut && truncate -s 60 "$W/def-cut/traces.def"
copy evt-cut && truncate -s "$(($(stat -c %s "$W/evt-cut/traces/1.evt") / 2))" "$W/evt-cut/traces/1.evt"
copy evt-empty && : >"$W/evt-empty/traces/1.evt"
copy evt-dir && rm "$W/evt-dir/traces/1.evt" && mkdir "$W/evt-dir/traces/1.evt"

# OTF2 (3.0) leaks what it allocated when it cannot open an anchor file or read a damaged local
# definition file (its archive, an OTF2_IdMap), and retime gets no handle to free: for the damaged
# archives only, a sanitizer build's LeakSanitizer skips leaks allocated inside OTF2 (as
# bad_input.sh does for its two anchor cases). Any other report still fails the case.
printf 'leak:libopen-trace-format2\n' >"$W/lsan-otf2.supp"
otf2_leaks=(env "LSAN_OPTIONS=suppressions=$W/lsan-otf2.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}")

# one ERR_FILE, RC [WARNINGS]: whether it is one error line (printable, at most 600 characters);
# with WARNINGS, "retime: warning:" lines may come before it
one_line() {
  [ "$2" -eq 1 ] || [ "$2" -eq 2 ] || return 1
  local other
  other=$(grep -v '^retime: error: ' "$1" | grep -c .)
  [ "$(grep -c '^retime: error: ' "$1")" -eq 1 ] && [ "$(grep '^retime: error: ' "$1" | wc -c)" -le 601 ] &&
    ! LC_ALL=C grep -q '[^[:print:]]' "$1" &&
    { [ "$other" -eq 0 ] || { [ -n "${3:-}" ] && [ "$(grep -v '^retime: error: ' "$1" | grep -vc '^retime: warning: ')" -eq 0 ]; }; }
}
# run NAME EXPECT CLASS ARGS...: the case's verdict
run() {
  local name=$1 expect=$2 class=$3 rc ok=1 why="" pre=()
  shift 3
  [ "$class" = archive ] && pre=("${otf2_leaks[@]}")
  timeout 20 "${pre[@]}" "$retime" "$@" >"$W/.out" 2>"$W/.err"; rc=$?
  if [ "$rc" -ge 124 ]; then ok=0 why="exit $rc (a hang, a crash or a signal)"
  elif grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|Segmentation' "$W/.err"; then ok=0 why="a sanitizer report"
  else
    case $expect in
    ok) [ "$rc" -eq 0 ] || { ok=0 why="exit $rc, not 0"; } ;;
    warn:*) { [ "$rc" -eq 0 ] && grep -qF -- "${expect#warn:}" "$W/.err"; } || { ok=0 why="exit $rc, no warning '${expect#warn:}'"; } ;;
    fail:*) { one_line "$W/.err" "$rc" && grep -qF -- "${expect#fail:}" "$W/.err"; } ||
              { ok=0 why="exit $rc, not one error line holding '${expect#fail:}'"; } ;;
    any) [ "$rc" -eq 0 ] || one_line "$W/.err" "$rc" warnings || { ok=0 why="exit $rc, not one error line"; } ;;
    esac
  fi
  if [ "$ok" = 1 ]; then
    echo "ok   $name"; passes=$((passes + 1))
  else
    echo "FAIL $name: $why"; head -c 400 "$W/.err" | sed 's/^/     /'; fails=$((fails + 1))
  fi
}

# --- the cases of cases.txt
while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; esac
  name=$(awk -F' [|] ' '{ gsub(/ +$/, "", $1); print $1 }' <<<"$line")
  class=$(awk -F' [|] ' '{ gsub(/ +$/, "", $2); print $2 }' <<<"$line")
  expect=$(awk -F' [|] ' '{ gsub(/ +$/, "", $3); print $3 }' <<<"$line")
  args=$(awk -F' [|] ' '{ print $4 }' <<<"$line")
  args=${args//\$T64/$T64}; args=${args//\$T/$T}; args=${args//\$W/$W}; args=${args//\$LONG/$LONG}
  expect=${expect//\$W/$W}
  read -r -a argv <<<"$args"
  run "$name" "$expect" "$class" "${argv[@]}"
done <"$here/hostile/cases.txt"

# --- damaged archives from a seeded generator: 16 bytes overwritten at 24 places an LCG picks in
# the stored trace's files (definitions, events of two ranks, the anchor), each read by replay
s=47
for i in $(seq 1 24); do
  s=$(( (s * 1103515245 + 12345) % 2147483648 ))
  files=(traces.def traces/0.evt traces/5.evt traces/2.def traces.otf2)
  f=${files[$((s % 5))]}
  d="$W/flip-$i"; rm -rf "$d"; cp -r "$T" "$d"
  size=$(stat -c %s "$d/$f")
  off=$(( (s / 5) % (size > 16 ? size - 16 : 1) ))
  printf '\377\000\252\125\377\377\000\001\200\177\041\042\043\044\045\046' |
    dd of="$d/$f" bs=1 seek="$off" conv=notrunc status=none
  run "flip-$i ($f at $off)" any archive replay "$d" --alpha 2us --beta 1ns/B
  rm -rf "$d"
done

secs=$(( $(date +%s) - t_start ))
echo "$passes passed, $fails failed, in $secs s"
[ "$fails" -eq 0 ] && echo "PASS: the hostile corpus" || echo "FAIL: the hostile corpus"
