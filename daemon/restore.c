/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "restore.h"
#include "util.h"

void restore_init(struct restore *r, const struct kernel *k) {
        *r = (struct restore) {
                .kernel = k, .machine_fd = -1, .dir_fd = -1, .lock_fd = -1, .metrics_fd = -1,
                .save = { .value = KNOB_UNSET },
        };
}

/* Is fd (a directory) ours to write in? Owned by us and writable by us alone;
 * with sticky_ok also group/other-writable if sticky (as /tmp): nobody else can
 * then rename or remove what we put there. NULL, or why not. */
static const char *dir_refused(int fd, bool sticky_ok) {
        struct stat s;

        if (fstat(fd, &s) < 0 || !S_ISDIR(s.st_mode))
                return "not a directory";
        if (s.st_uid != geteuid())
                return "not owned by this user";
        if ((s.st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (s.st_mode & S_ISVTX)))
                return sticky_ok ? "writable by group or others and not sticky" : "writable by group or others";
        return NULL;
}

/* A lock file: created 0600 if missing, never through a symlink, and only
 * one that nobody but us could have opened (a regular file of ours, 0600 or
 * less), so that nobody else can hold its flock. -EBUSY when another holds
 * it. where: the file's name for messages. */
static int take_lock(int dir_fd, const char *name, const char *where, int *ret) {
        _cleanup_(closep) int fd = -1;
        struct stat s;
        int r;

        fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0) {
                r = -errno;
                return log_error_errno(r, "Cannot open the lock file %s: %s%s", where,
                                       r == -ELOOP ? "a symlink" : err_str(r),
                                       r == -EROFS ? " (under ProtectSystem=strict it must exist before the start: "
                                                     "systemd-tmpfiles --create zswap-tuned.conf)"
                                                   : "");
        }
        if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode) || s.st_uid != geteuid() || (s.st_mode & 077))
                return log_error_errno(-EPERM, "Refusing the lock file %s: it must be a regular file owned by uid %u "
                                       "with mode 0600", where, (unsigned) geteuid());
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EWOULDBLOCK)
                        return log_error_errno(-EBUSY, "Another zswap-tuned is running: it holds %s", where);
                r = -errno;
                return log_error_errno(r, "Cannot lock %s: %s", where, err_str(r));
        }
        *ret = fd;
        fd = -1; /* the caller's now */
        return 0;
}

/* The machine-wide lock, which does not depend on --state-dir. */
static int lock_machine(struct restore *r) {
        _cleanup_(closep) int dir_fd = -1;
        char path[4096], *slash;
        int ret;

        if (r->machine_lock) {
                if ((size_t) snprintf(path, sizeof(path), "%s", r->machine_lock) >= sizeof(path))
                        return -ENAMETOOLONG;
        } else if (kernel_path(r->kernel, RESTORE_MACHINE_LOCK, path, sizeof(path)) < 0)
                return -ENAMETOOLONG;
        slash = strrchr(path, '/');
        if (!slash || slash == path)
                return log_error_errno(-EINVAL, "The lock file %s is not in a directory", path);
        *slash = '\0';
        (void) mkdir_p(path, 0755); /* there on any system with systemd; a fake tree may lack it */
        dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0) {
                ret = -errno;
                return log_error_errno(ret, "Cannot open %s: %s", path, err_str(ret));
        }
        *slash = '/';
        return take_lock(dir_fd, slash + 1, path, &r->machine_fd);
}

/* Open and check the state directory; create: make it (0700) if missing.
 * -ENOENT (not said) when it is missing and create is false. */
static int open_state_dir(struct restore *r, const char *dir, bool create) {
        const char *why;
        int ret;

        if (strlen(dir) >= sizeof(r->dir))
                return log_error_errno(-ENAMETOOLONG, "The state directory path is too long: %.64s...", dir);
        strcpy(r->dir, dir);
        /* the unit's RuntimeDirectory= makes it; by hand, we do */
        if (create && (ret = mkdir_p(dir, 0700)) < 0)
                return log_error_errno(ret, "Cannot create the state directory %s: %s", dir, err_str(ret));
        r->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (r->dir_fd < 0) {
                ret = -errno;
                if (ret != -ENOENT || create)
                        log_error("Cannot open the state directory %s: %s", dir,
                                  ret == -ELOOP || ret == -ENOTDIR ? "not a directory (a symlink?)" : err_str(ret));
                return ret;
        }
        /* The save file names what --restore writes to: nobody else may put
         * one there. */
        why = dir_refused(r->dir_fd, false);
        if (why) {
                log_error("Refusing the state directory %s: %s (it must be owned by uid %u and writable by it alone)",
                          dir, why, (unsigned) geteuid());
                closep(&r->dir_fd);
                return -EPERM;
        }
        return 0;
}

