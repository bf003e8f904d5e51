#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zswap-tuned against the running kernel: real zswap, real PSI, the real
# shrinker_enabled knob. A memory hog in a 256 MiB memory cgroup fills a
# small zswap pool (max_pool_percent=1); the daemon must turn the shrinker
# on before the pool reaches its limit, return the knob to baseline when the
# hog is gone, restore it on SIGTERM, and leave a save file that
# `zswap-tuned --restore` uses after SIGKILL.
#
# Needs root, zswap, PSI and a memory cgroup controller (v1 at
# /sys/fs/cgroup/memory plus a cgroup2 mount for per-cgroup PSI, or cgroup2
# with the memory controller). Skips (77) otherwise, but with CI=true every
# skip is a failure. Everything it changes is undone in an EXIT trap.
# Exit: 0 pass, 1 fail, 77 skip, 99 hard error (binaries not built).
# env: abs_top_builddir, abs_top_srcdir (default: this script's ../..),
# CI, ZT_HOG_MIB/ZT_HOG_RATE/ZT_HOG_RATIO (1024, 100, 3), ZT_KEEP_TMP=1
# (keep the daemon logs and pool samples).

set -euo pipefail

NAME=zswap-tuned-test
ZP=/sys/module/zswap/parameters
KNOB=$ZP/shrinker_enabled
LOCK=/run/zswap-tuned-test.lock
SWAPFILE=/var/tmp/$NAME.swap
DEBUGFS=/sys/kernel/debug

# The hog: big enough to push the pool (MemTotal * 1%) to its limit from a
# 256 MiB group, paced so that the pool takes several seconds to fill.
HOG_MIB=${ZT_HOG_MIB:-1024}
HOG_RATE=${ZT_HOG_RATE:-100}
HOG_RATIO=${ZT_HOG_RATIO:-3}
HOG_HOLD=120 # upper bound only: the test stops every hog itself

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
DAEMON=$abs_top_builddir/zswap-tuned
HOG=$abs_top_builddir/tests/tools/zt-hog
. "$abs_top_srcdir/tests/host.sh"

T0=$EPOCHREALTIME


# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" = 0 ] || skip "needs root (writes /sys/module/zswap/parameters, swapon, cgroups)"
[ -d /sys/module/zswap ] || skip "kernel has no zswap (/sys/module/zswap missing)"
[ -e "$KNOB" ] || skip "kernel has no zswap shrinker_enabled knob (mainline 6.8+)"
[ -e /proc/pressure/memory ] || skip "kernel has no PSI (/proc/pressure/memory missing; boot with psi=1)"

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if awk '$2 == "/sys/fs/cgroup/memory" && $3 == "cgroup" { f = 1 } END { exit !f }' /proc/mounts; then
	CGMODE=v1
	[ -n "$CG2" ] || skip "memory controller is on cgroup v1 and there is no cgroup2 mount for per-cgroup PSI"
	MEMCG=/sys/fs/cgroup/memory/$NAME
	PSICG=$CG2/$NAME
elif [ -n "$CG2" ] && grep -qw memory "$CG2/cgroup.controllers"; then
	CGMODE=v2
	grep -qw memory "$CG2/cgroup.subtree_control" ||
		skip "cgroup2 memory controller is not enabled in $CG2/cgroup.subtree_control"
	MEMCG=$CG2/$NAME
	PSICG=$MEMCG
else
	skip "no memory cgroup controller (neither v1 at /sys/fs/cgroup/memory nor on cgroup2)"
fi

for f in "$DAEMON" "$HOG"; do
	if [ ! -x "$f" ]; then
		echo "ERROR: $f is not built"
		exit 99
	fi
done


kernel_lock || exit 1 # /run/zswap-tuned-tests.lock: one kernel job at a time (tests/host.sh)
# One instance at a time, machine-wide (tests/systemd and tests/bench take
# the same lock).
exec {LOCKFD}>"$LOCK"
flock -n "$LOCKFD" || {
	echo "# waiting for $LOCK (another run holds it)"
	flock -w 300 "$LOCKFD" || skip "another run held $LOCK for 300 s"
	echo "# got $LOCK after $(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }') ms"
}

