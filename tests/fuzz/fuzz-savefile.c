/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_savefile(): the state file that names what --restore writes to. */
#include <errno.h>

#include "fuzz.h"
#include "savefile.h"

static void check(const struct saved *s) {
        FUZZ_ASSERT(s->n_caps <= CONF_MAX_CGROUPS);
        if (s->knob[0]) {
                FUZZ_ASSERT(strcmp(s->knob, "shrinker_enabled") == 0 || strcmp(s->knob, "shrink_enabled") == 0);
                FUZZ_ASSERT(s->value == KNOB_ON || s->value == KNOB_OFF);
        }
        for (unsigned i = 0; i < s->n_caps; i++) {
                const struct saved_cap *c = &s->caps[i];

                FUZZ_ASSERT(memchr(c->path, '\0', sizeof(c->path)));
                FUZZ_ASSERT(memchr(c->value, '\0', sizeof(c->value)));
                FUZZ_ASSERT(c->path[0] == '/');
                FUZZ_ASSERT(strcmp(c->value, "max") == 0 ||
                            (c->value[0] && strspn(c->value, "0123456789") == strlen(c->value)));
        }
}

/* What savefile_write() would write for s. */
static void format(const struct saved *s, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        if (s->knob[0])
                n += (size_t) snprintf(buf + n, size - n, "KNOB=%s\nVALUE=%s\n", s->knob,
                                       s->value == KNOB_ON ? "Y" : "N");
        for (unsigned i = 0; i < s->n_caps && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "ZSWAP_MAX=%s %s\n", s->caps[i].value, s->caps[i].path);
        FUZZ_ASSERT(n < size);
}

static void same(const struct saved *a, const struct saved *b) {
        FUZZ_ASSERT(strcmp(a->knob, b->knob) == 0);
        FUZZ_ASSERT(!a->knob[0] || a->value == b->value);
        FUZZ_ASSERT(a->n_caps == b->n_caps);
        for (unsigned i = 0; i < a->n_caps; i++) {
                FUZZ_ASSERT(strcmp(a->caps[i].path, b->caps[i].path) == 0);
                FUZZ_ASSERT(strcmp(a->caps[i].value, b->caps[i].value) == 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        static struct saved a, b;
        static char text[32768];
        int r;

        fuzz_quiet();
        r = parse_savefile(s, &a);
        FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -E2BIG || r == -ERANGE);
        if (r == 0) {
                check(&a);
                /* what is accepted is written back the same way and reads back the same */
                format(&a, text, sizeof(text));
                r = parse_savefile(text, &b);
                FUZZ_ASSERT(r == 0);
                same(&a, &b);
        }
        free(s);
        return 0;
}
