/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's manager against a fake /proc and /sys, driven through scripted
 * timelines of PSI totals and pool sizes. Asserts the knob file's value after
 * every step and the log lines said along the way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-follow.h"
#include "log.h"
#include "manager.h"
#include "exit-code.h"
#include "replay.h"
#include "restore.h"
#include "savefile.h"
#include "snapshot.h"
#include "testutil.h"
#include "util.h"

#define MEMTOTAL_KB 1000000ULL /* with max_pool_percent=20: limit 200000 kB */
#define LIMIT_KB (MEMTOTAL_KB * 20 / 100)

struct fake {
        char *root;
        char state[512], conf[512];
        uint64_t psi_total, zswpout, pool_kb;
        /* system.slice's stalls, on a cgroup v2 tree: the system's (the
         * service is what stalls), unless svc_apart */
        bool svc_apart;
        uint64_t svc_total;
        bool broken_meminfo;
        const char *meminfo;    /* instead of the usual one */
        char log[64][512];
        unsigned n_log;
        struct manager m;
        uint64_t t0;
        sd_event *loop;         /* for the tests that follow cgroups live */
};

static void hook(int prio, const char *msg, const char *const *fields, void *userdata) {
        struct fake *f = userdata;
        char *l;

        if (prio == LOG_DEBUG || f->n_log >= ELEMENTSOF(f->log))
                return;
        l = f->log[f->n_log++];
        snprintf(l, sizeof(f->log[0]), "%s", msg);
        /* keep the structured fields next to the message, as the journal would */
        for (size_t i = 0; fields && fields[i]; i++)
                snprintf(l + strlen(l), sizeof(f->log[0]) - strlen(l), " %s", fields[i]);
}

static bool logged(struct fake *f, const char *needle) {
        for (unsigned i = 0; i < f->n_log; i++)
                if (strstr(f->log[i], needle))
                        return true;
        return false;
}

static unsigned count_logged(struct fake *f, const char *needle) {
        unsigned n = 0;

        for (unsigned i = 0; i < f->n_log; i++)
                n += strstr(f->log[i], needle) != NULL;
        return n;
}

static void dump_log(struct fake *f) {
        for (unsigned i = 0; i < f->n_log; i++)
                print_message("  log: %s\n", f->log[i]);
}

#define assert_logged(f, s) do { if (!logged(f, s)) { dump_log(f); fail_msg("not logged: %s", s); } } while (0)

static bool exists(struct fake *f, const char *rel) {
        char path[1024];

        snprintf(path, sizeof(path), "%s%s", f->root, rel);
        return access(path, F_OK) == 0;
}

static void write_world(struct fake *f) {
        tu_write(f->root, "/proc/pressure/memory",
                 "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                 (unsigned long long) f->psi_total);
        if (exists(f, "/sys/fs/cgroup/cgroup.controllers"))
                tu_write(f->root, "/sys/fs/cgroup/system.slice/memory.pressure",
                         "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\nfull avg10=0.00 avg60=0.00 avg300=0.00 "
                         "total=0\n", (unsigned long long) (f->svc_apart ? f->svc_total : f->psi_total));
        if (f->broken_meminfo)
                tu_write(f->root, "/proc/meminfo", "garbage\n");
        else if (f->meminfo)
                tu_write(f->root, "/proc/meminfo", "%s", f->meminfo);
        else
                tu_write(f->root, "/proc/meminfo", "MemTotal: %llu kB\nZswap: %llu kB\nZswapped: %llu kB\n",
                         MEMTOTAL_KB, (unsigned long long) f->pool_kb, (unsigned long long) f->pool_kb * 3);
        tu_write(f->root, "/proc/vmstat", "pswpin 0\npswpout 0\nzswpin 0\nzswpout %llu\nzswpwb 0\n",
                 (unsigned long long) f->zswpout);
}

static int setup(void **state) {
        struct fake *f = calloc(1, sizeof(*f));

        f->root = tu_mkdtemp();
        snprintf(f->state, sizeof(f->state), "%s/run", f->root);
        snprintf(f->conf, sizeof(f->conf), "%s/zswap-tuned.conf", f->root);
        tu_write(f->root, "/run/.keep", "\n");
        tu_write(f->root, ZSWAP_PARAMS "/enabled", "Y\n");
        tu_write(f->root, ZSWAP_PARAMS "/max_pool_percent", "20\n");
        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "Y\n");
        tu_write(f->root, "/proc/swaps", "Filename Type Size Used Priority\n/swapfile file 100 0 -2\n");
        tu_write(f->root, "/proc/self/cgroup", "0::/\n");
        f->pool_kb = LIMIT_KB / 10;
        f->zswpout = 1000;
        write_world(f);
        log_set_hook(hook, f);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        struct fake *f = *state;

        manager_free(&f->m);
        sd_event_unref(f->loop);
        log_set_hook(NULL, NULL);
        log_set_max_level(LOG_INFO);
        tu_rm_rf(f->root);
        free(f->root);
        free(f);
        return 0;
}

/* The manager on the fake tree with this configuration, started on loop
 * (NULL: samples are driven by hand with at()). */
static int start_on(struct fake *f, sd_event *loop, const char *config) {
        char err[512];
        int r;

        tu_write(f->root, "/zswap-tuned.conf", "%s", config);
        manager_init(&f->m);
        f->m.config_path = f->conf;
        f->m.use_udev = false;
        snprintf(f->m.state_dir, sizeof(f->m.state_dir), "%s", f->state);
        kernel_init(&f->m.kernel, f->root);
        if (manager_load_config(&f->m, err, sizeof(err)) < 0)
                fail_msg("config: %s", err);
        r = manager_start(&f->m, loop);
        f->t0 = f->m.last_sample;
        return r;
}

static int start(struct fake *f, const char *config) {
        return start_on(f, NULL, config);
}

/* Advance to t seconds after start with this much stall (percent of the
 * elapsed time), this many stores and the pool at this percent of its limit. */
static void at(struct fake *f, double t, double pressure, unsigned stores, double pool) {
        uint64_t now = f->t0 + (uint64_t) (t * 1e6);
        uint64_t dt = now - f->m.last_sample;

        f->psi_total += (uint64_t) (pressure / 100 * (double) dt);
        f->zswpout += stores;
        f->pool_kb = (uint64_t) (pool / 100 * LIMIT_KB);
        write_world(f);
        manager_tick(&f->m, now);
}

static const char *knob(struct fake *f) {
        static char buf[16];
        return tu_read(f->root, ZSWAP_PARAMS "/shrinker_enabled", buf, sizeof(buf));
}

/* Quick timings. Most scenarios need the daemon to turn the shrinker on,
 * and a pool near its limit is the simple way: with ShrinkerNearLimit=yes.
 * The default (no) has its own scenario, near_limit_goes_back_to_baseline. */
#define QUICK_DEFAULTS "[Pressure]\nHoldSec=5\n[Flips]\nMinDwellSec=0\n"
#define QUICK QUICK_DEFAULTS "[Pool]\nLeadSec=0\nShrinkerNearLimit=yes\n"

/* The whole story: off under pressure, on near the limit, back to baseline. */
static void full_cycle(void **state) {
        struct fake *f = *state;
        struct saved sv;

        assert_int_equal(start(f, QUICK), 0);
        assert_logged(f, "Knob: shrinker_enabled = Y");
        assert_logged(f, "Swap: 1 active device(s)");
        assert_logged(f, "PSI: /proc/pressure/memory, no trigger (not a kernel PSI file)");
        assert_string_equal(knob(f), "Y");
        assert_string_equal(f->m.report.status, "Idle, shrinker_enabled=Y, pressure 0.0%, pool 10% of limit");

        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_logged(f, "Shrinker off: pressure 30.0% >= 10%, pool 12% of limit");
        assert_logged(f, "KNOB_VALUE=N PREVIOUS_VALUE=Y MODE=throughput REASON=pressure");
        assert_string_equal(f->m.report.status, "Favouring stores, shrinker_enabled=N, pressure 30.0%, pool 12% of limit");
        /* the original value was saved before the write */
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.value, KNOB_ON);

        at(f, 2, 30, 500, 60);
        assert_string_equal(knob(f), "N");
        at(f, 3, 30, 500, 86);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker on: pool at 86% of limit (high 85%)");
        assert_logged(f, "REASON=pool-high");

        /* the hog ends, the pool drains: protection ends at the second sample
         * below ReleasePercent (80%, HighPercent - 5), before HoldSec of calm */
        at(f, 4, 0, 0, 30);
        assert_string_equal(knob(f), "Y");
        assert_int_equal(f->m.steer.policy.mode, MODE_PROTECT);
        at(f, 4.5, 0, 0, 5);
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_logged(f, "Mode: Idle (shrinker already on)");
        assert_int_equal(count_logged(f, "Shrinker off"), 1); /* the knob stays at its baseline, Y */
        at(f, 9, 0, 0, 5);

        /* pressure again, then calm: the flip back to the baseline is logged as such */
        at(f, 10, 50, 100, 5);
        assert_string_equal(knob(f), "N");
        at(f, 11, 0, 0, 5);
        at(f, 16, 0, 0, 5);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker back to baseline (on): pressure below 2% for 5 s");
        assert_int_equal(count_logged(f, "Shrinker off:"), 2);
        assert_int_equal(count_logged(f, "Shrinker on:"), 1);
}

