/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "params.h"
#include "util.h"

static policy_baseline baseline_from_conf(int b) {
        switch (b) {
        case BASELINE_ON:
                return POLICY_BASELINE_ON;
        case BASELINE_OFF:
                return POLICY_BASELINE_OFF;
        default:
                return POLICY_BASELINE_STARTUP;
        }
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
                .baseline = baseline_from_conf(c->baseline),
                .batch = c->batch_cgroups.n > 0 || c->batch_units.n > 0 || c->batch_idle,
                .batch_max = c->batch_zswap_max,
                .batch_shrinker_at_cap = c->batch_shrinker_at_cap,
        };
}
