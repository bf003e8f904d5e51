/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "psi.h"
#include "savefile.h"
#include "util.h"

/* Knob flips carry this MESSAGE_ID, so "journalctl MESSAGE_ID=..." lists them. */
#define MESSAGE_ID_FLIP "MESSAGE_ID=5b0c2a4e6f8d4c1f9e3a7b2d1c0e9f84"

static const char *knob_str(knob_value v) {
        return v == KNOB_ON ? "Y" : v == KNOB_OFF ? "N" : "-";
}

static const char *onoff(knob_value v) {
        return v == KNOB_ON ? "on" : "off";
}

void manager_init(struct manager *m) {
        *m = (struct manager) {
                .config_path = SYSCONFDIR "/zswap-tuned.conf",
                .log_level_override = -1,
                .use_udev = true,
                .swaps_fd = -1,
                .original = KNOB_UNSET,
        };
        conf_defaults(&m->conf);
        kernel_init(&m->kernel, "/");
        const char *rt = getenv("RUNTIME_DIRECTORY");
        if (!rt || !*rt)
                rt = "/run/zswap-tuned";
        /* RUNTIME_DIRECTORY may list several, colon-separated; ours is the first. */
        snprintf(m->state_dir, sizeof(m->state_dir), "%.*s", (int) strcspn(rt, ":"), rt);
        for (unsigned i = 0; i < ELEMENTSOF(m->src); i++)
                m->src[i].fd = -1;
}

static bool dry_run(const struct manager *m) {
        return m->dry_run_override || m->conf.dry_run;
}

/* Without any armed trigger nothing wakes us: then poll at the sample rate.
 * Sources come and go (a cgroup is removed, or appears), so this follows
 * them rather than being decided once. */
static void update_idle_check(struct manager *m) {
        bool armed = false;

        for (unsigned i = 0; i < m->n_src; i++)
                armed = armed || m->src[i].fd >= 0;
        m->params.idle_check_usec = armed ? m->conf.idle_check_sec * USEC_PER_SEC : m->params.sample_usec;
}

static void apply_params(struct manager *m) {
        const struct conf *c = &m->conf;

        m->params = (struct policy_params) {
                .pressure_high = c->pressure_high,
                .pressure_low = c->pressure_low,
                .hold_usec = c->hold_sec * USEC_PER_SEC,
                .pool_high = c->pool_high,
                .pool_low = c->pool_low,
                .pool_watch = c->pool_watch,
                .sample_usec = c->sample_ms * USEC_PER_MSEC,
                .min_sample_usec = c->min_sample_ms * USEC_PER_MSEC,
                .lead_usec = c->lead_sec * USEC_PER_SEC,
                .idle_check_usec = c->idle_check_sec * USEC_PER_SEC,
                .min_dwell_usec = c->min_dwell_sec * USEC_PER_SEC,
                .max_per_minute = c->max_per_minute,
                .batch = c->batch_cgroups.n > 0,
                .batch_max = c->batch_zswap_max,
        };
        update_idle_check(m);
        log_set_max_level(m->log_level_override >= 0 ? m->log_level_override : c->log_level);
}

int manager_load_config(struct manager *m, char *err, size_t errsize) {
        int r = conf_load(&m->conf, m->config_path, err, errsize);

        if (r == 0)
                apply_params(m);
        return r;
}

/* ---- status and logging --------------------------------------------------- */

static void update_status(struct manager *m) {
        char s[256];

        snprintf(s, sizeof(s), "%s, %s%s%s, pressure %.1f%%, pool %.0f%% of limit%s",
                 policy_mode_to_human(m->policy.mode), m->knob ? m->knob : "knob none", m->knob ? "=" : "",
                 m->knob ? knob_str(m->policy.knob) : "", m->pressure, m->pool, dry_run(m) ? " (dry run)" : "");
        if (strcmp(s, m->status) == 0)
                return;
        memcpy(m->status, s, sizeof(s));
        sd_notifyf(false, "STATUS=%s", s);
}

static void log_flip(struct manager *m, knob_value from, knob_value to, const struct policy_decision *d) {
        char f_knob[64], f_val[32], f_prev[32], f_mode[32], f_reason[48], f_pressure[48], f_pool[48], f_dry[16];
        const char *fields[] = { MESSAGE_ID_FLIP, f_knob, f_val, f_prev, f_mode, f_reason, f_pressure, f_pool, f_dry, NULL };

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", m->knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", knob_str(to));
        snprintf(f_prev, sizeof(f_prev), "PREVIOUS_VALUE=%s", knob_str(from));
        snprintf(f_mode, sizeof(f_mode), "MODE=%s", policy_mode_to_string(d->mode));
        snprintf(f_reason, sizeof(f_reason), "REASON=%s", policy_reason_to_string(d->reason));
        snprintf(f_pressure, sizeof(f_pressure), "PRESSURE_PERCENT=%.1f", m->pressure);
        snprintf(f_pool, sizeof(f_pool), "POOL_PERCENT=%.0f", m->pool);
        snprintf(f_dry, sizeof(f_dry), "DRY_RUN=%d", dry_run(m));

        if (dry_run(m))
                log_fields(LOG_NOTICE, fields, "Would set %s=%s: %s", m->knob, knob_str(to), d->text);
        else if (d->reason == REASON_CALM || d->reason == REASON_NONE)
                log_fields(LOG_NOTICE, fields, "Shrinker back to baseline (%s): %s", onoff(to), d->text);
        else
                log_fields(LOG_NOTICE, fields, "Shrinker %s: %s", onoff(to), d->text);
}

