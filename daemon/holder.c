/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "cgroup-follow.h"
#include "holder.h"
#include "log.h"
#include "manager.h"
#include "record.h"
#include "util.h"

_Static_assert(2 * ADVICE_MAX + 1 <= RECORD_HOLDER_CGS, "a recording holds every cgroup the rule weighs");

/* The one picked, when the scan did not list it (it holds less than the
 * scan's mark and does not stall): read it directly. False when it is gone. */
static bool read_picked(const struct manager *m, const char *dir, uint64_t limit_bytes, struct policy_holder_cg *c) {
        uint64_t zswap;
        double stall;

        if (!advice_read_cgroup(&m->kernel, dir, true, &zswap, &stall))
                return false;
        *c = (struct policy_holder_cg) {
                .share = 100.0 * (double) zswap / (double) limit_bytes, .stall = stall, .picked = true,
        };
        return true;
}

/* The one picked is not capped after all (gone, or the cap not written). */
static void forget(struct manager *m, uint64_t now, double pool) {
        policy_holder_forget(&m->holder.state, now);
        record_holder(&m->recorder, now, pool, RECORD_HOLDER_FORGET, 0);
}

void holder_tick(struct manager *m, uint64_t now, uint64_t limit_bytes, double pool) {
        struct holder *h = &m->holder;
        struct policy_holder_cg cg[2 * ADVICE_MAX + 1];
        policy_holder_action action;
        const struct advice_cg *src[2 * ADVICE_MAX];
        unsigned n = 0, pick = 0, stalling = 0;
        bool listed = false;
        double most = 0;

        if (!m->conf.batch_largest || limit_bytes == 0)
                return;
        if ((m->sched.idle && !h->state.have) || (h->scanned && now - h->last_scan < HOLDER_SCAN_USEC))
                return; /* idle means idle; and a scan is no cheap read */
        h->scanned = true;
        h->last_scan = now;
        if (advice_scan(&m->kernel, limit_bytes, HOLDER_DEPTH, true, &h->scan) < 0) {
                if (!h->no_v2_said)
                        log_notice("Batch: LargestHolder=yes needs the cgroup v2 memory controller, which is not "
                                   "mounted; no cgroup is capped for it (said once)");
                h->no_v2_said = true;
                return;
        }
        for (unsigned i = 0; i < h->scan.n_holders; i++)
                src[n++] = &h->scan.holders[i];
        for (unsigned i = 0; i < h->scan.n_stalling; i++)
                src[n++] = &h->scan.stalling[i];
        for (unsigned i = 0; i < n; i++) {
                char dir[sizeof(h->dir)];
                snprintf(dir, sizeof(dir), CGROUP_ROOT "/%s", src[i]->cgroup);
                cg[i] = (struct policy_holder_cg) {
                        .share = 100.0 * (double) src[i]->zswap / (double) limit_bytes,
                        .stall = src[i]->stall,
                        .picked = h->state.have && strcmp(dir, h->dir) == 0,
                };
                /* never a pressure source; and batch work already is capped as such */
                cg[i].excluded = !cg[i].picked && (sources_is_pressure(&m->sources, dir) ||
                                                   batch_has(&m->batch, &m->kernel, dir));
                listed = listed || cg[i].picked;
        }
        if (h->state.have && !listed) {
                if (!read_picked(m, h->dir, limit_bytes, &cg[n])) {
                        log_info("Batch: %s, capped as the largest holder of the pool, is gone", h->dir);
                        batch_follow_remove(&m->batch, &m->kernel, &m->restore, h->dir, "is gone");
                        forget(m, now, pool);
                        return;
                }
                n++;
        }

        /* what was weighed and decided, for "zswap-tuned replay" (record.h) */
        for (unsigned i = 0; i < n; i++)
                record_holder_cg(&m->recorder, now, &cg[i]);
        action = policy_holder_decide(&m->params, &h->state, now, pool, cg, n, &pick);
        record_holder(&m->recorder, now, pool, (int) action, pick);
        switch (action) {
        case HOLDER_PICK:
                for (unsigned i = 0; i < n; i++)
                        if (i != pick && cg[i].stall > most) {
                                most = cg[i].stall;
                                stalling = i;
                        }
                snprintf(h->dir, sizeof(h->dir), CGROUP_ROOT "/%s", src[pick]->cgroup);
                /* the cap that follows is said with MESSAGE_ID_CAP (batch.c) */
                log_notice("Batch: %s holds %.0f%% of the pool limit while %s stalls %.1f%% of the time "
                           "(LargestHolder=yes): capping it as batch work until the others are calm",
                           src[pick]->cgroup, cg[pick].share, src[stalling]->cgroup, most);
                if (batch_follow_add(&m->batch, &m->kernel, &m->restore, h->dir, NULL, BATCH_BY_HOLDER,
                                     "holds most of the pool") < 0)
                        forget(m, now, pool); /* said by batch.c */
                break;
        case HOLDER_RELEASE:
                log_notice("Batch: every other cgroup has stalled less than %g%% for %g s: lifting the cap of %s "
                           "(LargestHolder=yes)",
                           m->params.pressure_low, (double) m->params.hold_usec / USEC_PER_SEC,
                           h->dir + strlen(CGROUP_ROOT "/"));
                /* batch work by a pattern or its cpu.idle since: it keeps its cap */
                if (m->follow.batch && follow_find(m->follow.batch, h->dir))
                        break;
                batch_follow_remove(&m->batch, &m->kernel, &m->restore, h->dir,
                                    "needs no cap now (the others are calm)");
                break;
        case HOLDER_KEEP:
                break;
        }
}

void holder_reset(struct holder *h) {
        h->state = (struct policy_holder_state) { 0 };
        h->scanned = false;
}
