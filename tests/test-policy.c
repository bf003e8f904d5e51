/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every policy transition, without any kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy.h"
#include "util.h"

#define S(x) ((uint64_t) ((x) * 1e6))

static struct policy_params params(void) {
        return (struct policy_params) {
                .pressure_high = 10, .pressure_low = 2, .hold_usec = S(30),
                .pool_high = 85, .pool_low = 70, .pool_watch = 50,
                .sample_usec = S(1), .min_sample_usec = S(0.1), .lead_usec = S(10),
                .idle_check_usec = S(60), .min_dwell_usec = S(10), .max_per_minute = 6,
                .backoff_usec = POLICY_BACKOFF_FOREVER, .batch_shrinker_at_cap = true,
                .pool_shrinker = true, /* [Pool] ShrinkerNearLimit=yes: most tests are about protection */
        };
}

/* One sample: pressure (valid), stores, the pool and the batch cgroups. */
static struct policy_decision sample(const struct policy_params *p, struct policy_state *s, double t,
                                     double pressure, bool stores, double pool, double batch, unsigned n_batch) {
        struct policy_sample in = { .now = S(t), .pressure_valid = true, .pressure = pressure,
                                    .stores = stores, .pool = pool, .batch = batch, .n_batch = n_batch,
                                    .triggers_armed = true };
        struct policy_decision d;

        policy_decide(p, s, &in, &d);
        return d;
}

static struct policy_decision step(const struct policy_params *p, struct policy_state *s, double t,
                                   double pressure, bool stores, double pool) {
        return sample(p, s, t, pressure, stores, pool, 0, 0);
}

/* no pressure, stores */
static struct policy_decision step_batch(const struct policy_params *p, struct policy_state *s, double t,
                                         double pool, double batch, unsigned n_batch) {
        return sample(p, s, t, 0, true, pool, batch, n_batch);
}

/* one batch cgroup */
static struct policy_decision step_full(const struct policy_params *p, struct policy_state *s, double t,
                                        double pressure, bool stores, double pool, double batch) {
        return sample(p, s, t, pressure, stores, pool, batch, 1);
}

/* The recording format (record.h) stores reasons by number: a renumbered
 * reason would replay old recordings wrong. */
static void reasons_keep_their_numbers(void **state) {
        static const struct { policy_reason r; int n; const char *name; } want[] = {
                { REASON_NONE, 0, "none" },         { REASON_POOL_HIGH, 1, "pool-high" },
                { REASON_POOL_RISING, 2, "pool-rising" }, { REASON_PRESSURE, 3, "pressure" },
                { REASON_CALM, 4, "calm" },         { REASON_BLIND, 5, "blind" },
                { REASON_DISABLED, 6, "zswap-disabled" }, { REASON_RETRY, 7, "retry" },
                { REASON_BATCH_FULL, 8, "batch-full" }, { REASON_POOL_SETTLED, 9, "pool-settled" },
        };
        assert_int_equal(POLICY_REASONS, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_int_equal((int) want[i].r, want[i].n);
                assert_string_equal(policy_reason_to_string(want[i].r), want[i].name);
        }
}

/* The start: to the baseline, which is no flip. */
static void start_goes_to_the_baseline(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.baseline = POLICY_BASELINE_STARTUP;
        policy_start(&p, &s, KNOB_ON, KNOB_ON, &d);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(s.baseline, KNOB_ON);
        /* a value left by an instance that died: back to the saved original */
        policy_start(&p, &s, KNOB_OFF, KNOB_ON, &d);
        assert_int_equal(d.set, KNOB_ON);
        assert_false(d.flip);
        assert_string_equal(d.text, "at startup");
        p.baseline = POLICY_BASELINE_OFF;
        policy_start(&p, &s, KNOB_ON, KNOB_ON, &d);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(s.knob, KNOB_OFF);
        assert_string_equal(d.text, "Baseline=off");
        assert_int_equal(policy_flips_since(&s, 0), 0);
        /* no knob: nothing to set, whatever the baseline */
        policy_start(&p, &s, KNOB_UNSET, KNOB_UNSET, &d);
        assert_int_equal(d.set, KNOB_UNSET);
}

/* A batch cgroup that comes between samples: what the division gives one
 * that holds nothing beside the others, in whole pages: a part of the room
 * none of them holds; the others keep theirs until the next sample. */
static void newcomer_gets_its_share(void **state) {
        struct policy_decision last = { .batch_cap = 60, .cap_bytes = 600 * 4096, .share_bytes = 1200 * 4096,
                                        .most_bytes = 600 * 4096 },
                               d;
        const uint64_t held[] = { 600 * 4096, 300 * 4096 };

        /* alone: the whole share, up to the most one may have */
        policy_cap_newcomer(&last, NULL, 0, 4096, &d);
        assert_int_equal(d.cap_bytes, 600 * 4096);
        assert_true(d.batch_cap == 60);
        /* beside one at its most and one holding 300 pages: the 300 free pages, shared by the two below it */
        policy_cap_newcomer(&last, held, 2, 65536, &d);
        assert_int_equal(d.cap_bytes % 65536, 0);
        assert_true(d.cap_bytes <= 150 * 4096 && d.cap_bytes + 65536 > 150 * 4096);
        assert_true(d.batch_cap > 14 && d.batch_cap <= 15);
        assert_string_equal(d.cap_text, "its share of the room nobody holds, until the next sample");
        /* the room is all held: nothing for it until the next sample */
        const uint64_t all[] = { 600 * 4096, 600 * 4096 };
        policy_cap_newcomer(&last, all, 2, 4096, &d);
        assert_int_equal(d.cap_bytes, 0);
}

static uint64_t sum_of(const uint64_t *v, unsigned n) {
        uint64_t sum = 0;

        for (unsigned i = 0; i < n; i++)
                sum += v[i];
        return sum;
}

/* The batch share is split by what each cgroup holds: empty ones share the
 * room nobody holds, and never take what another holds. */
static void division_by_what_each_holds(void **state) {
        uint64_t use[8], cap[8];
        const uint64_t P = 4096;

        /* all empty: evenly, as before, none above most */
        memset(use, 0, sizeof(use));
        policy_cap_divide(800 * P, 300 * P, use, 4, P, cap);
        for (int i = 0; i < 4; i++)
                assert_int_equal(cap[i], 200 * P);
        policy_cap_divide(800 * P, 100 * P, use, 4, P, cap);
        for (int i = 0; i < 4; i++)
                assert_int_equal(cap[i], 100 * P);
        /* one holds 500 pages: it keeps them, the 300 free pages go evenly */
        use[0] = 500 * P;
        policy_cap_divide(800 * P, 0, use, 4, P, cap);
        assert_int_equal(cap[0], 575 * P);
        assert_int_equal(cap[1], 75 * P);
        assert_true(sum_of(cap, 4) <= 800 * P);
        /* water-filling: one at most leaves the rest of the free room to the others */
        policy_cap_divide(800 * P, 520 * P, use, 4, P, cap);
        assert_int_equal(cap[0], 520 * P);
        assert_int_equal(cap[1], 93 * P); /* 280 / 3, whole pages */
        assert_true(sum_of(cap, 4) <= 800 * P);
        /* more held than the room: in proportion to what each holds */
        use[1] = 300 * P;
        use[2] = 200 * P;
        policy_cap_divide(500 * P, 0, use, 4, P, cap);
        assert_int_equal(cap[0], 250 * P);
        assert_int_equal(cap[1], 150 * P);
        assert_int_equal(cap[2], 100 * P);
        assert_int_equal(cap[3], 0);
        /* above most: counted at most */
        use[0] = 900 * P;
        use[1] = use[2] = 0;
        policy_cap_divide(800 * P, 400 * P, use, 4, P, cap);
        assert_int_equal(cap[0], 400 * P);
        assert_int_equal(cap[1], 133 * P);
        /* whole pages, never more than the share */
        use[0] = 12345;
        policy_cap_divide(100000, 0, use, 3, P, cap);
        for (int i = 0; i < 3; i++)
                assert_int_equal(cap[i] % P, 0);
        assert_true(sum_of(cap, 3) <= 100000);
        policy_cap_divide(0, 0, use, 3, P, cap);
        assert_int_equal(sum_of(cap, 3), 0);
}

