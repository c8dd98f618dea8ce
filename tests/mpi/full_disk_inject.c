/* SPDX-License-Identifier: MIT */
/* LD_PRELOAD fault injector for the full-disk test where a tiny tmpfs cannot be mounted: makes
 * the directory tree RT_FAKE_FULL_DIR behave like a file system with RT_FAKE_FULL_BYTES of free
 * space for this process. It interposes what writes there (fwrite on streams opened there, which
 * is how OTF2 writes, and fallocate, with which the tracer reserves room) and what reports free
 * space (statvfs): once the bytes are used up they fail with ENOSPC and report no room. With
 * RT_FAKE_FULL_RANK=N it acts only in MPI rank N (OMPI_COMM_WORLD_RANK or PMIX_RANK); with
 * RT_FAKE_FULL_MATCH=S only on files whose path contains S; with RT_FAKE_FULL_STATVFS=0 statvfs
 * reports the real free space (a disk that refuses only some files, like a quota). Reserved
 * and then written bytes count twice, so the fake disk fills a little early; that only matters
 * for when the failure comes, not for how it is handled. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_STREAMS 256

static int active = -1; /* -1: not decided yet */
static const char *prefix, *match;
static int fake_statvfs = 1;
static size_t prefix_len;
static uint64_t capacity, used;
static FILE *streams[MAX_STREAMS];

static void decide(void)
{
    if (active >= 0)
        return;
    active = 0;
    prefix = getenv("RT_FAKE_FULL_DIR");
    const char *bytes = getenv("RT_FAKE_FULL_BYTES");
    const char *want = getenv("RT_FAKE_FULL_RANK");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMIX_RANK");
    if (!prefix || !*prefix || !bytes)
        return;
    if (want && *want && (!rank || strcmp(want, rank) != 0))
        return;
    prefix_len = strlen(prefix);
    match = getenv("RT_FAKE_FULL_MATCH");
    const char *sv = getenv("RT_FAKE_FULL_STATVFS");
    fake_statvfs = !(sv && !strcmp(sv, "0"));
    capacity = strtoull(bytes, NULL, 10);
    active = 1;
}

static int under_prefix(const char *path)
{
    decide();
    return active == 1 && path && strncmp(path, prefix, prefix_len) == 0 &&
           (path[prefix_len] == '/' || path[prefix_len] == 0);
}

static int full_file(const char *path)
{
    return under_prefix(path) && (!match || !*match || strstr(path, match));
}

static int fd_under_prefix(int fd)
{
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = 0;
    return full_file(path);
}

/* Takes @p n bytes of the fake free space; 0 when they are not there. */
static int take(uint64_t n)
{
    if (used + n > capacity) {
        used = capacity;
        return 0;
    }
    used += n;
    return 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static FILE *track(FILE *f, const char *path)
{
    if (f && full_file(path))
        for (int i = 0; i < MAX_STREAMS; i++)
            if (!streams[i]) {
                streams[i] = f;
                break;
            }
    return f;
}

static int tracked(FILE *f)
{
    for (int i = 0; f && i < MAX_STREAMS; i++)
        if (streams[i] == f)
            return 1;
    return 0;
}

FILE *fopen(const char *path, const char *mode)
{
    return track(REAL(fopen)(path, mode), path);
}

FILE *fopen64(const char *path, const char *mode)
{
    return track(REAL(fopen64)(path, mode), path);
}

int fclose(FILE *f)
{
    for (int i = 0; f && i < MAX_STREAMS; i++)
        if (streams[i] == f)
            streams[i] = NULL;
    return REAL(fclose)(f);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (tracked(f) && size && n && !take((uint64_t)size * n)) {
        errno = ENOSPC;
        return 0;
    }
    return REAL(fwrite)(p, size, n, f);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    if (len > 0 && fd_under_prefix(fd) && !take((uint64_t)len)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL(fallocate)(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
    if (len > 0 && fd_under_prefix(fd) && !take((uint64_t)len)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL(fallocate64)(fd, mode, off, len);
}

static void fake_room(struct statvfs *sv)
{
    unsigned long bs = sv->f_frsize ? sv->f_frsize : 4096;
    sv->f_bavail = sv->f_bfree = (fsblkcnt_t)((capacity - used) / bs);
}

int statvfs(const char *path, struct statvfs *sv)
{
    int rc = REAL(statvfs)(path, sv);
    if (rc == 0 && under_prefix(path) && fake_statvfs)
        fake_room(sv);
    return rc;
}

int statvfs64(const char *path, struct statvfs64 *sv)
{
    int rc = REAL(statvfs64)(path, sv);
    if (rc == 0 && under_prefix(path) && fake_statvfs)
        fake_room((struct statvfs *)sv);
    return rc;
}
