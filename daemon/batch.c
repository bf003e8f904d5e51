/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "cgroup-glob.h"
#include "log.h"
#include "report.h"
#include "snapshot.h"
#include "util.h"

_Static_assert(BATCH_MAX_CGROUPS <= SAVED_MAX_CAPS, "every batch cgroup's original must fit in the save file");
_Static_assert(BATCH_MAX_CGROUPS <= POLICY_MAX_BATCH, "policy_cap_newcomer() divides among them all");

void batch_setup(struct batch *b, const struct kernel *k, const struct conf_list *cgroups, double max_pct) {
        b->n = 0;
        b->have_last = b->full_said = false;
        for (unsigned i = 0; i < cgroups->n; i++) {
                struct batch_cg *c = &b->cg[b->n];
                if (cglob_has_magic(cgroups->item[i]))
                        continue; /* a pattern: its matches come through batch_follow_add() */
                *c = (struct batch_cg) { 0 };
                snprintf(c->spec, sizeof(c->spec), "%s", cgroups->item[i]);
                c->by = BATCH_BY_CGROUPS;
                if (kernel_cgroup_path(k, c->spec, "memory.zswap.max", c->path, sizeof(c->path)) < 0 ||
                    kernel_cgroup_path(k, c->spec, "memory.zswap.current", c->cur_path, sizeof(c->cur_path)) < 0) {
                        log_warning("Batch: cgroup path too long: %s; not capping it", c->spec);
                        continue;
                }
                if (!cap_path_valid(c->path)) {
                        log_warning("Batch: %s is not a cgroup below " CGROUP_ROOT "; not capping it", c->spec);
                        continue;
                }
                b->n++;
                if (kernel_exists(k, c->path))
                        log_info("Batch: %s, zswap capped at most at %g%% of the pool limit, less when the "
                                 "rest of the pool leaves less room", c->path, max_pct);
                else {
                        log_notice("Batch: %s does not exist (no cgroup v2 memory controller, or the cgroup is not "
                                   "there yet); it is capped once it exists", c->path);
                        c->missing = true;
                }
        }
}

/* The cgroup was removed while capped: nothing to restore there any more. */
static void forget(struct batch_cg *c, struct restore *rs) {
        if (c->capped && !c->at_ceiling && !c->followed) /* a followed one: batch_follow_remove() says it */
                log_info("Batch: %s is gone; forgetting its cap", c->path);
        c->cap_forgotten = (c->capped && !c->at_ceiling) || c->cap_forgotten;
        restore_forget_cap(rs, c->path);
        c->capped = c->written = c->at_ceiling = false;
        c->missing = true;
        c->failures = 0;
}

void batch_sample(struct batch *b, const struct kernel *k, struct restore *rs, uint64_t limit_bytes, unsigned *n,
                  double *pct) {
        uint64_t used = 0;
        char buf[32];

        *n = 0;
        *pct = 0;
        if (limit_bytes == 0)
                return;
        for (unsigned i = 0; i < b->n; i++) {
                struct batch_cg *c = &b->cg[i];
                uint64_t cur;
                ssize_t r;

                c->use = 0;
                if (c->failures > 0)
                        continue;
                r = kernel_read(k, c->cur_path, buf, sizeof(buf));
                /* Removed while capped: forget it now, not at the next
                 * write of its cap, which may never come (the cap stays
                 * while there is no batch cgroup to measure); a cgroup of
                 * that name created later starts uncapped and is capped
                 * afresh. */
                if (r == -ENOENT && c->capped)
                        forget(c, rs);
                if (r <= 0 || parse_u64(strstrip(buf), &cur) < 0)
                        continue;
                c->use = cur;
                used += cur;
                (*n)++;
        }
        *pct = 100.0 * (double) used / (double) limit_bytes;
}

static int uncap(struct batch_cg *c, struct restore *rs) {
        char orig[32];
        int r;

        if (!c->written) {
                if (c->capped && !c->at_ceiling) /* at its ceiling: nothing was (or would have been) written */
                        report_cap(LOG_NOTICE, c->spec, "original", true, "Lifted the zswap cap of %s", c->spec);
                c->capped = c->at_ceiling = false;
                return 0;
        }
        snprintf(orig, sizeof(orig), "%s", restore_saved_cap(rs, c->path) ?: "?");
        r = restore_cap(rs, c->path);
        if (r == 1) {
                forget(c, rs);
                return 0;
        }
        if (r < 0 && r != -EBADMSG)
                return r; /* said; stays saved for --restore */
        if (r == 0)
                report_cap(LOG_NOTICE, c->spec, orig, false,
                           "Lifted the zswap cap of %s (memory.zswap.max back to %s)", c->spec, orig);
        c->capped = c->written = false;
        return 0;
}

