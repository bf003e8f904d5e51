/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "record.h"
#include "util.h"

#define HEADER "# zswap-tuned recording 1\n"

static void stop(struct recorder *r) {
        if (r->on)
                close(r->fd);
        r->on = false;
        r->fd = -1;
}

/* One line, one write(2): never through stdio, whose buffer would split a
 * line over two writes and go on after an error. A partial write (the file
 * system or RLIMIT_FSIZE full) is cut off again, so that the recording ends
 * in whole lines; then the error is logged, once, and recording stops. */
static void emit(struct recorder *r, const char *line, size_t n) {
        size_t done = 0;
        ssize_t w;
        int err;

        if (!r->on)
                return;
        while (done < n) {
                w = write(r->fd, line + done, n - done);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        err = w < 0 ? errno : EIO;
                        if (done > 0) {
                                off_t end = lseek(r->fd, 0, SEEK_END);
                                if (end < (off_t) done || ftruncate(r->fd, end - (off_t) done) < 0)
                                        log_error("--record=%s: cannot cut off a partial line: %s", r->path,
                                                  err_str(-errno));
                        }
                        log_error("--record=%s: %s; recording stopped%s", r->path, err_str(-err),
                                  err_write_hint(-err));
                        stop(r);
                        return;
                }
                done += (size_t) w;
        }
}

static void emit_event(struct recorder *r, const struct record_event *ev) {
        char buf[RECORD_LINE_MAX];
        int n;

        if (!r->on)
                return;
        n = record_format_event(ev, buf, sizeof(buf));
        if (n < 0 || (size_t) n >= sizeof(buf)) {
                log_error("--record=%s: a line does not fit in %zu bytes; recording stopped", r->path, sizeof(buf));
                stop(r);
                return;
        }
        emit(r, buf, (size_t) n);
}

int record_open(struct recorder *r, const char *path) {
        struct stat st;
        int fd, flags;

        *r = (struct recorder) { .fd = -1 };
        /* O_NONBLOCK: a FIFO without a reader would block here for ever
         * (with the signals already blocked: not even SIGTERM ends it);
         * with it, that is ENXIO, and one with a reader is refused below. */
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return errno == ENXIO ? -ENOTREGULAR : -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -ENOTREGULAR;
        }
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
                close(fd);
                return -errno;
        }
        r->path = strdup(path);
        if (!r->path) {
                close(fd);
                return -ENOMEM;
        }
        r->fd = fd;
        r->on = true;
        if (st.st_size == 0)
                emit(r, HEADER, strlen(HEADER));
        return 0;
}

void record_close(struct recorder *r) {
        stop(r);
        free(r->path);
        r->path = NULL;
}

void record_init(struct recorder *r, uint64_t now, knob_value current, knob_value original) {
        emit_event(r, &(struct record_event) {
                .type = RECORD_INIT, .now = now, .current = current, .original = original });
}

void record_sample(struct recorder *r, const struct policy_sample *in) {
        /* before its S line, so that a reader has it when the S line comes;
         * recordings from before [Batch] LendWhenCalm= have none */
        if (in->cgroups_valid)
                emit_event(r, &(struct record_event) {
                        .type = RECORD_CGROUPS, .now = in->now,
                        .sample = { .cgroups_valid = true, .cgroups_pressure = in->cgroups_pressure } });
        /* the rest's pressure, whenever batch work is known (valid or not:
         * the rules read it then); none otherwise, as before 0.3.0 */
        if (in->batch_known)
                emit_event(r, &(struct record_event) {
                        .type = RECORD_REST, .now = in->now,
                        .sample = { .batch_known = true, .rest_valid = in->rest_valid,
                                    .rest_pressure = in->rest_valid ? in->rest_pressure : 0 } });
        emit_event(r, &(struct record_event) { .type = RECORD_SAMPLE, .now = in->now, .sample = *in });
}

