/* SPDX-License-Identifier: MIT */
/* The one writer of output files: every file retime writes (timelines, reports, plots and their
 * data, baselines) is written whole or not at all. */
#ifndef RETIME_OUTFILE_H
#define RETIME_OUTFILE_H

#include <stdio.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An output file being written; defined in outfile.c. */
struct rt__outfile;

/**
 * Opens output file @p path for writing. What is written goes to a temporary file beside it
 * (".NAME.XXXXXX" in the same directory), which rt__outfile_close renames over @p path once all of
 * it is written: a reader never sees a partial file, and a failed write leaves none (and @p path,
 * if it was there, as it was). @p path, when it exists, must be a regular file: a FIFO (whose
 * open would wait for a reader), a device or a directory is refused with one error naming it; a
 * symbolic link is followed (its target is replaced). @p what names the kind in errors ("timeline",
 * "JUnit report"). The new file gets the mode of the file it replaces, or 0666 less the umask.
 * @param out  receives the handle: write to rt__outfile_stream(), then rt__outfile_close() or
 *             rt__outfile_abort()
 * @return 0, or RT_EIO (not a regular file; the directory cannot take the file), RT_ENOMEM
 */
int rt__outfile_open(const char *path, const char *what, struct rt__outfile **out, rt_error *err);

/** The stream to write to (owned by the handle). */
FILE *rt__outfile_stream(const struct rt__outfile *o);

/** Writes @p n bytes of @p buf to the stream, keeping the errno of a failed write for
 *  rt__outfile_close (stdio keeps only an error flag). */
void rt__outfile_write(struct rt__outfile *o, const void *buf, size_t n);

/**
 * Flushes and closes the stream, checking every write (a full disk is named: "No space left on
 * device"), and renames the file into place; on any error the temporary file is removed and the
 * error names @p path. Frees @p o; NULL is a no-op.
 * @return 0, or RT_EIO
 */
int rt__outfile_close(struct rt__outfile *o, rt_error *err);

/** Abandons the file: the temporary file is removed, the path left as it was. Frees @p o; NULL is
 *  a no-op. */
void rt__outfile_abort(struct rt__outfile *o);

/** An output directory being written (an OTF2 archive); defined in outfile.c. */
struct rt__outdir;

/**
 * Claims output directory @p dir by making it (it must not exist: nothing is ever written into
 * an existing directory) and makes a temporary directory beside it (".NAME.XXXXXX", with the mode
 * mkdir(dir, 0777) would give) to write into (rt__outdir_path); rt__outdir_close renames that over
 * the empty @p dir once whole, so a reader never sees a partial archive. @p what names it in
 * errors ("the OTF2 archive"). Errors name @p dir: "already exists: WHAT is written into a new
 * directory", "cannot create the directory: ...", "cannot create a directory beside it: ...".
 * @return 0, or RT_EIO, RT_ENOMEM (then nothing is left behind)
 */
int rt__outdir_open(const char *dir, const char *what, struct rt__outdir **out, rt_error *err);

/** The temporary directory to write into. */
const char *rt__outdir_path(const struct rt__outdir *d);

/** Moves the temporary directory into place ("cannot move WHAT into place: ..." naming @p dir on
 *  failure, which removes both). Frees @p d. @return 0 or RT_EIO */
int rt__outdir_close(struct rt__outdir *d, rt_error *err);

/** Abandons the output: both directories, and what was written into them, are removed. Frees @p d;
 *  NULL is a no-op. */
void rt__outdir_abort(struct rt__outdir *d);

/** The last component of @p path, trailing slashes not counted: it starts at *base and is *len
 *  bytes long ("a/b/" gives "b"; "/" and "" give a length of 0). */
void rt__path_last(const char *path, size_t *base, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
