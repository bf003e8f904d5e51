/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Units= (units.c) on a real bus: a private dbus-daemon with the system
 * bus's default policy (anyone may send a signal to anyone), a fake systemd
 * manager (tests/fake-manager.c) that owns org.freedesktop.systemd1 and
 * answers from a table, and another connection that forges the manager's
 * signals, as any local user can. Only the manager's own signals count, a unit's object path is its
 * name's, a UnitRemoved is confirmed, and a bus that goes away and comes
 * back is followed again. No root needed; skipped without dbus-daemon. */
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

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "fake-manager.h"
#include "log.h"
#include "testutil.h"
#include "units.h"
#include "util.h"

#define UNIT_PATH FAKE_MANAGER_UNIT_PATH

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

/* ---- a private bus ---------------------------------------------------------- */

struct t {
        char *dir, address[PATH_MAX + 16];
        pid_t bus_pid;
        sd_event *event;
        struct fake_manager fm; /* owns org.freedesktop.systemd1 */
        sd_bus *forger;         /* anyone else on the bus */
        struct units *u;
        /* what units.c made of it: unit -> cgroup, as a match set would */
        struct fake_unit taken[8];
        unsigned n_taken, adds, removes;
        char log[32][512];
        unsigned n_log;
};

static void hook(int prio, const char *msg, const char *const *fields, void *userdata) {
        struct t *t = userdata;

        if (prio == LOG_DEBUG || t->n_log >= ELEMENTSOF(t->log))
                return;
        snprintf(t->log[t->n_log++], sizeof(t->log[0]), "%s", msg);
}

static unsigned logged(const struct t *t, const char *needle) {
        unsigned n = 0;

        for (unsigned i = 0; i < t->n_log; i++)
                n += strstr(t->log[i], needle) != NULL;
        return n;
}

