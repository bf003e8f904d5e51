/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The decision logic: pure, no I/O, no clocks. The manager feeds it one
 * sample at a time and carries out what it returns. */

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h" /* knob_value */

typedef enum {
        MODE_IDLE,       /* knob at baseline */
        MODE_THROUGHPUT, /* knob off: favour store throughput under pressure */
        MODE_PROTECT,    /* knob on: keep the pool from reaching its limit */
} policy_mode;

/* The numbers are part of the recording format (record.h): never renumber
 * one (tests/test-policy.c holds them); a new reason takes the next. */
typedef enum {
        REASON_NONE = 0,         /* at start */
        REASON_POOL_HIGH = 1,    /* pool at or above Pool.HighPercent */
        REASON_POOL_RISING = 2,  /* pool predicted to hit its limit within the lead time */
        REASON_PRESSURE = 3,     /* pressure high, stores happening, pool has room */
        REASON_CALM = 4,         /* pressure low for the hold time */
        REASON_BLIND = 5,        /* the pool could not be read for POLICY_BLIND_GRACE_USEC */
        REASON_DISABLED = 6,     /* zswap is disabled: nothing to steer */
        REASON_RETRY = 7,        /* the knob is not what the mode wants (a failed write, a back-off
                                  * that ended): set it again; not a flip */
        REASON_BATCH_FULL = 8,   /* the batch cgroups are storing at their caps */
        REASON_POOL_SETTLED = 9, /* protecting, and the pool has settled below Pool.ReleasePercent */
} policy_reason;
#define POLICY_REASONS (REASON_POOL_SETTLED + 1)

/* What the manager could read of the pool this sample. */
typedef enum { POOL_OK, POOL_UNREADABLE, POOL_DISABLED } policy_pool_state;

/* How long the pool may stay unreadable before everything goes back to the
 * baseline: deciding on a made-up pool would be worse than not deciding, but
 * leaving the knob off (favouring stores) at a pool we cannot see is the very
 * failure the daemon exists to prevent. */
#define POLICY_BLIND_GRACE_USEC (10 * UINT64_C(1000000))
/* max_per_minute can be at most this (the flip history holds it). */
#define POLICY_FLIP_HISTORY 600
/* Backing off from an admin's write for ever (until policy_resume()). */
#define POLICY_BACKOFF_FOREVER UINT64_MAX

typedef enum { HELD_NONE, HELD_DWELL, HELD_CAP } policy_held;

/* What the knob goes back to when calm ([Daemon] Baseline=). */
typedef enum { POLICY_BASELINE_STARTUP, POLICY_BASELINE_ON, POLICY_BASELINE_OFF } policy_baseline;

struct policy_params {
        double pressure_high, pressure_low; /* percent */
        uint64_t hold_usec;
        bool pool_shrinker;     /* [Pool] ShrinkerNearLimit: near its limit, protect the pool
                                 * (shrinker on); else only stop favouring stores */
        double pool_high, pool_low, pool_watch; /* percent of the pool limit */
        double pool_release;    /* [Pool] ReleasePercent: rule (b2); 0 = off */
        uint64_t sample_usec, min_sample_usec, lead_usec, idle_check_usec;
        uint64_t min_dwell_usec;
        unsigned max_per_minute; /* 0 = no cap; at most POLICY_FLIP_HISTORY */
        uint64_t backoff_usec;   /* after an outside write of the knob; POLICY_BACKOFF_FOREVER */
        policy_baseline baseline;
        bool batch;              /* there are batch cgroups ([Batch] Cgroups=) */
        double batch_max;        /* [Batch] ZswapMaxPercent */
        bool batch_shrinker_at_cap; /* [Batch] ShrinkerAtCap: rule (a2), REASON_BATCH_FULL */
};

struct policy_sample {
        uint64_t now;           /* usec, monotonic */
        bool pressure_valid;    /* the sources measured this interval (the policy also
                                 * ignores an interval too long to mean anything) */
        double pressure;        /* percent of wall time stalled, max over sources (the system's too) */
        /* ... and over the cgroup sources alone ([Pressure] Cgroups=, Units=;
         * not the system's, which holds the batch cgroups' own stalls):
         * cgroups_valid when there is one and it measured this interval.
         * Recorded (P lines, record.h); no rule reads it since [Batch]
         * LendWhenCalm= went (0.3.0). */
        bool cgroups_valid;
        double cgroups_pressure;
        /* Batch work is known (a batch cgroup is there: named, followed or
         * idle-marked). Then the rules that mean "latency-sensitive work
         * stalls" (pressure, calm, the active check) read rest_pressure,
         * the pressure of the rest: the [Pressure] cgroups, or else the
         * top-level cgroups that are no batch work (sources.c). pressure,
         * mostly the batch's own stalls then, only wakes the daemon.
         * rest_valid when the rest measured this interval. Recorded (A
         * lines, record.h); a recording without them replays as before. */
        bool batch_known;
        bool rest_valid;
        double rest_pressure;
        bool stores;            /* zswpout advanced since the last sample */
        policy_pool_state pool_state; /* the rest below only with POOL_OK */
        double pool;            /* pool size in percent of its limit */
        uint64_t limit_bytes;   /* the pool limit */
        /* The batch cgroups ([Batch]) that can be capped, and what they use
         * in all, in percent of the pool limit. */
        unsigned n_batch;
        double batch;
        /* PSI triggers will wake the daemon: idle, it need only look every
         * idle_check_usec; without them it polls at sample_usec. */
        bool triggers_armed;
        uint64_t page_size;     /* caps are whole pages; 0 = 4096 */
};

