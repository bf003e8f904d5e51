/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advice.h"
#include "cgroup-follow.h"
#include "exit-code.h"
#include "log.h"
#include "psi.h"
#include "publish.h"
#include "snapshot.h"
#include "status.h"
#include "swap-disk.h"
#include "util.h"

#define STATUS_NOT_RUNNING 3
#define STATUS_NO_PERMISSION 4

/* cgroups below the mount the advice looks at: slices, units, and one level
 * more (a user manager's slices) */
#define ADVICE_DEPTH 4
/* cgroups listed by "Would:", at most, each kind */
#define WOULD_MAX 32

/* What the kernel offers now, read live (no daemon needed). */
struct host {
        bool zswap;                     /* ZSWAP_PARAMS exists (CONFIG_ZSWAP) */
        knob_value enabled;             /* KNOB_UNSET: unreadable */
        char compressor[64], zpool[64]; /* "" = unreadable */
        bool have_pool;
        struct pool_sample pool;
        int swaps;                      /* active swap areas; < 0 = unreadable */
        struct swap_disk disk;          /* whether swap shares a disk with mounted file systems */
        const char *cgroup;             /* "v1", "v2", "v2-no-memory", "none" */
        bool psi;
        const char *knob;               /* the knob the kernel has; NULL: neither */
        knob_value knob_value;
        unsigned warnings;              /* WARN_* that hold without a daemon */
};

/* What the daemon would do with the configuration, from one scan. */
struct would {
        const char *config_path;
        bool config_missing;            /* no file there: the built-in defaults */
        bool config_ok;
        char config_error[1024];
        bool start;                     /* it would start (PSI and zswap are there, the configuration is valid) */
        const char *knob;               /* the knob it would steer; NULL: none */
        bool dry_run;
        unsigned n_batch, n_idle, n_units;
        bool idle_cgroups;              /* [Batch] IdleCgroups= is on */
        char batch[WOULD_MAX][CONF_CGROUP_NAME_MAX + 1]; /* Cgroups= matches */
        char idle[WOULD_MAX][CONF_CGROUP_NAME_MAX + 1];  /* IdleCgroups= matches */
        unsigned more_batch, more_idle;                  /* beyond WOULD_MAX */
        char metrics_problem[1024];     /* [Metrics] TextfileDirectory='s, "" = none */
};

static void read_param(const struct kernel *k, const char *name, char *buf, size_t size) {
        char path[256];

        snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
        if (kernel_read(k, path, buf, size) > 0)
                strstrip(buf);
        else
                buf[0] = '\0';
}

static void host_probe(const struct kernel *k, struct host *h) {
        static const char *const knobs[] = { "shrinker_enabled", "shrink_enabled" };
        char buf[4096];
        uint64_t total;
        int r;

        *h = (struct host) { .enabled = KNOB_UNSET, .swaps = -1, .cgroup = "none", .knob_value = KNOB_UNSET };
        h->zswap = kernel_exists(k, ZSWAP_PARAMS);
        if (kernel_read(k, ZSWAP_PARAMS "/enabled", buf, sizeof(buf)) > 0 && (r = parse_knob(buf)) >= 0)
                h->enabled = (knob_value) r;
        read_param(k, "compressor", h->compressor, sizeof(h->compressor));
        read_param(k, "zpool", h->zpool, sizeof(h->zpool));
        h->have_pool = kernel_read_pool(k, &h->pool) == 0;
        if (kernel_read(k, "/proc/swaps", buf, sizeof(buf)) >= 0)
                h->swaps = parse_swaps(buf);
        if (h->swaps > 0)
                (void) swap_disk_scan(k, &h->disk);
        if (kernel_read(k, "/proc/self/cgroup", buf, sizeof(buf)) > 0 && parse_cgroup_memory_v1(buf))
                h->cgroup = "v1";
        else if (kernel_read(k, CGROUP_ROOT "/cgroup.controllers", buf, sizeof(buf)) >= 0)
                h->cgroup = strstr(buf, "memory") ? "v2" : "v2-no-memory";
        h->psi = psi_read_total(k, PSI_SYSTEM_MEMORY, PSI_SOME, &total) == 0;
        for (size_t i = 0; i < ELEMENTSOF(knobs) && !h->knob; i++) {
                char path[256];
                snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", knobs[i]);
                if (kernel_exists(k, path)) {
                        h->knob = knobs[i];
                        r = kernel_knob_read(k, knobs[i]);
                        h->knob_value = r < 0 ? KNOB_UNSET : (knob_value) r;
                }
        }
        if (strcmp(h->cgroup, "v1") == 0)
                h->warnings |= WARN_CGROUP_V1;
        if (h->swaps == 0)
                h->warnings |= WARN_NO_SWAP;
        if (!h->zswap || h->enabled == KNOB_OFF)
                h->warnings |= WARN_ZSWAP_DISABLED;
        if (h->zswap && !h->have_pool)
                h->warnings |= WARN_POOL_UNREADABLE;
        if (!h->knob)
                h->warnings |= WARN_KNOB_MISSING;
}

