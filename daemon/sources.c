/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cgroup-glob.h"
#include "log.h"
#include "psi.h"
#include "snapshot.h"
#include "sources.h"
#include "util.h"

/* Three kinds of places, apart: pressure sources, batch cgroups' wake-up
 * triggers, the cgroups of the rest. */
enum { KIND_PRESSURE, KIND_WAKE, KIND_REST };

static int kind_of(const struct psi_src *src) {
        return src->wake_only ? KIND_WAKE : src->rest ? KIND_REST : KIND_PRESSURE;
}

static unsigned kind_max(int kind) {
        return kind == KIND_WAKE ? SOURCES_MAX_WAKE : kind == KIND_REST ? SOURCES_MAX_REST : SOURCES_MAX_PRESSURE;
}

static unsigned count_kind(const struct sources *s, int kind) {
        unsigned n = 0;

        for (unsigned i = 0; i < s->n; i++)
                n += kind_of(&s->src[i]) == kind;
        return n;
}

static bool is_system(const struct psi_src *src) {
        return strcmp(src->spec, "system") == 0 && kind_of(src) == KIND_PRESSURE;
}

static void close_source(struct psi_src *src) {
        src->io = sd_event_source_disable_unref(src->io);
        if (src->fd >= 0)
                close(src->fd);
        src->fd = -1;
}

static int on_psi(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        struct sources *s = userdata;

        if (revents & EPOLLERR) {
                for (unsigned i = 0; i < s->n; i++)
                        if (s->src[i].io == es) {
                                log_fields(s->src[i].wake_only || s->src[i].rest ? LOG_INFO : LOG_WARNING, NULL,
                                           "PSI: %s is gone (cgroup removed?); ignoring it until it is back",
                                           s->src[i].path);
                                close_source(&s->src[i]);
                                s->src[i].gone = true;
                                /* batch work gone, or a cgroup of the rest */
                                s->rest_dirty = s->rest_dirty || !is_system(&s->src[i]);
                        }
                /* look now: without this trigger we may have to poll */
        } else
                log_debug("PSI trigger fired");
        s->wake(s->userdata);
        return 0;
}

static void open_source(struct sources *s, struct psi_src *src, bool startup) {
        const char *type = psi_type_to_string(s->type);
        uint64_t used = 0;
        int fd, r;

        r = psi_read_total(s->kernel, src->path, s->type, &src->total);
        if (r < 0) {
                if (!src->gone && !src->wake_only) /* a missing batch cgroup is said by batch_setup() */
                        log_fields(src->rest ? LOG_INFO : LOG_WARNING, NULL, "PSI: cannot read %s: %s; %s",
                                   src->path, err_str(r),
                                   startup ? "will look again while sampling" : "ignoring it until it is back");
                s->rest_dirty = s->rest_dirty || (!is_system(src) && !src->gone);
                src->gone = true;
                src->have_total = false;
                return;
        }
        /* batch work, a [Pressure] cgroup or one of the rest: there or not
         * decides whose pressure the rules read */
        s->rest_dirty = s->rest_dirty || (!is_system(src) && src->gone);
        if (src->gone && !startup && !src->wake_only)
                log_info("PSI: %s is back", src->path);
        src->gone = false;
        src->have_total = true;

        fd = psi_open_trigger(s->kernel, src->path, s->type, s->stall_usec, s->window_usec, &used);
        if (fd < 0) {
                log_notice("PSI: %s, no trigger (%s); sampling instead", src->path,
                           fd == -EOPNOTSUPP ? "not a kernel PSI file" : err_str(fd));
                return;
        }
        if (s->event) {
                r = sd_event_add_io(s->event, &src->io, fd, EPOLLPRI, on_psi, s);
                if (r < 0) {
                        log_notice("PSI: %s, cannot watch the trigger (%s); sampling instead", src->path,
                                   err_str(r));
                        close(fd);
                        return;
                }
        }
        src->fd = fd;
        if (used != s->window_usec) {
                s->window_rounded = true;
                const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_STARTUP_WARNING, NULL };
                log_fields(LOG_INFO, fields,
                           "PSI: %s, trigger \"%s %llu %llu\" (a %llu ms window needs CAP_SYS_RESOURCE; using %llu ms)",
                           src->path, type, (unsigned long long) s->stall_usec, (unsigned long long) used,
                           (unsigned long long) (s->window_usec / USEC_PER_MSEC),
                           (unsigned long long) (used / USEC_PER_MSEC));
        } else
                log_info("PSI: %s, trigger \"%s %llu %llu\"%s", src->path, type, (unsigned long long) s->stall_usec,
                         (unsigned long long) used,
                         src->wake_only ? " (batch: to look at the pool, not pressure)"
                         : src->rest    ? " (the rest: what the rules read while batch work is known)"
                                        : "");
}

