/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>

#include "log.h"
#include "steer.h"
#include "util.h"

int steer_probe(struct manager *m) {
        const char *want = m->conf.knob == KNOB_CHOICE_AUTO || m->conf.knob == KNOB_CHOICE_NONE
                                   ? NULL
                                   : knob_choice_to_string(m->conf.knob);

        return knob_probe(&m->knob, &m->kernel, &m->state, want, m->conf.knob == KNOB_CHOICE_NONE);
}

/* Set the knob as the policy decided (or say we would, in a dry run). */
void steer_act(struct manager *m, knob_value before, const struct policy_decision *d) {
        struct report_sample rs = manager_report_sample(m);
        int r;

        if (!m->knob.name || d->set == KNOB_UNSET)
                return;
        if (!manager_dry_run(m)) {
                r = knob_write(&m->knob, &m->kernel, &m->state, d->set);
                if (r < 0) {
                        /* it is what it is; the policy tries again next sample */
                        r = knob_read(&m->knob, &m->kernel, &m->state);
                        policy_sync_knob(&m->policy, r < 0 ? (r == -ENOENT ? KNOB_UNSET : before) : r);
                        record_failed(&m->recorder, m->last_sample, m->policy.knob);
                        return;
                }
        }
        m->flips_total++;
        m->flips_by_reason[d->reason]++;
        m->last_reason = d->reason;
        snprintf(m->last_text, sizeof(m->last_text), "%s", d->text);
        report_flip(&rs, before, d->set, d);
}

static knob_value baseline_value(const struct manager *m) {
        switch (m->conf.baseline) {
        case BASELINE_ON:
                return KNOB_ON;
        case BASELINE_OFF:
                return KNOB_OFF;
        default:
                return m->knob.original;
        }
}

/* Start idle, at the baseline. */
void steer_reset(struct manager *m) {
        static const char *const why[] = { "at startup", "Baseline=on", "Baseline=off" };
        struct policy_decision d = { .reason = REASON_NONE, .mode = MODE_IDLE };
        knob_value current = KNOB_UNSET, base = KNOB_UNSET;
        int r;

        if (m->knob.name) {
                r = knob_read(&m->knob, &m->kernel, &m->state);
                current = r < 0 ? m->knob.original : (knob_value) r;
                base = baseline_value(m);
        }
        policy_init(&m->policy, current, base);
        record_init(&m->recorder, m->last_sample, current, m->knob.name ? m->knob.original : KNOB_UNSET);
        if (current == base)
                return;
        snprintf(d.text, sizeof(d.text), "%s", why[m->conf.baseline]);
        d.set = base;
        m->policy.knob = base;
        steer_act(m, current, &d);
}

/* Someone else changed the knob: follow them rather than fight. */
void steer_outside(struct manager *m, uint64_t now) {
        policy_outside what;
        int r;

        if (!m->knob.name || manager_dry_run(m) || m->policy.knob == KNOB_UNSET)
                return;
        r = knob_read(&m->knob, &m->kernel, &m->state);
        if (r == -ENOENT) {
                policy_sync_knob(&m->policy, KNOB_UNSET); /* gone: nothing to steer */
                return;
        }
        if (r < 0 || r == (int) m->policy.knob)
                return;
        what = policy_knob_changed_outside(&m->params, &m->policy, r, m->conf.baseline == BASELINE_STARTUP, now);
        record_outside(&m->recorder, now, r, m->conf.baseline == BASELINE_STARTUP);
        knob_adopt(&m->knob, &m->state, r); /* theirs is what to restore on exit, too */
        report_outside(m->knob.name, r, what, m->params.backoff_usec);
}
