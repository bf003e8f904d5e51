/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "util.h"

#define MINUTE_USEC (60 * USEC_PER_SEC)

void policy_init(struct policy_state *s, knob_value current, knob_value baseline) {
        *s = (struct policy_state) {
                .mode = MODE_IDLE,
                .knob = current,
                .baseline = baseline,
                .batch_cap = -1,
        };
}

void policy_start(const struct policy_params *p, struct policy_state *s, knob_value current, knob_value original,
                  struct policy_decision *d) {
        static const char *const why[] = { "at startup", "Baseline=on", "Baseline=off" };
        knob_value base = p->baseline == POLICY_BASELINE_ON    ? KNOB_ON
                          : p->baseline == POLICY_BASELINE_OFF ? KNOB_OFF
                                                               : original;

        if (current == KNOB_UNSET)
                base = KNOB_UNSET; /* no knob: monitoring only */
        policy_init(s, current, base);
        *d = (struct policy_decision) { .set = KNOB_UNSET, .mode = MODE_IDLE, .reason = REASON_NONE, .batch_cap = -1 };
        if (current == base)
                return;
        snprintf(d->text, sizeof(d->text), "%s", why[p->baseline]);
        d->set = base;
        s->knob = base;
}

void policy_sync_knob(struct policy_state *s, knob_value actual) {
        s->knob = actual;
}

policy_outside policy_knob_changed_outside(const struct policy_params *p, struct policy_state *s,
                                           knob_value actual, bool baseline_follows, uint64_t now) {
        s->knob = actual;
        /* Idle, with the baseline being whatever the knob was at startup:
         * their value is the new baseline, nothing to fight over. */
        if (s->mode == MODE_IDLE && baseline_follows) {
                s->baseline = actual;
                return OUTSIDE_FOLLOWED;
        }
        /* Else the knob is theirs for a while: the mode still follows the
         * samples (and the batch caps with it), the knob does not. */
        if (p->backoff_usec == POLICY_BACKOFF_FOREVER || now + p->backoff_usec < now)
                s->backoff_until = POLICY_BACKOFF_FOREVER;
        else
                s->backoff_until = p->backoff_usec > 0 ? now + p->backoff_usec : 0;
        return OUTSIDE_BACKED_OFF;
}

void policy_resume(struct policy_state *s) {
        s->backoff_until = 0;
}

bool policy_cap_needs_write(bool capped, uint64_t current, uint64_t wanted) {
        return !capped || (wanted > current ? wanted - current : current - wanted) > current / 100;
}

uint64_t policy_cap_within(uint64_t wanted, uint64_t ceiling) {
        return wanted < ceiling ? wanted : ceiling;
}

static knob_value mode_knob(const struct policy_state *s, policy_mode m) {
        switch (m) {
        case MODE_THROUGHPUT:
                return KNOB_OFF;
        case MODE_PROTECT:
                return KNOB_ON;
        case MODE_IDLE:
        default:
                return s->baseline;
        }
}

static unsigned flips_last_minute(const struct policy_state *s, uint64_t now) {
        unsigned n = 0;

        for (unsigned i = 0; i < s->n_flips && i < POLICY_FLIP_HISTORY; i++)
                if (now - s->flips[i] < MINUTE_USEC)
                        n++;
        return n;
}

unsigned policy_flips_since(const struct policy_state *s, uint64_t since) {
        unsigned n = 0;

        for (unsigned i = 0; i < s->n_flips && i < POLICY_FLIP_HISTORY; i++)
                n += s->flips[i] >= since;
        return n;
}

static uint64_t whole_pages(uint64_t bytes, uint64_t page_size) {
        if (page_size == 0)
                page_size = 4096;
        return bytes / page_size * page_size;
}

