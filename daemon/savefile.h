/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The knob's original value, saved before the first write so that it can be
 * restored even after SIGKILL (by "zswap-tuned --restore" from ExecStopPost=). */

#include <stddef.h>

#include "kernel.h"

#define SAVEFILE_NAME "original-knob"

int savefile_path(const char *state_dir, char *buf, size_t size);
int savefile_write(const char *state_dir, const char *knob, knob_value v);
/* Returns 0 and fills knob/value; -ENOENT when nothing is saved. */
int savefile_read(const char *state_dir, char *knob, size_t knob_size, knob_value *v);
int savefile_remove(const char *state_dir);

/* Pure: parse "KNOB=shrinker_enabled\nVALUE=N\n". */
int parse_savefile(const char *buf, char *knob, size_t knob_size, knob_value *v);

/* Write the saved value back to the knob and remove the file. 0 when
 * restored or nothing was saved. */
int savefile_restore(const struct kernel *k, const char *state_dir);
