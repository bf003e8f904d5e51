/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot.h"
#include "util.h"

static const char *const warning_names[] = { "cgroup-v1",       "no-swap",      "zswap-disabled",
                                             "psi-window-rounded", "pool-unreadable", "save-failed",
                                             "knob-missing",    "metrics-dir" };
static const char *const warning_text[] = {
        "memory controller on cgroup v1: the shrinker writes nothing back, flips have no effect",
        "no swap active: zswap stores nothing",
        "zswap is disabled",
        "PSI trigger windows rounded up to 2 s (no CAP_SYS_RESOURCE)",
        "the zswap pool cannot be read",
        "the original values cannot be saved: monitoring only, nothing is changed until they can be",
        "the kernel has neither shrinker_enabled nor shrink_enabled: the knob is not steered",
        "[Metrics] TextfileDirectory= is refused (see the journal or --check-config): no metrics are written",
};

const char *snapshot_warning_name(unsigned bit) {
        return bit < ELEMENTSOF(warning_names) ? warning_names[bit] : NULL;
}

const char *snapshot_warning_text(unsigned bit) {
        return bit < ELEMENTSOF(warning_text) ? warning_text[bit] : NULL;
}

void snapshot_json_warnings(unsigned warnings, FILE *f) {
        fputc('[', f);
        for (unsigned i = 0, n = 0; i < ELEMENTSOF(warning_names); i++)
                if (warnings & (1u << i))
                        fprintf(f, "%s\"%s\"", n++ ? "," : "", warning_names[i]);
        fputc(']', f);
}

static const char *const held_names[] = { "none", "min-dwell", "max-per-minute" };
static const char *const held_text[] = { "", "less than Flips.MinDwellSec since the last flip",
                                         "Flips.MaxPerMinute reached" };
static const char *const error_names[] = { "no-status", "stale", "invalid", "permission", "usage" };

const char *snapshot_held_to_string(policy_held h) {
        return (unsigned) h < ELEMENTSOF(held_names) ? held_names[h] : "none";
}

const char *status_error_to_string(status_error e) {
        return (unsigned) e < ELEMENTSOF(error_names) ? error_names[e] : "invalid";
}

