/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"
#include "record.h"
#include "util.h"

extern char **environ;

/* The recording's samples and decisions as two data files gnuplot reads.
 * Lines are read as replay reads them (record_parse_line()); a refused one
 * is said as FILE:LINE: reason, and nothing is drawn. */
static int split(const char *path, FILE *samples, FILE *decisions, bool *capped) {
        char *line = NULL, why[256];
        size_t size = 0;
        uint64_t t0 = 0;
        bool have_t0 = false;
        unsigned n = 0, n_d = 0, lineno = 0;
        struct record_event ev;
        ssize_t len;
        int r = 0;
        FILE *in = fopen(path, "re");

        if (!in) {
                r = -errno;
                fprintf(stderr, "zswap-tuned: %s: %s\n", path, err_str(r));
                return r;
        }
        while ((len = getline(&line, &size, in)) >= 0) {
                lineno++;
                if (len > 0 && line[len - 1] == '\n')
                        line[--len] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                if (strlen(line) != (size_t) len || record_parse_line(line, &ev, why, sizeof(why)) < 0) {
                        fprintf(stderr, "zswap-tuned: %s:%u: %s\n", path, lineno,
                                strlen(line) != (size_t) len ? "a NUL byte" : why);
                        r = -EBADMSG;
                        break;
                }
                if (ev.type == RECORD_SAMPLE) {
                        const struct policy_sample *s = &ev.sample;
                        if (!have_t0) {
                                t0 = ev.now;
                                have_t0 = true;
                        }
                        fprintf(samples, "%.3f %.2f %.2f %.2f\n", ((double) ev.now - (double) t0) / USEC_PER_SEC,
                                s->pool_state == POOL_OK ? s->pool : 0, s->pressure_valid ? s->pressure : 0,
                                s->batch);
                        n++;
                } else if (ev.type == RECORD_DECISION && have_t0) {
                        fprintf(decisions, "%.3f %d %.2f %d\n", ((double) ev.now - (double) t0) / USEC_PER_SEC,
                                ev.knob == KNOB_ON, ev.batch_cap, (int) ev.mode);
                        *capped = *capped || ev.batch_cap >= 0;
                        n_d++;
                }
        }
        free(line);
        fclose(in);
        if (r < 0)
                return r;
        if (n == 0) {
                fprintf(stderr, "zswap-tuned: %s: no samples (is it a recording? see --record)\n", path);
                return -EBADMSG;
        }
        /* gnuplot fails on an empty data file, half-way through the PNG */
        if (n_d == 0) {
                fprintf(stderr, "zswap-tuned: %s: no decisions to draw (cut off after its first sample?)\n", path);
                return -EBADMSG;
        }
        return 0;
}

static const char script[] =
        "set terminal pngcairo size 1200,900 font ',10'\n"
        "set output '%s'\n"
        "set multiplot layout 3,1 title 'zswap-tuned: %s'\n"
        "set grid\n"
        "set xlabel 'seconds'\n"
        "set ylabel '%% of the pool limit'\n"
        "set yrange [0:110]\n"
        "plot '%s' using 1:2 with lines lw 2 title 'pool', '' using 1:4 with lines title 'batch cgroups', "
        "95 with lines dt 2 lc 'red' title '95%%'\n"
        "set ylabel 'memory stall %%'\n"
        "set yrange [0:*]\n"
        "plot '%s' using 1:3 with lines title 'pressure (max over sources)'\n"
        "set ylabel ''\n"
        "set yrange [-0.1:*]\n"
        "%s"
        "plot '%s' using 1:2 with steps lw 2 title 'knob on'%s\n"
        "unset multiplot\n";

/* Can name go between the single quotes of a gnuplot string? gnuplot opens
 * a pipe for "set output '|command'"; a quote or a newline would end the
 * string or the command, and a double quote is refused for good measure. */
static bool plain_name(const char *name) {
        return name[0] != '|' && !strpbrk(name, "'\"\n");
}

/* The temporary PNG, in the output's directory (so that rename(2) puts it
 * in place), never starting with "|" (a relative directory gets "./"). */
