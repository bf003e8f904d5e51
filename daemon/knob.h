/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The knob (shrinker_enabled or shrink_enabled): which one, its original
 * value, and every write of it. The original is saved (restore.c) before the
 * first write and put back by knob_restore(). */

#include <stdbool.h>

#include "kernel.h"
#include "restore.h"

struct knob {
        const char *name;       /* file name under ZSWAP_PARAMS; NULL = monitor only */
        knob_value original;    /* what to put back */
        bool wrote;             /* we changed it (or a previous instance did): restore */
        unsigned failures;      /* writes failed in a row (said once, then on recovery) */
        bool gone;              /* the file vanished (said once) */
};

/* Find the knob: choice is the configured name, "auto" (NULL) or none (see
 * conf.h's enum knob_choice, passed as name or NULL, and monitor_only). Reads
 * its value; a value saved by an instance that died is the original. 0,
 * -ENOENT when a configured knob does not exist, or another -errno. */
int knob_probe(struct knob *k, const struct kernel *kern, struct restore *rs, const char *want, bool monitor_only);
/* The knob's value now: KNOB_ON/KNOB_OFF, or -errno. -ENOENT once it
 * vanished (said once; nothing is restored there then). */
int knob_read(struct knob *k, const struct kernel *kern, struct restore *rs);
/* Write v, saving the original first: nothing is written unless it is saved
 * (fail closed). 0, or -errno (said once, with a count when it recovers). */
int knob_write(struct knob *k, const struct kernel *kern, struct restore *rs, knob_value v);
/* Someone else set the knob to v: theirs is the value to put back on exit. */
void knob_adopt(struct knob *k, struct restore *rs, knob_value v);
/* Put the original back if we changed it. */
int knob_restore(struct knob *k, struct restore *rs);
