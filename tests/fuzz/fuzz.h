/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared by the libFuzzer harnesses (see docs/reliability.md, "Fuzzing"). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string in a heap block of exactly its length + 1, so that
 * ASan reports a read past the terminating NUL. Input after an embedded NUL
 * is dropped: the daemon reads files into C strings too. */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
        size_t n = strnlen((const char *) data, size);
        char *s = malloc(n + 1);

        if (!s)
                abort();
        memcpy(s, data, n);
        s[n] = '\0';
        return s;
}

/* Parsers log rejected input; keep libFuzzer's output readable and fast. */
static inline void fuzz_quiet(void) {
        log_set_max_level(0);
}

#define FUZZ_ASSERT(cond)                                                                        \
        do {                                                                                     \
                if (!(cond)) {                                                                   \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                                 \
                }                                                                                \
        } while (0)

/* Does a line of s start with prefix? */
static inline int fuzz_line_starts_with(const char *s, const char *prefix) {
        size_t n = strlen(prefix);

        for (const char *l = s; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
                if (strncmp(l, prefix, n) == 0)
                        return 1;
        return 0;
}
