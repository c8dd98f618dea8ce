/* SPDX-License-Identifier: MIT */
/* The one reader of side files (sidefile.h): regular files only, bounded in size and line length,
 * and rt__quote() for every piece of their content that an error message shows. */
/* open(O_CLOEXEC), fstat, strdup and S_ISSOCK are POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L

#include "sidefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes read from the file at a time. */
#define CHUNK 65536u

struct rt__sidefile {
    int fd;
    char *path;        /* owned copy */
    const char *what;  /* the caller's static string */
    uint64_t max_bytes;
    uint64_t nread;    /* bytes read so far, to catch a file that grows past max_bytes */
    size_t max_line;
    uint32_t lineno;
    int failed;        /* the error code once an error was returned, else 0 */
    int eof;
    size_t pos, end;   /* unread bytes are buf[pos..end) */
    char *line;        /* the line handed out, grown up to max_line + 1 */
    size_t cap;
    char buf[CHUNK];
};

const char *rt__file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    if (S_ISREG(m))
        return "regular file";
    if (S_ISDIR(m))
        return "directory";
    if (S_ISFIFO(m))
        return "FIFO";
    if (S_ISCHR(m))
        return "character device";
    if (S_ISBLK(m))
        return "block device";
    if (S_ISSOCK(m))
        return "socket";
    return "special file";
}

int rt__sidefile_open(const char *path, const char *what, uint64_t max_bytes, struct rt__sidefile **out,
                      rt_error *err)
{
    struct stat st;
    *out = NULL;
    if (!path || !*path)
        return rt_error_set(err, RT_EINVAL, "empty %s name", what);
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. Whatever is not a
     * regular file is refused below, before a single byte is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EISDIR)
            return rt_error_set(err, RT_EIO, "%s: is a directory, not a %s", path, what);
        return rt_error_set(err, e == ENOENT ? RT_ENOTFOUND : RT_EIO, "%s: cannot open %s: %s", path, what,
                            strerror(e));
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rt_error_set(err, RT_EIO, "%s: cannot open %s: %s", path, what, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return rt_error_set(err, RT_EIO, "%s: is a %s, not a %s (it must be a regular file)", path,
                            rt__file_kind(st.st_mode), what);
    }
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        return rt_error_set(err, RT_ERANGE, "%s: %s of %llu bytes is larger than the maximum %llu bytes", path, what,
                            (unsigned long long)st.st_size, (unsigned long long)max_bytes);
    }
    /* Regular files never block; clearing the flag keeps reads ordinary all the same. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    struct rt__sidefile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        close(fd);
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    f->fd = fd;
    f->what = what;
    f->max_bytes = max_bytes;
    f->max_line = RT__SIDEFILE_MAX_LINE;
    *out = f;
    return RT_OK;
}

void rt__sidefile_set_max_line(struct rt__sidefile *f, size_t max_line)
{
    if (f && max_line > 0)
        f->max_line = max_line;
}

/* Refills buf; 1 with bytes, 0 at end of file, < 0 on error (f->failed set). */
static int fill(struct rt__sidefile *f, rt_error *err)
{
    if (f->eof)
        return 0;
    for (;;) {
        ssize_t n = read(f->fd, f->buf, sizeof f->buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            return f->failed = rt_error_set(err, RT_EIO, "%s:%u: read error: %s", f->path, f->lineno, strerror(e));
        }
        if (n == 0) {
            f->eof = 1;
            return 0;
        }
        f->nread += (uint64_t)n;
        if (f->nread > f->max_bytes) { /* it grew since fstat */
            return f->failed = rt_error_set(err, RT_ERANGE, "%s:%u: %s grew past the maximum %llu bytes while being read",
                                            f->path, f->lineno, f->what, (unsigned long long)f->max_bytes);
        }
        f->pos = 0;
        f->end = (size_t)n;
        return 1;
    }
}

