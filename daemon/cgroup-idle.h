/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* IdleCgroups=: which cgroups are batch work for their cpu.idle. Only
 * root's own: a delegated subtree (a cgroup directory not owned by the
 * owner of the hierarchy's root, or marked with systemd's trusted.delegate
 * or user.delegate xattr, or whose cgroup.procs or cgroup.subtree_control
 * belongs to someone else) is its user's, and nothing in it is taken.
 *
 * cgroupfs sends no event when cpu.idle is written, and systemd writes it
 * a moment after it makes a unit's cgroup: a new cgroup that is not idle
 * yet is looked at again every CGIDLE_RECHECK_USEC for CGIDLE_YOUNG_USEC
 * (at most CGIDLE_YOUNG_MAX at a time; the rest wait for the recheck of an
 * active sample). Nothing wakes while no cgroup comes. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "kernel.h"
#include "util.h"

#define CGIDLE_YOUNG_MAX 64
#define CGIDLE_RECHECK_USEC (USEC_PER_SEC / 5)
#define CGIDLE_YOUNG_USEC (2 * USEC_PER_SEC)

struct cgidle;

struct cgidle_params {
        const char *name;               /* "Batch" or "Pressure", in messages */
        const struct kernel *kernel;
        sd_event *event;                /* NULL: no rechecks of new cgroups (tests) */
        const char *mount;              /* the cgroup v2 mount, no root prefix */
        /* a new cgroup became idle (its path, no root prefix) */
        void (*on_idle)(void *userdata, const char *path);
        void *userdata;
};

/* NULL when out of memory. Reads whose the hierarchy is (the owner of the
 * mount: root; in a fake tree, its maker). */
struct cgidle *cgidle_new(const struct cgidle_params *p);
struct cgidle *cgidle_free(struct cgidle *c); /* NULL-safe */

/* The cgroup's cpu.idle is 1. */
bool cgidle_is_idle(const struct cgidle *c, const char *path);
/* dir is someone else's than root's (or gone): IdleCgroups= takes nothing
 * in it and does not go below it. Said once, the rest at debug level. */
bool cgidle_refused(struct cgidle *c, const char *dir);
/* No directory from the mount down to path is refused (one may have become
 * delegated since a walk went down). */
bool cgidle_trusted(struct cgidle *c, const char *path);
/* A new cgroup that is not idle (yet): look again shortly; on_idle if it
 * becomes so. */
void cgidle_young(struct cgidle *c, const char *path);
