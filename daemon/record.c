/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "params.h"
#include "record.h"
#include "util.h"

#define HEADER "# zswap-tuned recording 1"

int record_open(struct recorder *r, const char *path) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -ENOTREGULAR;
        }
        r->f = fdopen(fd, "a");
        if (!r->f) {
                close(fd);
                return -errno;
        }
        setvbuf(r->f, NULL, _IOLBF, 0); /* a line at a time: a crash loses nothing */
        if (st.st_size == 0)
                fputs(HEADER "\n", r->f);
        return 0;
}

void record_close(struct recorder *r) {
        if (r->f)
                fclose(r->f);
        r->f = NULL;
}

void record_init(struct recorder *r, uint64_t now, knob_value current, knob_value original) {
        if (r->f)
                fprintf(r->f, "I,%" PRIu64 ",%d,%d\n", now, (int) current, (int) original);
}

void record_sample(struct recorder *r, const struct policy_sample *in) {
        if (r->f)
                fprintf(r->f, "S,%" PRIu64 ",%d,%.17g,%d,%d,%.17g,%" PRIu64 ",%u,%.17g\n", in->now, in->pressure_valid,
                        in->pressure, in->stores, (int) in->pool_state, in->pool, in->limit_bytes, in->n_batch,
                        in->batch);
}

void record_decision(struct recorder *r, uint64_t now, const struct policy_decision *d, knob_value knob) {
        if (r->f)
                fprintf(r->f, "D,%" PRIu64 ",%d,%d,%d,%d,%.17g,%d\n", now, (int) d->set, (int) knob, (int) d->mode,
                        (int) d->reason, d->batch_cap, (int) d->held);
}

void record_outside(struct recorder *r, uint64_t now, knob_value actual, bool baseline_follows) {
        if (r->f)
                fprintf(r->f, "O,%" PRIu64 ",%d,%d\n", now, (int) actual, baseline_follows);
}

void record_failed(struct recorder *r, uint64_t now, knob_value actual) {
        if (r->f)
                fprintf(r->f, "F,%" PRIu64 ",%d\n", now, (int) actual);
}

void record_resume(struct recorder *r, uint64_t now) {
        if (r->f)
                fprintf(r->f, "R,%" PRIu64 "\n", now);
}

/* ---- replay --------------------------------------------------------------- */