/* ---- saving originals ----------------------------------------------------- */

static void persist(struct manager *m) {
        int r = savefile_write(m->state_dir, &m->save);

        if (r < 0 && !m->save_failed)
                log_warning("Cannot save original values in %s/" SAVEFILE_NAME ": %s; they are restored on a clean "
                            "exit, but not after a crash", m->state_dir, strerror(-r));
        m->save_failed = r < 0;
}

static void save_cap(struct manager *m, const char *path, const char *value) {
        struct saved_cap *c;

        if (m->save.n_caps >= ELEMENTSOF(m->save.caps))
                return;
        c = &m->save.caps[m->save.n_caps++];
        /* (memccpy: path may point into *m, which snprintf may not be given) */
        if (!memccpy(c->path, path, '\0', sizeof(c->path)))
                c->path[sizeof(c->path) - 1] = '\0';
        if (!memccpy(c->value, value, '\0', sizeof(c->value)))
                c->value[sizeof(c->value) - 1] = '\0';
        persist(m);
}

static const char *saved_cap(const struct manager *m, const char *path) {
        for (unsigned i = 0; i < m->save.n_caps; i++)
                if (strcmp(m->save.caps[i].path, path) == 0)
                        return m->save.caps[i].value;
        return NULL;
}

static void forget_cap(struct manager *m, const char *path) {
        for (unsigned i = 0; i < m->save.n_caps; i++)
                if (strcmp(m->save.caps[i].path, path) == 0) {
                        m->save.caps[i] = m->save.caps[--m->save.n_caps];
                        persist(m);
                        return;
                }
}

/* ---- the knob ------------------------------------------------------------- */

/* Set the knob (or say we would), saving the original first. Returns the
 * value the knob has afterwards. */
static knob_value set_knob(struct manager *m, knob_value before, knob_value v, const struct policy_decision *d) {
        int r;

        if (!m->knob)
                return v;
        if (dry_run(m)) {
                log_flip(m, before, v, d);
                return v;
        }
        if (!m->save.knob[0]) {
                snprintf(m->save.knob, sizeof(m->save.knob), "%s", m->knob);
                m->save.value = m->original;
                persist(m);
        }
        m->wrote = true;
        r = kernel_knob_write(&m->kernel, m->knob, v);
        if (r < 0) {
                log_error("Cannot set %s=%s: %s", m->knob, knob_str(v), strerror(-r));
                r = kernel_knob_read(&m->kernel, m->knob);
                return r < 0 ? before : (knob_value) r;
        }
        log_flip(m, before, v, d);
        return v;
}

/* Which knob to drive: the configured one, or whichever exists. */
static int probe_knob(struct manager *m) {
        static const char *const names[] = { "shrinker_enabled", "shrink_enabled" };
        const char *want = NULL;
        char path[256];
        int r;

        m->knob = NULL;
        if (m->conf.knob == KNOB_CHOICE_NONE) {
                log_info("Knob: none (Knob=none); monitoring only");
                return 0;
        }
        if (m->conf.knob != KNOB_CHOICE_AUTO)
                want = knob_choice_to_string(m->conf.knob);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                if (want && strcmp(want, names[i]) != 0)
                        continue;
                snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", names[i]);
                if (kernel_exists(&m->kernel, path)) {
                        m->knob = names[i];
                        break;
                }
        }
        if (!m->knob) {
                if (want) {
                        log_error("Knob=%s, but " ZSWAP_PARAMS "/%s does not exist on this kernel", want, want);
                        return -ENOENT;
                }
                log_notice("Knob: neither shrinker_enabled (Linux 6.8+) nor shrink_enabled exists; monitoring only");
                return 0;
        }
        r = kernel_knob_read(&m->kernel, m->knob);
        if (r < 0) {
                log_error("Cannot read " ZSWAP_PARAMS "/%s: %s", m->knob, strerror(-r));
                return r;
        }
        m->original = r;

        /* A previous instance died without restoring: its saved value is the original. */
        if (m->save.knob[0] && strcmp(m->save.knob, m->knob) == 0) {
                knob_value v = m->save.value;
                if (v != m->original)
                        log_notice("Found %s/" SAVEFILE_NAME ": a previous run left %s=%s; its original value %s "
                                   "is the one to restore", m->state_dir, m->knob, knob_str(m->original), knob_str(v));
                m->original = v;
                m->wrote = true;
        }
        log_info("Knob: %s = %s%s", m->knob, knob_str(r), m->conf.knob == KNOB_CHOICE_AUTO ? "" : " (Knob=)");
        return 0;
}