/* A level (percent of the pool limit) and how fast it moves. */
struct policy_rate {
        bool have_prev, have_rate;
        uint64_t prev_now;
        double prev;
        double rate;            /* percent of the limit per second, smoothed */
};

struct policy_state {
        policy_mode mode;
        knob_value knob;        /* what the knob is (or would be, in a dry run) */
        knob_value baseline;
        bool flipped;           /* flipped at least once */
        uint64_t last_flip;
        uint64_t flips[POLICY_FLIP_HISTORY]; /* ring of flip times */
        unsigned n_flips;
        bool calm;              /* pressure below the low mark ... */
        uint64_t calm_since;    /* ... since then */
        struct policy_rate pool_rate;   /* of the whole pool */
        struct policy_rate others_rate; /* of the pool without the batch cgroups */
        struct policy_rate batch_rate;  /* of the batch cgroups */
        double batch_cap;       /* the cap of each batch cgroup, percent of the limit; < 0 = none yet */
        policy_held held;
        bool have_last;
        uint64_t last_now;      /* the previous sample */
        bool blind;             /* the pool has been unreadable ... */
        uint64_t blind_since;   /* ... since then */
        uint64_t backoff_until; /* leave the knob alone until then (an admin wrote it); 0 = not */
};

struct policy_decision {
        knob_value set;         /* KNOB_UNSET = leave the knob alone */
        bool flip;              /* set is a flip (policy_flips_since() counts it); else a
                                 * retry (REASON_RETRY) or the write at start */
        policy_mode mode;       /* mode after this sample */
        policy_reason reason;
        bool mode_changed;
        double batch_cap;       /* cap each batch cgroup's zswap use (memory.zswap.max) at this,
                                 * percent of the pool limit; < 0 = no batch cgroups */
        uint64_t cap_bytes;     /* batch_cap in bytes, whole pages (when batch_cap >= 0) */
        uint64_t share_bytes;   /* the batch cgroups' room together: cap_bytes times n_batch, which
                                 * policy_cap_divide() splits by what each holds */
        uint64_t most_bytes;    /* ... the most one of them may have (ZswapMaxPercent, or batch_cap
                                 * when that is above it) */
        bool batch_keep;        /* leave the caps as they are (the pool is briefly unreadable) */
        policy_held held;       /* a wanted flip was held back ... */
        policy_mode held_mode;  /* ... to this mode */
        bool held_changed;      /* held differs from the previous sample: log it */
        bool backed_off;        /* leaving the knob to the admin (see policy_knob_changed_outside) */
        bool pressure_valid;    /* the pressure figure counted ... */
        double pressure;        /* ... this one: what the rules read (policy_sample.pressure,
                                 * or rest_pressure when batch work is known) */
        bool rest;              /* pressure is the rest's */
        double level;           /* the pool, batch cgroups counted at their caps */
        double fill_rate;       /* percent of limit per second */
        double time_to_limit;   /* seconds, < 0 = not rising; both with the batch cgroups
                                 * counted at their caps (see predict()) */
        bool idle;              /* nothing happening: next_usec is the idle check */
        uint64_t next_usec;     /* when to sample next (relative); 0 = only on events */
        char text[256];         /* one-line human reason */
        char cap_text[128];     /* ... and one for batch_cap */
        bool cap_at_max;        /* batch_cap is [Batch] ZswapMaxPercent (else: the room the rest of
                                 * the pool leaves) */
};

void policy_init(struct policy_state *s, knob_value current, knob_value baseline);
/* Start idle, at the baseline: the knob is current now (KNOB_UNSET: no knob)
 * and original at start (or as saved by an instance that died). d->set is
 * the write to the baseline, if any (not a flip). The daemon and replay both
 * start here. */
void policy_start(const struct policy_params *p, struct policy_state *s, knob_value current, knob_value original,
                  struct policy_decision *d);
/* One sample in, one decision out. d->set is what to write; the manager tells
 * the outcome with policy_sync_knob() when the write fails. */