# Under the lock: another daemon writing the real knob would fight ours
# (ones with --root or --dry-run do not write it).
skip_if_knob_driven

avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
[ "$avail_kb" -ge $((4 * 1024 * 1024)) ] ||
	skip "only $((avail_kb / 1024)) MiB available; not adding swap to a host that short of memory"

# ---------------------------------------------------------------- teardown
TMP=
DEBUGFS_MOUNTED=
SWAP_ACTIVE=
SAMPLER_PID=
DAEMON_PID=
READER_PID=
HOG_PID=

# True when pid has exited (gone, or a zombie not yet reaped).

# Signal a child of ours (sig EOF: none, it ends by itself) and reap it;
# SIGKILL after 10 s. Its exit status goes to STOP_RC (not printed: a
# command substitution runs in a subshell, and only the parent can reap).
STOP_RC=

# shellcheck disable=SC2317 # invoked from the EXIT trap
cleanup() {
	local rc=$? f name cur i problems=0
	# A subshell that dies of set -e/-u may run this trap too: not there.
	[ "$BASHPID" = "$$" ] || exit "$rc"
	set +e
	trap - EXIT INT TERM HUP
	[ -n "$SAMPLER_PID" ] && stop_pid "$SAMPLER_PID" TERM
	# The daemon first, so it cannot write the knob after we restore it.
	[ -n "$DAEMON_PID" ] && stop_pid "$DAEMON_PID" TERM
	[ -n "$READER_PID" ] && stop_pid "$READER_PID" EOF
	[ -n "$HOG_PID" ] && stop_pid "$HOG_PID" TERM
	# Anything else still in our groups is a hog of ours.
	for f in "$MEMCG/cgroup.procs" "$PSICG/cgroup.procs"; do
		[ -r "$f" ] && xargs -r kill -KILL <"$f" 2>/dev/null
	done
	if [ -n "$TMP" ] && [ -e "$TMP/state/original-knob" ]; then
		timeout 10 "$DAEMON" --restore --state-dir="$TMP/state" >/dev/null 2>&1
	fi
	# zswap parameters: everything writable back as it was, enabled last.
	zswap_params_restore || problems=1
	if [ -n "$SWAP_ACTIVE" ]; then
		swapoff "$SWAPFILE" || { echo "# cleanup: swapoff $SWAPFILE failed"; problems=1; }
	fi
	[ -n "$TMP" ] && rm -f "$SWAPFILE"
	for f in "$MEMCG" "$PSICG"; do
		[ -d "$f" ] || continue
		for ((i = 0; i < 100; i++)); do
			rmdir "$f" 2>/dev/null && break
			sleep 0.05
		done
		[ -d "$f" ] && { echo "# cleanup: could not remove $f"; problems=1; }
	done
	if [ -n "$DEBUGFS_MOUNTED" ]; then
		umount "$DEBUGFS" 2>/dev/null || umount -l "$DEBUGFS" ||
			echo "# cleanup: umount $DEBUGFS failed (left mounted)"
	fi
	if [ -n "$TMP" ]; then
		if [ -n "${ZT_KEEP_TMP:-}" ]; then
			echo "# kept $TMP"
		else
			rm -rf "$TMP"
		fi
	fi
	if [ "$problems" != 0 ] && [ "$rc" = 0 ]; then
		rc=1
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- setup
zswap_params_save
echo "# zswap parameters before: $(zswap_params_saved)"

TMP=$(mktemp -d /tmp/$NAME.XXXXXX)
STATE=$TMP/state
mkdir "$STATE" # like systemd's RuntimeDirectory=
CONF=$TMP/zswap-tuned.conf
SAMPLES=$TMP/pool.samples

if ! mountpoint -q "$DEBUGFS"; then
	if mount -t debugfs none "$DEBUGFS" 2>/dev/null; then
		DEBUGFS_MOUNTED=1
	else
		echo "# debugfs could not be mounted (lockdown?); carrying on without it"
	fi
fi

# A leftover from a run that died without its trap (we hold the lock).
if swapon --show=NAME --noheadings | grep -qx "$SWAPFILE"; then
	swapoff "$SWAPFILE"
fi
for f in "$MEMCG" "$PSICG"; do
	if [ -d "$f" ]; then
		[ -s "$f/cgroup.procs" ] && xargs -r kill -KILL <"$f/cgroup.procs"
		rmdir "$f" 2>/dev/null || sleep 0.5
		rmdir "$f" 2>/dev/null || { echo "ERROR: leftover $f cannot be removed"; exit 1; }
	fi
done

rm -f "$SWAPFILE"
SWAP_ACTIVE=
fallocate -l 2G "$SWAPFILE"
chmod 600 "$SWAPFILE"
mkswap "$SWAPFILE" >/dev/null
swapon "$SWAPFILE"
SWAP_ACTIVE=1

echo N >"$KNOB"
echo 1 >"$ZP/max_pool_percent"
echo Y >"$ZP/enabled"
[ "$(cat "$ZP/enabled")" = Y ] || { echo "ERROR: could not enable zswap"; exit 1; }

mkdir "$MEMCG"
[ "$PSICG" = "$MEMCG" ] || mkdir "$PSICG"
if [ "$CGMODE" = v1 ]; then
	echo 256M >"$MEMCG/memory.limit_in_bytes"
	echo 60 >"$MEMCG/memory.swappiness" 2>/dev/null || true
	[ "$(cat "$MEMCG/memory.limit_in_bytes")" = $((256 << 20)) ] ||
		{ echo "ERROR: memory limit on $MEMCG did not take"; exit 1; }
else
	echo 256M >"$MEMCG/memory.max"
	[ "$(cat "$MEMCG/memory.max")" = $((256 << 20)) ] ||
		{ echo "ERROR: memory.max on $MEMCG did not take"; exit 1; }
fi

# Pool limit as the kernel computes it: totalram_pages * max_pool_percent / 100.
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
MEMTOTAL_KB=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
POOL_PCT=$(cat "$ZP/max_pool_percent")
# shellcheck disable=SC2017 # whole pages, like the kernel
LIMIT_KB=$((MEMTOTAL_KB / PAGE_KB * POOL_PCT / 100 * PAGE_KB))
echo "# cgroups $CGMODE: memory $MEMCG (256 MiB), PSI $PSICG/memory.pressure"
echo "# swap $SWAPFILE (2 GiB); zswap enabled, max_pool_percent=$POOL_PCT: pool limit $((LIMIT_KB / 1024)) MiB"
echo "# setup done at +$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }') ms"

cat >"$CONF" <<EOF
[Daemon]
LogLevel=debug

[Pressure]
Cgroups=$PSICG
HoldSec=3
TriggerWindowMs=2000

[Pool]
ShrinkerNearLimit=yes
HighPercent=85
LowPercent=70
SampleMs=250
MinSampleMs=50

[Flips]
MinDwellSec=0
EOF

# ---------------------------------------------------------------- helpers
now() { echo "$EPOCHREALTIME"; }
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
knob() { cat "$KNOB"; }
lines() { wc -l <"$1"; }

# Timestamp every line read (the daemon's stderr) with the wall clock.
stamp() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done
}

