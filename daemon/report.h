/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What people read: the STATUS= line and the journal records of flips, caps
 * and modes, with their fields and MESSAGE_IDs (log.h). */

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"
#include "policy.h"

struct report {
        char status[256];       /* the last STATUS= sent */
};

struct report_sample {
        const char *knob;       /* NULL = monitor only */
        bool dry_run;
        double pressure, pool;
        const char *pressure_of; /* "the rest: system.slice" (sources.h rest_of); NULL: every source's */
};

/* STATUS=, sent only when it changed. */
void report_status(struct report *r, const struct report_sample *s, const struct policy_decision *d,
                   knob_value knob);
/* The knob flipped (or would have, in a dry run). */
void report_flip(const struct report_sample *s, knob_value from, knob_value to, const struct policy_decision *d);
/* The mode changed (said with the flip when there was one), or a flip was
 * held back. */
void report_mode(const struct report_sample *s, const struct policy_decision *d, knob_value knob, bool flipped);
/* Someone else wrote the knob. */
void report_outside(const char *knob, knob_value v, policy_outside what, uint64_t backoff_usec);
/* A batch cap record: CGROUP=, ZSWAP_MAX=, DRY_RUN=. */
void report_cap(int prio, const char *cgroup, const char *value, bool dry_run, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
