/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* [Batch] LargestHolder=yes: with nobody having said which work is batch,
 * the cgroup that holds most of the zswap pool is capped as batch work while
 * another cgroup stalls, and its cap lifted once the others are calm
 * (policy-holder.c decides). The cap goes through batch.c as a followed
 * cgroup's does: saved before it is written, restored on every exit path.
 * Reads every leaf cgroup's memory.stat (zswap) and memory.pressure (avg10),
 * at most every HOLDER_SCAN_USEC and only while the daemon samples actively;
 * while it holds a cap it samples actively, so that the others' calm is seen
 * without gaps. */

#include <stdbool.h>
#include <stdint.h>

#include "advice.h"
#include "policy.h"

#define HOLDER_SCAN_USEC (5 * UINT64_C(1000000))
#define HOLDER_DEPTH 4 /* slices, units, and one level inside a unit */

struct holder {
        struct policy_holder_state state;
        char dir[CONF_CGROUP_NAME_MAX + sizeof("/sys/fs/cgroup/")]; /* the one capped, if state.have */
        bool scanned;
        uint64_t last_scan;
        bool no_v2_said;
        struct advice scan;
};

struct manager;
/* At a sample, before the batch cgroups are measured: limit_bytes and pool
 * (percent of it) as just read. */
void holder_tick(struct manager *m, uint64_t now, uint64_t limit_bytes, double pool);
/* A reload lifted every cap (batch_uncap_all()): start afresh. */
void holder_reset(struct holder *h);
