/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-daemon.h>

#include "log.h"
#include "schedule.h"
#include "util.h"

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;

        manager_tick(m, now_usec());
        return 0;
}

static void schedule(struct manager *m, uint64_t usec_from_now) {
        int r;

        if (!m->event)
                return;
        if (usec_from_now == 0) {
                if (m->timer)
                        sd_event_source_set_enabled(m->timer, SD_EVENT_OFF);
                return;
        }
        uint64_t when = now_usec() + usec_from_now;
        /* Idle checks may slide to coalesce with other wake-ups (the watchdog). */
        uint64_t accuracy = usec_from_now >= 10 * USEC_PER_SEC ? usec_from_now / 10 : 1000;
        if (!m->timer) {
                r = sd_event_add_time(m->event, &m->timer, CLOCK_MONOTONIC, when, accuracy, on_timer, m);
                if (r < 0)
                        log_error("Cannot arm the sample timer: %s", err_str(r));
                return;
        }
        sd_event_source_set_time(m->timer, when);
        sd_event_source_set_time_accuracy(m->timer, accuracy);
        sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
}

/* The watchdog ping, every WatchdogSec/2. While idle it also does the idle
 * check when one is due, so that an idle daemon wakes up for nothing else. */
static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;
        uint64_t now = now_usec();

        sd_notify(false, "WATCHDOG=1");
        if (m->idle && m->params.idle_check_usec > 0 && now - m->last_sample >= m->params.idle_check_usec)
                manager_tick(m, now);
        sd_event_source_set_time(s, usec + m->watchdog_usec / 2);
        return 0;
}

void schedule_watchdog(struct manager *m) {
        int r;

        if (sd_watchdog_enabled(false, &m->watchdog_usec) <= 0)
                return;
        r = sd_event_add_time_relative(m->event, &m->watchdog, CLOCK_MONOTONIC, m->watchdog_usec / 2, 0,
                                       on_watchdog, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->watchdog, SD_EVENT_ON);
        if (r < 0)
                log_error("Cannot arm the watchdog timer: %s", err_str(r));
        else
                log_debug("Watchdog: pinging every %llu ms", (unsigned long long) (m->watchdog_usec / 2000));
}

void schedule_kick(void *userdata) {
        struct manager *m = userdata;
        uint64_t now = now_usec();
        int enabled = SD_EVENT_OFF;
        uint64_t next = 0;

        if (m->timer) {
                sd_event_source_get_enabled(m->timer, &enabled);
                sd_event_source_get_time(m->timer, &next);
        }
        /* The timer comes soon enough anyway. Not waiting for it otherwise
         * matters: measured, a batch job took the pool from 25% to its
         * limit within one SampleMs. */
        if (enabled != SD_EVENT_OFF && next <= now + m->params.min_sample_usec)
                return;
        if (m->have_sample && now - m->last_sample < m->params.min_sample_usec)
                schedule(m, m->last_sample + m->params.min_sample_usec - now);
        else
                manager_tick(m, now);
}

void schedule_next(struct manager *m, const struct policy_decision *d) {
        m->idle = d->idle;
        /* Idle under a watchdog: its pings carry the idle check, so that
         * nothing else wakes us (see on_watchdog); not when polling faster
         * than the pings come. */
        bool ride = d->idle && m->watchdog && d->next_usec >= m->watchdog_usec / 2;
        schedule(m, ride ? 0 : d->next_usec);
}
