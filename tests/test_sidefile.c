/* SPDX-License-Identifier: MIT */
/* Unit tests of the side-file reader (replay/src/util/sidefile.c): rt__quote, the line reader and what
 * rt__sidefile_open refuses. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../replay/src/util/sidefile.h"
#include "test_util.h"

#define CHECK_EQ_STR(a, b)                                                                              \
    do {                                                                                                \
        const char *a_ = (a), *b_ = (b);                                                                \
        if (strcmp(a_, b_) != 0) {                                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: '%s' != '%s'\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            rt_test_failures++;                                                                         \
        }                                                                                               \
    } while (0)

static char dir[] = "/tmp/rt-sidefile-XXXXXX";

/* Writes n bytes to DIR/name; returns the path (static buffer, one at a time). */
static const char *put(const char *name, const void *data, size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    return path;
}

static void test_quote(void)
{
    char q[RT__QUOTE_SIZE], s[200];
    CHECK_EQ_STR(rt__quote(q, sizeof q, "alpha", 5), "alpha");
    CHECK_EQ_STR(rt__quote(q, sizeof q, "", 0), "");
    CHECK_EQ_STR(rt__quote(q, sizeof q, "a\x01\x1b" "b\x7f\xff\n", 7), "a\\x01\\x1bb\\x7f\\xff\\x0a");
    CHECK_EQ_STR(rt__quote(q, sizeof q, "a\0b", 3), "a\\x00b"); /* len counts, not the NUL */
    memset(s, 'x', sizeof s);
    CHECK_EQ_INT(strlen(rt__quote(q, sizeof q, s, 60)), 60); /* 60 fit without "..." */
    CHECK(!strstr(q, "..."));
    rt__quote(q, sizeof q, s, 61);
    CHECK_EQ_INT(strlen(q), 63);
    CHECK(!strcmp(q + 60, "..."));
    CHECK_EQ_INT(strlen(rt__quote(q, sizeof q, s, sizeof s)), 63);
    /* Escaped bytes take 4 characters: fewer of them fit, never a half escape before "...". */
    memset(s, 0x01, sizeof s);
    rt__quote(q, sizeof q, s, sizeof s);
    CHECK(strlen(q) <= 63);
    CHECK(!strcmp(q + strlen(q) - 3, "..."));
    CHECK_EQ_INT((strlen(q) - 3) % 4, 0);
    /* A small dst cuts too. */
    char small[8];
    CHECK_EQ_STR(rt__quote(small, sizeof small, "abcdefghij", 10), "abcd...");
    CHECK_EQ_STR(rt__quote(small, sizeof small, "abcdefg", 7), "abcdefg");
    CHECK_EQ_STR(rt__quote(small, 3, "abcdef", 6), "ab");
    small[0] = 'z';
    rt__quote(small, 0, "abc", 3); /* n = 0 writes nothing */
    CHECK(small[0] == 'z');
    /* Every byte value: nothing non-printable comes out. */
    for (int c = 0; c < 256; c++) {
        char b = (char)c;
        rt__quote(q, sizeof q, &b, 1);
        for (const char *p = q; *p; p++)
            CHECK(*p >= 0x20 && *p < 0x7f);
    }
}

