#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# [Batch] Units= end to end (issue 46): the daemon on a fake tree (--root)
# and a private dbus-daemon with the system bus's default policy (anyone may
# send anyone a signal), a fake systemd (tests/tools/zt-fake-systemd) owning
# org.freedesktop.systemd1, and user nobody forging the manager's signals
# with busctl, as any local user can on the system bus. Caps land in the
# fake cgroupfs: read back from memory.zswap.max. No root needed (then the
# forger is the same user); skipped without dbus-daemon or busctl.
set -u
. "$(dirname "$0")/lib.sh"

command -v dbus-daemon >/dev/null && command -v busctl >/dev/null ||
	{ echo "1..0 # SKIP no dbus-daemon or busctl"; exit 77; }
FAKE=$abs_top_builddir/tests/tools/zt-fake-systemd
[ -x "$FAKE" ] || { echo "# $FAKE is not built (make check builds it)"; exit 1; }

W=$(mktemp -d /tmp/zswap-tuned-units-bus.XXXXXX)
PID= BUS= FM=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	[ -n "$FM" ] && kill -9 "$FM" 2>/dev/null
	[ -n "$BUS" ] && kill -9 "$BUS" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
chmod 755 "$W" # the forger reaches the bus's socket

fake_tree "$W"
mkdir -p "$W/run"
CG=$W/root/sys/fs/cgroup
mkdir -p "$CG" && echo memory >"$CG/cgroup.controllers"
for u in db backup@1 backup@2 backup@3 backup@4 backup@5 backup@666; do
	d=$CG/system.slice/$u.service
	mkdir -p "$d"
	echo max >"$d/memory.zswap.max"; echo 0 >"$d/memory.zswap.current"; printf 'anon 0\nzswap 0\n' >"$d/memory.stat"
done
zmax() { cat "$CG/system.slice/$1.service/memory.zswap.max"; }
# until $1's memory.zswap.max is a cap (or max again, with $2 = max)
await_cap() {
	local i
	for ((i = 0; i < 200; i++)); do
		if [ "${2:-}" = max ]; then [ "$(zmax "$1")" = max ] && return 0
		else [ "$(zmax "$1")" != max ] && return 0; fi
		sleep 0.05
	done
	return 1
}

ADDR=unix:path=$W/bus
# dbus-daemon's system.conf policy; here anyone may own a name and call
# systemd's, as root may on the real bus
cat >"$W/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>$ADDR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow own="org.freedesktop.systemd1"/>
    <allow send_destination="org.freedesktop.systemd1"/>
  </policy>
</busconfig>
EOF
export DBUS_SYSTEM_BUS_ADDRESS=$ADDR

start_bus() {
	rm -f "$W/bus" "$W/bus.addr"
	dbus-daemon --nofork --nosyslog --print-address --config-file="$W/bus.conf" >"$W/bus.addr" 2>>"$W/bus.err" &
	BUS=$!
	wait_for_line "$W/bus.addr" '^unix:'
}
# the fake manager: its units in $W/table, its signals from commands on fd 3
start_fm() {
	rm -f "$W/cmd" "$W/fm.out"; mkfifo "$W/cmd"
	"$FAKE" "$W/table" <"$W/cmd" >"$W/fm.out" 2>>"$W/fm.err" &
	FM=$!
	exec 3>"$W/cmd"
	wait_for_line "$W/fm.out" '^ready :'
}
# manager LINE: the real manager sends a signal ("UnitNew NAME [PATH]", ...)
manager() { echo "$*" >&3; wait_for_line "$W/fm.out" "^sent $*\$"; }
# forge ARGS...: another user sends the daemon a signal as the manager's
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	AS=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
else
	AS=()
fi
# the daemon's unique name, as it says it once it is on the bus (busctl list's
# PID column, asked of the bus for each name, was empty in a package build)
await_daemon_name() {
	wait_for_line "$W/log" 'Units=: on the system bus as :[0-9]+\.[0-9]+$' || return 1
	DAEMON_NAME=$(sed -n 's/.*Units=: on the system bus as \(:[0-9.]*\)$/\1/p' "$W/log" | tail -n 1)
	[ -n "$DAEMON_NAME" ] && busctl --address="$ADDR" list --unique --no-legend --no-pager | grep -q "^$DAEMON_NAME "
}
forge() {
	"${AS[@]}" busctl --address="$ADDR" emit --destination="$DAEMON_NAME" /org/freedesktop/systemd1 \
		org.freedesktop.systemd1.Manager "$@" || echo "# busctl emit $1 failed"
}
# a unit starts: in the table, the manager's UnitNew, and the daemon takes it
started() {
	echo "$1.service /system.slice/$1.service" >>"$W/table"
	manager "UnitNew $1.service"
	wait_for_line "$W/log" "unit $1.service; batch work from now on"
}

