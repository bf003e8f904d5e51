/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot.h"
#include "swap-disk.h"
#include "util.h"

/* disks one device stands on: a partition's one, a device-mapper's few */
#define DISKS_MAX 8
/* how far slaves/ is followed (dm-crypt on LVM on md on a partition is 3) */
#define SLAVES_DEPTH 4
/* block devices of mounted file systems looked at (each once) */
#define DEVICES_MAX 128
/* sysfs directories visited for one device, at most (slaves/ can fan out) */
#define VISITS_MAX 64

struct disk_set {
        char name[DISKS_MAX][64];
        unsigned n, visits;
};

/* The next space-separated token of *s into buf; -EBADMSG when there is
 * none or it does not fit. */
static int token(const char **s, char *buf, size_t size) {
        const char *p = *s + strspn(*s, " \t");
        size_t len = strcspn(p, " \t\n");

        if (len == 0 || len >= size)
                return -EBADMSG;
        memcpy(buf, p, len);
        buf[len] = '\0';
        *s = p + len;
        return 0;
}

int parse_swaps_line(const char *line, char *name, size_t size, bool *file) {
        char type[32];

        if (token(&line, name, size) < 0 || name[0] != '/' || token(&line, type, sizeof(type)) < 0)
                return -EBADMSG;
        if (strcmp(type, "file") == 0)
                *file = true;
        else if (strcmp(type, "partition") == 0)
                *file = false;
        else
                return -EBADMSG; /* " (deleted)" after a name, or a type this does not know */
        return 0;
}

int parse_mountinfo_line(const char *line, unsigned *major, unsigned *minor, char *mount, size_t size) {
        char skip[4096], dev[64], *end;
        unsigned long a, b;

        /* "36 35 98:0 /root /mount/point options ... - fstype source options" */
        if (token(&line, skip, sizeof(skip)) < 0 || token(&line, skip, sizeof(skip)) < 0 ||
            token(&line, dev, sizeof(dev)) < 0 || token(&line, skip, sizeof(skip)) < 0 ||
            token(&line, mount, size) < 0 || mount[0] != '/')
                return -EBADMSG;
        if (!isdigit((unsigned char) dev[0]))
                return -EBADMSG;
        errno = 0;
        a = strtoul(dev, &end, 10);
        if (errno || *end != ':' || a > UINT_MAX || !isdigit((unsigned char) end[1]))
                return -EBADMSG;
        const char *m = end + 1;
        b = strtoul(m, &end, 10);
        if (errno || *end || b > UINT_MAX)
                return -EBADMSG;
        *major = (unsigned) a;
        *minor = (unsigned) b;
        return 0;
}

static bool disk_set_has(const struct disk_set *set, const char *name) {
        for (unsigned i = 0; i < set->n; i++)
                if (strcmp(set->name[i], name) == 0)
                        return true;
        return false;
}

static void disk_set_add(struct disk_set *set, const char *name) {
        if (set->n < DISKS_MAX && strlen(name) < sizeof(set->name[0]) && !disk_set_has(set, name))
                strcpy(set->name[set->n++], name);
}

/* A block device's name as sysfs has it: no "/", not "." or "..". */
static bool block_name_valid(const char *name) {
        return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
               strlen(name) < 64;
}

/* link (a sysfs symlink below the root prefix) resolved into dir, which must
 * stay below the prefix's /sys: anything else is not the kernel's. */
static int resolve(const struct kernel *k, const char *link, char *dir, size_t size) {
        char p[1024], sys[PATH_MAX], r[PATH_MAX];
        size_t n;

        if (kernel_path(k, link, p, sizeof(p)) < 0 || !realpath(p, r) || kernel_path(k, "/sys", p, sizeof(p)) < 0 ||
            !realpath(p, sys))
                return -ENOENT;
        n = strlen(sys);
        if (strncmp(r, sys, n) != 0 || r[n] != '/' || strlen(r) >= size)
                return -EPERM;
        strcpy(dir, r);
        return 0;
}