/* Issue 46: a user's 40 empty cgroups with cpu.idle 1 joined the batch set
 * and, the cap being divided by their number, cut the admin's batch.slice
 * from 102400000 to 6897664 bytes. Divided by what each holds, batch.slice
 * (holding the batch's pages) keeps at least 90% of its cap alone. */
static void forty_empty_cgroups_keep_batch_slice_cap(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        const uint64_t limit = 1024000000; /* 10%: 102400000 bytes */
        uint64_t use[41] = { 0 }, cap[41], alone;

        p.batch = true;
        p.batch_max = 10;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        /* batch.slice alone, holding 9.5% of the limit; the rest of the pool 40%:
         * room 77.5 - 40 = 37.5%, more than ZswapMaxPercent */
        struct policy_sample in = { .now = S(100), .pressure_valid = true, .pool = 49.5, .batch = 9.5,
                                    .n_batch = 1, .limit_bytes = limit, .page_size = 4096, .triggers_armed = true };
        policy_decide(&p, &s, &in, &d);
        use[0] = 97280000;
        policy_cap_divide(d.share_bytes, d.most_bytes, use, 1, 4096, cap);
        alone = cap[0];
        assert_true(alone >= 102400000 - 4096 && alone <= 102400000);

        /* 40 more, holding nothing */
        in.now = S(101);
        in.n_batch = 41;
        policy_decide(&p, &s, &in, &d);
        assert_true(d.cap_bytes < alone / 10); /* what each got when divided by their number */
        policy_cap_divide(d.share_bytes, d.most_bytes, use, 41, 4096, cap);
        assert_true(cap[0] >= alone * 9 / 10);
        assert_true(cap[0] >= use[0] - 4096);
        assert_true(sum_of(cap, 41) <= d.share_bytes);
        for (int i = 1; i < 41; i++)
                assert_true(cap[i] == cap[1]);
        print_message("batch.slice: %llu alone, %llu beside 40 empty cgroups (each %llu)\n",
                      (unsigned long long) alone, (unsigned long long) cap[0], (unsigned long long) cap[1]);
        /* and a newcomer between samples does not touch it either */
        policy_cap_newcomer(&d, use, 41, 4096, &d);
        assert_true(d.cap_bytes <= cap[1]);
}

/* Without armed PSI triggers nothing wakes an idle daemon: it polls. */
static void idle_without_triggers_polls(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        struct policy_sample in = { .now = S(100), .pressure_valid = true, .pool = 5, .triggers_armed = false };

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        policy_decide(&p, &s, &in, &d);
        assert_true(d.idle);
        assert_int_equal(d.next_usec, p.sample_usec);
}

/* Caps are whole pages of the kernel's size (4 K, 16 K, 64 K). */
static void caps_are_whole_pages(void **state) {
        struct policy_params p = params();
        static const uint64_t sizes[] = { 4096, 16384, 65536 };

        p.batch = true;
        p.batch_max = 50;
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                struct policy_state s;
                struct policy_decision d;
                struct policy_sample in = { .now = S(100), .pressure_valid = true, .pool = 20, .n_batch = 1,
                                            .batch = 10, .limit_bytes = 1000000007, .page_size = sizes[i],
                                            .triggers_armed = true };
                policy_init(&s, KNOB_OFF, KNOB_OFF);
                policy_decide(&p, &s, &in, &d);
                assert_true(d.batch_cap > 0);
                assert_int_equal(d.cap_bytes % sizes[i], 0);
                assert_true(d.cap_bytes + sizes[i] > (uint64_t) (1000000007.0 * d.batch_cap / 100));
        }
}

static void idle_stays_idle(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, false, 5);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_false(d.mode_changed);
        assert_int_equal(d.next_usec, p.idle_check_usec); /* nothing happening: long sleep */
}

static void pressure_with_stores_turns_off(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 25, true, 20);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_int_equal(d.reason, REASON_PRESSURE);
        assert_non_null(strstr(d.text, "pressure 25.0%"));
        assert_int_equal(d.next_usec, p.sample_usec);
}

static void pressure_needs_stores_and_room(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 25, false, 20); /* no zswap stores: not our business */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 101, 25, true, 75); /* pool above Pool.LowPercent: no room */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        d = step(&p, &s, 102, 9.9, true, 20); /* below Pressure.HighPercent */
        assert_int_equal(d.set, KNOB_UNSET);
}

static void already_at_target_changes_mode_without_flip(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 25, true, 20);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_true(d.mode_changed);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_int_equal(s.n_flips, 0);
}

static void pool_high_turns_on_at_once_and_wins(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 25, true, 20);
        assert_int_equal(d.set, KNOB_OFF);
        /* 1 s later, well inside MinDwellSec, pressure still high: the pool wins. */
        d = step(&p, &s, 101, 50, true, 86);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.mode, MODE_PROTECT);
        assert_int_equal(d.reason, REASON_POOL_HIGH);
        assert_int_equal(d.held, HELD_NONE);
        assert_non_null(strstr(d.text, "pool at 86% of limit"));
}

/* [Pool] ShrinkerNearLimit=no (the default): near the limit, stores are no
 * longer favoured and the knob goes back to the baseline, as a safety flip
 * (not held by MinDwellSec), and never above it. */
static void near_limit_only_ends_throughput_by_default(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.pool_shrinker = false;
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 25, true, 20);
        assert_int_equal(d.set, KNOB_OFF);
        d = step(&p, &s, 101, 50, true, 86); /* inside MinDwellSec */
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(d.reason, REASON_POOL_HIGH);
        assert_int_equal(d.held, HELD_NONE);
        /* still near the limit: nothing more to do */
        d = step(&p, &s, 102, 50, true, 90);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_false(d.mode_changed);
        /* room again under pressure, once MinDwellSec is over: favour stores */
        d = step(&p, &s, 112, 50, true, 60);
        d = step(&p, &s, 113, 50, true, 60);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_int_equal(s.knob, KNOB_OFF);

        /* the baseline off: a pool rising to its limit and past writes nothing */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        for (int t = 0; t < 8; t++) {
                d = step(&p, &s, 200 + t, 0, true, 40 + 9 * t);
                assert_int_equal(d.set, KNOB_UNSET);
                assert_int_equal(d.mode, MODE_IDLE);
        }
        assert_int_equal(s.n_flips, 0);
}

