/* SPDX-License-Identifier: MIT */
/* The output files of `retime plot` and the gnuplot run that draws them (see plot_common.h). */
#include "plot_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "retime/units.h"

/* Okabe & Ito's palette (colour-blind safe), black last. */
const char *const plot_colors[8] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};

void plot_out_init(struct plot_out *o)
{
    memset(o, 0, sizeof *o);
    o->width = 800;
    o->height = 500;
}

int plot_out_option(struct args *a, struct plot_out *o)
{
    const char *v;
    if (cli_opt(a, "--output", &v)) {
        if (!v || !*v)
            return cli_die("--output needs a PREFIX (the files PREFIX.svg, PREFIX.png, PREFIX.dat and PREFIX.gp)"), -1;
        o->prefix = v;
        return 1;
    }
    if (cli_opt(a, "--size", &v)) {
        unsigned w = 0, h = 0;
        char tail;
        if (!v || sscanf(v, "%ux%u%c", &w, &h, &tail) != 2 || w < 200 || w > 10000 || h < 150 || h > 10000)
            return cli_die("bad --size '%s' (WIDTHxHEIGHT in pixels, e.g. 800x500; 200x150 to 10000x10000)",
                           v ? v : ""), -1;
        o->width = (int)w;
        o->height = (int)h;
        return 1;
    }
    return 0;
}

/* Finds an executable @p prog on PATH (as execvp would); 0 when found. */
static int find_on_path(const char *prog, char *out, size_t n)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        struct stat st;
        int w = len ? snprintf(out, n, "%.*s/%s", (int)len, p, prog) : snprintf(out, n, "./%s", prog);
        if (w > 0 && (size_t)w < n && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        if (!end)
            return -1;
        p = end;
    }
}

int plot_out_check(struct plot_out *o, const char *cmd)
{
    if (!o->prefix)
        return cli_die("plot %s needs --output PREFIX (it writes PREFIX.svg, PREFIX.png, PREFIX.dat and PREFIX.gp)",
                       cmd);
    const char *slash = strrchr(o->prefix, '/');
    const char *name = slash ? slash + 1 : o->prefix;
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        return cli_die("--output '%s' needs a file name prefix after the directory (e.g. %s%splot)", o->prefix,
                       o->prefix, slash && !slash[1] ? "" : "/");
    if (strlen(name) >= sizeof o->name - 8)
        return cli_die("--output '%s': the file name is too long", o->prefix);
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) /* the script names the files in gnuplot strings */
            return cli_die("--output: the file name has a control character");
    snprintf(o->name, sizeof o->name, "%s", name);
    if (!slash)
        snprintf(o->dir, sizeof o->dir, ".");
    else if (slash == o->prefix)
        snprintf(o->dir, sizeof o->dir, "/");
    else if ((size_t)(slash - o->prefix) >= sizeof o->dir)
        return cli_die("--output '%s': the directory name is too long", o->prefix);
    else
        snprintf(o->dir, sizeof o->dir, "%.*s", (int)(slash - o->prefix), o->prefix);
    struct stat st;
    if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_die("--output '%s': directory '%s' does not exist", o->prefix, o->dir);
    if (find_on_path("gnuplot", o->gnuplot, sizeof o->gnuplot))
        return cli_die("plot needs gnuplot, which is not on PATH (Debian: apt-get install gnuplot-nox)");
    return 0;
}

void plot_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        if (*s == '\n')
            fputs("'.\"\\n\".'", f); /* a line break: concatenate a double-quoted "\n" */
        else if (*s != '\r')
            fputc(*s, f);
    }
    fputc('\'', f);
}

void plot_strf(FILE *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    plot_str(f, buf);
}

void plot_datafile(const struct plot_out *o)
{
    char buf[sizeof o->name + 8];
    snprintf(buf, sizeof buf, "%s.dat", o->name);
    plot_str(o->gp, buf);
}

static FILE *open_file(const struct plot_out *o, const char *ext)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s.%s", o->prefix, ext);
    FILE *f = fopen(path, "w");
    if (!f)
        cli_die("cannot write %s: %s", path, strerror(errno));
    return f;
}

int plot_begin(struct plot_out *o, const char *what)
{
    if (!(o->dat = open_file(o, "dat")) || !(o->gp = open_file(o, "gp"))) {
        plot_out_close(o);
        return 1;
    }
    char svg[sizeof o->name + 8], png[sizeof o->name + 8];
    snprintf(svg, sizeof svg, "%s.svg", o->name);
    snprintf(png, sizeof png, "%s.png", o->name);
    FILE *g = o->gp;
    fprintf(g, "# %s\n", what);
    fprintf(g, "# Written by retime: draws %s and %s from %s.dat. To restyle, edit this file and run\n"
               "# `gnuplot %s.gp` in its directory.\n",
            svg, png, o->name, o->name);
    fprintf(g, "set encoding utf8\nwidth = %d; height = %d\n", o->width, o->height);
    fprintf(g, "do for [term in \"svg pngcairo\"] {\n"
               "if (term eq \"svg\") {\n"
               "    set terminal svg size width,height font \"DejaVu Sans,11\" background \"white\" noenhanced\n"
               "    set output ");
    plot_str(g, svg);
    fprintf(g, "\n} else {\n"
               "    set terminal pngcairo size width,height font \"DejaVu Sans,10\" background \"white\" noenhanced\n"
               "    set output ");
    plot_str(g, png);
    fprintf(g, "\n}\nreset\n");
    fprintf(o->dat, "# %s\n", what);
    return 0;
}

void plot_out_close(struct plot_out *o)
{
    if (o->dat)
        fclose(o->dat);
    if (o->gp)
        fclose(o->gp);
    o->dat = o->gp = NULL;
}