printf 'backup@1.service /system.slice/backup@1.service\ndb.service /system.slice/db.service\n' >"$W/table"
start_bus
start_fm
printf '[Pool]\nSampleMs=100\nMinSampleMs=100\n[Batch]\nUnits=backup@*.service\n' >"$W/units.conf"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/units.conf" 2>"$W/log" & PID=$!
wait_for_line "$W/log" 'Started \(pid'
wait_for_line "$W/log" 'unit backup@1.service; batch work from now on'
check "a followed unit running at start is capped" await_cap backup@1
check "... the daemon is on the bus under a name of its own, which it says" await_daemon_name
DAEMON_NAME=${DAEMON_NAME:-}

# as user nobody: busctl emit --destination=<the daemon> ... UnitNew
# "backup@666.service" /org/freedesktop/systemd1/unit/db_2eservice
forge UnitNew so backup@666.service /org/freedesktop/systemd1/unit/db_2eservice
check "a forged UnitNew is refused, said in the journal" \
	wait_for_line "$W/log" 'ignoring a UnitNew signal from :[0-9.]+, which is not systemd'
started backup@2
check "... and caps nothing: db.service stays uncapped" test "$(zmax db)" = max
check "... nor takes the forged unit" bash -c "! grep -qE 'db.service|backup@666' '$W/log'"
check "the real manager's UnitNew caps its unit" await_cap backup@2

forge UnitRemoved so backup@1.service /org/freedesktop/systemd1/unit/backup_401_2eservice
forge JobRemoved uoss 9 /org/freedesktop/systemd1/job/9 backup@1.service done
started backup@3
check "a forged UnitRemoved lifts no cap" bash -c "[ \"\$(cat '$CG/system.slice/backup@1.service/memory.zswap.max')\" != max ] &&
	! grep -qE 'backup@1.service.*(lifting|is gone)' '$W/log'"
check "... and forged signals are said once" test "$(grep -c 'which is not systemd' "$W/log")" = 1

# the manager's own UnitNew names db.service's object: the name's is read
echo "backup@4.service /system.slice/backup@4.service" >>"$W/table"
manager "UnitNew backup@4.service /org/freedesktop/systemd1/unit/db_2eservice"
wait_for_line "$W/log" 'unit backup@4.service; batch work from now on'
check "a unit's cgroup is read on its own object, not the one a signal names" bash -c \
	"grep -q 'backup@4.service appeared, unit backup@4.service' '$W/log' && [ \"\$(cat '$CG/system.slice/db.service/memory.zswap.max')\" = max ]"

# the manager's UnitRemoved of a unit it still runs: asked, kept
manager "UnitRemoved backup@3.service"
started backup@5
check "a UnitRemoved the manager does not confirm lifts no cap" bash -c \
	"! grep -qE 'backup@3.service.*(lifting|is gone)' '$W/log' && [ \"\$(cat '$CG/system.slice/backup@3.service/memory.zswap.max')\" != max ]"
sed -i '/^backup@3.service /d' "$W/table"
manager "UnitRemoved backup@3.service"
check "... one it confirms lifts the cap" await_cap backup@3 max

# the bus daemon killed: said once, caps kept; started again: followed again
kill -9 "$BUS"; wait "$BUS" 2>/dev/null; BUS=
wait "$FM" 2>/dev/null; FM=
check "the bus gone: said once, with what is kept" \
	wait_for_line "$W/log" 'lost the system bus; keeping the 4 units known; reconnecting'
check "... and no cap is lifted for it" bash -c "[ \"\$(cat '$CG/system.slice/backup@1.service/memory.zswap.max')\" != max ] &&
	[ \"\$(cat '$CG/system.slice/backup@2.service/memory.zswap.max')\" != max ]"
# meanwhile backup@2 ended
sed -i '/^backup@2.service /d' "$W/table"
start_bus
start_fm
check "the bus back: the daemon says so" wait_for_line "$W/log" 'back on the system bus'
check "... lists again: the unit that ended meanwhile has its cap lifted" await_cap backup@2 max
started backup@666
check "... and follows the new manager's signals" await_cap backup@666
check "... the loss said once" test "$(grep -c 'lost the system bus' "$W/log")" = 1
check "... backup@1 capped all along" bash -c "! grep -qE 'backup@1.service.*(lifting|is gone)' '$W/log'"

kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
check "the daemon exits cleanly and lifts its caps" bash -c "[ $rc = 0 ] && [ \"\$(cat '$CG/system.slice/backup@1.service/memory.zswap.max')\" = max ]"
[ "$T_FAILED" = 0 ] || sed 's/^/# daemon: /' "$W/log"
finish
