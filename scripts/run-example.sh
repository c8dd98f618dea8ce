#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds retime, and replays a stored sample trace (the paper's 1D
# Shift, k=1, m1=1000 B on 8 ranks) under Hockney with the paper's α and β; extra arguments
# are passed to `retime replay` (e.g. --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "== $*" >&2; } # one line per stage, on stderr (stdout is retime's)
stage "installing the Debian packages retime needs (if any are missing)"
./scripts/install-deps.sh
stage "configuring (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
stage "building retime with $(nproc 2>/dev/null || echo 2) jobs (under a minute on two cores, busy or not)"
# The retime command alone (the tests' build is run-tests.sh's). The build's own progress lines
# ("[ 42%] Building C object ...", one per file), on stderr, so a long build is never silent; the
# compilers' warnings and errors pass through too.
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target retime 2>&1 |
  { grep --line-buffered -v '^\(Scanning\|Consolidate\|Built target\)' >&2 || true; }
stage "replaying traces/shift1d-ssend-p8-k1-m1000; next: docs/tutorial.md (your own program)"
exec ./build/cli/retime replay traces/shift1d-ssend-p8-k1-m1000 --model hockney \
  --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 --region shift_iteration "$@"