void record_decision(struct recorder *r, uint64_t now, const struct policy_decision *d, knob_value knob) {
        emit_event(r, &(struct record_event) { .type = RECORD_DECISION, .now = now, .set = d->set, .knob = knob,
                                               .mode = d->mode, .reason = d->reason, .batch_cap = d->batch_cap,
                                               .held = d->held });
}

void record_outside(struct recorder *r, uint64_t now, knob_value actual, bool baseline_follows) {
        emit_event(r, &(struct record_event) { .type = RECORD_OUTSIDE, .now = now, .actual = actual,
                                               .baseline_follows = baseline_follows });
}

void record_failed(struct recorder *r, uint64_t now, knob_value actual) {
        emit_event(r, &(struct record_event) { .type = RECORD_FAILED, .now = now, .actual = actual });
}

void record_resume(struct recorder *r, uint64_t now) {
        emit_event(r, &(struct record_event) { .type = RECORD_RESUME, .now = now });
}

/* ---- the line format ------------------------------------------------------ */

int record_format_event(const struct record_event *ev, char *buf, size_t size) {
        unsigned long long now = ev->now;
        const struct policy_sample *in = &ev->sample;

        switch (ev->type) {
        case RECORD_INIT:
                return snprintf(buf, size, "I,%llu,%d,%d\n", now, (int) ev->current, (int) ev->original);
        case RECORD_SAMPLE:
                return snprintf(buf, size, "S,%llu,%d,%.17g,%d,%d,%.17g,%llu,%u,%.17g\n", now, in->pressure_valid,
                                in->pressure, in->stores, (int) in->pool_state, in->pool,
                                (unsigned long long) in->limit_bytes, in->n_batch, in->batch);
        case RECORD_DECISION:
                return snprintf(buf, size, "D,%llu,%d,%d,%d,%d,%.17g,%d\n", now, (int) ev->set, (int) ev->knob,
                                (int) ev->mode, (int) ev->reason, ev->batch_cap, (int) ev->held);
        case RECORD_OUTSIDE:
                return snprintf(buf, size, "O,%llu,%d,%d\n", now, (int) ev->actual, ev->baseline_follows);
        case RECORD_FAILED:
                return snprintf(buf, size, "F,%llu,%d\n", now, (int) ev->actual);
        case RECORD_RESUME:
                return snprintf(buf, size, "R,%llu\n", now);
        case RECORD_CGROUPS:
                return snprintf(buf, size, "P,%llu,%.17g\n", now, in->cgroups_pressure);
        case RECORD_REST:
                return snprintf(buf, size, "A,%llu,%d,%.17g\n", now, in->rest_valid, in->rest_pressure);
        case RECORD_OLD_HOLDER_CG:
        case RECORD_OLD_HOLDER:
                break; /* never written since 0.3.0 */
        }
        return -EINVAL;
}

#define RECORD_MAX_FIELDS 10

/* -?[0-9]+ from lo to hi */
static bool num_int(const char *s, long lo, long hi, long *v) {
        const char *p = s + (*s == '-');
        char *end;

        if (!*p || p[strspn(p, "0123456789")] != '\0')
                return false;
        errno = 0;
        *v = strtol(s, &end, 10);
        return errno == 0 && *end == '\0' && *v >= lo && *v <= hi;
}

/* -?D+(.D+)?([eE][+-]?D+)?, finite: what "%.17g" writes, and nothing else
 * strtod() would take ("nan", "inf", "0x1p3", " 1", "+1", ".5", "5.") */
static bool num_double(const char *s, double *v) {
        const char *p = s + (*s == '-');
        size_t n = strspn(p, "0123456789");
        char *end;

        if (n == 0)
                return false;
        p += n;
        if (*p == '.') {
                n = strspn(++p, "0123456789");
                if (n == 0)
                        return false;
                p += n;
        }
        if (*p == 'e' || *p == 'E') {
                p++;
                p += *p == '+' || *p == '-';
                n = strspn(p, "0123456789");
                if (n == 0)
                        return false;
                p += n;
        }
        if (*p)
                return false;
        *v = strtod(s, &end);
        return *end == '\0' && isfinite(*v); /* an underflow to a subnormal or 0 is fine */
}

