#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `retime plot` through the CLI: each plot of docs/plots.md drawn from the stored traces, its
# PNG and SVG checked as images (PNG: signature, IHDR size, every chunk's CRC, the pixel data
# inflating to height·(1 + width·bytes per pixel), more than one colour; SVG: XML with an <svg>
# root of the asked size and the expected titles and series), its data checked against answers
# known in advance (the Shift paper's closed form, `retime replay`/`sweep` figures, the number
# of runs), and the errors. Skipped (77) without gnuplot or python3.
set -u
retime=$1; traces=$2; work=$3
command -v gnuplot >/dev/null || { echo "gnuplot not found: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"

# png FILE W H: a complete, valid PNG of W x H pixels that is not one flat colour.
png() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = open(path, "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
pos, chunks, idat = 8, [], b""
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    crc, = struct.unpack(">I", d[pos + 8 + n:pos + 12 + n])
    assert zlib.crc32(kind + body) & 0xffffffff == crc, "bad CRC in " + kind.decode()
    chunks.append(kind)
    if kind == b"IHDR":
        W, H, depth, ctype = struct.unpack(">IIBB", body[:10])
    if kind == b"IDAT":
        idat += body
    pos += 12 + n
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", chunks
assert (W, H) == (w, h), "size %dx%d, expected %dx%d" % (W, H, w, h)
assert depth == 8 and ctype in (2, 6), "depth %d colour type %d" % (depth, ctype)
raw = zlib.decompress(idat)
bpp = 3 if ctype == 2 else 4
assert len(raw) == H * (1 + W * bpp), "pixel data of %d bytes" % len(raw)
assert len(set(raw)) > 16, "a flat image"
PY
}
# svg FILE W H TEXT...: XML with an <svg> root of W x H whose text holds every TEXT.
svg() {
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
path, w, h, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
root = ET.parse(path).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert (root.get("width"), root.get("height")) == (w, h), (root.get("width"), root.get("height"))
text = "\n".join(t for e in root.iter() for t in (e.text, e.tail) if t)
missing = [x for x in want if x not in text]
assert not missing, "missing in the SVG text: %r" % missing
assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) > 10, "hardly anything drawn"
PY
}
# The four files of a plot exist and the pictures are valid (default size).
files() { [ -s "$1.dat" ] && [ -s "$1.gp" ] && png "$1.png" "${2:-800}" "${3:-500}"; }
# data PREFIX BLOCK: the rows of a data block (gnuplot's "index BLOCK"), comments dropped.
data() { awk -v b="$2" 'BEGIN { blk = 0; blank = 0 } /^$/ { blank++; next }
  { if (blank >= 2) blk++; blank = 0 } /^#/ { next } blk == b { print }' "$1.dat"; }
# near A B REL: |A - B| <= REL·|B|
near() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }
# path_block PREFIX: the number of a timeline's critical-path block (its last "predicted" block)
path_block() { echo $(($(grep -c '^# predicted' "$1.dat") - 1)); }
# path_end_ns PREFIX: where a timeline's critical path ends, in ns (its data's unit converted)
path_end_ns() {
  local unit scale
  unit=$(grep -m1 '^# predicted: span of each rank' "$1.dat" | sed 's/.*\[\([^ ]*\) since.*/\1/')
  scale=$(case $unit in ns) echo 1;; µs) echo 1e3;; ms) echo 1e6;; s) echo 1e9;; esac)
  data "$1" "$(path_block "$1")" | tail -1 | awk -v s="$scale" '{ printf "%.3f", $1 * s }'
}

# The examples of docs/plots.md, as written there (run from the repository root): each draws its
# picture (the checks of each plot below repeat them with the numbers checked).
docs=$traces/../docs/plots.md
n=0
while IFS= read -r cmd; do
  name=$(sed 's/.*--output \([^ ]*\).*/\1/' <<<"$cmd")
  cmd=${cmd/--output $name/--output $work/doc-$name}
  # eval: the shell expands the example's globs (traces/shift1d-ssend-p8-k*-m*) as it would.
  (cd "$traces/.." && eval "\"\$retime\" ${cmd#retime }" >/dev/null 2>"$work/doc-$name.err")
  check "doc-example-$name" [ $? -eq 0 ] && [ ! -s "$work/doc-$name.err" ]
  check "doc-example-$name-png" files "$work/doc-$name"
  check "doc-example-$name-svg" svg "$work/doc-$name.svg" 800 500
  check "doc-example-$name-pictured" grep -qF "](img/$name.png)" "$docs"
  n=$((n+1))