/* Protection that is on for the batch cgroups at their caps (rule (a2))
 * stays on when the pool then nears its limit, without ShrinkerNearLimit. */
static void near_limit_keeps_batch_full_protection(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.pool_shrinker = false;
        p.batch = true;
        p.batch_max = 50;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step_batch(&p, &s, 100, 40, 30, 1);
        assert_true(d.batch_cap > 0);
        for (int t = 1; t < 4 && d.mode != MODE_PROTECT; t++)
                d = step_batch(&p, &s, 100 + t, 60, d.batch_cap, 1);
        assert_int_equal(d.mode, MODE_PROTECT);
        assert_int_equal(d.reason, REASON_BATCH_FULL);
        assert_int_equal(s.knob, KNOB_ON);
        d = step_batch(&p, &s, 105, 90, s.batch_cap, 1);
        assert_int_equal(d.mode, MODE_PROTECT);
        assert_int_equal(s.knob, KNOB_ON);
}

static void pool_exactly_at_high_counts(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, false, 84.9);
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 200, 0, false, 85);
        assert_int_equal(d.set, KNOB_ON);
}

static void prediction_turns_on_early(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 20, true, 40);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        d = step(&p, &s, 101, 20, true, 44); /* +4 %/s: 56 % left = 14 s */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_true(d.time_to_limit > 10);
        d = step(&p, &s, 102, 20, true, 60); /* smoothed rate 10 %/s: 4 s left */
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_POOL_RISING);
        assert_float_equal(d.fill_rate, 10.0, 1e-9);
        assert_float_equal(d.time_to_limit, 4.0, 1e-9);
        assert_non_null(strstr(d.text, "full in 4.0 s"));
}

static void prediction_ignores_bursts_below_watch(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        /* a service filling its working set: fast, but far from the limit */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step(&p, &s, 100, 0, true, 5);
        d = step(&p, &s, 101, 0, true, 25);  /* 20 %/s: "full" in 3.75 s */
        assert_true(d.time_to_limit > 0 && d.time_to_limit < 10);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        /* and it still samples fast meanwhile */
        assert_true(d.next_usec < p.sample_usec);
}

static void no_throughput_while_heading_for_the_limit(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        /* a swap storm: pressure high throughout, pool low but climbing */
        policy_init(&s, KNOB_ON, KNOB_ON);
        step(&p, &s, 100, 0, false, 30);
        d = step(&p, &s, 101, 40, true, 34); /* 4 %/s: 16.5 s, inside twice the lead */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        d = step(&p, &s, 102, 40, true, 35); /* 2.5 %/s: 26 s: room enough */
        assert_int_equal(d.set, KNOB_OFF);
}

static void prediction_off_with_zero_lead(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.lead_usec = 0;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step(&p, &s, 100, 0, true, 10);
        d = step(&p, &s, 101, 0, true, 40);
        d = step(&p, &s, 102, 0, true, 70);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
}

static void sampling_speeds_up_near_the_limit(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.lead_usec = 0; /* look at the cadence alone */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step(&p, &s, 100, 5, true, 60);
        d = step(&p, &s, 101, 5, true, 70);   /* 10 %/s, 3 s left: a quarter of that */
        assert_float_equal(d.time_to_limit, 3.0, 1e-9);
        assert_int_equal(d.next_usec, S(0.75));
        d = step(&p, &s, 102, 5, true, 99.9);  /* rate ~20 %/s, 0.005 s left: floor */
        assert_int_equal(d.next_usec, p.min_sample_usec);
        d = step(&p, &s, 103, 5, true, 100);   /* at the limit: no prediction, normal rate */
        assert_true(d.time_to_limit < 0);
        assert_int_equal(d.next_usec, p.sample_usec);
}

static void calm_returns_to_baseline_after_hold(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 30, true, 10);
        assert_int_equal(d.set, KNOB_OFF);
        d = step(&p, &s, 101, 1, false, 10); /* calm from here */
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_int_equal(d.next_usec, p.sample_usec); /* keep watching during the hold */
        d = step(&p, &s, 130.9, 1, false, 10);
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 131, 1, false, 10);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(d.reason, REASON_CALM);
        assert_non_null(strstr(d.text, "below 2% for 30 s"));
        /* idle again: back to sleeping */
        assert_int_equal(d.next_usec, p.idle_check_usec);
}

/* Issue 48: with batch work known, the rules read the rest's pressure.
 * system: the max over every source (the batch's own stalls in it);
 * rest: the rest's, valid or not. */
static struct policy_decision whose(const struct policy_params *p, struct policy_state *s, double t, double system,
                                    bool rest_valid, double rest) {
        struct policy_sample in = { .now = S(t), .pressure_valid = true, .pressure = system, .stores = true,
                                    .pool = 10, .batch = 5, .n_batch = 1, .triggers_armed = true,
                                    .batch_known = true, .rest_valid = rest_valid, .rest_pressure = rest };
        struct policy_decision d;

        policy_decide(p, s, &in, &d);
        return d;
}

static void batch_stalls_are_not_the_rests_pressure(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true;
        p.batch_max = 50;
        policy_init(&s, KNOB_ON, KNOB_ON);
        /* the batch stalls 40 %, the rest not at all: no rule sees pressure
         * (rule 2 keeps the shrinker on), the pressure is calm, and an idle
         * daemon sleeps to its idle check */
        for (int t = 100; t <= 140; t++) {
                d = whose(&p, &s, t, 40, true, 0);
                assert_int_equal(d.set, KNOB_UNSET);
                assert_int_equal(d.mode, MODE_IDLE);
                assert_true(d.pressure_valid && d.rest);
                assert_true(d.pressure == 0);
        }
        assert_true(s.calm);
        assert_int_equal(d.next_usec, p.idle_check_usec);
        /* the rest stalls: off, and said as the rest's */
        d = whose(&p, &s, 141, 40, true, 30);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.reason, REASON_PRESSURE);
        assert_string_equal(d.text, "pressure of the rest 30.0% >= 10%, pool 10% of limit");
        /* calm is the rest's too: the batch still stalls 40 % */
        whose(&p, &s, 142, 40, true, 1);
        d = whose(&p, &s, 172, 40, true, 1);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_CALM);
        assert_string_equal(d.text, "pressure of the rest below 2% for 30 s");
        /* the rest not measured: no figure at all, never the system's */
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = whose(&p, &s, 200, 40, false, 0);
        assert_false(d.pressure_valid);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_false(s.calm);
        /* no batch work known: the system's figure, as ever */
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 300, 40, true, 10);
        assert_false(d.rest);
        assert_int_equal(d.set, KNOB_OFF);
        assert_string_equal(d.text, "pressure 40.0% >= 10%, pool 10% of limit");
}

static void calm_interrupted_restarts_hold(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.sample_usec = S(60); /* steps are samples, however far apart */
        policy_init(&s, KNOB_ON, KNOB_ON);
        step(&p, &s, 100, 30, true, 10);
        step(&p, &s, 101, 0, false, 10);
        step(&p, &s, 120, 5, false, 10); /* between low and high: not calm */
        d = step(&p, &s, 121, 0, false, 10);
        d = step(&p, &s, 140, 0, false, 10); /* 39 s after the first calm, 19 s after the second */
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 151, 0, false, 10);
        assert_int_equal(d.set, KNOB_ON);
}

