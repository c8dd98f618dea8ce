/* SPDX-License-Identifier: MIT */
/* The output files of `retime plot` and the gnuplot run that draws them (see plot_common.h). */
#include "plot_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
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

int plot_begin(struct plot_out *o, const char *what)
{
    char path[PATH_MAX + 300];
    rt_error err = {0};
    snprintf(path, sizeof path, "%s.dat", o->prefix);
    if (rt__outfile_open(path, "plot data", &o->dat_file, &err))
        return cli_fail(&err);
    o->dat = rt__outfile_stream(o->dat_file);
    /* The script is kept in memory: gnuplot runs a copy that sends the pictures to retime. */
    if (!(o->gp = open_memstream(&o->script, &o->script_len))) {
        plot_out_close(o);
        return cli_die("out of memory");
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
    o->svg_at[0] = ftell(g);
    plot_str(g, svg);
    o->svg_at[1] = ftell(g);
    fprintf(g, "\n} else {\n"
               "    set terminal pngcairo size width,height font \"DejaVu Sans,10\" background \"white\" noenhanced\n"
               "    set output ");
    o->png_at[0] = ftell(g);
    plot_str(g, png);
    o->png_at[1] = ftell(g);
    fprintf(g, "\n}\nreset\n");
    fprintf(o->dat, "# %s\n", what);
    return 0;
}

void plot_out_close(struct plot_out *o)
{
    rt__outfile_abort(o->dat_file); /* not rendered: no file is left */
    if (o->gp)
        fclose(o->gp);
    free(o->script);
    o->dat_file = NULL;
    o->dat = o->gp = NULL;
    o->script = NULL;
    o->script_len = 0;
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

/* Appends what gnuplot wrote on stderr to @p msg (of @p n bytes, holding @p *len), keeping the
 * end: its error comes last. */
static void keep_tail(char *msg, size_t n, size_t *len, const char *buf, size_t r)
{
    for (size_t i = 0; i < r; i++) {
        if (*len + 1 >= n) {
            memmove(msg, msg + n / 2, *len - n / 2);
            *len -= n / 2;
        }
        msg[(*len)++] = buf[i];
    }
    msg[*len] = '\0';
}

/* Writes the script gnuplot runs, beside the others as ".NAME.gp.XXXXXX" (its name into @p name):
 * the script with the pictures sent to descriptors 3 (SVG) and 4 (PNG), which are pipes to
 * retime. 0, or 1 after printing the error. */
static int run_script(const struct plot_out *o, char *name, size_t n)
{
    snprintf(name, n, "%s/.%s.gp.XXXXXX", o->dir, o->name);
    int fd = mkstemp(name);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd), remove(name);
        return cli_die("cannot write a gnuplot script in %s: %s", o->dir, strerror(e));
    }
    const char *s = o->script;
    fwrite(s, 1, (size_t)o->svg_at[0], f);
    fputs("'/dev/fd/3'", f);
    fwrite(s + o->svg_at[1], 1, (size_t)(o->png_at[0] - o->svg_at[1]), f);
    fputs("'/dev/fd/4'", f);
    fwrite(s + o->png_at[1], 1, o->script_len - (size_t)o->png_at[1], f);
    int e = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e) {
        remove(name);
        return cli_die("cannot write a gnuplot script in %s: %s", o->dir, strerror(e));
    }
    return 0;
}

/* gnuplot's messages name the script it ran, a temporary copy: @p msg (of @p n bytes) with each
 * @p tmp replaced by NAME.gp, the script they are about (its lines are the same). */
static void script_named(char *msg, size_t n, const char *tmp, const char *name)
{
    char out[4096], gp[sizeof ((struct plot_out *)0)->name + 8];
    size_t k = 0, tl = strlen(tmp);
    snprintf(gp, sizeof gp, "%s.gp", name);
    for (const char *p = msg; *p && k + 1 < sizeof out;) {
        const char *hit = strstr(p, tmp);
        size_t take = hit ? (size_t)(hit - p) : strlen(p);
        k += (size_t)snprintf(out + k, sizeof out - k, "%.*s%s", (int)take, p, hit ? gp : "");
        k = k < sizeof out ? k : sizeof out - 1;
        p = hit ? hit + tl : p + take;
    }
    out[k] = '\0';
    snprintf(msg, n, "%s", out);
}

