/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup-glob.h"
#include "log.h"
#include "probe.h"
#include "protect.h"
#include "psi.h"
#include "snapshot.h"
#include "util.h"

_Static_assert(PROTECT_MAX <= SAVED_MAX_WRITEBACK, "every protected cgroup's original must fit in the save file");
_Static_assert(PROTECT_MAX <= SNAPSHOT_MAX_SOURCES, "every protected cgroup is listed in the status");

#define PRESSURE_FILE "/memory.pressure"
#define WRITEBACK_FILE "/memory.zswap.writeback"

void protect_init(struct protect *p) {
        *p = (struct protect) { .available = -1 };
}

void protect_probe(struct protect *p, const struct kernel *k, bool enabled) {
        p->available = probe_writeback(k, enabled);
        p->unavailable_said = enabled && !p->available;
        p->own_known = cglob_own_cgroup(k, p->own, sizeof(p->own)) == 0;
}

void protect_setup(struct protect *p, const struct kernel *k, bool enabled) {
        (void) k;
        p->n = 0;
        p->enabled = enabled;
        p->dry_said = false;
        if (enabled && p->available == 0 && !p->unavailable_said) {
                log_notice("[Pressure] ProtectWriteback=yes, but this kernel has no memory.zswap.writeback (Linux "
                           "6.8 or later, cgroup v2): no cgroup's writeback is ever changed");
                p->unavailable_said = true;
        }
}

