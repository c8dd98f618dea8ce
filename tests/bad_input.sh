#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad-input tests: each broken input must give exit status 1 (never a crash), exactly one line
# on stderr starting with "retime: error:" and naming the problem.
set -u
retime=$1; make_bad=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
"$make_bad" "$work" || { echo "cannot make test traces"; exit 1; }
fails=0; passes=0

expect() { # name, expected text, command...
  local name=$1 text=$2; shift 2
  local err rc lines
  err=$("$@" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] || [[ "$err" != "retime: error: "* ]] || [[ "$err" != *"$text"* ]]; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $err (expected: $text)"; fails=$((fails+1))
  else
    echo "ok   $name: $err"; passes=$((passes+1))
  fi
}

H=(--alpha 2.122us --beta 0.7595ns/B)
# the good trace replays
if "$retime" replay "$work/good" "${H[@]}" >/dev/null; then passes=$((passes+1)); else echo "FAIL good trace"; fails=$((fails+1)); fi

expect missing-path "No such file or directory" "$retime" replay "$work/does-not-exist" "${H[@]}"
expect missing-anchor "no OTF2 anchor file traces.otf2" "$retime" replay "$work" "${H[@]}"
printf 'hello, I am not a trace\n' > "$work/not-otf2.otf2"
expect not-otf2 "not an OTF2 anchor file" "$retime" replay "$work/not-otf2.otf2" "${H[@]}"
: > "$work/empty.otf2"
expect empty-file "not an OTF2 anchor file" "$retime" replay "$work/empty.otf2" "${H[@]}"

cp -r "$work/good" "$work/truncated-evt"
truncate -s $(( $(stat -c %s "$work/truncated-evt/traces/1.evt") / 2 )) "$work/truncated-evt/traces/1.evt"
expect truncated-evt "rank 1): event data truncated or corrupt" "$retime" replay "$work/truncated-evt" "${H[@]}"

cp -r "$work/good" "$work/missing-evt"
rm "$work/missing-evt/traces/0.evt"
expect missing-evt "location 0 (rank 0)" "$retime" replay "$work/missing-evt" "${H[@]}"

cp -r "$work/good" "$work/truncated-def"
truncate -s 60 "$work/truncated-def/traces.def"
expect truncated-def "global definitions" "$retime" replay "$work/truncated-def" "${H[@]}"

expect unmatched-recv "unmatched receive: rank 1 event 4 (MPI_Recv from rank 0, tag 42" \
  "$retime" replay "$work/unmatched-recv" "${H[@]}"
expect deadlock "deadlock: rank 0 event 1 (MPI_Recv from rank 1" "$retime" replay "$work/deadlock" "${H[@]}"

expect bad-alpha "--alpha: bad duration '2.1': needs a unit" "$retime" replay "$work/good" --alpha 2.1 --beta 1ns/B
expect bad-beta "--beta: bad inverse bandwidth" "$retime" replay "$work/good" --alpha 2us --beta fast
expect bad-eager "--eager-limit: bad size" "$retime" replay "$work/good" "${H[@]}" --eager-limit 64kb
expect bad-scale "--compute-scale: must be between 0 and 1e6" "$retime" replay "$work/good" "${H[@]}" --compute-scale -1
expect bad-format "bad --format 'xml'" "$retime" replay "$work/good" "${H[@]}" --format xml
expect bad-region "no region named 'nope'" "$retime" replay "$work/good" "${H[@]}" --region nope
expect bad-model "unknown model 'magic'" "$retime" replay "$work/good" --model magic
expect no-params "needs --alpha and --beta" "$retime" replay "$work/good"
expect unknown-option "unknown option '--frobnicate'" "$retime" replay "$work/good" "${H[@]}" --frobnicate

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