static void invalid_pressure_is_ignored(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_sample in = { .now = S(100), .pressure_valid = false, .pressure = 50, .stores = true, .pool = 10 };
        struct policy_decision d;

        policy_init(&s, KNOB_ON, KNOB_ON);
        policy_decide(&p, &s, &in, &d);
        assert_int_equal(d.set, KNOB_UNSET);
        /* without a valid reading, look again soon rather than sleep */
        assert_int_equal(d.next_usec, p.sample_usec);
        assert_false(s.calm);
}

static void protect_holds_until_pool_low(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.min_dwell_usec = 0;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 30, true, 90);
        assert_int_equal(d.set, KNOB_ON);
        d = step(&p, &s, 200, 30, true, 80); /* between low and high: stay on (hysteresis) */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_PROTECT);
        d = step(&p, &s, 300, 30, true, 70);   /* low, but only just: wait one interval */
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 301, 30, true, 70);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
}

/* Rule (b2): with ReleasePercent set, protection ends once the pool has
 * stayed below it for an interval, whatever the pressure; without it, the
 * same samples keep the shrinker on (pressure between LowPercent and
 * HighPercent is neither rule (b) nor calm). */
static void settled_pool_releases_protection(void **state) {
        for (int release = 0; release <= 1; release++) {
                struct policy_params p = params();
                struct policy_state s;
                struct policy_decision d;

                p.min_dwell_usec = 0;
                p.pool_release = release ? 80 : 0;
                policy_init(&s, KNOB_OFF, KNOB_OFF);
                d = step(&p, &s, 100, 5, true, 90);
                assert_int_equal(d.set, KNOB_ON);
                d = step(&p, &s, 101, 5, true, 84); /* below HighPercent, above ReleasePercent */
                assert_int_equal(d.set, KNOB_UNSET);
                d = step(&p, &s, 102, 5, true, 79); /* below, but only just: wait one interval */
                assert_int_equal(d.set, KNOB_UNSET);
                assert_int_equal(d.mode, MODE_PROTECT);
                d = step(&p, &s, 103, 5, true, 78);
                if (release) {
                        assert_int_equal(d.set, KNOB_OFF);
                        assert_int_equal(d.mode, MODE_IDLE);
                        assert_int_equal(d.reason, REASON_POOL_SETTLED);
                        assert_string_equal(policy_reason_to_string(d.reason), "pool-settled");
                        assert_non_null(strstr(d.text, "below 80%"));
                } else {
                        assert_int_equal(d.set, KNOB_UNSET);
                        assert_int_equal(d.mode, MODE_PROTECT);
                }
        }
}

/* ... but not while the pool is heading for its limit, and a pool that
 * starts filling again after the release is protected again at once. */
static void settled_pool_still_rising_is_not_released(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.min_dwell_usec = 0;
        p.pool_release = 80;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 5, true, 90);
        assert_int_equal(d.set, KNOB_ON);
        d = step(&p, &s, 101, 5, true, 60); /* the pool's owner let go of most of it */
        d = step(&p, &s, 102, 5, true, 60);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.reason, REASON_POOL_SETTLED);
        for (int t = 103; t < 108; t++) /* steady: the fill rate settles at 0 */
                assert_int_equal(step(&p, &s, t, 5, true, 60).set, KNOB_UNSET);
        /* filling again at 6%/s: predicted full within LeadSec at 72% */
        d = step(&p, &s, 108, 5, true, 66);
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 109, 5, true, 72);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_POOL_RISING);
        /* still rising below ReleasePercent: held on */
        d = step(&p, &s, 110, 5, true, 78);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_PROTECT);
}

static void dwell_holds_back_and_logs_once(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.sample_usec = S(60); /* steps are samples, however far apart */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
        step(&p, &s, 104, 0, false, 40);
        d = step(&p, &s, 105, 30, true, 40); /* wants OFF 5 s after a flip */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.held, HELD_DWELL);
        assert_true(d.held_changed);
        assert_int_equal(d.mode, MODE_PROTECT);
        d = step(&p, &s, 106, 30, true, 40);
        assert_int_equal(d.held, HELD_DWELL);
        assert_false(d.held_changed); /* said once */
        d = step(&p, &s, 110, 30, true, 40);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.held, HELD_NONE);
        assert_true(d.held_changed);
}

static void cap_limits_flips_per_minute(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.min_dwell_usec = 0;
        p.max_per_minute = 2;
        p.hold_usec = 0;
        p.sample_usec = S(60); /* steps are samples, however far apart */
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 30, true, 10);
        assert_int_equal(d.set, KNOB_OFF);
        d = step(&p, &s, 101, 0, false, 10);
        assert_int_equal(d.set, KNOB_ON);
        d = step(&p, &s, 102, 30, true, 10);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.held, HELD_CAP);
        /* a minute after the first flip one slot is free, but a flip off
         * must leave room for the safety flip back on */
        d = step(&p, &s, 160, 30, true, 10);
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 161.5, 30, true, 10);
        assert_int_equal(d.set, KNOB_OFF);
}

static void safety_is_never_held(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.max_per_minute = 2; /* room for one flip off and the safety flip back */
        policy_init(&s, KNOB_ON, KNOB_ON);
        d = step(&p, &s, 100, 30, true, 10);
        assert_int_equal(d.set, KNOB_OFF);
        d = step(&p, &s, 101, 30, true, 95); /* cap reached and inside dwell */
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.held, HELD_NONE);
}

/* A failed write: the knob is what it is; the next sample tries again, and
 * that is no flip (it used to count each retry against Flips.MaxPerMinute). */
/* Flips.MaxPerMinute is never exceeded, safety flips included: on, off,
 * on, ... with the pool rising past WatchPercent each time (the soak's
 * pattern) stays at the cap. */
static void cap_counts_safety_flips_too(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        uint64_t times[64];
        unsigned n = 0;

        p.min_dwell_usec = 0;
        p.max_per_minute = 6;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        for (double t = 100; t < 400; t += 0.5) {
                /* 3 s of a pool filling fast (safety: on), 3 s of pressure
                 * with the pool low (off), and so on */
                bool filling = (int) ((t - 100) / 3) % 2 == 0;
                d = step(&p, &s, t, 30, true, filling ? 95 : 20);
                if (d.set != KNOB_UNSET && d.reason != REASON_RETRY)
                        times[n++ % 64] = (uint64_t) (t * 1000);
        }
        assert_true(n > 12);
        for (unsigned i = 0; i < n && i < 64; i++) {
                unsigned in = 0;
                for (unsigned j = 0; j < n && j < 64; j++)
                        in += times[j] >= times[i] && times[j] < times[i] + 60000;
                assert_true(in <= 6);
        }
}