static struct psi_src *add(struct sources *s, const char *spec, int kind) {
        struct psi_src *src = &s->src[s->n];
        bool wake_only = kind == KIND_WAKE;

        if (count_kind(s, kind) >= kind_max(kind) || s->n >= ELEMENTSOF(s->src))
                return NULL;

        *src = (struct psi_src) { .fd = -1, .wake_only = wake_only, .rest = kind == KIND_REST, .pct = -1 };
        snprintf(src->spec, sizeof(src->spec), "%s", spec);
        if (strcmp(spec, "system") == 0 && !wake_only)
                snprintf(src->path, sizeof(src->path), PSI_SYSTEM_MEMORY);
        else if (kernel_cgroup_path(s->kernel, spec, "memory.pressure", src->path, sizeof(src->path)) < 0) {
                if (!wake_only) /* batch_setup() says so */
                        log_warning("PSI: cgroup path too long: %s", spec);
                return NULL;
        }
        s->n++;
        return src;
}

void sources_setup(struct sources *s, const struct conf *c) {
        for (unsigned i = 0; i < s->n; i++)
                close_source(&s->src[i]);
        s->n = 0;
        s->wake_full_said = s->long_said = false;
        s->rest_dirty = true; /* at the first sample, with the followed batch cgroups there */
        s->rest_age = 0;
        s->read_said = -1;
        s->rest_list[0] = s->rest_of[0] = '\0';
        s->type = c->type;
        s->window_usec = c->trigger_window_ms * USEC_PER_MSEC;
        s->stall_usec = c->trigger_stall_ms * USEC_PER_MSEC;
        if (s->stall_usec > s->window_usec)
                s->stall_usec = s->window_usec;

        if (c->system)
                add(s, "system", KIND_PRESSURE);
        for (unsigned i = 0; i < c->cgroups.n; i++)
                if (!cglob_has_magic(c->cgroups.item[i])) /* patterns: sources_follow_add() */
                        add(s, c->cgroups.item[i], KIND_PRESSURE);
        if (s->n == 0)
                log_notice("PSI: no pressure sources (System=no, Cgroups= empty); deciding on the pool alone");
        /* A batch job that stalls is reclaiming, which is what fills the
         * pool: its triggers wake us to look at the pool (and cap it in
         * time), but its stalls are not the pressure the policy weighs. */
        for (unsigned i = 0; i < c->batch_cgroups.n; i++)
                if (!cglob_has_magic(c->batch_cgroups.item[i]))
                        add(s, c->batch_cgroups.item[i], KIND_WAKE);
        for (unsigned i = 0; i < s->n; i++)
                open_source(s, &s->src[i], true);
}

static void rest_refresh(struct sources *s);

double sources_sample(struct sources *s, uint64_t dt) {
        double max = 0;

        for (unsigned i = 0; i < s->n; i++) {
                struct psi_src *src = &s->src[i];
                uint64_t total;
                int r;

                if (src->gone) {
                        src->pct = -1;
                        open_source(s, src, false);
                        continue; /* no delta yet */
                }
                /* A batch cgroup's trigger only wakes us: nothing to read.
                 * Its going away shows as EPOLLERR there (on_psi); without
                 * a trigger, as its file missing (batch work no more). */
                if (src->wake_only) {
                        if (src->fd < 0 && !kernel_exists(s->kernel, src->path)) {
                                src->gone = true;
                                src->have_total = false;
                                s->rest_dirty = true;
                        }
                        continue;
                }
                r = psi_read_total(s->kernel, src->path, s->type, &total);
                if (r < 0) {
                        log_fields(src->rest ? LOG_INFO : LOG_WARNING, NULL,
                                   "PSI: cannot read %s: %s; ignoring it until it is back", src->path, err_str(r));
                        s->rest_dirty = s->rest_dirty || !is_system(src);
                        close_source(src);
                        src->gone = true;
                        continue;
                }
                src->pct = -1;
                if (src->have_total && dt > 0 && total >= src->total) {
                        double pct = 100.0 * (double) (total - src->total) / (double) dt;
                        src->pct = pct > 100 ? 100 : pct;
                        if (pct > max && !src->rest) /* the figure of old, the rest apart */
                                max = pct;
                }
                src->total = total;
                src->have_total = true;
        }
        /* the rest, with what this sample found (a new cgroup of it has a
         * figure from the next one) */
        s->rest_age += dt;
        if (s->rest_dirty || s->rest_age >= 60 * USEC_PER_SEC)
                rest_refresh(s);
        return max > 100 ? 100 : max;
}

