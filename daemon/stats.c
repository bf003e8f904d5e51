/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include <string.h>

#include "snapshot.h"
#include "stats.h"
#include "util.h"

void stats_init(struct stats *st, uint64_t realtime) {
        *st = (struct stats) { .mode_since = realtime };
}

static void last(struct stats *st, const struct policy_decision *d) {
        st->last_reason = d->reason;
        snprintf(st->last_text, sizeof(st->last_text), "%s", d->text);
}

void stats_decision(struct stats *st, const struct policy_decision *d, bool done, uint64_t realtime) {
        if (d->set != KNOB_UNSET && done && d->reason != REASON_NONE) {
                if (d->flip) {
                        st->flips_by_reason[d->reason]++;
                        last(st, d);
                } else
                        st->retries++;
        }
        if (d->mode_changed) {
                st->mode_since = realtime;
                st->decisions_by_reason[d->reason]++;
                last(st, d);
        }
        if (d->held_changed && d->held != HELD_NONE)
                st->held[d->held]++;
}

uint64_t stats_flips(const struct stats *st) {
        uint64_t n = 0;

        for (unsigned i = 0; i < ELEMENTSOF(st->flips_by_reason); i++)
                n += st->flips_by_reason[i];
        return n;
}

void stats_snapshot(const struct stats *st, struct snapshot *snap) {
        snap->mode_since = st->mode_since;
        snap->reason = st->last_reason;
        snprintf(snap->reason_text, sizeof(snap->reason_text), "%s", st->last_text);
        snap->flips_total = stats_flips(st);
        snap->retries = st->retries;
        snap->held_total[HELD_DWELL] = st->held[HELD_DWELL];
        snap->held_total[HELD_CAP] = st->held[HELD_CAP];
        memcpy(snap->flips_by_reason, st->flips_by_reason, sizeof(snap->flips_by_reason));
        memcpy(snap->decisions_by_reason, st->decisions_by_reason, sizeof(snap->decisions_by_reason));
}
