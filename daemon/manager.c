/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "exit-code.h"
#include "log.h"
#include "manager.h"
#include "params.h"
#include "probe.h"
#include "publish.h"
#include "util.h"

static void tick(void *userdata, uint64_t now) {
        manager_tick(userdata, now);
}

static void refresh_snapshot(void *userdata, struct snapshot *s);

void manager_init(struct manager *m) {
        const char *rt = getenv("RUNTIME_DIRECTORY");

        *m = (struct manager) {
                .config_path = SYSCONFDIR "/zswap-tuned.conf",
                .log_level_override = -1,
                .use_udev = true,
        };
        conf_defaults(&m->conf);
        kernel_init(&m->kernel, "/");
        if (!rt || !*rt)
                rt = "/run/zswap-tuned";
        /* RUNTIME_DIRECTORY may list several, colon-separated; ours is the first. */
        snprintf(m->state_dir, sizeof(m->state_dir), "%.*s", (int) strcspn(rt, ":"), rt);
        restore_init(&m->restore, &m->kernel);
        protect_init(&m->protect);
        stats_init(&m->stats, realtime_usec());
        steer_init(&m->steer, &m->kernel, &m->restore, &m->recorder, &m->stats);
        schedule_init(&m->sched, tick, m);
        publish_init(&m->publisher, &m->restore, refresh_snapshot, m);
        m->sources = (struct sources) { .kernel = &m->kernel, .wake = schedule_kick, .userdata = &m->sched };
        monitor_init(&m->monitor, &m->kernel);
        m->monitor.wake = schedule_kick;
        m->monitor.userdata = &m->sched;
}

static void apply_params(struct manager *m) {
        params_from_conf(&m->conf, &m->params);
        m->sched.min_interval = m->params.min_sample_usec;
        log_set_max_level(m->log_level_override >= 0 ? m->log_level_override : m->conf.log_level);
}

int manager_load_config(struct manager *m, char *err, size_t errsize) {
        int r = (m->config_given ? conf_load_given : conf_load)(&m->conf, m->config_path, err, errsize);

        if (r == 0)
                apply_params(m);
        return r;
}

static struct report_sample report_sample(const struct manager *m) {
        return (struct report_sample) {
                .knob = steer_knob_name(&m->steer), .dry_run = manager_dry_run(m), .pressure = m->pressure,
                .pressure_of = m->sources.rest_of[0] ? m->sources.rest_of : NULL, .pool = m->pool,
        };
}

/* The pool, and what we can say about it. Said once when that changes. */
static policy_pool_state read_pool(struct manager *m, struct pool_sample *pool) {
        int r = kernel_read_pool(&m->kernel, pool);
        policy_pool_state st = r < 0 ? POOL_UNREADABLE : !pool->enabled ? POOL_DISABLED : POOL_OK;

        if (st != m->pool_state) {
                if (st == POOL_UNREADABLE)
                        log_error("Cannot read the zswap pool: %s; not deciding until it is readable (back to the "
                                  "baseline after %llu s)",
                                  r == -ENODATA ? "no Zswap: line in /proc/meminfo and no debugfs pool_total_size"
                                                : err_str(r),
                                  (unsigned long long) (POLICY_BLIND_GRACE_USEC / USEC_PER_SEC));
                else if (st == POOL_DISABLED)
                        log_notice("zswap is disabled; back to the baseline until it is enabled");
                else
                        log_info("The zswap pool is %s again", m->pool_state == POOL_DISABLED ? "enabled"
                                                                                             : "readable");
        }
        m->pool_state = st;
        return st;
}

/* ---- one sample: sense -> decide -> act -> tell (docs/architecture.md) ---- */

struct tick {
        struct policy_sample in;
        struct pool_sample pool;
        struct policy_decision d;
        knob_value before;      /* the knob the policy believed in before deciding */
        struct report_sample rs;
        bool done;              /* the knob's part was carried out (or would be, dry) */
};

/* The readers fill the sample: the matches, PSI, the pool, the batch's use,
 * and the knob as someone else may have written it. */
