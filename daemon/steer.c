/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>

#include "log.h"
#include "steer.h"
#include "util.h"

void steer_init(struct steer *s, const struct kernel *k, struct restore *r, struct recorder *rec, struct stats *st) {
        *s = (struct steer) {
                .kernel = k, .restore = r, .recorder = rec, .stats = st, .knob = { .original = KNOB_UNSET },
                .policy = { .knob = KNOB_UNSET, .baseline = KNOB_UNSET, .batch_cap = -1 },
        };
}

int steer_probe(struct steer *s, const char *want, bool monitor_only) {
        return knob_probe(&s->knob, s->kernel, s->restore, want, monitor_only);
}

bool steer_act(struct steer *s, bool dry_run, uint64_t now, knob_value before, const struct policy_decision *d,
               const struct report_sample *rs) {
        int r;

        if (!s->knob.name || d->set == KNOB_UNSET)
                return false;
        if (!dry_run) {
                r = knob_write(&s->knob, s->kernel, s->restore, d->set);
                if (r < 0) {
                        /* it is what it is; the policy tries again next sample */
                        r = knob_read(&s->knob, s->kernel, s->restore);
                        policy_sync_knob(&s->policy, r < 0 ? (r == -ENOENT ? KNOB_UNSET : before) : r);
                        record_failed(s->recorder, now, s->policy.knob);
                        return false;
                }
        }
        report_flip(rs, before, d->set, d);
        return true;
}

void steer_start(struct steer *s, const struct policy_params *p, bool dry_run, uint64_t now,
                 const struct report_sample *rs) {
        struct policy_decision d;
        knob_value current = KNOB_UNSET;
        int r;

        if (s->knob.name) {
                r = knob_read(&s->knob, s->kernel, s->restore);
                current = r < 0 ? s->knob.original : (knob_value) r;
        }
        policy_start(p, &s->policy, current, s->knob.name ? s->knob.original : KNOB_UNSET, &d);
        record_init(s->recorder, now, current, s->knob.name ? s->knob.original : KNOB_UNSET);
        (void) steer_act(s, dry_run, now, current, &d, rs);
}

void steer_outside(struct steer *s, const struct policy_params *p, bool dry_run, uint64_t now) {
        bool follows = p->baseline == POLICY_BASELINE_STARTUP;
        policy_outside what;
        int r;

        if (!s->knob.name || dry_run || s->policy.knob == KNOB_UNSET)
                return;
        r = knob_read(&s->knob, s->kernel, s->restore);
        if (r == -ENOENT) {
                policy_sync_knob(&s->policy, KNOB_UNSET); /* gone: nothing to steer */
                return;
        }
        if (r < 0 || r == (int) s->policy.knob)
                return;
        what = policy_knob_changed_outside(p, &s->policy, r, follows, now);
        record_outside(s->recorder, now, r, follows);
        knob_adopt(&s->knob, s->restore, r); /* theirs is what to restore on exit, too */
        report_outside(s->knob.name, r, what, p->backoff_usec);
}

knob_value steer_decide(struct steer *s, const struct policy_params *p, const struct policy_sample *in,
                        struct policy_decision *d) {
        knob_value before = s->policy.knob;

        record_sample(s->recorder, in);
        policy_decide(p, &s->policy, in, d);
        record_decision(s->recorder, in->now, d, s->policy.knob);
        return before;
}

const char *steer_knob_name(const struct steer *s) {
        return s->knob.name;
}

knob_value steer_knob_value(const struct steer *s) {
        return s->knob.name ? s->policy.knob : KNOB_UNSET;
}

knob_value steer_knob_original(const struct steer *s) {
        return s->knob.name ? s->knob.original : KNOB_UNSET;
}

unsigned steer_flips_since(const struct steer *s, uint64_t since) {
        return policy_flips_since(&s->policy, since);
}

int steer_restore(struct steer *s) {
        return knob_restore(&s->knob, s->restore);
}