static int make_temp(const char *output, char *tmp, size_t size) {
        const char *slash = strrchr(output, '/');
        int fd, n;
        mode_t mask;

        if (!slash)
                n = snprintf(tmp, size, "./.%s.XXXXXX", output);
        else
                n = snprintf(tmp, size, "%s%.*s/.%s.XXXXXX", output[0] == '/' ? "" : "./", (int) (slash - output),
                             output, slash + 1);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* what gnuplot would have created: 0666 less the umask */
        mask = umask(0);
        umask(mask);
        (void) fchmod(fd, 0666 & ~mask);
        close(fd);
        return 0;
}

int plot(const char *recording, const char *output) {
        char dir[] = "/tmp/zswap-tuned-plot.XXXXXX", s_path[64], d_path[64], g_path[64], tmp[PATH_MAX];
        const char *base = strrchr(recording, '/') ? strrchr(recording, '/') + 1 : recording;
        char *argv[] = { (char *) "gnuplot", g_path, NULL };
        FILE *s = NULL, *d = NULL, *g = NULL;
        bool capped = false, have_tmp = false;
        struct stat st;
        int r, status;
        pid_t pid;

        if (!plain_name(output) || strpbrk(base, "'\"\n")) {
                fprintf(stderr, "zswap-tuned: plot: %s: file names starting with \"|\" or with quotes or newlines "
                                "are not supported\n", plain_name(output) ? recording : output);
                return 1;
        }
        if (!mkdtemp(dir)) {
                fprintf(stderr, "zswap-tuned: plot: %s: %s\n", dir, err_str(-errno));
                return 1;
        }
        snprintf(s_path, sizeof(s_path), "%s/samples", dir);
        snprintf(d_path, sizeof(d_path), "%s/decisions", dir);
        snprintf(g_path, sizeof(g_path), "%s/plot.gp", dir);
        s = fopen(s_path, "we");
        d = fopen(d_path, "we");
        g = fopen(g_path, "we");
        r = s && d && g ? split(recording, s, d, &capped) : -errno;
        if (r == 0) {
                r = make_temp(output, tmp, sizeof(tmp));
                if (r < 0)
                        fprintf(stderr, "zswap-tuned: plot: a temporary file next to %s: %s\n", output, err_str(r));
                have_tmp = r == 0;
        }
        if (r == 0)
                fprintf(g, script, tmp, base, s_path, s_path,
                        capped ? "set ytics nomirror\nset y2tics\nset y2label 'batch cap, % of the limit'\n" : "",
                        d_path,
                        capped ? ", '' using 1:($3 >= 0 ? $3 : 1/0) axes x1y2 with steps title 'batch cap'" : "");
        if (s && fclose(s) < 0 && r == 0)
                r = -errno;
        if (d && fclose(d) < 0 && r == 0)
                r = -errno;
        if (g && fclose(g) < 0 && r == 0)
                r = -errno;
        if (r == 0) {
                r = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
                if (r == ENOENT)
                        fprintf(stderr, "zswap-tuned: plot needs gnuplot (Debian: apt-get install gnuplot-nox)\n");
                else if (r != 0)
                        fprintf(stderr, "zswap-tuned: cannot run gnuplot: %s\n", strerror(r));
                else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                        fprintf(stderr, "zswap-tuned: plot: gnuplot failed; %s is left as it was\n", output);
                        r = -1;
                } else if (stat(tmp, &st) < 0 || st.st_size == 0) {
                        fprintf(stderr, "zswap-tuned: plot: gnuplot wrote nothing; %s is left as it was\n", output);
                        r = -1;
                } else if (rename(tmp, output) < 0) {
                        r = -errno;
                        fprintf(stderr, "zswap-tuned: plot: %s: %s\n", output, err_str(r));
                } else
                        have_tmp = false;
        }
        if (have_tmp)
                unlink(tmp);
        unlink(s_path);
        unlink(d_path);
        unlink(g_path);
        rmdir(dir);
        return r == 0 ? 0 : 1;
}