static knob_value baseline_value(const struct manager *m) {
        switch (m->conf.baseline) {
        case BASELINE_ON:
                return KNOB_ON;
        case BASELINE_OFF:
                return KNOB_OFF;
        default:
                return m->original;
        }
}

/* Start idle, at the baseline. */
static void reset_policy(struct manager *m) {
        knob_value current = m->knob ? (knob_value) kernel_knob_read(&m->kernel, m->knob) : KNOB_UNSET;
        knob_value base = m->knob ? baseline_value(m) : KNOB_UNSET;
        struct policy_decision d = { .reason = REASON_NONE, .mode = MODE_IDLE };
        static const char *const why[] = { "at startup", "Baseline=on", "Baseline=off" };

        if ((int) current < 0 && m->knob)
                current = m->original;
        policy_init(&m->policy, current, base);
        snprintf(d.text, sizeof(d.text), "%s", why[m->conf.baseline]);
        if (m->knob && current != base)
                m->policy.knob = set_knob(m, current, base, &d);
}

/* ---- PSI sources ---------------------------------------------------------- */

static int on_psi(sd_event_source *s, int fd, uint32_t revents, void *userdata);

static void close_source(struct psi_src *src) {
        src->io = sd_event_source_disable_unref(src->io);
        if (src->fd >= 0)
                close(src->fd);
        src->fd = -1;
}

static void open_source(struct manager *m, struct psi_src *src, bool startup) {
        uint64_t window = m->conf.trigger_window_ms * USEC_PER_MSEC, used = 0;
        uint64_t stall = m->conf.trigger_stall_ms * USEC_PER_MSEC;
        const char *type = psi_type_to_string(m->conf.type);
        int fd, r;

        r = psi_read_total(&m->kernel, src->path, m->conf.type, &src->total);
        if (r < 0) {
                if (!src->gone && !src->wake_only) /* a missing batch cgroup is said by setup_batch() */
                        log_warning("PSI: cannot read %s: %s; %s", src->path, strerror(-r),
                                    startup ? "will look again while sampling" : "ignoring it until it is back");
                src->gone = true;
                src->have_total = false;
                return;
        }
        if (src->gone && !startup && !src->wake_only)
                log_info("PSI: %s is back", src->path);
        src->gone = false;
        src->have_total = true;

        fd = psi_open_trigger(&m->kernel, src->path, m->conf.type, stall, window, &used);
        if (fd < 0) {
                log_notice("PSI: %s, no trigger (%s); sampling instead", src->path,
                           fd == -EOPNOTSUPP ? "not a kernel PSI file" : strerror(-fd));
                return;
        }
        if (m->event) {
                r = sd_event_add_io(m->event, &src->io, fd, EPOLLPRI, on_psi, m);
                if (r < 0) {
                        log_notice("PSI: %s, cannot watch the trigger (%s); sampling instead", src->path, strerror(-r));
                        close(fd);
                        return;
                }
        }
        src->fd = fd;
        if (used != window)
                log_info("PSI: %s, trigger \"%s %llu %llu\" (a %u ms window needs CAP_SYS_RESOURCE; using %llu ms)",
                         src->path, type, (unsigned long long) stall, (unsigned long long) used,
                         m->conf.trigger_window_ms, (unsigned long long) (used / USEC_PER_MSEC));
        else
                log_info("PSI: %s, trigger \"%s %llu %llu\"%s", src->path, type, (unsigned long long) stall,
                         (unsigned long long) used,
                         src->wake_only ? " (batch: to look at the pool, not pressure)" : "");
}

static void setup_sources(struct manager *m) {
        for (unsigned i = 0; i < m->n_src; i++)
                close_source(&m->src[i]);
        m->n_src = 0;

        if (m->conf.system) {
                struct psi_src *s = &m->src[m->n_src++];
                *s = (struct psi_src) { .fd = -1 };
                snprintf(s->spec, sizeof(s->spec), "system");
                snprintf(s->path, sizeof(s->path), PSI_SYSTEM_MEMORY);
        }
        for (unsigned i = 0; i < m->conf.cgroups.n; i++) {
                struct psi_src *s = &m->src[m->n_src++];
                *s = (struct psi_src) { .fd = -1 };
                snprintf(s->spec, sizeof(s->spec), "%s", m->conf.cgroups.item[i]);
                if (kernel_cgroup_path(&m->kernel, s->spec, "memory.pressure", s->path, sizeof(s->path)) < 0) {
                        log_warning("PSI: cgroup path too long: %s", s->spec);
                        m->n_src--;
                }
        }
        if (m->n_src == 0)
                log_notice("PSI: no pressure sources (System=no, Cgroups= empty); deciding on the pool alone");
        /* A batch job that stalls is reclaiming, which is what fills the
         * pool: its triggers wake us to look at the pool (and cap it in
         * time), but its stalls are not the pressure the policy weighs. */
        for (unsigned i = 0; i < m->conf.batch_cgroups.n; i++) {
                struct psi_src *s = &m->src[m->n_src++];
                *s = (struct psi_src) { .fd = -1, .wake_only = true };
                snprintf(s->spec, sizeof(s->spec), "%s", m->conf.batch_cgroups.item[i]);
                if (kernel_cgroup_path(&m->kernel, s->spec, "memory.pressure", s->path, sizeof(s->path)) < 0)
                        m->n_src--; /* setup_batch() says so */
        }
        for (unsigned i = 0; i < m->n_src; i++)
                open_source(m, &m->src[i], true);
        apply_params(m);
}

