/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "publish.h"
#include "util.h"

#define METRICS_NAME "zswap_tuned.prom"
#define METRICS_MIN_INTERVAL (5 * USEC_PER_SEC)

void publish_take(const struct manager *m, const struct policy_decision *d, const struct pool_sample *pool,
                  struct snapshot *s) {
        *s = (struct snapshot) {
                .pid = (int) getpid(),
                .updated = realtime_usec(),
                .knob_value = m->knob.name ? m->policy.knob : KNOB_UNSET,
                .original = m->knob.name ? m->knob.original : KNOB_UNSET,
                .dry_run = m->dry_run_override || m->conf.dry_run,
                .backed_off = d->backed_off,
                .mode = d->mode,
                .mode_since = m->mode_since,
                .reason = m->last_reason,
                .pressure = m->pressure,
                .pool = m->pool,
                .pool_bytes = pool->pool_bytes,
                .stored_bytes = pool->stored_bytes,
                .limit_bytes = pool->limit_bytes,
                .fill_rate = d->fill_rate,
                .time_to_limit = d->time_to_limit,
                .flips_last_hour = policy_flips_since(&m->policy, now_usec() > 3600 * USEC_PER_SEC
                                                                          ? now_usec() - 3600 * USEC_PER_SEC
                                                                          : 0),
                .flips_total = m->flips_total,
                .warnings = m->warnings,
        };
        snprintf(s->knob, sizeof(s->knob), "%s", m->knob.name ? m->knob.name : "");
        snprintf(s->reason_text, sizeof(s->reason_text), "%s", m->last_text);
        for (unsigned i = 0; i < m->sources.n && s->n_sources < SNAPSHOT_MAX_SOURCES; i++)
                if (!m->sources.src[i].wake_only) {
                        snprintf(s->source[s->n_sources].path, sizeof(s->source[0].path), "%s",
                                 m->sources.src[i].path);
                        s->source[s->n_sources++].pct = m->sources.src[i].pct;
                }
        for (unsigned i = 0; i < m->batch.n && i < SNAPSHOT_MAX_BATCH; i++) {
                const struct batch_cg *c = &m->batch.cg[i];
                snprintf(s->batch[i].cgroup, sizeof(s->batch[0].cgroup), "%s", c->spec);
                s->batch[i].use = c->use;
                s->batch[i].capped = c->capped;
                s->batch[i].cap = c->cap;
                s->n_batch++;
        }
        if (m->monitor.swaps == 0)
                s->warnings |= WARN_NO_SWAP;
        if (m->pool_state == POOL_DISABLED)
                s->warnings |= WARN_ZSWAP_DISABLED;
        if (m->pool_state == POOL_UNREADABLE)
                s->warnings |= WARN_POOL_UNREADABLE;
        if (m->sources.window_rounded)
                s->warnings |= WARN_PSI_WINDOW;
}

