/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record_parse_line(): a line of a recording (--record), as "zswap-tuned
 * replay" and "plot" read it, with its inverse record_format_event(); and
 * replay() over the whole input, as a file. */
#include <errno.h>
#include <math.h>

#include "conf.h"
#include "fuzz.h"
#include "record.h"
#include "replay.h"

/* What an accepted line holds, checked independently of record.c. */
static void check(const char *line, const struct record_event *ev) {
        static const char fields[] = { ['I'] = 4, ['S'] = 10, ['D'] = 8, ['O'] = 4, ['F'] = 3, ['R'] = 2,
                                       ['C'] = 6, ['H'] = 5, ['P'] = 3, ['A'] = 4 };
        unsigned commas = 0;

        FUZZ_ASSERT(strchr("ISDOFRCHPA", (int) ev->type) && line[0] == (char) ev->type && line[1] == ',');
        for (const char *p = line; *p; p++)
                commas += *p == ',';
        FUZZ_ASSERT(commas + 1 == (unsigned) fields[(unsigned char) line[0]]);
        /* decimal only: no nan, inf, hex, signs but "-", space, empty field */
        FUZZ_ASSERT(strspn(line + 1, ",-.0123456789eE+") == strlen(line + 1));
        FUZZ_ASSERT(!strstr(line, ",,") && line[strlen(line) - 1] != ',');
        FUZZ_ASSERT(!strstr(line, "+") || strstr(line, "e+") || strstr(line, "E+"));
        switch (ev->type) {
        case RECORD_INIT:
                FUZZ_ASSERT(ev->current >= KNOB_UNSET && ev->current <= KNOB_ON);
                FUZZ_ASSERT(ev->original >= KNOB_UNSET && ev->original <= KNOB_ON);
                break;
        case RECORD_SAMPLE:
                FUZZ_ASSERT(ev->sample.now == ev->now);
                FUZZ_ASSERT(isfinite(ev->sample.pressure) && isfinite(ev->sample.pool) && isfinite(ev->sample.batch));
                FUZZ_ASSERT(ev->sample.pool_state <= POOL_DISABLED && ev->sample.n_batch <= BATCH_MAX_CGROUPS);
                break;
        case RECORD_DECISION:
                FUZZ_ASSERT(ev->set >= KNOB_UNSET && ev->set <= KNOB_ON && ev->knob >= KNOB_UNSET && ev->knob <= KNOB_ON);
                FUZZ_ASSERT(ev->mode <= MODE_PROTECT && ev->reason < POLICY_REASONS && ev->held <= HELD_CAP);
                FUZZ_ASSERT(isfinite(ev->batch_cap));
                break;
        case RECORD_OUTSIDE:
                FUZZ_ASSERT(ev->actual == KNOB_OFF || ev->actual == KNOB_ON);
                break;
        case RECORD_FAILED:
                FUZZ_ASSERT(ev->actual >= KNOB_UNSET && ev->actual <= KNOB_ON);
                break;
        case RECORD_RESUME:
                break;
        case RECORD_CGROUPS:
                FUZZ_ASSERT(ev->sample.cgroups_valid && isfinite(ev->sample.cgroups_pressure));
                break;
        case RECORD_REST:
                FUZZ_ASSERT(ev->sample.batch_known && isfinite(ev->sample.rest_pressure));
                break;
        case RECORD_OLD_HOLDER_CG: /* read, never written (LargestHolder=, before 0.3.0) */
        case RECORD_OLD_HOLDER:
                break;
        }
}

/* parse -> format -> parse is the identity, and the text a fixed point;
 * the lines nothing writes any more are not formatted. */
static void round_trip(const struct record_event *ev) {
        static char text[RECORD_LINE_MAX], again[RECORD_LINE_MAX], why[256];
        struct record_event ev2;
        int n = record_format_event(ev, text, sizeof(text));

        if (ev->type == RECORD_OLD_HOLDER_CG || ev->type == RECORD_OLD_HOLDER) {
                FUZZ_ASSERT(n == -EINVAL);
                return;
        }
        FUZZ_ASSERT(n > 2 && (size_t) n < sizeof(text) && text[n - 1] == '\n' && strchr(text, '\n') == text + n - 1);
        text[n - 1] = '\0';
        if (record_parse_line(text, &ev2, why, sizeof(why)) != 0) {
                fprintf(stderr, "written \"%s\" refused: %s\n", text, why);
                abort();
        }
        FUZZ_ASSERT(memcmp(ev, &ev2, sizeof(ev2)) == 0);
        FUZZ_ASSERT(record_format_event(&ev2, again, sizeof(again)) == n);
        FUZZ_ASSERT(memcmp(text, again, (size_t) n - 1) == 0);
}

static void lines(char *s) {
        static char why[256];
        struct record_event ev;

        for (char *l = s, *nl; l; l = nl) {
                nl = strchr(l, '\n');
                if (nl)
                        *nl++ = '\0';
                if (l[0] == '#' || l[0] == '\0')
                        continue;
                why[0] = '\0';
                if (record_parse_line(l, &ev, why, sizeof(why)) == 0) {
                        check(l, &ev);
                        round_trip(&ev);
                } else
                        FUZZ_ASSERT(why[0] && !strchr(why, '\n'));
        }
}

/* replay_stream() over the whole input, verifying or lenient by its size. */
static void whole(const uint8_t *data, size_t size) {
        static FILE *null;
        static struct conf c;
        static bool have_conf;
        struct replay_options o = { .verify = (size & 1) != 0, .lenient = (size & 2) != 0 };
        FILE *in;
        int r;

        if (!null) {
                null = fopen("/dev/null", "we");
                if (!null)
                        abort();
        }
        if (!have_conf) {
                conf_defaults(&c);
                have_conf = true;
        }
        if (size == 0)
                return;
        o.err = null;
        in = fmemopen((void *) data, size, "r");
        if (!in)
                abort();
        r = replay_stream(in, "fuzz", &c, &o, null);
        fclose(in);
        FUZZ_ASSERT(r == 0 || r == 1 || r == 2);
        FUZZ_ASSERT(r != 1 || o.verify);
        FUZZ_ASSERT(r != 2 || !o.lenient);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);

        fuzz_quiet();
        lines(s);
        free(s);
        whole(data, size);
        return 0;
}
