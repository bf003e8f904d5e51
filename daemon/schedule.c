/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-daemon.h>

#include "log.h"
#include "schedule.h"
#include "util.h"

void schedule_init(struct schedule *s, void (*tick)(void *userdata, uint64_t now), void *userdata) {
        *s = (struct schedule) { .tick = tick, .userdata = userdata };
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        struct schedule *s = userdata;

        s->tick(s->userdata, now_usec());
        return 0;
}

static void arm(struct schedule *s, uint64_t usec_from_now) {
        int r;

        if (!s->event)
                return;
        if (usec_from_now == 0) {
                if (s->timer)
                        sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
                return;
        }
        uint64_t when = now_usec() + usec_from_now;
        /* Idle checks may slide to coalesce with other wake-ups (the watchdog). */
        uint64_t accuracy = usec_from_now >= 10 * USEC_PER_SEC ? usec_from_now / 10 : 1000;
        if (!s->timer) {
                r = sd_event_add_time(s->event, &s->timer, CLOCK_MONOTONIC, when, accuracy, on_timer, s);
                if (r < 0)
                        log_error("Cannot arm the sample timer: %s", err_str(r));
                return;
        }
        sd_event_source_set_time(s->timer, when);
        sd_event_source_set_time_accuracy(s->timer, accuracy);
        sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
}

/* The watchdog ping, every WatchdogSec/2. While idle it also does the idle
 * check when one is due, so that an idle daemon wakes up for nothing else. */
static int on_watchdog(sd_event_source *src, uint64_t usec, void *userdata) {
        struct schedule *s = userdata;
        uint64_t now = now_usec();

        sd_notify(false, "WATCHDOG=1");
        if (s->idle && s->idle_check > 0 && now - s->last_tick >= s->idle_check)
                s->tick(s->userdata, now);
        sd_event_source_set_time(src, usec + s->watchdog_usec / 2);
        return 0;
}

void schedule_watchdog(struct schedule *s) {
        int r;

        if (!s->event || sd_watchdog_enabled(false, &s->watchdog_usec) <= 0)
                return;
        r = sd_event_add_time_relative(s->event, &s->watchdog, CLOCK_MONOTONIC, s->watchdog_usec / 2, 0,
                                       on_watchdog, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->watchdog, SD_EVENT_ON);
        if (r < 0)
                log_error("Cannot arm the watchdog timer: %s", err_str(r));
        else
                log_debug("Watchdog: pinging every %llu ms", (unsigned long long) (s->watchdog_usec / 2000));
}

void schedule_kick(void *userdata) {
        struct schedule *s = userdata;
        uint64_t now = now_usec();
        int enabled = SD_EVENT_OFF;
        uint64_t next = 0;

        if (s->timer) {
                sd_event_source_get_enabled(s->timer, &enabled);
                sd_event_source_get_time(s->timer, &next);
        }
        /* The timer comes soon enough anyway. Not waiting for it otherwise
         * matters: measured, a batch job took the pool from 25% to its
         * limit within one SampleMs. */
        if (enabled != SD_EVENT_OFF && next <= now + s->min_interval)
                return;
        if (s->ticked && now - s->last_tick < s->min_interval)
                arm(s, s->last_tick + s->min_interval - now);
        else
                s->tick(s->userdata, now);
}

void schedule_next(struct schedule *s, uint64_t now, const struct policy_decision *d) {
        s->ticked = true;
        s->last_tick = now;
        s->idle = d->idle;
        if (d->idle)
                s->idle_check = d->next_usec;
        /* Idle under a watchdog: its pings carry the idle check, so that
         * nothing else wakes us (see on_watchdog); not when polling faster
         * than the pings come. */
        bool ride = d->idle && s->watchdog && d->next_usec >= s->watchdog_usec / 2;
        arm(s, ride ? 0 : d->next_usec);
}

void schedule_free(struct schedule *s) {
        s->timer = sd_event_source_disable_unref(s->timer);
        s->watchdog = sd_event_source_disable_unref(s->watchdog);
}