/* Prometheus label values: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *v) {
        for (; *v; v++)
                if (*v == '\\' || *v == '"')
                        fprintf(f, "\\%c", *v);
                else if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
}

static void head(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void publish_metrics_text(const struct manager *m, const struct snapshot *s, FILE *f) {
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
        head(f, "zswap_tuned_pressure_ratio", "gauge", "Memory stall time over the last sample, per PSI source.");
        for (unsigned i = 0; i < s->n_sources; i++)
                if (s->source[i].pct >= 0) {
                        fputs("zswap_tuned_pressure_ratio{source=\"", f);
                        label(f, s->source[i].path);
                        fprintf(f, "\"} %.4f\n", s->source[i].pct / 100);
                }
        head(f, "zswap_tuned_flips_total", "counter", "Writes of the knob since start, by reason.");
        for (int i = 0; i < POLICY_REASONS; i++)
                fprintf(f, "zswap_tuned_flips_total{reason=\"%s\"} %llu\n", policy_reason_to_string((policy_reason) i),
                        (unsigned long long) m->flips_by_reason[i]);
        head(f, "zswap_tuned_decisions_total", "counter", "Changes of mode since start, by reason.");
        for (int i = 0; i < POLICY_REASONS; i++)
                fprintf(f, "zswap_tuned_decisions_total{reason=\"%s\"} %llu\n",
                        policy_reason_to_string((policy_reason) i), (unsigned long long) m->decisions_by_reason[i]);
        head(f, "zswap_tuned_batch_zswap_bytes", "gauge", "What each batch cgroup stores in zswap.");
        for (unsigned i = 0; i < s->n_batch; i++) {
                fputs("zswap_tuned_batch_zswap_bytes{cgroup=\"", f);
                label(f, s->batch[i].cgroup);
                fprintf(f, "\"} %llu\n", (unsigned long long) s->batch[i].use);
        }
        head(f, "zswap_tuned_batch_cap_bytes", "gauge", "The memory.zswap.max written for each capped batch cgroup.");
        for (unsigned i = 0; i < s->n_batch; i++)
                if (s->batch[i].capped) {
                        fputs("zswap_tuned_batch_cap_bytes{cgroup=\"", f);
                        label(f, s->batch[i].cgroup);
                        fprintf(f, "\"} %llu\n", (unsigned long long) s->batch[i].cap);
                }
        head(f, "zswap_tuned_admin_override", "gauge", "1 while the knob is left to an administrator's write.");
        fprintf(f, "zswap_tuned_admin_override %d\n", s->backed_off);
        head(f, "zswap_tuned_dry_run", "gauge", "1 in a dry run: nothing is written.");
        fprintf(f, "zswap_tuned_dry_run %d\n", s->dry_run);
        head(f, "zswap_tuned_last_sample_timestamp_seconds", "gauge", "When the daemon last sampled (Unix time).");
        fprintf(f, "zswap_tuned_last_sample_timestamp_seconds %.3f\n", (double) s->updated / USEC_PER_SEC);
}

/* Write f's text to dir/name (mode 0644, atomically); said once when it fails. */
static int write_text(const char *dir, const char *name, const char *text, bool *failed) {
        char path[1024];
        int r;

        if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                r = -ENAMETOOLONG;
        else
                r = write_file_atomic(path, text, 0644);
        if (r < 0 && !*failed)
                log_warning("Cannot write %s/%s: %s", dir, name, err_str(r));
        *failed = r < 0;
        return r;
}

static char *format(void (*fn)(const struct manager *, const struct snapshot *, FILE *), const struct manager *m,
                    const struct snapshot *s) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        fn(m, s, f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

static void status_without_time(const struct manager *m, const struct snapshot *s, FILE *f) {
        snapshot_format(s, false, f);
}

static void status_with_time(const struct manager *m, const struct snapshot *s, FILE *f) {
        snapshot_format(s, true, f);
}

void publish(struct manager *m, const struct policy_decision *d, const struct pool_sample *pool) {
        static bool status_failed, metrics_failed;
        struct snapshot s;
        char *key, *text;
        uint64_t now = now_usec();

        publish_take(m, d, pool, &s);
        key = format(status_without_time, m, &s);
        if (!key)
                return;
        /* only when something changed: an idle daemon writes nothing */
        if (m->published && strcmp(key, m->published) == 0) {
                free(key);
                return;
        }
        free(m->published);
        m->published = key;
        text = format(status_with_time, m, &s);
        if (text)
                (void) write_text(m->state.dir, SNAPSHOT_NAME, text, &status_failed);
        free(text);

        /* at most every METRICS_MIN_INTERVAL while active, and never while
         * idle but for the change to idle itself */
        if (!m->conf.metrics_dir[0] || (d->idle && !d->mode_changed) ||
            (m->metrics_written && now - m->metrics_written < METRICS_MIN_INTERVAL && !d->mode_changed))
                return;
        text = format(publish_metrics_text, m, &s);
        if (text && write_text(m->conf.metrics_dir, METRICS_NAME, text, &metrics_failed) == 0)
                m->metrics_written = now;
        free(text);
}

/* Remove the metrics file in dir ("" = none); its path, or NULL when there
 * was nothing to remove. */
static const char *unlink_metrics(const char *dir, char *path, size_t size) {
        if (!dir[0] || (size_t) snprintf(path, size, "%s/" METRICS_NAME, dir) >= size)
                return NULL;
        return unlink(path) == 0 ? path : NULL;
}

void publish_remove(struct manager *m) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/" SNAPSHOT_NAME, m->state.dir);
        (void) unlink(path);
        (void) unlink_metrics(m->conf.metrics_dir, path, sizeof(path));
        free(m->published);
        m->published = NULL;
}

void publish_remove_stale_metrics(const char *dir) {
        char path[1024];

        if (unlink_metrics(dir, path, sizeof(path)))
                log_info("Removed %s, left by an instance that was killed", path);
        if (dir[0])
                remove_atomic_temporaries(dir, METRICS_NAME);
}
