/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot_parse(): the status file in the runtime directory, as "zswap-tuned
 * status" reads it, with snapshot_format(), which writes it. */
#include <errno.h>

#include "fuzz.h"
#include "snapshot.h"

static char *format(const struct snapshot *s) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                abort();
        snapshot_format(s, true, f);
        if (fclose(f) != 0)
                abort();
        return text;
}

#define SAME_DOUBLE(a, b) FUZZ_ASSERT(memcmp(&(a), &(b), sizeof(double)) == 0)

static void same(const struct snapshot *a, const struct snapshot *b) {
        FUZZ_ASSERT(a->pid == b->pid && a->updated == b->updated && strcmp(a->knob, b->knob) == 0);
        FUZZ_ASSERT(a->knob_value == b->knob_value && a->original == b->original);
        FUZZ_ASSERT(a->dry_run == b->dry_run && a->backed_off == b->backed_off);
        FUZZ_ASSERT(a->mode == b->mode && a->mode_since == b->mode_since && a->reason == b->reason);
        FUZZ_ASSERT(strcmp(a->reason_text, b->reason_text) == 0);
        SAME_DOUBLE(a->pressure, b->pressure);
        FUZZ_ASSERT(a->n_sources == b->n_sources);
        for (unsigned i = 0; i < a->n_sources; i++) {
                SAME_DOUBLE(a->source[i].pct, b->source[i].pct);
                FUZZ_ASSERT(strcmp(a->source[i].path, b->source[i].path) == 0);
        }
        SAME_DOUBLE(a->pool, b->pool);
        FUZZ_ASSERT(a->pool_bytes == b->pool_bytes && a->stored_bytes == b->stored_bytes &&
                    a->limit_bytes == b->limit_bytes && a->incomp_pages == b->incomp_pages &&
                    a->uncharged == b->uncharged);
        SAME_DOUBLE(a->fill_rate, b->fill_rate);
        SAME_DOUBLE(a->time_to_limit, b->time_to_limit);
        FUZZ_ASSERT(a->n_batch == b->n_batch);
        for (unsigned i = 0; i < a->n_batch; i++) {
                FUZZ_ASSERT(strcmp(a->batch[i].cgroup, b->batch[i].cgroup) == 0);
                FUZZ_ASSERT(a->batch[i].use == b->batch[i].use && a->batch[i].capped == b->batch[i].capped);
                FUZZ_ASSERT(!a->batch[i].capped || a->batch[i].cap == b->batch[i].cap);
                FUZZ_ASSERT(a->batch[i].incomp == b->batch[i].incomp);
        }
        FUZZ_ASSERT(a->flips_last_hour == b->flips_last_hour && a->flips_total == b->flips_total);
        FUZZ_ASSERT(a->warnings == b->warnings);
}

static void check(const struct snapshot *s) {
        FUZZ_ASSERT(s->n_sources <= SNAPSHOT_MAX_SOURCES && s->n_batch <= SNAPSHOT_MAX_BATCH);
        FUZZ_ASSERT(memchr(s->knob, '\0', sizeof(s->knob)) && memchr(s->reason_text, '\0', sizeof(s->reason_text)));
        FUZZ_ASSERT(s->knob_value >= KNOB_UNSET && s->knob_value <= KNOB_ON);
        FUZZ_ASSERT(s->original >= KNOB_UNSET && s->original <= KNOB_ON);
        FUZZ_ASSERT(s->mode <= MODE_PROTECT && s->reason < POLICY_REASONS);
        for (unsigned i = 0; i < s->n_sources; i++)
                FUZZ_ASSERT(memchr(s->source[i].path, '\0', sizeof(s->source[i].path)));
        for (unsigned i = 0; i < s->n_batch; i++)
                FUZZ_ASSERT(memchr(s->batch[i].cgroup, '\0', sizeof(s->batch[i].cgroup)));
        /* status only: never in the file */
        FUZZ_ASSERT(s->incomp_pages == -1 && s->uncharged == -1);
        for (unsigned i = 0; i < SNAPSHOT_MAX_BATCH; i++)
                FUZZ_ASSERT(s->batch[i].incomp == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct snapshot a, b, c;
        char *s = fuzz_string(data, size), *t1, *t2;
        int r;

        fuzz_quiet();
        r = snapshot_parse(s, &a);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        FUZZ_ASSERT(r != 0 || fuzz_line_starts_with(s, "PID="));
        if (r == 0) {
                check(&a);
                /* what is read writes, and reads back the same (after one
                 * round the numbers are at the precision written) */
                t1 = format(&a);
                FUZZ_ASSERT(snapshot_parse(t1, &b) == 0);
                check(&b);
                t2 = format(&b);
                if (strcmp(t1, t2) != 0) {
                        fprintf(stderr, "written:\n%s\nread and written again:\n%s\n", t1, t2);
                        abort();
                }
                FUZZ_ASSERT(snapshot_parse(t2, &c) == 0);
                same(&b, &c);
                free(t1);
                free(t2);
        }
        free(s);
        return 0;
}
