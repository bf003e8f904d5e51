/* SPDX-License-Identifier: GPL-2.0-or-later */
/* units.c's pure part: unit_pattern_check() (which Units= entries are
 * refused) and unit_patterns_match() (which unit names they take).
 *
 * The input: lines up to the first empty one are Units= patterns (those
 * unit_pattern_check() accepts, at most CONF_MAX_CGROUPS, are the list), the
 * lines after it unit names, as the manager's signals and ListUnits carry
 * them. Only what must hold however the rules get stricter is checked: an
 * accepted pattern is a possible unit name or glob, and a unit is taken only
 * by a pattern that fnmatch(3) says takes it. */
#include <fnmatch.h>

#include "conf.h"
#include "fuzz.h"
#include "units.h"

#define MAX_NAMES 64

/* What systemd allows in a unit name, and the glob characters. */
static int possible(const char *p) {
        size_t n = strlen(p);

        if (n == 0 || n > UNIT_NAME_MAX)
                return 0;
        for (; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr(":_.\\@-*?[]!^", *p)))
                        return 0;
        return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), *rest = s, *line;
        struct conf_list list = { .n = 0 };
        unsigned names = 0;

        fuzz_quiet();
        while (rest) {
                line = strsep(&rest, "\n");
                if (!*line)
                        break;
                if (unit_pattern_check(line)) {
                        /* (stricter rules may refuse more) */
                        continue;
                }
                FUZZ_ASSERT(possible(line));
                if (list.n < CONF_MAX_CGROUPS)
                        list.item[list.n++] = line;
        }
        while (rest && names++ < MAX_NAMES) {
                unsigned i;

                line = strsep(&rest, "\n");
                if (!unit_patterns_match(&list, line))
                        continue;
                for (i = 0; i < list.n; i++)
                        if (fnmatch(list.item[i], line, 0) == 0)
                                break;
                FUZZ_ASSERT(i < list.n);
        }
        free(s);
        return 0;
}
