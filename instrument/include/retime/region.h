/* SPDX-License-Identifier: MIT */
/* retime user regions: mark named phases of an MPI program so they appear in its OTF2 trace. */
#ifndef RETIME_REGION_H
#define RETIME_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Enter the user region @p name on the calling rank.
 *
 * Regions nest like a stack and must be closed with rt_region_end() in reverse order. The name is
 * copied (interned) on first use, so the caller keeps ownership of @p name. Programs link to
 * libretime-region, whose versions do nothing; when libretime-trace is preloaded or linked, its
 * versions record Enter/Leave events (paradigm USER, role FUNCTION). Calls before MPI_Init or
 * after MPI_Finalize are ignored. Not thread-safe: call from the thread that calls MPI.
 *
 * @param name region name, NUL-terminated; NULL is ignored.
 */
void rt_region_begin(const char *name);

/**
 * @brief Leave the innermost region entered with rt_region_begin(); unmatched calls are ignored.
 */
void rt_region_end(void);

#ifdef __cplusplus
}
#endif

#endif /* RETIME_REGION_H */
