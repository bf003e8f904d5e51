/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup-follow.h"
#include "cgroup-glob.h"
#include "follow-wire.h"
#include "log.h"
#include "manager.h"
#include "schedule.h"
#include "snapshot.h"
#include "units.h"
#include "util.h"

/* A sample soon, once per burst: never from inside a sample (a cpu.idle
 * recheck there removes matches), never before the first. */
static int on_kick(sd_event_source *s, void *userdata) {
        struct manager *m = userdata;

        m->follow.kick = sd_event_source_disable_unref(m->follow.kick);
        schedule_kick(&m->sched);
        return 0;
}

static void kick(struct manager *m) {
        if (!m->event || !m->have_sample || m->follow.kick)
                return;
        if (sd_event_add_defer(m->event, &m->follow.kick, on_kick, m) < 0)
                m->follow.kick = NULL;
}

static int on_settle(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;

        m->follow.settle = sd_event_source_disable_unref(m->follow.settle);
        schedule_kick(&m->sched);
        return 0;
}

/* systemd creates a unit's cgroup, then writes its settings, among them
 * MemoryZSwapMax= over the cap we may have written already: one more
 * sample a second after a new batch match puts the cap back. */
static void settle(struct manager *m) {
        if (!m->event || !m->have_sample || m->follow.settle)
                return;
        if (sd_event_add_time_relative(m->event, &m->follow.settle, CLOCK_MONOTONIC, USEC_PER_SEC, USEC_PER_SEC / 10,
                                       on_settle, m) < 0)
                m->follow.settle = NULL;
}

/* A cap on a pressure source, on a cgroup inside one or on one that holds
 * one would take the pages of the work it protects: never batch work. */
static bool overlaps_pressure(struct manager *m, const char *path) {
        const char *src = sources_pressure_overlap(&m->sources, path);

        if (!src)
                return false;
        if (!m->follow.overlap_said)
                log_warning("Batch: %s matches, but it is, lies in or holds the pressure source %s; a cap there "
                            "would take the pages of the work it protects: not batch work (said once)",
                            path, src);
        else
                log_debug("Batch: %s overlaps the pressure source %s; not batch work", path, src);
        m->follow.overlap_said = true;
        return true;
}

static void batch_add(struct follow *f, const struct follow_match *mt, void *userdata) {
        struct manager *m = userdata;

        if (overlaps_pressure(m, mt->path))
                return;
        const char *by = mt->pattern == FOLLOW_UNIT   ? BATCH_BY_UNITS
                         : mt->pattern == FOLLOW_IDLE ? BATCH_BY_IDLE
                                                      : BATCH_BY_CGROUPS;

        if (batch_follow_add(&m->batch, &m->kernel, &m->restore, mt->path, mt->unit, by, "appeared") < 0)
                return;
        /* its stalls wake us to look at the pool, as a fixed batch cgroup's */
        (void) sources_follow_add(&m->sources, mt->path, true);
        kick(m);
        settle(m);
}

static void batch_remove(struct follow *f, const struct follow_match *mt, void *userdata) {
        struct manager *m = userdata;

        sources_follow_remove(&m->sources, mt->path, true);
        batch_follow_remove(&m->batch, &m->kernel, &m->restore, mt->path, "no longer matches");
        kick(m);
}

static void pressure_add(struct follow *f, const struct follow_match *mt, void *userdata) {
        struct manager *m = userdata;
        const char *fields[] = { NULL, NULL };
        char f_unit[300];

        if (sources_follow_add(&m->sources, mt->path, false) == -ENOSPC) {
                if (!m->follow.sources_full_said)
                        log_warning("PSI: %s matches, but every place for a pressure source is taken; not watching "
                                    "it (said once)", mt->path);
                m->follow.sources_full_said = true;
                return;
        }
        snprintf(f_unit, sizeof(f_unit), "UNIT=%s", mt->unit ? mt->unit : "");
        fields[0] = mt->unit ? f_unit : NULL;
        log_fields(LOG_INFO, fields, "PSI: %s appeared; a pressure source from now on", mt->path);
        /* a followed batch cgroup it lies in or holds is batch work no more */
        for (unsigned i = m->batch.n; i-- > 0;) {
                char dir[sizeof(m->batch.cg[0].spec)];
                if (!m->batch.cg[i].followed)
                        continue;
                snprintf(dir, sizeof(dir), "%s", m->batch.cg[i].spec);
                if (sources_is_pressure(&m->sources, dir)) {
                        sources_follow_remove(&m->sources, dir, true);
                        batch_follow_remove(&m->batch, &m->kernel, &m->restore, dir,
                                            "overlaps a new pressure source");
                }
        }
}

