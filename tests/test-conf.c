/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configuration: defaults, every error with its FILE:LINE, drop-in order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-reader.h"
#include "conf.h"
#include "log.h"
#include "testutil.h"
#include "util.h"

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

/* c: from conf_defaults() or an earlier load */
static int load_text(struct conf *c, const char *text, char *err, size_t size) {
        err[0] = '\0';
        return conf_load_string(c, "t.conf", text, err, size);
}

static void expect_text_error(const char *text, const char *want);

static char *dump(const struct conf *c) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(f);
        conf_dump(c, f);
        fclose(f);
        return buf;
}

static void assert_list_equal(const struct conf_list *a, const struct conf_list *b) {
        assert_int_equal(a->n, b->n);
        for (unsigned i = 0; i < a->n; i++)
                assert_string_equal(a->item[i], b->item[i]);
}

/* Field by field, numbers exactly. */
static void assert_conf_equal(const struct conf *a, const struct conf *b) {
        assert_int_equal(a->knob, b->knob);
        assert_int_equal(a->baseline, b->baseline);
        assert_int_equal(a->dry_run, b->dry_run);
        assert_int_equal(a->log_level, b->log_level);
        assert_int_equal(a->system, b->system);
        assert_list_equal(&a->cgroups, &b->cgroups);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->trigger_stall_ms, b->trigger_stall_ms);
        assert_int_equal(a->trigger_window_ms, b->trigger_window_ms);
        assert_true(a->pressure_high == b->pressure_high);
        assert_true(a->pressure_low == b->pressure_low);
        assert_int_equal(a->hold_sec, b->hold_sec);
        assert_int_equal(a->protect_writeback, b->protect_writeback);
        assert_true(a->pool_high == b->pool_high);
        assert_true(a->pool_low == b->pool_low);
        assert_true(a->pool_watch == b->pool_watch);
        assert_int_equal(a->sample_ms, b->sample_ms);
        assert_int_equal(a->min_sample_ms, b->min_sample_ms);
        assert_int_equal(a->lead_sec, b->lead_sec);
        assert_int_equal(a->idle_check_sec, b->idle_check_sec);
        assert_int_equal(a->min_dwell_sec, b->min_dwell_sec);
        assert_int_equal(a->max_per_minute, b->max_per_minute);
        assert_int_equal(a->admin_backoff_sec, b->admin_backoff_sec);
        assert_list_equal(&a->batch_cgroups, &b->batch_cgroups);
        assert_true(a->batch_zswap_max == b->batch_zswap_max);
        assert_int_equal(a->batch_shrinker_at_cap, b->batch_shrinker_at_cap);
        assert_int_equal(a->pool_shrinker, b->pool_shrinker);
}

/* Loading a missing file replaces whatever was there with the defaults. */
static void missing_file_gives_defaults(void **state) {
        struct conf c, d;
        char err[256], path[512];

        conf_defaults(&c);
        assert_int_equal(conf_load_string(&c, "x.conf",
                                          "[Daemon]\nKnob=none\nBaseline=off\nDryRun=yes\nLogLevel=debug\n"
                                          "[Pressure]\nSystem=no\nCgroups=a b\nType=full\nTriggerStallMs=200\n"
                                          "TriggerWindowMs=2000\nHighStallPercent=20\nLowStallPercent=5\nHoldSec=1\nUnits=app.slice\n"
                                          "ProtectWriteback=yes\n"
                                          "[Pool]\nShrinkerNearLimit=yes\nHighPercent=95\nLowPercent=90\nWatchPercent=1\nReleasePercent=92\nSampleMs=50\n"
                                          "MinSampleMs=50\nLeadSec=1\nIdleCheckSec=1\n"
                                          "[Flips]\nMinDwellSec=1\nMaxPerMinute=1\nAdminBackOffSec=5\n"
                                          "[Batch]\nCgroups=c\nZswapMaxPercent=1\nShrinkerAtCap=yes\nUnits=backup@*.service\n"
                                          "IdleCgroups=yes\nMaxCgroups=3\n"
                                          "[Metrics]\nTextfileDirectory=/var/lib/x\nIntervalSec=30\n",
                                          err, sizeof(err)),
                         0);
        conf_defaults(&d);
        char *a = dump(&c), *b = dump(&d);
        /* every key starts away from its default */
        for (char *p = a, *q = b; *p && *q; p = strchr(p, '\n') + 1, q = strchr(q, '\n') + 1) {
                size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
                if (memchr(p, '=', lp))
                        assert_false(lp == lq && memcmp(p, q, lp) == 0);
        }
        free(a);

        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", (const char *) *state);
        assert_int_equal(conf_load(&c, path, err, sizeof(err)), 0);
        assert_conf_equal(&c, &d);
        a = dump(&c);
        assert_string_equal(a, b);
        free(a);
        free(b);
        conf_free(&c);
}

/* Globs and unit patterns are kept as written, with where they were set. */
static void patterns_are_kept(void **state) {
        char err[512];
        struct conf c;

        conf_defaults(&c);
        assert_int_equal(conf_load_string(&c, "p.conf",
                                          "[Batch]\nCgroups=batch.slice kubepods.slice/kubepods-besteffort.slice/*\n"
                                          "Units=backup@*.service build-[0-9]*.scope\nIdleCgroups=yes\nMaxCgroups=200\n"
                                          "[Pressure]\n\nUnits=postgresql.service\n",
                                          err, sizeof(err)),
                         0);
        assert_int_equal(c.batch_cgroups.n, 2);
        assert_string_equal(c.batch_cgroups.item[1], "kubepods.slice/kubepods-besteffort.slice/*");
        assert_string_equal(c.batch_cgroups.where[1], "p.conf:2");
        assert_int_equal(c.batch_units.n, 2);
        assert_string_equal(c.batch_units.item[1], "build-[0-9]*.scope");
        assert_true(c.batch_idle); /* off by default: "yes" is what it reads */
        assert_int_equal(c.batch_max_cgroups, 200);
        assert_int_equal(c.units.n, 1);
        assert_string_equal(c.units.where[0], "p.conf:8");
        conf_free(&c);
        conf_defaults(&c);
        assert_false(c.batch_idle);
        assert_int_equal(c.batch_max_cgroups, 256);
}

