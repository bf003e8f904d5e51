/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgroup-glob.h"
#include "conf-reader.h"
#include "conf.h"
#include "log.h"
#include "units.h"
#include "util.h"

/* T_MSEC, T_SEC, T_SEC_INF: a time (parse_time()), kept in milliseconds or
 * seconds, a bare number in that unit; T_PERCENT: parse_percent();
 * T_PERCENT_FOLLOWS: the same, or empty: unset, its default follows another
 * key (ReleasePercent). */
enum key_type {
        T_BOOL,
        T_UINT,
        T_MSEC,
        T_SEC,
        T_SEC_INF,
        T_PERCENT,
        T_PERCENT_FOLLOWS,
        T_ENUM,
        T_LOGLEVEL,
        T_CGROUPS,
        T_UNITS,
        T_DIR
};

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
        K("Pressure", "TriggerStallMs", T_MSEC, trigger_stall_ms, 1, 10000, NULL),
        K("Pressure", "TriggerWindowMs", T_MSEC, trigger_window_ms, 500, 10000, NULL),
        K("Pressure", "HighStallPercent", T_PERCENT, pressure_high, 0, 100, NULL),
        K("Pressure", "LowStallPercent", T_PERCENT, pressure_low, 0, 100, NULL),
        K("Pressure", "HoldSec", T_SEC, hold_sec, 0, 86400, NULL),
        K("Pressure", "Units", T_UNITS, units, 0, 0, NULL),
        K("Pressure", "ProtectWriteback", T_BOOL, protect_writeback, 0, 0, NULL),
        K("Pool", "ShrinkerNearLimit", T_BOOL, pool_shrinker, 0, 0, NULL),
        K("Pool", "HighPercent", T_PERCENT, pool_high, 1, 100, NULL),
        K("Pool", "LowPercent", T_PERCENT, pool_low, 0, 100, NULL),
        K("Pool", "WatchPercent", T_PERCENT, pool_watch, 0, 100, NULL),
        K("Pool", "ReleasePercent", T_PERCENT_FOLLOWS, pool_release, 0, 100, NULL),
        K("Pool", "SampleMs", T_MSEC, sample_ms, 10, 60000, NULL),
        K("Pool", "MinSampleMs", T_MSEC, min_sample_ms, 10, 60000, NULL),
        K("Pool", "LeadSec", T_SEC, lead_sec, 0, 3600, NULL),
        K("Pool", "IdleCheckSec", T_SEC, idle_check_sec, 0, 86400, NULL),
        K("Flips", "MinDwellSec", T_SEC, min_dwell_sec, 0, 3600, NULL),
        K("Flips", "MaxPerMinute", T_UINT, max_per_minute, 0, 600, NULL),
        K("Flips", "AdminBackOffSec", T_SEC_INF, admin_backoff_sec, 0, 86400, NULL),
        K("Batch", "Cgroups", T_CGROUPS, batch_cgroups, 0, 0, NULL),
        K("Batch", "ZswapMaxPercent", T_PERCENT, batch_zswap_max, 0, 100, NULL),
        K("Batch", "ShrinkerAtCap", T_BOOL, batch_shrinker_at_cap, 0, 0, NULL),
        K("Batch", "Units", T_UNITS, batch_units, 0, 0, NULL),
        K("Batch", "IdleCgroups", T_BOOL, batch_idle, 0, 0, NULL),
        K("Batch", "MaxCgroups", T_UINT, batch_max_cgroups, 1, BATCH_MAX_CGROUPS, NULL),
        K("Metrics", "TextfileDirectory", T_DIR, metrics_dir, 0, 0, NULL),
        K("Metrics", "IntervalSec", T_SEC, metrics_interval_sec, 1, 3600, NULL),
};
#undef K

#define N_KEYS ELEMENTSOF(keys)

/* Keys that are gone: a configuration that still sets one loads, and each
 * place that does is said (a warning, not an error: --check-config exits 0). */
