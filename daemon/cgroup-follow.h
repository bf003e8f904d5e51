/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The live match set of a role ([Batch] or [Pressure]): the cgroups that
 * Cgroups= globs, Units= and IdleCgroups= take, listed at start and then
 * followed through inotify on the parent directories the patterns need
 * (IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVED_*), no periodic rescans.
 * Bounded: at most max matches (beyond it one warning, the oldest keep
 * their place) and a bounded number of watches; an overflowing inotify
 * queue makes one rescan, at most one a second. Everything below the
 * kernel's root prefix. Which cgroups IdleCgroups= may take (root's own,
 * never in a delegated subtree) is cgroup-idle.h's. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "cgroup-glob.h"
#include "conf.h"
#include "kernel.h"

/* IdleCgroups= takes at most max / FOLLOW_IDLE_SHARE places (rounded up). */
#define FOLLOW_IDLE_SHARE 2
/* follow_process() handles at most about this many events at a time, then
 * returns to the event loop (which calls it again while more are queued):
 * the watchdog and the samples go on during a storm. */
#define FOLLOW_EVENTS_PER_PASS 1024

/* What took a match (struct follow_match.pattern) besides a pattern index. */
#define FOLLOW_UNIT (-1)  /* Units= */
#define FOLLOW_IDLE (-2)  /* IdleCgroups=: cpu.idle is 1 */

struct follow_match {
        char *path;             /* the cgroup directory, e.g. "/sys/fs/cgroup/batch.slice/x.scope" (no root prefix) */
        const char *rel;        /* path below the v2 mount (points into path) */
        char *unit;             /* the unit whose ControlGroup it is, NULL if not known */
        int pattern;            /* index into the patterns, FOLLOW_UNIT or FOLLOW_IDLE */
        uint64_t seq;           /* order of arrival: lower is older */
        unsigned gen;           /* internal: seen by the last scan */
};

struct follow;
typedef void (*follow_cb_t)(struct follow *f, const struct follow_match *m, void *userdata);

struct follow_params {
        const char *name;               /* "Batch" or "Pressure", in messages */
        const struct kernel *kernel;
        sd_event *event;                /* NULL: no inotify; follow_process() by hand (tests) */
        const struct conf_list *patterns; /* Cgroups= entries: globs (plain paths are followed too) */
        bool idle;                      /* IdleCgroups=yes: root's own cgroups whose cpu.idle is 1
                                         * (never one in a delegated subtree), at most
                                         * FOLLOW_IDLE_SHARE of max; a named match (a pattern,
                                         * Units=) takes the place of one when the set is full */
        bool caps;                      /* the matches are capped ([Batch]): never an ancestor of
                                         * the daemon's own cgroup either */
        unsigned max;                   /* MaxCgroups= */
        const char *own;                /* the daemon's cgroup below the mount; NULL: read it (cglob_own_cgroup) */
        follow_cb_t on_add, on_remove;  /* a match came, a match goes (m is freed after on_remove) */
        void *userdata;
};

/* Parse the patterns (a refused one is logged with its FILE:LINE and left
 * out), scan and start watching. The initial matches are reported through
 * on_add before this returns. 0, or a negative errno-style value (no
 * inotify: the set is then filled by this scan only). */
int follow_new(struct follow **ret, const struct follow_params *p);
/* Stops watching; on_remove is not called. NULL-safe. */
struct follow *follow_free(struct follow *f);

unsigned follow_count(const struct follow *f);
const struct follow_match *follow_get(const struct follow *f, unsigned i); /* oldest first */
const struct follow_match *follow_find(const struct follow *f, const char *path);
unsigned follow_n_patterns(const struct follow *f);
const char *follow_pattern(const struct follow *f, unsigned i); /* as configured */
unsigned follow_n_watches(const struct follow *f);
uint64_t follow_n_events(const struct follow *f); /* inotify events handled since the start */

/* Units= (units.c): the unit has this ControlGroup ("/system.slice/x.service")
 * now, or none any more. */
void follow_add_unit(struct follow *f, const char *unit, const char *control_group);
void follow_remove_unit(struct follow *f, const char *unit);

/* IdleCgroups=: cgroupfs sends no event when cpu.idle changes; re-read it
 * for every watched cgroup (at an active sample, at reload). */
void follow_recheck_idle(struct follow *f);

/* Read and handle what inotify has queued, about FOLLOW_EVENTS_PER_PASS
 * events at most (the io handler does this; for tests without an event
 * loop). Returns the number of events handled. */
int follow_process(struct follow *f);
/* The inotify fd (-1 if none), for tests. */
int follow_fd(const struct follow *f);
