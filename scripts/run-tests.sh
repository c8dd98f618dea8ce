#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds retime, and runs the whole ctest suite (with clang installed,
# the fuzz test too); then runs the whole suite again, MPI tests included, in an AddressSanitizer +
# UBSan + LeakSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
# Every test again under the sanitizers (a UBSan report halts the program, so the test fails),
# except valgrind (memcheck cannot run ASan programs) and fuzz (fuzz_ci.sh builds its own clang
# ASan + UBSan target, run above). tests/mpi/CMakeLists.txt sets up the MPI tests: options passed
# to the ranks, tests/lsan-mpi.supp for Open MPI's own leaks, the ranks' reports checked by
# mpi_sanitizer_reports.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRT_ASAN=ON -DRT_WITH_MPI=ON -DRT_FUZZ=OFF
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE 'valgrind|fuzz'
