/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "units.h"
#include "util.h"

#define SYSTEMD "org.freedesktop.systemd1"
#define BUS_DRIVER "org.freedesktop.DBus"

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
#define RECONNECT_FIRST_USEC USEC_PER_SEC
#define RECONNECT_MAX_USEC (60 * USEC_PER_SEC)

struct unit_ent {
        char *name, *cgroup;
        bool listed; /* in the last listing */
};

struct units {
        sd_event *event;
        sd_bus *bus;
        bool own_bus;   /* the system bus, opened here: opened again when it goes */
        bool direct;    /* a direct connection (tests): no bus names, no owner to check */
        char *owner;    /* the unique name that owns org.freedesktop.systemd1; NULL: not known */
        unsigned gen;   /* a new owner or connection: replies to older calls are stale */
        struct conf_list patterns; /* copies */
        units_add_t add;
        units_remove_t remove;
        void *userdata;
        struct unit_ent *u;
        unsigned n;
        bool listed, full_said, forged_said, had_owner, lost;
        sd_event_source *retry; /* the next try to reach the bus */
        uint64_t backoff;
};

/* A call in flight: which units, which unit, and for which owner. */
struct call_ctx {
        struct units *units;
        unsigned gen;
        char name[UNIT_NAME_MAX + 1];
};

static int connect_bus(struct units *u, sd_bus *bus);

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
                u->u[u->n++] = (struct unit_ent) { n, c, true };
        }
        if (u->add)
                u->add(name, cgroup, u->userdata);
}

/* Where calls to the manager go: its owner's unique name, so that only it
 * answers (on a direct connection the peer, whatever the name). */
static const char *manager(const struct units *u) {
        return u->direct ? SYSTEMD : u->owner;
}

/* Is m from the manager? On the bus: from the current owner of
 * org.freedesktop.systemd1, whatever the match says (sd-bus cannot check a
 * well-known sender, and the bus lets anyone send us a signal). */
static bool from_manager(struct units *u, sd_bus_message *m) {
        const char *sender = sd_bus_message_get_sender(m), *member = sd_bus_message_get_member(m);

        if (u->direct)
                return true;
        if (!u->owner) /* not known yet, or gone: its own signals wait for the listing */
                return false;
        if (sender && strcmp(sender, u->owner) == 0)
                return true;
        if (!u->forged_said)
                log_warning("Units=: ignoring a %s signal from %s, which is not systemd (%s is %s); only the "
                            "manager's own signals are believed (said once)",
                            member ? member : "?", sender ? sender : "an unnamed sender", SYSTEMD,
                            u->owner);
        u->forged_said = true;
        return false;
}

static struct call_ctx *new_ctx(struct units *u, const char *name) {
        struct call_ctx *ctx = calloc(1, sizeof(*ctx));

        if (!ctx)
                return NULL;
        ctx->units = u;
        ctx->gen = u->gen;
        snprintf(ctx->name, sizeof(ctx->name), "%s", name ? name : "");
        return ctx;
}

static void free_ctx(void *userdata) {
        free(userdata);
}

/* Send call to the manager with ctx as the reply's userdata: the bus owns
 * the call (floating: its reference, not ours), and ctx goes with it,
 * replied or not. */
static int call_manager(struct units *u, sd_bus_message *call, sd_bus_message_handler_t fn, struct call_ctx *ctx) {
        sd_bus_slot *slot = NULL;
        int r;

        r = sd_bus_call_async(u->bus, &slot, call, fn, ctx, 0);
        if (r < 0) {
                free(ctx);
                return r;
        }
        (void) sd_bus_slot_set_destroy_callback(slot, free_ctx);
        (void) sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
        return 0;
}

/* Is this reply for the manager we follow now (not an older owner's)? */
static bool current(const struct call_ctx *ctx) {
        return ctx->gen == ctx->units->gen;
}

