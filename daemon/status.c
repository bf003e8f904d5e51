/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "snapshot.h"
#include "status.h"
#include "util.h"

#define STATUS_NOT_RUNNING 3
#define STATUS_NO_PERMISSION 4

/* No running daemon found (exit 3), or not allowed to tell (exit 4): with
 * --json, an object on stdout all the same (docs/status-schema.json). */
static int not_running(status_error e, const char *why, bool json) {
        if (json)
                snapshot_json_not_running(e, why, stdout);
        else if (e != STATUS_ERROR_PERMISSION)
                printf("zswap-tuned: not running (%s)\n", why);
        (void) fflush(stdout);
        return e == STATUS_ERROR_PERMISSION ? STATUS_NO_PERMISSION : STATUS_NOT_RUNNING;
}

/* cgroups below the mount the advice looks at: slices, units, and one level
 * more (a user manager's slices) */
#define ADVICE_DEPTH 4

/* Batch work named in the configuration (Cgroups=, Units=); IdleCgroups=,
 * on by default, names nothing: a host without such cgroups still gets advice. */
static bool batch_patterns(const struct snapshot *s) {
        for (unsigned i = 0; i < s->n_patterns; i++)
                if (strcmp(s->pattern[i].role, "batch") == 0 &&
                    strcmp(s->pattern[i].pattern, SNAPSHOT_PATTERN_IDLE) != 0)
                        return true;
        return false;
}

int status_show(const struct kernel *k, const char *state_dir, bool json) {
        static char buf[SNAPSHOT_FILE_MAX];
        static struct snapshot s;
        static struct advice advice;
        char path[1024];
        struct pool_sample pool;
        ssize_t n;

        if ((size_t) snprintf(path, sizeof(path), "%s/" SNAPSHOT_NAME, state_dir) >= sizeof(path))
                return not_running(STATUS_ERROR_NO_STATUS, "state directory path too long", json);
        n = read_full_file(path, buf, sizeof(buf));
        if (n == -EACCES || n == -EPERM) {
                char why[1200];
                snprintf(why, sizeof(why), "cannot read %s: %s (run as root)", path, err_str((int) n));
                fprintf(stderr, "zswap-tuned: %s\n", why);
                return not_running(STATUS_ERROR_PERMISSION, why, json);
        }
        if (n == -ENOENT || n == -ENOTDIR)
                return not_running(STATUS_ERROR_NO_STATUS, "no status in the state directory", json);
        if (n < 0)
                return not_running(STATUS_ERROR_INVALID, err_str((int) n), json);
        if (snapshot_parse(buf, &s) < 0)
                return not_running(STATUS_ERROR_INVALID, "the status file is not one zswap-tuned wrote", json);
        /* SIGKILL leaves the file behind until --restore: is its writer alive? */
        if (s.pid <= 0 || (kill(s.pid, 0) < 0 && errno == ESRCH))
                return not_running(STATUS_ERROR_STALE, "the status file is from a process that is gone", json);
        /* the pool as it is now, not as at the last sample */
        if (kernel_read_pool(k, &pool) == 0) {
                s.pool_bytes = pool.pool_bytes;
                s.stored_bytes = pool.stored_bytes;
                s.limit_bytes = pool.limit_bytes;
                s.pool = pool_percent(&pool);
        }
        /* what the kernel offers besides (incompressible pages: 6.18+) */
        uint64_t v;
        if (kernel_pool_incompressible(k, &v) == 0 && v <= INT64_MAX)
                s.incomp_pages = (int64_t) v;
        /* what no cgroup is charged for: the allocator's overhead (a lowered
         * memory.zswap.max gives room back to the cgroup before the pool) */
        if (advice_pool_charged(k, &v) == 0) {
                uint64_t u = s.pool_bytes > v ? s.pool_bytes - v : 0;
                s.uncharged = u > INT64_MAX ? INT64_MAX : (int64_t) u;
        }
        for (unsigned i = 0; i < s.n_batch; i++)
                if (kernel_cgroup_incompressible(k, s.batch[i].cgroup, &v) == 0 && v <= INT64_MAX)
                        s.batch[i].incomp = (int64_t) v;
        /* nothing named as batch work: say who holds the pool and who stalls */
        bool advise = s.n_batch == 0 && !batch_patterns(&s) &&
                      advice_scan(k, s.limit_bytes, ADVICE_DEPTH, &advice) == 0;
        if (json) {
                snapshot_json_open(&s, stdout);
                fputs(",\"advice\":", stdout);
                if (advise)
                        advice_json(&advice, stdout);
                else
                        fputs("null", stdout);
                fputs("}\n", stdout);
        } else {
                snapshot_print(&s, realtime_usec(), stdout);
                if (advise)
                        advice_print(&advice, stdout);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
