/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The event loop's side of the daemon: start, reload, stop, and each sample
 * (manager_tick): read, ask the policy, carry it out. The jobs it calls on
 * have files of their own: knob.c, batch.c, state.c, sources.c, monitor.c,
 * probe.c, report.c; the decisions are policy.c's. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "batch.h"
#include "conf.h"
#include "kernel.h"
#include "knob.h"
#include "monitor.h"
#include "policy.h"
#include "record.h"
#include "report.h"
#include "sources.h"
#include "state.h"

/* Exit codes (see zswap-tuned(8)). */
#define EXIT_USAGE       2
#define EXIT_UNAVAILABLE 69 /* EX_UNAVAILABLE: the kernel lacks PSI or zswap */
#define EXIT_CONFIG      78 /* EX_CONFIG */
#define EXIT_RUNNING     75 /* EX_TEMPFAIL: another instance holds the state directory */

struct manager {
        struct conf conf;
        const char *config_path;
        bool dry_run_override;  /* --dry-run */
        int log_level_override; /* --log-level, -1 = none */
        struct kernel kernel;
        bool use_udev;

        sd_event *event;        /* NULL in tests that drive manager_tick() by hand */
        sd_event_source *timer;
        sd_event_source *watchdog;  /* WATCHDOG=1 pings, which also carry the idle check */
        uint64_t watchdog_usec;     /* WatchdogSec=, 0 = none */
        bool idle;                  /* the policy said: nothing happening */

        struct state state;     /* the state directory: lock and save file */
        struct knob knob;
        struct batch batch;
        struct sources sources;
        struct monitor monitor;
        struct report report;
        const char *record_path;        /* --record=FILE */
        struct recorder recorder;

        struct policy_params params;
        struct policy_state policy;
        bool have_sample;
        uint64_t last_sample;
        struct vmstat last_vm;
        double pressure, pool;
        policy_pool_state pool_state; /* as last said */

        /* for "zswap-tuned status" and the metrics (publish.c) */
        uint64_t mode_since;            /* CLOCK_REALTIME usec */
        policy_reason last_reason;      /* of the last flip or change of mode */
        char last_text[256];
        uint64_t flips_total;
        uint64_t flips_by_reason[POLICY_REASONS], decisions_by_reason[POLICY_REASONS];
        unsigned warnings;              /* WARN_* found at startup */
        char *published;                /* the status last written, less its time */
        uint64_t metrics_written;       /* CLOCK_MONOTONIC usec */
};

static inline bool manager_dry_run(const struct manager *m) {
        return m->dry_run_override || m->conf.dry_run;
}

static inline struct report_sample manager_report_sample(const struct manager *m) {
        return (struct report_sample) {
                .knob = m->knob.name, .dry_run = manager_dry_run(m), .pressure = m->pressure, .pool = m->pool,
        };
}

/* The policy's parameters from a configuration (also for replay). */
void params_from_conf(const struct conf *c, struct policy_params *p);

void manager_init(struct manager *m);
/* Load the configuration (the caller prints err as "FILE:LINE: message"). */
int manager_load_config(struct manager *m, char *err, size_t errsize);
/* Lock the state directory, probe the kernel, arm the triggers, take the
 * first sample. Returns 0 or an exit code. event may be NULL. */
int manager_start(struct manager *m, sd_event *event);
/* Sample, decide, act. */
void manager_tick(struct manager *m, uint64_t now);
/* Re-read the configuration (SIGHUP); keeps the old one on error. */
int manager_reload(struct manager *m);
/* Put back everything we changed (knob and caps), dry run or not. */
int manager_restore(struct manager *m);
void manager_free(struct manager *m);
/* The loop, with SIGTERM/SIGINT (restore and exit) and SIGHUP (reload);
 * returns the exit code. Restores before returning. */
int manager_run(struct manager *m);
