/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "params.h"
#include "replay.h"
#include "util.h"

struct summary {
        uint64_t first, last, samples;  /* of the current run (since an "I,0") */
        uint64_t span_usec;             /* of the runs before it */
        uint64_t mode_usec[MODE_PROTECT + 1];
        uint64_t at_95_usec, at_limit_usec;
        unsigned flips[POLICY_REASONS];
        unsigned retries;               /* knob writes that are not flips (stats.h) */
        unsigned differences;
        unsigned skipped;
        double cap_min, cap_max;
        bool capped;
};

static void print_summary(const struct summary *s, bool started, bool lenient, FILE *out) {
        unsigned flips = 0;
        double span = (double) (s->span_usec + (started ? s->last - s->first : 0)) / USEC_PER_SEC;

        for (int i = 0; i < POLICY_REASONS; i++)
                flips += s->flips[i];
        fprintf(out, "summary: %" PRIu64 " samples over %.1f s; %u flips", s->samples, span, flips);
        for (int i = 0; i < POLICY_REASONS; i++)
                if (s->flips[i])
                        fprintf(out, ", %u %s", s->flips[i], policy_reason_to_string((policy_reason) i));
        if (s->retries)
                fprintf(out, "; %u other knob writes (retries, the start)", s->retries);
        fputc('\n', out);
        for (int i = 0; i <= MODE_PROTECT; i++)
                fprintf(out, "summary: %s %.1f s (%.0f%%)\n", policy_mode_to_human((policy_mode) i),
                        (double) s->mode_usec[i] / USEC_PER_SEC,
                        span > 0 ? 100.0 * (double) s->mode_usec[i] / USEC_PER_SEC / span : 0);
        fprintf(out, "summary: pool at >= 95%% of its limit %.1f s, at its limit %.1f s\n",
                (double) s->at_95_usec / USEC_PER_SEC, (double) s->at_limit_usec / USEC_PER_SEC);
        if (s->capped)
                fprintf(out, "summary: batch cap from %.1f%% to %.1f%% of the pool limit\n", s->cap_min, s->cap_max);
        if (lenient)
                fprintf(out, "summary: %u refused lines skipped (--lenient)\n", s->skipped);
}

struct replay_state {
        const struct conf *conf;
        struct policy_params p;
        struct policy_state st;
        struct policy_decision d;
        struct policy_sample in;
        bool have_d, have_in, started;
        bool have_time;
        uint64_t time;                  /* of the last line applied */
        bool old_holder_said;           /* C and H lines skipped (said once) */
        bool have_cg;                   /* a P line ... */
        uint64_t cg_time;               /* ... of this time ... */
        double cg_pressure;             /* ... said this */
        bool have_rest;                 /* an A line (batch work known) ... */
        uint64_t rest_time;             /* ... of this time ... */
        struct policy_sample rest;      /* ... said this (batch_known, rest_valid, rest_pressure) */
        struct summary sum;
};

static void apply_event(struct replay_state *r, const struct record_event *ev, const struct replay_options *o,
                        FILE *out, const char *path, unsigned line) {
        uint64_t now = ev->now;

        switch (ev->type) {
        case RECORD_INIT: {
                struct policy_decision d;

                if (now == 0 && r->started) {
                        /* a daemon (re)started, appending: a new run */
                        r->sum.span_usec += r->sum.last - r->sum.first;
                        r->started = false;
                }
                /* the daemon's own start (steer_start()), so that replay
                 * matches it by construction */
                policy_start(&r->p, &r->st, ev->current, ev->original, &d);
                if (d.set != KNOB_UNSET) {
                        r->sum.retries++;
                        if (!o->quiet)
                                fprintf(out, "%10.3f s  set %s: baseline at start (%s)\n",
                                        r->started ? (double) (now - r->sum.first) / USEC_PER_SEC : 0.0,
                                        knob_to_string(d.set), d.text);
                }
                r->have_d = false;
                return;
        }
        case RECORD_SAMPLE: {
                struct policy_sample sample = ev->sample, *in = &sample;

                /* the cgroups' pressure, from the P line of the same time */
                in->cgroups_valid = r->have_cg && r->cg_time == now;
                in->cgroups_pressure = in->cgroups_valid ? r->cg_pressure : 0;
                r->have_cg = false;
                /* whose pressure the rules read, from the A line of the same
                 * time; none (older recordings): the S line's, as recorded */
                in->batch_known = r->have_rest && r->rest_time == now;
                in->rest_valid = in->batch_known && r->rest.rest_valid;
                in->rest_pressure = in->batch_known ? r->rest.rest_pressure : 0;
                r->have_rest = false;

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
                policy_decide(&r->p, &r->st, in, &r->d);
                r->in = *in;
                r->have_d = r->have_in = true;
                if (r->d.flip)
                        r->sum.flips[r->d.reason]++;
                else if (r->d.set != KNOB_UNSET)
                        r->sum.retries++;
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
                                policy_reason_to_string(r->d.reason), in->pool, r->d.pressure);
                return;
        }
        case RECORD_DECISION:
                if (o->verify && (!r->have_d || ev->set != r->d.set || ev->knob != r->st.knob ||
                                  ev->mode != r->d.mode || ev->reason != r->d.reason ||
                                  ev->batch_cap != r->d.batch_cap || ev->held != r->d.held)) {
                        if (r->sum.differences++ < 10)
                                fprintf(out, "%s:%u: recorded set=%d knob=%d mode=%s reason=%s cap=%g held=%d; "
                                             "replayed set=%d knob=%d mode=%s reason=%s cap=%g held=%d\n",
                                        path, line, (int) ev->set, (int) ev->knob, policy_mode_to_string(ev->mode),
                                        policy_reason_to_string(ev->reason), ev->batch_cap, (int) ev->held,
                                        (int) r->d.set, (int) r->st.knob, policy_mode_to_string(r->d.mode),
                                        policy_reason_to_string(r->d.reason), r->d.batch_cap, (int) r->d.held);
                }
                return;
        case RECORD_OUTSIDE:
                policy_knob_changed_outside(&r->p, &r->st, ev->actual, r->p.baseline == POLICY_BASELINE_STARTUP, now);
                return;
        case RECORD_FAILED:
                policy_sync_knob(&r->st, ev->actual);
                return;
        case RECORD_RESUME:
                policy_resume(&r->st);
                return;
        case RECORD_OLD_HOLDER_CG:
        case RECORD_OLD_HOLDER:
                /* a daemon before 0.3.0 with [Batch] LargestHolder=yes: its caps
                 * are in the S lines' batch figures; its own decisions are gone */
                if (!r->old_holder_said)
                        fprintf(o->err ? o->err : stderr,
                                "zswap-tuned: %s:%u: note: skipping the C and H lines ([Batch] LargestHolder=, "
                                "removed in 0.3.0); the rest replays as recorded (said once)\n", path, line);
                r->old_holder_said = true;
                return;
        case RECORD_REST:
                r->have_rest = true;
                r->rest_time = now;
                r->rest = ev->sample;
                return;
        case RECORD_CGROUPS:
                r->have_cg = true;
                r->cg_time = now;
                r->cg_pressure = ev->sample.cgroups_pressure;
                return;
        }
}