static void values_are_parsed(void **state) {
        struct conf c;
        char err[256];

        tu_write(*state, "/zswap-tuned.conf",
                 "# comment\n; comment\n\n[Daemon]\nKnob=shrink_enabled\nBaseline=On\nDryRun=yes\nLogLevel=debug\n"
                 "[Pressure]\nSystem=no\nCgroups=/sys/fs/cgroup/a.slice  b.slice ..hidden/x..y\nType=full\n"
                 "TriggerStallMs=50\nTriggerWindowMs=2000\nHighStallPercent=12.5\nLowStallPercent=0\nHoldSec=0\n"
                 "[Pool]\nHighPercent=90\nLowPercent=60\nWatchPercent=0\nSampleMs=500\nMinSampleMs=500\n"
                 "LeadSec=0\nIdleCheckSec=0\n[Flips]\nMinDwellSec=0\nMaxPerMinute=0\n"
                 "[Metrics]\nTextfileDirectory=/var/lib/prom..textfiles\n");
        assert_int_equal(load(*state, &c, err, sizeof(err)), 0);
        assert_int_equal(c.knob, KNOB_CHOICE_SHRINK_ENABLED);
        assert_int_equal(c.baseline, BASELINE_ON);
        assert_true(c.dry_run);
        assert_int_equal(c.log_level, LOG_DEBUG);
        assert_false(c.system);
        /* dots inside a name are a name, not "..": systemd escapes nothing there */
        assert_int_equal(c.cgroups.n, 3);
        assert_string_equal(c.cgroups.item[0], "/sys/fs/cgroup/a.slice");
        assert_string_equal(c.cgroups.item[1], "b.slice");
        assert_string_equal(c.cgroups.item[2], "..hidden/x..y");
        assert_string_equal(c.metrics_dir, "/var/lib/prom..textfiles");
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
        expect_error(d, "[Pool]\nSampleMs=5\n", 2, "SampleMs=5: expected a time from 10ms to 1min (a bare number is milliseconds; e.g. 500, 500ms, 1.5s)");
        expect_error(d, "[Pool]\nSampleMs=1e3\n", 2, "SampleMs=1e3");
        expect_error(d, "[Pool]\nSampleMs=-1\n", 2, "SampleMs=-1");
        expect_error(d, "[Pool]\nSampleMs=\n", 2, "SampleMs=:");
        expect_error(d, "[Pool]\nSampleMs=99999999999999999999999\n", 2, "SampleMs=");
        expect_error(d, "[Pool]\nHighPercent=101\n", 2, "HighPercent=101: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_error(d, "[Pool]\nHighPercent=0\n", 2, "from 1 to 100");
        expect_error(d, "[Pressure]\nHighStallPercent=ten\n", 2, "HighStallPercent=ten");
        expect_error(d, "[Pressure]\nHighStallPercent=nan\n", 2, "HighStallPercent=nan");
        expect_error(d, "[Pressure]\nCgroups=../etc\n", 2, "must not contain a '..' component");
        expect_error(d, "[Batch]\nCgroups=a.slice b/../../etc\n", 2, "'b/../../etc' must not contain a '..' component");
        expect_error(d, "[Pressure]\nCgroups=/sys/fs/cgroup/..\n", 2, "'..' component");
        /* globs: per component, never the root, init.scope, or outside the mount */
        expect_error(d, "[Batch]\nCgroups=a.slice//b\n", 2, "Cgroups= path 'a.slice//b' must not contain an empty component");
        expect_error(d, "[Batch]\nCgroups=/etc/*\n", 2, "'/etc/*' is absolute but not below /sys/fs/cgroup");
        expect_error(d, "[Batch]\nCgroups=a/[x\n", 2, "'[' without its ']'");
        expect_error(d, "[Batch]\n\nCgroups=/sys/fs/cgroup/\n", 3, "takes the root cgroup; refused");
        expect_error(d, "[Pressure]\nCgroups=*.scope\n", 2, "'*.scope' takes init.scope");
        expect_error(d, "[Batch]\nCgroups=system.slice/a.service *\n", 2, "'*' takes init.scope");
        expect_error(d, "[Batch]\nUnits=backup@*.service a/b.service\n", 2,
                     "Units= unit pattern 'a/b.service' has a character systemd does not allow");
        expect_error(d, "[Pressure]\nUnits=db$.service\n", 2, "Units= unit pattern 'db$.service'");
        expect_error(d, "[Batch]\nMaxCgroups=0\n", 2, "MaxCgroups=0: expected a whole number from 1 to 256");
        expect_error(d, "[Batch]\nIdleCgroups=maybe\n", 2, "IdleCgroups=maybe: expected a boolean");
        expect_error(d, "[Metrics]\nTextfileDirectory=/var/lib/../../etc\n", 2,
                     "TextfileDirectory=/var/lib/../../etc: expected an absolute directory without '..' components");
        /* two keys that contradict each other: reported where the later one was set */
        expect_error(d, "[Pool]\nLowPercent=90\n\nSampleMs=100\n", 2, "LowPercent=90 must be below HighPercent=85");
        expect_error(d, "[Pool]\nLowPercent=50\nHighPercent=50\n", 3, "must be below");
        expect_error(d, "[Pressure]\nHighStallPercent=1\n", 2, "LowStallPercent=2 must be below HighStallPercent=1");
        expect_error(d, "[Pool]\nMinSampleMs=2000\n", 2, "MinSampleMs=2000 must be at most SampleMs=1000");
        expect_error(d, "[Pressure]\nTriggerStallMs=3000\n", 2, "TriggerStallMs=3000 must be at most TriggerWindowMs=1000");
}

/* A file with three bad lines: three errors, each with its FILE:LINE, in
 * line order; and the errors of every drop-in after them. A refused value
 * is not checked against another key (that would be a second error for one
 * mistake). */
static void every_error_is_reported(void **state) {
        const char *d = *state;
        char err[CONF_ERRORS_MAX], want[4096];
        struct conf c;

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nSampleMs=1\nLeadSec=x\nHighPercent=85\n\nHoldSec=30s\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want),
                 "%s/zswap-tuned.conf:2: SampleMs=1: expected a time from 10ms to 1min (a bare number is milliseconds; "
                 "e.g. 500, 500ms, 1.5s)\n"
                 "%s/zswap-tuned.conf:3: LeadSec=x: expected a time from 0 to 1h (a bare number is seconds; e.g. 30, 30s, "
                 "1min 30s)\n"
                 "%s/zswap-tuned.conf:6: unknown key HoldSec= in section [Pool]",
                 d, d, d);
        assert_string_equal(err, want);

        tu_write(d, "/zswap-tuned.conf.d/10-a.conf", "[Pressure]\nHighStallPercent=-1\n[Nope]\nKnob=x\n[Flips]\nMaxPerMinute=3\n");
        tu_write(d, "/zswap-tuned.conf.d/20-b.conf", "[Pool]\nLowPercent=90\njunk\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want),
                 "%s/zswap-tuned.conf:6: unknown key HoldSec= in section [Pool]\n"
                 "%s/zswap-tuned.conf.d/10-a.conf:2: HighStallPercent=-1: expected a percentage from 0 to 100 (e.g. 50 or "
                 "50%%)\n"
                 "%s/zswap-tuned.conf.d/10-a.conf:3: unknown section [Nope] (known: Daemon, Pressure, Pool, Flips, Batch, "
                 "Metrics); its keys are not read\n"
                 "%s/zswap-tuned.conf.d/20-b.conf:3: syntax error: expected [Section], Key=value or a comment\n"
                 "%s/zswap-tuned.conf.d/20-b.conf:2: [Pool] LowPercent=90 must be below HighPercent=85",
                 d, d, d, d, d);
        assert_non_null(strstr(err, want));
        assert_int_equal(strncmp(err, d, strlen(d)), 0);

        /* more than fit: the first ones, and how many more */
        char text[8192] = "[Pool]\n", small[300];
        for (int i = 0; i < 40; i++)
                strcat(text, "Nope=1\n");
        assert_int_equal(load_text(&c, text, small, sizeof(small)), -EINVAL);
        assert_int_equal(strncmp(small, "t.conf:2: unknown key Nope= in section [Pool]\nt.conf:3: ", 56), 0);
        assert_non_null(strstr(small, " more errors not shown)"));
        assert_true(strlen(small) < sizeof(small) - 1);
        conf_free(&c);
}