struct line_parser {
        char *f[RECORD_MAX_FIELDS];
        unsigned n;
        char *why;
        size_t why_size;
};

static bool get_int(struct line_parser *p, unsigned i, const char *name, long lo, long hi, long *v) {
        if (num_int(p->f[i], lo, hi, v))
                return true;
        snprintf(p->why, p->why_size, "field %u (%s): \"%.40s\" is not a decimal integer from %ld to %ld", i + 1,
                 name, p->f[i], lo, hi);
        return false;
}

static bool get_double(struct line_parser *p, unsigned i, const char *name, double *v) {
        if (num_double(p->f[i], v))
                return true;
        snprintf(p->why, p->why_size, "field %u (%s): \"%.40s\" is not a finite decimal number", i + 1, name,
                 p->f[i]);
        return false;
}

static bool get_u64(struct line_parser *p, unsigned i, const char *name, uint64_t *v) {
        if (parse_u64(p->f[i], v) == 0)
                return true;
        snprintf(p->why, p->why_size, "field %u (%s): \"%.40s\" is not a decimal integer from 0 to %llu", i + 1,
                 name, p->f[i], (unsigned long long) UINT64_MAX);
        return false;
}

static unsigned field_count(record_type t) {
        switch (t) {
        case RECORD_INIT:
        case RECORD_OUTSIDE:
                return 4;
        case RECORD_SAMPLE:
                return 10;
        case RECORD_DECISION:
                return 8;
        case RECORD_FAILED:
                return 3;
        case RECORD_RESUME:
                return 2;
        case RECORD_CGROUPS:
                return 3;
        case RECORD_REST:
                return 4;
        case RECORD_OLD_HOLDER_CG:
                return 6;
        case RECORD_OLD_HOLDER:
                return 5;
        }
        return 0;
}