static void sense(struct manager *m, uint64_t now, struct tick *t) {
        struct policy_sample *in = &t->in;
        uint64_t dt = m->have_sample ? now - m->last_sample : 0;

        follow_wire_tick(m, now);
        in->pressure = sources_sample(&m->sources, dt);
        in->pressure_valid = m->have_sample;
        in->cgroups_valid = m->have_sample && sources_cgroups_pressure(&m->sources, &in->cgroups_pressure);
        /* with batch work known, the rules read the rest's (policy.c chooses) */
        in->batch_known = sources_batch_known(&m->sources);
        in->rest_valid = m->have_sample && in->batch_known && sources_rest_pressure(&m->sources, &in->rest_pressure);
        in->triggers_armed = sources_armed(&m->sources); /* a source may have gone or come back */

        in->pool_state = read_pool(m, &t->pool);
        if (in->pool_state == POOL_OK) {
                in->pool = pool_percent(&t->pool);
                in->limit_bytes = t->pool.limit_bytes;
                batch_sample(&m->batch, &m->kernel, &m->restore, t->pool.limit_bytes, &in->n_batch, &in->batch);
                in->stores = m->have_sample && t->pool.vm.zswpout > m->last_vm.zswpout;
                m->last_vm = t->pool.vm;
        }
        steer_outside(&m->steer, &m->params, manager_dry_run(m), now);
}

/* The pure policy decides (recorded, with --record); this is now the last
 * sample. */
static void decide(struct manager *m, uint64_t now, struct tick *t) {
        t->before = steer_decide(&m->steer, &m->params, &t->in, &t->d);
        m->pressure = t->d.pressure_valid ? t->d.pressure : m->pressure;
        m->pool = t->in.pool;
        m->last_sample = now;
        m->have_sample = true;
        t->rs = report_sample(m);
}

/* The writers carry it out, through the restore engine: the knob, the caps,
 * the pressure cgroups' writeback. */
static void act(struct manager *m, uint64_t now, struct tick *t) {
        t->done = steer_act(&m->steer, manager_dry_run(m), now, t->before, &t->d, &t->rs);
        batch_apply(&m->batch, &m->kernel, &m->restore, manager_dry_run(m), &t->d);
        protect_tick(&m->protect, &m->kernel, &m->restore, &m->sources, &m->batch, &m->params, manager_dry_run(m),
                     now);
}

/* What the daemon knows after a sample, as plain data for publish.c. */
static void take_snapshot(const struct manager *m, const struct policy_decision *d, const struct pool_sample *pool,
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
        s->config_defaults = m->conf.n_files == 0;
        stats_snapshot(&m->stats, s);
        sources_snapshot(&m->sources, s);
        batch_snapshot(&m->batch, s);
        protect_snapshot(&m->protect, s);
        follow_wire_snapshot(m, s);
        if (monitor_swaps(&m->monitor) == 0)
                s->warnings |= WARN_NO_SWAP;
        if (m->pool_state == POOL_DISABLED)
                s->warnings |= WARN_ZSWAP_DISABLED;
        if (m->pool_state == POOL_UNREADABLE)
                s->warnings |= WARN_POOL_UNREADABLE;
        if (restore_saving_failed(&m->restore))
                s->warnings |= WARN_SAVE_FAILED;
        if (!steer_knob_name(&m->steer) && m->conf.knob != KNOB_CHOICE_NONE)
                s->warnings |= WARN_KNOB_MISSING;
        if (m->conf.metrics_dir[0] && !restore_has_metrics(&m->restore))
                s->warnings |= WARN_METRICS_DIR;
        publish_read_counters(&m->kernel, s);
}

/* The metrics timer's figures, while idle: a cheap read of the pool, the PSI
 * totals and the counters into the last snapshot; nothing is decided. */
static void refresh_snapshot(void *userdata, struct snapshot *s) {
        struct manager *m = userdata;
        struct pool_sample pool;

        if (kernel_read_pool(&m->kernel, &pool) == 0) {
                s->pool_bytes = pool.pool_bytes;
                s->stored_bytes = pool.stored_bytes;
                s->limit_bytes = pool.limit_bytes;
                s->pool = pool_percent(&pool);
        }
        sources_peek_totals(&m->sources, s);
        publish_read_counters(&m->kernel, s);
}

/* The journal, STATUS=, the counts, the status file and the metrics are
 * told, from plain data. */
