/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The save file's format: the original values of everything the daemon
 * changes (the knob, the memory.zswap.max of capped batch cgroups and the
 * memory.zswap.writeback of protected pressure cgroups). Pure but for
 * parse_savefile()'s log lines; restore.c owns the file.
 *
 * A line a daemon does not know (one a newer daemon wrote) is said
 * (FILE:LINE) and skipped; everything else in the file is still put back.
 * Refusing the whole file would leave every setting in it unrestored. */

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

#define SAVEFILE_NAME "original-knob"
#define SAVED_MAX_CAPS 256
#define SAVED_MAX_WRITEBACK 64
/* KNOB= and VALUE= lines, a ZSWAP_MAX=<value> <path> line per cap and a
 * ZSWAP_WRITEBACK=<0|1> <path> line per protected cgroup (0.4.0) */
#define SAVEFILE_MAX (64 + SAVED_MAX_CAPS * (16 + 32 + 512) + SAVED_MAX_WRITEBACK * (32 + 512))

struct saved_cap {
        char path[512];         /* .../memory.zswap.max below the root prefix */
        char value[32];         /* what it held, e.g. "max" */
};

struct saved_writeback {
        char path[512];         /* .../memory.zswap.writeback below the root prefix */
        int value;              /* what it held: 1 (0 is never changed) */
};

struct saved {
        char knob[32];          /* "" = the knob is not saved */
        knob_value value;
        unsigned n_caps;
        struct saved_cap caps[SAVED_MAX_CAPS];
        unsigned n_writeback;
        struct saved_writeback writeback[SAVED_MAX_WRITEBACK];
};

/* "KNOB=...\nVALUE=...\nZSWAP_MAX=<value> <path>\n...ZSWAP_WRITEBACK=<0|1>
 * <path>\n...": the length, or -E2BIG. Empty when nothing is saved. */
int savefile_format(const struct saved *s, char *buf, size_t size);

/* Parse "KNOB=shrinker_enabled\nVALUE=N\nZSWAP_MAX=max
 * /sys/fs/cgroup/x/memory.zswap.max\nZSWAP_WRITEBACK=1
 * /sys/fs/cgroup/y/memory.zswap.writeback\n". A line that is not exactly one
 * of these (a knob that is not ours, a path that is not a memory.zswap.max
 * or memory.zswap.writeback below /sys/fs/cgroup, a value but 0 or 1 for the
 * latter, a repeated entry, a line of a newer daemon) is logged as "NAME:LINE: ...; ignoring
 * it" and left out; the rest is kept. Returns the number of lines left out,
 * or -E2BIG for a file too large to be ours. */
int parse_savefile(const char *buf, const char *name, struct saved *s);
