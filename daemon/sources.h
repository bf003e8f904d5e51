/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The PSI sources: /proc/pressure/memory and each configured cgroup's
 * memory.pressure, with a trigger armed on each that wakes the event loop,
 * and the pressure figure each sample reads from them. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "kernel.h"

struct psi_src {
        char spec[CONF_CGROUP_NAME_MAX + 1]; /* what the config said ("system" for /proc/pressure/memory) */
        char path[512];         /* memory.pressure below the root prefix */
        int fd;                 /* armed trigger, -1 if none */
        sd_event_source *io;
        bool have_total;
        uint64_t total;
        bool gone;              /* missing or removed; retried while sampling */
        bool wake_only;         /* a batch cgroup: its stalls wake us, but are not pressure */
        bool followed;          /* added by sources_follow_add(), not named in the configuration */
        bool rest;              /* a cgroup of the rest: no batch work and holding none (see
                                 * sources_rest_pressure()); its stalls are not in the system figure */
        double pct;             /* its pressure over the last sample, < 0 = none */
};

/* Places for pressure sources (the system's, the named ones and followed
 * matches) and, apart, for the wake-up triggers of batch cgroups: however
 * many batch cgroups match, none takes a pressure source's place, nor the
 * reverse. A batch cgroup without a place is capped all the same; its
 * stalls just do not wake the daemon (said once). */
#define SOURCES_MAX_PRESSURE (1 + 2 * CONF_MAX_CGROUPS)
#define SOURCES_MAX_WAKE (CONF_MAX_CGROUPS + 32)
/* ... and for the cgroups of the rest, read while batch work is known and
 * no [Pressure] cgroup is there: the top-level cgroups, and below those that
 * hold batch work, down to SOURCES_REST_DEPTH levels. */
#define SOURCES_MAX_REST 32
#define SOURCES_REST_DEPTH 3

/* Which figure the rules read (sources_rest_pressure()). */
typedef enum {
        SOURCES_READ_ALL,       /* no batch work known: every pressure source, the system's included */
        SOURCES_READ_NAMED,     /* batch work known: the [Pressure] cgroups (named or followed) */
        SOURCES_READ_REST,      /* batch work known, no [Pressure] cgroup: the cgroups of the rest */
} sources_read;

struct sources {
        struct psi_src src[SOURCES_MAX_PRESSURE + SOURCES_MAX_WAKE + SOURCES_MAX_REST];
        unsigned n;
        bool wake_full_said, long_said; /* said once since the setup */
        /* the rest: looked for again at the next sample when the batch
         * cgroups or the pressure sources change, one of its cgroups went,
         * and every minute of samples (a new top-level cgroup) */
        bool rest_dirty;
        uint64_t rest_age;
        int read_said;          /* sources_read last said; -1: say it at the next sample */
        char rest_list[256];    /* the rest's cgroups, as last said */
        char rest_of[CONF_CGROUP_NAME_MAX + 16]; /* "the rest: system.slice": whose pressure the rules read */
        const struct kernel *kernel;
        sd_event *event;        /* NULL: nothing to arm triggers in (tests) */
        /* a trigger fired, or a source went away */
        void (*wake)(void *userdata);
        void *userdata;
        int type;               /* enum psi_type */
        uint64_t stall_usec, window_usec;
        bool window_rounded;    /* a trigger took a longer window (no CAP_SYS_RESOURCE) */
};

/* (Re)build the sources from the configuration and arm their triggers. */
void sources_setup(struct sources *s, const struct conf *c);
/* Stall time over the last dt usec in percent, the maximum over the pressure
 * sources that have a delta (a new one has none yet). Sources that went away
 * are retried. */
double sources_sample(struct sources *s, uint64_t dt);
/* The same figure over the cgroup sources alone (named and followed; not
 * the system's, not the batch cgroups'), as of the last sources_sample();
 * false when none of them measured then. */
bool sources_cgroups_pressure(const struct sources *s, double *max);
/* Is batch work known: any batch cgroup (named, followed or idle-marked)
 * there (its memory.pressure readable when last looked at)? Then the rules read sources_rest_pressure(), not
 * sources_sample()'s figure. */
bool sources_batch_known(const struct sources *s);
/* The pressure of the rest as of the last sources_sample(): the max over
 * the [Pressure] cgroups (named and followed) when one is there, else over
 * the top-level cgroups that are no batch cgroup and hold none (one that
 * holds one, system.slice holding batch.service, is read as its children
 * less the batch ones, down to SOURCES_REST_DEPTH levels); never the
 * system's, which is then mostly the batch's own stalls. false when none
 * measured. s->rest_of names the cgroup of the max. */
bool sources_rest_pressure(struct sources *s, double *max);
sources_read sources_reads(const struct sources *s);
/* A followed cgroup (cgroup-follow.c; dir: "/sys/fs/cgroup/...") came: a
 * pressure source, or (wake_only) a batch cgroup whose stalls wake us.
 * Nothing new when its memory.pressure is already watched the same way
 * (also named in the configuration). -ENOSPC when every place of its kind
 * is taken (SOURCES_MAX_PRESSURE, SOURCES_MAX_WAKE); -ENAMETOOLONG for a
 * dir longer than CONF_CGROUP_NAME_MAX (said once), which would not be
 * kept whole. */
int sources_follow_add(struct sources *s, const char *dir, bool wake_only);
/* ... or went (a named source stays). */
void sources_follow_remove(struct sources *s, const char *dir, bool wake_only);
/* Is the cgroup (dir: "/sys/fs/cgroup/...") a pressure source, named or
 * followed, or does it lie inside one or hold one? A cap on it would
 * reach the pressure source's pages (memory.zswap.max is hierarchical):
 * such a cgroup is never capped as batch work. */
bool sources_is_pressure(const struct sources *s, const char *dir);
/* ... and the pressure source's spec (as configured, or the followed
 * cgroup's directory), or NULL. */
const char *sources_pressure_overlap(const struct sources *s, const char *dir);
/* Is any trigger armed? Without one nothing wakes us: poll. */
bool sources_armed(const struct sources *s);
void sources_free(struct sources *s);
struct snapshot;
/* Each pressure source (not the batch cgroups' wake-only ones) as of the last
 * sample: path, pressure, stall total; and WARN_PSI_WINDOW. */
void sources_snapshot(const struct sources *s, struct snapshot *snap);
/* Re-read the stall totals into snap (cheap; changes nothing here): the
 * metrics of an idle daemon. */
void sources_peek_totals(const struct sources *s, struct snapshot *snap);
