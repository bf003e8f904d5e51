/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Batch cgroups ([Batch] Cgroups=): their memory.zswap.max paths, the caps
 * written there and every write. Each original is saved (restore.c) before the
 * first cap, which is not written otherwise, and put back by
 * batch_uncap_all().
 *
 * A cap never loosens a limit already set: the value a memory.zswap.max
 * holds before our first write (the admin's: systemd's MemoryZSwapMax=, a
 * set-property, a write by hand) is the ceiling of every cap written there
 * ("max": none, "0" stays 0); a cap at or above it is not written at all.
 * When another writer replaces our cap, their value is the new limit: what
 * was saved is forgotten (their value stays on exit), and the next cap, if
 * below it, saves it as the original first. */

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "kernel.h"
#include "policy.h"
#include "restore.h"

struct batch_cg {
        char spec[CONF_CGROUP_NAME_MAX + 1]; /* as configured */
        char path[512];         /* memory.zswap.max below the root prefix */
        char cur_path[512];     /* memory.zswap.current */
        bool capped;            /* a cap is in force (or would be, dry run) */
        bool written;           /* ... and was written for real: restore it */
        bool at_ceiling;        /* ... or the cgroup's own limit is, ours not written */
        uint64_t ceiling;       /* that limit (bytes; UINT64_MAX: "max"), read before our first write */
        uint64_t cap;           /* bytes, as written */
        bool cap_at_ceiling;    /* ... at that limit, lower than the cap decided */
        bool cap_at_max;        /* ... at ZswapMaxPercent (else: the room the others leave) */
        char cap_text[128];     /* ... why, in words */
        bool followed;          /* a match of a pattern (cgroup-follow.c), not a fixed path */
        const char *by;         /* the rule that made it batch work: a BATCH_BY_* word */
        bool cap_forgotten;     /* ... whose cap forget() dropped: batch_follow_remove() says so */
        bool overwritten_said;  /* said that another writer replaced our cap */
        char unit[256];         /* its unit, "" if not known */
        uint64_t use;           /* memory.zswap.current at the last sample */
        bool missing;           /* said that it is not there */
        unsigned failures;      /* cap writes failed in a row (said once) */
};

/* Which rule made a cgroup batch work (status: BATCH_BY=) */
#define BATCH_BY_CGROUPS "cgroups"              /* [Batch] Cgroups=, a path or a pattern */
#define BATCH_BY_UNITS "units"                  /* [Batch] Units= */
#define BATCH_BY_IDLE "idle-cgroups"            /* [Batch] IdleCgroups= */

struct batch {
        struct batch_cg cg[BATCH_MAX_CGROUPS];
        unsigned n;
        /* the last decision carried out, for a cgroup that comes between samples */
        struct policy_decision last;
        bool have_last, dry_run, full_said;
};

void batch_setup(struct batch *b, const struct kernel *k, const struct conf_list *cgroups, double max_pct);
/* How many batch cgroups can be capped (they are there, their last cap write
 * did not fail) and what they use, in percent of limit_bytes. */
void batch_sample(struct batch *b, const struct kernel *k, struct restore *rs, uint64_t limit_bytes, unsigned *n,
                  double *pct);
/* Carry out the decision's caps. */
void batch_apply(struct batch *b, const struct kernel *k, struct restore *rs, bool dry_run,
                 const struct policy_decision *d);
/* Lift every cap we set, dry run or not. */
int batch_uncap_all(struct batch *b, struct restore *rs);
/* A followed cgroup came (dir: its directory, "/sys/fs/cgroup/...", below the
 * root prefix; unit: NULL if not known; by: the BATCH_BY_* rule that took it;
 * why: "appeared", as the journal line says it): it is batch work from now
 * on (one there already by another rule: by this one now), and
 * capped at once, through the save path (fail closed), with its share of the
 * cap last decided if one is in force. -ENOSPC when every place (the save
 * file's) is taken (said once). */
int batch_follow_add(struct batch *b, const struct kernel *k, struct restore *rs, const char *dir, const char *unit,
                     const char *by, const char *why);
/* A followed cgroup went (or no longer matches: why): forgotten with one
 * journal line (UNIT= where known); a cap on one still there is lifted. */
void batch_follow_remove(struct batch *b, const struct kernel *k, struct restore *rs, const char *dir,
                         const char *why);
struct snapshot;
/* Each batch cgroup: name, use, cap. */
void batch_snapshot(const struct batch *b, struct snapshot *snap);
