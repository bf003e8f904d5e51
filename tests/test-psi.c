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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(parse_some_and_full),
                cmocka_unit_test(parse_malformed),
                cmocka_unit_test(window_rounds_up_to_2s),
                cmocka_unit_test_setup_teardown(fake_file_gets_no_trigger, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(real_trigger_arms),
                cmocka_unit_test_setup_teardown(cgroup_paths, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(one_source_per_file, tu_setup_tmpdir, tu_teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
