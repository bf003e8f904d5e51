/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Units= (units.c): unit patterns name their type. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fnmatch.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "log.h"
#include "testutil.h"
#include "units.h"
#include "util.h"

#define UNIT_PATH "/org/freedesktop/systemd1/unit"

/* ---- unit patterns name their type ---------------------------------------- */

static void test_patterns_name_a_type(void **state) {
        struct conf_list batch = { .item = { (char *) "backup@*.service" }, .n = 1 };
        struct conf_list star = { .item = { (char *) "*.service" }, .n = 1 };
        struct conf_list bare = { .item = { (char *) "batch-*" }, .n = 1 };
        const char *why;

        assert_null(unit_pattern_check("backup@*.service"));
        assert_null(unit_pattern_check("batch.slice"));
        assert_null(unit_pattern_check("build-[0-9]*.scope"));
        assert_null(unit_pattern_check("dev-disk-by\\x2duuid.swap"));
        assert_null(unit_pattern_check("*.socket"));
        assert_null(unit_pattern_check("home.mount"));
        why = unit_pattern_check("batch-*");
        assert_non_null(why);
        assert_non_null(strstr(why, "name the unit type: batch-*.service"));
        assert_non_null(unit_pattern_check("*"));
        assert_non_null(unit_pattern_check("system"));
        assert_non_null(unit_pattern_check("backup@*.serv*"));
        assert_non_null(unit_pattern_check("backup@*.[s]ervice"));
        assert_non_null(unit_pattern_check(".service"));
        why = unit_pattern_check("nightly.timer");
        assert_non_null(why);
        assert_non_null(strstr(why, ".timer units, which have no cgroup"));
        assert_non_null(unit_pattern_check("multi-user.target"));

        /* a pattern takes its own type only */
        assert_true(unit_patterns_match(&batch, "backup@1.service"));
        assert_true(unit_patterns_match(&star, "db.service"));
        assert_false(unit_patterns_match(&star, "system.slice"));
        assert_false(unit_patterns_match(&star, "db.service.slice"));
        assert_false(unit_patterns_match(&bare, "batch-x.slice"));
        assert_false(unit_patterns_match(&bare, "batch-x.service"));
}

/* The refusal at configuration load, with FILE:LINE, as the others. */
static void test_pattern_refused_at_load(void **state) {
        struct conf c;
        char err[1024];

        conf_defaults(&c);
        assert_int_not_equal(conf_load_string(&c, "t.conf", "[Batch]\nUnits=backup@*.service batch-*\n", err,
                                              sizeof(err)),
                             0);
        if (!strstr(err, "t.conf:2: ") || !strstr(err, "Units= unit pattern 'batch-*' names no unit type") ||
            !strstr(err, "name the unit type: batch-*.service"))
                fail_msg("got \"%s\"", err);
        assert_int_not_equal(conf_load_string(&c, "t.conf", "[Pressure]\n\nUnits=*\n", err, sizeof(err)), 0);
        if (!strstr(err, "t.conf:3: ") || !strstr(err, "name the unit type: *.service"))
                fail_msg("got \"%s\"", err);
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pressure]\nUnits=db.service app-*.slice\n", err,
                                          sizeof(err)),
                         0);
        conf_free(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_patterns_name_a_type),
                cmocka_unit_test(test_pattern_refused_at_load),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
