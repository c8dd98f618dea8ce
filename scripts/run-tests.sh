#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds retime, and runs the whole ctest suite (with clang installed,
# the fuzz test too); then runs the whole suite again, MPI tests included, in an AddressSanitizer +
# UBSan + LeakSanitizer build. Every stage says what it does and how long it took (on stderr);
# the build and ctest print their own progress, a line per file and per test.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
stage() { echo "== [$(( SECONDS - t0 )) s] $*" >&2; }
stage "installing the Debian packages retime needs (if any are missing)"
./scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
stage "configuring and building build/ (RelWithDebInfo, the fuzz target with clang) with $jobs jobs"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
stage "ctest in build/"
ctest --test-dir build --output-on-failure -j"$jobs"
# Every test again under the sanitizers (a UBSan report halts the program, so the test fails),
# except valgrind (memcheck cannot run ASan programs) and fuzz (its target is built with its own
# ASan + UBSan, run above). tests/mpi/CMakeLists.txt sets up the MPI tests: options passed to the
# ranks, tests/lsan-mpi.supp for Open MPI's own leaks, the ranks' reports checked by
# mpi_sanitizer_reports.
stage "configuring and building build-asan/ (Debug, AddressSanitizer + UBSan) with $jobs jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRT_ASAN=ON -DRT_WITH_MPI=ON -DRT_FUZZ=OFF
cmake --build build-asan -j"$jobs"
stage "ctest in build-asan/ under the sanitizers"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE 'valgrind|fuzz'
stage "all tests passed"