/* rel is top or lies below it */
static bool at_or_below(const char *rel, const char *top) {
        size_t n = strlen(top);

        return strncmp(rel, top, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* a is b, or one lies below the other (directories, no trailing '/') */
static bool same_or_nested(const char *a, const char *b) {
        return at_or_below(a, b) || at_or_below(b, a);
}

/* Why the cgroup dir may not be protected now, or NULL. */
static const char *refused(const struct protect *p, const char *dir, const struct batch *b) {
        const char *rel = dir + strlen(CGROUP_ROOT);

        if (!at_or_below(dir, CGROUP_ROOT) || !rel[0])
                return "is the root cgroup or not a cgroup below " CGROUP_ROOT;
        rel++;
        if (at_or_below(rel, "unified"))
                rel += rel[7] ? 8 : 7;
        if (!*rel)
                return "is the root cgroup";
        if (at_or_below(rel, "init.scope"))
                return "lies in init.scope (PID 1)";
        if (p->own_known && *p->own && at_or_below(rel, p->own))
                return "is or lies in the daemon's own cgroup";
        for (unsigned i = 0; b && i < b->n; i++) {
                char bdir[sizeof(b->cg[i].path)];
                char *slash;

                snprintf(bdir, sizeof(bdir), "%s", b->cg[i].path);
                if ((slash = strrchr(bdir, '/')))
                        *slash = '\0';
                if (same_or_nested(dir, bdir))
                        return "is, lies in or holds a batch cgroup (the setting is hierarchical: the batch's "
                               "entries would stay in RAM too)";
        }
        return NULL;
}

static void log_change(const struct protect_cg *c, int value, const char *reason, const char *text) {
        char f_cg[600], f_val[32], f_reason[32], f_pct[48];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_WRITEBACK, f_cg, f_val, f_reason, f_pct, NULL };

        snprintf(f_cg, sizeof(f_cg), "CGROUP=%s", c->dir);
        snprintf(f_val, sizeof(f_val), "ZSWAP_WRITEBACK=%d", value);
        snprintf(f_reason, sizeof(f_reason), "REASON=%s", reason);
        snprintf(f_pct, sizeof(f_pct), "PRESSURE_PERCENT=%.1f", c->pct);
        log_fields(LOG_NOTICE, fields, "%s: memory.zswap.writeback %d: %s", c->dir, value, text);
}

/* The decision to protect: 1 -> 0, the original saved first. */
static void hold(struct protect_cg *c, const struct kernel *k, struct restore *rs, const struct policy_params *pp) {
        char text[160];
        int v = kernel_writeback_read(k, c->path), r;

        if (v == -ENOENT) {
                if (!c->missing_said)
                        log_notice("%s has no memory.zswap.writeback (the cgroup is gone, or has no memory "
                                   "controller); not protecting it", c->dir);
                c->missing_said = true;
                policy_protect_sync(&c->pol, false);
                return;
        }
        c->missing_said = false;
        if (v < 0) {
                if (!c->failed_said)
                        log_warning("Cannot read %s: %s; not protecting it", c->path, err_str(v));
                c->failed_said = true;
                policy_protect_sync(&c->pol, false);
                return;
        }
        if (v == 0) {
                /* the admin's 0 (MemoryZSwapWriteback=no, a write by hand):
                 * protected already, and never ours to put back */
                if (!c->zero_said)
                        log_info("%s holds 0, a setting the daemon did not write; leaving it there", c->path);
                c->zero_said = true;
                return;
        }
        r = restore_save_writeback(rs, c->path, 1);
        if (r < 0) {
                /* restore.c said why (once); nothing is changed unsaved, and
                 * nothing kept to put back: a 0 the admin writes meanwhile
                 * must not be undone on exit */
                restore_forget_writeback(rs, c->path);
                policy_protect_sync(&c->pol, false);
                return;
        }
        r = kernel_writeback_write(k, c->path, 0);
        if (r < 0) {
                if (!c->failed_said)
                        log_fields(LOG_WARNING, (const char *[]) { "MESSAGE_ID=" MESSAGE_ID_WRITE_FAILED, NULL },
                                   "Cannot write 0 to %s: %s; not protecting it (said once)", c->path,
                                   r == -ELOOP ? "a symlink" : r == -EPERM ? "not a cgroup2 file" : err_str(r));
                c->failed_said = true;
                restore_forget_writeback(rs, c->path); /* still 1 there */
                policy_protect_sync(&c->pol, false);
                return;
        }
        if (c->failed_said)
                log_info("Wrote %s again", c->path);
        c->failed_said = false;
        c->held = true;
        snprintf(text, sizeof(text), "its pressure %.1f%% >= %g%%; its zswap entries stay in RAM", c->pct,
                 pp->pressure_high);
        log_change(c, 0, "pressure", text);
}

/* Back to the original; a failure is kept saved and tried at each sample. */
static int release(struct protect_cg *c, struct restore *rs, const char *reason, const char *text) {
        int r = restore_writeback(rs, c->path);

        if (r >= 0 || r == -EBADMSG) {
                if (r == 0)
                        log_change(c, 1, reason, text);
                c->held = false;
                c->restore_said = false;
                return r < 0 ? r : 0;
        }
        c->restore_said = true; /* restore.c said it */
        return r;
}

/* Still our 0? Another writer's value is theirs from now on. */
static void check_held(struct protect_cg *c, const struct kernel *k, struct restore *rs) {
        int v = kernel_writeback_read(k, c->path);

        if (v == -ENOENT) {
                log_info("%s is gone; nothing to restore there", c->path);
                restore_forget_writeback(rs, c->path);
                c->held = false;
        } else if (v == 1) {
                if (!c->theirs_said)
                        log_notice("%s holds 1, not our 0: someone else wrote it; theirs from now on (not put back "
                                   "on exit)", c->path);
                c->theirs_said = true;
                restore_forget_writeback(rs, c->path);
                c->held = false;
        }
}

static struct protect_cg *find(struct protect *p, const char *dir) {
        for (unsigned i = 0; i < p->n; i++)
                if (strcmp(p->cg[i].dir, dir) == 0)
                        return &p->cg[i];
        return NULL;
}

static struct protect_cg *add(struct protect *p, const char *dir) {
        struct protect_cg *c;

        if (p->n >= PROTECT_MAX || strlen(dir) >= sizeof(c->dir))
                return NULL;
        c = &p->cg[p->n++];
        *c = (struct protect_cg) { 0 };
        strcpy(c->dir, dir);
        snprintf(c->path, sizeof(c->path), "%s" WRITEBACK_FILE, dir);
        return c;
}

void protect_tick(struct protect *p, const struct kernel *k, struct restore *rs, const struct sources *s,
                  const struct batch *b, const struct policy_params *pp, bool dry_run, uint64_t now) {
        char text[160];

        if (!p->enabled || p->available <= 0)
                return;
        if (dry_run) {
                if (!p->dry_said)
                        log_notice("Dry run: [Pressure] ProtectWriteback= writes no cgroup's memory.zswap.writeback");
                p->dry_said = true;
                return;
        }
        for (unsigned i = 0; i < p->n; i++)
                p->cg[i].seen = false;
        for (unsigned i = 0; i < s->n; i++) {
                const struct psi_src *src = &s->src[i];
                size_t n = strlen(src->path), f = strlen(PRESSURE_FILE);
                struct protect_cg *c;
                const char *why;
                char dir[512];

                if (src->wake_only || src->rest || strcmp(src->path, PSI_SYSTEM_MEMORY) == 0 || n <= f ||
                    strcmp(src->path + n - f, PRESSURE_FILE) != 0 || n - f >= sizeof(dir))
                        continue;
                snprintf(dir, sizeof(dir), "%.*s", (int) (n - f), src->path);
                c = find(p, dir);
                if (!c && !(c = add(p, dir)))
                        continue;
                c->seen = true;
                why = refused(p, dir, b);
                if (why && why != c->refused)
                        log_notice("Pressure: %s %s; its memory.zswap.writeback is never changed", dir, why);
                c->refused = why;
                if (why) {
                        if (c->held)
                                (void) release(c, rs, "refused", "no longer a cgroup to protect");
                        c->pol = (struct policy_protect) { 0 };
                        continue;
                }
                if (c->held)
                        check_held(c, k, rs);
                switch (policy_protect_decide(pp, &c->pol, src->pct >= 0, src->pct, now)) {
                case PROTECT_ON:
                        c->pct = src->pct;
                        hold(c, k, rs, pp);
                        break;
                case PROTECT_OFF:
                        c->pct = src->pct;
                        snprintf(text, sizeof(text), "its pressure below %g%% for %llu s; back to its original",
                                 pp->pressure_low, (unsigned long long) (pp->hold_usec / USEC_PER_SEC));
                        if (c->held)
                                (void) release(c, rs, "calm", text);
                        break;
                case PROTECT_KEEP:
                        if (c->held && !c->pol.protecting) /* a put back that failed: again */
                                (void) release(c, rs, "calm", "back to its original");
                        break;
                }
        }
        /* no longer a pressure source: put back and forget */
        for (unsigned i = p->n; i-- > 0;) {
                struct protect_cg *c = &p->cg[i];

                if (c->seen)
                        continue;
                if (c->held && release(c, rs, "gone", "no longer a pressure source; back to its original") < 0 &&
                    c->held)
                        continue; /* kept for another try */
                p->cg[i] = p->cg[--p->n];
        }
}

int protect_release_all(struct protect *p, struct restore *rs) {
        int ret = 0;

        for (unsigned i = 0; i < p->n; i++) {
                struct protect_cg *c = &p->cg[i];
                int r;

                if (!c->held)
                        continue;
                r = release(c, rs, "stop", "put back");
                if (r < 0 && ret == 0)
                        ret = r;
        }
        p->n = 0;
        return ret;
}

void protect_snapshot(const struct protect *p, struct snapshot *snap) {
        snap->n_protected = 0;
        for (unsigned i = 0; i < p->n && snap->n_protected < SNAPSHOT_MAX_SOURCES; i++)
                if (p->cg[i].held)
                        snprintf(snap->protected_cg[snap->n_protected++], sizeof(snap->protected_cg[0]), "%s",
                                 p->cg[i].dir);
}
