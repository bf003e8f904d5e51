/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "units.h"
#include "util.h"

/* The unit types that hold a cgroup, and the interface of their ControlGroup. */
static const struct {
        const char *suffix, *iface;
} unit_types[] = {
        { ".service", "org.freedesktop.systemd1.Service" }, { ".scope", "org.freedesktop.systemd1.Scope" },
        { ".slice", "org.freedesktop.systemd1.Slice" },     { ".socket", "org.freedesktop.systemd1.Socket" },
        { ".mount", "org.freedesktop.systemd1.Mount" },     { ".swap", "org.freedesktop.systemd1.Swap" },
};

/* The index in unit_types of the type a name (or pattern) ends in, literally; -1 if none. */
static int unit_type(const char *name) {
        size_t n = strlen(name);

        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++) {
                size_t l = strlen(unit_types[i].suffix);
                if (n > l && strcmp(name + n - l, unit_types[i].suffix) == 0)
                        return (int) i;
        }
        return -1; /* targets, timers, paths, devices: no cgroup */
}

const char *unit_pattern_check(const char *pattern) {
        static char why[UNIT_NAME_MAX + 256];
        size_t n = strlen(pattern);
        const char *dot;

        if (n == 0)
                return "is empty";
        if (n > UNIT_NAME_MAX)
                return "is longer than a unit name can be (255)";
        for (const char *p = pattern; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr(":_.\\@-*?[]!^", *p)))
                        return "has a character systemd does not allow in unit names";
        if (unit_type(pattern) >= 0)
                return NULL;
        /* the type is the literal end of the pattern: a glob there could
         * take any type, slices such as system.slice among them */
        dot = strrchr(pattern, '.');
        if (dot && dot[1] && dot > pattern && !strpbrk(dot + 1, "*?[]!^\\"))
                snprintf(why, sizeof(why),
                         "names %s units, which have no cgroup; name one of .service, .scope, .slice, .socket, "
                         ".mount or .swap",
                         dot);
        else
                snprintf(why, sizeof(why),
                         "names no unit type and could take a slice such as system.slice; name the unit type: "
                         "%s.service (or .scope, .slice, .socket, .mount, .swap)",
                         pattern);
        return why;
}

bool unit_pattern_match(const char *pattern, const char *unit) {
        int type = unit_type(pattern);

        /* the literal suffix makes fnmatch keep to the type; said again
         * here so that no pattern takes another type's unit */
        return type >= 0 && unit_type(unit) == type && fnmatch(pattern, unit, 0) == 0;
}

bool unit_patterns_match(const struct conf_list *patterns, const char *unit) {
        for (unsigned i = 0; i < patterns->n; i++)
                if (unit_pattern_match(patterns->item[i], unit))
                        return true;
        return false;
}

#define UNITS_MAX 4096 /* units with a cgroup, at most: the match set has its own bound */

struct unit_ent {
        char *name, *cgroup;
};

struct units {
        sd_bus *bus;
        struct conf_list patterns; /* copies */
        units_add_t add;
        units_remove_t remove;
        void *userdata;
        struct unit_ent *u;
        unsigned n;
        bool listed, full_said;
        unsigned pending;       /* Get calls in flight */
};

struct get_ctx {
        struct units *units;
        char name[UNIT_NAME_MAX + 1];
};

static const char *sender(struct units *u) {
        /* a direct connection has no bus names: match without one */
        return sd_bus_is_bus_client(u->bus) > 0 ? "org.freedesktop.systemd1" : NULL;
}

static int find_unit(const struct units *u, const char *name) {
        for (unsigned i = 0; i < u->n; i++)
                if (strcmp(u->u[i].name, name) == 0)
                        return (int) i;
        return -1;
}

static void forget_unit(struct units *u, const char *name) {
        int i = find_unit(u, name);

        if (i < 0)
                return;
        if (u->remove)
                u->remove(name, u->userdata);
        free(u->u[i].name);
        free(u->u[i].cgroup);
        u->u[i] = u->u[--u->n];
}

