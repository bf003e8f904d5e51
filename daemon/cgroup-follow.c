/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgroup-follow.h"
#include "cgroup-idle.h"
#include "log.h"
#include "util.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF | IN_ONLYDIR)
#define MIN_WATCHES 1024        /* the watch bound: 4 per match, at least this */
#define RESCAN_DELAY_USEC USEC_PER_SEC
struct pattern {
        struct cglob g;
        char base[sizeof("/sys/fs/cgroup/unified")]; /* the mount it is below */
        const char *where;      /* FILE:LINE, owned by the conf */
        unsigned last_count;    /* matches at the end of the last scan, for the notice */
};

struct watch {
        int wd;
        char *path;             /* no root prefix */
};

struct follow {
        char name[16];
        const struct kernel *kernel;
        sd_event *event;
        sd_event_source *io, *rescan_timer;
        struct cgidle *idle;    /* IdleCgroups=; NULL: off */
        int fd;
        struct pattern *pat;
        unsigned n_pat;
        bool caps;
        bool idle_full_said, evict_said, refused_said, overflow_said;
        bool overflowed;        /* the queue overflowed: the rescan lists everything afresh */
        uint64_t events;        /* inotify events handled */
        char mount[sizeof("/sys/fs/cgroup/unified")]; /* the v2 mount for relative patterns, Units= and idle */
        char own[PATH_MAX];     /* below the mount; "" if unknown */
        bool own_known;

        struct follow_match **m; /* oldest first */
        unsigned n, max;
        uint64_t seq;
        unsigned gen;
        bool full_warned, full;  /* MaxCgroups= was reached (said once) and something was left out */

        struct watch *w;
        unsigned n_w, max_w;
        bool watches_warned;

        follow_cb_t on_add, on_remove;
        void *userdata;
        bool scanning_at_start;
};

/* ---- matches ---------------------------------------------------------------- */

static int find_index(const struct follow *f, const char *path) {
        for (unsigned i = 0; i < f->n; i++)
                if (strcmp(f->m[i]->path, path) == 0)
                        return (int) i;
        return -1;
}

const struct follow_match *follow_find(const struct follow *f, const char *path) {
        int i = find_index(f, path);

        return i < 0 ? NULL : f->m[i];
}

/* The mount-relative part of a path, or NULL if it is not below mount. */
static const char *below(const char *path, const char *mount) {
        size_t n = strlen(mount);

        if (strncmp(path, mount, n) != 0)
                return NULL;
        if (path[n] == '\0')
                return path + n;
        return path[n] == '/' ? path + n + 1 : NULL;
}

