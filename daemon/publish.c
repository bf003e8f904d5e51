/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "log.h"
#include "publish.h"
#include "util.h"

#define METRICS_MIN_INTERVAL (5 * USEC_PER_SEC)

/* The kernel's zswap counters, as snapshot.counters[]: where each is read
 * (a /proc/vmstat line, or a debugfs file: root, and debugfs mounted), and
 * its series. Absent from the kernel: absent from the textfile. */
static const struct {
        const char *vmstat;     /* NULL: the debugfs file */
        const char *debugfs;
        const char *series;
} counters[SNAPSHOT_COUNTERS] = {
        { "zswpout", NULL, "zswap_tuned_stored_pages_total" },
        { "zswpin", NULL, "zswap_tuned_loaded_pages_total" },
        { "zswpwb", NULL, "zswap_tuned_written_back_pages_total" },
        { NULL, "pool_limit_hit", "zswap_tuned_pool_limit_hit_total" },
        { NULL, "reject_compress_poor", "zswap_tuned_rejects_total{reason=\"compress_poor\"}" },
        { NULL, "reject_compress_fail", "zswap_tuned_rejects_total{reason=\"compress_fail\"}" },
        { NULL, "reject_alloc_fail", "zswap_tuned_rejects_total{reason=\"alloc_fail\"}" },
        { NULL, "reject_kmemcache_fail", "zswap_tuned_rejects_total{reason=\"kmemcache_fail\"}" },
        { NULL, "reject_reclaim_fail", "zswap_tuned_rejects_total{reason=\"reclaim_fail\"}" },
};

void publish_read_counters(const struct kernel *k, struct snapshot *s) {
        char vmstat[32768], buf[64], path[128];
        bool have_vmstat = kernel_read(k, "/proc/vmstat", vmstat, sizeof(vmstat)) > 0;

        for (size_t i = 0; i < SNAPSHOT_COUNTERS; i++) {
                uint64_t v;
                bool ok;
                if (counters[i].vmstat)
                        ok = have_vmstat && parse_stat_field(vmstat, counters[i].vmstat, &v) == 0;
                else {
                        snprintf(path, sizeof(path), ZSWAP_DEBUGFS "/%s", counters[i].debugfs);
                        ok = kernel_read(k, path, buf, sizeof(buf)) > 0 && parse_u64(strstrip(buf), &v) == 0;
                }
                s->counters[i] = ok && v <= INT64_MAX ? (int64_t) v : -1;
        }
}

int publish_check_metrics_dir(const struct conf *c, char *buf, size_t size) {
        const char *where = c->metrics_dir_where[0] ? c->metrics_dir_where : "[Metrics]";
        struct stat st;
        int fd, r = 0;

        buf[0] = '\0';
        if (!c->metrics_dir[0])
                return 0;
        /* as restore.c opens it: no symlink, a directory */
        fd = open(c->metrics_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                snprintf(buf, size, "%s: TextfileDirectory=%s: %s; no metrics would be written", where, c->metrics_dir,
                         r == -ELOOP || r == -ENOTDIR ? "not a directory (a symlink?)"
                         : r == -ENOENT              ? "does not exist"
                                                     : err_str(r));
                return r;
        }
        if (fstat(fd, &st) < 0)
                r = -errno;
        close(fd);
        if (r < 0)
                snprintf(buf, size, "%s: TextfileDirectory=%s: %s", where, c->metrics_dir, err_str(r));
        else if (st.st_uid != geteuid()) {
                snprintf(buf, size, "%s: TextfileDirectory=%s: owned by uid %u, not %s%u; no metrics would be written",
                         where, c->metrics_dir, (unsigned) st.st_uid, geteuid() == 0 ? "root, uid " : "uid ",
                         (unsigned) geteuid());
                r = -EPERM;
        } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
                snprintf(buf, size,
                         "%s: TextfileDirectory=%s: writable by group or others (mode %04o, not sticky): another "
                         "user could replace the file; no metrics would be written",
                         where, c->metrics_dir, (unsigned) (st.st_mode & 07777));
                r = -EPERM;
        }
        return r;
}

/* A cgroup's label: below the cgroup root ("system.slice/x.service"), as
 * in the configuration, whichever way the daemon holds it. */