static void set_cgroup(struct units *u, const char *name, const char *cgroup) {
        int i = find_unit(u, name);
        char *n, *c;

        if (!cgroup || !*cgroup) { /* not running, or not any more */
                forget_unit(u, name);
                return;
        }
        if (i >= 0 && strcmp(u->u[i].cgroup, cgroup) == 0)
                return;
        if (i < 0 && u->n >= UNITS_MAX) {
                if (!u->full_said)
                        log_warning("Units=: more than %u units match; %s and later ones are left out (said once)",
                                    UNITS_MAX, name);
                u->full_said = true;
                return;
        }
        if (i < 0 && u->n % 16 == 0) {
                struct unit_ent *a = realloc(u->u, (u->n + 16) * sizeof(*a));
                if (!a)
                        return;
                u->u = a;
        }
        if (!(c = strdup(cgroup)))
                return;
        if (i >= 0) {
                free(u->u[i].cgroup);
                u->u[i].cgroup = c;
        } else {
                if (!(n = strdup(name))) {
                        free(c);
                        return;
                }
                u->u[u->n++] = (struct unit_ent) { n, c };
        }
        if (u->add)
                u->add(name, cgroup, u->userdata);
}

static const char *unit_interface(const char *name) {
        int type = unit_type(name);

        return type < 0 ? NULL : unit_types[type].iface;
}

static int on_cgroup(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct get_ctx *ctx = userdata;
        struct units *u = ctx->units;
        const char *cgroup = NULL;
        int r;

        u->pending--;
        if (sd_bus_message_is_method_error(m, NULL)) {
                /* unloaded meanwhile: UnitRemoved says the rest */
                log_debug("Units=: no ControlGroup for %s: %s", ctx->name, sd_bus_message_get_error(m)->message);
                return 0;
        }
        r = sd_bus_message_read(m, "v", "s", &cgroup);
        if (r < 0) {
                log_debug("Units=: cannot read the ControlGroup of %s: %s", ctx->name, err_str(r));
                return 0;
        }
        set_cgroup(u, ctx->name, cgroup);
        return 0;
}

static void free_ctx(void *userdata) {
        free(userdata);
}

/* Ask for the unit's ControlGroup (object: its path, NULL to make it). */
static void get_cgroup(struct units *u, const char *name, const char *object) {
        const char *iface = unit_interface(name);
        char *path = NULL;
        sd_bus_slot *slot = NULL;
        struct get_ctx *ctx;
        int r;

        if (!iface || strlen(name) > UNIT_NAME_MAX)
                return;
        if (!object) {
                r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", name, &path);
                if (r < 0)
                        return;
                object = path;
        }
        if (!(ctx = calloc(1, sizeof(*ctx)))) {
                free(path);
                return;
        }
        ctx->units = u;
        snprintf(ctx->name, sizeof(ctx->name), "%s", name);
        r = sd_bus_call_method_async(u->bus, &slot, "org.freedesktop.systemd1", object,
                                     "org.freedesktop.DBus.Properties", "Get", on_cgroup, ctx, "ss", iface,
                                     "ControlGroup");
        free(path);
        if (r < 0) {
                log_debug("Units=: cannot ask for the ControlGroup of %s: %s", name, err_str(r));
                free(ctx);
                return;
        }
        /* the bus owns the call (floating: its reference, not ours); ctx
         * goes with it, replied or not */
        (void) sd_bus_slot_set_destroy_callback(slot, free_ctx);
        (void) sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
        u->pending++;
}

static int on_list(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *name, *object;
        unsigned n = 0;
        int r;

        u->listed = true;
        if (sd_bus_message_is_method_error(m, NULL)) {
                log_warning("Units=: cannot list the units: %s; following those that start from now on",
                            sd_bus_message_get_error(m)->message);
                return 0;
        }
        r = sd_bus_message_enter_container(m, 'a', "(ssssssouso)");
        while (r > 0 && (r = sd_bus_message_read(m, "(ssssssouso)", &name, NULL, NULL, NULL, NULL, NULL, &object,
                                                  NULL, NULL, NULL)) > 0)
                if (unit_patterns_match(&u->patterns, name)) {
                        get_cgroup(u, name, object);
                        n++;
                }
        if (r < 0)
                log_warning("Units=: cannot read the list of units: %s", err_str(r));
        if (n == 0)
                log_notice("Units=: no unit matches now; followed as units come");
        return 0;
}