/* Split a line at commas into at most max fields; the count. */
static unsigned fields(char *l, char **f, unsigned max) {
        unsigned n = 0;

        for (char *save = NULL, *t = strtok_r(l, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
                f[n++] = t;
        return n;
}

static bool num_u64(const char *s, uint64_t *v) {
        return parse_u64(s, v) == 0;
}

static bool num_int(const char *s, int lo, int hi, int *v) {
        char *end;
        long x;

        errno = 0;
        x = strtol(s, &end, 10);
        if (errno || end == s || *end || x < lo || x > hi)
                return false;
        *v = (int) x;
        return true;
}

static bool num_double(const char *s, double *v) {
        char *end;

        errno = 0;
        *v = strtod(s, &end);
        return !errno && end != s && !*end;
}

struct summary {
        uint64_t first, last, samples;
        uint64_t mode_usec[MODE_PROTECT + 1];
        uint64_t at_95_usec, at_limit_usec;
        unsigned flips[POLICY_REASONS];
        unsigned differences;
        double cap_min, cap_max;
        bool capped;
};

static void print_summary(const struct summary *s, FILE *out) {
        unsigned flips = 0;
        double span = (double) (s->last - s->first) / USEC_PER_SEC;

        for (int i = 0; i < POLICY_REASONS; i++)
                flips += s->flips[i];
        fprintf(out, "summary: %" PRIu64 " samples over %.1f s; %u flips", s->samples, span, flips);
        for (int i = 0; i < POLICY_REASONS; i++)
                if (s->flips[i])
                        fprintf(out, ", %u %s", s->flips[i], policy_reason_to_string((policy_reason) i));
        fputc('\n', out);
        for (int i = 0; i <= MODE_PROTECT; i++)
                fprintf(out, "summary: %s %.1f s (%.0f%%)\n", policy_mode_to_human((policy_mode) i),
                        (double) s->mode_usec[i] / USEC_PER_SEC,
                        span > 0 ? 100.0 * (double) s->mode_usec[i] / USEC_PER_SEC / span : 0);
        fprintf(out, "summary: pool at >= 95%% of its limit %.1f s, at its limit %.1f s\n",
                (double) s->at_95_usec / USEC_PER_SEC, (double) s->at_limit_usec / USEC_PER_SEC);
        if (s->capped)
                fprintf(out, "summary: batch cap from %.1f%% to %.1f%% of the pool limit\n", s->cap_min, s->cap_max);
}

struct replay_state {
        const struct conf *conf;
        struct policy_params p;
        struct policy_state st;
        struct policy_decision d;
        struct policy_sample in;
        bool have_d, have_in, started;
        struct summary sum;
};

static bool apply_line(struct replay_state *r, char **f, unsigned n, const struct replay_options *o, FILE *out,
                       const char *path, unsigned line) {
        uint64_t now;
        int a, b;

        if (!num_u64(f[1], &now))
                return false;
        switch (f[0][0]) {
        case 'I': {
                knob_value base;
                if (n != 4 || !num_int(f[2], -1, 1, &a) || !num_int(f[3], -1, 1, &b))
                        return false;
                base = r->conf->baseline == BASELINE_ON ? KNOB_ON : r->conf->baseline == BASELINE_OFF ? KNOB_OFF : b;
                if (a == KNOB_UNSET)
                        base = KNOB_UNSET;
                policy_init(&r->st, a, base);
                if (a != base) {
                        r->st.knob = base;
                        r->sum.flips[REASON_NONE]++;
                        if (!o->quiet)
                                fprintf(out, "%10.3f s  set %s: baseline at start\n",
                                        r->started ? (double) (now - r->sum.first) / USEC_PER_SEC : 0.0,
                                        knob_to_string(base));
                }
                r->have_d = false;
                return true;
        }
        case 'S': {
                int pv, stores, ps;
                unsigned nb;
                uint64_t nb64;
                struct policy_sample in = { .now = now };
                if (n != 10 || !num_int(f[2], 0, 1, &pv) || !num_double(f[3], &in.pressure) ||
                    !num_int(f[4], 0, 1, &stores) || !num_int(f[5], 0, POOL_DISABLED, &ps) ||
                    !num_double(f[6], &in.pool) || !num_u64(f[7], &in.limit_bytes) || !num_u64(f[8], &nb64) ||
                    nb64 > CONF_MAX_CGROUPS || !num_double(f[9], &in.batch))
                        return false;
                nb = (unsigned) nb64;
                in.pressure_valid = pv;
                in.stores = stores;
                in.pool_state = (policy_pool_state) ps;
                in.n_batch = nb;
                if (!r->started) {
                        r->sum.first = now;
                        r->started = true;
                } else if (now > r->sum.last) {
                        uint64_t dt = now - r->sum.last;
                        r->sum.mode_usec[r->d.mode] += r->have_d ? dt : 0;
                        if (r->in.pool >= 95)
                                r->sum.at_95_usec += dt;
                        if (r->in.pool >= 100)
                                r->sum.at_limit_usec += dt;
                }
                r->sum.last = now;
                r->sum.samples++;
                policy_decide(&r->p, &r->st, &in, &r->d);
                r->in = in;
                r->have_d = r->have_in = true;
                if (r->d.set != KNOB_UNSET)
                        r->sum.flips[r->d.reason]++;
                if (r->d.batch_cap >= 0) {
                        r->sum.cap_min = r->sum.capped && r->sum.cap_min < r->d.batch_cap ? r->sum.cap_min : r->d.batch_cap;
                        r->sum.cap_max = r->sum.capped && r->sum.cap_max > r->d.batch_cap ? r->sum.cap_max : r->d.batch_cap;
                        r->sum.capped = true;
                }
                if (!o->quiet && (r->d.set != KNOB_UNSET || r->d.mode_changed))
                        fprintf(out, "%10.3f s  %s%s%s: %s (%s), pool %.0f%%, pressure %.1f%%\n",
                                (double) (now - r->sum.first) / USEC_PER_SEC, policy_mode_to_human(r->d.mode),
                                r->d.set != KNOB_UNSET ? ", knob " : "",
                                r->d.set != KNOB_UNSET ? knob_to_string(r->d.set) : "", r->d.text,
                                policy_reason_to_string(r->d.reason), in.pool, in.pressure);
                return true;
        }
        case 'D': {
                int set, knob, mode, reason, held;
                double cap;
                if (n != 8 || !num_int(f[2], -1, 1, &set) || !num_int(f[3], -1, 1, &knob) ||
                    !num_int(f[4], 0, MODE_PROTECT, &mode) || !num_int(f[5], 0, POLICY_REASONS - 1, &reason) ||
                    !num_double(f[6], &cap) || !num_int(f[7], 0, HELD_CAP, &held))
                        return false;
                if (o->verify && (!r->have_d || set != (int) r->d.set || knob != (int) r->st.knob ||
                                  mode != (int) r->d.mode || reason != (int) r->d.reason || cap != r->d.batch_cap ||
                                  held != (int) r->d.held)) {
                        if (r->sum.differences++ < 10)
                                fprintf(out, "%s:%u: recorded set=%d knob=%d mode=%s reason=%s cap=%g held=%d; "
                                             "replayed set=%d knob=%d mode=%s reason=%s cap=%g held=%d\n",
                                        path, line, set, knob, policy_mode_to_string((policy_mode) mode),
                                        policy_reason_to_string((policy_reason) reason), cap, held, (int) r->d.set,
                                        (int) r->st.knob, policy_mode_to_string(r->d.mode),
                                        policy_reason_to_string(r->d.reason), r->d.batch_cap, (int) r->d.held);
                }
                return true;
        }
        case 'O':
                if (n != 4 || !num_int(f[2], 0, 1, &a) || !num_int(f[3], 0, 1, &b))
                        return false;
                policy_knob_changed_outside(&r->p, &r->st, (knob_value) a,
                                            r->conf->baseline == BASELINE_STARTUP, now);
                return true;
        case 'F':
                if (n != 3 || !num_int(f[2], -1, 1, &a))
                        return false;
                policy_sync_knob(&r->st, (knob_value) a);
                return true;
        case 'R':
                if (n != 2)
                        return false;
                policy_resume(&r->st);
                return true;
        }
        return false;
}

int replay(const char *path, const struct conf *c, const struct replay_options *o, FILE *out) {
        struct replay_state r = { .conf = c };
        char *line = NULL, *f[12];
        size_t size = 0;
        unsigned lineno = 0;
        ssize_t len;
        FILE *in;
        int ret = 0;

        in = fopen(path, "re");
        if (!in) {
                fprintf(stderr, "zswap-tuned: %s: %s\n", path, err_str(-errno));
                return 2;
        }
        params_from_conf(c, &r.p);
        policy_init(&r.st, KNOB_UNSET, KNOB_UNSET);
        while ((len = getline(&line, &size, in)) >= 0) {
                lineno++;
                if (len > 0 && line[len - 1] == '\n')
                        line[--len] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                unsigned n = fields(line, f, ELEMENTSOF(f));
                if (n < 2 || strlen(f[0]) != 1 || !apply_line(&r, f, n, o, out, path, lineno)) {
                        fprintf(stderr, "zswap-tuned: %s:%u: not a line of a recording\n", path, lineno);
                        ret = 2;
                        break;
                }
        }
        free(line);
        fclose(in);
        if (ret)
                return ret;
        print_summary(&r.sum, out);
        if (o->verify) {
                fprintf(out, "verify: %u of the recorded decisions differ\n", r.sum.differences);
                return r.sum.differences ? 1 : 0;
        }
        return 0;
}
