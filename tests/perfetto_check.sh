#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Perfetto / Chrome trace-event timeline (rt_perfetto_write): test_perfetto writes the
# timelines of synthetic and stored traces, with expectations derived without the writer, and
# perfetto_schema.py checks each; the validator must reject broken copies; and `retime replay`
# / `retime analyze --perfetto` must write the same file as the library call.
set -u
test_perfetto=$1; retime=$2; traces=$3; out=$4
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"
rm -rf "$out" && mkdir -p "$out" || exit 1
schema() { "$py" "$here/perfetto_schema.py" "$@"; }
# rejects FILE TEXT: the validator fails on FILE and says TEXT
rejects() { local o; o=$(schema "$1" 2>&1); [ $? -eq 1 ] && has "$o" "$2" || { echo "  got: $o" | head -3; false; }; }

stored=("$traces"/shift1d-ssend-p8-k1-m1000 "$traces"/shift1d-isend-p8-k2-m1000 "$traces"/shift3d-ssend-p64-k1-m1000)
check "test_perfetto" "$test_perfetto" "$out" "${stored[@]}"
for e in "$out"/*.expect.json; do
  j=${e%.expect.json}.json
  check "schema $(basename "$j")" schema "$j" --expect "$e"
done

# The validator can fail: one broken copy per rule.
good=$out/synthetic.json
mutant() { "$py" "$here/perfetto_mutate.py" "$1" "$good" "$out/bad-$1.json" && rejects "$out/bad-$1.json" "$2"; }
check "rejects a missing thread name" mutant drop-thread-name "no thread named 'measured'"
check "rejects a backwards arrow" mutant flow-backwards "after it ends"
check "rejects an arrow whose end is read first" mutant end-first "comes first in the file"
check "rejects an unpaired arrow" mutant unpaired-flow "want one s and one f"
check "rejects overlapping slices" mutant overlap "overlaps its parent"
check "rejects a time Perfetto truncates" mutant truncating-ts "would import as 1000 ns"
check "rejects a gap in the critical path" mutant path-gap "critical path: run on pid"
check "rejects a tid shared by two pids" mutant shared-tid "used by pids"

# Through the CLI, when it has the option: the same bytes as the library call.
T=${stored[0]}
H=(--alpha 2.122us --beta 0.7595ns/B --compute-scale 0)
if err=$("$retime" replay "$T" "${H[@]}" --perfetto "$out/cli-replay.json" 2>&1 >/dev/null) ||
   ! has "$err" "unknown option '--perfetto'"; then
  check "retime replay --perfetto" test -s "$out/cli-replay.json"
  check "retime replay --perfetto: schema" schema "$out/cli-replay.json"
  check "retime replay --perfetto: same file as rt_perfetto_write" cmp "$out/cli-replay.json" "$out/$(basename "$T").json"
  check "retime analyze --perfetto" "$retime" analyze "$T" "${H[@]}" --against model --perfetto "$out/cli-analyze.json"
  check "retime analyze --perfetto: schema" schema "$out/cli-analyze.json"
  check "--perfetto to a missing directory" fails_with "$out/none/x.json" \
    "$retime" replay "$T" "${H[@]}" --perfetto "$out/none/x.json"
else
  echo "note: retime replay has no --perfetto option yet; the CLI checks did not run"
fi
checks_done