static int lock(struct restore *r, const char *dir, bool create) {
        char where[4096 + 16];
        int ret;

        ret = lock_machine(r);
        if (ret >= 0)
                ret = open_state_dir(r, dir, create);
        if (ret >= 0) {
                snprintf(where, sizeof(where), "%s/" RESTORE_LOCK_NAME, r->dir);
                ret = take_lock(r->dir_fd, RESTORE_LOCK_NAME, where, &r->lock_fd);
        }
        if (ret < 0)
                restore_unlock(r);
        return ret;
}

int restore_lock(struct restore *r, const char *dir) {
        return lock(r, dir, true);
}

void restore_unlock(struct restore *r) {
        closep(&r->metrics_fd);
        closep(&r->lock_fd);
        closep(&r->dir_fd);
        closep(&r->machine_fd);
}

/* ---- the save file -------------------------------------------------------- */

/* Write what r->save holds (durably), or remove the file when it is empty. */
static int persist(struct restore *r) {
        _cleanup_(freep) char *text = NULL;
        int n;

        if (r->dir_fd < 0)
                return -EBADF;
        text = malloc(SAVEFILE_MAX);
        if (!text)
                return -ENOMEM;
        n = savefile_format(&r->save, text, SAVEFILE_MAX);
        if (n < 0)
                return n;
        if (n == 0) {
                if (unlinkat(r->dir_fd, SAVEFILE_NAME, 0) < 0 && errno != ENOENT)
                        return -errno;
                return fsync(r->dir_fd) < 0 ? -errno : 0;
        }
        return write_file_atomic_at(r->dir_fd, SAVEFILE_NAME, text, 0600, true);
}

static void said_saving(struct restore *r, int ret) {
        if (ret < 0 && !r->save_failed)
                log_error("Cannot save original values in %s/" SAVEFILE_NAME ": %s; changing nothing (monitoring "
                          "only) until they can be saved%s", r->dir, err_str(ret), err_write_hint(ret));
        else if (ret >= 0 && r->save_failed)
                log_notice("Saved the original values in %s/" SAVEFILE_NAME " again; steering resumes", r->dir);
        r->save_failed = ret < 0;
}

/* Make the change to r->save durable. It stays in memory either way: an
 * original that could not be saved has not been changed (the caller changes
 * nothing then), and putting it back on exit is harmless. */
static int commit(struct restore *r) {
        int ret = persist(r);

        said_saving(r, ret);
        return ret;
}

int restore_save_knob(struct restore *r, const char *name, knob_value v) {
        if (strlen(name) >= sizeof(r->save.knob))
                return -ENAMETOOLONG;
        strcpy(r->save.knob, name);
        r->save.value = v;
        return commit(r);
}

int restore_save_cap(struct restore *r, const char *path, const char *value) {
        struct saved_cap *c;

        if (restore_saved_cap(r, path))
                return r->save_failed ? commit(r) : 0;
        if (r->save.n_caps >= SAVED_MAX_CAPS)
                return -ENOSPC;
        if (strlen(path) >= sizeof(c->path) || strlen(value) >= sizeof(c->value))
                return -ENAMETOOLONG;
        c = &r->save.caps[r->save.n_caps++];
        strcpy(c->path, path);
        strcpy(c->value, value);
        return commit(r);
}

bool restore_saving_failed(const struct restore *r) {
        return r->save_failed;
}

bool restore_saved_knob(const struct restore *r, const char *name, knob_value *v) {
        if (!r->save.knob[0] || strcmp(r->save.knob, name) != 0)
                return false;
        *v = r->save.value;
        return true;
}

const char *restore_saved_cap(const struct restore *r, const char *path) {
        for (unsigned i = 0; i < r->save.n_caps; i++)
                if (strcmp(r->save.caps[i].path, path) == 0)
                        return r->save.caps[i].value;
        return NULL;
}

int restore_save_writeback(struct restore *r, const char *path, int value) {
        struct saved_writeback *w;

        if (restore_saved_writeback(r, path) >= 0)
                return r->save_failed ? commit(r) : 0;
        if (r->save.n_writeback >= SAVED_MAX_WRITEBACK)
                return -ENOSPC;
        if (strlen(path) >= sizeof(w->path) || (value != 0 && value != 1))
                return -EINVAL;
        w = &r->save.writeback[r->save.n_writeback++];
        strcpy(w->path, path);
        w->value = value;
        return commit(r);
}