static int on_unit_new(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *name, *object;

        if (sd_bus_message_read(m, "so", &name, &object) >= 0 && unit_patterns_match(&u->patterns, name))
                get_cgroup(u, name, object);
        return 0;
}

static int on_unit_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *name, *object;

        if (sd_bus_message_read(m, "so", &name, &object) >= 0)
                forget_unit(u, name);
        return 0;
}

/* A job of a unit is done: a start job gives it its cgroup, a stop job
 * takes it away. */
static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *job, *name, *result;
        uint32_t id;

        if (sd_bus_message_read(m, "uoss", &id, &job, &name, &result) >= 0 &&
            unit_patterns_match(&u->patterns, name))
                get_cgroup(u, name, NULL);
        return 0;
}

static int match(struct units *u, const char *member, sd_bus_message_handler_t fn) {
        return sd_bus_match_signal_async(u->bus, NULL, sender(u), "/org/freedesktop/systemd1",
                                         "org.freedesktop.systemd1.Manager", member, fn, NULL, u);
}

int units_new(struct units **ret, sd_event *event, sd_bus *bus, const struct conf_list *patterns,
              units_add_t add, units_remove_t remove, void *userdata) {
        static bool no_bus_said;
        struct units *u;
        sd_bus_message *call = NULL;
        int r;

        *ret = NULL;
        if (!bus) {
                r = sd_bus_open_system(&bus);
                if (r < 0) {
                        if (!no_bus_said)
                                log_notice("Units=: no system bus (%s); following the Cgroups= paths alone",
                                           err_str(r));
                        no_bus_said = true;
                        return r;
                }
        }
        u = calloc(1, sizeof(*u));
        if (!u) {
                sd_bus_flush_close_unref(bus);
                return -ENOMEM;
        }
        u->bus = bus;
        u->add = add;
        u->remove = remove;
        u->userdata = userdata;
        for (unsigned i = 0; i < patterns->n; i++) {
                if (!(u->patterns.item[i] = strdup(patterns->item[i]))) {
                        r = -ENOMEM;
                        goto fail;
                }
                u->patterns.n++;
        }
        if (event && !sd_bus_get_event(bus) && (r = sd_bus_attach_event(bus, event, 0)) < 0)
                goto fail;
        if ((r = match(u, "UnitNew", on_unit_new)) < 0 || (r = match(u, "UnitRemoved", on_unit_removed)) < 0 ||
            (r = match(u, "JobRemoved", on_job_removed)) < 0)
                goto fail;
        /* without it the manager sends no UnitNew or JobRemoved to us */
        r = sd_bus_call_method_async(bus, NULL, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                     "org.freedesktop.systemd1.Manager", "Subscribe", NULL, NULL, NULL);
        if (r < 0)
                goto fail;
        r = sd_bus_message_new_method_call(bus, &call, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "ListUnitsByPatterns");
        char *none[] = { NULL }, *strv[CONF_MAX_CGROUPS + 1] = { NULL };
        for (unsigned i = 0; i < u->patterns.n; i++)
                strv[i] = u->patterns.item[i];
        if (r >= 0)
                r = sd_bus_message_append_strv(call, none); /* any state */
        if (r >= 0)
                r = sd_bus_message_append_strv(call, strv);
        if (r < 0)
                goto fail;
        r = sd_bus_call_async(bus, NULL, call, on_list, u, 0);
        call = sd_bus_message_unref(call);
        if (r < 0)
                goto fail;
        *ret = u;
        return 0;
fail:
        sd_bus_message_unref(call);
        log_warning("Units=: cannot follow units on the system bus: %s", err_str(r));
        units_free(u);
        return r;
}

struct units *units_free(struct units *u) {
        if (!u)
                return NULL;
        /* ours: the matches and the calls in flight (and their ctx) go with it */
        if (u->bus) {
                sd_bus_flush_close_unref(u->bus);
                u->bus = NULL;
        }
        for (unsigned i = 0; i < u->n; i++) {
                free(u->u[i].name);
                free(u->u[i].cgroup);
        }
        free(u->u);
        for (unsigned i = 0; i < u->patterns.n; i++)
                free(u->patterns.item[i]);
        free(u);
        return NULL;
}

unsigned units_count(const struct units *u) {
        return u ? u->n : 0;
}

bool units_listed(const struct units *u) {
        return u && u->listed;
}
