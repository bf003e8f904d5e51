#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Soak: zswap-tuned from the build tree for SOAK_SECONDS (1800) on the host
# kernel while a memory hog comes and goes in a memory-limited cgroup (a
# random size, pace and hold every few seconds) and the pool (zswap with
# max_pool_percent=1 on a swap file) keeps filling; a SIGHUP reload every
# minute. Every 10 s it records the daemon's VmRSS and open fd count (and
# the knob, the pool, the flips so far) into samples.csv; every flip
# (a log line matching SOAK_FLIP_RE) and every restore (SOAK_RESTORE_RE)
# goes into events.csv. Not part of "make check".
#
# Pass: the daemon alive to the end; RSS and fd count flat (the mean of the
# last window within 5% of the first; the windows are 600 s, or a third of
# SOAK_SECONDS when that is shorter than 1800); flips in any 60 s never above
# [Flips] MaxPerMinute (6); after SIGTERM exit 0, the knob back at its value
# at start and nothing left in the state directory. Prints a summary for
# docs/reliability.md (also in summary.md).
#
# Needs root, zswap with shrinker_enabled, PSI, a memory cgroup controller
# (v1 at /sys/fs/cgroup/memory, or cgroup2 with memory) and 4 GiB available.
# Takes the kernel test lock (tests/host.sh: kernel_lock). Everything it
# changes (zswap parameters, the swap file, its cgroups) is undone in an
# EXIT trap. Skips (77) otherwise; with CI=true a skip fails.
#
# env: SOAK_SECONDS (1800), SOAK_SEED (the hog cycles' random numbers),
# SOAK_RESULTS (/var/tmp/zswap-tuned-soak-results/<date>), SOAK_FLIP_RE,
# SOAK_RESTORE_RE (the daemon's log texts), abs_top_builddir/abs_top_srcdir.
# Exit: 0 pass, 1 fail, 77 skip, 99 hard error.

set -uo pipefail
export LC_ALL=C

NAME=zswap-tuned-soak
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
DAEMON=$abs_top_builddir/zswap-tuned
HOG=$abs_top_builddir/tests/tools/zt-hog
. "$abs_top_srcdir/tests/host.sh"

SECONDS_TOTAL=${SOAK_SECONDS:-1800}
SEED=${SOAK_SEED:-$(( (${EPOCHREALTIME/./} ^ $$) % 32768 ))}
RESULTS=${SOAK_RESULTS:-/var/tmp/zswap-tuned-soak-results/$(date +%Y%m%d-%H%M%S)}
# The daemon's flip lines: "Shrinker on: ...", "Shrinker off: ...",
# "Shrinker back to baseline (...)"; restores: "Restored ...".
FLIP_RE=${SOAK_FLIP_RE:-'Shrinker (on|off)|back to baseline'}
RESTORE_RE=${SOAK_RESTORE_RE:-'Restored |Lifted the zswap cap'}
MAX_PER_MINUTE=6
SAMPLE_EVERY=10
RELOAD_EVERY=60
# window for "flat": 600 s, or a third of the run when it is shorter than 30 min
if ((SECONDS_TOTAL >= 1800)); then WIN=600; else WIN=$((SECONDS_TOTAL / 3)); fi
SWAPFILE=/var/tmp/$NAME.swap
KNOB=$ZP/shrinker_enabled

# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" = 0 ] || skip "needs root (zswap parameters, swapon, cgroups)"
[ -e "$KNOB" ] || skip "kernel has no zswap shrinker_enabled knob (zswap missing, or older than 6.8)"
[ -e /proc/pressure/memory ] || skip "kernel has no PSI (/proc/pressure/memory missing; boot with psi=1)"
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if awk '$2 == "/sys/fs/cgroup/memory" && $3 == "cgroup" { f = 1 } END { exit !f }' /proc/mounts; then
	CGMODE=v1
	MEMCG=/sys/fs/cgroup/memory/$NAME
	PSICG=${CG2:+$CG2/$NAME}
elif [ -n "$CG2" ] && grep -qw memory "$CG2/cgroup.controllers" && grep -qw memory "$CG2/cgroup.subtree_control"; then
	CGMODE=v2
	MEMCG=$CG2/$NAME
	PSICG=$MEMCG
else
	skip "no memory cgroup controller (neither v1 at /sys/fs/cgroup/memory nor enabled on cgroup2)"
