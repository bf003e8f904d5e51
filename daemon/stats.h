/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon has done since it started, for "zswap-tuned status" and
 * the metrics. One definition of a flip: a change of the knob that the
 * policy decided (policy_decision.flip) and that was carried out (or would
 * be, in a dry run). Writes that put the knob back to what the mode wants (a
 * failed write, an admin's back-off that ended: REASON_RETRY) are retries;
 * the write at start (to the baseline) is neither. */

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

struct stats {
        uint64_t mode_since;            /* CLOCK_REALTIME usec */
        policy_reason last_reason;      /* of the last flip or change of mode */
        char last_text[256];
        uint64_t flips_by_reason[POLICY_REASONS];
        uint64_t decisions_by_reason[POLICY_REASONS]; /* changes of mode */
        uint64_t retries;
        uint64_t held[HELD_CAP + 1];    /* flips held back, by policy_held (each hold once) */
};

void stats_init(struct stats *st, uint64_t realtime);
/* After d was carried out; done: its knob write succeeded (or a dry run). */
void stats_decision(struct stats *st, const struct policy_decision *d, bool done, uint64_t realtime);
uint64_t stats_flips(const struct stats *st);
struct snapshot;
/* The counts, the last reason and when the mode last changed. */
void stats_snapshot(const struct stats *st, struct snapshot *snap);