/* ---- batch cgroups: memory.zswap.max -------------------------------------- */

static void setup_batch(struct manager *m) {
        m->n_batch = 0;
        for (unsigned i = 0; i < m->conf.batch_cgroups.n; i++) {
                struct batch_cg *b = &m->batch[m->n_batch];
                *b = (struct batch_cg) { 0 };
                snprintf(b->spec, sizeof(b->spec), "%s", m->conf.batch_cgroups.item[i]);
                if (kernel_cgroup_path(&m->kernel, b->spec, "memory.zswap.max", b->path, sizeof(b->path)) < 0 ||
                    kernel_cgroup_path(&m->kernel, b->spec, "memory.zswap.current", b->cur_path,
                                       sizeof(b->cur_path)) < 0) {
                        log_warning("Batch: cgroup path too long: %s", b->spec);
                        continue;
                }
                m->n_batch++;
                if (kernel_exists(&m->kernel, b->path))
                        log_info("Batch: %s, zswap capped at most at %g%% of the pool limit, less when the "
                                 "rest of the pool leaves less room", b->path, m->conf.batch_zswap_max);
                else {
                        log_notice("Batch: %s does not exist (no cgroup v2 memory controller, or the cgroup is not "
                                   "there yet); it is capped once it exists", b->path);
                        b->missing = true;
                }
        }
}

