/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers of /proc and /sys files, and the kernel module against a fake tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "restore.h"
#include "savefile.h"
#include "testutil.h"
#include "util.h"

static const char meminfo_618[] =
        "MemTotal:       24608440 kB\n"
        "MemFree:        20013456 kB\n"
        "SwapTotal:       2097148 kB\n"
        "Zswap:            246844 kB\n"
        "Zswapped:         655360 kB\n"
        "Dirty:                 4 kB\n";

static void meminfo_parses(void **state) {
        struct meminfo m;

        assert_int_equal(parse_meminfo(meminfo_618, &m), 0);
        assert_int_equal(m.mem_total_kb, 24608440);
        assert_true(m.has_zswap);
        assert_int_equal(m.zswap_kb, 246844);
        assert_int_equal(m.zswapped_kb, 655360);

        /* before 5.19: no Zswap lines, not an error */
        assert_int_equal(parse_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\n", &m), 0);
        assert_false(m.has_zswap);
        /* "Zswapped" must not be taken for "Zswap" */
        assert_int_equal(parse_meminfo("MemTotal: 1000 kB\nZswapped: 77 kB\nZswap: 5 kB\n", &m), 0);
        assert_int_equal(m.zswap_kb, 5);
        assert_int_equal(m.zswapped_kb, 77);
}

static void meminfo_malformed(void **state) {
        struct meminfo m;

        assert_int_equal(parse_meminfo("", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemFree: 5 kB\n", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemTotal: 0 kB\n", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemTotal: lots\n", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemTotal: 12x kB\n", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemTotal: 100 kB\nZswap: -3 kB\n", &m), -EBADMSG);
        assert_int_equal(parse_meminfo("MemTotal: 99999999999999999999999 kB\n", &m), -EBADMSG);
}

static void vmstat_parses(void **state) {
        struct vmstat v;

        assert_int_equal(parse_vmstat("nr_free_pages 5\npswpin 7\npswpout 11\nzswpin 13\nzswpout 17\nzswpwb 19\n"
                                      "zswpout_extra 99\n", &v), 0);
        assert_int_equal(v.pswpin, 7);
        assert_int_equal(v.pswpout, 11);
        assert_int_equal(v.zswpin, 13);
        assert_int_equal(v.zswpout, 17);
        assert_int_equal(v.zswpwb, 19);
        /* old kernel: no zswp* at all */
        assert_int_equal(parse_vmstat("pswpin 1\npswpout 2\n", &v), 0);
        assert_int_equal(v.zswpout, 0);
        assert_int_equal(parse_vmstat("pswpout x\n", &v), -EBADMSG);
}

static void knob_values(void **state) {
        assert_int_equal(parse_knob("Y\n"), KNOB_ON);
        assert_int_equal(parse_knob("N\n"), KNOB_OFF);
        assert_int_equal(parse_knob("1"), KNOB_ON);
        assert_int_equal(parse_knob("0"), KNOB_OFF);
        assert_int_equal(parse_knob(""), -EBADMSG);
        assert_int_equal(parse_knob("yes"), -EBADMSG);
}

static void swaps_count(void **state) {
        const char *hdr = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        char buf[512];

        assert_int_equal(parse_swaps(hdr), 0);
        snprintf(buf, sizeof(buf), "%s/var/tmp/swap file 2097148 0 -2\n/dev/vda2 partition 1000 0 -3\n", hdr);
        assert_int_equal(parse_swaps(buf), 2);
        assert_int_equal(parse_swaps("garbage\n"), -EBADMSG);
}

static void cgroup_v1_detection(void **state) {
        assert_true(parse_cgroup_memory_v1("12:pids:/\n4:memory:/user.slice\n0::/\n"));
        assert_true(parse_cgroup_memory_v1("3:cpu,memory:/\n"));
        assert_false(parse_cgroup_memory_v1("0::/system.slice/zswap-tuned.service\n"));
        assert_false(parse_cgroup_memory_v1("5:name=memoryish:/\n"));
        assert_false(parse_cgroup_memory_v1(""));
}

static void fake_zswap(const char *root, const char *knob, const char *value) {
        char rel[128];

        tu_write(root, ZSWAP_PARAMS "/enabled", "Y\n");
        tu_write(root, ZSWAP_PARAMS "/max_pool_percent", "20\n");
        snprintf(rel, sizeof(rel), ZSWAP_PARAMS "/%s", knob);
        tu_write(root, rel, "%s\n", value);
        tu_write(root, "/proc/meminfo", "MemTotal: 1000000 kB\nZswap: 50000 kB\nZswapped: 150000 kB\n");
        tu_write(root, "/proc/vmstat", "pswpout 3\nzswpout 100\nzswpwb 2\n");
}

static void pool_from_fake_tree(void **state) {
        struct kernel k;
        struct pool_sample s;

        fake_zswap(*state, "shrinker_enabled", "N");
        assert_int_equal(kernel_init(&k, *state), 0);
        assert_int_equal(kernel_read_pool(&k, &s), 0);
        assert_true(s.enabled);
        assert_int_equal(s.max_pool_percent, 20);
        assert_int_equal(s.limit_bytes, UINT64_C(1000000) * 1024 * 20 / 100);
        assert_int_equal(s.pool_bytes, UINT64_C(50000) * 1024);
        assert_float_equal(pool_percent(&s), 25.0, 1e-9);
        assert_int_equal(s.vm.zswpout, 100);

        /* the limit is re-read every time */
        tu_write(*state, ZSWAP_PARAMS "/max_pool_percent", "10\n");
        assert_int_equal(kernel_read_pool(&k, &s), 0);
        assert_float_equal(pool_percent(&s), 50.0, 1e-9);

        /* no Zswap line (before 5.19): debugfs has the size in bytes */
        tu_write(*state, "/proc/meminfo", "MemTotal: 1000000 kB\n");
        tu_write(*state, ZSWAP_DEBUGFS "/pool_total_size", "%llu\n", (unsigned long long) 102400000);
        assert_int_equal(kernel_read_pool(&k, &s), 0);
        assert_int_equal(s.pool_bytes, 102400000);

        /* a broken file is an error, not a zero */
        tu_write(*state, "/proc/meminfo", "MemTotal: many\n");
        assert_int_equal(kernel_read_pool(&k, &s), -EBADMSG);
}

/* Linux 6.18+ stores incompressible pages whole and counts them: debugfs
 * for the pool (pages), memory.stat for a cgroup (bytes). */
static void incompressible_pages(void **state) {
        struct kernel k;
        uint64_t v = 7;

        assert_int_equal(kernel_init(&k, *state), 0);
        /* older kernels have neither */
        assert_int_equal(kernel_pool_incompressible(&k, &v), -ENOENT);
        tu_write(*state, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(*state, "/sys/fs/cgroup/batch/memory.stat", "anon 4096\nzswap 8192\nzswapped 16384\nfile 0\n");
        assert_int_equal(kernel_cgroup_incompressible(&k, "batch", &v), -ENOENT);
        assert_int_equal(v, 7);

        tu_write(*state, ZSWAP_DEBUGFS "/stored_incompressible_pages", "25\n");
        assert_int_equal(kernel_pool_incompressible(&k, &v), 0);
        assert_int_equal(v, 25);
        /* "zswap" and "zswapped" are not "zswap_incomp", nor the other way round */
        tu_write(*state, "/sys/fs/cgroup/batch/memory.stat",
                 "anon 4096\nzswap 8192\nzswapped 16384\nzswap_incomp 12288\nfile 0\n");
        assert_int_equal(kernel_cgroup_incompressible(&k, "batch", &v), 0);
        assert_int_equal(v, 12288);
        assert_int_equal(parse_stat_field("zswap_incomp 12288\nzswap 8192\n", "zswap", &v), 0);
        assert_int_equal(v, 8192);
        /* malformed is an error, not a number */
        tu_write(*state, ZSWAP_DEBUGFS "/stored_incompressible_pages", "lots\n");
        assert_int_equal(kernel_pool_incompressible(&k, &v), -EBADMSG);
        assert_int_equal(parse_stat_field("zswap_incomp -1\n", "zswap_incomp", &v), -EBADMSG);
        assert_int_equal(kernel_cgroup_incompressible(&k, "gone", &v), -ENOENT);
}

static void knob_write_reads_back(void **state) {
        struct kernel k;
        char buf[16];

        fake_zswap(*state, "shrinker_enabled", "N");
        kernel_init(&k, *state);
        assert_int_equal(kernel_knob_read(&k, "shrinker_enabled"), KNOB_OFF);
        assert_int_equal(kernel_knob_write(&k, "shrinker_enabled", KNOB_ON), 0);
        assert_string_equal(tu_read(*state, ZSWAP_PARAMS "/shrinker_enabled", buf, sizeof(buf)), "Y");
        assert_int_equal(kernel_knob_read(&k, "shrinker_enabled"), KNOB_ON);
        assert_int_equal(kernel_knob_read(&k, "shrink_enabled"), -ENOENT);
        assert_int_equal(kernel_knob_write(&k, "shrink_enabled", KNOB_ON), -ENOENT);
}

static void root_prefix_is_normalised(void **state) {
        struct kernel k;
        char p[256], r[256];

        kernel_init(&k, "/");
        kernel_path(&k, "/proc/meminfo", p, sizeof(p));
        assert_string_equal(p, "/proc/meminfo");
        snprintf(r, sizeof(r), "%s//", (const char *) *state);
        kernel_init(&k, r);
        kernel_path(&k, "/proc/meminfo", p, sizeof(p));
        snprintf(r, sizeof(r), "%s/proc/meminfo", (const char *) *state);
        assert_string_equal(p, r);
}

static void savefile_round_trip_and_restore(void **state) {
        const char *root = *state;
        char dir[512], buf[64];
        struct saved sv = { .knob = "shrinker_enabled", .value = KNOB_OFF }, back;
        struct kernel k;

        fake_zswap(root, "shrinker_enabled", "Y");
        tu_write(root, "/sys/fs/cgroup/batch/memory.zswap.max", "1048576\n");
        kernel_init(&k, root);
        snprintf(dir, sizeof(dir), "%s/run/zswap-tuned", root); /* does not exist yet */

        assert_int_equal(tu_savefile_read(dir, &back), -ENOENT);
        assert_int_equal(restore_run(&k, dir, ""), 0); /* nothing saved: nothing to do */
        assert_int_equal(mkdir_p(dir, 0700), 0);        /* state_lock() makes it */
        sv.n_caps = 2;
        snprintf(sv.caps[0].path, sizeof(sv.caps[0].path), "/sys/fs/cgroup/batch/memory.zswap.max");
        snprintf(sv.caps[0].value, sizeof(sv.caps[0].value), "max");
        snprintf(sv.caps[1].path, sizeof(sv.caps[1].path), "/sys/fs/cgroup/gone/memory.zswap.max");
        snprintf(sv.caps[1].value, sizeof(sv.caps[1].value), "4096");
        assert_int_equal(tu_savefile_write(dir, &sv), 0);
        assert_int_equal(tu_savefile_read(dir, &back), 0);
        assert_string_equal(back.knob, "shrinker_enabled");
        assert_int_equal(back.value, KNOB_OFF);
        assert_int_equal(back.n_caps, 2);
        assert_string_equal(back.caps[1].path, "/sys/fs/cgroup/gone/memory.zswap.max");
        assert_string_equal(back.caps[1].value, "4096");

        /* restores what it can; a cgroup that is gone is not an error */
        assert_int_equal(restore_run(&k, dir, ""), 0);
        assert_string_equal(tu_read(root, ZSWAP_PARAMS "/shrinker_enabled", buf, sizeof(buf)), "N");
        assert_string_equal(tu_read(root, "/sys/fs/cgroup/batch/memory.zswap.max", buf, sizeof(buf)), "max");
        assert_int_equal(tu_savefile_read(dir, &back), -ENOENT);

        /* nothing left to save: the file goes away */
        assert_int_equal(tu_savefile_write(dir, &sv), 0);
        sv = (struct saved) { 0 };
        assert_int_equal(tu_savefile_write(dir, &sv), 0);
        assert_int_equal(tu_savefile_read(dir, &back), -ENOENT);
}

static void savefile_keeps_what_is_valid(void **state) {
        struct saved s;

        assert_int_equal(parse_savefile("KNOB=shrink_enabled\nVALUE=Y\n", "f", &s), 0);
        assert_int_equal(s.value, KNOB_ON);
        assert_int_equal(parse_savefile("ZSWAP_MAX=max /sys/fs/cgroup/b/memory.zswap.max\n", "f", &s), 0);
        assert_int_equal(s.knob[0], '\0');
        assert_int_equal(s.n_caps, 1);
        /* a knob that is not ours, or without its value: the knob is left out */
        assert_int_equal(parse_savefile("KNOB=enabled\nVALUE=Y\n", "f", &s), 2);
        assert_int_equal(s.knob[0], '\0');
        assert_int_equal(parse_savefile("KNOB=shrinker_enabled\n", "f", &s), 1);
        assert_int_equal(parse_savefile("VALUE=Y\n", "f", &s), 1);
        assert_int_equal(parse_savefile("KNOB=shrinker_enabled\nVALUE=maybe\n", "f", &s), 2);
        /* one bad line does not cost the valid ones (it used to reject the file) */
        assert_int_equal(parse_savefile("KNOB=shrinker_enabled\nVALUE=N\nEXTRA=1\n"
                                        "ZSWAP_MAX=0 /etc/victim\n", "f", &s), 2);
        assert_string_equal(s.knob, "shrinker_enabled");
        assert_int_equal(s.value, KNOB_OFF);
        assert_int_equal(s.n_caps, 0);
        assert_int_equal(parse_savefile("ZSWAP_MAX=lots /sys/fs/cgroup/b/memory.zswap.max\n", "f", &s), 1);
        assert_int_equal(parse_savefile("ZSWAP_MAX=max relative\n", "f", &s), 1);
        assert_int_equal(parse_savefile("ZSWAP_MAX=max\n", "f", &s), 1);
}

static void savefile_names_only_zswap_max_files(void **state) {
        static const char *const bad[] = {
                "/etc/victim", "/sys/fs/cgroup/system.slice/x.service/cgroup.kill",
                "/sys/fs/cgroup/../../etc/memory.zswap.max", "/sys/fs/cgroup/a/./memory.zswap.max",
                "/sys/fs/cgroup//memory.zswap.max", "/sys/fs/cgroup/memory.zswap.max/",
                "/sys/fs/cgroupx/memory.zswap.max", "sys/fs/cgroup/a/memory.zswap.max", "/sys/fs/cgroup/a/../memory.zswap.max",
        };
        char line[256];
        struct saved s;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_false(cap_path_valid(bad[i]));
                snprintf(line, sizeof(line), "ZSWAP_MAX=0 %s\n", bad[i]);
                assert_int_equal(parse_savefile(line, "f", &s), 1);
                assert_int_equal(s.n_caps, 0);
        }
        assert_false(cap_path_valid("/sys/fs/cgroup/memory.zswap.max")); /* the root has none */
        assert_true(cap_path_valid("/sys/fs/cgroup/b/memory.zswap.max"));
        assert_true(cap_path_valid("/sys/fs/cgroup/unified/batch.slice/memory.zswap.max"));
        /* a repeated path is one too many */
        assert_int_equal(parse_savefile("ZSWAP_MAX=1 /sys/fs/cgroup/b/memory.zswap.max\n"
                                        "ZSWAP_MAX=2 /sys/fs/cgroup/b/memory.zswap.max\n", "f", &s), 1);
        assert_string_equal(s.caps[0].value, "1");
}

/* A tampered save file writes nothing outside its rules, and the valid rest
 * is still restored. */
static void restore_refuses_foreign_paths(void **state) {
        const char *root = *state;
        char dir[512], victim[512], buf[1024];
        struct kernel k;

        kernel_init(&k, root);
        snprintf(dir, sizeof(dir), "%s/run", root);
        snprintf(victim, sizeof(victim), "%s/victim", root);
        tu_write(root, "/victim", "precious\n");
        tu_write(root, ZSWAP_PARAMS "/shrinker_enabled", "Y\n");
        tu_write(root, "/sys/fs/cgroup/b/memory.zswap.max", "1234\n");
        /* a symlink in place of a memory.zswap.max is not followed */
        tu_write(root, "/sys/fs/cgroup/l/keep", "x\n");
        snprintf(buf, sizeof(buf), "%s/sys/fs/cgroup/l/memory.zswap.max", root);
        assert_int_equal(symlink(victim, buf), 0);
        tu_write(root, "/run/" SAVEFILE_NAME,
                 "ZSWAP_MAX=0 /victim\nZSWAP_MAX=0 /sys/fs/cgroup/l/memory.zswap.max\n"
                 "KNOB=shrinker_enabled\nVALUE=N\nZSWAP_MAX=max /sys/fs/cgroup/b/memory.zswap.max\n"
                 "ZSWAP_MAX=max /sys/fs/cgroup/new/memory.zswap.max\n");
        assert_int_equal(restore_run(&k, dir, ""), -EBADMSG); /* refused: said, never retried */
        assert_string_equal(tu_read(root, "/victim", buf, sizeof(buf)), "precious");
        assert_string_equal(tu_read(root, ZSWAP_PARAMS "/shrinker_enabled", buf, sizeof(buf)), "N");
        assert_string_equal(tu_read(root, "/sys/fs/cgroup/b/memory.zswap.max", buf, sizeof(buf)), "max");
        /* never created */
        snprintf(buf, sizeof(buf), "%s/sys/fs/cgroup/new/memory.zswap.max", root);
        assert_int_equal(access(buf, F_OK), -1);
        /* nothing valid is left to restore: the file is gone */
        assert_int_equal(access(dir, F_OK), 0);
        snprintf(buf, sizeof(buf), "%s/" SAVEFILE_NAME, dir);
        assert_int_equal(access(buf, F_OK), -1);
}

/* ZSWAP_WRITEBACK= lines (0.4.0): parsed strictly, formatted back, and put
 * back by --restore after a crash; an older daemon's file still parses. */
static void savefile_writeback_lines(void **state) {
        const char *root = *state;
        char dir[512], buf[SAVEFILE_MAX];
        struct saved s;
        struct kernel k;

        assert_int_equal(parse_savefile("KNOB=shrinker_enabled\nVALUE=Y\n"
                                        "ZSWAP_MAX=max /sys/fs/cgroup/b/memory.zswap.max\n"
                                        "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/db.service/memory.zswap.writeback\n",
                                        "f", &s), 0);
        assert_int_equal(s.n_caps, 1);
        assert_int_equal(s.n_writeback, 1);
        assert_int_equal(s.writeback[0].value, 1);
        assert_string_equal(s.writeback[0].path, "/sys/fs/cgroup/db.service/memory.zswap.writeback");
        assert_true(savefile_format(&s, buf, sizeof(buf)) > 0);
        assert_non_null(strstr(buf, "\nZSWAP_WRITEBACK=1 /sys/fs/cgroup/db.service/memory.zswap.writeback\n"));
        /* strict: 0/1 only, a memory.zswap.writeback below the cgroup root only, once */
        assert_int_equal(parse_savefile("ZSWAP_WRITEBACK=Y /sys/fs/cgroup/a/memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=2 /sys/fs/cgroup/a/memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/a/memory.zswap.max\n"
                                        "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/a/../memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=1 /etc/memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=1\n"
                                        "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/a/memory.zswap.writeback\n"
                                        "ZSWAP_WRITEBACK=0 /sys/fs/cgroup/a/memory.zswap.writeback\n", "f", &s), 8);
        assert_int_equal(s.n_writeback, 1);
        /* a line of a newer daemon: said and skipped, the rest kept */
        assert_int_equal(parse_savefile("ZSWAP_SOMETHING=1 /sys/fs/cgroup/a/x\nKNOB=shrinker_enabled\nVALUE=N\n",
                                        "f", &s), 1);
        assert_string_equal(s.knob, "shrinker_enabled");

        /* --restore after a crash puts it back */
        kernel_init(&k, root);
        snprintf(dir, sizeof(dir), "%s/run", root);
        tu_write(root, "/sys/fs/cgroup/db.service/memory.zswap.writeback", "0\n");
        tu_write(root, "/run/" SAVEFILE_NAME,
                 "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/db.service/memory.zswap.writeback\n"
                 "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/gone.service/memory.zswap.writeback\n");
        assert_int_equal(restore_run(&k, dir, ""), 0);
        assert_string_equal(tu_read(root, "/sys/fs/cgroup/db.service/memory.zswap.writeback", buf, sizeof(buf)), "1");
        snprintf(buf, sizeof(buf), "%s/sys/fs/cgroup/gone.service/memory.zswap.writeback", root);
        assert_int_equal(access(buf, F_OK), -1); /* never created */
        snprintf(buf, sizeof(buf), "%s/" SAVEFILE_NAME, dir);
        assert_int_equal(access(buf, F_OK), -1);
}

static void kernel_writes_only_what_it_may(void **state) {
        const char *root = *state;
        char p[512];
        struct kernel k;

        kernel_init(&k, root);
        tu_write(root, "/etc/victim", "precious\n");
        assert_int_equal(kernel_cap_write(&k, "/etc/victim", "0"), -EPERM);
        assert_int_equal(kernel_cap_write(&k, "/sys/fs/cgroup/x/cgroup.kill", "1"), -EPERM);
        assert_int_equal(kernel_cap_write(&k, "/sys/fs/cgroup/x/memory.zswap.max", "lots"), -EPERM);
        assert_int_equal(kernel_cap_write(&k, "/sys/fs/cgroup/x/memory.zswap.max", "0"), -ENOENT);
        assert_int_equal(kernel_knob_write(&k, "enabled", KNOB_OFF), -EPERM);
        assert_int_equal(kernel_knob_write(&k, "../../../etc/victim", KNOB_OFF), -EPERM);
        /* memory.reclaim, with the writeback-only key and a byte count alone */
        assert_int_equal(kernel_zswap_writeback(&k, "/etc/victim", 4096), -EPERM);
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/memory.reclaim", 4096), -EPERM);
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/x/../memory.reclaim", 4096), -EPERM);
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/x/memory.zswap.max", 4096), -EPERM);
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/x/memory.reclaim", 0), -EPERM);
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/x/memory.reclaim", 4096), -ENOENT);
        /* memory.zswap.writeback: 0 or 1 only, below the cgroup root only, never created */
        assert_int_equal(kernel_writeback_write(&k, "/etc/victim", 0), -EPERM);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/memory.zswap.writeback", 0), -EPERM);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/x/../memory.zswap.writeback", 0), -EPERM);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/x/memory.zswap.max", 0), -EPERM);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/x/memory.zswap.writeback", 2), -EPERM);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/x/memory.zswap.writeback", 0), -ENOENT);
        assert_int_equal(kernel_writeback_read(&k, "/sys/fs/cgroup/x/memory.zswap.writeback"), -ENOENT);
        tu_write(root, "/sys/fs/cgroup/x/memory.zswap.writeback", "1\n");
        assert_int_equal(kernel_writeback_read(&k, "/sys/fs/cgroup/x/memory.zswap.writeback"), 1);
        assert_int_equal(kernel_writeback_write(&k, "/sys/fs/cgroup/x/memory.zswap.writeback", 0), 0);
        assert_int_equal(kernel_writeback_read(&k, "/sys/fs/cgroup/x/memory.zswap.writeback"), 0);
        tu_write(root, "/sys/fs/cgroup/x/memory.zswap.writeback", "yes\n");
        assert_int_equal(kernel_writeback_read(&k, "/sys/fs/cgroup/x/memory.zswap.writeback"), -EBADMSG);
        assert_false(reclaim_path_valid("/sys/fs/cgroup/x/memory.zswap.max"));
        assert_true(reclaim_path_valid("/sys/fs/cgroup/x/memory.reclaim"));
        tu_write(root, "/sys/fs/cgroup/y/memory.reclaim", "%s", "");
        assert_int_equal(kernel_zswap_writeback(&k, "/sys/fs/cgroup/y/memory.reclaim", 8192), 0);
        assert_string_equal(tu_read(root, "/sys/fs/cgroup/y/memory.reclaim", p, sizeof(p)), "8192 zswap_writeback_only");
        assert_string_equal(tu_read(root, "/etc/victim", p, sizeof(p)), "precious");
        /* a FIFO is neither read nor written, and nothing blocks */
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/x", root);
        tu_write(root, "/sys/fs/cgroup/x/keep", "x\n");
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/x/memory.zswap.max", root);
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(kernel_cap_write(&k, "/sys/fs/cgroup/x/memory.zswap.max", "0"), -ENOTREGULAR);
        char buf[16];
        assert_int_equal(kernel_read(&k, "/sys/fs/cgroup/x/memory.zswap.max", buf, sizeof(buf)), -ENOTREGULAR);
        assert_string_equal(err_str(-ENOTREGULAR), "not a regular file");
}

