/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The save file: the original values of everything the daemon changes (the
 * knob, and the memory.zswap.max of capped batch cgroups), written before the
 * first change so that "zswap-tuned --restore" (ExecStopPost=) can put them
 * back even after SIGKILL. This file owns its format; state.c owns when it is
 * written. */

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

#define SAVEFILE_NAME "original-knob"
#define SAVED_MAX_CAPS 16

struct saved_cap {
        char path[512];         /* .../memory.zswap.max below the root prefix */
        char value[32];         /* what it held, e.g. "max" */
};

struct saved {
        char knob[32];          /* "" = the knob is not saved */
        knob_value value;
        unsigned n_caps;
        struct saved_cap caps[SAVED_MAX_CAPS];
};

int savefile_path(const char *state_dir, char *buf, size_t size);
/* Writes atomically; removes the file when nothing is saved. */
int savefile_write(const char *state_dir, const struct saved *s);
/* Reads and parses; -ENOENT when there is none, -ENOTREGULAR for anything
 * but a regular file. Else as parse_savefile(). */
int savefile_read(const char *state_dir, struct saved *s);
int savefile_remove(const char *state_dir);
/* Remove the temporary files of an atomic write that a SIGKILL interrupted. */
void savefile_remove_temporaries(const char *state_dir);

/* Pure but for its log lines: parse "KNOB=shrinker_enabled\nVALUE=N\n
 * ZSWAP_MAX=max /sys/fs/cgroup/x/memory.zswap.max\n". A line that is not
 * exactly one of these (a knob that is not ours, a path that is not a
 * memory.zswap.max below /sys/fs/cgroup, a repeated entry) is logged as
 * "NAME:LINE: ...; ignoring it" and left out; the rest is kept. Returns the
 * number of lines left out, or -E2BIG for a file too large to be ours. */
int parse_savefile(const char *buf, const char *name, struct saved *s);

/* "Restored <knob> to its original value <v>", with KNOB=, KNOB_VALUE= and
 * KNOB_RESTORED=1: the same line after a clean exit and from --restore. */
void log_knob_restored(const char *knob, knob_value v);

/* Put back everything saved and remove the file (and any temporaries). 0 when
 * everything saved was restored or nothing was saved; < 0 when something could
 * not be put back (the file is kept for another try) or lines were refused. */
int savefile_restore(const struct kernel *k, const char *state_dir);
