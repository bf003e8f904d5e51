/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser: the input as the main file, then --check-config's
 * dump of what was accepted must load again and dump to the same text. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "conf.h"
#include "fuzz.h"

static char dir[] = "/tmp/zt-fuzz-conf.XXXXXX";
static char path[sizeof(dir) + 16];

static void cleanup(void) {
        unlink(path);
        rmdir(dir);
}

static int load_text(struct conf *c, const char *text, char *err, size_t errsize) {
        FILE *f;

        if (!path[0]) {
                if (!mkdtemp(dir))
                        abort();
                snprintf(path, sizeof(path), "%s/main.conf", dir);
                atexit(cleanup);
        }
        f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                abort();
        return conf_load(c, path, err, errsize);
}

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
        r = load_text(&a, s, err, sizeof(err));
        FUZZ_ASSERT(r <= 0);
        if (r < 0)
                FUZZ_ASSERT(err[0]); /* an error always says where and why */
        else {
                char *t1 = dump(&a), *t2;

                r = load_text(&b, t1, err2, sizeof(err2));
                if (r < 0)
                        fprintf(stderr, "dump does not load: %s\n--- dump:\n%s", err2, t1);
                FUZZ_ASSERT(r == 0);
                t2 = dump(&b);
                if (strcmp(t1, t2) != 0)
                        fprintf(stderr, "--- first dump:\n%s--- second dump:\n%s", t1, t2);
                FUZZ_ASSERT(strcmp(t1, t2) == 0);
                free(t1);
                free(t2);
        }
        conf_free(&a);
        conf_free(&b);
        free(s);
        return 0;
}