/* rel is top or lies below it */
static bool at_or_below(const char *rel, const char *top) {
        size_t n = strlen(top);

        return strncmp(rel, top, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* Never the root cgroup, init.scope or the daemon's own, or a cgroup below
 * them, whatever took it; for caps, never one that holds the daemon's own
 * either (memory.zswap.max is hierarchical). */
static bool allowed(const struct follow *f, const char *path) {
        const char *rel = below(path, f->mount);

        if (!rel)
                rel = below(path, CGROUP_ROOT);
        if (!rel)
                return false;
        if (at_or_below(rel, "unified")) /* the hybrid layout's v2 mount, named from CGROUP_ROOT */
                rel += rel[7] ? 8 : 7;
        if (!*rel || at_or_below(rel, "init.scope"))
                return false;
        if (f->own_known && *f->own && (at_or_below(rel, f->own) || (f->caps && at_or_below(f->own, rel))))
                return false;
        return true;
}

static unsigned count_idle(const struct follow *f) {
        unsigned n = 0;

        for (unsigned i = 0; i < f->n; i++)
                n += f->m[i]->pattern == FOLLOW_IDLE;
        return n;
}

static unsigned idle_max(const struct follow *f) {
        return (f->max + FOLLOW_IDLE_SHARE - 1) / FOLLOW_IDLE_SHARE;
}

static void remove_at(struct follow *f, unsigned i);

static void add_match(struct follow *f, const char *path, const char *unit, int pattern) {
        struct follow_match *m;
        int i = find_index(f, path);

        if (i >= 0) { /* already there: seen, and name its unit if that is news */
                m = f->m[i];
                m->gen = f->gen;
                if (unit && !m->unit)
                        m->unit = strdup(unit);
                return;
        }
        if (!allowed(f, path)) {
                if (!f->refused_said)
                        log_notice("%s: %s is the root cgroup, init.scope or the daemon's own cgroup, lies in one of "
                                   "them%s; never taken (said once)", f->name, path,
                                   f->caps ? " or holds the daemon's own" : "");
                f->refused_said = true;
                return;
        }
        /* IdleCgroups= takes its share of the places at most, and gives
         * one back to the admin's named patterns and units */
        if (pattern == FOLLOW_IDLE && count_idle(f) >= idle_max(f)) {
                if (!f->idle_full_said)
                        log_notice("%s: IdleCgroups= takes at most %u of the MaxCgroups=%u places (the rest are the "
                                   "named patterns' and units'); %s and later idle cgroups are left out while "
                                   "they are taken (said once)", f->name, idle_max(f), f->max, path);
                f->idle_full_said = f->full = true;
                return;
        }
        if (f->n >= f->max && pattern != FOLLOW_IDLE)
                for (unsigned v = f->n; v-- > 0;)
                        if (f->m[v]->pattern == FOLLOW_IDLE) {
                                if (!f->evict_said)
                                        log_notice("%s: MaxCgroups=%u places are taken; %s, named in the "
                                                   "configuration, takes the place of %s, taken for its cpu.idle "
                                                   "(said once)", f->name, f->max, path, f->m[v]->path);
                                f->evict_said = true;
                                f->full = true;
                                remove_at(f, v);
                                break;
                        }
        if (f->n >= f->max) {
                if (!f->full_warned)
                        log_warning("%s: more than MaxCgroups=%u cgroups match; the first %u keep their place, "
                                    "%s and later ones are left out while there is no room (said once)",
                                    f->name, f->max, f->max, path);
                f->full_warned = f->full = true;
                return;
        }
        if (f->n % 16 == 0) {
                struct follow_match **a = realloc(f->m, (f->n + 16) * sizeof(*a));
                if (!a) {
                        log_error("%s: out of memory following %s", f->name, path);
                        return;
                }
                f->m = a;
        }
        m = calloc(1, sizeof(*m));
        if (!m || !(m->path = strdup(path)) || (unit && !(m->unit = strdup(unit)))) {
                if (m)
                        free(m->path);
                free(m);
                log_error("%s: out of memory following %s", f->name, path);
                return;
        }
        m->rel = below(m->path, f->mount);
        if (!m->rel)
                m->rel = below(m->path, CGROUP_ROOT);
        m->pattern = pattern;
        m->seq = ++f->seq;
        m->gen = f->gen;
        f->m[f->n++] = m;
        if (f->on_add)
                f->on_add(f, m, f->userdata);
}

static void arm_rescan(struct follow *f);

static void remove_at(struct follow *f, unsigned i) {
        struct follow_match *m = f->m[i];

        memmove(&f->m[i], &f->m[i + 1], (f->n - i - 1) * sizeof(*f->m));
        f->n--;
        if (f->on_remove)
                f->on_remove(f, m, f->userdata);
        free(m->path);
        free(m->unit);
        free(m);
        /* a place is free: something left out may have it (once a second at most) */
        if (f->full)
                arm_rescan(f);
}

/* path and everything below it (a removed or moved directory) */
static void remove_tree(struct follow *f, const char *path, bool units_too) {
        size_t n = strlen(path);

        for (unsigned i = f->n; i-- > 0;) {
                const char *p = f->m[i]->path;
                if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '/') &&
                    (units_too || f->m[i]->pattern != FOLLOW_UNIT))
                        remove_at(f, i);
        }
}

/* ---- watches ------------------------------------------------------------ */

