/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "publish.h"
#include "util.h"

#define METRICS_MIN_INTERVAL (5 * USEC_PER_SEC)

void publish_take(const struct manager *m, const struct policy_decision *d, const struct pool_sample *pool,
                  struct snapshot *s) {
        uint64_t now = now_usec();

        *s = (struct snapshot) {
                .pid = (int) getpid(),
                .updated = realtime_usec(),
                .knob_value = steer_knob_value(&m->steer),
                .original = steer_knob_original(&m->steer),
                .dry_run = manager_dry_run(m),
                .backed_off = d->backed_off,
                .held = d->held,
                .held_mode = d->held_mode,
                .mode = d->mode,
                .pressure = m->pressure,
                .pool = m->pool,
                .pool_bytes = pool->pool_bytes,
                .stored_bytes = pool->stored_bytes,
                .limit_bytes = pool->limit_bytes,
                .fill_rate = d->fill_rate,
                .time_to_limit = d->time_to_limit,
                .uncharged = -1, /* live, status only */
                .flips_last_hour = steer_flips_since(&m->steer,
                                                     now > 3600 * USEC_PER_SEC ? now - 3600 * USEC_PER_SEC : 0),
                .warnings = m->warnings,
        };
        snprintf(s->version, sizeof(s->version), "%s", PACKAGE_VERSION);
        snprintf(s->knob, sizeof(s->knob), "%s", steer_knob_name(&m->steer) ?: "");
        for (unsigned i = 0; i < m->conf.n_files && s->n_config < SNAPSHOT_MAX_CONFIG; i++)
                snprintf(s->config[s->n_config++], sizeof(s->config[0]), "%s", m->conf.files[i]);
        stats_snapshot(&m->stats, s);
        sources_snapshot(&m->sources, s);
        batch_snapshot(&m->batch, s);
        follow_wire_snapshot(m, s);
        if (monitor_swaps(&m->monitor) == 0)
                s->warnings |= WARN_NO_SWAP;
        if (m->pool_state == POOL_DISABLED)
                s->warnings |= WARN_ZSWAP_DISABLED;
        if (m->pool_state == POOL_UNREADABLE)
                s->warnings |= WARN_POOL_UNREADABLE;
        if (restore_saving_failed(&m->restore))
                s->warnings |= WARN_SAVE_FAILED;
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

void publish_metrics_text(const struct snapshot *s, FILE *f) {
        head(f, "zswap_tuned_build_info", "gauge", "Always 1; the daemon's version as a label.");
        fprintf(f, "zswap_tuned_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
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
                        label(f, s->source[i].path);
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
                fputs("zswap_tuned_batch_zswap_bytes{cgroup=\"", f);
                label(f, s->batch[i].cgroup);
                fprintf(f, "\"} %llu\n", (unsigned long long) s->batch[i].use);
        }
        head(f, "zswap_tuned_batch_info", "gauge",
             "1 for each batch cgroup; by: the rule that made it batch work (cgroups, units, idle-cgroups: "
             "[Batch] Cgroups=, Units=, IdleCgroups=).");
        for (unsigned i = 0; i < s->n_batch; i++) {
                fputs("zswap_tuned_batch_info{cgroup=\"", f);
                label(f, s->batch[i].cgroup);
                fputs("\",by=\"", f);
                label(f, s->batch[i].by);
                fputs("\"} 1\n", f);
        }
        head(f, "zswap_tuned_batch_cap_bytes", "gauge",
             "The memory.zswap.max written for each capped batch cgroup; reason: max-percent ([Batch] "
             "ZswapMaxPercent=), others-share (the room the rest of the pool leaves) or own-limit (the cgroup's "
             "memory.zswap.max from before, lower: a cap never loosens it).");
        for (unsigned i = 0; i < s->n_batch; i++)
                if (s->batch[i].capped) {
                        fputs("zswap_tuned_batch_cap_bytes{cgroup=\"", f);
                        label(f, s->batch[i].cgroup);
                        fprintf(f, "\",reason=\"%s\"} %llu\n", s->batch[i].cap_reason,
                                (unsigned long long) s->batch[i].cap);
                }
        head(f, "zswap_tuned_admin_override", "gauge", "1 while the knob is left to an administrator's write.");
        fprintf(f, "zswap_tuned_admin_override %d\n", s->backed_off);
        head(f, "zswap_tuned_dry_run", "gauge", "1 in a dry run: nothing is written.");
        fprintf(f, "zswap_tuned_dry_run %d\n", s->dry_run);
        head(f, "zswap_tuned_save_failed", "gauge",
             "1 while the original values cannot be saved: nothing is changed (monitoring only).");
        fprintf(f, "zswap_tuned_save_failed %d\n", (s->warnings & WARN_SAVE_FAILED) != 0);
        head(f, "zswap_tuned_last_sample_timestamp_seconds", "gauge", "When the daemon last sampled (Unix time).");
        fprintf(f, "zswap_tuned_last_sample_timestamp_seconds %.3f\n", (double) s->updated / USEC_PER_SEC);
        head(f, "zswap_tuned_metrics_written_timestamp_seconds", "gauge",
             "When this file was written (Unix time): at least every [Metrics] IntervalSec=, idle too.");
        fprintf(f, "zswap_tuned_metrics_written_timestamp_seconds %.3f\n", (double) realtime_usec() / USEC_PER_SEC);
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

static void write_metrics(struct manager *m, const struct snapshot *s) {
        char *text = format(s, true, true);

        if (text && restore_write_metrics(&m->restore, text) == 0)
                m->metrics_written = now_usec();
        free(text);
}

void publish(struct manager *m, const struct policy_decision *d, const struct pool_sample *pool) {
        struct snapshot *s = malloc(sizeof(*s));
        char *key, *text;
        uint64_t now = now_usec();

        if (!s)
                return;
        publish_take(m, d, pool, s);
        free(m->last_snapshot);
        m->last_snapshot = s;
        key = format(s, false, false);
        if (!key)
                return;
        /* only when something changed: an idle daemon writes nothing */
        if (m->published && strcmp(key, m->published) == 0) {
                free(key);
                return;
        }
        free(m->published);
        m->published = key;
        text = format(s, true, false);
        if (text)
                (void) restore_write_status(&m->restore, text);
        free(text);

        /* at most every METRICS_MIN_INTERVAL while active; while idle the
         * metrics timer keeps the file fresh */
        if (!restore_has_metrics(&m->restore) ||
            (m->metrics_written && now - m->metrics_written < METRICS_MIN_INTERVAL && !d->mode_changed))
                return;
        write_metrics(m, s);
}

/* Every IntervalSec: an idle daemon's metrics, from a cheap read of the pool
 * and of the PSI totals; nothing is decided. */
static int on_metrics_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        struct manager *m = userdata;
        uint64_t iv = m->conf.metrics_interval_sec * USEC_PER_SEC;
        struct pool_sample pool;

        if (m->last_snapshot && now_usec() - m->metrics_written >= iv - iv / 10) {
                struct snapshot *s = m->last_snapshot;
                if (kernel_read_pool(&m->kernel, &pool) == 0) {
                        s->pool_bytes = pool.pool_bytes;
                        s->stored_bytes = pool.stored_bytes;
                        s->limit_bytes = pool.limit_bytes;
                        s->pool = pool_percent(&pool);
                }
                sources_peek_totals(&m->sources, s);
                write_metrics(m, s);
        }
        sd_event_source_set_time(src, usec + iv);
        return 0;
}

void publish_start(struct manager *m) {
        uint64_t iv = m->conf.metrics_interval_sec * USEC_PER_SEC;
        int r;

        m->metrics_timer = sd_event_source_disable_unref(m->metrics_timer);
        /* no textfile, no wake-ups */
        if (!m->event || !restore_has_metrics(&m->restore) || iv == 0)
                return;
        r = sd_event_add_time_relative(m->event, &m->metrics_timer, CLOCK_MONOTONIC, iv, iv / 10, on_metrics_timer,
                                       m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->metrics_timer, SD_EVENT_ON);
        if (r < 0)
                log_error("Cannot arm the metrics timer: %s; the textfile is written after samples only",
                          err_str(r));
}

void publish_remove(struct manager *m) {
        restore_remove_published(&m->restore);
        free(m->published);
        m->published = NULL;
}

void publish_free(struct manager *m) {
        m->metrics_timer = sd_event_source_disable_unref(m->metrics_timer);
        free(m->published);
        m->published = NULL;
        free(m->last_snapshot);
        m->last_snapshot = NULL;
}