static int on_cgroup(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct call_ctx *ctx = userdata;
        struct units *u = ctx->units;
        const char *cgroup = NULL;
        int r;

        if (!current(ctx))
                return 0;
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

/* Ask the manager for the unit's ControlGroup, on the object path its name
 * makes (never one a signal or a listing names: that could be another
 * unit's). */
static void get_cgroup(struct units *u, const char *name) {
        int type = unit_type(name);
        sd_bus_message *call = NULL;
        char *path = NULL;
        struct call_ctx *ctx;
        int r;

        if (type < 0 || strlen(name) > UNIT_NAME_MAX || !manager(u) || !(ctx = new_ctx(u, name)))
                return;
        r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", name, &path);
        if (r >= 0)
                r = sd_bus_message_new_method_call(u->bus, &call, manager(u), path, "org.freedesktop.DBus.Properties",
                                                   "Get");
        if (r >= 0)
                r = sd_bus_message_append(call, "ss", unit_types[type].iface, "ControlGroup");
        if (r >= 0)
                r = call_manager(u, call, on_cgroup, ctx);
        else
                free(ctx);
        sd_bus_message_unref(call);
        free(path);
        if (r < 0)
                log_debug("Units=: cannot ask for the ControlGroup of %s: %s", name, err_str(r));
}

static int on_get_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct call_ctx *ctx = userdata;
        const sd_bus_error *e;

        if (!current(ctx))
                return 0;
        if (sd_bus_message_is_method_error(m, NULL)) {
                e = sd_bus_message_get_error(m);
                if (sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit")) {
                        log_debug("Units=: %s is unloaded", ctx->name);
                        forget_unit(ctx->units, ctx->name);
                } else
                        log_debug("Units=: cannot confirm that %s is gone (%s); keeping it", ctx->name, e->message);
                return 0;
        }
        /* still loaded (removed and loaded again, or never removed): its
         * ControlGroup says whether it runs */
        get_cgroup(ctx->units, ctx->name);
        return 0;
}

/* A UnitRemoved: the manager confirms it before the unit goes. */
static void confirm_removed(struct units *u, const char *name) {
        sd_bus_message *call = NULL;
        struct call_ctx *ctx;
        int r;

        if (!manager(u) || !(ctx = new_ctx(u, name)))
                return;
        r = sd_bus_message_new_method_call(u->bus, &call, manager(u), "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "GetUnit");
        if (r >= 0)
                r = sd_bus_message_append(call, "s", name);
        if (r >= 0)
                r = call_manager(u, call, on_get_unit, ctx);
        else
                free(ctx);
        sd_bus_message_unref(call);
        if (r < 0)
                log_debug("Units=: cannot ask whether %s is gone: %s; keeping it", name, err_str(r));
}

static int on_list(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct call_ctx *ctx = userdata;
        struct units *u = ctx->units;
        const char *name;
        unsigned n = 0;
        int r;

        if (!current(ctx))
                return 0;
        u->listed = true;
        if (sd_bus_message_is_method_error(m, NULL)) {
                log_warning("Units=: cannot list the units: %s; following those that start from now on",
                            sd_bus_message_get_error(m)->message);
                return 0;
        }
        for (unsigned i = 0; i < u->n; i++)
                u->u[i].listed = false;
        r = sd_bus_message_enter_container(m, 'a', "(ssssssouso)");
        while (r > 0 && (r = sd_bus_message_read(m, "(ssssssouso)", &name, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                  NULL, NULL)) > 0)
                if (unit_patterns_match(&u->patterns, name)) {
                        int i = find_unit(u, name);
                        if (i >= 0)
                                u->u[i].listed = true;
                        get_cgroup(u, name);
                        n++;
                }
        if (r < 0) {
                log_warning("Units=: cannot read the list of units: %s", err_str(r));
                return 0;
        }
        /* a listing again (a new manager, the bus back): those no longer
         * loaded went while we could not hear it */
        for (unsigned i = u->n; i-- > 0;)
                if (!u->u[i].listed)
                        forget_unit(u, u->u[i].name);
        if (n == 0)
                log_notice("Units=: no unit matches now; followed as units come");
        return 0;
}

/* Subscribe to the manager's signals and list the units: at start, and
 * again for each new manager. */
static void follow_manager(struct units *u) {
        sd_bus_message *call = NULL;
        char *none[] = { NULL }, *strv[CONF_MAX_CGROUPS + 1] = { NULL };
        struct call_ctx *ctx;
        int r;

        /* without it the manager sends no UnitNew or JobRemoved to us */
        r = sd_bus_call_method_async(u->bus, NULL, manager(u), "/org/freedesktop/systemd1",
                                     "org.freedesktop.systemd1.Manager", "Subscribe", NULL, NULL, NULL);
        if (r >= 0)
                r = sd_bus_message_new_method_call(u->bus, &call, manager(u), "/org/freedesktop/systemd1",
                                                   "org.freedesktop.systemd1.Manager", "ListUnitsByPatterns");
        for (unsigned i = 0; i < u->patterns.n; i++)
                strv[i] = u->patterns.item[i];
        if (r >= 0)
                r = sd_bus_message_append_strv(call, none); /* any state */
        if (r >= 0)
                r = sd_bus_message_append_strv(call, strv);
        if (r >= 0)
                r = (ctx = new_ctx(u, NULL)) ? call_manager(u, call, on_list, ctx) : -ENOMEM;
        sd_bus_message_unref(call);
        if (r < 0)
                log_warning("Units=: cannot ask systemd for the units: %s; following those that start from now on",
                            err_str(r));
}

static int on_unit_new(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *name;

        /* the object path the signal names is not used: the name makes it */
        if (from_manager(u, m) && sd_bus_message_read(m, "s", &name) >= 0 && unit_patterns_match(&u->patterns, name))
                get_cgroup(u, name);
        return 0;
}

static int on_unit_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *name;

        if (from_manager(u, m) && sd_bus_message_read(m, "s", &name) >= 0 && find_unit(u, name) >= 0)
                confirm_removed(u, name);
        return 0;
}

