/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon tells others: the status file in its state directory (for
 * "zswap-tuned status"), written after a sample when something changed, and
 * with [Metrics] TextfileDirectory= a Prometheus textfile, written at most
 * every 5 s while active and at least every [Metrics] IntervalSec= (idle
 * too: a timer armed only when there is a textfile, which re-reads the pool
 * and the PSI totals, so that its gauges never go stale). restore.c owns
 * the files; the snapshot is taken from each module's accessor. */

#include <stdio.h>

#include "manager.h"
#include "snapshot.h"

void publish_take(const struct manager *m, const struct policy_decision *d, const struct pool_sample *pool,
                  struct snapshot *s);
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
/* After a sample. */
void publish(struct manager *m, const struct policy_decision *d, const struct pool_sample *pool);
/* At start and reload: (re)arm the metrics timer. */
void publish_start(struct manager *m);
/* On exit: the status file goes; the metrics file says the daemon stopped
 * (zswap_tuned_up 0), and goes only when the package is purged. */
void publish_remove(struct manager *m);
void publish_free(struct manager *m);
