/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* When to sample: the timer that runs manager_tick(), the watchdog pings
 * (which also carry the idle check, so that an idle daemon wakes for
 * nothing else) and kicks from events (PSI triggers, hot-plug). */

#include "manager.h"

/* After a sample: arm the timer for the decision's next_usec, or leave the
 * idle check to the watchdog pings. */
void schedule_next(struct manager *m, const struct policy_decision *d);
/* WATCHDOG=1 every WatchdogSec/2, if the service manager asked for it. */
void schedule_watchdog(struct manager *m);
/* An event says "look now", but not more often than MinSampleMs
 * (userdata: the manager). */
void schedule_kick(void *userdata);
