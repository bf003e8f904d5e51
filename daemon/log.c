/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "util.h"

#define MAX_FIELDS 16

static int max_level = LOG_INFO;
static bool to_journal;
static char unit_field[300];    /* "OBJECT_SYSTEMD_UNIT=x.service", or "" */
static log_hook_t hook;
static void *hook_userdata;

static const char *const level_names[] = {
        [LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

/* stderr is the journal if JOURNAL_STREAM names the same device:inode. */
static bool stderr_is_journal(void) {
        unsigned long long dev, ino;
        const char *e = getenv("JOURNAL_STREAM");
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

/* The service we run in, from our cgroup: journald attributes a message to
 * its unit by the sender's cgroup, which it cannot read once the sender has
 * exited, so the short-lived "--restore" of ExecStopPost= lost its lines from
 * "journalctl -u" under load. journalctl -u also matches
 * OBJECT_SYSTEMD_UNIT= sent by root: say it ourselves. */
static void find_unit(void) {
        char buf[4096];
        ssize_t n = read_full_file("/proc/self/cgroup", buf, sizeof(buf));

        unit_field[0] = '\0';
        if (n <= 0 || geteuid() != 0)
                return;
        for (char *l = buf, *e; l && *l; l = e ? e + 1 : NULL) {
                e = strchr(l, '\n');
                if (e)
                        *e = '\0';
                const char *last = strrchr(l, '/');
                size_t len = last ? strlen(last + 1) : 0;
                if (len > 8 && len < 256 && strcmp(last + 1 + len - 8, ".service") == 0) {
                        snprintf(unit_field, sizeof(unit_field), "OBJECT_SYSTEMD_UNIT=%s", last + 1);
                        return;
                }
        }
}

void log_open(void) {
        to_journal = stderr_is_journal();
        if (to_journal)
                find_unit();
}

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (level_names[i] && strcasecmp(s, level_names[i]) == 0)
                        return (int) i;
        return -1;
}

const char *log_level_to_string(int level) {
        if (level < 0 || (size_t) level >= ELEMENTSOF(level_names) || !level_names[level])
                return "debug";
        return level_names[level];
}

static void log_to_journal(int prio, const char *msg, const char *const *fields) {
        char message[2048], priority[16];
        struct iovec iov[MAX_FIELDS + 4];
        size_t n = 0;

        snprintf(message, sizeof(message), "MESSAGE=%s", msg);
        snprintf(priority, sizeof(priority), "PRIORITY=%d", prio);
        iov[n++] = (struct iovec) { .iov_base = message, .iov_len = strlen(message) };
        iov[n++] = (struct iovec) { .iov_base = priority, .iov_len = strlen(priority) };
        iov[n++] = (struct iovec) { .iov_base = (char *) "SYSLOG_IDENTIFIER=zswap-tuned",
                                    .iov_len = strlen("SYSLOG_IDENTIFIER=zswap-tuned") };
        if (unit_field[0])
                iov[n++] = (struct iovec) { .iov_base = unit_field, .iov_len = strlen(unit_field) };
        for (size_t i = 0; fields && fields[i] && i < MAX_FIELDS; i++)
                iov[n++] = (struct iovec) { .iov_base = (char *) fields[i], .iov_len = strlen(fields[i]) };

        if (sd_journal_sendv(iov, (int) n) < 0)
                fprintf(stderr, "%s\n", msg);
}

static void log_to_stderr(int prio, const char *msg) {
        const char *tag = prio <= LOG_ERR ? "error: " : prio == LOG_WARNING ? "warning: " : "";

        fprintf(stderr, "zswap-tuned: %s%s\n", tag, msg);
}

void log_fields(int prio, const char *const *fields, const char *fmt, ...) {
        char msg[1024];
        va_list ap;

        if (prio > max_level)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);

        if (hook)
                hook(prio, msg, fields, hook_userdata);
        else if (to_journal)
                log_to_journal(prio, msg, fields);
        else
                log_to_stderr(prio, msg);
}

void log_set_hook(log_hook_t h, void *userdata) {
        hook = h;
        hook_userdata = userdata;
}
