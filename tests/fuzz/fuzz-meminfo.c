/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_meminfo(): /proc/meminfo. */
#include <errno.h>

#include "fuzz.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct meminfo m;
        int r;

        fuzz_quiet();
        memset(&m, 0xa5, sizeof(m));
        r = parse_meminfo(s, &m);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0) {
                FUZZ_ASSERT(fuzz_line_starts_with(s, "MemTotal:"));
                FUZZ_ASSERT(m.mem_total_kb > 0);
                FUZZ_ASSERT(m.has_zswap == fuzz_line_starts_with(s, "Zswap:"));
                if (!m.has_zswap)
                        FUZZ_ASSERT(m.zswap_kb == 0 && m.zswapped_kb == 0);
                if (!fuzz_line_starts_with(s, "Zswapped:"))
                        FUZZ_ASSERT(m.zswapped_kb == 0);
        }
        free(s);
        return 0;
}