/* The disks under the block device whose sysfs link is link. */
static void disks_of(const struct kernel *k, const char *link, unsigned depth, struct disk_set *set) {
        char dir[PATH_MAX], sub[PATH_MAX + 16], *base;
        bool below = false;
        struct dirent *e;
        DIR *d;

        if (set->visits++ >= VISITS_MAX || resolve(k, link, dir, sizeof(dir)) < 0)
                return;
        base = strrchr(dir, '/') + 1;
        snprintf(sub, sizeof(sub), "%s/partition", dir);
        if (access(sub, F_OK) == 0) { /* a partition: its disk is the directory above */
                base[-1] = '\0';
                base = strrchr(dir, '/') + 1;
                if (block_name_valid(base))
                        disk_set_add(set, base);
                return;
        }
        snprintf(sub, sizeof(sub), "%s/slaves", dir);
        if (depth > 0 && (d = opendir(sub))) {
                while ((e = readdir(d))) {
                        char l[sizeof("/sys/class/block/") + SWAP_DISK_NAME_MAX];
                        if (!block_name_valid(e->d_name) || e->d_name[0] == '.')
                                continue;
                        snprintf(l, sizeof(l), "/sys/class/block/%s", e->d_name);
                        disks_of(k, l, depth - 1, set);
                        below = true;
                }
                closedir(d);
        }
        if (!below && block_name_valid(base))
                disk_set_add(set, base);
}

static void device_disks(const struct kernel *k, unsigned major, unsigned minor, struct disk_set *set) {
        char l[64];

        snprintf(l, sizeof(l), "/sys/dev/block/%u:%u", major, minor);
        disks_of(k, l, SLAVES_DEPTH, set);
}

/* Is mount point m at or above path? Both escaped the kernel's way. */
static size_t mount_holds(const char *m, const char *path) {
        size_t n = strlen(m);

        if (strcmp(m, "/") == 0)
                return 1;
        return strncmp(path, m, n) == 0 && (path[n] == '/' || path[n] == '\0') ? n : 0;
}

static void add_mount(struct swap_disk *s, const char *m) {
        for (unsigned i = 0; i < s->n_mounts; i++)
                if (strcmp(s->mounts[i], m) == 0)
                        return;
        if (s->n_mounts < SWAP_DISK_MOUNTS && strlen(m) < sizeof(s->mounts[0]))
                strcpy(s->mounts[s->n_mounts++], m);
        else
                s->more_mounts++;
}

/* Keep only whole lines: what follows the last newline was cut short by a
 * full buffer, or is not the kernel's. */
static void whole_lines(char *buf) {
        char *e = strrchr(buf, '\n');

        if (e)
                e[1] = '\0';
        else
                buf[0] = '\0';
}

/* The line after l, NULL after the last (the parsers stop at a newline,
 * so lines are read in place). */
static const char *next_line(const char *l) {
        l = strchr(l, '\n');
        return l && l[1] ? l + 1 : NULL;
}