void snapshot_format(const struct snapshot *s, bool with_time, FILE *f) {
        fprintf(f, "PID=%d\nVERSION=%s\n", s->pid, s->version);
        if (with_time)
                fprintf(f, "UPDATED=%llu\n", (unsigned long long) s->updated);
        for (unsigned i = 0; i < s->n_config && i < SNAPSHOT_MAX_CONFIG; i++)
                fprintf(f, "CONFIG=%s\n", s->config[i]);
        if (s->config_defaults)
                fputs("CONFIG_DEFAULTS=1\n", f);
        fprintf(f, "KNOB=%s\nKNOB_VALUE=%s\nORIGINAL=%s\nDRY_RUN=%d\nBACKED_OFF=%d\n", s->knob,
                knob_to_string(s->knob_value), knob_to_string(s->original), s->dry_run, s->backed_off);
        fprintf(f, "MODE=%s\nMODE_SINCE=%llu\nREASON=%s\nREASON_TEXT=%s\n", policy_mode_to_string(s->mode),
                (unsigned long long) s->mode_since, policy_reason_to_string(s->reason), s->reason_text);
        fprintf(f, "PRESSURE=%.1f\n", s->pressure);
        if (s->pressure_of[0])
                fprintf(f, "PRESSURE_OF=%s\n", s->pressure_of);
        for (unsigned i = 0; i < s->n_sources; i++)
                if (s->source[i].pct < 0)
                        fprintf(f, "SOURCE=- %s\n", s->source[i].path);
                else
                        fprintf(f, "SOURCE=%.1f %s\n", s->source[i].pct, s->source[i].path);
        fprintf(f, "POOL=%.1f\nPOOL_BYTES=%llu\nSTORED_BYTES=%llu\nLIMIT_BYTES=%llu\nFILL_RATE=%.2f\n"
                   "TIME_TO_LIMIT=%.1f\n",
                s->pool, (unsigned long long) s->pool_bytes, (unsigned long long) s->stored_bytes,
                (unsigned long long) s->limit_bytes, s->fill_rate, s->time_to_limit);
        for (unsigned i = 0; i < s->n_batch; i++) {
                if (s->batch[i].capped)
                        fprintf(f, "BATCH=%llu %llu %s\n", (unsigned long long) s->batch[i].use,
                                (unsigned long long) s->batch[i].cap, s->batch[i].cgroup);
                else
                        fprintf(f, "BATCH=%llu max %s\n", (unsigned long long) s->batch[i].use, s->batch[i].cgroup);
                /* a line of its own, after its BATCH= line: older readers skip it */
                if (s->batch[i].cap_reason[0])
                        fprintf(f, "BATCH_CAP_REASON=%s %s\n", s->batch[i].cap_reason, s->batch[i].cap_text);
                if (s->batch[i].by[0])
                        fprintf(f, "BATCH_BY=%s\n", s->batch[i].by);
        }
        for (unsigned i = 0; i < s->n_protected; i++)
                fprintf(f, "PROTECTED=%s\n", s->protected_cg[i]);
        for (unsigned i = 0; i < s->n_patterns; i++)
                fprintf(f, "PATTERN=%s %u %s\n", s->pattern[i].role, s->pattern[i].matches, s->pattern[i].pattern);
        fprintf(f, "FLIPS_LAST_HOUR=%u\nFLIPS_TOTAL=%llu\n", s->flips_last_hour, (unsigned long long) s->flips_total);
        fprintf(f, "HELD=%s %s\nFLIPS_HELD_MIN_DWELL=%llu\nFLIPS_HELD_MAX_PER_MINUTE=%llu\nWARNINGS=",
                snapshot_held_to_string(s->held), policy_mode_to_string(s->held_mode),
                (unsigned long long) s->held_total[HELD_DWELL], (unsigned long long) s->held_total[HELD_CAP]);
        for (unsigned i = 0, n = 0; i < ELEMENTSOF(warning_names); i++)
                if (s->warnings & (1u << i))
                        fprintf(f, "%s%s", n++ ? "," : "", warning_names[i]);
        fputc('\n', f);
}

static int lookup(const char *v, const char *(*name)(int), int n) {
        for (int i = 0; i < n; i++)
                if (strcmp(v, name(i)) == 0)
                        return i;
        return -1;
}

static const char *mode_name(int i) {
        return policy_mode_to_string((policy_mode) i);
}

static const char *reason_name(int i) {
        return policy_reason_to_string((policy_reason) i);
}

static const char *held_name(int i) {
        return held_names[i];
}

static knob_value knob_of(const char *v) {
        int r = parse_knob(v);
        return r < 0 ? KNOB_UNSET : (knob_value) r;
}

/* "<number> <rest>" */
static const char *split(char *v) {
        char *sp = strchr(v, ' ');
        if (!sp)
                return NULL;
        *sp = '\0';
        return sp + 1;
}

