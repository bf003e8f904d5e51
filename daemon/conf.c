/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "log.h"
#include "util.h"

enum key_type { T_BOOL, T_UINT, T_PERCENT, T_ENUM, T_LOGLEVEL, T_CGROUPS };

struct key {
        const char *section, *name;
        enum key_type type;
        size_t offset;
        double min, max;
        const char *const *names; /* T_ENUM: index = value */
};

static const char *const knob_names[] = { "auto", "shrinker_enabled", "shrink_enabled", "none", NULL };
static const char *const baseline_names[] = { "startup", "on", "off", NULL };
static const char *const type_names[] = { "some", "full", NULL };

#define K(s, n, t, f, lo, hi, e) { s, n, t, offsetof(struct conf, f), lo, hi, e }
static const struct key keys[] = {
        K("Daemon", "Knob", T_ENUM, knob, 0, 0, knob_names),
        K("Daemon", "Baseline", T_ENUM, baseline, 0, 0, baseline_names),
        K("Daemon", "DryRun", T_BOOL, dry_run, 0, 0, NULL),
        K("Daemon", "LogLevel", T_LOGLEVEL, log_level, 0, 0, NULL),
        K("Pressure", "System", T_BOOL, system, 0, 0, NULL),
        K("Pressure", "Cgroups", T_CGROUPS, cgroups, 0, 0, NULL),
        K("Pressure", "Type", T_ENUM, type, 0, 0, type_names),
        K("Pressure", "TriggerStallMs", T_UINT, trigger_stall_ms, 1, 10000, NULL),
        K("Pressure", "TriggerWindowMs", T_UINT, trigger_window_ms, 500, 10000, NULL),
        K("Pressure", "HighPercent", T_PERCENT, pressure_high, 0, 100, NULL),
        K("Pressure", "LowPercent", T_PERCENT, pressure_low, 0, 100, NULL),
        K("Pressure", "HoldSec", T_UINT, hold_sec, 0, 86400, NULL),
        K("Pool", "HighPercent", T_PERCENT, pool_high, 1, 100, NULL),
        K("Pool", "LowPercent", T_PERCENT, pool_low, 0, 100, NULL),
        K("Pool", "WatchPercent", T_PERCENT, pool_watch, 0, 100, NULL),
        K("Pool", "SampleMs", T_UINT, sample_ms, 10, 60000, NULL),
        K("Pool", "MinSampleMs", T_UINT, min_sample_ms, 10, 60000, NULL),
        K("Pool", "LeadSec", T_UINT, lead_sec, 0, 3600, NULL),
        K("Pool", "IdleCheckSec", T_UINT, idle_check_sec, 0, 86400, NULL),
        K("Flips", "MinDwellSec", T_UINT, min_dwell_sec, 0, 3600, NULL),
        K("Flips", "MaxPerMinute", T_UINT, max_per_minute, 0, 600, NULL),
        K("Batch", "Cgroups", T_CGROUPS, batch_cgroups, 0, 0, NULL),
        K("Batch", "ZswapMaxPercent", T_PERCENT, batch_zswap_max, 0, 100, NULL),
};
#undef K

#define N_KEYS ELEMENTSOF(keys)

void conf_defaults(struct conf *c) {
        *c = (struct conf) {
                .knob = KNOB_CHOICE_AUTO,
                .baseline = BASELINE_STARTUP,
                .dry_run = false,
                .log_level = LOG_INFO,
                .system = true,
                .type = PSI_SOME,
                .trigger_stall_ms = 100,
                .trigger_window_ms = 1000,
                .pressure_high = 10,
                .pressure_low = 2,
                .hold_sec = 30,
                .pool_high = 85,
                .pool_low = 70,
                .pool_watch = 50,
                .sample_ms = 1000,
                .min_sample_ms = 100,
                .lead_sec = 10,
                .idle_check_sec = 60,
                .min_dwell_sec = 10,
                .max_per_minute = 6,
                .batch_zswap_max = 70,
        };
}

static void free_list(struct conf_list *l) {
        for (unsigned i = 0; i < l->n; i++)
                free(l->item[i]);
        l->n = 0;
}

void conf_free(struct conf *c) {
        free_list(&c->cgroups);
        free_list(&c->batch_cgroups);
}

const char *knob_choice_to_string(int k) {
        return knob_names[k];
}

const char *psi_type_to_string(int t) {
        return type_names[t];
}

/* Where each key was last set, for errors that involve two keys. */
struct origin {
        unsigned seq; /* order of assignment across all files; 0 = default */
        const char *file;
        unsigned line;
};

struct parser {
        struct conf *conf;
        const char *file;
        FILE *f;
        unsigned line;
        unsigned seq;
        struct origin origin[N_KEYS];
        char *files[64];        /* names of the files read, for origins */
        unsigned n_files;
        char *err;
        size_t errsize;
        bool failed;
};