/* One swap area: is its disk that of a mounted file system? */
static bool area_shared(const struct kernel *k, const char *area, bool file, const char *mountinfo,
                        struct swap_disk *s) {
        unsigned seen[DEVICES_MAX][2], n_seen = 0, hmaj = 0, hmin = 0;
        char mount[SWAP_DISK_NAME_MAX], holder[SWAP_DISK_NAME_MAX] = "";
        struct disk_set swap = { .n = 0 };
        size_t best = 0;
        bool shared;

        *s = (struct swap_disk) { .shared = false };
        /* a file: on the file system mounted nearest above it (the last
         * mount wins: it covers those before it) */
        if (file) {
                for (const char *line = *mountinfo ? mountinfo : NULL; line; line = next_line(line)) {
                        unsigned a, b;
                        size_t n;
                        if (parse_mountinfo_line(line, &a, &b, mount, sizeof(mount)) == 0 &&
                            (n = mount_holds(mount, area)) >= best && n > 0) {
                                best = n;
                                hmaj = a;
                                hmin = b;
                                strcpy(holder, mount);
                        }
                }
                if (!holder[0])
                        return false;
                device_disks(k, hmaj, hmin, &swap);
        } else {
                const char *base = strrchr(area, '/') + 1;
                char l[sizeof("/sys/class/block/") + SWAP_DISK_NAME_MAX];
                if (!block_name_valid(base))
                        return false;
                snprintf(l, sizeof(l), "/sys/class/block/%s", base);
                disks_of(k, l, SLAVES_DEPTH, &swap);
        }
        shared = holder[0] != '\0'; /* a swap file shares its disk, whichever it is */
        if (shared) {
                add_mount(s, holder);
                if (swap.n > 0)
                        strcpy(s->disk, swap.name[0]);
                seen[n_seen][0] = hmaj;
                seen[n_seen++][1] = hmin;
        }
        if (swap.n > 0)
                for (const char *line = *mountinfo ? mountinfo : NULL; line; line = next_line(line)) {
                        struct disk_set fs = { .n = 0 };
                        unsigned a, b, i;
                        if (parse_mountinfo_line(line, &a, &b, mount, sizeof(mount)) < 0 || a == 0)
                                continue; /* not on a block device (proc, tmpfs, btrfs' anonymous ones) */
                        for (i = 0; i < n_seen && (seen[i][0] != a || seen[i][1] != b); i++)
                                ;
                        if (i < n_seen || n_seen == DEVICES_MAX)
                                continue;
                        seen[n_seen][0] = a;
                        seen[n_seen++][1] = b;
                        device_disks(k, a, b, &fs);
                        for (i = 0; i < fs.n; i++)
                                if (disk_set_has(&swap, fs.name[i])) {
                                        if (!shared)
                                                strcpy(s->disk, fs.name[i]);
                                        shared = true;
                                        add_mount(s, mount);
                                        break;
                                }
                }
        if (shared) {
                s->shared = true;
                snprintf(s->area, sizeof(s->area), "%s", area);
        }
        return shared;
}

int swap_disk_scan(const struct kernel *k, struct swap_disk *s) {
        static char swaps[16384], mountinfo[512 * 1024];
        ssize_t n;

        *s = (struct swap_disk) { .shared = false };
        n = kernel_read(k, "/proc/swaps", swaps, sizeof(swaps));
        if (n < 0)
                return (int) n;
        if (kernel_read(k, "/proc/self/mountinfo", mountinfo, sizeof(mountinfo)) < 0)
                mountinfo[0] = '\0'; /* nothing mounted to be told of */
        whole_lines(swaps);
        whole_lines(mountinfo);
        for (const char *line = next_line(swaps); line; line = next_line(line)) { /* after the header */
                char area[SWAP_DISK_NAME_MAX];
                bool file;
                if (parse_swaps_line(line, area, sizeof(area), &file) == 0 &&
                    area_shared(k, area, file, mountinfo, s))
                        return 0;
        }
        *s = (struct swap_disk) { .shared = false };
        return 0;
}

void swap_disk_print(const struct swap_disk *s, FILE *f) {
        char e[SNAPSHOT_ESCAPED(SWAP_DISK_NAME_MAX)];

        if (!s->shared)
                return;
        fputs(snapshot_escape(s->area, e, sizeof(e)), f);
        if (s->disk[0])
                fprintf(f, " shares disk %s with ", snapshot_escape(s->disk, e, sizeof(e)));
        else
                fputs(" shares a disk with ", f);
        for (unsigned i = 0; i < s->n_mounts; i++)
                fprintf(f, "%s%s", i ? ", " : "", snapshot_escape(s->mounts[i], e, sizeof(e)));
        if (s->more_mounts)
                fprintf(f, " and %u more", s->more_mounts);
}

void swap_disk_json(const struct swap_disk *s, FILE *f) {
        if (!s->shared) {
                fputs("null", f);
                return;
        }
        fputs("{\"area\":", f);
        snapshot_json_string(f, s->area);
        fputs(",\"disk\":", f);
        snapshot_json_string_or_null(f, s->disk);
        fputs(",\"mounts\":[", f);
        for (unsigned i = 0; i < s->n_mounts; i++) {
                fputs(i ? "," : "", f);
                snapshot_json_string(f, s->mounts[i]);
        }
        fprintf(f, "],\"more_mounts\":%u}", s->more_mounts);
}
