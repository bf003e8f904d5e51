/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "probe.h"
#include "publish.h"
#include "schedule.h"
#include "steer.h"
#include "util.h"

void manager_init(struct manager *m) {
        const char *rt = getenv("RUNTIME_DIRECTORY");
        char dir[512];

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
        snprintf(dir, sizeof(dir), "%.*s", (int) strcspn(rt, ":"), rt);
        state_init(&m->state, dir);
        m->knob = (struct knob) { .original = KNOB_UNSET };
        m->sources = (struct sources) { .kernel = &m->kernel, .wake = schedule_kick, .userdata = m };
        monitor_init(&m->monitor, &m->kernel);
        m->monitor.wake = schedule_kick;
        m->monitor.userdata = m;
}

/* Without any armed trigger nothing wakes us: then poll at the sample rate.
 * Sources come and go (a cgroup is removed, or appears), so this follows
 * them rather than being decided once. */
static void update_idle_check(struct manager *m) {
        m->params.idle_check_usec = sources_armed(&m->sources) ? m->conf.idle_check_sec * USEC_PER_SEC
                                                               : m->params.sample_usec;
}

void params_from_conf(const struct conf *c, struct policy_params *p) {
        *p = (struct policy_params) {
                .pressure_high = c->pressure_high,
                .pressure_low = c->pressure_low,
                .hold_usec = c->hold_sec * USEC_PER_SEC,
                .pool_shrinker = c->pool_shrinker,
                .pool_high = c->pool_high,
                .pool_low = c->pool_low,
                .pool_watch = c->pool_watch,
                .pool_release = c->pool_release,
                .sample_usec = c->sample_ms * USEC_PER_MSEC,
                .min_sample_usec = c->min_sample_ms * USEC_PER_MSEC,
                .lead_usec = c->lead_sec * USEC_PER_SEC,
                .idle_check_usec = c->idle_check_sec * USEC_PER_SEC,
                .min_dwell_usec = c->min_dwell_sec * USEC_PER_SEC,
                .max_per_minute = c->max_per_minute,
                .backoff_usec = c->admin_backoff_sec == CONF_INFINITY ? POLICY_BACKOFF_FOREVER
                                                                      : c->admin_backoff_sec * USEC_PER_SEC,
                .batch = c->batch_cgroups.n > 0,
                .batch_max = c->batch_zswap_max,
                .batch_shrinker_at_cap = c->batch_shrinker_at_cap,
        };
}

static void apply_params(struct manager *m) {
        const struct conf *c = &m->conf;

        params_from_conf(c, &m->params);
        update_idle_check(m);
        log_set_max_level(m->log_level_override >= 0 ? m->log_level_override : c->log_level);
}

