#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs retime's build and test dependencies from Debian packages (only what is missing).
# clang and libclang-rt-dev (its sanitizer and libFuzzer runtimes: only recommended by clang, so
# named here for --no-install-recommends) build the fuzz target of tests/fuzz for ctest -L fuzz.
# python3-otf2 is a second OTF2 writer: tests/ext/gen_traces.py writes traces with it.
# --bench adds what bench/vs_loggopsim.sh needs to build LogGOPSim from its sources (graphviz's
# cgraph, which its Network.hpp includes; re2c and gengetopt for its generated files).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libopen-trace-format2-dev otf2-tools libunwind-dev
      libdw-dev libopenmpi-dev openmpi-bin gnuplot-nox python3 valgrind libjansson-dev
      clang libclang-rt-dev python3-otf2)
[ "${1:-}" = --bench ] && pkgs+=(libgraphviz-dev re2c gengetopt g++ time)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "retime: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
