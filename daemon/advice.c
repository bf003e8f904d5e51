/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "advice.h"
#include "psi.h"
#include "snapshot.h"
#include "swap-disk.h"
#include "util.h"

static double zswap_of(const struct advice_cg *c) {
        return (double) c->zswap;
}

static double stall_of(const struct advice_cg *c) {
        return c->stall;
}

/* Keep the ADVICE_MAX largest of list by key_of, largest first. */
static void keep(struct advice_cg *list, unsigned *n, const struct advice_cg *c,
                 double (*key_of)(const struct advice_cg *)) {
        double key = key_of(c);
        unsigned i;

        if (*n == ADVICE_MAX && key_of(&list[ADVICE_MAX - 1]) >= key)
                return; /* not among the largest */
        i = *n < ADVICE_MAX ? (*n)++ : ADVICE_MAX - 1;
        for (; i > 0 && key_of(&list[i - 1]) < key; i--)
                list[i] = list[i - 1];
        list[i] = *c;
}

void advice_add(struct advice *a, const char *cgroup, uint64_t zswap, double stall, bool idle) {
        struct advice_cg c = { .zswap = zswap, .stall = stall, .idle = idle };

        if (strlen(cgroup) >= sizeof(c.cgroup))
                return; /* too long to name in a configuration */
        strcpy(c.cgroup, cgroup);
        if (a->limit_bytes > 0 && 100.0 * (double) zswap / (double) a->limit_bytes >= ADVICE_HOLDER_PERCENT)
                keep(a->holders, &a->n_holders, &c, zswap_of);
        else if (stall >= ADVICE_STALL_PERCENT)
                keep(a->stalling, &a->n_stalling, &c, stall_of);
}

/* One cgroup's figures (dir: "/sys/fs/cgroup/...", below the root prefix):
 * its zswap (memory.stat), its "some" avg300 stall and whether its cpu.idle
 * is 1; 0 and false where unreadable. */
static void read_cgroup(const struct kernel *k, const char *dir, uint64_t *zswap, double *stall, bool *idle) {
        char path[4096], buf[8192];

        *zswap = 0;
        *stall = 0;
        snprintf(path, sizeof(path), "%s/memory.stat", dir);
        if (kernel_read(k, path, buf, sizeof(buf)) > 0)
                (void) parse_stat_field(buf, "zswap", zswap);
        snprintf(path, sizeof(path), "%s/memory.pressure", dir);
        if (kernel_read(k, path, buf, sizeof(buf)) > 0 && parse_psi_avg300(buf, PSI_SOME, stall) < 0)
                *stall = 0;
        *idle = kernel_cgroup_idle(k, dir);
}

/* A child cgroup: a subdirectory, not a hidden name. */
static bool is_cgroup_dir(DIR *d, const struct dirent *e) {
        return e->d_name[0] != '.' && dirent_is_dir(d, e);
}

/* dir: a cgroup's directory below the root prefix; rel: its name below the
 * mount ("" for the root cgroup, which is never advised). */
