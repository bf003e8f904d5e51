# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the shell tests: TAP-style reporting and waiting for a
# log line (an event, with a deadline) instead of sleeping.

: "${abs_top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
ZT="$abs_top_builddir/zswap-tuned"
. "$abs_top_srcdir/tests/host.sh"
T_N=0
T_FAILED=0

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
# check NAME COMMAND...: one test case
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
finish() {
	echo "$((T_N - T_FAILED)) passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}

# wait_for_line FILE REGEX [SECONDS]: until a line matching REGEX is in FILE.
wait_for_line() {
	timeout "${3:-10}" grep -m1 -qE "$2" <(tail -n +1 -F "$1" 2>/dev/null)
}