int snapshot_parse(const char *buf, struct snapshot *s) {
        char *copy = strdup(buf), *save = NULL;
        bool have_pid = false;

        if (!copy)
                return -ENOMEM;
        *s = (struct snapshot) { .knob_value = KNOB_UNSET, .original = KNOB_UNSET, .time_to_limit = -1,
                                 .incomp_pages = -1, .uncharged = -1 };
        for (unsigned i = 0; i < SNAPSHOT_MAX_BATCH; i++)
                s->batch[i].incomp = -1;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *v = strchr(l, '=');
                const char *rest;
                int i;
                uint64_t u;

                if (!v)
                        continue;
                *v++ = '\0';
                if (strcmp(l, "PID") == 0)
                        have_pid = sscanf(v, "%d", &s->pid) == 1;
                else if (strcmp(l, "VERSION") == 0)
                        snprintf(s->version, sizeof(s->version), "%s", v);
                else if (strcmp(l, "CONFIG") == 0 && s->n_config < SNAPSHOT_MAX_CONFIG)
                        snprintf(s->config[s->n_config++], sizeof(s->config[0]), "%s", v);
                else if (strcmp(l, "CONFIG_DEFAULTS") == 0)
                        s->config_defaults = strcmp(v, "1") == 0;
                else if (strcmp(l, "UPDATED") == 0 && parse_u64(v, &u) == 0)
                        s->updated = u;
                else if (strcmp(l, "KNOB") == 0)
                        snprintf(s->knob, sizeof(s->knob), "%s", v);
                else if (strcmp(l, "KNOB_VALUE") == 0)
                        s->knob_value = knob_of(v);
                else if (strcmp(l, "ORIGINAL") == 0)
                        s->original = knob_of(v);
                else if (strcmp(l, "DRY_RUN") == 0)
                        s->dry_run = strcmp(v, "1") == 0;
                else if (strcmp(l, "BACKED_OFF") == 0)
                        s->backed_off = strcmp(v, "1") == 0;
                else if (strcmp(l, "MODE") == 0 && (i = lookup(v, mode_name, 3)) >= 0)
                        s->mode = (policy_mode) i;
                else if (strcmp(l, "MODE_SINCE") == 0 && parse_u64(v, &u) == 0)
                        s->mode_since = u;
                else if (strcmp(l, "REASON") == 0 && (i = lookup(v, reason_name, POLICY_REASONS)) >= 0)
                        s->reason = (policy_reason) i;
                else if (strcmp(l, "REASON_TEXT") == 0)
                        snprintf(s->reason_text, sizeof(s->reason_text), "%s", v);
                else if (strcmp(l, "PRESSURE") == 0)
                        s->pressure = strtod(v, NULL);
                else if (strcmp(l, "PRESSURE_OF") == 0)
                        snprintf(s->pressure_of, sizeof(s->pressure_of), "%s", v);
                else if (strcmp(l, "SOURCE") == 0 && s->n_sources < SNAPSHOT_MAX_SOURCES && (rest = split(v))) {
                        s->source[s->n_sources].pct = strcmp(v, "-") == 0 ? -1 : strtod(v, NULL);
                        snprintf(s->source[s->n_sources++].path, sizeof(s->source[0].path), "%s", rest);
                } else if (strcmp(l, "POOL") == 0)
                        s->pool = strtod(v, NULL);
                else if (strcmp(l, "POOL_BYTES") == 0)
                        (void) parse_u64(v, &s->pool_bytes);
                else if (strcmp(l, "STORED_BYTES") == 0)
                        (void) parse_u64(v, &s->stored_bytes);
                else if (strcmp(l, "LIMIT_BYTES") == 0)
                        (void) parse_u64(v, &s->limit_bytes);
                else if (strcmp(l, "FILL_RATE") == 0)
                        s->fill_rate = strtod(v, NULL);
                else if (strcmp(l, "TIME_TO_LIMIT") == 0)
                        s->time_to_limit = strtod(v, NULL);
                else if (strcmp(l, "BATCH") == 0 && s->n_batch < SNAPSHOT_MAX_BATCH && (rest = split(v))) {
                        char *cap = (char *) rest;
                        const char *cg = split(cap);
                        if (!cg || parse_u64(v, &s->batch[s->n_batch].use) < 0)
                                continue;
                        s->batch[s->n_batch].capped = parse_u64(cap, &s->batch[s->n_batch].cap) == 0;
                        snprintf(s->batch[s->n_batch++].cgroup, sizeof(s->batch[0].cgroup), "%s", cg);
                } else if (strcmp(l, "BATCH_CAP_REASON") == 0 && s->n_batch > 0) {
                        rest = split(v);
                        snprintf(s->batch[s->n_batch - 1].cap_reason, sizeof(s->batch[0].cap_reason), "%s", v);
                        snprintf(s->batch[s->n_batch - 1].cap_text, sizeof(s->batch[0].cap_text), "%s",
                                 rest ? rest : "");
                } else if (strcmp(l, "BATCH_BY") == 0 && s->n_batch > 0 && !split(v)) {
                        snprintf(s->batch[s->n_batch - 1].by, sizeof(s->batch[0].by), "%s", v);
                } else if (strcmp(l, "PROTECTED") == 0 && s->n_protected < SNAPSHOT_MAX_SOURCES && *v) {
                        snprintf(s->protected_cg[s->n_protected++], sizeof(s->protected_cg[0]), "%s", v);
                } else if (strcmp(l, "HELD") == 0) {
                        rest = split(v);
                        i = lookup(v, held_name, (int) ELEMENTSOF(held_names));
                        s->held = i > 0 ? (policy_held) i : HELD_NONE;
                        if (s->held != HELD_NONE && rest && (i = lookup(rest, mode_name, 3)) >= 0)
                                s->held_mode = (policy_mode) i;
                } else if (strcmp(l, "FLIPS_HELD_MIN_DWELL") == 0)
                        (void) parse_u64(v, &s->held_total[HELD_DWELL]);
                else if (strcmp(l, "FLIPS_HELD_MAX_PER_MINUTE") == 0)
                        (void) parse_u64(v, &s->held_total[HELD_CAP]);
                else if (strcmp(l, "PATTERN") == 0 && s->n_patterns < SNAPSHOT_MAX_PATTERNS && (rest = split(v))) {
                        char *n = (char *) rest;
                        const char *pat = split(n);
                        if (!pat || parse_u64(n, &u) < 0 || u > UINT32_MAX)
                                continue;
                        snprintf(s->pattern[s->n_patterns].role, sizeof(s->pattern[0].role), "%s", v);
                        s->pattern[s->n_patterns].matches = (unsigned) u;
                        snprintf(s->pattern[s->n_patterns++].pattern, sizeof(s->pattern[0].pattern), "%s", pat);
                } else if (strcmp(l, "FLIPS_LAST_HOUR") == 0 && parse_u64(v, &u) == 0)
                        s->flips_last_hour = (unsigned) u;
                else if (strcmp(l, "FLIPS_TOTAL") == 0)
                        (void) parse_u64(v, &s->flips_total);
                else if (strcmp(l, "WARNINGS") == 0)
                        for (unsigned w = 0; w < ELEMENTSOF(warning_names); w++)
                                if (strstr(v, warning_names[w]))
                                        s->warnings |= 1u << w;
        }
        free(copy);
        return have_pid ? 0 : -EBADMSG;
}