static void failed_write_is_retried_not_counted(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(s.n_flips, 1);
        for (int t = 101; t < 200; t++) {
                policy_sync_knob(&s, KNOB_OFF); /* the write failed */
                d = step(&p, &s, t, 0, false, 90);
                assert_int_equal(d.set, KNOB_ON);
                assert_int_equal(d.held, HELD_NONE);
        }
        assert_int_equal(s.n_flips, 1);
        /* calm and the pool low: back to the baseline; a failed write of
         * that is retried too, not held by Flips.MaxPerMinute (a new flip
         * off would be: 1 + 2 > 2) */
        p.max_per_minute = 2;
        d = step(&p, &s, 300, 0, false, 20);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.reason, REASON_CALM);
        policy_sync_knob(&s, KNOB_ON);
        d = step(&p, &s, 301, 0, false, 20);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.reason, REASON_RETRY);
        assert_int_equal(s.n_flips, 2);
}

/* Flips.MaxPerMinute above the old 64-entry history was no cap at all. */
static void cap_holds_above_64_per_minute(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        unsigned flips[601] = { 0 }, n = 0;

        p.min_dwell_usec = 0;
        p.hold_usec = 0;
        p.max_per_minute = 100;
        p.sample_usec = S(0.1);
        policy_init(&s, KNOB_ON, KNOB_ON);
        for (int i = 0; i < 1800; i++) { /* 3 minutes of pressure on and off every 100 ms */
                d = step(&p, &s, 100 + i * 0.1, i % 2 ? 0 : 30, i % 2 == 0, 10);
                if (d.set != KNOB_UNSET)
                        flips[n++ % 601] = (unsigned) i;
        }
        assert_true(n >= 200);
        /* no 60 s window (600 samples) holds more than 100 */
        for (unsigned a = 0; a < n && a < 601; a++) {
                unsigned in = 0;
                for (unsigned b = 0; b < n && b < 601; b++)
                        in += flips[b] >= flips[a] && flips[b] < flips[a] + 600;
                assert_true(in <= 100);
        }
}

/* Leaving protection for idle respects the pool band: with Baseline=off the
 * shrinker went off at 84% and on again at 85% (8 flips in 129 s). */
static void calm_leaves_protection_only_below_low(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        unsigned flips = 0;

        p.hold_usec = S(5);
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        for (int t = 0; t < 129; t++) {
                d = step(&p, &s, 100 + t, 0, false, t % 4 < 2 ? 84 : 86);
                flips += d.set != KNOB_UNSET;
        }
        assert_int_equal(flips, 1);
        assert_int_equal(s.mode, MODE_PROTECT);
        /* down to LowPercent: back to the baseline after the hold */
        d = step(&p, &s, 229, 0, false, 60);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(d.mode, MODE_IDLE);
}

/* The cap in bytes is computed only when there is a cap (it used to convert
 * -1 % of the limit to an unsigned byte count: undefined behaviour). */
static void cap_bytes_whole_pages_or_none(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;
        struct policy_sample in = { .now = S(100), .pressure_valid = true, .pool = 10,
                                    .limit_bytes = 1000 * 4096 + 123, .n_batch = 1, .batch = 0 };

        policy_init(&s, KNOB_ON, KNOB_ON);
        policy_decide(&p, &s, &in, &d);
        assert_true(d.batch_cap < 0);
        assert_int_equal(d.cap_bytes, 0);
        p.batch = true;
        p.batch_max = 50;
        in.now = S(101);
        policy_decide(&p, &s, &in, &d);
        assert_float_equal(d.batch_cap, 50, 0);
        assert_int_equal(d.cap_bytes, 500 * 4096);
        assert_true(policy_cap_needs_write(false, 0, 0));
        assert_false(policy_cap_needs_write(true, 100000, 100999));
        assert_true(policy_cap_needs_write(true, 100000, 101001));
        assert_true(policy_cap_needs_write(true, 0, 4096));
}

/* A cap never loosens a limit already set (issue 48): at most the
 * cgroup's memory.zswap.max from before the daemon wrote it. */
static void cap_never_above_the_limit_from_before(void **state) {
        assert_int_equal(policy_cap_within(102400000, UINT64_MAX), 102400000); /* "max": no limit */
        assert_int_equal(policy_cap_within(102400000, 0), 0);                  /* "0" stays 0 */
        assert_int_equal(policy_cap_within(102400000, 4096000), 4096000);
        assert_int_equal(policy_cap_within(2048000, 4096000), 2048000);        /* below it: the cap */
        assert_int_equal(policy_cap_within(4096000, 4096000), 4096000);
        assert_int_equal(policy_cap_within(0, 4096000), 0);
}

static void prediction_lets_go_only_well_clear(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.min_dwell_usec = 0;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step(&p, &s, 100, 30, true, 30);
        step(&p, &s, 101, 30, true, 33);      /* 3 %/s */
        d = step(&p, &s, 102, 30, true, 40);  /* smoothed 5 %/s: 12 s left */
        assert_int_equal(d.set, KNOB_UNSET);
        d = step(&p, &s, 103, 30, true, 50);  /* 7.5 %/s: 6.7 s */
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_POOL_RISING);
        /* the rate eases to just over the lead time: still protecting (no flip-flop) */
        d = step(&p, &s, 104, 30, true, 52);  /* 4.75 %/s: 10.1 s */
        assert_true(d.time_to_limit > 10 && d.time_to_limit < 20);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_PROTECT);
        /* well clear of twice the lead time: off */
        d = step(&p, &s, 105, 30, true, 52);  /* 2.4 %/s: 20.2 s */
        assert_true(d.time_to_limit > 20);
        assert_int_equal(d.set, KNOB_OFF);
}

static void collapse_of_the_pool_is_no_reason_to_flip(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.min_dwell_usec = 0;
        p.lead_usec = 0;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 30, true, 90);
        assert_int_equal(d.set, KNOB_ON);
        /* the hog exits: its pages are freed, the pool falls from 90 % to 50 %
         * within one interval whose pressure still reads high */
        d = step(&p, &s, 101, 25, true, 50);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_PROTECT);
        /* a second low sample with pressure still high: now off */
        d = step(&p, &s, 102, 25, true, 50);
        assert_int_equal(d.set, KNOB_OFF);
}

static void outside_change_adopted_only_while_idle(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        /* Baseline=on|off: the baseline is fixed, the admin's value stands for the back-off */
        assert_int_equal(policy_knob_changed_outside(&p, &s, KNOB_ON, false, S(10)), OUTSIDE_BACKED_OFF);
        assert_int_equal(s.baseline, KNOB_OFF);
        policy_resume(&s);
        assert_int_equal(policy_knob_changed_outside(&p, &s, KNOB_ON, true, S(20)), OUTSIDE_FOLLOWED);
        assert_int_equal(s.baseline, KNOB_ON);
        d = step(&p, &s, 100, 0, false, 90);  /* protect: already on, no flip */
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_PROTECT);
        /* not idle: not adopted as the baseline, and the knob is theirs */
        assert_int_equal(policy_knob_changed_outside(&p, &s, KNOB_OFF, true, S(100)), OUTSIDE_BACKED_OFF);
        assert_int_equal(s.baseline, KNOB_ON);
        d = step(&p, &s, 101, 0, false, 90);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_true(d.backed_off);
        /* until a reload (AdminBackOffSec=infinity, the default here) */
        d = step(&p, &s, 5000, 0, false, 90);
        assert_int_equal(d.set, KNOB_UNSET);
        policy_resume(&s);
        d = step(&p, &s, 5001, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_RETRY); /* still protecting: set again, no new flip */
}