static const struct retired_key {
        const char *section, *name, *why;
} retired_keys[] = {
        { "Batch", "LargestHolder",
          "removed in 0.3.0: it cost batch work throughput for no measured gain, and let any cgroup's stall cap "
          "another" },
        { "Batch", "LendWhenCalm",
          "removed in 0.3.0: lending the batch cgroups the pool above ZswapMaxPercent won nothing measured, and "
          "the pool stayed at the loan's size after it" },
};

/* Keys with a new name: the old one is still read, with a notice. */
static const struct renamed_key {
        const char *section, *old_name, *name;
} renamed_keys[] = {
        /* [Pool] HighPercent= and LowPercent= are pool fill, as every other
         * ...Percent= key; these two are stall time */
        { "Pressure", "HighPercent", "HighStallPercent" },
        { "Pressure", "LowPercent", "LowStallPercent" },
};

static const char *const section_names[] = { "Daemon", "Pressure", "Pool", "Flips", "Batch", "Metrics", NULL };

/* [Pool] ReleasePercent= when not set: follows HighPercent, off when
 * nothing is left below it. */
static double release_default(double pool_high) {
        return pool_high > RELEASE_BELOW_HIGH ? pool_high - RELEASE_BELOW_HIGH : 0;
}

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
                .pool_shrinker = false,
                .pool_high = 85,
                .pool_low = 70,
                .pool_watch = 50,
                .sample_ms = 1000,
                .min_sample_ms = 100,
                .lead_sec = 10,
                .idle_check_sec = 60,
                .min_dwell_sec = 10,
                .max_per_minute = 6,
                .admin_backoff_sec = CONF_INFINITY,
                .batch_zswap_max = 50,
                .batch_shrinker_at_cap = false,
                .metrics_interval_sec = 15,
                .batch_idle = false,
                .batch_max_cgroups = CONF_MAX_MATCHES_DEFAULT,
        };
        c->pool_release = release_default(c->pool_high);
        c->pool_release_follows = true;
}

static void free_list(struct conf_list *l) {
        for (unsigned i = 0; i < l->n; i++) {
                free(l->item[i]);
                free(l->where[i]);
        }
        l->n = 0;
}

void conf_free(struct conf *c) {
        free_list(&c->cgroups);
        free_list(&c->units);
        free_list(&c->batch_cgroups);
        free_list(&c->batch_units);
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
        struct conf_reader r;   /* the file being read */
        struct conf_error e;
        unsigned seq;
        struct origin origin[N_KEYS];
        bool refused[N_KEYS];   /* a value of the key was refused: no cross-key checks with it */
        bool unread;            /* a file could not be read (whole): no cross-key checks */
        bool renamed_said[ELEMENTSOF(renamed_keys)];
        char **files;           /* names of the files read, for origins */
        unsigned n_files;
};

#define fail(p, file, line, ...) conf_error(&(p)->e, file, line, __VA_ARGS__)
#define fail_here(p, ...) fail(p, (p)->r.file, (p)->r.lineno, __VA_ARGS__)

/* The shortest "%.Nf" that reads back as d: no exponent, which the parser
 * would not take, and no rounding (%g makes 84.9999999 "85"). */
