/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Where the policy's knob decisions meet the knob: which knob to steer, the
 * baseline at start, carrying out a decision (or saying what it would do in
 * a dry run), and someone else's write of the knob. knob.c owns the file
 * itself; policy.c decides. */

#include "manager.h"

/* Find the knob the configuration asks for (Knob=). 0 or -errno. */
int steer_probe(struct manager *m);
/* Start idle, at the baseline (at startup, and on a reload that changes it). */
void steer_reset(struct manager *m);
/* Carry out d->set; before is the knob the policy believed in. */
void steer_act(struct manager *m, knob_value before, const struct policy_decision *d);
/* Before each decision: did someone else write the knob? */
void steer_outside(struct manager *m, uint64_t now);