done < <(awk '/^```sh/ { on = 1; cmd = ""; next } /^```/ { on = 0; next }
  on && /\\$/ { sub(/\\$/, ""); cmd = cmd $0; next }
  on { cmd = cmd $0; gsub(/  +/, " ", cmd); if (cmd ~ /^retime plot /) print cmd; cmd = "" }' "$docs")
check doc-examples-four [ "$n" -eq 4 ]

H=(--alpha 2.122us --beta 0.7595ns/B)
T1=$traces/shift1d-ssend-p8-k1-m1000
T2=$traces/shift1d-ssend-p8-k2-m1000

# ------------------------------------------------------------------ plot shift
# The docs' example: the four 1D ssend traces, measured vs replay vs the closed form.
out=$("$retime" plot shift "$traces"/shift1d-ssend-p8-k*-m* "${H[@]}" --output "$work/shift" 2>"$work/err")
check shift-runs [ $? -eq 0 ]
check shift-no-warnings [ ! -s "$work/err" ]
check shift-png files "$work/shift"
check shift-svg svg "$work/shift.svg" 800 500 "Shift (1D ssend, 8 ranks): time per shift_iteration, measured vs predicted" \
  "against m1" "against k" "k = 1" "k = 2" "k = 3" "m1 = 1000 B" "m1 = 100000 B" "measured (mean ± σ)" \
  "replay (mean)" "closed form (eq. 1-3)" "time per iteration [µs]" "m1 (bytes per box)" "hockney α=2.122us β=0.7595ns/B"
check shift-says-written has "$out" "wrote $work/shift.svg $work/shift.png"
# k, m1, dims and the mode come from the messages in the trace: on all 7 stored traces they
# agree with the directory names (shift{dims}d-{mode}-p{ranks}-k{k}-m{m1}).
all=$("$retime" plot shift "$traces"/shift* "${H[@]}" --compute-scale 0 --output "$work/all")
check shift-all-runs [ $? -eq 0 ]
n=0
for dir in "$traces"/shift*; do
  name=$(basename "$dir")
  IFS=- read -r dm mode p k m <<<"$name"
  row=$(awk -v d="$dir" '$1 == d' <<<"$all")
  got=$(awk '{ print $2 "-" $3 "-" $4 "-" $5 }' <<<"$row")
  check "shift-derived-$name" same "$got" "${dm//[!0-9]/}-$mode-${k#k}-${m#m}"
  n=$((n+1))
done
check shift-all-seven [ "$n" -eq 7 ]
# With --compute-scale 0 the replay is the closed form (eq. 1-3) within 0.1%, and the closed
# form is the paper's Table 2: 4k·(α + β·1000 B) = 11.526, 23.052, 34.578 µs for k = 1, 2, 3.
check shift-table-k1 holds '$9 == 11.526 && $10 == 11.526' "$(data "$work/all" 0 | awk '$1 == 1 && $2 == 1 && $3 == 1 && $4 == 1000')"
check shift-table-k2 holds '$10 == 23.052' "$(data "$work/all" 0 | awk '$1 == 1 && $2 == 1 && $3 == 2 && $4 == 1000')"
check shift-table-k3 holds '$10 == 34.578' "$(data "$work/all" 0 | awk '$1 == 1 && $2 == 1 && $3 == 3 && $4 == 1000')"
bad=$(data "$work/all" 0 | awk '{ d = $9 - $10; if (d < 0) d = -d; if (d > 1e-3 * $10) print }')
check shift-replay-is-closed-form [ -z "$bad" ] && [ "$(data "$work/all" 0 | wc -l)" -eq 7 ]
# The measured mean is the mean over instances of `retime replay --region`'s measured means.
ref=$("$retime" replay "$T2" "${H[@]}" --region shift_iteration --format csv |
      awk -F, '$1 == "region" { s += $4; n++ } END { printf "%.6f", s / n / 1000 }')
got=$(data "$work/shift" 0 | awk '$3 == 2 && $4 == 1000 { print $7 }')
check shift-measured-mean near "$got" "$ref" 1e-5
# Errors: a trace that is not a Shift, a dimension region as --region, a wrong region.
check shift-not-shift-region fails_with "not a Shift trace: rank 0: no region shift_dim_x inside the first shift_warmup" \
  "$retime" plot shift "$T1" "${H[@]}" --region shift_warmup --output "$work/x"
check shift-not-shift-collective fails_with "not a Shift trace: rank 0: a collective (barrier) inside the iteration" \
  "$retime" plot shift "$T1" "${H[@]}" --region MPI_Barrier --output "$work/x"
check shift-dim-region fails_with "'shift_dim_x' is a dimension region" \
  "$retime" plot shift "$T1" "${H[@]}" --region shift_dim_x --output "$work/x"
check shift-no-region fails_with "not a Shift trace: no region named 'nope'" \
  "$retime" plot shift "$T1" "${H[@]}" --region nope --output "$work/x"
ext=$traces/../../shared/ext-traces/scorep-casita-late-sender-4
if [ -d "$ext" ]; then
  check shift-scorep-not-shift fails_with "not a Shift trace: no region named 'shift_iteration'" \
    "$retime" plot shift "$ext" "${H[@]}" --output "$work/x"
fi
check shift-no-trace fails_with "plot shift needs one or more Shift TRACEs" "$retime" plot shift "${H[@]}" --output "$work/x"
check shift-no-output fails_with "plot shift needs --output PREFIX" "$retime" plot shift "$T1" "${H[@]}"
check shift-missing-trace fails_with "$work/none" "$retime" plot shift "$work/none" "${H[@]}" --output "$work/x"
# The closed form is Hockney's: LogP-lite plots without it.
"$retime" plot shift "$T1" "$T2" --model logp --L 1us --o 0.3us --g 0.5us --G 0.7ns/B --output "$work/logp" >/dev/null
check shift-logp-no-closed-form [ "$(data "$work/logp" 0 | awk '{ print $10 }' | sort -u)" = NaN ]
check shift-logp-svg svg "$work/logp.svg" 800 500 "logp L=1us o_s=300ns" "replay (mean)"

# ------------------------------------------------------------------ plot timeline
out=$("$retime" plot timeline "$T2" "${H[@]}" --region shift_iteration --instances 3-4 --measured \
      --output "$work/timeline" 2>"$work/err")
check timeline-runs [ $? -eq 0 ]
check timeline-no-warnings [ ! -s "$work/err" ]
check timeline-png files "$work/timeline"
check timeline-svg svg "$work/timeline.svg" 800 500 "Timeline of $T2, ranks 0-7" "predicted" \
  "measured (12 messages received before sent: clocks out of sync)" "MPI_Ssend" "MPI_Recv" "MPI_Barrier" \
  "compute" "critical path" "rank"
# The whole run from 0: the critical path ends at the predicted run time (`retime replay`).
"$retime" plot timeline "$T1" "${H[@]}" --compute-scale 0 --from 0ns --to 1s --output "$work/whole" >/dev/null
end_ns=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 --format csv | awk -F, '$1 == "total" { print $5 }')
check timeline-path-ends-at-run-end near "$(path_end_ns "$work/whole")" "$end_ns" 1e-6
check timeline-path-starts-at-0 same "$(data "$work/whole" "$(path_block "$work/whole")" | head -1 | awk '{ print $1 + 0 }')" 0
# A window of ranks 2-5 with noise, a bigger picture.
"$retime" plot timeline "$T2" "${H[@]}" --net-noise exp:mean=1us --seed 2 --ranks 2-5 --size 1000x400 \
  --output "$work/ranks" >/dev/null