/* A job of a unit is done: a start job gives it its cgroup, a stop job
 * takes it away. */
static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *job, *name, *result;
        uint32_t id;

        if (from_manager(u, m) && sd_bus_message_read(m, "uoss", &id, &job, &name, &result) >= 0 &&
            unit_patterns_match(&u->patterns, name))
                get_cgroup(u, name);
        return 0;
}

/* org.freedesktop.systemd1 has a new owner (owner: its unique name, or ""
 * when nobody owns it). */
static void set_owner(struct units *u, const char *owner) {
        if (u->owner && strcmp(u->owner, owner) == 0)
                return;
        free(u->owner);
        u->owner = NULL;
        u->gen++;
        if (!*owner) {
                if (u->had_owner)
                        log_notice("Units=: systemd left the bus; keeping the %u units known until it is back", u->n);
                return;
        }
        if (!(u->owner = strdup(owner)))
                return;
        if (u->had_owner)
                log_notice("Units=: systemd is on the bus as %s now; listing the units again", owner);
        u->had_owner = true;
        follow_manager(u);
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const char *sender = sd_bus_message_get_sender(m), *name, *old, *owner;

        /* the bus itself says it; anyone else may send the same signal */
        if (!sender || strcmp(sender, BUS_DRIVER) != 0)
                return 0;
        if (sd_bus_message_read(m, "sss", &name, &old, &owner) < 0 || strcmp(name, SYSTEMD) != 0)
                return 0;
        set_owner(u, owner);
        return 0;
}

