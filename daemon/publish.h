/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon tells others: the status file in its state directory (for
 * "zswap-tuned status"), written after a sample when something changed, and
 * with [Metrics] TextfileDirectory= a Prometheus textfile, written at most
 * every 5 s while active and at least every [Metrics] IntervalSec= (idle
 * too: a timer armed only when there is a textfile, which re-reads the pool
 * and the PSI totals, so that its gauges never go stale). restore.c owns
 * the files. This file is told, and calls nothing higher up: it takes a
 * plain snapshot that manager.c built (from each module's accessor), and
 * writes through the restore handle it was given. */

#include <stdbool.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "kernel.h"
#include "restore.h"
#include "snapshot.h"

struct publisher {
        struct restore *restore;        /* writes the files */
        /* the metrics timer's fresh figures (pool, PSI totals, counters)
         * into the last snapshot: the manager's, as the schedule's tick */
        void (*refresh)(void *userdata, struct snapshot *s);
        void *userdata;
        char *published;                /* the status last written, less its time */
        struct snapshot *last;          /* for the metrics timer */
        uint64_t metrics_written;       /* CLOCK_MONOTONIC usec */
        uint64_t interval;              /* [Metrics] IntervalSec=, usec */
        sd_event_source *metrics_timer; /* armed only while there is a textfile */
};

void publish_init(struct publisher *p, struct restore *r, void (*refresh)(void *userdata, struct snapshot *s),
                  void *userdata);
/* The kernel's zswap counters (/proc/vmstat, debugfs) into s->counters[]. */
void publish_read_counters(const struct kernel *k, struct snapshot *s);
/* The textfile's text for a snapshot (and the build's version). */
void publish_metrics_text(const struct snapshot *s, FILE *f);
/* ... and once the daemon stopped: zswap_tuned_up 0, the version and the
 * time; no other figure (they would describe a daemon that is gone). */
void publish_metrics_stopped(FILE *f);
char *publish_metrics_stopped_text(void); /* malloc'd; NULL: out of memory */
/* [Metrics] TextfileDirectory= as restore.c takes it: there, a directory
 * (not a symlink), owned by this user (root), writable by group or others
 * only if sticky. 0, or -errno with "FILE:LINE: TextfileDirectory=...: why"
 * in buf. */
int publish_check_metrics_dir(const struct conf *c, char *buf, size_t size);
/* After a sample: its snapshot (kept for the metrics timer), and whether
 * the mode changed (the metrics are then written at once). */
void publish(struct publisher *p, const struct snapshot *s, bool mode_changed);
/* At start and reload, after a sample: (re)arm the metrics timer (event
 * NULL: none), and say which counters the kernel does not tell. */
void publish_start(struct publisher *p, sd_event *event, unsigned interval_sec);
/* On exit: the status file goes; the metrics file says the daemon stopped
 * (zswap_tuned_up 0), and goes only when the package is purged. */
void publish_remove(struct publisher *p);
void publish_free(struct publisher *p);
