/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon knows after a sample, as plain data: published in the
 * runtime directory ("status", KEY=VALUE lines) for "zswap-tuned status",
 * and the source of the Prometheus metrics. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "policy.h"

#define SNAPSHOT_NAME "status"
#define SNAPSHOT_MAX_SOURCES 33
#define SNAPSHOT_MAX_BATCH 64 /* listed in status and the metrics; the patterns count all */
#define SNAPSHOT_FILE_MAX (256 * 1024) /* the status file, at most */
#define SNAPSHOT_MAX_CONFIG 16
/* The JSON object's "schema" (docs/status-schema.json): raised only when a
 * key changes meaning or goes away; new keys may come within a version. */
#define SNAPSHOT_JSON_SCHEMA 2 /* 2: updated_seconds an age; "host"; not running: what the daemon would do */
#define SNAPSHOT_MAX_PATTERNS (4 * 16 + 1) /* Cgroups= and Units= of both roles, IdleCgroups= */
#define SNAPSHOT_PATTERN_IDLE "idle"      /* the pattern IdleCgroups= is listed as */
#define SNAPSHOT_COUNTERS 9               /* /proc/vmstat's zswp* and debugfs's reject_* (publish.c) */

enum {
        WARN_CGROUP_V1 = 1 << 0,        /* flips have no effect */
        WARN_NO_SWAP = 1 << 1,          /* zswap stores nothing */
        WARN_ZSWAP_DISABLED = 1 << 2,
        WARN_PSI_WINDOW = 1 << 3,       /* a trigger window was rounded up (no CAP_SYS_RESOURCE) */
        WARN_POOL_UNREADABLE = 1 << 4,
        WARN_SAVE_FAILED = 1 << 5,      /* originals cannot be saved: nothing is changed */
        WARN_KNOB_MISSING = 1 << 6,     /* the kernel has no knob to steer: monitoring only */
        WARN_METRICS_DIR = 1 << 7,      /* [Metrics] TextfileDirectory= refused: no metrics written */
};
/* "cgroup-v1", ... as in WARNINGS= and the JSON; NULL for no such bit */
const char *snapshot_warning_name(unsigned bit);
/* The same in words, for people */
const char *snapshot_warning_text(unsigned bit);

/* Why "zswap-tuned status" found no running daemon (the JSON "error"). */
typedef enum {
        STATUS_ERROR_NO_STATUS,   /* no status file: not running (or another --state-dir) */
        STATUS_ERROR_STALE,       /* the file's writer is gone (SIGKILL, before --restore) */
        STATUS_ERROR_INVALID,     /* a file that cannot be read as a status file */
        STATUS_ERROR_PERMISSION,  /* not allowed to read it: running or not, unknown */
        STATUS_ERROR_USAGE,       /* the command line is wrong (exit 2): nothing was looked at */
} status_error;
const char *status_error_to_string(status_error e); /* "no-status", ... */

/* All fields are safe at zero ("" strings, 0 counts): an older daemon that
 * does not write a line leaves its field so, and the output says "unknown"
 * or leaves it out. */
