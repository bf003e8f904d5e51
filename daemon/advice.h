/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What "zswap-tuned status" advises an administrator who has named no batch
 * cgroups: which cgroups hold the zswap pool, which stall on memory, and the
 * configuration lines that would protect the latter. From the kernel's own
 * figures now: each leaf cgroup's "zswap" in memory.stat and the "some"
 * line's avg300 in memory.pressure. The ranking is pure (advice_add()); the
 * scan of cgroupfs is advice_scan(). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "kernel.h"

struct swap_disk;

#define ADVICE_MAX 5
/* a cgroup holds the pool with at least this share of its limit ... */
#define ADVICE_HOLDER_PERCENT 5.0
/* ... and stalls with at least this much "some" pressure over 5 minutes */
#define ADVICE_STALL_PERCENT 1.0

struct advice_cg {
        char cgroup[CONF_CGROUP_NAME_MAX + 1]; /* below the cgroup2 mount */
        uint64_t zswap;         /* bytes */
        double stall;           /* percent, "some" avg300 */
        bool idle;              /* cpu.idle 1: marked as background work (CPUWeight=idle) */
};

struct advice {
        uint64_t limit_bytes;
        struct advice_cg holders[ADVICE_MAX], stalling[ADVICE_MAX];
        unsigned n_holders, n_stalling;
        unsigned scanned;
        /* [Batch] IdleCgroups= is on (the caller sets it): a holder marked
         * idle is then not pointed at it, the daemon refused it already */
        bool idle_cgroups;
        /* where swap is (the caller sets it; NULL: not told): on a disk
         * shared with file systems, a cap sends the holders' pages there */
        const struct swap_disk *swap;
};

/* Rank one cgroup in (pure): a holder by zswap, a staller by stall; idle:
 * its cpu.idle is 1. */
void advice_add(struct advice *a, const char *cgroup, uint64_t zswap, double stall, bool idle);
/* Every leaf cgroup below the cgroup2 mount, at most depth levels down. */
int advice_scan(const struct kernel *k, uint64_t limit_bytes, unsigned depth, struct advice *a);
/* Is there something to protect (holders and stallers both)? */
bool advice_protects(const struct advice *a);
/* The lines that would protect the stalling from the holders ("" when
 * there is nothing to say): [Batch] Cgroups= and [Pressure] Cgroups=. */
void advice_config(const struct advice *a, char *buf, size_t size);
/* What the cgroups are charged for in the pool: the "zswap" line of every
 * top-level cgroup's memory.stat (each counts its descendants), in bytes.
 * The pool's size less this is memory no cgroup is charged for: the
 * allocator's overhead (size classes, pages left partly used) and the
 * entries of the root cgroup's own processes. -ENOENT without cgroup v2 or where no cgroup has the line. */
int advice_pool_charged(const struct kernel *k, uint64_t *bytes);
void advice_print(const struct advice *a, FILE *f);
void advice_json(const struct advice *a, FILE *f);