/* --config=FILE names a file: missing, it is an error. The default path
 * missing is the built-in defaults. */
static void missing_given_file_is_an_error(void **state) {
        const char *d = *state;
        char err[2048], path[512], want[2048];
        struct conf c, dflt;

        snprintf(path, sizeof(path), "%s/typo.conf", d);
        conf_defaults(&c);
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pool]\nSampleMs=300\n", err, sizeof(err)), 0);
        assert_int_equal(conf_load_given(&c, path, err, sizeof(err)), -ENOENT);
        snprintf(want, sizeof(want), "cannot read %s: No such file or directory", path);
        assert_string_equal(err, want);
        assert_int_equal(c.sample_ms, 300); /* untouched */
        /* its drop-ins are still read, and their errors said too */
        tu_write(d, "/typo.conf.d/10-a.conf", "[Pool]\nSampleMs=1s\nBogus=1\n");
        assert_int_equal(conf_load_given(&c, path, err, sizeof(err)), -ENOENT);
        snprintf(want, sizeof(want), "cannot read %s: No such file or directory\n%s.d/10-a.conf:3: unknown key Bogus= in "
                 "section [Pool]", path, path);
        assert_string_equal(err, want);

        assert_int_equal(conf_load(&c, path, err, sizeof(err)), -EINVAL); /* the drop-in's error */
        tu_write(d, "/typo.conf.d/10-a.conf", "[Pool]\nSampleMs=1s\n");
        assert_int_equal(conf_load(&c, path, err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 1000);
        tu_rm_rf(strcat(path, ".d"));
        path[strlen(path) - 2] = '\0';
        assert_int_equal(conf_load(&c, path, err, sizeof(err)), 0);
        conf_defaults(&dflt);
        assert_conf_equal(&c, &dflt);
        conf_free(&c);
}

static uint64_t time_ok(const char *s, uint64_t unit) {
        uint64_t u = 12345;
        int r = parse_time(s, unit, &u);

        if (r != 0)
                fail_msg("parse_time(\"%s\") = %d", s, r);
        return u;
}