struct snapshot {
        int pid;
        char version[32];               /* the daemon's PACKAGE_VERSION; "" = unknown */
        unsigned n_config;
        char config[SNAPSHOT_MAX_CONFIG][512]; /* files read: the main file, then its drop-ins */
        bool config_defaults;           /* no file was there to read: the built-in defaults */
        uint64_t updated;               /* CLOCK_REALTIME usec */
        char knob[32];                  /* "" = monitor only */
        knob_value knob_value, original;
        bool dry_run, backed_off;
        policy_mode mode;
        uint64_t mode_since;            /* CLOCK_REALTIME usec */
        policy_reason reason;           /* of the last change of mode or flip */
        char reason_text[256];
        double pressure;                /* percent: what the rules read ... */
        char pressure_of[128];          /* ... "the rest: system.slice" while batch work is known;
                                         * "": the max over the sources */
        unsigned n_sources;
        struct {
                char path[512];
                double pct;             /* < 0: no figure (gone, or no delta yet) */
                bool have_stalled;      /* (live, metrics only:) */
                uint64_t stalled_usec;  /* the PSI total, some or full (psi_full) */
        } source[SNAPSHOT_MAX_SOURCES];
        bool psi_full;
        double pool;                    /* percent of the limit */
        uint64_t pool_bytes, stored_bytes, limit_bytes;
        int64_t incomp_pages;           /* stored whole, incompressible; < 0 = unknown (live, status only) */
        int64_t uncharged;              /* pool bytes charged to no cgroup; < 0 = unknown (live, status only) */
        double fill_rate;               /* percent of the limit per second */
        double time_to_limit;           /* seconds, < 0 = not rising */
        unsigned n_batch;
        struct {
                char cgroup[CONF_CGROUP_NAME_MAX + 1];
                uint64_t use;           /* memory.zswap.current */
                bool capped;
                uint64_t cap;
                int64_t incomp;         /* bytes stored whole; < 0 = unknown (live, status only) */
                char cap_reason[32];    /* why this cap: a word (the label of the metric
                                         * zswap_tuned_batch_cap_bytes{reason}); "" = unknown */
                char cap_text[128];     /* ... and in words (policy_decision.cap_text) */
                char by[16];            /* the rule that made it batch work (BATCH_BY_*); "" = unknown */
        } batch[SNAPSHOT_MAX_BATCH];
        unsigned n_protected;           /* [Pressure] ProtectWriteback=: the cgroups at writeback 0 now */
        char protected_cg[SNAPSHOT_MAX_SOURCES][512];
        unsigned n_patterns;            /* Cgroups= globs, Units= ("unit:..."), IdleCgroups= (SNAPSHOT_PATTERN_IDLE) */
        struct {
                char role[16];          /* "batch" or "pressure" */
                char pattern[300];
                unsigned matches;       /* the cgroups it takes now (listed among batch and sources) */
        } pattern[SNAPSHOT_MAX_PATTERNS];
        unsigned flips_last_hour;
        uint64_t flips_total;
        policy_held held;               /* a wanted flip is being held back now ... */
        policy_mode held_mode;          /* ... to this mode */
        uint64_t held_total[3];         /* flips held back since start, by policy_held (HELD_NONE unused) */
        /* (live, metrics only:) stats.h's counts */
        uint64_t flips_by_reason[POLICY_REASONS], decisions_by_reason[POLICY_REASONS];
        uint64_t retries;
        int64_t counters[SNAPSHOT_COUNTERS]; /* (live, metrics only:) the kernel's zswap counters
                                              * (publish.c); < 0 = the kernel does not tell */
        unsigned warnings;              /* WARN_* */
};

/* KEY=VALUE lines; without the UPDATED= line when with_time is false (to
 * tell whether anything changed). */
void snapshot_format(const struct snapshot *s, bool with_time, FILE *f);
/* Parse what snapshot_format() wrote; unknown lines are skipped (a newer
 * daemon). -EBADMSG when it is not a snapshot. */
int snapshot_parse(const char *buf, struct snapshot *s);
/* One JSON object, "running": true (docs/status-schema.json); now:
 * CLOCK_REALTIME usec, for the ages. */
void snapshot_json(const struct snapshot *s, uint64_t now, FILE *f);
/* The same object without its closing brace, for a caller that adds keys. */
void snapshot_json_open(const struct snapshot *s, uint64_t now, FILE *f);
/* The JSON object without a running daemon: "running" false, or null with
 * STATUS_ERROR_PERMISSION (then it cannot be told). */
void snapshot_json_not_running(status_error e, const char *message, FILE *f);
/* The same without its closing brace. */
void snapshot_json_not_running_open(status_error e, const char *message, FILE *f);
/* A JSON array of the warnings' names */
void snapshot_json_warnings(unsigned warnings, FILE *f);
/* A JSON string: '"', '\\' and control characters escaped, and each byte
 * that is not part of a valid UTF-8 sequence (a stray continuation byte, a
 * truncated or overlong sequence, a surrogate, above U+10FFFF) written as
 * \ufffd, so that the output is always valid UTF-8 JSON. */
/* The length of the valid UTF-8 sequence at p (2-4), 0 if there is none. */
unsigned snapshot_utf8_len(const unsigned char *p);
void snapshot_json_string(FILE *f, const char *s);
/* The same, or null for NULL or "". */
void snapshot_json_string_or_null(FILE *f, const char *s);
const char *snapshot_held_to_string(policy_held h); /* "none", "min-dwell", "max-per-minute" */
/* A name read from the system for a terminal: each byte below 0x20 and 0x7f
 * as \xNN: an ESC would reach the terminal; so are C1 controls (U+0080 to
 * U+009F) and bytes that are not valid UTF-8. Backslashes stay as they are
 * (systemd's unit names have "\x2d"). Cut with "..." when buf is too small
 * (SNAPSHOT_ESCAPED(strlen(s)) always fits). Returns buf. */
const char *snapshot_escape(const char *s, char *buf, size_t size);
#define SNAPSHOT_ESCAPED(n) (4 * (n) + 1)
/* For a human: what "zswap-tuned status" prints. now: CLOCK_REALTIME usec. */
void snapshot_print(const struct snapshot *s, uint64_t now, FILE *f);
