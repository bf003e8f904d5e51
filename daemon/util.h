/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define USEC_PER_SEC  UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)

/* Read a whole (small) file into buf, NUL-terminated. Returns bytes read or -errno. */
ssize_t read_full_file(const char *path, char *buf, size_t size);
/* Write a string to an existing file (sysfs style, no O_CREAT). Returns 0 or -errno. */
int write_string_file(const char *path, const char *s);
/* Write a file atomically: temp file in the same directory, fsync, rename. */
int write_file_atomic(const char *path, const char *s);

/* mkdir -p, new directories with this mode. */
int mkdir_p(const char *path, mode_t mode);

/* "  text \n" -> "text", in place. */
char *strstrip(char *s);
/* Parse a whole decimal unsigned integer; rejects sign, trailing garbage and overflow. */
int parse_u64(const char *s, uint64_t *ret);
/* Parse a whole decimal number (e.g. "12", "12.5"); rejects trailing garbage, inf and nan. */
int parse_double(const char *s, double *ret);
/* yes/no/true/false/on/off/1/0/y/n, case-insensitive. Returns 1, 0 or -EINVAL. */
int parse_boolean(const char *s);

/* Format bytes as "4.7 GiB" style. */
const char *format_bytes(char *buf, size_t size, uint64_t bytes);

uint64_t now_usec(void); /* CLOCK_MONOTONIC */
