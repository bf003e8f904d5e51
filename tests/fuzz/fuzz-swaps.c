/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_swaps(): /proc/swaps. */
#include <errno.h>

#include "fuzz.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        int r, lines = 0;

        fuzz_quiet();
        for (const char *p = s; *p; p++)
                if (*p == '\n' || p[1] == '\0')
                        lines++;
        r = parse_swaps(s);
        FUZZ_ASSERT(r == -EBADMSG || r >= 0);
        /* the header is not a swap area */
        if (r >= 0)
                FUZZ_ASSERT(r <= lines - 1);
        if (strncmp(s, "Filename", 8) != 0)
                FUZZ_ASSERT(r == -EBADMSG);
        free(s);
        return 0;
}
