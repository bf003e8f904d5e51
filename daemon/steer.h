/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Where the policy's knob decisions meet the knob: which knob to steer, the
 * start at the baseline, carrying out a decision (or saying what it would
 * do, in a dry run), and someone else's write of the knob. knob.c owns the
 * file itself, policy.c decides, restore.c keeps the original. This owns the
 * policy's state; the policy alone writes it. */

#include <stdbool.h>

#include "kernel.h"
#include "knob.h"
#include "policy.h"
#include "record.h"
#include "report.h"
#include "restore.h"
#include "stats.h"

struct steer {
        const struct kernel *kernel;
        struct restore *restore;
        struct recorder *recorder;
        struct stats *stats;
        struct knob knob;
        struct policy_state policy;
};

void steer_init(struct steer *s, const struct kernel *k, struct restore *r, struct recorder *rec, struct stats *st);
/* Find the knob: want is a knob's name, NULL for either; monitor_only for
 * Knob=none. 0 or -errno (-ENOENT: the one asked for does not exist). */
int steer_probe(struct steer *s, const char *want, bool monitor_only);
/* Start idle, at the baseline (at startup, and on a reload that changes it). */
void steer_start(struct steer *s, const struct policy_params *p, bool dry_run, uint64_t now,
                 const struct report_sample *rs);
/* Before each decision: did someone else write the knob? */
void steer_outside(struct steer *s, const struct policy_params *p, bool dry_run, uint64_t now);
/* Decide on in (recorded, if recording); the knob the policy believed in
 * before, for steer_act(). */
knob_value steer_decide(struct steer *s, const struct policy_params *p, const struct policy_sample *in,
                        struct policy_decision *d);
/* Carry out the knob's part of d. Whether it was done (or would be, in a dry
 * run). */
bool steer_act(struct steer *s, bool dry_run, uint64_t now, knob_value before, const struct policy_decision *d,
               const struct report_sample *rs);
/* The knob's name (NULL: monitoring only), value as steered, and original. */
const char *steer_knob_name(const struct steer *s);
knob_value steer_knob_value(const struct steer *s);
knob_value steer_knob_original(const struct steer *s);
/* Flips since then (policy_flips_since()). */
unsigned steer_flips_since(const struct steer *s, uint64_t since);
/* Put the original back if we changed it. */
int steer_restore(struct steer *s);
