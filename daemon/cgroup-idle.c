/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "cgroup-idle.h"
#include "log.h"
#include "util.h"

struct young {
        char *path;
        uint64_t until;         /* CLOCK_MONOTONIC usec */
};

struct cgidle {
        char name[16];
        const struct kernel *kernel;
        sd_event *event;
        sd_event_source *timer;
        char mount[sizeof("/sys/fs/cgroup/unified")];
        uid_t owner;            /* of the hierarchy's root */
        struct young young[CGIDLE_YOUNG_MAX]; /* new cgroups not idle yet */
        unsigned n_young;
        bool refused_said, young_full_said;
        void (*on_idle)(void *userdata, const char *path);
        void *userdata;
};

struct cgidle *cgidle_new(const struct cgidle_params *p) {
        struct cgidle *c = calloc(1, sizeof(*c));
        char real[PATH_MAX + 64];
        struct stat st;

        if (!c)
                return NULL;
        snprintf(c->name, sizeof(c->name), "%s", p->name ? p->name : "Idle");
        snprintf(c->mount, sizeof(c->mount), "%s", p->mount);
        c->kernel = p->kernel;
        c->event = p->event ? sd_event_ref(p->event) : NULL;
        c->on_idle = p->on_idle;
        c->userdata = p->userdata;
        /* whose the hierarchy is: root; in a fake tree, its maker */
        if (kernel_path(c->kernel, c->mount, real, sizeof(real)) == 0 && stat(real, &st) == 0)
                c->owner = st.st_uid;
        return c;
}

static void young_drop_at(struct cgidle *c, unsigned i) {
        free(c->young[i].path);
        c->young[i] = c->young[--c->n_young];
}

struct cgidle *cgidle_free(struct cgidle *c) {
        if (!c)
                return NULL;
        c->timer = sd_event_source_disable_unref(c->timer);
        while (c->n_young > 0)
                young_drop_at(c, c->n_young - 1);
        if (c->event)
                sd_event_unref(c->event);
        free(c);
        return NULL;
}

bool cgidle_is_idle(const struct cgidle *c, const char *path) {
        return kernel_cgroup_idle(c->kernel, path);
}

/* Is the cgroup directory someone else's than root's: a delegated subtree
 * (systemd chowns a delegated unit's directory, its cgroup.procs and
 * cgroup.subtree_control to the user, and marks it trusted.delegate, or
 * user.delegate in a user's manager), or one made there? Then why says
 * so. A directory that cannot be looked at (gone) is not taken either. */
static bool delegated(const struct cgidle *c, const char *dir, char *why, size_t size) {
        static const char *const xattrs[] = { "trusted.delegate", "user.delegate" };
        static const char *const files[] = { "cgroup.procs", "cgroup.subtree_control" };
        char real[PATH_MAX + 512], file[PATH_MAX + 600], v[8];
        struct stat st;

        *why = '\0';
        if (kernel_path(c->kernel, dir, real, sizeof(real)) < 0 || lstat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                return true;
        if (st.st_uid != c->owner) {
                snprintf(why, size, "owned by uid %u", (unsigned) st.st_uid);
                return true;
        }
        for (size_t i = 0; i < ELEMENTSOF(xattrs); i++) {
                ssize_t n = getxattr(real, xattrs[i], v, sizeof(v));
                if (n > 0 && v[0] != '0') {
                        snprintf(why, size, "marked %s", xattrs[i]);
                        return true;
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                if ((size_t) snprintf(file, sizeof(file), "%s/%s", real, files[i]) < sizeof(file) &&
                    lstat(file, &st) == 0 && st.st_uid != c->owner) {
                        snprintf(why, size, "its %s owned by uid %u", files[i], (unsigned) st.st_uid);
                        return true;
                }
        return false;
}

bool cgidle_refused(struct cgidle *c, const char *dir) {
        char why[96];

        if (!delegated(c, dir, why, sizeof(why)))
                return false;
        if (!*why) /* gone, or not a directory */
                return true;
        if (!c->refused_said)
                log_notice("%s: IdleCgroups= leaves out %s and every cgroup below it (%s): a delegated subtree is "
                           "its user's, and only root's own cgroups are batch work for their cpu.idle (said once; "
                           "the others at debug level)", c->name, dir, why);
        else
                log_debug("%s: IdleCgroups= leaves out %s (%s)", c->name, dir, why);
        c->refused_said = true;
        return true;
}

bool cgidle_trusted(struct cgidle *c, const char *path) {
        char p[PATH_MAX];
        size_t m = strlen(c->mount);

        if (strlen(path) <= m || strncmp(path, c->mount, m) != 0 || path[m] != '/' ||
            (size_t) snprintf(p, sizeof(p), "%s", path) >= sizeof(p))
                return false;
        for (char *s = p + m + 1;; s++)
                if (*s == '/' || *s == '\0') {
                        char was = *s;
                        *s = '\0';
                        if (cgidle_refused(c, p))
                                return false;
                        if (!(*s = was))
                                return true;
                }
}

static int on_young(sd_event_source *s, uint64_t usec, void *userdata);

static void young_arm(struct cgidle *c) {
        if (c->timer || c->n_young == 0)
                return;
        if (sd_event_add_time_relative(c->event, &c->timer, CLOCK_MONOTONIC, CGIDLE_RECHECK_USEC, USEC_PER_SEC / 50,
                                       on_young, c) < 0)
                c->timer = NULL;
}

static int on_young(sd_event_source *s, uint64_t usec, void *userdata) {
        struct cgidle *c = userdata;

        c->timer = sd_event_source_disable_unref(c->timer);
        for (unsigned i = c->n_young; i-- > 0;) {
                struct young *y = &c->young[i];
                if (cgidle_is_idle(c, y->path)) {
                        char *path = y->path;
                        /* off the list first: on_idle may add to it */
                        c->young[i] = c->young[--c->n_young];
                        if (c->on_idle)
                                c->on_idle(c->userdata, path);
                        free(path);
                } else if (usec >= y->until || !kernel_exists(c->kernel, y->path))
                        young_drop_at(c, i);
        }
        young_arm(c);
        return 0;
}

void cgidle_young(struct cgidle *c, const char *path) {
        uint64_t now;

        if (!c->event || sd_event_now(c->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        for (unsigned i = 0; i < c->n_young; i++)
                if (strcmp(c->young[i].path, path) == 0)
                        return;
        if (c->n_young >= CGIDLE_YOUNG_MAX) {
                if (!c->young_full_said)
                        log_notice("%s: %u new cgroups wait for their cpu.idle already; %s and later ones are read "
                                   "again only at the recheck of an active sample (said once)", c->name,
                                   CGIDLE_YOUNG_MAX, path);
                c->young_full_said = true;
                return;
        }
        if (!(c->young[c->n_young].path = strdup(path)))
                return;
        c->young[c->n_young++].until = now + CGIDLE_YOUNG_USEC;
        young_arm(c);
}
