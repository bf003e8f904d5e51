/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The restore engine: everything the daemon changes (the knob, the batch
 * caps, the memory.zswap.writeback of protected cgroups) is saved here
 * before it is changed and put back from here, on exit, from the leftovers
 * of an instance that died, and by --restore, with one set of rules. It
 * also owns the files the daemon writes besides the kernel's (the save file,
 * the status file, the metrics textfile, their temporaries) and the locks:
 *
 * - the machine-wide lock ROOT/run/zswap-tuned.lock (0600, root's), so that
 *   two instances never both own the knob whatever their --state-dir;
 * - the state directory, opened once (O_DIRECTORY|O_NOFOLLOW), checked (ours,
 *   writable by us alone) and locked through DIR/lock (0600). Every file in
 *   it is reached through that descriptor (openat, renameat, unlinkat), so a
 *   directory renamed or replaced by a symlink later changes nothing;
 * - the metrics directory ([Metrics] TextfileDirectory=), the same way.
 *
 * Fail closed: restore_save_*() return 0 only once the original is on the
 * disk (write, fsync, rename, fsync of the directory); the caller changes
 * nothing otherwise. Nothing is removed unless the locks are held. */

#include <stdbool.h>

#include "kernel.h"
#include "savefile.h"

#define RESTORE_LOCK_NAME "lock"
#define RESTORE_MACHINE_LOCK "/run/zswap-tuned.lock"
#define STATUS_NAME "status"
#define METRICS_NAME "zswap_tuned.prom"

struct restore {
        const struct kernel *kernel;
        const char *machine_lock;       /* NULL: RESTORE_MACHINE_LOCK under the root prefix (tests
                                         * that read the real kernel lock elsewhere) */
        int machine_fd;         /* ROOT/run/zswap-tuned.lock, flock'ed; -1 = not held */
        int dir_fd;             /* the state directory, checked; -1 = none */
        int lock_fd;            /* DIR/lock, flock'ed */
        int metrics_fd;         /* [Metrics] TextfileDirectory=, checked; -1 = none */
        char dir[4096];         /* for messages */
        char metrics_dir[4096];
        struct saved save;      /* what the save file holds */
        bool save_failed;       /* the last save failed: nothing is changed (said once) */
        bool status_failed, metrics_failed; /* said once */
};

void restore_init(struct restore *r, const struct kernel *k);
/* Take the machine-wide lock, make the state directory if needed (0700),
 * check and lock it. -EBUSY when another instance holds either lock; other
 * errors are said here. */
int restore_lock(struct restore *r, const char *dir);
/* Drop the locks and close every descriptor. */
void restore_unlock(struct restore *r);
static inline bool restore_locked(const struct restore *r) {
        return r->lock_fd >= 0;
}

/* What an instance that died left: drop its temporaries and its status file,
 * read its save file and put back what it holds (restore_all()). Whatever
 * cannot be put back stays saved: its value is still the original. */
int restore_leftovers(struct restore *r);

/* Save an original (fail closed): 0 once it is on the disk; else -errno,
 * said once (the daemon keeps monitoring; restore_saving_failed() is true
 * until a save succeeds again). */
int restore_save_knob(struct restore *r, const char *name, knob_value v);
int restore_save_cap(struct restore *r, const char *path, const char *value);
/* A memory.zswap.writeback's original (0 or 1), the same way. */
int restore_save_writeback(struct restore *r, const char *path, int value);
bool restore_saving_failed(const struct restore *r);
/* The saved original of the knob name (false: none) and of a cap (NULL). */
bool restore_saved_knob(const struct restore *r, const char *name, knob_value *v);
const char *restore_saved_cap(const struct restore *r, const char *path);
/* ... and of a memory.zswap.writeback: 0 or 1, or -1 for none. */
int restore_saved_writeback(const struct restore *r, const char *path);
/* Nothing to put back there any more (the knob or cgroup is gone, or it is
 * someone else's knob). */
void restore_forget_knob(struct restore *r);
void restore_forget_cap(struct restore *r, const char *path);
void restore_forget_writeback(struct restore *r, const char *path);

/* Put one saved original back and forget it. 0: put back (said by the
 * caller) or there already; 1: gone (nothing to restore); -EBADMSG: refused
 * (not a file zswap-tuned writes: forgotten, said); other -errno: kept for
 * another try (said). */
int restore_knob(struct restore *r);
int restore_cap(struct restore *r, const char *path);
int restore_writeback(struct restore *r, const char *path);
/* Every saved original, writeback and caps first; the save file goes once
 * all are back. */
int restore_all(struct restore *r);

/* The status file in the state directory (0644, for "zswap-tuned status")
 * and the metrics textfile; failures said once. */
int restore_write_status(struct restore *r, const char *text);
/* Open and check the metrics directory ("" = none): ours, or root's, not
 * writable by group or others unless sticky. 0 or -errno (said). */
int restore_set_metrics_dir(struct restore *r, const char *dir);
int restore_write_metrics(struct restore *r, const char *text);
static inline bool restore_has_metrics(const struct restore *r) {
        return r->metrics_fd >= 0;
}
/* On exit: the status file goes (with the locks held only). The metrics
 * file stays: publish.c writes it as stopped (zswap_tuned_up 0). */
void restore_remove_published(struct restore *r);

/* --restore: lock, restore_leftovers(), remove the status file, write
 * metrics_stopped (publish_metrics_stopped_text(); NULL: leave it) as the
 * metrics file of metrics_dir ("" = none) unless it says so already, unlock.
 * 0 when nothing was saved or all of it is back. */
int restore_run_stopped(const struct kernel *k, const char *dir, const char *metrics_dir,
                        const char *metrics_stopped);
static inline int restore_run(const struct kernel *k, const char *dir, const char *metrics_dir) {
        return restore_run_stopped(k, dir, metrics_dir, NULL);
}

/* "Restored <knob> to its original value <v>", with KNOB=, KNOB_VALUE= and
 * KNOB_RESTORED=1. */
void log_knob_restored(const char *knob, knob_value v);
