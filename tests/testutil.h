/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A scratch directory per test, and file helpers for building fake
 * /proc and /sys trees in it. */

#include <stddef.h>

char *tu_mkdtemp(void);                    /* malloc'ed path */
/* cmocka setup/teardown: *state is a fresh scratch directory (char *). */
int tu_setup_tmpdir(void **state);
int tu_teardown_tmpdir(void **state);
void tu_rm_rf(const char *path);
/* Write content to root/rel, creating parent directories. */
void tu_write(const char *root, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read root/rel into buf (trimmed of one trailing newline). */
const char *tu_read(const char *root, const char *rel, char *buf, size_t size);

struct saved;
/* The save file in the state directory dir, as restore.c reads and writes
 * it (for tests that plant or inspect one): as read_full_file() and
 * parse_savefile(); the write removes the file when nothing is saved. */
int tu_savefile_read(const char *dir, struct saved *s);
int tu_savefile_write(const char *dir, const struct saved *s);