static void would_add(struct follow *f, const struct follow_match *m, void *userdata) {
        struct would *w = userdata;
        bool idle = m->pattern == FOLLOW_IDLE;
        unsigned *n = idle ? &w->n_idle : &w->n_batch;
        char (*list)[CONF_CGROUP_NAME_MAX + 1] = idle ? w->idle : w->batch;

        if (*n >= WOULD_MAX) {
                (*(idle ? &w->more_idle : &w->more_batch))++;
                return;
        }
        snprintf(list[(*n)++], sizeof(w->batch[0]), "%s", m->rel);
}

/* The configuration, and what it would take: Cgroups= and IdleCgroups=
 * scanned once (Units= need the service manager: named, not resolved). */
static void would_probe(const struct kernel *k, const struct host *h, const char *config_path, bool config_given,
                        struct would *w) {
        static struct conf c;
        struct follow *f = NULL;
        int level = log_get_max_level();

        *w = (struct would) { .config_path = config_path };
        w->config_missing = !config_given && access(config_path, F_OK) < 0 && errno == ENOENT;
        conf_defaults(&c);
        w->config_ok = (config_given ? conf_load_given : conf_load)(&c, config_path, w->config_error,
                                                                      sizeof(w->config_error)) == 0;
        if (!w->config_ok) {
                w->start = false;
                return;
        }
        w->start = h->psi && h->zswap;
        w->dry_run = c.dry_run;
        w->knob = c.knob == KNOB_CHOICE_NONE               ? NULL
                  : c.knob == KNOB_CHOICE_SHRINKER_ENABLED ? "shrinker_enabled"
                  : c.knob == KNOB_CHOICE_SHRINK_ENABLED   ? "shrink_enabled"
                                                           : h->knob;
        w->n_units = c.batch_units.n;
        w->idle_cgroups = c.batch_idle;
        (void) publish_check_metrics_dir(&c, w->metrics_problem, sizeof(w->metrics_problem));
        /* a scan, not the daemon: its informational lines are noise here;
         * a refused pattern is still said */
        log_set_max_level(level < LOG_WARNING ? level : LOG_WARNING);
        if (c.batch_cgroups.n > 0 || c.batch_idle) {
                struct follow_params p = {
                        .name = "Batch",
                        .kernel = k,
                        .patterns = &c.batch_cgroups,
                        .idle = c.batch_idle,
                        .max = c.batch_max_cgroups,
                        /* the unit's cgroup, not this command's (a user's session) */
                        .own = "system.slice/zswap-tuned.service",
                        .on_add = would_add,
                        .userdata = w,
                };
                (void) follow_new(&f, &p);
                follow_free(f);
        }
        log_set_max_level(level);
        conf_free(&c);
}

static const char *knob_word(knob_value v) {
        return v == KNOB_ON ? "Y" : v == KNOB_OFF ? "N" : "unreadable";
}

static void print_list(FILE *f, const char *what, const char (*list)[CONF_CGROUP_NAME_MAX + 1], unsigned n,
                       unsigned more) {
        char e[SNAPSHOT_ESCAPED(CONF_CGROUP_NAME_MAX)];

        fprintf(f, "            %s:", what);
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%s%s", i ? ", " : " ", snapshot_escape(list[i], e, sizeof(e)));
        if (more)
                fprintf(f, " and %u more", more);
        fputc('\n', f);
}

