/* SPDX-License-Identifier: MIT */
/* Runs a program and appends its peak resident set size to a file, as the line
 * "maxrss_kib N" (getrusage of the finished child, so MPI_Finalize and exit are included).
 * Exits with the program's status, or 128 + the signal that ended it.
 * usage: rss_wrap OUTFILE PROGRAM [ARGS...] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rss_wrap OUTFILE PROGRAM [ARGS...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("rss_wrap: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("rss_wrap: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("rss_wrap: wait4");
        return 2;
    }
    char line[64];
    int n = snprintf(line, sizeof line, "maxrss_kib %ld\n", ru.ru_maxrss);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n) {
        perror("rss_wrap: writing the result");
        return 2;
    }
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
