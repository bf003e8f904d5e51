#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kill anywhere: SIGKILL zswap-tuned at a random moment of its life, from
# its first milliseconds (probes, the save file's write, the first knob
# write) to a second into its run, while it flips the knob, caps batch
# cgroups and (fake tree) holds a pressure cgroup's memory.zswap.writeback
# at 0; then "zswap-tuned --restore" with the same --root/--state-dir,
# as ExecStopPost= would. Every iteration must end with the knob and every
# memory.zswap.max at their original values and NOTHING left in the state
# directory (no original-knob, no original-knob.XXXXXX, nothing else).
#
#   tests/kill-anywhere.sh          a fake /proc and /sys tree (--root): the
#                                   knob, two batch cgroups' caps and a
#                                   pressure cgroup's writeback; no root
#                                   needed; part of "make check"
#   tests/kill-anywhere.sh --host   the real shrinker_enabled knob under /
#                                   (root, zswap, PSI): the knob only, there is
#                                   no cgroup-v2 memory controller on the
#                                   project's hosts; holds the kernel test lock
#
# Half the kills land in the first 20 ms, the rest spread up to KILL_MAX_MS.
# Even iterations start from knob Y with Baseline=off, odd ones from N with
# Baseline=on, so the daemon writes the knob at once either way; on the fake
# tree a driver moves the pool fill and the pressure every 40 ms so that it
# keeps flipping and moving the caps, on the host a memory hog in a small
# v1 memory cgroup keeps the pool full and the pressure up (KILL_HOG=0: no
# hog, only the start-up write).
#
# env: KILL_ITERATIONS (20 fake, 200 host), KILL_SEED (replay a run: the
# seed of the kill delays, printed at the start), KILL_MAX_MS (1000),
# KILL_HOG (1), ZT_KEEP_TMP=1 (keep the logs), CI=true (a skip fails).
# Exit: 0 pass, 1 fail, 77 skip, 99 hard error.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

MODE=fake
case "${1:-}" in
--host) MODE=host ;;
"") ;;
*) echo "usage: $0 [--host]"; exit 99 ;;
esac
[ -x "$ZT" ] || { echo "ERROR: $ZT is not built"; exit 99; }

ITER=${KILL_ITERATIONS:-$([ $MODE = host ] && echo 200 || echo 20)}
MAX_MS=${KILL_MAX_MS:-1000}
SEED=${KILL_SEED:-$(( (${EPOCHREALTIME/./} ^ $$) % 32768 ))}
NAME=zswap-tuned-kill

# ---------------------------------------------------------------- host prerequisites
if [ $MODE = host ]; then
	HOG=$abs_top_builddir/tests/tools/zt-hog
	[ "$(id -u)" = 0 ] || skip "--host needs root (writes /sys/module/zswap/parameters)"
	[ -e "$ZP/shrinker_enabled" ] || skip "kernel has no zswap shrinker_enabled knob (zswap missing, or older than 6.8)"
	[ -e /proc/pressure/memory ] || skip "kernel has no PSI (/proc/pressure/memory missing; boot with psi=1)"
	HOG_ON=${KILL_HOG:-1}
	if [ "$HOG_ON" = 1 ]; then
		[ -x "$HOG" ] || { echo "ERROR: $HOG is not built"; exit 99; }
		awk '$2 == "/sys/fs/cgroup/memory" && $3 == "cgroup" { f = 1 } END { exit !f }' /proc/mounts ||
			skip "the hog needs the v1 memory controller at /sys/fs/cgroup/memory (KILL_HOG=0: without a hog)"
		avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
		[ "$avail_kb" -ge $((4 * 1024 * 1024)) ] ||
			skip "only $((avail_kb / 1024)) MiB available; not adding swap (KILL_HOG=0: without a hog)"
	fi
	kernel_lock --legacy || exit 1
	# Under the lock: another daemon writing the real knob would fight ours.
	skip_if_knob_driven
fi