# Every ~20 ms: "<time> <Zswap kB> <knob> <debugfs pool_limit_hit or ->".
# pool_limit_hit counts stores that found the pool at its limit: it catches
# the moment the pool is full even when the pool drops back (to
# accept_threshold_percent) between two samples.
sampler() {
	local k v z knob hit hitfile=$DEBUGFS/zswap/pool_limit_hit
	while :; do
		z=
		while read -r k v _; do
			if [ "$k" = Zswap: ]; then z=$v; break; fi
		done </proc/meminfo
		read -r knob <"$KNOB"
		hit=-
		[ -r "$hitfile" ] && read -r hit <"$hitfile"
		printf '%s %s %s %s\n' "$EPOCHREALTIME" "$z" "$knob" "$hit"
		sleep 0.02
	done
}

# pool_report START: from the samples since START, "full how knob_at_full
# on_since first_on changes peak_percent" (- where there is none): when the
# pool first reached its limit and by which sign, the knob then, since when
# the knob had been Y at that moment, the first Y, knob changes up to then
# (or up to now), the peak fill.
pool_report() {
	awk -v s="$1" -v l="$LIMIT_KB" '
	$1 < s { next }
	{
		n++
		if (n == 1) hit0 = $4
		if ($2 > peak) peak = $2
		if ($3 == "Y" && first_on == "") first_on = $1
		if (n > 1 && $3 != prev && full == "") changes++
		if ($3 == "Y" && prev != "Y") on_since = $1
		prev = $3
		if (full == "") {
			if ($2 >= l) { full = $1; how = "meminfo" }
			else if ($4 != "-" && hit0 != "-" && $4 + 0 > hit0 + 0) { full = $1; how = "pool_limit_hit" }
			if (full != "") { knob_at_full = $3; on_at_full = ($3 == "Y") ? on_since : "-" }
		}
	}
	END {
		if (full == "") { full = "-"; how = "-"; knob_at_full = "-"; on_at_full = "-" }
		if (first_on == "") first_on = "-"
		printf "%s %s %s %s %s %d %d\n", full, how, knob_at_full, on_at_full, first_on, changes, peak * 100 / l
	}' "$SAMPLES"
}

