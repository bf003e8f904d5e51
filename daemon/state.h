/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The state directory: one instance at a time (a flock on the directory), and
 * the save file, which mirrors the original value of everything changed
 * (struct saved). knob.c and batch.c say what to save; this writes it before
 * they make the change. */

#include <stdbool.h>

#include "kernel.h"
#include "savefile.h"

struct state {
        char dir[512];
        int lock_fd;            /* the directory, flock'ed; -1 = not locked */
        struct saved save;      /* what the save file holds */
        bool save_failed;       /* said so once */
};

void state_init(struct state *st, const char *dir);
/* Make the directory (0700) if needed, check it is ours (a directory, not a
 * symlink, owned by us, not writable by others) and lock it. -EBUSY when
 * another instance holds it; other errors are said here. */
int state_lock(struct state *st);
void state_unlock(struct state *st);
/* Read what a previous instance that died left in the save file (and drop
 * its temporary files). -ENOENT when there is nothing. */
int state_load(struct state *st);

void state_save_knob(struct state *st, const char *name, knob_value v);
void state_forget_knob(struct state *st);
/* The saved original of a memory.zswap.max, or NULL. */
const char *state_saved_cap(const struct state *st, const char *path);
void state_save_cap(struct state *st, const char *path, const char *value);
void state_forget_cap(struct state *st, const char *path);

/* --restore: lock, put back whatever the save file holds, unlock. */
int state_restore(const struct kernel *k, const char *dir);
