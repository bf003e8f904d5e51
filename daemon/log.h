/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <syslog.h>

/* MESSAGE_IDs, so that "journalctl MESSAGE_ID=..." lists one kind of record
 * (and the catalog can explain it). Used as "MESSAGE_ID=" MESSAGE_ID_FLIP. */
#define MESSAGE_ID_FLIP            "5b0c2a4e6f8d4c1f9e3a7b2d1c0e9f84" /* the knob flipped (or would, dry run) */
#define MESSAGE_ID_RESTORE         "e8e9df835a7e413188389bb34fb0fbfe" /* put back an original value */
#define MESSAGE_ID_CAP             "93e0e0673f74434ab5a4da1a8f8b7709" /* a batch cap set, moved or lifted */
#define MESSAGE_ID_ADMIN           "10bec3ba44e44e719ae72b1929061913" /* someone else wrote the knob: backing off */
#define MESSAGE_ID_BLIND           "e239344f32184497b609cd4a0d4bdaed" /* the pool cannot be read / zswap off: back to baseline */
#define MESSAGE_ID_STARTUP_WARNING "9c46a611dff04c929109ea6e556cc12a" /* cgroup v1, no swap, zswap disabled, PSI fallback */
#define MESSAGE_ID_WRITEBACK       "b1fe8d1434d5446f803638c98c365c17" /* a pressure cgroup's writeback 0 or back */
#define MESSAGE_ID_WRITE_FAILED    "141aa462a9884495b8f82df89f112ef9" /* a write keeps failing (said once, with a count) */

/* Log to the journal (structured, when stderr is connected to it) or as
 * plain lines on stderr. Extra fields are "KEY=value" strings with upper-case
 * keys, in a NULL-terminated array; on stderr they are not shown. */

void log_open(void);
void log_set_max_level(int level);
int log_get_max_level(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

void log_fields(int prio, const char *const *fields, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#define log_error(...)   log_fields(LOG_ERR, NULL, __VA_ARGS__)
#define log_warning(...) log_fields(LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...)  log_fields(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...)    log_fields(LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...)   log_fields(LOG_DEBUG, NULL, __VA_ARGS__)
/* Say it and return r (a -errno), as systemd's log_error_errno(): the
 * error path in one statement. */
#define log_error_errno(r, ...) ({ int _r = (r); log_error(__VA_ARGS__); _r; })

/* For tests: receive every message that passes the level filter instead of
 * writing it anywhere. */
typedef void (*log_hook_t)(int prio, const char *message, const char *const *fields, void *userdata);
void log_set_hook(log_hook_t hook, void *userdata);
