/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "conf-reader.h"

/* Room kept at the end of the buffer for conf_error_finish()'s line. */
#define CONF_ERROR_RESERVE 48

void conf_error(struct conf_error *e, const char *file, unsigned line, const char *fmt, ...) {
        char msg[512], full[PATH_MAX + 600];
        size_t used = e->failed ? strlen(e->buf) : 0;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (!file)
                snprintf(full, sizeof(full), "%s", msg);
        else if (line > 0)
                snprintf(full, sizeof(full), "%s:%u: %s", file, line, msg);
        else
                snprintf(full, sizeof(full), "%s: %s", file, msg);
        e->n++;
        if (!e->failed)
                snprintf(e->buf, e->size, "%s", full);
        else if (used + 1 + strlen(full) + CONF_ERROR_RESERVE < e->size)
                snprintf(e->buf + used, e->size - used, "\n%s", full);
        else
                e->hidden++;
        e->failed = true;
}

void conf_error_finish(struct conf_error *e) {
        size_t used = strlen(e->buf);

        if (e->hidden > 0 && used < e->size)
                snprintf(e->buf + used, e->size - used, "\n(%u more error%s not shown)", e->hidden,
                         e->hidden == 1 ? "" : "s");
}

void conf_reader_setup_inih(void) {
#if CONF_INIH_GROWS
        ini_use_stack = false;
        ini_allow_realloc = true;
        ini_max_line = CONF_LINE_MAX + 2; /* the line, its '\n' and a NUL */
#endif
        /* The reader strips leading whitespace, so there can be no
         * continuation lines anyway; the rest pins inih's defaults. */
#if HAVE_DECL_INI_ALLOW_MULTILINE
        ini_allow_multiline = false;
#endif
#if HAVE_DECL_INI_ALLOW_INLINE_COMMENTS && HAVE_DECL_INI_INLINE_COMMENT_PREFIXES
        ini_allow_inline_comments = true;
        ini_inline_comment_prefixes = (char *) ";";
#endif
#if HAVE_DECL_INI_START_COMMENT_PREFIXES
        ini_start_comment_prefixes = (char *) ";#";
#endif
#if HAVE_DECL_INI_STOP_ON_FIRST_ERROR
        ini_stop_on_first_error = false; /* the handler reports every error, and goes on */
#endif
#if HAVE_DECL_INI_ALLOW_NO_VALUE
        ini_allow_no_value = false;
#endif
#if HAVE_DECL_INI_ALLOW_BOM
        ini_allow_bom = false; /* the reader drops it */
#endif
}

static void reset(struct conf_reader *r, const char *name) {
        r->file = name;
        r->f = NULL;
        r->text = NULL;
        r->len = r->pos = r->total = 0;
        r->pending = false;
        r->bad_section = false;
        r->stop = false;
        r->lineno = 0;
}

void conf_reader_open_string(struct conf_reader *r, const char *name, const char *text) {
        reset(r, name);
        r->text = text;
}

int conf_reader_open(struct conf_reader *r, const char *path, bool must_exist) {
        struct stat st;
        int fd, flags, err;

        reset(r, path);
        /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                err = errno;
                conf_error(r->e, NULL, 0, "cannot read %s: %s", path, strerror(err));
                return -err;
        }
        if (fstat(fd, &st) < 0) {
                err = errno;
                close(fd);
                conf_error(r->e, NULL, 0, "cannot read %s: %s", path, strerror(err));
                return -err;
        }
        if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) { /* /dev/null */
                close(fd);
                conf_reader_open_string(r, path, "");
                return 1;
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                conf_error(r->e, path, 0, "not a regular file");
                return -EINVAL;
        }
        if (st.st_size > CONF_FILE_MAX) {
                close(fd);
                conf_error(r->e, path, 0, "too large (%jd bytes, at most %d)", (intmax_t) st.st_size,
                           CONF_FILE_MAX);
                return -EFBIG;
        }
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(r->f = fdopen(fd, "r"))) {
                err = errno;
                close(fd);
                conf_error(r->e, NULL, 0, "cannot read %s: %s", path, strerror(err));
                return -err;
        }
        return 1;
}

void conf_reader_close(struct conf_reader *r) {
        if (r->f)
                fclose(r->f);
        r->f = NULL;
        free(r->line);
        r->line = NULL;
        r->size = 0;
}

static int next_char(struct conf_reader *r) {
        if (r->f)
                return getc(r->f);
        return *r->text ? (unsigned char) *r->text++ : EOF;
}

static bool store(struct conf_reader *r, size_t n, int ch) {
        if (n + 1 >= r->size) {
                size_t size = r->size ? 2 * r->size : 256;
                char *l = realloc(r->line, size);

                if (!l)
                        return false;
                r->line = l;
                r->size = size;
        }
        r->line[n] = (char) ch;
        return true;
}

/* A header: the section's keys are read only if it is right; text after
 * a known one's "]" is an error, but the section is still that one. */
static void check_header(struct conf_reader *r, char *s) {
        const char *name = s + 1, *end = strchr(name, ']'), *t;
        char known[128] = "";
        bool space = false;
        size_t n;

        r->bad_section = true;
        if (!end) {
                conf_error(r->e, r->file, r->lineno, "section header without closing ']'");
                return;
        }
        n = (size_t) (end - name);
        for (unsigned i = 0; r->sections[i]; i++)
                if (strlen(r->sections[i]) == n && memcmp(r->sections[i], name, n) == 0)
                        goto known;
        for (unsigned i = 0; r->sections[i]; i++) {
                strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
                strncat(known, r->sections[i], sizeof(known) - strlen(known) - 1);
        }
        conf_error(r->e, r->file, r->lineno, "unknown section [%.*s] (known: %s); its keys are not read",
                   (int) (n > 64 ? 64 : n), name, known);
        return;
known:
        r->bad_section = false;
        for (t = end + 1; isspace((unsigned char) *t); t++)
                space = true;
        if (*t == '\0' || (space && *t == ';'))
                return;
        conf_error(r->e, r->file, r->lineno, "text after the section header [%.*s]", (int) n, name);
        strcpy(s + n + 2, "\n"); /* "[Name]\n": fits, it was longer */
}