static void pressure_remove(struct follow *f, const struct follow_match *mt, void *userdata) {
        struct manager *m = userdata;
        const char *fields[] = { NULL, NULL };
        char f_unit[300];

        snprintf(f_unit, sizeof(f_unit), "UNIT=%s", mt->unit ? mt->unit : "");
        fields[0] = mt->unit ? f_unit : NULL;
        log_fields(LOG_INFO, fields, "PSI: %s is gone; no longer a pressure source", mt->path);
        sources_follow_remove(&m->sources, mt->path, false);
        kick(m);
}

static void units_batch_add(const char *unit, const char *cgroup, void *userdata) {
        follow_add_unit(((struct manager *) userdata)->follow.batch, unit, cgroup);
}

static void units_batch_remove(const char *unit, void *userdata) {
        follow_remove_unit(((struct manager *) userdata)->follow.batch, unit);
}

static void units_pressure_add(const char *unit, const char *cgroup, void *userdata) {
        follow_add_unit(((struct manager *) userdata)->follow.pressure, unit, cgroup);
}

static void units_pressure_remove(const char *unit, void *userdata) {
        follow_remove_unit(((struct manager *) userdata)->follow.pressure, unit);
}

/* The patterns among the Cgroups= entries (the plain paths are batch.c's
 * and sources.c's, as before). */
static void globs_of(const struct conf_list *all, struct conf_list *out) {
        *out = (struct conf_list) { 0 };
        for (unsigned i = 0; i < all->n; i++)
                if (cglob_has_magic(all->item[i])) {
                        out->item[out->n] = all->item[i];
                        out->where[out->n++] = all->where[i];
                }
}

static struct follow *start_one(struct manager *m, const char *name, const struct conf_list *cgroups, bool idle,
                                bool units, follow_cb_t add, follow_cb_t remove) {
        struct conf_list globs;
        struct follow *f = NULL;

        globs_of(cgroups, &globs);
        if (globs.n == 0 && !idle && !units)
                return NULL;
        struct follow_params p = {
                .name = name, .kernel = &m->kernel, .event = m->event, .patterns = &globs, .idle = idle,
                .caps = add == batch_add, .max = m->conf.batch_max_cgroups, .on_add = add, .on_remove = remove,
                .userdata = m,
        };
        (void) follow_new(&f, &p); /* without inotify it still holds what matches now */
        return f;
}

