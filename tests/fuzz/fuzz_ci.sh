#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ctest "fuzz" test: builds tests/fuzz/fuzz_trace with clang (ASan + UBSan + libFuzzer), replays
# the stored corpus and every regression input once, then fuzzes for FUZZ_SECONDS (default 20) from
# the corpus into a scratch copy. Exit 77 (skipped) when clang or its libFuzzer runtime is missing.
# Usage: fuzz_ci.sh WORKDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: fuzz_ci.sh WORKDIR}
secs=${FUZZ_SECONDS:-20}
mkdir -p "$work"
"$here/build.sh" "$work/bin" > "$work/build.log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then tail -n 1 "$work/build.log"; exit 77; fi
[ $rc -eq 0 ] || { cat "$work/build.log"; echo "fuzz: build failed"; exit 1; }
fuzz=$work/bin/fuzz_trace
# Full malloc stacks so that lsan.supp can name the OTF2 functions whose own leaks it suppresses.
# allocator_may_return_null: OTF2 itself asks for up to 32 GiB when a definition count is corrupt;
# return NULL above 2 GiB (OTF2 then fails the read, as with a failing malloc) instead of aborting.
export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048
export LSAN_OPTIONS=suppressions=$here/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
inputs=("$here"/corpus/*)
# regressions/: inputs that once failed in our code; otf2-known/{oom,leak}-*: OTF2-internal findings that
# must stay harmless (otf2-known/slow-* take 10-20 s inside OTF2 and are left out).
for f in "$here"/regressions/* "$here"/otf2-known/oom-* "$here"/otf2-known/leak-*; do [ -f "$f" ] && inputs+=("$f"); done
"$fuzz" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=4096 "${inputs[@]}" > "$work/replay.log" 2>&1 \
  || { tail -n 60 "$work/replay.log"; echo "fuzz: a stored input fails"; exit 1; }
echo "fuzz: replayed ${#inputs[@]} stored inputs"
rm -rf "$work/corpus" "$work/artifacts"; mkdir -p "$work/corpus" "$work/artifacts"
# -timeout=60: OTF2 itself spends up to 20 s on some damaged anchors (README.md); ours must not hang.
"$fuzz" -timeout=60 -rss_limit_mb=4096 -malloc_limit_mb=4096 -max_total_time="$secs" -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$here/corpus" > "$work/fuzz.log" 2>&1 \
  || { tail -n 60 "$work/fuzz.log"; echo "fuzz: new failing input in $work/artifacts"; exit 1; }
grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$work/fuzz.log"
echo "fuzz: $secs s of fuzzing found nothing"
