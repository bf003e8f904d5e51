/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_knob(): a zswap boolean parameter ("Y\n"), also the save file's VALUE=. */
#include <ctype.h>
#include <errno.h>

#include "fuzz.h"
#include "kernel.h"

/* The documented contract: Y/1 and N/0, surrounding white space allowed. */
static int expected(const char *s) {
        const char *e = s + strlen(s);

        while (isspace((unsigned char) *s))
                s++;
        while (e > s && isspace((unsigned char) e[-1]))
                e--;
        if (e - s != 1)
                return -EBADMSG;
        if (*s == 'Y' || *s == '1')
                return KNOB_ON;
        if (*s == 'N' || *s == '0')
                return KNOB_OFF;
        return -EBADMSG;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        int r;

        fuzz_quiet();
        r = parse_knob(s);
        FUZZ_ASSERT(r == KNOB_ON || r == KNOB_OFF || r == -EBADMSG);
        /* Never take something else for a value. The parser may refuse long
         * padded input (it reads a small buffer), never accept garbage. */
        if (r != -EBADMSG || strlen(s) < 8)
                FUZZ_ASSERT(r == expected(s));
        free(s);
        return 0;
}
