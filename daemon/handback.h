/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* [Batch] LendWhenCalm=yes: when the lending ends (policy.c), the batch
 * cgroups may hold more than their caps now allow, and the kernel takes
 * none of it back by itself (their entries leave as they are swapped in).
 * On a kernel that can write back a cgroup's zswap entries on request
 * ("<bytes> zswap_writeback_only" into its memory.reclaim, with the count
 * zswpwb_proactive_b in its memory.stat), ask for the excess back, at most
 * HANDBACK_BYTES_PER_SEC, never of a cgroup that is a pressure source.
 * Nothing lasting is written: nothing to save or restore. */

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "kernel.h"
#include "policy.h"
#include "sources.h"

/* compressed bytes asked back per second, all batch cgroups together */
#define HANDBACK_BYTES_PER_SEC (16 * UINT64_C(1024) * 1024)

typedef enum { HANDBACK_UNKNOWN, HANDBACK_YES, HANDBACK_NO } handback_support;

struct handback {
        handback_support support; /* does the kernel have the key (probed once) */
        bool active;            /* asking, since ... */
        uint64_t last_usec;     /* ... the budget was last topped up, then */
        uint64_t budget;        /* bytes that may be asked for now */
        uint64_t asked;         /* bytes asked for since start */
        bool said, failed_said; /* this time's first ask; a failed write (once) */
};

void handback_init(struct handback *h);
/* After each decision's caps are written (batch_apply()). */
void handback_tick(struct handback *h, const struct kernel *k, const struct batch *b, const struct sources *src,
                   bool dry_run, uint64_t now, const struct policy_decision *d);