static void host_print(const struct host *h, FILE *f) {
        char a[32], b[32], e[SNAPSHOT_ESCAPED(64)];

        if (!h->zswap)
                fputs("     Zswap: not in this kernel (no " ZSWAP_PARAMS ": CONFIG_ZSWAP is off)\n", f);
        else if (h->enabled == KNOB_OFF)
                fputs("     Zswap: zswap is off (enabled=N): nothing is stored; turn it on with\n"
                      "            echo Y > " ZSWAP_PARAMS "/enabled (or zswap.enabled=1 on the kernel command "
                      "line)\n",
                      f);
        else
                fprintf(f, "     Zswap: %s\n", h->enabled == KNOB_ON ? "on" : "unknown (enabled cannot be read)");
        if (h->zswap) {
                fputs("           ", f);
                if (h->compressor[0])
                        fprintf(f, " compressor %s,", snapshot_escape(h->compressor, e, sizeof(e)));
                if (h->zpool[0]) /* gone in Linux 6.15: zsmalloc only */
                        fprintf(f, " zpool %s,", snapshot_escape(h->zpool, e, sizeof(e)));
                if (h->have_pool)
                        fprintf(f, " max_pool_percent %u\n", h->pool.max_pool_percent);
                else
                        fputs(" max_pool_percent unreadable\n", f);
        }
        if (h->have_pool) {
                fprintf(f, "      Pool: %s of %s (%.0f%%)", format_bytes(a, sizeof(a), h->pool.pool_bytes),
                        format_bytes(b, sizeof(b), h->pool.limit_bytes), pool_percent(&h->pool));
                if (h->pool.pool_bytes > 0 && h->pool.stored_bytes > 0)
                        fprintf(f, ", compressed %.1fx",
                                (double) h->pool.stored_bytes / (double) h->pool.pool_bytes);
                fputc('\n', f);
        } else if (h->zswap)
                fputs("      Pool: cannot be read (/proc/meminfo has no Zswap: line and debugfs is not there)\n", f);
        if (h->swaps < 0)
                fputs("      Swap: unknown (/proc/swaps cannot be read)\n", f);
        else if (h->swaps == 0)
                fputs("      Swap: no swap: zswap stores nothing without a swap area\n", f);
        else {
                fprintf(f, "      Swap: %d area%s", h->swaps, h->swaps == 1 ? "" : "s");
                if (h->disk.shared) {
                        fputs(", ", f);
                        swap_disk_print(&h->disk, f);
                }
                fputc('\n', f);
        }
        if (strcmp(h->cgroup, "v1") == 0)
                fputs("   Cgroups: the memory controller is on cgroup v1: the shrinker writes nothing back and "
                      "no cap can be set\n",
                      f);
        else if (strcmp(h->cgroup, "v2") == 0)
                fputs("   Cgroups: v2, with the memory controller\n", f);
        else if (strcmp(h->cgroup, "v2-no-memory") == 0)
                fputs("   Cgroups: v2, without the memory controller at the root: no cap can be set\n", f);
        else
                fputs("   Cgroups: no cgroup v2 mount at " CGROUP_ROOT ": no cap can be set\n", f);
        fprintf(f, "       PSI: %s\n", h->psi ? "available"
                                              : "not available (" PSI_SYSTEM_MEMORY "): the daemon does not start; "
                                                "boot with psi=1");
        if (h->knob)
                fprintf(f, "      Knob: %s=%s\n", h->knob, knob_word(h->knob_value));
        else
                fputs("      Knob: none (neither shrinker_enabled, Linux 6.8+, nor shrink_enabled): the daemon "
                      "would only watch the pool and cap\n",
                      f);
}

