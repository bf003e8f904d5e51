#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden policy traces: each tests/golden/*.rec was recorded (--record) by a
# daemon on a real kernel under memory pressure and a filling pool. Replaying
# it through the policy with the configuration it was recorded with must
# reproduce every recorded decision ("zswap-tuned replay --verify" exits 0).
# The configuration is tests/golden/NAME.rec.conf when that file exists, else
# the shipped conf/zswap-tuned.conf. A change to policy.c that changes what
# the daemon decides fails here: either it is a bug, or the traces are
# recorded again (tests/golden/record.sh) and the change is said in the commit.
# No root needed.
set -u
. "$(dirname "$0")/lib.sh"

[ -x "$ZT" ] || { echo "ERROR: $ZT is not built"; exit 99; }
G=$abs_top_srcdir/tests/golden
n=0
for rec in "$G"/*.rec; do
	[ -e "$rec" ] || continue
	n=$((n + 1))
	if [ -e "$rec.conf" ]; then conf=$rec.conf; else conf=$abs_top_srcdir/conf/zswap-tuned.conf; fi
	out=$("$ZT" replay "$rec" --config="$conf" --verify --quiet 2>&1)
	rc=$?
	check "${rec##*/} replayed with ${conf#"$abs_top_srcdir"/} reproduces every decision (exit $rc)" test "$rc" = 0
	[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'
done
check "there is at least one golden trace in tests/golden" test "$n" -gt 0
echo "1..$T_N"
finish