static int watch_index(const struct follow *f, int wd) {
        for (unsigned i = 0; i < f->n_w; i++)
                if (f->w[i].wd == wd)
                        return (int) i;
        return -1;
}

static void drop_watch_at(struct follow *f, unsigned i, bool rm) {
        if (rm)
                (void) inotify_rm_watch(f->fd, f->w[i].wd);
        free(f->w[i].path);
        f->w[i] = f->w[--f->n_w];
}

static void add_watch(struct follow *f, const char *path) {
        char real[PATH_MAX + 512];
        int wd, i;

        if (f->fd < 0)
                return;
        if (f->n_w >= f->max_w) {
                if (!f->watches_warned)
                        log_warning("%s: watching %u directories already; not watching %s, so cgroups created "
                                    "below it are not noticed (said once)", f->name, f->max_w, path);
                f->watches_warned = true;
                return;
        }
        if (kernel_path(f->kernel, path, real, sizeof(real)) < 0)
                return;
        wd = inotify_add_watch(f->fd, real, WATCH_MASK);
        if (wd < 0) {
                if (errno != ENOENT && errno != ENOTDIR && !f->watches_warned) {
                        log_warning("%s: cannot watch %s: %m; cgroups created below it are not noticed", f->name,
                                    path);
                        f->watches_warned = true;
                }
                return;
        }
        i = watch_index(f, wd);
        if (i >= 0) { /* the same directory (or a new one with a recycled wd after IN_IGNORED was missed) */
                if (strcmp(f->w[i].path, path) != 0) {
                        char *p = strdup(path);
                        if (p) {
                                free(f->w[i].path);
                                f->w[i].path = p;
                        }
                }
                return;
        }
        if (f->n_w % 32 == 0) {
                struct watch *a = realloc(f->w, (f->n_w + 32) * sizeof(*a));
                if (!a) {
                        (void) inotify_rm_watch(f->fd, wd);
                        return;
                }
                f->w = a;
        }
        f->w[f->n_w].wd = wd;
        if (!(f->w[f->n_w].path = strdup(path))) {
                (void) inotify_rm_watch(f->fd, wd);
                return;
        }
        f->n_w++;
}

/* Stop watching path and the directories below it (moved away). */
static void drop_watch_tree(struct follow *f, const char *path) {
        size_t n = strlen(path);

        for (unsigned i = f->n_w; i-- > 0;) {
                const char *p = f->w[i].path;
                if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '/'))
                        drop_watch_at(f, i, true);
        }
}

/* ---- scanning ----------------------------------------------------------- */

static bool join(char *buf, size_t size, const char *dir, const char *name) {
        return (size_t) snprintf(buf, size, "%s/%s", dir, name) < size;
}

static void idle_take(struct follow *f, const char *path) {
        if (cgidle_trusted(f->idle, path))
                add_match(f, path, NULL, FOLLOW_IDLE);
}

/* a new cgroup became idle (cgroup-idle.c) */
static void on_idle(void *userdata, const char *path) {
        idle_take(userdata, path);
}

static void scan_pattern_dir(struct follow *f, unsigned pi, const char *dir);
static void scan_idle_dir(struct follow *f, const char *dir, unsigned depth);

/* A child directory name appeared in dir (or was found by a scan). */
static void child_appeared(struct follow *f, const char *dir, const char *name) {
        char path[PATH_MAX];

        if (!join(path, sizeof(path), dir, name))
                return;
        for (unsigned i = 0; i < f->n_pat; i++) {
                struct pattern *p = &f->pat[i];
                const char *rel = below(path, p->base);

                if (!rel)
                        continue;
                if (cglob_match(&p->g, rel))
                        add_match(f, path, NULL, (int) i);
                else if (cglob_match_parent(&p->g, rel))
                        scan_pattern_dir(f, i, path);
        }
        if (f->idle && below(path, f->mount) && !cgidle_refused(f->idle, path)) {
                if (cgidle_is_idle(f->idle, path))
                        idle_take(f, path);
                else
                        cgidle_young(f->idle, path);
                scan_idle_dir(f, path, 1);
        }
}

