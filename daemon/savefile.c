/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "savefile.h"
#include "util.h"

int savefile_path(const char *state_dir, char *buf, size_t size) {
        if ((size_t) snprintf(buf, size, "%s/" SAVEFILE_NAME, state_dir) >= size)
                return -ENAMETOOLONG;
        return 0;
}

static bool knob_name_valid(const char *s) {
        return strcmp(s, "shrinker_enabled") == 0 || strcmp(s, "shrink_enabled") == 0;
}

/* A memory.zswap.max value: "max" or a byte count. */
static bool cap_value_valid(const char *s) {
        uint64_t v;

        return strcmp(s, "max") == 0 || parse_u64(s, &v) == 0;
}

int savefile_write(const char *state_dir, const struct saved *s) {
        char path[1024], content[16384];
        size_t n = 0;
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        if (!s->knob[0] && s->n_caps == 0)
                return savefile_remove(state_dir);
        if (s->knob[0])
                n += (size_t) snprintf(content + n, sizeof(content) - n, "KNOB=%s\nVALUE=%s\n", s->knob,
                                       s->value == KNOB_ON ? "Y" : "N");
        for (unsigned i = 0; i < s->n_caps && n < sizeof(content); i++)
                n += (size_t) snprintf(content + n, sizeof(content) - n, "ZSWAP_MAX=%s %s\n", s->caps[i].value,
                                       s->caps[i].path);
        if (n >= sizeof(content))
                return -E2BIG;
        /* the unit's RuntimeDirectory= makes it; by hand, we do */
        r = mkdir_p(state_dir, 0700);
        if (r < 0)
                return r;
        return write_file_atomic(path, content);
}

static int parse_cap(char *v, struct saved *s) {
        char *sp = strchr(v, ' ');
        struct saved_cap *c;

        if (!sp || s->n_caps >= CONF_MAX_CGROUPS)
                return -EINVAL;
        *sp = '\0';
        if (!cap_value_valid(v) || sp[1] != '/' || strlen(v) >= sizeof(c->value) || strlen(sp + 1) >= sizeof(c->path))
                return -EINVAL;
        c = &s->caps[s->n_caps++];
        strcpy(c->value, v);
        strcpy(c->path, sp + 1);
        return 0;
}

int parse_savefile(const char *buf, struct saved *s) {
        char copy[16384], *save = NULL;
        bool have_value = false;

        *s = (struct saved) { .value = KNOB_UNSET };
        if ((size_t) snprintf(copy, sizeof(copy), "%s", buf) >= sizeof(copy))
                return -E2BIG;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                l = strstrip(l);
                if (strncmp(l, "KNOB=", 5) == 0) {
                        if (!knob_name_valid(l + 5))
                                return -EINVAL;
                        strcpy(s->knob, l + 5);
                } else if (strncmp(l, "VALUE=", 6) == 0) {
                        int r = parse_knob(l + 6);
                        if (r < 0)
                                return r;
                        s->value = r;
                        have_value = true;
                } else if (strncmp(l, "ZSWAP_MAX=", 10) == 0) {
                        if (parse_cap(l + 10, s) < 0)
                                return -EINVAL;
                } else if (*l)
                        return -EINVAL;
        }
        /* the knob comes with its value, or not at all */
        if (!!s->knob[0] != have_value)
                return -EINVAL;
        return 0;
}

int savefile_read(const char *state_dir, struct saved *s) {
        char path[1024], buf[16384];
        ssize_t n;
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        n = read_full_file(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_savefile(buf, s);
}

int savefile_remove(const char *state_dir) {
        char path[1024];
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

void log_knob_restored(const char *knob, knob_value v) {
        char f_knob[64], f_val[32];
        const char *fields[] = { f_knob, f_val, "KNOB_RESTORED=1", NULL };
        const char *yn = v == KNOB_ON ? "Y" : "N";

        snprintf(f_knob, sizeof(f_knob), "KNOB=%s", knob);
        snprintf(f_val, sizeof(f_val), "KNOB_VALUE=%s", yn);
        log_fields(LOG_NOTICE, fields, "Restored %s to its original value %s", knob, yn);
}

int savefile_restore(const struct kernel *k, const char *state_dir) {
        struct saved s;
        int r, ret = 0;

        r = savefile_read(state_dir, &s);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_error("Cannot read %s/" SAVEFILE_NAME ": %s", state_dir, strerror(-r));
                return r;
        }
        for (unsigned i = 0; i < s.n_caps; i++) {
                r = kernel_write(k, s.caps[i].path, s.caps[i].value);
                if (r == -ENOENT)
                        log_info("%s is gone; nothing to restore there", s.caps[i].path);
                else if (r < 0) {
                        log_error("Cannot restore %s to %s: %s", s.caps[i].path, s.caps[i].value, strerror(-r));
                        ret = r;
                } else
                        log_notice("Restored %s to %s", s.caps[i].path, s.caps[i].value);
        }
        if (s.knob[0]) {
                r = kernel_knob_read(k, s.knob);
                if (r == (int) s.value)
                        log_info("%s is already at its original value %s", s.knob, s.value == KNOB_ON ? "Y" : "N");
                else {
                        r = kernel_knob_write(k, s.knob, s.value);
                        if (r < 0) {
                                log_error("Cannot restore %s to %s: %s", s.knob, s.value == KNOB_ON ? "Y" : "N",
                                          strerror(-r));
                                ret = r;
                        } else
                                log_knob_restored(s.knob, s.value);
                }
        }
        /* keep the file if anything could not be put back: a later try may succeed */
        return ret < 0 ? ret : savefile_remove(state_dir);
}