static void log_cap(struct manager *m, int prio, const struct batch_cg *b, const char *value, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

static void log_cap(struct manager *m, int prio, const struct batch_cg *b, const char *value, const char *fmt, ...) {
        char msg[768], f_cg[600], f_max[64], f_dry[16];
        const char *fields[] = { f_cg, f_max, f_dry, NULL };
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(f_cg, sizeof(f_cg), "CGROUP=%s", b->spec);
        snprintf(f_max, sizeof(f_max), "ZSWAP_MAX=%s", value);
        snprintf(f_dry, sizeof(f_dry), "DRY_RUN=%d", dry_run(m));
        log_fields(prio, fields, "%s%s", dry_run(m) ? "Would have: " : "", msg);
}

static int uncap(struct manager *m, struct batch_cg *b) {
        const char *orig = saved_cap(m, b->path);
        int r = 0;

        if (!b->capped)
                return 0;
        b->capped = false;
        if (dry_run(m)) {
                log_cap(m, LOG_NOTICE, b, "original", "Lifted the zswap cap of %s", b->spec);
                return 0;
        }
        if (!orig)
                return 0;
        r = kernel_write(&m->kernel, b->path, orig);
        if (r < 0 && r != -ENOENT) {
                log_error("Cannot restore %s to %s: %s", b->path, orig, strerror(-r));
                return r; /* stays in the save file for --restore */
        }
        log_cap(m, LOG_NOTICE, b, orig, "Lifted the zswap cap of %s (memory.zswap.max back to %s)", b->spec, orig);
        forget_cap(m, b->path);
        return 0;
}

static int uncap_all(struct manager *m) {
        int ret = 0;

        for (unsigned i = 0; i < m->n_batch; i++) {
                int r = uncap(m, &m->batch[i]);
                if (r < 0)
                        ret = r;
        }
        return ret;
}

static void cap(struct manager *m, struct batch_cg *b, uint64_t bytes, double pct, const char *why) {
        char orig[32], val[32], human[32];
        ssize_t n;
        int r;

        /* rewrite only on a real change (the policy moves the cap in steps,
         * the limit moves with max_pool_percent and hot-plug), not on
         * rounding noise */
        if (b->capped && (bytes > b->cap ? bytes - b->cap : b->cap - bytes) <= b->cap / 100)
                return;
        if (!b->capped) {
                n = kernel_read(&m->kernel, b->path, orig, sizeof(orig));
                if (n <= 0) {
                        if (!b->missing)
                                log_notice("Batch: cannot read %s: %s; not capped", b->path,
                                           strerror(n < 0 ? (int) -n : EIO));
                        b->missing = true;
                        return;
                }
                if (b->missing)
                        log_info("Batch: %s is there now", b->path);
                b->missing = false;
                strstrip(orig);
                if (!dry_run(m) && !saved_cap(m, b->path))
                        save_cap(m, b->path, orig);
        }
        snprintf(val, sizeof(val), "%llu", (unsigned long long) bytes);
        format_bytes(human, sizeof(human), bytes);
        if (!dry_run(m)) {
                r = kernel_write(&m->kernel, b->path, val);
                if (r < 0) {
                        if (!b->failed) /* once, not every sample it is retried */
                                log_error("Cannot write %s=%s: %s", b->path, val, strerror(-r));
                        b->failed = true;
                        return;
                }
                b->failed = false;
        }
        if (!b->capped)
                log_cap(m, LOG_NOTICE, b, val, "Capped the zswap use of %s at %s (%.0f%% of the pool limit): %s",
                        b->spec, human, pct, why);
        else /* expected, as the rest of the pool grows and shrinks */
                log_cap(m, LOG_INFO, b, val, "Moved the zswap cap of %s to %s (%.0f%% of the pool limit): %s",
                        b->spec, human, pct, why);
        b->capped = true;
        b->cap = bytes;
}

static void apply_batch(struct manager *m, const struct policy_decision *d, const struct pool_sample *p) {
        /* whole pages, as the kernel counts them */
        uint64_t bytes = (uint64_t) ((double) p->limit_bytes * d->batch_cap / 100) / 4096 * 4096;

        for (unsigned i = 0; i < m->n_batch; i++) {
                struct batch_cg *b = &m->batch[i];
                if (d->batch_cap >= 0)
                        cap(m, b, bytes, d->batch_cap, d->cap_text);
                else
                        uncap(m, b);
        }
}

/* A previous instance died before restoring: put back what it had capped
 * (we start idle, with nothing capped); its saved knob value is read by
 * probe_knob(). */
static void load_leftovers(struct manager *m) {
        int r = savefile_read(m->state_dir, &m->save);

        if (r == -ENOENT)
                return;
        if (r < 0) {
                log_warning("Ignoring %s/" SAVEFILE_NAME ": %s", m->state_dir, strerror(-r));
                m->save = (struct saved) { .value = KNOB_UNSET };
                return;
        }
        for (unsigned i = 0; i < m->save.n_caps;) {
                struct saved_cap *c = &m->save.caps[i];
                r = kernel_write(&m->kernel, c->path, c->value);
                if (r < 0 && r != -ENOENT) {
                        log_warning("Cannot restore %s to %s left by a previous run: %s", c->path, c->value,
                                    strerror(-r));
                        i++;
                        continue;
                }
                log_notice("Restored %s to %s, left capped by a previous run", c->path, c->value);
                *c = m->save.caps[--m->save.n_caps];
        }
        persist(m);
}

/* ---- sampling ------------------------------------------------------------- */

static void schedule(struct manager *m, uint64_t usec_from_now);

static double sample_pressure(struct manager *m, uint64_t dt) {
        double max = 0;

        for (unsigned i = 0; i < m->n_src; i++) {
                struct psi_src *s = &m->src[i];
                uint64_t total;

                if (s->gone) {
                        open_source(m, s, false);
                        continue; /* no delta yet */
                }
                /* A batch cgroup's trigger only wakes us: nothing to read.
                 * Its going away shows as EPOLLERR there (on_psi). */
                if (s->wake_only)
                        continue;
                if (psi_read_total(&m->kernel, s->path, m->conf.type, &total) < 0) {
                        log_warning("PSI: %s is gone; ignoring it until it is back", s->path);
                        close_source(s);
                        s->gone = true;
                        continue;
                }
                if (s->have_total && dt > 0 && total >= s->total) {
                        double pct = 100.0 * (double) (total - s->total) / (double) dt;
                        if (pct > max)
                                max = pct;
                }
                s->total = total;
                s->have_total = true;
        }
        return max > 100 ? 100 : max;
}

/* How many batch cgroups can be capped (they are there, and the last write
 * of their cap did not fail), and what they use. */
static void sample_batch(struct manager *m, const struct pool_sample *pool, struct policy_sample *in) {
        uint64_t used = 0;
        char buf[32];

        if (pool->limit_bytes == 0)
                return;
        for (unsigned i = 0; i < m->n_batch; i++) {
                struct batch_cg *b = &m->batch[i];
                uint64_t cur;

                if (b->failed || kernel_read(&m->kernel, b->cur_path, buf, sizeof(buf)) <= 0 ||
                    parse_u64(strstrip(buf), &cur) < 0)
                        continue;
                used += cur;
                in->n_batch++;
        }
        in->batch = 100.0 * (double) used / (double) pool->limit_bytes;
}

/* Someone else changed the knob: follow them rather than fight. */
static void check_outside_change(struct manager *m) {
        int r;

        if (!m->knob || dry_run(m))
                return;
        r = kernel_knob_read(&m->kernel, m->knob);
        if (r < 0 || r == (int) m->policy.knob)
                return;
        log_notice("%s was changed to %s outside zswap-tuned", m->knob, knob_str(r));
        if (policy_knob_changed_outside(&m->policy, r, m->conf.baseline == BASELINE_STARTUP)) {
                /* ... and it is what to restore on exit, too */
                m->original = r;
                if (m->save.knob[0]) {
                        m->save.value = r;
                        persist(m);
                }
        }
}

void manager_tick(struct manager *m, uint64_t now) {
        struct policy_sample in = { .now = now };
        struct policy_decision d;
        struct pool_sample pool;
        uint64_t dt = m->have_sample ? now - m->last_sample : 0;
        int r;

        in.pressure = sample_pressure(m, dt);
        update_idle_check(m); /* a source may have gone or come back */
        /* A pressure figure averaged over a long quiet stretch means nothing. */
        in.pressure_valid = m->have_sample && dt > 0 && dt <= 3 * m->params.sample_usec;

        r = kernel_read_pool(&m->kernel, &pool);
        if (r < 0) {
                /* Deciding on a made-up pool would be worse than not deciding. */
                if (!m->pool_unreadable)
                        log_error("Cannot read the zswap pool: %s; not deciding until it is readable", strerror(-r));
                m->pool_unreadable = true;
                schedule(m, m->params.sample_usec);
                return;
        }
        if (m->pool_unreadable)
                log_info("The zswap pool is readable again");
        m->pool_unreadable = false;
        in.pool = pool_percent(&pool);
        sample_batch(m, &pool, &in);
        in.stores = m->have_sample && pool.vm.zswpout > m->last_vm.zswpout;

        check_outside_change(m);
        knob_value before = m->policy.knob;
        policy_decide(&m->params, &m->policy, &in, &d);

        m->pressure = in.pressure_valid ? in.pressure : m->pressure;
        m->pool = in.pool;
        m->last_vm = pool.vm;
        m->last_sample = now;
        m->have_sample = true;

        log_debug("sample: pressure %.1f%%%s, pool %.1f%% of limit (%llu of %llu kB, batch %.1f%%, cap %.1f%%), "
                  "fill %.2f%%/s, zswpout %llu zswpwb %llu pswpout %llu, mode %s, next in %llu ms",
                  in.pressure, in.pressure_valid ? "" : " (no baseline)", in.pool,
                  (unsigned long long) (pool.pool_bytes / 1024), (unsigned long long) (pool.limit_bytes / 1024),
                  in.batch, d.batch_cap, d.fill_rate, (unsigned long long) pool.vm.zswpout,
                  (unsigned long long) pool.vm.zswpwb, (unsigned long long) pool.vm.pswpout,
                  policy_mode_to_string(d.mode), (unsigned long long) (d.next_usec / USEC_PER_MSEC));

        if (d.set != KNOB_UNSET && m->knob) {
                policy_sync_knob(&m->policy, set_knob(m, before, d.set, &d));
        } else if (d.mode_changed) {
                log_info("Mode: %s%s%s%s", policy_mode_to_human(d.mode),
                         m->knob ? " (shrinker already " : "", m->knob ? onoff(m->policy.knob) : "",
                         m->knob ? ")" : "");
        }
        apply_batch(m, &d, &pool);
        if (d.held_changed && d.held != HELD_NONE)
                log_notice("Holding back a flip to %s (%s): %s", policy_mode_to_human(
                                   d.reason == REASON_PRESSURE ? MODE_THROUGHPUT : MODE_IDLE),
                           d.text,
                           d.held == HELD_DWELL ? "less than Flips.MinDwellSec since the last flip"
                                                : "Flips.MaxPerMinute reached");
        update_status(m);
        m->idle = d.idle;
        /* Idle under a watchdog: its pings carry the idle check, so that
         * nothing else wakes us (see on_watchdog); not when polling faster
         * than the pings come. */
        bool ride = d.idle && m->watchdog && d.next_usec >= m->watchdog_usec / 2;
        schedule(m, ride ? 0 : d.next_usec);
}

/* ---- events --------------------------------------------------------------- */

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;

        manager_tick(m, now_usec());
        return 0;
}

