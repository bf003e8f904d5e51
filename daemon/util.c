/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Open path (never creating it) relative to dir_fd and make sure it is a
 * regular file: a FIFO would block us, a device (a link to /dev/zero) would
 * never end. Kernel files in /proc, /sys and cgroupfs are regular files too. */
static int open_regular_at(int dir_fd, const char *path, int flags) {
        struct stat st;
        int fd;

        /* (a FIFO opened for writing without a reader says ENXIO; say what it is) */
        if (fstatat(dir_fd, path, &st, flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) == 0 && !S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : S_ISLNK(st.st_mode) ? -ELOOP : -ENOTREGULAR;
        fd = openat(dir_fd, path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return S_ISDIR(st.st_mode) ? -EISDIR : -ENOTREGULAR;
        }
        return fd;
}

static int open_regular(const char *path, int flags) {
        return open_regular_at(AT_FDCWD, path, flags);
}

static ssize_t read_fd(int fd, char *buf, size_t size) {
        size_t n = 0;

        while (n < size - 1) {
                ssize_t k = read(fd, buf + n, size - 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        int r = -errno;
                        close(fd);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        close(fd);
        buf[n] = '\0';
        return (ssize_t) n;
}

ssize_t read_full_file(const char *path, char *buf, size_t size) {
        int fd;

        if (size == 0)
                return -EINVAL;
        fd = open_regular(path, O_RDONLY);
        return fd < 0 ? fd : read_fd(fd, buf, size);
}

ssize_t read_full_file_at(int dir_fd, const char *name, char *buf, size_t size) {
        int fd;

        if (size == 0)
                return -EINVAL;
        fd = open_regular_at(dir_fd, name, O_RDONLY | O_NOFOLLOW);
        return fd < 0 ? fd : read_fd(fd, buf, size);
}

static int write_all(int fd, const char *s, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, s, len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                s += k;
                len -= (size_t) k;
        }
        return 0;
}

int write_string_file(const char *path, const char *s, int64_t fs_magic) {
        struct statfs sfs;
        int fd, r = 0;

        /* Not O_TRUNC: that would act before we know what the file is. Not
         * a symlink, never created, only a regular file. */
        fd = open_regular(path, O_WRONLY | O_NOFOLLOW);
        if (fd < 0)
                return fd;
        if (fstatfs(fd, &sfs) < 0)
                r = -errno;
        else if (fs_magic != 0 && sfs.f_type != fs_magic)
                r = -EPERM;
        /* A plain file (a fake tree in tests) is rewritten whole; kernel
         * files take the write as it is. */
        else if (!is_kernel_fs(sfs.f_type) && ftruncate(fd, 0) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                return r;
        }
        r = write_all(fd, s, strlen(s));
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

bool is_kernel_fs(int64_t f_type) {
        return f_type == SYSFS_MAGIC || f_type == PROC_SUPER_MAGIC || f_type == CGROUP2_SUPER_MAGIC ||
               f_type == CGROUP_SUPER_MAGIC || f_type == DEBUGFS_MAGIC;
}

const char *err_str(int r) {
        if (r < 0)
                r = -r;
        switch (r) {
        case ENOTREGULAR:
                return "not a regular file";
        case EBADMSG:
                return "unexpected contents";
        default:
                return strerror(r);
        }
}

const char *err_write_hint(int r) {
        return r == -EFBIG || r == EFBIG ? " (the file size limit: ulimit -f, LimitFSIZE=)" : "";
}

/* "<name>.XXXXXX", X from [A-Za-z0-9]: what remove_atomic_temporaries_at() looks for */
static int temporary_name(const char *name, char *buf, size_t size) {
        static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        static uint64_t counter;
        uint64_t x = now_usec() ^ ((uint64_t) getpid() << 20) ^ (++counter * UINT64_C(0x9e3779b97f4a7c15));
        size_t len = strlen(name);

        if (len + 8 > size || len + 7 > NAME_MAX)
                return -ENAMETOOLONG;
        memcpy(buf, name, len);
        buf[len] = '.';
        for (size_t i = 0; i < 6; i++, x /= 62)
                buf[len + 1 + i] = chars[x % 62];
        buf[len + 7] = '\0';
        return 0;
}

int write_file_atomic_at(int dir_fd, const char *name, const char *s, mode_t mode, bool durable) {
        char tmp[NAME_MAX + 1];
        int fd = -1, r;

        for (int tries = 0; fd < 0 && tries < 16; tries++) {
                r = temporary_name(name, tmp, sizeof(tmp));
                if (r < 0)
                        return r;
                fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
                if (fd < 0 && errno != EEXIST)
                        return -errno;
        }
        if (fd < 0)
                return -EEXIST;
        r = fchmod(fd, mode) < 0 ? -errno : 0; /* whatever the umask */
        if (r == 0)
                r = write_all(fd, s, strlen(s));
        /* Without durable, no fsync(): the rename makes the file whole or
         * absent should the process die, which is all a status file needs,
         * and an fsync would block an idle daemon on the disk. The save file
         * is durable: nothing is changed before it is on the disk. */
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
                r = -errno;
        if (r < 0)
                (void) unlinkat(dir_fd, tmp, 0);
        else if (durable && fsync(dir_fd) < 0)
                r = -errno;
        return r;
}

unsigned remove_atomic_temporaries_at(int dir_fd, const char *name) {
        size_t len = strlen(name);
        unsigned n = 0;
        struct dirent *e;
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);

        if (!d) {
                if (fd >= 0)
                        close(fd);
                return 0;
        }
        /* write_file_atomic_at()'s "<name>.XXXXXX" */
        while ((e = readdir(d)))
                if (strncmp(e->d_name, name, len) == 0 && e->d_name[len] == '.' && strlen(e->d_name) == len + 7 &&
                    unlinkat(dirfd(d), e->d_name, 0) == 0)
                        n++;
        closedir(d);
        return n;
}

bool dirent_is_dir(DIR *d, const struct dirent *e) {
        struct stat st;

        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
                return false;
        if (e->d_type != DT_UNKNOWN)
                return e->d_type == DT_DIR;
        return fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path, mode_t mode) {
        char p[PATH_MAX];

        if ((size_t) snprintf(p, sizeof(p), "%s", path) >= sizeof(p))
                return -ENAMETOOLONG;
        for (char *s = p + 1;; s++) {
                if (*s != '/' && *s != '\0')
                        continue;
                char c = *s;
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *s = c;
                if (!c)
                        return 0;
        }
}

char *strstrip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

int parse_u64(const char *s, uint64_t *ret) {
        unsigned long long v;

        /* [0-9]+ and nothing else: strtoull would take a sign and spaces */
        if (!s || !*s || s[strspn(s, "0123456789")] != '\0')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, NULL, 10);
        if (errno == ERANGE)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_double(const char *s, double *ret) {
        const char *p = s;
        size_t n;
        double v;

        /* -?[0-9]+(\.[0-9]+)? and nothing else: strtod would also take
         * spaces, "+", "0x10", "1e2", "inf", ".5" and "5." */
        if (!s)
                return -EINVAL;
        if (*p == '-')
                p++;
        n = strspn(p, "0123456789");
        if (n == 0)
                return -EINVAL;
        p += n;
        if (*p == '.') {
                n = strspn(++p, "0123456789");
                if (n == 0)
                        return -EINVAL;
                p += n;
        }
        if (*p != '\0')
                return -EINVAL;
        errno = 0;
        v = strtod(s, NULL);
        if (!isfinite(v)) /* too many digits; a value too small to hold is 0 or near it */
                return -ERANGE;
        *ret = v == 0 ? 0 : v; /* "-0" is 0 */
        return 0;
}

static const struct time_unit {
        const char *name;
        uint64_t usec;
} time_units[] = {
        /* longer names first: the first prefix that matches is taken */
        { "seconds", USEC_PER_SEC },
        { "second", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "s", USEC_PER_SEC },
        { "minutes", 60 * USEC_PER_SEC },
        { "minute", 60 * USEC_PER_SEC },
        { "min", 60 * USEC_PER_SEC },
        { "msec", USEC_PER_MSEC },
        { "ms", USEC_PER_MSEC },
        { "m", 60 * USEC_PER_SEC },
        { "hours", 3600 * USEC_PER_SEC },
        { "hour", 3600 * USEC_PER_SEC },
        { "hr", 3600 * USEC_PER_SEC },
        { "h", 3600 * USEC_PER_SEC },
        { "days", 86400 * USEC_PER_SEC },
        { "day", 86400 * USEC_PER_SEC },
        { "d", 86400 * USEC_PER_SEC },
        { "weeks", 7 * 86400 * USEC_PER_SEC },
        { "week", 7 * 86400 * USEC_PER_SEC },
        { "w", 7 * 86400 * USEC_PER_SEC },
        { "usec", 1 },
        { "us", 1 },
        { "\xc2\xb5s", 1 }, /* µs, MICRO SIGN */
        { "\xce\xbcs", 1 }, /* μs, GREEK SMALL LETTER MU */
};

/* The unit at *p (advanced past it), or 0: none there. A unit must not run
 * on into more letters ("5secs", "5sx"). */
static uint64_t time_unit(const char **p) {
        for (size_t i = 0; i < ELEMENTSOF(time_units); i++) {
                size_t n = strlen(time_units[i].name);

                if (strncmp(*p, time_units[i].name, n) == 0 && !isalpha((unsigned char) (*p)[n]) &&
                    (unsigned char) (*p)[n] < 0x80) {
                        *p += n;
                        return time_units[i].usec;
                }
        }
        return 0;
}

int parse_time(const char *s, uint64_t default_unit, uint64_t *ret_usec) {
        uint64_t total = 0;
        bool first = true;

        if (!s)
                return -EINVAL;
        s += strspn(s, " \t");
        if (!*s)
                return -EINVAL;
        while (*s) {
                uint64_t whole = 0, frac = 0, frac_div = 1, unit, part;
                size_t n = strspn(s, "0123456789");

                if (n == 0)
                        return -EINVAL; /* a sign, a unit without a number, junk */
                for (size_t i = 0; i < n; i++) {
                        uint64_t digit = (uint64_t) (s[i] - '0');

                        if (whole > UINT64_MAX / 10 || whole * 10 > UINT64_MAX - digit)
                                return -ERANGE;
                        whole = whole * 10 + digit;
                }
                s += n;
                if (*s == '.') {
                        n = strspn(++s, "0123456789");
                        if (n == 0)
                                return -EINVAL;
                        /* microseconds are the resolution: 7 digits are plenty */
                        for (size_t i = 0; i < n; i++)
                                if (frac_div < UINT64_C(10000000)) {
                                        frac = frac * 10 + (uint64_t) (s[i] - '0');
                                        frac_div *= 10;
                                }
                        s += n;
                }
                s += strspn(s, " \t");
                unit = time_unit(&s);
                if (!unit) {
                        /* a bare number: only as the whole value */
                        if (!first || *s)
                                return -EINVAL;
                        unit = default_unit;
                }
                if (whole > UINT64_MAX / unit)
                        return -ERANGE;
                /* frac < frac_div <= 10^7 and unit < 2^40: no overflow */
                part = frac * unit / frac_div;
                if (whole * unit > UINT64_MAX - part)
                        return -ERANGE;
                part += whole * unit;
                if (total > UINT64_MAX - part)
                        return -ERANGE;
                total += part;
                first = false;
                s += strspn(s, " \t");
        }
        *ret_usec = total;
        return 0;
}

const char *format_time(char *buf, size_t size, uint64_t usec) {
        static const struct time_unit shown[] = {
                { "w", 7 * 86400 * USEC_PER_SEC }, { "d", 86400 * USEC_PER_SEC }, { "h", 3600 * USEC_PER_SEC },
                { "min", 60 * USEC_PER_SEC },      { "s", USEC_PER_SEC },          { "ms", USEC_PER_MSEC },
        };
        const char *unit = "us";
        uint64_t div = 1;

        for (size_t i = 0; usec && i < ELEMENTSOF(shown); i++)
                if (usec % shown[i].usec == 0) {
                        unit = shown[i].name;
                        div = shown[i].usec;
                        break;
                }
        if (!usec)
                unit = "";
        snprintf(buf, size, "%ju%s", (uintmax_t) (usec / div), unit);
        return buf;
}

int parse_percent(const char *s, double *ret) {
        _cleanup_(freep) char *number = NULL;
        size_t n;

        if (!s)
                return -EINVAL;
        n = strlen(s);
        if (n == 0 || s[n - 1] != '%')
                return parse_double(s, ret);
        if (!(number = strndup(s, n - 1)))
                return -ENOMEM;
        return parse_double(number, ret);
}

int parse_boolean(const char *s) {
        static const char *const yes[] = { "1", "yes", "y", "true", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

const char *format_bytes(char *buf, size_t size, uint64_t bytes) {
        static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        double v = (double) bytes;
        size_t i = 0;

        while (v >= 1024.0 && i < ELEMENTSOF(unit) - 1) {
                v /= 1024.0;
                i++;
        }
        if (i == 0)
                snprintf(buf, size, "%llu B", (unsigned long long) bytes);
        else
                snprintf(buf, size, "%.1f %s", v, unit[i]);
        return buf;
}

uint64_t realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

bool path_has_dotdot(const char *path) {
        for (const char *c = path; *c;) {
                size_t len = strcspn(c, "/");
                if (len == 2 && c[0] == '.' && c[1] == '.')
                        return true;
                c += len;
                c += strspn(c, "/");
        }
        return false;
}

void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

void freep(void *p) {
        free(*(void **) p);
}

uint64_t page_size(void) {
        long p = sysconf(_SC_PAGESIZE);
        return p > 0 ? (uint64_t) p : 4096;
}