/* A limited back-off ends by itself; 0 does not back off at all. */
static void outside_change_backoff_times_out(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.backoff_usec = S(30);
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(policy_knob_changed_outside(&p, &s, KNOB_OFF, true, S(101)), OUTSIDE_BACKED_OFF);
        for (int t = 102; t < 131; t++) {
                d = step(&p, &s, t, 0, false, 90);
                assert_int_equal(d.set, KNOB_UNSET);
        }
        d = step(&p, &s, 131, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
        assert_false(d.backed_off);
        /* the mode kept following the samples meanwhile: none of this counted as a flip */
        assert_int_equal(s.n_flips, 1);

        p.backoff_usec = 0;
        assert_int_equal(policy_knob_changed_outside(&p, &s, KNOB_OFF, true, S(140)), OUTSIDE_BACKED_OFF);
        d = step(&p, &s, 141, 0, false, 90);
        assert_int_equal(d.set, KNOB_ON);
}

static void no_knob_never_flips(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        /* monitor only: no knob, no baseline; modes still change for STATUS */
        policy_init(&s, KNOB_UNSET, KNOB_UNSET);
        d = step(&p, &s, 100, 0, false, 95);
        assert_int_equal(d.mode, MODE_PROTECT);
        assert_int_equal(d.set, KNOB_UNSET);
        step(&p, &s, 100.5, 0, false, 10);
        d = step(&p, &s, 101, 30, true, 10); /* inside any dwell: nothing to hold */
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.held, HELD_NONE);
        assert_int_equal(s.n_flips, 0);
}

/* The batch cgroup fills the pool: 20 % of the limit is someone else's,
 * the batch cgroup grows 10 %/s. */
static void capped_batch_is_no_reason_to_protect(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        /* not a batch cgroup: the same trace is predicted full and protected against */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_batch(&p, &s, 100, 50, 30, 0);
        d = step_batch(&p, &s, 101, 60, 40, 0);
        assert_true(d.batch_cap < 0);
        assert_int_equal(d.reason, REASON_POOL_RISING);
        assert_int_equal(d.set, KNOB_ON);

        /* a batch cgroup, capped at what the rest leaves below 77.5 %
         * (half way between LowPercent and HighPercent): it can add 57.5 %
         * at most, the rest is flat, so the pool levels off at 77.5 % */
        p.batch = true, p.batch_max = 60;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step_batch(&p, &s, 100, 50, 30, 1);
        assert_float_equal(d.batch_cap, 57.5, 1e-9);
        d = step_batch(&p, &s, 101, 60, 40, 1);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_float_equal(d.level, 77.5, 1e-9);
        assert_float_equal(d.fill_rate, 0, 1e-9);
        assert_true(d.time_to_limit < 0);
        d = step_batch(&p, &s, 102, 70, 50, 1);
        assert_int_equal(d.set, KNOB_UNSET);

        /* the batch cgroup stays where it is */
        for (int t = 103; t <= 105; t++)
                d = step_batch(&p, &s, t, 70, 50, 1);
        assert_int_equal(d.mode, MODE_IDLE);

        /* ... but the rest growing still counts: +5 %/s, smoothed 2.5 %/s;
         * with the cap in force (57.5 %) 25 + 57.5 = 82.5 %, which leaves
         * 17.5 % = 7 s, within the lead; protecting, the cap shrinks to
         * what the rest leaves below LowPercent */
        d = step_batch(&p, &s, 106, 75, 50, 1);
        assert_float_equal(d.fill_rate, 2.5, 1e-9);
        assert_float_equal(d.level, 82.5, 1e-9);
        assert_float_equal(d.time_to_limit, 7, 1e-9);
        assert_int_equal(d.reason, REASON_POOL_RISING);
        assert_non_null(strstr(d.text, "pool at 82% of limit with batch cgroups at their caps and rising 2.5%/s"));
        assert_int_equal(d.set, KNOB_ON);
        assert_float_equal(d.batch_cap, 45, 1e-9);
}

/* A batch cgroup that stored more before it was capped can only shrink:
 * the prediction counts what it has, and follows the rest. */
static void batch_over_its_cap_counts_as_it_is(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 60;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step_batch(&p, &s, 100, 90, 80, 1);
        assert_float_equal(d.batch_cap, 60, 1e-9);
        assert_float_equal(d.level, 90, 1e-9);
        assert_int_equal(d.reason, REASON_POOL_HIGH);
}

/* Measured in the benchmark guest: while a batch job fills its cap, the rest
 * of the pool creeps up with it (the allocator's overhead on its entries);
 * when it exits, its entries stop being charged to it before the pool lets
 * go of them. Neither is the rest of the pool filling up. */
static void batch_artefacts_are_no_fill_rate(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 60;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_batch(&p, &s, 100, 55, 30, 1);
        /* the batch cgroup +10 %/s, the rest +2 %/s with it */
        d = step_batch(&p, &s, 101, 67, 40, 1);
        d = step_batch(&p, &s, 102, 79, 50, 1);
        assert_true(d.time_to_limit < 0);
        /* (at its cap of 50.5 %: protecting for that, not for a fill rate) */
        assert_int_equal(d.reason, REASON_BATCH_FULL);

        /* the batch job exits: its 50 % leave its cgroup at once, the pool
         * only later; the rest seems to jump from 29 % to 59 % */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        for (int t = 100; t <= 103; t++)
                step_batch(&p, &s, t, 79, 50, 1);
        d = step_batch(&p, &s, 104, 59, 0, 1);
        assert_true(d.time_to_limit < 0);
        d = step_batch(&p, &s, 105, 59, 0, 1);
        assert_true(d.time_to_limit < 0);
        assert_int_equal(d.reason, REASON_NONE);
        assert_int_equal(d.set, KNOB_UNSET);
        assert_int_equal(s.n_flips, 1); /* the one for the batch at its cap */
}

/* A batch cgroup at its cap keeps the pool below HighPercent, so the pool
 * rules never turn the shrinker on; its stores write its own entries back
 * one by one instead. The benchmark's configured daemon lost to static Y
 * that way (docs/benchmarks.md). */
static void batch_at_its_cap_turns_the_shrinker_on(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 70;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        /* the rest at 10 %: cap 67.5 %; the batch cgroup climbs to it */
        d = step_full(&p, &s, 100, 0, true, 30, 20);
        assert_float_equal(d.batch_cap, 67.5, 1e-9);
        d = step_full(&p, &s, 101, 0, true, 60, 50);
        assert_int_equal(d.mode, MODE_IDLE);
        /* within a step of its cap, but not storing: nothing to make room for */
        d = step_full(&p, &s, 102, 0, false, 76, 66);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(d.set, KNOB_UNSET);
        d = step_full(&p, &s, 103, 0, true, 76, 66);
        assert_int_equal(d.mode, MODE_PROTECT);
        assert_int_equal(d.reason, REASON_BATCH_FULL);
        assert_int_equal(d.set, KNOB_ON);
        assert_false(d.time_to_limit >= 0); /* no pool rule would have */
        assert_string_equal(d.text, "batch cgroups storing at their caps (66% of the pool limit), pool 76%");
        assert_string_equal(policy_reason_to_string(d.reason), "batch-full");
        /* protecting: the cap is the room below LowPercent now */
        assert_float_equal(d.batch_cap, 60, 1e-9);

        /* a small cap below WatchPercent: the pool has room, leave the knob */
        p.batch_max = 10;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step_full(&p, &s, 100, 0, true, 15, 10);
        d = step_full(&p, &s, 101, 0, true, 15, 10);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(d.set, KNOB_UNSET);

        /* not a flip for the pool's safety: the dwell holds it back */
        p.batch_max = 70;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 0, true, 86);
        assert_int_equal(d.set, KNOB_ON);
        for (int t = 101; t <= 131; t++)
                d = step_full(&p, &s, t, 0, true, 10, 0);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(s.n_flips, 2);
        d = step_full(&p, &s, 132, 0, true, 75, 65);
        d = step_full(&p, &s, 133, 0, true, 76, 66);
        assert_int_equal(d.held, HELD_DWELL);
        assert_int_equal(d.held_mode, MODE_PROTECT);
        d = step_full(&p, &s, 141.5, 0, true, 76, 66);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_BATCH_FULL);
}

