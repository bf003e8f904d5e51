/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "snapshot.h"
#include "state.h"
#include "util.h"

void state_init(struct state *st, const char *dir) {
        *st = (struct state) { .lock_fd = -1, .save = { .value = KNOB_UNSET } };
        snprintf(st->dir, sizeof(st->dir), "%s", dir);
}

int state_lock(struct state *st) {
        struct stat s;
        int fd, r;

        /* the unit's RuntimeDirectory= makes it; by hand, we do */
        r = mkdir_p(st->dir, 0700);
        if (r < 0) {
                log_error("Cannot create the state directory %s: %s", st->dir, err_str(r));
                return r;
        }
        fd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                log_error("Cannot open the state directory %s: %s", st->dir,
                          r == -ELOOP || r == -ENOTDIR ? "not a directory (a symlink?)" : err_str(r));
                return r;
        }
        /* The save file names what --restore writes to: nobody else may put
         * one there. */
        if (fstat(fd, &s) < 0 || s.st_uid != geteuid() || (s.st_mode & (S_IWGRP | S_IWOTH))) {
                log_error("Refusing the state directory %s: it must be owned by uid %u and writable by it alone",
                          st->dir, (unsigned) geteuid());
                close(fd);
                return -EPERM;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                r = errno == EWOULDBLOCK ? -EBUSY : -errno;
                if (r == -EBUSY)
                        log_error("Another zswap-tuned is running: it holds the state directory %s", st->dir);
                else
                        log_error("Cannot lock the state directory %s: %s", st->dir, err_str(r));
                close(fd);
                return r;
        }
        st->lock_fd = fd;
        return 0;
}

void state_unlock(struct state *st) {
        if (st->lock_fd >= 0)
                close(st->lock_fd);
        st->lock_fd = -1;
}

int state_load(struct state *st) {
        char path[1024];
        int r;

        savefile_remove_temporaries(st->dir);
        r = savefile_read(st->dir, &st->save);
        if (r >= 0 || r == -ENOENT)
                return r;
        (void) savefile_path(st->dir, path, sizeof(path));
        log_warning("Ignoring %s: %s", path, err_str(r));
        st->save = (struct saved) { .value = KNOB_UNSET };
        return r;
}

static void persist(struct state *st) {
        int r = savefile_write(st->dir, &st->save);

        if (r < 0 && !st->save_failed)
                log_warning("Cannot save original values in %s/" SAVEFILE_NAME ": %s; they are restored on a clean "
                            "exit, but not after a crash", st->dir, err_str(r));
        else if (r >= 0 && st->save_failed)
                log_info("Saved the original values in %s/" SAVEFILE_NAME " again", st->dir);
        st->save_failed = r < 0;
}

void state_save_knob(struct state *st, const char *name, knob_value v) {
        snprintf(st->save.knob, sizeof(st->save.knob), "%s", name);
        st->save.value = v;
        persist(st);
}

void state_forget_knob(struct state *st) {
        if (!st->save.knob[0])
                return;
        st->save.knob[0] = '\0';
        persist(st);
}

const char *state_saved_cap(const struct state *st, const char *path) {
        for (unsigned i = 0; i < st->save.n_caps; i++)
                if (strcmp(st->save.caps[i].path, path) == 0)
                        return st->save.caps[i].value;
        return NULL;
}

void state_save_cap(struct state *st, const char *path, const char *value) {
        struct saved_cap *c;

        if (st->save.n_caps >= ELEMENTSOF(st->save.caps) || strlen(path) >= sizeof(c->path) ||
            strlen(value) >= sizeof(c->value))
                return;
        c = &st->save.caps[st->save.n_caps++];
        /* (memcpy: path may point into the caller's copy of *st) */
        memmove(c->path, path, strlen(path) + 1);
        memmove(c->value, value, strlen(value) + 1);
        persist(st);
}

void state_forget_cap(struct state *st, const char *path) {
        for (unsigned i = 0; i < st->save.n_caps; i++)
                if (strcmp(st->save.caps[i].path, path) == 0) {
                        st->save.caps[i] = st->save.caps[--st->save.n_caps];
                        persist(st);
                        return;
                }
}

int state_restore(const struct kernel *k, const char *dir) {
        struct state st;
        int r;

        if (access(dir, F_OK) < 0 && errno == ENOENT)
                return 0; /* nothing was ever saved */
        state_init(&st, dir);
        r = state_lock(&st);
        if (r < 0)
                return r;
        r = savefile_restore(k, st.dir);
        /* the status of an instance that could not remove it (SIGKILL) */
        if (unlinkat(st.lock_fd, SNAPSHOT_NAME, 0) == 0)
                log_info("Removed %s/" SNAPSHOT_NAME ", left by an instance that was killed", st.dir);
        remove_atomic_temporaries(st.dir, SNAPSHOT_NAME);
        state_unlock(&st);
        return r;
}
