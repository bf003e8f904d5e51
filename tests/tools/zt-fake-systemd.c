// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt-fake-systemd: a fake systemd manager on a bus, for tests/units-bus.sh.
 *
 *   zt-fake-systemd TABLE
 *
 * Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS), owns
 * org.freedesktop.systemd1 and answers, from TABLE (read again at each
 * call; one unit a line: "NAME CGROUP", CGROUP "-" for a unit loaded
 * without one), what the daemon asks: Manager.Subscribe,
 * ListUnitsByPatterns, GetUnit (NoSuchUnit for a unit not in TABLE) and
 * Properties.Get(ControlGroup) on a unit's object (its path decoded; ""
 * for a unit not in TABLE, as systemd loads one to answer): the fake
 * manager of tests/fake-manager.c, which the cmocka tests use too.
 * Reads commands on stdin, one a line, and emits the manager's signals as
 * the owner of the name:
 *   UnitNew NAME [PATH]    (PATH: the object to name, else NAME's own)
 *   UnitRemoved NAME
 *   JobRemoved NAME
 * Writes "ready UNIQUE-NAME" to stdout once it owns the name, and "sent
 * LINE" after each signal. Exits 0 at the end of stdin, 1 when the bus goes
 * away or on an error, 2 on a usage error.
 */

#ifndef _GNU_SOURCE /* config.h may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "../fake-manager.h"

static struct fake_manager fm;

static int command(const char *line) {
        char cmd[32], name[256], obj[512] = "";
        int n = sscanf(line, "%31s %255s %511s", cmd, name, obj), r;

        if (n < 2)
                return -EINVAL;
        r = fake_manager_signal(&fm, cmd, name, n == 3 ? obj : NULL);
        if (r >= 0)
                r = sd_bus_flush(fm.bus);
        if (r >= 0)
                printf("sent %s\n", line);
        fflush(stdout);
        return r;
}

static int on_stdin(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        static char buf[4096];
        static size_t have;
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        char *nl;

        if (n <= 0)
                return sd_event_exit(sd_event_source_get_event(s), n < 0 ? 1 : 0);
        have += (size_t) n;
        buf[have] = '\0';
        while ((nl = strchr(buf, '\n'))) {
                *nl = '\0';
                if (*buf && command(buf) < 0) {
                        fprintf(stderr, "zt-fake-systemd: cannot do \"%s\"\n", buf);
                        return sd_event_exit(sd_event_source_get_event(s), 1);
                }
                have -= (size_t) (nl + 1 - buf);
                memmove(buf, nl + 1, have + 1);
        }
        if (have == sizeof(buf) - 1)
                return sd_event_exit(sd_event_source_get_event(s), 1);
        return 0;
}

int main(int argc, char **argv) {
        sd_event *event = NULL;
        sd_bus *bus = NULL;
        const char *unique = NULL;
        int r, rc = 1;

        if (argc != 2) {
                fprintf(stderr, "usage: zt-fake-systemd TABLE\n");
                return 2;
        }
        fm.table = argv[1];
        if ((r = sd_event_default(&event)) < 0 || (r = sd_bus_open_system(&bus)) < 0 ||
            (r = fake_manager_attach(&fm, bus)) < 0 ||
            (r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0)) < 0 ||
            (r = sd_bus_get_unique_name(bus, &unique)) < 0 || (r = sd_bus_attach_event(bus, event, 0)) < 0 ||
            (r = sd_bus_set_exit_on_disconnect(bus, 1)) < 0 ||
            (r = sd_event_add_io(event, NULL, STDIN_FILENO, EPOLLIN, on_stdin, NULL)) < 0) {
                fprintf(stderr, "zt-fake-systemd: %s\n", strerror(-r));
                goto out;
        }
        printf("ready %s\n", unique);
        fflush(stdout);
        r = sd_event_loop(event);
        rc = r < 0 ? 1 : r;
out:
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        return rc;
}
