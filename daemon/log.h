/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <syslog.h>

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

/* For tests: receive every message that passes the level filter instead of
 * writing it anywhere. */
typedef void (*log_hook_t)(int prio, const char *message, const char *const *fields, void *userdata);
void log_set_hook(log_hook_t hook, void *userdata);
