/* SPDX-License-Identifier: GPL-2.0-or-later */
/* [Batch] LargestHolder=: which cgroup, if any, to cap as batch work when
 * nobody has named one. Pure, like policy.c: holder.c scans the cgroups and
 * carries out what this returns. */
#include "policy.h"

/* One cgroup that holds most of the pool while others stall for memory: the
 * largest holder, when it holds at least POLICY_HOLDER_SHARE of the limit,
 * is not a pressure source (nor batch work already), the pool is at
 * WatchPercent or more and another cgroup stalls at LowPercent or more, is
 * capped like a batch cgroup; the cap formula then leaves the others their
 * share. It stays batch work until every other cgroup has stalled less than
 * LowPercent for HoldSec, and no pick or release comes sooner than
 * MinDwellSec after the last one: one cgroup at a time, no ping-pong.
 * Calm is what the readings saw: one after a gap longer than avg10's window
 * and a sample interval (a daemon woken from idle by a PSI trigger, say, while
 * avg10 still lags the stall that woke it) starts the count again. */
policy_holder_action policy_holder_decide(const struct policy_params *p, struct policy_holder_state *s, uint64_t now,
                                          double pool, const struct policy_holder_cg *cg, unsigned n,
                                          unsigned *pick) {
        bool dwelt = !s->changed || now - s->last_change >= p->min_dwell_usec;
        bool gap = s->seen && now - s->last_seen > POLICY_HOLDER_GAP_USEC + p->sample_usec;
        double others = 0;
        int best = -1;

        s->seen = true;
        s->last_seen = now;
        if (s->have) {
                for (unsigned i = 0; i < n; i++)
                        if (!cg[i].picked && cg[i].stall > others)
                                others = cg[i].stall;
                if (others >= p->pressure_low) {
                        s->calm = false;
                        return HOLDER_KEEP;
                }
                if (!s->calm || gap) {
                        s->calm = true;
                        s->calm_since = now;
                }
                if (now - s->calm_since < p->hold_usec || !dwelt)
                        return HOLDER_KEEP;
                s->have = s->calm = false;
                s->changed = true;
                s->last_change = now;
                return HOLDER_RELEASE;
        }

        if (!dwelt || pool < p->pool_watch)
                return HOLDER_KEEP;
        for (unsigned i = 0; i < n; i++)
                if (!cg[i].excluded && cg[i].share >= POLICY_HOLDER_SHARE && (best < 0 || cg[i].share > cg[best].share))
                        best = (int) i;
        if (best < 0)
                return HOLDER_KEEP;
        for (unsigned i = 0; i < n; i++)
                if ((int) i != best && cg[i].stall > others)
                        others = cg[i].stall;
        if (others < p->pressure_low)
                return HOLDER_KEEP;
        *pick = (unsigned) best;
        s->have = true;
        s->calm = false;
        s->changed = true;
        s->last_change = now;
        return HOLDER_PICK;
}

void policy_holder_forget(struct policy_holder_state *s, uint64_t now) {
        if (!s->have)
                return;
        s->have = s->calm = false;
        s->changed = true;
        s->last_change = now;
}
