#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# overhead.sh: the daemon's own cost and reaction time on the running (host) kernel.
#
#  1. idle: zswap-tuned with the shipped defaults; context switches per minute
#     (/proc/PID/status voluntary + nonvoluntary), RSS and CPU time over IDLE_SEC.
#  2. load: for each hog rate in RATES (MiB/s; "RATE:RATIO" also sets the hog's
#     compression ratio, default HOG_RATIO) a zt-hog in a 256 MiB memory cgroup
#     fills a small zswap pool (max_pool_percent=1); a fresh daemon per rate. Reports
#     the daemon's CPU time and context switches while it samples, and the lead time
#     between its "Shrinker on" log line and the pool reaching its limit
#     (Zswap: >= LIMIT_FRAC of MemTotal * max_pool_percent / 100), positive = early.
#
# On a host whose memory controller is on cgroup v1 the flip has no effect on the pool
# (kernel-notes.md); the lead time is still the daemon's reaction to the fill.
# Needs root, zswap with shrinker_enabled, PSI, a memory cgroup controller. Holds
# /run/zswap-tuned-test.lock while it touches the kernel; restores every zswap parameter,
# removes its swap file and cgroups in an EXIT trap.
#
# env: abs_top_builddir (daemon and tests/tools/zt-hog), IDLE_SEC (120), RATES ("50 100 200 400"),
#      HOG_MIB (1536), HOG_RATIO (3), LIMIT_FRAC (0.98), OVERHEAD_OUT (results file, optional)
# A hog's swap-out is bounded by reclaim in its cgroup (measured here: ~55 MiB/s of pages,
# whatever --rate asks), so the pool fills at most that fast divided by the compression ratio:
# the RATE:RATIO entries with a low ratio give faster pool fills.
set -euo pipefail

NAME=zswap-tuned-bench
ZP=/sys/module/zswap/parameters
KNOB=$ZP/shrinker_enabled
LOCK=/run/zswap-tuned-test.lock
SWAPFILE=/var/tmp/$NAME.swap
IDLE_SEC=${IDLE_SEC:-120}
RATES=${RATES:-50 100 200 400 400:1.5 400:1.1}
HOG_MIB=${HOG_MIB:-1536}
HOG_RATIO=${HOG_RATIO:-3}
LIMIT_FRAC=${LIMIT_FRAC:-0.98}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
DAEMON=$abs_top_builddir/zswap-tuned
HOG=$abs_top_builddir/tests/tools/zt-hog

