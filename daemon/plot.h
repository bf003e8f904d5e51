/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "zswap-tuned plot FILE -o OUT.png": a recording (--record) drawn with
 * gnuplot, an optional dependency: pool and batch use in percent of the
 * limit, pressure, the knob and the batch cap over time. 0 or 1 (said why). */
int plot(const char *recording, const char *output);
