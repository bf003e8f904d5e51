/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The policy's parameters from a configuration: for the daemon and for
 * "zswap-tuned replay", which so decide alike. */

#include "conf.h"
#include "policy.h"

void params_from_conf(const struct conf *c, struct policy_params *p);