# start_daemon TAG: start the daemon, stderr time-stamped into $DLOG; wait
# for its PSI probe line.
start_daemon() {
	local fifo=$TMP/daemon.$1.fifo
	DLOG=$TMP/daemon.$1.log
	mkfifo "$fifo"
	: >"$DLOG"
	stamp <"$fifo" >"$DLOG" {LOCKFD}>&- &
	READER_PID=$!
	env -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID \
		"$DAEMON" --config="$CONF" --state-dir="$STATE" \
		</dev/null >"$TMP/daemon.$1.stdout" 2>"$fifo" {LOCKFD}>&- &
	DAEMON_PID=$!
	echo "# daemon $1 started, pid $DAEMON_PID: $DAEMON --config=$CONF --state-dir=$STATE"
	wait_line 0 'zswap-tuned: (warning: )?PSI: ' 20 >/dev/null && return 0
	if gone "$DAEMON_PID"; then
		stop_pid "$DAEMON_PID" TERM
		echo "# the daemon exited with status $STOP_RC before its PSI: line"
		DAEMON_PID=
	fi
	return 1
}

# wait_line FROM REGEX TIMEOUT: wait for a daemon log line matching REGEX
# after line FROM of $DLOG; print it. 1 = timeout, 2 = daemon gone.
wait_line() {
	local from=$1 re=$2 timeout=$3 end hit
	end=$(awk -v t="$EPOCHREALTIME" -v d="$timeout" 'BEGIN { printf "%.6f", t + d }')
	while :; do
		hit=$(tail -n "+$((from + 1))" "$DLOG" | grep -m1 -E -- "$re" || true)
		if [ -n "$hit" ]; then
			echo "$hit"
			return 0
		fi
		if gone "$DAEMON_PID"; then
			sleep 0.2 # let the reader drain the pipe
			hit=$(tail -n "+$((from + 1))" "$DLOG" | grep -m1 -E -- "$re" || true)
			[ -n "$hit" ] && { echo "$hit"; return 0; }
			echo "# daemon (pid $DAEMON_PID) exited while waiting for /$re/" >&2
			return 2
		fi
		if awk -v t="$EPOCHREALTIME" -v e="$end" 'BEGIN { exit !(t > e) }'; then
			echo "# no /$re/ from the daemon within $timeout s" >&2
			return 1
		fi
		sleep 0.05
	done
}

