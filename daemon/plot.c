/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"
#include "util.h"

extern char **environ;

/* The recording's samples and decisions as two data files gnuplot reads. */
static int split(const char *path, FILE *samples, FILE *decisions, bool *capped) {
        char *line = NULL;
        size_t size = 0;
        uint64_t t0 = 0, now;
        bool have_t0 = false;
        unsigned n = 0;
        int set, knob, mode, reason, held, pv, stores, ps;
        double pressure, pool, batch, cap;
        uint64_t limit;
        unsigned nb;
        FILE *in = fopen(path, "re");

        if (!in) {
                fprintf(stderr, "zswap-tuned: %s: %s\n", path, err_str(-errno));
                return -errno;
        }
        while (getline(&line, &size, in) >= 0) {
                if (sscanf(line, "S,%" SCNu64 ",%d,%lf,%d,%d,%lf,%" SCNu64 ",%u,%lf", &now, &pv, &pressure, &stores,
                           &ps, &pool, &limit, &nb, &batch) == 9) {
                        if (!have_t0) {
                                t0 = now;
                                have_t0 = true;
                        }
                        fprintf(samples, "%.3f %.2f %.2f %.2f\n", (double) (now - t0) / USEC_PER_SEC,
                                ps == 0 ? pool : 0, pv ? pressure : 0, batch);
                        n++;
                } else if (have_t0 && sscanf(line, "D,%" SCNu64 ",%d,%d,%d,%d,%lf,%d", &now, &set, &knob, &mode,
                                             &reason, &cap, &held) == 7)
                {
                        fprintf(decisions, "%.3f %d %.2f %d\n", (double) (now - t0) / USEC_PER_SEC,
                                knob == 1, cap, mode);
                        *capped = *capped || cap >= 0;
                }
        }
        free(line);
        fclose(in);
        if (n == 0) {
                fprintf(stderr, "zswap-tuned: %s: no samples (is it a recording? see --record)\n", path);
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

int plot(const char *recording, const char *output) {
        char dir[] = "/tmp/zswap-tuned-plot.XXXXXX", s_path[64], d_path[64], g_path[64];
        const char *base = strrchr(recording, '/') ? strrchr(recording, '/') + 1 : recording;
        char *argv[] = { (char *) "gnuplot", g_path, NULL };
        FILE *s = NULL, *d = NULL, *g = NULL;
        bool capped = false;
        int r, status;
        pid_t pid;

        if (strpbrk(output, "'\n") || strpbrk(base, "'\n")) {
                fprintf(stderr, "zswap-tuned: plot: file names with quotes or newlines are not supported\n");
                return 1;
        }
        if (!mkdtemp(dir))
                return 1;
        snprintf(s_path, sizeof(s_path), "%s/samples", dir);
        snprintf(d_path, sizeof(d_path), "%s/decisions", dir);
        snprintf(g_path, sizeof(g_path), "%s/plot.gp", dir);
        s = fopen(s_path, "we");
        d = fopen(d_path, "we");
        g = fopen(g_path, "we");
        r = s && d && g ? split(recording, s, d, &capped) : -errno;
        if (g && r == 0)
                fprintf(g, script, output, base, s_path, s_path,
                        capped ? "set ytics nomirror\nset y2tics\nset y2label 'batch cap, % of the limit'\n" : "",
                        d_path,
                        capped ? ", '' using 1:($3 >= 0 ? $3 : 1/0) axes x1y2 with steps title 'batch cap'" : "");
        if (s)
                fclose(s);
        if (d)
                fclose(d);
        if (g)
                fclose(g);
        if (r == 0) {
                r = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
                if (r == ENOENT)
                        fprintf(stderr, "zswap-tuned: plot needs gnuplot (Debian: apt-get install gnuplot-nox)\n");
                else if (r != 0)
                        fprintf(stderr, "zswap-tuned: cannot run gnuplot: %s\n", strerror(r));
                else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        r = -1;
        }
        unlink(s_path);
        unlink(d_path);
        unlink(g_path);
        rmdir(dir);
        return r == 0 ? 0 : 1;
}
