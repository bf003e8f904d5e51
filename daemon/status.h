/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "zswap-tuned status [--json]": what a running daemon published in its
 * state directory, with the pool's figures read live; without one, what the
 * kernel offers, what the daemon would do with the configuration
 * (config_path) and the advice. */

#include <stdbool.h>

#include "kernel.h"

/* Exit status as systemctl status: 0 running, 3 not running, 4 no
 * permission to read its status. config_given: -c named config_path, which
 * must then be there (as for the daemon); else a missing file means the
 * built-in defaults. */
int status_show(const struct kernel *k, const char *state_dir, const char *config_path, bool config_given,
                bool json);
