/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Does swap share a disk with mounted file systems? A cap on a batch cgroup
 * sends the pages zswap no longer takes from it to swap; where swap is on the
 * disk the service writes to, they queue with the service's writes, and the
 * benchmark's shared-disk family measured the cap cost the service there.
 * "zswap-tuned status" says so; the daemon's loop never reads this.
 *
 * Read-only, through the root prefix: /proc/swaps, /proc/self/mountinfo and
 * sysfs (/sys/class/block/NAME and /sys/dev/block/MAJ:MIN, each a symlink into
 * /sys/devices; a partition's disk is its parent, a device-mapper or md
 * device's are those under its slaves/). A swap file shares its disk with the
 * file system that holds it whatever that disk is. The line parsers are pure. */

#include <stdbool.h>
#include <stdio.h>

#include "kernel.h"

#define SWAP_DISK_MOUNTS 4
#define SWAP_DISK_NAME_MAX 256

struct swap_disk {
        bool shared;            /* a swap area shares a disk with a mounted file system */
        /* the first such area, as /proc/swaps names it (the kernel's octal
         * escapes kept), and its disk ("" where sysfs does not tell it) */
        char area[SWAP_DISK_NAME_MAX];
        char disk[64];
        /* mount points of file systems on that disk (one per device), first
         * in /proc/self/mountinfo first; more_mounts beyond SWAP_DISK_MOUNTS */
        char mounts[SWAP_DISK_MOUNTS][SWAP_DISK_NAME_MAX];
        unsigned n_mounts, more_mounts;
};

/* One line of /proc/swaps after the header: its name and whether it is a
 * file (else a block device). -EBADMSG for a line that is not one. Pure. */
int parse_swaps_line(const char *line, char *name, size_t size, bool *file);
/* One line of /proc/self/mountinfo: the device (major, minor) and the mount
 * point (escaped as the kernel escapes it). -EBADMSG otherwise. Pure. */
int parse_mountinfo_line(const char *line, unsigned *major, unsigned *minor, char *mount, size_t size);

/* 0 with *s filled (shared false when nothing is shared or nothing could be
 * told); -errno when /proc/swaps cannot be read. */
int swap_disk_scan(const struct kernel *k, struct swap_disk *s);

/* "/swapfile shares disk vda with /, /boot" (names escaped for a terminal),
 * no newline; nothing unless s->shared. */
void swap_disk_print(const struct swap_disk *s, FILE *f);
/* null unless s->shared; else {"area", "disk" (null: not told), "mounts",
 * "more_mounts"}. */
void swap_disk_json(const struct swap_disk *s, FILE *f);