/* Appends n bytes to the line being assembled (len bytes so far); < 0 when it gets too long. */
static int append(struct rt__sidefile *f, size_t *len, const char *p, size_t n, rt_error *err)
{
    if (n > f->max_line - *len) {
        return f->failed = rt_error_set(err, RT_ECORRUPT, "%s:%u: line longer than %zu bytes", f->path, f->lineno,
                                        f->max_line);
    }
    if (*len + n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        while (cap < *len + n + 1)
            cap *= 2;
        if (cap > f->max_line + 1)
            cap = f->max_line + 1;
        char *q = realloc(f->line, cap);
        if (!q)
            return f->failed = rt_error_set(err, RT_ENOMEM, "out of memory");
        f->line = q;
        f->cap = cap;
    }
    memcpy(f->line + *len, p, n);
    *len += n;
    return RT_OK;
}

int rt__sidefile_line(struct rt__sidefile *f, const char **line, size_t *len, rt_error *err)
{
    size_t n = 0;
    int got = 0, rc;
    if (f->failed)
        return f->failed;
    f->lineno++;
    for (;;) {
        if (f->pos == f->end) {
            if ((rc = fill(f, err)) < 0)
                return rc;
            if (rc == 0)
                break;
        }
        const char *p = f->buf + f->pos;
        size_t avail = f->end - f->pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        got = 1;
        if ((rc = append(f, &n, p, take, err)) < 0)
            return rc;
        f->pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!got) { /* end of file, no bytes of a new line */
        f->lineno--;
        f->eof = 1;
        return 0;
    }
    if (n && f->line[n - 1] == '\r')
        n--;
    if (!f->line) { /* an empty line as the first thing read */
        if ((rc = append(f, &n, "", 0, err)) < 0)
            return rc;
    }
    f->line[n] = '\0';
    if (memchr(f->line, '\0', n)) {
        return f->failed = rt_error_set(err, RT_ECORRUPT, "%s:%u: NUL byte in the line (not a text file?)", f->path,
                                        f->lineno);
    }
    /* A UTF-8 byte-order mark, which some editors put at the start of a text file, is not part of
     * the first line (#47: it was quoted raw in that line's error) */
    size_t bom = f->lineno == 1 && n >= 3 && !memcmp(f->line, "\xEF\xBB\xBF", 3) ? 3 : 0;
    *line = f->line + bom;
    if (len)
        *len = n - bom;
    return 1;
}

uint32_t rt__sidefile_lineno(const struct rt__sidefile *f)
{
    return f->lineno;
}

const char *rt__sidefile_path(const struct rt__sidefile *f)
{
    return f->path;
}

void rt__sidefile_close(struct rt__sidefile *f)
{
    if (!f)
        return;
    close(f->fd);
    free(f->path);
    free(f->line);
    free(f);
}

/* Writes src[0..len) escaped into dst while it fits in budget bytes (the NUL not counted) and
 * within 60 source characters; returns how many source bytes it took, *o the bytes written. */
static size_t quote_into(char *dst, size_t budget, const char *src, size_t len, size_t *o)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;
    *o = 0;
    for (; i < len && i < 60; i++) {
        unsigned char c = (unsigned char)src[i];
        int esc = c < 0x20 || c >= 0x7f;
        if (*o + (esc ? 4u : 1u) > budget)
            break;
        if (esc) {
            dst[(*o)++] = '\\';
            dst[(*o)++] = 'x';
            dst[(*o)++] = hex[c >> 4];
            dst[(*o)++] = hex[c & 15];
        } else {
            dst[(*o)++] = (char)c;
        }
    }
    return i;
}

const char *rt__quote(char *dst, size_t n, const char *src, size_t len)
{
    size_t o;
    if (!n)
        return dst;
    if (!src)
        len = 0;
    if (quote_into(dst, n - 1, src, len, &o) < len) {
        /* Cut, by the 60-character limit or by the size of dst: again with room for "...". */
        if (n >= 4) {
            quote_into(dst, n - 4, src, len, &o);
            memcpy(dst + o, "...", 3);
            o += 3;
        }
    }
    dst[o] = '\0';
    return dst;
}