static void savefile_fifo_and_leftovers(void **state) {
        const char *root = *state;
        char dir[512], p[600];
        struct kernel k;
        struct saved s;

        kernel_init(&k, root);
        snprintf(dir, sizeof(dir), "%s/run", root);
        tu_write(root, "/run/" SAVEFILE_NAME ".Ab12Cd", "KNOB=shrinker_enabled\nVA");
        tu_write(root, "/run/unrelated", "x\n");
        snprintf(p, sizeof(p), "%s/" SAVEFILE_NAME, dir);
        assert_int_equal(mkfifo(p, 0600), 0);
        /* a FIFO save file does not hang --restore */
        assert_int_equal(tu_savefile_read(dir, &s), -ENOTREGULAR);
        assert_true(restore_run(&k, dir, "") < 0);
        /* the temporary file of an interrupted write is removed, nothing else */
        snprintf(p, sizeof(p), "%s/" SAVEFILE_NAME ".Ab12Cd", dir);
        assert_int_equal(access(p, F_OK), -1);
        snprintf(p, sizeof(p), "%s/unrelated", dir);
        assert_int_equal(access(p, F_OK), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(meminfo_parses),
                cmocka_unit_test(meminfo_malformed),
                cmocka_unit_test(vmstat_parses),
                cmocka_unit_test(knob_values),
                cmocka_unit_test(swaps_count),
                cmocka_unit_test(cgroup_v1_detection),
                cmocka_unit_test_setup_teardown(pool_from_fake_tree, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(incompressible_pages, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(knob_write_reads_back, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(root_prefix_is_normalised, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(savefile_round_trip_and_restore, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test(savefile_keeps_what_is_valid),
                cmocka_unit_test(savefile_names_only_zswap_max_files),
                cmocka_unit_test_setup_teardown(restore_refuses_foreign_paths, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(kernel_writes_only_what_it_may, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(savefile_writeback_lines, tu_setup_tmpdir, tu_teardown_tmpdir),
                cmocka_unit_test_setup_teardown(savefile_fifo_and_leftovers, tu_setup_tmpdir, tu_teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