void policy_cap_divide(uint64_t share, uint64_t most, const uint64_t *use, unsigned n, uint64_t page_size,
                       uint64_t *cap) {
        uint64_t sum = 0, free;

        if (most == 0 || most > share)
                most = share;
        for (unsigned i = 0; i < n; i++) {
                cap[i] = use[i] < most ? use[i] : most;
                sum += cap[i];
        }
        if (sum > share) {
                /* they hold more than the room: each in proportion */
                for (unsigned i = 0; i < n; i++)
                        cap[i] = whole_pages((uint64_t) ((long double) cap[i] * share / sum), page_size);
                return;
        }
        /* the free room, evenly to those below most, until it is gone or
         * all of them are at most: each round puts one at most at least */
        free = share - sum;
        for (;;) {
                unsigned k = 0, clamped = 0;
                uint64_t x;

                for (unsigned i = 0; i < n; i++)
                        k += cap[i] < most;
                if (k == 0 || free < k)
                        break;
                x = free / k;
                for (unsigned i = 0; i < n; i++) {
                        uint64_t give;
                        if (cap[i] >= most)
                                continue;
                        give = most - cap[i] < x ? most - cap[i] : x;
                        cap[i] += give;
                        free -= give;
                        clamped += cap[i] >= most;
                }
                if (clamped == 0)
                        break;
        }
        for (unsigned i = 0; i < n; i++)
                cap[i] = whole_pages(cap[i], page_size);
}

void policy_cap_newcomer(const struct policy_decision *last, const uint64_t *use, unsigned n, uint64_t page_size,
                         struct policy_decision *d) {
        uint64_t held[POLICY_MAX_BATCH + 1], cap[POLICY_MAX_BATCH + 1];

        *d = *last;
        if (n > POLICY_MAX_BATCH)
                n = POLICY_MAX_BATCH;
        for (unsigned i = 0; i < n; i++)
                held[i] = use[i];
        held[n] = 0;
        policy_cap_divide(last->share_bytes, last->most_bytes, held, n + 1, page_size, cap);
        d->cap_bytes = cap[n];
        if (last->cap_bytes > 0)
                d->batch_cap = last->batch_cap * (double) cap[n] / (double) last->cap_bytes;
        snprintf(d->cap_text, sizeof(d->cap_text), "its share of the room nobody holds, until the next sample");
}

static void record_flip(struct policy_state *s, uint64_t now) {
        s->flips[s->n_flips % POLICY_FLIP_HISTORY] = now;
        s->n_flips++;
        s->last_flip = now;
        s->flipped = true;
}

#define RATE_TAU_SEC 1.0

static void rate_update(struct policy_rate *r, uint64_t now, double level) {
        if (r->have_prev && now > r->prev_now) {
                double dt = (double) (now - r->prev_now) / USEC_PER_SEC;
                double rate = (level - r->prev) / dt;

                /* Smooth over about a second, however often we sample:
                 * quick enough to see a hog start, calm enough not to chase
                 * noise (at 100 ms a 0.3% wobble reads as 3%/s). At one
                 * sample a second, this halves towards each new reading. */
                double a = dt / (dt + RATE_TAU_SEC);
                r->rate = r->have_rate ? r->rate + a * (rate - r->rate) : rate;
                r->have_rate = true;
        }
        r->have_prev = true;
        r->prev_now = now;
        r->prev = level;
}

/* What the batch cgroups use; never below 0, whatever the files said. */
static double batch_of(const struct policy_sample *in) {
        return in->batch > 0 ? in->batch : 0;
}

static double rate_of(const struct policy_rate *r) {
        return r->have_rate ? r->rate : 0;
}

/* Seconds until level reaches 100 % at rate; < 0 = not rising, or there
 * already (when a prediction has nothing left to say). */
static double time_to_limit(double level, double rate) {
        return rate > 0 && level < 100 ? (100 - level) / rate : -1;
}

/* The fill prediction. The batch cgroups are capped, and can add no more
 * than up to their caps: count them as full and follow the rest, which is
 * what can still take the pool to its limit (measured: without this, a
 * capped pool levelling off at 87% of its limit was predicted full and the
 * shrinker turned on for nothing). Two things make the rest look as if it
 * grew when it does not, both measured in the benchmark guest: the pool
 * also holds the allocator's overhead on the batch cgroups' entries, which
 * grows with them (24% to 28% of the limit while a batch job filled its cap
 * in one second); and the entries of a batch job that has exited are no
 * longer charged to its cgroup while the pool still holds them (26% of the
 * limit "appeared" in the rest for two seconds). So the rest counts as rising
 * only while the batch cgroups are not, and not faster than the pool. */
#define BATCH_STEADY_RATE 1.0 /* percent of the limit per second */

