/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cgroups= globs (cgroup-glob.c), Units= patterns (units.c) and the live
 * match set (cgroup-follow.c) on a fake cgroup tree, driven by inotify. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "cgroup-follow.h"
#include "cgroup-glob.h"
#include "fake-manager.h"
#include "log.h"
#include "policy.h"
#include "sources.h"
#include "testutil.h"
#include "units.h"
#include "util.h"

/* ---- directory entries ------------------------------------------------------ */

/* dirent_is_dir() (util.c), which both the follow set and status's advice
 * walk cgroups with: directories, not what points at one. */
static void test_dirent_is_dir(void **state) {
        char *root = tu_mkdtemp(), p[PATH_MAX], seen[256] = "";
        struct dirent *e;
        DIR *d;

        tu_write(root, "/dir/f", "x\n");
        tu_write(root, "/.hidden/f", "x\n");
        tu_write(root, "/file", "x\n");
        snprintf(p, sizeof(p), "%s/link", root);
        assert_int_equal(symlink("dir", p), 0);
        snprintf(p, sizeof(p), "%s/fifo", root);
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_non_null(d = opendir(root));
        while ((e = readdir(d)))
                if (dirent_is_dir(d, e)) {
                        strcat(seen, " ");
                        strcat(seen, e->d_name);
                }
        closedir(d);
        /* readdir's order is the file system's */
        assert_true(strcmp(seen, " dir .hidden") == 0 || strcmp(seen, " .hidden dir") == 0);
        tu_rm_rf(root);
        free(root);
}

/* ---- globs ---------------------------------------------------------------- */

static void expect_refused(const char *pattern, const char *why) {
        struct cglob g;
        const char *r = cglob_parse(&g, pattern);

        if (!r || !strstr(r, why))
                fail_msg("'%s': expected \"%s\", got \"%s\"", pattern, why, r ? r : "(accepted)");
}