/* Runs gnuplot on @p script in PREFIX's directory; what it writes on descriptors 3 and 4 goes to
 * @p pic[0] and @p pic[1] (@p got[] counts the bytes), its stderr into @p msg. Returns its exit
 * status, or -1 when it could not be started (@p msg says why). */
static int run_gnuplot(const struct plot_out *o, const char *script, struct rt__outfile *pic[2],
                       uint64_t got[2], char *msg, size_t n)
{
    int fd[3][2]; /* stderr, SVG, PNG */
    size_t len = 0;
    msg[0] = '\0';
    for (int k = 0; k < 3; k++) {
        if (pipe(fd[k]) != 0) {
            snprintf(msg, n, "pipe: %s", strerror(errno));
            for (int j = 0; j < k; j++)
                close(fd[j][0]), close(fd[j][1]);
            return -1;
        }
        fcntl(fd[k][0], F_SETFD, FD_CLOEXEC);
        fcntl(fd[k][1], F_SETFD, FD_CLOEXEC);
    }
    const char *slash = strrchr(script, '/');
    cli_flush_stdout(); /* nothing buffered is written twice, by the child too */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, n, "fork: %s", strerror(errno));
        for (int k = 0; k < 3; k++)
            close(fd[k][0]), close(fd[k][1]);
        return -1;
    }
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. The pipes' ends are first moved
         * above the descriptors they go to, so that no dup2 overwrites another's source. */
        int hi[3];
        for (int k = 0; k < 3; k++)
            hi[k] = fcntl(fd[k][1], F_DUPFD_CLOEXEC, 10);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(hi[0], 2);
        dup2(hi[1], 3);
        dup2(hi[2], 4);
        if (chdir(o->dir) != 0) {
            static const char m[] = "cannot enter the output directory\n";
            (void)!write(2, m, sizeof m - 1);
            _exit(126);
        }
        char *argv[] = {"gnuplot", (char *)(slash ? slash + 1 : script), NULL};
        execv(o->gnuplot, argv);
        static const char m[] = "cannot execute gnuplot\n";
        (void)!write(2, m, sizeof m - 1);
        _exit(127);
    }
    for (int k = 0; k < 3; k++)
        close(fd[k][1]);
    /* Read all three until gnuplot closes them; a picture's failed write is kept by its stream
     * (rt__outfile_close names it) while the rest is still read, so that gnuplot never blocks. */
    struct pollfd pf[3];
    int open_n = 3;
    for (int k = 0; k < 3; k++)
        pf[k] = (struct pollfd){.fd = fd[k][0], .events = POLLIN};
    char buf[1 << 15];
    while (open_n > 0) {
        if (poll(pf, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int k = 0; k < 3; k++) {
            if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(pf[k].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close(pf[k].fd);
                pf[k].fd = -1;
                open_n--;
            } else if (k == 0) {
                keep_tail(msg, n, &len, buf, (size_t)r);
            } else {
                rt__outfile_write(pic[k - 1], buf, (size_t)r);
                got[k - 1] += (uint64_t)r;
            }
        }
    }
    for (int k = 0; k < 3; k++)
        if (pf[k].fd >= 0)
            close(pf[k].fd);
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

/* Writes gnuplot's own script, PREFIX.gp, from memory. 0, or 1 after printing the error. */
static int write_script(const struct plot_out *o)
{
    char path[PATH_MAX + 300];
    struct rt__outfile *f;
    rt_error err = {0};
    snprintf(path, sizeof path, "%s.gp", o->prefix);
    if (rt__outfile_open(path, "gnuplot script", &f, &err))
        return cli_fail(&err);
    rt__outfile_write(f, o->script, o->script_len);
    return rt__outfile_close(f, &err) ? cli_fail(&err) : 0;
}

int plot_render(struct plot_out *o)
{
    static const char *const ext[2] = {"svg", "png"};
    char msg[4096], script[PATH_MAX + 300], path[PATH_MAX + 300];
    struct rt__outfile *pic[2] = {NULL, NULL};
    uint64_t got[2] = {0, 0};
    rt_error err = {0};
    int rc = 1;
    fprintf(o->gp, "set output\n}\n");
    int bad = fclose(o->gp) != 0;
    o->gp = NULL;
    if (bad) {
        cli_die("out of memory");
        goto out;
    }
    bad = rt__outfile_close(o->dat_file, &err);
    o->dat_file = NULL;
    o->dat = NULL;
    if (bad || write_script(o)) {
        if (bad)
            cli_fail(&err);
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s.%s", o->prefix, ext[i]);
        if (rt__outfile_open(path, "picture", &pic[i], &err)) {
            cli_fail(&err);
            goto out;
        }
    }
    if (run_script(o, script, sizeof script))
        goto out;
    int st = run_gnuplot(o, script, pic, got, msg, sizeof msg);
    remove(script);
    script_named(msg, sizeof msg, strrchr(script, '/') + 1, o->name);
    if (st != 0) {
        cli_die("gnuplot failed on %s.gp (%s %d): %s", o->prefix, st < 0 ? "error" : "exit status", st, last_line(msg));
        goto out;
    }
    /* gnuplot reports some problems (an empty data block, a bad range) as warnings and goes on:
     * pass them on rather than hide a wrong picture. */
    if (msg[0]) {
        char *save = NULL;
        for (char *line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (*line)
                fprintf(stderr, "retime: gnuplot: %s\n", line);
    }
    for (int i = 0; i < 2; i++) {
        if (!got[i]) {
            cli_die("gnuplot did not write %s.%s", o->prefix, ext[i]);
            goto out;
        }
        int e = rt__outfile_close(pic[i], &err);
        pic[i] = NULL;
        if (e) {
            cli_fail(&err);
            goto out;
        }
    }
    printf("wrote %s.svg %s.png (data %s.dat, gnuplot script %s.gp)\n", o->prefix, o->prefix, o->prefix, o->prefix);
    rc = 0;
out:
    rt__outfile_abort(pic[0]);
    rt__outfile_abort(pic[1]);
    plot_out_close(o);
    return rc;
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

/* Appends bytes [@p from, @p to) to @p buf at *@p o, keeping room for the NUL. */
static void put_bytes(char *buf, size_t n, size_t *o, const char *from, const char *to)
{
    for (; from < to && *o + 1 < n; from++)
        buf[(*o)++] = *from;
}

size_t plot_title_wrap(char *buf, size_t n, const char *text, size_t max)
{
    size_t o = 0, lines = 1;
    if (!n)
        return 0;
    if (max < 8)
        max = 8;
    const char *line = text;
    while (*line) {
        const char *p = line, *semi = NULL, *comma = NULL, *space = NULL;
        size_t chars = 0;
        for (; *p && *p != '\n'; p++) {
            if (((unsigned char)*p & 0xC0) != 0x80 && ++chars > max)
                break; /* p starts the first character that does not fit */
            if (*p == ' ' && p > line) {
                space = p;
                semi = p[-1] == ';' ? p : semi;
                comma = p[-1] == ',' ? p : comma;
            }
        }
        if (!*p || *p == '\n') { /* the rest of the line fits */
            put_bytes(buf, n, &o, line, p + (*p == '\n'));
            lines += *p == '\n';
            line = p + (*p == '\n');
            continue;
        }
        const char *third = line + (p - line) / 3;
        const char *cut = semi && semi > third ? semi : comma && comma > third ? comma : space;
        put_bytes(buf, n, &o, line, cut ? cut : p);
        put_bytes(buf, n, &o, "\n", "\n" + 1);
        lines++;
        line = cut ? cut + 1 : p; /* the space a line is broken at is dropped */
    }
    buf[o] = '\0';
    return lines;
}

size_t plot_title_width(int width)
{
    return width > 64 ? (size_t)width / 8 : 8;
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
    if (o->network) /* (with --perturb the whole line: the noisy replays' network) */
        fprintf(f, "; %s", rt_network_describe(o->network));
    if (rt_replay_options_noisy(o)) {
        fprintf(f, "; ");
        model_cli_noise_describe(f, m);
    }
    fclose(f);
    buf[n - 1] = '\0';
}