static void json_int_or_null(FILE *f, int64_t v) {
        if (v < 0)
                fputs("null", f);
        else
                fprintf(f, "%lld", (long long) v);
}

/* The length of the valid UTF-8 sequence at p (2 to 4), or 0 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
unsigned snapshot_utf8_len(const unsigned char *p) {
        unsigned n, i;
        uint32_t cp;

        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                n = 2, cp = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                n = 3, cp = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                n = 4, cp = p[0] & 0x07;
        else
                return 0;
        for (i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80) /* includes the terminating NUL */
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

void snapshot_json_string(FILE *f, const char *str) {
        const unsigned char *p = (const unsigned char *) str;

        fputc('"', f);
        while (*p) {
                unsigned n;
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p++);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\u%04x", *p++);
                else if (*p < 0x80)
                        fputc(*p++, f);
                else if ((n = snapshot_utf8_len(p)) > 0) {
                        fwrite(p, 1, n, f);
                        p += n;
                } else {
                        fputs("\\ufffd", f);
                        p++;
                }
        }
        fputc('"', f);
}

/* BATCH_BY's word as the key that set it, for people */
static const char *batch_by_key(const char *by) {
        static const char *const keys[][2] = {
                { "cgroups", "[Batch] Cgroups=" },
                { "units", "[Batch] Units=" },
                { "idle-cgroups", "[Batch] IdleCgroups=" },
        };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (strcmp(by, keys[i][0]) == 0)
                        return keys[i][1];
        return by; /* an older or a newer daemon's word */
}

