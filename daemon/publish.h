/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon tells others after a sample: the status file in its
 * runtime directory (for "zswap-tuned status") and, with [Metrics]
 * TextfileDirectory=, a Prometheus textfile. Both are written atomically and
 * only when something changed; the metrics at most every 5 s while active
 * and never while idle. */

#include <stdio.h>

#include "manager.h"
#include "snapshot.h"

void publish_take(const struct manager *m, const struct policy_decision *d, const struct pool_sample *pool,
                  struct snapshot *s);
void publish_metrics_text(const struct manager *m, const struct snapshot *s, FILE *f);
void publish(struct manager *m, const struct policy_decision *d, const struct pool_sample *pool);
/* On exit: nothing stale is left behind. */
void publish_remove(struct manager *m);
/* --restore: the metrics file (and temporaries) an instance that was killed
 * left in dir, the configured TextfileDirectory= ("" = none). */
void publish_remove_stale_metrics(const char *dir);