/* Closes @p f and reports a write error (a full disk shows here, not at fprintf). */
static int close_checked(const struct plot_out *o, FILE *f, const char *ext)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return cli_die("cannot write %s.%s: %s", o->prefix, ext, strerror(errno ? errno : EIO));
    return 0;
}

/* The last non-empty line of @p text (gnuplot's error message comes last), in place. */
static const char *last_line(char *text)
{
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = '\0';
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

/* Runs `gnuplot NAME.gp` in PREFIX's directory; its stderr is collected into @p msg. Returns
 * its exit status, or -1 when it could not be started (@p msg says why). */
static int run_gnuplot(const struct plot_out *o, char *msg, size_t n)
{
    int fd[2];
    msg[0] = '\0';
    if (pipe(fd) != 0) {
        snprintf(msg, n, "pipe: %s", strerror(errno));
        return -1;
    }
    char script[sizeof o->name + 8];
    snprintf(script, sizeof script, "%s.gp", o->name);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, n, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(fd[1], 2);
        close(fd[0]);
        if (chdir(o->dir) != 0) {
            static const char m[] = "cannot enter the output directory\n";
            (void)!write(2, m, sizeof m - 1);
            _exit(126);
        }
        char *argv[] = {"gnuplot", script, NULL};
        execv(o->gnuplot, argv);
        static const char m[] = "cannot execute gnuplot\n";
        (void)!write(2, m, sizeof m - 1);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    char buf[512];
    ssize_t r;
    while ((r = read(fd[0], buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        /* Keep the end of what it wrote: the error comes last. */
        for (ssize_t i = 0; i < r; i++) {
            if (len + 1 >= n) {
                memmove(msg, msg + n / 2, len - n / 2);
                len -= n / 2;
            }
            msg[len++] = buf[i];
        }
    }
    msg[len] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(msg, n, "waitpid: %s", strerror(errno));
            return -1;
        }
    if (WIFSIGNALED(status)) {
        snprintf(msg, n, "killed by signal %d", WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status);
}

int plot_render(struct plot_out *o)
{
    fprintf(o->gp, "set output\n}\n");
    FILE *dat = o->dat, *gp = o->gp;
    o->dat = o->gp = NULL;
    int bad = close_checked(o, dat, "dat");
    bad |= close_checked(o, gp, "gp");
    if (bad)
        return 1;
    char msg[4096];
    int rc = run_gnuplot(o, msg, sizeof msg);
    if (rc != 0)
        return cli_die("gnuplot failed on %s.gp (%s %d): %s", o->prefix, rc < 0 ? "error" : "exit status",
                       rc, last_line(msg));
    /* gnuplot reports some problems (an empty data block, a bad range) as warnings and goes on:
     * pass them on rather than hide a wrong picture. */
    if (msg[0]) {
        char *save = NULL;
        for (char *line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (*line)
                fprintf(stderr, "retime: gnuplot: %s\n", line);
    }
    const char *ext[] = {"svg", "png"};
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s.%s", o->prefix, ext[i]);
        if (stat(path, &st) != 0 || st.st_size == 0)
            return cli_die("gnuplot did not write %s", path);
    }
    printf("wrote %s.svg %s.png (data %s.dat, gnuplot script %s.gp)\n", o->prefix, o->prefix, o->prefix, o->prefix);
    return 0;
}

const char *plot_title_path(char *buf, size_t n, const char *path, size_t max)
{
    size_t len = strlen(path);
    if (len <= max)
        snprintf(buf, n, "%s", path);
    else
        snprintf(buf, n, "…%s", path + len - (max - 1));
    return buf;
}

struct plot_unit plot_time_unit(double max_ns)
{
    if (max_ns < 1e4)
        return (struct plot_unit){"ns", 1};
    if (max_ns < 1e7)
        return (struct plot_unit){"µs", 1e3};
    if (max_ns < 1e10)
        return (struct plot_unit){"ms", 1e6};
    return (struct plot_unit){"s", 1e9};
}

void plot_model_text(char *buf, size_t n, const struct rt_replay_options *o, const struct model_cli *m,
                     unsigned varied)
{
    FILE *f = fmemopen(buf, n, "w");
    if (!f) {
        snprintf(buf, n, "%s", o->model.ops->name);
        return;
    }
    struct rt_model_params p = o->model.params;
    fprintf(f, "%s", o->model.ops->name);
    for (int i = 0; rt_model_param_table[i].name; i++) {
        const struct rt_param_desc *d = &rt_model_param_table[i];
        char t[32];
        if (strcmp(d->model, o->model.ops->name) != 0 || (varied >> i & 1u))
            continue;
        const char *label = !strcmp(d->name, "alpha") ? "α" : !strcmp(d->name, "beta") ? "β" : d->name;
        double v = *rt_model_param_ptr(&p, i);
        if (p.nbeta && !strcmp(d->name, "beta"))
            fprintf(f, " β=table(%u sizes)", p.nbeta);
        else if (d->unit == RT_PU_TIME)
            fprintf(f, " %s=%s", label, rt_format_time(t, sizeof t, v));
        else
            fprintf(f, " %s=%.4gns/B", label, v);
    }
    if (!(varied & PLOT_VARIED_SCALE))
        fprintf(f, ", compute-scale %g", o->compute_scale);
    if (o->eager_limit != 64 * 1024)
        fprintf(f, ", eager-limit %lluB", (unsigned long long)o->eager_limit);
    if (rt_replay_options_noisy(o)) {
        fprintf(f, "; ");
        model_cli_noise_describe(f, m);
    }
    fclose(f);
    buf[n - 1] = '\0';
}