static const char *format_number(char *buf, size_t size, double d) {
        for (int prec = 0; prec <= 400; prec++) {
                snprintf(buf, size, "%.*f", prec, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        return buf;
}

static size_t longest_component(const char *path) {
        size_t longest = 0;

        for (const char *c = path; *c;) {
                size_t n = strcspn(c, "/");
                longest = n > longest ? n : longest;
                c += n + (c[n] == '/');
        }
        return longest;
}

/* Is w a fine Cgroups= entry (units: a Units= one)? Else say why, at FILE:LINE. */
static bool check_item(struct parser *p, const char *key, const char *w, bool units) {
        const char *why;
        struct cglob g;

        if (units) {
                if ((why = unit_pattern_check(w)))
                        fail_here(p, "%s= unit pattern '%s' %s", key, w, why);
                return !why;
        }
        if (strlen(w) > CONF_CGROUP_NAME_MAX) {
                fail_here(p, "%s= path '%.32s...' is %zu bytes long; at most %d are supported", key, w, strlen(w),
                          CONF_CGROUP_NAME_MAX);
                return false;
        }
        if (longest_component(w) > NAME_MAX) {
                fail_here(p, "%s= path '%.32s...' has a component longer than %d bytes", key, w, NAME_MAX);
                return false;
        }
        if ((why = cglob_parse(&g, w))) {
                fail_here(p, "%s= path '%s' %s", key, w, why);
                return false;
        }
        /* The daemon's own cgroup is only known at run time (cgroup-follow.c). */
        if ((why = cglob_forbidden(&g, NULL)))
                fail_here(p, "%s= path '%s' %s; refused", key, w, why);
        cglob_free(&g);
        return !why;
}

static int set_cgroups(struct parser *p, const char *key, struct conf_list *l, const char *value, bool units) {
        char *buf = strdup(value), *save = NULL;
        int ok = 1;

        free_list(l);
        if (!buf) {
                fail_here(p, "out of memory");
                return 0;
        }
        for (char *w = strtok_r(buf, " \t", &save); ok && w; w = strtok_r(NULL, " \t", &save)) {
                char where[PATH_MAX + 32];

                snprintf(where, sizeof(where), "%s:%u", p->r.file, p->r.lineno);
                if (l->n >= CONF_MAX_CGROUPS)
                        fail_here(p, "%s= lists more than %d %s", key, CONF_MAX_CGROUPS, units ? "units" : "cgroups");
                else if (!check_item(p, key, w, units))
                        ;
                else if (!(l->item[l->n] = strdup(w)) || !(l->where[l->n] = strdup(where))) {
                        free(l->item[l->n]);
                        fail_here(p, "out of memory");
                } else {
                        l->n++;
                        continue;
                }
                ok = 0;
        }
        free(buf);
        return ok;
}

/* A time for a key kept in unit (USEC_PER_SEC or USEC_PER_MSEC). */
static int set_time(struct parser *p, const struct key *k, const char *value, uint64_t unit) {
        bool sec = unit == USEC_PER_SEC, inf = k->type == T_SEC_INF;
        char lo[32], hi[32];
        uint64_t usec;
        int r;

        if (inf && strcasecmp(value, "infinity") == 0) {
                *(unsigned *) ((char *) p->conf + k->offset) = CONF_INFINITY;
                return 1;
        }
        r = parse_time(value, unit, &usec);
        if (r == 0 && usec % unit != 0) {
                fail_here(p, "%s=%s: not a whole number of %s", k->name, value, sec ? "seconds" : "milliseconds");
                return 0;
        }
        if (r < 0 || usec / unit < k->min || usec / unit > k->max) {
                fail_here(p, "%s=%s: expected a time from %s to %s%s (a bare number is %s; e.g. %s)", k->name, value,
                          format_time(lo, sizeof(lo), (uint64_t) k->min * unit),
                          format_time(hi, sizeof(hi), (uint64_t) k->max * unit), inf ? " or infinity" : "",
                          sec ? "seconds" : "milliseconds", sec ? "30, 30s, 1min 30s" : "500, 500ms, 1.5s");
                return 0;
        }
        *(unsigned *) ((char *) p->conf + k->offset) = (unsigned) (usec / unit);
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
                        fail_here(p, "%s=%s: expected a boolean (yes or no)", k->name, value);
                        return 0;
                }
                *(bool *) field = r;
                return 1;
        case T_UINT:
                if (parse_u64(value, &u) < 0 || u < k->min || u > k->max) {
                        fail_here(p, "%s=%s: expected a whole number from %.0f to %.0f",
                             k->name, value, k->min, k->max);
                        return 0;
                }
                *(unsigned *) field = (unsigned) u;
                return 1;
        case T_MSEC:
                return set_time(p, k, value, USEC_PER_MSEC);
        case T_SEC:
        case T_SEC_INF:
                return set_time(p, k, value, USEC_PER_SEC);
        case T_PERCENT:
        case T_PERCENT_FOLLOWS:
                if (k->type == T_PERCENT_FOLLOWS && !*value)
                        return 1; /* unset: the handler says what it follows */
                if (parse_percent(value, &d) < 0 || d < k->min || d > k->max) {
                        fail_here(p, "%s=%s: expected a percentage from %.0f to %.0f (e.g. 50 or 50%%)%s", k->name,
                                  value, k->min, k->max, k->type == T_PERCENT_FOLLOWS ? ", or nothing" : "");
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
                fail_here(p, "%s=%s: expected one of %s", k->name, value, choices);
                return 0;
        case T_LOGLEVEL:
                r = log_level_from_string(value);
                if (r < 0) {
                        fail_here(p, "%s=%s: expected err, warning, notice, info or debug",
                             k->name, value);
                        return 0;
                }
                *(int *) field = r;
                return 1;
        case T_CGROUPS:
        case T_UNITS:
                return set_cgroups(p, k->name, (struct conf_list *) field, value, k->type == T_UNITS);
        case T_DIR:
                /* empty: off; else an absolute path without a ".." component */
                if (strlen(value) >= CONF_PATH_MAX || longest_component(value) > NAME_MAX) {
                        fail_here(p, "%s=%.32s...: too long (at most %d bytes, %d per component)", k->name, value,
                                  CONF_PATH_MAX - 1, NAME_MAX);
                        return 0;
                }
                if ((*value && *value != '/') || path_has_dotdot(value)) {
                        fail_here(p, "%s=%s: expected an absolute directory without '..' components, or nothing", k->name,
                                  value);
                        return 0;
                }
                strcpy(field, value);
                return 1;
        }
        return 0;
}

/* An old name: the new one, said once a load. */
static const char *renamed(struct parser *p, const char *section, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(renamed_keys); i++) {
                if (strcmp(renamed_keys[i].section, section) != 0 || strcmp(renamed_keys[i].old_name, name) != 0)
                        continue;
                if (!p->renamed_said[i])
                        log_notice("%s:%u: [%s] %s= is renamed: use %s= (the old name is still read)", p->r.file,
                                   p->r.lineno, section, name, renamed_keys[i].name);
                p->renamed_said[i] = true;
                return renamed_keys[i].name;
        }
        return name;
}