int batch_uncap_all(struct batch *b, struct restore *rs) {
        int ret = 0;

        for (unsigned i = 0; i < b->n; i++) {
                int r = uncap(&b->cg[i], rs);
                if (r < 0)
                        ret = r;
        }
        return ret;
}

/* What a memory.zswap.max holds, as a ceiling in bytes ("max": none). */
static bool parse_ceiling(const char *value, uint64_t *ceiling) {
        if (strcmp(value, "max") == 0) {
                *ceiling = UINT64_MAX;
                return true;
        }
        return parse_u64(value, ceiling) == 0;
}

/* Before a write of ours is there: is the cgroup there, and what is its
 * limit (the admin's: systemd's MemoryZSwapMax=, a set-property, a write
 * by hand)? That is the ceiling of every cap, and orig (its text) what is
 * saved before the first write. Where an instance that died left its own cap
 * (not put back: still saved), the saved original is the limit. */
static bool read_ceiling(struct batch_cg *c, const struct kernel *k, const struct restore *rs, char *orig,
                         size_t size) {
        const char *saved = restore_saved_cap(rs, c->path);
        ssize_t n = kernel_read(k, c->path, orig, size);

        if (n <= 0 || !cap_value_valid(strstrip(orig))) {
                if (!c->missing)
                        log_notice("Batch: cannot read %s: %s; not capped", c->path,
                                   n < 0 ? err_str((int) n) : "unexpected contents");
                c->missing = true;
                return false;
        }
        if (c->missing)
                log_info("Batch: %s is there now", c->path);
        c->missing = false;
        if (saved && cap_value_valid(saved))
                snprintf(orig, size, "%s", saved);
        if (!parse_ceiling(orig, &c->ceiling)) /* a number beyond 64 bits: no limit */
                c->ceiling = UINT64_MAX;
        return true;
}

/* Another writer replaced the cap we wrote: systemd writes a unit's
 * MemoryZSwapMax= ("max" unless set) right after it creates the unit's
 * cgroup, which can be after we capped it (systemd 253 and later), and
 * "systemctl set-property" writes it at any time. What they wrote is the
 * admin's limit from now on: our write and its saved original are
 * forgotten (the file holds the admin's value, nothing to put back), and
 * the next cap starts from it as from a cgroup never capped. */
static bool cap_overwritten(struct batch_cg *c, const struct kernel *k, struct restore *rs) {
        uint64_t v;
        char buf[32];
        ssize_t n = kernel_read(k, c->path, buf, sizeof(buf));

        if (n <= 0) /* gone: batch_sample() forgets it */
                return false;
        strstrip(buf);
        if (parse_u64(buf, &v) == 0 && (v > c->cap ? v - c->cap : c->cap - v) < page_size())
                return false;
        if (!c->overwritten_said)
                log_notice("Batch: %s holds %s, not our cap (systemd's MemoryZSwapMax=, or another writer): that is "
                           "its limit from now on, kept on exit, and the cap stays at or below it (said once)",
                           c->path, buf);
        c->overwritten_said = true;
        restore_forget_cap(rs, c->path);
        c->capped = c->written = false;
        return true;
}

/* The cap would be at or above the cgroup's own limit: that limit stays as
 * it is, nothing written or saved (a cap never loosens a limit already set:
 * "0" stays 0). Said once for each limit. */
static void hold_ceiling(struct batch_cg *c, const struct policy_decision *d) {
        char human[32];

        if (!(c->capped && c->at_ceiling && c->cap == c->ceiling))
                log_notice("Batch: %s holds %llu, a limit the daemon did not write; leaving it there, since the cap "
                           "(%s, %.0f%% of the pool limit) would loosen it (a cap never loosens a limit already set)",
                           c->path, (unsigned long long) c->ceiling, format_bytes(human, sizeof(human), d->cap_bytes),
                           d->batch_cap);
        c->capped = c->at_ceiling = true;
        c->cap = c->ceiling;
        c->cap_at_max = false;
        c->cap_at_ceiling = true;
        snprintf(c->cap_text, sizeof(c->cap_text), "its own memory.zswap.max, below the cap");
}

