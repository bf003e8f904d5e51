/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "zswap-tuned replay": a recording (record.h's format) run through the
 * pure policy with any configuration, each run started by policy_start() as
 * the daemon starts, so that replay matches the daemon by construction. */

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "record.h"

struct replay_options {
        bool verify;            /* compare with the recorded decisions; exit 1 on a difference */
        bool quiet;             /* the summary only */
        bool lenient;           /* skip the lines that are refused (each said), count them */
        FILE *err;              /* where refused lines are said; NULL: stderr */
};
/* Run the policy with c over the recording at path; print the decisions that
 * change something and a summary. 0, 1 (verify: a decision differs), or 2
 * (the file cannot be read, or a line is refused and not lenient: said as
 * FILE:LINE: reason, on stderr; no summary). Times must not go back, except
 * at "I,0", which every start of the daemon writes first: a restarted
 * daemon appends its run (after a reboot, CLOCK_MONOTONIC starts again). */
int replay(const char *path, const struct conf *c, const struct replay_options *o, FILE *out);
/* The same on a stream already open, named path in messages. */
int replay_stream(FILE *in, const char *path, const struct conf *c, const struct replay_options *o, FILE *out);