static void for_each_subdir(struct follow *f, const char *dir, void (*fn)(struct follow *, const char *, const char *,
                                                                          unsigned), unsigned arg) {
        char real[PATH_MAX + 512];
        struct dirent *de;
        DIR *d;

        if (kernel_path(f->kernel, dir, real, sizeof(real)) < 0 || !(d = opendir(real)))
                return;
        while ((de = readdir(d)))
                if (dirent_is_dir(d, de))
                        fn(f, dir, de->d_name, arg);
        closedir(d);
}

static void pattern_child(struct follow *f, const char *dir, const char *name, unsigned pi) {
        struct pattern *p = &f->pat[pi];
        char path[PATH_MAX];
        const char *rel;

        if (!join(path, sizeof(path), dir, name) || !(rel = below(path, p->base)))
                return;
        if (cglob_match(&p->g, rel))
                add_match(f, path, NULL, (int) pi);
        else if (cglob_match_parent(&p->g, rel))
                scan_pattern_dir(f, pi, path);
}

/* dir leads to matches of pattern pi: watch it and look at what it has. */
static void scan_pattern_dir(struct follow *f, unsigned pi, const char *dir) {
        add_watch(f, dir);
        for_each_subdir(f, dir, pattern_child, pi);
}

static void idle_child(struct follow *f, const char *dir, const char *name, unsigned depth) {
        char path[PATH_MAX];

        if (!join(path, sizeof(path), dir, name) || cgidle_refused(f->idle, path))
                return;
        if (cgidle_is_idle(f->idle, path))
                idle_take(f, path);
        else if (!f->scanning_at_start) /* below a new one, or after a lost event: new too */
                cgidle_young(f->idle, path);
        scan_idle_dir(f, path, depth + 1);
}

static void scan_idle_dir(struct follow *f, const char *dir, unsigned depth) {
        if (depth > CGLOB_MAX_DEPTH)
                return;
        add_watch(f, dir);
        for_each_subdir(f, dir, idle_child, depth);
}

/* Where pattern pi starts: its literal prefix, or the deepest part of it
 * that exists (a watch there sees the rest appear). */
static void scan_pattern(struct follow *f, unsigned pi) {
        struct pattern *p = &f->pat[pi];
        char prefix[PATH_MAX], dir[PATH_MAX];

        for (unsigned d = cglob_watch_depth(&p->g) + 1; d-- > 0;) {
                if (cglob_prefix(&p->g, d, prefix, sizeof(prefix)) < 0 ||
                    (size_t) snprintf(dir, sizeof(dir), "%s%s%s", p->base, *prefix ? "/" : "", prefix) >= sizeof(dir))
                        continue;
                if (d > 0 && !kernel_exists(f->kernel, dir))
                        continue;
                scan_pattern_dir(f, pi, dir);
                return;
        }
}

/* List everything afresh: matches no longer there go, new ones come. */
static void scan_all(struct follow *f) {
        f->gen++;
        f->full = false;
        for (unsigned i = 0; i < f->n_pat; i++)
                scan_pattern(f, i);
        if (f->idle)
                scan_idle_dir(f, f->mount, 0);
        for (unsigned i = f->n; i-- > 0;) {
                struct follow_match *m = f->m[i];

                if (m->gen == f->gen || m->pattern == FOLLOW_UNIT) /* a unit's is the bus's to remove */
                        continue;
                /* not seen: gone, or no longer idle; one still there that a
                 * watch limit kept the scan from stays */
                if (m->pattern == FOLLOW_IDLE || !kernel_exists(f->kernel, m->path))
                        remove_at(f, i);
        }
        if (!f->full)
                f->full_warned = false;
}

/* After an overflow: the IN_IGNORED of removed directories may be among
 * what was lost; then everything is listed afresh. */