void snapshot_json_string_or_null(FILE *f, const char *s) {
        if (s && s[0])
                snapshot_json_string(f, s);
        else
                fputs("null", f);
}

static void json_knob(FILE *f, knob_value v) {
        if (v == KNOB_UNSET)
                fputs("null", f);
        else
                fputs(v == KNOB_ON ? "true" : "false", f);
}

/* usec since the epoch as seconds; 0 = unknown */
static void json_time(FILE *f, uint64_t usec) {
        if (usec == 0)
                fputs("null", f);
        else
                fprintf(f, "%llu.%06llu", (unsigned long long) (usec / USEC_PER_SEC),
                        (unsigned long long) (usec % USEC_PER_SEC));
}

void snapshot_json_open(const struct snapshot *s, uint64_t now, FILE *f) {
        fprintf(f, "{\"schema\":%d,\"running\":true,\"version\":", SNAPSHOT_JSON_SCHEMA);
        snapshot_json_string_or_null(f, s->version);
        /* an age: the reader needs no clock of its own to tell a stale status */
        fprintf(f, ",\"pid\":%d,\"updated_seconds\":", s->pid);
        if (s->updated == 0)
                fputs("null", f);
        else
                json_time(f, now > s->updated ? now - s->updated : 1); /* 1 usec: never null */
        fputs(",\"config_files\":[", f);
        for (unsigned i = 0; i < s->n_config && i < SNAPSHOT_MAX_CONFIG; i++) {
                fputs(i ? "," : "", f);
                snapshot_json_string(f, s->config[i]);
        }
        fprintf(f, "],\"config_defaults\":%s,\"knob\":", s->config_defaults ? "true" : "false");
        snapshot_json_string_or_null(f, s->knob);
        fputs(",\"knob_value\":", f);
        json_knob(f, s->knob_value);
        fputs(",\"original_value\":", f);
        json_knob(f, s->original);
        fprintf(f, ",\"dry_run\":%s,\"admin_override\":%s,\"mode\":\"%s\",\"mode_since_seconds\":",
                s->dry_run ? "true" : "false", s->backed_off ? "true" : "false", policy_mode_to_string(s->mode));
        json_time(f, s->mode_since);
        fprintf(f, ",\"reason\":\"%s\",\"reason_text\":", policy_reason_to_string(s->reason));
        snapshot_json_string(f, s->reason_text);
        fprintf(f, ",\"pressure_percent\":%.1f,\"pressure_of\":", s->pressure);
        if (s->pressure_of[0])
                snapshot_json_string(f, s->pressure_of);
        else
                fputs("null", f);
        fputs(",\"sources\":[", f);
        for (unsigned i = 0; i < s->n_sources; i++) {
                fprintf(f, "%s{\"path\":", i ? "," : "");
                snapshot_json_string(f, s->source[i].path);
                if (s->source[i].pct < 0)
                        fputs(",\"pressure_percent\":null}", f);
                else
                        fprintf(f, ",\"pressure_percent\":%.1f}", s->source[i].pct);
        }
        fprintf(f, "],\"pool\":{\"percent\":%.1f,\"bytes\":%llu,\"stored_bytes\":%llu,\"limit_bytes\":%llu,"
                   "\"fill_rate_percent_per_second\":%.2f,\"time_to_limit_seconds\":",
                s->pool, (unsigned long long) s->pool_bytes, (unsigned long long) s->stored_bytes,
                (unsigned long long) s->limit_bytes, s->fill_rate);
        if (s->time_to_limit < 0)
                fputs("null", f);
        else
                fprintf(f, "%.1f", s->time_to_limit);
        fputs(",\"incompressible_pages\":", f);
        json_int_or_null(f, s->incomp_pages);
        fputs(",\"uncharged_bytes\":", f);
        json_int_or_null(f, s->uncharged);
        fputc('}', f);
        fputs(",\"batch\":[", f);
        for (unsigned i = 0; i < s->n_batch; i++) {
                fprintf(f, "%s{\"cgroup\":", i ? "," : "");
                snapshot_json_string(f, s->batch[i].cgroup);
                fprintf(f, ",\"zswap_bytes\":%llu,\"cap_bytes\":", (unsigned long long) s->batch[i].use);
                if (s->batch[i].capped)
                        fprintf(f, "%llu", (unsigned long long) s->batch[i].cap);
                else
                        fputs("null", f);
                fputs(",\"cap_reason\":", f);
                snapshot_json_string_or_null(f, s->batch[i].cap_reason);
                fputs(",\"cap_reason_text\":", f);
                snapshot_json_string_or_null(f, s->batch[i].cap_text);
                fputs(",\"by\":", f);
                snapshot_json_string_or_null(f, s->batch[i].by);
                fputs(",\"incompressible_bytes\":", f);
                json_int_or_null(f, s->batch[i].incomp);
                fputc('}', f);
        }
        fputs("],\"writeback_protected\":[", f);
        for (unsigned i = 0; i < s->n_protected; i++) {
                fputs(i ? "," : "", f);
                snapshot_json_string(f, s->protected_cg[i]);
        }
        fputs("],\"patterns\":[", f);
        for (unsigned i = 0; i < s->n_patterns; i++) {
                fprintf(f, "%s{\"role\":", i ? "," : "");
                snapshot_json_string(f, s->pattern[i].role);
                fputs(",\"pattern\":", f);
                snapshot_json_string(f, s->pattern[i].pattern);
                fprintf(f, ",\"matches\":%u}", s->pattern[i].matches);
        }
        fprintf(f, "],\"flips_last_hour\":%u,\"flips_total\":%llu,\"flip_held\":", s->flips_last_hour,
                (unsigned long long) s->flips_total);
        if (s->held == HELD_NONE)
                fputs("null", f);
        else
                fprintf(f, "{\"reason\":\"%s\",\"mode\":\"%s\"}", snapshot_held_to_string(s->held),
                        policy_mode_to_string(s->held_mode));
        fprintf(f, ",\"flips_held_total\":{\"min-dwell\":%llu,\"max-per-minute\":%llu},\"warnings\":",
                (unsigned long long) s->held_total[HELD_DWELL], (unsigned long long) s->held_total[HELD_CAP]);
        snapshot_json_warnings(s->warnings, f);
}