static void predict(const struct policy_state *s, const struct policy_sample *in, struct policy_decision *d) {
        const struct policy_rate *r = &s->pool_rate;
        double level = in->pool, rate;

        if (in->n_batch > 0 && s->batch_cap >= 0) {
                double batch = batch_of(in);
                double caps = s->batch_cap * in->n_batch;

                level = in->pool - batch + (batch > caps ? batch : caps);
                r = &s->others_rate;
        }
        rate = rate_of(r);
        if (r == &s->others_rate) {
                if (rate_of(&s->batch_rate) > BATCH_STEADY_RATE)
                        rate = 0;
                if (rate > rate_of(&s->pool_rate))
                        rate = rate_of(&s->pool_rate);
        }
        d->level = level;
        d->fill_rate = rate;
        d->time_to_limit = time_to_limit(level, rate);
}

/* Each batch cgroup's cap: the room the rest of the pool leaves below a
 * target, shared out, and at most ZswapMaxPercent. The target is half way
 * between LowPercent and HighPercent while idle, so that batch work alone
 * does not take the pool to where the shrinker turns on, and LowPercent
 * while anything is going on, so that the latency-sensitive work has the
 * room. The rest of the pool moves a little all the time: the cap follows
 * in steps, not every sample. */
#define BATCH_CAP_STEP 2.0 /* percent of the pool limit */

static double batch_cap(const struct policy_params *p, const struct policy_state *s,
                        const struct policy_sample *in, char *text, size_t size) {
        double target = s->mode == MODE_IDLE ? (p->pool_low + p->pool_high) / 2 : p->pool_low;
        double others = in->pool - batch_of(in);
        double cap;

        if (!p->batch)
                return -1;
        if (in->n_batch == 0) {
                /* none to measure now: keep what we had */
                snprintf(text, size, "as before (no batch cgroup to measure)");
                return s->batch_cap;
        }
        if (others < 0)
                others = 0;
        cap = (target - others) / in->n_batch;
        if (cap >= p->batch_max) {
                snprintf(text, size, "ZswapMaxPercent");
                return p->batch_max;
        }
        if (cap < 0)
                cap = 0;
        snprintf(text, size, "what the rest of the pool (%.0f%%) leaves below %g%%%s", others, target,
                 in->n_batch > 1 ? ", shared" : "");
        if (s->batch_cap >= 0 && cap != 0 && cap > s->batch_cap - BATCH_CAP_STEP &&
            cap < s->batch_cap + BATCH_CAP_STEP)
                return s->batch_cap;
        return cap;
}

/* The batch cgroups are storing at their caps (together within a step of
 * them), above WatchPercent. A cgroup at its cap has no room, whatever the
 * pool says: each of its stores first writes one of its own entries back,
 * in the store path, and the cap keeps the pool below HighPercent, so the
 * pool rules never turn the shrinker on. Measured in the phased benchmark
 * (docs/benchmarks.md): the configured daemon held the batch at its cap with
 * the shrinker off and lost to static Y on the service's seconds over its SLO
 * (0.915 against 0.990 of the time met) and on batch throughput (0.91x);
 * with the shrinker on, reclaim writes the cold entries back before the
 * stores need the room. Only with [Batch] ShrinkerAtCap=yes: on a quiet host,
 * in one boot, the daemon without this rule gave the service 0.32x the
 * seconds over its SLO of the daemon with it, for the same batch throughput
 * and 0.77x the writeback. */
static bool batch_full(const struct policy_params *p, const struct policy_state *s,
                       const struct policy_sample *in) {
        /* Once protecting, until they are down to half their caps, wherever
         * the pool is: the shrinker itself takes them off their caps within
         * seconds while the job runs on (measured in the benchmark: the pool
         * from 71% to 50% of its limit in 10 s), and letting go at once
         * turned it off and on again every MinDwellSec. */
        bool protecting = s->mode == MODE_PROTECT;
        double at = protecting ? s->batch_cap / 2 : s->batch_cap - BATCH_CAP_STEP;

        return p->batch && p->batch_shrinker_at_cap && in->n_batch > 0 && s->batch_cap > 0 &&
               (protecting || in->pool >= p->pool_watch) && batch_of(in) >= at * in->n_batch;
}

/* Which mode the sample asks for, and whether for the pool's safety.
 * last_pool is the pool at the previous sample. */