static void tell(struct manager *m, const struct tick *t) {
        const struct policy_sample *in = &t->in;
        const struct policy_decision *d = &t->d;
        struct snapshot *s;

        log_debug("sample: pressure %.1f%%%s, pool %.1f%% of limit (%llu of %llu kB, batch %.1f%%, cap %.1f%%), "
                  "fill %.2f%%/s, zswpout %llu zswpwb %llu pswpout %llu, mode %s, next in %llu ms",
                  in->pressure, d->pressure_valid ? "" : " (no baseline)", in->pool,
                  (unsigned long long) (t->pool.pool_bytes / 1024), (unsigned long long) (t->pool.limit_bytes / 1024),
                  in->batch, d->batch_cap, d->fill_rate, (unsigned long long) t->pool.vm.zswpout,
                  (unsigned long long) t->pool.vm.zswpwb, (unsigned long long) t->pool.vm.pswpout,
                  policy_mode_to_string(d->mode), (unsigned long long) (d->next_usec / USEC_PER_MSEC));
        report_mode(&t->rs, d, steer_knob_value(&m->steer), d->set != KNOB_UNSET && steer_knob_name(&m->steer));
        report_status(&m->report, &t->rs, d, steer_knob_value(&m->steer));
        stats_decision(&m->stats, d, t->done, realtime_usec());
        s = malloc(sizeof(*s));
        if (!s)
                return;
        take_snapshot(m, d, &t->pool, s);
        publish(&m->publisher, s, d->mode_changed);
        free(s);
}

void manager_tick(struct manager *m, uint64_t now) {
        struct tick t = { .in = { .now = now, .page_size = page_size() } };

        sense(m, now, &t);
        decide(m, now, &t);
        act(m, now, &t);
        tell(m, &t);
        schedule_next(&m->sched, now, &t.d);
}

/* ---- start, reload, stop -------------------------------------------------- */

static int probe_knob(struct manager *m) {
        const char *want = m->conf.knob == KNOB_CHOICE_AUTO || m->conf.knob == KNOB_CHOICE_NONE
                                   ? NULL
                                   : knob_choice_to_string(m->conf.knob);

        return steer_probe(&m->steer, want, m->conf.knob == KNOB_CHOICE_NONE);
}

static void start_steering(struct manager *m) {
        struct report_sample rs = report_sample(m);

        steer_start(&m->steer, &m->params, manager_dry_run(m), m->last_sample, &rs);
}

int manager_start(struct manager *m, sd_event *event) {
        int r;

        m->event = event ? sd_event_ref(event) : NULL;
        m->sched.event = m->event;

        r = restore_lock(&m->restore, m->state_dir);
        if (r < 0)
                return r == -EBUSY ? EXIT_RUNNING : EXIT_FAILURE;
        r = probe_required(&m->kernel);
        if (r != 0)
                return r;
        if (m->record_path) {
                r = record_open(&m->recorder, m->record_path);
                if (r < 0) {
                        log_error("--record=%s: %s", m->record_path, err_str(r));
                        return EXIT_FAILURE;
                }
        }
        /* A previous instance died before restoring: put back what it had
         * changed; we start idle, with nothing changed. What cannot be put
         * back stays saved, and its saved value is the original. */
        (void) restore_leftovers(&m->restore);
        (void) restore_set_metrics_dir(&m->restore, m->conf.metrics_dir);
        r = probe_knob(m);
        if (r < 0)
                return r == -ENOENT ? EXIT_UNAVAILABLE : EXIT_FAILURE;
        m->warnings = probe_report(&m->kernel);
        protect_probe(&m->protect, &m->kernel, m->conf.protect_writeback);
        monitor_check_swaps(&m->monitor, true);
        if (manager_dry_run(m))
                log_notice("Dry run: the knob and the batch caps are never written");

        if (m->event) {
                monitor_start(&m->monitor, m->event, m->use_udev);
                schedule_watchdog(&m->sched);
        }
        m->sources.event = m->event;
        sources_setup(&m->sources, &m->conf);
        apply_params(m);
        protect_setup(&m->protect, &m->kernel, m->conf.protect_writeback);
        batch_setup(&m->batch, &m->kernel, &m->conf.batch_cgroups, m->conf.batch_zswap_max);
        follow_wire_start(m);
        start_steering(m);
        manager_tick(m, now_usec());
        publish_start(&m->publisher, m->event, m->conf.metrics_interval_sec);
        return 0;
}