/* What every exit path calls (SIGTERM itself: test-events.c). */
static void restore_puts_everything_back(void **state) {
        struct fake *f = *state;
        struct saved sv;

        assert_int_equal(start(f, QUICK), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Restored shrinker_enabled to its original value Y");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* The shipped defaults near the limit: stores are no longer favoured, and
 * the knob goes back to the admin's value; never further. */
static void near_limit_goes_back_to_baseline(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK_DEFAULTS), 0); /* baseline Y, as the knob was */
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        at(f, 2, 30, 500, 60); /* and heading for its limit within LeadSec */
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker back to baseline (on): pool at 60% of limit and rising 25.0%/s");
        assert_logged(f, "MODE=idle REASON=pool-rising");
        at(f, 3, 30, 500, 86);
        assert_int_equal(count_logged(f, "Shrinker"), 2);
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_string_equal(f->m.report.status, "Idle, shrinker_enabled=Y, pressure 30.0%, pool 86% of limit");
        /* room again, pressure still high: favour stores again */
        at(f, 4, 30, 500, 60);
        at(f, 5, 30, 500, 60);
        assert_string_equal(knob(f), "N");
        manager_restore(&f->m);
        assert_string_equal(knob(f), "Y");
}

/* With the baseline off, a pool at and rising past its limit changes nothing. */
static void near_limit_never_turns_the_shrinker_on(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK_DEFAULTS "[Daemon]\nBaseline=off\n"), 0);
        assert_string_equal(knob(f), "N");
        for (int t = 1; t <= 6; t++)
                at(f, t, 30, 500, 40 + 12 * t);
        assert_string_equal(knob(f), "N");
        assert_false(logged(f, "Shrinker on"));
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
}

static void prediction_acts_before_the_limit(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, "[Pool]\nLeadSec=10\nShrinkerNearLimit=yes\n[Daemon]\nBaseline=off\n"), 0);
        assert_string_equal(knob(f), "N"); /* Baseline=off applied at start */
        assert_logged(f, "Shrinker back to baseline (off): Baseline=off");
        at(f, 1, 30, 500, 10);
        at(f, 2, 30, 500, 30);   /* fast, but below Pool.WatchPercent: not yet */
        assert_string_equal(knob(f), "N");
        at(f, 3, 30, 500, 50);
        /* smoothed 15 %/s: full in 3.3 s, within LeadSec */
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker on: pool at 50% of limit and rising 15.0%/s, full in 3.3 s (lead 10 s)");
        assert_logged(f, "REASON=pool-rising");
}

/* Rule (b2): with ReleasePercent set, a pool that has settled below it goes
 * back to the baseline although pressure (5%: neither high nor calm) stays. */
static void settled_pool_goes_back_to_baseline(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, "[Pool]\nLeadSec=0\nReleasePercent=80\nShrinkerNearLimit=yes\n[Flips]\nMinDwellSec=0\n"
                                  "[Daemon]\nBaseline=off\n"), 0);
        at(f, 1, 5, 500, 90);
        assert_string_equal(knob(f), "Y");
        at(f, 2, 5, 500, 84);
        at(f, 3, 5, 500, 79); /* below, but only just */
        assert_string_equal(knob(f), "Y");
        at(f, 4, 5, 500, 78);
        assert_string_equal(knob(f), "N");
        assert_logged(f, "pool at 78.0% of limit, below 80% and not rising");
        assert_logged(f, "REASON=pool-settled");
        assert_int_equal(count_logged(f, "Shrinker on:"), 1);
}

static void dry_run_never_writes(void **state) {
        struct fake *f = *state;
        struct saved sv;

        assert_int_equal(start(f, QUICK "[Daemon]\nDryRun=yes\n"), 0);
        assert_logged(f, "Dry run: the knob and the batch caps are never written");
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Would set shrinker_enabled=N: pressure 30.0%");
        assert_logged(f, "DRY_RUN=1");
        assert_string_equal(f->m.report.status, "Favouring stores, shrinker_enabled=N, pressure 30.0%, pool 12% of limit (dry run)");
        at(f, 2, 30, 500, 90);
        assert_logged(f, "Would set shrinker_enabled=Y: pool at 90%");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        manager_restore(&f->m);
        assert_string_equal(knob(f), "Y");
}

static void dwell_holds_back_once(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, "[Pool]\nLeadSec=0\n[Flips]\nMinDwellSec=10\n"), 0);
        at(f, 1, 0, 0, 90);      /* already Y: protect without a flip */
        at(f, 1.5, 30, 500, 20); /* the pool must stay low for an interval ... */
        at(f, 2, 30, 500, 20);   /* ... then off: the first flip, allowed */
        assert_string_equal(knob(f), "N");
        at(f, 3, 30, 500, 86);   /* safety: immediate */
        assert_string_equal(knob(f), "Y");
        at(f, 4, 30, 500, 20);
        at(f, 5, 30, 500, 20);   /* wants off 2 s after a flip: held */
        at(f, 6, 30, 500, 20);
        assert_string_equal(knob(f), "Y");
        assert_int_equal(count_logged(f, "Holding back a flip"), 1);
        at(f, 12, 30, 500, 20);  /* (the daemon samples every second meanwhile) */
        assert_string_equal(knob(f), "Y");
        at(f, 13, 30, 500, 20);
        assert_string_equal(knob(f), "N");
}

static void outside_change_while_idle_becomes_baseline(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK), 0);
        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "N\n"); /* the admin */
        at(f, 1, 0, 0, 10);
        assert_logged(f, "shrinker_enabled was set to N outside zswap-tuned while idle; that is the baseline now");
        at(f, 2, 30, 500, 10);   /* throughput: already N, no write needed */
        assert_int_equal(count_logged(f, "Shrinker off"), 0);
        at(f, 3, 0, 0, 90);
        assert_string_equal(knob(f), "Y");
        manager_restore(&f->m);
        assert_string_equal(knob(f), "N"); /* the admin's value, not the startup one */
}

/* Fail closed (issue 22, finding 2): an original that cannot be saved is
 * never changed. The save file's name taken by a directory makes every save
 * fail (EISDIR at the rename), as a full file system does. */
static void unsaved_original_changes_nothing(void **state) {
        struct fake *f = *state;
        char path[PATH_MAX], buf[65536];
        struct snapshot snap;

        tu_write(f->root, "/run/" SAVEFILE_NAME "/x", "\n");
        assert_int_equal(start(f, QUICK "[Daemon]\nBaseline=off\n"), 0);
        assert_string_equal(knob(f), "Y");
        for (int i = 1; i <= 5; i++)
                at(f, i, 0, 0, 10);
        assert_string_equal(knob(f), "Y");
        assert_int_equal(count_logged(f, "changing nothing (monitoring only)"), 1);
        snprintf(path, sizeof(path), "%s/" SNAPSHOT_NAME, f->state);
        assert_true(read_full_file(path, buf, sizeof(buf)) > 0);
        assert_int_equal(snapshot_parse(buf, &snap), 0);
        assert_true(snap.warnings & WARN_SAVE_FAILED);
        /* once it can be saved, it is, and then changed */
        snprintf(path, sizeof(path), "%s/" SAVEFILE_NAME, f->state);
        tu_rm_rf(path);
        at(f, 6, 0, 0, 10);
        assert_logged(f, "again; steering resumes");
        assert_string_equal(knob(f), "N");
        struct saved sv;
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.value, KNOB_ON);
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(knob(f), "Y");
}

static void leftover_savefile_is_the_original(void **state) {
        struct fake *f = *state;

        /* A previous instance was SIGKILLed with the knob at Y; it had saved N. */
        struct saved sv = { .knob = "shrinker_enabled", .value = KNOB_OFF };
        assert_int_equal(tu_savefile_write(f->state, &sv), 0);
        assert_int_equal(start(f, QUICK), 0);
        assert_logged(f, "left by an instance that was killed: putting back what it changed");
        assert_logged(f, "Restored shrinker_enabled to its original value N");
        assert_string_equal(knob(f), "N");
        at(f, 1, 0, 0, 90);
        assert_string_equal(knob(f), "Y");
        manager_restore(&f->m);
        assert_string_equal(knob(f), "N");
}

static void no_knob_means_monitor_only(void **state) {
        struct fake *f = *state;
        char path[600];

        snprintf(path, sizeof(path), "%s" ZSWAP_PARAMS "/shrinker_enabled", f->root);
        unlink(path);
        assert_int_equal(start(f, QUICK), 0);
        assert_logged(f, "monitoring only");
        at(f, 1, 0, 0, 95);
        assert_string_equal(f->m.report.status, "Protecting pool, knob none, pressure 0.0%, pool 95% of limit");
        assert_logged(f, "Mode: Protecting pool");
        assert_false(logged(f, "Shrinker on"));
}

