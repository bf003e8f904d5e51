/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Every /proc and /sys access goes through here, under a root prefix, so
 * tests can point the daemon at a fake tree. The parse_* functions are pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


#define ZSWAP_PARAMS "/sys/module/zswap/parameters"
#define CGROUP_ROOT "/sys/fs/cgroup"

/* The value of a Y/N zswap parameter. */
typedef enum { KNOB_OFF = 0, KNOB_ON = 1, KNOB_UNSET = -1 } knob_value;
#define ZSWAP_DEBUGFS "/sys/kernel/debug/zswap"

struct kernel {
        char root[512]; /* "" means "/"; else a fake tree (tests) */
};

int kernel_init(struct kernel *k, const char *root);
int kernel_path(const struct kernel *k, const char *path, char *buf, size_t size);
ssize_t kernel_read(const struct kernel *k, const char *path, char *buf, size_t size);
int kernel_open(const struct kernel *k, const char *path, int flags);
bool kernel_exists(const struct kernel *k, const char *path);

/* A Cgroups= entry and a file name -> that file's path below the root prefix.
 * Absolute: that directory (a trailing "/<file>" is allowed). Relative: below
 * the cgroup v2 mount that has it, /sys/fs/cgroup or, on hybrid systems,
 * /sys/fs/cgroup/unified; if neither has it yet, below the v2 root. */
int kernel_cgroup_path(const struct kernel *k, const char *spec, const char *file, char *buf, size_t size);

struct meminfo {
        uint64_t mem_total_kb;
        uint64_t zswap_kb, zswapped_kb;
        bool has_zswap;
};
int parse_meminfo(const char *buf, struct meminfo *m);

struct vmstat {
        uint64_t zswpout, zswpin, zswpwb, pswpout, pswpin;
};
int parse_vmstat(const char *buf, struct vmstat *v);

/* The parse_* functions return -EBADMSG for contents they cannot make sense of. */

/* "Y\n" / "N\n" (also 1/0) -> KNOB_ON / KNOB_OFF, else -EBADMSG */
int parse_knob(const char *buf);
/* Number of active swap areas in /proc/swaps. */
int parse_swaps(const char *buf);
/* Does /proc/self/cgroup put the memory controller on a v1 hierarchy? */
bool parse_cgroup_memory_v1(const char *buf);

/* A knob we drive: "shrinker_enabled" (6.8+) or "shrink_enabled" (the 2019
 * patch). Nothing else is ever written under ZSWAP_PARAMS. */
bool knob_name_valid(const char *name);
const char *knob_to_string(knob_value v); /* "Y", "N", "-" */

/* The cgroup files the daemon writes: "/sys/fs/cgroup/.../memory.zswap.max",
 * absolute, no "." or ".." component, no empty one. Pure. */
bool cap_path_valid(const char *path);
/* The other one, memory.reclaim (no caller since [Batch] LendWhenCalm= went in 0.3.0),
 * the same way. Pure. */
bool reclaim_path_valid(const char *path);
/* The third: "/sys/fs/cgroup/.../memory.zswap.writeback" (6.8+), the same way.
 * Pure. */
bool writeback_path_valid(const char *path);
/* "max" or a byte count */
bool cap_value_valid(const char *value);
/* Write value to a memory.zswap.max: the path must pass cap_path_valid(), and
 * the file must be on cgroup2 (under a fake root: a regular file). -EPERM
 * for a path that does not qualify. */
int kernel_cap_write(const struct kernel *k, const char *path, const char *value);
/* A cgroup's memory.zswap.writeback: 0 or 1; -ENOENT where the kernel (before
 * 6.8, or cgroup v1) or the cgroup has none; -EBADMSG for anything else. */
int kernel_writeback_read(const struct kernel *k, const char *path);
/* Write 0 or 1 (nothing else: -EPERM) to a memory.zswap.writeback that passes
 * writeback_path_valid() (-EPERM otherwise), on cgroup2 (under a fake root: a
 * regular file); never created, never through a symlink (-ELOOP). */
int kernel_writeback_write(const struct kernel *k, const char *path, int value);
/* Does the kernel have memory.zswap.writeback? Looked for in the first
 * top-level cgroup that has a memory.zswap.max: 1 yes, 0 no, -ENOENT when no
 * cgroup has memory.zswap.* at all (no memory controller on cgroup v2). */
int kernel_writeback_probe(const struct kernel *k);
/* Ask the kernel to write back up to bytes (compressed) of a cgroup's zswap
 * entries: "<bytes> zswap_writeback_only" into a memory.reclaim that passes
 * reclaim_path_valid() (-EPERM otherwise, or for 0 bytes). A kernel without
 * that key refuses it (-EINVAL); one that wrote back less says -EAGAIN. */
int kernel_zswap_writeback(const struct kernel *k, const char *path, uint64_t bytes);

/* The knobs, by file name under ZSWAP_PARAMS. */
int kernel_knob_read(const struct kernel *k, const char *name);
/* Writes Y/N (a valid knob name only, else -EPERM), reads back; -EIO when
 * the read-back differs. */
int kernel_knob_write(const struct kernel *k, const char *name, knob_value v);
int kernel_param_u64(const struct kernel *k, const char *name, uint64_t *ret);

struct pool_sample {
        bool enabled;            /* zswap enabled */
        unsigned max_pool_percent;
        uint64_t mem_total;      /* bytes */
        uint64_t pool_bytes;     /* compressed footprint */
        uint64_t stored_bytes;   /* uncompressed size of what is stored (0 if unknown) */
        uint64_t limit_bytes;    /* mem_total * max_pool_percent / 100 */
        struct vmstat vm;
};
/* Pool size and counters, re-read each time (the admin or memory hot-plug
 * may change the limit). -ENODATA when neither /proc/meminfo (5.19+) nor
 * debugfs tells the pool size. */
int kernel_read_pool(const struct kernel *k, struct pool_sample *s);
double pool_percent(const struct pool_sample *s);

/* Incompressible pages, which zswap stores whole (a full page each) since
 * about 6.18: the pool's count from debugfs (stored_incompressible_pages;
 * root, and debugfs mounted), and a cgroup's bytes from its memory.stat
 * (zswap_incomp). -ENOENT where the kernel has no such figure. */
int kernel_pool_incompressible(const struct kernel *k, uint64_t *pages);
int kernel_cgroup_incompressible(const struct kernel *k, const char *spec, uint64_t *bytes);
/* The cgroup's cpu.idle is 1 (systemd's CPUWeight=idle); dir: its directory,
 * "/sys/fs/cgroup/...", below the root prefix. False where unreadable. */
bool kernel_cgroup_idle(const struct kernel *k, const char *dir);
/* A cgroup's memory.stat field; -ENOENT where it has no such key. */
int kernel_cgroup_stat(const struct kernel *k, const char *spec, const char *key, uint64_t *ret);
/* "key value" lines (memory.stat): the value of key. */
int parse_stat_field(const char *buf, const char *key, uint64_t *ret);
