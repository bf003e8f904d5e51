/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The words for the policy's decisions: the one-line reason a flip is
 * logged with, and the names of modes and reasons (journal fields, STATUS). */
#include <stdio.h>

#include "policy.h"
#include "util.h"

void policy_describe(const struct policy_params *p, const struct policy_sample *in,
                     const struct policy_decision *d, char *buf, size_t size) {
        switch (d->reason) {
        case REASON_POOL_HIGH:
                snprintf(buf, size, "pool at %.0f%% of limit (high %g%%)", in->pool, p->pool_high);
                break;
        case REASON_POOL_RISING:
                snprintf(buf, size, "pool at %.0f%% of limit%s and rising %.1f%%/s, full in %.1f s (lead %g s)",
                         d->level, d->level != in->pool ? " with batch cgroups at their caps" : "",
                         d->fill_rate, d->time_to_limit, (double) p->lead_usec / USEC_PER_SEC);
                break;
        case REASON_PRESSURE:
                snprintf(buf, size, "pressure%s %.1f%% >= %g%%, pool %.0f%% of limit",
                         d->rest ? " of the rest" : "", d->pressure, p->pressure_high, in->pool);
                break;
        case REASON_CALM:
                snprintf(buf, size, "pressure%s below %g%% for %g s", d->rest ? " of the rest" : "", p->pressure_low,
                         (double) p->hold_usec / USEC_PER_SEC);
                break;
        case REASON_BLIND:
                snprintf(buf, size, "the pool has been unreadable for %g s",
                         (double) POLICY_BLIND_GRACE_USEC / USEC_PER_SEC);
                break;
        case REASON_DISABLED:
                snprintf(buf, size, "zswap is disabled");
                break;
        case REASON_RETRY:
                snprintf(buf, size, "the knob is not at the value for \"%s\" (a failed write, or the end of a "
                         "back-off); setting it again", policy_mode_to_human(d->mode));
                break;
        case REASON_BATCH_FULL:
                snprintf(buf, size, "batch cgroups storing at their caps (%.0f%% of the pool limit), pool %.0f%%",
                         in->batch, in->pool);
                break;
        case REASON_POOL_SETTLED:
                snprintf(buf, size, "pool at %.1f%% of limit, below %g%% and not rising", in->pool,
                         p->pool_release);
                break;
        case REASON_NONE:
        default:
                buf[0] = '\0';
                break;
        }
}

const char *policy_mode_to_string(policy_mode m) {
        static const char *const s[] = { "idle", "throughput", "protect" };
        return s[m];
}

const char *policy_mode_to_human(policy_mode m) {
        static const char *const s[] = { "Idle", "Favouring stores", "Protecting pool" };
        return s[m];
}

const char *policy_reason_to_string(policy_reason r) {
        static const char *const s[] = { "none", "pool-high", "pool-rising", "pressure", "calm",
                                          "blind", "zswap-disabled", "retry", "batch-full",
                                          "pool-settled" };
        return s[r];
}
