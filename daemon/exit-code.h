/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's exit codes (zswap-tuned(8), EXIT STATUS); 0 and 1 are
 * stdlib.h's EXIT_SUCCESS and EXIT_FAILURE. */

#define EXIT_USAGE       2
#define EXIT_UNAVAILABLE 69 /* EX_UNAVAILABLE: the kernel lacks PSI or zswap */
#define EXIT_RUNNING     75 /* EX_TEMPFAIL: another instance holds the lock */
#define EXIT_CONFIG      78 /* EX_CONFIG */