static void fail(struct parser *p, const char *file, unsigned line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void fail(struct parser *p, const char *file, unsigned line, const char *fmt, ...) {
        char msg[512];
        va_list ap;

        if (p->failed) /* the first error is the one to fix first */
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (line > 0)
                snprintf(p->err, p->errsize, "%s:%u: %s", file, line, msg);
        else
                snprintf(p->err, p->errsize, "%s: %s", file, msg);
        p->failed = true;
}

static bool section_known(const char *s) {
        for (size_t i = 0; i < N_KEYS; i++)
                if (strcmp(keys[i].section, s) == 0)
                        return true;
        return false;
}

/* inih does not tell the handler the line number (that needs a compile-time
 * option distributions do not set), and never reports a section without keys.
 * So read lines ourselves: count them, and check section headers here. */
static char *reader(char *str, int num, void *stream) {
        struct parser *p = stream;
        char *s, *end;

        if (!fgets(str, num, p->f))
                return NULL;
        p->line++;
        s = str;
        while (*s == ' ' || *s == '\t')
                s++;
        if (*s != '[')
                return str;
        end = strchr(s, ']');
        if (!end) {
                fail(p, p->file, p->line, "section header without closing ']'");
                return str;
        }
        char name[64];
        size_t len = (size_t) (end - s - 1);
        if (len >= sizeof(name))
                len = sizeof(name) - 1;
        memcpy(name, s + 1, len);
        name[len] = '\0';
        if (!section_known(name))
                fail(p, p->file, p->line, "unknown section [%s] (known: Daemon, Pressure, Pool, Flips, Batch)", name);
        return str;
}

static int set_cgroups(struct parser *p, struct conf_list *l, const char *value) {
        char buf[4096], *save = NULL;

        free_list(l);
        if (strlen(value) >= sizeof(buf)) {
                fail(p, p->file, p->line, "Cgroups= value too long");
                return 0;
        }
        strcpy(buf, value);
        for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (l->n >= CONF_MAX_CGROUPS) {
                        fail(p, p->file, p->line, "Cgroups= lists more than %d cgroups", CONF_MAX_CGROUPS);
                        return 0;
                }
                if (strstr(w, "..")) {
                        fail(p, p->file, p->line, "Cgroups= path '%s' must not contain '..'", w);
                        return 0;
                }
                l->item[l->n] = strdup(w);
                if (!l->item[l->n]) {
                        fail(p, p->file, p->line, "out of memory");
                        return 0;
                }
                l->n++;
        }
        return 1;
}

static int set_value(struct parser *p, const struct key *k, const char *value) {
        char *field = (char *) p->conf + k->offset;
        uint64_t u;
        double d;
        int r;

        switch (k->type) {
        case T_BOOL:
                r = parse_boolean(value);
                if (r < 0) {
                        fail(p, p->file, p->line, "%s=%s: expected a boolean (yes or no)", k->name, value);
                        return 0;
                }
                *(bool *) field = r;
                return 1;
        case T_UINT:
                if (parse_u64(value, &u) < 0 || u < k->min || u > k->max) {
                        fail(p, p->file, p->line, "%s=%s: expected a whole number from %.0f to %.0f",
                             k->name, value, k->min, k->max);
                        return 0;
                }
                *(unsigned *) field = (unsigned) u;
                return 1;
        case T_PERCENT:
                if (parse_double(value, &d) < 0 || d < k->min || d > k->max) {
                        fail(p, p->file, p->line, "%s=%s: expected a percentage from %.0f to %.0f",
                             k->name, value, k->min, k->max);
                        return 0;
                }
                *(double *) field = d;
                return 1;
        case T_ENUM:
                for (int i = 0; k->names[i]; i++)
                        if (strcasecmp(value, k->names[i]) == 0) {
                                *(int *) field = i;
                                return 1;
                        }
                char choices[128] = "";
                for (int i = 0; k->names[i]; i++) {
                        strncat(choices, i ? ", " : "", sizeof(choices) - strlen(choices) - 1);
                        strncat(choices, k->names[i], sizeof(choices) - strlen(choices) - 1);
                }
                fail(p, p->file, p->line, "%s=%s: expected one of %s", k->name, value, choices);
                return 0;
        case T_LOGLEVEL:
                r = log_level_from_string(value);
                if (r < 0) {
                        fail(p, p->file, p->line, "%s=%s: expected err, warning, notice, info or debug",
                             k->name, value);
                        return 0;
                }
                *(int *) field = r;
                return 1;
        case T_CGROUPS:
                return set_cgroups(p, (struct conf_list *) field, value);
        }
        return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parser *p = user;

        if (p->failed)
                return 0;
        if (!*section) {
                fail(p, p->file, p->line, "%s= outside of a section", name);
                return 0;
        }
        if (!section_known(section))
                return 0; /* already reported at the header */
        for (size_t i = 0; i < N_KEYS; i++) {
                if (strcmp(keys[i].section, section) != 0 || strcmp(keys[i].name, name) != 0)
                        continue;
                if (!set_value(p, &keys[i], value))
                        return 0;
                p->origin[i] = (struct origin) { ++p->seq, p->file, p->line };
                return 1;
        }
        fail(p, p->file, p->line, "unknown key %s= in section [%s]", name, section);
        return 0;
}

