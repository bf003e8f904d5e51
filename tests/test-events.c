/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event paths, driven through real sd-event loops on a fake tree: the
 * SIGTERM and SIGHUP paths of a forked daemon (synchronised on its sd_notify
 * messages, not on sleeps), kick()'s rate limit, the idle check riding on the
 * watchdog pings, and EPOLLERR from a removed cgroup's PSI trigger (root and a
 * cgroup2 mount needed; skipped otherwise).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "manager.h"
#include "exit-code.h"
#include "restore.h"
#include "savefile.h"
#include "testutil.h"
#include "util.h"

struct ev {
        char *root;
        char state[512], conf[512], sock[600];
        int notify_fd;
        char log[128][512];
        unsigned n_log;
};

static void hook(int prio, const char *msg, const char *const *fields, void *userdata) {
        struct ev *e = userdata;

        if (prio != LOG_DEBUG && e->n_log < ELEMENTSOF(e->log))
                snprintf(e->log[e->n_log++], sizeof(e->log[0]), "%s", msg);
}

static bool logged(struct ev *e, const char *needle) {
        for (unsigned i = 0; i < e->n_log; i++)
                if (strstr(e->log[i], needle))
                        return true;
        return false;
}

static int setup(void **state) {
        struct ev *e = calloc(1, sizeof(*e));
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        e->root = tu_mkdtemp();
        snprintf(e->state, sizeof(e->state), "%s/run", e->root);
        snprintf(e->conf, sizeof(e->conf), "%s/zswap-tuned.conf", e->root);
        snprintf(e->sock, sizeof(e->sock), "%s/notify", e->root);
        tu_write(e->root, ZSWAP_PARAMS "/enabled", "Y\n");
        tu_write(e->root, ZSWAP_PARAMS "/max_pool_percent", "20\n");
        tu_write(e->root, ZSWAP_PARAMS "/shrinker_enabled", "Y\n");
        tu_write(e->root, "/proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                                                   "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        tu_write(e->root, "/proc/meminfo", "MemTotal: 1000000 kB\nZswap: 1000 kB\nZswapped: 3000 kB\n");
        tu_write(e->root, "/proc/vmstat", "pswpout 0\nzswpout 0\nzswpwb 0\n");
        tu_write(e->root, "/proc/swaps", "Filename Type Size Used Priority\n");
        tu_write(e->root, "/proc/self/cgroup", "0::/\n");
        /* the notify socket the daemon's sd_notify() talks to */
        e->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(e->notify_fd >= 0);
        assert_true(strlen(e->sock) < sizeof(sa.sun_path));
        memcpy(sa.sun_path, e->sock, strlen(e->sock) + 1);
        assert_int_equal(bind(e->notify_fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        setenv("NOTIFY_SOCKET", e->sock, 1);
        log_set_hook(hook, e);
        *state = e;
        return 0;
}

static int teardown(void **state) {
        struct ev *e = *state;

        log_set_hook(NULL, NULL);
        log_set_max_level(LOG_INFO);
        unsetenv("NOTIFY_SOCKET");
        unsetenv("WATCHDOG_USEC");
        unsetenv("WATCHDOG_PID");
        close(e->notify_fd);
        tu_rm_rf(e->root);
        free(e->root);
        free(e);
        return 0;
}

/* The next sd_notify() message that contains want, within timeout_ms. */
static bool await_notify(struct ev *e, const char *want, int timeout_ms) {
        char buf[1024];
        struct pollfd p = { .fd = e->notify_fd, .events = POLLIN };

        while (poll(&p, 1, timeout_ms) > 0) {
                ssize_t n = recv(e->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n < 0)
                        return false;
                buf[n] = '\0';
                if (strstr(buf, want))
                        return true;
        }
        return false;
}

/* Read every message waiting (a full socket would block the daemon's
 * sd_notify()); the number of those that contain want. */
static unsigned drain(struct ev *e, const char *want) {
        char buf[1024];
        unsigned n = 0;
        ssize_t k;

        while ((k = recv(e->notify_fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) >= 0) {
                buf[k] = '\0';
                n += strstr(buf, want) != NULL;
        }
        return n;
}

static const char *knob(struct ev *e) {
        static char buf[16];
        return tu_read(e->root, ZSWAP_PARAMS "/shrinker_enabled", buf, sizeof(buf));
}

static void manager_for(struct ev *e, struct manager *m, const char *config) {
        char err[512];

        tu_write(e->root, "/zswap-tuned.conf", "%s", config);
        manager_init(m);
        m->config_path = e->conf;
        m->use_udev = false;
        snprintf(m->state_dir, sizeof(m->state_dir), "%s", e->state);
        kernel_init(&m->kernel, e->root);
        if (manager_load_config(m, err, sizeof(err)) < 0)
                fail_msg("config: %s", err);
}

/* A forked daemon: READY after its first write, SIGHUP reloads, SIGTERM
 * restores and exits 0. (This used to be a test that sent no signal.) */
static void signals_reload_and_restore(void **state) {
        struct ev *e = *state;
        struct manager m;
        struct saved sv;
        int status;
        pid_t pid;

        manager_for(e, &m, "[Daemon]\nBaseline=off\n");
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                log_set_hook(NULL, NULL);
                log_set_max_level(LOG_ERR);
                int r = manager_run(&m);
                manager_free(&m);
                _exit(r);
        }
        manager_free(&m); /* the child has its own */
        assert_true(await_notify(e, "READY=1", 10000));
        assert_string_equal(knob(e), "N"); /* Baseline=off, written before READY */
        assert_int_equal(tu_savefile_read(e->state, &sv), 0);
        assert_int_equal(sv.value, KNOB_ON);

        tu_write(e->root, "/zswap-tuned.conf", "[Daemon]\nBaseline=on\n");
        assert_int_equal(kill(pid, SIGHUP), 0);
        assert_true(await_notify(e, "RELOADING=1", 10000));
        assert_true(await_notify(e, "READY=1", 10000));
        assert_string_equal(knob(e), "Y"); /* the new baseline */

        tu_write(e->root, "/zswap-tuned.conf", "[Daemon]\nBaseline=off\n");
        assert_int_equal(kill(pid, SIGHUP), 0);
        assert_true(await_notify(e, "READY=1", 10000));
        assert_string_equal(knob(e), "N");

        assert_int_equal(kill(pid, SIGTERM), 0);
        assert_true(await_notify(e, "STOPPING=1", 10000));
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_string_equal(knob(e), "Y");
        assert_int_equal(tu_savefile_read(e->state, &sv), -ENOENT);
}

/* An event asks for a sample right after one: kick() waits for MinSampleMs,
 * on a timer, instead of sampling again at once. */
static void kick_is_rate_limited(void **state) {
        struct ev *e = *state;
        struct manager m;
        sd_event *loop;
        uint64_t first, when = 0;
        int enabled = SD_EVENT_OFF;

        assert_int_equal(sd_event_new(&loop), 0);
        manager_for(e, &m, "[Pool]\nSampleMs=5000\nMinSampleMs=200\n");
        assert_int_equal(manager_start(&m, loop), 0);
        first = m.last_sample;
        m.sources.wake(m.sources.userdata); /* as a PSI trigger would */
        assert_int_equal(m.last_sample, first);
        assert_non_null(m.sched.timer);
        sd_event_source_get_enabled(m.sched.timer, &enabled);
        sd_event_source_get_time(m.sched.timer, &when);
        assert_int_not_equal(enabled, SD_EVENT_OFF);
        assert_true(when >= first + 200 * USEC_PER_MSEC && when < first + 1000 * USEC_PER_MSEC);
        /* the loop runs that timer: one more sample, not before MinSampleMs */
        while (m.last_sample == first)
                assert_true(sd_event_run(loop, 5 * USEC_PER_SEC) >= 0);
        assert_true(m.last_sample - first >= 200 * USEC_PER_MSEC);
        assert_true(m.last_sample - first < 5 * USEC_PER_SEC);
        manager_restore(&m);
        manager_free(&m);
        sd_event_unref(loop);
}

/* Idle under a watchdog: no timer of our own; the pings carry the idle
 * check, which comes once per IdleCheckSec. */
static void idle_check_rides_on_the_watchdog(void **state) {
        struct ev *e = *state;
        struct manager m;
        sd_event *loop;
        char pid[16];
        unsigned pings = 0, samples = 0;
        uint64_t last, t0;
        int enabled = SD_EVENT_ON;

        snprintf(pid, sizeof(pid), "%d", (int) getpid());
        setenv("WATCHDOG_USEC", "200000", 1); /* a ping every 100 ms */
        setenv("WATCHDOG_PID", pid, 1);
        assert_int_equal(sd_event_new(&loop), 0);
        manager_for(e, &m, "[Pool]\nIdleCheckSec=1\n");
        assert_int_equal(manager_start(&m, loop), 0);
        /* the first sample has no pressure delta yet: one more, then idle */
        while (!m.sched.idle) {
                assert_true(sd_event_run(loop, 5 * USEC_PER_SEC) > 0);
                drain(e, "");
        }
        assert_non_null(m.sched.watchdog);
        if (m.sched.timer)
                sd_event_source_get_enabled(m.sched.timer, &enabled);
        assert_int_equal(enabled, SD_EVENT_OFF); /* nothing but the pings */
        t0 = last = m.last_sample;
        while (pings < 25) {
                assert_true(sd_event_run(loop, 5 * USEC_PER_SEC) > 0);
                pings += drain(e, "WATCHDOG=1");
                if (m.last_sample != last) {
                        /* an idle check: only when one was due */
                        assert_true(m.last_sample - last >= 1 * USEC_PER_SEC);
                        last = m.last_sample;
                        samples++;
                }
        }
        /* 25 pings, 2.5 s: two idle checks, three at most */
        assert_true(samples >= 1 && samples <= 3);
        assert_true(m.last_sample - t0 >= 1 * USEC_PER_SEC);
        manager_free(&m);
        sd_event_unref(loop);
}

/* A watched cgroup is removed: its trigger reports EPOLLERR, the source is
 * closed and said to be gone once, and the daemon goes on. */
static void removed_cgroup_trigger_reports_epollerr(void **state) {
        struct ev *e = *state;
        char cg[256], config[512];
        struct manager m;
        sd_event *loop;

        snprintf(cg, sizeof(cg), "/sys/fs/cgroup/unified/zt-test-events-%d", (int) getpid());
        if (geteuid() != 0 || access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) < 0) {
                snprintf(cg, sizeof(cg), "/sys/fs/cgroup/zt-test-events-%d", (int) getpid());
                if (geteuid() != 0 || access("/sys/fs/cgroup/cgroup.controllers", F_OK) < 0)
                        skip(); /* needs root and a cgroup2 mount */
        }
        assert_int_equal(mkdir(cg, 0755), 0);
        /* the real kernel for PSI only: the knob is none, nothing is written */
        snprintf(config, sizeof(config), "[Daemon]\nKnob=none\n[Pressure]\nSystem=no\nCgroups=%s\n", cg);
        assert_int_equal(sd_event_new(&loop), 0);
        manager_for(e, &m, config);
        kernel_init(&m.kernel, "/");
        /* the real kernel's PSI, but not the machine's lock: a zswap-tuned
         * running here (the soak, an installed one) holds that */
        char lock[600];
        snprintf(lock, sizeof(lock), "%s/machine.lock", e->state);
        m.restore.machine_lock = lock;
        if (manager_start(&m, loop) != 0 || !sources_armed(&m.sources)) {
                manager_free(&m);
                sd_event_unref(loop);
                rmdir(cg);
                fail_msg("no trigger armed on %s/memory.pressure", cg);
        }
        assert_int_equal(rmdir(cg), 0);
        for (int i = 0; i < 50 && !logged(e, "is gone (cgroup removed?)"); i++)
                assert_true(sd_event_run(loop, 100 * USEC_PER_MSEC) >= 0);
        assert_true(logged(e, "is gone (cgroup removed?); ignoring it until it is back"));
        assert_false(sources_armed(&m.sources));
        /* it looks now (or after MinSampleMs) */
        uint64_t before = m.last_sample;
        while (m.last_sample == before)
                assert_true(sd_event_run(loop, 5 * USEC_PER_SEC) > 0);
        /* without a trigger it polls at the sample rate: idle, its idle
         * check is the sample interval (the host may be busy: then it
         * samples at that rate anyway; test-policy.c holds the rule) */
        if (m.sched.idle)
                assert_int_equal(m.sched.idle_check, m.params.sample_usec);
        manager_free(&m);
        sd_event_unref(loop);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
                T(signals_reload_and_restore),
                T(kick_is_rate_limited),
                T(idle_check_rides_on_the_watchdog),
                T(removed_cgroup_trigger_reports_epollerr),
#undef T
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