/* Every line is read: an error is reported and the next line read, so that
 * a run shows them all. */
static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parser *p = user;

        if (!*section) {
                fail_here(p, "%s= outside of a section", name);
                return 1;
        }
        name = renamed(p, section, name);
        for (size_t i = 0; i < N_KEYS; i++) {
                if (strcmp(keys[i].section, section) != 0 || strcmp(keys[i].name, name) != 0)
                        continue;
                if (!set_value(p, &keys[i], value)) {
                        p->refused[i] = true;
                        return 1;
                }
                p->origin[i] = (struct origin) { ++p->seq, p->r.file, p->r.lineno };
                if (keys[i].type == T_PERCENT_FOLLOWS) {
                        p->conf->pool_release_follows = !*value;
                        if (!*value)
                                p->origin[i] = (struct origin) { 0 }; /* back to its default */
                }
                return 1;
        }
        for (size_t i = 0; i < ELEMENTSOF(retired_keys); i++) {
                const struct retired_key *k = &retired_keys[i];
                char file[sizeof("CONFIG_FILE=") + PATH_MAX], line[32];
                const char *fields[] = { file, line, NULL };

                if (strcmp(k->section, section) != 0 || strcmp(k->name, name) != 0)
                        continue;
                snprintf(file, sizeof(file), "CONFIG_FILE=%s", p->r.file);
                snprintf(line, sizeof(line), "CONFIG_LINE=%u", p->r.lineno);
                log_fields(LOG_WARNING, fields, "%s:%u: %s= is no longer supported (%s); ignoring it", p->r.file,
                           p->r.lineno, name, k->why);
                return 1;
        }
        fail_here(p, "unknown key %s= in section [%s]", name, section);
        return 1;
}

