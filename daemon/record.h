/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Recording what the policy sees and decides (--record=FILE), and replaying
 * a recording through the pure policy with any configuration
 * ("zswap-tuned replay"). The format, one event a line, comma-separated,
 * times in microseconds (CLOCK_MONOTONIC), knob values -1/0/1:
 *
 *   # zswap-tuned recording 1
 *   I,now,current,original                policy_init at start or reload
 *   S,now,pressure_valid,pressure,stores,pool_state,pool,limit_bytes,n_batch,batch
 *   D,now,set,knob,mode,reason,batch_cap,held          the decision for that sample
 *   O,now,actual,baseline_follows         someone else wrote the knob
 *   F,now,actual                          a write failed; the knob is actual
 *   R,now                                 a reload took the knob back
 */

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "policy.h"

struct recorder {
        FILE *f;                /* NULL: not recording */
};

/* Append to path (created 0644 if missing, never through a symlink). */
int record_open(struct recorder *r, const char *path);
void record_close(struct recorder *r);
void record_init(struct recorder *r, uint64_t now, knob_value current, knob_value original);
void record_sample(struct recorder *r, const struct policy_sample *in);
void record_decision(struct recorder *r, uint64_t now, const struct policy_decision *d, knob_value knob);
void record_outside(struct recorder *r, uint64_t now, knob_value actual, bool baseline_follows);
void record_failed(struct recorder *r, uint64_t now, knob_value actual);
void record_resume(struct recorder *r, uint64_t now);

struct replay_options {
        bool verify;            /* compare with the recorded decisions; exit 1 on a difference */
        bool quiet;             /* the summary only */
};
/* Run the policy with c over the recording at path; print the decisions that
 * change something and a summary. 0, 1 (verify: a decision differs), or 2
 * (the file cannot be read or parsed, said with FILE:LINE). */
int replay(const char *path, const struct conf *c, const struct replay_options *o, FILE *out);
