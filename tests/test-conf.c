/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configuration: defaults, every error with its FILE:LINE, drop-in order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "testutil.h"

static int load(const char *dir, struct conf *c, char *err, size_t size) {
        char path[512];

        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", dir);
        conf_defaults(c);
        err[0] = '\0';
        return conf_load(c, path, err, size);
}

/* Load a one-file config and expect an error "FILE:LINE: <contains>". */
static void expect_error(const char *dir, const char *content, unsigned line, const char *contains) {
        char err[1024], want[512];
        struct conf c;

        tu_write(dir, "/zswap-tuned.conf", "%s", content);
        assert_int_not_equal(load(dir, &c, err, sizeof(err)), 0);
        snprintf(want, sizeof(want), "%s/zswap-tuned.conf:%u: ", dir, line);
        if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, contains))
                fail_msg("for:\n%s\nexpected \"%s...%s\", got \"%s\"", content, want, contains, err);
        conf_free(&c);
}

static void missing_file_gives_defaults(void **state) {
        struct conf c, d;
        char err[256];

        assert_int_equal(load(*state, &c, err, sizeof(err)), 0);
        conf_defaults(&d);
        assert_int_equal(c.knob, KNOB_CHOICE_AUTO);
        assert_int_equal(c.baseline, BASELINE_STARTUP);
        assert_true(c.system);
        assert_int_equal(c.cgroups.n, 0);
        assert_int_equal(c.trigger_window_ms, 1000);
        assert_float_equal(c.pool_high, d.pool_high, 0);
        assert_float_equal(c.pool_low, 70, 0);
        assert_int_equal(c.max_per_minute, 6);
        conf_free(&c);
}

static void values_are_parsed(void **state) {
        struct conf c;
        char err[256];

        tu_write(*state, "/zswap-tuned.conf",
                 "# comment\n; comment\n\n[Daemon]\nKnob=shrink_enabled\nBaseline=On\nDryRun=yes\nLogLevel=debug\n"
                 "[Pressure]\nSystem=no\nCgroups=/sys/fs/cgroup/a.slice  b.slice\nType=full\n"
                 "TriggerStallMs=50\nTriggerWindowMs=2000\nHighPercent=12.5\nLowPercent=0\nHoldSec=0\n"
                 "[Pool]\nHighPercent=90\nLowPercent=60\nWatchPercent=0\nSampleMs=500\nMinSampleMs=500\n"
                 "LeadSec=0\nIdleCheckSec=0\n[Flips]\nMinDwellSec=0\nMaxPerMinute=0\n");
        assert_int_equal(load(*state, &c, err, sizeof(err)), 0);
        assert_int_equal(c.knob, KNOB_CHOICE_SHRINK_ENABLED);
        assert_int_equal(c.baseline, BASELINE_ON);
        assert_true(c.dry_run);
        assert_int_equal(c.log_level, LOG_DEBUG);
        assert_false(c.system);
        assert_int_equal(c.cgroups.n, 2);
        assert_string_equal(c.cgroups.item[0], "/sys/fs/cgroup/a.slice");
        assert_string_equal(c.cgroups.item[1], "b.slice");
        assert_int_equal(c.type, PSI_FULL);
        assert_int_equal(c.trigger_stall_ms, 50);
        assert_float_equal(c.pressure_high, 12.5, 0);
        assert_float_equal(c.pool_high, 90, 0);
        assert_int_equal(c.min_sample_ms, 500);
        assert_int_equal(c.max_per_minute, 0);
        conf_free(&c);
}

