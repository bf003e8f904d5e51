/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon knows after a sample, as plain data: published in the
 * runtime directory ("status", KEY=VALUE lines) for "zswap-tuned status",
 * and the source of the Prometheus metrics. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

#define SNAPSHOT_NAME "status"
#define SNAPSHOT_MAX_SOURCES 33
#define SNAPSHOT_MAX_BATCH 16
#define SNAPSHOT_MAX_PATTERNS (4 * 16 + 1) /* Cgroups= and Units= of both roles, IdleCgroups= */

enum {
        WARN_CGROUP_V1 = 1 << 0,        /* flips have no effect */
        WARN_NO_SWAP = 1 << 1,          /* zswap stores nothing */
        WARN_ZSWAP_DISABLED = 1 << 2,
        WARN_PSI_WINDOW = 1 << 3,       /* a trigger window was rounded up (no CAP_SYS_RESOURCE) */
        WARN_POOL_UNREADABLE = 1 << 4,
};

struct snapshot {
        int pid;
        uint64_t updated;               /* CLOCK_REALTIME usec */
        char knob[32];                  /* "" = monitor only */
        knob_value knob_value, original;
        bool dry_run, backed_off;
        policy_mode mode;
        uint64_t mode_since;            /* CLOCK_REALTIME usec */
        policy_reason reason;           /* of the last change of mode or flip */
        char reason_text[256];
        double pressure;                /* percent, max over the sources */
        unsigned n_sources;
        struct {
                char path[512];
                double pct;             /* < 0: no figure (gone, or no delta yet) */
        } source[SNAPSHOT_MAX_SOURCES];
        double pool;                    /* percent of the limit */
        uint64_t pool_bytes, stored_bytes, limit_bytes;
        int64_t incomp_pages;           /* stored whole, incompressible; < 0 = unknown (live, status only) */
        double fill_rate;               /* percent of the limit per second */
        double time_to_limit;           /* seconds, < 0 = not rising */
        unsigned n_batch;
        struct {
                char cgroup[256];
                uint64_t use;           /* memory.zswap.current */
                bool capped;
                uint64_t cap;
                int64_t incomp;         /* bytes stored whole; < 0 = unknown (live, status only) */
        } batch[SNAPSHOT_MAX_BATCH];
        unsigned n_patterns;            /* Cgroups= globs, Units= ("unit:..."), IdleCgroups= ("idle") */
        struct {
                char role[16];          /* "batch" or "pressure" */
                char pattern[300];
                unsigned matches;       /* the cgroups it takes now (listed among batch and sources) */
        } pattern[SNAPSHOT_MAX_PATTERNS];
        unsigned flips_last_hour;
        uint64_t flips_total;
        unsigned warnings;              /* WARN_* */
};

/* KEY=VALUE lines; without the UPDATED= line when with_time is false (to
 * tell whether anything changed). */
void snapshot_format(const struct snapshot *s, bool with_time, FILE *f);
/* Parse what snapshot_format() wrote; unknown lines are skipped (a newer
 * daemon). -EBADMSG when it is not a snapshot. */
int snapshot_parse(const char *buf, struct snapshot *s);
/* One JSON object (zswap-tuned(8) documents the schema). */
void snapshot_json(const struct snapshot *s, FILE *f);
/* For a human: what "zswap-tuned status" prints. now: CLOCK_REALTIME usec. */
void snapshot_print(const struct snapshot *s, uint64_t now, FILE *f);