bool sources_cgroups_pressure(const struct sources *s, double *max) {
        bool any = false;

        *max = 0;
        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];

                if (kind_of(src) != KIND_PRESSURE || src->pct < 0 || is_system(src))
                        continue;
                any = true;
                if (src->pct > *max)
                        *max = src->pct;
        }
        return any;
}

/* a is b, or one of them lies below the other (directories, no trailing '/') */
static bool same_or_nested(const char *a, size_t na, const char *b, size_t nb) {
        size_t n = na < nb ? na : nb;

        if (strncmp(a, b, n) != 0)
                return false;
        return na == nb || (na < nb ? b[n] == '/' : a[n] == '/');
}

const char *sources_pressure_overlap(const struct sources *s, const char *dir) {
        static const char file[] = "/memory.pressure";
        char path[512];
        size_t n;

        if (kernel_cgroup_path(s->kernel, dir, "memory.pressure", path, sizeof(path)) < 0)
                return NULL;
        n = strlen(path) - (sizeof(file) - 1);
        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];
                size_t m = strlen(src->path);

                if (kind_of(src) != KIND_PRESSURE || strcmp(src->path, PSI_SYSTEM_MEMORY) == 0 ||
                    m < sizeof(file) - 1 ||
                    strcmp(src->path + m - (sizeof(file) - 1), file) != 0)
                        continue;
                if (same_or_nested(path, n, src->path, m - (sizeof(file) - 1)))
                        return src->spec;
        }
        return NULL;
}

bool sources_is_pressure(const struct sources *s, const char *dir) {
        return sources_pressure_overlap(s, dir) != NULL;
}

int sources_follow_add(struct sources *s, const char *dir, bool wake_only) {
        struct psi_src *src;
        char path[512];

        /* A cgroup named in the configuration ("batch.slice") and matched by
         * a pattern or cpu.idle ("/sys/fs/cgroup/batch.slice") is one file:
         * one trigger. The named one stays when the match goes. */
        if (kernel_cgroup_path(s->kernel, dir, "memory.pressure", path, sizeof(path)) == 0)
                for (unsigned i = 0; i < s->n; i++)
                        if (strcmp(s->src[i].path, path) == 0 && s->src[i].wake_only == wake_only &&
                            !s->src[i].rest)
                                return 0;
        /* kept whole, or not at all: sources_follow_remove() must find it */
        if (strlen(dir) >= sizeof(s->src[0].spec)) {
                if (!s->long_said)
                        log_warning("PSI: %.64s... (%zu bytes) matches, but a cgroup name longer than %d bytes is "
                                    "not followed; not watching it (said once)", dir, strlen(dir),
                                    CONF_CGROUP_NAME_MAX);
                s->long_said = true;
                return -ENAMETOOLONG;
        }
        if (count_kind(s, wake_only ? KIND_WAKE : KIND_PRESSURE) >= kind_max(wake_only ? KIND_WAKE : KIND_PRESSURE)) {
                if (wake_only && !s->wake_full_said)
                        log_info("PSI: %s is batch work, but the %d places for batch cgroups' triggers are taken: "
                                 "it is capped all the same, its stalls just do not wake the daemon (said once)",
                                 dir, SOURCES_MAX_WAKE);
                s->wake_full_said = s->wake_full_said || wake_only;
                return -ENOSPC;
        }
        src = add(s, dir, wake_only ? KIND_WAKE : KIND_PRESSURE);
        if (!src)
                return -ENAMETOOLONG;
        src->followed = true;
        s->rest_dirty = true; /* the batch work, or the pressure sources, changed */
        open_source(s, src, false);
        return 0;
}

static void remove_at(struct sources *s, unsigned i) {
        close_source(&s->src[i]);
        /* on_psi() finds a source by its io, not its place */
        memmove(&s->src[i], &s->src[i + 1], (s->n - i - 1) * sizeof(s->src[0]));
        s->n--;
}

void sources_follow_remove(struct sources *s, const char *dir, bool wake_only) {
        char path[512];

        /* the same thing sources_follow_add() stored: the file's path, whole */
        if (strlen(dir) >= sizeof(s->src[0].spec) ||
            kernel_cgroup_path(s->kernel, dir, "memory.pressure", path, sizeof(path)) < 0)
                return;
        for (unsigned i = 0; i < s->n; i++)
                if (s->src[i].followed && strcmp(s->src[i].path, path) == 0 && s->src[i].wake_only == wake_only) {
                        remove_at(s, i);
                        s->rest_dirty = true;
                        return;
                }
}