void snapshot_json(const struct snapshot *s, uint64_t now, FILE *f) {
        snapshot_json_open(s, now, f);
        fputs("}\n", f);
}

void snapshot_json_not_running_open(status_error e, const char *message, FILE *f) {
        fprintf(f, "{\"schema\":%d,\"running\":%s,\"error\":\"%s\",\"message\":", SNAPSHOT_JSON_SCHEMA,
                e == STATUS_ERROR_PERMISSION || e == STATUS_ERROR_USAGE ? "null" : "false",
                status_error_to_string(e));
        snapshot_json_string(f, message);
}

void snapshot_json_not_running(status_error e, const char *message, FILE *f) {
        snapshot_json_not_running_open(e, message, f);
        fputs("}\n", f);
}

const char *snapshot_escape(const char *s, char *buf, size_t size) {
        const unsigned char *p = (const unsigned char *) s;
        size_t n = 0, cut = 0; /* cut: the last end of a whole character with room for "..." after it */

        if (size == 0)
                return buf;
        while (*p) {
                unsigned len = *p < 0x80 ? 1 : snapshot_utf8_len(p);
                /* U+0080..U+009F: C1 controls (0xc2 0x80..0x9f) */
                bool c1 = len == 2 && p[0] == 0xc2 && p[1] < 0xa0;
                char tmp[8];
                size_t t;

                if (*p < 0x20 || *p == 0x7f || len == 0 || c1) {
                        t = (size_t) snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
                        len = 1;
                } else {
                        memcpy(tmp, p, len);
                        t = len;
                }
                if (n + t + 1 > size) { /* does not fit: cut at a whole character */
                        n = cut;
                        if (n + 4 <= size) {
                                memcpy(buf + n, "...", 3);
                                n += 3;
                        }
                        break;
                }
                memcpy(buf + n, tmp, t);
                n += t;
                if (n + 4 <= size)
                        cut = n;
                p += len;
        }
        buf[n] = '\0';
        return buf;
}

