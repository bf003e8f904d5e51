#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An idle daemon under a watchdog wakes up for the watchdog pings and for
# nothing else: count its context switches against the WATCHDOG=1 datagrams
# it sends. Needs root and a kernel with PSI triggers (else it would poll);
# runs with --dry-run, so the knob is never touched.
set -u
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (PSI triggers on /proc/pressure/memory)"
[ -w /proc/pressure/memory ] || skip "no writable /proc/pressure/memory (PSI off?)"
[ -d /sys/module/zswap ] || skip "no zswap in this kernel"
command -v python3 >/dev/null || skip "python3 is needed to play the notify socket"
# Not while another test loads the host: its pressure would keep the daemon busy.
kernel_lock || exit 1

W=$(mktemp -d /tmp/zswap-tuned-idle.XXXXXX)
PID= SOCK_PID=
# the socket's reader too: a failed test left it waiting, holding the kernel lock
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; [ -n "$SOCK_PID" ] && kill "$SOCK_PID" 2>/dev/null; rm -rf "$W"' EXIT
SECS=8

# The notify socket: count WATCHDOG=1 datagrams for $SECS seconds after READY=1.
python3 - "$W/notify" "$SECS" >"$W/count" 9>&- <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[1] + ".ready", "w").close()
pings, end = 0, None
while True:
    s.settimeout(None if end is None else max(0.01, end - time.monotonic()))
    try:
        msg = s.recv(4096).decode()
    except socket.timeout:
        break
    if end is None and "READY=1" in msg.split("\n"):
        end = time.monotonic() + float(sys.argv[2])
        print("ready", flush=True)
    elif end is not None and "WATCHDOG=1" in msg.split("\n"):
        pings += 1
print("pings", pings, flush=True)
PY
SOCK_PID=$!
until [ -e "$W/notify.ready" ]; do kill -0 "$SOCK_PID" || exit 99; sleep 0.01; done

printf '[Pool]\nIdleCheckSec=3\n' >"$W/conf"
# WATCHDOG_PID must be the daemon's own: exec from a shell that knows its pid.
sh -c 'WATCHDOG_PID=$$ exec "$@"' sh env NOTIFY_SOCKET="$W/notify" WATCHDOG_USEC=2000000 \
	"$ZT" --dry-run --log-level=debug -c "$W/conf" --state-dir "$W/run" 2>"$W/log" & PID=$!
wait_for_line "$W/count" '^ready$' 10 || { echo "no READY=1"; cat "$W/log"; exit 1; }
# voluntary switches are its own sleeps; involuntary ones are other load preempting it
ctx() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$PID/status"; }
before=$(ctx)
wait "$SOCK_PID"; SOCK_PID=
after=$(ctx)
pings=$(awk '$1 == "pings" { print $2 }' "$W/count")
wakeups=$((after - before))
echo "# $SECS s idle: $pings watchdog pings, $wakeups voluntary context switches"
check "watchdog pings every WatchdogSec/2 (about $((SECS)) in $SECS s)" test "$pings" -ge $((SECS - 2)) -a "$pings" -le $((SECS + 1))
# each ping is one wake-up; the idle checks (every 3 s) ride on them
check "no wake-ups besides the pings ($wakeups for $pings pings)" test "$wakeups" -le $((pings + 2))
# one sample at start, then one idle check every 3 s, each on a ping
samples=$(grep -c 'zswap-tuned: sample:' "$W/log")
check "the idle checks still run, riding on pings ($samples samples)" test "$samples" -ge 3 -a "$samples" -le 5
kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
check "exits 0 on SIGTERM" test $rc -eq 0
finish