static void schedule(struct manager *m, uint64_t usec_from_now) {
        int r;

        if (!m->event)
                return;
        if (usec_from_now == 0) {
                if (m->timer)
                        sd_event_source_set_enabled(m->timer, SD_EVENT_OFF);
                return;
        }
        uint64_t when = now_usec() + usec_from_now;
        /* Idle checks may slide to coalesce with other wake-ups (the watchdog). */
        uint64_t accuracy = usec_from_now >= 10 * USEC_PER_SEC ? usec_from_now / 10 : 1000;
        if (!m->timer) {
                r = sd_event_add_time(m->event, &m->timer, CLOCK_MONOTONIC, when, accuracy, on_timer, m);
                if (r < 0)
                        log_error("Cannot arm the sample timer: %s", strerror(-r));
                return;
        }
        sd_event_source_set_time(m->timer, when);
        sd_event_source_set_time_accuracy(m->timer, accuracy);
        sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
}

/* The watchdog ping, every WatchdogSec/2. While idle it also does the idle
 * check when one is due, so that an idle daemon wakes up for nothing else. */
static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;
        uint64_t now = now_usec();

        sd_notify(false, "WATCHDOG=1");
        if (m->idle && m->params.idle_check_usec > 0 && now - m->last_sample >= m->params.idle_check_usec)
                manager_tick(m, now);
        sd_event_source_set_time(s, usec + m->watchdog_usec / 2);
        return 0;
}

static void setup_watchdog(struct manager *m) {
        int r;

        if (sd_watchdog_enabled(false, &m->watchdog_usec) <= 0)
                return;
        r = sd_event_add_time_relative(m->event, &m->watchdog, CLOCK_MONOTONIC, m->watchdog_usec / 2, 0,
                                       on_watchdog, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->watchdog, SD_EVENT_ON);
        if (r < 0)
                log_error("Cannot arm the watchdog timer: %s", strerror(-r));
        else
                log_debug("Watchdog: pinging every %llu ms", (unsigned long long) (m->watchdog_usec / 2000));
}