static void forced_knob_must_exist(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, "[Daemon]\nKnob=shrink_enabled\n"), EXIT_UNAVAILABLE);
        assert_logged(f, "Knob=shrink_enabled, but /sys/module/zswap/parameters/shrink_enabled does not exist");
        assert_string_equal(knob(f), "Y");
}

static void old_patch_knob_is_found(void **state) {
        struct fake *f = *state;
        char path[600];

        snprintf(path, sizeof(path), "%s" ZSWAP_PARAMS "/shrinker_enabled", f->root);
        unlink(path);
        tu_write(f->root, ZSWAP_PARAMS "/shrink_enabled", "Y\n");
        assert_int_equal(start(f, QUICK), 0);
        assert_logged(f, "Knob: shrink_enabled = Y");
        at(f, 1, 30, 500, 10);
        assert_string_equal(tu_read(f->root, ZSWAP_PARAMS "/shrink_enabled", path, sizeof(path)), "N");
}

static void missing_psi_is_fatal(void **state) {
        struct fake *f = *state;
        char path[600];

        snprintf(path, sizeof(path), "%s/proc/pressure/memory", f->root);
        unlink(path);
        assert_int_equal(start(f, QUICK), EXIT_UNAVAILABLE);
        assert_logged(f, "boot with psi=1");
        assert_string_equal(knob(f), "Y");
}

static void cgroup_source_comes_and_goes(void **state) {
        struct fake *f = *state;
        char path[600];

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        assert_int_equal(start(f, QUICK "[Pressure]\nSystem=no\nCgroups=app.slice\n"), 0);
        assert_logged(f, "PSI: cannot read /sys/fs/cgroup/app.slice/memory.pressure");
        /* the slice starts: its pressure is used from the next sample on */
        tu_write(f->root, "/sys/fs/cgroup/app.slice/memory.pressure", "some total=0\nfull total=0\n");
        at(f, 1, 0, 0, 10);
        assert_logged(f, "PSI: /sys/fs/cgroup/app.slice/memory.pressure is back");
        tu_write(f->root, "/sys/fs/cgroup/app.slice/memory.pressure", "some total=400000\nfull total=0\n");
        at(f, 2, 0, 500, 10); /* system pressure 0, the slice's 40% */
        assert_string_equal(knob(f), "N");
        assert_logged(f, "Shrinker off: pressure 40.0%");
        /* the slice stops */
        snprintf(path, sizeof(path), "%s/sys/fs/cgroup/app.slice/memory.pressure", f->root);
        unlink(path);
        at(f, 3, 0, 0, 10);
        assert_logged(f, "PSI: cannot read /sys/fs/cgroup/app.slice/memory.pressure: No such file or directory; "
                         "ignoring it until it is back");
}

static void reload_applies_or_keeps(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK), 0);
        tu_write(f->root, "/zswap-tuned.conf", "[Pool]\nHighPercent=50\nLowPercent=40\n");
        assert_int_equal(manager_reload(&f->m), 0);
        assert_logged(f, "Reloaded configuration");
        assert_float_equal(f->m.params.pool_high, 50, 0);
        tu_write(f->root, "/zswap-tuned.conf", "[Pool]\nHighPercent=60\nnonsense\n");
        assert_int_not_equal(manager_reload(&f->m), 0);
        assert_logged(f, "zswap-tuned.conf:3: syntax error");
        assert_logged(f, "keeping the old configuration");
        assert_float_equal(f->m.params.pool_high, 50, 0);
}

/* As the daemon computes it: whole pages of pct percent of the limit. */
static const char *cap_bytes(double limit_kb, double pct) {
        static char buf[32];
        snprintf(buf, sizeof(buf), "%llu",
                 (unsigned long long) ((uint64_t) (limit_kb * 1024 * pct / 100) / 4096 * 4096));
        return buf;
}

static const char *zswap_max(struct fake *f) {
        static char buf[32];
        return tu_read(f->root, "/sys/fs/cgroup/batch.slice/memory.zswap.max", buf, sizeof(buf));
}

static void batch_use(struct fake *f, double pct) {
        static uint64_t stalled;

        tu_write(f->root, "/sys/fs/cgroup/batch.slice/memory.zswap.current", "%llu\n",
                 (unsigned long long) (pct / 100 * LIMIT_KB * 1024));
        /* the batch job stalls half of every second: that wakes the daemon
         * (on a real kernel) but is not pressure */
        stalled += 500000;
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/memory.pressure",
                 "some avg10=50.00 avg60=0.00 avg300=0.00 total=%llu\nfull avg10=0.00 avg60=0.00 avg300=0.00 "
                 "total=0\n", (unsigned long long) stalled);
}

/* A cgroup v2 tree with batch.slice, uncapped ("max") and empty. */
static void with_batch_slice(struct fake *f) {
        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/memory.zswap.max", "max\n");
        batch_use(f, 0);
        write_world(f); /* and system.slice's stalls */
}

/* Issue 46: a cap on a cgroup that holds the daemon's own reaches the
 * daemon too, and one in init.scope PID 1: a fixed [Batch] Cgroups= path
 * there is refused with its FILE:LINE (at a31205f both were capped). */
static void batch_fixed_path_around_own_cgroup_refused(void **state) {
        struct fake *f = *state;
        char buf[32];

        with_batch_slice(f);
        tu_write(f->root, "/proc/self/cgroup", "0::/batch.slice/zswap-tuned.service\n");
        tu_write(f->root, "/sys/fs/cgroup/init.scope/x/memory.zswap.max", "max\n");
        tu_write(f->root, "/sys/fs/cgroup/init.scope/x/memory.zswap.current", "0\n");
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice init.scope/x\n"), 0);
        assert_logged(f, "Cgroups=batch.slice is, lies in or holds the daemon's own cgroup; a cap there would reach "
                         "it too: not capping it");
        assert_logged(f, "Cgroups=init.scope/x lies in init.scope (PID 1)");
        assert_int_equal(f->m.batch.n, 0);
        at(f, 1, 0, 500, 12);
        assert_string_equal(zswap_max(f), "max");
        assert_string_equal(tu_read(f->root, "/sys/fs/cgroup/init.scope/x/memory.zswap.max", buf, sizeof(buf)), "max");
}

static void batch_cgroup_capped_from_the_start(void **state) {
        struct fake *f = *state;
        struct saved sv;

        with_batch_slice(f);
        /* above the default (50), so that the room below the target binds */
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\nZswapMaxPercent=70\n"), 0);
        assert_logged(f, "Batch: /sys/fs/cgroup/batch.slice/memory.zswap.max, zswap capped at most at 70% of the pool "
                         "limit");
        /* the rest of the pool is at 10 %: room for 67.5 % below 77.5 % */
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 67.5));
        assert_logged(f, "Capped the zswap use of batch.slice at 131.8 MiB (68% of the pool limit): what the rest "
                         "of the pool (10%) leaves below 77.5%");
        assert_logged(f, "CGROUP=batch.slice");
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.n_caps, 1);
        assert_string_equal(sv.caps[0].value, "max");

        /* pressure: the room below LowPercent only */
        at(f, 1, 30, 500, 12);
        assert_int_equal(f->m.steer.policy.mode, MODE_THROUGHPUT);
        at(f, 2, 30, 500, 12);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 58));
        assert_logged(f, "Moved the zswap cap of batch.slice to");

        /* the admin halves max_pool_percent: the same pool is twice the
         * share of the limit, and the cap is a share of the new limit */
        tu_write(f->root, ZSWAP_PARAMS "/max_pool_percent", "10\n");
        at(f, 3, 30, 500, 12);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB / 2, 46));
        tu_write(f->root, ZSWAP_PARAMS "/max_pool_percent", "20\n");

        /* calm: the idle room again, but still capped */
        at(f, 4, 0, 0, 12);
        at(f, 10, 0, 0, 12);
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 65.5));

        /* SIGTERM: restored, nothing left in the save file */
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(zswap_max(f), "max");
        assert_logged(f, "Lifted the zswap cap of batch.slice (memory.zswap.max back to max)");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* A cap never loosens a limit already set (issue 48): batch.slice holds a
 * limit of its own (60 % of the pool limit) before the daemon starts. The
 * idle cap (67.5 %) would loosen it: left alone, nothing saved. Under
 * pressure the cap (58 %) is below it: saved first, then written. Calm
 * again, the cap would be 65.5 %: the limit is written, never more. On
 * exit the limit is what is put back. */
