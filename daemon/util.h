/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <sys/types.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
/* A variable cleaned up when it goes out of scope (systemd's _cleanup_). */
#define _cleanup_(f) __attribute__((cleanup(f)))
void closep(int *fd); /* close(*fd) if >= 0 */
void freep(void *p);  /* free(*(void **) p) */
#define USEC_PER_SEC  UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)

/* Our own error: the file is not a regular file (a FIFO, a device, a
 * socket). EMEDIUMTYPE is otherwise unused here; err_str() names it. */
#define ENOTREGULAR EMEDIUMTYPE

/* -errno (or errno) -> message. Besides strerror(): ENOTREGULAR "not a
 * regular file", EBADMSG "unexpected contents" (a kernel file we cannot parse). */
const char *err_str(int r);
/* What a write's error message adds after the error: for EFBIG, that the
 * file size limit was reached (a status file of a few hundred bytes is not
 * "too large" otherwise); "" for the rest. */
const char *err_write_hint(int r);

/* Read a whole (small) regular file into buf, NUL-terminated; anything but a
 * regular file is -ENOTREGULAR (or -EISDIR). Returns bytes read or -errno. */
ssize_t read_full_file(const char *path, char *buf, size_t size);
/* Write a string to an existing regular file (sysfs style): never created,
 * never through a symlink in the last component, only on the file system
 * fs_magic (statfs f_type; 0 = any: -EPERM otherwise); a file outside the
 * kernel's file systems (a fake tree) is truncated first. 0 or -errno. */
int write_string_file(const char *path, const char *s, int64_t fs_magic);
/* sysfs, proc, cgroupfs, debugfs (statfs f_type) */
bool is_kernel_fs(int64_t f_type);
/* The same for name in the directory dir_fd, never through a symlink. */
ssize_t read_full_file_at(int dir_fd, const char *name, char *buf, size_t size);
/* Write dir_fd/name atomically, with this mode: a temporary "name.XXXXXX"
 * created next to it (O_EXCL, never through a symlink), renamed into place.
 * durable: fsync() the file before the rename and the directory after. */
int write_file_atomic_at(int dir_fd, const char *name, const char *s, mode_t mode, bool durable);
/* Remove what an interrupted write_file_atomic_at() of name left in dir_fd:
 * the "name.XXXXXX" files. Returns how many. */
unsigned remove_atomic_temporaries_at(int dir_fd, const char *name);

/* mkdir -p, new directories with this mode. */
int mkdir_p(const char *path, mode_t mode);
/* Is e, read from d, a subdirectory: a directory (never a symlink to one),
 * not "." or ".."? Asks the kernel only where readdir() could not say. */
bool dirent_is_dir(DIR *d, const struct dirent *e);

/* "  text \n" -> "text", in place. */
char *strstrip(char *s);
/* Parse [0-9]+ (a whole decimal number: no sign, no space); -ERANGE on overflow. */
int parse_u64(const char *s, uint64_t *ret);
/* Has the path a ".." component ("a/../b", "..", "../x"; not "my..slice")? */
bool path_has_dotdot(const char *path);
/* Parse -?[0-9]+(\.[0-9]+)? (e.g. "12", "12.5", "-1"; not ".5", "5.", "+5", " 5",
 * "1e2", "0x10", "inf" or "nan"); "-0" gives 0; -ERANGE when too large for a double. */
int parse_double(const char *s, double *ret);
/* A time span in systemd's syntax (systemd.time(7), parse_sec()): one or more
 * "NUMBER[ ]UNIT" parts, optionally separated by whitespace ("1min 30s",
 * "1min30s", "1.5h"); NUMBER is digits with an optional fraction; UNIT is
 * us/usec/µs, ms/msec, s/sec/second(s), m/min/minute(s), h/hr/hour(s),
 * d/day(s) or w/week(s). A lone number without a unit is in default_unit
 * (microseconds per unit: USEC_PER_SEC for seconds). The result is in
 * microseconds (fractions below one are dropped, as systemd does).
 * -EINVAL for anything else (a sign, a unit alone, an unknown unit, a number
 * without a unit after the first part), -ERANGE on overflow. */
int parse_time(const char *s, uint64_t default_unit, uint64_t *ret_usec);
/* usec as the largest unit that divides it ("1min", "1500ms", "1d"). */
const char *format_time(char *buf, size_t size, uint64_t usec);
/* A percentage: parse_double()'s plain decimal, optionally followed by "%"
 * ("85", "85%", "12.5%"; not "85 %", "%" or "85%%"). No range check. */
int parse_percent(const char *s, double *ret);
/* yes/no/true/false/on/off/1/0/y/n, case-insensitive. Returns 1, 0 or -EINVAL. */
int parse_boolean(const char *s);

/* Format bytes as "4.7 GiB" style. */
const char *format_bytes(char *buf, size_t size, uint64_t bytes);

uint64_t now_usec(void); /* CLOCK_MONOTONIC */
uint64_t page_size(void); /* the kernel's (4 K, 16 K, 64 K) */
uint64_t realtime_usec(void); /* CLOCK_REALTIME, for people */
