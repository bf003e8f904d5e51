/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cgroups= globs (cgroup-glob.c), Units= patterns (units.c) and the live
 * match set (cgroup-follow.c) on a fake cgroup tree, driven by inotify. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-glob.h"
#include "units.h"
#include "util.h"

/* ---- globs ---------------------------------------------------------------- */

static void expect_refused(const char *pattern, const char *why) {
        struct cglob g;
        const char *r = cglob_parse(&g, pattern);

        if (!r || !strstr(r, why))
                fail_msg("'%s': expected \"%s\", got \"%s\"", pattern, why, r ? r : "(accepted)");
}

static void test_glob_parse(void **state) {
        struct cglob g;

        assert_null(cglob_parse(&g, "system.slice/backup@*.service"));
        assert_int_equal(g.n, 2);
        assert_int_equal(g.literal, 1);
        assert_string_equal(g.comp[0], "system.slice");
        assert_string_equal(g.comp[1], "backup@*.service");
        assert_false(g.absolute);
        assert_int_equal(cglob_watch_depth(&g), 1);
        cglob_free(&g);

        /* a plain path: one watched parent, the last component's */
        assert_null(cglob_parse(&g, "a.slice/b.slice/c.scope/"));
        assert_int_equal(g.n, 3);
        assert_int_equal(g.literal, 3);
        assert_int_equal(cglob_watch_depth(&g), 2);
        assert_string_equal(g.rel, "a.slice/b.slice/c.scope");
        cglob_free(&g);

        assert_null(cglob_parse(&g, "/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/*"));
        assert_true(g.absolute);
        assert_string_equal(g.rel, "kubepods.slice/kubepods-besteffort.slice/*");
        assert_int_equal(g.literal, 2);
        char buf[256];
        assert_int_equal(cglob_prefix(&g, 2, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "kubepods.slice/kubepods-besteffort.slice");
        assert_int_equal(cglob_prefix(&g, 0, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        assert_int_equal(cglob_prefix(&g, 3, buf, sizeof(buf)), -EINVAL);
        cglob_free(&g);

        /* a glob in the middle: everything below it is watched level by level */
        assert_null(cglob_parse(&g, "k.slice/k-*.slice/k-*-pod[0-9]*.slice"));
        assert_int_equal(g.literal, 1);
        assert_int_equal(cglob_watch_depth(&g), 1);
        assert_true(cglob_match_parent(&g, ""));
        assert_true(cglob_match_parent(&g, "k.slice"));
        assert_true(cglob_match_parent(&g, "k.slice/k-burstable.slice"));
        assert_false(cglob_match_parent(&g, "x.slice/k-burstable.slice"));
        assert_false(cglob_match_parent(&g, "k.slice/k-burstable.slice/k-burstable-pod1.slice")); /* a match, not a parent */
        assert_true(cglob_match(&g, "k.slice/k-burstable.slice/k-burstable-pod1.slice"));
        assert_false(cglob_match(&g, "k.slice/k-burstable.slice/k-burstable-podx.slice"));
        assert_false(cglob_match(&g, "k.slice/k-burstable.slice"));
        assert_false(cglob_match(&g, "k.slice/k-a.slice/k-a-pod1.slice/x"));
        cglob_free(&g);
}

static void test_glob_components(void **state) {
        struct cglob g;

        /* FNM_PATHNAME: '*' never crosses a '/' */
        assert_null(cglob_parse(&g, "batch.slice/*"));
        assert_true(cglob_match(&g, "batch.slice/job-1.scope"));
        assert_false(cglob_match(&g, "batch.slice/job-1.scope/sub"));
        assert_false(cglob_match(&g, "batch.slice"));
        assert_false(cglob_match(&g, "other.slice/job-1.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "*/job-?.scope"));
        assert_true(cglob_match(&g, "a.slice/job-1.scope"));
        assert_false(cglob_match(&g, "a.slice/job-12.scope"));
        assert_false(cglob_match(&g, "a/b/job-1.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "build-[!0]*.scope"));
        assert_true(cglob_match(&g, "build-1234.scope"));
        assert_false(cglob_match(&g, "build-0234.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "a[]]b")); /* ']' first in a bracket is a member */
        assert_true(cglob_match(&g, "a]b"));
        cglob_free(&g);

        /* "..": only a whole component */
        assert_null(cglob_parse(&g, "my..slice/x..y"));
        assert_true(cglob_match(&g, "my..slice/x..y"));
        cglob_free(&g);
}

static void test_glob_refused(void **state) {
        char longname[NAME_MAX + 2], longpath[PATH_MAX + 1];

        expect_refused("", "empty");
        expect_refused("a//b", "empty component");
        expect_refused("../etc", "'..' component");
        expect_refused("a/../../etc", "'..' component");
        expect_refused("/sys/fs/cgroup/..", "'..' component");
        expect_refused("a/./b", "'.' component");
        expect_refused("/etc/passwd", "not below /sys/fs/cgroup");
        expect_refused("/sys/fs/cgroupx/a", "not below /sys/fs/cgroup");
        expect_refused("a/[bc", "'['");
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        expect_refused(longname, "NAME_MAX");
        for (size_t i = 0; i < sizeof(longpath) - 1; i++)
                longpath[i] = i % 100 == 99 ? '/' : 'y';
        longpath[sizeof(longpath) - 1] = '\0';
        expect_refused(longpath, "PATH_MAX");
        char deep[3 * (CGLOB_MAX_DEPTH + 1) + 1] = "";
        for (int i = 0; i <= CGLOB_MAX_DEPTH; i++)
                strcat(deep, i ? "/a" : "a");
        expect_refused(deep, "too many components");
}

static void expect_forbidden(const char *pattern, const char *own, const char *why) {
        struct cglob g;
        const char *r;

        assert_null(cglob_parse(&g, pattern));
        r = cglob_forbidden(&g, own);
        if (why ? !r || !strstr(r, why) : r != NULL)
                fail_msg("'%s': expected \"%s\", got \"%s\"", pattern, why ? why : "(allowed)", r ? r : "(allowed)");
        cglob_free(&g);
}

static void test_glob_forbidden(void **state) {
        const char *own = "system.slice/zswap-tuned.service";

        expect_forbidden("/sys/fs/cgroup", own, "root cgroup");
        expect_forbidden("/sys/fs/cgroup/", own, "root cgroup");
        expect_forbidden("/sys/fs/cgroup/unified", own, "root cgroup");
        expect_forbidden("*", own, "init.scope");
        expect_forbidden("init.scope", own, "init.scope");
        expect_forbidden("init.*", own, "init.scope");
        expect_forbidden("/sys/fs/cgroup/unified/init.scope", own, "init.scope");
        expect_forbidden("system.slice/*", own, "own cgroup");
        expect_forbidden("system.slice/zswap-tuned.service", own, "own cgroup");
        expect_forbidden("*/zswap-*", own, "own cgroup");
        expect_forbidden("system.slice/*", NULL, NULL); /* not known: allowed */
        expect_forbidden("system.slice/backup@*.service", own, NULL);
        expect_forbidden("system.slice", own, NULL); /* a parent, as before */
        expect_forbidden("*.slice", own, NULL);
}

static void test_own_cgroup(void **state) {
        char buf[256];

        assert_int_equal(parse_own_cgroup("0::/system.slice/zswap-tuned.service\n", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "system.slice/zswap-tuned.service");
        assert_int_equal(parse_own_cgroup("12:memory:/x\n1:name=systemd:/y\n0::/\n", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        assert_int_equal(parse_own_cgroup("12:memory:/x\n", buf, sizeof(buf)), -ENODATA);
        assert_int_equal(parse_own_cgroup("0::/abcdef\n", buf, 4), -ENAMETOOLONG);
}

/* ---- unit patterns ------------------------------------------------------ */

static void test_unit_patterns(void **state) {
        struct conf_list l = { .item = { (char *) "backup@*.service", (char *) "batch.slice" }, .n = 2 };
        char longname[UNIT_NAME_MAX + 2];

        assert_null(unit_pattern_check("backup@*.service"));
        assert_null(unit_pattern_check("build-[0-9]*.scope"));
        assert_null(unit_pattern_check("user@1000.service"));
        assert_null(unit_pattern_check("dev-disk-by\\x2duuid.swap"));
        assert_non_null(unit_pattern_check(""));
        assert_non_null(unit_pattern_check("a b.service"));
        assert_non_null(unit_pattern_check("a/b.service"));
        assert_non_null(unit_pattern_check("a$.service"));
        assert_non_null(unit_pattern_check("é.service"));
        memset(longname, 'u', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_non_null(unit_pattern_check(longname));

        assert_true(unit_patterns_match(&l, "backup@2026-12-04.service"));
        assert_true(unit_patterns_match(&l, "batch.slice"));
        assert_false(unit_patterns_match(&l, "backup.service"));
        assert_false(unit_patterns_match(&l, "batch.slice.d"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_glob_parse),
                cmocka_unit_test(test_glob_components),
                cmocka_unit_test(test_glob_refused),
                cmocka_unit_test(test_glob_forbidden),
                cmocka_unit_test(test_own_cgroup),
                cmocka_unit_test(test_unit_patterns),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