check timeline-size-png files "$work/ranks" 1000 400
check timeline-size-svg svg "$work/ranks.svg" 1000 400 "ranks 2-5" "net exp:mean=1us" "seed 2"
check timeline-rows-2-5 same "$(data "$work/ranks" 0 | awk '{ print $3 }' | tr '\n' ' ')" "2 3 4 5 "
# An MPI function keeps its colour from one plot to the next (issue #47 item 4): by its name, not by
# its place among the functions a window shows (MPI_Recv is first in the instances' window and
# second over the whole run; MPI_Ssend, MPI_Recv and MPI_Barrier take their table's colours), and the
# legend is one column (a second one ran past the right edge beside two panels).
colour() { sed -n "s/.*lc rgb '\(#[0-9A-Fa-f]*\)' title '$2'.*/\1/p" "$1.gp" 2>&1; }
for f in MPI_Ssend MPI_Recv MPI_Barrier; do
  check "timeline-colour-$f" same "$(colour "$work/timeline" $f)" "$(colour "$work/whole" $f)"
done
check timeline-colour-table same "$(colour "$work/timeline" MPI_Ssend) $(colour "$work/timeline" MPI_Recv) $(colour "$work/timeline" MPI_Barrier)" \
  "#009E73 #CC79A7 #E69F00"
