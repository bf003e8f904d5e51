/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "util.h"

int kernel_init(struct kernel *k, const char *root) {
        size_t n;

        if (!root || strcmp(root, "/") == 0)
                root = "";
        n = strlen(root);
        if (n >= sizeof(k->root))
                return -ENAMETOOLONG;
        memcpy(k->root, root, n + 1);
        while (n > 0 && k->root[n - 1] == '/')
                k->root[--n] = '\0';
        return 0;
}

int kernel_path(const struct kernel *k, const char *path, char *buf, size_t size) {
        if ((size_t) snprintf(buf, size, "%s%s", k->root, path) >= size)
                return -ENAMETOOLONG;
        return 0;
}

ssize_t kernel_read(const struct kernel *k, const char *path, char *buf, size_t size) {
        char p[1024];
        int r = kernel_path(k, path, p, sizeof(p));

        return r < 0 ? r : read_full_file(p, buf, size);
}

int kernel_open(const struct kernel *k, const char *path, int flags) {
        char p[1024];
        int r = kernel_path(k, path, p, sizeof(p));

        if (r < 0)
                return r;
        r = open(p, flags | O_CLOEXEC | O_NOCTTY);
        return r < 0 ? -errno : r;
}

bool kernel_exists(const struct kernel *k, const char *path) {
        char p[1024];

        return kernel_path(k, path, p, sizeof(p)) == 0 && access(p, F_OK) == 0;
}

