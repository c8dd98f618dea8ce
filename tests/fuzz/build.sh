#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target tests/fuzz/fuzz_trace.c by hand (tests/fuzz/CMakeLists.txt, with
# clang) into OUTDIR/fuzz_trace; the main CMake build does the same as its target fuzz-trace.
# Exit 77 when clang or its libFuzzer runtime is missing (Debian: clang and libclang-rt-dev, both
# installed by scripts/install-deps.sh).
# RT_FUZZ_SANITIZE=undefined builds a faster variant without AddressSanitizer (for long runs whose
# corpus is then replayed by the ASan build).
# Usage: build.sh OUTDIR
#        build.sh --probe     (exit 0 when clang can build a libFuzzer target, else 77 and why)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR | --probe}
CC=${CC_FUZZ:-clang}
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not found" >&2; exit 77; }
# Probe for the fuzzer runtime with a hello-world target.
probe=$(mktemp -d "${TMPDIR:-/tmp}/retime-fuzz-probe.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
  > "$probe/probe.c"
"$CC" -fsanitize=fuzzer "$probe/probe.c" -o "$probe/probe" 2>/dev/null \
  || { echo "fuzz: $CC has no libFuzzer runtime (-fsanitize=fuzzer)" >&2; exit 77; }
[ "$out" = --probe ] && exit 0
cmake -S "$here" -B "$out" -DCMAKE_C_COMPILER="$CC" -DRT_FUZZ_SANITIZE="${RT_FUZZ_SANITIZE:-address,undefined}"
cmake --build "$out" -j"$(nproc 2>/dev/null || echo 2)"
echo "fuzz: built $out/fuzz_trace" >&2