check timeline-legend-one-column has "$(cat "$work/timeline.gp")" "maxcols 1"
check timeline-bad-ranks fails_with "--ranks 3-9: the trace has ranks 0-7" \
  "$retime" plot timeline "$T1" "${H[@]}" --ranks 3-9 --output "$work/x"
check timeline-bad-ranks-syntax fails_with "bad --ranks '5-2'" "$retime" plot timeline "$T1" "${H[@]}" --ranks 5-2 --output "$work/x"
check timeline-instances-alone fails_with "--instances needs --region NAME" \
  "$retime" plot timeline "$T1" "${H[@]}" --instances 1 --output "$work/x"
check timeline-instances-range fails_with "region 'shift_iteration' has 10 instances (0-9) on ranks 0-7, not 10-12" \
  "$retime" plot timeline "$T1" "${H[@]}" --region shift_iteration --instances 10-12 --output "$work/x"
check timeline-region-and-from fails_with "--region and --from/--to both set the window" \
  "$retime" plot timeline "$T1" "${H[@]}" --region shift_iteration --from 1us --output "$work/x"
check timeline-to-before-from fails_with "--to must be later than --from" \
  "$retime" plot timeline "$T1" "${H[@]}" --from 2us --to 1us --output "$work/x"
check timeline-from-after-end fails_with "--from 1s is not before the predicted end" \
  "$retime" plot timeline "$T1" "${H[@]}" --from 1s --output "$work/x"
check timeline-bad-time fails_with "--from: bad duration '3'" "$retime" plot timeline "$T1" "${H[@]}" --from 3 --output "$work/x"

# ------------------------------------------------------------------ plot montecarlo
N=(--net-noise exp:mean=1us --seed 3)
out=$("$retime" plot montecarlo "$T1" "${H[@]}" --compute-scale 0 "${N[@]}" --runs 1000 --output "$work/mc" 2>"$work/err")
check mc-runs [ $? -eq 0 ]
check mc-no-warnings [ ! -s "$work/err" ]
check mc-png files "$work/mc"
check mc-svg svg "$work/mc.svg" 800 500 "Monte Carlo: predicted run time over 1000 noisy runs" "CDF" \
  "noise-free 240.6" "median" "mean" "p95" "runs per bin" "predicted run time [µs]" "fraction of runs at or below (CDF)"