static void rescan_after_overflow(struct follow *f) {
        f->overflowed = false;
        for (unsigned i = f->n_w; i-- > 0;)
                if (!kernel_exists(f->kernel, f->w[i].path))
                        drop_watch_at(f, i, true);
        if (!f->overflow_said)
                log_notice("%s: too many cgroup changes at once for inotify's queue; listing them afresh, at most "
                           "once a second while it lasts (said once)", f->name);
        else
                log_debug("%s: inotify's queue overflowed again; listing the cgroups afresh", f->name);
        f->overflow_said = true;
        scan_all(f);
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *userdata) {
        struct follow *f = userdata;

        f->rescan_timer = sd_event_source_disable_unref(f->rescan_timer);
        if (f->overflowed) {
                rescan_after_overflow(f);
                return 0;
        }
        log_debug("%s: a place is free; looking for cgroups left out", f->name);
        scan_all(f);
        return 0;
}

static void arm_rescan(struct follow *f) {
        if (!f->event || f->rescan_timer || f->scanning_at_start)
                return;
        if (sd_event_add_time_relative(f->event, &f->rescan_timer, CLOCK_MONOTONIC, RESCAN_DELAY_USEC, USEC_PER_SEC / 10,
                                       on_rescan, f) < 0)
                f->rescan_timer = NULL;
}

/* ---- inotify ------------------------------------------------------------ */

static void handle(struct follow *f, const struct inotify_event *ev, bool *overflow) {
        char path[PATH_MAX];
        int i;

        if (ev->mask & IN_Q_OVERFLOW) {
                *overflow = true;
                return;
        }
        i = watch_index(f, ev->wd);
        if (i < 0)
                return;
        if (ev->mask & IN_IGNORED) { /* the directory is gone, or we dropped it */
                drop_watch_at(f, (unsigned) i, false);
                return;
        }
        if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                /* its matches go with their own IN_DELETE in the parent, or here */
                if (!(ev->mask & IN_MOVE_SELF))
                        remove_tree(f, f->w[i].path, false);
                return;
        }
        if (!ev->len || !(ev->mask & IN_ISDIR) || !join(path, sizeof(path), f->w[i].path, ev->name))
                return;
        if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                child_appeared(f, f->w[i].path, ev->name);
        else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
                remove_tree(f, path, false);
                if (ev->mask & IN_MOVED_FROM)
                        drop_watch_tree(f, path);
        }
}

int follow_process(struct follow *f) {
        _Alignas(struct inotify_event) char buf[16384];
        bool overflow = false;
        int n = 0;

        if (f->fd < 0)
                return 0;
        /* bounded: the rest waits for the loop's next turn (the fd stays
         * readable), after the timers due meanwhile */
        while (n < FOLLOW_EVENTS_PER_PASS) {
                ssize_t len = read(f->fd, buf, sizeof(buf));

                if (len < 0 && errno == EINTR)
                        continue;
                if (len <= 0)
                        break;
                for (char *p = buf; p < buf + len;) {
                        const struct inotify_event *ev = (const struct inotify_event *) (void *) p;
                        handle(f, ev, &overflow);
                        n++;
                        f->events++;
                        p += sizeof(*ev) + ev->len;
                }
        }
        if (overflow) {
                /* a storm: one rescan a second at most, not one per overflow */
                f->overflowed = true;
                if (f->event)
                        arm_rescan(f);
                if (!f->rescan_timer)
                        rescan_after_overflow(f);
        }
        return n;
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        (void) follow_process(userdata);
        return 0;
}

/* ---- setup -------------------------------------------------------------- */

/* The cgroup v2 mount; false (and the first place) if there is none. */
static bool find_mount(struct follow *f) {
        static const char *const mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };

        snprintf(f->mount, sizeof(f->mount), "%s", mounts[0]);
        for (size_t i = 0; i < ELEMENTSOF(mounts); i++) {
                char p[64];
                snprintf(p, sizeof(p), "%s/cgroup.controllers", mounts[i]);
                if (kernel_exists(f->kernel, p)) {
                        snprintf(f->mount, sizeof(f->mount), "%s", mounts[i]);
                        return true;
                }
        }
        return false;
}

