/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "savefile.h"
#include "util.h"

#define SAVEFILE_MAX 16384

int savefile_path(const char *state_dir, char *buf, size_t size) {
        if ((size_t) snprintf(buf, size, "%s/" SAVEFILE_NAME, state_dir) >= size)
                return -ENAMETOOLONG;
        return 0;
}

int savefile_write(const char *state_dir, const struct saved *s) {
        char path[1024], content[SAVEFILE_MAX];
        size_t n = 0;
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        if (!s->knob[0] && s->n_caps == 0)
                return savefile_remove(state_dir);
        if (s->knob[0])
                n += (size_t) snprintf(content + n, sizeof(content) - n, "KNOB=%s\nVALUE=%s\n", s->knob,
                                       knob_to_string(s->value));
        for (unsigned i = 0; i < s->n_caps && n < sizeof(content); i++)
                n += (size_t) snprintf(content + n, sizeof(content) - n, "ZSWAP_MAX=%s %s\n", s->caps[i].value,
                                       s->caps[i].path);
        if (n >= sizeof(content))
                return -E2BIG;
        return write_file_atomic(path, content, 0600);
}

static const char *parse_cap(char *v, struct saved *s) {
        char *sp = strchr(v, ' ');
        struct saved_cap *c;

        if (!sp)
                return "expected ZSWAP_MAX=<value> <path>";
        *sp = '\0';
        if (!cap_value_valid(v) || strlen(v) >= sizeof(c->value))
                return "the value is neither \"max\" nor a byte count";
        if (!cap_path_valid(sp + 1) || strlen(sp + 1) >= sizeof(c->path))
                return "the path is not a memory.zswap.max below " CGROUP_ROOT;
        for (unsigned i = 0; i < s->n_caps; i++)
                if (strcmp(s->caps[i].path, sp + 1) == 0)
                        return "this path is saved already";
        if (s->n_caps >= SAVED_MAX_CAPS)
                return "too many ZSWAP_MAX= lines";
        c = &s->caps[s->n_caps++];
        strcpy(c->value, v);
        strcpy(c->path, sp + 1);
        return NULL;
}

int parse_savefile(const char *buf, const char *name, struct saved *s) {
        char copy[SAVEFILE_MAX];
        unsigned line = 0, knob_line = 0, value_line = 0, ignored = 0;
        knob_value value = KNOB_UNSET;
        char knob[sizeof(s->knob)] = "";

        *s = (struct saved) { .value = KNOB_UNSET };
        if (strlen(buf) >= sizeof(copy))
                return -E2BIG;
        strcpy(copy, buf);
        for (char *l = copy, *next; l; l = next) {
                const char *why = NULL;

                next = strchr(l, '\n');
                if (next)
                        *next++ = '\0';
                line++;
                if (strncmp(l, "KNOB=", 5) == 0) {
                        if (knob_line || !knob_name_valid(l + 5))
                                why = knob_line ? "a second KNOB= line" : "not a knob zswap-tuned drives";
                        else {
                                strcpy(knob, l + 5);
                                knob_line = line;
                        }
                } else if (strncmp(l, "VALUE=", 6) == 0) {
                        int r = parse_knob(l + 6);
                        if (value_line || r < 0)
                                why = value_line ? "a second VALUE= line" : "expected VALUE=Y or VALUE=N";
                        else {
                                value = r;
                                value_line = line;
                        }
                } else if (strncmp(l, "ZSWAP_MAX=", 10) == 0)
                        why = parse_cap(l + 10, s);
                else if (*l || next)
                        why = "not a line zswap-tuned writes";
                if (why) {
                        log_error("%s:%u: %s; ignoring it", name, line, why);
                        ignored++;
                }
        }
        /* the knob comes with its value, or not at all */
        if (knob_line && value_line) {
                strcpy(s->knob, knob);
                s->value = value;
        } else if (knob_line || value_line) {
                log_error("%s:%u: %s without %s; ignoring it", name, knob_line ? knob_line : value_line,
                          knob_line ? "KNOB=" : "VALUE=", knob_line ? "VALUE=" : "KNOB=");
                ignored++;
        }
        return (int) ignored;
}

int savefile_read(const char *state_dir, struct saved *s) {
        char path[1024], buf[SAVEFILE_MAX];
        ssize_t n;
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        n = read_full_file(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_savefile(buf, path, s);
}

int savefile_remove(const char *state_dir) {
        char path[1024];
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

void savefile_remove_temporaries(const char *state_dir) {
        unsigned n = remove_atomic_temporaries(state_dir, SAVEFILE_NAME);

        if (n > 0)
                log_info("Removed %u temporary file(s) of an interrupted save from %s", n, state_dir);
}

void log_knob_restored(const char *knob, knob_value v) {
        char f_knob[64], f_val[32];
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_RESTORE, f_knob, f_val, "KNOB_RESTORED=1", NULL };

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", knob_to_string(v));
        log_fields(LOG_NOTICE, fields, "Restored %s to its original value %s", knob, knob_to_string(v));
}

/* Errors that no later try can mend: the file is not one to write to. */
static bool write_refused(int r) {
        return r == -ELOOP || r == -EPERM || r == -ENOTREGULAR || r == -EISDIR;
}

int savefile_restore(const struct kernel *k, const char *state_dir) {
        char path[1024];
        struct saved s;
        int r, ret = 0;

        savefile_remove_temporaries(state_dir);
        r = savefile_read(state_dir, &s);
        if (r == -ENOENT)
                return 0;
        (void) savefile_path(state_dir, path, sizeof(path));
        if (r < 0) {
                log_error("Cannot read %s: %s", path, err_str(r));
                return r;
        }
        if (r > 0)
                ret = -EBADMSG; /* said line by line; what is valid is still restored */
        for (unsigned i = 0; i < s.n_caps; i++) {
                r = kernel_cap_write(k, s.caps[i].path, s.caps[i].value);
                if (r == -ENOENT)
                        log_info("%s is gone; nothing to restore there", s.caps[i].path);
                else if (write_refused(r)) {
                        log_error("Refusing to write %s: %s", s.caps[i].path,
                                  r == -ELOOP ? "a symlink" : r == -EPERM ? "not a cgroup2 file" : err_str(r));
                        ret = -EBADMSG;
                } else if (r < 0) {
                        log_error("Cannot restore %s to %s: %s", s.caps[i].path, s.caps[i].value, err_str(r));
                        ret = r;
                } else
                        log_notice("Restored %s to %s", s.caps[i].path, s.caps[i].value);
        }
        if (s.knob[0]) {
                r = kernel_knob_read(k, s.knob);
                if (r == (int) s.value)
                        log_info("%s is already at its original value %s", s.knob, knob_to_string(s.value));
                else if ((r = kernel_knob_write(k, s.knob, s.value)) < 0) {
                        log_error("Cannot restore %s to %s: %s", s.knob, knob_to_string(s.value), err_str(r));
                        ret = r;
                } else
                        log_knob_restored(s.knob, s.value);
        }
        /* keep the file if something valid could not be put back: a later try
         * may succeed; refused lines can never be restored */
        if (ret < 0 && ret != -EBADMSG)
                return ret;
        r = savefile_remove(state_dir);
        return ret < 0 ? ret : r;
}
