/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_psi(): /proc/pressure/memory and a cgroup's memory.pressure. */
#include <errno.h>
#include <inttypes.h>

#include "fuzz.h"
#include "psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        /* PSI_SOME and PSI_FULL (0 and 1), wherever the enum lives */
        static const char *const prefix[] = { "some ", "full " };

        fuzz_quiet();
        for (int type = 0; type <= 1; type++) {
                uint64_t total = UINT64_C(0xdeadbeef);
                int r = parse_psi(s, type, &total);

                FUZZ_ASSERT(r == 0 || r == -EBADMSG);
                if (r == 0) {
                        char num[48];

                        /* a line of that type, and the number somewhere in it */
                        FUZZ_ASSERT(fuzz_line_starts_with(s, prefix[type]));
                        snprintf(num, sizeof(num), "%" PRIu64, total);
                        FUZZ_ASSERT(strstr(s, num));
                }
        }
        free(s);
        return 0;
}
