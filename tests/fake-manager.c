// SPDX-License-Identifier: GPL-2.0-or-later
/* A fake systemd manager on a bus: see fake-manager.h. Built into the cmocka
 * tests (with config.h) and into tests/tools/zt-fake-systemd (without). */

#ifndef _GNU_SOURCE /* config.h may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-manager.h"

int fake_manager_find(const struct fake_unit *units, unsigned n, const char *name) {
        for (unsigned i = 0; i < n; i++)
                if (strcmp(units[i].name, name) == 0)
                        return (int) i;
        return -1;
}

int fake_manager_set(struct fake_manager *fm, const char *name, const char *cgroup) {
        int i = fake_manager_find(fm->units, fm->n, name);

        if (i < 0) {
                if (fm->n >= FAKE_MANAGER_MAX_UNITS)
                        return -ENOSPC;
                i = (int) fm->n++;
        }
        snprintf(fm->units[i].name, sizeof(fm->units[i].name), "%s", name);
        snprintf(fm->units[i].cgroup, sizeof(fm->units[i].cgroup), "%s", cgroup);
        return 0;
}

void fake_manager_drop(struct fake_manager *fm, const char *name) {
        int i = fake_manager_find(fm->units, fm->n, name);

        if (i >= 0)
                fm->units[i] = fm->units[--fm->n];
}

/* The table file read again, if there is one (none yet: no units). */
static int reload(struct fake_manager *fm) {
        char line[600], name[256], cgroup[256];
        FILE *f;
        int r = 0;

        if (!fm->table)
                return 0;
        fm->n = 0;
        if (!(f = fopen(fm->table, "re")))
                return 0;
        while (r >= 0 && fgets(line, sizeof(line), f))
                if (sscanf(line, "%255s %255s", name, cgroup) == 2)
                        r = fake_manager_set(fm, name, strcmp(cgroup, "-") == 0 ? "" : cgroup);
        fclose(f);
        return r;
}

static void strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

static int list(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake_manager *fm = userdata;
        sd_bus_message *reply = NULL;
        char **states = NULL, **patterns = NULL;
        int r;

        if ((r = reload(fm)) < 0 || (r = sd_bus_message_read_strv(m, &states)) < 0 ||
            (r = sd_bus_message_read_strv(m, &patterns)) < 0 || (r = sd_bus_message_new_method_return(m, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)")) < 0)
                goto out;
        for (unsigned i = 0; r >= 0 && i < fm->n; i++) {
                const struct fake_unit *u = &fm->units[i];
                char *path = NULL;
                bool hit = false;

                for (char **p = patterns; p && *p; p++)
                        hit = hit || fnmatch(*p, u->name, 0) == 0;
                if (!hit || (r = sd_bus_path_encode(FAKE_MANAGER_UNIT_PATH, u->name, &path)) < 0)
                        continue;
                r = sd_bus_message_append(reply, "(ssssssouso)", u->name, "", "loaded",
                                          u->cgroup[0] ? "active" : "inactive", u->cgroup[0] ? "running" : "dead", "",
                                          fm->list_path ? fm->list_path : path, 0, "", "/");
                free(path);
        }
        if (r >= 0 && (r = sd_bus_message_close_container(reply)) >= 0)
                r = sd_bus_send(NULL, reply, NULL);
out:
        sd_bus_message_unref(reply);
        strv_free(states);
        strv_free(patterns);
        return r < 0 ? r : 1;
}

static int subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ((struct fake_manager *) userdata)->subscribed++;
        return sd_bus_reply_method_return(m, NULL);
}

/* GetUnit: a loaded unit's path; NoSuchUnit once it is unloaded. */
static int get_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake_manager *fm = userdata;
        const char *name;
        char *path = NULL;
        int r;

        if ((r = reload(fm)) < 0 || (r = sd_bus_message_read(m, "s", &name)) < 0)
                return r;
        if (fake_manager_find(fm->units, fm->n, name) < 0)
                return sd_bus_reply_method_errorf(m, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.",
                                                  name);
        if ((r = sd_bus_path_encode(FAKE_MANAGER_UNIT_PATH, name, &path)) < 0)
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

/* Properties.Get(ControlGroup) on a unit's object: the unit its path names
 * ("" for one not in the table, as systemd loads it to answer). */
static int unit_object(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake_manager *fm = userdata;
        const char *iface = NULL, *prop = NULL;
        char *name = NULL;
        int i, r;

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Get"))
                return 0;
        if (sd_bus_path_decode(sd_bus_message_get_path(m), FAKE_MANAGER_UNIT_PATH, &name) <= 0)
                return 0;
        if ((r = reload(fm)) >= 0)
                r = sd_bus_message_read(m, "ss", &iface, &prop);
        if (r >= 0 && fm->asked)
                fm->asked(name, iface, prop, fm->userdata);
        if (r >= 0 && strcmp(prop, "ControlGroup") != 0)
                r = sd_bus_reply_method_errorf(m, "org.freedesktop.DBus.Error.UnknownProperty", "not faked: %s",
                                               prop);
        else if (r >= 0) {
                fm->gets++;
                i = fake_manager_find(fm->units, fm->n, name);
                r = sd_bus_reply_method_return(m, "v", "s", i < 0 ? "" : fm->units[i].cgroup);
        }
        free(name);
        return r < 0 ? r : 1;
}

int fake_manager_attach(struct fake_manager *fm, sd_bus *bus) {
        int r;

        if ((r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                          manager_vtable, fm)) < 0 ||
            (r = sd_bus_add_fallback(bus, NULL, FAKE_MANAGER_UNIT_PATH, unit_object, fm)) < 0)
                return r;
        fm->bus = bus;
        return 0;
}

int fake_manager_signal(struct fake_manager *fm, const char *member, const char *name, const char *path) {
        char *own = NULL;
        int r;

        if ((r = sd_bus_path_encode(FAKE_MANAGER_UNIT_PATH, name, &own)) < 0)
                return r;
        if (strcmp(member, "JobRemoved") == 0)
                r = sd_bus_emit_signal(fm->bus, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", member,
                                       "uoss", 7, "/org/freedesktop/systemd1/job/7", name, "done");
        else if (strcmp(member, "UnitNew") == 0 || strcmp(member, "UnitRemoved") == 0)
                r = sd_bus_emit_signal(fm->bus, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", member,
                                       "so", name, path ? path : own);
        else
                r = -EINVAL;
        free(own);
        return r;
}