static policy_mode wanted_mode(const struct policy_params *p, const struct policy_state *s,
                               const struct policy_sample *in, bool pressure_valid, double pressure, double ttl,
                               double last_pool, policy_reason *reason, bool *safety) {
        /* Once protecting, the prediction must clear twice the lead time
         * before it lets go: else a fill rate hovering at the lead time
         * flips the knob every sample. */
        double lead = (double) p->lead_usec * (s->mode == MODE_PROTECT ? 2 : 1);
        bool rising = p->lead_usec > 0 && ttl >= 0 && ttl * USEC_PER_SEC <= 2.0 * (double) p->lead_usec;
        bool full = batch_full(p, s, in);
        /* Near the limit, stores are no longer to be favoured. Whether the
         * shrinker goes on is [Pool] ShrinkerNearLimit=, off by default: on
         * the phased benchmark's quiet host it helped nowhere, and cost 3.3x
         * static N's writeback and the service's near-idle p99 (1.33x;
         * docs/benchmarks.md). Off, the knob goes back to the baseline, the
         * admin's value; protection that is already on (batch-full) stays. */
        policy_mode near_limit = p->pool_shrinker || s->mode == MODE_PROTECT ? MODE_PROTECT : MODE_IDLE;

        *safety = false;
        *reason = REASON_NONE;

        if (in->pool >= p->pool_high) {
                *reason = REASON_POOL_HIGH;
                *safety = true;
                return near_limit;
        }
        /* Below WatchPercent a short burst (a service filling its working
         * set) predicts a full pool that never comes: ignore the rate there. */
        if (p->lead_usec > 0 && in->pool >= p->pool_watch && ttl >= 0 && ttl * USEC_PER_SEC <= lead) {
                *reason = REASON_POOL_RISING;
                *safety = true;
                return near_limit;
        }
        if (full && in->stores) {
                *reason = REASON_BATCH_FULL;
                return MODE_PROTECT;
        }
        /* Room means more than a low pool: not heading for the limit within
         * twice the lead time either (in a swap storm PSI is high all along,
         * and turning the shrinker off then only fills the pool sooner).
         * Leaving protection also needs the pool low for a whole interval: a
         * pool that just collapsed because its owner exited is no reason to
         * flip off, with the pressure figure still describing the time before. */
        if (pressure_valid && pressure >= p->pressure_high && in->stores && in->pool <= p->pool_low &&
            !rising && !full && (s->mode != MODE_PROTECT || last_pool <= p->pool_low)) {
                *reason = REASON_PRESSURE;
                return MODE_THROUGHPUT;
        }
        /* Settled (rule (b2), off unless ReleasePercent is set): protecting,
         * and the pool has stayed below ReleasePercent for a whole interval
         * and is heading nowhere near its limit. The reason to keep the
         * shrinker on is gone, whatever the pressure: system-wide, that may be
         * batch work's own stalls, which keep calm from ever coming while the
         * pool sits between LowPercent and HighPercent. */
        if (p->pool_release > 0 && s->mode == MODE_PROTECT && in->pool < p->pool_release &&
            last_pool < p->pool_release && !rising && !full) {
                *reason = REASON_POOL_SETTLED;
                return MODE_IDLE;
        }
        /* Calm: back to the baseline, but out of protection only once the
         * pool is down to LowPercent and not heading up again (else, with
         * Baseline=off, the shrinker goes off at 84% and on again at 85%),
         * and the batch cgroups are off their caps. */
        if (s->calm && in->now - s->calm_since >= p->hold_usec &&
            (s->mode != MODE_PROTECT || (in->pool <= p->pool_low && !rising && !full))) {
                *reason = REASON_CALM;
                return MODE_IDLE;
        }
        return s->mode; /* in between: keep what we have (hysteresis) */
}

/* How long an idle daemon may sleep: PSI triggers wake it should pressure
 * start; without any armed it polls at the sample rate. */
static uint64_t idle_check(const struct policy_params *p, const struct policy_sample *in) {
        return in->triggers_armed ? p->idle_check_usec : p->sample_usec;
}

