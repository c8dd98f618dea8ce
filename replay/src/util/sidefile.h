/* SPDX-License-Identifier: MIT */
/* The one reader of side files: every file retime reads besides the trace (parameter files,
 * noise files, empirical histograms, check baselines, mapping and topology files). */
#ifndef RETIME_SIDEFILE_H
#define RETIME_SIDEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest line a side file may hold, its end not counted. */
#define RT__SIDEFILE_MAX_LINE 4096u

/** An open side file; defined in sidefile.c. */
struct rt__sidefile;

/**
 * Opens a side file: regular files only (a FIFO, a device, a directory: one error naming the
 * file and what it is), refused when larger than @p max_bytes (checked by fstat before reading
 * and again while reading). @p what names the kind in errors ("parameter file", "noise file",
 * ...). Never blocks on a FIFO.
 * @param out  receives the handle, which the caller closes with rt__sidefile_close()
 * @return 0, or RT_ENOTFOUND (no such file), RT_EIO (cannot open; not a regular file),
 *         RT_ERANGE (larger than @p max_bytes), RT_ENOMEM
 */
int rt__sidefile_open(const char *path, const char *what, uint64_t max_bytes,
                      struct rt__sidefile **out, rt_error *err);

/**
 * Next line without its end (\n or \r\n), NUL-terminated, valid until the next call.
 * A last line without a line end is returned like the others.
 * @return 1 with a line, 0 at end of file, < 0 on error (a line longer than
 *         RT__SIDEFILE_MAX_LINE or a NUL byte in a line: RT_ECORRUPT; the file grew past its
 *         maximum while being read: RT_ERANGE; a read error: RT_EIO), the error naming file and
 *         line number. After an error, further calls return the same code.
 */
int rt__sidefile_line(struct rt__sidefile *f, const char **line, size_t *len, rt_error *err);

/**
 * Raises (or lowers) the longest line rt__sidefile_line() accepts, RT__SIDEFILE_MAX_LINE by
 * default; for formats such as JSON whose lines may legitimately be long. 0 is ignored.
 */
void rt__sidefile_set_max_line(struct rt__sidefile *f, size_t max_line);

/** Number of the line last returned by rt__sidefile_line() (1-based; 0 before the first). */
uint32_t rt__sidefile_lineno(const struct rt__sidefile *f);

/** The path the file was opened with (owned by the handle). */
const char *rt__sidefile_path(const struct rt__sidefile *f);

/** What a file of mode @p mode (st_mode) is, for an error message: "directory", "FIFO",
 * "character device", "block device", "socket", "special file" (or "regular file"). */
const char *rt__file_kind(unsigned mode);

/** Closes the file and frees the handle; NULL is a no-op. */
void rt__sidefile_close(struct rt__sidefile *f);

/**
 * Writes src[0..len) into @p dst (size @p n) for an error message: at most 60 source
 * characters, non-printable bytes (below 0x20, 0x7f and above) as \xNN, "..." appended when cut
 * (by the 60 characters or by @p n); always NUL-terminated when n > 0.
 * @return dst
 */
const char *rt__quote(char *dst, size_t n, const char *src, size_t len);

/**
 * The dst size for rt__quote() in error messages: 60 printable characters, "..." and the NUL fit;
 * escaped bytes take 4 characters each, so fewer of them are shown. A quote never takes more
 * than 63 characters of an error line.
 */
#define RT__QUOTE_SIZE 64u

#ifdef __cplusplus
}
#endif
#endif
