/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>
#include <stddef.h>

#include "kernel.h"

#define PSI_SYSTEM_MEMORY "/proc/pressure/memory"

/* Which line of a PSI file: "some" or "full" stall time. */
enum psi_type { PSI_SOME, PSI_FULL };
#define PSI_WINDOW_STEP_US (2 * UINT64_C(1000000))

/* The cumulative "total=" stall time (usec) of the "some" or "full" line;
 * -EBADMSG when there is no such line or it is malformed. */
int parse_psi(const char *buf, int type, uint64_t *total);
/* The "avg300=" share (percent, 0-100) of the same line; -EBADMSG as above. */
int parse_psi_avg300(const char *buf, int type, double *avg);
/* ... and the "avg10=" share. */
int parse_psi_avg10(const char *buf, int type, double *avg);
int psi_read_total(const struct kernel *k, const char *path, int type, uint64_t *total);

/* Without CAP_SYS_RESOURCE the kernel takes only windows that are a multiple
 * of 2 s; this is the next one up. */
uint64_t psi_round_window_us(uint64_t window_us);

/* Open path and arm a trigger "<type> <stall_us> <window_us>". Returns the fd
 * to poll for POLLPRI, or -EOPNOTSUPP when path is not a kernel PSI file
 * (a fake tree), or another -errno. *window_used_us is the window the kernel
 * accepted, which may be rounded up (see above). */
int psi_open_trigger(const struct kernel *k, const char *path, int type, uint64_t stall_us,
                     uint64_t window_us, uint64_t *window_used_us);
