/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "psi.h" /* enum psi_type */

enum knob_choice { KNOB_CHOICE_AUTO, KNOB_CHOICE_SHRINKER_ENABLED, KNOB_CHOICE_SHRINK_ENABLED, KNOB_CHOICE_NONE };
enum baseline_choice { BASELINE_STARTUP, BASELINE_ON, BASELINE_OFF };

#define CONF_MAX_CGROUPS 16
#define CONF_INFINITY UINT_MAX /* a number of seconds: "infinity" */
#define CONF_PATH_MAX 256
#define CONF_MAX_FILES 16
/* A cgroup name in Cgroups= (below the cgroup2 mount); longer ones are
 * refused, never cut: a cut name would name the parent. */
#define CONF_CGROUP_NAME_MAX 400

struct conf_list {
        char *item[CONF_MAX_CGROUPS];
        char *where[CONF_MAX_CGROUPS]; /* "FILE:LINE" of the item, for refusals at run time */
        unsigned n;
};

/* Batch cgroups capped at once (fixed and followed), and [Batch]
 * MaxCgroups='s most and default: what the save file holds. */
#define BATCH_MAX_CGROUPS 256
#define CONF_MAX_MATCHES_DEFAULT BATCH_MAX_CGROUPS /* [Batch] MaxCgroups= */

/* [Pool] ReleasePercent= when not set: this many points below HighPercent. */
#define RELEASE_BELOW_HIGH 5

struct conf {
        /* [Daemon] */
        int knob;               /* enum knob_choice */
        int baseline;           /* enum baseline_choice */
        bool dry_run;
        int log_level;          /* LOG_ERR .. LOG_DEBUG */
        /* [Pressure] */
        bool system;
        struct conf_list cgroups;  /* paths or globs (cgroup-glob.h) */
        struct conf_list units;    /* unit names or globs (units.h) */
        int type;               /* enum psi_type */
        unsigned trigger_stall_ms, trigger_window_ms;
        double pressure_high, pressure_low;
        unsigned hold_sec;
        bool protect_writeback;  /* ProtectWriteback: a stalling source's memory.zswap.writeback 0 (protect.c) */
        /* [Pool] */
        bool pool_shrinker;      /* ShrinkerNearLimit: the pool rules turn the shrinker on */
        double pool_high, pool_low, pool_watch;
        double pool_release;     /* rule (b2): leave protection below this; 0 = off;
                                  * unset: HighPercent - RELEASE_BELOW_HIGH */
        bool pool_release_follows; /* ReleasePercent= unset (or empty): it follows HighPercent */
        unsigned sample_ms, min_sample_ms, lead_sec, idle_check_sec;
        /* [Flips] */
        unsigned min_dwell_sec, max_per_minute;
        unsigned admin_backoff_sec; /* leave an admin's knob value alone this long; CONF_INFINITY = until reload */
        /* [Batch] */
        struct conf_list batch_cgroups; /* paths or globs */
        struct conf_list batch_units;   /* unit names or globs */
        bool batch_idle;         /* IdleCgroups: a cgroup with cpu.idle 1 is batch work */
        unsigned batch_max_cgroups; /* MaxCgroups: followed matches, at most */
        double batch_zswap_max;  /* percent of the pool limit */
        bool batch_shrinker_at_cap; /* rule (a2): the shrinker on while they store at their caps */
        /* [Metrics] */
        char metrics_dir[CONF_PATH_MAX]; /* "" = off */
        char metrics_dir_where[CONF_PATH_MAX + 32]; /* its "FILE:LINE"; "" = not set */
        unsigned metrics_interval_sec;   /* rewritten at least this often, idle too */
        /* the files read, in order: the main file (if there is one), then its drop-ins */
        unsigned n_files;
        char files[CONF_MAX_FILES][512];
};

void conf_defaults(struct conf *c);
void conf_free(struct conf *c);

/* Room for the errors of a load: many lines of "FILE:LINE: message". */
#define CONF_ERRORS_MAX 8192

/* Load the main file (a missing one is fine: the built-in defaults) and then
 * the *.conf files in PATH.d in lexical order into a fresh configuration built
 * from the defaults. Every file and every line is read: on errors returns a
 * negative errno-style value, leaves *c untouched and puts all of them into
 * err, one "FILE:LINE: message" (or "FILE: message") a line, in the order
 * found (those that do not fit are counted on a last line). */
int conf_load(struct conf *c, const char *path, char *err, size_t errsize);
/* The same for a main file the user named (--config): a missing one is an
 * error ("cannot read FILE: No such file or directory"). */
int conf_load_given(struct conf *c, const char *path, char *err, size_t errsize);
/* The same for text read as if it were the main file NAME (messages say NAME:LINE),
 * without drop-ins. */
int conf_load_string(struct conf *c, const char *name, const char *text, char *err, size_t errsize);
/* Log each line of a failed load's err as an error of its own. */
void conf_log_errors(const char *err);

/* Print the effective configuration in the file's own format. */
void conf_dump(const struct conf *c, FILE *f);

const char *knob_choice_to_string(int k);
const char *psi_type_to_string(int t);