static void test_lines(void)
{
    struct rt__sidefile *f = NULL;
    rt_error err = {0};
    const char *line;
    size_t len;
    const char *path = put("lines.txt", "a\r\nbb\n\n  c d  \nlast", 19);
    CHECK_EQ_INT(rt__sidefile_open(path, "test file", 1000, &f, &err), 0);
    CHECK_EQ_STR(rt__sidefile_path(f), path);
    CHECK_EQ_INT(rt__sidefile_lineno(f), 0);
    static const char *const want[] = {"a", "bb", "", "  c d  ", "last"};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
        CHECK_EQ_STR(line, want[i]);
        CHECK_EQ_INT(len, strlen(want[i]));
        CHECK_EQ_INT(rt__sidefile_lineno(f), i + 1);
    }
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 0);
    CHECK_EQ_INT(rt__sidefile_lineno(f), 5);
    rt__sidefile_close(f);
    rt__sidefile_close(NULL);

    /* An empty file; a file of one empty line. */
    CHECK_EQ_INT(rt__sidefile_open(put("empty.txt", "", 0), "test file", 10, &f, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 0);
    rt__sidefile_close(f);
    CHECK_EQ_INT(rt__sidefile_open(put("nl.txt", "\n", 1), "test file", 10, &f, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
    CHECK_EQ_STR(line, "");
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 0);
    rt__sidefile_close(f);

    /* Many lines across the reader's 64 KiB chunks come back whole. */
    size_t cap = 1u << 20, n = 0;
    char *big = malloc(cap);
    for (int i = 0; n < cap - 100; i++)
        n += (size_t)sprintf(big + n, "line %d %.*s\n", i, i % 97, "....................................................................................................");
    CHECK_EQ_INT(rt__sidefile_open(put("big.txt", big, n), "test file", cap, &f, &err), 0);
    int i = 0, bad = 0;
    while (rt__sidefile_line(f, &line, &len, &err) == 1) {
        char w[160];
        snprintf(w, sizeof w, "line %d %.*s", i, i % 97, "....................................................................................................");
        bad += strcmp(line, w) != 0;
        i++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(rt__sidefile_lineno(f), (uint32_t)i);
    rt__sidefile_close(f);

    /* Lines of exactly the maximum pass; one byte more is an error naming file and line. */
    memset(big, 'k', RT__SIDEFILE_MAX_LINE + 1);
    big[RT__SIDEFILE_MAX_LINE] = '\n';
    memset(big + RT__SIDEFILE_MAX_LINE + 1, 'k', RT__SIDEFILE_MAX_LINE + 1);
    big[2 * RT__SIDEFILE_MAX_LINE + 2] = '\n';
    path = put("long.txt", big, 2 * RT__SIDEFILE_MAX_LINE + 3);
    CHECK_EQ_INT(rt__sidefile_open(path, "test file", cap, &f, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
    CHECK_EQ_INT(len, RT__SIDEFILE_MAX_LINE);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), RT_ECORRUPT);
    CHECK_CONTAINS(err.msg, "long.txt:2: line longer than 4096 bytes");
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), RT_ECORRUPT); /* and stays failed */
    rt__sidefile_close(f);
    /* ... unless the caller raises the maximum. */
    CHECK_EQ_INT(rt__sidefile_open(path, "test file", cap, &f, &err), 0);
    rt__sidefile_set_max_line(f, RT__SIDEFILE_MAX_LINE + 1);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
    CHECK_EQ_INT(len, RT__SIDEFILE_MAX_LINE + 1);
    rt__sidefile_close(f);
    /* A last line without its end counts too. */
    big[RT__SIDEFILE_MAX_LINE] = 'k';
    CHECK_EQ_INT(rt__sidefile_open(put("long2.txt", big, RT__SIDEFILE_MAX_LINE + 1), "test file", cap, &f, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), RT_ECORRUPT);
    CHECK_CONTAINS(err.msg, "long2.txt:1: line longer than");
    rt__sidefile_close(f);
    free(big);

    /* A NUL byte in a line. */
    CHECK_EQ_INT(rt__sidefile_open(put("nul.txt", "ok\nx\0y\n", 7), "test file", 100, &f, &err), 0);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), 1);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, &len, &err), RT_ECORRUPT);
    CHECK_CONTAINS(err.msg, "nul.txt:2: NUL byte");
    rt__sidefile_close(f);
}

static void test_refused(void)
{
    struct rt__sidefile *f = (struct rt__sidefile *)&f;
    rt_error err = {0};
    char path[256];
    const char *line;

    /* Too large by fstat, and grown past the maximum after it. */
    const char *p = put("ten.txt", "123456789\n", 10);
    CHECK_EQ_INT(rt__sidefile_open(p, "test file", 9, &f, &err), RT_ERANGE);
    CHECK(f == NULL);
    CHECK_CONTAINS(err.msg, "ten.txt: test file of 10 bytes is larger than the maximum 9 bytes");
    CHECK_EQ_INT(rt__sidefile_open(p, "test file", 10, &f, &err), 0);
    FILE *g = fopen(p, "a");
    fputs("more\n", g);
    fclose(g);
    CHECK_EQ_INT(rt__sidefile_line(f, &line, NULL, &err), RT_ERANGE);
    CHECK_CONTAINS(err.msg, "ten.txt:1: test file grew past the maximum 10 bytes");
    rt__sidefile_close(f);

    CHECK_EQ_INT(rt__sidefile_open("/nonexistent/x.txt", "test file", 10, &f, &err), RT_ENOTFOUND);
    CHECK_CONTAINS(err.msg, "/nonexistent/x.txt: cannot open test file: No such file or directory");
    CHECK_EQ_INT(rt__sidefile_open(dir, "test file", 10, &f, &err), RT_EIO);
    CHECK_CONTAINS(err.msg, ": is a directory, not a test file");
    CHECK_EQ_INT(rt__sidefile_open("/dev/zero", "test file", 10, &f, &err), RT_EIO);
    CHECK_CONTAINS(err.msg, "/dev/zero: is a character device, not a test file");
    /* A FIFO without a writer: refused at once, not waited on. */
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK_EQ_INT(mkfifo(path, 0600), 0);
    alarm(10); /* a blocking open would hang the test: let it die instead */
    CHECK_EQ_INT(rt__sidefile_open(path, "test file", 10, &f, &err), RT_EIO);
    alarm(0);
    CHECK_CONTAINS(err.msg, "fifo: is a FIFO, not a test file");
    CHECK(f == NULL);
    unlink(path);
    CHECK_EQ_INT(rt__sidefile_open("", "test file", 10, &f, &err), RT_EINVAL);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_quote();
    test_lines();
    test_refused();
    static const char *const names[] = {"lines.txt", "empty.txt", "nl.txt", "big.txt", "long.txt",
                                        "long2.txt", "nul.txt", "ten.txt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    TEST_MAIN_END();
}