/* An event says "look now", but not more often than MinSampleMs. */
static void kick(struct manager *m) {
        uint64_t now = now_usec();
        int enabled = SD_EVENT_OFF;
        uint64_t next = 0;

        if (m->timer) {
                sd_event_source_get_enabled(m->timer, &enabled);
                sd_event_source_get_time(m->timer, &next);
        }
        /* The timer comes soon enough anyway. Not waiting for it otherwise
         * matters: measured, a batch job took the pool from 25% to its
         * limit within one SampleMs. */
        if (enabled != SD_EVENT_OFF && next <= now + m->params.min_sample_usec)
                return;
        if (m->have_sample && now - m->last_sample < m->params.min_sample_usec)
                schedule(m, m->last_sample + m->params.min_sample_usec - now);
        else
                manager_tick(m, now);
}

static int on_psi(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct manager *m = userdata;

        if (revents & EPOLLERR) {
                for (unsigned i = 0; i < m->n_src; i++)
                        if (m->src[i].io == s) {
                                log_fields(m->src[i].wake_only ? LOG_INFO : LOG_WARNING, NULL,
                                         "PSI: %s is gone (cgroup removed?); ignoring it until it is back",
                                         m->src[i].path);
                                close_source(&m->src[i]);
                                m->src[i].gone = true;
                        }
                /* look now: without this trigger we may have to poll */
        } else
                log_debug("PSI trigger fired");
        kick(m);
        return 0;
}

static void check_swaps(struct manager *m, bool startup) {
        char buf[8192];
        ssize_t n = kernel_read(&m->kernel, "/proc/swaps", buf, sizeof(buf));
        int count = n < 0 ? (int) n : parse_swaps(buf);

        if (count < 0) {
                if (startup)
                        log_warning("Swap: cannot read /proc/swaps: %s", strerror(-count));
                return;
        }
        if (!startup && (unsigned) count == m->swaps)
                return;
        m->swaps = (unsigned) count;
        if (count == 0)
                log_notice("Swap: none active; zswap stores nothing until swap is added (watching /proc/swaps)");
        else
                log_info("Swap: %d active device(s)", count);
}

static int on_swaps(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct manager *m = userdata;

        check_swaps(m, false);
        return 0;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct manager *m = userdata;
        struct udev_device *dev = udev_monitor_receive_device(m->monitor);
        const char *subsystem, *action;

        if (!dev)
                return 0;
        subsystem = udev_device_get_subsystem(dev);
        action = udev_device_get_action(dev);
        log_debug("uevent: %s %s %s", action ? action : "?", subsystem ? subsystem : "?",
                  udev_device_get_sysname(dev));
        if (subsystem && strcmp(subsystem, "memory") == 0)
                kick(m); /* MemTotal, and so the pool limit, may have changed */
        else
                check_swaps(m, false);
        udev_device_unref(dev);
        return 0;
}

static void setup_udev(struct manager *m) {
        /* Without udevd (containers, early boot) only the kernel's own uevents arrive. */
        const char *source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel";
        int r;

        m->udev = udev_new();
        if (m->udev)
                m->monitor = udev_monitor_new_from_netlink(m->udev, source);
        if (!m->monitor) {
                log_notice("udev: cannot monitor uevents; memory hot-plug is noticed at the next sample");
                return;
        }
        r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "memory", NULL);
        if (r >= 0)
                r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "block", NULL);
        if (r >= 0)
                r = udev_monitor_enable_receiving(m->monitor);
        if (r >= 0)
                r = sd_event_add_io(m->event, &m->udev_io, udev_monitor_get_fd(m->monitor), EPOLLIN, on_uevent, m);
        if (r < 0) {
                log_notice("udev: cannot monitor uevents (%s); memory hot-plug is noticed at the next sample",
                           strerror(-r));
                return;
        }
        log_debug("udev: watching memory and block uevents (%s source)", source);
}

/* ---- start, reload, stop -------------------------------------------------- */

static void probe_zswap(struct manager *m) {
        struct pool_sample p;
        char lim[32], comp[64] = "";
        ssize_t n;

        if (kernel_read_pool(&m->kernel, &p) < 0) {
                log_warning("zswap: cannot read the pool size");
                return;
        }
        n = kernel_read(&m->kernel, ZSWAP_PARAMS "/compressor", comp, sizeof(comp));
        /* one line; a disabled zswap is worth a notice */
        log_fields(p.enabled ? LOG_INFO : LOG_NOTICE, NULL, "zswap: %s%s%s, max_pool_percent=%u (limit %s)%s",
                   p.enabled ? "enabled" : "disabled", n > 0 ? ", compressor " : "", n > 0 ? strstrip(comp) : "",
                   p.max_pool_percent, format_bytes(lim, sizeof(lim), p.limit_bytes),
                   p.enabled ? "" : "; nothing is stored until it is enabled, watching anyway");
}

