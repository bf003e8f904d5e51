/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "units.h"
#include "util.h"

const char *unit_pattern_check(const char *pattern) {
        size_t n = strlen(pattern);

        if (n == 0)
                return "is empty";
        if (n > UNIT_NAME_MAX)
                return "is longer than a unit name can be (255)";
        for (const char *p = pattern; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr(":_.\\@-*?[]!^", *p)))
                        return "has a character systemd does not allow in unit names";
        return NULL;
}

bool unit_patterns_match(const struct conf_list *patterns, const char *unit) {
        for (unsigned i = 0; i < patterns->n; i++)
                if (fnmatch(patterns->item[i], unit, 0) == 0)
                        return true;
        return false;
}
