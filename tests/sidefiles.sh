#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad side files (issue 19): every file retime reads besides the trace goes through one reader
# (replay/src/util/sidefile.c). For each kind (parameter file --params, noise file --os-noise
# file:PATH, empirical histogram --net-noise empirical:PATH, retime check's --baseline, the
# network's --mapping file:PATH, the collective rules of --coll-algos FILE, whose FIFO waited for a
# writer forever before issue 34) and each
# bad input (/dev/zero, a FIFO without a writer, a 1 GB sparse file, random bytes, an overlong
# line, control bytes in a line, a directory) retime must print exactly one line on stderr,
# "retime: error: " and the expected text, of printable ASCII only and at most 200 characters
# (not counting the test's directory in the file's path),
# and exit with status 1 (retime check: 2, its status for an unusable baseline) within a second of
# CPU time (user + system: what reading a huge file would cost, whatever else the machine runs);
# `timeout 30` turns a hang into a failure instead of a stuck CI job.
# Usage: sidefiles.sh RETIME TRACES_DIR WORKDIR
set -u
retime=$1; traces=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
fails=0; passes=0
# Within a second of CPU; the sanitizer build (several times slower to start and to open the
# trace first) sets RT_SIDEFILE_MS higher in tests/CMakeLists.txt. A hang is caught by timeout.
limit_ms=${RT_SIDEFILE_MS:-1000}
T=$traces/shift1d-ssend-p8-k1-m1000
H=(--alpha 2.122us --beta 0.7595ns/B)


expect() { # name, exit status, expected text, command...
  local name=$1 want_rc=$2 text=$3; shift 3
  local errf="$work/.stderr" cpuf="$work/.cpu" rc ms lines bytes odd why="" TIMEFORMAT='%3U %3S'
  { time timeout 30 "$@" >/dev/null 2>"$errf"; } 2>"$cpuf"; rc=$?
  ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$cpuf")
  lines=$(wc -l <"$errf")
  bytes=$(wc -c <"$errf")
  odd=$(LC_ALL=C tr -d '\040-\176\n' <"$errf" | wc -c) # bytes that are neither printable nor the line end
  [ "$rc" -eq "$want_rc" ] || why="exit status $rc (want $want_rc)"
  [ "$lines" -eq 1 ] || why="$why; $lines lines on stderr"
  [ $((bytes - ${#work})) -le 201 ] || why="$why; $bytes bytes on stderr" # 200 and the line end, besides the path
  [ "$odd" -eq 0 ] || why="$why; $odd non-printable bytes"
  [ "$ms" -le "$limit_ms" ] || why="$why; took $ms ms of CPU"
  LC_ALL=C grep -q "^retime: error: " "$errf" || why="$why; no 'retime: error: '"
  LC_ALL=C grep -qF -- "$text" "$errf" || why="$why; no '$text'"
  if [ -n "$why" ]; then
    echo "FAIL $name: ${why#; }: $(head -c 400 "$errf" | cat -v)"; fails=$((fails+1))
  else
    echo "ok   $name ($ms ms CPU): $(cat "$errf")"; passes=$((passes+1))
  fi
}

# ---------------------------------------------------------------- the bad inputs
mkfifo "$work/fifo"
truncate -s 1G "$work/sparse"
mkdir "$work/dir"
# Random bytes from a fixed seed: 3,000,000 of them (above the parameter file's 1 MiB), and
# 300,000 without NUL bytes, which reach the parsers of every kind.
python3 - "$work" <<'PY'
import random, sys
r = random.Random(19)
open(sys.argv[1] + "/binary", "wb").write(r.randbytes(3000000))
open(sys.argv[1] + "/binary-nonul", "wb").write(r.randbytes(300000).replace(b"\0", b"\1"))
PY
head -c 5000 /dev/zero | tr '\0' x >"$work/long"; echo >>"$work/long"
# The baseline, JSON, takes lines up to 1 MiB (a minified file is one line): 2 MiB of spaces.
head -c 2097152 /dev/zero | tr '\0' ' ' >"$work/long-json"; echo '{}' >>"$work/long-json"

# ---------------------------------------------------------------- each kind
kinds=(params noise histogram baseline mapping rules)
declare -A what=([params]="parameter file" [noise]="noise file" [histogram]="histogram" [baseline]="baseline"
                 [mapping]="mapping file" [rules]="collective rules file")
run() { # kind, path, test name, expected text: the command that reads this kind of side file
  local kind=$1 path=$2 name=$3 text=$4
  case $kind in
  params) expect "$kind-$name" 1 "$text" "$retime" replay "$T" --params "$path" ;;
  noise) expect "$kind-$name" 1 "$text" "$retime" replay "$T" "${H[@]}" --os-noise "file:$path" ;;
  histogram) expect "$kind-$name" 1 "$text" "$retime" replay "$T" "${H[@]}" --net-noise "empirical:$path" ;;
  baseline) expect "$kind-$name" 2 "$text" "$retime" check "$T" --baseline "$path" ;;
  mapping) expect "$kind-$name" 1 "$text" "$retime" replay "$T" "${H[@]}" --topology torus:4x4 --mapping "file:$path" ;;
  rules) expect "$kind-$name" 1 "$text" "$retime" replay "$T" "${H[@]}" --coll-algos "$path" ;;
  esac
}
for k in "${kinds[@]}"; do
  w=${what[$k]}
  run "$k" /dev/zero dev-zero "/dev/zero: is a character device, not a $w (it must be a regular file)"
  run "$k" "$work/fifo" fifo "fifo: is a FIFO, not a $w"
  run "$k" "$work/dir" directory "dir: is a directory, not a $w"
  run "$k" "$work/sparse" sparse-1g "sparse: $w of 1073741824 bytes is larger than the maximum"