static const char *ago(char *buf, size_t size, uint64_t now, uint64_t then) {
        uint64_t s = now > then ? (now - then) / USEC_PER_SEC : 0;

        if (s < 120)
                snprintf(buf, size, "%llu s ago", (unsigned long long) s);
        else if (s < 7200)
                snprintf(buf, size, "%llu min ago", (unsigned long long) (s / 60));
        else
                snprintf(buf, size, "%llu h ago", (unsigned long long) (s / 3600));
        return buf;
}

void snapshot_print(const struct snapshot *s, uint64_t now, FILE *f) {
        char a[32], b[32], when[32], e[SNAPSHOT_ESCAPED(512)], e2[SNAPSHOT_ESCAPED(300)];
        time_t t = (time_t) (s->mode_since / USEC_PER_SEC);
        struct tm tm;

        fprintf(f, "zswap-tuned: running (pid %d), last sample %s%s\n", s->pid, ago(a, sizeof(a), now, s->updated),
                s->dry_run ? ", dry run: nothing is written" : "");
        fprintf(f, "   Version: %s\n",
                s->version[0] ? snapshot_escape(s->version, e, sizeof(e)) : "unknown (the daemon does not say)");
        fputs("    Config:", f);
        for (unsigned i = 0; i < s->n_config && i < SNAPSHOT_MAX_CONFIG; i++)
                fprintf(f, "%s%s", i ? ", " : " ", snapshot_escape(s->config[i], e, sizeof(e)));
        fputs(s->n_config           ? "\n"
              : s->config_defaults ? " none, the built-in defaults (no configuration file was there)\n"
                                   : " unknown (the daemon does not say)\n",
              f);
        if (s->knob[0])
                fprintf(f, "      Knob: %s=%s (original %s)%s\n", snapshot_escape(s->knob, e, sizeof(e)), knob_to_string(s->knob_value),
                        knob_to_string(s->original), s->backed_off ? ", left to the admin until a reload or "
                                                                     "Flips.AdminBackOffSec" : "");
        else
                fprintf(f, "      Knob: none (monitoring only)\n");
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
        fprintf(f, "      Mode: %s since %s (%s)\n", policy_mode_to_human(s->mode), when,
                ago(a, sizeof(a), now, s->mode_since));
        if (s->reason_text[0])
                fprintf(f, "  Decision: %s (%s)\n", snapshot_escape(s->reason_text, e, sizeof(e)), policy_reason_to_string(s->reason));
        fprintf(f, "      Pool: %s of %s (%.0f%%)", format_bytes(a, sizeof(a), s->pool_bytes),
                format_bytes(b, sizeof(b), s->limit_bytes), s->pool);
        if (s->pool_bytes > 0 && s->stored_bytes > 0)
                fprintf(f, ", compressed %.1fx", (double) s->stored_bytes / (double) s->pool_bytes);
        if (s->incomp_pages > 0)
                fprintf(f, ", %lld pages stored whole (incompressible)", (long long) s->incomp_pages);
        if (s->uncharged >= 0)
                fprintf(f, ", %s charged to no cgroup", format_bytes(a, sizeof(a), (uint64_t) s->uncharged));
        if (s->time_to_limit >= 0)
                fprintf(f, ", filling %.1f%%/s, at the limit in %.0f s", s->fill_rate, s->time_to_limit);
        fputc('\n', f);
        fprintf(f, "  Pressure: %.1f%%", s->pressure);
        if (s->pressure_of[0])
                fprintf(f, ", %s", snapshot_escape(s->pressure_of, e, sizeof(e)));
        for (unsigned i = 0; i < s->n_sources; i++) {
                if (s->source[i].pct < 0)
                        fprintf(f, "%s%s -", i ? ", " : " (", snapshot_escape(s->source[i].path, e, sizeof(e)));
                else
                        fprintf(f, "%s%s %.1f%%", i ? ", " : " (", snapshot_escape(s->source[i].path, e, sizeof(e)),
                                s->source[i].pct);
        }
        fputs(s->n_sources ? ")\n" : "\n", f);
        for (unsigned i = 0; i < s->n_batch; i++) {
                fprintf(f, "     Batch: %s: %s in zswap, ", snapshot_escape(s->batch[i].cgroup, e, sizeof(e)),
                        format_bytes(a, sizeof(a), s->batch[i].use));
                if (s->batch[i].capped)
                        fprintf(f, "cap %s", format_bytes(b, sizeof(b), s->batch[i].cap));
                else
                        fputs("not capped", f);
                if (s->batch[i].cap_text[0])
                        fprintf(f, " (%s: %s)", snapshot_escape(s->batch[i].cap_reason, e2, sizeof(e2)),
                                snapshot_escape(s->batch[i].cap_text, e, sizeof(e)));
                else if (s->batch[i].cap_reason[0])
                        fprintf(f, " (%s)", snapshot_escape(s->batch[i].cap_reason, e, sizeof(e)));
                if (s->batch[i].incomp > 0)
                        fprintf(f, " (%s of it incompressible, stored whole)",
                                format_bytes(a, sizeof(a), (uint64_t) s->batch[i].incomp));
                if (s->batch[i].by[0])
                        fprintf(f, "; by %s", snapshot_escape(batch_by_key(s->batch[i].by), e, sizeof(e)));
                fputc('\n', f);
        }
        for (unsigned i = 0; i < s->n_protected; i++)
                fprintf(f, " Protected: %s: zswap writeback 0 while it stalls ([Pressure] ProtectWriteback=)\n",
                        snapshot_escape(s->protected_cg[i], e, sizeof(e)));
        for (unsigned i = 0; i < s->n_patterns; i++)
                fprintf(f, "   Follows: %s (%s): %u cgroup%s\n", snapshot_escape(s->pattern[i].pattern, e, sizeof(e)),
                        snapshot_escape(s->pattern[i].role, e2, sizeof(e2)),
                        s->pattern[i].matches, s->pattern[i].matches == 1 ? "" : "s");
        fprintf(f, "     Flips: %u in the last hour, %llu since start\n", s->flips_last_hour,
                (unsigned long long) s->flips_total);
        if (s->held != HELD_NONE && (unsigned) s->held < ELEMENTSOF(held_text))
                fprintf(f, "      Held: a flip to %s, held back: %s (%s)\n", policy_mode_to_human(s->held_mode),
                        held_text[s->held], held_names[s->held]);
        if (s->held_total[HELD_DWELL] || s->held_total[HELD_CAP])
                fprintf(f, "      Held: %llu flips held back since start, %llu by Flips.MinDwellSec, "
                           "%llu by Flips.MaxPerMinute\n",
                        (unsigned long long) (s->held_total[HELD_DWELL] + s->held_total[HELD_CAP]),
                        (unsigned long long) s->held_total[HELD_DWELL], (unsigned long long) s->held_total[HELD_CAP]);
        for (unsigned i = 0; i < ELEMENTSOF(warning_text); i++)
                if (s->warnings & (1u << i))
                        fprintf(f, "   Warning: %s\n", warning_text[i]);
}
