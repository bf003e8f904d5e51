/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <fcntl.h>

#include "savefile.h"
#include "testutil.h"
#include "util.h"

char *tu_mkdtemp(void) {
        char *p = strdup("/tmp/zswap-tuned-test.XXXXXX");

        assert_non_null(p);
        assert_non_null(mkdtemp(p));
        return p;
}

int tu_setup_tmpdir(void **state) {
        *state = tu_mkdtemp();
        return 0;
}

int tu_teardown_tmpdir(void **state) {
        tu_rm_rf(*state);
        free(*state);
        return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void tu_rm_rf(const char *path) {
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdir_parents(char *path) {
        for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(path, 0755);
                *s = '/';
        }
}

void tu_write(const char *root, const char *rel, const char *fmt, ...) {
        char path[PATH_MAX];
        va_list ap;
        FILE *f;

        snprintf(path, sizeof(path), "%s%s", root, rel);
        mkdir_parents(path);
        f = fopen(path, "we");
        assert_non_null(f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        assert_int_equal(fclose(f), 0);
}

const char *tu_read(const char *root, const char *rel, char *buf, size_t size) {
        char path[PATH_MAX];
        size_t n;

        snprintf(path, sizeof(path), "%s%s", root, rel);
        assert_true(read_full_file(path, buf, size) >= 0);
        n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = '\0';
        return buf;
}

int tu_savefile_read(const char *dir, struct saved *s) {
        char path[4096], *buf = malloc(SAVEFILE_MAX);
        ssize_t n;
        int r;

        assert_non_null(buf);
        snprintf(path, sizeof(path), "%s/" SAVEFILE_NAME, dir);
        n = read_full_file(path, buf, SAVEFILE_MAX);
        r = n < 0 ? (int) n : parse_savefile(buf, path, s);
        free(buf);
        return r;
}

int tu_savefile_write(const char *dir, const struct saved *s) {
        char *buf = malloc(SAVEFILE_MAX);
        int n, fd, r;

        assert_non_null(buf);
        n = savefile_format(s, buf, SAVEFILE_MAX);
        if (n < 0) {
                free(buf);
                return n;
        }
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                free(buf);
                return -errno;
        }
        if (n == 0)
                r = unlinkat(fd, SAVEFILE_NAME, 0) < 0 && errno != ENOENT ? -errno : 0;
        else
                r = write_file_atomic_at(fd, SAVEFILE_NAME, buf, 0600, false);
        close(fd);
        free(buf);
        return r;
}