/* rel is top or lies below it */
static bool at_or_below(const char *rel, const char *top) {
        size_t n = strlen(top);

        return strncmp(rel, top, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* The fixed [Batch] Cgroups= paths (batch_setup(), before the first cap):
 * never one in init.scope or one around the daemon's own cgroup, which a
 * cap there would reach too (memory.zswap.max is hierarchical). One that
 * is, lies in or holds a pressure source the admin also named is capped
 * as configured, with a notice; only the followed matches, which others
 * can make, are refused for it (batch_add()). */
static void refuse_fixed(struct manager *m) {
        char own[512] = "";
        bool own_known = cglob_own_cgroup(&m->kernel, own, sizeof(own)) == 0 && *own;

        for (unsigned i = m->batch.n; i-- > 0;) {
                struct batch_cg *cg = &m->batch.cg[i];
                char dir[sizeof(cg->path)];
                const char *rel, *src = NULL, *where = "[Batch]", *why = NULL;
                char *slash;

                if (cg->followed)
                        continue;
                snprintf(dir, sizeof(dir), "%s", cg->path);
                if (!(slash = strrchr(dir, '/')))
                        continue;
                *slash = '\0';
                rel = strncmp(dir, CGROUP_ROOT "/unified/", sizeof(CGROUP_ROOT "/unified/") - 1) == 0
                              ? dir + sizeof(CGROUP_ROOT "/unified/") - 1
                              : dir + sizeof(CGROUP_ROOT "/") - 1;
                if (strlen(dir) < sizeof(CGROUP_ROOT "/"))
                        continue; /* batch_setup() keeps only cgroups below it */
                if (at_or_below(rel, "init.scope"))
                        why = "lies in init.scope (PID 1)";
                else if (own_known && (at_or_below(rel, own) || at_or_below(own, rel)))
                        why = "is, lies in or holds the daemon's own cgroup";
                else if ((src = sources_pressure_overlap(&m->sources, dir))) {
                        /* both named by the admin: as they said, with a word */
                        log_notice("Batch: Cgroups=%s is, lies in or holds the pressure source %s; capped as "
                                   "configured, though a cap there reaches the pages of the work it protects",
                                   cg->spec, src);
                        continue;
                }
                if (!why)
                        continue;
                for (unsigned j = 0; j < m->conf.batch_cgroups.n; j++)
                        if (strcmp(m->conf.batch_cgroups.item[j], cg->spec) == 0 && m->conf.batch_cgroups.where[j])
                                where = m->conf.batch_cgroups.where[j];
                log_warning("%s: Cgroups=%s %s; a cap there would reach it too: not capping it", where, cg->spec,
                            why);
                memmove(cg, cg + 1, (m->batch.n - i - 1) * sizeof(*cg));
                m->batch.n--;
        }
}

void follow_wire_start(struct manager *m) {
        const struct conf *c = &m->conf;

        refuse_fixed(m);

        m->follow.batch = start_one(m, "Batch", &c->batch_cgroups, c->batch_idle, c->batch_units.n > 0, batch_add,
                                    batch_remove);
        m->follow.pressure = start_one(m, "Pressure", &c->cgroups, false, c->units.n > 0, pressure_add,
                                       pressure_remove);
        /* Units= need the bus and the loop it runs in */
        if (!m->event)
                return;
        if (c->batch_units.n > 0)
                (void) units_new(&m->follow.batch_units, m->event, NULL, &c->batch_units, units_batch_add,
                                 units_batch_remove, m);
        if (c->units.n > 0)
                (void) units_new(&m->follow.pressure_units, m->event, NULL, &c->units, units_pressure_add,
                                 units_pressure_remove, m);
}

void follow_wire_stop(struct manager *m) {
        m->follow.batch_units = units_free(m->follow.batch_units);
        m->follow.pressure_units = units_free(m->follow.pressure_units);
        m->follow.batch = follow_free(m->follow.batch);
        m->follow.pressure = follow_free(m->follow.pressure);
        m->follow.kick = sd_event_source_disable_unref(m->follow.kick);
        m->follow.settle = sd_event_source_disable_unref(m->follow.settle);
        m->follow.sources_full_said = m->follow.overlap_said = false;
}

void follow_wire_tick(struct manager *m, uint64_t now) {
        if (!m->conf.batch_idle || m->sched.idle || now - m->follow.idle_checked < FOLLOW_IDLE_RECHECK_USEC)
                return;
        m->follow.idle_checked = now;
        follow_recheck_idle(m->follow.batch);
}

static void add_pattern(struct snapshot *s, const char *role, const char *pattern, unsigned n) {
        if (s->n_patterns >= SNAPSHOT_MAX_PATTERNS)
                return;
        snprintf(s->pattern[s->n_patterns].role, sizeof(s->pattern[0].role), "%s", role);
        snprintf(s->pattern[s->n_patterns].pattern, sizeof(s->pattern[0].pattern), "%s", pattern);
        s->pattern[s->n_patterns++].matches = n;
}

static void snapshot_one(const struct follow *f, const char *role, const struct conf_list *units, bool idle,
                         struct snapshot *s) {
        char text[300];

        for (unsigned i = 0; i < follow_n_patterns(f); i++) {
                unsigned n = 0;
                for (unsigned j = 0; j < follow_count(f); j++)
                        n += follow_get(f, j)->pattern == (int) i;
                add_pattern(s, role, follow_pattern(f, i), n);
        }
        for (unsigned i = 0; i < units->n; i++) {
                unsigned n = 0;
                for (unsigned j = 0; j < follow_count(f); j++) {
                        const struct follow_match *mt = follow_get(f, j);
                        n += mt->unit && unit_pattern_match(units->item[i], mt->unit);
                }
                snprintf(text, sizeof(text), "unit:%s", units->item[i]);
                add_pattern(s, role, text, n);
        }
        if (idle) {
                unsigned n = 0;
                for (unsigned j = 0; j < follow_count(f); j++)
                        n += follow_get(f, j)->pattern == FOLLOW_IDLE;
                add_pattern(s, role, SNAPSHOT_PATTERN_IDLE, n);
        }
}

void follow_wire_snapshot(const struct manager *m, struct snapshot *s) {
        if (m->follow.batch)
                snapshot_one(m->follow.batch, "batch", &m->conf.batch_units, m->conf.batch_idle, s);
        if (m->follow.pressure)
                snapshot_one(m->follow.pressure, "pressure", &m->conf.units, false, s);
}