check mc-histogram-counts-runs same "$(data "$work/mc" 0 | awk '{ s += $2 } END { print s }')" 1000
check mc-cdf-ends-at-1 same "$(data "$work/mc" 1 | tail -1 | awk '{ print $2 }')" 1
# The marked median and p95 are those of `retime replay --runs` with the same seed.
json=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 "${N[@]}" --runs 1000 --format json)
med=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["predicted_ns"]["median"])' "$json")
p95=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["predicted_ns"]["p95"])' "$json")
check mc-median near "$(data "$work/mc" 3 | head -1 | awk '{ printf "%.6f", $1 * 1000 }')" "$med" 1e-8
check mc-p95 near "$(data "$work/mc" 5 | head -1 | awk '{ printf "%.6f", $1 * 1000 }')" "$p95" 1e-8
"$retime" plot montecarlo "$T1" "${H[@]}" "${N[@]}" --runs 50 --jobs 2 --bins 7 --region shift_iteration \
  --output "$work/mcr" >/dev/null
check mc-region-svg svg "$work/mcr.svg" 800 500 "mean time per instance of region shift_iteration over 50 noisy runs" \
  "runs per bin (7 bins)"
check mc-bins same "$(data "$work/mcr" 0 | wc -l)" 7
# The title fits the picture (issue #32 item 4: the model's line, with noise options, ran off both
# edges of the PNG): every line of it at most width/8 characters, broken at "; " first, and no
# word lost. title_fits PREFIX WIDTH
title_fits() {
  python3 - "$1.gp" "$2" <<'PY'
import re, sys
gp, width = open(sys.argv[1], encoding="utf-8").read(), int(sys.argv[2])
t = re.search(r"^set title (.*)$", gp, re.M).group(1)
lines = [x.replace("''", "'") for x in t[1:-1].split("'.\"\\n\".'")]
assert len(lines) >= 3, lines
long = [x for x in lines if len(x) > width // 8]
assert not long, "lines over %d characters: %r" % (width // 8, long)
PY
}
L=(--net-noise lognormal:median=1us,sigma=0.5 --os-noise periodic:period=1ms,duration=10us --seed 3)
"$retime" plot montecarlo "$T1" "${H[@]}" "${L[@]}" --runs 20 --region shift_iteration --output "$work/mcl" >/dev/null
check mc-title-fits title_fits "$work/mcl" 800
check mc-title-broken-at-semicolons has "$(grep '^set title' "$work/mcl.gp")" "compute-scale 1;'.\"\\n\".'net lognormal:median=1us,sigma=0.5 (mean 1.133us per message);'.\"\\n\".'os periodic"
check mc-title-svg svg "$work/mcl.svg" 800 500 "net lognormal:median=1us,sigma=0.5 (mean 1.133us per message);" \
  "os periodic:period=1ms,duration=10us (1% of rank 0's CPU); seed 3"
"$retime" plot montecarlo "$T1" "${H[@]}" "${L[@]}" --runs 20 --output "$work/mcs" --size 400x300 >/dev/null
check mc-title-fits-small title_fits "$work/mcs" 400
# On a network (--topology, as replay takes it; before, the timeline and Monte Carlo plots left it
# out without a word): the timeline's critical path ends at `retime replay`'s predicted run time on
# the same network, the Monte Carlo's median is replay --runs', and the titles name the network.
NET=(--topology torus:8 --hop-latency 1us)
"$retime" plot timeline "$T1" "${H[@]}" --compute-scale 0 "${NET[@]}" --from 0ns --to 1s --output "$work/tnet" >/dev/null
end_ns=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 "${NET[@]}" --format csv | awk -F, '$1 == "total" { print $5 }')
check timeline-network-end near "$(path_end_ns "$work/tnet")" "$end_ns" 1e-6
check timeline-network-title has "$(grep 'multiplot.*title' "$work/tnet.gp")" "torus:8, block mapping, 1 rank per node"
"$retime" plot montecarlo "$T1" "${H[@]}" --compute-scale 0 "${N[@]}" "${NET[@]}" --runs 20 --output "$work/mcnet" >/dev/null
json=$("$retime" replay "$T1" "${H[@]}" --compute-scale 0 "${N[@]}" "${NET[@]}" --runs 20 --format json)
med=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["predicted_ns"]["median"])' "$json")
check mc-network-median near "$(data "$work/mcnet" 3 | head -1 | awk '{ printf "%.6f", $1 * 1000 }')" "$med" 1e-8
check mc-network-title has "$(grep '^set title' "$work/mcnet.gp")" "torus:8, block mapping, 1 rank per node"
check shift-no-network fails_with "plot shift does not replay on a network" \
  "$retime" plot shift "$T1" "${H[@]}" "${NET[@]}" --output "$work/x"
