/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Recording what the policy sees and decides (--record=FILE), and the
 * line format that replay.c and plot.c read back. One event a line, comma-separated,
 * times in microseconds (CLOCK_MONOTONIC), knob values -1/0/1:
 *
 *   # zswap-tuned recording 1
 *   I,now,current,original                policy_start() at start or reload
 *   P,now,pressure                        the cgroup sources' pressure, when they measured ...
 *   A,now,rest_valid,pressure             batch work is known: the rest's pressure, what the rules read ...
 *   S,now,pressure_valid,pressure,stores,pool_state,pool,limit_bytes,n_batch,batch  ... and the sample
 *   D,now,set,knob,mode,reason,batch_cap,held          the decision for that sample
 *   O,now,actual,baseline_follows         someone else wrote the knob
 *   F,now,actual                          a write failed; the knob is actual
 *   R,now                                 a reload took the knob back
 *
 * A recording without A lines (before 0.3.0, or with no batch work known)
 * replays as it was made: its rules read the S line's pressure.
 *
 * Recordings of daemons before 0.3.0 may also hold what [Batch]
 * LargestHolder= (removed in 0.3.0) weighed and did:
 *
 *   C,now,share,stall,excluded,picked     a cgroup it weighed ...
 *   H,now,pool,action,pick                ... and what it did (action 0-3, pick 0-31)
 *
 * They are still parsed, as strictly as before, so that old recordings
 * replay; nothing writes them, and replay skips them (saying so once).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conf.h"
#include "policy.h"

struct recorder {
        bool on;                /* false: not recording (never opened, or stopped by a write error) */
        int fd;
        char *path;
};

/* Append to path (created 0644 if missing, never through a symlink; anything
 * but a regular file, a FIFO included, is -ENOTREGULAR without blocking).
 * Each line goes out with one write(2); on the first failed write the
 * partial line is cut off, the error logged once, and recording stops. */
int record_open(struct recorder *r, const char *path);
void record_close(struct recorder *r);
void record_init(struct recorder *r, uint64_t now, knob_value current, knob_value original);
void record_sample(struct recorder *r, const struct policy_sample *in);
void record_decision(struct recorder *r, uint64_t now, const struct policy_decision *d, knob_value knob);
void record_outside(struct recorder *r, uint64_t now, knob_value actual, bool baseline_follows);
void record_failed(struct recorder *r, uint64_t now, knob_value actual);
void record_resume(struct recorder *r, uint64_t now);

/* One line of a recording, as data. */
typedef enum {
        RECORD_INIT = 'I',
        RECORD_SAMPLE = 'S',
        RECORD_DECISION = 'D',
        RECORD_OUTSIDE = 'O',
        RECORD_FAILED = 'F',
        RECORD_RESUME = 'R',
        RECORD_CGROUPS = 'P',
        RECORD_REST = 'A',
        /* [Batch] LargestHolder='s lines, before 0.3.0: parsed, never written */
        RECORD_OLD_HOLDER_CG = 'C',
        RECORD_OLD_HOLDER = 'H',
} record_type;

struct record_event {
        record_type type;
        uint64_t now;
        knob_value current, original;   /* I */
        struct policy_sample sample;    /* S (sample.now == now); P: sample.cgroups_pressure;
                                         * A: sample.batch_known, rest_valid, rest_pressure */
        knob_value set, knob;           /* D */
        policy_mode mode;
        policy_reason reason;
        double batch_cap;
        policy_held held;
        knob_value actual;              /* O, F */
        bool baseline_follows;          /* O */
};

/* Longer than any line record_format_event() writes. */
#define RECORD_LINE_MAX 512

/* The line for ev, '\n' included, into buf; the length, as snprintf().
 * -EINVAL for the lines nothing writes any more (C, H). */
int record_format_event(const struct record_event *ev, char *buf, size_t size);
/* One line (without its '\n'; not a comment) into *ev, zeroed first. Strict:
 * the exact field count of its type, no empty field, integers in decimal and
 * in range, numbers finite and decimal (-?D+(.D+)?(e[+-]D+)?: no "nan",
 * "inf", hex, "+", spaces). 0, or -EINVAL with the reason in why. */
int record_parse_line(const char *line, struct record_event *ev, char *why, size_t why_size);

