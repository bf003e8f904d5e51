/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <libudev.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "log.h"
#include "monitor.h"
#include "util.h"

void monitor_init(struct monitor *mon, const struct kernel *k) {
        *mon = (struct monitor) { .kernel = k, .swaps_fd = -1 };
}

void monitor_check_swaps(struct monitor *mon, bool startup) {
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_STARTUP_WARNING, NULL };
        char buf[8192];
        ssize_t n = kernel_read(mon->kernel, "/proc/swaps", buf, sizeof(buf));
        int count = n < 0 ? (int) n : parse_swaps(buf);

        if (count < 0) {
                if (startup)
                        log_warning("Swap: cannot read /proc/swaps: %s", err_str(count));
                return;
        }
        if (!startup && (unsigned) count == mon->swaps)
                return;
        mon->swaps = (unsigned) count;
        if (count == 0)
                log_fields(LOG_NOTICE, fields,
                           "Swap: none active; zswap stores nothing until swap is added (watching /proc/swaps)");
        else
                log_info("Swap: %d active device(s)", count);
}

static int on_swaps(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        monitor_check_swaps(userdata, false);
        return 0;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct monitor *mon = userdata;
        struct udev_device *dev = udev_monitor_receive_device(mon->udev_monitor);
        const char *subsystem, *action;

        if (!dev)
                return 0;
        subsystem = udev_device_get_subsystem(dev);
        action = udev_device_get_action(dev);
        log_debug("uevent: %s %s %s", action ? action : "?", subsystem ? subsystem : "?",
                  udev_device_get_sysname(dev));
        if (subsystem && strcmp(subsystem, "memory") == 0)
                mon->wake(mon->userdata); /* MemTotal, and so the pool limit, may have changed */
        else
                monitor_check_swaps(mon, false); /* a swap device may have gone */
        udev_device_unref(dev);
        return 0;
}

static void setup_udev(struct monitor *mon, sd_event *e) {
        /* Without udevd (containers, early boot) only the kernel's own uevents arrive. */
        const char *source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel";
        int r;

        mon->udev = udev_new();
        if (mon->udev)
                mon->udev_monitor = udev_monitor_new_from_netlink(mon->udev, source);
        if (!mon->udev_monitor) {
                log_notice("udev: cannot monitor uevents; memory hot-plug is noticed at the next sample");
                return;
        }
        r = udev_monitor_filter_add_match_subsystem_devtype(mon->udev_monitor, "memory", NULL);
        if (r >= 0)
                r = udev_monitor_filter_add_match_subsystem_devtype(mon->udev_monitor, "block", NULL);
        if (r >= 0)
                r = udev_monitor_enable_receiving(mon->udev_monitor);
        if (r >= 0)
                r = sd_event_add_io(e, &mon->udev_io, udev_monitor_get_fd(mon->udev_monitor), EPOLLIN, on_uevent,
                                    mon);
        if (r < 0) {
                log_notice("udev: cannot monitor uevents (%s); memory hot-plug is noticed at the next sample",
                           err_str(r));
                return;
        }
        log_debug("udev: watching memory and block uevents (%s source)", source);
}

void monitor_start(struct monitor *mon, sd_event *e, bool use_udev) {
        mon->swaps_fd = kernel_open(mon->kernel, "/proc/swaps", O_RDONLY);
        if (mon->swaps_fd >= 0 && sd_event_add_io(e, &mon->swaps_io, mon->swaps_fd, EPOLLPRI, on_swaps, mon) < 0)
                log_debug("Cannot watch /proc/swaps (not a kernel file?)");
        if (use_udev)
                setup_udev(mon, e);
}

void monitor_free(struct monitor *mon) {
        mon->swaps_io = sd_event_source_disable_unref(mon->swaps_io);
        mon->udev_io = sd_event_source_disable_unref(mon->udev_io);
        if (mon->swaps_fd >= 0)
                close(mon->swaps_fd);
        mon->swaps_fd = -1;
        if (mon->udev_monitor)
                udev_monitor_unref(mon->udev_monitor);
        mon->udev_monitor = NULL;
        if (mon->udev)
                udev_unref(mon->udev);
        mon->udev = NULL;
}

unsigned monitor_swaps(const struct monitor *mon) {
        return mon->swaps;
}