static const char *below_root(const char *path) {
        static const char *const roots[] = { CGROUP_ROOT "/unified/", CGROUP_ROOT "/" };

        for (size_t i = 0; i < ELEMENTSOF(roots); i++)
                if (strncmp(path, roots[i], strlen(roots[i])) == 0 && path[strlen(roots[i])])
                        return path + strlen(roots[i]);
        return path; /* "/proc/pressure/memory", or already below the root */
}

/* Prometheus label values: backslash, double quote and newline escaped, and
 * (the format is UTF-8) each byte of invalid UTF-8 as U+FFFD. */
static void label(FILE *f, const char *v) {
        const unsigned char *p = (const unsigned char *) v;
        unsigned n;

        while (*p) {
                if (*p == '\\' || *p == '"')
                        fprintf(f, "\\%c", *p);
                else if (*p == '\n')
                        fputs("\\n", f);
                else if (*p < 0x80)
                        fputc(*p, f);
                else if ((n = snapshot_utf8_len(p)) > 0) {
                        fwrite(p, 1, n, f);
                        p += n;
                        continue;
                } else
                        fputs("\xef\xbf\xbd", f);
                p++;
        }
}

static void head(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void up(FILE *f, bool running) {
        head(f, "zswap_tuned_build_info", "gauge", "Always 1; the daemon's version as a label.");
        fprintf(f, "zswap_tuned_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
        head(f, "zswap_tuned_up", "gauge",
             "1 while the daemon runs; 0 once it stopped (written on exit, and by --restore after a kill: the "
             "file stays, with no other figures).");
        fprintf(f, "zswap_tuned_up %d\n", running);
}

static void written(FILE *f) {
        head(f, "zswap_tuned_metrics_written_timestamp_seconds", "gauge",
             "When this file was written (Unix time): at least every [Metrics] IntervalSec=, idle too.");
        fprintf(f, "zswap_tuned_metrics_written_timestamp_seconds %.3f\n", (double) realtime_usec() / USEC_PER_SEC);
}

void publish_metrics_stopped(FILE *f) {
        up(f, false);
        written(f);
}

char *publish_metrics_stopped_text(void) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        publish_metrics_stopped(f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

/* The start of a series line with a cgroup label, up to its closing
 * quote: the caller adds any other label, the closing brace and the value. */
static void cgroup_series(FILE *f, const char *name, const char *cgroup) {
        fprintf(f, "%s{cgroup=\"", name);
        label(f, below_root(cgroup));
        fputc('"', f);
}

void publish_metrics_text(const struct snapshot *s, FILE *f) {
        static const struct {
                const char *name;
                unsigned warning;       /* WARN_*; 0: dry_run */
        } warnings[] = {
                { "cgroup_v1", WARN_CGROUP_V1 },       { "no_swap", WARN_NO_SWAP },
                { "zswap_off", WARN_ZSWAP_DISABLED },  { "knob_missing", WARN_KNOB_MISSING },
                { "save_failed", WARN_SAVE_FAILED },   { "dry_run", 0 },
        };

        up(f, true);
        head(f, "zswap_tuned_warning", "gauge",
             "1 while a condition holds that keeps the daemon from doing its job: cgroup_v1 (flips have no effect, "
             "no caps), no_swap (zswap stores nothing), zswap_off, knob_missing (no knob to steer), save_failed "
             "(nothing is changed), dry_run (nothing is written).");
        for (size_t i = 0; i < ELEMENTSOF(warnings); i++)
                fprintf(f, "zswap_tuned_warning{warning=\"%s\"} %d\n", warnings[i].name,
                        warnings[i].warning ? (s->warnings & warnings[i].warning) != 0 : s->dry_run);
        head(f, "zswap_tuned_knob_enabled", "gauge", "The shrinker knob: 1 on, 0 off (absent: monitoring only).");
        if (s->knob[0] && s->knob_value != KNOB_UNSET)
                fprintf(f, "zswap_tuned_knob_enabled{knob=\"%s\"} %d\n", s->knob, s->knob_value == KNOB_ON);
        head(f, "zswap_tuned_mode", "gauge", "1 for the daemon's current mode.");
        for (int i = 0; i <= MODE_PROTECT; i++)
                fprintf(f, "zswap_tuned_mode{mode=\"%s\"} %d\n", policy_mode_to_string((policy_mode) i),
                        (int) s->mode == i);
        head(f, "zswap_tuned_pool_bytes", "gauge", "The zswap pool's compressed size.");
        fprintf(f, "zswap_tuned_pool_bytes %llu\n", (unsigned long long) s->pool_bytes);
        head(f, "zswap_tuned_pool_stored_bytes", "gauge", "The uncompressed size of what the pool stores.");
        fprintf(f, "zswap_tuned_pool_stored_bytes %llu\n", (unsigned long long) s->stored_bytes);
        head(f, "zswap_tuned_pool_limit_bytes", "gauge", "The pool limit, MemTotal * max_pool_percent / 100.");
        fprintf(f, "zswap_tuned_pool_limit_bytes %llu\n", (unsigned long long) s->limit_bytes);
        head(f, "zswap_tuned_pressure_stalled_seconds_total", "counter",
             "Memory stall time of each PSI source since boot (kind: [Pressure] Type=).");
        for (unsigned i = 0; i < s->n_sources; i++)
                if (s->source[i].have_stalled) {
                        fputs("zswap_tuned_pressure_stalled_seconds_total{source=\"", f);
                        label(f, below_root(s->source[i].path));
                        fprintf(f, "\",kind=\"%s\"} %.6f\n", s->psi_full ? "full" : "some",
                                (double) s->source[i].stalled_usec / USEC_PER_SEC);
                }
        head(f, "zswap_tuned_flips_total", "counter",
             "Flips of the knob the policy decided since start, by reason (retries are not flips).");
        for (int i = 0; i < POLICY_REASONS; i++)
                if (i != REASON_NONE && i != REASON_RETRY)
                        fprintf(f, "zswap_tuned_flips_total{reason=\"%s\"} %llu\n",
                                policy_reason_to_string((policy_reason) i),
                                (unsigned long long) s->flips_by_reason[i]);
        head(f, "zswap_tuned_knob_write_retries_total", "counter",
             "Writes that put the knob back to what the mode wants (a failed write, a back-off that ended).");
        fprintf(f, "zswap_tuned_knob_write_retries_total %llu\n", (unsigned long long) s->retries);
        head(f, "zswap_tuned_flips_held_total", "counter",
             "Flips held back by [Flips] MinDwellSec= (min-dwell) or MaxPerMinute= (max-per-minute).");
        fprintf(f, "zswap_tuned_flips_held_total{reason=\"min-dwell\"} %llu\n",
                (unsigned long long) s->held_total[HELD_DWELL]);
        fprintf(f, "zswap_tuned_flips_held_total{reason=\"max-per-minute\"} %llu\n",
                (unsigned long long) s->held_total[HELD_CAP]);
        head(f, "zswap_tuned_decisions_total", "counter", "Changes of the daemon's mode since start, by reason.");
        for (int i = 0; i < POLICY_REASONS; i++)
                if (i != REASON_NONE && i != REASON_RETRY)
                        fprintf(f, "zswap_tuned_decisions_total{reason=\"%s\"} %llu\n",
                                policy_reason_to_string((policy_reason) i),
                                (unsigned long long) s->decisions_by_reason[i]);
        head(f, "zswap_tuned_batch_zswap_bytes", "gauge", "What each batch cgroup stores in zswap.");
        for (unsigned i = 0; i < s->n_batch; i++) {
                cgroup_series(f, "zswap_tuned_batch_zswap_bytes", s->batch[i].cgroup);
                fprintf(f, "} %llu\n", (unsigned long long) s->batch[i].use);
        }
        head(f, "zswap_tuned_batch_info", "gauge",
             "1 for each batch cgroup; by: the rule that made it batch work (cgroups, units, idle-cgroups: "
             "[Batch] Cgroups=, Units=, IdleCgroups=).");
        for (unsigned i = 0; i < s->n_batch; i++) {
                cgroup_series(f, "zswap_tuned_batch_info", s->batch[i].cgroup);
                fputs(",by=\"", f);
                label(f, s->batch[i].by);
                fputs("\"} 1\n", f);
        }
        head(f, "zswap_tuned_batch_cap_bytes", "gauge",
             "The memory.zswap.max written for each capped batch cgroup (why: zswap_tuned_batch_cap_reason).");
        for (unsigned i = 0; i < s->n_batch; i++)
                if (s->batch[i].capped) {
                        cgroup_series(f, "zswap_tuned_batch_cap_bytes", s->batch[i].cgroup);
                        fprintf(f, "} %llu\n", (unsigned long long) s->batch[i].cap);
                }
        /* a series of its own: a label on the bytes would split their series at each change of reason */
        head(f, "zswap_tuned_batch_cap_reason", "gauge",
             "1 for why each capped batch cgroup has its cap: max-percent ([Batch] ZswapMaxPercent=), "
             "others-share (the room the rest of the pool leaves) or own-limit (the cgroup's memory.zswap.max "
             "from before, lower: a cap never loosens it); another word from a newer daemon.");
        for (unsigned i = 0; i < s->n_batch; i++)
                if (s->batch[i].capped && s->batch[i].cap_reason[0]) {
                        cgroup_series(f, "zswap_tuned_batch_cap_reason", s->batch[i].cgroup);
                        fputs(",reason=\"", f);
                        label(f, s->batch[i].cap_reason);
                        fputs("\"} 1\n", f);
                }
        head(f, "zswap_tuned_writeback_protected", "gauge",
             "1 for each pressure cgroup whose memory.zswap.writeback the daemon holds at 0 now, its zswap entries "
             "kept in RAM while it stalls ([Pressure] ProtectWriteback=).");
        for (unsigned i = 0; i < s->n_protected; i++) {
                cgroup_series(f, "zswap_tuned_writeback_protected", s->protected_cg[i]);
                fputs("} 1\n", f);
        }
        head(f, "zswap_tuned_stored_pages_total", "counter", "Pages stored in zswap since boot (/proc/vmstat zswpout).");
        head(f, "zswap_tuned_loaded_pages_total", "counter", "Pages loaded back from zswap since boot (zswpin).");
        head(f, "zswap_tuned_written_back_pages_total", "counter",
             "Pages written back from zswap to swap since boot (zswpwb, Linux 6.8+).");
        head(f, "zswap_tuned_pool_limit_hit_total", "counter",
             "Stores refused because the pool was at its limit (debugfs pool_limit_hit: root, debugfs mounted).");
        head(f, "zswap_tuned_rejects_total", "counter",
             "Stores zswap rejected since boot, by reason (debugfs reject_*: root, debugfs mounted; absent "
             "where the kernel does not tell).");
        for (size_t i = 0; i < SNAPSHOT_COUNTERS; i++)
                if (s->counters[i] >= 0)
                        fprintf(f, "%s %lld\n", counters[i].series, (long long) s->counters[i]);
        head(f, "zswap_tuned_admin_override", "gauge", "1 while the knob is left to an administrator's write.");
        fprintf(f, "zswap_tuned_admin_override %d\n", s->backed_off);
        head(f, "zswap_tuned_dry_run", "gauge", "1 in a dry run: nothing is written.");
        fprintf(f, "zswap_tuned_dry_run %d\n", s->dry_run);
        head(f, "zswap_tuned_save_failed", "gauge",
             "1 while the original values cannot be saved: nothing is changed (monitoring only).");
        fprintf(f, "zswap_tuned_save_failed %d\n", (s->warnings & WARN_SAVE_FAILED) != 0);
        head(f, "zswap_tuned_last_sample_timestamp_seconds", "gauge", "When the daemon last sampled (Unix time).");
        fprintf(f, "zswap_tuned_last_sample_timestamp_seconds %.3f\n", (double) s->updated / USEC_PER_SEC);
        written(f);
}

static char *format(const struct snapshot *s, bool with_time, bool metrics) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        if (metrics)
                publish_metrics_text(s, f);
        else
                snapshot_format(s, with_time, f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

void publish_init(struct publisher *p, struct restore *r, void (*refresh)(void *userdata, struct snapshot *s),
                  void *userdata) {
        *p = (struct publisher) { .restore = r, .refresh = refresh, .userdata = userdata };
}

static void write_metrics(struct publisher *p, const struct snapshot *s) {
        char *text = format(s, true, true);

        if (text && restore_write_metrics(p->restore, text) == 0)
                p->metrics_written = now_usec();
        free(text);
}

void publish(struct publisher *p, const struct snapshot *s, bool mode_changed) {
        char *key, *text;
        uint64_t now = now_usec();

        if (!p->last && !(p->last = malloc(sizeof(*p->last))))
                return;
        *p->last = *s;
        key = format(s, false, false);
        if (!key)
                return;
        /* only when something changed: an idle daemon writes nothing */
        if (p->published && strcmp(key, p->published) == 0) {
                free(key);
                return;
        }
        free(p->published);
        p->published = key;
        text = format(s, true, false);
        /* a file not written (EFBIG, ENOSPC: said once) is tried again at
         * the next sample, changed or not */
        if (!text || restore_write_status(p->restore, text) < 0) {
                free(p->published);
                p->published = NULL;
        }
        free(text);

        /* at most every METRICS_MIN_INTERVAL while active; while idle the
         * metrics timer keeps the file fresh */
        if (!restore_has_metrics(p->restore) ||
            (p->metrics_written && now - p->metrics_written < METRICS_MIN_INTERVAL && !mode_changed))
                return;
        write_metrics(p, s);
}

/* Every IntervalSec: an idle daemon's metrics, from a cheap read of the pool
 * and of the PSI totals (the manager's refresh); nothing is decided. */
static int on_metrics_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        struct publisher *p = userdata;
        uint64_t iv = p->interval;

        if (p->last && now_usec() - p->metrics_written >= iv - iv / 10) {
                p->refresh(p->userdata, p->last);
                write_metrics(p, p->last);
        }
        sd_event_source_set_time(src, usec + iv);
        return 0;
}

/* Once at start and reload: the kernel's counters it does not tell (an
 * older kernel, no debugfs or not root), whose series are left out; as the
 * last sample read them. */
static void say_absent_counters(const struct snapshot *s) {
        char absent[512] = "";
        size_t n = 0;

        for (size_t i = 0; i < SNAPSHOT_COUNTERS && n < sizeof(absent); i++)
                if (s->counters[i] < 0)
                        n += (size_t) snprintf(absent + n, sizeof(absent) - n, "%s%s", n ? ", " : "",
                                               counters[i].vmstat ?: counters[i].debugfs);
        if (absent[0])
                log_info("Metrics: the kernel does not tell %s (/proc/vmstat, " ZSWAP_DEBUGFS
                         "); their series are left out",
                         absent);
}

void publish_start(struct publisher *p, sd_event *event, unsigned interval_sec) {
        uint64_t iv = interval_sec * USEC_PER_SEC;
        int r;

        p->interval = iv;
        p->metrics_timer = sd_event_source_disable_unref(p->metrics_timer);
        if (restore_has_metrics(p->restore) && p->last)
                say_absent_counters(p->last);
        /* no textfile, no wake-ups */
        if (!event || !restore_has_metrics(p->restore) || iv == 0)
                return;
        r = sd_event_add_time_relative(event, &p->metrics_timer, CLOCK_MONOTONIC, iv, iv / 10, on_metrics_timer,
                                       p);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->metrics_timer, SD_EVENT_ON);
        if (r < 0)
                log_error("Cannot arm the metrics timer: %s; the textfile is written after samples only",
                          err_str(r));
}

void publish_remove(struct publisher *p) {
        char *text;

        /* the metrics file stays, saying the daemon is down: a file that
         * went away would take every series with it, and no alert fires */
        if (restore_has_metrics(p->restore) && restore_locked(p->restore) &&
            (text = publish_metrics_stopped_text())) {
                (void) restore_write_metrics(p->restore, text);
                free(text);
        }
        restore_remove_published(p->restore);
        free(p->published);
        p->published = NULL;
}

void publish_free(struct publisher *p) {
        p->metrics_timer = sd_event_source_disable_unref(p->metrics_timer);
        free(p->published);
        p->published = NULL;
        free(p->last);
        p->last = NULL;
}
