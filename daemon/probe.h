/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the kernel offers, said once at startup. */

#include <stdbool.h>

#include "kernel.h"

/* PSI and zswap: 0, or the exit code when one is missing (said why). */
int probe_required(const struct kernel *k);
/* One line each: zswap (enabled, compressor, limit), debugfs, cgroup v1.
 * Returns the WARN_* (snapshot.h) found. */
unsigned probe_report(const struct kernel *k);
/* memory.zswap.writeback (Linux 6.8+, cgroup v2): 1 if the kernel has it,
 * else 0. Said once: that it is there, or, when wanted ([Pressure]
 * ProtectWriteback=yes), that nothing will be written. */
int probe_writeback(const struct kernel *k, bool wanted);
