/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fake systemd manager (org.freedesktop.systemd1) on a bus, for the tests
 * of Units= (tests/test-units.c, tests/test-follow.c and
 * tests/tools/zt-fake-systemd.c): it answers, from a table of units, what
 * units.c asks, Manager.Subscribe, ListUnitsByPatterns, GetUnit
 * (NoSuchUnit for a unit not in the table) and Properties.Get(ControlGroup)
 * on a unit's object (its path decoded; "" for a unit not in the table, as
 * systemd loads one to answer), and emits the manager's UnitNew,
 * UnitRemoved and JobRemoved. No cmocka: errors are returned (a negative
 * errno), the tests assert on them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#define FAKE_MANAGER_UNIT_PATH "/org/freedesktop/systemd1/unit"
#define FAKE_MANAGER_MAX_UNITS 32

struct fake_unit {
        char name[256];
        char cgroup[256]; /* "": loaded, without a cgroup (not running) */
};

struct fake_manager {
        sd_bus *bus; /* the connection it answers on (fake_manager_attach) */
        struct fake_unit units[FAKE_MANAGER_MAX_UNITS];
        unsigned n;
        /* if set, the table is read from this file at each call: one unit a
         * line, "NAME CGROUP", CGROUP "-" for a unit loaded without one */
        const char *table;
        /* if set, the object path the listing names for every unit (a lying
         * listing); else each unit's own */
        const char *list_path;
        /* if set, told of each Properties.Get before it is answered */
        void (*asked)(const char *unit, const char *iface, const char *prop, void *userdata);
        void *userdata;
        unsigned subscribed, gets; /* Subscribe calls, ControlGroup answers */
};

/* Answer on bus (the manager's objects added to it; the bus is the caller's:
 * it connects, owns the name if it should, attaches it to an event loop and
 * closes it). Again with a new bus for a new manager. */
int fake_manager_attach(struct fake_manager *fm, sd_bus *bus);

/* The unit in the table, added or its cgroup changed; -ENOSPC when full. */
int fake_manager_set(struct fake_manager *fm, const char *name, const char *cgroup);

/* The unit unloaded: gone from the table (nothing if it is not there). */
void fake_manager_drop(struct fake_manager *fm, const char *name);

/* The unit's index in units[], or -1. */
int fake_manager_find(const struct fake_unit *units, unsigned n, const char *name);

/* The manager's signal member ("UnitNew", "UnitRemoved", "JobRemoved") for
 * the unit; path: the object a UnitNew or UnitRemoved names (NULL: the
 * unit's own). -EINVAL for another member. */
int fake_manager_signal(struct fake_manager *fm, const char *member, const char *name, const char *path);