static void would_print(const struct would *w, const struct host *h, FILE *f) {
        char e[SNAPSHOT_ESCAPED(1024)];
        bool anything = false;

        fprintf(f, "    Config: %s%s\n", snapshot_escape(w->config_path, e, sizeof(e)),
                w->config_missing ? " (not there: the built-in defaults apply, and any drop-ins)" : "");
        if (!w->config_ok) {
                fprintf(f, "     Would: not start: %s (exit %d)\n", snapshot_escape(w->config_error, e, sizeof(e)),
                        EXIT_CONFIG);
                return;
        }
        if (!w->start) {
                fprintf(f, "     Would: not start: %s (exit %d)\n",
                        !h->psi ? "no PSI in the kernel" : "no zswap in the kernel", EXIT_UNAVAILABLE);
                return;
        }
        fprintf(f, "     Would:%s\n", w->dry_run ? " (DryRun=yes: write nothing, only say what it would do)" : "");
        if (w->knob && h->knob) {
                fprintf(f, "            steer %s on pressure and the pool's fill%s\n", w->knob,
                        (h->warnings & WARN_CGROUP_V1) ? " (to no effect: the memory controller is on cgroup v1)"
                        : (h->warnings & WARN_ZSWAP_DISABLED) ? " (to no effect until zswap is on)"
                                                               : "");
                anything = true;
        }
        if (w->n_batch || w->more_batch) {
                print_list(f, "cap ([Batch] Cgroups=)", w->batch, w->n_batch,
                           w->more_batch);
                anything = true;
        }
        if (w->n_idle || w->more_idle) {
                print_list(f, "cap idle cgroups found ([Batch] IdleCgroups=, cpu.idle 1)",
                           w->idle, w->n_idle, w->more_idle);
                anything = true;
        }
        if (w->n_units) {
                fprintf(f, "            cap the cgroups of [Batch] Units= (%u pattern%s; resolved by the daemon "
                           "through systemd, not here)\n",
                        w->n_units, w->n_units == 1 ? "" : "s");
                anything = true;
        }
        if ((w->n_batch || w->n_idle || w->n_units) && (h->warnings & WARN_CGROUP_V1))
                fputs("            (no cap takes effect: the memory controller is on cgroup v1)\n", f);
        if (!anything)
                fputs("            only observe: no knob to steer and no batch cgroup to cap\n", f);
        if (w->metrics_problem[0])
                fprintf(f, "   Warning: %s\n", snapshot_escape(w->metrics_problem, e, sizeof(e)));
}

static void json_knob(FILE *f, knob_value v) {
        fputs(v == KNOB_ON ? "true" : v == KNOB_OFF ? "false" : "null", f);
}

static void host_json(const struct host *h, FILE *f) {
        fprintf(f, "{\"zswap\":{\"available\":%s,\"enabled\":", h->zswap ? "true" : "false");
        json_knob(f, h->enabled);
        fputs(",\"compressor\":", f);
        snapshot_json_string_or_null(f, h->compressor);
        fputs(",\"zpool\":", f);
        snapshot_json_string_or_null(f, h->zpool);
        fputs(",\"max_pool_percent\":", f);
        if (h->have_pool)
                fprintf(f, "%u", h->pool.max_pool_percent);
        else
                fputs("null", f);
        fputs("},\"pool\":", f);
        if (h->have_pool)
                fprintf(f, "{\"percent\":%.1f,\"bytes\":%llu,\"stored_bytes\":%llu,\"limit_bytes\":%llu}",
                        pool_percent(&h->pool), (unsigned long long) h->pool.pool_bytes,
                        (unsigned long long) h->pool.stored_bytes, (unsigned long long) h->pool.limit_bytes);
        else
                fputs("null", f);
        fputs(",\"swap_areas\":", f);
        if (h->swaps >= 0)
                fprintf(f, "%d", h->swaps);
        else
                fputs("null", f);
        fputs(",\"swap_shares_disk\":", f);
        swap_disk_json(&h->disk, f);
        fprintf(f, ",\"cgroup\":\"%s\",\"psi\":%s,\"knob\":", h->cgroup, h->psi ? "true" : "false");
        snapshot_json_string_or_null(f, h->knob);
        fputs(",\"knob_value\":", f);
        json_knob(f, h->knob_value);
        fputs(",\"warnings\":", f);
        snapshot_json_warnings(h->warnings, f);
        fputc('}', f);
}

static void json_list(FILE *f, const char (*list)[CONF_CGROUP_NAME_MAX + 1], unsigned n) {
        fputc('[', f);
        for (unsigned i = 0; i < n; i++) {
                fputs(i ? "," : "", f);
                snapshot_json_string(f, list[i]);
        }
        fputc(']', f);
}