int follow_new(struct follow **ret, const struct follow_params *p) {
        struct follow *f = calloc(1, sizeof(*f));
        bool want_idle = false;
        int r = 0;

        if (!f)
                return -ENOMEM;
        snprintf(f->name, sizeof(f->name), "%s", p->name ? p->name : "Follow");
        f->kernel = p->kernel;
        f->caps = p->caps;
        f->max = p->max ? p->max : CONF_MAX_MATCHES_DEFAULT;
        f->max_w = f->max > MIN_WATCHES / 4 ? 4 * f->max : MIN_WATCHES;
        f->on_add = p->on_add;
        f->on_remove = p->on_remove;
        f->userdata = p->userdata;
        f->fd = -1;
        if (!find_mount(f) && p->idle)
                /* cpu.idle is a cgroup v2 file: without a v2 mount there is
                 * nothing to find, and walking v1 hierarchies would only
                 * spend inotify watches */
                log_info("%s: IdleCgroups=: no cgroup v2 hierarchy is mounted, so no cgroup is taken for its "
                         "cpu.idle", f->name);
        else
                want_idle = p->idle;
        if (p->own) {
                snprintf(f->own, sizeof(f->own), "%s", p->own);
                f->own_known = true;
        } else
                f->own_known = cglob_own_cgroup(f->kernel, f->own, sizeof(f->own)) == 0;

        if (p->patterns && p->patterns->n > 0) {
                f->pat = calloc(p->patterns->n, sizeof(*f->pat));
                if (!f->pat) {
                        free(f);
                        return -ENOMEM;
                }
        }
        for (unsigned i = 0; p->patterns && i < p->patterns->n; i++) {
                struct pattern *pt = &f->pat[f->n_pat];
                const char *where = p->patterns->where[i] ? p->patterns->where[i] : p->name;
                const char *why = cglob_parse(&pt->g, p->patterns->item[i]);

                if (!why)
                        why = cglob_forbidden(&pt->g, f->own_known ? f->own : NULL);
                if (why) {
                        log_warning("%s: Cgroups= path '%s' %s; refused, leaving it out", where,
                                    p->patterns->item[i], why);
                        cglob_free(&pt->g);
                        continue;
                }
                pt->where = p->patterns->where[i];
                snprintf(pt->base, sizeof(pt->base), "%s", pt->g.absolute ? CGROUP_ROOT : f->mount);
                f->n_pat++;
        }

        f->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (f->fd < 0) {
                r = -errno;
                log_warning("%s: no inotify (%s): the cgroups that match now are followed, later ones are "
                            "not noticed until a reload", f->name, err_str(r));
        }
        if (f->fd >= 0 && p->event) {
                f->event = sd_event_ref(p->event);
                r = sd_event_add_io(p->event, &f->io, f->fd, EPOLLIN, on_inotify, f);
                /* below the timers: the watchdog and the samples go first in a storm */
                if (r >= 0)
                        (void) sd_event_source_set_priority(f->io, SD_EVENT_PRIORITY_NORMAL + 10);
                if (r < 0)
                        log_warning("%s: cannot watch for new cgroups (%s): later ones are not noticed until a "
                                    "reload", f->name, err_str(r));
        }

        if (want_idle) {
                const struct cgidle_params ip = {
                        .name = f->name, .kernel = f->kernel, .event = f->event, .mount = f->mount,
                        .on_idle = on_idle, .userdata = f,
                };
                if (!(f->idle = cgidle_new(&ip)))
                        log_error("%s: out of memory; IdleCgroups= takes no cgroup", f->name);
        }
        f->scanning_at_start = true;
        scan_all(f);
        f->scanning_at_start = false;
        for (unsigned i = 0; i < f->n_pat; i++) {
                unsigned n = 0;
                for (unsigned j = 0; j < f->n; j++)
                        n += f->m[j]->pattern == (int) i;
                if (n == 0)
                        log_notice("%s: Cgroups=%s matches no cgroup now; followed as cgroups come", f->name,
                                   f->pat[i].g.text);
                else
                        log_info("%s: Cgroups=%s matches %u cgroup%s", f->name, f->pat[i].g.text, n, n == 1 ? "" : "s");
        }
        *ret = f;
        return r < 0 ? r : 0;
}

