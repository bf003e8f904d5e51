/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Things that change under us without a PSI event: swap areas coming and
 * going (/proc/swaps polls POLLPRI) and memory hot-plug (a udev "memory"
 * uevent; it moves MemTotal and so the pool limit). libudev is used for
 * exactly that; without udevd only the kernel's own uevents arrive. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "kernel.h"

struct udev;
struct udev_monitor;

struct monitor {
        const struct kernel *kernel;
        int swaps_fd;
        sd_event_source *swaps_io, *udev_io;
        struct udev *udev;
        struct udev_monitor *udev_monitor;
        unsigned swaps;         /* active swap areas */
        void (*wake)(void *userdata); /* memory hot-plug: look at the pool now */
        void *userdata;
};

void monitor_init(struct monitor *mon, const struct kernel *k);
/* Count swap areas (and say so at startup, or when it changes). */
void monitor_check_swaps(struct monitor *mon, bool startup);
/* Watch /proc/swaps, and uevents when use_udev. */
void monitor_start(struct monitor *mon, sd_event *e, bool use_udev);
void monitor_free(struct monitor *mon);
/* Active swap areas, as last seen. */
unsigned monitor_swaps(const struct monitor *mon);