static void would_json(const struct would *w, const struct host *h, FILE *f) {
        fputs("{\"config\":", f);
        snapshot_json_string(f, w->config_path);
        fprintf(f, ",\"config_missing\":%s,\"config_error\":", w->config_missing ? "true" : "false");
        snapshot_json_string_or_null(f, w->config_ok ? NULL : w->config_error);
        fprintf(f, ",\"start\":%s,\"dry_run\":%s,\"knob\":", w->start ? "true" : "false",
                w->dry_run ? "true" : "false");
        snapshot_json_string_or_null(f, w->start && h->knob ? w->knob : NULL);
        fputs(",\"batch\":", f);
        json_list(f, w->batch, w->n_batch);
        fputs(",\"idle\":", f);
        json_list(f, w->idle, w->n_idle);
        fprintf(f, ",\"more_cgroups\":%u,\"unit_patterns\":%u,\"only_observe\":%s,\"metrics_problem\":",
                w->more_batch + w->more_idle, w->n_units,
                w->start && !(w->knob && h->knob) && !w->n_batch && !w->n_idle && !w->more_batch && !w->more_idle &&
                                !w->n_units
                        ? "true"
                        : "false");
        snapshot_json_string_or_null(f, w->metrics_problem);
        fputc('}', f);
}

/* The end of a status --json object: its "advice" (null while none is
 * given, a is NULL then), and the object closed. */
static void json_advice_close(const struct advice *a, FILE *f) {
        fputs(",\"advice\":", f);
        if (a)
                advice_json(a, f);
        else
                fputs("null", f);
        fputs("}\n", f);
}

/* No running daemon found (exit 3): what the kernel offers, what the
 * daemon would do, and the advice; or not allowed to tell (exit 4). */
static int not_running(const struct kernel *k, const char *config_path, bool config_given, status_error e,
                       const char *why, bool json) {
        static struct host h;
        static struct would w;
        static struct advice advice;
        bool advise;

        if (e == STATUS_ERROR_PERMISSION) {
                if (json)
                        snapshot_json_not_running(e, why, stdout);
                (void) fflush(stdout);
                return STATUS_NO_PERMISSION;
        }
        host_probe(k, &h);
        would_probe(k, &h, config_path, config_given, &w);
        advise = w.config_ok && !w.n_batch && !w.n_idle && !w.n_units &&
                 advice_scan(k, h.have_pool ? h.pool.limit_bytes : 0, ADVICE_DEPTH, &advice) == 0;
        advice.idle_cgroups = w.idle_cgroups;
        advice.swap = &h.disk;
        if (json) {
                snapshot_json_not_running_open(e, why, stdout);
                fputs(",\"host\":", stdout);
                host_json(&h, stdout);
                fputs(",\"would\":", stdout);
                would_json(&w, &h, stdout);
                json_advice_close(advise ? &advice : NULL, stdout);
        } else {
                char esc[SNAPSHOT_ESCAPED(1200)];
                printf("zswap-tuned: not running (%s); what it would find:\n", snapshot_escape(why, esc, sizeof(esc)));
                host_print(&h, stdout);
                would_print(&w, &h, stdout);
                if (advise)
                        advice_print(&advice, stdout);
        }
        (void) fflush(stdout);
        return STATUS_NOT_RUNNING;
}

/* The daemon has a batch pattern: with idle, IdleCgroups='s (which names
 * nothing: a host without such cgroups still gets advice); else one that
 * names batch work (Cgroups=, Units=). */
static bool batch_pattern(const struct snapshot *s, bool idle) {
        for (unsigned i = 0; i < s->n_patterns; i++)
                if (strcmp(s->pattern[i].role, "batch") == 0 &&
                    (strcmp(s->pattern[i].pattern, SNAPSHOT_PATTERN_IDLE) == 0) == idle)
                        return true;
        return false;
}

