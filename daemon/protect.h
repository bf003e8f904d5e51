/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Per-cgroup writeback protection ([Pressure] ProtectWriteback=, off by
 * default): while a pressure-source cgroup (named or followed, not the
 * system's) stalls, its memory.zswap.writeback (6.8+) is 0, so its own zswap
 * entries stay in RAM; back to the original when it has been calm. The
 * decision is policy_protect_decide()'s, one state per cgroup; this file
 * carries it out through the restore engine:
 *
 * - only 1 -> 0 and back: a cgroup whose memory.zswap.writeback is 0 already
 *   (the admin's) is left alone, said once;
 * - the original is saved (restore_save_writeback(), fail closed) before
 *   the write, and put back on release, on exit, by --restore and at the
 *   next start after a crash;
 * - a value someone else writes while we hold the 0 is theirs: the saved
 *   original is forgotten (said once) and stays on exit;
 * - never the root cgroup, init.scope, the daemon's own cgroup (or one in
 *   them), nor a cgroup that is, lies in or holds a batch cgroup (the
 *   setting is hierarchical: it would keep the batch's entries in RAM);
 * - on a kernel without memory.zswap.writeback (before 6.8, cgroup v1),
 *   probed once at start, nothing is ever written (said once). */

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "kernel.h"
#include "policy.h"
#include "restore.h"
#include "sources.h"

#define PROTECT_MAX SOURCES_MAX_PRESSURE

struct protect_cg {
        char dir[512];          /* "/sys/fs/cgroup/..." below the root prefix */
        char path[512 + 32];    /* its memory.zswap.writeback */
        struct policy_protect pol;
        bool held;              /* we wrote 0 and saved the original (1) */
        bool seen;              /* a pressure source at this sample */
        const char *refused;    /* why it is never protected now; NULL: it may be */
        bool zero_said, missing_said, failed_said, theirs_said, restore_said;
        double pct;             /* its pressure at the last change, for the journal */
};

struct protect {
        struct protect_cg cg[PROTECT_MAX];
        unsigned n;
        bool enabled;           /* [Pressure] ProtectWriteback= */
        int available;          /* the kernel has memory.zswap.writeback: 1; 0 no; < 0 not probed */
        bool unavailable_said, dry_said;
        char own[512];          /* the daemon's cgroup below the mount */
        bool own_known;
};

void protect_init(struct protect *p);
/* Once at start: does the kernel have memory.zswap.writeback? Said once
 * (when enabled; else at the reload that enables it). */
void protect_probe(struct protect *p, const struct kernel *k, bool enabled);
/* (Re)start with the configuration's ProtectWriteback= (after
 * protect_release_all()). */
void protect_setup(struct protect *p, const struct kernel *k, bool enabled);
/* Each sample, after sources_sample(): decide per pressure-source cgroup and
 * carry it out. A dry run writes nothing (said once). */
void protect_tick(struct protect *p, const struct kernel *k, struct restore *rs, const struct sources *s,
                  const struct batch *b, const struct policy_params *pp, bool dry_run, uint64_t now);
/* Put every held cgroup back (exit, reload) and forget them all. 0, or the
 * first error of a put back that failed (it stays saved). */
int protect_release_all(struct protect *p, struct restore *rs);
struct snapshot;
/* The cgroups held at writeback 0 now. */
void protect_snapshot(const struct protect *p, struct snapshot *snap);