static void scan(const struct kernel *k, const char *dir, const char *rel, unsigned depth, struct advice *a) {
        char path[4096];
        bool leaf = true;
        struct dirent *e;
        DIR *d;

        if (kernel_path(k, dir, path, sizeof(path)) < 0 || !(d = opendir(path)))
                return;
        while ((e = readdir(d)) && depth > 0) {
                char child[4096], child_rel[4096];
                if (!is_cgroup_dir(d, e))
                        continue;
                leaf = false;
                if ((size_t) snprintf(child, sizeof(child), "%s/%s", dir, e->d_name) >= sizeof(child) ||
                    (size_t) snprintf(child_rel, sizeof(child_rel), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
                            sizeof(child_rel))
                        continue;
                scan(k, child, child_rel, depth - 1, a);
        }
        closedir(d);
        if (!leaf || !*rel)
                return;
        uint64_t zswap;
        double stall;
        bool idle;
        a->scanned++;
        read_cgroup(k, dir, &zswap, &stall, &idle);
        advice_add(a, rel, zswap, stall, idle);
}

int advice_scan(const struct kernel *k, uint64_t limit_bytes, unsigned depth, struct advice *a) {
        *a = (struct advice) { .limit_bytes = limit_bytes };
        if (!kernel_exists(k, CGROUP_ROOT "/cgroup.controllers"))
                return -ENOENT; /* no cgroup v2 */
        scan(k, CGROUP_ROOT, "", depth, a);
        return 0;
}

int advice_pool_charged(const struct kernel *k, uint64_t *bytes) {
        char path[4096];
        struct dirent *e;
        bool any = false;
        DIR *d;

        *bytes = 0;
        if (!kernel_exists(k, CGROUP_ROOT "/cgroup.controllers") ||
            kernel_path(k, CGROUP_ROOT, path, sizeof(path)) < 0 || !(d = opendir(path)))
                return -ENOENT;
        while ((e = readdir(d))) {
                char child[4096];
                uint64_t v;
                if (!is_cgroup_dir(d, e))
                        continue;
                if ((size_t) snprintf(child, sizeof(child), CGROUP_ROOT "/%s", e->d_name) >= sizeof(child) ||
                    kernel_cgroup_stat(k, child, "zswap", &v) < 0)
                        continue;
                any = true;
                *bytes = v > UINT64_MAX - *bytes ? UINT64_MAX : *bytes + v; /* a hostile file saturates */
        }
        closedir(d);
        return any ? 0 : -ENOENT;
}

bool advice_protects(const struct advice *a) {
        return a->n_holders > 0 && a->n_stalling > 0;
}

void advice_config(const struct advice *a, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        if (!advice_protects(a))
                return;
        n += (size_t) snprintf(buf + n, size - n, "[Batch]\nCgroups=");
        for (unsigned i = 0; i < a->n_holders && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "", a->holders[i].cgroup);
        if (n < size)
                n += (size_t) snprintf(buf + n, size - n, "\n[Pressure]\nCgroups=");
        for (unsigned i = 0; i < a->n_stalling && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "", a->stalling[i].cgroup);
        if (n < size)
                snprintf(buf + n, size - n, "\n");
}

static double share(const struct advice *a, const struct advice_cg *c) {
        return a->limit_bytes ? 100.0 * (double) c->zswap / (double) a->limit_bytes : 0;
}

/* A holder marked idle while IdleCgroups= is off. */
static bool idle_unclaimed(const struct advice *a) {
        if (a->idle_cgroups)
                return false;
        for (unsigned i = 0; i < a->n_holders; i++)
                if (a->holders[i].idle)
                        return true;
        return false;
}

void advice_print(const struct advice *a, FILE *f) {
        char b[32], config[8192], e[SNAPSHOT_ESCAPED(CONF_CGROUP_NAME_MAX)];

        fprintf(f, "    Advice: no batch cgroups are named; from the kernel's figures now (%u leaf cgroups):\n",
                a->scanned);
        for (unsigned i = 0; i < a->n_holders; i++)
                fprintf(f, "            holds the pool: %s, %s (%.0f%% of the limit)%s\n",
                        snapshot_escape(a->holders[i].cgroup, e, sizeof(e)),
                        format_bytes(b, sizeof(b), a->holders[i].zswap), share(a, &a->holders[i]),
                        a->holders[i].idle ? ", marked idle (cpu.idle 1)" : "");
        for (unsigned i = 0; i < a->n_stalling; i++)
                fprintf(f, "            stalls on memory: %s, %.1f%% of the time over 5 min\n",
                        snapshot_escape(a->stalling[i].cgroup, e, sizeof(e)), a->stalling[i].stall);
        advice_config(a, config, sizeof(config));
        if (!config[0]) {
                fprintf(f, "            nothing to protect: %s\n",
                        a->n_holders ? "nothing stalls" : "no cgroup holds 5% of the pool limit");
                return;
        }
        fputs("            to keep the pool for the latter, in a drop-in\n"
              "            (/etc/zswap-tuned.conf.d/50-batch.conf):\n", f);
        for (char *l = config, *next; *l; l = next) {
                char line[SNAPSHOT_ESCAPED(sizeof(config))];
                next = strchr(l, '\n');
                if (next)
                        *next++ = '\0';
                else
                        next = l + strlen(l);
                fprintf(f, "              %s\n", snapshot_escape(l, line, sizeof(line)));
        }
        if (a->swap && a->swap->shared) {
                fputs("            but only if the latter write to none of the file systems on\n"
                      "            swap's disk: ", f);
                swap_disk_print(a->swap, f);
                fputs(";\n"
                      "            a cap sends the holders' pages to that disk, where the\n"
                      "            service's writes wait behind them (zswap-tuned.conf(5), [Batch])\n",
                      f);
        }
        if (idle_unclaimed(a))
                fputs("            or IdleCgroups=yes in [Batch], which takes every cgroup marked\n"
                      "            idle outside users' delegated subtrees (off by default: where\n"
                      "            swap shares a disk with the service, a cap can cost it;\n"
                      "            zswap-tuned.conf(5))\n",
                      f);
}

void advice_json(const struct advice *a, FILE *f) {
        char config[8192];

        fputs("{\"holders\":[", f);
        for (unsigned i = 0; i < a->n_holders; i++) {
                fprintf(f, "%s{\"cgroup\":", i ? "," : "");
                snapshot_json_string(f, a->holders[i].cgroup);
                fprintf(f, ",\"zswap_bytes\":%llu,\"percent_of_limit\":%.1f,\"cpu_idle\":%s}",
                        (unsigned long long) a->holders[i].zswap, share(a, &a->holders[i]),
                        a->holders[i].idle ? "true" : "false");
        }
        fputs("],\"stalling\":[", f);
        for (unsigned i = 0; i < a->n_stalling; i++) {
                fprintf(f, "%s{\"cgroup\":", i ? "," : "");
                snapshot_json_string(f, a->stalling[i].cgroup);
                fprintf(f, ",\"some_avg300_percent\":%.2f}", a->stalling[i].stall);
        }
        advice_config(a, config, sizeof(config));
        fputs("],\"config\":", f);
        snapshot_json_string(f, config);
        fputs("}", f);
}