/* Parse one file (text == NULL) or the text as if it were the file path. */
static int parse_one(struct parser *p, const char *path, const char *text, bool must_exist) {
        char **files = realloc(p->files, (p->n_files + 1) * sizeof(*files)), *name;
        int r;

        if (files)
                p->files = files;
        if (!files || !(name = p->files[p->n_files] = strdup(path))) {
                fail(p, path, 0, "out of memory");
                return -ENOMEM;
        }
        p->n_files++;
        p->r = (struct conf_reader) { .sections = section_names, .e = &p->e };
        if (text)
                conf_reader_open_string(&p->r, name, text);
        else if ((r = conf_reader_open(&p->r, name, must_exist)) <= 0) {
                p->unread |= r < 0;
                return r;
        }
        /* read: for "zswap-tuned status" (a name too long to show is cut there) */
        if (p->conf->n_files < CONF_MAX_FILES)
                snprintf(p->conf->files[p->conf->n_files++], sizeof(p->conf->files[0]), "%s", name);
        conf_reader_setup_inih();
        r = ini_parse_stream(conf_reader_next, &p->r, handler, p);
        p->unread |= p->r.stop;
        conf_reader_close(&p->r);
        /* The reader catches every syntax error inih would, in line order. */
        if (r > 0)
                fail(p, name, (unsigned) r, "syntax error: expected [Section], Key=value or a comment");
        if (r < 0) {
                fail(p, name, 0, "out of memory");
                return -ENOMEM;
        }
        return 0;
}

/* Every drop-in, whatever errors the others have. */
static int parse_dropins(struct parser *p, const char *path) {
        char **files;
        int n = conf_list_dropins(path, &p->e, &files), r = 0;

        p->unread |= n < 0;
        for (int i = 0; i < n; i++) {
                if (r != -ENOMEM)
                        r = parse_one(p, files[i], NULL, true);
                free(files[i]);
        }
        if (n >= 0)
                free(files);
        return n < 0 ? n : r;
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
        char a[512], b[512];

        /* a refused value is said already; the other key's may be fine */
        if (p->refused[il] || p->refused[ih] || (strict ? lo < hi : lo <= hi))
                return;
        /* Name a key the admin did not set: "HighPercent=75" alone is fine,
         * it clashes with a default they may not know about. */
        const char *dflt = !p->origin[il].seq ? lo_name : !p->origin[ih].seq ? hi_name : NULL;
        fail(p, o.file ? o.file : default_file, o.line, "[%s] %s=%s must be %s %s=%s%s%s%s", section, lo_name,
             format_number(a, sizeof(a), lo), strict ? "below" : "at most", hi_name,
             format_number(b, sizeof(b), hi), dflt ? " (" : "", dflt ? dflt : "",
             dflt ? " is at its built-in default; set it too)" : "");
}

/* The main file (or text in its place) and, for a file, its drop-ins: every
 * error of them all. */