static void test_glob_parse(void **state) {
        struct cglob g;

        assert_null(cglob_parse(&g, "system.slice/backup@*.service"));
        assert_int_equal(g.n, 2);
        assert_int_equal(g.literal, 1);
        assert_string_equal(g.comp[0], "system.slice");
        assert_string_equal(g.comp[1], "backup@*.service");
        assert_false(g.absolute);
        assert_int_equal(cglob_watch_depth(&g), 1);
        cglob_free(&g);

        /* a plain path: one watched parent, the last component's */
        assert_null(cglob_parse(&g, "a.slice/b.slice/c.scope/"));
        assert_int_equal(g.n, 3);
        assert_int_equal(g.literal, 3);
        assert_int_equal(cglob_watch_depth(&g), 2);
        assert_string_equal(g.rel, "a.slice/b.slice/c.scope");
        cglob_free(&g);

        assert_null(cglob_parse(&g, "/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/*"));
        assert_true(g.absolute);
        assert_string_equal(g.rel, "kubepods.slice/kubepods-besteffort.slice/*");
        assert_int_equal(g.literal, 2);
        char buf[256];
        assert_int_equal(cglob_prefix(&g, 2, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "kubepods.slice/kubepods-besteffort.slice");
        assert_int_equal(cglob_prefix(&g, 0, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        assert_int_equal(cglob_prefix(&g, 3, buf, sizeof(buf)), -EINVAL);
        cglob_free(&g);

        /* a glob in the middle: everything below it is watched level by level */
        assert_null(cglob_parse(&g, "k.slice/k-*.slice/k-*-pod[0-9]*.slice"));
        assert_int_equal(g.literal, 1);
        assert_int_equal(cglob_watch_depth(&g), 1);
        assert_true(cglob_match_parent(&g, ""));
        assert_true(cglob_match_parent(&g, "k.slice"));
        assert_true(cglob_match_parent(&g, "k.slice/k-burstable.slice"));
        assert_false(cglob_match_parent(&g, "x.slice/k-burstable.slice"));
        assert_false(cglob_match_parent(&g, "k.slice/k-burstable.slice/k-burstable-pod1.slice")); /* a match, not a parent */
        assert_true(cglob_match(&g, "k.slice/k-burstable.slice/k-burstable-pod1.slice"));
        assert_false(cglob_match(&g, "k.slice/k-burstable.slice/k-burstable-podx.slice"));
        assert_false(cglob_match(&g, "k.slice/k-burstable.slice"));
        assert_false(cglob_match(&g, "k.slice/k-a.slice/k-a-pod1.slice/x"));
        cglob_free(&g);
}

static void test_glob_components(void **state) {
        struct cglob g;

        /* FNM_PATHNAME: '*' never crosses a '/' */
        assert_null(cglob_parse(&g, "batch.slice/*"));
        assert_true(cglob_match(&g, "batch.slice/job-1.scope"));
        assert_false(cglob_match(&g, "batch.slice/job-1.scope/sub"));
        assert_false(cglob_match(&g, "batch.slice"));
        assert_false(cglob_match(&g, "other.slice/job-1.scope"));
        cglob_free(&g);

        /* a '[' as a member is fine, so is a ']' first */
        assert_null(cglob_parse(&g, "batch.slice/job-[[x].scope"));
        assert_true(cglob_match(&g, "batch.slice/job-[.scope"));
        assert_true(cglob_match(&g, "batch.slice/job-x.scope"));
        assert_false(cglob_match(&g, "batch.slice/job-y.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "*/job-?.scope"));
        assert_true(cglob_match(&g, "a.slice/job-1.scope"));
        assert_false(cglob_match(&g, "a.slice/job-12.scope"));
        assert_false(cglob_match(&g, "a/b/job-1.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "build-[!0]*.scope"));
        assert_true(cglob_match(&g, "build-1234.scope"));
        assert_false(cglob_match(&g, "build-0234.scope"));
        cglob_free(&g);

        assert_null(cglob_parse(&g, "a[]]b")); /* ']' first in a bracket is a member */
        assert_true(cglob_match(&g, "a]b"));
        cglob_free(&g);

        /* "..": only a whole component */
        assert_null(cglob_parse(&g, "my..slice/x..y"));
        assert_true(cglob_match(&g, "my..slice/x..y"));
        cglob_free(&g);
}

static void test_glob_refused(void **state) {
        char longname[NAME_MAX + 2], longpath[PATH_MAX + 1];

        expect_refused("", "empty");
        expect_refused("a//b", "empty component");
        expect_refused("../etc", "'..' component");
        expect_refused("a/../../etc", "'..' component");
        expect_refused("/sys/fs/cgroup/..", "'..' component");
        expect_refused("a/./b", "'.' component");
        expect_refused("/etc/passwd", "not below /sys/fs/cgroup");
        expect_refused("/sys/fs/cgroupx/a", "not below /sys/fs/cgroup");
        expect_refused("a/[bc", "'['");
        /* classes inside brackets, which fnmatch() reads by rules of its
         * own and may close past a '/' (two fuzzer finds) */
        expect_refused("*[[:alpha:]system.slice/zswap-tuned.service]", "[:class:]");
        expect_refused("*[[[[[[:d?pha:][]/ue]", "[:class:]");
        expect_refused("a[[=b=]/c]", "[:class:]");
        expect_refused("batch.slice/job-[[:digit:]x].scope", "[:class:]");
        expect_refused("batch.slice/job-[[.x.]].scope", "[:class:]");
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        expect_refused(longname, "NAME_MAX");
        for (size_t i = 0; i < sizeof(longpath) - 1; i++)
                longpath[i] = i % 100 == 99 ? '/' : 'y';
        longpath[sizeof(longpath) - 1] = '\0';
        expect_refused(longpath, "PATH_MAX");
        char deep[3 * (CGLOB_MAX_DEPTH + 1) + 1] = "";
        for (int i = 0; i <= CGLOB_MAX_DEPTH; i++)
                strcat(deep, i ? "/a" : "a");
        expect_refused(deep, "too many components");
}

static void expect_forbidden(const char *pattern, const char *own, const char *why) {
        struct cglob g;
        const char *r;

        assert_null(cglob_parse(&g, pattern));
        r = cglob_forbidden(&g, own);
        if (why ? !r || !strstr(r, why) : r != NULL)
                fail_msg("'%s': expected \"%s\", got \"%s\"", pattern, why ? why : "(allowed)", r ? r : "(allowed)");
        cglob_free(&g);
}

static void test_glob_forbidden(void **state) {
        const char *own = "system.slice/zswap-tuned.service";

        expect_forbidden("/sys/fs/cgroup", own, "root cgroup");
        expect_forbidden("/sys/fs/cgroup/", own, "root cgroup");
        expect_forbidden("/sys/fs/cgroup/unified", own, "root cgroup");
        expect_forbidden("/sys/fs/cgroup/unified*", own, "root cgroup"); /* found by fuzz-glob */
        expect_forbidden("/sys/fs/cgroup/u?ified/", own, "root cgroup");
        expect_forbidden("unified*", own, NULL); /* below the v2 mount: a cgroup like any */
        expect_forbidden("*", own, "init.scope");
        expect_forbidden("init.scope", own, "init.scope");
        expect_forbidden("init.*", own, "init.scope");
        expect_forbidden("/sys/fs/cgroup/unified/init.scope", own, "init.scope");
        expect_forbidden("system.slice/*", own, "own cgroup");
        expect_forbidden("system.slice/zswap-tuned.service", own, "own cgroup");
        expect_forbidden("*/zswap-*", own, "own cgroup");
        expect_forbidden("system.slice/*", NULL, NULL); /* not known: allowed */
        expect_forbidden("system.slice/backup@*.service", own, NULL);
        expect_forbidden("system.slice", own, NULL); /* a parent, as before */
        expect_forbidden("*.slice", own, NULL);
}

static void test_own_cgroup(void **state) {
        char buf[256];

        assert_int_equal(parse_own_cgroup("0::/system.slice/zswap-tuned.service\n", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "system.slice/zswap-tuned.service");
        assert_int_equal(parse_own_cgroup("12:memory:/x\n1:name=systemd:/y\n0::/\n", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        assert_int_equal(parse_own_cgroup("12:memory:/x\n", buf, sizeof(buf)), -ENODATA);
        assert_int_equal(parse_own_cgroup("0::/abcdef\n", buf, 4), -ENAMETOOLONG);
}

/* ---- unit patterns ------------------------------------------------------ */

static void test_unit_patterns(void **state) {
        struct conf_list l = { .item = { (char *) "backup@*.service", (char *) "batch.slice" }, .n = 2 };
        char longname[UNIT_NAME_MAX + 2];

        assert_null(unit_pattern_check("backup@*.service"));
        assert_null(unit_pattern_check("build-[0-9]*.scope"));
        assert_null(unit_pattern_check("user@1000.service"));
        assert_null(unit_pattern_check("dev-disk-by\\x2duuid.swap"));
        assert_non_null(unit_pattern_check(""));
        assert_non_null(unit_pattern_check("a b.service"));
        assert_non_null(unit_pattern_check("a/b.service"));
        assert_non_null(unit_pattern_check("a$.service"));
        assert_non_null(unit_pattern_check("é.service"));
        memset(longname, 'u', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_non_null(unit_pattern_check(longname));

        assert_true(unit_patterns_match(&l, "backup@2026-12-04.service"));
        assert_true(unit_patterns_match(&l, "batch.slice"));
        assert_false(unit_patterns_match(&l, "backup.service"));
        assert_false(unit_patterns_match(&l, "batch.slice.d"));
}


/* ---- the match set ---------------------------------------------------- */

struct rec {
        char *root;
        sd_event *event;
        struct follow *f;
        unsigned adds, removes;
        char last_add[PATH_MAX], last_remove[PATH_MAX], last_unit[64];
        int last_pattern;
        char log[16][512];
        unsigned n_log, warnings;
        struct sources *sources; /* NULL, or: batch matches wake through it, as follow-wire.c wires them */
};

static void hook(int prio, const char *msg, const char *const *fields, void *userdata) {
        struct rec *r = userdata;

        if (prio <= LOG_WARNING)
                r->warnings++;
        if (prio == LOG_DEBUG || r->n_log >= ELEMENTSOF(r->log))
                return;
        snprintf(r->log[r->n_log++], sizeof(r->log[0]), "%s", msg);
}

static unsigned count_logged(struct rec *r, const char *needle) {
        unsigned n = 0;

        for (unsigned i = 0; i < r->n_log; i++)
                n += strstr(r->log[i], needle) != NULL;
        return n;
}

static bool logged(struct rec *r, const char *needle) {
        return count_logged(r, needle) > 0;
}

static void on_add(struct follow *f, const struct follow_match *m, void *userdata) {
        struct rec *r = userdata;

        r->adds++;
        snprintf(r->last_add, sizeof(r->last_add), "%s", m->path);
        snprintf(r->last_unit, sizeof(r->last_unit), "%s", m->unit ? m->unit : "");
        r->last_pattern = m->pattern;
        if (r->sources)
                (void) sources_follow_add(r->sources, m->path, true);
}

static void on_remove(struct follow *f, const struct follow_match *m, void *userdata) {
        struct rec *r = userdata;

        r->removes++;
        snprintf(r->last_remove, sizeof(r->last_remove), "%s", m->path);
        if (r->sources)
                sources_follow_remove(r->sources, m->path, true);
}

static int rec_setup(void **state) {
        struct rec *r = calloc(1, sizeof(*r));

        assert_non_null(r);
        r->root = tu_mkdtemp();
        tu_write(r->root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        tu_write(r->root, "/proc/self/cgroup", "0::/system.slice/zswap-tuned.service\n");
        assert_int_equal(sd_event_new(&r->event), 0);
        log_set_hook(hook, r);
        *state = r;
        return 0;
}

static int rec_teardown(void **state) {
        struct rec *r = *state;

        log_set_hook(NULL, NULL);
        follow_free(r->f);
        sd_event_unref(r->event);
        tu_rm_rf(r->root);
        free(r->root);
        free(r);
        return 0;
}

static void start(struct rec *r, const char *const *patterns, unsigned n, bool idle, unsigned max) {
        struct conf_list l = { .n = n };
        static struct kernel kernel; /* outlives the follow set */

        for (unsigned i = 0; i < n; i++) {
                l.item[i] = (char *) patterns[i];
                l.where[i] = (char *) "t.conf:7";
        }
        assert_int_equal(kernel_init(&kernel, r->root), 0);
        struct follow_params p = {
                .name = "Batch", .kernel = &kernel, .event = r->event, .patterns = &l, .idle = idle, .caps = true,
                .max = max,
                .on_add = on_add, .on_remove = on_remove, .userdata = r,
        };
        assert_int_equal(follow_new(&r->f, &p), 0);
}

static void mkdir_at(struct rec *r, const char *rel) {
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s%s", r->root, rel);
        assert_int_equal(mkdir(p, 0755), 0);
}

/* The directories prefix<from> .. prefix<to - 1>. */
static void mkdir_numbered(struct rec *r, const char *prefix, int from, int to) {
        char p[PATH_MAX];

        for (int i = from; i < to; i++) {
                snprintf(p, sizeof(p), "%s%d", prefix, i);
                mkdir_at(r, p);
        }
}

static void rmdir_at(struct rec *r, const char *rel) {
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s%s", r->root, rel);
        assert_int_equal(rmdir(p), 0);
}

/* Run the event loop until *counter reaches want or deadline_usec passes:
 * the inotify event is what we wait for, not time. Returns the usec it took. */
static uint64_t run_until(struct rec *r, const unsigned *counter, unsigned want, uint64_t deadline_usec) {
        uint64_t t0 = now_usec();

        while (*counter < want && now_usec() - t0 < deadline_usec)
                assert_true(sd_event_run(r->event, deadline_usec - (now_usec() - t0)) >= 0);
        return now_usec() - t0;
}

static void test_follow_scan(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "batch.slice/*", "/sys/fs/cgroup/kube.slice/kube-*.slice/pod?" };

        tu_write(r->root, "/sys/fs/cgroup/batch.slice/a.scope/memory.zswap.max", "max\n");
        tu_write(r->root, "/sys/fs/cgroup/batch.slice/b.scope/memory.zswap.max", "max\n");
        tu_write(r->root, "/sys/fs/cgroup/batch.slice/memory.zswap.max", "max\n"); /* a file: never a match */
        tu_write(r->root, "/sys/fs/cgroup/other.slice/c.scope/memory.zswap.max", "max\n");
        tu_write(r->root, "/sys/fs/cgroup/kube.slice/kube-be.slice/pod1/memory.zswap.max", "max\n");
        tu_write(r->root, "/sys/fs/cgroup/kube.slice/kube-be.slice/pod12/memory.zswap.max", "max\n");
        tu_write(r->root, "/sys/fs/cgroup/kube.slice/x.slice/pod2/memory.zswap.max", "max\n");
        /* a symlink to a cgroup and a FIFO, where a hostile tree could put them: never matches */
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/batch.slice/link.scope", r->root);
        assert_int_equal(symlink("../other.slice/c.scope", p), 0);
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/batch.slice/fifo.scope", r->root);
        assert_int_equal(mkfifo(p, 0600), 0);
        start(r, pats, 2, false, 0);
        assert_int_equal(follow_count(r->f), 3);
        assert_int_equal(r->adds, 3);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/batch.slice/a.scope"));
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/batch.slice/b.scope"));
        const struct follow_match *m = follow_find(r->f, "/sys/fs/cgroup/kube.slice/kube-be.slice/pod1");
        assert_non_null(m);
        assert_int_equal(m->pattern, 1);
        assert_string_equal(m->rel, "kube.slice/kube-be.slice/pod1");
        assert_null(m->unit);
        assert_int_equal(follow_n_patterns(r->f), 2);
        assert_string_equal(follow_pattern(r->f, 1), "/sys/fs/cgroup/kube.slice/kube-*.slice/pod?");
        /* watched: batch.slice, kube.slice, kube.slice/kube-be.slice (not x.slice, not the matches) */
        assert_int_equal(follow_n_watches(r->f), 3);
        assert_true(logged(r, "Cgroups=batch.slice/* matches 2 cgroups"));
}

static void test_follow_nothing_yet(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "k.slice/k-*.slice/pod*" };

        start(r, pats, 1, false, 0);
        assert_int_equal(follow_count(r->f), 0);
        assert_true(logged(r, "matches no cgroup now"));
        assert_int_equal(r->warnings, 0);
        /* the literal prefix appears later, then a level, then the match */
        mkdir_at(r, "/sys/fs/cgroup/k.slice");
        mkdir_at(r, "/sys/fs/cgroup/k.slice/k-be.slice");
        mkdir_at(r, "/sys/fs/cgroup/k.slice/k-be.slice/pod1");
        mkdir_at(r, "/sys/fs/cgroup/k.slice/k-be.slice/other");
        /* each step is an event of its own: pod1 may be found by the scan of k-be.slice */
        run_until(r, &r->adds, 1, USEC_PER_SEC);
        assert_int_equal(r->adds, 1);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/k.slice/k-be.slice/pod1");
        mkdir_at(r, "/sys/fs/cgroup/k.slice/k-bu.slice");
        mkdir_at(r, "/sys/fs/cgroup/k.slice/k-bu.slice/pod2");
        assert_true(run_until(r, &r->adds, 2, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/k.slice/k-bu.slice/pod2");
        assert_int_equal(follow_count(r->f), 2);
}

static void test_follow_add_remove_readd(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "system.slice/backup@*.service" };

        mkdir_at(r, "/sys/fs/cgroup/system.slice");
        start(r, pats, 1, false, 0);
        assert_int_equal(follow_count(r->f), 0);

        mkdir_at(r, "/sys/fs/cgroup/system.slice/backup@1.service");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/db.service");
        assert_true(run_until(r, &r->adds, 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/system.slice/backup@1.service");
        uint64_t seq = follow_get(r->f, 0)->seq;

        rmdir_at(r, "/sys/fs/cgroup/system.slice/backup@1.service");
        assert_true(run_until(r, &r->removes, 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_remove, "/sys/fs/cgroup/system.slice/backup@1.service");
        assert_int_equal(follow_count(r->f), 0);

        /* back under the same name: a new match */
        mkdir_at(r, "/sys/fs/cgroup/system.slice/backup@1.service");
        assert_true(run_until(r, &r->adds, 2, USEC_PER_SEC) < USEC_PER_SEC);
        assert_int_equal(follow_count(r->f), 1);
        assert_true(follow_get(r->f, 0)->seq > seq);

        /* the watched parent goes: its matches with it, and back */
        rmdir_at(r, "/sys/fs/cgroup/system.slice/backup@1.service");
        rmdir_at(r, "/sys/fs/cgroup/system.slice/db.service");
        rmdir_at(r, "/sys/fs/cgroup/system.slice");
        assert_true(run_until(r, &r->removes, 2, USEC_PER_SEC) < USEC_PER_SEC);
        /* nothing is watched there now: the parent of the literal prefix was
         * not, by design (a reload finds it again) */
        assert_int_equal(follow_count(r->f), 0);
        assert_int_equal(r->adds, 2);
}

static void test_follow_bound(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "b.slice/*" };

        mkdir_at(r, "/sys/fs/cgroup/b.slice");
        mkdir_numbered(r, "/sys/fs/cgroup/b.slice/j", 0, 3);
        start(r, pats, 1, false, 3);
        assert_int_equal(follow_count(r->f), 3);
        assert_int_equal(r->warnings, 0);
        mkdir_numbered(r, "/sys/fs/cgroup/b.slice/j", 3, 6);
        while (follow_process(r->f) > 0)
                ;
        assert_int_equal(follow_count(r->f), 3);
        assert_int_equal(r->warnings, 1); /* said once */
        assert_true(logged(r, "more than MaxCgroups=3 cgroups match"));
        /* the oldest keep their place */
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/b.slice/j0"));
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/b.slice/j2"));
        assert_null(follow_find(r->f, "/sys/fs/cgroup/b.slice/j3"));
        /* a place comes free: one left out takes it (one rescan, a second later) */
        rmdir_at(r, "/sys/fs/cgroup/b.slice/j1");
        assert_true(run_until(r, &r->adds, 4, 3 * USEC_PER_SEC) < 3 * USEC_PER_SEC);
        assert_int_equal(follow_count(r->f), 3);
        assert_null(follow_find(r->f, "/sys/fs/cgroup/b.slice/j1"));
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/b.slice/j0"));
        assert_int_equal(r->warnings, 1);
}

/* The cgroups no match may be: the daemon's own (rec_setup's
 * /proc/self/cgroup), the slice that holds it, and init.scope. */
static void mkdir_never_matched(struct rec *r) {
        mkdir_at(r, "/sys/fs/cgroup/system.slice");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/zswap-tuned.service");
        mkdir_at(r, "/sys/fs/cgroup/init.scope");
}

/* Units (name, cgroup, ..., NULL) the match set must leave out: each one
 * added, and the set still holds n. */
static void units_left_out(struct rec *r, unsigned n, const char *const *units) {
        for (; *units; units += 2)
                follow_add_unit(r->f, units[0], units[1]);
        assert_int_equal(follow_count(r->f), n);
}

static void test_follow_refusals(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "system.slice/*", "init.scope", "a.slice//b", "system.slice/backup*" };
        const char *units[] = { "zswap-tuned.service", "/system.slice/zswap-tuned.service",
                                "init.scope", "/init.scope",
                                "x.service", "/",
                                "y.service", "/a/../init.scope",
                                NULL };

        mkdir_never_matched(r);
        mkdir_at(r, "/sys/fs/cgroup/system.slice/backup1");
        start(r, pats, 4, false, 0);
        assert_true(logged(r, "t.conf:7: Cgroups= path 'system.slice/*' takes the daemon's own cgroup; refused"));
        assert_true(logged(r, "t.conf:7: Cgroups= path 'init.scope' takes init.scope"));
        assert_true(logged(r, "'a.slice//b' must not contain an empty component"));
        assert_int_equal(follow_n_patterns(r->f), 1);
        assert_int_equal(follow_count(r->f), 1);
        /* a unit whose cgroup is the daemon's own or init.scope: left out */
        units_left_out(r, 1, units);
}

static void test_follow_units(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "system.slice/backup*" };

        mkdir_at(r, "/sys/fs/cgroup/system.slice");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/backup@1.service");
        start(r, pats, 1, false, 0);
        assert_int_equal(follow_count(r->f), 1);
        follow_add_unit(r->f, "build-1.scope", "/batch.slice/build-1.scope");
        assert_int_equal(follow_count(r->f), 2);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/batch.slice/build-1.scope");
        assert_string_equal(r->last_unit, "build-1.scope");
        assert_int_equal(r->last_pattern, FOLLOW_UNIT);
        /* a glob's match named by a unit keeps its place, and gets the name */
        follow_add_unit(r->f, "backup@1.service", "/system.slice/backup@1.service");
        assert_int_equal(follow_count(r->f), 2);
        assert_string_equal(follow_find(r->f, "/sys/fs/cgroup/system.slice/backup@1.service")->unit,
                            "backup@1.service");
        follow_remove_unit(r->f, "backup@1.service"); /* the glob still has it */
        assert_int_equal(follow_count(r->f), 2);
        follow_remove_unit(r->f, "build-1.scope");
        assert_int_equal(follow_count(r->f), 1);
        assert_string_equal(r->last_remove, "/sys/fs/cgroup/batch.slice/build-1.scope");
        follow_remove_unit(r->f, "nothing.service");
        assert_int_equal(r->removes, 1);
}

static void test_follow_idle(void **state) {
        struct rec *r = *state;

        tu_write(r->root, "/sys/fs/cgroup/a.slice/cpu.idle", "0\n");
        tu_write(r->root, "/sys/fs/cgroup/b.slice/cpu.idle", "1\n");
        tu_write(r->root, "/sys/fs/cgroup/a.slice/c.scope/cpu.idle", "1\n");
        tu_write(r->root, "/sys/fs/cgroup/init.scope/cpu.idle", "1\n"); /* never */
        start(r, NULL, 0, true, 0);
        assert_int_equal(follow_count(r->f), 2);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/b.slice"));
        assert_int_equal(follow_find(r->f, "/sys/fs/cgroup/a.slice/c.scope")->pattern, FOLLOW_IDLE);

        /* a new cgroup with cpu.idle 1 (CPUWeight=idle) is batch work from its creation */
        mkdir_at(r, "/sys/fs/cgroup/a.slice/job.scope");
        tu_write(r->root, "/sys/fs/cgroup/a.slice/job.scope/cpu.idle", "1\n");
        assert_true(run_until(r, &r->adds, 3, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/a.slice/job.scope");
        /* and one below a new one */
        mkdir_at(r, "/sys/fs/cgroup/n.slice");
        mkdir_at(r, "/sys/fs/cgroup/n.slice/x.scope");
        tu_write(r->root, "/sys/fs/cgroup/n.slice/x.scope/cpu.idle", "1\n");
        assert_true(run_until(r, &r->adds, 4, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/n.slice/x.scope");

        /* cgroupfs says nothing when cpu.idle changes: seen at the recheck */
        tu_write(r->root, "/sys/fs/cgroup/a.slice/cpu.idle", "1\n");
        tu_write(r->root, "/sys/fs/cgroup/b.slice/cpu.idle", "0\n");
        while (follow_process(r->f) > 0)
                ;
        assert_int_equal(follow_count(r->f), 4);
        follow_recheck_idle(r->f);
        assert_int_equal(follow_count(r->f), 4);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/a.slice"));
        assert_null(follow_find(r->f, "/sys/fs/cgroup/b.slice"));
        assert_string_equal(r->last_remove, "/sys/fs/cgroup/b.slice");
}

/* systemd mkdirs a unit's cgroup (cpu.idle 0, as cgroupfs makes it) and
 * writes CPUWeight=idle's cpu.idle 1 a moment later: a daemon that read it
 * at IN_CREATE alone missed such a unit while idle (the guest saw it on
 * 6.12 and 7.2). It is looked at again shortly after it appeared. */
static void test_follow_idle_written_late(void **state) {
        struct rec *r = *state;

        start(r, NULL, 0, true, 0);
        assert_int_equal(follow_count(r->f), 0);
        mkdir_at(r, "/sys/fs/cgroup/system.slice");
        tu_write(r->root, "/sys/fs/cgroup/system.slice/cpu.idle", "0\n");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/job.service");
        tu_write(r->root, "/sys/fs/cgroup/system.slice/job.service/cpu.idle", "0\n");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/plain.service");
        tu_write(r->root, "/sys/fs/cgroup/system.slice/plain.service/cpu.idle", "0\n");
        while (follow_process(r->f) > 0)
                ;
        assert_int_equal(follow_count(r->f), 0); /* read at IN_CREATE: not idle yet */
        tu_write(r->root, "/sys/fs/cgroup/system.slice/job.service/cpu.idle", "1\n");
        assert_true(run_until(r, &r->adds, 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/system.slice/job.service");
        assert_int_equal(follow_count(r->f), 1);
        assert_null(follow_find(r->f, "/sys/fs/cgroup/system.slice/plain.service"));
        /* the second look ends: a cgroup made idle much later waits for the recheck */
        run_until(r, &r->adds, 2, 2500 * USEC_PER_MSEC);
        assert_int_equal(r->adds, 1);
        tu_write(r->root, "/sys/fs/cgroup/system.slice/plain.service/cpu.idle", "1\n");
        run_until(r, &r->adds, 2, 500 * USEC_PER_MSEC);
        assert_int_equal(r->adds, 1);
        follow_recheck_idle(r->f);
        assert_int_equal(r->adds, 2);
}

static unsigned count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        unsigned n = 0;

        assert_non_null(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static long rss_kb(void) {
        char buf[4096];
        const char *p;

        assert_true(read_full_file("/proc/self/status", buf, sizeof(buf)) > 0);
        p = strstr(buf, "VmRSS:");
        assert_non_null(p);
        return strtol(p + 6, NULL, 10);
}

/* Under valgrind or ASan the RSS is theirs: only the bound on fds and time holds. */
static bool rss_meaningful(void) {
#if defined(__SANITIZE_ADDRESS__)
        return false;
#else
        char maps[1 << 16];
        ssize_t n = read_full_file("/proc/self/maps", maps, sizeof(maps));
        return n > 0 && !strstr(maps, "vgpreload");
#endif
}

#define STORM 10000

/* The fake tree afresh on tmpfs, where there is one (true then): a disk's
 * directory operations are what would take the time, not the daemon. */
static bool root_on_tmpfs(struct rec *r) {
        char *shm = strdup("/dev/shm/zswap-tuned-test.XXXXXX");

        assert_non_null(shm);
        if (!mkdtemp(shm)) {
                free(shm);
                return false;
        }
        tu_rm_rf(r->root);
        free(r->root);
        r->root = shm;
        tu_write(r->root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
        return true;
}

/* 10,000 cgroups created and removed quickly under a watched parent: memory
 * and fds stay bounded, and the loop still answers within a second. */
static void test_follow_storm(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "storm.slice/*" };
        char p[PATH_MAX];
        unsigned fds0;
        uint64_t t0;
        long rss0;

        (void) root_on_tmpfs(r);
        mkdir_at(r, "/sys/fs/cgroup/storm.slice");
        start(r, pats, 1, false, 0);
        /* warm up: the structures at their bound before measuring */
        for (int i = 0; i < 300; i++) {
                snprintf(p, sizeof(p), "%s/sys/fs/cgroup/storm.slice/w%d", r->root, i);
                assert_int_equal(mkdir(p, 0755), 0);
        }
        while (follow_process(r->f) > 0)
                ;
        for (int i = 0; i < 300; i++) {
                snprintf(p, sizeof(p), "%s/sys/fs/cgroup/storm.slice/w%d", r->root, i);
                assert_int_equal(rmdir(p), 0);
        }
        while (sd_event_run(r->event, 0) > 0)
                ;
        rss0 = rss_kb();
        fds0 = count_fds(); /* the inotify fd, and sd-event's timerfd (the rescan timer) */
        t0 = now_usec();

        /* first half: the loop keeps up, in bursts; second half: nobody reads
         * until all are created and removed (the queue may overflow) */
        for (int i = 0; i < STORM; i++) {
                snprintf(p, sizeof(p), "%s/sys/fs/cgroup/storm.slice/job-%d.scope", r->root, i);
                assert_int_equal(mkdir(p, 0755), 0);
                if (i < STORM / 2 && i % 500 == 499)
                        while (sd_event_run(r->event, 0) > 0)
                                ;
        }
        for (int i = 0; i < STORM; i++) {
                snprintf(p, sizeof(p), "%s/sys/fs/cgroup/storm.slice/job-%d.scope", r->root, i);
                assert_int_equal(rmdir(p), 0);
                if (i < STORM / 2 && i % 500 == 499)
                        while (sd_event_run(r->event, 0) > 0)
                                ;
        }
        while (sd_event_run(r->event, 0) > 0)
                ;
        assert_int_equal(follow_count(r->f), 0);
        assert_true(follow_n_watches(r->f) <= 2);

        /* responsive: a new one is seen within a second */
        unsigned adds = r->adds;
        mkdir_at(r, "/sys/fs/cgroup/storm.slice/after.scope");
        assert_true(run_until(r, &r->adds, adds + 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(r->last_add, "/sys/fs/cgroup/storm.slice/after.scope");

        long grown = rss_kb() - rss0;
        print_message("storm: %d cgroups in %.2f s, RSS %+ld kB, %u adds, %u removes\n", STORM,
                      (double) (now_usec() - t0) / 1e6, grown, r->adds, r->removes);
        if (rss_meaningful())
                assert_true(grown < 4 * 1024);
        /* a few seconds; valgrind and ASan take their time */
        assert_true(now_usec() - t0 < (rss_meaningful() ? 5 : 30) * USEC_PER_SEC);
        assert_int_equal(count_fds(), fds0);
        r->f = follow_free(r->f);
        assert_int_equal(count_fds(), fds0 - 1);
}

/* ---- issue 46: what an unprivileged user can make --------------------------- */

#define NOBODY 65534

static void chown_at(struct rec *r, const char *rel, uid_t uid) {
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s%s", r->root, rel);
        assert_int_equal(lchown(p, uid, uid), 0);
}

/* IdleCgroups= takes root's own cgroups only: nothing in a delegated
 * subtree (a directory owned by a user, one marked trusted.delegate, one
 * whose cgroup.procs is the user's), and it never looks below one. At
 * a31205f all five idle cgroups below were batch work. */
static void test_follow_idle_delegated(void **state) {
        struct rec *r = *state;
        char p[PATH_MAX];
        bool xattr;

        if (geteuid() != 0)
                skip(); /* chown needs root */
        tu_write(r->root, "/sys/fs/cgroup/system.slice/job.service/cpu.idle", "1\n");
        /* user@.service delegates: the directory is the user's */
        tu_write(r->root, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/cpu.idle", "1\n");
        tu_write(r->root, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope/cpu.idle",
                 "1\n");
        chown_at(r, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service", NOBODY);
        /* root's directory, marked delegated by systemd (or, where the file
         * system has no trusted xattrs, its cgroup.procs given away) */
        tu_write(r->root, "/sys/fs/cgroup/marked.slice/cgroup.procs", "%s", "");
        tu_write(r->root, "/sys/fs/cgroup/marked.slice/m.scope/cpu.idle", "1\n");
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/marked.slice", r->root);
        xattr = setxattr(p, "trusted.delegate", "1", 1, 0) == 0;
        if (!xattr)
                chown_at(r, "/sys/fs/cgroup/marked.slice/cgroup.procs", NOBODY);
        tu_write(r->root, "/sys/fs/cgroup/procs.slice/cpu.idle", "1\n");
        tu_write(r->root, "/sys/fs/cgroup/procs.slice/cgroup.subtree_control", "%s", "");
        chown_at(r, "/sys/fs/cgroup/procs.slice/cgroup.subtree_control", NOBODY);

        start(r, NULL, 0, true, 0);
        assert_int_equal(follow_count(r->f), 1);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/system.slice/job.service"));
        /* said once, whatever the number */
        assert_int_equal(count_logged(r, "IdleCgroups= leaves out"), 1);
        assert_true(logged(r, "a delegated subtree is its user's"));
        /* never below one: none of them is watched */
        for (unsigned i = 0; i < follow_count(r->f); i++)
                assert_null(strstr(follow_get(r->f, i)->path, "user@1000"));

        /* a cgroup the user makes in their subtree, idle from the start: not seen at all */
        tu_write(r->root, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/y.scope/cpu.idle",
                 "1\n");
        /* one of root's that becomes delegated later: out at the recheck */
        tu_write(r->root, "/sys/fs/cgroup/late.slice/cpu.idle", "1\n");
        assert_true(run_until(r, &r->adds, 2, USEC_PER_SEC) < USEC_PER_SEC);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/late.slice"));
        chown_at(r, "/sys/fs/cgroup/late.slice", NOBODY);
        follow_recheck_idle(r->f);
        assert_null(follow_find(r->f, "/sys/fs/cgroup/late.slice"));
        while (follow_process(r->f) > 0)
                ;
        assert_int_equal(follow_count(r->f), 1);
        assert_int_equal(r->adds, 2);
        assert_int_equal(count_logged(r, "IdleCgroups= leaves out"), 1);
        print_message("delegated: marked by %s\n", xattr ? "trusted.delegate" : "cgroup.procs' owner");
}

/* IdleCgroups= takes half the MaxCgroups= places at most, and gives one
 * to a pattern's match when all are taken (at a31205f idle cgroups took
 * every place and the admin's matches were left out). */
static void test_follow_idle_quota(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "b.slice/j*" };
        char p[64];

        mkdir_at(r, "/sys/fs/cgroup/b.slice");
        for (int i = 0; i < 6; i++) {
                snprintf(p, sizeof(p), "/sys/fs/cgroup/i%d.slice/cpu.idle", i);
                tu_write(r->root, p, "1\n");
        }
        start(r, pats, 1, true, 4);
        assert_int_equal(follow_count(r->f), 2);
        assert_true(logged(r, "IdleCgroups= takes at most 2 of the MaxCgroups=4 places"));
        mkdir_numbered(r, "/sys/fs/cgroup/b.slice/j", 0, 4);
        while (follow_process(r->f) > 0)
                ;
        assert_int_equal(follow_count(r->f), 4);
        for (unsigned i = 0; i < 4; i++)
                assert_int_equal(follow_get(r->f, i)->pattern, 0);
        assert_true(logged(r, "named in the configuration, takes the place of"));
}

/* A cap on a cgroup that holds the daemon's own would cap the daemon too:
 * never batch work, nor anything below init.scope or the daemon's own. */
static void test_follow_ancestors_refused(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "*.slice" };
        const char *units[] = { "system.slice", "/system.slice",
                                "sub.scope", "/system.slice/zswap-tuned.service/sub",
                                "x.scope", "/init.scope/x",
                                NULL };

        mkdir_never_matched(r);
        mkdir_at(r, "/sys/fs/cgroup/system.slice/zswap-tuned.service/sub");
        mkdir_at(r, "/sys/fs/cgroup/batch.slice");
        start(r, pats, 1, false, 0);
        assert_int_equal(follow_count(r->f), 1);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/batch.slice"));
        assert_true(logged(r, "/sys/fs/cgroup/system.slice is the root cgroup, init.scope or the daemon's own"));
        units_left_out(r, 1, units);
}

/* Each turn of the loop handles a bounded number of inotify events; the
 * rest come at the next turns, so timers run in between. */
static void test_follow_bounded_pass(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "b.slice/*" };
        int n, total = 0, passes = 0;

        mkdir_at(r, "/sys/fs/cgroup/b.slice");
        start(r, pats, 1, false, 0);
        mkdir_numbered(r, "/sys/fs/cgroup/b.slice/x", 0, 3000);
        while ((n = follow_process(r->f)) > 0) {
                assert_true(n < FOLLOW_EVENTS_PER_PASS + 1024); /* one read of 16 KiB past the bound at most */
                total += n;
                passes++;
        }
        assert_int_equal(total, 3000);
        assert_true(passes >= 3);
        assert_int_equal(follow_n_events(r->f), 3000);
}

/* An overflowing inotify queue: the listing afresh waits for the rescan
 * timer (at most one a second while a storm lasts), not done in the same
 * turn as the overflow (at a31205f it was, once per overflow). */
static void test_follow_overflow_rescan(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "o.slice/*" };
        char p[64];
        uint64_t t0;

        mkdir_at(r, "/sys/fs/cgroup/o.slice");
        start(r, pats, 1, false, 0);
        /* more than max_queued_events (16384 by default) unread */
        mkdir_numbered(r, "/sys/fs/cgroup/o.slice/x", 0, 9000);
        for (int i = 1; i < 9000; i++) {
                snprintf(p, sizeof(p), "/sys/fs/cgroup/o.slice/x%d", i);
                rmdir_at(r, p);
        }
        t0 = now_usec();
        while (sd_event_run(r->event, 0) > 0)
                ;
        /* drained, and not listed afresh yet (unless draining took most of the second) */
        if (now_usec() - t0 < 500 * USEC_PER_MSEC)
                assert_false(logged(r, "too many cgroup changes"));
        while (!logged(r, "too many cgroup changes") && now_usec() - t0 < 3 * USEC_PER_SEC)
                assert_true(sd_event_run(r->event, USEC_PER_SEC) >= 0);
        assert_true(now_usec() - t0 >= 900 * USEC_PER_MSEC);
        assert_true(logged(r, "listing them afresh, at most once a second"));
        assert_int_equal(follow_count(r->f), 1);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/o.slice/x0"));
}

/* The storm of issue 46: an unprivileged user (uid 65534 here) makes and
 * removes thousands of idle cgroups in their delegated subtree, then root
 * makes thousands in a watched one. A sample timer runs every 100 ms on
 * the same loop: at each, the batch set is still the admin's batch.slice
 * alone, its cap (divided as policy.c does) what it is alone, and a
 * pressure source still finds its place; the longest gap between samples
 * and the events handled a second are printed (docs/reliability.md). */
#define DSTORM 20000
#define SAMPLE_USEC (100 * USEC_PER_MSEC)

struct storm_watch {
        struct rec *r;
        sd_event_source *timer;
        uint64_t last, max_gap;
        unsigned ticks, max_count, cap_changed;
        uint64_t alone;
};

static uint64_t batch_slice_cap(const struct follow *f) {
        uint64_t use[POLICY_MAX_BATCH] = { 0 }, cap[POLICY_MAX_BATCH];
        unsigned n = follow_count(f);

        use[0] = 95 * 1024 * 1024; /* batch.slice holds the batch's pages */
        policy_cap_divide(400 * 1024 * 1024, 100 * 1024 * 1024, use, n ? n : 1, 4096, cap);
        return cap[0];
}

static int on_sample(sd_event_source *s, uint64_t usec, void *userdata) {
        struct storm_watch *w = userdata;
        uint64_t now = now_usec();

        if (w->last && now - w->last > w->max_gap)
                w->max_gap = now - w->last;
        w->last = now;
        w->ticks++;
        if (follow_count(w->r->f) > w->max_count)
                w->max_count = follow_count(w->r->f);
        w->cap_changed += batch_slice_cap(w->r->f) != w->alone;
        assert_true(sd_event_source_set_time_relative(s, SAMPLE_USEC) >= 0);
        return 0;
}

static pid_t storm_child(struct rec *r, const char *dir, uid_t uid, bool idle) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid > 0)
                return pid;
        if (uid != 0 && (setgid(uid) < 0 || setuid(uid) < 0))
                _exit(2);
        for (int i = 0; i < DSTORM; i++) {
                char p[PATH_MAX], f[PATH_MAX + 16];
                snprintf(p, sizeof(p), "%s%s/job-%d.scope", r->root, dir, i);
                snprintf(f, sizeof(f), "%s/cpu.idle", p);
                if (mkdir(p, 0755) < 0)
                        _exit(3);
                if (idle) {
                        FILE *fp = fopen(f, "w");
                        if (!fp)
                                _exit(4);
                        fputs("1\n", fp);
                        fclose(fp);
                }
                if (i % 4 != 3)
                        continue;
                for (int j = i - 3; j <= i; j++) {
                        snprintf(p, sizeof(p), "%s%s/job-%d.scope", r->root, dir, j);
                        snprintf(f, sizeof(f), "%s/cpu.idle", p);
                        if ((idle && unlink(f) < 0) || rmdir(p) < 0)
                                _exit(5);
                }
        }
        _exit(0);
}

/* Run the loop while the child storms; the storm's figures. */
static void storm_phase(struct storm_watch *w, const char *what, const char *dir, uid_t uid, bool idle) {
        struct rec *r = w->r;
        uint64_t t0 = now_usec(), ev0 = follow_n_events(r->f), t;
        pid_t pid = storm_child(r, dir, uid, idle);
        int status;

        w->max_gap = 0;
        w->last = 0;
        for (;;) {
                pid_t p = waitpid(pid, &status, WNOHANG);
                assert_true(p >= 0);
                if (p == pid)
                        break;
                assert_true(sd_event_run(r->event, 10 * USEC_PER_MSEC) >= 0);
                assert_true(now_usec() - t0 < 60 * USEC_PER_SEC);
        }
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        /* what is queued still, and one sample after it */
        unsigned ticks = w->ticks;
        while (w->ticks < ticks + 2)
                assert_true(sd_event_run(r->event, USEC_PER_SEC) >= 0);
        t = now_usec() - t0;
        print_message("%s: %d cgroups made and removed in %.2f s; %llu inotify events handled (%.0f/s); "
                      "longest gap between 100 ms samples %.0f ms; %u watches\n",
                      what, DSTORM, (double) t / 1e6, (unsigned long long) (follow_n_events(r->f) - ev0),
                      (double) (follow_n_events(r->f) - ev0) * 1e6 / (double) t, (double) w->max_gap / 1e3,
                      follow_n_watches(r->f));
        /* the watchdog (WatchdogSec=30s, pinged at half of it) is never near */
        assert_true(w->max_gap < USEC_PER_SEC);
}

static void chmod_path(const char *root, const char *rel) {
        char p[PATH_MAX];

        /* the fake root and what leads to the user's directory: searchable */
        snprintf(p, sizeof(p), "%s", root);
        assert_int_equal(chmod(p, 0755), 0);
        for (const char *c = rel;; c++)
                if (*c == '/' || *c == '\0') {
                        snprintf(p, sizeof(p), "%s%.*s", root, (int) (c - rel), rel);
                        (void) chmod(p, 0755);
                        if (!*c)
                                break;
                }
}

static void test_follow_delegated_storm(void **state) {
        struct rec *r = *state;
        const char *pats[] = { "batch.slic[e]" };
        const char *user = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice";
        char err[256];
        struct storm_watch w = { .r = r };
        struct kernel k;
        struct sources src;
        struct conf c;

        if (geteuid() != 0)
                skip(); /* a second user needs root */
        if (root_on_tmpfs(r))
                tu_write(r->root, "/proc/self/cgroup", "0::/system.slice/zswap-tuned.service\n");
        tu_write(r->root, "/sys/fs/cgroup/batch.slice/cpu.idle", "0\n");
        tu_write(r->root, "/sys/fs/cgroup/batch.slice/memory.pressure", "some total=0\nfull total=0\n");
        tu_write(r->root, "/sys/fs/cgroup/system.slice/db.service/memory.pressure", "some total=0\nfull total=0\n");
        mkdir_at(r, "/sys/fs/cgroup/system.slice/jobs.slice");
        mkdir_at(r, "/sys/fs/cgroup/user.slice");
        mkdir_at(r, "/sys/fs/cgroup/user.slice/user-1000.slice");
        mkdir_at(r, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service");
        mkdir_at(r, user);
        chmod_path(r->root, user);
        chown_at(r, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service", NOBODY);
        chown_at(r, user, NOBODY);

        /* the pressure sources, and the batch matches' wake-ups, as the daemon wires them */
        kernel_init(&k, r->root);
        src = (struct sources) { .kernel = &k };
        conf_defaults(&c);
        assert_int_equal(conf_load_string(&c, "t.conf",
                                          "[Pressure]\nSystem=yes\nCgroups=system.slice/db.service\n", err,
                                          sizeof(err)),
                         0);
        sources_setup(&src, &c);
        r->sources = &src;
        start(r, pats, 1, true, 0);
        assert_int_equal(follow_count(r->f), 1);
        w.alone = batch_slice_cap(r->f);
        assert_true(sd_event_add_time_relative(r->event, &w.timer, CLOCK_MONOTONIC, SAMPLE_USEC, 1, on_sample, &w) >=
                    0);
        assert_true(sd_event_source_set_enabled(w.timer, SD_EVENT_ON) >= 0);

        /* the user: idle cgroups in a storm, in their own subtree */
        storm_phase(&w, "delegated storm (uid 65534, cpu.idle 1)", user, NOBODY, true);
        assert_int_equal(w.max_count, 1);
        assert_int_equal(w.cap_changed, 0);
        assert_int_equal(follow_count(r->f), 1);
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/batch.slice"));

        /* root: cgroups that are not idle, in a watched directory (each one
         * looked at again while young): the loop still samples on time */
        storm_phase(&w, "root storm (watched, not idle)", "/sys/fs/cgroup/system.slice/jobs.slice", 0, false);
        assert_int_equal(w.max_count, 1);
        assert_int_equal(w.cap_changed, 0);

        /* the pressure sources kept their places: a new one finds one */
        assert_int_equal(sources_follow_add(&src, "/sys/fs/cgroup/system.slice/web.service", false), 0);
        assert_true(sources_is_pressure(&src, "/sys/fs/cgroup/system.slice/db.service"));

        w.timer = sd_event_source_disable_unref(w.timer);
        r->f = follow_free(r->f);
        r->sources = NULL;
        sources_free(&src);
        conf_free(&c);
}

/* ---- Units= over a bus: a fake manager on a direct connection ------------ */

/* Properties.Get on a unit's object: its ControlGroup, on the interface
 * named by the unit's type. */
static void fm_asked(const char *unit, const char *iface, const char *prop, void *userdata) {
        assert_string_equal(prop, "ControlGroup");
        if (strstr(unit, ".service"))
                assert_string_equal(iface, "org.freedesktop.systemd1.Service");
}

static void fm_signal(struct fake_manager *fm, const char *member, const char *name) {
        assert_true(fake_manager_signal(fm, member, name, NULL) >= 0);
}

struct unit_rec {
        unsigned adds, removes;
        char last_unit[64], last_cgroup[128];
        struct follow *f;
};

static void u_add(const char *unit, const char *cgroup, void *userdata) {
        struct unit_rec *u = userdata;

        u->adds++;
        snprintf(u->last_unit, sizeof(u->last_unit), "%s", unit);
        snprintf(u->last_cgroup, sizeof(u->last_cgroup), "%s", cgroup);
        follow_add_unit(u->f, unit, cgroup);
}

static void u_remove(const char *unit, void *userdata) {
        struct unit_rec *u = userdata;

        u->removes++;
        follow_remove_unit(u->f, unit);
}

static void test_units_bus(void **state) {
        struct rec *r = *state;
        struct fake_manager fm = { .asked = fm_asked };
        struct unit_rec ur = { 0 };
        struct conf_list pats = { .item = { (char *) "backup@*.service", (char *) "build-*.scope" }, .n = 2 };
        struct units *u = NULL;
        sd_bus *srv = NULL, *cl = NULL;
        sd_id128_t id;
        int fds[2];

        assert_int_equal(fake_manager_set(&fm, "backup@1.service", "/system.slice/backup@1.service"), 0);
        assert_int_equal(fake_manager_set(&fm, "db.service", "/system.slice/db.service"), 0);
        assert_int_equal(fake_manager_set(&fm, "backup@0.service", ""), 0); /* loaded, not running */
        start(r, NULL, 0, false, 0);
        ur.f = r->f;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds), 0);
        assert_int_equal(sd_id128_randomize(&id), 0);
        assert_int_equal(sd_bus_new(&srv), 0);
        assert_int_equal(sd_bus_set_fd(srv, fds[0], fds[0]), 0);
        assert_int_equal(sd_bus_set_server(srv, 1, id), 0);
        assert_int_equal(fake_manager_attach(&fm, srv), 0);
        assert_int_equal(sd_bus_start(srv), 0);
        assert_int_equal(sd_bus_attach_event(srv, r->event, 0), 0);
        assert_int_equal(sd_bus_new(&cl), 0);
        assert_int_equal(sd_bus_set_fd(cl, fds[1], fds[1]), 0);
        assert_int_equal(sd_bus_start(cl), 0);

        assert_int_equal(units_new(&u, r->event, cl, &pats, u_add, u_remove, &ur), 0);
        /* listed: backup@1 has a cgroup, backup@0 none, db.service is not asked for */
        assert_true(run_until(r, &ur.adds, 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(ur.last_unit, "backup@1.service");
        assert_string_equal(ur.last_cgroup, "/system.slice/backup@1.service");
        assert_int_equal(fm.subscribed, 1);
        assert_true(units_listed(u));
        assert_int_equal(units_count(u), 1);
        const struct follow_match *m = follow_find(r->f, "/sys/fs/cgroup/system.slice/backup@1.service");
        assert_non_null(m);
        assert_string_equal(m->unit, "backup@1.service");
        assert_int_equal(m->pattern, FOLLOW_UNIT);

        /* a transient scope: UnitNew before its cgroup, then its start job */
        assert_int_equal(fake_manager_set(&fm, "build-1234.scope", ""), 0);
        fm_signal(&fm, "UnitNew", "build-1234.scope");
        unsigned gets = fm.gets + 1;
        run_until(r, &fm.gets, gets, USEC_PER_SEC);
        while (sd_event_run(r->event, 0) > 0)
                ;
        assert_int_equal(ur.adds, 1);
        assert_int_equal(fake_manager_set(&fm, "build-1234.scope", "/batch.slice/build-1234.scope"), 0);
        fm_signal(&fm, "JobRemoved", "build-1234.scope");
        assert_true(run_until(r, &ur.adds, 2, USEC_PER_SEC) < USEC_PER_SEC);
        assert_string_equal(ur.last_unit, "build-1234.scope");
        assert_non_null(follow_find(r->f, "/sys/fs/cgroup/batch.slice/build-1234.scope"));

        /* a unit of no interest: not even asked about */
        gets = fm.gets;
        fm_signal(&fm, "UnitNew", "db.service");
        /* stopped: the stop job leaves no cgroup; then unloaded */
        assert_int_equal(fake_manager_set(&fm, "backup@1.service", ""), 0);
        fm_signal(&fm, "JobRemoved", "backup@1.service");
        assert_true(run_until(r, &ur.removes, 1, USEC_PER_SEC) < USEC_PER_SEC);
        assert_int_equal(fm.gets, gets + 1);
        assert_null(follow_find(r->f, "/sys/fs/cgroup/system.slice/backup@1.service"));
        fake_manager_drop(&fm, "build-1234.scope"); /* unloaded: the manager says so when asked */
        fm_signal(&fm, "UnitRemoved", "build-1234.scope");
        assert_true(run_until(r, &ur.removes, 2, USEC_PER_SEC) < USEC_PER_SEC);
        assert_int_equal(follow_count(r->f), 0);
        assert_int_equal(units_count(u), 0);

        units_free(u);
        sd_bus_flush_close_unref(srv);
}

static void test_units_no_bus(void **state) {
        struct rec *r = *state;
        struct conf_list pats = { .item = { (char *) "backup@*.service" }, .n = 1 };
        struct units *u = NULL;
        char *old = getenv("DBUS_SYSTEM_BUS_ADDRESS") ? strdup(getenv("DBUS_SYSTEM_BUS_ADDRESS")) : NULL;

        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/zswap-tuned-test-bus", 1);
        assert_true(units_new(&u, r->event, NULL, &pats, NULL, NULL, NULL) < 0);
        assert_null(u);
        assert_true(units_new(&u, r->event, NULL, &pats, NULL, NULL, NULL) < 0);
        if (old)
                setenv("DBUS_SYSTEM_BUS_ADDRESS", old, 1);
        else
                unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        free(old);
        /* said once */
        unsigned n = 0;
        for (unsigned i = 0; i < r->n_log; i++)
                n += strstr(r->log[i], "Units=: no system bus") != NULL;
        assert_int_equal(n, 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_dirent_is_dir),
                cmocka_unit_test(test_glob_parse),
                cmocka_unit_test(test_glob_components),
                cmocka_unit_test(test_glob_refused),
                cmocka_unit_test(test_glob_forbidden),
                cmocka_unit_test(test_own_cgroup),
                cmocka_unit_test(test_unit_patterns),
                cmocka_unit_test_setup_teardown(test_follow_scan, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_nothing_yet, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_add_remove_readd, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_bound, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_refusals, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_units, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_idle, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_idle_written_late, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_storm, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_idle_delegated, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_idle_quota, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_ancestors_refused, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_bounded_pass, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_overflow_rescan, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_follow_delegated_storm, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_units_bus, rec_setup, rec_teardown),
                cmocka_unit_test_setup_teardown(test_units_no_bus, rec_setup, rec_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