/* Is the line a refused one? Then why. Checks what one line alone cannot:
 * the time going back. */
static int check_line(struct replay_state *r, const char *line, size_t len, bool last, struct record_event *ev,
                      char *why, size_t size) {
        if (strlen(line) != len) {
                snprintf(why, size, "a NUL byte");
                return -EINVAL;
        }
        if (last) {
                snprintf(why, size, "the last line has no newline (cut off?)");
                return -EINVAL;
        }
        if (record_parse_line(line, ev, why, size) < 0)
                return -EINVAL;
        if (r->have_time && ev->now < r->time && !(ev->type == RECORD_INIT && ev->now == 0)) {
                snprintf(why, size, "time goes back, from %" PRIu64 " to %" PRIu64, r->time, ev->now);
                return -EINVAL;
        }
        return 0;
}

int replay_stream(FILE *in, const char *path, const struct conf *c, const struct replay_options *o, FILE *out) {
        struct replay_state r = { .conf = c };
        FILE *err = o->err ? o->err : stderr;
        struct record_event ev;
        char *line = NULL, why[256];
        size_t size = 0;
        unsigned lineno = 0;
        ssize_t len;
        int ret = 0;

        params_from_conf(c, &r.p);
        policy_init(&r.st, KNOB_UNSET, KNOB_UNSET);
        while ((len = getline(&line, &size, in)) >= 0) {
                bool no_newline = !(len > 0 && line[len - 1] == '\n');

                lineno++;
                if (!no_newline)
                        line[--len] = '\0';
                if ((line[0] == '#' || line[0] == '\0') && strlen(line) == (size_t) len && !no_newline)
                        continue;
                if (check_line(&r, line, (size_t) len, no_newline, &ev, why, sizeof(why)) < 0) {
                        fprintf(err, "zswap-tuned: %s:%u: %s\n", path, lineno, why);
                        if (o->lenient) {
                                r.sum.skipped++;
                                continue;
                        }
                        ret = 2;
                        break;
                }
                r.time = ev.now;
                r.have_time = true;
                apply_event(&r, &ev, o, out, path, lineno);
        }
        if (ret == 0 && ferror(in)) {
                fprintf(err, "zswap-tuned: %s: %s\n", path, err_str(-errno));
                ret = 2;
        }
        free(line);
        if (ret)
                return ret;
        print_summary(&r.sum, r.started, o->lenient, out);
        if (o->verify) {
                fprintf(out, "verify: %u of the recorded decisions differ\n", r.sum.differences);
                return r.sum.differences ? 1 : 0;
        }
        return 0;
}

int replay(const char *path, const struct conf *c, const struct replay_options *o, FILE *out) {
        FILE *in = fopen(path, "re");
        int r;

        if (!in) {
                fprintf(o->err ? o->err : stderr, "zswap-tuned: %s: %s\n", path, err_str(-errno));
                return 2;
        }
        r = replay_stream(in, path, c, o, out);
        fclose(in);
        return r;
}
