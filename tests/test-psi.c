/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PSI parsing, trigger arming (fake and, where allowed, real), cgroup paths and
 * one source per memory.pressure file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "psi.h"
#include "sources.h"
#include "testutil.h"
#include "util.h"

static void parse_some_and_full(void **state) {
        const char *psi = "some avg10=1.50 avg60=0.30 avg300=0.05 total=123456\n"
                          "full avg10=0.50 avg60=0.10 avg300=0.01 total=6543\n";
        uint64_t t;

        assert_int_equal(parse_psi(psi, PSI_SOME, &t), 0);
        assert_int_equal(t, 123456);
        assert_int_equal(parse_psi(psi, PSI_FULL, &t), 0);
        assert_int_equal(t, 6543);
        /* no trailing newline */
        assert_int_equal(parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=7", PSI_SOME, &t), 0);
        assert_int_equal(t, 7);
}

static void parse_malformed(void **state) {
        uint64_t t;

        assert_int_equal(parse_psi("", PSI_SOME, &t), -EBADMSG);
        /* a cpu-style file has no full line in old kernels */
        assert_int_equal(parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n", PSI_FULL, &t), -EBADMSG);
        assert_int_equal(parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00\nfull total=3\n", PSI_SOME, &t), -EBADMSG);
        assert_int_equal(parse_psi("some avg10=0.00 total=12ab\n", PSI_SOME, &t), -EBADMSG);
        assert_int_equal(parse_psi("some avg10=0.00 total=\n", PSI_SOME, &t), -EBADMSG);
        /* garbage is garbage, not a missing file (it used to say "No such file or directory") */
        assert_int_equal(parse_psi("garbage\n", PSI_SOME, &t), -EBADMSG);
        assert_string_equal(err_str(-EBADMSG), "unexpected contents");
        /* " total=" on a later line does not belong to this one */
        assert_int_equal(parse_psi("some avg10=0.00\nfull total=3\n", PSI_SOME, &t), -EBADMSG);
        assert_int_equal(parse_psi("some total=99999999999999999999999\n", PSI_SOME, &t), -EBADMSG);
}

static void window_rounds_up_to_2s(void **state) {
        assert_int_equal(psi_round_window_us(1000000), 2000000);
        assert_int_equal(psi_round_window_us(2000000), 2000000);
        assert_int_equal(psi_round_window_us(2000001), 4000000);
        assert_int_equal(psi_round_window_us(500000), 2000000);
}

static void fake_file_gets_no_trigger(void **state) {
        const char *content = "some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n";
        struct kernel k;
        uint64_t used = 0;
        char buf[256];

        tu_write(*state, "/proc/pressure/memory", "%s", content);
        kernel_init(&k, *state);
        assert_int_equal(psi_open_trigger(&k, PSI_SYSTEM_MEMORY, PSI_SOME, 100000, 1000000, &used), -EOPNOTSUPP);
        /* and it was not written to */
        tu_read(*state, "/proc/pressure/memory", buf, sizeof(buf));
        assert_string_equal(buf, "some avg10=0.00 avg60=0.00 avg300=0.00 total=5");
        assert_int_equal(psi_open_trigger(&k, "/proc/pressure/nothing", PSI_SOME, 1, 2, &used), -ENOENT);
}

/* On a real kernel: the trigger arms; without CAP_SYS_RESOURCE a 1 s window
 * is refused and the next 2 s multiple is used instead. */
static void real_trigger_arms(void **state) {
        struct kernel k;
        uint64_t used = 0, total;
        int fd;

        kernel_init(&k, "/");
        if (access(PSI_SYSTEM_MEMORY, W_OK) != 0)
                skip(); /* needs root and a PSI kernel; cmocka prints it as SKIPPED */
        assert_int_equal(psi_read_total(&k, PSI_SYSTEM_MEMORY, PSI_SOME, &total), 0);
        fd = psi_open_trigger(&k, PSI_SYSTEM_MEMORY, PSI_SOME, 150000, 1000000, &used);
        assert_true(fd >= 0);
        assert_true(used == 1000000 || used == 2000000);
        close(fd);
        /* stall longer than the window is clamped, not refused */
        fd = psi_open_trigger(&k, PSI_SYSTEM_MEMORY, PSI_FULL, 5000000, 2000000, &used);
        assert_true(fd >= 0);
        assert_int_equal(used, 2000000);
        close(fd);
}

static void cgroup_paths(void **state) {
        const char *root = *state;
        struct kernel k;
        char p[512];

        kernel_init(&k, root);
        assert_int_equal(kernel_cgroup_path(&k, "/sys/fs/cgroup/app.slice", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/app.slice/memory.pressure");
        assert_int_equal(kernel_cgroup_path(&k, "/sys/fs/cgroup/app.slice/", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/app.slice/memory.pressure");
        assert_int_equal(kernel_cgroup_path(&k, "/sys/fs/cgroup/app.slice/memory.pressure", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/app.slice/memory.pressure");

        /* hybrid: the group exists only under the v2 mount at unified/ */
        tu_write(root, "/sys/fs/cgroup/unified/cgroup.controllers", "\n");
        tu_write(root, "/sys/fs/cgroup/unified/web.slice/memory.pressure", "some total=0\n");
        assert_int_equal(kernel_cgroup_path(&k, "web.slice", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/unified/web.slice/memory.pressure");
        /* not there yet: placed below the v2 root, to be picked up when it appears */
        assert_int_equal(kernel_cgroup_path(&k, "later.slice", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/unified/later.slice/memory.pressure");

        /* pure v2 */
        tu_write(root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(root, "/sys/fs/cgroup/db.slice/memory.pressure", "some total=0\n");
        assert_int_equal(kernel_cgroup_path(&k, "db.slice", "memory.pressure", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/db.slice/memory.pressure");
        assert_int_equal(kernel_cgroup_path(&k, "db.slice", "memory.zswap.max", p, sizeof(p)), 0);
        assert_string_equal(p, "/sys/fs/cgroup/db.slice/memory.zswap.max");
        assert_int_equal(kernel_cgroup_path(&k, "/x/memory.zswap.max", "memory.zswap.max", p, sizeof(p)), 0);
        assert_string_equal(p, "/x/memory.zswap.max");
}

/* A batch cgroup named in [Batch] Cgroups= and found again by a pattern or
 * its cpu.idle is one memory.pressure file: one trigger (the journal said
 * "PSI: .../bench-batch/memory.pressure" twice), and the named one stays
 * when the match goes, however the name was written. */
static void one_source_per_file(void **state) {
        const char *root = *state;
        const char *named[] = { "Cgroups=b.slice\n", "Cgroups=/sys/fs/cgroup/b.slice\n" };
        const char *psi = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        char text[256], err[256];
        struct kernel k;

        tu_write(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        tu_write(root, "/sys/fs/cgroup/b.slice/memory.pressure", "%s", psi);
        tu_write(root, "/sys/fs/cgroup/c.slice/memory.pressure", "%s", psi);
        kernel_init(&k, root);
        for (size_t i = 0; i < ELEMENTSOF(named); i++) {
                struct sources s = { .kernel = &k };
                struct conf c;

                conf_defaults(&c);
                snprintf(text, sizeof(text), "[Pressure]\nSystem=no\n[Batch]\n%s", named[i]);
                assert_int_equal(conf_load_string(&c, "t.conf", text, err, sizeof(err)), 0);
                sources_setup(&s, &c);
                assert_int_equal(s.n, 1);
                assert_string_equal(s.src[0].path, "/sys/fs/cgroup/b.slice/memory.pressure");

                assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/b.slice", true), 0);
                assert_int_equal(s.n, 1);
                sources_follow_remove(&s, "/sys/fs/cgroup/b.slice", true);
                assert_int_equal(s.n, 1);

                /* one not named comes and goes */
                assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/c.slice", true), 0);
                assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/c.slice", true), 0);
                assert_int_equal(s.n, 2);
                sources_follow_remove(&s, "/sys/fs/cgroup/c.slice", true);
                assert_int_equal(s.n, 1);
                assert_string_equal(s.src[0].path, "/sys/fs/cgroup/b.slice/memory.pressure");

                sources_free(&s);
                conf_free(&c);
        }
}

static void setup_sources(const char *root, struct kernel *k, struct sources *s, struct conf *c, const char *text) {
        char err[256];

        tu_write(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        kernel_init(k, root);
        *s = (struct sources) { .kernel = k };
        conf_defaults(c);
        assert_int_equal(conf_load_string(c, "t.conf", text, err, sizeof(err)), 0);
        sources_setup(s, c);
}

/* Issue 46: the name was stored cut to 400 bytes but compared whole, so a
 * 410-byte match was never removed: 32 create/remove cycles took every
 * place. It is refused now (said once), and one that fits comes and goes. */
static void long_name_comes_and_goes(void **state) {
        const char *root = *state;
        char dir[512];
        struct kernel k;
        struct sources s;
        struct conf c;
        unsigned base;

        setup_sources(root, &k, &s, &c, "[Pressure]\nSystem=yes\n");
        base = s.n;
        for (int len = 410; len >= 390; len -= 20) {
                int n = snprintf(dir, sizeof(dir), "/sys/fs/cgroup/user.slice/");
                memset(dir + n, 'x', (size_t) (len - n));
                dir[len] = '\0';
                for (int i = 0; i < 40; i++)
                        for (int wake = 0; wake < 2; wake++) {
                                int r = sources_follow_add(&s, dir, wake);
                                assert_int_equal(r, len > CONF_CGROUP_NAME_MAX ? -ENAMETOOLONG : 0);
                                sources_follow_remove(&s, dir, wake);
                                assert_int_equal(s.n, base);
                        }
        }
        /* the places are all there: a pressure source still finds one */
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/db.service", false), 0);
        assert_int_equal(s.n, base + 1);
        sources_free(&s);
        conf_free(&c);
}

/* Issue 46: more than 32 batch matches took the places pressure sources
 * share ("every place for a pressure source is taken"). Each kind has its
 * own, and a full one never takes the other's. */
static void batch_and_pressure_places_apart(void **state) {
        const char *root = *state;
        char dir[64];
        struct kernel k;
        struct sources s;
        struct conf c;
        unsigned wake = 0, pressure = 0;

        setup_sources(root, &k, &s, &c, "[Pressure]\nSystem=yes\nCgroups=db.service\n");
        for (int i = 0; i < 200; i++) {
                snprintf(dir, sizeof(dir), "/sys/fs/cgroup/user.slice/idle-%d", i);
                wake += sources_follow_add(&s, dir, true) == 0;
        }
        assert_int_equal(wake, SOURCES_MAX_WAKE);
        for (int i = 0; i < 200; i++) {
                snprintf(dir, sizeof(dir), "/sys/fs/cgroup/system.slice/p-%d.service", i);
                int r = sources_follow_add(&s, dir, false);
                assert_true(r == 0 || r == -ENOSPC);
                pressure += r == 0;
        }
        /* the system's and db.service are two of the places */
        assert_int_equal(pressure, SOURCES_MAX_PRESSURE - 2);
        assert_true(pressure >= 2 * CONF_MAX_CGROUPS - 1);
        /* and the batch ones still have theirs, none more */
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/user.slice/idle-x", true), -ENOSPC);
        sources_follow_remove(&s, "/sys/fs/cgroup/user.slice/idle-0", true);
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/user.slice/idle-x", true), 0);
        sources_free(&s);
        conf_free(&c);
}

/* Issue 46: the pressure-source exclusion compared exact paths, so
 * [Pressure] Cgroups=system.slice did not protect system.slice/db.service.
 * A cgroup that is, lies in or holds a pressure source is one now. */
static void pressure_overlap_by_ancestry(void **state) {
        const char *root = *state;
        struct kernel k;
        struct sources s;
        struct conf c;

        tu_write(root, "/sys/fs/cgroup/system.slice/cgroup.procs", "%s", "");
        setup_sources(root, &k, &s, &c,
                      "[Pressure]\nSystem=yes\nCgroups=system.slice\n[Batch]\nCgroups=batch.slice\n");
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup/system.slice"));
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup/system.slice/db.service"));
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup/system.slice/db.service/x"));
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup")); /* holds it */
        assert_string_equal(sources_pressure_overlap(&s, "/sys/fs/cgroup/system.slice/db.service"), "system.slice");
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/system.slice2"));
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/system"));
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/batch.slice")); /* a batch cgroup's trigger only wakes */
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/user.slice/u.scope"));
        /* a followed one too */
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/user.slice/web.scope", false), 0);
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup/user.slice"));
        assert_true(sources_is_pressure(&s, "/sys/fs/cgroup/user.slice/web.scope/worker"));
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/user.slice/u.scope"));
        sources_free(&s);
        conf_free(&c);
}

static unsigned count_rest(const struct sources *s, const char *name) {
        unsigned n = 0;

        for (unsigned i = 0; i < s->n; i++)
                n += s->src[i].rest && (!name || strcmp(s->src[i].spec, name) == 0);
        return n;
}

static void psi_total(const char *root, const char *dir, unsigned long long total) {
        char rel[1024];

        snprintf(rel, sizeof(rel), "/sys/fs/cgroup/%s/memory.pressure", dir);
        tu_write(root, rel, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\nfull total=0\n", total);
}

/* Issue 48: the rest, read while batch work is known and no [Pressure]
 * cgroup is there: the top-level cgroups that are no batch work and hold
 * none, in places of their own (bounded), never a pressure source for the
 * caps, never in the system's figure; read again when the batch changes. */
static void rest_is_the_cgroups_apart_from_the_batch(void **state) {
        const char *root = *state;
        char dir[512];
        struct kernel k;
        struct sources s;
        struct conf c;
        double pct;

        tu_write(root, "/proc/pressure/memory", "some total=0\nfull total=0\n");
        psi_total(root, "batch.slice", 0);
        for (int i = 0; i < 40; i++) {
                snprintf(dir, sizeof(dir), "svc-%02d.slice", i);
                psi_total(root, dir, 0);
        }
        psi_total(root, "svc-03.slice/a.service", 0);
        psi_total(root, "svc-03.slice/b.service", 0);
        setup_sources(root, &k, &s, &c, "[Pressure]\nSystem=yes\n[Batch]\nCgroups=batch.slice\n");
        assert_true(sources_batch_known(&s));
        assert_int_equal(sources_reads(&s), SOURCES_READ_REST);
        sources_sample(&s, 0); /* looked for at the first sample */
        assert_int_equal(count_rest(&s, NULL), SOURCES_MAX_REST);
        assert_int_equal(count_rest(&s, "batch.slice"), 0);
        assert_int_equal(count_rest(&s, "svc-00.slice"), 1);
        assert_false(sources_is_pressure(&s, "/sys/fs/cgroup/svc-00.slice"));
        /* svc-00.slice stalls half a second: the rest's figure, not the system's */
        psi_total(root, "svc-00.slice", 500000);
        tu_write(root, "/proc/pressure/memory", "some total=100000\nfull total=0\n");
        assert_true(sources_sample(&s, 1000000) == 10);
        assert_true(sources_rest_pressure(&s, &pct));
        assert_true(pct == 50);
        assert_string_equal(s.rest_of, "the rest: svc-00.slice");
        /* batch work in svc-03.slice: read as its other children from the next sample */
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/svc-03.slice/b.service", true), 0);
        sources_sample(&s, 1000000);
        assert_int_equal(count_rest(&s, "svc-03.slice"), 0);
        assert_int_equal(count_rest(&s, "svc-03.slice/a.service"), 1);
        assert_int_equal(count_rest(&s, "svc-03.slice/b.service"), 0);
        /* a [Pressure] cgroup comes: that one is the rest, the others go */
        assert_int_equal(sources_follow_add(&s, "/sys/fs/cgroup/svc-01.slice", false), 0);
        assert_int_equal(sources_reads(&s), SOURCES_READ_NAMED);
        sources_sample(&s, 1000000);
        assert_int_equal(count_rest(&s, NULL), 0);
        /* the batch goes: every source again, nothing of the rest */
        sources_follow_remove(&s, "/sys/fs/cgroup/svc-03.slice/b.service", true);
        sources_follow_remove(&s, "/sys/fs/cgroup/svc-01.slice", false);
        assert_true(sources_batch_known(&s)); /* batch.slice, named */
        snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/batch.slice", root);
        tu_rm_rf(dir);
        sources_sample(&s, 1000000); /* the named one is retried: gone */
        assert_false(sources_batch_known(&s));
        assert_int_equal(sources_reads(&s), SOURCES_READ_ALL);
        sources_sample(&s, 1000000);
        assert_int_equal(count_rest(&s, NULL), 0);
        sources_free(&s);
        conf_free(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(parse_some_and_full),
                cmocka_unit_test(parse_malformed),
                cmocka_unit_test(window_rounds_up_to_2s),
                cmocka_unit_test_setup_teardown(fake_file_gets_no_trigger, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(real_trigger_arms),
                cmocka_unit_test_setup_teardown(cgroup_paths, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(one_source_per_file, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(long_name_comes_and_goes, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(batch_and_pressure_places_apart, tu_setup_tmpdir,
                                                tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(pressure_overlap_by_ancestry, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(rest_is_the_cgroups_apart_from_the_batch, tu_setup_tmpdir,
                                                tu_teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
