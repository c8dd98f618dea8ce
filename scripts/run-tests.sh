#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds retime, and runs the whole ctest suite; then runs the unit,
# integration and bad-input tests again in an AddressSanitizer+UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
# The sanitizer build leaves MPI out: the tracer is preloaded into MPI programs, where ASan's
# runtime would have to come first.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRT_ASAN=ON -DRT_WITH_MPI=OFF -DRT_BUILD_BENCH=OFF
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -L 'unit|integration|bad-input'