#define AWAIT(t, cond)                                                                                        \
        do {                                                                                                  \
                uint64_t end_ = now_usec() + 15 * USEC_PER_SEC;                                               \
                while (!(cond)) {                                                                             \
                        uint64_t now_ = now_usec();                                                           \
                        if (now_ >= end_)                                                                     \
                                fail_msg("%s:%d: no \"%s\" within 15 s", __FILE__, __LINE__, #cond);          \
                        assert_true(sd_event_run((t)->event, end_ - now_) >= 0);                              \
                }                                                                                             \
        } while (0)

static void start_bus(struct t *t) {
        char conf[PATH_MAX], line[512];
        int pipefd[2];
        ssize_t n;
        size_t got = 0;

        snprintf(conf, sizeof(conf), "%s/bus.conf", t->dir);
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        t->bus_pid = fork();
        assert_true(t->bus_pid >= 0);
        if (t->bus_pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                dup2(pipefd[1], STDOUT_FILENO);
                execlp("dbus-daemon", "dbus-daemon", "--nofork", "--nosyslog", "--print-address", "--config-file",
                       conf, (char *) NULL);
                _exit(127);
        }
        close(pipefd[1]);
        /* ready once it says its address */
        while (got < sizeof(line) - 1 && (n = read(pipefd[0], line + got, sizeof(line) - 1 - got)) > 0) {
                got += (size_t) n;
                if (memchr(line, '\n', got))
                        break;
        }
        close(pipefd[0]);
        line[got] = '\0';
        if (!strchr(line, '\n'))
                fail_msg("dbus-daemon did not start: \"%s\"", line);
}

static void stop_bus(struct t *t) {
        char sock[PATH_MAX];

        if (t->bus_pid <= 0)
                return;
        kill(t->bus_pid, SIGKILL);
        assert_int_equal(waitpid(t->bus_pid, NULL, 0), t->bus_pid);
        t->bus_pid = 0;
        snprintf(sock, sizeof(sock), "%s/bus", t->dir);
        (void) unlink(sock);
}

/* Properties.Get on a unit's object: units.c asks for its ControlGroup. */
static void asked(const char *unit, const char *iface, const char *prop, void *userdata) {
        assert_string_equal(prop, "ControlGroup");
}

static sd_bus *connect_to(struct t *t) {
        sd_bus *bus = NULL;

        assert_true(sd_bus_new(&bus) >= 0);
        assert_true(sd_bus_set_address(bus, t->address) >= 0);
        assert_true(sd_bus_set_bus_client(bus, 1) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        return bus;
}

static void start_manager(struct t *t) {
        assert_int_equal(fake_manager_attach(&t->fm, connect_to(t)), 0);
        assert_true(sd_bus_request_name(t->fm.bus, "org.freedesktop.systemd1", 0) >= 0);
        assert_int_equal(sd_bus_attach_event(t->fm.bus, t->event, 0), 0);
}

static void set_unit(struct t *t, const char *name, const char *cgroup) {
        assert_int_equal(fake_manager_set(&t->fm, name, cgroup), 0);
}

static void on_add(const char *unit, const char *cgroup, void *userdata) {
        struct t *t = userdata;
        int i = fake_manager_find(t->taken, t->n_taken, unit);

        t->adds++;
        if (i < 0) {
                assert_true(t->n_taken < ELEMENTSOF(t->taken));
                i = (int) t->n_taken++;
        }
        snprintf(t->taken[i].name, sizeof(t->taken[i].name), "%s", unit);
        snprintf(t->taken[i].cgroup, sizeof(t->taken[i].cgroup), "%s", cgroup);
}

static void on_remove(const char *unit, void *userdata) {
        struct t *t = userdata;
        int i = fake_manager_find(t->taken, t->n_taken, unit);

        t->removes++;
        assert_true(i >= 0);
        t->taken[i] = t->taken[--t->n_taken];
}

/* The cgroup units.c gave the unit, or NULL. */
static const char *taken(const struct t *t, const char *unit) {
        int i = fake_manager_find(t->taken, t->n_taken, unit);

        return i < 0 ? NULL : t->taken[i].cgroup;
}

/* Is any unit given this cgroup? */
static bool cgroup_taken(const struct t *t, const char *cgroup) {
        for (unsigned i = 0; i < t->n_taken; i++)
                if (strcmp(t->taken[i].cgroup, cgroup) == 0)
                        return true;
        return false;
}

static void manager_signal(struct t *t, const char *member, const char *name, const char *path) {
        assert_true(fake_manager_signal(&t->fm, member, name, path) >= 0);
}

/* A unit starts: the manager's UnitNew, awaited until units.c takes it.
 * Everything sent to units.c before it has been handled then. */
static void marker(struct t *t, const char *name) {
        char cgroup[128];

        snprintf(cgroup, sizeof(cgroup), "/system.slice/%s", name);
        set_unit(t, name, cgroup);
        manager_signal(t, "UnitNew", name, NULL);
        AWAIT(t, taken(t, name) != NULL);
        assert_string_equal(taken(t, name), cgroup);
}

/* The unique name units.c is on the bus with: the one that is neither the
 * manager's nor the forger's (after the listing, so it has one). */
static void units_name(struct t *t, char *buf, size_t size) {
        char **names = NULL;
        const char *fm = NULL, *forger = NULL;

        assert_true(sd_bus_get_unique_name(t->fm.bus, &fm) >= 0);
        assert_true(sd_bus_get_unique_name(t->forger, &forger) >= 0);
        assert_true(sd_bus_list_names(t->forger, &names, NULL) >= 0);
        buf[0] = '\0';
        for (char **n = names; n && *n; n++) {
                if ((*n)[0] == ':' && strcmp(*n, fm) != 0 && strcmp(*n, forger) != 0) {
                        assert_true(buf[0] == '\0');
                        snprintf(buf, size, "%s", *n);
                }
                free(*n);
        }
        free(names);
        assert_true(buf[0] == ':');
}

/* A signal as the manager's, from the forger, addressed to units.c; the
 * bus has passed it on when this returns. */
static void forge(struct t *t, const char *path, const char *iface, const char *member, const char *types, ...) {
        sd_bus_message *m = NULL;
        char dest[64];
        va_list ap;

        units_name(t, dest, sizeof(dest));
        assert_true(sd_bus_message_new_signal(t->forger, &m, path, iface, member) >= 0);
        assert_true(sd_bus_message_set_destination(m, dest) >= 0);
        va_start(ap, types);
        assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        va_end(ap);
        assert_true(sd_bus_send(t->forger, m, NULL) >= 0);
        sd_bus_message_unref(m);
        /* a round trip: the bus has routed the signal before it answers */
        assert_true(sd_bus_call_method(t->forger, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetId", NULL, NULL, NULL) >= 0);
}

static int bus_setup(void **state) {
        struct t *t = calloc(1, sizeof(*t));

        assert_non_null(t);
        t->dir = tu_mkdtemp();
        snprintf(t->address, sizeof(t->address), "unix:path=%s/bus", t->dir);
        /* the system bus's default policy (dbus-daemon's system.conf):
         * anyone may send anyone a signal; here anyone may own a name and
         * call systemd's, as root may on the real bus */
        tu_write(t->dir, "/bus.conf",
                 "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                 " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                 "<busconfig>\n"
                 "  <listen>unix:path=%s/bus</listen>\n"
                 "  <auth>EXTERNAL</auth>\n"
                 "  <policy context=\"default\">\n"
                 "    <allow user=\"*\"/>\n"
                 "    <deny own=\"*\"/>\n"
                 "    <deny send_type=\"method_call\"/>\n"
                 "    <allow send_type=\"signal\"/>\n"
                 "    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>\n"
                 "    <allow send_requested_reply=\"true\" send_type=\"error\"/>\n"
                 "    <allow receive_type=\"method_call\"/>\n"
                 "    <allow receive_type=\"method_return\"/>\n"
                 "    <allow receive_type=\"error\"/>\n"
                 "    <allow receive_type=\"signal\"/>\n"
                 "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>\n"
                 "    <allow own=\"org.freedesktop.systemd1\"/>\n"
                 "    <allow send_destination=\"org.freedesktop.systemd1\"/>\n"
                 "  </policy>\n"
                 "</busconfig>\n",
                 t->dir);
        assert_int_equal(sd_event_new(&t->event), 0);
        t->fm.asked = asked;
        log_set_hook(hook, t);
        *state = t;
        if (access("/usr/bin/dbus-daemon", X_OK) != 0 && access("/bin/dbus-daemon", X_OK) != 0) {
                print_message("no dbus-daemon: skipped\n");
                return 0;
        }
        start_bus(t);
        start_manager(t);
        t->forger = connect_to(t);
        assert_int_equal(setenv("DBUS_SYSTEM_BUS_ADDRESS", t->address, 1), 0);
        return 0;
}

static int bus_teardown(void **state) {
        struct t *t = *state;

        t->u = units_free(t->u);
        sd_bus_flush_close_unref(t->fm.bus);
        sd_bus_flush_close_unref(t->forger);
        stop_bus(t);
        log_set_hook(NULL, NULL);
        sd_event_unref(t->event);
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        tu_rm_rf(t->dir);
        free(t->dir);
        free(t);
        return 0;
}

/* units.c on the bus, following backup@*.service; backup@1 runs, db.service
 * (not followed) too. */
static void follow(struct t *t) {
        struct conf_list pats = { .item = { (char *) "backup@*.service" }, .n = 1 };

        if (t->bus_pid <= 0)
                skip();
        set_unit(t, "backup@1.service", "/system.slice/backup@1.service");
        set_unit(t, "db.service", "/system.slice/db.service");
        assert_int_equal(units_new(&t->u, t->event, NULL, &pats, on_add, on_remove, t), 0);
        AWAIT(t, units_listed(t->u) && t->adds == 1);
        assert_string_equal(taken(t, "backup@1.service"), "/system.slice/backup@1.service");
        assert_int_equal(t->fm.subscribed, 1);
}

/* As user nobody: busctl emit --destination=<the daemon> ... UnitNew
 * "backup@666.service" /org/freedesktop/systemd1/unit/db_2eservice. */
static void test_forged_unit_new(void **state) {
        struct t *t = *state;

        follow(t);
        forge(t, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "UnitNew", "so",
              "backup@666.service", UNIT_PATH "/db_2eservice");
        forge(t, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss", 9,
              "/org/freedesktop/systemd1/job/9", "backup@667.service", "done");
        marker(t, "backup@2.service");
        assert_false(cgroup_taken(t, "/system.slice/db.service"));
        assert_null(taken(t, "backup@666.service"));
        assert_null(taken(t, "backup@667.service"));
        assert_int_equal(t->adds, 2);
        assert_int_equal(units_count(t->u), 2);
        assert_int_equal(logged(t, "which is not systemd"), 1);
}

/* A forged UnitRemoved of a followed unit lifted its cap. */
static void test_forged_unit_removed(void **state) {
        struct t *t = *state;

        follow(t);
        forge(t, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "UnitRemoved", "so",
              "backup@1.service", UNIT_PATH "/backup_401_2eservice");
        marker(t, "backup@2.service");
        assert_int_equal(t->removes, 0);
        assert_string_equal(taken(t, "backup@1.service"), "/system.slice/backup@1.service");
}

/* The bus's own NameOwnerChanged, forged: the forger is not systemd then. */
static void test_forged_owner_change(void **state) {
        struct t *t = *state;
        const char *fm = NULL, *forger = NULL;

        follow(t);
        assert_true(sd_bus_get_unique_name(t->fm.bus, &fm) >= 0);
        assert_true(sd_bus_get_unique_name(t->forger, &forger) >= 0);
        forge(t, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", "sss",
              "org.freedesktop.systemd1", fm, forger);
        forge(t, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "UnitRemoved", "so",
              "backup@1.service", UNIT_PATH "/backup_401_2eservice");
        /* the real manager still counts */
        marker(t, "backup@2.service");
        assert_int_equal(t->removes, 0);
        assert_int_equal(t->fm.subscribed, 1);
}

/* The manager's own UnitNew names an object: the name's is asked all the same. */
static void test_object_path_from_name(void **state) {
        struct t *t = *state;

        /* the listing names db.service's object for backup@1: its own is asked */
        t->fm.list_path = UNIT_PATH "/db_2eservice";
        follow(t);
        set_unit(t, "backup@3.service", "/system.slice/backup@3.service");
        manager_signal(t, "UnitNew", "backup@3.service", UNIT_PATH "/db_2eservice");
        AWAIT(t, taken(t, "backup@3.service") != NULL);
        assert_string_equal(taken(t, "backup@3.service"), "/system.slice/backup@3.service");
        assert_false(cgroup_taken(t, "/system.slice/db.service"));

        /* a start job gives a loaded unit its cgroup */
        set_unit(t, "backup@4.service", "");
        manager_signal(t, "UnitNew", "backup@4.service", NULL);
        set_unit(t, "backup@4.service", "/system.slice/backup@4.service");
        manager_signal(t, "JobRemoved", "backup@4.service", NULL);
        AWAIT(t, taken(t, "backup@4.service") != NULL);
        assert_string_equal(taken(t, "backup@4.service"), "/system.slice/backup@4.service");
}

/* The manager's UnitRemoved is asked about: a unit loaded again (or still
 * running) stays; one the manager no longer has goes. */
static void test_unit_removed_confirmed(void **state) {
        struct t *t = *state;

        follow(t);
        manager_signal(t, "UnitRemoved", "backup@1.service", NULL);
        marker(t, "backup@2.service");
        assert_int_equal(t->removes, 0);
        assert_non_null(taken(t, "backup@1.service"));

        fake_manager_drop(&t->fm, "backup@1.service");
        manager_signal(t, "UnitRemoved", "backup@1.service", NULL);
        AWAIT(t, t->removes == 1);
        assert_null(taken(t, "backup@1.service"));
        assert_non_null(taken(t, "backup@2.service"));
        assert_int_equal(units_count(t->u), 1);
}

/* systemd re-executed (daemon-reexec): the name leaves its connection
 * and comes back on a new one, which is subscribed to and listed. */
static void test_manager_reexec(void **state) {
        struct t *t = *state;
        const char *old = NULL;
        char old_name[64];

        follow(t);
        assert_true(sd_bus_get_unique_name(t->fm.bus, &old) >= 0);
        snprintf(old_name, sizeof(old_name), "%s", old);
        t->fm.bus = sd_bus_flush_close_unref(t->fm.bus);
        AWAIT(t, logged(t, "systemd left the bus") == 1);
        assert_int_equal(t->removes, 0);
        /* while it was away: backup@1 ended, backup@5 started */
        fake_manager_drop(&t->fm, "backup@1.service");
        set_unit(t, "backup@5.service", "/system.slice/backup@5.service");
        start_manager(t);
        AWAIT(t, taken(t, "backup@5.service") != NULL && t->removes == 1);
        assert_int_equal(t->fm.subscribed, 2);
        assert_null(taken(t, "backup@1.service"));
        assert_int_equal(logged(t, "listing the units again"), 1);
        marker(t, "backup@2.service");
}

/* The bus daemon killed and started again at the same address: said once,
 * nothing lifted meanwhile, then followed again (what changed meanwhile
 * too). */
static void test_bus_restart(void **state) {
        struct t *t = *state;

        follow(t);
        stop_bus(t);
        AWAIT(t, logged(t, "lost the system bus") == 1);
        assert_non_null(strstr(t->log[t->n_log - 1], "keeping the 1 units known; reconnecting"));
        assert_int_equal(t->removes, 0);
        assert_int_equal(units_count(t->u), 1);

        /* meanwhile backup@1 ended and backup@5 started */
        t->fm.bus = sd_bus_flush_close_unref(t->fm.bus);
        t->forger = sd_bus_flush_close_unref(t->forger);
        fake_manager_drop(&t->fm, "backup@1.service");
        set_unit(t, "backup@5.service", "/system.slice/backup@5.service");
        start_bus(t);
        start_manager(t);
        t->forger = connect_to(t);
        AWAIT(t, taken(t, "backup@5.service") != NULL && t->removes == 1);
        assert_null(taken(t, "backup@1.service"));
        assert_int_equal(t->fm.subscribed, 2);

        /* and the new manager's signals count, a forger's still not */
        marker(t, "backup@2.service");
        forge(t, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "UnitRemoved", "so",
              "backup@5.service", UNIT_PATH "/backup_405_2eservice");
        marker(t, "backup@6.service");
        assert_non_null(taken(t, "backup@5.service"));
        assert_int_equal(logged(t, "lost the system bus"), 1);
        assert_int_equal(logged(t, "back on the system bus"), 1);
        assert_int_equal(units_count(t->u), 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_patterns_name_a_type),
                cmocka_unit_test(test_pattern_refused_at_load),
                cmocka_unit_test_setup_teardown(test_forged_unit_new, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_forged_unit_removed, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_forged_owner_change, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_object_path_from_name, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_unit_removed_confirmed, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_manager_reexec, bus_setup, bus_teardown),
                cmocka_unit_test_setup_teardown(test_bus_restart, bus_setup, bus_teardown),
        };

        /* the daemon's SIGPIPE is ignored; a bus gone mid-write here too */
        signal(SIGPIPE, SIG_IGN);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