static void batch_cap_never_above_its_own_limit(void **state) {
        struct fake *f = *state;
        char limit[32];
        struct saved sv;

        with_batch_slice(f);
        snprintf(limit, sizeof(limit), "%s", cap_bytes(LIMIT_KB, 60));
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/memory.zswap.max", "%s\n", limit);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\nZswapMaxPercent=70\n"), 0);
        assert_string_equal(zswap_max(f), limit);
        assert_int_equal(count_logged(f, "a limit the daemon did not write; leaving it there"), 1);
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        at(f, 1, 0, 0, 12);
        assert_string_equal(zswap_max(f), limit);
        assert_int_equal(count_logged(f, "a limit the daemon did not write; leaving it there"), 1); /* once */

        at(f, 2, 30, 500, 12);
        at(f, 3, 30, 500, 12);
        assert_int_equal(f->m.steer.policy.mode, MODE_THROUGHPUT);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 58));
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.n_caps, 1);
        assert_string_equal(sv.caps[0].value, limit);

        at(f, 4, 0, 0, 12);
        at(f, 10, 0, 0, 12);
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_true(f->m.steer.policy.batch_cap > 60); /* 65.5 % decided ... */
        assert_string_equal(zswap_max(f), limit);     /* ... the limit written */
        assert_logged(f, "its own limit from before, below the cap decided");

        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(zswap_max(f), limit);
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* A batch job fills the pool with no pressure anywhere, up to its cap: the
 * cap keeps the pool below the mark where the shrinker would turn on, and
 * since the cap bounds it, its growth is no reason to predict a full pool
 * either. */
static void batch_fills_to_its_cap(struct fake *f, const char *extra) {
        char conf[256];

        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "N\n");
        with_batch_slice(f);
        snprintf(conf, sizeof(conf), "[Pressure]\nHoldSec=5\n[Flips]\nMinDwellSec=0\n"
                                     "[Batch]\nCgroups=batch.slice\nZswapMaxPercent=60\n%s", extra);
        assert_int_equal(start(f, conf), 0);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 60));
        batch_use(f, 10);
        at(f, 1, 0, 500, 20);
        batch_use(f, 30);
        at(f, 2, 0, 500, 40);
        batch_use(f, 45);
        at(f, 3, 0, 500, 55);
        batch_use(f, 55);
        at(f, 4, 0, 500, 65);
        /* 10 %/s and more, 35 % left: unbounded, that would be protected against */
        assert_string_equal(knob(f), "N");
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_float_equal(f->m.pressure, 0, 0);
        assert_int_equal(f->m.steer.policy.n_flips, 0);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 60));
        /* at its cap and still storing */
        batch_use(f, 59);
        at(f, 5, 0, 500, 69);
}

/* By default (ShrinkerAtCap=no) the cap is the whole answer: the job stores
 * at it with the shrinker left alone. */
static void batch_filling_the_pool_is_capped_not_protected(void **state) {
        struct fake *f = *state;

        batch_fills_to_its_cap(f, "");
        for (int t = 6; t <= 12; t++)
                at(f, t, 0, 500, 69);
        assert_string_equal(knob(f), "N");
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_int_equal(f->m.steer.policy.n_flips, 0);
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 60));
}

/* With ShrinkerAtCap=yes, once the job stores at its cap the shrinker turns
 * on to write its cold entries back (reason batch-full), and goes back to
 * the baseline after it exits. */
static void batch_at_its_cap_with_shrinker_at_cap(void **state) {
        struct fake *f = *state;

        batch_fills_to_its_cap(f, "ShrinkerAtCap=yes\n");
        assert_string_equal(knob(f), "Y");
        assert_int_equal(f->m.steer.policy.mode, MODE_PROTECT);
        assert_logged(f, "REASON=batch-full");
        /* ... and so says the status file zswap-tuned status reads */
        {
                char path[PATH_MAX], buf[65536];
                struct snapshot snap;

                snprintf(path, sizeof(path), "%s/" SNAPSHOT_NAME, f->state);
                assert_true(read_full_file(path, buf, sizeof(buf)) > 0);
                assert_int_equal(snapshot_parse(buf, &snap), 0);
                assert_int_equal(snap.reason, REASON_BATCH_FULL);
        }
        /* protecting: the room below LowPercent (70 - the rest's 10) */
        assert_string_equal(zswap_max(f), cap_bytes(LIMIT_KB, 60));

        /* the job exits: off its cap, calm for HoldSec, back to N */
        batch_use(f, 0);
        for (int t = 6; t <= 12; t++)
                at(f, t, 0, t == 6 ? 500 : 0, 10);
        assert_string_equal(knob(f), "N");
        assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        assert_int_equal(f->m.steer.policy.n_flips, 2);
}