# wait_knob_on FROM TIMEOUT: wait until the daemon has logged 'Shrinker on:'
# after line FROM and the knob reads Y (both: it may have flipped back
# since); print the latest such line.
wait_knob_on() {
	local from=$1 end hit
	end=$(awk -v t="$EPOCHREALTIME" -v d="$2" 'BEGIN { printf "%.6f", t + d }')
	while :; do
		hit=$(tail -n "+$((from + 1))" "$DLOG" | grep -E -- 'Shrinker on:' | tail -n 1 || true)
		if [ -n "$hit" ] && [ "$(knob)" = Y ]; then
			echo "$hit"
			return 0
		fi
		if gone "$DAEMON_PID"; then
			echo "# daemon (pid $DAEMON_PID) exited while waiting for the knob to go Y" >&2
			return 2
		fi
		if awk -v t="$EPOCHREALTIME" -v e="$end" 'BEGIN { exit !(t > e) }'; then
			echo "# no 'Shrinker on:' with the knob at Y within $2 s (knob $(knob))" >&2
			return 1
		fi
		sleep 0.05
	done
}

# signal_when_on SIG FROM TIMEOUT: once the daemon has logged 'Shrinker on:'
# after line FROM, send it SIG at a moment the knob reads Y: the read and
# the kill are builtins back to back, because the daemon may flip again at
# any sample. SIGNALLED_AFTER = the 'Shrinker on:' line, SIGNALLED_AT = when.
SIGNALLED_AFTER='' SIGNALLED_AT=''
signal_when_on() {
	local sig=$1 from=$2 end k
	end=$(awk -v t="$EPOCHREALTIME" -v d="$3" 'BEGIN { printf "%.6f", t + d }')
	while SIGNALLED_AFTER=$(wait_knob_on "$from" \
		"$(awk -v t="$EPOCHREALTIME" -v e="$end" 'BEGIN { d = e - t; printf "%.3f", (d > 0 ? d : 0) }')"); do
		read -r k <"$KNOB"
		if [ "$k" = Y ]; then
			kill "-$sig" "$DAEMON_PID"
			SIGNALLED_AT=$EPOCHREALTIME
			return 0
		fi
		echo "# the knob went back to $k before SIG$sig; waiting for Y again"
	done
	return 1
}

# start_hog TAG: the hog, in the limited memory group and the PSI group
# before it execs; refuses to run anywhere else.
start_hog() {
	HOG_OUT=$TMP/hog.$1.out
	HOG_READY=$TMP/hog.$1.ready
	: >"$HOG_READY"
	(
		echo "$BASHPID" >"$MEMCG/cgroup.procs"
		[ "$PSICG" = "$MEMCG" ] || echo "$BASHPID" >"$PSICG/cgroup.procs"
		grep -qx "$BASHPID" "$MEMCG/cgroup.procs" || exit 111
		grep -qx "$BASHPID" "$PSICG/cgroup.procs" || exit 111
		exec "$HOG" --size "$HOG_MIB" --rate "$HOG_RATE" --ratio "$HOG_RATIO" \
			--hold "$HOG_HOLD" --ready-fd 3 3>"$HOG_READY"
	) </dev/null >"$HOG_OUT" 2>&1 {LOCKFD}>&- &
	HOG_PID=$!
	HOG_START=$(now)
	echo "# hog $1 started, pid $HOG_PID: $HOG_MIB MiB at $HOG_RATE MiB/s, ratio $HOG_RATIO"
}

stop_hog() {
	stop_pid "$HOG_PID" TERM
	HOG_PID=
	echo "# hog stopped (exit $STOP_RC): $(cat "$HOG_OUT")"
}

# Drop the log lines we care about into the test output.
show_flips() {
	grep -E 'Shrinker|Would set|Holding back|warning|error' "$DLOG" | sed 's/^/#   /' || true
}

show_log_tail() {
	echo "# last lines of $DLOG:"
	tail -n 40 "$DLOG" | sed 's/^/#   /'
}

NCASE=0
NFAIL=0
declare -a SUMMARY=()
CASE_T0=$EPOCHREALTIME
result() { # result OK NAME [NOTE]
	local took
	took="$(ms_between "$CASE_T0" "$(now)") ms"
	CASE_T0=$(now)
	NCASE=$((NCASE + 1))
	if [ "$1" = 0 ]; then
		echo "ok $NCASE - $2"
		SUMMARY+=("PASS $NCASE $2 (${3:+$3; }took $took)")
	else
		echo "not ok $NCASE - $2"
		SUMMARY+=("FAIL $NCASE $2 (${3:+$3; }took $took)")
		NFAIL=$((NFAIL + 1))
		show_log_tail
	fi
}