/* ShrinkerAtCap=no: a batch cgroup at its cap is left to its cap; the pool
 * rules still turn the shrinker on when the pool itself nears its limit. */
static void batch_at_its_cap_without_shrinker_at_cap(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 70, p.batch_shrinker_at_cap = false;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_full(&p, &s, 100, 0, true, 60, 50);
        for (int t = 101; t <= 140; t++) {
                d = step_full(&p, &s, t, 0, true, 76, 66);
                assert_int_equal(d.mode, MODE_IDLE);
                assert_int_equal(d.set, KNOB_UNSET);
        }
        assert_int_equal(s.n_flips, 0);
        d = step_full(&p, &s, 141, 0, true, 86, 66);
        assert_int_equal(d.set, KNOB_ON);
        assert_int_equal(d.reason, REASON_POOL_HIGH);
}

/* While the batch cgroups are at their caps, neither pressure nor calm
 * turns the shrinker off; once they are off them, calm does. */
static void batch_at_its_cap_holds_protection(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 70;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_full(&p, &s, 100, 0, true, 60, 50);
        d = step_full(&p, &s, 101, 0, true, 70, 66);
        assert_int_equal(d.reason, REASON_BATCH_FULL);
        /* 70 - the rest's 4 % is within a step of 67.5 %: the cap stays */
        assert_float_equal(d.batch_cap, 67.5, 1e-9);
        /* pressure with stores, the pool at LowPercent: room by the pool
         * rules, none for the batch */
        for (int t = 102; t <= 120; t++) {
                d = step_full(&p, &s, t, 40, true, 70, 66.5);
                assert_int_equal(d.mode, MODE_PROTECT);
                assert_int_equal(d.set, KNOB_UNSET);
        }
        /* calm for longer than HoldSec: still at its cap */
        for (int t = 121; t <= 160; t++) {
                d = step_full(&p, &s, t, 0, true, 70, 66.5);
                assert_int_equal(d.mode, MODE_PROTECT);
        }
        /* the shrinker takes the batch cgroup off its cap while the job runs
         * on: protected down to half its cap, pressure or not (letting go
         * at once flipped the knob every MinDwellSec in the benchmark) */
        for (int t = 161; t <= 170; t++) {
                d = step_full(&p, &s, t, 40, true, 50 - (t - 161), 45 - (t - 161));
                assert_int_equal(d.mode, MODE_PROTECT);
                assert_int_equal(d.set, KNOB_UNSET);
        }
        /* the job exits: off its cap, and once calm has been held, back to
         * the baseline */
        for (int t = 171; t < 201; t++) {
                d = step_full(&p, &s, t, 0, true, 10, 0);
                assert_int_equal(d.mode, MODE_PROTECT);
        }
        d = step_full(&p, &s, 201, 0, true, 10, 0);
        assert_int_equal(d.mode, MODE_IDLE);
        assert_int_equal(d.reason, REASON_CALM);
        assert_int_equal(d.set, KNOB_OFF);
        assert_int_equal(s.n_flips, 2);
}

static void batch_cap_follows_the_room(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        p.batch = true, p.batch_max = 70;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        /* the rest of the pool small: ZswapMaxPercent */
        d = step_batch(&p, &s, 100, 5, 0, 1);
        assert_float_equal(d.batch_cap, 70, 1e-9);
        assert_string_equal(d.cap_text, "ZswapMaxPercent");
        /* the rest at 30 %: what it leaves below 77.5 % */
        d = step_batch(&p, &s, 200, 30, 0, 1);
        assert_float_equal(d.batch_cap, 47.5, 1e-9);
        assert_string_equal(d.cap_text, "what the rest of the pool (30%) leaves below 77.5%");
        /* small moves of the rest: the cap stays */
        d = step_batch(&p, &s, 300, 31.5, 0, 1);
        assert_float_equal(d.batch_cap, 47.5, 1e-9);
        d = step_batch(&p, &s, 400, 32, 0, 1);
        assert_float_equal(d.batch_cap, 45.5, 1e-9);
        /* two batch cgroups share the room */
        d = step_batch(&p, &s, 500, 37.5, 20, 2);
        assert_float_equal(d.batch_cap, 30, 1e-9);
        assert_non_null(strstr(d.cap_text, ", shared"));
        /* none there at the moment: keep what we had */
        d = step_batch(&p, &s, 600, 17.5, 0, 0);
        assert_float_equal(d.batch_cap, 30, 1e-9);
        /* the rest alone above the target: nothing for batch work */
        d = step_batch(&p, &s, 700, 80, 0, 1);
        assert_float_equal(d.batch_cap, 0, 1e-9);
        /* ZswapMaxPercent=0: batch work stays out of zswap */
        p.batch_max = 0;
        d = step_batch(&p, &s, 800, 10, 0, 1);
        assert_float_equal(d.batch_cap, 0, 1e-9);
        assert_string_equal(d.cap_text, "ZswapMaxPercent");
        p.batch_max = 70;
        /* not idle: the room below LowPercent only */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        d = step(&p, &s, 100, 30, true, 20);
        assert_int_equal(d.mode, MODE_THROUGHPUT);
        assert_true(d.batch_cap < 0); /* no n_batch in this sample */
        d = step_batch(&p, &s, 101, 20, 0, 1);
        assert_float_equal(d.batch_cap, 50, 1e-9);
        assert_string_equal(d.cap_text, "what the rest of the pool (20%) leaves below 70%");
}

static void batch_filling_is_watched(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d;

        /* the batch cgroup grows 10 %/s towards its cap: the prediction
         * leaves that out, but the pool is looked at again soon */
        p.batch = true, p.batch_max = 60;
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_batch(&p, &s, 100, 20, 10, 1);
        d = step_batch(&p, &s, 101, 30, 20, 1);
        assert_true(d.time_to_limit < 0);
        assert_false(d.idle);
        assert_true(d.next_usec <= p.sample_usec);
        /* the same without the batch growing: idle */
        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step_batch(&p, &s, 100, 20, 10, 1);
        d = step_batch(&p, &s, 101, 20, 10, 1);
        assert_true(d.idle);
}

/* Sampling fast, the pool wobbles by 1 % between samples: no fill rate
 * worth acting on (smoothed per sample, it read as 5 %/s and "full in 8 s"). */
