/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The original values of everything the daemon changes (the knob, and the
 * memory.zswap.max of capped batch cgroups), saved before the first change so
 * that they can be restored even after SIGKILL, by "zswap-tuned --restore"
 * from ExecStopPost=. */

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "kernel.h"

#define SAVEFILE_NAME "original-knob"

struct saved_cap {
        char path[512];         /* .../memory.zswap.max below the root prefix */
        char value[32];         /* what it held, e.g. "max" */
};

struct saved {
        char knob[32];          /* "" = the knob is not saved */
        knob_value value;
        unsigned n_caps;
        struct saved_cap caps[CONF_MAX_CGROUPS];
};

int savefile_path(const char *state_dir, char *buf, size_t size);
/* Writes atomically; removes the file when nothing is saved. */
int savefile_write(const char *state_dir, const struct saved *s);
/* -ENOENT when nothing is saved. */
int savefile_read(const char *state_dir, struct saved *s);
int savefile_remove(const char *state_dir);

/* Pure: parse "KNOB=shrinker_enabled\nVALUE=N\nZSWAP_MAX=max /sys/fs/cgroup/x/memory.zswap.max\n". */
int parse_savefile(const char *buf, struct saved *s);

/* "Restored <knob> to its original value <v>", with KNOB=, KNOB_VALUE= and
 * KNOB_RESTORED=1: the same line after a clean exit and from --restore. */
void log_knob_restored(const char *knob, knob_value v);

/* Put back everything saved and remove the file. 0 when restored or nothing
 * was saved. */
int savefile_restore(const struct kernel *k, const char *state_dir);