int manager_reload(struct manager *m) {
        bool was_dry = manager_dry_run(m);
        int old_choice = m->conf.knob, old_baseline = m->conf.baseline;
        char err[CONF_ERRORS_MAX];
        struct conf fresh;
        int r;

        conf_defaults(&fresh);
        r = (m->config_given ? conf_load_given : conf_load)(&fresh, m->config_path, err, sizeof(err));
        if (r < 0) {
                conf_log_errors(err);
                log_error("Reload failed; keeping the old configuration");
                return r;
        }
        /* What we changed goes back under the old settings: the batch
         * cgroups may be others now, the knob another, and a dry run writes
         * nothing, so it could never restore it later. */
        follow_wire_stop(m);
        batch_uncap_all(&m->batch, &m->restore);
        (void) protect_release_all(&m->protect, &m->restore);
        if (fresh.knob != old_choice || (!was_dry && (m->dry_run_override || fresh.dry_run)))
                steer_restore(&m->steer);
        conf_free(&m->conf);
        m->conf = fresh;
        apply_params(m);
        (void) restore_set_metrics_dir(&m->restore, m->conf.metrics_dir);

        if (m->conf.knob != old_choice && probe_knob(m) < 0)
                log_error("Knob=%s on reload: monitoring only until it is fixed",
                          knob_choice_to_string(m->conf.knob));
        sources_setup(&m->sources, &m->conf);
        protect_setup(&m->protect, &m->kernel, m->conf.protect_writeback);
        batch_setup(&m->batch, &m->kernel, &m->conf.batch_cgroups, m->conf.batch_zswap_max);
        follow_wire_start(m);
        if (m->conf.knob != old_choice || m->conf.baseline != old_baseline || was_dry != manager_dry_run(m))
                start_steering(m);
        else {
                policy_resume(&m->steer.policy); /* a reload takes the knob back from an admin */
                record_resume(&m->recorder, m->last_sample);
        }
        publish_start(&m->publisher, m->event, m->conf.metrics_interval_sec);
        log_info("Reloaded configuration from %s", m->config_path);
        schedule_kick(&m->sched);
        return 0;
}

int manager_restore(struct manager *m) {
        int b, k, r;

        if (!restore_locked(&m->restore))
                return 0; /* never started: nothing was changed */
        /* what fails here stays saved: restore_all() below tries again */
        (void) protect_release_all(&m->protect, &m->restore);
        b = batch_uncap_all(&m->batch, &m->restore);
        k = steer_restore(&m->steer);
        /* and whatever else is saved (a cap of a cgroup no longer listed) */
        r = restore_all(&m->restore);
        return b < 0 ? b : k < 0 ? k : r == -EBADMSG ? 0 : r;
}

void manager_free(struct manager *m) {
        follow_wire_stop(m);
        sources_free(&m->sources);
        monitor_free(&m->monitor);
        schedule_free(&m->sched);
        publish_free(&m->publisher);
        m->event = sd_event_unref(m->event);
        conf_free(&m->conf);
        record_close(&m->recorder);
        restore_unlock(&m->restore);
}

/* ---- the loop ------------------------------------------------------------- */

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        log_info("Received %s, restoring and exiting", si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
        sd_notify(false, "STOPPING=1\nSTATUS=Restoring the knob and exiting");
        return sd_event_exit(sd_event_source_get_event(s), EXIT_SUCCESS);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        sd_notify(false, "RELOADING=1");
        manager_reload(userdata);
        sd_notify(false, "READY=1");
        return 0;
}

int manager_run(struct manager *m) {
        sd_event *e = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_new(&e);
        if (r < 0) {
                log_error("Cannot create the event loop: %s", err_str(r));
                return EXIT_FAILURE;
        }
        if (sd_event_add_signal(e, NULL, SIGTERM, on_sigterm, m) < 0 ||
            sd_event_add_signal(e, NULL, SIGINT, on_sigterm, m) < 0 ||
            sd_event_add_signal(e, NULL, SIGHUP, on_sighup, m) < 0) {
                log_error("Cannot watch signals");
                sd_event_unref(e);
                return EXIT_FAILURE;
        }

        r = manager_start(m, e);
        if (r == 0) {
                sd_notify(false, "READY=1");
                log_info("Started (pid %d)%s", (int) getpid(), steer_knob_name(&m->steer) ? "" : ", monitoring only");
                r = sd_event_loop(e);
                if (r < 0) {
                        log_error("Event loop failed: %s", err_str(r));
                        r = EXIT_FAILURE;
                }
        }
        /* Whatever happened, never leave the knob or a cap changed. */
        if (manager_restore(m) < 0 && r == EXIT_SUCCESS)
                r = EXIT_FAILURE;
        publish_remove(&m->publisher); /* only with the locks held (restore.c) */
        sd_event_unref(e);
        return r;
}