static void cap(struct batch_cg *c, const struct kernel *k, struct restore *rs, bool dry_run,
                const struct policy_decision *d) {
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_WRITE_FAILED, NULL };
        char orig[32] = "", val[32], human[32], text[sizeof(c->cap_text)];
        uint64_t want;
        double pct;
        int r;

        if (c->written)
                (void) cap_overwritten(c, k, rs); /* then as if never capped */
        if ((!c->capped || c->at_ceiling) && !read_ceiling(c, k, rs, orig, sizeof(orig)))
                return;
        want = policy_cap_within(d->cap_bytes, c->ceiling);
        if (!c->written && want >= c->ceiling) {
                hold_ceiling(c, d);
                return;
        }
        if (c->capped && !c->at_ceiling && !policy_cap_needs_write(true, c->cap, want))
                return;
        /* fail closed: no cap whose original is not on the disk */
        if (!c->written && !dry_run && restore_save_cap(rs, c->path, orig) < 0)
                return; /* said by restore.c; tried again at the next sample */
        snprintf(val, sizeof(val), "%llu", (unsigned long long) want);
        if (!dry_run) {
                r = kernel_cap_write(k, c->path, val);
                if (r == -ENOENT) {
                        forget(c, rs);
                        return;
                }
                if (r < 0) {
                        if (c->failures++ == 0)
                                log_fields(LOG_ERR, fields, "Cannot write %s=%s: %s; trying again at each sample, "
                                           "said once", c->path, val, err_str(r));
                        return;
                }
                if (c->failures > 0)
                        log_notice("Wrote %s=%s after %u failed attempts", c->path, val, c->failures);
                c->failures = 0;
                c->written = true;
        }
        if (want < d->cap_bytes) /* want is the ceiling: a whole number of bytes */
                snprintf(text, sizeof(text), "its own limit from before, below the cap decided (a cap never "
                         "loosens a limit already set)");
        else
                snprintf(text, sizeof(text), "%s", d->cap_text);
        format_bytes(human, sizeof(human), want);
        pct = d->cap_bytes > 0 ? d->batch_cap * (double) want / (double) d->cap_bytes : d->batch_cap;
        if (!c->capped || c->at_ceiling)
                report_cap(LOG_NOTICE, c->spec, val, dry_run,
                           "Capped the zswap use of %s at %s (%.0f%% of the pool limit): %s", c->spec, human, pct,
                           text);
        else /* expected, as the rest of the pool grows and shrinks */
                report_cap(LOG_INFO, c->spec, val, dry_run,
                           "Moved the zswap cap of %s to %s (%.0f%% of the pool limit): %s", c->spec, human, pct,
                           text);
        c->capped = true;
        c->at_ceiling = false;
        c->cap = want;
        c->cap_at_max = d->cap_at_max && want == d->cap_bytes;
        c->cap_at_ceiling = want < d->cap_bytes;
        snprintf(c->cap_text, sizeof(c->cap_text), "%s", text);
}

void batch_apply(struct batch *b, const struct kernel *k, struct restore *rs, bool dry_run,
                 const struct policy_decision *d) {
        if (d->batch_keep)
                return;
        uint64_t use[BATCH_MAX_CGROUPS], caps[BATCH_MAX_CGROUPS];

        b->last = *d;
        b->have_last = true;
        b->dry_run = dry_run;
        /* the share split by what each holds, not by how many they are */
        for (unsigned i = 0; i < b->n; i++)
                use[i] = b->cg[i].use;
        if (d->batch_cap >= 0)
                policy_cap_divide(d->share_bytes, d->most_bytes, use, b->n, page_size(), caps);
        for (unsigned i = 0; i < b->n; i++) {
                if (d->batch_cap >= 0) {
                        struct policy_decision one = *d;
                        one.cap_bytes = caps[i];
                        if (d->cap_bytes > 0)
                                one.batch_cap = d->batch_cap * (double) caps[i] / (double) d->cap_bytes;
                        cap(&b->cg[i], k, rs, dry_run, &one);
                } else
                        (void) uncap(&b->cg[i], rs);
        }
}

/* CGROUP= and UNIT= (where known) of a followed cgroup, for its journal lines. */
struct match_fields {
        char cgroup[sizeof("CGROUP=") + CONF_CGROUP_NAME_MAX], unit[sizeof("UNIT=") + 256];
        const char *list[3];
};

static const char *const *match_fields(struct match_fields *f, const struct batch_cg *c) {
        snprintf(f->cgroup, sizeof(f->cgroup), "CGROUP=%s", c->spec);
        snprintf(f->unit, sizeof(f->unit), "UNIT=%s", c->unit);
        f->list[0] = f->cgroup;
        f->list[1] = c->unit[0] ? f->unit : NULL;
        f->list[2] = NULL;
        return f->list;
}

