/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* When to sample: the timer that runs the sample (the tick callback), the
 * watchdog pings (which also carry the idle check, so that an idle daemon
 * wakes for nothing else) and kicks from events (PSI triggers, hot-plug). */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "policy.h"

struct schedule {
        sd_event *event;        /* NULL: nothing is armed (tests tick by hand) */
        sd_event_source *timer;
        sd_event_source *watchdog;  /* WATCHDOG=1 pings, which also carry the idle check */
        uint64_t watchdog_usec;     /* WatchdogSec=, 0 = none */
        bool idle;                  /* the last decision said: nothing happening */
        bool ticked;
        uint64_t last_tick;         /* CLOCK_MONOTONIC usec */
        uint64_t min_interval;      /* MinSampleMs */
        uint64_t idle_check;        /* the idle check's interval now */
        void (*tick)(void *userdata, uint64_t now);
        void *userdata;
};

void schedule_init(struct schedule *s, void (*tick)(void *userdata, uint64_t now), void *userdata);
/* After a sample at now: arm the timer for the decision's next_usec, or leave
 * the idle check to the watchdog pings. */
void schedule_next(struct schedule *s, uint64_t now, const struct policy_decision *d);
/* WATCHDOG=1 every WatchdogSec/2, if the service manager asked for it. */
void schedule_watchdog(struct schedule *s);
/* An event says "look now", but not more often than min_interval
 * (userdata: the struct schedule). */
void schedule_kick(void *userdata);
void schedule_free(struct schedule *s);
