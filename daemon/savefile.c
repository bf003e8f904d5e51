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

int savefile_write(const char *state_dir, const char *knob, knob_value v) {
        char path[1024], content[128];
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        snprintf(content, sizeof(content), "KNOB=%s\nVALUE=%s\n", knob, v == KNOB_ON ? "Y" : "N");
        return write_file_atomic(path, content);
}

int parse_savefile(const char *buf, char *knob, size_t knob_size, knob_value *v) {
        char copy[256], *save = NULL;
        bool have_knob = false, have_value = false;

        snprintf(copy, sizeof(copy), "%s", buf);
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                l = strstrip(l);
                if (strncmp(l, "KNOB=", 5) == 0) {
                        if (!knob_name_valid(l + 5) || strlen(l + 5) >= knob_size)
                                return -EINVAL;
                        strcpy(knob, l + 5);
                        have_knob = true;
                } else if (strncmp(l, "VALUE=", 6) == 0) {
                        int r = parse_knob(l + 6);
                        if (r < 0)
                                return r;
                        *v = r;
                        have_value = true;
                } else if (*l)
                        return -EINVAL;
        }
        return have_knob && have_value ? 0 : -EINVAL;
}

int savefile_read(const char *state_dir, char *knob, size_t knob_size, knob_value *v) {
        char path[1024], buf[256];
        ssize_t n;
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        n = read_full_file(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_savefile(buf, knob, knob_size, v);
}

int savefile_remove(const char *state_dir) {
        char path[1024];
        int r = savefile_path(state_dir, path, sizeof(path));

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int savefile_restore(const struct kernel *k, const char *state_dir) {
        char knob[32];
        knob_value v;
        int r;

        r = savefile_read(state_dir, knob, sizeof(knob), &v);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_error("Cannot read the saved knob value in %s/" SAVEFILE_NAME ": %s", state_dir, strerror(-r));
                return r;
        }
        r = kernel_knob_read(k, knob);
        if (r != (int) v) {
                r = kernel_knob_write(k, knob, v);
                if (r < 0) {
                        log_error("Cannot restore %s to %s: %s", knob, v == KNOB_ON ? "Y" : "N", strerror(-r));
                        return r;
                }
                const char *fields[] = { "KNOB_RESTORED=1", NULL };
                log_fields(LOG_NOTICE, fields, "Restored %s to %s", knob, v == KNOB_ON ? "Y" : "N");
        } else
                log_info("%s is already at its original value %s", knob, v == KNOB_ON ? "Y" : "N");
        return savefile_remove(state_dir);
}