static uint64_t next_sample(const struct policy_params *p, const struct policy_state *s,
                            const struct policy_sample *in, struct policy_decision *d) {
        /* Could the pool reach its limit before an idle check would notice?
         * The pool itself, batch cgroups included: the prediction leaves out
         * a batch job filling its cap, but that is still worth watching. */
        double pool_ttl = time_to_limit(in->pool, rate_of(&s->pool_rate));
        bool filling = pool_ttl >= 0 && pool_ttl * USEC_PER_SEC <= (double) idle_check(p, in);
        bool active = !d->pressure_valid || d->pressure >= p->pressure_low || in->pool >= p->pool_watch ||
                      filling || s->mode != MODE_IDLE || d->held != HELD_NONE;
        uint64_t iv = p->sample_usec;

        d->idle = !active;
        if (!active)
                return idle_check(p, in);
        /* Look again well before the predicted time to the limit, either of them. */
        double ttl = d->time_to_limit >= 0 && (pool_ttl < 0 || d->time_to_limit < pool_ttl) ? d->time_to_limit
                                                                                               : pool_ttl;
        if (ttl >= 0) {
                double quarter = ttl * USEC_PER_SEC / 4;
                if (quarter < (double) iv)
                        iv = quarter < (double) p->min_sample_usec ? p->min_sample_usec : (uint64_t) quarter;
        }
        return iv;
}

/* The pool cannot be read, or zswap is off: nothing to steer by. After a
 * grace period (at once when zswap is off) everything goes back to the
 * baseline and the caps are lifted, until the pool is back. */
static void decide_blind(const struct policy_params *p, struct policy_state *s, const struct policy_sample *in,
                         struct policy_decision *d) {
        bool disabled = in->pool_state == POOL_DISABLED;

        if (!s->blind) {
                s->blind = true;
                s->blind_since = in->now;
        }
        d->mode = s->mode;
        if (!disabled && in->now - s->blind_since < POLICY_BLIND_GRACE_USEC) {
                /* keep everything as it is, look again soon */
                d->batch_keep = true;
                d->batch_cap = s->batch_cap;
                d->next_usec = p->sample_usec;
                return;
        }
        /* start afresh when the pool is back */
        s->pool_rate = s->others_rate = s->batch_rate = (struct policy_rate) { 0 };
        s->calm = false;
        s->held = HELD_NONE;
        s->batch_cap = -1;
        d->batch_cap = -1;
        if (s->mode != MODE_IDLE) {
                s->mode = MODE_IDLE;
                d->mode = MODE_IDLE;
                d->mode_changed = true;
                d->reason = disabled ? REASON_DISABLED : REASON_BLIND;
        }
        d->idle = true;
        d->next_usec = idle_check(p, in);
}

/* What policy_cap_divide() splits: the caps' room together (cap_bytes
 * each, for the n_batch measured), and the most one may have. */
static void batch_share(const struct policy_params *p, const struct policy_sample *in, struct policy_decision *d) {
        double most = d->batch_cap > p->batch_max ? d->batch_cap : p->batch_max;

        d->share_bytes = d->cap_bytes * (in->n_batch > 0 ? in->n_batch : 1);
        d->most_bytes = whole_pages((uint64_t) ((double) in->limit_bytes * most / 100), in->page_size);
}