static void probe_cgroup_v1(struct manager *m) {
        char buf[4096];

        if (kernel_read(&m->kernel, "/proc/self/cgroup", buf, sizeof(buf)) > 0 && parse_cgroup_memory_v1(buf))
                log_warning("Memory controller is on cgroup v1: the zswap shrinker writes nothing back there, "
                            "so flips have no effect (the pool limit still applies)");
}

int manager_start(struct manager *m, sd_event *event) {
        uint64_t total;
        int r;

        m->event = event ? sd_event_ref(event) : NULL;

        r = psi_read_total(&m->kernel, PSI_SYSTEM_MEMORY, PSI_SOME, &total);
        if (r < 0) {
                log_error("PSI is not available (" PSI_SYSTEM_MEMORY ": %s): boot with psi=1 "
                          "(CONFIG_PSI_DEFAULT_DISABLED kernels) or use a kernel with CONFIG_PSI", strerror(-r));
                return EXIT_UNAVAILABLE;
        }
        if (!kernel_exists(&m->kernel, ZSWAP_PARAMS)) {
                log_error("zswap is not available: " ZSWAP_PARAMS " does not exist (kernel without CONFIG_ZSWAP)");
                return EXIT_UNAVAILABLE;
        }
        load_leftovers(m);
        r = probe_knob(m);
        if (r < 0)
                return r == -ENOENT ? EXIT_UNAVAILABLE : EXIT_FAILURE;
        probe_zswap(m);
        check_swaps(m, true);
        log_info("debugfs: " ZSWAP_DEBUGFS " %s", kernel_exists(&m->kernel, ZSWAP_DEBUGFS "/pool_total_size")
                                                          ? "available (extra detail only)"
                                                          : "not available (optional; /proc/meminfo is used)");
        probe_cgroup_v1(m);
        if (dry_run(m))
                log_notice("Dry run: the knob is never written");

        if (m->event) {
                m->swaps_fd = kernel_open(&m->kernel, "/proc/swaps", O_RDONLY);
                if (m->swaps_fd >= 0 &&
                    sd_event_add_io(m->event, &m->swaps_io, m->swaps_fd, EPOLLPRI, on_swaps, m) < 0)
                        log_debug("Cannot watch /proc/swaps (not a kernel file?)");
                if (m->use_udev)
                        setup_udev(m);
                setup_watchdog(m);
        }
        setup_sources(m);
        setup_batch(m);
        reset_policy(m);
        manager_tick(m, now_usec());
        return 0;
}

int manager_reload(struct manager *m) {
        struct conf old = m->conf;
        const char *old_knob = m->knob;
        int old_choice = m->conf.knob, old_baseline = m->conf.baseline;
        char err[1024];
        int r;

        /* conf_load frees what it replaces; keep the old strings alive until we know. */
        struct conf fresh;
        conf_defaults(&fresh);
        r = conf_load(&fresh, m->config_path, err, sizeof(err));
        if (r < 0) {
                log_error("%s", err);
                log_error("Reload failed; keeping the old configuration");
                return r;
        }
        m->conf = fresh;
        conf_free(&old);

        if (m->conf.knob != old_choice) {
                /* Hand the old knob back before taking another. */
                manager_restore(m);
                r = probe_knob(m);
                if (r < 0) {
                        log_error("Knob= on reload: keeping %s", old_knob ? old_knob : "none");
                        m->knob = old_knob;
                        m->conf.knob = old_choice;
                }
        }
        setup_sources(m);
        uncap_all(m);
        setup_batch(m);
        if (m->conf.knob != old_choice || m->conf.baseline != old_baseline) {
                reset_policy(m);
                update_status(m);
        }
        log_info("Reloaded configuration from %s", m->config_path);
        kick(m);
        return 0;
}

static int restore_knob(struct manager *m) {
        int r;

        if (!m->knob || !m->wrote || dry_run(m))
                return 0;
        r = kernel_knob_read(&m->kernel, m->knob);
        if (r != (int) m->original) {
                r = kernel_knob_write(&m->kernel, m->knob, m->original);
                if (r < 0) {
                        log_error("Cannot restore %s to %s: %s", m->knob, knob_str(m->original), strerror(-r));
                        return r;
                }
                log_knob_restored(m->knob, m->original);
        }
        m->wrote = false;
        m->policy.knob = m->original;
        m->save.knob[0] = '\0';
        persist(m);
        return 0;
}

int manager_restore(struct manager *m) {
        int r = uncap_all(m), k = restore_knob(m);

        return r < 0 ? r : k;
}

void manager_free(struct manager *m) {
        for (unsigned i = 0; i < m->n_src; i++)
                close_source(&m->src[i]);
        m->timer = sd_event_source_disable_unref(m->timer);
        m->watchdog = sd_event_source_disable_unref(m->watchdog);
        m->swaps_io = sd_event_source_disable_unref(m->swaps_io);
        m->udev_io = sd_event_source_disable_unref(m->udev_io);
        if (m->swaps_fd >= 0)
                close(m->swaps_fd);
        if (m->monitor)
                udev_monitor_unref(m->monitor);
        if (m->udev)
                udev_unref(m->udev);
        m->event = sd_event_unref(m->event);
        conf_free(&m->conf);
}
