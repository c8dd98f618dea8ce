/* SPDX-License-Identifier: MIT */
/* Checks that the preloaded tracer leaves the program's unwinding functions alone: backtrace()
 * must not come from libunwind, nor _Unwind_Backtrace or _Unwind_RaiseException (C++ exception
 * unwinding) where the program's scope has them, even while the tracer uses libunwind for
 * RETIME_TRACE_CALLSITE_SKIP. Prints where each resolves and "interpose_test: passed". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* 1 if @p name resolves into libunwind in the program's global scope. */
static int from_libunwind(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname) {
        printf("%s: not in the global scope\n", name);
        return 0;
    }
    printf("%s: %s\n", name, info.dli_fname);
    return strstr(info.dli_fname, "libunwind") != NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    void *frames[8];
    int n = backtrace(frames, 8);
    MPI_Barrier(MPI_COMM_WORLD); /* a traced call, so the tracer has unwound at least once */
    int bad = 0;
    if (rank == 0) {
        bad += from_libunwind("backtrace");
        bad += from_libunwind("_Unwind_Backtrace");
        bad += from_libunwind("_Unwind_RaiseException");
        if (bad)
            printf("interpose_test: FAILED: %d function(s) of the program come from libunwind\n",
                   bad);
        else
            printf("interpose_test: passed (backtrace gave %d frames)\n", n);
    }
    MPI_Finalize();
    return bad != 0;
}
