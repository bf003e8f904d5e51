/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "savefile.h"
#include "util.h"


int savefile_format(const struct saved *s, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        if (s->knob[0])
                n += (size_t) snprintf(buf + n, size - n, "KNOB=%s\nVALUE=%s\n", s->knob, knob_to_string(s->value));
        for (unsigned i = 0; i < s->n_caps && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "ZSWAP_MAX=%s %s\n", s->caps[i].value, s->caps[i].path);
        for (unsigned i = 0; i < s->n_writeback && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "ZSWAP_WRITEBACK=%d %s\n", s->writeback[i].value,
                                       s->writeback[i].path);
        return n >= size ? -E2BIG : (int) n;
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

static const char *parse_writeback(char *v, struct saved *s) {
        char *sp = strchr(v, ' ');
        struct saved_writeback *w;

        if (!sp)
                return "expected ZSWAP_WRITEBACK=<0|1> <path>";
        *sp = '\0';
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
                return "the value is neither 0 nor 1";
        if (!writeback_path_valid(sp + 1) || strlen(sp + 1) >= sizeof(w->path))
                return "the path is not a memory.zswap.writeback below " CGROUP_ROOT;
        for (unsigned i = 0; i < s->n_writeback; i++)
                if (strcmp(s->writeback[i].path, sp + 1) == 0)
                        return "this path is saved already";
        if (s->n_writeback >= SAVED_MAX_WRITEBACK)
                return "too many ZSWAP_WRITEBACK= lines";
        w = &s->writeback[s->n_writeback++];
        w->value = v[0] - '0';
        strcpy(w->path, sp + 1);
        return NULL;
}

int parse_savefile(const char *buf, const char *name, struct saved *s) {
        char *copy;
        unsigned line = 0, knob_line = 0, value_line = 0, ignored = 0;
        knob_value value = KNOB_UNSET;
        char knob[sizeof(s->knob)] = "";

        *s = (struct saved) { .value = KNOB_UNSET };
        if (strlen(buf) >= SAVEFILE_MAX)
                return -E2BIG;
        copy = strdup(buf);
        if (!copy)
                return -ENOMEM;
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
                else if (strncmp(l, "ZSWAP_WRITEBACK=", 16) == 0)
                        why = parse_writeback(l + 16, s);
                else if (*l || next)
                        why = "not a line this zswap-tuned writes (a newer one's?); what it saved is not "
                              "put back by this version";
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
        free(copy);
        return (int) ignored;
}