die() { echo "overhead: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -e "$KNOB" ] || die "no $KNOB (needs zswap with the 6.8+ shrinker knob)"
[ -e /proc/pressure/memory ] || die "no PSI"
for f in "$DAEMON" "$HOG"; do [ -x "$f" ] || die "$f is not built (make; make tests/tools/zt-hog)"; done
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if awk '$2 == "/sys/fs/cgroup/memory" && $3 == "cgroup" { f = 1 } END { exit !f }' /proc/mounts; then
	CGMODE=v1; MEMCG=/sys/fs/cgroup/memory/$NAME; PSICG=${CG2:+$CG2/$NAME}
elif [ -n "$CG2" ] && grep -qw memory "$CG2/cgroup.controllers"; then
	CGMODE=v2; MEMCG=$CG2/$NAME; PSICG=$MEMCG
else
	die "no memory cgroup controller"
fi

exec {LOCKFD}>"$LOCK"
echo "# waiting for $LOCK"
flock -w 900 "$LOCKFD" || die "another run holds $LOCK"

. "$abs_top_srcdir/tests/host.sh"
TMP='' SWAP_ACTIVE='' DAEMON_PID='' READER_PID='' HOG_PID='' SAMPLER_PID=''
cleanup() {
	local rc=$? f name i
	[ "$BASHPID" = "$$" ] || exit "$rc"
	set +e; trap - EXIT INT TERM HUP
	stop_pid "$SAMPLER_PID" TERM
	stop_pid "$DAEMON_PID" TERM
	stop_pid "$READER_PID" EOF
	stop_pid "$HOG_PID" TERM
	for f in "$MEMCG" "$PSICG"; do [ -n "$f" ] && [ -r "$f/cgroup.procs" ] && xargs -r kill -KILL <"$f/cgroup.procs" 2>/dev/null; done
	[ -n "$TMP" ] && [ -e "$TMP/state/original-knob" ] && timeout 10 "$DAEMON" --restore --state-dir="$TMP/state" >/dev/null 2>&1
	zswap_params_restore
	[ -n "$SWAP_ACTIVE" ] && { swapoff "$SWAPFILE" || echo "# cleanup: swapoff failed"; }
	rm -f "$SWAPFILE"
	for f in "$MEMCG" "$PSICG"; do
		[ -n "$f" ] && [ -d "$f" ] || continue
		for ((i = 0; i < 100; i++)); do rmdir "$f" 2>/dev/null && break; sleep 0.05; done
		[ -d "$f" ] && echo "# cleanup: could not remove $f"
	done
	[ -n "$TMP" ] && rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP

zswap_params_save
echo "# zswap parameters saved: $(zswap_params_saved)"
TMP=$(mktemp -d /tmp/$NAME.XXXXXX)
mkdir "$TMP/state"
: >"$TMP/defaults.conf"   # shipped defaults, nothing from /etc

stamp_lines() { local l; while IFS= read -r l || [ -n "$l" ]; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
start_daemon() { # tag
	DLOG=$TMP/daemon.$1.log
	mkfifo "$TMP/fifo.$1"
	stamp_lines <"$TMP/fifo.$1" >"$DLOG" {LOCKFD}>&- &
	READER_PID=$!
	env -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID \
		"$DAEMON" --config="$TMP/defaults.conf" --state-dir="$TMP/state" </dev/null 2>"$TMP/fifo.$1" {LOCKFD}>&- &
	DAEMON_PID=$!
	local i
	for ((i = 0; i < 200; i++)); do grep -q 'PSI: ' "$DLOG" && return 0; gone "$DAEMON_PID" && break; sleep 0.05; done
	cat "$DLOG"; die "daemon did not come up"
}
stop_daemon() { stop_pid "$DAEMON_PID" TERM; DAEMON_PID=; stop_pid "$READER_PID" EOF; READER_PID=; }
# "cpu_ticks vol nonvol rss_kB" of a pid
pstat() {
	local c v n r
	c=$(awk '{ print $14 + $15 }' "/proc/$1/stat")
	v=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status")
	n=$(awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "/proc/$1/status")
	r=$(awk '/^VmRSS/ { print $2 }' "/proc/$1/status")
	echo "$c $v $n $r"
}
HZ=$(getconf CLK_TCK)
report() { echo "$*"; [ -z "${OVERHEAD_OUT:-}" ] || echo "$*" >>"$OVERHEAD_OUT"; }

# ---------------------------------------------------------------- 1. idle
report "# overhead.sh $(date -u +%FT%TZ) on $(uname -r), cgroup memory controller $CGMODE, $(nproc) CPUs"
start_daemon idle
sleep 2
read -r c0 v0 n0 _ < <(pstat "$DAEMON_PID"); t0=$EPOCHREALTIME
psi0=$(awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/memory)
sleep "$IDLE_SEC"
read -r c1 v1 n1 r1 < <(pstat "$DAEMON_PID"); t1=$EPOCHREALTIME
psi1=$(awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/memory)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$DAEMON_PID/status")
report "$(awk -v t0="$t0" -v t1="$t1" -v v="$((v1 - v0))" -v n="$((n1 - n0))" -v c="$((c1 - c0))" -v hz="$HZ" \
	-v rss="$r1" -v hwm="$hwm" -v p="$((psi1 - psi0))" 'BEGIN { d = t1 - t0;
	printf "idle: %.0f s: context switches %.1f/min (voluntary %d, nonvoluntary %d), CPU %.0f ms/min, RSS %d kB (peak %d kB); host memory PSI some during it %.2f%%\n",
	d, (v + n) * 60 / d, v, n, c * 1000 / hz * 60 / d, rss, hwm, p / d / 1e4 }')"
report "idle: flips during idle: $(grep -c 'Shrinker' "$DLOG" || true)"
stop_daemon

# ---------------------------------------------------------------- 2. load
if swapon --show=NAME --noheadings | grep -qx "$SWAPFILE"; then swapoff "$SWAPFILE"; fi
rm -f "$SWAPFILE"
fallocate -l 3G "$SWAPFILE"; chmod 600 "$SWAPFILE"; mkswap "$SWAPFILE" >/dev/null
swapon "$SWAPFILE"; SWAP_ACTIVE=1
echo N >"$KNOB"; echo 1 >"$ZP/max_pool_percent"; echo Y >"$ZP/enabled"
for f in "$MEMCG" "$PSICG"; do [ -n "$f" ] && { [ -d "$f" ] || mkdir "$f"; }; done
if [ $CGMODE = v1 ]; then echo 256M >"$MEMCG/memory.limit_in_bytes"; else echo 256M >"$MEMCG/memory.max"; fi
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
LIMIT_KB=$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / PAGE_KB * $(cat "$ZP/max_pool_percent") / 100 * PAGE_KB))
AT_KB=$(awk -v l=$LIMIT_KB -v f="$LIMIT_FRAC" 'BEGIN { printf "%d", l * f }')
report "load: pool limit $((LIMIT_KB / 1024)) MiB (max_pool_percent=1); 'at limit' = Zswap >= $AT_KB kB; hog $HOG_MIB MiB in a 256 MiB $CGMODE memory cgroup; daemon with the shipped defaults"
report "| hog --rate MiB/s | ratio | hog achieved MiB/s | pool fill MiB/s (10->90% of limit) | pool at limit after s | knob ON after s | lead time s | pool % at ON | daemon CPU ms | CPU % of wall | ctx switches/min | RSS kB |"
report "|---|---|---|---|---|---|---|---|---|---|---|---|"