static void every_error_names_its_line(void **state) {
        const char *d = *state;

        expect_error(d, "[Daemon]\nKnob=auto\n[Nope]\n", 3, "unknown section [Nope]");
        expect_error(d, "[Pool]\n\nSampleMs=100\nBogus=1\n", 4, "unknown key Bogus= in section [Pool]");
        expect_error(d, "Knob=auto\n", 1, "Knob= outside of a section");
        expect_error(d, "[Pool]\nthis line is junk\n", 2, "syntax error");
        expect_error(d, "[Pool\nSampleMs=100\n", 1, "without closing ']'");
        expect_error(d, "[Daemon]\nDryRun=maybe\n", 2, "DryRun=maybe: expected a boolean");
        expect_error(d, "[Daemon]\nKnob=shrinker\n", 2, "expected one of auto, shrinker_enabled, shrink_enabled, none");
        expect_error(d, "[Daemon]\nLogLevel=loud\n", 2, "LogLevel=loud");
        expect_error(d, "[Pressure]\nType=partial\n", 2, "expected one of some, full");
        expect_error(d, "[Pool]\nSampleMs=5\n", 2, "SampleMs=5: expected a whole number from 10 to 60000");
        expect_error(d, "[Pool]\nSampleMs=1e3\n", 2, "SampleMs=1e3");
        expect_error(d, "[Pool]\nSampleMs=-1\n", 2, "SampleMs=-1");
        expect_error(d, "[Pool]\nSampleMs=\n", 2, "SampleMs=:");
        expect_error(d, "[Pool]\nSampleMs=99999999999999999999999\n", 2, "SampleMs=");
        expect_error(d, "[Pool]\nHighPercent=101\n", 2, "HighPercent=101: expected a percentage from 1 to 100");
        expect_error(d, "[Pool]\nHighPercent=0\n", 2, "from 1 to 100");
        expect_error(d, "[Pressure]\nHighPercent=ten\n", 2, "HighPercent=ten");
        expect_error(d, "[Pressure]\nHighPercent=nan\n", 2, "HighPercent=nan");
        expect_error(d, "[Pressure]\nCgroups=../etc\n", 2, "must not contain '..'");
        /* two keys that contradict each other: reported where the later one was set */
        expect_error(d, "[Pool]\nLowPercent=90\n\nSampleMs=100\n", 2, "LowPercent=90 must be below HighPercent=85");
        expect_error(d, "[Pool]\nLowPercent=50\nHighPercent=50\n", 3, "must be below");
        expect_error(d, "[Pressure]\nHighPercent=1\n", 2, "LowPercent=2 must be below HighPercent=1");
        expect_error(d, "[Pool]\nMinSampleMs=2000\n", 2, "MinSampleMs=2000 must be at most SampleMs=1000");
        expect_error(d, "[Pressure]\nTriggerStallMs=3000\n", 2, "TriggerStallMs=3000 must be at most TriggerWindowMs=1000");
}

static void first_error_wins(void **state) {
        expect_error(*state, "[Pool]\nSampleMs=1\nLeadSec=x\n", 2, "SampleMs=1");
}

