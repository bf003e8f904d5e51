/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "handback.h"
#include "log.h"
#include "util.h"

void handback_init(struct handback *h) {
        *h = (struct handback) { .support = HANDBACK_UNKNOWN };
}

/* The key of the proposed interface ("mm/zswap: Implement per-cgroup
 * proactive writeback", LKML 2026, v4): its count in memory.stat says that
 * memory.reclaim takes "zswap_writeback_only". */
static bool supported(struct handback *h, const struct kernel *k, const char *spec) {
        uint64_t v;
        int r;

        if (h->support != HANDBACK_UNKNOWN)
                return h->support == HANDBACK_YES;
        r = kernel_cgroup_stat(k, spec, "zswpwb_proactive_b", &v);
        if (r < 0) {
                char path[PATH_MAX];

                /* no memory.stat to tell (the cgroup went): not known yet */
                if (kernel_cgroup_path(k, spec, "memory.stat", path, sizeof(path)) < 0 || !kernel_exists(k, path))
                        return false;
        }
        h->support = r == 0 ? HANDBACK_YES : HANDBACK_NO;
        if (h->support == HANDBACK_NO)
                log_info("Batch: this kernel cannot write back a cgroup's zswap entries on request (no "
                         "zswpwb_proactive_b in memory.stat): what was lent to batch work comes back as its "
                         "entries are swapped in");
        return h->support == HANDBACK_YES;
}

void handback_tick(struct handback *h, const struct kernel *k, const struct batch *b, const struct sources *src,
                   bool dry_run, uint64_t now, const struct policy_decision *d) {
        char human[32], rate[32];

        if (!d->handback) {
                if (h->active && h->said)
                        log_info("Batch: the room lent to batch work is back (%s asked back since start)",
                                 format_bytes(human, sizeof(human), h->asked));
                h->active = h->said = false;
                return;
        }
        if (!h->active) {
                h->active = true;
                h->budget = HANDBACK_BYTES_PER_SEC; /* one second's worth at once */
        } else if (now > h->last_usec) {
                uint64_t dt = now - h->last_usec < USEC_PER_SEC ? now - h->last_usec : USEC_PER_SEC;
                uint64_t more = dt * HANDBACK_BYTES_PER_SEC / USEC_PER_SEC;

                h->budget = h->budget + more > HANDBACK_BYTES_PER_SEC ? HANDBACK_BYTES_PER_SEC : h->budget + more;
        }
        h->last_usec = now;

        for (unsigned i = 0; i < b->n && h->budget >= page_size(); i++) {
                const struct batch_cg *c = &b->cg[i];
                const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_WRITE_FAILED, NULL };
                char path[PATH_MAX];
                uint64_t want;
                int r;

                if (!c->capped || c->use < c->cap + page_size() || c->failures > 0)
                        continue;
                /* never of latency-sensitive work, whatever else it is */
                if (sources_is_pressure(src, c->spec) || !supported(h, k, c->spec))
                        continue;
                if (kernel_cgroup_path(k, c->spec, "memory.reclaim", path, sizeof(path)) < 0)
                        continue;
                want = c->use - c->cap < h->budget ? c->use - c->cap : h->budget;
                if (!h->said)
                        log_info("Batch: %s the kernel to write back what %s holds above its cap (%s), at most "
                                 "%s a second", dry_run ? "Would ask" : "Asking", c->spec,
                                 format_bytes(human, sizeof(human), c->use - c->cap),
                                 format_bytes(rate, sizeof(rate), HANDBACK_BYTES_PER_SEC));
                h->said = true;
                h->budget -= want;
                if (dry_run) {
                        h->asked += want; /* would have */
                        continue;
                }
                r = kernel_zswap_writeback(k, path, want);
                if (r == -EINVAL) { /* the key went, or never was: the count lied */
                        h->support = HANDBACK_NO;
                        log_info("Batch: %s refuses zswap_writeback_only: no longer asking", path);
                        return;
                }
                if (r < 0 && r != -EAGAIN) { /* -EAGAIN: it wrote back less */
                        if (!h->failed_said)
                                log_fields(LOG_WARNING, fields, "Cannot write %s: %s (said once)", path, err_str(r));
                        h->failed_said = true;
                        continue;
                }
                h->asked += want;
                log_debug("Batch: asked for %llu bytes of %s back", (unsigned long long) want, c->spec);
        }
}