struct follow *follow_free(struct follow *f) {
        if (!f)
                return NULL;
        f->io = sd_event_source_disable_unref(f->io);
        f->rescan_timer = sd_event_source_disable_unref(f->rescan_timer);
        f->idle = cgidle_free(f->idle);
        if (f->event)
                sd_event_unref(f->event);
        if (f->fd >= 0)
                close(f->fd);
        for (unsigned i = 0; i < f->n; i++) {
                free(f->m[i]->path);
                free(f->m[i]->unit);
                free(f->m[i]);
        }
        free(f->m);
        for (unsigned i = 0; i < f->n_w; i++)
                free(f->w[i].path);
        free(f->w);
        for (unsigned i = 0; i < f->n_pat; i++)
                cglob_free(&f->pat[i].g);
        free(f->pat);
        free(f);
        return NULL;
}

unsigned follow_count(const struct follow *f) {
        return f ? f->n : 0;
}

const struct follow_match *follow_get(const struct follow *f, unsigned i) {
        return f && i < f->n ? f->m[i] : NULL;
}

unsigned follow_n_patterns(const struct follow *f) {
        return f ? f->n_pat : 0;
}

const char *follow_pattern(const struct follow *f, unsigned i) {
        return f && i < f->n_pat ? f->pat[i].g.text : NULL;
}

unsigned follow_n_watches(const struct follow *f) {
        return f ? f->n_w : 0;
}

uint64_t follow_n_events(const struct follow *f) {
        return f ? f->events : 0;
}

int follow_fd(const struct follow *f) {
        return f ? f->fd : -1;
}

/* ---- Units= and IdleCgroups= ---------------------------------------------- */

void follow_add_unit(struct follow *f, const char *unit, const char *control_group) {
        char path[PATH_MAX];

        if (!f || !control_group || control_group[0] != '/')
                return;
        if ((size_t) snprintf(path, sizeof(path), "%s%s", f->mount, control_group) >= sizeof(path) ||
            path_has_dotdot(path))
                return;
        /* a unit that moved to another cgroup: the old one goes */
        for (unsigned i = f->n; i-- > 0;)
                if (f->m[i]->pattern == FOLLOW_UNIT && f->m[i]->unit && strcmp(f->m[i]->unit, unit) == 0 &&
                    strcmp(f->m[i]->path, path) != 0)
                        remove_at(f, i);
        if (!allowed(f, path)) {
                log_warning("%s: Units= takes %s, whose cgroup %s is the root, init.scope or the daemon's own; "
                            "leaving it out", f->name, unit, control_group);
                return;
        }
        add_match(f, path, unit, FOLLOW_UNIT);
}

void follow_remove_unit(struct follow *f, const char *unit) {
        if (!f)
                return;
        for (unsigned i = f->n; i-- > 0;)
                if (f->m[i]->unit && strcmp(f->m[i]->unit, unit) == 0) {
                        if (f->m[i]->pattern == FOLLOW_UNIT)
                                remove_at(f, i);
                        /* a glob took it too: it stays while it is there */
                }
}

void follow_recheck_idle(struct follow *f) {
        if (!f || !f->idle)
                return;
        for (unsigned i = f->n; i-- > 0;)
                if (f->m[i]->pattern == FOLLOW_IDLE &&
                    (!cgidle_is_idle(f->idle, f->m[i]->path) || !cgidle_trusted(f->idle, f->m[i]->path)))
                        remove_at(f, i);
        /* the watched directories are the cgroups we know of */
        for (unsigned i = 0; i < f->n_w; i++)
                if (below(f->w[i].path, f->mount) && *below(f->w[i].path, f->mount) &&
                    cgidle_is_idle(f->idle, f->w[i].path))
                        idle_take(f, f->w[i].path);
}