bool sources_armed(const struct sources *s) {
        for (unsigned i = 0; i < s->n; i++)
                if (s->src[i].fd >= 0)
                        return true;
        return false;
}

void sources_free(struct sources *s) {
        for (unsigned i = 0; i < s->n; i++)
                close_source(&s->src[i]);
        s->n = 0;
}

void sources_snapshot(const struct sources *s, struct snapshot *snap) {
        snap->psi_full = s->type == PSI_FULL;
        snprintf(snap->pressure_of, sizeof(snap->pressure_of), "%.120s", s->rest_of);
        for (unsigned i = 0; i < s->n && snap->n_sources < SNAPSHOT_MAX_SOURCES; i++) {
                const struct psi_src *src = &s->src[i];
                if (kind_of(src) != KIND_PRESSURE)
                        continue;
                snprintf(snap->source[snap->n_sources].path, sizeof(snap->source[0].path), "%s", src->path);
                snap->source[snap->n_sources].pct = src->pct;
                snap->source[snap->n_sources].have_stalled = src->have_total && !src->gone;
                snap->source[snap->n_sources].stalled_usec = src->total;
                snap->n_sources++;
        }
        if (s->window_rounded)
                snap->warnings |= WARN_PSI_WINDOW;
}

void sources_peek_totals(const struct sources *s, struct snapshot *snap) {
        for (unsigned i = 0; i < snap->n_sources; i++) {
                uint64_t total;
                if (snap->source[i].have_stalled &&
                    psi_read_total(s->kernel, snap->source[i].path, s->type, &total) == 0 &&
                    total >= snap->source[i].stalled_usec)
                        snap->source[i].stalled_usec = total;
        }
}

/* ---- the rest: whose pressure the rules read while batch work is known ---- */

bool sources_batch_known(const struct sources *s) {
        for (unsigned i = 0; i < s->n; i++)
                if (s->src[i].wake_only && !s->src[i].gone) /* there */
                        return true;
        return false;
}

static bool have_named(const struct sources *s) {
        for (unsigned i = 0; i < s->n; i++)
                if (kind_of(&s->src[i]) == KIND_PRESSURE && !is_system(&s->src[i]) && !s->src[i].gone)
                        return true;
        return false;
}

sources_read sources_reads(const struct sources *s) {
        return !sources_batch_known(s) ? SOURCES_READ_ALL : have_named(s) ? SOURCES_READ_NAMED : SOURCES_READ_REST;
}

/* A cgroup's name as people read it: below the cgroup root, not the
 * followed match's "/sys/fs/cgroup/..." */
static const char *short_name(const char *spec) {
        static const char root[] = CGROUP_ROOT "/";

        return strncmp(spec, root, sizeof(root) - 1) == 0 && spec[sizeof(root) - 1] ? spec + sizeof(root) - 1 : spec;
}

bool sources_rest_pressure(struct sources *s, double *max) {
        bool named = have_named(s), any = false;
        const struct psi_src *of = NULL;

        *max = 0;
        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];

                if ((named ? kind_of(src) != KIND_PRESSURE || is_system(src) : !src->rest) || src->pct < 0)
                        continue;
                if (!any || src->pct > *max) {
                        *max = src->pct;
                        of = src;
                }
                any = true;
        }
        if (of)
                snprintf(s->rest_of, sizeof(s->rest_of), "the rest: %s", short_name(of->spec));
        else if (!s->rest_of[0])
                snprintf(s->rest_of, sizeof(s->rest_of), "the rest: none measured");
        return any;
}

/* How a cgroup (path: its memory.pressure below the root prefix) stands to
 * the batch cgroups: 0 apart, 1 is or lies in one, 2 holds one. */
static int batch_relation(const struct sources *s, const char *path) {
        static const char file[] = "/memory.pressure";
        size_t n = strlen(path) - (sizeof(file) - 1);
        int rel = 0;

        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];
                size_t m = strlen(src->path) - (sizeof(file) - 1);

                if (!src->wake_only || !same_or_nested(path, n, src->path, m))
                        continue;
                if (n >= m)
                        return 1;
                rel = 2;
        }
        return rel;
}

struct rest_want {
        char name[SOURCES_MAX_REST][CONF_CGROUP_NAME_MAX + 1];
        unsigned n;
        bool full;
};

/* rel: a cgroup below the root ("" for the root itself) that holds batch
 * work; its children that are no batch work and hold none go to w, those
 * that hold some are looked into, depth levels at most. */
