/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "psi.h"
#include "util.h"

/* The value of key (" total=") on the "some" or "full" line, up to the first
 * character of stop, copied to num. */
static int psi_field(const char *buf, int type, const char *key, const char *stop, char *num, size_t size) {
        const char *want = type == PSI_FULL ? "full " : "some ";

        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                const char *t, *e;
                size_t n;

                if (strncmp(l, want, 5) != 0)
                        continue;
                e = strchr(l, '\n');
                if (!e)
                        e = l + strlen(l);
                t = memmem(l, (size_t) (e - l), key, strlen(key));
                if (!t)
                        return -EBADMSG;
                t += strlen(key);
                n = strcspn(t, stop);
                if (n > (size_t) (e - t))
                        n = (size_t) (e - t);
                if (n == 0 || n >= size)
                        return -EBADMSG;
                memcpy(num, t, n);
                num[n] = '\0';
                return 0;
        }
        return -EBADMSG;
}

int parse_psi(const char *buf, int type, uint64_t *total) {
        char num[32];
        int r = psi_field(buf, type, " total=", "\n", num, sizeof(num));

        return r < 0 ? r : parse_u64(num, total) < 0 ? -EBADMSG : 0;
}

static int parse_avg(const char *buf, int type, const char *key, double *avg) {
        char num[32];
        int r = psi_field(buf, type, key, " \n", num, sizeof(num));

        return r < 0 ? r : parse_double(num, avg) < 0 || *avg < 0 || *avg > 100 ? -EBADMSG : 0;
}

int parse_psi_avg10(const char *buf, int type, double *avg) {
        return parse_avg(buf, type, " avg10=", avg);
}

int parse_psi_avg300(const char *buf, int type, double *avg) {
        return parse_avg(buf, type, " avg300=", avg);
}

int psi_read_total(const struct kernel *k, const char *path, int type, uint64_t *total) {
        char buf[512];
        ssize_t n = kernel_read(k, path, buf, sizeof(buf));

        return n < 0 ? (int) n : parse_psi(buf, type, total);
}

uint64_t psi_round_window_us(uint64_t window_us) {
        return (window_us + PSI_WINDOW_STEP_US - 1) / PSI_WINDOW_STEP_US * PSI_WINDOW_STEP_US;
}

static int arm(int fd, int type, uint64_t stall_us, uint64_t window_us) {
        char t[64];
        int n = snprintf(t, sizeof(t), "%s %llu %llu", type == PSI_FULL ? "full" : "some",
                         (unsigned long long) stall_us, (unsigned long long) window_us);

        /* the kernel wants the terminating NUL too */
        return write(fd, t, (size_t) n + 1) < 0 ? -errno : 0;
}

int psi_open_trigger(const struct kernel *k, const char *path, int type, uint64_t stall_us,
                     uint64_t window_us, uint64_t *window_used_us) {
        struct statfs sfs;
        int fd, r;

        fd = kernel_open(k, path, O_RDWR | O_NONBLOCK);
        if (fd < 0)
                return fd;
        /* Only arm real PSI files: writing a trigger into a plain file would
         * just scribble on it. */
        if (fstatfs(fd, &sfs) < 0 ||
            (sfs.f_type != PROC_SUPER_MAGIC && sfs.f_type != CGROUP2_SUPER_MAGIC)) {
                close(fd);
                return -EOPNOTSUPP;
        }
        if (stall_us > window_us)
                stall_us = window_us;
        r = arm(fd, type, stall_us, window_us);
        if (r == -EINVAL && window_us % PSI_WINDOW_STEP_US != 0) {
                window_us = psi_round_window_us(window_us);
                r = arm(fd, type, stall_us, window_us);
        }
        if (r < 0) {
                close(fd);
                return r;
        }
        *window_used_us = window_us;
        return fd;
}
