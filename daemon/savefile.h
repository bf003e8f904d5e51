/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The save file's format: the original values of everything the daemon
 * changes (the knob, and the memory.zswap.max of capped batch cgroups).
 * Pure but for parse_savefile()'s log lines; restore.c owns the file. */

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

#define SAVEFILE_NAME "original-knob"
#define SAVED_MAX_CAPS 256
/* KNOB= and VALUE= lines, and a ZSWAP_MAX=<value> <path> line per cap */
#define SAVEFILE_MAX (64 + SAVED_MAX_CAPS * (16 + 32 + 512))

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

/* "KNOB=...\nVALUE=...\nZSWAP_MAX=<value> <path>\n...": the length, or
 * -E2BIG. Empty when nothing is saved. */
int savefile_format(const struct saved *s, char *buf, size_t size);

/* Parse "KNOB=shrinker_enabled\nVALUE=N\nZSWAP_MAX=max
 * /sys/fs/cgroup/x/memory.zswap.max\n". A line that is not exactly one of
 * these (a knob that is not ours, a path that is not a memory.zswap.max below
 * /sys/fs/cgroup, a repeated entry) is logged as "NAME:LINE: ...; ignoring
 * it" and left out; the rest is kept. Returns the number of lines left out,
 * or -E2BIG for a file too large to be ours. */
int parse_savefile(const char *buf, const char *name, struct saved *s);
