/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The manager's side of the followed cgroups: the match sets of [Batch]
 * and [Pressure] (cgroup-follow.c, units.c) wired to batch.c and
 * sources.c. Kept apart from manager.c so that the wiring is a few calls. */

#include <stdint.h>
#include <systemd/sd-event.h>

struct manager;
struct snapshot;
struct follow;
struct units;

struct follow_wire {
        struct follow *batch, *pressure;
        struct units *batch_units, *pressure_units;
        sd_event_source *kick;          /* one sample soon after a burst of changes */
        sd_event_source *settle;        /* ... and one a second later: systemd's own writes are done */
        uint64_t idle_checked;          /* CLOCK_MONOTONIC usec of the last cpu.idle recheck */
        bool sources_full_said;
        bool overlap_said;              /* a batch match refused for a pressure source (said once) */
};

/* Build the match sets from m->conf (after batch_setup() and
 * sources_setup(), at start and reload): their first matches join the
 * batch cgroups and the pressure sources at once. */
void follow_wire_start(struct manager *m);
/* Stop following (before a reload rebuilds everything, and at exit);
 * the batch cgroups and sources are left to their own setup and restore. */
void follow_wire_stop(struct manager *m);
/* At each sample: while active, re-read cpu.idle ([Batch] IdleCgroups=) at
 * most every FOLLOW_IDLE_RECHECK_USEC. */
#define FOLLOW_IDLE_RECHECK_USEC (5 * USEC_PER_SEC)
void follow_wire_tick(struct manager *m, uint64_t now);
/* Each pattern and how many cgroups it takes now, for "status". */
void follow_wire_snapshot(const struct manager *m, struct snapshot *s);
