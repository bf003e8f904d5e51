/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_cgroup_memory_v1(): /proc/self/cgroup. */
#include "fuzz.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        bool v1;

        fuzz_quiet();
        v1 = parse_cgroup_memory_v1(s);
        /* "memory" between the first two colons of some line */
        if (v1)
                FUZZ_ASSERT(strstr(s, ":memory:") || strstr(s, ":memory,") || strstr(s, ",memory:") ||
                            strstr(s, ",memory,"));
        free(s);
        return 0;
}
