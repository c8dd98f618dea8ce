#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` into a scratch prefix, then what docs/tutorial.md does with it: a program
# that marks a region builds against the installed region API through pkg-config and through
# find_package(retime), runs without the tracer (the calls do nothing), and under mpirun with the
# installed tracer preloaded writes a trace whose regions `retime info` lists.
set -u
build=$1; work=$2
here=$(cd "$(dirname "$0")" && pwd)
quiet() { "$@" >/dev/null 2>&1; }
rm -rf "$work"; mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
prefix=$work/prefix
check install-runs quiet cmake --install "$build" --prefix "$prefix"
check install-pc-files [ -f "$prefix/lib/pkgconfig/retime-region.pc" ] && [ -f "$prefix/lib/pkgconfig/retime-trace.pc" ]
check install-cmake-package [ -f "$prefix/lib/cmake/retime/retimeConfig.cmake" ]

cat >"$work/solver.c" <<'C'
#include <mpi.h>
#include <retime/region.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int it = 0; it < 3; it++) {
        rt_region_begin("solve");
        double x = it, y = 0;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        rt_region_end();
    }
    MPI_Finalize();
    return 0;
}
C
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
check pkg-config-build quiet mpicc -o "$work/solver" "$work/solver.c" $(pkg-config --cflags --libs retime-region)
check runs-without-tracer quiet env LD_LIBRARY_PATH="$prefix/lib" "$here/../scripts/mpirun.sh" -np 2 -x LD_LIBRARY_PATH \
  "$work/solver"
check traced quiet env LD_LIBRARY_PATH="$prefix/lib" RETIME_TRACE_DIR="$work/trace" "$here/../scripts/mpirun.sh" -np 2 \
  -x LD_LIBRARY_PATH -x RETIME_TRACE_DIR -x LD_PRELOAD="$prefix/lib/libretime-trace.so" "$work/solver"
out=$("$prefix/bin/retime" info "$work/trace" 2>&1)
check trace-has-region has "$out" "solve"

mkdir -p "$work/cmake-app"
cp "$work/solver.c" "$work/cmake-app/"
cat >"$work/cmake-app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(solver C)
find_package(retime REQUIRED)
add_executable(solver solver.c)
target_link_libraries(solver PRIVATE retime::region MPI::MPI_C)
CM
check find-package-configure quiet cmake -S "$work/cmake-app" -B "$work/cmake-app/build" -DCMAKE_PREFIX_PATH="$prefix"
check find-package-build quiet cmake --build "$work/cmake-app/build"
checks_done