int manager_load_config(struct manager *m, char *err, size_t errsize) {
        int r = conf_load(&m->conf, m->config_path, err, errsize);

        if (r == 0)
                apply_params(m);
        return r;
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

void manager_tick(struct manager *m, uint64_t now) {
        struct policy_sample in = { .now = now };
        struct policy_decision d;
        struct pool_sample pool;
        uint64_t dt = m->have_sample ? now - m->last_sample : 0;

        in.pressure = sources_sample(&m->sources, dt);
        in.pressure_valid = m->have_sample;
        update_idle_check(m); /* a source may have gone or come back */

        in.pool_state = read_pool(m, &pool);
        if (in.pool_state == POOL_OK) {
                in.pool = pool_percent(&pool);
                in.limit_bytes = pool.limit_bytes;
                batch_sample(&m->batch, &m->kernel, &m->state, pool.limit_bytes, &in.n_batch, &in.batch);
                in.stores = m->have_sample && pool.vm.zswpout > m->last_vm.zswpout;
                m->last_vm = pool.vm;
        }

        steer_outside(m, now);
        knob_value before = m->policy.knob;
        record_sample(&m->recorder, &in);
        policy_decide(&m->params, &m->policy, &in, &d);
        record_decision(&m->recorder, now, &d, m->policy.knob);

        m->pressure = d.pressure_valid ? in.pressure : m->pressure;
        m->pool = in.pool;
        m->last_sample = now;
        m->have_sample = true;

        log_debug("sample: pressure %.1f%%%s, pool %.1f%% of limit (%llu of %llu kB, batch %.1f%%, cap %.1f%%), "
                  "fill %.2f%%/s, zswpout %llu zswpwb %llu pswpout %llu, mode %s, next in %llu ms",
                  in.pressure, d.pressure_valid ? "" : " (no baseline)", in.pool,
                  (unsigned long long) (pool.pool_bytes / 1024), (unsigned long long) (pool.limit_bytes / 1024),
                  in.batch, d.batch_cap, d.fill_rate, (unsigned long long) pool.vm.zswpout,
                  (unsigned long long) pool.vm.zswpwb, (unsigned long long) pool.vm.pswpout,
                  policy_mode_to_string(d.mode), (unsigned long long) (d.next_usec / USEC_PER_MSEC));

        struct report_sample rs = manager_report_sample(m);
        steer_act(m, before, &d);
        report_mode(&rs, &d, m->policy.knob, d.set != KNOB_UNSET && m->knob.name);
        batch_apply(&m->batch, &m->kernel, &m->state, manager_dry_run(m), &d);
        report_status(&m->report, &rs, &d, m->policy.knob);
        if (d.mode_changed) {
                m->mode_since = realtime_usec();
                m->decisions_by_reason[d.reason]++;
                m->last_reason = d.reason;
                snprintf(m->last_text, sizeof(m->last_text), "%s", d.text);
        }
        publish(m, &d, &pool);
        schedule_next(m, &d);
}

/* ---- start, reload, stop -------------------------------------------------- */

int manager_start(struct manager *m, sd_event *event) {
        int r;

        m->event = event ? sd_event_ref(event) : NULL;

        r = state_lock(&m->state);
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
         * capped (we start idle, with nothing capped); its saved knob value
         * is read by knob_probe(). */
        state_load(&m->state);
        batch_restore_saved(&m->kernel, &m->state);
        r = steer_probe(m);
        if (r < 0)
                return r == -ENOENT ? EXIT_UNAVAILABLE : EXIT_FAILURE;
        m->warnings = probe_report(&m->kernel);
        m->mode_since = realtime_usec();
        monitor_check_swaps(&m->monitor, true);
        if (manager_dry_run(m))
                log_notice("Dry run: the knob and the batch caps are never written");

        if (m->event) {
                monitor_start(&m->monitor, m->event, m->use_udev);
                schedule_watchdog(m);
        }
        m->sources.event = m->event;
        sources_setup(&m->sources, &m->conf);
        apply_params(m);
        batch_setup(&m->batch, &m->kernel, &m->conf.batch_cgroups, m->conf.batch_zswap_max);
        steer_reset(m);
        manager_tick(m, now_usec());
        return 0;
}

int manager_reload(struct manager *m) {
        bool was_dry = manager_dry_run(m);
        int old_choice = m->conf.knob, old_baseline = m->conf.baseline;
        char err[1024];
        struct conf fresh;
        int r;

        conf_defaults(&fresh);
        r = conf_load(&fresh, m->config_path, err, sizeof(err));
        if (r < 0) {
                log_error("%s", err);
                log_error("Reload failed; keeping the old configuration");
                return r;
        }
        /* What we changed goes back under the old settings: the batch
         * cgroups may be others now, the knob another, and a dry run writes
         * nothing, so it could never restore it later. */
        batch_uncap_all(&m->batch, &m->kernel, &m->state);
        if (fresh.knob != old_choice || (!was_dry && (m->dry_run_override || fresh.dry_run)))
                knob_restore(&m->knob, &m->kernel, &m->state);
        conf_free(&m->conf);
        m->conf = fresh;
        apply_params(m);

        if (m->conf.knob != old_choice && steer_probe(m) < 0)
                log_error("Knob=%s on reload: monitoring only until it is fixed",
                          knob_choice_to_string(m->conf.knob));
        sources_setup(&m->sources, &m->conf);
        apply_params(m);
        batch_setup(&m->batch, &m->kernel, &m->conf.batch_cgroups, m->conf.batch_zswap_max);
        if (m->conf.knob != old_choice || m->conf.baseline != old_baseline || was_dry != manager_dry_run(m))
                steer_reset(m);
        else {
                policy_resume(&m->policy); /* a reload takes the knob back from an admin */
                record_resume(&m->recorder, m->last_sample);
        }
        log_info("Reloaded configuration from %s", m->config_path);
        schedule_kick(m);
        return 0;
}

int manager_restore(struct manager *m) {
        int r = batch_uncap_all(&m->batch, &m->kernel, &m->state);
        int k = knob_restore(&m->knob, &m->kernel, &m->state);

        return r < 0 ? r : k;
}

void manager_free(struct manager *m) {
        sources_free(&m->sources);
        monitor_free(&m->monitor);
        m->timer = sd_event_source_disable_unref(m->timer);
        m->watchdog = sd_event_source_disable_unref(m->watchdog);
        m->event = sd_event_unref(m->event);
        conf_free(&m->conf);
        free(m->published);
        m->published = NULL;
        record_close(&m->recorder);
        state_unlock(&m->state);
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
                log_info("Started (pid %d)%s", (int) getpid(), m->knob.name ? "" : ", monitoring only");
                r = sd_event_loop(e);
                if (r < 0) {
                        log_error("Event loop failed: %s", err_str(r));
                        r = EXIT_FAILURE;
                }
        }
        /* Whatever happened, never leave the knob or a cap changed. */
        if (manager_restore(m) < 0 && r == EXIT_SUCCESS)
                r = EXIT_FAILURE;
        if (r != EXIT_RUNNING)
                publish_remove(m);
        sd_event_unref(e);
        return r;
}