int status_show(const struct kernel *k, const char *state_dir, const char *config_path, bool config_given,
                bool json) {
        static char buf[SNAPSHOT_FILE_MAX];
        static struct snapshot s;
        static struct advice advice;
        static struct host h;
        char path[1024];
        struct pool_sample pool;
        ssize_t n;

        if ((size_t) snprintf(path, sizeof(path), "%s/" SNAPSHOT_NAME, state_dir) >= sizeof(path))
                return not_running(k, config_path, config_given, STATUS_ERROR_NO_STATUS,
                                   "state directory path too long", json);
        n = read_full_file(path, buf, sizeof(buf));
        if (n == -EACCES || n == -EPERM) {
                char why[1200], esc[SNAPSHOT_ESCAPED(1200)];
                snprintf(why, sizeof(why), "cannot read %s: %s (run as root)", path, err_str((int) n));
                fprintf(stderr, "zswap-tuned: %s\n", snapshot_escape(why, esc, sizeof(esc)));
                return not_running(k, config_path, config_given, STATUS_ERROR_PERMISSION, why, json);
        }
        if (n == -ENOENT || n == -ENOTDIR)
                return not_running(k, config_path, config_given, STATUS_ERROR_NO_STATUS,
                                   "no status in the state directory", json);
        if (n < 0)
                return not_running(k, config_path, config_given, STATUS_ERROR_INVALID, err_str((int) n), json);
        if (snapshot_parse(buf, &s) < 0)
                return not_running(k, config_path, config_given, STATUS_ERROR_INVALID,
                                   "the status file is not one zswap-tuned wrote", json);
        /* SIGKILL leaves the file behind until --restore: is its writer alive? */
        if (s.pid <= 0 || (kill(s.pid, 0) < 0 && errno == ESRCH))
                return not_running(k, config_path, config_given, STATUS_ERROR_STALE,
                                   "the status file is from a process that is gone", json);
        /* the pool as it is now, not as at the last sample */
        if (kernel_read_pool(k, &pool) == 0) {
                s.pool_bytes = pool.pool_bytes;
                s.stored_bytes = pool.stored_bytes;
                s.limit_bytes = pool.limit_bytes;
                s.pool = pool_percent(&pool);
        }
        /* what the kernel offers besides (incompressible pages: 6.18+) */
        uint64_t v;
        if (kernel_pool_incompressible(k, &v) == 0 && v <= INT64_MAX)
                s.incomp_pages = (int64_t) v;
        /* what no cgroup is charged for: the allocator's overhead (a lowered
         * memory.zswap.max gives room back to the cgroup before the pool) */
        if (advice_pool_charged(k, &v) == 0) {
                uint64_t u = s.pool_bytes > v ? s.pool_bytes - v : 0;
                s.uncharged = u > INT64_MAX ? INT64_MAX : (int64_t) u;
        }
        for (unsigned i = 0; i < s.n_batch; i++)
                if (kernel_cgroup_incompressible(k, s.batch[i].cgroup, &v) == 0 && v <= INT64_MAX)
                        s.batch[i].incomp = (int64_t) v;
        /* nothing named as batch work: say who holds the pool and who stalls */
        bool advise = s.n_batch == 0 && !batch_pattern(&s, false) &&
                      advice_scan(k, s.limit_bytes, ADVICE_DEPTH, &advice) == 0;
        advice.idle_cgroups = batch_pattern(&s, true);
        host_probe(k, &h);
        advice.swap = &h.disk;
        if (json) {
                snapshot_json_open(&s, realtime_usec(), stdout);
                fputs(",\"host\":", stdout);
                host_json(&h, stdout);
                json_advice_close(advise ? &advice : NULL, stdout);
        } else {
                snapshot_print(&s, realtime_usec(), stdout);
                if (advise)
                        advice_print(&advice, stdout);
                if (h.disk.shared && !(advise && advice_protects(&advice))) { /* else the advice said it */
                        fputs("      Note: ", stdout);
                        swap_disk_print(&h.disk, stdout);
                        fputs(s.n_batch > 0 ? ";\n"
                                              "            the caps send the batch's pages to that disk: where the\n"
                                              "            service writes to it too, they can cost it\n"
                                              "            (zswap-tuned.conf(5), [Batch])\n"
                                            : ";\n"
                                              "            a cap on batch work would send its pages to that disk:\n"
                                              "            where the service writes to it too, name none\n"
                                              "            (zswap-tuned.conf(5), [Batch])\n",
                              stdout);
                }
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