int kernel_cgroup_path(const struct kernel *k, const char *spec, const char *file, char *buf, size_t size) {
        static const char *const mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
        size_t n = strlen(spec), f = strlen(file);
        char dir[512];

        while (n > 1 && spec[n - 1] == '/')
                n--;
        if (n > f && spec[n - f - 1] == '/' && strncmp(spec + n - f, file, f) == 0)
                n -= f + 1;
        if (spec[0] == '/') {
                if ((size_t) snprintf(buf, size, "%.*s/%s", (int) n, spec, file) >= size)
                        return -ENAMETOOLONG;
                return 0;
        }
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < ELEMENTSOF(mounts); i++) {
                        if (pass == 0)
                                snprintf(dir, sizeof(dir), "%s/%.*s", mounts[i], (int) n, spec);
                        else
                                snprintf(dir, sizeof(dir), "%s/cgroup.controllers", mounts[i]);
                        if (!kernel_exists(k, dir))
                                continue;
                        if ((size_t) snprintf(buf, size, "%s/%.*s/%s", mounts[i], (int) n, spec, file) >= size)
                                return -ENAMETOOLONG;
                        return 0;
                }
        if ((size_t) snprintf(buf, size, "/sys/fs/cgroup/%.*s/%s", (int) n, spec, file) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* Find "key" at the start of a line followed by a separator; return what follows. */
static const char *find_field(const char *buf, const char *key, char sep) {
        size_t n = strlen(key);

        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
                if (strncmp(l, key, n) == 0 && l[n] == sep)
                        return l + n + 1;
        return NULL;
}

static int field_u64(const char *buf, const char *key, char sep, uint64_t *ret) {
        const char *v = find_field(buf, key, sep);
        char num[32];
        size_t n = 0;

        if (!v)
                return -ENOENT;
        while (*v == ' ' || *v == '\t')
                v++;
        while (v[n] >= '0' && v[n] <= '9' && n < sizeof(num) - 1) {
                num[n] = v[n];
                n++;
        }
        num[n] = '\0';
        /* what follows the number: end of line, or " kB" */
        if (n == 0 || (v[n] != '\0' && v[n] != '\n' && v[n] != ' '))
                return -EBADMSG;
        return parse_u64(num, ret) < 0 ? -EBADMSG : 0;
}

int parse_meminfo(const char *buf, struct meminfo *m) {
        int r;

        *m = (struct meminfo) { 0 };
        r = field_u64(buf, "MemTotal", ':', &m->mem_total_kb);
        if (r < 0 || m->mem_total_kb == 0)
                return -EBADMSG;
        r = field_u64(buf, "Zswap", ':', &m->zswap_kb);
        if (r == -ENOENT)
                return 0; /* before 5.19 */
        if (r < 0)
                return r;
        m->has_zswap = true;
        r = field_u64(buf, "Zswapped", ':', &m->zswapped_kb);
        return r == -ENOENT ? 0 : r;
}

int parse_vmstat(const char *buf, struct vmstat *v) {
        static const struct {
                const char *name;
                size_t offset;
        } f[] = {
                { "zswpout", offsetof(struct vmstat, zswpout) }, { "zswpin", offsetof(struct vmstat, zswpin) },
                { "zswpwb", offsetof(struct vmstat, zswpwb) },   { "pswpout", offsetof(struct vmstat, pswpout) },
                { "pswpin", offsetof(struct vmstat, pswpin) },
        };

        *v = (struct vmstat) { 0 };
        for (size_t i = 0; i < ELEMENTSOF(f); i++) {
                int r = field_u64(buf, f[i].name, ' ', (uint64_t *) ((char *) v + f[i].offset));
                /* zswp* are missing on old kernels or without CONFIG_ZSWAP: 0 */
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

int parse_knob(const char *buf) {
        char s[8];

        if (strlen(buf) >= sizeof(s))
                return -EBADMSG;
        strcpy(s, buf);
        const char *t = strstrip(s);
        if (strcmp(t, "Y") == 0 || strcmp(t, "1") == 0)
                return KNOB_ON;
        if (strcmp(t, "N") == 0 || strcmp(t, "0") == 0)
                return KNOB_OFF;
        return -EBADMSG;
}

bool knob_name_valid(const char *name) {
        return strcmp(name, "shrinker_enabled") == 0 || strcmp(name, "shrink_enabled") == 0;
}

const char *knob_to_string(knob_value v) {
        return v == KNOB_ON ? "Y" : v == KNOB_OFF ? "N" : "-";
}

/* "/sys/fs/cgroup/<plain names>/<file>" */
static bool cgroup_file_valid(const char *path, const char *file) {
        size_t n = strlen(path), f = strlen(file);

        /* a cgroup below the mount: the root cgroup has no memory.zswap.max */
        if (strncmp(path, CGROUP_ROOT "/", strlen(CGROUP_ROOT "/")) != 0 || n <= strlen(CGROUP_ROOT) + f ||
            strcmp(path + n - f, file) != 0)
                return false;
        /* every component a plain name */
        for (const char *c = path + 1; *c;) {
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += len;
                if (*c == '/')
                        c++;
        }
        return path[n - 1] != '/';
}

bool cap_path_valid(const char *path) {
        return cgroup_file_valid(path, "/memory.zswap.max");
}

bool reclaim_path_valid(const char *path) {
        return cgroup_file_valid(path, "/memory.reclaim");
}

bool writeback_path_valid(const char *path) {
        return cgroup_file_valid(path, "/memory.zswap.writeback");
}

bool cap_value_valid(const char *s) {
        uint64_t v;

        return strcmp(s, "max") == 0 || parse_u64(s, &v) == 0;
}

/* Open path below the root for writing, and check it is what it must be:
 * on the file system magic (any regular file under a fake root). */
static int kernel_write_checked(const struct kernel *k, const char *path, int64_t magic, const char *s) {
        char p[1024];
        int r = kernel_path(k, path, p, sizeof(p));

        return r < 0 ? r : write_string_file(p, s, k->root[0] ? 0 : magic);
}

int kernel_cap_write(const struct kernel *k, const char *path, const char *value) {
        if (!cap_path_valid(path) || !cap_value_valid(value))
                return -EPERM;
        return kernel_write_checked(k, path, CGROUP2_SUPER_MAGIC, value);
}

int kernel_writeback_read(const struct kernel *k, const char *path) {
        char buf[16];
        ssize_t n = kernel_read(k, path, buf, sizeof(buf));
        const char *t;

        if (n < 0)
                return (int) n;
        t = strstrip(buf);
        return strcmp(t, "0") == 0 ? 0 : strcmp(t, "1") == 0 ? 1 : -EBADMSG;
}

int kernel_writeback_write(const struct kernel *k, const char *path, int value) {
        if (!writeback_path_valid(path) || (value != 0 && value != 1))
                return -EPERM;
        return kernel_write_checked(k, path, CGROUP2_SUPER_MAGIC, value ? "1" : "0");
}

int kernel_writeback_probe(const struct kernel *k) {
        char root[1024], file[1024 + 256 + 32];
        DIR *d;
        struct dirent *e;
        int r = -ENOENT;

        if (kernel_path(k, CGROUP_ROOT, root, sizeof(root)) < 0 || !(d = opendir(root)))
                return -ENOENT;
        while (r == -ENOENT && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                snprintf(file, sizeof(file), "%s/%s/memory.zswap.max", root, e->d_name);
                if (access(file, F_OK) < 0)
                        continue;
                snprintf(file, sizeof(file), "%s/%s/memory.zswap.writeback", root, e->d_name);
                r = access(file, F_OK) == 0;
        }
        closedir(d);
        return r;
}

int kernel_zswap_writeback(const struct kernel *k, const char *path, uint64_t bytes) {
        char value[64];

        if (!reclaim_path_valid(path) || bytes == 0)
                return -EPERM;
        snprintf(value, sizeof(value), "%llu zswap_writeback_only", (unsigned long long) bytes);
        return kernel_write_checked(k, path, CGROUP2_SUPER_MAGIC, value);
}

int parse_swaps(const char *buf) {
        const char *l = strchr(buf, '\n'); /* skip the header */
        int n = 0;

        if (!l || strncmp(buf, "Filename", 8) != 0)
                return -EBADMSG;
        for (l++; *l; ) {
                const char *e = strchr(l, '\n');
                if (*l != '\n')
                        n++;
                if (!e)
                        break;
                l = e + 1;
        }
        return n;
}

bool parse_cgroup_memory_v1(const char *buf) {
        /* "4:memory:/user.slice" on v1; "0::/..." only on pure v2. */
        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                const char *c = strchr(l, ':'), *e;
                if (!c)
                        continue;
                e = strchr(c + 1, ':');
                if (!e)
                        continue;
                for (const char *w = c + 1; w < e;) {
                        const char *comma = memchr(w, ',', (size_t) (e - w));
                        const char *we = comma ? comma : e;
                        if (we - w == 6 && strncmp(w, "memory", 6) == 0)
                                return true;
                        w = we + 1;
                }
        }
        return false;
}

/* One of the files under ZSWAP_PARAMS, read whole. */
static ssize_t read_param(const struct kernel *k, const char *name, char *buf, size_t size) {
        char path[256];

        snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
        return kernel_read(k, path, buf, size);
}

int kernel_knob_read(const struct kernel *k, const char *name) {
        char buf[16];
        ssize_t n = read_param(k, name, buf, sizeof(buf));

        return n < 0 ? (int) n : parse_knob(buf);
}

int kernel_knob_write(const struct kernel *k, const char *name, knob_value v) {
        char path[256];
        int r;

        if (!knob_name_valid(name) || (v != KNOB_ON && v != KNOB_OFF))
                return -EPERM;
        snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
        r = kernel_write_checked(k, path, SYSFS_MAGIC, knob_to_string(v));
        if (r < 0)
                return r;
        r = kernel_knob_read(k, name);
        if (r < 0)
                return r;
        return r == (int) v ? 0 : -EIO;
}

int kernel_param_u64(const struct kernel *k, const char *name, uint64_t *ret) {
        char buf[32];
        ssize_t n = read_param(k, name, buf, sizeof(buf));

        return n < 0 ? (int) n : parse_u64(strstrip(buf), ret);
}

int kernel_read_pool(const struct kernel *k, struct pool_sample *s) {
        char buf[16384];
        struct meminfo mi;
        uint64_t pct;
        ssize_t n;
        int r;

        *s = (struct pool_sample) { 0 };
        r = kernel_knob_read(k, "enabled");
        s->enabled = r == KNOB_ON;
        r = kernel_param_u64(k, "max_pool_percent", &pct);
        if (r < 0)
                return r;
        s->max_pool_percent = (unsigned) pct;

        n = kernel_read(k, "/proc/meminfo", buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        r = parse_meminfo(buf, &mi);
        if (r < 0)
                return r;
        s->mem_total = mi.mem_total_kb * 1024;
        s->limit_bytes = s->mem_total * s->max_pool_percent / 100;
        s->stored_bytes = mi.zswapped_kb * 1024;
        if (mi.has_zswap)
                s->pool_bytes = mi.zswap_kb * 1024;
        else {
                /* Before 5.19 only debugfs has it. Neither: we cannot see
                 * the pool, which is not the same as an empty one. */
                n = kernel_read(k, ZSWAP_DEBUGFS "/pool_total_size", buf, sizeof(buf));
                if (n <= 0 || parse_u64(strstrip(buf), &s->pool_bytes) < 0)
                        return -ENODATA;
        }

        n = kernel_read(k, "/proc/vmstat", buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_vmstat(buf, &s->vm);
}

double pool_percent(const struct pool_sample *s) {
        if (s->limit_bytes == 0)
                return s->pool_bytes > 0 ? 100.0 : 0.0;
        return 100.0 * (double) s->pool_bytes / (double) s->limit_bytes;
}

int kernel_pool_incompressible(const struct kernel *k, uint64_t *pages) {
        char buf[32];
        ssize_t n = kernel_read(k, ZSWAP_DEBUGFS "/stored_incompressible_pages", buf, sizeof(buf));

        if (n < 0)
                return (int) n;
        return parse_u64(strstrip(buf), pages) < 0 ? -EBADMSG : 0;
}

int parse_stat_field(const char *buf, const char *key, uint64_t *ret) {
        return field_u64(buf, key, ' ', ret);
}

bool kernel_cgroup_idle(const struct kernel *k, const char *dir) {
        char p[PATH_MAX + 16], buf[16];

        if ((size_t) snprintf(p, sizeof(p), "%s/cpu.idle", dir) >= sizeof(p))
                return false;
        return kernel_read(k, p, buf, sizeof(buf)) > 0 && strcmp(strstrip(buf), "1") == 0;
}

int kernel_cgroup_stat(const struct kernel *k, const char *spec, const char *key, uint64_t *ret) {
        char path[PATH_MAX], buf[16384];
        ssize_t n;

        if (kernel_cgroup_path(k, spec, "memory.stat", path, sizeof(path)) < 0)
                return -ENAMETOOLONG;
        n = kernel_read(k, path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_stat_field(buf, key, ret);
}

int kernel_cgroup_incompressible(const struct kernel *k, const char *spec, uint64_t *bytes) {
        return kernel_cgroup_stat(k, spec, "zswap_incomp", bytes);
}