# ---------------------------------------------------------------- the cases
sampler </dev/null >"$SAMPLES" {LOCKFD}>&- &
SAMPLER_PID=$!

# a. Shrinker on before the pool reaches its limit.
CASE_T0=$(now)
bad=0 note='' HOG_START=''
echo N >"$KNOB"
if start_daemon 1; then
	grep -E 'zswap-tuned: (warning: )?(Knob|zswap|Swap|debugfs|Memory controller[^:]*|PSI):' "$DLOG" | sed 's/^/#   /' || true
	from=$(lines "$DLOG")
	start_hog 1
	if on_line=$(wait_line "$from" 'Shrinker on:' 60); then
		on_log=${on_line%% *}
		k=$(knob)
		echo "# $(ms_between "$HOG_START" "$on_log") ms after hog start: ${on_line#* }"
		# The sampler's reads of the knob file are what is asserted below;
		# this read may come after a later flip.
		[ "$k" = Y ] || echo "# knob reads $k just after 'Shrinker on:' (flipped again since?)"
		# Let the pool reach its limit (or the hog finish its fill and run 5 s more).
		ready_at=
		while :; do
			read -r full _ <<<"$(pool_report "$HOG_START")"
			[ "$full" != - ] && break
			if [ -s "$HOG_READY" ] && [ -z "$ready_at" ]; then ready_at=$(now); fi
			[ -n "$ready_at" ] && [ "$(ms_between "$ready_at" "$(now)")" -gt 5000 ] && break
			[ "$(ms_between "$HOG_START" "$(now)")" -gt 60000 ] && break
			gone "$HOG_PID" && break
			sleep 0.1
		done
		read -r full how knob_at_full on_since first_on changes peak <<<"$(pool_report "$HOG_START")"
		echo "# flips logged during hog 1 so far: $(tail -n "+$((from + 1))" "$DLOG" | grep -c 'Shrinker on:') on, $(tail -n "+$((from + 1))" "$DLOG" | grep -c 'Shrinker off:') off"
		if [ "$first_on" = - ]; then
			echo "# the sampler never saw the knob at Y"
			bad=1
		elif [ "$full" != - ]; then
			echo "# pool reached its limit at +$(ms_between "$HOG_START" "$full") ms (seen by $how); knob then: $knob_at_full; knob changes before: $changes; peak $peak%"
			if [ "$knob_at_full" = Y ]; then
				lead=$(ms_between "$on_since" "$full")
				echo "# knob Y since +$(ms_between "$HOG_START" "$on_since") ms (first Y at +$(ms_between "$HOG_START" "$first_on") ms): lead $lead ms (first log line lead $(ms_between "$on_log" "$full") ms)"
				note="lead time $lead ms"
				[ "$lead" -gt 0 ] || { echo "# the knob went Y only as the pool filled"; bad=1; }
			else
				echo "# the knob was $knob_at_full when the pool reached its limit (first Y at +$(ms_between "$HOG_START" "$first_on") ms)"
				note="knob $knob_at_full when the pool filled"
				bad=1
			fi
		else
			echo "# knob first Y at +$(ms_between "$HOG_START" "$first_on") ms; the pool never reached its limit (peak $peak%); knob changes: $changes"
			note="pool never full, peak $peak%"
		fi
	else
		bad=1
	fi
else
	echo "# the daemon did not start"
	bad=1
fi
show_flips
result "$bad" "shrinker on before the pool reaches its limit" "$note"

# b. Hog gone: back to baseline.
bad=0 note=
if [ -n "$HOG_PID" ]; then
	from=$(lines "$DLOG")
	stop_hog
	t_stop=$(now)
	if line=$(wait_line "$from" 'back to baseline' 60); then
		k=$(knob)
		note="$(ms_between "$t_stop" "${line%% *}") ms after the hog stopped"
		echo "# $note: ${line#* }"
		[ "$k" = N ] || { echo "# knob reads $k after 'back to baseline', expected N"; bad=1; }
	else
		echo "# knob reads $(knob)"
		bad=1
	fi
