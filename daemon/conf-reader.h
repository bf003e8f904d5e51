/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The lines of one configuration file, as inih gets them: whole (never split,
 * however long), without leading whitespace (so never a continuation line),
 * each checked before inih sees it. Internal to conf.c. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Debian's libinih has its compile-time options as variables too. With them
 * inih's line buffer grows to CONF_LINE_MAX; without them a line must fit the
 * fixed buffer inih passes (INI_MAX_LINE, 200 bytes by default), and a longer
 * one is an error. */
#if HAVE_DECL_INI_MAX_LINE && HAVE_DECL_INI_ALLOW_REALLOC && HAVE_DECL_INI_USE_STACK
#define CONF_INIH_GROWS 1
#else
#define CONF_INIH_GROWS 0
#endif

#define CONF_LINE_MAX 65536        /* bytes in a line, without its newline */
#define CONF_FILE_MAX (1024 * 1024) /* bytes in a file */

/* Every error of a load, in the order found, one a line: "FILE:LINE: message"
 * (or "FILE: message"). The first always fits (cut if it must); a later one
 * that does not is counted, and conf_error_finish() says how many. */
struct conf_error {
        char *buf;
        size_t size;
        bool failed;
        unsigned n, hidden; /* errors reported; of those, not in buf */
};

void conf_error(struct conf_error *e, const char *file, unsigned line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Add "(N more errors not shown)" for those that did not fit. */
void conf_error_finish(struct conf_error *e);

struct conf_reader {
        const char *file;                /* the name in messages */
        const char *const *sections;     /* the known [Section] names, NULL-terminated */
        struct conf_error *e;
        FILE *f;                         /* the source: a file, or ... */
        const char *text;                /* ... a string */
        char *line;                      /* the current line */
        size_t size, len, pos;           /* allocated, length, how much inih has */
        bool pending;                    /* inih has not had all of the line yet */
        bool bad_section;                /* after a header in error: its keys are not read */
        bool stop;                       /* an error that ends the file (it cannot be read on) */
        unsigned lineno;
        size_t total;                    /* bytes read so far */
};

/* Set inih's run-time options, where the library has them. Before each parse. */
void conf_reader_setup_inih(void);

/* Read the file at path: 1 = opened, 0 = missing and !must_exist, or a negative
 * errno-style value with the error reported ("cannot read FILE: reason"). Only a regular file is read;
 * /dev/null (a drop-in linked to it, systemd's way of masking) reads as empty. */
int conf_reader_open(struct conf_reader *r, const char *path, bool must_exist);
/* Read the NUL-terminated text as the file called name. */
void conf_reader_open_string(struct conf_reader *r, const char *name, const char *text);
void conf_reader_close(struct conf_reader *r);

/* An ini_reader: hands inih the next line, or the rest of a line that did not
 * fit its buffer. A line in error is reported and handed on as a blank line
 * (so that inih counts lines as we do), as is every line of a section whose
 * header is in error; the reading goes on. NULL at the end, or after an error
 * that leaves the rest unreadable (a read error, a file too large). */
char *conf_reader_next(char *str, int num, void *reader);

/* The *.conf files in path.d (not hidden ones), as paths in lexical order:
 * their number, or a negative errno-style value with the error reported. A
 * missing directory has none; one that cannot be read is an error. Free each
 * and the array. */
int conf_list_dropins(const char *path, struct conf_error *e, char ***ret);
