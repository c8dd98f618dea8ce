/* SPDX-License-Identifier: MIT */
/* The one writer of output files: a temporary file beside the output, renamed over it once whole. */
/* mkstemp, fchmod, realpath (X/Open, with _DEFAULT_SOURCE in glibc), lstat, mkdtemp, nftw. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sidefile.h"

struct rt__outfile {
    FILE *f;
    char *name; /* the path given, for messages */
    char *path; /* where the file goes: the path given, or the target of the link it names */
    char *tmp;  /* the temporary file beside it */
    const char *what;
    int err; /* errno of the first failed rt__outfile_write */
};

FILE *rt__outfile_stream(const struct rt__outfile *o) { return o->f; }

void rt__outfile_write(struct rt__outfile *o, const void *buf, size_t n)
{
    errno = 0;
    if (fwrite(buf, 1, n, o->f) != n && !o->err)
        o->err = errno ? errno : EIO;
}

static void outfile_free(struct rt__outfile *o)
{
    free(o->name);
    free(o->path);
    free(o->tmp);
    free(o);
}

/* The mode of the file to replace, or what a new file gets (0666 less the umask). umask() can
 * only be read by setting it: outputs are written from one thread. */
static mode_t new_mode(const struct stat *old)
{
    if (old)
        return old->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int rt__outfile_open(const char *path, const char *what, struct rt__outfile **out, rt_error *err)
{
    struct stat st;
    int exists;
    *out = NULL;
    if (!path || !*path)
        return rt_error_set(err, RT_EINVAL, "no file name given for the %s", what);
    struct rt__outfile *o = calloc(1, sizeof *o);
    if (!o)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    o->what = what;
    /* A link is followed: its target is what gets replaced, the link stays. */
    exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        free(o);
        return rt_error_set(err, RT_EIO, "%s: is a %s, not a regular file (the %s is written to one)", path,
                            rt__file_kind(st.st_mode), what);
    }
    struct stat lst;
    o->path = exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : strdup(path);
    if (!o->path || !(o->name = strdup(path))) {
        outfile_free(o);
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    const char *slash = strrchr(o->path, '/');
    size_t dir = slash ? (size_t)(slash - o->path) + 1 : 0, n = strlen(o->path) + 16;
    if (!(o->tmp = malloc(n))) {
        outfile_free(o);
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir, o->path, o->path + dir);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        outfile_free(o);
        return rt_error_set(err, RT_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* not for the programs retime runs (gnuplot) */
    if (fchmod(fd, new_mode(exists ? &st : NULL)) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        rt__outfile_abort(o);
        return rt_error_set(err, RT_EIO, "%s: cannot write the %s: %s", path, what, strerror(e));
    }
    *out = o;
    return RT_OK;
}

/* The errno of a write through the stream that failed earlier: stdio drops the data of a failed
 * write and keeps only its error flag, so a flush may find nothing more to write. One byte more at
 * the end (the file is removed anyway) usually fails again for what made it fail (a full disk, a
 * file size limit); rt__outfile_write keeps the errno itself. */
static int again(FILE *f)
{
    return write(fileno(f), "", 1) < 0 ? errno : EIO;
}

int rt__outfile_close(struct rt__outfile *o, rt_error *err)
{
    if (!o)
        return RT_OK;
    int e = o->err ? o->err : fflush(o->f) != 0 ? errno : ferror(o->f) ? again(o->f) : 0;
    if (fclose(o->f) != 0 && !e)
        e = errno;
    o->f = NULL;
    if (!e && rename(o->tmp, o->path) != 0)
        e = errno;
    if (!e) {
        outfile_free(o);
        return RT_OK;
    }
    rt_error_set(err, RT_EIO, "%s: cannot write the %s: %s", o->name, o->what, strerror(e));
    rt__outfile_abort(o);
    return RT_EIO;
}

void rt__path_last(const char *path, size_t *base, size_t *len)
{
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    size_t b = end;
    while (b > 0 && path[b - 1] != '/')
        b--;
    *base = b;
    *len = end - b;
}

void rt__outfile_abort(struct rt__outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    remove(o->tmp);
    outfile_free(o);
}

/* ------------------------------------------------------------------ output directories */

struct rt__outdir {
    char *dir, *tmp;
    const char *what;
};

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int rt__outdir_open(const char *dir, const char *what, struct rt__outdir **out, rt_error *err)
{
    size_t base, len;
    int e;
    *out = NULL;
    struct rt__outdir *d = calloc(1, sizeof *d);
    rt__path_last(dir, &base, &len);
    if (!d || !(d->dir = strdup(dir)) || !(d->tmp = malloc(base + len + 16))) {
        if (d)
            free(d->dir);
        free(d);
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    d->what = what;
    if (mkdir(dir, 0777) != 0) {
        e = errno;
        free(d->tmp), free(d->dir), free(d);
        return e == EEXIST ? rt_error_set(err, RT_EIO, "%s: already exists: %s is written into a new directory", dir,
                                          what)
                           : rt_error_set(err, RT_EIO, "%s: cannot create the directory: %s", dir, strerror(e));
    }
    snprintf(d->tmp, base + len + 16, "%.*s.%.*s.XXXXXX", (int)base, dir, (int)len, dir + base);
    if (!mkdtemp(d->tmp)) {
        e = errno;
        rmdir(dir);
        free(d->tmp), free(d->dir), free(d);
        return rt_error_set(err, RT_EIO, "%s: cannot create a directory beside it: %s", dir, strerror(e));
    }
    mode_t mask = umask(0); /* (mkdtemp makes it 0700) */
    umask(mask);
    chmod(d->tmp, 0777 & ~mask);
    *out = d;
    return RT_OK;
}

const char *rt__outdir_path(const struct rt__outdir *d)
{
    return d->tmp;
}

int rt__outdir_close(struct rt__outdir *d, rt_error *err)
{
    if (rename(d->tmp, d->dir) != 0) {
        int e = errno;
        rt_error_set(err, RT_EIO, "%s: cannot move %s into place: %s", d->dir, d->what, strerror(e));
        rt__outdir_abort(d);
        return RT_EIO;
    }
    free(d->tmp), free(d->dir), free(d);
    return RT_OK;
}

void rt__outdir_abort(struct rt__outdir *d)
{
    if (!d)
        return;
    remove_tree(d->tmp);
    remove_tree(d->dir);
    free(d->tmp), free(d->dir), free(d);
}