void policy_decide(const struct policy_params *p, struct policy_state *s,
                   const struct policy_sample *in, struct policy_decision *out);
/* A write of the knob failed; it is what it is. Not a flip: the next sample
 * tries again (REASON_RETRY), without counting against Flips.*. */
void policy_sync_knob(struct policy_state *s, knob_value actual);

typedef enum {
        OUTSIDE_FOLLOWED,   /* idle: their value stands (the baseline too, if it follows the startup value) */
        OUTSIDE_BACKED_OFF, /* not idle: the knob is theirs for backoff_usec (or until policy_resume()) */
} policy_outside;
/* Someone else changed the knob: follow them rather than fight. */
policy_outside policy_knob_changed_outside(const struct policy_params *p, struct policy_state *s,
                                           knob_value actual, bool baseline_follows, uint64_t now);
/* Take the knob back after an outside change (a reload). */
void policy_resume(struct policy_state *s);
/* Flips since then (the history holds POLICY_FLIP_HISTORY). */
unsigned policy_flips_since(const struct policy_state *s, uint64_t since);
/* How the batch cgroups' room (share bytes) is split between the n of them:
 * by what each holds (use[i], memory.zswap.current), not by how many there
 * are. While they hold no more than share together, each keeps what it
 * holds (up to most) and the room nobody holds is shared out evenly, none
 * above most (water-filling): cgroups that hold nothing, however many, take
 * only from that free room, never the pages another holds. So the cap of a
 * cgroup holding u is at least min(u, most) less a page, whatever else
 * joins (40 empty cgroups a user makes cannot cut a working batch.slice's
 * cap below what it holds). When they hold more than share, each gets share
 * in proportion to what it holds. Whole pages; the caps add up to share at
 * most. most 0: no bound but share. */
void policy_cap_divide(uint64_t share, uint64_t most, const uint64_t *use, unsigned n, uint64_t page_size,
                       uint64_t *cap);
/* The cap of a batch cgroup that appears between samples, at once: what
 * policy_cap_divide() gives it, holding nothing yet, beside the n others
 * holding use[] under last's share (a part of the room none of them holds);
 * the others keep theirs until the next sample divides the share afresh. */
#define POLICY_MAX_BATCH 256 /* n at most, for policy_cap_newcomer() */
void policy_cap_newcomer(const struct policy_decision *last, const uint64_t *use, unsigned n, uint64_t page_size,
                         struct policy_decision *d);
/* Is a cap of `wanted` bytes worth writing over `current`? Not for rounding
 * noise: the cap moves in steps and the limit with memory hot-plug. */
bool policy_cap_needs_write(bool capped, uint64_t current, uint64_t wanted);
/* A cap never loosens a limit already set: wanted, at most ceiling (the
 * cgroup's memory.zswap.max before the daemon wrote it; UINT64_MAX for
 * "max"). A result equal to the ceiling is not written at all while
 * the limit is still the admin's (batch.c). */
uint64_t policy_cap_within(uint64_t wanted, uint64_t ceiling);

/* [Pressure] ProtectWriteback=: per pressure-source cgroup, whether its own
 * zswap entries are kept in RAM (memory.zswap.writeback 0, protect.c) now.
 * Protect while its own pressure is at or above pressure_high; release once
 * it has stayed below pressure_low for hold_usec (hysteresis: between the
 * marks nothing changes, and a stall restarts the calm). A change at most
 * every min_dwell_usec either way: one right after a release waits (the
 * release needed hold_usec of calm already, so a cycle takes at least
 * max(hold, dwell) each way). A sample without a figure (no delta yet, an
 * interval too long) changes nothing and ends no calm. */
struct policy_protect {
        bool protecting;
        bool calm;              /* below pressure_low ... */
        uint64_t calm_since;    /* ... since then */
        bool changed;           /* protected or released at least once ... */
        uint64_t changed_at;    /* ... last then */
};
typedef enum { PROTECT_KEEP, PROTECT_ON, PROTECT_OFF } policy_protect_action;
policy_protect_action policy_protect_decide(const struct policy_params *p, struct policy_protect *s, bool valid,
                                            double pressure, uint64_t now);
/* The caller could not carry out d (an admin's 0, a failed save or write):
 * the state is what it is; no change counted. */
void policy_protect_sync(struct policy_protect *s, bool protecting);

/* policy-describe.c: the one-line reason for d (d->text). */
void policy_describe(const struct policy_params *p, const struct policy_sample *in,
                     const struct policy_decision *d, char *buf, size_t size);
const char *policy_mode_to_string(policy_mode m);   /* "idle", ... (journal field) */
const char *policy_mode_to_human(policy_mode m);    /* "Idle", "Favouring stores", ... */
const char *policy_reason_to_string(policy_reason r);