int batch_follow_add(struct batch *b, const struct kernel *k, struct restore *rs, const char *dir, const char *unit,
                     const char *by, const char *why) {
        struct match_fields mf;
        struct batch_cg *c, one = { .followed = true, .by = by };
        uint64_t use[BATCH_MAX_CGROUPS];
        bool valid = strlen(dir) < sizeof(one.spec) && strlen(unit ? unit : "") < sizeof(one.unit) &&
                     kernel_cgroup_path(k, dir, "memory.zswap.max", one.path, sizeof(one.path)) == 0 &&
                     kernel_cgroup_path(k, dir, "memory.zswap.current", one.cur_path, sizeof(one.cur_path)) == 0 &&
                     cap_path_valid(one.path);

        /* One cgroup, one entry, however it was named: Cgroups=batch.slice
         * and "/sys/fs/cgroup/batch.slice" found by IdleCgroups= are the
         * same memory.zswap.max (counted twice, they shared one cap out). */
        for (unsigned i = 0; valid && i < b->n; i++)
                if (strcmp(b->cg[i].path, one.path) == 0) {
                        /* a fixed path; or there already by another rule */
                        if (b->cg[i].followed)
                                b->cg[i].by = by;
                        return 0;
                }
        if (b->n >= ELEMENTSOF(b->cg)) {
                if (!b->full_said)
                        log_warning("Batch: %s matches, but %zu batch cgroups are capped already (what the save "
                                    "file holds); not capping it (said once)", dir, ELEMENTSOF(b->cg));
                b->full_said = true;
                return -ENOSPC;
        }
        if (!valid) {
                log_warning("Batch: %s cannot be capped (name too long, or not below " CGROUP_ROOT ")", dir);
                return -EINVAL;
        }
        strcpy(one.spec, dir);
        strcpy(one.unit, unit ? unit : "");
        for (unsigned i = 0; i < b->n; i++)
                use[i] = b->cg[i].use;
        c = &b->cg[b->n++];
        *c = one;
        log_fields(LOG_INFO, match_fields(&mf, c), "Batch: %s %s%s%s; batch work from now on", dir, why,
                   *c->unit ? ", unit " : "", c->unit);
        /* capped before its first sample: its part of the room the others
         * do not hold, until the next sample divides the share afresh */
        if (b->have_last && b->last.batch_cap >= 0) {
                struct policy_decision d;
                policy_cap_newcomer(&b->last, use, b->n - 1, page_size(), &d);
                cap(c, k, rs, b->dry_run, &d);
        }
        return 0;
}

void batch_follow_remove(struct batch *b, const struct kernel *k, struct restore *rs, const char *dir,
                         const char *why) {
        struct match_fields mf;

        for (unsigned i = 0; i < b->n; i++) {
                struct batch_cg *c = &b->cg[i];

                if (!c->followed || strcmp(c->spec, dir) != 0)
                        continue;
                if (c->written && kernel_exists(k, c->path)) {
                        log_fields(LOG_INFO, match_fields(&mf, c), "Batch: %s %s; lifting its cap", dir, why);
                        (void) uncap(c, rs); /* on failure it stays saved for --restore */
                } else {
                        log_fields(LOG_INFO, match_fields(&mf, c), "Batch: %s is gone%s", dir,
                                   (c->capped && !c->at_ceiling) || c->cap_forgotten ? "; forgetting its cap" : "");
                        restore_forget_cap(rs, c->path);
                }
                memmove(c, c + 1, (b->n - i - 1) * sizeof(*c));
                b->n--;
                return;
        }
}

void batch_snapshot(const struct batch *b, struct snapshot *snap) {
        for (unsigned i = 0; i < b->n && snap->n_batch < SNAPSHOT_MAX_BATCH; i++) {
                const struct batch_cg *c = &b->cg[i];
                snprintf(snap->batch[snap->n_batch].cgroup, sizeof(snap->batch[0].cgroup), "%s", c->spec);
                snap->batch[snap->n_batch].use = c->use;
                snap->batch[snap->n_batch].capped = c->capped;
                snap->batch[snap->n_batch].cap = c->cap;
                snprintf(snap->batch[snap->n_batch].by, sizeof(snap->batch[0].by), "%s", c->by ? c->by : "");
                if (c->capped) {
                        snprintf(snap->batch[snap->n_batch].cap_reason, sizeof(snap->batch[0].cap_reason), "%s",
                                 c->cap_at_ceiling ? "own-limit" : c->cap_at_max ? "max-percent" : "others-share");
                        snprintf(snap->batch[snap->n_batch].cap_text, sizeof(snap->batch[0].cap_text), "%s",
                                 c->cap_text);
                }
                snap->n_batch++;
        }
}
