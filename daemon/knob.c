/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knob.h"
#include "log.h"
#include "util.h"

int knob_probe(struct knob *k, const struct kernel *kern, struct restore *rs, const char *want, bool monitor_only) {
        static const char *const names[] = { "shrinker_enabled", "shrink_enabled" };
        char path[256];
        int r;

        *k = (struct knob) { .original = KNOB_UNSET };
        if (monitor_only) {
                log_info("Knob: none (Knob=none); monitoring only");
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                if (want && strcmp(want, names[i]) != 0)
                        continue;
                snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", names[i]);
                if (kernel_exists(kern, path)) {
                        k->name = names[i];
                        break;
                }
        }
        if (!k->name) {
                if (want) {
                        log_error("Knob=%s, but " ZSWAP_PARAMS "/%s does not exist on this kernel", want, want);
                        return -ENOENT;
                }
                log_notice("Knob: neither shrinker_enabled (Linux 6.8+) nor shrink_enabled exists; monitoring only, "
                           "batch caps still apply");
                return 0;
        }
        r = kernel_knob_read(kern, k->name);
        if (r < 0) {
                log_error("Cannot read " ZSWAP_PARAMS "/%s: %s", k->name, err_str(r));
                k->name = NULL;
                return r;
        }
        k->original = r;

        /* A previous instance died and its value could not be put back at
         * start (restore_leftovers()): the saved value is the original. */
        knob_value saved;
        if (restore_saved_knob(rs, k->name, &saved)) {
                if (saved != k->original)
                        log_notice("Found %s/" SAVEFILE_NAME ": a previous run left %s=%s; its original value %s "
                                   "is the one to restore", rs->dir, k->name, knob_to_string(k->original),
                                   knob_to_string(saved));
                k->original = saved;
                k->wrote = true;
        } else
                restore_forget_knob(rs); /* another knob's: this kernel has no such knob now */
        log_info("Knob: %s = %s%s", k->name, knob_to_string(r), want ? " (Knob=)" : "");
        return 0;
}

static void forget(struct knob *k, struct restore *rs) {
        k->wrote = false;
        k->failures = 0;
        restore_forget_knob(rs);
}

int knob_read(struct knob *k, const struct kernel *kern, struct restore *rs) {
        int r;

        if (!k->name)
                return -ENOENT;
        r = kernel_knob_read(kern, k->name);
        if (r == -ENOENT && !k->gone) {
                log_warning("Knob: " ZSWAP_PARAMS "/%s is gone; nothing to steer or restore there%s", k->name,
                            k->wrote ? " (it was changed)" : "");
                k->gone = true;
                forget(k, rs);
        } else if (r >= 0 && k->gone) {
                log_notice("Knob: " ZSWAP_PARAMS "/%s is back (%s)", k->name, knob_to_string(r));
                k->gone = false;
                k->original = r;
        }
        return r;
}

int knob_write(struct knob *k, const struct kernel *kern, struct restore *rs, knob_value v) {
        const char *fields[] = { "MESSAGE_ID=" MESSAGE_ID_WRITE_FAILED, NULL };
        int r;

        if (!k->name || k->gone)
                return -ENOENT;
        /* fail closed: never a change whose original is not on the disk */
        if (!k->wrote) {
                r = restore_save_knob(rs, k->name, k->original);
                if (r < 0)
                        return r; /* said by restore.c */
                k->wrote = true;
        }
        r = kernel_knob_write(kern, k->name, v);
        if (r < 0) {
                if (k->failures++ == 0)
                        log_fields(LOG_ERR, fields, "Cannot set %s=%s: %s; trying again at each sample, said once",
                                   k->name, knob_to_string(v), err_str(r));
                return r;
        }
        if (k->failures > 0)
                log_notice("Set %s=%s after %u failed attempts", k->name, knob_to_string(v), k->failures);
        k->failures = 0;
        return 0;
}

void knob_adopt(struct knob *k, struct restore *rs, knob_value v) {
        k->original = v;
        if (k->wrote)
                (void) restore_save_knob(rs, k->name, v); /* a failure is said there */
}

int knob_restore(struct knob *k, struct restore *rs) {
        int r;

        if (!k->name || !k->wrote || k->gone)
                return 0;
        r = restore_knob(rs);
        if (r < 0 && r != -EBADMSG)
                return r; /* stays saved for --restore */
        k->wrote = false;
        k->failures = 0;
        return 0;
}
