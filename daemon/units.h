/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Units= ([Batch] and [Pressure]): systemd unit names or globs, resolved to
 * each unit's ControlGroup over the system bus and followed through the
 * manager's UnitNew, UnitRemoved and JobRemoved signals. */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "conf.h"

#define UNIT_NAME_MAX 255

/* Is this a unit name or glob systemd could have, of a type that holds a
 * cgroup: 1 to UNIT_NAME_MAX of [A-Za-z0-9:_.\\@-] and the glob characters
 * *?[]!^, ending literally in .service, .scope, .slice, .socket, .mount or
 * .swap (backup@*.service; not batch-*, which could take system.slice)?
 * NULL if so, else why not: a static text, good until the next call. */
const char *unit_pattern_check(const char *pattern);
/* Does the unit's name match the pattern (fnmatch(3), as systemd), and is it
 * of the type the pattern ends in? Pure. */
bool unit_pattern_match(const char *pattern, const char *unit);
/* ... one of the patterns? */
bool unit_patterns_match(const struct conf_list *patterns, const char *unit);

struct units;
/* A unit matching a pattern has a cgroup now (cgroup: its ControlGroup
 * without the leading '/'), or has none any more. */
typedef void (*units_add_t)(const char *unit, const char *cgroup, void *userdata);
typedef void (*units_remove_t)(const char *unit, void *userdata);

/* Follow the units matching patterns on bus (taken over: units_free()
 * closes it; NULL: the system bus, opened here; without one the daemon says
 * so once per run and this returns a negative errno-style value: the caller
 * keeps its glob paths). Calls add for every matching unit with a cgroup,
 * found by ListUnitsByPatterns and later through UnitNew and JobRemoved (a
 * unit's ControlGroup is set when its start job runs), and remove for each
 * that goes (a UnitRemoved the manager confirms, or its ControlGroup empty
 * after a job). Signals are believed only from the current owner of
 * org.freedesktop.systemd1 (GetNameOwner, then NameOwnerChanged from the
 * bus itself); a new owner is subscribed to and listed again, and the
 * ControlGroup is always read on the path the unit's name makes. When the
 * system bus opened here goes away the units known are kept and the bus
 * is reached again (1 s doubling to 60 s), then listed again. The bus is
 * attached to event. Nothing blocks: every call is asynchronous. bus may be
 * a direct connection (tests): then signals are taken from the peer. */
int units_new(struct units **ret, sd_event *event, sd_bus *bus, const struct conf_list *patterns,
              units_add_t add, units_remove_t remove, void *userdata);
struct units *units_free(struct units *u);
/* How many units are followed, that have a cgroup. */
unsigned units_count(const struct units *u);
/* Have the replies to the initial listing arrived (for tests)? */
bool units_listed(const struct units *u);
