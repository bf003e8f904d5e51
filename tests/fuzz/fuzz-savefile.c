/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_savefile(): the state file that names what --restore writes to, and
 * cap_path_valid()/cap_value_valid(), which decide which of its lines are
 * used. */
#include <errno.h>

#include "fuzz.h"
#include "kernel.h"
#include "savefile.h"

/* Independently of kernel.c: "/sys/fs/cgroup/<name>/.../memory.zswap.max",
 * every component a plain name (not empty, ".", or ".."). */
static int cap_path_ok(const char *p) {
        static const char root[] = "/sys/fs/cgroup/", file[] = "/memory.zswap.max";
        size_t n = strlen(p);
        char *copy, *save = NULL;
        int ok = 1;

        if (strncmp(p, root, strlen(root)) != 0 || n < strlen(file) || strcmp(p + n - strlen(file), file) != 0)
                return 0;
        if (strstr(p, "//"))
                return 0;
        copy = strdup(p);
        if (!copy)
                abort();
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
                if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0)
                        ok = 0;
        free(copy);
        return ok;
}

/* ... and "/sys/fs/cgroup/<name>/.../memory.zswap.writeback" the same way */
static int writeback_path_ok(const char *p) {
        static const char file[] = "/memory.zswap.writeback", cap[] = "/memory.zswap.max";
        char swapped[1024];
        size_t n = strlen(p);

        if (n < strlen(file) || strcmp(p + n - strlen(file), file) != 0 ||
            n - strlen(file) + sizeof(cap) > sizeof(swapped))
                return 0;
        snprintf(swapped, sizeof(swapped), "%.*s%s", (int) (n - strlen(file)), p, cap);
        return cap_path_ok(swapped);
}

static int cap_value_ok(const char *v) {
        size_t n;

        if (strcmp(v, "max") == 0)
                return 1;
        n = strlen(v);
        if (n == 0 || strspn(v, "0123456789") != n)
                return 0;
        /* a u64: at most 18446744073709551615, leading zeros aside */
        while (n > 1 && *v == '0')
                v++, n--;
        return n < 20 || (n == 20 && strcmp(v, "18446744073709551615") <= 0);
}

static void check(const struct saved *s) {
        FUZZ_ASSERT(s->n_caps <= SAVED_MAX_CAPS);
        if (s->knob[0]) {
                FUZZ_ASSERT(strcmp(s->knob, "shrinker_enabled") == 0 || strcmp(s->knob, "shrink_enabled") == 0);
                FUZZ_ASSERT(s->value == KNOB_ON || s->value == KNOB_OFF);
        } else
                FUZZ_ASSERT(s->value == KNOB_UNSET);
        for (unsigned i = 0; i < s->n_caps; i++) {
                const struct saved_cap *c = &s->caps[i];

                FUZZ_ASSERT(memchr(c->path, '\0', sizeof(c->path)));
                FUZZ_ASSERT(memchr(c->value, '\0', sizeof(c->value)));
                /* never a file but a memory.zswap.max below the cgroup mount */
                FUZZ_ASSERT(cap_path_ok(c->path));
                FUZZ_ASSERT(cap_value_ok(c->value));
                /* one original value per file */
                for (unsigned j = 0; j < i; j++)
                        FUZZ_ASSERT(strcmp(c->path, s->caps[j].path) != 0);
        }
        FUZZ_ASSERT(s->n_writeback <= SAVED_MAX_WRITEBACK);
        for (unsigned i = 0; i < s->n_writeback; i++) {
                const struct saved_writeback *w = &s->writeback[i];

                FUZZ_ASSERT(memchr(w->path, '\0', sizeof(w->path)));
                FUZZ_ASSERT(writeback_path_ok(w->path));
                FUZZ_ASSERT(w->value == 0 || w->value == 1);
                for (unsigned j = 0; j < i; j++)
                        FUZZ_ASSERT(strcmp(w->path, s->writeback[j].path) != 0);
        }
}

static void same(const struct saved *a, const struct saved *b) {
        FUZZ_ASSERT(strcmp(a->knob, b->knob) == 0);
        FUZZ_ASSERT(a->value == b->value);
        FUZZ_ASSERT(a->n_caps == b->n_caps);
        for (unsigned i = 0; i < a->n_caps; i++) {
                FUZZ_ASSERT(strcmp(a->caps[i].path, b->caps[i].path) == 0);
                FUZZ_ASSERT(strcmp(a->caps[i].value, b->caps[i].value) == 0);
        }
        FUZZ_ASSERT(a->n_writeback == b->n_writeback);
        for (unsigned i = 0; i < a->n_writeback; i++) {
                FUZZ_ASSERT(strcmp(a->writeback[i].path, b->writeback[i].path) == 0);
                FUZZ_ASSERT(a->writeback[i].value == b->writeback[i].value);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        static struct saved a, b;
        static char text[SAVEFILE_MAX];
        int r, lines = 1;

        fuzz_quiet();
        /* the validators alone, on the whole input */
        if (cap_path_valid(s))
                FUZZ_ASSERT(cap_path_ok(s));
        if (cap_value_valid(s))
                FUZZ_ASSERT(cap_value_ok(s));

        for (const char *p = s; *p; p++)
                lines += *p == '\n';
        r = parse_savefile(s, "fuzz", &a);
        /* lines left out (each at most once, and a KNOB= without VALUE=), or a file too large */
        FUZZ_ASSERT(r == -E2BIG || (r >= 0 && r <= lines + 1));
        if (r >= 0) {
                check(&a);
                /* what is kept writes back and reads back the same, nothing left out */
                FUZZ_ASSERT(savefile_format(&a, text, sizeof(text)) >= 0);
                FUZZ_ASSERT(parse_savefile(text, "fuzz-written", &b) == 0);
                same(&a, &b);
        }
        free(s);
        return 0;
}
