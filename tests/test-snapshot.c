/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status file (snapshot_format/snapshot_parse) round trip, including the
 * fields of JSON schema 1, the JSON string escaping and the terminal's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "snapshot.h"

/* A FILE that writes to memory; mem_text() closes it and gives what was
 * written (the caller frees it). */
struct mem {
        char *buf;
        size_t size;
        FILE *f;
};

static FILE *mem_open(struct mem *m) {
        *m = (struct mem) { 0 };
        m->f = open_memstream(&m->buf, &m->size);
        assert_non_null(m->f);
        return m->f;
}

static char *mem_text(struct mem *m) {
        assert_int_equal(fclose(m->f), 0);
        return m->buf;
}

static char *format(const struct snapshot *s) {
        struct mem m;

        snapshot_format(s, true, mem_open(&m));
        return mem_text(&m);
}

static char *json_of(const char *str) {
        struct mem m;

        snapshot_json_string(mem_open(&m), str);
        return mem_text(&m);
}

static void test_round_trip(void **state) {
        struct snapshot a = { .pid = 42, .updated = 1700000000250000, .knob_value = KNOB_OFF, .original = KNOB_ON,
                              .mode = MODE_THROUGHPUT, .mode_since = 1700000000000000, .reason = REASON_PRESSURE,
                              .pressure = 12.5, .time_to_limit = -1, .incomp_pages = -1, .n_batch = 2,
                              .flips_total = 7, .held = HELD_CAP, .held_mode = MODE_PROTECT,
                              .held_total = { 0, 3, 4 }, .n_config = 2 },
                        b;
        char *text;

        snprintf(a.version, sizeof(a.version), "1.2.3");
        snprintf(a.config[0], sizeof(a.config[0]), "/etc/zswap-tuned.conf");
        snprintf(a.config[1], sizeof(a.config[1]), "/etc/zswap-tuned.conf.d/x y.conf");
        snprintf(a.knob, sizeof(a.knob), "shrinker_enabled");
        snprintf(a.batch[0].cgroup, sizeof(a.batch[0].cgroup), "batch.slice");
        a.batch[0].capped = true;
        a.batch[0].cap = 4096;
        snprintf(a.batch[0].cap_reason, sizeof(a.batch[0].cap_reason), "pool-share");
        snprintf(a.batch[0].cap_text, sizeof(a.batch[0].cap_text), "30%% of the limit");
        snprintf(a.batch[0].by, sizeof(a.batch[0].by), "largest-holder");
        snprintf(a.batch[1].cgroup, sizeof(a.batch[1].cgroup), "other.slice");
        text = format(&a);
        assert_int_equal(snapshot_parse(text, &b), 0);
        assert_int_equal(b.pid, 42);
        assert_string_equal(b.version, "1.2.3");
        assert_int_equal(b.n_config, 2);
        assert_string_equal(b.config[1], "/etc/zswap-tuned.conf.d/x y.conf");
        assert_true(b.updated == a.updated && b.mode_since == a.mode_since);
        assert_int_equal(b.held, HELD_CAP);
        assert_int_equal(b.held_mode, MODE_PROTECT);
        assert_true(b.held_total[HELD_DWELL] == 3 && b.held_total[HELD_CAP] == 4);
        assert_int_equal(b.n_batch, 2);
        assert_string_equal(b.batch[0].cap_reason, "pool-share");
        assert_string_equal(b.batch[0].cap_text, "30% of the limit");
        assert_string_equal(b.batch[1].cap_reason, "");
        assert_string_equal(b.batch[0].by, "largest-holder");
        assert_string_equal(b.batch[1].by, "");
        assert_false(b.batch[1].capped);
        /* live figures status reads itself: never written to the file, unknown after a parse */
        assert_true(b.incomp_pages == -1 && b.uncharged == -1);
        free(text);

        /* an older daemon's file: none of the new lines; unknown ones skipped */
        assert_int_equal(snapshot_parse("PID=7\nNEW_KEY=x\nHELD=bogus throughput\nMODE=protect\n", &b), 0);
        assert_string_equal(b.version, "");
        assert_int_equal(b.n_config, 0);
        assert_int_equal(b.held, HELD_NONE);
        assert_int_equal(b.mode, MODE_PROTECT);
        assert_int_equal(snapshot_parse("VERSION=1\n", &b), -EBADMSG);
}

