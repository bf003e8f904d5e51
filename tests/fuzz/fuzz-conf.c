/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser, the input as the main file: a rejected file
 * always says why, and an accepted one round-trips: --check-config's dump of
 * it loads again and dumps to the same text. */
#include <errno.h>

#include "conf.h"
#include "fuzz.h"

static char *dump(const struct conf *c) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                abort();
        conf_dump(c, f);
        if (fclose(f) != 0)
                abort();
        return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), err[1024] = "", err2[1024] = "";
        struct conf a, b;
        int r;

        fuzz_quiet();
        conf_defaults(&a);
        conf_defaults(&b);
        r = conf_load_string(&a, "fuzz.conf", s, err, sizeof(err));
        FUZZ_ASSERT(r <= 0);
        if (r < 0)
                /* an error always says where: "fuzz.conf:LINE: ..." or "fuzz.conf: ..." */
                FUZZ_ASSERT(strncmp(err, "fuzz.conf:", strlen("fuzz.conf:")) == 0 && err[strlen("fuzz.conf:")]);
        else {
                char *t1 = dump(&a), *t2;

                r = conf_load_string(&b, "dump.conf", t1, err2, sizeof(err2));
                if (r < 0)
                        fprintf(stderr, "the dump does not load: %s\n--- dump:\n%s", err2, t1);
                FUZZ_ASSERT(r == 0);
                t2 = dump(&b);
                if (strcmp(t1, t2) != 0)
                        fprintf(stderr, "--- first dump:\n%s--- second dump:\n%s", t1, t2);
                FUZZ_ASSERT(strcmp(t1, t2) == 0);
                free(t1);
                free(t2);
                conf_free(&b);
        }
        conf_free(&a);
        free(s);
        return 0;
}
