#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target tests/fuzz/fuzz_trace.c with clang, the retime-replay sources and
# the test OTF2 builder compiled with the same -fsanitize=fuzzer,address,undefined flags, into
# OUTDIR/fuzz_trace. Independent of the CMake (gcc) build. Exit 77 when clang or its libFuzzer
# runtime is missing (Debian: clang and libclang-rt-dev, both installed by scripts/install-deps.sh).
# RT_FUZZ_SANITIZE=undefined builds a faster variant without AddressSanitizer (for long runs whose
# corpus is then replayed by the ASan build).
# Usage: build.sh OUTDIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build.sh OUTDIR}
CC=${CC_FUZZ:-clang}
mkdir -p "$out"
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not found" >&2; exit 77; }
# Probe for the fuzzer runtime with a hello-world target.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
  > "$out/probe.c"
"$CC" -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null \
  || { echo "fuzz: $CC has no libFuzzer runtime (-fsanitize=fuzzer)" >&2; exit 77; }
otf2_cflags=$(pkg-config --cflags otf2 2>/dev/null || otf2-config --cflags 2>/dev/null || true)
otf2_libs=$(pkg-config --libs otf2 2>/dev/null || otf2-config --ldflags --libs 2>/dev/null || echo -lopen-trace-format2)
san=${RT_FUZZ_SANITIZE:-address,undefined}
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,$san
       -fno-sanitize-recover=undefined -Wall -Wextra -Wno-unused-parameter)
objs=()
# The whole replay library, one folder per layer (docs/architecture.md); every layer's folder on
# the include path, as the engine, the top layer, sees them.
layer_inc=()
for d in "$src"/replay/src/*/; do layer_inc+=(-I"$d"); done
# One compiler per core at a time (the ASan + UBSan build of the library is most of the test's
# time); any failure fails the build.
jobs=$(nproc 2>/dev/null || echo 2)
pids=()
for f in "$src"/replay/src/*/*.c "$src"/tests/support/otf2_builder.c; do
  o="$out/$(basename "$f" .c).o"
  "$CC" "${flags[@]}" $otf2_cflags -I"$src/replay/include" "${layer_inc[@]}" -c "$f" -o "$o" &
  pids+=($!)
  objs+=("$o")
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}" || exit 1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || exit 1; done
"$CC" "${flags[@]}" $otf2_cflags -D_POSIX_C_SOURCE=200809L -I"$src/replay/include" -I"$src/tests/support" \
  -DRT_FUZZ_TRACE="\"$src/traces/shift1d-ssend-p8-k1-m1000\"" -c "$src/tests/fuzz/fuzz_trace.c" -o "$out/fuzz_trace.o"
"$CC" -fsanitize=fuzzer,$san "$out/fuzz_trace.o" "${objs[@]}" $otf2_libs -lm -lpthread \
  -o "$out/fuzz_trace"
echo "fuzz: built $out/fuzz_trace" >&2
