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

# fake_tree DIR [KNOB]: a fake /proc and /sys in DIR/root for --root: zswap
# enabled, a 20% pool limit, shrinker_enabled=KNOB (Y), no pressure, no swap,
# 1 GB of memory with 1 MB in the pool. Sets P (the zswap parameters) and
# knob() (the knob's value now).
fake_tree() {
	P=$1/root/sys/module/zswap/parameters
	mkdir -p "$P" "$1/root/proc/pressure" "$1/root/proc/self"
	echo Y > "$P/enabled"; echo 20 > "$P/max_pool_percent"; echo "${2:-Y}" > "$P/shrinker_enabled"
	echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" > "$1/root/proc/pressure/memory"
	printf 'MemTotal: 1000000 kB\nZswap: 1000 kB\nZswapped: 3000 kB\n' > "$1/root/proc/meminfo"
	printf 'pswpout 0\nzswpout 0\nzswpwb 0\n' > "$1/root/proc/vmstat"
	printf 'Filename Type Size Used Priority\n' > "$1/root/proc/swaps"
	echo "0::/" > "$1/root/proc/self/cgroup"
}
knob() { cat "$P/shrinker_enabled"; }

# scratch NAME: W, a scratch directory, removed on exit, when the daemon
# started in the background as $PID (if any) is killed too.
scratch() {
	W=$(mktemp -d "/tmp/zswap-tuned-$1.XXXXXX")
	PID=
	trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$W"' EXIT
}

# check_status_schema FILE...: one test case, the "status --json" outputs
# against docs/status-schema.json (skipped without python3-jsonschema, but
# not in CI, which installs it).
check_status_schema() {
	local out rc
	out=$(python3 "$abs_top_srcdir/tests/tools/status-schema.py" "$abs_top_srcdir/docs/status-schema.json" "$@"); rc=$?
	[ -z "$out" ] || sed 's/^/# /' <<<"$out"
	if [ $rc = 77 ] && [ "${CI:-}" != true ]; then
		T_N=$((T_N + 1)); echo "ok $T_N - the --json outputs match docs/status-schema.json # SKIP no python3-jsonschema"
	else
		check "the --json outputs match docs/status-schema.json" test $rc = 0
	fi
}
