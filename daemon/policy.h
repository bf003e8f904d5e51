/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The decision logic: pure, no I/O, no clocks. The manager feeds it one
 * sample at a time and carries out what it returns. */

#include <stdbool.h>
#include <stdint.h>

typedef enum { KNOB_OFF = 0, KNOB_ON = 1, KNOB_UNSET = -1 } knob_value;

typedef enum {
        MODE_IDLE,       /* knob at baseline */
        MODE_THROUGHPUT, /* knob off: favour store throughput under pressure */
        MODE_PROTECT,    /* knob on: keep the pool from reaching its limit */
} policy_mode;

typedef enum {
        REASON_NONE,
        REASON_POOL_HIGH,    /* pool at or above Pool.HighPercent */
        REASON_POOL_RISING,  /* pool predicted to hit its limit within the lead time */
        REASON_PRESSURE,     /* pressure high, stores happening, pool has room */
        REASON_CALM,         /* pressure low for the hold time */
} policy_reason;

typedef enum { HELD_NONE, HELD_DWELL, HELD_CAP } policy_held;

struct policy_params {
        double pressure_high, pressure_low; /* percent */
        uint64_t hold_usec;
        double pool_high, pool_low, pool_watch; /* percent of the pool limit */
        uint64_t sample_usec, min_sample_usec, lead_usec, idle_check_usec;
        uint64_t min_dwell_usec;
        unsigned max_per_minute; /* 0 = no cap */
        bool batch;              /* there are batch cgroups ([Batch] Cgroups=) */
        double batch_max;        /* [Batch] ZswapMaxPercent */
};

struct policy_sample {
        uint64_t now;           /* usec, monotonic */
        bool pressure_valid;    /* false when the interval was too long to mean anything */
        double pressure;        /* percent of wall time stalled, max over sources */
        bool stores;            /* zswpout advanced since the last sample */
        double pool;            /* pool size in percent of its limit */
        /* The batch cgroups ([Batch]) that can be capped, and what they use
         * in all, in percent of the pool limit. */
        unsigned n_batch;
        double batch;
};

#define POLICY_FLIP_HISTORY 64

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
};

struct policy_decision {
        knob_value set;         /* KNOB_UNSET = leave the knob alone */
        policy_mode mode;       /* mode after this sample */
        policy_reason reason;
        bool mode_changed;
        double batch_cap;       /* cap each batch cgroup's zswap use (memory.zswap.max) at this,
                                 * percent of the pool limit; < 0 = no batch cgroups */
        policy_held held;       /* a wanted flip was held back */
        bool held_changed;      /* held differs from the previous sample: log it */
        double level;           /* the pool, batch cgroups counted at their caps */
        double fill_rate;       /* percent of limit per second */
        double time_to_limit;   /* seconds, < 0 = not rising; both with the batch cgroups
                                 * counted at their caps (see predict()) */
        bool idle;              /* nothing happening: next_usec is the idle check */
        uint64_t next_usec;     /* when to sample next (relative); 0 = only on events */
        char text[256];         /* one-line human reason */
        char cap_text[128];     /* ... and one for batch_cap */
};

void policy_init(struct policy_state *s, knob_value current, knob_value baseline);
void policy_decide(const struct policy_params *p, struct policy_state *s,
                   const struct policy_sample *in, struct policy_decision *out);
/* The knob turned out different from what the policy believed (a failed
 * write). */
void policy_sync_knob(struct policy_state *s, knob_value actual);
/* Someone else changed the knob. While idle, and when the baseline is
 * "whatever it was at startup", their value becomes the new baseline:
 * returns true then. */
bool policy_knob_changed_outside(struct policy_state *s, knob_value actual, bool baseline_follows);

const char *policy_mode_to_string(policy_mode m);   /* "idle", ... (journal field) */
const char *policy_mode_to_human(policy_mode m);    /* "Idle", "Favouring stores", ... */
const char *policy_reason_to_string(policy_reason r);