void policy_decide(const struct policy_params *p, struct policy_state *s,
                   const struct policy_sample *in, struct policy_decision *d) {
        policy_reason reason;
        policy_mode want;
        bool safety, backed_off;
        double last_pool = s->pool_rate.have_prev ? s->pool_rate.prev : in->pool;

        *d = (struct policy_decision) { .set = KNOB_UNSET, .batch_cap = -1 };

        /* Whose pressure: with batch work known, the rest's (the system's
         * figure is then mostly the batch's own stalls, issue 48); else the
         * max over all sources, as ever. */
        d->rest = in->batch_known;
        d->pressure = d->rest ? in->rest_pressure : in->pressure;
        /* A pressure figure averaged over a long quiet stretch means nothing. */
        d->pressure_valid = in->pressure_valid && (!d->rest || in->rest_valid) &&
                            (!s->have_last || (in->now > s->last_now && in->now - s->last_now <= 3 * p->sample_usec));
        s->have_last = true;
        s->last_now = in->now;
        backed_off = s->backoff_until != 0 && in->now < s->backoff_until;
        if (!backed_off)
                s->backoff_until = 0;
        d->backed_off = backed_off;

        if (in->pool_state != POOL_OK) {
                decide_blind(p, s, in, d);
        } else {
                s->blind = false;
                rate_update(&s->pool_rate, in->now, in->pool);
                rate_update(&s->others_rate, in->now, in->pool - batch_of(in));
                rate_update(&s->batch_rate, in->now, batch_of(in));
                predict(s, in, d); /* with the caps in force */

                if (d->pressure_valid) {
                        if (d->pressure < p->pressure_low) {
                                if (!s->calm)
                                        s->calm_since = in->now;
                                s->calm = true;
                        } else
                                s->calm = false;
                }

                want = wanted_mode(p, s, in, d->pressure_valid, d->pressure, d->time_to_limit, last_pool, &reason,
                                   &safety);
                d->reason = reason;

                if (want != s->mode) {
                        knob_value k = mode_knob(s, want);
                        /* no knob (monitor only), or the admin's for now: modes
                         * change, nothing flips */
                        bool flip = !backed_off && k != KNOB_UNSET && s->knob != KNOB_UNSET && k != s->knob;

                        if (flip && !safety && p->min_dwell_usec > 0 && s->flipped &&
                            in->now - s->last_flip < p->min_dwell_usec)
                                d->held = HELD_DWELL;
                        /* Safety flips are never held back but count, so the cap
                         * is kept by the others: one that turns the shrinker off
                         * leaves room for the safety flip back on (the soak saw 7
                         * flips in a minute at MaxPerMinute=6 before this). */
                        else if (flip && !safety && p->max_per_minute > 0 &&
                                 flips_last_minute(s, in->now) + (k == KNOB_OFF ? 2 : 1) > p->max_per_minute)
                                d->held = HELD_CAP;

                        if (d->held == HELD_NONE) {
                                s->mode = want;
                                d->mode_changed = true;
                                if (flip) {
                                        d->set = k;
                                        d->flip = true;
                                        s->knob = k;
                                        record_flip(s, in->now);
                                }
                        } else
                                d->held_mode = want;
                }
                /* the caps for the mode we are in now */
                s->batch_cap = batch_cap(p, s, in, d->cap_text, sizeof(d->cap_text));
                d->batch_cap = s->batch_cap;
                d->cap_at_max = d->batch_cap >= 0 && d->batch_cap == p->batch_max;
                if (d->batch_cap >= 0)
                        d->cap_bytes = whole_pages((uint64_t) ((double) in->limit_bytes * d->batch_cap / 100),
                                                   in->page_size);
        }
        if (d->batch_cap >= 0)
                batch_share(p, in, d);

        /* The knob is not what the mode wants: a write failed, or the
         * admin's time is up. Put it right; that is no flip. */
        if (!backed_off && d->set == KNOB_UNSET && s->knob != KNOB_UNSET) {
                knob_value k = mode_knob(s, s->mode);
                if (k != KNOB_UNSET && k != s->knob) {
                        d->set = k;
                        s->knob = k;
                        if (!d->mode_changed)
                                d->reason = REASON_RETRY;
                }
        }

        d->held_changed = d->held != s->held;
        s->held = d->held;
        d->mode = s->mode;
        policy_describe(p, in, d, d->text, sizeof(d->text));
        if (in->pool_state == POOL_OK)
                d->next_usec = next_sample(p, s, in, d);
}

policy_protect_action policy_protect_decide(const struct policy_params *p, struct policy_protect *s, bool valid,
                                            double pressure, uint64_t now) {
        bool dwelt = !s->changed || now - s->changed_at >= p->min_dwell_usec;

        if (!valid)
                return PROTECT_KEEP;
        if (pressure >= p->pressure_high) {
                s->calm = false;
                if (s->protecting || !dwelt)
                        return PROTECT_KEEP;
                s->protecting = s->changed = true;
                s->changed_at = now;
                return PROTECT_ON;
        }
        if (pressure >= p->pressure_low) {
                s->calm = false;
                return PROTECT_KEEP;
        }
        if (!s->calm) {
                s->calm = true;
                s->calm_since = now;
        }
        if (!s->protecting || now - s->calm_since < p->hold_usec || !dwelt)
                return PROTECT_KEEP;
        s->protecting = false;
        s->changed = true;
        s->changed_at = now;
        return PROTECT_OFF;
}

void policy_protect_sync(struct policy_protect *s, bool protecting) {
        s->protecting = protecting;
}