static int parse_one(struct parser *p, const char *path, bool must_exist) {
        int r;

        p->f = fopen(path, "re");
        if (!p->f) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                r = -errno;
                fail(p, path, 0, "cannot open: %s", strerror(-r));
                return r;
        }
        if (p->n_files >= ELEMENTSOF(p->files)) {
                fclose(p->f);
                fail(p, path, 0, "too many configuration files");
                return -E2BIG;
        }
        p->file = p->files[p->n_files++] = strdup(path);
        if (!p->file) {
                fclose(p->f);
                fail(p, path, 0, "out of memory");
                return -ENOMEM;
        }
        p->line = 0;
        r = ini_parse_stream(reader, p, handler, p);
        fclose(p->f);
        p->f = NULL;
        if (r > 0 && !p->failed)
                fail(p, path, (unsigned) r, "syntax error: expected [Section], Key=value or a comment");
        if (r < 0 && !p->failed)
                fail(p, path, 0, "cannot read");
        return p->failed ? -EINVAL : 0;
}

static int conf_d_filter(const struct dirent *d) {
        size_t n = strlen(d->d_name);

        return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

static size_t key_index(const char *section, const char *name) {
        for (size_t i = 0; i < N_KEYS; i++)
                if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].name, name) == 0)
                        return i;
        abort();
}

/* Cross-key checks, reported at the later of the two keys' places. */
static void check_order(struct parser *p, const char *section, const char *lo_name, const char *hi_name,
                        double lo, double hi, bool strict, const char *default_file) {
        size_t il = key_index(section, lo_name), ih = key_index(section, hi_name);
        struct origin o = p->origin[il].seq >= p->origin[ih].seq ? p->origin[il] : p->origin[ih];

        if (strict ? lo < hi : lo <= hi)
                return;
        fail(p, o.file ? o.file : default_file, o.line, "[%s] %s=%g must be %s %s=%g", section, lo_name, lo,
             strict ? "below" : "at most", hi_name, hi);
}

int conf_load(struct conf *out, const char *path, char *err, size_t errsize) {
        struct dirent **list = NULL;
        char dir[PATH_MAX], file[PATH_MAX];
        struct conf c;
        struct parser p = { .conf = &c, .err = err, .errsize = errsize };
        int n, r;

        conf_defaults(&c);
        r = parse_one(&p, path, false);

        if (r == 0 && (size_t) snprintf(dir, sizeof(dir), "%s.d", path) < sizeof(dir)) {
                n = scandir(dir, &list, conf_d_filter, alphasort);
                for (int i = 0; i < n; i++) {
                        if (r == 0 && (size_t) snprintf(file, sizeof(file), "%s/%s", dir, list[i]->d_name) < sizeof(file))
                                r = parse_one(&p, file, true);
                        free(list[i]);
                }
                free(list);
        }

        if (!p.failed) {
                check_order(&p, "Pressure", "LowPercent", "HighPercent", c.pressure_low, c.pressure_high, true, path);
                check_order(&p, "Pool", "LowPercent", "HighPercent", c.pool_low, c.pool_high, true, path);
                check_order(&p, "Pool", "MinSampleMs", "SampleMs", c.min_sample_ms, c.sample_ms, false, path);
                check_order(&p, "Pressure", "TriggerStallMs", "TriggerWindowMs", c.trigger_stall_ms,
                            c.trigger_window_ms, false, path);
        }
        for (unsigned i = 0; i < p.n_files; i++)
                free(p.files[i]);
        if (p.failed) {
                conf_free(&c);
                return -EINVAL;
        }
        conf_free(out);
        *out = c;
        return 0;
}

static void dump_value(const struct conf *c, const struct key *k, FILE *f) {
        const char *field = (const char *) c + k->offset;

        switch (k->type) {
        case T_BOOL:
                fputs(*(const bool *) field ? "yes" : "no", f);
                break;
        case T_UINT:
                fprintf(f, "%u", *(const unsigned *) field);
                break;
        case T_PERCENT:
                fprintf(f, "%g", *(const double *) field);
                break;
        case T_ENUM:
                fputs(k->names[*(const int *) field], f);
                break;
        case T_LOGLEVEL:
                fputs(log_level_to_string(*(const int *) field), f);
                break;
        case T_CGROUPS: {
                const struct conf_list *l = (const struct conf_list *) field;
                for (unsigned i = 0; i < l->n; i++)
                        fprintf(f, "%s%s", i ? " " : "", l->item[i]);
                break;
        }
        }
}

void conf_dump(const struct conf *c, FILE *f) {
        const char *section = NULL;

        for (size_t i = 0; i < N_KEYS; i++) {
                if (!section || strcmp(section, keys[i].section) != 0) {
                        section = keys[i].section;
                        fprintf(f, "%s[%s]\n", i ? "\n" : "", section);
                }
                fprintf(f, "%s=", keys[i].name);
                dump_value(c, &keys[i], f);
                fputc('\n', f);
        }
}