check check-no-network fails_with "check does not replay on a network" \
  "$retime" check "$T1" --baseline "$traces/baseline.json" --mapping random:1
check mc-no-noise fails_with "plot montecarlo needs noise options" \
  "$retime" plot montecarlo "$T1" "${H[@]}" --runs 10 --output "$work/x"
check mc-no-runs fails_with "plot montecarlo needs --runs N" \
  "$retime" plot montecarlo "$T1" "${H[@]}" "${N[@]}" --output "$work/x"
check mc-bad-bins fails_with "bad --bins '0'" "$retime" plot montecarlo "$T1" "${H[@]}" "${N[@]}" --runs 5 --bins 0 --output "$work/x"
check mc-bad-runs fails_with "bad --runs 'x'" "$retime" plot montecarlo "$T1" "${H[@]}" "${N[@]}" --runs x --output "$work/x"

# ------------------------------------------------------------------ plot sweep
S=(--alpha 2.122us,1us,0.5us --beta 0.7595ns/B,0.38ns/B --compute-scale 0)
out=$("$retime" plot sweep "$T2" "${S[@]}" --output "$work/sweep" 2>"$work/err")
check sweep-runs [ $? -eq 0 ]
check sweep-no-warnings [ ! -s "$work/err" ]
check sweep-png files "$work/sweep"
check sweep-svg svg "$work/sweep.svg" 800 500 "predicted run time over --alpha and --beta" "latency (--alpha)" \
  "inverse bandwidth (--beta)" "2.122us" "500ns" "0.7595ns/B" "0.38ns/B" "predicted run time [µs]" "hockney, compute-scale 0"
# Every cell is `retime sweep`'s predicted total of that combination (first option slowest).
csv=$("$retime" sweep "$T2" "${S[@]}" --format csv)
cells=$(data "$work/sweep" 0 | awk '{ printf "%d %.3f\n", $1 * 2 + $2, $3 * 1000 }' | sort -n)
ref=$(awk -F, 'NR > 1 { printf "%d %.3f\n", $1, $5 }' <<<"$csv")
check sweep-cells-are-sweep same "$cells" "$ref"
"$retime" plot sweep "$T2" "${S[@]}" --value speedup --region shift_iteration --output "$work/speedup" >/dev/null
check sweep-speedup-svg svg "$work/speedup.svg" 800 500 "speed-up of the mean shift_iteration time" \
  "speed-up against --alpha 2.122us --beta 0.7595ns/B (> 1: faster)" "speed-up (> 1: faster)"
check sweep-speedup-origin same "$(data "$work/speedup" 0 | awk '$1 == 0 && $2 == 0 { print $3 }')" 1
# region speed-up of alpha 1us, beta 0.38ns/B: 4k·T(1000 B) ratio 11526·2 / (8·1380) = 2.088043
check sweep-speedup-cell holds '$1 > 2.0880 && $1 < 2.0881' "$(data "$work/speedup" 0 | awk '$1 == 1 && $2 == 1 { print $3 }')"
# On one network (no axis of it) the title names it, and wraps to the picture: at 400 pixels no
# line over 50 characters.
"$retime" plot sweep "$T2" "${S[@]}" --topology "fattree:XGFT(2;4,4;1,1)" --mapping random:3 --size 400x300 \
  --output "$work/sweepnet" >/dev/null