static int on_name_owner(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;
        const sd_bus_error *e;
        const char *owner, *me = NULL;

        /* a reply: the bus has said Hello, our name is known (busctl
         * monitor and the tests find us by it) */
        if (!u->direct && sd_bus_get_unique_name(u->bus, &me) >= 0)
                log_info("Units=: on the system bus as %s", me);
        if (u->lost) {
                log_notice("Units=: back on the system bus");
                u->lost = false;
        }
        u->backoff = 0;
        if (sd_bus_message_is_method_error(m, NULL)) {
                e = sd_bus_message_get_error(m);
                if (sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.NameHasNoOwner"))
                        log_notice("Units=: nobody owns %s on the bus; waiting for systemd", SYSTEMD);
                else
                        log_warning("Units=: cannot ask the bus who owns %s: %s; waiting for it to change", SYSTEMD,
                                    e->message);
                return 0;
        }
        if (sd_bus_message_read(m, "s", &owner) >= 0)
                set_owner(u, owner);
        return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

static void schedule_retry(struct units *u) {
        u->backoff = u->backoff ? u->backoff * 2 : RECONNECT_FIRST_USEC;
        if (u->backoff > RECONNECT_MAX_USEC)
                u->backoff = RECONNECT_MAX_USEC;
        u->retry = sd_event_source_disable_unref(u->retry);
        if (sd_event_add_time_relative(u->event, &u->retry, CLOCK_MONOTONIC, u->backoff, USEC_PER_SEC / 10, on_retry,
                                       u) < 0) {
                u->retry = NULL;
                log_warning("Units=: cannot set a timer to reach the bus again; following no unit changes until "
                            "a reload");
        }
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        struct units *u = userdata;
        sd_bus *bus = NULL;
        int r;

        u->retry = sd_event_source_disable_unref(u->retry);
        u->bus = sd_bus_close_unref(u->bus);
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = connect_bus(u, bus);
        if (r < 0) {
                log_debug("Units=: cannot reach the system bus yet: %s", err_str(r));
                schedule_retry(u);
        }
        return 0;
}

/* The connection is gone (the bus daemon stopped or restarted): the units
 * known stay as they are, none is lifted for it. */
static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct units *u = userdata;

        if (!u->bus || sd_bus_is_open(u->bus) > 0) /* said by no one but sd-bus, of our own connection */
                return 0;
        free(u->owner);
        u->owner = NULL;
        u->gen++;
        if (!u->own_bus || !u->event) {
                log_warning("Units=: the connection to systemd is gone; keeping the %u units known, following no "
                            "changes until a reload", u->n);
                return 0;
        }
        if (!u->lost)
                log_warning("Units=: lost the system bus; keeping the %u units known; reconnecting", u->n);
        u->lost = true;
        schedule_retry(u);
        return 0;
}

static int match(struct units *u, const char *member, sd_bus_message_handler_t fn) {
        /* on the bus the daemon routes only systemd1's broadcasts here, but
         * a signal addressed to us comes whatever the sender: from_manager() */
        return sd_bus_match_signal_async(u->bus, NULL, u->direct ? NULL : SYSTEMD, "/org/freedesktop/systemd1",
                                         "org.freedesktop.systemd1.Manager", member, fn, NULL, u);
}

/* Follow the manager on bus (taken over, also on failure). */
static int connect_bus(struct units *u, sd_bus *bus) {
        int r;

        u->bus = bus;
        u->direct = sd_bus_is_bus_client(bus) <= 0;
        if (u->event && !sd_bus_get_event(bus) && (r = sd_bus_attach_event(bus, u->event, 0)) < 0)
                return r;
        r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
                                      "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, NULL, u);
        if (r < 0)
                return r;
        if (u->direct) {
                if ((r = match(u, "UnitNew", on_unit_new)) < 0 || (r = match(u, "UnitRemoved", on_unit_removed)) < 0 ||
                    (r = match(u, "JobRemoved", on_job_removed)) < 0)
                        return r;
                follow_manager(u);
                return 0;
        }
        /* who owns org.freedesktop.systemd1, and each change of it: the
         * match first, so that no change falls between */
        r = sd_bus_add_match_async(bus, NULL,
                                   "type='signal',sender='" BUS_DRIVER "',path='/org/freedesktop/DBus',"
                                   "interface='" BUS_DRIVER "',member='NameOwnerChanged',arg0='" SYSTEMD "'",
                                   on_owner_changed, NULL, u);
        if (r >= 0 && (r = match(u, "UnitNew", on_unit_new)) >= 0 &&
            (r = match(u, "UnitRemoved", on_unit_removed)) >= 0)
                r = match(u, "JobRemoved", on_job_removed);
        if (r >= 0)
                r = sd_bus_call_method_async(bus, NULL, BUS_DRIVER, "/org/freedesktop/DBus", BUS_DRIVER,
                                             "GetNameOwner", on_name_owner, u, "s", SYSTEMD);
        return r;
}

int units_new(struct units **ret, sd_event *event, sd_bus *bus, const struct conf_list *patterns,
              units_add_t add, units_remove_t remove, void *userdata) {
        static bool no_bus_said;
        struct units *u;
        bool own = !bus;
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
        u->event = event ? sd_event_ref(event) : NULL;
        u->own_bus = own;
        u->add = add;
        u->remove = remove;
        u->userdata = userdata;
        for (unsigned i = 0; i < patterns->n; i++) {
                if (!(u->patterns.item[i] = strdup(patterns->item[i]))) {
                        r = -ENOMEM;
                        sd_bus_flush_close_unref(bus);
                        goto fail;
                }
                u->patterns.n++;
        }
        if ((r = connect_bus(u, bus)) < 0)
                goto fail;
        *ret = u;
        return 0;
fail:
        log_warning("Units=: cannot follow units on the system bus: %s", err_str(r));
        units_free(u);
        return r;
}

struct units *units_free(struct units *u) {
        if (!u)
                return NULL;
        u->retry = sd_event_source_disable_unref(u->retry);
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
        free(u->owner);
        sd_event_unref(u->event);
        free(u);
        return NULL;
}

unsigned units_count(const struct units *u) {
        return u ? u->n : 0;
}

bool units_listed(const struct units *u) {
        return u && u->listed;
}