int restore_saved_writeback(const struct restore *r, const char *path) {
        for (unsigned i = 0; i < r->save.n_writeback; i++)
                if (strcmp(r->save.writeback[i].path, path) == 0)
                        return r->save.writeback[i].value;
        return -1;
}

/* Forgetting: an entry left on the disk only puts back a value that is
 * there already, so a failure is said (once) but changes nothing. */
static void forget_persist(struct restore *r) {
        int ret = persist(r);

        if (ret < 0 && !r->save_failed)
                log_warning("Cannot rewrite %s/" SAVEFILE_NAME ": %s", r->dir, err_str(ret));
}

static bool drop_knob(struct restore *r) {
        if (!r->save.knob[0])
                return false;
        r->save.knob[0] = '\0';
        r->save.value = KNOB_UNSET;
        return true;
}

static bool drop_cap(struct restore *r, const char *path) {
        for (unsigned i = 0; i < r->save.n_caps; i++)
                if (strcmp(r->save.caps[i].path, path) == 0) {
                        r->save.caps[i] = r->save.caps[--r->save.n_caps];
                        return true;
                }
        return false;
}

static bool drop_writeback(struct restore *r, const char *path) {
        for (unsigned i = 0; i < r->save.n_writeback; i++)
                if (strcmp(r->save.writeback[i].path, path) == 0) {
                        r->save.writeback[i] = r->save.writeback[--r->save.n_writeback];
                        return true;
                }
        return false;
}

void restore_forget_writeback(struct restore *r, const char *path) {
        if (drop_writeback(r, path))
                forget_persist(r);
}

void restore_forget_knob(struct restore *r) {
        if (drop_knob(r))
                forget_persist(r);
}

void restore_forget_cap(struct restore *r, const char *path) {
        if (drop_cap(r, path))
                forget_persist(r);
}

/* ---- putting back: the one set of rules ------------------------------------ */

void log_knob_restored(const char *knob, knob_value v) {
        char f_knob[64], f_val[32];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_RESTORE, f_knob, f_val, "KNOB_RESTORED=1", NULL };

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", knob_to_string(v));
        log_fields(LOG_NOTICE, fields, "Restored %s to its original value %s", knob, knob_to_string(v));
}

/* Errors that no later try can mend: the file is not one to write to. */
static bool write_refused(int r) {
        return r == -ELOOP || r == -EPERM || r == -ENOTREGULAR || r == -EISDIR;
}

/* What a write of a saved cgroup setting (path, back to value) came to:
 * 0: back; 1: gone; -EBADMSG: refused; else kept for another try. Each
 * but the first said here. */
static int put_back_result(int r, const char *path, const char *value, bool loud) {
        if (r == -ENOENT) {
                if (loud)
                        log_info("%s is gone; nothing to restore there", path);
                return 1;
        }
        if (write_refused(r)) {
                log_error("Refusing to write %s: %s", path,
                          r == -ELOOP ? "a symlink" : r == -EPERM ? "not a cgroup2 file" : err_str(r));
                return -EBADMSG;
        }
        if (r < 0) {
                log_error("Cannot restore %s to %s: %s; kept for another try", path, value, err_str(r));
                return r;
        }
        return 0;
}

/* 0: back (said when loud); 1: gone; -EBADMSG: refused; else kept. */
static int put_back_cap(const struct kernel *k, const struct saved_cap *c, bool loud) {
        int r = put_back_result(kernel_cap_write(k, c->path, c->value), c->path, c->value, loud);

        if (r == 0 && loud)
                log_notice("Restored %s to %s", c->path, c->value);
        return r;
}

/* The same for a memory.zswap.writeback. */
static int put_back_writeback(const struct kernel *k, const struct saved_writeback *w, bool loud) {
        char f_path[600], f_val[32], value[16];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_RESTORE, f_path, f_val, NULL };
        int r;

        snprintf(value, sizeof(value), "%d", w->value);
        r = put_back_result(kernel_writeback_write(k, w->path, w->value), w->path, value, loud);
        if (r != 0 || !loud)
                return r;
        snprintf(f_path, sizeof(f_path), "ZSWAP_WRITEBACK_PATH=%s", w->path);
        snprintf(f_val, sizeof(f_val), "ZSWAP_WRITEBACK=%d", w->value);
        log_fields(LOG_NOTICE, fields, "Restored %s to %d", w->path, w->value);
        return 0;
}