/* systemd's time syntax (parse_sec()), a bare number in the key's unit. */
static void times_take_units(void **state) {
        static const char *const bad[] = { "", " ", "-1", "-1s", "+5s", "s", "5x", "5sx", "5secs", "5 x", "1min 30",
                                           "30 1min", "1..5s", ".5s", "5.s", "1e3", "0x10", "inf", "infinity", "5s;",
                                           "5s,1s", "1M", "1y", "5\xc3\xa9", "5s\xc3\xa9", "5m\xce\xbc" };
        uint64_t u;
        char buf[32];

        assert_true(time_ok("30", USEC_PER_SEC) == 30 * USEC_PER_SEC);
        assert_true(time_ok("30", USEC_PER_MSEC) == 30 * USEC_PER_MSEC);
        assert_true(time_ok("30s", USEC_PER_MSEC) == 30 * USEC_PER_SEC);
        assert_true(time_ok("500ms", USEC_PER_SEC) == 500 * USEC_PER_MSEC);
        assert_true(time_ok("500msec", USEC_PER_SEC) == 500 * USEC_PER_MSEC);
        assert_true(time_ok("1min", USEC_PER_SEC) == 60 * USEC_PER_SEC);
        assert_true(time_ok("1m", USEC_PER_SEC) == 60 * USEC_PER_SEC);
        assert_true(time_ok("1min 30s", USEC_PER_SEC) == 90 * USEC_PER_SEC);
        assert_true(time_ok("1min30s", USEC_PER_SEC) == 90 * USEC_PER_SEC);
        assert_true(time_ok("1 min  30 sec", USEC_PER_SEC) == 90 * USEC_PER_SEC);
        assert_true(time_ok("2h", USEC_PER_SEC) == 7200 * USEC_PER_SEC);
        assert_true(time_ok("1hr 1minute 1second", USEC_PER_SEC) == 3661 * USEC_PER_SEC);
        assert_true(time_ok("1d", USEC_PER_SEC) == 86400 * USEC_PER_SEC);
        assert_true(time_ok("2weeks", USEC_PER_SEC) == 14 * 86400 * USEC_PER_SEC);
        assert_true(time_ok("1.5s", USEC_PER_MSEC) == 1500 * USEC_PER_MSEC);
        assert_true(time_ok("0.5min", USEC_PER_SEC) == 30 * USEC_PER_SEC);
        assert_true(time_ok("1.25", USEC_PER_SEC) == 1250 * USEC_PER_MSEC); /* a bare fraction: of the unit */
        assert_true(time_ok("7us", USEC_PER_SEC) == 7);
        assert_true(time_ok("7\xc2\xb5s", USEC_PER_SEC) == 7);
        assert_true(time_ok("1.0000009s", USEC_PER_SEC) == USEC_PER_SEC); /* below a microsecond: dropped */
        assert_true(time_ok("0", USEC_PER_SEC) == 0);
        assert_true(time_ok("0ms", USEC_PER_SEC) == 0);
        assert_true(time_ok("007s", USEC_PER_SEC) == 7 * USEC_PER_SEC);
        assert_true(time_ok("18446744073709551615us", USEC_PER_SEC) == UINT64_MAX);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (parse_time(bad[i], USEC_PER_SEC, &u) != -EINVAL)
                        fail_msg("parse_time(\"%s\") is not -EINVAL", bad[i]);
        /* overflow, never a wrapped number */
        assert_int_equal(parse_time("18446744073709551616us", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("18446744073709552s", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("18446744073709551615", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("99999999999999999999999999ms", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("18446744073709551615us 1us", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("30500569w", USEC_PER_SEC, &u), -ERANGE);
        assert_int_equal(parse_time("18446744073709.551616s", USEC_PER_SEC, &u), -ERANGE);

        assert_string_equal(format_time(buf, sizeof(buf), 0), "0");
        assert_string_equal(format_time(buf, sizeof(buf), 60000 * USEC_PER_MSEC), "1min");
        assert_string_equal(format_time(buf, sizeof(buf), 1500 * USEC_PER_MSEC), "1500ms");
        assert_string_equal(format_time(buf, sizeof(buf), 86400 * USEC_PER_SEC), "1d");
        assert_string_equal(format_time(buf, sizeof(buf), 7), "7us");
}

/* The time keys with units: the value in the key's unit; a bare number as
 * before; what does not fit the unit or the range is refused, saying the
 * accepted form. */
static void time_keys_take_units(void **state) {
        char err[1024];
        struct conf c;

        conf_defaults(&c);
        assert_int_equal(load_text(&c, "[Pressure]\nHoldSec=30s\nTriggerStallMs=0.05s\nTriggerWindowMs=2s\n"
                                        "[Pool]\nSampleMs=50ms\nMinSampleMs=10ms\nLeadSec=1min 30s\nIdleCheckSec=2h\n"
                                        "[Flips]\nMinDwellSec=1min\nAdminBackOffSec=1h\n[Metrics]\nIntervalSec=30000ms\n",
                                   err, sizeof(err)),
                         0);
        assert_int_equal(c.hold_sec, 30);
        assert_int_equal(c.trigger_stall_ms, 50);
        assert_int_equal(c.trigger_window_ms, 2000);
        assert_int_equal(c.sample_ms, 50);
        assert_int_equal(c.min_sample_ms, 10);
        assert_int_equal(c.lead_sec, 90);
        assert_int_equal(c.idle_check_sec, 7200);
        assert_int_equal(c.min_dwell_sec, 60);
        assert_int_equal(c.admin_backoff_sec, 3600);
        assert_int_equal(c.metrics_interval_sec, 30);
        /* the dump says it in the key's unit: it reads back the same */
        char *a = dump(&c);
        assert_non_null(strstr(a, "\nHoldSec=30\n"));
        assert_non_null(strstr(a, "\nSampleMs=50\n"));
        assert_non_null(strstr(a, "\nLeadSec=90\n"));
        free(a);
        assert_int_equal(load_text(&c, "[Pressure]\nHoldSec=30\n[Pool]\nSampleMs=1000\n", err, sizeof(err)), 0);
        assert_int_equal(c.hold_sec, 30);
        assert_int_equal(c.sample_ms, 1000);
        assert_int_equal(load_text(&c, "[Pool]\nSampleMs=1min\n[Flips]\nAdminBackOffSec=1d\n", err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 60000);
        assert_int_equal(c.admin_backoff_sec, 86400);
        conf_free(&c);

        expect_text_error("[Pressure]\nHoldSec=1500ms\n", "t.conf:2: HoldSec=1500ms: not a whole number of seconds");
        expect_text_error("[Pool]\nSampleMs=10.5ms\n", "t.conf:2: SampleMs=10.5ms: not a whole number of milliseconds");
        expect_text_error("[Pressure]\nHoldSec=-30s\n",
                          "t.conf:2: HoldSec=-30s: expected a time from 0 to 1d (a bare number is seconds; e.g. 30, 30s, "
                          "1min 30s)");
        expect_text_error("[Pressure]\nHoldSec=25h\n",
                          "t.conf:2: HoldSec=25h: expected a time from 0 to 1d (a bare number is seconds; e.g. 30, 30s, "
                          "1min 30s)");
        expect_text_error("[Pressure]\nHoldSec=30 s x\n",
                          "t.conf:2: HoldSec=30 s x: expected a time from 0 to 1d (a bare number is seconds; e.g. 30, 30s, "
                          "1min 30s)");
        expect_text_error("[Pool]\nSampleMs=5ms\n",
                          "t.conf:2: SampleMs=5ms: expected a time from 10ms to 1min (a bare number is milliseconds; e.g. "
                          "500, 500ms, 1.5s)");
        expect_text_error("[Pool]\nSampleMs=99999999999999999999999h\n",
                          "t.conf:2: SampleMs=99999999999999999999999h: expected a time from 10ms to 1min (a bare number is "
                          "milliseconds; e.g. 500, 500ms, 1.5s)");
        expect_text_error("[Pressure]\nTriggerWindowMs=11s\n",
                          "t.conf:2: TriggerWindowMs=11s: expected a time from 500ms to 10s (a bare number is milliseconds; "
                          "e.g. 500, 500ms, 1.5s)");
        expect_text_error("[Metrics]\nIntervalSec=0s\n",
                          "t.conf:2: IntervalSec=0s: expected a time from 1s to 1h (a bare number is seconds; e.g. 30, 30s, "
                          "1min 30s)");
        /* cross-key checks see the values, whatever the units */
        expect_text_error("[Pool]\nSampleMs=0.05s\n",
                          "t.conf:2: [Pool] MinSampleMs=100 must be at most SampleMs=50 (MinSampleMs is at its built-in "
                          "default; set it too)");
}

/* "85" and "85%" alike; nothing else after the number. */
static void percents_take_a_percent_sign(void **state) {
        static const char *const bad[] = { "%", "85 %", "85%%", "%85", "+5%", "85% ", " 85%", "5.%", ".5%",
                                           "85‰", "1e2%", "nan%" };
        char err[512];
        struct conf c;
        double v;

        assert_int_equal(parse_percent("85", &v), 0);
        assert_true(v == 85);
        assert_int_equal(parse_percent("85%", &v), 0);
        assert_true(v == 85);
        assert_int_equal(parse_percent("12.5%", &v), 0);
        assert_true(v == 12.5);
        assert_int_equal(parse_percent("0%", &v), 0);
        assert_true(v == 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (parse_percent(bad[i], &v) >= 0)
                        fail_msg("parse_percent(\"%s\") took it as %g", bad[i], v);

        conf_defaults(&c);
        assert_int_equal(load_text(&c, "[Pressure]\nHighStallPercent=12.5%\nLowStallPercent=1%\n[Pool]\nHighPercent=85%\n"
                                        "LowPercent=70\nWatchPercent=50%\nReleasePercent=80%\n[Batch]\nZswapMaxPercent=0%\n",
                                   err, sizeof(err)),
                         0);
        assert_true(c.pressure_high == 12.5 && c.pressure_low == 1 && c.pool_high == 85 && c.pool_low == 70);
        assert_true(c.pool_watch == 50 && c.pool_release == 80 && c.batch_zswap_max == 0);
        conf_free(&c);
        expect_text_error("[Pool]\nHighPercent=101%\n",
                          "t.conf:2: HighPercent=101%: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nHighPercent=85 %\n",
                          "t.conf:2: HighPercent=85 %: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nReleasePercent=x\n",
                          "t.conf:2: ReleasePercent=x: expected a percentage from 0 to 100 (e.g. 50 or 50%), or nothing");
}

static char notices[1024];
static void notice_hook(int prio, const char *message, const char *const *fields, void *userdata) {
        (void) fields;
        (void) userdata;
        if (prio == LOG_NOTICE)
                snprintf(notices + strlen(notices), sizeof(notices) - strlen(notices), "%s\n", message);
}

/* [Pressure] HighPercent= and LowPercent= (stall time) are now
 * HighStallPercent= and LowStallPercent=: the old names are still read, with
 * a notice once a load, at the first place each is used. */
static void renamed_keys_are_read_with_a_notice(void **state) {
        char err[512];
        struct conf c;

        conf_defaults(&c);
        notices[0] = '\0';
        log_set_hook(notice_hook, NULL);
        assert_int_equal(load_text(&c, "[Pressure]\nHighPercent=20\nLowPercent=5\nHighPercent=30\n[Pool]\nHighPercent=90\n",
                                   err, sizeof(err)),
                         0);
        log_set_hook(NULL, NULL);
        assert_string_equal(notices,
                            "t.conf:2: [Pressure] HighPercent= is renamed: use HighStallPercent= (the old name is still read)\n"
                            "t.conf:3: [Pressure] LowPercent= is renamed: use LowStallPercent= (the old name is still read)\n");
        assert_true(c.pressure_high == 30 && c.pressure_low == 5 && c.pool_high == 90);
        char *a = dump(&c);
        assert_non_null(strstr(a, "[Pressure]\nSystem=yes\nCgroups=\nType=some\nTriggerStallMs=100\nTriggerWindowMs=1000\n"
                                  "HighStallPercent=30\nLowStallPercent=5\n"));
        assert_null(strstr(a, "\nLowPercent=5\n"));
        free(a);
        /* an error under the old name is said with the name written */
        expect_text_error("[Pressure]\nLowPercent=x\n", "t.conf:2: LowStallPercent=x: expected a percentage from 0 to 100 "
                                                           "(e.g. 50 or 50%)");
        conf_free(&c);
}

/* An empty ReleasePercent= is its default: HighPercent less 5, whatever
 * HighPercent is; so the shipped file's line uncommented changes nothing. */
static void empty_release_follows_high(void **state) {
        const char *d = *state;
        char err[512];
        struct conf c;

        conf_defaults(&c);
        assert_int_equal(load_text(&c, "[Pool]\nHighPercent=80\nReleasePercent=\n", err, sizeof(err)), 0);
        assert_float_equal(c.pool_release, 75, 0);
        assert_int_equal(load_text(&c, "[Pool]\nReleasePercent= ; default: 5 below HighPercent\nHighPercent=60\n"
                                        "LowPercent=50\n",
                                   err, sizeof(err)),
                         0);
        assert_float_equal(c.pool_release, 55, 0);
        char *a = dump(&c);
        assert_non_null(strstr(a, "\nReleasePercent= ; 5 below HighPercent: 55\n"));
        free(a);
        /* set in the file, emptied by a drop-in: follows again */
        tu_write(d, "/zswap-tuned.conf", "[Pool]\nReleasePercent=60\nHighPercent=70\nLowPercent=50\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        assert_float_equal(c.pool_release, 60, 0);
        a = dump(&c);
        assert_non_null(strstr(a, "\nReleasePercent=60\n"));
        free(a);
        tu_write(d, "/zswap-tuned.conf.d/50-x.conf", "[Pool]\nReleasePercent=\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        assert_float_equal(c.pool_release, 65, 0);
        conf_free(&c);
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

/* ReleasePercent follows HighPercent unless it is set, so a HighPercent that
 * was valid before it had a default still is; a clash with a key's built-in
 * default says which key that is. */
static void release_follows_high_unless_set(void **state) {
        const char *d = *state;
        struct conf c;
        char err[1024], want[512];

        conf_defaults(&c);
        assert_float_equal(c.pool_release, 80, 0);
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pool]\nHighPercent=75\n", err, sizeof(err)), 0);
        assert_float_equal(c.pool_release, 70, 0);
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pool]\nHighPercent=4\nLowPercent=1\nWatchPercent=1\n", err,
                                          sizeof(err)),
                         0);
        assert_float_equal(c.pool_release, 0, 0); /* nothing left below: off */
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pool]\nReleasePercent=60\nHighPercent=95\n", err, sizeof(err)),
                         0);
        assert_float_equal(c.pool_release, 60, 0);
        assert_int_equal(conf_load_string(&c, "t.conf", "[Pool]\nReleasePercent=0\n", err, sizeof(err)), 0);
        assert_float_equal(c.pool_release, 0, 0);

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nHighPercent=65\n");
        assert_int_not_equal(load(d, &c, err, sizeof(err)), 0);
        snprintf(want, sizeof(want),
                 "%s/zswap-tuned.conf:2: [Pool] LowPercent=70 must be below HighPercent=65 (LowPercent is at its "
                 "built-in default; set it too)",
                 d);
        assert_string_equal(err, want);
        tu_write(d, "/zswap-tuned.conf", "[Pool]\nReleasePercent=90\n");
        assert_int_not_equal(load(d, &c, err, sizeof(err)), 0);
        snprintf(want, sizeof(want),
                 "%s/zswap-tuned.conf:2: [Pool] ReleasePercent=90 must be below HighPercent=85 (HighPercent is at its "
                 "built-in default; set it too)",
                 d);
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

        tu_write(d, "/zswap-tuned.conf", "[Pressure]\nCgroups=a b\nHighStallPercent=12.5\n[Daemon]\nBaseline=off\n");
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        f = open_memstream(&buf, &len);
        conf_dump(&c, f);
        fclose(f);
        assert_non_null(strstr(buf, "[Pressure]\nSystem=yes\nCgroups=a b\nType=some\n"));
        assert_non_null(strstr(buf, "HighStallPercent=12.5\n"));
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

static char *repeat(char ch, size_t n) {
        char *s = malloc(n + 1);

        assert_non_null(s);
        memset(s, ch, n);
        s[n] = '\0';
        return s;
}


/* Text with a long line (at line): read whole where inih's buffer can grow
 * (true), else an error for that line, never a split. */
static bool load_long(struct conf *c, const char *text, unsigned line) {
        char err[512], want[64];
        int r = load_text(c, text, err, sizeof(err));

        if (CONF_INIH_GROWS) {
                if (r != 0)
                        fail_msg("%s", err);
                return true;
        }
        snprintf(want, sizeof(want), "t.conf:%u: line too long (", line);
        assert_int_not_equal(r, 0);
        assert_memory_equal(err, want, strlen(want));
        return false;
}

/* Lines longer than inih's 200-byte default are read whole. */
static void long_lines_are_whole(void **state) {
        char text[4096], err[512], path[6][64];
        struct conf c;
        char *pad = repeat('x', 198);

        conf_defaults(&c);
        int n = snprintf(text, sizeof(text), "[Pressure]\nCgroups=");
        for (int i = 0; i < 6; i++) {
                snprintf(path[i], sizeof(path[i]), "/sys/fs/cgroup/%d.slice", i);
                memset(path[i] + strlen(path[i]), 'p', 60 - strlen(path[i]));
                path[i][60] = '\0';
                n += snprintf(text + n, sizeof(text) - (size_t) n, "%s%s", i ? " " : "", path[i]);
        }
        snprintf(text + n, sizeof(text) - (size_t) n, "\n[Pool]\nSampleMs=500\n");
        if (load_long(&c, text, 2)) {
                assert_int_equal(c.cgroups.n, 6);
                for (int i = 0; i < 6; i++)
                        assert_string_equal(c.cgroups.item[i], path[i]);
                assert_int_equal(c.sample_ms, 500);
        }

        /* a comment stays a comment however long */
        snprintf(text, sizeof(text), "[Daemon]\n#%sDryRun=yes\n", pad);
        if (load_long(&c, text, 2))
                assert_false(c.dry_run);
        snprintf(text, sizeof(text), "[Pressure]\nCgroups=a %s/%sz\n", pad, pad);
        if (load_long(&c, text, 2)) {
                assert_int_equal(c.cgroups.n, 2);
                assert_int_equal(strlen(c.cgroups.item[1]), 398);
        }

        /* and later errors name the right line */
        snprintf(text, sizeof(text), "[Pressure]\n#%s%s\nCgroups=%s\n\n[Pool]\nSampleMs=5\n", pad, pad, pad);
        assert_int_not_equal(load_text(&c, text, err, sizeof(err)), 0);
        assert_non_null(strstr(err, CONF_INIH_GROWS ? "t.conf:6: SampleMs=5:" : "t.conf:2: line too long ("));
        conf_free(&c);
        free(pad);
}

/* Past the bound a line is an error, never two lines. */
static void too_long_lines_are_errors(void **state) {
        char err[512];
        struct conf c;
        char *pad = repeat('#', 65536), *text = malloc(65536 + 64);

        conf_defaults(&c);
        assert_non_null(text);
        snprintf(text, 65536 + 64, "[Daemon]\n%s\n", pad); /* at the bound: fine */
        load_long(&c, text, 2);
        snprintf(text, 65536 + 64, "[Daemon]\n%sDryRun=yes\n", pad);
        assert_int_not_equal(load_text(&c, text, err, sizeof(err)), 0);
        assert_string_equal(err, CONF_INIH_GROWS ? "t.conf:2: line too long (65546 bytes, at most 65536)"
                                                 : "t.conf:2: line too long (65546 bytes, at most 198)");
        snprintf(text, 65536 + 64, "[Daemon]\n%s#", pad); /* the last line, without a newline */
        assert_int_not_equal(load_text(&c, text, err, sizeof(err)), 0);
        assert_string_equal(err, CONF_INIH_GROWS ? "t.conf:2: line too long (65537 bytes, at most 65536)"
                                                 : "t.conf:2: line too long (65537 bytes, at most 198)");
        assert_false(c.dry_run);
        conf_free(&c);
        free(pad);
        free(text);
}

/* An indented line is a line of its own, not the continuation of a value. */
static void indented_lines_are_not_continuations(void **state) {
        char err[512];
        struct conf c;

        conf_defaults(&c);
        assert_int_not_equal(load_text(&c, "[Pressure]\nCgroups=a.slice\n  b.slice\n", err, sizeof(err)), 0);
        assert_non_null(strstr(err, "t.conf:3: syntax error"));
        assert_int_not_equal(load_text(&c, "[Pressure]\nCgroups=a.slice\n\tb.slice=1\n", err, sizeof(err)), 0);
        assert_non_null(strstr(err, "t.conf:3: unknown key b.slice= in section [Pressure]"));
        assert_int_equal(load_text(&c, "[Pressure]\nCgroups=a.slice\n  [Pool]\n  HighPercent=90\n", err, sizeof(err)), 0);
        assert_int_equal(c.cgroups.n, 1);
        assert_string_equal(c.cgroups.item[0], "a.slice");
        assert_float_equal(c.pool_high, 90, 0);
        assert_int_equal(load_text(&c, "\xef\xbb\xbf[Pool]\r\n \tHighPercent = 91 ; a comment\r\n", err, sizeof(err)), 0);
        assert_float_equal(c.pool_high, 91, 0);
        conf_free(&c);
}

static void expect_text_error(const char *text, const char *want) {
        char err[512];
        struct conf c;

        conf_defaults(&c);
        if (load_text(&c, text, err, sizeof(err)) == 0 || strcmp(err, want) != 0)
                fail_msg("for:\n%s\nexpected \"%s\", got \"%s\"", text, want, err);
        conf_free(&c);
}

static void section_headers_are_exact(void **state) {
        char err[512];
        struct conf c;

        conf_defaults(&c);
        expect_text_error("[Pressure]junk\nHighPercent=5\n", "t.conf:1: text after the section header [Pressure]");
        expect_text_error("[Pool];x\n", "t.conf:1: text after the section header [Pool]");
        expect_text_error("[Pool] # x\n", "t.conf:1: text after the section header [Pool]");
        expect_text_error("[Pool]]\n", "t.conf:1: text after the section header [Pool]");
        expect_text_error("[ Pool ]\n", "t.conf:1: unknown section [ Pool ] (known: Daemon, Pressure, Pool, Flips, Batch, Metrics); its keys are not read");
        expect_text_error("[pool]\n", "t.conf:1: unknown section [pool] (known: Daemon, Pressure, Pool, Flips, Batch, Metrics); its keys are not read");
        expect_text_error("[Pressure\nHighPercent=5\n", "t.conf:1: section header without closing ']'");
        expect_text_error("[Pool]\nHighPercent:90\n", "t.conf:2: syntax error: expected [Section], Key=value or a comment (not Key:value)");
        expect_text_error("[Pool]\nHighPercent ;=90\n", "t.conf:2: syntax error: expected [Section], Key=value or a comment");
        /* every error in the file, in line order, whoever finds it */
        expect_text_error("[Pool]\njunk\n[Nope]\n", "t.conf:2: syntax error: expected [Section], Key=value or a comment\n"
                          "t.conf:3: unknown section [Nope] (known: Daemon, Pressure, Pool, Flips, Batch, Metrics); its keys are "
                          "not read");
        expect_text_error("[Pool]\nSampleMs=1\njunk\n", "t.conf:2: SampleMs=1: expected a time from 10ms to 1min (a bare number is milliseconds; e.g. 500, 500ms, 1.5s)\n"
                          "t.conf:3: syntax error: expected [Section], Key=value or a comment");
        assert_int_equal(load_text(&c, "[Pool]  ; the pool\n[Pool]\t\nHighPercent=90 ;x\n", err, sizeof(err)), 0);
        assert_float_equal(c.pool_high, 90, 0);
        conf_free(&c);
}

static void nul_bytes_are_errors(void **state) {
        const char *d = *state;
        char err[512], want[512];
        struct conf c;
        FILE *f;

        snprintf(want, sizeof(want), "%s/zswap-tuned.conf", d);
        f = fopen(want, "we");
        assert_non_null(f);
        fwrite("[Daemon]\nDryRun=no\0yes\n", 1, 23, f);
        fclose(f);
        assert_int_not_equal(load(d, &c, err, sizeof(err)), 0);
        strncat(want, ":2: NUL byte in the line", sizeof(want) - strlen(want) - 1);
        assert_string_equal(err, want);
        conf_free(&c);
}

static void numbers_are_plain_decimals(void **state) {
        static const char *const bad_double[] = { "", "-", " 5", "5 ", "+5", "5.", ".5", "0x10", "1e2", "1E2",
                                                  "inf", "nan", "infinity", "1.2.3", "--1", "1,5", "٥" };
        static const char *const bad_u64[] = { "", " 5", "5 ", "+5", "-1", "-0", "5.0", "0x10", "1e2", "inf",
                                               "18446744073709551616" };
        uint64_t u;
        double v;

        for (size_t i = 0; i < sizeof(bad_double) / sizeof(*bad_double); i++)
                if (parse_double(bad_double[i], &v) >= 0)
                        fail_msg("parse_double(\"%s\") took it as %g", bad_double[i], v);
        for (size_t i = 0; i < sizeof(bad_u64) / sizeof(*bad_u64); i++)
                if (parse_u64(bad_u64[i], &u) >= 0)
                        fail_msg("parse_u64(\"%s\") took it as %ju", bad_u64[i], (uintmax_t) u);
        assert_int_equal(parse_double("12.5", &v), 0);
        assert_true(v == 12.5);
        assert_int_equal(parse_double("-1", &v), 0);
        assert_true(v == -1);
        assert_int_equal(parse_double("-0", &v), 0);
        assert_true(v == 0 && !signbit(v));
        assert_int_equal(parse_double("007.250", &v), 0);
        assert_true(v == 7.25);
        assert_int_equal(parse_u64("0", &u), 0);
        assert_true(u == 0);
        assert_int_equal(parse_u64("18446744073709551615", &u), 0);
        assert_true(u == UINT64_MAX);

        expect_text_error("[Pool]\nHighPercent=1e1\n", "t.conf:2: HighPercent=1e1: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nHighPercent=0x10\n", "t.conf:2: HighPercent=0x10: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nHighPercent=.5\n", "t.conf:2: HighPercent=.5: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nHighPercent=50.\n", "t.conf:2: HighPercent=50.: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nHighPercent=+50\n", "t.conf:2: HighPercent=+50: expected a percentage from 1 to 100 (e.g. 50 or 50%)");
        expect_text_error("[Pool]\nSampleMs=+500\n", "t.conf:2: SampleMs=+500: expected a time from 10ms to 1min (a bare number is milliseconds; e.g. 500, 500ms, 1.5s)");
}

static void admin_backoff(void **state) {
        static const char *const bad[] = { "86401", "-1", "inf", "forever", "1e3", "", "infinity s" };
        char text[128], err[512], want[256];
        struct conf c;

        conf_defaults(&c);
        assert_int_equal(c.admin_backoff_sec, CONF_INFINITY);
        assert_int_equal(load_text(&c, "[Flips]\nAdminBackOffSec=0\n", err, sizeof(err)), 0);
        assert_int_equal(c.admin_backoff_sec, 0);
        assert_int_equal(load_text(&c, "[Flips]\nAdminBackOffSec=86400\n", err, sizeof(err)), 0);
        assert_int_equal(c.admin_backoff_sec, 86400);
        assert_int_equal(load_text(&c, "[Flips]\nAdminBackOffSec=5\nAdminBackOffSec=InFiniTy\n", err, sizeof(err)), 0);
        assert_int_equal(c.admin_backoff_sec, CONF_INFINITY);
        char *a = dump(&c);
        assert_non_null(strstr(a, "[Flips]\nMinDwellSec=10\nMaxPerMinute=6\nAdminBackOffSec=infinity\n"));
        free(a);
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                snprintf(text, sizeof(text), "[Flips]\nAdminBackOffSec=%s\n", bad[i]);
                snprintf(want, sizeof(want), "t.conf:2: AdminBackOffSec=%s: expected a time from 0 to 1d or infinity (a bare number is seconds; e.g. 30, 30s, 1min 30s)", bad[i]);
                expect_text_error(text, want);
        }
        conf_free(&c);
}

/* conf_dump's output reads back to the same configuration, and dumps the same. */
static void dump_round_trips(void **state) {
        static const char *const configs[] = {
                "",
                "[Pool]\nLowPercent=84.9999999\n",
                "[Pool]\nHighPercent=99.99999999999999\nLowPercent=99.9999999999999\nWatchPercent=0.00001\n",
                "[Pressure]\nHighStallPercent=33.333333333333336\nLowStallPercent=0.1\n[Batch]\nZswapMaxPercent=0.000000000000000000001\n",
                CONF_INIH_GROWS ? /* below the smallest double: 0 */
                "[Pressure]\nLowStallPercent=0.0000000000000000000000000000000000000000000000000000000000000000000"
                "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001\n"
                : "[Pressure]\nLowStallPercent=0.000000000000000000000000000000000000000000000000000000000000000001\n",
                "[Daemon]\nKnob=shrink_enabled\nBaseline=on\nDryRun=yes\nLogLevel=err\n[Pressure]\nSystem=no\n"
                "Cgroups=;a b/c:d a=b\nType=full\n[Flips]\nAdminBackOffSec=0\n[Batch]\nCgroups=x y\n",
                "[Flips]\nAdminBackOffSec=86400\nMaxPerMinute=600\n[Pool]\nSampleMs=60000\nMinSampleMs=60000\n",
        };
        char err[512];

        for (size_t i = 0; i < sizeof(configs) / sizeof(*configs); i++) {
                struct conf a, b;
                char *ta, *tb;

                conf_defaults(&a);
                conf_defaults(&b);
                if (load_text(&a, configs[i], err, sizeof(err)) != 0)
                        fail_msg("config %zu: %s", i, err);
                ta = dump(&a);
                if (load_text(&b, ta, err, sizeof(err)) != 0)
                        fail_msg("config %zu's dump does not load: %s\n%s", i, err, ta);
                tb = dump(&b);
                assert_string_equal(ta, tb);
                assert_conf_equal(&a, &b);
                for (const char *p = ta; (p = strstr(p, "Percent=")); p += 8) { /* never an exponent */
                        const char *v = p + 8;
                        if (strncmp(v, " ; ", 3) == 0) /* an empty ReleasePercent=: what it follows */
                                v += strcspn(v, ":") + 1;
                        assert_true(strcspn(v, "eE") > strcspn(v, "\n"));
                }
                free(ta);
                free(tb);
                conf_free(&a);
                conf_free(&b);
        }
}

static void load_string_is_the_main_file_alone(void **state) {
        const char *d = *state;
        char err[512], name[512];
        struct conf c;

        tu_write(d, "/zswap-tuned.conf.d/50-x.conf", "[Pool]\nSampleMs=300\n");
        snprintf(name, sizeof(name), "%s/zswap-tuned.conf", d);
        conf_defaults(&c);
        assert_int_equal(conf_load_string(&c, name, "[Pool]\nMinSampleMs=200\n", err, sizeof(err)), 0);
        assert_int_equal(c.min_sample_ms, 200);
        assert_int_equal(c.sample_ms, 1000); /* no drop-ins */
        assert_int_equal(conf_load_string(&c, name, "[Pool]\n\nSampleMs=x\n", err, sizeof(err)), -EINVAL);
        assert_int_equal(c.min_sample_ms, 200); /* untouched on error */
        strncat(name, ":3: SampleMs=x:", sizeof(name) - strlen(name) - 1);
        assert_non_null(strstr(err, name));
        conf_free(&c);
}

/* what: the message after "DFILE: "; NULL: "cannot read DFILE: ENOENT's". */
static void expect_file_error(const char *d, const char *file, const char *what) {
        char err[1024], want[1024];
        struct conf c;

        alarm(10); /* a FIFO or /dev/zero used to hang here */
        int r = load(d, &c, err, sizeof(err));
        alarm(0);
        if (r == 0)
                fail_msg("%s%s: loaded", d, file);
        if (what)
                snprintf(want, sizeof(want), "%s%s: %s", d, file, what);
        else
                snprintf(want, sizeof(want), "cannot read %s%s: No such file or directory", d, file);
        assert_string_equal(err, want);
        conf_free(&c);
}

static void only_regular_files_are_read(void **state) {
        const char *d = *state;
        char path[512], err[512];
        struct conf c;

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nSampleMs=300\n");
        tu_write(d, "/zswap-tuned.conf.d/10-a.conf", "[Pool]\nMinSampleMs=200\n");
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf.d/50-x.conf", d);

        assert_int_equal(mkfifo(path, 0600), 0);
        expect_file_error(d, "/zswap-tuned.conf.d/50-x.conf", "not a regular file");
        unlink(path);
        assert_int_equal(symlink("/dev/zero", path), 0);
        expect_file_error(d, "/zswap-tuned.conf.d/50-x.conf", "not a regular file");
        unlink(path);
        assert_int_equal(mkdir(path, 0755), 0);
        expect_file_error(d, "/zswap-tuned.conf.d/50-x.conf", "not a regular file");
        rmdir(path);
        assert_int_equal(symlink("nowhere", path), 0);
        expect_file_error(d, "/zswap-tuned.conf.d/50-x.conf", NULL);
        unlink(path);

        /* a drop-in linked to /dev/null is empty: it masks one of that name */
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf.d/10-a.conf", d);
        unlink(path);
        assert_int_equal(symlink("/dev/null", path), 0);
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 300);
        assert_int_equal(c.min_sample_ms, 100);
        assert_int_equal(conf_load(&c, "/dev/null", err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 1000);

        /* too large */
        char *big = repeat('#', 1024 * 1024);
        size_t line = CONF_INIH_GROWS ? 65536 : 128;
        for (size_t i = line - 1; i < 1024 * 1024; i += line)
                big[i] = '\n';
        tu_write(d, "/zswap-tuned.conf.d/20-big.conf", "%s", big);
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        tu_write(d, "/zswap-tuned.conf.d/20-big.conf", "%s\n", big);
        expect_file_error(d, "/zswap-tuned.conf.d/20-big.conf", "too large (1048577 bytes, at most 1048576)");
        free(big);
        conf_free(&c);
}

static void many_dropins_are_all_read(void **state) {
        const char *d = *state;
        char name[64], err[512];
        struct conf c;

        for (int i = 0; i < 100; i++) {
                snprintf(name, sizeof(name), "/zswap-tuned.conf.d/%03d.conf", i);
                tu_write(d, name, "[Pool]\nSampleMs=%d\n", 1000 + i);
        }
        assert_int_equal(load(d, &c, err, sizeof(err)), 0);
        assert_int_equal(c.sample_ms, 1099);
        tu_write(d, "/zswap-tuned.conf.d/099.conf", "[Pool]\nSampleMs=1\n");
        expect_file_error(d, "/zswap-tuned.conf.d/099.conf:2", "SampleMs=1: expected a time from 10ms to 1min (a bare number is milliseconds; e.g. 500, 500ms, 1.5s)");
        conf_free(&c);
}

static void unreadable_dropin_dir_is_an_error(void **state) {
        const char *d = *state;
        char path[512];

        tu_write(d, "/zswap-tuned.conf", "[Pool]\nSampleMs=300\n");
        tu_write(d, "/zswap-tuned.conf.d", "[Pool]\nSampleMs=400\n");
        expect_file_error(d, "/zswap-tuned.conf.d", "cannot read the directory: Not a directory");
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf.d", d);
        unlink(path);
        assert_int_equal(symlink("zswap-tuned.conf.d", path), 0);
        expect_file_error(d, "/zswap-tuned.conf.d", "cannot read the directory: Too many levels of symbolic links");
        unlink(path);
        if (geteuid() != 0) { /* root reads it anyway */
                tu_write(d, "/zswap-tuned.conf.d/50-x.conf", "[Pool]\nSampleMs=400\n");
                assert_int_equal(chmod(path, 0), 0);
                expect_file_error(d, "/zswap-tuned.conf.d", "cannot read the directory: Permission denied");
                chmod(path, 0755);
        }
}

/* What log_fields() said while a test ran. */
struct said {
        unsigned n;
        int prio[8];
        char msg[8][1024], field[8][2][512];
};

static void catch_log(int prio, const char *message, const char *const *fields, void *userdata) {
        struct said *s = userdata;

        if (s->n >= ELEMENTSOF(s->msg))
                fail_msg("more log lines than expected: %s", message);
        s->prio[s->n] = prio;
        snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", message);
        for (unsigned i = 0; fields && fields[i] && i < 2; i++)
                snprintf(s->field[s->n][i], sizeof(s->field[0][0]), "%s", fields[i]);
        s->n++;
}

/* A key that is gone: the configuration loads as if it were not there, and
 * each place that sets it is said once, as a warning with FILE:LINE (the
 * daemon starts; --check-config exits 0). In another section it is just an
 * unknown key. */
static void removed_keys_are_said_and_ignored(void **state) {
        const char *dir = *state;
        char err[1024], path[512], want[1024];
        struct said said = { 0 };
        struct conf c, d;

        tu_write(dir, "/zswap-tuned.conf", "[Batch]\nZswapMaxPercent=40\nLargestHolder=yes\nLendWhenCalm=yes\n");
        tu_write(dir, "/zswap-tuned.conf.d/10-old.conf", "# kept from 0.2\n[Batch]\nLargestHolder=no\n");
        log_set_hook(catch_log, &said);
        assert_int_equal(load(dir, &c, err, sizeof(err)), 0);
        log_set_hook(NULL, NULL);
        assert_int_equal(said.n, 3);
        snprintf(path, sizeof(path), "%s/zswap-tuned.conf", dir);
        snprintf(want, sizeof(want), "%s:3: LargestHolder= is no longer supported (removed in 0.3.0: it cost batch "
                 "work throughput for no measured gain, and let any cgroup's stall cap another); ignoring it", path);
        assert_string_equal(said.msg[0], want);
        assert_int_equal(said.prio[0], LOG_WARNING);
        snprintf(want, sizeof(want), "CONFIG_FILE=%s", path);
        assert_string_equal(said.field[0][0], want);
        assert_string_equal(said.field[0][1], "CONFIG_LINE=3");
        snprintf(want, sizeof(want), "%s:4: LendWhenCalm= is no longer supported (removed in 0.3.0: lending the "
                 "batch cgroups the pool above ZswapMaxPercent won nothing measured, and the pool stayed at the "
                 "loan's size after it); ignoring it", path);
        assert_string_equal(said.msg[1], want);
        assert_int_equal(said.prio[1], LOG_WARNING);
        snprintf(want, sizeof(want), "%s.d/10-old.conf:3: LargestHolder= is no longer supported", path);
        assert_true(strncmp(said.msg[2], want, strlen(want)) == 0);
        /* nothing else changed: the defaults but for ZswapMaxPercent */
        conf_defaults(&d);
        d.batch_zswap_max = 40;
        assert_conf_equal(&c, &d);
        conf_free(&c);
        snprintf(want, sizeof(want), "%s.d/10-old.conf", path);
        assert_int_equal(unlink(want), 0);
        expect_error(dir, "[Pool]\nLargestHolder=yes\n", 2, "unknown key LargestHolder= in section [Pool]");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(missing_file_gives_defaults, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(patterns_are_kept),
                cmocka_unit_test_setup_teardown(values_are_parsed, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(every_error_names_its_line, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(every_error_is_reported, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(missing_given_file_is_an_error, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(times_take_units),
                cmocka_unit_test(time_keys_take_units),
                cmocka_unit_test(percents_take_a_percent_sign),
                cmocka_unit_test(renamed_keys_are_read_with_a_notice),
                cmocka_unit_test_setup_teardown(empty_release_follows_high, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dropins_apply_in_lexical_order, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dropin_error_names_the_dropin, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(failed_load_keeps_the_old_config, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(dump_reads_back_the_same, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(shipped_config_shows_every_default, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(long_lines_are_whole),
                cmocka_unit_test(too_long_lines_are_errors),
                cmocka_unit_test(indented_lines_are_not_continuations),
                cmocka_unit_test(section_headers_are_exact),
                cmocka_unit_test_setup_teardown(nul_bytes_are_errors, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(numbers_are_plain_decimals),
                cmocka_unit_test(admin_backoff),
                cmocka_unit_test(dump_round_trips),
                cmocka_unit_test_setup_teardown(load_string_is_the_main_file_alone, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(only_regular_files_are_read, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(many_dropins_are_all_read, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(unreadable_dropin_dir_is_an_error, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(release_follows_high_unless_set, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(removed_keys_are_said_and_ignored, tu_setup_tmpdir, tu_teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