fi
for f in "$DAEMON" "$HOG"; do
	[ -x "$f" ] || { echo "ERROR: $f is not built"; exit 99; }
done
((SECONDS_TOTAL >= 60)) || { echo "ERROR: SOAK_SECONDS=$SECONDS_TOTAL: at least 60"; exit 99; }
avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
[ "$avail_kb" -ge $((4 * 1024 * 1024)) ] ||
	skip "only $((avail_kb / 1024)) MiB available; not adding swap to a host that short of memory"

kernel_lock --legacy || exit 1
skip_if_knob_driven

# ---------------------------------------------------------------- teardown
TMP= SWAP_ACTIVE= DAEMON_PID= READER_PID= CYCLER_PID=
cleanup() {
	local rc=$? problems=0 f i
	[ "$BASHPID" = "$$" ] || exit "$rc"
	set +e
	trap - EXIT INT TERM HUP
	[ -n "$CYCLER_PID" ] && stop_pid "$CYCLER_PID" TERM
	# the daemon before anything else, so it cannot write the knob after us
	[ -n "$DAEMON_PID" ] && stop_pid "$DAEMON_PID" TERM
	[ -n "$READER_PID" ] && stop_pid "$READER_PID" EOF
	for f in "$MEMCG/cgroup.procs" ${PSICG:+"$PSICG/cgroup.procs"}; do
		[ -r "$f" ] && xargs -r kill -KILL <"$f" 2>/dev/null
	done
	if [ -n "$TMP" ] && [ -n "$(ls -A "$TMP/state" 2>/dev/null | grep -vx lock)" ]; then
		timeout 10 "$DAEMON" --restore --state-dir="$TMP/state" >/dev/null 2>&1
	fi
	zswap_params_restore || problems=1
	if [ -n "$SWAP_ACTIVE" ]; then
		swapoff "$SWAPFILE" || { echo "# cleanup: swapoff $SWAPFILE failed"; problems=1; }
	fi
	[ -n "$TMP" ] && rm -f "$SWAPFILE"
	for f in "$MEMCG" $PSICG; do
		[ -d "$f" ] || continue
		for ((i = 0; i < 100; i++)); do
			rmdir "$f" 2>/dev/null && break
			sleep 0.05
		done
		[ -d "$f" ] && { echo "# cleanup: could not remove $f"; problems=1; }
	done
	[ -n "$TMP" ] && rm -rf "$TMP"
	[ "$problems" != 0 ] && [ "$rc" = 0 ] && rc=1
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
mkdir "$STATE" # like the unit's RuntimeDirectory=
mkdir -p "$RESULTS" || { echo "ERROR: cannot create $RESULTS"; exit 99; }
CONF=$TMP/zswap-tuned.conf
DLOG=$RESULTS/daemon.log
CSV=$RESULTS/samples.csv
EVENTS=$RESULTS/events.csv
HOGLOG=$RESULTS/hog-cycles.csv

# leftovers of a run that died without its trap (we hold the lock)
swapon --show=NAME --noheadings | grep -qx "$SWAPFILE" && swapoff "$SWAPFILE"
for f in "$MEMCG" $PSICG; do
	[ -d "$f" ] || continue
	xargs -r kill -KILL <"$f/cgroup.procs" 2>/dev/null
	sleep 0.2
	rmdir "$f" || { echo "ERROR: leftover $f cannot be removed"; exit 1; }
done
rm -f "$SWAPFILE"
fallocate -l 2G "$SWAPFILE" && chmod 600 "$SWAPFILE" && mkswap "$SWAPFILE" >/dev/null || { echo "ERROR: cannot make $SWAPFILE"; exit 1; }
swapon "$SWAPFILE" || { echo "ERROR: swapon $SWAPFILE failed"; exit 1; }
SWAP_ACTIVE=1
echo N >"$KNOB"
echo 1 >"$ZP/max_pool_percent"
echo Y >"$ZP/enabled"
[ "$(cat "$ZP/enabled")" = Y ] || { echo "ERROR: could not enable zswap"; exit 1; }
mkdir "$MEMCG" || exit 1
[ -z "$PSICG" ] || [ "$PSICG" = "$MEMCG" ] || mkdir "$PSICG" || exit 1
if [ "$CGMODE" = v1 ]; then
	echo 256M >"$MEMCG/memory.limit_in_bytes"
else
	echo 256M >"$MEMCG/memory.max"
fi
ORIG=$(cat "$KNOB")

# The daemon's configuration; every reload toggles HoldSec between 5 and 6
# s, so that each one changes something.
write_conf() {
	cat >"$CONF" <<EOF
# soak reload $1
[Daemon]
LogLevel=info
[Pressure]
System=yes
${PSICG:+Cgroups=$PSICG}
TriggerWindowMs=2000
HoldSec=$((5 + $1 % 2))
[Pool]
ShrinkerNearLimit=yes
SampleMs=250
MinSampleMs=50
[Flips]
MinDwellSec=0
MaxPerMinute=$MAX_PER_MINUTE
EOF
}
write_conf 0
cp "$CONF" "$RESULTS/zswap-tuned.conf"

# Hog cycles: size 256-1280 MiB at 50-400 MiB/s, held 0-6 s after the fill,
# then 0-5 s without; one line each in hog-cycles.csv.
cycler() {
	local n=0 size rate hold pause t0 hp= hst
	RANDOM=$SEED
	trap '[ -n "$hp" ] && kill -TERM "$hp" 2>/dev/null; exit 0' TERM
	echo "start,size_mib,rate_mibs,hold_s,pause_s,result" >"$HOGLOG"
	while :; do
		n=$((n + 1))
		size=$((256 + RANDOM % 1025)); rate=$((50 + RANDOM % 351))
		hold=$((RANDOM % 7)); pause=$((RANDOM % 6))
		t0=$EPOCHREALTIME
		(
			echo "$BASHPID" >"$MEMCG/cgroup.procs" || exit 111
			[ -z "$PSICG" ] || [ "$PSICG" = "$MEMCG" ] || echo "$BASHPID" >"$PSICG/cgroup.procs" || exit 111
			exec "$HOG" --size "$size" --rate "$rate" --ratio 3 --hold "$hold"
		) </dev/null >"$TMP/hog.out" 2>&1 &
		hp=$!
		wait "$hp"
		hst=$?
		hp=
		echo "$t0,$size,$rate,$hold,$pause,\"$(tr -d '\n' <"$TMP/hog.out") (exit $hst)\"" >>"$HOGLOG"
		sleep "$pause" &
		wait $!
	done
}

# The daemon's stderr, each line stamped with the wall clock.
stamp() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done
}