static void rest_scan(const struct sources *s, const char *rel, unsigned depth, struct rest_want *w) {
        char dir[4096], path[4096];
        struct dirent *e;
        DIR *d;

        if ((size_t) snprintf(dir, sizeof(dir), CGROUP_ROOT "%s%s", *rel ? "/" : "", rel) >= sizeof(dir) ||
            kernel_path(s->kernel, dir, path, sizeof(path)) < 0 || !(d = opendir(path)))
                return;
        while ((e = readdir(d))) {
                char child[CONF_CGROUP_NAME_MAX + 1], psi[512];

                if (e->d_name[0] == '.' || !dirent_is_dir(d, e) ||
                    (size_t) snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
                            sizeof(child) ||
                    kernel_cgroup_path(s->kernel, child, "memory.pressure", psi, sizeof(psi)) < 0)
                        continue;
                switch (batch_relation(s, psi)) {
                case 1:
                        continue;
                case 2:
                        if (depth > 1)
                                rest_scan(s, child, depth - 1, w);
                        continue;
                }
                if (w->n >= SOURCES_MAX_REST) {
                        w->full = true;
                        continue;
                }
                memcpy(w->name[w->n++], child, sizeof(child));
        }
        closedir(d);
}

static int cmp_name(const void *a, const void *b) {
        return strcmp(a, b);
}

static bool wanted(const struct rest_want *w, const char *name) {
        for (unsigned i = 0; i < w->n; i++)
                if (strcmp(w->name[i], name) == 0)
                        return true;
        return false;
}

static void say_reads(struct sources *s, sources_read reads, const struct rest_want *w) {
        static const char why[] = "not the system's figure, which is then mostly the batch's own stalls; that "
                                  "one only wakes the daemon";
        bool changed = (int) reads != s->read_said;
        int level = s->read_said < 0 || changed ? LOG_INFO : LOG_DEBUG;
        char list[sizeof(s->rest_list)];
        size_t n = 0;

        list[0] = '\0';
        for (unsigned i = 0; i < w->n && n < sizeof(list); i++)
                n += (size_t) snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", w->name[i]);
        if (n >= sizeof(list))
                memcpy(list + sizeof(list) - 4, "...", 4);
        if (!changed && strcmp(list, s->rest_list) == 0)
                return;
        s->read_said = (int) reads;
        memcpy(s->rest_list, list, sizeof(list));
        if (reads == SOURCES_READ_ALL)
                log_fields(level, NULL, "Pressure: no batch work known: the rules read the pressure of every "
                                        "source, the system's included");
        else if (reads == SOURCES_READ_NAMED)
                log_fields(level, NULL, "Pressure: batch work is known: the rules read the [Pressure] cgroups' "
                                        "pressure (the rest), %s", why);
        else if (w->n == 0)
                log_fields(level == LOG_INFO ? LOG_NOTICE : level, NULL,
                           "Pressure: batch work is known, no [Pressure] cgroup is there and no cgroup outside the "
                           "batch's is found to read: the rules see no pressure (%s)", why);
        else
                log_fields(level, NULL, "Pressure: batch work is known and no [Pressure] cgroup is there: the "
                                        "rules read the rest, the cgroups that are no batch work and hold none "
                                        "(%s%s), %s", list, w->full ? "; no more places: not all of them" : "",
                           why);
}

static void rest_refresh(struct sources *s) {
        struct rest_want w;
        sources_read reads = sources_reads(s);

        s->rest_dirty = false;
        s->rest_age = 0;
        w.n = 0;
        w.full = false;
        if (reads == SOURCES_READ_REST && kernel_exists(s->kernel, CGROUP_ROOT "/cgroup.controllers"))
                rest_scan(s, "", SOURCES_REST_DEPTH, &w);
        qsort(w.name, w.n, sizeof(w.name[0]), cmp_name);
        for (unsigned i = 0; i < s->n;)
                if (s->src[i].rest && !wanted(&w, s->src[i].spec))
                        remove_at(s, i);
                else
                        i++;
        for (unsigned j = 0; j < w.n; j++) {
                bool have = false;
                struct psi_src *src;

                for (unsigned i = 0; i < s->n && !have; i++)
                        have = s->src[i].rest && strcmp(s->src[i].spec, w.name[j]) == 0;
                if (!have && (src = add(s, w.name[j], KIND_REST)))
                        open_source(s, src, true);
        }
        if (reads == SOURCES_READ_ALL)
                s->rest_of[0] = '\0';
        say_reads(s, reads, &w);
}