static void batch_cap_survives_sigkill(void **state) {
        struct fake *f = *state;
        struct saved sv = { .n_caps = 1 };

        /* what a SIGKILLed instance leaves: a cap and the save file */
        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/memory.zswap.max", "12345\n");
        snprintf(sv.caps[0].path, sizeof(sv.caps[0].path), "/sys/fs/cgroup/batch.slice/memory.zswap.max");
        snprintf(sv.caps[0].value, sizeof(sv.caps[0].value), "max");
        assert_int_equal(tu_savefile_write(f->state, &sv), 0);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        assert_logged(f, "Restored /sys/fs/cgroup/batch.slice/memory.zswap.max to max");
        assert_string_equal(zswap_max(f), "max");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

static void batch_without_v2_is_said_once(void **state) {
        struct fake *f = *state;

        tu_write(f->root, "/sys/fs/cgroup/memory/batch/memory.limit_in_bytes", "1000\n"); /* v1 */
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch\nIdleCgroups=yes\n"), 0);
        assert_logged(f, "does not exist (no cgroup v2 memory controller, or the cgroup is not there yet)");
        /* IdleCgroups=yes has no v2 hierarchy to look in: said, and nothing watched */
        assert_logged(f, "Batch: IdleCgroups=: no cgroup v2 hierarchy is mounted");
        assert_int_equal(follow_n_watches(f->m.follow.batch), 0);
        at(f, 1, 30, 500, 12);
        at(f, 2, 30, 500, 12);
        assert_int_equal(count_logged(f, "Batch:"), 2);
        assert_string_equal(knob(f), "N"); /* the knob works regardless */
}

/* A cgroup's memory.pressure with this stall total. */
static void psi_file(struct fake *f, const char *dir, uint64_t total) {
        char rel[512];

        snprintf(rel, sizeof(rel), "/sys/fs/cgroup/%s/memory.pressure", dir);
        tu_write(f->root, rel, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\nfull avg10=0.00 avg60=0.00 "
                               "avg300=0.00 total=0\n", (unsigned long long) total);
}

/* Issue 48 (diurnal-y): with batch work known and nothing named, the
 * system's figure is mostly the batch's own stalls. The batch stalls 40 %,
 * the service (system.slice) not at all: the shrinker stays on. When the
 * service stalls, it goes off. (Before: off at the first sample.) */
static void batch_stalls_are_not_the_services(void **state) {
        struct fake *f = *state;

        with_batch_slice(f);
        f->svc_apart = true;
        write_world(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        for (int t = 1; t <= 10; t++) {
                batch_use(f, 5);
                at(f, t, 40, 500, 12);
                assert_string_equal(knob(f), "Y");
                assert_int_equal(f->m.steer.policy.mode, MODE_IDLE);
        }
        assert_logged(f, "Pressure: batch work is known and no [Pressure] cgroup is there: the rules read the "
                         "rest, the cgroups that are no batch work and hold none (system.slice), not the system's "
                         "figure, which is then mostly the batch's own stalls");
        assert_string_equal(f->m.report.status,
                            "Idle, shrinker_enabled=Y, pressure 0.0% (the rest: system.slice), pool 12% of limit");
        assert_int_equal(count_logged(f, "Pressure: "), 1); /* said once */
        /* the service stalls 30 % of the next second: off */
        f->svc_total += 300000;
        at(f, 11, 40, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_logged(f, "Shrinker off: pressure of the rest 30.0% >= 10%, pool 12% of limit");
        assert_string_equal(f->m.report.status, "Favouring stores, shrinker_enabled=N, pressure 30.0% (the rest: "
                                                "system.slice), pool 12% of limit");
        /* and back when the service is calm, the batch stalling on */
        for (int t = 12; t <= 18; t++)
                at(f, t, 40, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker back to baseline (on): pressure of the rest below 2% for 5 s");
}

/* The batch lies in system.slice: system.slice (its stalls are the batch's
 * too) is read as its other children; user.slice as it is. */
static void batch_inside_a_slice_reads_its_siblings(void **state) {
        struct fake *f = *state;
        uint64_t batch = 0, app = 0, user = 0;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/system.slice/batch.service/memory.zswap.max", "max\n");
        tu_write(f->root, "/sys/fs/cgroup/system.slice/batch.service/memory.zswap.current", "0\n");
        f->svc_apart = true;
        write_world(f);
        psi_file(f, "system.slice/batch.service", 0);
        psi_file(f, "system.slice/app.service", 0);
        psi_file(f, "user.slice", 0);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=system.slice/batch.service\n"), 0);
        for (int t = 1; t <= 5; t++) {
                batch += 400000;
                f->svc_total += 400000; /* system.slice: the batch's stalls */
                psi_file(f, "system.slice/batch.service", batch);
                at(f, t, 40, 500, 12);
                assert_string_equal(knob(f), "Y");
        }
        assert_logged(f, "the rules read the rest, the cgroups that are no batch work and hold none "
                         "(system.slice/app.service, user.slice)");
        /* user.slice stalls a little, app.service more: the max counts */
        user += 50000;
        app += 200000;
        psi_file(f, "user.slice", user);
        psi_file(f, "system.slice/app.service", app);
        at(f, 6, 40, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_string_equal(f->m.report.status, "Favouring stores, shrinker_enabled=N, pressure 20.0% (the rest: "
                                                "system.slice/app.service), pool 12% of limit");
}

/* A named pressure source is the rest: the system's figure (the batch's
 * stalls) is not read, the named cgroup's is. */
static void batch_known_reads_the_named_source(void **state) {
        struct fake *f = *state;

        with_batch_slice(f);
        psi_file(f, "app.slice", 0);
        assert_int_equal(start(f, QUICK "[Pressure]\nCgroups=app.slice\n[Batch]\nCgroups=batch.slice\n"), 0);
        at(f, 1, 40, 500, 12);
        at(f, 2, 40, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Pressure: batch work is known: the rules read the [Pressure] cgroups' pressure (the "
                         "rest)");
        psi_file(f, "app.slice", 250000);
        at(f, 3, 40, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_string_equal(f->m.report.status, "Favouring stores, shrinker_enabled=N, pressure 25.0% (the rest: "
                                                "app.slice), pool 12% of limit");
}

/* The recording carries the rest's pressure (A lines): replay --verify
 * reproduces what the daemon decided while the batch stalled. Without
 * them (a recording before 0.3.0) the rules read the S lines' figure,
 * as those daemons did: here that would have turned the shrinker off. */
static void recording_carries_the_rests_pressure(void **state) {
        struct fake *f = *state;
        char rec[600], bare[600], err[512], line[512];
        struct replay_options o = { .quiet = true };
        struct conf c;
        FILE *in, *out, *null = fopen("/dev/null", "w");
        unsigned a_lines = 0;

        with_batch_slice(f);
        f->svc_apart = true;
        write_world(f);
        snprintf(rec, sizeof(rec), "%s/z.rec", f->root);
        snprintf(bare, sizeof(bare), "%s/bare.rec", f->root);
        tu_write(f->root, "/zswap-tuned.conf", "%s", QUICK "[Batch]\nCgroups=batch.slice\n");
        manager_init(&f->m);
        f->m.config_path = f->conf;
        f->m.use_udev = false;
        f->m.record_path = rec;
        snprintf(f->m.state_dir, sizeof(f->m.state_dir), "%s", f->state);
        kernel_init(&f->m.kernel, f->root);
        assert_int_equal(manager_load_config(&f->m, err, sizeof(err)), 0);
        assert_int_equal(manager_start(&f->m, NULL), 0);
        f->t0 = f->m.last_sample;
        for (int t = 1; t <= 5; t++)
                at(f, t, 40, 500, 12);
        assert_string_equal(knob(f), "Y");
        f->svc_total += 300000;
        at(f, 6, 40, 500, 12);
        assert_string_equal(knob(f), "N");
        record_close(&f->m.recorder);

        in = fopen(rec, "r");
        out = fopen(bare, "w");
        assert_non_null(in);
        assert_non_null(out);
        while (fgets(line, sizeof(line), in)) {
                if (line[0] == 'A')
                        a_lines++;
                else
                        fputs(line, out);
        }
        fclose(in);
        fclose(out);
        assert_true(a_lines >= 6);
        conf_defaults(&c);
        assert_int_equal(conf_load(&c, f->conf, err, sizeof(err)), 0);
        o.verify = true;
        assert_int_equal(replay(rec, &c, &o, null), 0);
        assert_int_equal(replay(bare, &c, &o, null), 1); /* the system's 40 %: off at once */
        conf_free(&c);
        fclose(null);
}

static void batch_dry_run_writes_nothing(void **state) {
        struct fake *f = *state;

        with_batch_slice(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n[Daemon]\nDryRun=yes\n"), 0);
        at(f, 1, 30, 500, 12);
        assert_logged(f, "Would have: Capped the zswap use of batch.slice");
        assert_string_equal(zswap_max(f), "max");
}

static void unreadable_pool_decides_nothing(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK), 0);
        f->broken_meminfo = true;
        at(f, 1, 30, 500, 12);
        at(f, 2, 30, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_int_equal(count_logged(f, "Cannot read the zswap pool"), 1);
        assert_logged(f, "Cannot read the zswap pool: unexpected contents");
        f->broken_meminfo = false;
        at(f, 3, 30, 500, 12);
        assert_logged(f, "The zswap pool is readable again");
}

/* Defect: favouring stores (knob off), the pool became unreadable and the
 * knob stayed off for ten minutes at a 99% pool. */
static void unreadable_pool_goes_back_to_baseline(void **state) {
        struct fake *f = *state;

        with_batch_slice(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_string_not_equal(zswap_max(f), "max");
        f->broken_meminfo = true;
        for (int t = 2; t <= 11; t++) {
                at(f, t, 30, 500, 99);
                assert_string_equal(knob(f), "N"); /* within the grace period */
        }
        at(f, 12, 30, 500, 99);
        assert_string_equal(knob(f), "Y");
        assert_string_equal(zswap_max(f), "max");
        assert_logged(f, "Mode: Idle: the pool has been unreadable for 10 s; batch caps lifted");
        assert_logged(f, "Shrinker back to baseline (on): the pool has been unreadable for 10 s");
        for (int t = 13; t <= 30; t++)
                at(f, t, 30, 500, 99);
        assert_int_equal(count_logged(f, "Cannot read the zswap pool"), 1);
        assert_int_equal(count_logged(f, "Shrinker"), 2);
        /* readable again: deciding again */
        f->broken_meminfo = false;
        at(f, 31, 30, 500, 12);
        at(f, 32, 30, 500, 12);
        assert_string_equal(knob(f), "N");
}

static void zswap_disabled_at_run_time(void **state) {
        struct fake *f = *state;

        with_batch_slice(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        tu_write(f->root, ZSWAP_PARAMS "/enabled", "N\n");
        at(f, 2, 30, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_string_equal(zswap_max(f), "max");
        assert_logged(f, "zswap is disabled; back to the baseline until it is enabled");
        at(f, 3, 30, 500, 12);
        /* said once: the notice, the mode line and the flip back */
        assert_int_equal(count_logged(f, "zswap is disabled"), 3);
        tu_write(f->root, ZSWAP_PARAMS "/enabled", "Y\n");
        at(f, 4, 30, 500, 12);
        assert_logged(f, "The zswap pool is enabled again");
        at(f, 5, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_string_not_equal(zswap_max(f), "max");
}

/* Defect: a reload into DryRun=yes left the knob off for good. */
static void reload_into_dry_run_restores(void **state) {
        struct fake *f = *state;
        struct saved sv;

        with_batch_slice(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        tu_write(f->root, "/zswap-tuned.conf", QUICK "[Batch]\nCgroups=batch.slice\n[Daemon]\nDryRun=yes\n");
        assert_int_equal(manager_reload(&f->m), 0);
        assert_string_equal(knob(f), "Y");
        assert_string_equal(zswap_max(f), "max");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        at(f, 2, 30, 500, 12);
        at(f, 3, 30, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Would set shrinker_enabled=N");
        /* and back out of the dry run: deciding for real again */
        tu_write(f->root, "/zswap-tuned.conf", QUICK "[Batch]\nCgroups=batch.slice\n");
        assert_int_equal(manager_reload(&f->m), 0);
        at(f, 4, 30, 500, 12);
        at(f, 5, 30, 500, 12);
        assert_string_equal(knob(f), "N");
}

/* Defect: a failing write was logged every sample and counted as a flip. */
static void failing_knob_write_said_once(void **state) {
        struct fake *f = *state;
        char path[600];

        assert_int_equal(start(f, QUICK), 0);
        snprintf(path, sizeof(path), "%s" ZSWAP_PARAMS "/shrinker_enabled", f->root);
        unlink(path);
        assert_int_equal(mkfifo(path, 0600), 0);
        for (int t = 1; t <= 30; t++)
                at(f, t, 30, 500, 12);
        assert_int_equal(count_logged(f, "Cannot set shrinker_enabled=N: not a regular file"), 1);
        assert_int_equal(count_logged(f, "Shrinker off"), 0);
        assert_int_equal(f->m.steer.policy.n_flips, 1); /* the one decision, not each retry */
        unlink(path);
        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "Y\n");
        at(f, 31, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        assert_logged(f, "Set shrinker_enabled=N after 30 failed attempts");
        assert_int_equal(count_logged(f, "Shrinker off"), 1);
        assert_int_equal(f->m.steer.policy.n_flips, 1);
}

/* Defect: a hand-started second instance restored the service's caps,
 * adopted its saved value and deleted the save file. */
static void second_instance_refused(void **state) {
        struct fake *f = *state;
        struct manager m2;
        struct saved sv;

        assert_int_equal(start(f, QUICK), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        manager_init(&m2);
        m2.use_udev = false;
        snprintf(m2.state_dir, sizeof(m2.state_dir), "%s", f->state);
        kernel_init(&m2.kernel, f->root);
        assert_int_equal(manager_start(&m2, NULL), EXIT_RUNNING);
        assert_int_equal(manager_restore(&m2), 0);
        manager_free(&m2);
        assert_logged(f, "Another zswap-tuned is running: it holds");
        assert_string_equal(knob(f), "N");
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.value, KNOB_ON);
        /* --restore refuses too */
        assert_int_equal(restore_run(&f->m.kernel, f->state, ""), -EBUSY);
        assert_string_equal(knob(f), "N");
}

static void removed_batch_cgroup_is_forgotten(void **state) {
        struct fake *f = *state;
        char path[600];
        struct saved sv;

        with_batch_slice(f);
        assert_int_equal(start(f, QUICK "[Batch]\nCgroups=batch.slice\n"), 0);
        assert_string_not_equal(zswap_max(f), "max");
        snprintf(path, sizeof(path), "%s/sys/fs/cgroup/batch.slice", f->root);
        tu_rm_rf(path);
        /* noticed at the next sample, though the cap would not move */
        at(f, 1, 30, 500, 12);
        assert_int_equal(count_logged(f, "Batch: /sys/fs/cgroup/batch.slice/memory.zswap.max is gone; forgetting its cap"),
                         1);
        /* the save file keeps the knob's original, no cap */
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.n_caps, 0);
        for (int t = 2; t <= 20; t++)
                at(f, t, 30, 500, t < 10 ? 12 : 40);
        assert_int_equal(count_logged(f, "is gone; forgetting its cap"), 1);
        assert_int_equal(access(path, F_OK), -1); /* never created */

        /* a cgroup of that name again (a batch service restarted): it
         * starts uncapped, and is saved and capped afresh */
        with_batch_slice(f);
        at(f, 21, 30, 500, 12);
        assert_string_not_equal(zswap_max(f), "max");
        assert_logged(f, "Batch: /sys/fs/cgroup/batch.slice/memory.zswap.max is there now");
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.n_caps, 1);
        assert_string_equal(sv.caps[0].value, "max");

        /* removed for good: nothing left to restore, nothing created */
        tu_rm_rf(path);
        assert_int_equal(manager_restore(&f->m), 0);
        assert_int_equal(count_logged(f, "is gone; forgetting its cap"), 2);
        assert_false(logged(f, "Lifted the zswap cap"));
        assert_false(logged(f, "Cannot"));
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        assert_int_equal(access(path, F_OK), -1);
}

static void knob_file_vanishes(void **state) {
        struct fake *f = *state;
        char path[600];
        struct saved sv;

        assert_int_equal(start(f, QUICK), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        snprintf(path, sizeof(path), "%s" ZSWAP_PARAMS "/shrinker_enabled", f->root);
        unlink(path);
        for (int t = 2; t <= 10; t++)
                at(f, t, t < 5 ? 30 : 0, 500, t < 5 ? 12 : 90);
        assert_int_equal(count_logged(f, "is gone; nothing to steer or restore there"), 1);
        assert_int_equal(manager_restore(&f->m), 0);
        assert_false(logged(f, "Cannot"));
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        assert_int_equal(access(path, F_OK), -1);
}

/* Faults in what the kernel says: each is said, the daemon keeps running,
 * and the knob ends at the baseline while the pool cannot be seen. */
static void meminfo_faults_go_blind(void **state) {
        static const char *const bad[] = {
                "MemTotal: 1000000 kB\nMemFree: 5 kB\n", /* no Zswap: (and no debugfs) */
                "MemTotal: 0 kB\nZswap: 10 kB\n",
        };
        static const char *const said[] = {
                "Cannot read the zswap pool: no Zswap: line in /proc/meminfo and no debugfs pool_total_size",
                "Cannot read the zswap pool: unexpected contents",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct fake *f = *state;

                if (i > 0) {
                        teardown(state);
                        setup(state);
                        f = *state;
                }
                assert_int_equal(start(f, QUICK), 0);
                at(f, 1, 30, 500, 12);
                assert_string_equal(knob(f), "N");
                f->meminfo = bad[i];
                for (int t = 2; t <= 13; t++)
                        at(f, t, 30, 500, 12);
                assert_string_equal(knob(f), "Y");
                assert_int_equal(count_logged(f, said[i]), 1);
        }
}

static void max_pool_percent_zero(void **state) {
        struct fake *f = *state;

        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "N\n");
        assert_int_equal(start(f, QUICK), 0);
        tu_write(f->root, ZSWAP_PARAMS "/max_pool_percent", "0\n");
        for (int t = 1; t <= 5; t++)
                at(f, t, 30, 500, 12);
        /* no room at all, and something stored: that is a full pool */
        assert_string_equal(knob(f), "Y");
        assert_logged(f, "Shrinker on: pool at 100% of limit");
        assert_false(logged(f, "Cannot"));
        tu_write(f->root, ZSWAP_PARAMS "/max_pool_percent", "20\n");
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(knob(f), "N");
}

static void psi_garbage_is_said_as_such(void **state) {
        struct fake *f = *state;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/app.slice/memory.pressure", "some total=0\nfull total=0\n");
        assert_int_equal(start(f, QUICK "[Pressure]\nCgroups=app.slice\n"), 0);
        tu_write(f->root, "/sys/fs/cgroup/app.slice/memory.pressure", "no psi here\n");
        for (int t = 1; t <= 5; t++)
                at(f, t, 0, 0, 12);
        assert_int_equal(count_logged(f, "PSI: cannot read /sys/fs/cgroup/app.slice/memory.pressure: unexpected "
                                         "contents; ignoring it until it is back"), 1);
        assert_false(logged(f, "No such file"));
}

/* A save file someone tampered with: nothing outside the rules is written
 * at start-up, and what is valid in it still counts. */
static void tampered_savefile_at_startup(void **state) {
        struct fake *f = *state;
        char buf[64];

        tu_write(f->root, "/etc/victim", "precious\n");
        tu_write(f->root, "/sys/fs/cgroup/x.service/cgroup.kill", "0\n");
        tu_write(f->root, "/run/" SAVEFILE_NAME, "ZSWAP_MAX=0 /etc/victim\n"
                                                  "ZSWAP_MAX=1 /sys/fs/cgroup/x.service/cgroup.kill\n"
                                                  "KNOB=shrinker_enabled\nVALUE=N\nKNOB=enabled\n");
        assert_int_equal(start(f, QUICK), 0);
        assert_logged(f, "/run/" SAVEFILE_NAME ":1: the path is not a memory.zswap.max below /sys/fs/cgroup; "
                         "ignoring it");
        assert_logged(f, "/run/" SAVEFILE_NAME ":2: the path is not a memory.zswap.max");
        assert_logged(f, "/run/" SAVEFILE_NAME ":5: a second KNOB= line; ignoring it");
        assert_string_equal(tu_read(f->root, "/etc/victim", buf, sizeof(buf)), "precious");
        assert_string_equal(tu_read(f->root, "/sys/fs/cgroup/x.service/cgroup.kill", buf, sizeof(buf)), "0");
        /* the valid knob line is the original, put back at once */
        assert_logged(f, "Restored shrinker_enabled to its original value N");
        assert_string_equal(knob(f), "N");
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(knob(f), "N");
}

/* An admin writes the knob while the daemon is not idle: it stops fighting
 * until a reload (AdminBackOffSec=infinity), still capping. */
static void admin_write_backs_off_until_reload(void **state) {
        struct fake *f = *state;

        assert_int_equal(start(f, QUICK), 0);
        at(f, 1, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        tu_write(f->root, ZSWAP_PARAMS "/shrinker_enabled", "Y\n"); /* the admin */
        for (int t = 2; t <= 40; t++)
                at(f, t, t < 20 ? 30 : 0, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_int_equal(count_logged(f, "shrinker_enabled was set to Y outside zswap-tuned; leaving the knob alone "
                                         "until the next reload"), 1);
        assert_logged(f, "BACKOFF_SEC=infinity");
        at(f, 41, 30, 500, 12);
        at(f, 42, 30, 500, 12);
        assert_string_equal(knob(f), "Y");
        assert_string_equal(f->m.report.status, "Favouring stores (knob left to the admin), shrinker_enabled=Y, "
                                                 "pressure 30.0%, pool 12% of limit");
        assert_int_equal(manager_reload(&f->m), 0);
        at(f, 43, 30, 500, 12);
        assert_string_equal(knob(f), "N");
        /* the admin's value is what goes back on exit */
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(knob(f), "Y");
}

/* ---- followed cgroups: globs and IdleCgroups= on a live loop ------------- */

/* Samples a minute apart: what happens within a second is the follow
 * set's doing (a sample it asks for), not the sample timer's. */
#define LIVE "[Pool]\nSampleMs=60000\n"

static int start_live(struct fake *f, const char *config) {
        char text[4096];

        assert_int_equal(sd_event_new(&f->loop), 0);
        snprintf(text, sizeof(text), LIVE "%s", config);
        return start_on(f, f->loop, text);
}

static void new_cgroup(struct fake *f, const char *dir, const char *idle) {
        char p[512];

        snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/memory.zswap.max", dir);
        tu_write(f->root, p, "max\n");
        snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/memory.zswap.current", dir);
        tu_write(f->root, p, "0\n");
        if (idle) {
                snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/cpu.idle", dir);
                tu_write(f->root, p, "%s\n", idle);
        }
}

static const char *cap_of(struct fake *f, const char *dir) {
        static char buf[32];
        char p[512];

        snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/memory.zswap.max", dir);
        return tu_read(f->root, p, buf, sizeof(buf));
}

/* Run the loop until the cgroup's memory.zswap.max reads want (or, want
 * NULL, until it is no longer "max"), at most a second: the event is what
 * is waited for, never a fixed time. Returns the usec it took. */
static uint64_t until_cap(struct fake *f, const char *dir, const char *want) {
        uint64_t t0 = now_usec();

        for (;;) {
                const char *v = cap_of(f, dir);
                if (want ? strcmp(v, want) == 0 : strcmp(v, "max") != 0)
                        break;
                if (now_usec() - t0 >= USEC_PER_SEC)
                        fail_msg("%s: memory.zswap.max is %s after a second", dir, v);
                assert_true(sd_event_run(f->loop, USEC_PER_SEC - (now_usec() - t0)) >= 0);
        }
        return now_usec() - t0;
}

static uint64_t until_logged(struct fake *f, const char *needle) {
        uint64_t t0 = now_usec();

        while (!logged(f, needle)) {
                if (now_usec() - t0 >= USEC_PER_SEC) {
                        dump_log(f);
                        fail_msg("not logged within a second: %s", needle);
                }
                assert_true(sd_event_run(f->loop, USEC_PER_SEC - (now_usec() - t0)) >= 0);
        }
        return now_usec() - t0;
}

static bool saved(struct fake *f, const char *dir) {
        struct saved sv;
        char p[512];

        snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/memory.zswap.max", dir);
        if (tu_savefile_read(f->state, &sv) < 0)
                return false;
        for (unsigned i = 0; i < sv.n_caps; i++)
                if (strcmp(sv.caps[i].path, p) == 0)
                        return strcmp(sv.caps[i].value, "max") == 0;
        return false;
}

static void glob_match_capped_on_creation(void **state) {
        struct fake *f = *state;
        char dir[512];

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/cgroup.procs", "%s", "");
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice/*\nZswapMaxPercent=70\n"), 0);
        assert_logged(f, "Batch: Cgroups=batch.slice/* matches no cgroup now; followed as cgroups come");

        /* created after start: capped within a second, saved before the write */
        new_cgroup(f, "batch.slice/job-1.scope", NULL);
        until_cap(f, "batch.slice/job-1.scope", cap_bytes(LIMIT_KB, 67.5));
        assert_logged(f, "Batch: /sys/fs/cgroup/batch.slice/job-1.scope appeared; batch work from now on");
        assert_true(saved(f, "batch.slice/job-1.scope"));

        /* a second one: at once its share of the room nobody holds, then the
         * share divided over both */
        new_cgroup(f, "batch.slice/job-2.scope", NULL);
        until_cap(f, "batch.slice/job-2.scope", cap_bytes(LIMIT_KB, 33.75));
        assert_logged(f, "its share of the room nobody holds");
        until_cap(f, "batch.slice/job-1.scope", cap_bytes(LIMIT_KB, 33.75));
        assert_true(saved(f, "batch.slice/job-2.scope"));
        assert_int_equal(f->m.batch.n, 2);

        /* removed: forgotten with one line, out of the save file */
        snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/batch.slice/job-1.scope", f->root);
        tu_rm_rf(dir);
        until_logged(f, "Batch: /sys/fs/cgroup/batch.slice/job-1.scope is gone; forgetting its cap");
        assert_int_equal(count_logged(f, "job-1.scope is gone"), 1);
        assert_false(saved(f, "batch.slice/job-1.scope"));
        assert_int_equal(f->m.batch.n, 1);
        /* the one left gets the whole share again */
        until_cap(f, "batch.slice/job-2.scope", cap_bytes(LIMIT_KB, 67.5));

        /* back under the same name: capped afresh */
        new_cgroup(f, "batch.slice/job-1.scope", NULL);
        until_cap(f, "batch.slice/job-1.scope", NULL);
        assert_int_equal(count_logged(f, "job-1.scope appeared"), 2);
        assert_true(saved(f, "batch.slice/job-1.scope"));

        /* exit: every cap lifted, nothing left saved */
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(cap_of(f, "batch.slice/job-1.scope"), "max");
        assert_string_equal(cap_of(f, "batch.slice/job-2.scope"), "max");
        struct saved sv;
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* A Kubernetes node's best-effort pods: more batch cgroups than 0.2's save
 * file held (16). Each is capped and saved; a crash and --restore lift
 * them all. */
static void many_followed_cgroups_are_capped_and_restored(void **state) {
        struct fake *f = *state;
        char dir[128];
        struct saved sv;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        for (int i = 0; i < 40; i++) {
                snprintf(dir, sizeof(dir), "kubepods.slice/pod-%02d.slice", i);
                new_cgroup(f, dir, NULL);
        }
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=kubepods.slice/pod-*.slice\n"), 0);
        assert_int_equal(f->m.batch.n, 40);
        for (int i = 0; i < 40; i++) {
                snprintf(dir, sizeof(dir), "kubepods.slice/pod-%02d.slice", i);
                assert_string_not_equal(cap_of(f, dir), "max");
                assert_true(saved(f, dir));
        }
        /* SIGKILL: what is on the disk is all --restore has */
        restore_unlock(&f->m.restore);
        assert_int_equal(restore_run(&f->m.kernel, f->state, ""), 0);
        for (int i = 0; i < 40; i++) {
                snprintf(dir, sizeof(dir), "kubepods.slice/pod-%02d.slice", i);
                assert_string_equal(cap_of(f, dir), "max");
        }
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* On a real cgroupfs the removed cgroup's memory.pressure wakes a sample
 * before the follow set reads its IN_DELETE: that sample finds no
 * memory.zswap.current and drops the cap. The one line still says the cap
 * is forgotten (the guest said "is gone" alone on 6.12 and 7.2). */
static void glob_match_gone_before_its_event(void **state) {
        struct fake *f = *state;
        char dir[512];

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/cgroup.procs", "%s", "");
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice/*\nZswapMaxPercent=70\n"), 0);
        new_cgroup(f, "batch.slice/job-1.scope", NULL);
        until_cap(f, "batch.slice/job-1.scope", NULL);
        snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/batch.slice/job-1.scope", f->root);
        tu_rm_rf(dir);
        manager_tick(&f->m, now_usec()); /* before the loop reads the inotify event */
        assert_int_equal(count_logged(f, "job-1.scope is gone"), 0);
        until_logged(f, "Batch: /sys/fs/cgroup/batch.slice/job-1.scope is gone; forgetting its cap");
        assert_int_equal(count_logged(f, "job-1.scope is gone"), 1);
        assert_false(saved(f, "batch.slice/job-1.scope"));
        assert_int_equal(f->m.batch.n, 0);
}

/* systemd 253+ writes a unit's MemoryZSwapMax= ("max") after it creates the
 * cgroup, over the cap the daemon wrote at IN_CREATE (the guest saw it on
 * 7.2 with systemd 262): the sample a second after a new match puts it back. */
static void glob_match_cap_overwritten(void **state) {
        struct fake *f = *state;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/cgroup.procs", "%s", "");
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice/*\nZswapMaxPercent=70\n"), 0);
        new_cgroup(f, "batch.slice/job-1.scope", NULL);
        until_cap(f, "batch.slice/job-1.scope", NULL);
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/job-1.scope/memory.zswap.max", "max\n");
        until_cap(f, "batch.slice/job-1.scope", NULL);
        assert_int_equal(count_logged(f, "job-1.scope/memory.zswap.max holds max, not our cap"), 1);
        assert_true(saved(f, "batch.slice/job-1.scope"));
}

/* What the status file says made the batch cgroup whose name ends in dir
 * batch work (BATCH_BY=), "" if it says nothing, NULL if it is not listed. */
static const char *batch_by(struct fake *f, const char *dir) {
        static struct snapshot s;
        char p[PATH_MAX], buf[65536];
        size_t n = strlen(dir);

        snprintf(p, sizeof(p), "%s/" SNAPSHOT_NAME, f->state);
        assert_true(read_full_file(p, buf, sizeof(buf)) > 0);
        assert_int_equal(snapshot_parse(buf, &s), 0);
        for (unsigned i = 0; i < s.n_batch; i++) {
                size_t l = strlen(s.batch[i].cgroup);
                if (l >= n && strcmp(s.batch[i].cgroup + l - n, dir) == 0)
                        return s.batch[i].by;
        }
        return NULL;
}

static void idle_cgroup_is_batch_from_creation(void **state) {
        struct fake *f = *state;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        new_cgroup(f, "system.slice/db.service", "0");
        new_cgroup(f, "batch.slice", "1");
        assert_int_equal(start_live(f, QUICK "[Batch]\nIdleCgroups=yes\n"), 0);
        assert_string_equal(cap_of(f, "batch.slice"), cap_bytes(LIMIT_KB, 50));
        assert_string_equal(cap_of(f, "system.slice/db.service"), "max");

        /* systemd-run -p CPUWeight=idle: cpu.idle 1 when it is made */
        new_cgroup(f, "system.slice/run-u7.service", "1");
        until_cap(f, "system.slice/run-u7.service", NULL);
        assert_true(saved(f, "system.slice/run-u7.service"));
        manager_tick(&f->m, now_usec()); /* a sample: status says which rule took it */
        assert_string_equal(batch_by(f, "system.slice/run-u7.service"), "idle-cgroups");

        /* cgroupfs says nothing when cpu.idle changes: seen at the next
         * active sample (at most every 5 s) or a reload */
        tu_write(f->root, "/sys/fs/cgroup/system.slice/db.service/cpu.idle", "1\n");
        assert_int_equal(manager_reload(&f->m), 0);
        until_cap(f, "system.slice/db.service", NULL);
        assert_string_equal(cap_of(f, "system.slice/run-u7.service"), cap_of(f, "system.slice/db.service"));
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(cap_of(f, "system.slice/db.service"), "max");
}

/* The built-in defaults leave a cgroup marked idle alone (IdleCgroups=no
 * since 0.3.0: on a disk shared by swap and the service, capping it cost
 * the service 1.8-2x its p99): nothing is followed, nothing written. */
static void idle_cgroup_left_alone_by_default(void **state) {
        struct fake *f = *state;
        struct saved sv;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        new_cgroup(f, "batch.slice", "1");
        assert_int_equal(start_live(f, QUICK), 0);
        assert_false(f->m.conf.batch_idle);
        assert_null(f->m.follow.batch);
        assert_int_equal(f->m.batch.n, 0);
        manager_tick(&f->m, now_usec());
        assert_string_equal(cap_of(f, "batch.slice"), "max");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
}

/* A cgroup named in Cgroups= and also marked idle is one batch cgroup: once
 * it was two, which shared one cap out between them (half of it each, both
 * written to the same file; found in the phased benchmark). */
static void named_idle_cgroup_is_capped_once(void **state) {
        struct fake *f = *state;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        new_cgroup(f, "batch.slice", "1");
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice\nIdleCgroups=yes\n"), 0);
        assert_int_equal(f->m.batch.n, 1);
        assert_string_equal(cap_of(f, "batch.slice"), cap_bytes(LIMIT_KB, 50));
        manager_tick(&f->m, now_usec());
        assert_string_equal(batch_by(f, "batch.slice"), "cgroups"); /* named, not idle */
        /* no longer idle: still named, still capped */
        tu_write(f->root, "/sys/fs/cgroup/batch.slice/cpu.idle", "0\n");
        assert_int_equal(manager_reload(&f->m), 0);
        assert_int_equal(f->m.batch.n, 1);
        until_cap(f, "batch.slice", cap_bytes(LIMIT_KB, 50));
        assert_string_equal(cap_of(f, "batch.slice"), cap_bytes(LIMIT_KB, 50));
        assert_int_equal(manager_restore(&f->m), 0);
        assert_string_equal(cap_of(f, "batch.slice"), "max");
        assert_int_equal(count_logged(f, "back to ?"), 0);
}

static void followed_pressure_source(void **state) {
        struct fake *f = *state;
        char dir[512];

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        tu_write(f->root, "/sys/fs/cgroup/kubepods.slice/cgroup.procs", "%s", "");
        assert_int_equal(start_live(f, QUICK "[Pressure]\nCgroups=kubepods.slice/kubepods-pod*.slice\n"), 0);
        unsigned n = f->m.sources.n;
        tu_write(f->root, "/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice/memory.pressure",
                 "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        until_logged(f, "PSI: /sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice appeared; a pressure source from now on");
        assert_int_equal(f->m.sources.n, n + 1);
        assert_string_equal(f->m.sources.src[n].path,
                            "/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice/memory.pressure");
        assert_false(f->m.sources.src[n].wake_only);
        snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice", f->root);
        tu_rm_rf(dir);
        until_logged(f, "PSI: /sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice is gone");
        assert_int_equal(f->m.sources.n, n);
}

/* SIGKILL while followed cgroups hold caps, one of them removed since:
 * --restore lifts the other and is not troubled by the missing one. */
static void restore_lifts_caps_of_vanished_cgroups(void **state) {
        struct fake *f = *state;
        char dir[512];
        struct saved sv;

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        new_cgroup(f, "batch.slice/a.scope", NULL);
        new_cgroup(f, "batch.slice/b.scope", NULL);
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice/*\n"), 0);
        assert_string_not_equal(cap_of(f, "batch.slice/a.scope"), "max");
        assert_string_not_equal(cap_of(f, "batch.slice/b.scope"), "max");
        assert_int_equal(tu_savefile_read(f->state, &sv), 0);
        assert_int_equal(sv.n_caps, 2);
        /* killed: nothing restored, the lock gone with the process; then a.scope goes */
        restore_unlock(&f->m.restore);
        snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/batch.slice/a.scope", f->root);
        tu_rm_rf(dir);
        assert_int_equal(restore_run(&f->m.kernel, f->state, ""), 0);
        assert_string_equal(cap_of(f, "batch.slice/b.scope"), "max");
        assert_int_equal(tu_savefile_read(f->state, &sv), -ENOENT);
        f->m.batch.n = 0; /* what a killed daemon would have left: nothing to lift at teardown */
}

/* status: each pattern with how many cgroups it takes */
static void status_lists_patterns(void **state) {
        struct fake *f = *state;
        struct snapshot s;
        char buf[65536];

        tu_write(f->root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
        new_cgroup(f, "batch.slice/a.scope", NULL);
        new_cgroup(f, "batch.slice/b.scope", NULL);
        assert_int_equal(start_live(f, QUICK "[Batch]\nCgroups=batch.slice/* other.slice/*\nIdleCgroups=yes\n"), 0);
        char p[600];
        snprintf(p, sizeof(p), "%s/" SNAPSHOT_NAME, f->state);
        assert_true(read_full_file(p, buf, sizeof(buf)) > 0);
        assert_non_null(strstr(buf, "PATTERN=batch 2 batch.slice/*\n"));
        assert_non_null(strstr(buf, "PATTERN=batch 0 other.slice/*\n"));
        assert_non_null(strstr(buf, "PATTERN=batch 0 idle\n")); /* IdleCgroups=yes */
        assert_int_equal(snapshot_parse(buf, &s), 0);
        assert_int_equal(s.n_patterns, 3);
        assert_int_equal(s.pattern[0].matches, 2);
        assert_string_equal(s.pattern[1].pattern, "other.slice/*");
        assert_int_equal(s.n_batch, 2);
        char *json = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&json, &len);
        snapshot_json(&s, realtime_usec(), out);
        fclose(out);
        assert_non_null(strstr(json, "\"patterns\":[{\"role\":\"batch\",\"pattern\":\"batch.slice/*\",\"matches\":2}"));
        free(json);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
                T(full_cycle),
                T(restore_puts_everything_back),
        T(near_limit_goes_back_to_baseline),
        T(near_limit_never_turns_the_shrinker_on),
        T(prediction_acts_before_the_limit),
                T(settled_pool_goes_back_to_baseline),
                T(dry_run_never_writes),
                T(dwell_holds_back_once),
                T(outside_change_while_idle_becomes_baseline),
                T(unsaved_original_changes_nothing),
                T(leftover_savefile_is_the_original),
                T(no_knob_means_monitor_only),
                T(forced_knob_must_exist),
                T(old_patch_knob_is_found),
                T(missing_psi_is_fatal),
                T(cgroup_source_comes_and_goes),
                T(reload_applies_or_keeps),
                T(unreadable_pool_decides_nothing),
                T(batch_cgroup_capped_from_the_start),
                T(batch_cap_never_above_its_own_limit),
                T(batch_filling_the_pool_is_capped_not_protected),
                T(batch_at_its_cap_with_shrinker_at_cap),
                T(batch_fixed_path_around_own_cgroup_refused),
                T(batch_cap_survives_sigkill),
                T(batch_without_v2_is_said_once),
                T(batch_stalls_are_not_the_services),
                T(batch_inside_a_slice_reads_its_siblings),
                T(batch_known_reads_the_named_source),
                T(recording_carries_the_rests_pressure),
                T(batch_dry_run_writes_nothing),
                T(unreadable_pool_goes_back_to_baseline),
                T(zswap_disabled_at_run_time),
                T(reload_into_dry_run_restores),
                T(failing_knob_write_said_once),
                T(second_instance_refused),
                T(removed_batch_cgroup_is_forgotten),
                T(knob_file_vanishes),
                T(admin_write_backs_off_until_reload),
                T(meminfo_faults_go_blind),
                T(max_pool_percent_zero),
                T(psi_garbage_is_said_as_such),
                T(tampered_savefile_at_startup),
                T(glob_match_capped_on_creation),
                T(many_followed_cgroups_are_capped_and_restored),
                T(glob_match_gone_before_its_event),
                T(glob_match_cap_overwritten),
                T(idle_cgroup_is_batch_from_creation),
                T(idle_cgroup_left_alone_by_default),
                T(named_idle_cgroup_is_capped_once),
                T(followed_pressure_source),
                T(restore_lifts_caps_of_vanished_cgroups),
                T(status_lists_patterns),
#undef T
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