/* Run on the built-in defaults (no file there): the file says so, and
 * status tells it from a daemon that does not say which files it read. */
static void test_config_defaults(void **state) {
        struct snapshot a = { .pid = 9, .updated = 1700000000000000, .mode_since = 1700000000000000,
                              .time_to_limit = -1, .incomp_pages = -1, .config_defaults = true },
                        b;
        struct mem m;
        char *text, *out;
        FILE *f;

        text = format(&a);
        assert_non_null(strstr(text, "CONFIG_DEFAULTS=1\n"));
        assert_int_equal(snapshot_parse(text, &b), 0);
        assert_true(b.config_defaults);
        assert_int_equal(b.n_config, 0);
        free(text);

        f = mem_open(&m);
        snapshot_print(&b, b.updated, f);
        snapshot_json(&b, b.updated, f);
        out = mem_text(&m);
        assert_non_null(strstr(out, "    Config: none, the built-in defaults (no configuration file was there)\n"));
        assert_non_null(strstr(out, "\"config_files\":[],\"config_defaults\":true,"));
        free(out);

        /* an older daemon's file: no such line, so "does not say" */
        a.config_defaults = false;
        text = format(&a);
        assert_null(strstr(text, "CONFIG_DEFAULTS"));
        assert_int_equal(snapshot_parse(text, &b), 0);
        assert_false(b.config_defaults);
        free(text);
        snapshot_print(&b, b.updated, mem_open(&m));
        out = mem_text(&m);
        assert_non_null(strstr(out, "    Config: unknown (the daemon does not say)\n"));
        free(out);
}

