/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_mountinfo_line() and parse_swaps_line(): /proc/self/mountinfo and
 * /proc/swaps, a line at a time, as "zswap-tuned status" reads them to tell
 * whether swap shares a disk with mounted file systems. */
#include <errno.h>

#include "fuzz.h"
#include "swap-disk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), *line = s;

        fuzz_quiet();
        while (line) {
                char *e = strchr(line, '\n'), mount[16], area[24];
                unsigned major, minor;
                bool file;
                int r;
                if (e)
                        *e = '\0';
                r = parse_mountinfo_line(line, &major, &minor, mount, sizeof(mount));
                FUZZ_ASSERT(r == 0 || r == -EBADMSG);
                /* a mount point: absolute, one token, cut nowhere */
                if (r == 0)
                        FUZZ_ASSERT(mount[0] == '/' && strlen(mount) < sizeof(mount) && !strpbrk(mount, " \t\n") &&
                                    strstr(line, mount));
                r = parse_swaps_line(line, area, sizeof(area), &file);
                FUZZ_ASSERT(r == 0 || r == -EBADMSG);
                if (r == 0)
                        FUZZ_ASSERT(area[0] == '/' && strlen(area) < sizeof(area) && !strpbrk(area, " \t\n") &&
                                    strstr(line, file ? "file" : "partition"));
                line = e ? e + 1 : NULL;
        }
        free(s);
        return 0;
}
