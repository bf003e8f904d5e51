/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "kernel.h"
#include "policy.h"
#include "savefile.h"

/* Exit codes (see zswap-tuned(8)). */
#define EXIT_USAGE       2
#define EXIT_UNAVAILABLE 69 /* EX_UNAVAILABLE: the kernel lacks PSI or zswap */
#define EXIT_CONFIG      78 /* EX_CONFIG */

struct psi_src {
        char spec[256];         /* what the config said ("system" for /proc/pressure/memory) */
        char path[512];         /* memory.pressure below the root prefix */
        int fd;                 /* armed trigger, -1 if none */
        sd_event_source *io;
        bool have_total;
        uint64_t total;
        bool gone;              /* missing or removed; retried while sampling */
        bool wake_only;         /* a batch cgroup: its stalls wake us, but are not pressure */
};

struct manager {
        struct conf conf;
        const char *config_path;
        bool dry_run_override;  /* --dry-run */
        int log_level_override; /* --log-level, -1 = none */
        struct kernel kernel;
        char state_dir[512];
        bool use_udev;

        sd_event *event;        /* NULL in tests that drive manager_tick() by hand */
        sd_event_source *timer, *swaps_io, *udev_io;
        sd_event_source *watchdog;  /* WATCHDOG=1 pings, which also carry the idle check */
        uint64_t watchdog_usec;     /* WatchdogSec=, 0 = none */
        bool idle;                  /* the policy said: nothing happening */
        struct udev *udev;
        struct udev_monitor *monitor;
        int swaps_fd;

        const char *knob;       /* file name under ZSWAP_PARAMS; NULL = monitor only */
        knob_value original;    /* the knob's value before we touched it */
        bool wrote;             /* we changed the knob: restore on exit */
        struct saved save;      /* originals of what we changed, mirrored in the save file */
        bool save_failed;       /* said so once */

        struct batch_cg {
                char spec[256];
                char path[512]; /* memory.zswap.max below the root prefix */
                char cur_path[512]; /* memory.zswap.current */
                bool capped;
                uint64_t cap;   /* bytes, as written */
                bool missing;   /* said that it is not there */
                bool failed;    /* the last write of its cap failed */
        } batch[CONF_MAX_CGROUPS];
        unsigned n_batch;

        struct psi_src src[1 + 2 * CONF_MAX_CGROUPS];
        unsigned n_src;

        struct policy_params params;
        struct policy_state policy;
        bool have_sample;
        bool pool_unreadable;   /* said so once */
        uint64_t last_sample;
        struct vmstat last_vm;
        double pressure, pool;
        unsigned swaps;
        char status[256];
};

void manager_init(struct manager *m);
/* Load the configuration (the caller prints err as "FILE:LINE: message"). */
int manager_load_config(struct manager *m, char *err, size_t errsize);
/* Probe the kernel, arm the triggers, take the first sample. Returns 0 or
 * an exit code. event may be NULL. */
int manager_start(struct manager *m, sd_event *event);
/* Sample, decide, act. */
void manager_tick(struct manager *m, uint64_t now);
/* Re-read the configuration (SIGHUP); keeps the old one on error. */
int manager_reload(struct manager *m);
/* Put the knob back to its original value if we changed it. */
int manager_restore(struct manager *m);
void manager_free(struct manager *m);