static void wobble_at_the_fast_rate_is_no_fill_rate(void **state) {
        struct policy_params p = params();
        struct policy_state s;
        struct policy_decision d = { 0 };

        policy_init(&s, KNOB_OFF, KNOB_OFF);
        step(&p, &s, 98, 0, true, 60);
        step(&p, &s, 99, 0, true, 60); /* steady, sampled once a second */
        for (int i = 0; i < 20; i++) {
                d = step(&p, &s, 100 + 0.1 * i, 0, true, i % 2 ? 61 : 60);
                assert_int_equal(d.mode, MODE_IDLE);
        }
        assert_true(d.fill_rate < 1);
        /* ... while a real rise at that rate still shows within a second */
        for (int i = 0; i < 10; i++)
                d = step(&p, &s, 102 + 0.1 * i, 0, true, 61 + i);
        assert_true(d.fill_rate > 5);
        assert_int_equal(d.reason, REASON_POOL_RISING);
}

/* [Pressure] ProtectWriteback=: protect at HighPercent, release after HoldSec
 * below LowPercent, nothing between the marks, one change per MinDwellSec. */
static void protect_hysteresis(void **state) {
        struct policy_params p = params();
        struct policy_protect s = { 0 };

        assert_int_equal(policy_protect_decide(&p, &s, true, 9.9, S(0)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 10, S(1)), PROTECT_ON);
        assert_true(s.protecting);
        assert_int_equal(policy_protect_decide(&p, &s, true, 50, S(2)), PROTECT_KEEP);
        /* between the marks: held, and no calm counted */
        assert_int_equal(policy_protect_decide(&p, &s, true, 5, S(3)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 5, S(100)), PROTECT_KEEP);
        /* no figure: nothing changes */
        assert_int_equal(policy_protect_decide(&p, &s, false, 0, S(101)), PROTECT_KEEP);
        /* calm from 102: released after HoldSec (30 s) */
        assert_int_equal(policy_protect_decide(&p, &s, true, 1, S(102)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 1, S(131)), PROTECT_KEEP);
        /* a stall restarts the calm */
        assert_int_equal(policy_protect_decide(&p, &s, true, 3, S(131.5)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 1, S(132)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 1, S(161.9)), PROTECT_KEEP);
        assert_true(s.protecting);
        assert_int_equal(policy_protect_decide(&p, &s, true, 1, S(162)), PROTECT_OFF);
        assert_false(s.protecting);
        assert_int_equal(policy_protect_decide(&p, &s, true, 0, S(163)), PROTECT_KEEP);
}

static void protect_flip_limits(void **state) {
        struct policy_params p = params();
        struct policy_protect s = { 0 };

        p.hold_usec = 0; /* only MinDwellSec (10 s) limits it */
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(0)), PROTECT_ON);
        /* calm at once, but not released before MinDwellSec */
        assert_int_equal(policy_protect_decide(&p, &s, true, 0, S(1)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 0, S(9.9)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 0, S(10)), PROTECT_OFF);
        /* a stall right after: protected again only MinDwellSec after the release */
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(11)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(19.9)), PROTECT_KEEP);
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(20)), PROTECT_ON);
        /* so a pressure that swings every sample changes it at most once per MinDwellSec */
        unsigned changes = 0;
        for (int t = 21; t < 81; t++)
                changes += policy_protect_decide(&p, &s, true, t % 2 ? 0 : 20, S(t)) != PROTECT_KEEP;
        assert_true(changes <= 6);
        /* the caller could not carry it out (the admin's 0, a failed save): it is what it is */
        s = (struct policy_protect) { 0 };
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(100)), PROTECT_ON);
        policy_protect_sync(&s, false);
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(105)), PROTECT_KEEP); /* within the dwell */
        assert_int_equal(policy_protect_decide(&p, &s, true, 20, S(110)), PROTECT_ON);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(cap_never_above_the_limit_from_before),
                cmocka_unit_test(reasons_keep_their_numbers),
                cmocka_unit_test(batch_stalls_are_not_the_rests_pressure),
                cmocka_unit_test(start_goes_to_the_baseline),
                cmocka_unit_test(newcomer_gets_its_share),
                cmocka_unit_test(division_by_what_each_holds),
                cmocka_unit_test(forty_empty_cgroups_keep_batch_slice_cap),
                cmocka_unit_test(idle_without_triggers_polls),
                cmocka_unit_test(caps_are_whole_pages),
                cmocka_unit_test(idle_stays_idle),
                cmocka_unit_test(pressure_with_stores_turns_off),
                cmocka_unit_test(pressure_needs_stores_and_room),
                cmocka_unit_test(already_at_target_changes_mode_without_flip),
                cmocka_unit_test(pool_high_turns_on_at_once_and_wins),
                cmocka_unit_test(near_limit_only_ends_throughput_by_default),
                cmocka_unit_test(near_limit_keeps_batch_full_protection),
                cmocka_unit_test(pool_exactly_at_high_counts),
                cmocka_unit_test(prediction_turns_on_early),
                cmocka_unit_test(prediction_ignores_bursts_below_watch),
                cmocka_unit_test(no_throughput_while_heading_for_the_limit),
                cmocka_unit_test(prediction_off_with_zero_lead),
                cmocka_unit_test(sampling_speeds_up_near_the_limit),
                cmocka_unit_test(calm_returns_to_baseline_after_hold),
                cmocka_unit_test(calm_interrupted_restarts_hold),
                cmocka_unit_test(invalid_pressure_is_ignored),
                cmocka_unit_test(protect_holds_until_pool_low),
                cmocka_unit_test(settled_pool_releases_protection),
                cmocka_unit_test(settled_pool_still_rising_is_not_released),
                cmocka_unit_test(dwell_holds_back_and_logs_once),
                cmocka_unit_test(cap_limits_flips_per_minute),
                cmocka_unit_test(safety_is_never_held),
                cmocka_unit_test(cap_counts_safety_flips_too),
                cmocka_unit_test(failed_write_is_retried_not_counted),
                cmocka_unit_test(cap_holds_above_64_per_minute),
                cmocka_unit_test(calm_leaves_protection_only_below_low),
                cmocka_unit_test(cap_bytes_whole_pages_or_none),
                cmocka_unit_test(no_knob_never_flips),
                cmocka_unit_test(outside_change_adopted_only_while_idle),
                cmocka_unit_test(outside_change_backoff_times_out),
                cmocka_unit_test(prediction_lets_go_only_well_clear),
                cmocka_unit_test(collapse_of_the_pool_is_no_reason_to_flip),
                cmocka_unit_test(capped_batch_is_no_reason_to_protect),
                cmocka_unit_test(batch_over_its_cap_counts_as_it_is),
                cmocka_unit_test(batch_artefacts_are_no_fill_rate),
                cmocka_unit_test(batch_at_its_cap_turns_the_shrinker_on),
                cmocka_unit_test(batch_at_its_cap_holds_protection),
                cmocka_unit_test(batch_at_its_cap_without_shrinker_at_cap),
                cmocka_unit_test(batch_cap_follows_the_room),
                cmocka_unit_test(batch_filling_is_watched),
                cmocka_unit_test(wobble_at_the_fast_rate_is_no_fill_rate),
                cmocka_unit_test(protect_hysteresis),
                cmocka_unit_test(protect_flip_limits),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