static void dropins_apply_in_lexical_order(void **state) {
        const char *d = *state;
        struct conf c;
        char err[256];

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nHighPercent=80\nLowPercent=40\n[Pressure]\nCgroups=a\n");
        tu_write(d, "/zswap-tuned.conf.d/20-b.conf", "[Pool]\nHighPercent=95\n");
        tu_write(d, "/zswap-tuned.conf.d/10-a.conf", "[Pool]\nHighPercent=90\nSampleMs=300\n[Pressure]\nCgroups=b c\n");
        tu_write(d, "/zswap-tuned.conf.d/30-ignored.conf.bak", "[Pool]\nHighPercent=5\n");
        tu_write(d, "/zswap-tuned.conf.d/.hidden.conf", "garbage\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        assert_float_equal(c.pool_high, 95, 0);
        assert_float_equal(c.pool_low, 40, 0);
        assert_int_equal(c.sample_ms, 300);
        assert_int_equal(c.cgroups.n, 2); /* a later Cgroups= replaces the list */
        assert_string_equal(c.cgroups.item[0], "b");
        conf_free(&c);
}

static void dropin_error_names_the_dropin(void **state) {
        const char *d = *state;
        struct conf c;
        char err[1024], want[512];

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nLowPercent=60\n");
        tu_write(d, "/zswap-tuned.conf.d/50-x.conf", "[Pool]\n# lower the high mark\nHighPercent=50\n");
        assert_int_not_equal(load(d, &c, err, sizeof(err)), 0);
        snprintf(want, sizeof(want), "%s/zswap-tuned.conf.d/50-x.conf:3: [Pool] LowPercent=60 must be below HighPercent=50", d);
        assert_string_equal(err, want);
        conf_free(&c);
}

static void failed_load_keeps_the_old_config(void **state) {
        const char *d = *state;
        struct conf c;
        char err[256], path[512];

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nSampleMs=700\n[Pressure]\nCgroups=x\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        tu_write(d, "/zswap-tuned.conf", "[Pool]\nSampleMs=800\nbroken\n");
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", d);
        assert_int_not_equal(conf_load(&c, path, err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 700);
        assert_int_equal(c.cgroups.n, 1);
        assert_string_equal(c.cgroups.item[0], "x");
        conf_free(&c);
}

static void dump_reads_back_the_same(void **state) {
        const char *d = *state;
        struct conf c, c2;
        char err[256], path[512], *buf = NULL;
        size_t len = 0;
        FILE *f;

        tu_write(d, "/zswap-tuned.conf", "[Pressure]\nCgroups=a b\nHighPercent=12.5\n[Daemon]\nBaseline=off\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        f = open_memstream(&buf, &len);
        conf_dump(&c, f);
        fclose(f);
        assert_non_null(strstr(buf, "[Pressure]\nSystem=yes\nCgroups=a b\nType=some\n"));
        assert_non_null(strstr(buf, "HighPercent=12.5\n"));
        tu_write(d, "/zswap-tuned.conf", "%s", buf);
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", d);
        conf_defaults(&c2);
        assert_int_equal(conf_load(&c2, path, err, sizeof(err)), 0);
        assert_int_equal(c2.baseline, BASELINE_OFF);
        assert_float_equal(c2.pressure_high, 12.5, 0);
        assert_int_equal(c2.cgroups.n, 2);
        free(buf);
        conf_free(&c);
        conf_free(&c2);
}

static char *dump(const struct conf *c) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        conf_dump(c, f);
        fclose(f);
        return buf;
}

/* conf/zswap-tuned.conf shows every key, commented out at its default:
 * uncomment them all and the result must be exactly the defaults. */
static void shipped_config_shows_every_default(void **state) {
        const char *src = getenv("abs_top_srcdir");
        char path[512], line[512], err[256];
        struct conf c, d;
        unsigned shown = 0, keys = 0;
        FILE *in, *out;

        snprintf(path, sizeof(path), "%s/conf/zswap-tuned.conf", src ? src : ".");
        in = fopen(path, "re");
        assert_non_null(in);
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", (const char *) *state);
        out = fopen(path, "we");
        assert_non_null(out);
        while (fgets(line, sizeof(line), in)) {
                if (line[0] == '[')
                        fputs(line, out);
                else if (line[0] == '#' && line[1] >= 'A' && line[1] <= 'Z' && strchr(line, '=')) {
                        fputs(line + 1, out);
                        shown++;
                }
        }
        fclose(in);
        fclose(out);

        conf_defaults(&c);
        assert_int_equal(conf_load(&c, path, err, sizeof(err)), 0);
        conf_defaults(&d);
        char *a = dump(&c), *b = dump(&d);
        assert_string_equal(a, b);
        for (const char *p = b; (p = strchr(p, '=')); p++)
                keys++;
        assert_int_equal(shown, keys);
        free(a);
        free(b);
        conf_free(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(missing_file_gives_defaults, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(values_are_parsed, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(every_error_names_its_line, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(first_error_wins, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dropins_apply_in_lexical_order, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dropin_error_names_the_dropin, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(failed_load_keeps_the_old_config, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dump_reads_back_the_same, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(shipped_config_shows_every_default, tu_setup_tmpdir, tu_teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