check sweep-network-title has "$(grep '^set title' "$work/sweepnet.gp")" "fattree:XGFT(2;4,4;1,1), random:3 mapping,"
check sweep-title-fits-small title_fits "$work/sweepnet" 400
# The docs' speed-up map: every cell is `retime sweep`'s speed-up of that combination.
D=(--alpha 2.122us,1us,0.5us,0.25us --beta 0.7595ns/B,0.38ns/B,0.19ns/B,0.095ns/B --compute-scale 0)
"$retime" plot sweep "$T2" "${D[@]}" --value speedup --output "$work/docsweep" >/dev/null
cells=$(data "$work/docsweep" 0 | awk '{ printf "%d %s\n", $1 * 4 + $2, $3 }' | sort -n)
ref=$("$retime" sweep "$T2" "${D[@]}" --format csv | awk -F, 'NR > 1 { print $1, $6 }')
# 16 cells, each within the CSV's 6 decimals
bad=$(paste -d' ' <(echo "$cells") <(echo "$ref") | awk '$1 != $3 || ($2 - $4) > 1e-6 || ($4 - $2) > 1e-6')
check sweep-doc-cells-are-sweep [ -z "$bad" ] && [ "$(wc -l <<<"$cells")" -eq 16 ] && [ "$(wc -l <<<"$ref")" -eq 16 ]
check sweep-doc-labels same "$(data "$work/docsweep" 1 | wc -l)" 16
check sweep-one-list fails_with "plot sweep needs exactly two options with a list of values" \
  "$retime" plot sweep "$T2" --alpha 1us,2us --beta 1ns/B --output "$work/x"
check sweep-three-lists fails_with "got 3" \
  "$retime" plot sweep "$T2" --alpha 1us,2us --beta 1ns/B,2ns/B --compute-scale 0,1 --output "$work/x"
check sweep-bad-value fails_with "bad --value 'fast'" \
  "$retime" plot sweep "$T2" "${S[@]}" --value fast --output "$work/x"
check sweep-bad-list fails_with "--alpha: bad duration '3'" "$retime" plot sweep "$T2" --alpha 1us,3 --beta 1ns/B,2ns/B --output "$work/x"

# ------------------------------------------------------------------ shared: outputs, gnuplot
check output-no-dir fails_with "directory '$work/nodir' does not exist" \
  "$retime" plot sweep "$T2" "${S[@]}" --output "$work/nodir/x"
check output-no-name fails_with "needs a file name prefix after the directory" \
  "$retime" plot sweep "$T2" "${S[@]}" --output "$work/"
check output-empty fails_with "--output needs a PREFIX" "$retime" plot sweep "$T2" "${S[@]}" --output=
# A prefix with a space and quotes: the script's gnuplot strings hold it as it is.
mkdir -p "$work/a dir"
"$retime" plot sweep "$T2" "${S[@]}" --output "$work/a dir/it's \"q\"" >/dev/null
check output-quoted-name files "$work/a dir/it's \"q\""
check bad-size fails_with "bad --size '10x10'" "$retime" plot sweep "$T2" "${S[@]}" --output "$work/x" --size 10x10
check unknown-option fails_with "unknown option '--bogus' for plot timeline" \
  "$retime" plot timeline "$T1" "${H[@]}" --bogus --output "$work/x"
"$retime" plot bogus >/dev/null 2>&1
check unknown-plot [ $? -eq 2 ]
check no-gnuplot fails_with "plot needs gnuplot, which is not on PATH" \
  env PATH="$work/empty" "$retime" plot sweep "$T2" "${S[@]}" --output "$work/x"
# A gnuplot that fails: its last line is the error.
mkdir -p "$work/fake"
printf '#!/bin/sh\necho "\\"x.gp\\" line 3: unknown or ambiguous terminal type" >&2\nexit 1\n' > "$work/fake/gnuplot"
chmod +x "$work/fake/gnuplot"
check gnuplot-fails fails_with "gnuplot failed on $work/x.gp (exit status 1): \"x.gp\" line 3: unknown or ambiguous terminal type" \
  env PATH="$work/fake:$PATH" "$retime" plot sweep "$T2" "${S[@]}" --output "$work/x"
# The script stands alone: rerun in its directory, it redraws both pictures from the data.
rm -f "$work/sweep.svg" "$work/sweep.png"
(cd "$work" && gnuplot sweep.gp)
check script-reruns files "$work/sweep"
check script-reruns-svg svg "$work/sweep.svg" 800 500 "latency (--alpha)"
checks_done
