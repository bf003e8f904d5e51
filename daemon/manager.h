/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The event loop's side of the daemon: start, reload, stop, and each sample
 * (manager_tick): sense, decide, act, tell (docs/architecture.md, "One
 * sample"). Each job has a file of its own that owns its state
 * (docs/architecture.md): restore.c (saves, locks, the files we write),
 * steer.c and knob.c (the knob), batch.c (the caps), protect.c (the pressure
 * cgroups' writeback), sources.c (PSI),
 * monitor.c (swap, hot-plug), schedule.c (when), stats.c (counts),
 * publish.c (status, metrics, from the snapshot built here); the decisions
 * are policy.c's. This file only calls them. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "batch.h"
#include "conf.h"
#include "follow-wire.h"
#include "kernel.h"
#include "monitor.h"
#include "policy.h"
#include "protect.h"
#include "publish.h"
#include "record.h"
#include "report.h"
#include "restore.h"
#include "schedule.h"
#include "sources.h"
#include "stats.h"
#include "steer.h"

struct manager {
        struct conf conf;
        const char *config_path;
        bool config_given;      /* --config: a missing file is an error, not the defaults */
        char state_dir[4096];
        bool dry_run_override;  /* --dry-run */
        int log_level_override; /* --log-level, -1 = none */
        struct kernel kernel;
        bool use_udev;
        sd_event *event;        /* NULL in tests that drive manager_tick() by hand */

        struct restore restore;
        struct steer steer;
        struct batch batch;
        struct protect protect;         /* [Pressure] ProtectWriteback= (protect.c) */
        struct sources sources;
        struct follow_wire follow;      /* Cgroups= globs, Units=, IdleCgroups= (follow-wire.c) */
        struct monitor monitor;
        struct schedule sched;
        struct report report;
        struct stats stats;
        const char *record_path;        /* --record=FILE */
        struct recorder recorder;
        struct policy_params params;

        /* the last sample */
        bool have_sample;
        uint64_t last_sample;
        struct vmstat last_vm;
        double pressure, pool;
        policy_pool_state pool_state; /* as last said */
        unsigned warnings;              /* WARN_* found at startup */

        struct publisher publisher;     /* status file, metrics (publish.c) */
};

static inline bool manager_dry_run(const struct manager *m) {
        return m->dry_run_override || m->conf.dry_run;
}

void manager_init(struct manager *m);
/* Load the configuration (the caller prints err as "FILE:LINE: message"). */
int manager_load_config(struct manager *m, char *err, size_t errsize);
/* Lock, probe the kernel, arm the triggers, take the first sample. Returns
 * 0 or an exit code (exit-code.h). event may be NULL. */
int manager_start(struct manager *m, sd_event *event);
/* One sample: sense, decide, act, tell; then when the next one is. */
void manager_tick(struct manager *m, uint64_t now);
/* Re-read the configuration (SIGHUP); keeps the old one on error. */
int manager_reload(struct manager *m);
/* Put back everything we changed (knob, caps, writeback), dry run or not. */
int manager_restore(struct manager *m);
void manager_free(struct manager *m);
/* The loop, with SIGTERM/SIGINT (restore and exit) and SIGHUP (reload);
 * returns the exit code. Restores before returning. */
int manager_run(struct manager *m);
