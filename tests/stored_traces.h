/* SPDX-License-Identifier: MIT */
/* Runs a check on every stored Shift trace (traces/shift*, at least 7) and on the Score-P traces
 * beside the checkout when they are present. Include after test_util.h and <dirent.h>. */
#ifndef RETIME_STORED_TRACES_H
#define RETIME_STORED_TRACES_H

#include <dirent.h>
#include <unistd.h>

/* @p fn gets the trace's path and whether it is the first stored trace. */
static void rt_test_on_traces(const char *traces_dir, const char *ext_dir, void (*fn)(const char *path, int first))
{
    DIR *dp = opendir(traces_dir);
    CHECK(dp != NULL);
    if (!dp)
        return;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        char path[1024];
        if (strncmp(de->d_name, "shift", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", traces_dir, de->d_name);
        fn(path, n == 0);
        n++;
    }
    closedir(dp);
    CHECK(n >= 7);
    static const char *ext[] = {"scorep-casita-late-sender-4", "scorep-stencil4d-32"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/traces.otf2", ext_dir, ext[i]);
        if (access(path, R_OK) == 0)
            fn(path, 0);
        else
            printf("skipped %s (not present)\n", path);
    }
}

#endif