# ---------------------------------------------------------------- run
echo "# soak: $SECONDS_TOTAL s, windows $WIN s, seed $SEED (SOAK_SEED=), results in $RESULTS"
echo "# cgroups $CGMODE: memory $MEMCG (256 MiB)${PSICG:+, PSI $PSICG}; swap $SWAPFILE (2 GiB); zswap max_pool_percent=1; knob $ORIG"
mkfifo "$TMP/daemon.fifo"
stamp <"$TMP/daemon.fifo" >"$DLOG" 8>&- 9>&- &
READER_PID=$!
T0=$EPOCHREALTIME
env -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID \
	"$DAEMON" --config="$CONF" --state-dir="$STATE" </dev/null >"$RESULTS/daemon.stdout" 2>"$TMP/daemon.fifo" 8>&- 9>&- &
DAEMON_PID=$!
cycler </dev/null >/dev/null 2>&1 8>&- 9>&- &
CYCLER_PID=$!
echo "# daemon pid $DAEMON_PID, hog cycler pid $CYCLER_PID"

echo "elapsed_s,vmrss_kb,fds,knob,pool_kb,flips,restores,reloads,hog_cycles" >"$CSV"
count() { grep -cE -- "$1" "$DLOG" 2>/dev/null || true; }
tick=0 reloads=0 crashed=
while :; do
	tick=$((tick + 1))
	target=$((tick * SAMPLE_EVERY))
	((target > SECONDS_TOTAL)) && target=$SECONDS_TOTAL
	now_s=$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	wait_s=$(awk -v n="$now_s" -v t="$target" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$wait_s"
	if gone "$DAEMON_PID"; then
		stop_pid "$DAEMON_PID" EOF
		crashed="exited with status $STOP_RC at +$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a }') s"
		DAEMON_PID=
		echo "# the daemon $crashed"
		break
	fi
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$DAEMON_PID/status")
	fds=$(ls "/proc/$DAEMON_PID/fd" | wc -l)
	pool=$(awk '$1 == "Zswap:" { print $2 }' /proc/meminfo)
	echo "$target,$rss,$fds,$(cat "$KNOB"),$pool,$(count "$FLIP_RE"),$(count "$RESTORE_RE"),$reloads,$(($(wc -l <"$HOGLOG") - 1))" >>"$CSV"
	((target >= SECONDS_TOTAL)) && break
	if ((target % RELOAD_EVERY == 0)); then
		reloads=$((reloads + 1))
		write_conf "$reloads"
		kill -HUP "$DAEMON_PID"
	fi
	((target % 300 == 0)) && echo "# +$target s: $(tail -n 1 "$CSV")"
done

# ---------------------------------------------------------------- stop
stop_pid "$CYCLER_PID" TERM
CYCLER_PID=
for f in "$MEMCG/cgroup.procs" ${PSICG:+"$PSICG/cgroup.procs"}; do
	[ -r "$f" ] && xargs -r kill -TERM <"$f" 2>/dev/null
done
exit_rc=- knob_end=- left=-
if [ -n "$DAEMON_PID" ]; then
	stop_pid "$DAEMON_PID" TERM
	exit_rc=$STOP_RC
	DAEMON_PID=
	knob_end=$(cat "$KNOB")
	# the lock file stays (0600, empty; the unit's RuntimeDirectory= goes on stop)
	left=$(ls -A "$STATE" | grep -vx lock | tr '\n' ' ')
fi
stop_pid "$READER_PID" EOF
READER_PID=

# ---------------------------------------------------------------- analysis
echo "time_s,kind,line" >"$EVENTS"
awk -v t0="$T0" -v f="$FLIP_RE" -v r="$RESTORE_RE" '
	{ line = $0; sub(/^[^ ]+ /, "", line); gsub(/"/, "\"\"", line) }
	$0 ~ f { printf "%.3f,flip,\"%s\"\n", $1 - t0, line }
	$0 ~ r { printf "%.3f,restore,\"%s\"\n", $1 - t0, line }
	/Reloaded configuration|keeping the old configuration/ { printf "%.3f,reload,\"%s\"\n", $1 - t0, line }
' "$DLOG" >>"$EVENTS"
n_flips=$(grep -c ',flip,' "$EVENTS")
n_restores=$(grep -c ',restore,' "$EVENTS")
n_reloaded=$(grep -c ',reload,.*Reloaded configuration' "$EVENTS")
# flips per minute since the start, and the most in any 60 s window (a
# flip's time is when its line was read: a window of 60 s less 0.5 s for
# the pipe's jitter; the strict 60 s count is printed too)
per_minute=$(awk -F, -v s="$SECONDS_TOTAL" '$2 == "flip" { m[int($1 / 60)]++ }
	END { for (i = 0; i * 60 < s; i++) printf "%d ", m[i] + 0 }' "$EVENTS")
# Safety flips (the pool high or rising: "pool at N% of limit (high" or
# "... and rising") are never held back by the daemon, but count: they are
# told apart here, by their text, only for the summary.
SAFETY_RE=${SOAK_SAFETY_RE:-'of limit \\(high|and rising'}
read -r max_win max_win_strict max_win_at max_win_safety < <(awk -F, -v sre="$SAFETY_RE" 'BEGIN { n = 0 } $2 == "flip" { t[n] = $1; sf[n++] = ($0 ~ sre) }
	END {
		best = 0; strict = 0; at = "-"; bs = 0
		for (i = 0; i < n; i++) {
			c = 0; cs = 0; ns = 0
			for (j = i; j < n && t[j] - t[i] < 60; j++) { cs++; if (t[j] - t[i] < 59.5) { c++; ns += sf[j] } }
			if (c > best) { best = c; at = t[i]; bs = ns }
			if (cs > strict) strict = cs
		}
		print best, strict, at, bs
	}' "$EVENTS")
n_safety=$(awk -F, -v sre="$SAFETY_RE" '$2 == "flip" && $0 ~ sre { n++ } END { print n + 0 }' "$EVENTS")
# RSS and fds: first window and last window
read -r rss1 rss2 fd1 fd2 rss_min rss_max fd_min fd_max n_samples < <(awk -F, -v w="$WIN" -v s="$SECONDS_TOTAL" '
	NR > 1 {
		if ($1 <= w) { r1 += $2; f1 += $3; n1++ }
		if ($1 > s - w) { r2 += $2; f2 += $3; n2++ }
		if (rmin == "" || $2 < rmin) rmin = $2; if ($2 > rmax) rmax = $2
		if (fmin == "" || $3 < fmin) fmin = $3; if ($3 > fmax) fmax = $3
		n++
	}
	END { printf "%.1f %.1f %.2f %.2f %s %s %s %s %d\n", n1 ? r1 / n1 : 0, n2 ? r2 / n2 : 0, n1 ? f1 / n1 : 0, n2 ? f2 / n2 : 0, rmin, rmax, fmin, fmax, n }' "$CSV")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", (a > 0 ? (b - a) * 100 / a : 0) }'; }
flat() { awk -v a="$1" -v b="$2" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(a > 0 && d <= a * 0.05) }'; }
hog_cycles=$(($(wc -l <"$HOGLOG") - 1))

fails=()
[ -z "$crashed" ] || fails+=("the daemon $crashed")
[ "$n_samples" -gt 0 ] || fails+=("no samples")
flat "$rss1" "$rss2" || fails+=("VmRSS not flat: $rss1 -> $rss2 kB")
flat "$fd1" "$fd2" || fails+=("open fds not flat: $fd1 -> $fd2")
((max_win <= MAX_PER_MINUTE)) || fails+=("$max_win flips within 60 s from +$max_win_at s, $max_win_safety of them for the pool's safety (cap $MAX_PER_MINUTE)")
[ "$exit_rc" = 0 ] || fails+=("exit status after SIGTERM: $exit_rc")
[ "$knob_end" = "$ORIG" ] || fails+=("knob after SIGTERM: $knob_end, original $ORIG")
[ -z "$left" ] || fails+=("left in the state dir: $left")
((hog_cycles > 0)) || fails+=("no hog cycle completed: no load")
((n_flips > 0)) || fails+=("the daemon never flipped the knob: nothing was exercised")
[ "$n_reloaded" = "$reloads" ] || fails+=("$reloads SIGHUPs sent, $n_reloaded 'Reloaded configuration' lines")

{
	echo "### Soak $(date -u '+%Y-%m-%d %H:%M UTC'): $([ ${#fails[@]} = 0 ] && echo PASS || echo FAIL)"
	echo
	echo "- daemon: $DAEMON ($("$DAEMON" --version 2>/dev/null | head -n 1), built $(date -u -r "$DAEMON" '+%F %T UTC'); source tree $(git -C "$abs_top_srcdir" describe --always --dirty 2>/dev/null || echo '?')), kernel $(uname -r), cgroup $CGMODE; $SECONDS_TOTAL s, seed $SEED"
	echo "- load: $hog_cycles hog cycles (256-1280 MiB at 50-400 MiB/s, 3:1, hold 0-6 s, pause 0-5 s) in a 256 MiB group; max_pool_percent=1, 2 GiB swap file"
	echo "- alive to the end: $([ -z "$crashed" ] && echo yes || echo "no, $crashed"); SIGTERM: exit $exit_rc, knob $knob_end (original $ORIG), state dir $([ -z "$left" ] && echo empty || echo "holds $left")"
	echo "- VmRSS: first ${WIN} s mean $rss1 kB, last ${WIN} s mean $rss2 kB ($(pct "$rss1" "$rss2")%), range $rss_min-$rss_max kB ($n_samples samples every ${SAMPLE_EVERY} s)"
	echo "- open fds: first ${WIN} s mean $fd1, last ${WIN} s mean $fd2 ($(pct "$fd1" "$fd2")%), range $fd_min-$fd_max"
	echo "- flips: $n_flips ($n_safety for the pool's safety); most in any 60 s: $max_win from +$max_win_at s, $max_win_safety of them for safety (strict 60 s: $max_win_strict); cap MaxPerMinute=$MAX_PER_MINUTE; per minute: $per_minute"
	echo "- reloads: $reloads SIGHUP, $n_reloaded applied; restores logged: $n_restores"
	for f in "${fails[@]}"; do echo "- FAILED: $f"; done
} >"$RESULTS/summary.md"
echo "# ---- summary (also $RESULTS/summary.md) ----"
sed 's/^/# /' "$RESULTS/summary.md"
echo "# raw: $CSV, $EVENTS, $HOGLOG, $DLOG"
if [ ${#fails[@]} = 0 ]; then
	echo "ok 1 - soak $SECONDS_TOTAL s"
	exit 0
fi
echo "not ok 1 - soak $SECONDS_TOTAL s: ${fails[*]}"
exit 1
