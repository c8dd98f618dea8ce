#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ctest "fuzz" test: runs the build's fuzz_trace (ASan + UBSan + libFuzzer; the target
# fuzz-trace of tests/CMakeLists.txt builds it, this test builds nothing):
#   1. deterministic: replays every stored input once under ASan + UBSan + LeakSanitizer: corpus/,
#      regressions/ and otf2-known/ (OTF2's slow anchors with a longer per-input limit);
#   2. fuzzes FUZZ_RUNS (default 4000) inputs with seed FUZZ_SEED (default 1) from the corpus into a
#      scratch copy under ASan + UBSan (no leak check: see below), the same inputs on every run:
#      bounded by a number of inputs, never by wall time; long campaigns are run by hand
#      (README.md).
# Any crash, sanitizer report, leak or hang (libFuzzer's -timeout) fails the test; a new failing
# input is kept in WORKDIR/artifacts and printed (base64) so that it can be taken from a CI log.
# Exit 77 (skipped), printing WHY, when the build has no fuzz target (no clang or no libFuzzer).
# Usage: fuzz_ci.sh WORKDIR FUZZ_BINARY|"" WHY
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: fuzz_ci.sh WORKDIR FUZZ_BINARY WHY}
fuzz=${2:-}
runs=${FUZZ_RUNS:-4000}
seed=${FUZZ_SEED:-1}
if [ -z "$fuzz" ]; then echo "fuzz: skipped: ${3:-no fuzz target in this build}"; exit 77; fi
[ -x "$fuzz" ] || { echo "FAIL: fuzz: $fuzz was not built (cmake --build builds the target fuzz-trace)"; exit 1; }
mkdir -p "$work"
t0=$(date +%s)
# Full malloc stacks so that lsan.supp can name the OTF2 functions whose own leaks it suppresses.
# allocator_may_return_null: OTF2 itself asks for up to 32 GiB when a definition count is corrupt;
# return NULL above 2 GiB (OTF2 then fails the read, as with a failing malloc) instead of aborting.
export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048
export LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
limits=(-rss_limit_mb=4096 -malloc_limit_mb=4096)
# replay NAME TIMEOUT FILE...: each file once; a failure prints the log's end.
replay() {
  local name=$1 timeout=$2
  shift 2
  [ $# -gt 0 ] || return 0
  local t=$(date +%s)
  "$fuzz" -timeout="$timeout" "${limits[@]}" "$@" > "$work/replay-$name.log" 2>&1 || {
    tail -n 60 "$work/replay-$name.log"; echo "FAIL: fuzz: a stored input ($name) fails"; exit 1; }
  echo "fuzz: replayed $# $name inputs in $(( $(date +%s) - t )) s (limit ${timeout} s each)"
}
shopt -s nullglob
# corpus/ and regressions/ exercise our code: 10 s each is far above any of them (ms).
# otf2-known/{oom,leak}-*: OTF2-internal findings that must stay harmless (NULL from malloc, leaks in
# lsan.supp). otf2-known/slow-*: damaged anchors for which OTF2_AnchorFile_Load asks for ~23 GB and,
# where malloc grants it, spins 10-20 s (60-80 s in an ASan build) before failing; with
# max_allocation_size_mb above, ASan refuses the request and they take milliseconds. 120 s each all
# the same, so that OTF2's own slowness can never fail CI.
replay corpus 10 "$here"/corpus/* "$here"/regressions/*
replay otf2-known 10 "$here"/otf2-known/oom-* "$here"/otf2-known/leak-*
replay otf2-slow 120 "$here"/otf2-known/slow-*
rm -rf "$work/corpus" "$work/artifacts"; mkdir -p "$work/corpus" "$work/artifacts"
# -timeout=60: OTF2 itself spends up to 20 s on some damaged anchors (README.md); ours must not hang.
# Fast (frame-pointer) malloc stacks and no leak check here: on some anchors OTF2_AnchorFile_Load
# allocates and frees so often that the full-stack unwinding lsan.supp needs takes minutes per
# input. Leaks are checked above on every stored input; new inputs found here go to corpus/.
ASAN_OPTIONS=${ASAN_OPTIONS/fast_unwind_on_malloc=0:detect_leaks=1/fast_unwind_on_malloc=1:detect_leaks=0} \
"$fuzz" -timeout=60 "${limits[@]}" -seed="$seed" -runs="$runs" -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$here/corpus" > "$work/fuzz.log" 2>&1 || {
  tail -n 60 "$work/fuzz.log"
  for f in "$work"/artifacts/*; do
    echo "fuzz: failing input $f ($(wc -c < "$f") bytes), base64 (decode with base64 -d into tests/fuzz/regressions/):"
    base64 -w 100 "$f" | head -c 20000; echo
  done
  echo "FAIL: fuzz: new failing input in $work/artifacts"; exit 1; }
grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$work/fuzz.log"
echo "fuzz: $runs inputs of seed $seed found nothing; $(( $(date +%s) - t0 )) s in all"