int record_parse_line(const char *line, struct record_event *ev, char *why, size_t why_size) {
        char buf[RECORD_LINE_MAX], dummy[1];
        struct line_parser p = { .why = why_size ? why : dummy, .why_size = why_size ? why_size : sizeof(dummy) };
        size_t len = strlen(line);
        unsigned want, commas = 0;
        long a, b, c, d, e;

        memset(ev, 0, sizeof(*ev)); /* padding too: the fuzzer compares with memcmp() */
        if (len >= sizeof(buf)) {
                snprintf(p.why, p.why_size, "longer than %zu bytes", sizeof(buf) - 1);
                return -EINVAL;
        }
        memcpy(buf, line, len + 1);
        for (char *s = buf; *s; s++)
                commas += *s == ',';
        want = buf[0] && buf[1] == ',' ? field_count((record_type) buf[0]) : 0;
        if (want == 0) {
                int n = (int) strcspn(buf, ",");
                snprintf(p.why, p.why_size, "not a line of a recording: \"%.*s\" is not I, S, D, O, F, R, C, H, P or A",
                         n < 20 ? n : 20, buf);
                return -EINVAL;
        }
        if (commas + 1 != want) {
                snprintf(p.why, p.why_size, "%c line: %u fields, expected %u", buf[0], commas + 1, want);
                return -EINVAL;
        }
        p.f[0] = buf;
        for (char *s = buf; *s; s++)
                if (*s == ',') {
                        *s = '\0';
                        p.f[++p.n] = s + 1;
                }
        p.n++;
        for (unsigned i = 1; i < p.n; i++)
                if (!*p.f[i]) {
                        snprintf(p.why, p.why_size, "%c line: field %u is empty", buf[0], i + 1);
                        return -EINVAL;
                }
        ev->type = (record_type) buf[0];
        if (!get_u64(&p, 1, "time", &ev->now))
                return -EINVAL;
        switch (ev->type) {
        case RECORD_INIT:
                if (!get_int(&p, 2, "current", -1, 1, &a) || !get_int(&p, 3, "original", -1, 1, &b))
                        return -EINVAL;
                ev->current = (knob_value) a;
                ev->original = (knob_value) b;
                return 0;
        case RECORD_SAMPLE: {
                struct policy_sample *in = &ev->sample;
                uint64_t nb;
                in->now = ev->now;
                if (!get_int(&p, 2, "pressure_valid", 0, 1, &a) || !get_double(&p, 3, "pressure", &in->pressure) ||
                    !get_int(&p, 4, "stores", 0, 1, &b) || !get_int(&p, 5, "pool_state", 0, POOL_DISABLED, &c) ||
                    !get_double(&p, 6, "pool", &in->pool) || !get_u64(&p, 7, "limit_bytes", &in->limit_bytes) ||
                    !get_int(&p, 8, "n_batch", 0, BATCH_MAX_CGROUPS, &d) || !get_double(&p, 9, "batch", &in->batch))
                        return -EINVAL;
                nb = (uint64_t) d;
                in->pressure_valid = a;
                in->stores = b;
                in->pool_state = (policy_pool_state) c;
                in->n_batch = (unsigned) nb;
                /* not recorded, and no recorded decision depends on them:
                 * armed triggers (only when to sample next) and the page
                 * size (only the cap in bytes) */
                in->triggers_armed = true;
                in->page_size = 0;
                return 0;
        }
        case RECORD_DECISION:
                if (!get_int(&p, 2, "set", -1, 1, &a) || !get_int(&p, 3, "knob", -1, 1, &b) ||
                    !get_int(&p, 4, "mode", 0, MODE_PROTECT, &c) ||
                    !get_int(&p, 5, "reason", 0, POLICY_REASONS - 1, &d) ||
                    !get_double(&p, 6, "batch_cap", &ev->batch_cap) || !get_int(&p, 7, "held", 0, HELD_CAP, &e))
                        return -EINVAL;
                ev->set = (knob_value) a;
                ev->knob = (knob_value) b;
                ev->mode = (policy_mode) c;
                ev->reason = (policy_reason) d;
                ev->held = (policy_held) e;
                return 0;
        case RECORD_OUTSIDE:
                if (!get_int(&p, 2, "actual", 0, 1, &a) || !get_int(&p, 3, "baseline_follows", 0, 1, &b))
                        return -EINVAL;
                ev->actual = (knob_value) a;
                ev->baseline_follows = b;
                return 0;
        case RECORD_FAILED:
                if (!get_int(&p, 2, "actual", -1, 1, &a))
                        return -EINVAL;
                ev->actual = (knob_value) a;
                return 0;
        case RECORD_RESUME:
                return 0;
        case RECORD_CGROUPS:
                if (!get_double(&p, 2, "pressure", &ev->sample.cgroups_pressure))
                        return -EINVAL;
                ev->sample.cgroups_valid = true;
                return 0;
        case RECORD_REST:
                if (!get_int(&p, 2, "rest_valid", 0, 1, &a) ||
                    !get_double(&p, 3, "pressure", &ev->sample.rest_pressure))
                        return -EINVAL;
                ev->sample.batch_known = true;
                ev->sample.rest_valid = a;
                return 0;
        case RECORD_OLD_HOLDER_CG: { /* checked as before 0.3.0; what it says is no longer used */
                double share, stall;
                if (!get_double(&p, 2, "share", &share) || !get_double(&p, 3, "stall", &stall) ||
                    !get_int(&p, 4, "excluded", 0, 1, &a) || !get_int(&p, 5, "picked", 0, 1, &b))
                        return -EINVAL;
                return 0;
        }
        case RECORD_OLD_HOLDER: {
                double pool;
                if (!get_double(&p, 2, "pool", &pool) || !get_int(&p, 3, "action", 0, 3, &a) ||
                    !get_int(&p, 4, "pick", 0, 31, &b))
                        return -EINVAL;
                return 0;
        }
        }
        return -EINVAL;
}
