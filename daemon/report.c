/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "report.h"
#include "util.h"

static const char *onoff(knob_value v) {
        return v == KNOB_ON ? "on" : "off";
}

void report_status(struct report *r, const struct report_sample *s, const struct policy_decision *d,
                   knob_value knob) {
        char st[256];

        snprintf(st, sizeof(st), "%s%s, %s%s%s, pressure %.1f%%%s%.80s%s, pool %.0f%% of limit%s",
                 policy_mode_to_human(d->mode), d->backed_off ? " (knob left to the admin)" : "",
                 s->knob ? s->knob : "knob none", s->knob ? "=" : "", s->knob ? knob_to_string(knob) : "",
                 s->pressure, s->pressure_of ? " (" : "", s->pressure_of ? s->pressure_of : "",
                 s->pressure_of ? ")" : "", s->pool, s->dry_run ? " (dry run)" : "");
        if (strcmp(st, r->status) == 0)
                return;
        memcpy(r->status, st, sizeof(st));
        sd_notifyf(false, "STATUS=%s", st);
}

void report_flip(const struct report_sample *s, knob_value from, knob_value to, const struct policy_decision *d) {
        char f_knob[64], f_val[32], f_prev[32], f_mode[32], f_reason[48], f_pressure[48], f_pool[48], f_dry[16];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_FLIP, f_knob, f_val, f_prev, f_mode, f_reason,
                                 f_pressure, f_pool, f_dry, NULL };

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", s->knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", knob_to_string(to));
        snprintf(f_prev, sizeof(f_prev), "PREVIOUS_VALUE=%s", knob_to_string(from));
        snprintf(f_mode, sizeof(f_mode), "MODE=%s", policy_mode_to_string(d->mode));
        snprintf(f_reason, sizeof(f_reason), "REASON=%s", policy_reason_to_string(d->reason));
        snprintf(f_pressure, sizeof(f_pressure), "PRESSURE_PERCENT=%.1f", s->pressure);
        snprintf(f_pool, sizeof(f_pool), "POOL_PERCENT=%.0f", s->pool);
        snprintf(f_dry, sizeof(f_dry), "DRY_RUN=%d", s->dry_run);

        if (s->dry_run)
                log_fields(LOG_NOTICE, fields, "Would set %s=%s: %s", s->knob, knob_to_string(to), d->text);
        else if (d->mode == MODE_IDLE)
                log_fields(LOG_NOTICE, fields, "Shrinker back to baseline (%s): %s", onoff(to), d->text);
        else
                log_fields(LOG_NOTICE, fields, "Shrinker %s: %s", onoff(to), d->text);
}

void report_mode(const struct report_sample *s, const struct policy_decision *d, knob_value knob, bool flipped) {
        if (d->mode_changed && (d->reason == REASON_BLIND || d->reason == REASON_DISABLED)) {
                const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_BLIND, NULL };
                log_fields(LOG_WARNING, fields, "Mode: %s: %s; batch caps lifted", policy_mode_to_human(d->mode),
                           d->text);
        } else if (d->mode_changed && !flipped)
                log_info("Mode: %s%s%s%s", policy_mode_to_human(d->mode), s->knob ? " (shrinker already " : "",
                         s->knob ? onoff(knob) : "", s->knob ? ")" : "");
        if (d->held_changed && d->held != HELD_NONE)
                log_notice("Holding back a flip to %s (%s): %s", policy_mode_to_human(d->held_mode), d->text,
                           d->held == HELD_DWELL ? "less than Flips.MinDwellSec since the last flip"
                                                 : "Flips.MaxPerMinute reached");
}

void report_outside(const char *knob, knob_value v, policy_outside what, uint64_t backoff_usec) {
        char f_knob[64], f_val[32], f_backoff[48];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_ADMIN, f_knob, f_val, f_backoff, NULL };

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", knob_to_string(v));
        if (what == OUTSIDE_FOLLOWED) {
                snprintf(f_backoff, sizeof(f_backoff), "BACKOFF_SEC=0");
                log_fields(LOG_NOTICE, fields, "%s was set to %s outside zswap-tuned while idle; that is the "
                           "baseline now, and the value restored on exit", knob, knob_to_string(v));
        } else if (backoff_usec == POLICY_BACKOFF_FOREVER) {
                snprintf(f_backoff, sizeof(f_backoff), "BACKOFF_SEC=infinity");
                log_fields(LOG_NOTICE, fields, "%s was set to %s outside zswap-tuned; leaving the knob alone until "
                           "the next reload (Flips.AdminBackOffSec=infinity), batch caps go on", knob,
                           knob_to_string(v));
        } else {
                snprintf(f_backoff, sizeof(f_backoff), "BACKOFF_SEC=%llu",
                         (unsigned long long) (backoff_usec / USEC_PER_SEC));
                log_fields(LOG_NOTICE, fields, "%s was set to %s outside zswap-tuned; leaving the knob alone for "
                           "%llu s (Flips.AdminBackOffSec=), batch caps go on", knob, knob_to_string(v),
                           (unsigned long long) (backoff_usec / USEC_PER_SEC));
        }
}

void report_cap(int prio, const char *cgroup, const char *value, bool dry_run, const char *fmt, ...) {
        char msg[768], f_cg[600], f_max[64], f_dry[16];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_CAP, f_cg, f_max, f_dry, NULL };
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(f_cg, sizeof(f_cg), "CGROUP=%s", cgroup);
        snprintf(f_max, sizeof(f_max), "ZSWAP_MAX=%s", value);
        snprintf(f_dry, sizeof(f_dry), "DRY_RUN=%d", dry_run);
        log_fields(prio, fields, "%s%s", dry_run ? "Would have: " : "", msg);
}
