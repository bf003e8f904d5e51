/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cgroup-glob.h"
#include "log.h"
#include "psi.h"
#include "snapshot.h"
#include "sources.h"
#include "util.h"

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
                                log_fields(s->src[i].wake_only ? LOG_INFO : LOG_WARNING, NULL,
                                           "PSI: %s is gone (cgroup removed?); ignoring it until it is back",
                                           s->src[i].path);
                                close_source(&s->src[i]);
                                s->src[i].gone = true;
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
                        log_warning("PSI: cannot read %s: %s; %s", src->path, err_str(r),
                                    startup ? "will look again while sampling" : "ignoring it until it is back");
                src->gone = true;
                src->have_total = false;
                return;
        }
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
                         (unsigned long long) used, src->wake_only ? " (batch: to look at the pool, not pressure)" : "");
}

static unsigned count_kind(const struct sources *s, bool wake_only) {
        unsigned n = 0;

        for (unsigned i = 0; i < s->n; i++)
                n += s->src[i].wake_only == wake_only;
        return n;
}

static struct psi_src *add(struct sources *s, const char *spec, bool wake_only) {
        struct psi_src *src = &s->src[s->n];

        if (count_kind(s, wake_only) >= (wake_only ? SOURCES_MAX_WAKE : SOURCES_MAX_PRESSURE) ||
            s->n >= ELEMENTSOF(s->src))
                return NULL;

        *src = (struct psi_src) { .fd = -1, .wake_only = wake_only, .pct = -1 };
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
        s->type = c->type;
        s->window_usec = c->trigger_window_ms * USEC_PER_MSEC;
        s->stall_usec = c->trigger_stall_ms * USEC_PER_MSEC;
        if (s->stall_usec > s->window_usec)
                s->stall_usec = s->window_usec;

        if (c->system)
                add(s, "system", false);
        for (unsigned i = 0; i < c->cgroups.n; i++)
                if (!cglob_has_magic(c->cgroups.item[i])) /* patterns: sources_follow_add() */
                        add(s, c->cgroups.item[i], false);
        if (s->n == 0)
                log_notice("PSI: no pressure sources (System=no, Cgroups= empty); deciding on the pool alone");
        /* A batch job that stalls is reclaiming, which is what fills the
         * pool: its triggers wake us to look at the pool (and cap it in
         * time), but its stalls are not the pressure the policy weighs. */
        for (unsigned i = 0; i < c->batch_cgroups.n; i++)
                if (!cglob_has_magic(c->batch_cgroups.item[i]))
                        add(s, c->batch_cgroups.item[i], true);
        for (unsigned i = 0; i < s->n; i++)
                open_source(s, &s->src[i], true);
}

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
                 * Its going away shows as EPOLLERR there (on_psi). */
                if (src->wake_only)
                        continue;
                r = psi_read_total(s->kernel, src->path, s->type, &total);
                if (r < 0) {
                        log_warning("PSI: cannot read %s: %s; ignoring it until it is back", src->path, err_str(r));
                        close_source(src);
                        src->gone = true;
                        continue;
                }
                src->pct = -1;
                if (src->have_total && dt > 0 && total >= src->total) {
                        double pct = 100.0 * (double) (total - src->total) / (double) dt;
                        src->pct = pct > 100 ? 100 : pct;
                        if (pct > max)
                                max = pct;
                }
                src->total = total;
                src->have_total = true;
        }
        return max > 100 ? 100 : max;
}

bool sources_cgroups_pressure(const struct sources *s, double *max) {
        bool any = false;

        *max = 0;
        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];

                if (src->wake_only || src->pct < 0 || strcmp(src->spec, "system") == 0)
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

                if (src->wake_only || strcmp(src->path, PSI_SYSTEM_MEMORY) == 0 || m < sizeof(file) - 1 ||
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
                        if (strcmp(s->src[i].path, path) == 0 && s->src[i].wake_only == wake_only)
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
        if (count_kind(s, wake_only) >= (wake_only ? SOURCES_MAX_WAKE : SOURCES_MAX_PRESSURE)) {
                if (wake_only && !s->wake_full_said)
                        log_info("PSI: %s is batch work, but the %d places for batch cgroups' triggers are taken: "
                                 "it is capped all the same, its stalls just do not wake the daemon (said once)",
                                 dir, SOURCES_MAX_WAKE);
                s->wake_full_said = s->wake_full_said || wake_only;
                return -ENOSPC;
        }
        src = add(s, dir, wake_only);
        if (!src)
                return -ENAMETOOLONG;
        src->followed = true;
        open_source(s, src, false);
        return 0;
}

void sources_follow_remove(struct sources *s, const char *dir, bool wake_only) {
        char path[512];

        /* the same thing sources_follow_add() stored: the file's path, whole */
        if (strlen(dir) >= sizeof(s->src[0].spec) ||
            kernel_cgroup_path(s->kernel, dir, "memory.pressure", path, sizeof(path)) < 0)
                return;
        for (unsigned i = 0; i < s->n; i++)
                if (s->src[i].followed && strcmp(s->src[i].path, path) == 0 && s->src[i].wake_only == wake_only) {
                        close_source(&s->src[i]);
                        /* on_psi() finds a source by its io, not its place */
                        memmove(&s->src[i], &s->src[i + 1], (s->n - i - 1) * sizeof(s->src[0]));
                        s->n--;
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
        for (unsigned i = 0; i < s->n && snap->n_sources < SNAPSHOT_MAX_SOURCES; i++) {
                const struct psi_src *src = &s->src[i];
                if (src->wake_only)
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
