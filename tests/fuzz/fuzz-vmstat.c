/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_vmstat(): /proc/vmstat. */
#include <errno.h>

#include "fuzz.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct vmstat v;
        int r;

        fuzz_quiet();
        memset(&v, 0xa5, sizeof(v));
        r = parse_vmstat(s, &v);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0) {
                /* a counter the file does not have reads as 0 */
                if (!fuzz_line_starts_with(s, "zswpout "))
                        FUZZ_ASSERT(v.zswpout == 0);
                if (!fuzz_line_starts_with(s, "zswpin "))
                        FUZZ_ASSERT(v.zswpin == 0);
                if (!fuzz_line_starts_with(s, "zswpwb "))
                        FUZZ_ASSERT(v.zswpwb == 0);
                if (!fuzz_line_starts_with(s, "pswpout "))
                        FUZZ_ASSERT(v.pswpout == 0);
                if (!fuzz_line_starts_with(s, "pswpin "))
                        FUZZ_ASSERT(v.pswpin == 0);
        }
        free(s);
        return 0;
}
