/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the kernel offers, said once at startup. */

#include "kernel.h"

/* PSI and zswap: 0, or the exit code when one is missing (said why). */
int probe_required(const struct kernel *k);
/* One line each: zswap (enabled, compressor, limit), debugfs, cgroup v1.
 * Returns the WARN_* (snapshot.h) found. */
unsigned probe_report(const struct kernel *k);
