#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Record a golden policy trace on the host kernel (root; not in make check):
# the build tree's daemon with a configuration (default: the shipped
# conf/zswap-tuned.conf, every key at its default) and --record=OUT, while
# hogs of different sizes and paces in a 256 MiB memory cgroup (v1 here)
# make real memory pressure and fill a small pool (a 2 GiB swap file, zswap
# enabled, max_pool_percent=1), with pauses long enough for the pressure to
# die down (HoldSec). The knob starts at Y, so that Baseline=startup is Y:
# pressure turns it off, the pool's safety on, calm back to baseline.
# Then SIGTERM; the knob must be back at Y and the state directory empty.
# Takes the kernel test lock; every zswap parameter, the swap file and the
# cgroup are restored in the EXIT trap.
#
#   sudo tests/golden/record.sh OUT.rec [CONFIG]
#
# env: GOLDEN_HOGS: the schedule, "MiB:MiB/s:hold_s:pause_s ..." (below): each
# hog runs to its end, then the pause; one written "&MiB:..." starts in the
# background and the pause follows at once (so that the next one adds to it),
# abs_top_builddir/abs_top_srcdir. Then check the flips with
#   zswap-tuned replay OUT.rec -c CONFIG
# and keep the file under ~300 KB (cut at a sample boundary: after a D line).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
. "$abs_top_srcdir/tests/host.sh"
DAEMON=$abs_top_builddir/zswap-tuned
HOG=$abs_top_builddir/tests/tools/zt-hog
OUT=${1:?usage: $0 OUT.rec [CONFIG]}
CONF=${2:-$abs_top_srcdir/conf/zswap-tuned.conf}
HOGS=${GOLDEN_HOGS:-"512:100:20:45 &512:100:50:25 768:100:10:45 &512:100:40:25 1024:60:5:45"}
NAME=zswap-tuned-golden
SWAPFILE=/var/tmp/$NAME.swap
MEMCG=/sys/fs/cgroup/memory/$NAME
KNOB=$ZP/shrinker_enabled

[ "$(id -u)" = 0 ] || skip "needs root"
[ -e "$KNOB" ] && [ -e /proc/pressure/memory ] || skip "needs zswap's shrinker_enabled and PSI"
awk '$2 == "/sys/fs/cgroup/memory" && $3 == "cgroup" { f = 1 } END { exit !f }' /proc/mounts ||
	skip "needs the v1 memory controller at /sys/fs/cgroup/memory"
for f in "$DAEMON" "$HOG"; do [ -x "$f" ] || { echo "ERROR: $f is not built"; exit 99; }; done
[ -e "$OUT" ] && { echo "ERROR: $OUT exists (--record appends)"; exit 99; }
OUT=$(realpath -m "$OUT")
kernel_lock --legacy || exit 1
skip_if_knob_driven

TMP= SWAP_ACTIVE= DPID= HPID=
cleanup() {
	local rc=$? problems=0 i
	set +e
	trap - EXIT INT TERM HUP
	for i in $HPID; do stop_pid "$i" TERM; done
	[ -n "$DPID" ] && stop_pid "$DPID" TERM
	[ -r "$MEMCG/cgroup.procs" ] && xargs -r kill -KILL <"$MEMCG/cgroup.procs" 2>/dev/null
	[ -n "$TMP" ] && [ -n "$(ls -A "$TMP/state" 2>/dev/null)" ] &&
		timeout 10 "$DAEMON" --restore --state-dir="$TMP/state" >/dev/null 2>&1
	zswap_params_restore || problems=1
	if [ -n "$SWAP_ACTIVE" ]; then swapoff "$SWAPFILE" || { echo "# cleanup: swapoff failed"; problems=1; }; fi
	[ -n "$TMP" ] && rm -f "$SWAPFILE"
	if [ -d "$MEMCG" ]; then
		for ((i = 0; i < 100; i++)); do rmdir "$MEMCG" 2>/dev/null && break; sleep 0.05; done
		[ -d "$MEMCG" ] && { echo "# cleanup: could not remove $MEMCG"; problems=1; }
	fi
	[ -n "$TMP" ] && rm -rf "$TMP"
	[ "$problems" != 0 ] && [ "$rc" = 0 ] && rc=1
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

zswap_params_save
echo "# zswap parameters before: $(zswap_params_saved)"
TMP=$(mktemp -d /tmp/$NAME.XXXXXX)
mkdir "$TMP/state"
swapon --show=NAME --noheadings | grep -qx "$SWAPFILE" && swapoff "$SWAPFILE"
[ -d "$MEMCG" ] && { xargs -r kill -KILL <"$MEMCG/cgroup.procs"; sleep 0.2; rmdir "$MEMCG" || exit 1; }
rm -f "$SWAPFILE"
fallocate -l 2G "$SWAPFILE" && chmod 600 "$SWAPFILE" && mkswap "$SWAPFILE" >/dev/null && swapon "$SWAPFILE" ||
	{ echo "ERROR: cannot add swap"; exit 1; }
SWAP_ACTIVE=1
echo Y >"$KNOB"
echo 1 >"$ZP/max_pool_percent"
echo Y >"$ZP/enabled"
mkdir "$MEMCG" && echo 256M >"$MEMCG/memory.limit_in_bytes" || exit 1
ORIG=$(cat "$KNOB")

echo "# $(date -u '+%F %T UTC'): $DAEMON ($("$DAEMON" --version | head -n 1); source $(git -C "$abs_top_srcdir" describe --always --dirty 2>/dev/null)), kernel $(uname -r), config $CONF, knob $ORIG"
env -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID \
	"$DAEMON" --config="$CONF" --state-dir="$TMP/state" --record="$OUT" </dev/null >"$TMP/daemon.log" 2>&1 8>&- 9>&- &
DPID=$!
T0=$EPOCHREALTIME
el() { awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
sleep 10
n=0
for h in $HOGS; do
	n=$((n + 1))
	bg=
	[ "${h#&}" != "$h" ] && { bg=1; h=${h#&}; }
	IFS=: read -r size rate hold pause <<<"$h"
	echo "# +$(el) s: hog $n: $size MiB at $rate MiB/s (3:1), hold $hold s${bg:+, in the background}"
	(
		echo "$BASHPID" >"$MEMCG/cgroup.procs" || exit 111
		exec "$HOG" --size "$size" --rate "$rate" --ratio 3 --hold "$hold"
	) </dev/null >"$TMP/hog.$n.out" 2>&1 8>&- 9>&- &
	if [ -n "$bg" ]; then
		HPID+=" $!"
	else
		wait $!
		echo "# +$(el) s: hog $n done ($(tr -d '\n' <"$TMP/hog.$n.out"))"
	fi
	echo "# +$(el) s: pause $pause s"
	sleep "$pause"
done
for p in $HPID; do wait "$p"; done
HPID=
stop_pid "$DPID" TERM
rc=$STOP_RC
DPID=
knob=$(cat "$KNOB")
left=$(ls -A "$TMP/state" | tr '\n' ' ')
echo "# +$(el) s: SIGTERM: exit $rc, knob $knob (original $ORIG), state dir: ${left:-empty}"
grep -E 'Shrinker|Restored' "$TMP/daemon.log" | sed 's/^/#   /'
echo "# $OUT: $(wc -c <"$OUT") bytes, $(grep -c '^S,' "$OUT") samples"
[ "$rc" = 0 ] && [ "$knob" = "$ORIG" ] && [ -z "$left" ]