# ---------------------------------------------------------------- teardown
W=$(mktemp -d /tmp/$NAME.XXXXXX)
STATE=$W/state
PID= DRIVER= HOG_PID= SWAPFILE= SWAP_ACTIVE= MEMCG=
cleanup() {
	local rc=$? problems=0 i
	[ "$BASHPID" = "$$" ] || exit "$rc"
	set +e
	trap - EXIT INT TERM HUP
	[ -n "$PID" ] && { kill -KILL "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
	[ -n "$DRIVER" ] && { kill -KILL "$DRIVER" 2>/dev/null; wait "$DRIVER" 2>/dev/null; }
	if [ $MODE = host ]; then
		[ -n "$(ls -A "$STATE" 2>/dev/null)" ] && timeout 10 "$ZT" --restore --state-dir="$STATE" >/dev/null 2>&1
		[ -n "$HOG_PID" ] && stop_pid "$HOG_PID" TERM
		[ -n "$MEMCG" ] && [ -r "$MEMCG/cgroup.procs" ] && xargs -r kill -KILL <"$MEMCG/cgroup.procs" 2>/dev/null
		zswap_params_restore || problems=1
		if [ -n "$SWAP_ACTIVE" ]; then
			swapoff "$SWAPFILE" || { echo "# cleanup: swapoff $SWAPFILE failed"; problems=1; }
		fi
		[ -n "$SWAPFILE" ] && rm -f "$SWAPFILE"
		if [ -n "$MEMCG" ] && [ -d "$MEMCG" ]; then
			for ((i = 0; i < 100; i++)); do
				rmdir "$MEMCG" 2>/dev/null && break
				sleep 0.05
			done
			[ -d "$MEMCG" ] && { echo "# cleanup: could not remove $MEMCG"; problems=1; }
		fi
	fi
	if [ -n "${ZT_KEEP_TMP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
	[ "$problems" != 0 ] && [ "$rc" = 0 ] && rc=1
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# A sleep without a fork: read -t on a FIFO that nobody writes.
mkfifo "$W/sleep"
exec {SLEEP_FD}<>"$W/sleep"
nap() { read -r -t "$1" -u "$SLEEP_FD" _ || true; }
us() { echo "${EPOCHREALTIME/./}"; }
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); } # us -> "ms.frac"

# ---------------------------------------------------------------- the tree
# Fake: /proc and /sys as tests/cli.sh builds them, the pool limit 200000 kB
# (MemTotal 1000000 kB, max_pool_percent 20), and two batch cgroups whose
# caps start at "max" and at 100 MiB.
declare -A CAP_ORIG=()
if [ $MODE = fake ]; then
	R=$W/root
	KNOB=$R/sys/module/zswap/parameters/shrinker_enabled
	P=${KNOB%/*}
	mkdir -p "$P" "$R/proc/pressure" "$R/proc/self"
	echo Y >"$P/enabled"; echo 20 >"$P/max_pool_percent"; echo Y >"$KNOB"
	echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" >"$R/proc/pressure/memory"
	printf 'MemTotal: 1000000 kB\nZswap: 180000 kB\nZswapped: 540000 kB\n' >"$R/proc/meminfo"
	printf 'pswpout 0\nzswpout 0\nzswpwb 0\n' >"$R/proc/vmstat"
	printf 'Filename Type Size Used Priority\n/swapfile file 2097148 0 -2\n' >"$R/proc/swaps"
	echo "0::/" >"$R/proc/self/cgroup"
	CAP_ORIG[batch-a.slice]=max
	CAP_ORIG[batch-b.slice]=104857600
	declare -A CAP_CUR=([batch-a.slice]=61440000 [batch-b.slice]=30720000)
	CGS=
	for cg in "${!CAP_ORIG[@]}"; do
		mkdir -p "$R/sys/fs/cgroup/$cg"
		echo "${CAP_ORIG[$cg]}" >"$R/sys/fs/cgroup/$cg/memory.zswap.max"
		echo "${CAP_CUR[$cg]}" >"$R/sys/fs/cgroup/$cg/memory.zswap.current"
		echo 1 >"$R/sys/fs/cgroup/$cg/memory.zswap.writeback"
		CGS+=" /sys/fs/cgroup/$cg"
	done
	# the service: a pressure source whose writeback is held at 0 while it stalls
	SVC=$R/sys/fs/cgroup/db.service
	mkdir -p "$SVC"
	echo max >"$SVC/memory.zswap.max"; echo 1 >"$SVC/memory.zswap.writeback"
	echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" >"$SVC/memory.pressure"
	ROOT=(--root "$R")
	# Pool fill (Zswap kB) and PSI stall (us per 40 ms step): high pool (on),
	# low pool under pressure with stores (off), between (caps move), calm
	# (back to baseline).
	STEPS=("180000 0" "20000 30000" "20000 30000" "120000 0" "60000 0" "190000 20000" "100000 0" "10000 0")
	driver() {
		local k=0 total=0 zswpout=0 z d
		while :; do
			read -r z d <<<"${STEPS[k % ${#STEPS[@]}]}"
			total=$((total + d)); zswpout=$((zswpout + 500))
			# renamed into place: the daemon never reads half a file
			echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=$total" >"$R/proc/pressure/.memory"
			mv -f "$R/proc/pressure/.memory" "$R/proc/pressure/memory"
			echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=$total" >"$SVC/.memory.pressure"
			mv -f "$SVC/.memory.pressure" "$SVC/memory.pressure"
			printf 'MemTotal: 1000000 kB\nZswap: %d kB\nZswapped: %d kB\n' "$z" $((z * 3)) >"$R/proc/.meminfo"
			mv -f "$R/proc/.meminfo" "$R/proc/meminfo"
			printf 'pswpout 0\nzswpout %d\nzswpwb 0\n' "$zswpout" >"$R/proc/.vmstat"
			mv -f "$R/proc/.vmstat" "$R/proc/vmstat"
			k=$((k + 1))
			nap 0.04
		done
	}
	COMMON="[Pressure]
HoldSec=0
Cgroups=db.service
ProtectWriteback=yes
[Pool]
ShrinkerNearLimit=yes
SampleMs=20
MinSampleMs=10
IdleCheckSec=1
LeadSec=1
[Flips]
MinDwellSec=0
MaxPerMinute=0
[Batch]
Cgroups=${CGS# }"
else
	R=/
	KNOB=$ZP/shrinker_enabled
	ROOT=()
	zswap_params_save
	echo "# zswap parameters before: $(zswap_params_saved)"
	if [ "$HOG_ON" = 1 ]; then
		SWAPFILE=/var/tmp/$NAME.swap
		MEMCG=/sys/fs/cgroup/memory/$NAME
		# leftovers of a run that died without its trap (we hold the lock)
		swapon --show=NAME --noheadings | grep -qx "$SWAPFILE" && swapoff "$SWAPFILE"
		if [ -d "$MEMCG" ]; then
			xargs -r kill -KILL <"$MEMCG/cgroup.procs" 2>/dev/null
			sleep 0.2
			rmdir "$MEMCG" || { echo "ERROR: leftover $MEMCG cannot be removed"; exit 1; }
		fi
		rm -f "$SWAPFILE"
		fallocate -l 1G "$SWAPFILE" && chmod 600 "$SWAPFILE" && mkswap "$SWAPFILE" >/dev/null &&
			swapon "$SWAPFILE" || { echo "ERROR: cannot add swap $SWAPFILE"; exit 1; }
		SWAP_ACTIVE=1
		echo 1 >"$ZP/max_pool_percent"
		echo Y >"$ZP/enabled"
		mkdir "$MEMCG"
		echo 256M >"$MEMCG/memory.limit_in_bytes"
		(
			echo "$BASHPID" >"$MEMCG/cgroup.procs"
			grep -qx "$BASHPID" "$MEMCG/cgroup.procs" || exit 111
			exec "$HOG" --size 1024 --rate 300 --ratio 3 --hold 36000 --ready-fd 3 3>"$W/hog.ready"
		) </dev/null >"$W/hog.out" 2>&1 {SLEEP_FD}>&- 8>&- 9>&- &
		HOG_PID=$!
		echo "# hog: 1024 MiB at 300 MiB/s in $MEMCG (256 MiB), swap $SWAPFILE (1 GiB), max_pool_percent=1"
		# its first fill done, the pool is at its limit and PSI is up
		for ((i = 0; i < 300; i++)); do
			[ -s "$W/hog.ready" ] && break
			gone "$HOG_PID" && { echo "ERROR: the hog exited: $(cat "$W/hog.out")"; exit 1; }
			nap 0.1
		done
		echo "# hog filled in $((i / 10)) s; pool $(awk '$1 == "Zswap:" { print int($2 / 1024) }' /proc/meminfo) MiB"
	fi
	COMMON="[Pressure]
HoldSec=1
TriggerWindowMs=2000
[Pool]
ShrinkerNearLimit=yes
SampleMs=100
MinSampleMs=50
[Flips]
MinDwellSec=0
MaxPerMinute=0"
fi
mkdir "$STATE" # like the unit's RuntimeDirectory=
printf '[Daemon]\nBaseline=off\nLogLevel=info\n%s\n' "$COMMON" >"$W/orig-Y.conf"
printf '[Daemon]\nBaseline=on\nLogLevel=info\n%s\n' "$COMMON" >"$W/orig-N.conf"

caps_now() {
	local cg out=
	for cg in $(printf '%s\n' "${!CAP_ORIG[@]}" | sort); do
		out+="$cg=$(cat "$R/sys/fs/cgroup/$cg/memory.zswap.max" 2>&1) "
	done
	echo "${out% }"
}
# the pressure cgroup's memory.zswap.writeback (fake tree; "" on the host)
wb_now() { [ $MODE = fake ] && cat "$SVC/memory.zswap.writeback" 2>&1; }
wb_orig() { [ $MODE = fake ] && echo 1; }
N_WB=0
caps_orig() {
	local cg out=
	for cg in $(printf '%s\n' "${!CAP_ORIG[@]}" | sort); do out+="$cg=${CAP_ORIG[$cg]} "; done
	echo "${out% }"
}

# ---------------------------------------------------------------- the loop
echo "# kill-anywhere ($MODE): $ITER iterations, seed $SEED (replay with KILL_SEED=$SEED), kills in 0-20 ms or 20-$MAX_MS ms"
[ $MODE = fake ] && { driver </dev/null >/dev/null 2>&1 & DRIVER=$!; }
RANDOM=$SEED
declare -A PHASES=()
N_KNOB=0 N_CAPS=0
T_START=$(us)
for ((i = 1; i <= ITER; i++)); do
	# the delay: half in the first 20 ms, denser towards 0 (a quarter in
	# the first 5 ms: start-up takes a few), the rest up to MAX_MS
	if ((RANDOM % 2 == 0)); then
		r=$RANDOM
		delay=$((r * r / 32768 * 20000 / 32768))
	else
		delay=$((20000 + (RANDOM * 32768 + RANDOM) % (MAX_MS * 1000 - 20000 + 1)))
	fi
	if ((i % 2 == 0)); then orig=Y; else orig=N; fi
	echo "$orig" >"$KNOB"
	LOG=$W/daemon.$i.log
	t0=${EPOCHREALTIME/./}
	"$ZT" "${ROOT[@]}" --state-dir="$STATE" --config="$W/orig-$orig.conf" \
		</dev/null >/dev/null 2>"$LOG" {SLEEP_FD}>&- 8>&- 9>&- &
	PID=$!
	# no forks from here to the kill: builtins only
	printf -v secs '%d.%06d' $((delay / 1000000)) $((delay % 1000000))
	((delay > 0)) && nap "$secs"
	t1=${EPOCHREALTIME/./}
	kill -KILL "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null # (no "Killed" line from bash)
	st=$?
	at=$((t1 - t0))
	# what it had changed by then (so that a run where it never got to
	# change anything cannot pass unnoticed)
	changed=
	[ "$(cat "$KNOB")" = "$orig" ] || { changed+=" knob"; N_KNOB=$((N_KNOB + 1)); }
	[ "$(caps_now)" = "$(caps_orig)" ] || { changed+=" caps"; N_CAPS=$((N_CAPS + 1)); }
	[ "$(wb_now)" = "$(wb_orig)" ] || { changed+=" writeback"; N_WB=$((N_WB + 1)); }
	PID=
	# where it was, by its log (informational: the texts may change)
	if [ ! -s "$LOG" ]; then
		phase="before its first log line"
	elif grep -q 'Started (pid' "$LOG"; then
		phase="running, $(grep -cE 'Shrinker (on|off)|back to baseline|Capped|Moved the zswap cap|Lifted' "$LOG") flip/cap lines"
		PHASES[running]=$((${PHASES[running]:-0} + 1))
	else
		phase="starting, after \"$(tail -n 1 "$LOG" | cut -c 1-70)\""
		PHASES[starting]=$((${PHASES[starting]:-0} + 1))
	fi
	[ -s "$LOG" ] || PHASES[silent]=$((${PHASES[silent]:-0} + 1))
	rout=$("$ZT" "${ROOT[@]}" --state-dir="$STATE" --restore 2>&1 {SLEEP_FD}>&- 8>&- 9>&-)
	rrc=$?
	knob=$(cat "$KNOB")
	caps=$(caps_now)
	# the lock file stays (0600, empty; the unit's RuntimeDirectory= goes on stop)
	left=$(cd "$STATE" && ls -A | grep -vx lock)
	bad=
	[ "$st" = 137 ] || bad+=" the daemon exited by itself (status $st) before the kill;"
	[ "$rrc" = 0 ] || bad+=" --restore exited $rrc;"
	[ "$knob" = "$orig" ] || bad+=" knob $knob, original $orig;"
	[ "$caps" = "$(caps_orig)" ] || bad+=" caps $caps, original $(caps_orig);"
	wb=$(wb_now)
	[ "$wb" = "$(wb_orig)" ] || bad+=" writeback $wb, original $(wb_orig);"
	[ -z "$left" ] || bad+=" left in the state dir: $(echo $left);"
	what="SIGKILL at $(ms "$at") ms (drawn $(ms "$delay")), $phase, changed:${changed:- nothing}"
	if [ -z "$bad" ]; then
		ok "$i: $what"
	else
		not_ok "$i: $what:$bad"
		for f in $left; do
			echo "#   $f: $(head -c 300 "$STATE/$f" | tr '\n' '|')"
		done
		[ -n "$rout" ] && echo "#   --restore said: $(echo "$rout" | tr '\n' '|')"
		echo "#   daemon log (last 5 lines):"
		tail -n 5 "$LOG" | sed 's/^/#     /'
		# start the next iteration clean
		find "$STATE" -mindepth 1 -delete
		for cg in "${!CAP_ORIG[@]}"; do echo "${CAP_ORIG[$cg]}" >"$R/sys/fs/cgroup/$cg/memory.zswap.max"; done
		[ $MODE = fake ] && echo 1 >"$SVC/memory.zswap.writeback"
	fi
	[ -n "${ZT_KEEP_TMP:-}" ] || rm -f "$LOG"
	if [ $MODE = host ] && [ -n "$HOG_PID" ] && gone "$HOG_PID"; then
		echo "# the hog is gone: $(cat "$W/hog.out")"
		HOG_PID=
	fi
done
echo "# $ITER kills in $((($(us) - T_START) / 1000000)) s: ${PHASES[silent]:-0} before the first log line," \
	"${PHASES[starting]:-0} during start-up, ${PHASES[running]:-0} while running; seed $SEED"
check "the daemon had changed the knob when killed ($N_KNOB of $ITER)" test "$N_KNOB" -gt 0
[ $MODE = fake ] && check "the daemon had changed the caps when killed ($N_CAPS of $ITER)" test "$N_CAPS" -gt 0
# The writeback is held only in the stall steps and let go at the first calm
# sample (HoldSec=0), so a kill finds it at 0 in about 1 of 20: a count, not a
# check (that it is put back after every kill is checked above, and the hold
# itself by tests/writeback.sh).
[ $MODE = fake ] && echo "# the daemon held the writeback at 0 when killed in $N_WB of $ITER"
echo "1..$T_N"
finish