static int put_back_knob(const struct kernel *k, const char *name, knob_value v) {
        int r = kernel_knob_read(k, name);

        if (r == -ENOENT) {
                log_info(ZSWAP_PARAMS "/%s is gone; nothing to restore there", name);
                return 1;
        }
        if (r == (int) v) {
                log_info("%s is already at its original value %s", name, knob_to_string(v));
                return 0;
        }
        r = kernel_knob_write(k, name, v);
        if (r == -ENOENT)
                return 1;
        if (r < 0) {
                log_error("Cannot restore %s to %s: %s; kept for another try", name, knob_to_string(v), err_str(r));
                return write_refused(r) ? -EBADMSG : r;
        }
        log_knob_restored(name, v);
        return 0;
}

/* Forget what is back (or can never be), keep what may be later. */
static bool settled(int r) {
        return r >= 0 || r == -EBADMSG;
}

int restore_knob(struct restore *r) {
        int ret;

        if (!r->save.knob[0])
                return 0;
        ret = put_back_knob(r->kernel, r->save.knob, r->save.value);
        if (settled(ret))
                restore_forget_knob(r);
        return ret;
}

int restore_cap(struct restore *r, const char *path) {
        const char *v = restore_saved_cap(r, path);
        struct saved_cap c;
        int ret;

        if (!v)
                return 0;
        snprintf(c.path, sizeof(c.path), "%s", path);
        snprintf(c.value, sizeof(c.value), "%s", v);
        ret = put_back_cap(r->kernel, &c, false);
        if (settled(ret))
                restore_forget_cap(r, path);
        return ret;
}

int restore_writeback(struct restore *r, const char *path) {
        struct saved_writeback w;
        int ret, v = restore_saved_writeback(r, path);

        if (v < 0)
                return 0;
        snprintf(w.path, sizeof(w.path), "%s", path);
        w.value = v;
        ret = put_back_writeback(r->kernel, &w, false);
        if (settled(ret))
                restore_forget_writeback(r, path);
        return ret;
}

/* One saved value put back, with result one: whether it is settled (then
 * its record goes), the result folded into ret (an unsettled one wins). */
static bool put_back_settled(int one, int *ret) {
        if (!settled(one)) {
                *ret = one;
                return false;
        }
        if (one < 0 && *ret >= 0)
                *ret = one;
        return true;
}

static int restore_all_loud(struct restore *r, int ret) {
        bool changed = false;

        for (unsigned i = 0; i < r->save.n_writeback;) {
                struct saved_writeback w = r->save.writeback[i];

                if (put_back_settled(put_back_writeback(r->kernel, &w, true), &ret))
                        changed |= drop_writeback(r, w.path);
                else
                        i++;
        }
        for (unsigned i = 0; i < r->save.n_caps;) {
                struct saved_cap c = r->save.caps[i];

                if (put_back_settled(put_back_cap(r->kernel, &c, true), &ret))
                        changed |= drop_cap(r, c.path);
                else
                        i++;
        }
        if (r->save.knob[0] && put_back_settled(put_back_knob(r->kernel, r->save.knob, r->save.value), &ret))
                changed |= drop_knob(r);
        if (changed)
                forget_persist(r);
        return ret;
}

int restore_all(struct restore *r) {
        return restore_all_loud(r, 0);
}

static void said_removed(unsigned n, const char *dir) {
        if (n > 0)
                log_info("Removed %u temporary file(s) of an interrupted write from %s", n, dir);
}

int restore_leftovers(struct restore *r) {
        _cleanup_(freep) char *buf = malloc(SAVEFILE_MAX);
        char name[4096 + 32];
        ssize_t n;
        int ret;

        if (r->dir_fd < 0)
                return -EBADF;
        if (!buf)
                return -ENOMEM;
        said_removed(remove_atomic_temporaries_at(r->dir_fd, SAVEFILE_NAME) +
                     remove_atomic_temporaries_at(r->dir_fd, STATUS_NAME), r->dir);
        /* the status of an instance that could not remove it (SIGKILL) */
        if (unlinkat(r->dir_fd, STATUS_NAME, 0) == 0)
                log_info("Removed %s/" STATUS_NAME ", left by an instance that was killed", r->dir);
        snprintf(name, sizeof(name), "%s/" SAVEFILE_NAME, r->dir);
        n = read_full_file_at(r->dir_fd, SAVEFILE_NAME, buf, SAVEFILE_MAX);
        if (n == -ENOENT)
                return 0;
        if (n < 0)
                return log_error_errno((int) n, "Cannot read %s: %s", name, err_str((int) n));
        if ((size_t) n >= SAVEFILE_MAX - 1)
                return log_error_errno(-E2BIG, "Ignoring %s: too large to be one zswap-tuned wrote", name);
        log_notice("Found %s, left by an instance that was killed: putting back what it changed", name);
        ret = parse_savefile(buf, name, &r->save);
        if (ret < 0)
                return ret;
        /* lines refused are said line by line; what is valid is still put back */
        if (ret == 0)
                return restore_all_loud(r, 0);
        ret = restore_all_loud(r, -EBADMSG);
        forget_persist(r); /* without the refused lines, which can never be put back */
        return ret;
}