sampler() { # "<time> <Zswap kB> <knob>" every ~20 ms
	local k v z kn
	while :; do
		z=; while read -r k v _; do [ "$k" = Zswap: ] && { z=$v; break; }; done </proc/meminfo
		read -r kn <"$KNOB"
		printf '%s %s %s\n' "$EPOCHREALTIME" "$z" "$kn"
		sleep 0.02
	done
}

for spec in $RATES; do
	rate=${spec%%:*}; ratio=$HOG_RATIO
	[ "$spec" = "$rate" ] || ratio=${spec#*:}
	# the previous hog's pages must be gone
	for ((i = 0; i < 300; i++)); do
		[ "$(awk '/^Zswap:/ { print $2 }' /proc/meminfo)" -lt $((LIMIT_KB / 10)) ] && break; sleep 0.1
	done
	echo N >"$KNOB"
	start_daemon "r$rate-$ratio"
	read -r c0 v0 n0 _ < <(pstat "$DAEMON_PID")
	sampler >"$TMP/samples.$spec" {LOCKFD}>&- &
	SAMPLER_PID=$!
	tstart=$EPOCHREALTIME
	(
		echo "$BASHPID" >"$MEMCG/cgroup.procs"
		[ -z "$PSICG" ] || [ "$PSICG" = "$MEMCG" ] || echo "$BASHPID" >"$PSICG/cgroup.procs"
		grep -qx "$BASHPID" "$MEMCG/cgroup.procs" || exit 111
		exec "$HOG" --size "$HOG_MIB" --rate "$rate" --ratio "$ratio" --hold 30
	) </dev/null >"$TMP/hog.$spec" 2>&1 {LOCKFD}>&- &
	HOG_PID=$!
	# until the pool has been at its limit for 2 s (or the fill is long overdue)
	deadline=$(awk -v t="$tstart" -v s="$HOG_MIB" -v r="$rate" 'BEGIN { printf "%.0f", t + s / r * 2 + 20 }')
	tlim=
	while [ "${EPOCHREALTIME%.*}" -lt "$deadline" ]; do
		tlim=$(awk -v a=$AT_KB '$2 >= a { print $1; exit }' "$TMP/samples.$spec")
		[ -n "$tlim" ] && awk -v t="$tlim" -v n="$EPOCHREALTIME" 'BEGIN { exit !(n - t > 2) }' && break
		gone "$HOG_PID" && break
		sleep 0.2
	done
	tend=$EPOCHREALTIME
	read -r c1 v1 n1 r1 < <(pstat "$DAEMON_PID")
	stop_pid "$HOG_PID" TERM; HOG_PID=
	stop_pid "$SAMPLER_PID" TERM; SAMPLER_PID=
	stop_daemon
	ton=$(awk '/Shrinker on/ { print $1; exit }' "$DLOG")
	pon=$(awk '/Shrinker on/ { for (i = 1; i < NF; i++) if ($i == "at") { print $(i + 1); exit } }' "$DLOG")
	achieved=$(sed -n 's/.*(\([0-9.]*\) MiB\/s).*/\1/p' "$TMP/hog.$spec")
	fill=$(awk -v l=$LIMIT_KB '!a && $2 >= 0.1 * l { a = $1 } !b && $2 >= 0.9 * l { b = $1 }
		END { if (a && b > a) printf "%.1f", 0.8 * l / 1024 / (b - a); else print "-" }' "$TMP/samples.$spec")
	report "$(awk -v r="$rate" -v q="$ratio" -v t0="$tstart" -v t1="$tend" -v tl="$tlim" -v to="$ton" -v c="$((c1 - c0))" -v hz="$HZ" \
		-v cs="$((v1 - v0 + n1 - n0))" -v rss="$r1" -v ach="${achieved:--}" -v fill="$fill" -v pon="${pon:--}" 'BEGIN { d = t1 - t0;
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %.2f | %.0f | %d |", r, q, ach, fill,
		tl == "" ? "never" : sprintf("%.2f", tl - t0), to == "" ? "never" : sprintf("%.2f", to - t0),
		(tl == "" || to == "") ? "-" : sprintf("%+.2f", tl - to), pon, c * 1000 / hz, c * 100 / hz / d, cs * 60 / d, rss }')"
	grep -E 'Shrinker|warning|error' "$DLOG" | head -5 | sed 's/^/#   /'
done
report "(lead time = pool at limit minus knob ON: positive means the daemon turned the shrinker on before the pool was full)"
