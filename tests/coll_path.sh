#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The critical path through collectives on issue #44's program (tests/ext/gen_traces.py,
# late-allreduce: 8 ranks, 5 x MPI_Allreduce of 8 B; rank 6 computes 50 ms before each, the
# others 1 ms):
#   1. under every allreduce algorithm, timed in one go and message by message on a network, and
#      against the model and the measurement, the path is rank 6's compute: >= 99.9 % of it is
#      compute on rank 6 (5 x 50 ms of a 250.0x ms run);
#   2. every view of one predicted run shows the same path: analyze's segments, the predicted
#      OTF2 archive's retime::critical_path marks (--output-trace), the Perfetto timeline's
#      critical-path slices (--perfetto), plot timeline's path and check's stored shares.
# Usage: coll_path.sh RETIME WORKDIR OTF2_PRINT
set -u
retime=$1; work=$2; otf2_print=${3:-}
[ -n "$otf2_print" ] || { echo "skipped: no otf2-print (Debian: otf2-tools)"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
fails=0; passes=0
ok() { echo "ok   $1"; passes=$((passes + 1)); }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
/usr/bin/python3 "$(dirname "$0")/ext/gen_traces.py" "$work/gen" >/dev/null 2>"$work/gen.err" ||
  { cat "$work/gen.err"; echo "FAIL: cannot write the traces (python3-otf2)"; exit 1; }
T=$work/gen/late-allreduce
H=(--alpha 1us --beta 0.1ns/B)

# late_on_path NAME JSON RANK LATE_NS: the path holds RANK's lateness as compute on that rank
# (at least LATE_NS of each), and for a long lateness (>= 100 ms) >= 99.9 % of the path is that.
late_on_path() {
  local why
  why=$(python3 -c '
import json, sys
cp = json.load(sys.stdin)["critical_path"]
rank, late = int(sys.argv[1]), float(sys.argv[2])
n = cp["length_ns"]
rk = sum(s["end_ns"] - s["begin_ns"] for s in cp["segments"] if s["rank"] == rank)
c = cp["activity"]["compute_ns"]
share = 0.999 * n if late >= 1e8 else late
if n < late or c < share or rk < share:
    print("length %.0f ns, compute %.0f ns, rank %d %.0f ns; segments %s" %
          (n, c, rank, rk, [(s["rank"], s["first"], s["last"]) for s in cp["segments"]][:8]))
' "$3" "$4" <<<"$2" 2>&1)
  if [ -z "$why" ]; then ok "$1"; else bad "$1" "$why"; fi
}
rank6() { late_on_path "$1" "$2" 6 250000000; }

# 1. every allreduce algorithm, both ways of timing it, both timings
for algo in auto recdbl rabenseifner ring segmented-ring reduce-bcast linear; do
  for net in none crossbar:8; do
    N=(); [ "$net" = none ] || N=(--topology "$net")
    for against in model measured; do
      j=$("$retime" analyze "$T" "${H[@]}" --coll allreduce=$algo "${N[@]}" --against $against --format json 2>"$work/err")
      if [ $? -ne 0 ]; then bad "$algo-$net-$against" "$(cat "$work/err")"; continue; fi
      rank6 "$algo-$net-$against" "$j"
    done
  done
done

# 1b. a non-blocking allreduce whose rank 3 posts it 10 ms late (4 ranks, 1000 B)
for algo in auto recdbl rabenseifner ring reduce-bcast linear; do
  for net in none crossbar:4; do
    N=(); [ "$net" = none ] || N=(--topology "$net")
    j=$("$retime" analyze "$work/gen/nbcoll-late-10ms" "${H[@]}" --coll allreduce=$algo "${N[@]}" --against model \
        --format json 2>"$work/err")
    if [ $? -ne 0 ]; then bad "iallreduce-$algo-$net" "$(cat "$work/err")"; continue; fi
    late_on_path "iallreduce-$algo-$net" "$j" 3 9999000
  done
done

# 2. the views of one predicted run
"$retime" analyze "$T" "${H[@]}" --against model --format json --output-trace "$work/out" \
  --perfetto "$work/pf.json" >"$work/analyze.json" 2>"$work/err" || { cat "$work/err"; bad views "analyze failed"; }
"$otf2_print" "$work/out/traces.otf2" >"$work/out.txt" 2>&1 || bad views "otf2-print cannot read the predicted archive"
"$retime" plot timeline "$T" "${H[@]}" --output "$work/tl" >/dev/null 2>"$work/err" || bad views "plot timeline: $(cat "$work/err")"
"$retime" check "$T" --baseline "$work/base.json" --update "${H[@]}" >/dev/null 2>"$work/err" ||
  bad views "check --update: $(cat "$work/err")"
why=$(python3 - "$work" <<'EOF' 2>&1
import json, re, sys
from collections import Counter
w = sys.argv[1]
cp = json.load(open(w + "/analyze.json"))["critical_path"]
segs = [(s["rank"], s["first"], s["last"]) for s in cp["segments"]]
out = []
# the predicted archive: the events marked on the path, per rank, are the segments' events
marked, rank = Counter(), None
for line in open(w + "/out.txt"):
    m = re.match(r"^[A-Z_]+\s+(\d+)\s+\d+", line)
    if m:
        rank = int(m.group(1))
    elif "retime::critical_path" in line and rank is not None:
        marked[rank] += 1
want = Counter()
for r, a, b in segs:
    want[r] += b - a + 1
if marked != want:
    out.append("OTF2 marks per rank %s, analyze's segments %s" % (dict(marked), dict(want)))
# Perfetto: one "critical path" slice per segment, the same events
pf = json.load(open(w + "/pf.json"))
ev = pf["traceEvents"] if isinstance(pf, dict) else pf
sl = sorted((e["pid"], e["args"]["first_event"], e["args"]["last_event"]) for e in ev
            if e.get("cat") == "critical_path" and e.get("ph") == "X")
if sl != sorted(segs):
    out.append("Perfetto slices %s, analyze's segments %s" % (sl, sorted(segs)))
# plot timeline: the ranks its path runs along, in time order
blocks = open(w + "/tl.dat").read().split("\n\n\n")
path = [b for b in blocks if "critical path" in b.split("\n")[0]]
ranks = []
for line in (path[0].split("\n") if path else []):
    f = line.split()
    if len(f) == 2 and not line.startswith("#"):
        r = int(float(f[1]))
        if not ranks or ranks[-1] != r:
            ranks.append(r)
if ranks != [r for r, a, b in segs]:
    out.append("plot timeline's path along ranks %s, analyze's %s" % (ranks, [r for r, a, b in segs]))
# check's stored shares
b = json.load(open(w + "/base.json"))
tr = list(b["traces"].values())[0] if isinstance(b["traces"], dict) else b["traces"][0]
c = tr["critical_path"]
act = cp["activity"]
pct = 100.0 * act["compute_ns"] / cp["length_ns"]
if abs(c["compute_pct"] - round(pct, 3)) > 0.001:
    out.append("check stores compute_pct %s, analyze %.3f" % (c["compute_pct"], pct))
print("; ".join(out))
EOF
)
if [ -z "$why" ]; then ok "views agree (analyze, OTF2 marks, Perfetto, plot timeline, check)"; else bad views "$why"; fi

# 4. the measured run's collective waits come from the measured entries (issue #44, item 5):
#    their total is the raw records' (the latest entry minus each member's, summed), all of it
#    for the member that entered last in the trace, even where the model finds another one late
waits() { # NAME TRACE WANT_NS WANT_RANK
  local why
  why=$("$retime" analyze "$2" "${H[@]}" --against measured --format json 2>&1 | python3 -c '
import json, sys
w = [k for k in json.load(sys.stdin)["wait_states"] if k["kind"] == "collective"][0]
causes = [c["rank"] for c in w["by_cause"]]
if w["ns"] != int(sys.argv[1]) or causes != [int(sys.argv[2])]:
    print("collective waits %s ns caused by ranks %s; want %s ns, all rank %s" % (w["ns"], causes, sys.argv[1], sys.argv[2]))
' "$3" "$4" 2>&1)
  if [ -z "$why" ]; then ok "$1"; else bad "$1" "$why"; fi
}
waits measured-waits-late-allreduce "$T" 1715000000 6      # 5 x 7 ranks x 49 ms
waits measured-waits-binder "$work/gen/measured-binder" 27999900 2 # the model's late one is rank 0

# 3. message sizes as the program passed them: the allreduce of one double is 8 B, though the
#    trace records 64 B each way (Score-P's convention, P x 8 B)
txt=$("$retime" analyze "$T" "${H[@]}" --against model 2>&1)
sizes=$(sed -n '/by message size/,/segments/p' <<<"$txt")
if grep -q '^    8-15 B ' <<<"$sizes" && ! grep -q '64-127 B' <<<"$sizes"; then ok "size bins: the 8-B allreduce in 8-15 B"
else bad "size bins" "$sizes"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