else
	echo "# no hog running (case a failed early)"
	bad=1
fi
show_flips
result "$bad" "knob back to baseline after the hog is gone" "$note"

# c. SIGTERM restores the knob and exits 0.
bad=0 note=
from=$(lines "$DLOG")
if ! gone "$DAEMON_PID"; then
	start_hog 2
	if signal_when_on TERM "$from" 60; then
		echo "# knob Y: ${SIGNALLED_AFTER#* }"
		t_term=$SIGNALLED_AT
		stop_pid "$DAEMON_PID" EOF # signalled already
		rc=$STOP_RC
		t_exit=$(now)
		k=$(knob)
		note="exit $rc after $(ms_between "$t_term" "$t_exit") ms, knob $k"
		echo "# SIGTERM: $note"
		[ "$rc" = 0 ] || { echo "# exit status $rc, expected 0"; bad=1; }
		[ "$k" = N ] || { echo "# knob reads $k, expected the pre-start N"; bad=1; }
		if [ -e "$STATE/original-knob" ]; then
			echo "# $STATE/original-knob still exists after a clean restore"
			bad=1
		fi
	else
		echo "# could not get the knob to Y (reads $(knob))"
		bad=1
	fi
	stop_hog
else
	echo "# daemon not running"
	bad=1
fi
DAEMON_PID=
stop_pid "$READER_PID" EOF
READER_PID=
tail -n "+$((from + 1))" "$DLOG" | grep -E 'Shrinker|signal|restor|exit' | sed 's/^/#   /' || true
result "$bad" "SIGTERM restores the knob and exits 0" "$note"

# d. SIGKILL leaves the knob and the save file; --restore puts it back.
bad=0 note=
echo N >"$KNOB"
if start_daemon 2; then
	from=$(lines "$DLOG")
	start_hog 3
	if signal_when_on KILL "$from" 60; then
		echo "# knob Y: ${SIGNALLED_AFTER#* }"
		stop_pid "$DAEMON_PID" KILL
		rc=$STOP_RC
		DAEMON_PID=
		k=$(knob)
		echo "# SIGKILL (status $rc): knob reads $k"
		if [ "$k" != Y ]; then
			echo "# knob reads $k after SIGKILL, expected Y (nobody restored it)"
			tail -n "+$((from + 1))" "$DLOG" | grep -E 'Shrinker' | tail -n 3 | sed 's/^/#   /'
			bad=1
		fi
		if [ -f "$STATE/original-knob" ]; then
			echo "# $STATE/original-knob: $(tr '\n' ' ' <"$STATE/original-knob")"
		else
			echo "# no $STATE/original-knob after SIGKILL"
			bad=1
		fi
		rrc=0
		rout=$(timeout 20 "$DAEMON" --restore --state-dir="$STATE" 2>&1) || rrc=$?
		k=$(knob)
		[ -z "$rout" ] || printf "#   restore: %s\n" "$rout"
		note="--restore exit $rrc, knob $k"
		echo "# $note"
		[ "$rrc" = 0 ] || { echo "# --restore exited $rrc, expected 0"; bad=1; }
		[ "$k" = N ] || { echo "# knob reads $k after --restore, expected N"; bad=1; }
		[ ! -e "$STATE/original-knob" ] || { echo "# $STATE/original-knob still there after --restore"; bad=1; }
	else
		echo "# could not get the knob to Y (reads $(knob))"
		bad=1
	fi
	stop_hog
else
	echo "# the daemon did not start"
	bad=1
fi
result "$bad" "SIGKILL, then --restore puts the knob back" "$note"

# ---------------------------------------------------------------- summary
echo "1..$NCASE"
echo "# summary ($(ms_between "$T0" "$(now)") ms):"
printf '#   %s\n' "${SUMMARY[@]}"
if [ "$NFAIL" != 0 ]; then
	echo "# $NFAIL of $NCASE failed"
	exit 1
fi
echo "# all $NCASE passed"
exit 0