/* Whatever inih would take differently from how it reads is an error here.
 * False: hand inih a blank line instead (an error, or a key of a section in
 * error). */
static bool check_line(struct conf_reader *r) {
        char *s = r->line + r->pos;
        bool space = false;

        if (*s == '\0' || *s == '\n' || *s == '#' || *s == ';')
                return true;
        if (*s == '[') {
                check_header(r, s);
                r->len = r->pos + strlen(s);
                return !r->bad_section; /* its keys are skipped here */
        }
        /* inih ends the key at '=', ':' or an inline comment (" ;"). */
        for (; *s && *s != '=' && *s != ':' && !(space && *s == ';'); s++)
                space = isspace((unsigned char) *s);
        if (*s == '=')
                return !r->bad_section;
        conf_error(r->e, r->file, r->lineno, "syntax error: expected [Section], Key=value or a comment%s",
                   *s == ':' ? " (not Key:value)" : "");
        return false;
}

/* Read the next line whole, and check it. False at the end or on an error
 * that ends the file. */
static bool read_line(struct conf_reader *r, int num) {
        size_t max = CONF_LINE_MAX, n = 0;
        bool nul = false, newline = false;
        int ch;

        if (!CONF_INIH_GROWS && (size_t) num - 2 < max)
                max = (size_t) num - 2;
        while ((ch = next_char(r)) != EOF) {
                if (++r->total > CONF_FILE_MAX) {
                        conf_error(r->e, r->file, 0, "too large (more than %d bytes)", CONF_FILE_MAX);
                        r->stop = true;
                        return false;
                }
                /* keep up to max bytes and the newline; longer is an error anyway */
                if (n <= max && !store(r, n, ch)) {
                        conf_error(r->e, r->file, r->lineno + 1, "out of memory");
                        r->stop = true;
                        return false;
                }
                n++;
                nul |= ch == '\0';
                if (ch == '\n') {
                        newline = true;
                        break;
                }
        }
        if (r->f && ferror(r->f)) {
                conf_error(r->e, r->file, 0, "cannot read: %s", strerror(errno));
                r->stop = true;
                return false;
        }
        if (n == 0)
                return false;
        r->lineno++;
        r->pos = 0;
        if (n - newline > max)
                conf_error(r->e, r->file, r->lineno, "line too long (%zu bytes, at most %zu)", n - newline, max);
        else if (nul)
                conf_error(r->e, r->file, r->lineno, "NUL byte in the line");
        else {
                r->line[n] = '\0';
                r->len = n;
                if (r->lineno == 1 && strncmp(r->line, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 BOM */
                        r->pos = 3;
                while (r->line[r->pos] != '\n' && isspace((unsigned char) r->line[r->pos]))
                        r->pos++;
                if (check_line(r))
                        return true;
        }
        /* a blank line in its place: inih counts it, and reads on */
        r->line[0] = '\n';
        r->line[1] = '\0';
        r->len = 1;
        r->pos = 0;
        return true;
}

char *conf_reader_next(char *str, int num, void *reader) {
        struct conf_reader *r = reader;
        size_t n;

        if (r->stop || num < 2)
                return NULL;
        if (!r->pending) {
                if (!read_line(r, num))
                        return NULL;
                r->pending = true;
        }
        /* A piece that fills inih's buffer without a newline makes inih grow
         * the buffer and call again for the rest. */
        n = r->len - r->pos;
        if (n > (size_t) num - 1)
                n = (size_t) num - 1;
        memcpy(str, r->line + r->pos, n);
        str[n] = '\0';
        r->pos += n;
        if (r->pos >= r->len)
                r->pending = false;
        return str;
}

static int conf_d_filter(const struct dirent *d) {
        size_t n = strlen(d->d_name);

        return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

int conf_list_dropins(const char *path, struct conf_error *e, char ***ret) {
        struct dirent **list = NULL;
        char dir[PATH_MAX], **files;
        int n, r = 0;

        if ((size_t) snprintf(dir, sizeof(dir), "%s.d", path) >= sizeof(dir)) {
                conf_error(e, path, 0, "path too long");
                return -ENAMETOOLONG;
        }
        n = scandir(dir, &list, conf_d_filter, alphasort);
        if (n < 0 && errno != ENOENT) {
                r = -errno;
                conf_error(e, dir, 0, "cannot read the directory: %s", strerror(-r));
                return r;
        }
        if (n < 0)
                n = 0;
        files = calloc((size_t) n + 1, sizeof(*files));
        if (!files)
                r = -ENOMEM;
        for (int i = 0; i < n; i++) {
                if (r == 0 && asprintf(&files[i], "%s/%s", dir, list[i]->d_name) < 0) {
                        files[i] = NULL;
                        r = -ENOMEM;
                }
                free(list[i]);
        }
        free(list);
        if (r < 0) {
                for (int i = 0; files && files[i]; i++)
                        free(files[i]);
                free(files);
                conf_error(e, dir, 0, "out of memory");
                return r;
        }
        *ret = files;
        return n;
}