static void test_json_string(void **state) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "plain", "\"plain\"" },
                { "q\"b\\", "\"q\\\"b\\\\\"" },
                { "\x01\n\x7f", "\"\\u0001\\u000a\\u007f\"" },
                { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
                { "a\xff" "b", "\"a\\ufffdb\"" },
                { "\xc3(", "\"\\ufffd(\"" },                  /* truncated */
                { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },         /* overlong '/' */
                { "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" }, /* overlong, 3 bytes */
                { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" }, /* a surrogate */
                { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* above U+10FFFF */
                { "\xe2\x82", "\"\\ufffd\\ufffd\"" },         /* cut off at the end */
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *got = json_of(cases[i].in);
                assert_string_equal(got, cases[i].out);
                free(got);
        }
}

/* The advice keeps the largest holders and stallers, in order, and only
 * those over the marks; the lines it prints name them. */
static void test_advice_ranks(void **state) {
        struct advice a = { .limit_bytes = 1000000 };
        char config[4096];

        advice_config(&a, config, sizeof(config));
        assert_string_equal(config, ""); /* nothing yet */
        advice_add(&a, "a.service", 40000, 0, false);  /* 4%: under the mark */
        advice_add(&a, "b.service", 0, 0.5, false); /* under the mark */
        assert_int_equal(a.n_holders + a.n_stalling, 0);
        for (int i = 1; i <= 7; i++) {
                char name[32];
                snprintf(name, sizeof(name), "h%d.scope", i);
                advice_add(&a, name, (uint64_t) i * 60000, 50, false); /* a holder that stalls is a holder */
        }
        assert_int_equal(a.n_holders, ADVICE_MAX);
        assert_string_equal(a.holders[0].cgroup, "h7.scope");
        assert_string_equal(a.holders[4].cgroup, "h3.scope");
        assert_int_equal(a.n_stalling, 0);
        advice_config(&a, config, sizeof(config));
        assert_string_equal(config, ""); /* nobody else stalls */
        advice_add(&a, "db.service", 1000, 2.5, false);
        advice_add(&a, "web.service", 0, 7.25, false);
        assert_int_equal(a.n_stalling, 2);
        assert_string_equal(a.stalling[0].cgroup, "web.service");
        advice_config(&a, config, sizeof(config));
        assert_string_equal(config, "[Batch]\nCgroups=h7.scope h6.scope h5.scope h4.scope h3.scope\n"
                                    "[Pressure]\nCgroups=web.service db.service\n");
}

/* What advice_print() writes (the caller frees it). */
static char *advice_text(const struct advice *a) {
        struct mem m;

        advice_print(a, mem_open(&m));
        return mem_text(&m);
}

/* A holder marked idle is said to be, and pointed at IdleCgroups= only
 * while that is off (on, the daemon has refused it already). */
static void test_advice_idle(void **state) {
        struct advice a = { .limit_bytes = 1000000 };
        char *out;

        (void) state;
        advice_add(&a, "backup.service", 300000, 0, true);
        advice_add(&a, "db.service", 0, 2.5, false);
        assert_true(a.holders[0].idle);
        out = advice_text(&a);
        assert_non_null(strstr(out, "backup.service, 293.0 KiB (30% of the limit), marked idle (cpu.idle 1)\n"));
        assert_non_null(strstr(out, "IdleCgroups=yes in [Batch]"));
        free(out);
        a.idle_cgroups = true;
        out = advice_text(&a);
        assert_non_null(strstr(out, "marked idle"));
        assert_null(strstr(out, "IdleCgroups=yes"));
        free(out);
        a.idle_cgroups = false;
        a.holders[0].idle = false;
        out = advice_text(&a);
        assert_null(strstr(out, "idle"));
        free(out);
}

/* Names for a terminal: control bytes, C1 controls and invalid UTF-8 as
 * \xNN, the rest (valid UTF-8, backslashes) kept; cut at a whole character. */
static void test_escape(void **state) {
        char buf[SNAPSHOT_ESCAPED(64)], small[12];

        (void) state;
        assert_string_equal(snapshot_escape("a\x1b]0;x\x07" "b\x7f", buf, sizeof(buf)), "a\\x1b]0;x\\x07b\\x7f");
        assert_string_equal(snapshot_escape("a\xc2\x9b" "1m\xff", buf, sizeof(buf)), "a\\xc2\\x9b1m\\xff");
        assert_string_equal(snapshot_escape("d\xc3\xa9j\xc3\xa0 vu\\x2d", buf, sizeof(buf)), "d\xc3\xa9j\xc3\xa0 vu\\x2d");
        assert_string_equal(snapshot_escape("", buf, sizeof(buf)), "");
        /* too small: cut with "...", never inside an escape or a character */
        assert_string_equal(snapshot_escape("abcdefghijkl", small, sizeof(small)), "abcdefgh...");
        assert_string_equal(snapshot_escape("abcdefgh\x1b", small, sizeof(small)), "abcdefgh...");
        assert_string_equal(snapshot_escape("abcdefg\x1b", small, sizeof(small)), "abcdefg\\x1b");
        assert_string_equal(snapshot_escape("abcdefghijk", small, sizeof(small)), "abcdefghijk");
        assert_string_equal(snapshot_escape("abcdefgh\xc3\xa9\xc3\xa9", small, sizeof(small)), "abcdefgh...");
        assert_string_equal(snapshot_escape("abcdef\xc3\xa9\xc3\xa9", small, sizeof(small)), "abcdef\xc3\xa9\xc3\xa9");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_config_defaults),
                cmocka_unit_test(test_advice_ranks),
                cmocka_unit_test(test_advice_idle),
                cmocka_unit_test(test_json_string),
                cmocka_unit_test(test_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
