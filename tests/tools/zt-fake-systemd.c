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
 * for a unit not in TABLE, as systemd loads one to answer).
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
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define UNIT_PATH "/org/freedesktop/systemd1/unit"

static const char *table;
static sd_bus *bus;

/* The cgroup of name in the table into cgroup ("" for "-"); false if the
 * table has no such unit. */
static bool lookup(const char *name, char *cgroup, size_t size) {
        char line[512], n[256], c[256];
        bool found = false;
        FILE *f = fopen(table, "re");

        if (!f)
                return false;
        while (!found && fgets(line, sizeof(line), f))
                if (sscanf(line, "%255s %255s", n, c) == 2 && strcmp(n, name) == 0) {
                        snprintf(cgroup, size, "%s", strcmp(c, "-") == 0 ? "" : c);
                        found = true;
                }
        fclose(f);
        return found;
}

static int list(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        char **states = NULL, **patterns = NULL, line[512], n[256], c[256];
        FILE *f;
        int r;

        if ((r = sd_bus_message_read_strv(m, &states)) < 0 || (r = sd_bus_message_read_strv(m, &patterns)) < 0 ||
            (r = sd_bus_message_new_method_return(m, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)")) < 0)
                goto out;
        if ((f = fopen(table, "re"))) {
                while (r >= 0 && fgets(line, sizeof(line), f)) {
                        char *path = NULL;
                        bool hit = false;
                        if (sscanf(line, "%255s %255s", n, c) != 2)
                                continue;
                        for (char **p = patterns; p && *p; p++)
                                hit = hit || fnmatch(*p, n, 0) == 0;
                        if (!hit || (r = sd_bus_path_encode(UNIT_PATH, n, &path)) < 0)
                                continue;
                        r = sd_bus_message_append(reply, "(ssssssouso)", n, "", "loaded",
                                                  strcmp(c, "-") ? "active" : "inactive",
                                                  strcmp(c, "-") ? "running" : "dead", "", path, 0, "", "/");
                        free(path);
                }
                fclose(f);
        }
        if (r >= 0 && (r = sd_bus_message_close_container(reply)) >= 0)
                r = sd_bus_send(NULL, reply, NULL);
out:
        sd_bus_message_unref(reply);
        for (char **p = states; p && *p; p++)
                free(*p);
        free(states);
        for (char **p = patterns; p && *p; p++)
                free(*p);
        free(patterns);
        return r < 0 ? r : 1;
}

static int subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return sd_bus_reply_method_return(m, NULL);
}

static int get_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *name;
        char cgroup[256], *path = NULL;
        int r;

        if ((r = sd_bus_message_read(m, "s", &name)) < 0)
                return r;
        if (!lookup(name, cgroup, sizeof(cgroup)))
                return sd_bus_reply_method_errorf(m, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.",
                                                  name);
        if ((r = sd_bus_path_encode(UNIT_PATH, name, &path)) < 0)
                return r;
        r = sd_bus_reply_method_return(m, "o", path);
        free(path);
        return r;
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ListUnitsByPatterns", "asas", "a(ssssssouso)", list, 0),
        SD_BUS_METHOD("Subscribe", "", "", subscribe, 0),
        SD_BUS_METHOD("GetUnit", "s", "o", get_unit, 0),
        SD_BUS_VTABLE_END,
};

static int unit_object(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *iface, *prop;
        char *name = NULL, cgroup[256] = "";
        int r;

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Get"))
                return 0;
        if (sd_bus_path_decode(sd_bus_message_get_path(m), UNIT_PATH, &name) <= 0)
                return 0;
        r = sd_bus_message_read(m, "ss", &iface, &prop);
        if (r >= 0 && strcmp(prop, "ControlGroup") != 0)
                r = sd_bus_reply_method_errorf(m, "org.freedesktop.DBus.Error.UnknownProperty", "not faked: %s",
                                               prop);
        else if (r >= 0) {
                (void) lookup(name, cgroup, sizeof(cgroup));
                r = sd_bus_reply_method_return(m, "v", "s", cgroup);
        }
        free(name);
        return r < 0 ? r : 1;
}

static int command(const char *line) {
        char cmd[32], name[256], obj[512] = "", *path = NULL;
        int n = sscanf(line, "%31s %255s %511s", cmd, name, obj), r;

        if (n < 2)
                return -EINVAL;
        if ((r = sd_bus_path_encode(UNIT_PATH, name, &path)) < 0)
                return r;
        if (strcmp(cmd, "JobRemoved") == 0)
                r = sd_bus_emit_signal(bus, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", cmd,
                                       "uoss", 7, "/org/freedesktop/systemd1/job/7", name, "done");
        else if (strcmp(cmd, "UnitNew") == 0 || strcmp(cmd, "UnitRemoved") == 0)
                r = sd_bus_emit_signal(bus, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", cmd, "so",
                                       name, n == 3 ? obj : path);
        else
                r = -EINVAL;
        free(path);
        if (r >= 0)
                r = sd_bus_flush(bus);
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
        const char *unique = NULL;
        int r, rc = 1;

        if (argc != 2) {
                fprintf(stderr, "usage: zt-fake-systemd TABLE\n");
                return 2;
        }
        table = argv[1];
        if ((r = sd_event_default(&event)) < 0 || (r = sd_bus_open_system(&bus)) < 0 ||
            (r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                          manager_vtable, NULL)) < 0 ||
            (r = sd_bus_add_fallback(bus, NULL, UNIT_PATH, unit_object, NULL)) < 0 ||
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