/* ---- the status and metrics files ---------------------------------------- */

static int publish_at(int dir_fd, const char *dir, const char *name, const char *text, bool *failed) {
        int r = dir_fd < 0 ? -EBADF : write_file_atomic_at(dir_fd, name, text, 0644, false);

        if (r < 0 && !*failed)
                log_warning("Cannot write %s/%s: %s%s", dir, name, err_str(r), err_write_hint(r));
        else if (r >= 0 && *failed)
                log_info("Wrote %s/%s again", dir, name);
        *failed = r < 0;
        return r;
}

int restore_write_status(struct restore *r, const char *text) {
        return publish_at(r->dir_fd, r->dir, STATUS_NAME, text, &r->status_failed);
}

int restore_write_metrics(struct restore *r, const char *text) {
        return publish_at(r->metrics_fd, r->metrics_dir, METRICS_NAME, text, &r->metrics_failed);
}

int restore_set_metrics_dir(struct restore *r, const char *dir) {
        const char *why;
        int fd, ret;

        if (r->metrics_fd >= 0 && strcmp(dir, r->metrics_dir) == 0)
                return 0;
        /* ours to remove: nobody else writes that name (we hold the locks) */
        if (r->metrics_fd >= 0 && restore_locked(r))
                (void) unlinkat(r->metrics_fd, METRICS_NAME, 0);
        closep(&r->metrics_fd);
        r->metrics_dir[0] = '\0';
        r->metrics_failed = false;
        if (!dir[0])
                return 0;
        if (strlen(dir) >= sizeof(r->metrics_dir))
                return -ENAMETOOLONG;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                ret = -errno;
                log_error("[Metrics] TextfileDirectory=%s: %s; not writing metrics", dir,
                          ret == -ELOOP || ret == -ENOTDIR ? "not a directory (a symlink?)" : err_str(ret));
                return ret;
        }
        why = dir_refused(fd, true);
        if (why) {
                log_error("[Metrics] TextfileDirectory=%s: %s (it must be owned by uid %u, and writable by others "
                          "only if sticky); not writing metrics", dir, why, (unsigned) geteuid());
                close(fd);
                return -EPERM;
        }
        r->metrics_fd = fd;
        strcpy(r->metrics_dir, dir);
        return 0;
}

void restore_remove_published(struct restore *r) {
        if (!restore_locked(r))
                return;
        (void) unlinkat(r->dir_fd, STATUS_NAME, 0);
}

/* ---- --restore ------------------------------------------------------------ */

int restore_run_stopped(const struct kernel *k, const char *dir, const char *metrics_dir,
                        const char *metrics_stopped) {
        struct restore r;
        int ret;

        restore_init(&r, k);
        ret = lock(&r, dir, false);
        if (ret == -ENOENT) {
                ret = 0; /* nothing was ever saved; the machine lock was taken and let go */
                restore_unlock(&r);
                ret = lock_machine(&r);
                if (ret < 0)
                        return ret;
        } else if (ret < 0)
                return ret;
        else
                ret = restore_leftovers(&r);
        /* a killed instance's metrics would go on saying what it did: they
         * say it stopped instead (the file stays for the "down" alert) */
        if (metrics_dir[0] && metrics_stopped && restore_set_metrics_dir(&r, metrics_dir) == 0) {
                char old[64 * 1024];
                ssize_t n = read_full_file_at(r.metrics_fd, METRICS_NAME, old, sizeof(old));
                bool left = n >= 0 && !strstr(old, "\nzswap_tuned_up 0\n");
                if ((n < 0 || left) && restore_write_metrics(&r, metrics_stopped) == 0 && left)
                        log_info("Wrote %s/" METRICS_NAME " as stopped (zswap_tuned_up 0), left by an instance "
                                 "that was killed", metrics_dir);
                said_removed(remove_atomic_temporaries_at(r.metrics_fd, METRICS_NAME), metrics_dir);
        }
        restore_unlock(&r);
        return ret;
}