done
run params "$work/binary" binary "binary: parameter file of 3000000 bytes is larger than the maximum 1048576 bytes"
for k in noise histogram baseline mapping rules; do
  run "$k" "$work/binary" binary "binary:1: NUL byte in the line"
done
run mapping "$work/binary-nonul" binary-nonul "binary-nonul line 1: expected 'RANK NODE', found '"
run mapping "$work/long" long-line "long:1: line longer than 4096 bytes"
run params "$work/binary-nonul" binary-nonul "binary-nonul:1: "
run noise "$work/binary-nonul" binary-nonul "binary-nonul:1: expected 'start duration' in ns"
run histogram "$work/binary-nonul" binary-nonul "binary-nonul:1: not a histogram"
run baseline "$work/binary-nonul" binary-nonul "binary-nonul:1:1: not valid JSON"
for k in params noise histogram rules; do
  run "$k" "$work/long" long-line "long:1: line longer than 4096 bytes"
done
run baseline "$work/long-json" long-line "long-json:1: line longer than 1048576 bytes"

# ---------------------------------------------------------------- control bytes, long values
# Quoted content: escaped as \xNN, cut to 60 characters with "...".
printf 'format = retime-params 1\nalpha = 2\033[31mus\n' >"$work/ctl.txt"
run params "$work/ctl.txt" control-bytes "ctl.txt:2: alpha: bad duration '2\\x1b[31mus': needs a unit"
{ printf 'al\001pha'; head -c 300 /dev/zero | tr '\0' k; printf ' = 2us\n'; } >"$work/key.txt"
run params "$work/key.txt" long-key "key.txt:1: al\\x01pha"
{ head -c 500 /dev/zero | tr '\0' q; echo; } >"$work/noeq.txt"
run params "$work/noeq.txt" no-equals "noeq.txt:1: expected 'key = value', got 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...'"
printf '100 5\n\001\002 3\n' >"$work/ctl-noise.txt"
run noise "$work/ctl-noise.txt" control-bytes "ctl-noise.txt:2: expected 'start duration' in ns"
# JSON strings decode \u escapes to raw bytes: a control character in a string is refused, quoted.
baseline() { # MODEL NOISE: a baseline with these two values (JSON text) and no traces
  cat <<J
{
  "format": "retime-check-baseline",
  "version": 1,
  "settings": {
    "model": $1,
    "params": {"alpha_ns": 2122, "beta_ns_per_byte": 0.7595},
    "beta_table": null,
    "eager_limit_bytes": 65536,
    "compute_scale": 1,
    "collectives": {"barrier": "auto", "bcast": "auto", "gather": "auto", "scatter": "auto", "allgather": "auto",
                    "alltoall": "auto", "reduce": "auto", "allreduce": "auto", "scan": "auto"},
    "noise": $2
  },
  "regions": [],
  "traces": []
}
J
}
baseline '"hock\u001bney"' null >"$work/ctl.json"
run baseline "$work/ctl.json" control-bytes-json 'ctl.json: settings.model: control character in "hock\x1bney"'
# A noise file named in the baseline goes through the same reader.
baseline '"hockney"' '{"seed": 1, "net": null, "os": ["file:/dev/zero"], "burst": null}' >"$work/os.json"
run baseline "$work/os.json" noise-file-in-baseline "os.json: settings.noise.os[0]: /dev/zero: is a character device, not a noise file"
printf '{"a": [1, 2, 3] x\001\002 }\n' >"$work/bad.json"
run baseline "$work/bad.json" invalid-json "bad.json:1:"

# ---------------------------------------------------------------- values that feed the clock (issue 34)
# One delay is at most 1000 s (docs/noise.md, "Bounds"); counts are whole numbers; each key once.
hist() { printf 'size_bytes,bin_lo_ns,bin_hi_ns,count\n'; printf '%s\n' "$@"; }
hist 8,100,200,5 8,200,300,-1 >"$work/neg.csv"
run histogram "$work/neg.csv" negative-count "neg.csv:3: count -1 is not a whole number from 0 to 2^53"
hist 8,100,200,5 8,200,300,1.5 >"$work/frac.csv"
run histogram "$work/frac.csv" fractional-count "frac.csv:3: count 1.5 is not a whole number from 0 to 2^53"
hist 8,0,0,1 8,1e300,1e300,1 >"$work/huge.csv"
run histogram "$work/huge.csv" huge-bin "huge.csv: a bin reaches 1e+291s above the smallest edge, beyond 1000s"
hist 8,0,1,9007199254740991 8,1,2,9007199254740991 >"$work/many.csv"
run histogram "$work/many.csv" counts-overflow "many.csv:3: the counts add up to 2^53 or more"
printf '0 100\n5000 2000000000000\n' >"$work/long-detour.txt"
run noise "$work/long-detour.txt" long-detour "long-detour.txt:2: a detour of 2000000000000 ns, beyond 1000s"
printf 'format = retime-params 1\nalpha = 2us\nbeta = 1ns/B\nalpha = 3us\n' >"$work/twice.txt"
run params "$work/twice.txt" key-twice "twice.txt:4: alpha: given again (first on line 2); each key appears once"
printf 'format = retime-params 1\ninfo.host = a\nalpha = 2us\nbeta = 1ns/B\ninfo.host = b\n' >"$work/twice-info.txt"
run params "$work/twice-info.txt" info-key-twice "twice-info.txt:5: info.host: given again (first on line 2)"

rm -f "$work/fifo" "$work/sparse" # a 1 GB file, even sparse, would puzzle whoever looks at the disk
echo "sidefiles: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