static int load(struct conf *out, const char *path, const char *text, bool must_exist, char *err, size_t errsize) {
        struct conf c;
        struct parser p = { .conf = &c, .e = { .buf = err, .size = errsize } };
        int r;

        if (errsize > 0)
                err[0] = '\0';
        conf_defaults(&c);
        r = parse_one(&p, path, text, must_exist);
        if (r != -ENOMEM && !text) {
                int k = parse_dropins(&p, path);
                r = r < 0 ? r : k; /* the first file's, if it has one */
        }
        /* ReleasePercent follows HighPercent unless it is set: a HighPercent
         * that was valid before ReleasePercent had a default stays valid. */
        if (c.pool_release_follows)
                c.pool_release = release_default(c.pool_high);
        /* Cross-key checks need every file's values: else a clash may be
         * with a value that was never read. */
        if (r != -ENOMEM && !p.unread) {
                check_order(&p, "Pressure", "LowStallPercent", "HighStallPercent", c.pressure_low, c.pressure_high,
                            true, path);
                check_order(&p, "Pool", "LowPercent", "HighPercent", c.pool_low, c.pool_high, true, path);
                if (c.pool_release > 0)
                        check_order(&p, "Pool", "ReleasePercent", "HighPercent", c.pool_release, c.pool_high, true,
                                    path);
                check_order(&p, "Pool", "MinSampleMs", "SampleMs", c.min_sample_ms, c.sample_ms, false, path);
                check_order(&p, "Pressure", "TriggerStallMs", "TriggerWindowMs", c.trigger_stall_ms,
                            c.trigger_window_ms, false, path);
        }
        if (r == 0 && p.origin[key_index("Metrics", "TextfileDirectory")].seq) {
                struct origin o = p.origin[key_index("Metrics", "TextfileDirectory")];
                snprintf(c.metrics_dir_where, sizeof(c.metrics_dir_where), "%s:%u", o.file, o.line);
        }
        for (unsigned i = 0; i < p.n_files; i++)
                free(p.files[i]);
        free(p.files);
        if (p.e.failed) {
                conf_error_finish(&p.e);
                conf_free(&c);
                return r < 0 ? r : -EINVAL;
        }
        conf_free(out);
        *out = c;
        return 0;
}

int conf_load(struct conf *c, const char *path, char *err, size_t errsize) {
        return load(c, path, NULL, false, err, errsize);
}

int conf_load_given(struct conf *c, const char *path, char *err, size_t errsize) {
        return load(c, path, NULL, true, err, errsize);
}

int conf_load_string(struct conf *c, const char *name, const char *text, char *err, size_t errsize) {
        return load(c, name, text ? text : "", false, err, errsize);
}

void conf_log_errors(const char *err) {
        for (const char *s = err; *s;) {
                size_t n = strcspn(s, "\n");

                log_error("%.*s", (int) n, s);
                s += n + (s[n] == '\n');
        }
}

static void dump_value(const struct conf *c, const struct key *k, FILE *f) {
        const char *field = (const char *) c + k->offset;

        switch (k->type) {
        case T_BOOL:
                fputs(*(const bool *) field ? "yes" : "no", f);
                break;
        case T_UINT:
        case T_MSEC:
        case T_SEC:
                fprintf(f, "%u", *(const unsigned *) field);
                break;
        case T_SEC_INF:
                if (*(const unsigned *) field == CONF_INFINITY)
                        fputs("infinity", f);
                else
                        fprintf(f, "%u", *(const unsigned *) field);
                break;
        case T_PERCENT:
        case T_PERCENT_FOLLOWS: {
                char buf[512];
                /* what an empty ReleasePercent= follows, as a comment the parser skips */
                if (k->type == T_PERCENT_FOLLOWS && c->pool_release_follows)
                        fprintf(f, " ; %d below HighPercent: ", RELEASE_BELOW_HIGH);
                fputs(format_number(buf, sizeof(buf), *(const double *) field), f);
                break;
        }
        case T_ENUM:
                fputs(k->names[*(const int *) field], f);
                break;
        case T_LOGLEVEL:
                fputs(log_level_to_string(*(const int *) field), f);
                break;
        case T_CGROUPS:
        case T_UNITS: {
                const struct conf_list *l = (const struct conf_list *) field;
                for (unsigned i = 0; i < l->n; i++)
                        fprintf(f, "%s%s", i ? " " : "", l->item[i]);
                break;
        }
        case T_DIR:
                fputs(field, f);
                break;
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
