#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The restore engine (daemon/restore.c) against a fake /proc and /sys
# (--root): its locks, fail-closed saves and the directories it writes in.
# One case per finding of issue 22; each failed on 0.2. The cases that need
# another user or a mount namespace need root (they skip without it, and
# fail instead under CI=true).
set -u
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d /tmp/zswap-tuned-restore.XXXXXX)
chmod 755 "$W" # other users walk through it (as nobody below)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do pkill -9 -P "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

fake_tree "$W"
# Baseline=off: the daemon writes the knob (Y -> N) at start
printf '[Daemon]\nBaseline=off\n' > "$W/off.conf"
zt() { "$ZT" --root "$W/root" -c "$W/off.conf" "$@"; }

# start_daemon LOG STATE [ARGS...]: in the background; $PID
start_daemon() {
	local log=$1 state=$2; shift 2
	"$ZT" --root "$W/root" -c "$W/off.conf" --state-dir "$state" "$@" 2>"$log" & PID=$!
	PIDS+=("$PID")
}
stop_daemon() { kill -TERM "$PID" 2>/dev/null; wait "$PID"; }

have_root() {
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && return 0
	[ "${CI:-}" = true ] && { not_ok "$1: needs root and setpriv"; return 1; }
	ok "$1 # SKIP needs root"
	return 1
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# ---- 1: a lock nobody else can take --------------------------------------
if have_root "an unprivileged lock holder blocks nothing"; then
	S=$W/s1; mkdir -m 0755 "$S" # as RuntimeDirectoryMode=0755 makes it
	# 0.2 locked the directory itself: anyone could open it and hold the lock
	: > "$W/held"; chown nobody "$W/held"
	# (not through as_nobody: "$!" of a function is a subshell, not flock)
	setpriv --reuid=nobody --regid=nogroup --clear-groups flock -x "$S" sh -c "echo locked >'$W/held'; exec sleep 30" &
	HOLDER=$!; PIDS+=("$HOLDER")
	wait_for_line "$W/held" locked
	start_daemon "$W/log1" "$S"
	wait_for_line "$W/log1" 'Started \(pid|Another zswap-tuned'
	check "a lock held by nobody on the state directory does not stop the start" grep -q 'Started (pid' "$W/log1"
	check "... and the knob is steered" test "$(knob)" = N
	check "nobody cannot open the lock file" bash -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups cat '$S/lock' 2>/dev/null"
	check "the lock file is 0600" test "$(stat -c %a "$S/lock")" = 600
	kill -KILL "$PID"; wait "$PID" 2>/dev/null
	zt --state-dir "$S" --restore 2>"$W/log1r"; rc=$?
	check "--restore after SIGKILL is not blocked by nobody's lock (exit $rc)" test $rc -eq 0
	check "... and puts the knob back" test "$(knob)" = Y
	pkill -P "$HOLDER" 2>/dev/null; kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null # (and its sleep)
fi

# ---- 3: one owner of the knob per machine --------------------------------
S=$W/s3a; T=$W/s3b
start_daemon "$W/log3a" "$S"; A=$PID
wait_for_line "$W/log3a" 'Started \(pid'
zt --state-dir "$T" 2>"$W/log3b"; rc=$?
check "a second instance with another --state-dir is refused (exit $rc)" test $rc -eq 75
check "... naming the machine-wide lock" grep -q "Another zswap-tuned is running: it holds $W/root/run/zswap-tuned.lock" "$W/log3b"
check "... and saves nothing of its own" test ! -e "$T/original-knob"
rm -rf "$S"
zt --state-dir "$T" 2>"$W/log3c"; rc=$?
check "with the first one's state directory removed, still refused (exit $rc)" test $rc -eq 75
zt --state-dir "$T" --restore 2>"$W/log3d"; rc=$?
check "--restore of another state directory is refused while it runs (exit $rc)" test $rc -eq 75
check "... and the running one's knob stays" test "$(knob)" = N
PID=$A; stop_daemon
check "the first one restores on exit" test "$(knob)" = Y

# ---- 2: fail closed on a full file system ---------------------------------
if have_root "a full state directory changes nothing"; then
	S=$W/s2; mkdir -m 0700 "$S"
	# a private mount namespace: the tmpfs goes with the shell
	unshare -m bash -c "
		mount -t tmpfs -o size=64k,mode=0700 zt-full '$S' || exit 99
		dd if=/dev/zero of='$S/fill' bs=4k count=100 2>/dev/null
		'$ZT' --root '$W/root' -c '$W/off.conf' --state-dir '$S' 2>'$W/log2' & pid=\$!
		timeout 10 grep -m1 -qE 'Started \\(pid' <(tail -n +1 -F '$W/log2' 2>/dev/null)
		cat '$P/shrinker_enabled' >'$W/knob2'
		kill -KILL \$pid; wait \$pid 2>/dev/null
		'$ZT' --root '$W/root' -c '$W/off.conf' --state-dir '$S' --restore 2>'$W/log2r'; echo \$? >'$W/rc2'
		umount '$S'"
	rc=$?
	check "the tmpfs was mounted" test $rc -ne 99
	check "with the originals unsaved, the knob is not written" test "$(cat "$W/knob2" 2>/dev/null)" = Y
	check "... said once: monitoring only" test "$(grep -c 'changing nothing (monitoring only)' "$W/log2")" = 1
	check "... naming the error" grep -q 'No space left on device' "$W/log2"
	check "--restore after SIGKILL exits 0 with the knob as it was" test "$(cat "$W/rc2")" = 0 -a "$(knob)" = Y
fi

# ---- 4: a refused state directory is not used at all ---------------------
mkdir -p "$W/target"; echo precious > "$W/target/status"; echo precious > "$W/target/original-knob"
ln -s "$W/target" "$W/s4"
zt --state-dir "$W/s4" 2>"$W/log4"; rc=$?
check "a symlinked --state-dir is refused (exit $rc)" test $rc -eq 1
check "... saying why" grep -q "Cannot open the state directory $W/s4: not a directory (a symlink?)" "$W/log4"
check "... and nothing in its target is deleted" test "$(cat "$W/target/status")" = precious
check "... or put back from it" test "$(knob)" = Y
zt --state-dir "$W/s4" --restore 2>"$W/log4r"; rc=$?
check "--restore refuses it too (exit $rc), deleting nothing" test $rc -ne 0 -a -e "$W/target/status" -a -e "$W/target/original-knob"
mkdir -m 0777 "$W/s4w"
zt --state-dir "$W/s4w" 2>"$W/log4w"; rc=$?
check "a world-writable state directory is refused (exit $rc)" test $rc -eq 1
check "... saying why" grep -q "Refusing the state directory $W/s4w: writable by group or others" "$W/log4w"

# ---- 5: files go where the directory was checked, not by path -------------
S=$W/s5; M=$W/m5; mkdir -m 0755 "$S" "$M" "$W/target5"
echo precious > "$W/target5/status"; echo precious > "$W/target5/zswap_tuned.prom"
printf '[Daemon]\nBaseline=off\n[Metrics]\nTextfileDirectory=%s\n' "$M" > "$W/m5.conf"
"$ZT" --root "$W/root" -c "$W/m5.conf" --state-dir "$S" 2>"$W/log5" & PID=$!; PIDS+=("$PID")
wait_for_line "$W/log5" 'Started \(pid'
timeout 10 bash -c "until [ -e '$S/status' ] && [ -e '$M/zswap_tuned.prom' ]; do sleep 0.05; done"
check "status and metrics are written" test -e "$S/status" -a -e "$M/zswap_tuned.prom"
mv "$S" "$W/s5.moved"; ln -s "$W/target5" "$S"
mv "$M" "$W/m5.moved"; ln -s "$W/target5" "$M"
stop_daemon
check "after a swap, exit deletes nothing in the symlink's target" \
	test "$(cat "$W/target5/status")" = precious -a "$(cat "$W/target5/zswap_tuned.prom")" = precious
check "... and writes no save file there" test ! -e "$W/target5/original-knob"
check "... but removes the status file from the directory it checked, and marks the metrics there stopped" \
	bash -c "test ! -e '$W/s5.moved/status' && grep -qx 'zswap_tuned_up 0' '$W/m5.moved/zswap_tuned.prom'"
check "... and restores the knob" test "$(knob)" = Y
rm -f "$S" "$M"
if have_root "a metrics directory of another user is refused"; then
	mkdir -m 0755 "$W/m5n"; chown nobody "$W/m5n"
	printf '[Metrics]\nTextfileDirectory=%s\n' "$W/m5n" > "$W/m5n.conf"
	"$ZT" --root "$W/root" -c "$W/m5n.conf" --state-dir "$W/s5n" 2>"$W/log5n" & PID=$!; PIDS+=("$PID")
	wait_for_line "$W/log5n" 'Started \(pid'
	check "a metrics directory owned by nobody is refused" grep -q "TextfileDirectory=$W/m5n: not owned by this user" "$W/log5n"
	stop_daemon
	check "... and nothing is written there" test -z "$(ls -A "$W/m5n")"
fi
mkdir -m 0777 "$W/m5w"
printf '[Metrics]\nTextfileDirectory=%s\n' "$W/m5w" > "$W/m5w.conf"
"$ZT" --root "$W/root" -c "$W/m5w.conf" --state-dir "$W/s5w" 2>"$W/log5w" & PID=$!; PIDS+=("$PID")
wait_for_line "$W/log5w" 'Started \(pid'
check "a world-writable metrics directory that is not sticky is refused" \
	grep -q "TextfileDirectory=$W/m5w: writable by group or others and not sticky" "$W/log5w"
stop_daemon
chmod 1777 "$W/m5w"
"$ZT" --root "$W/root" -c "$W/m5w.conf" --state-dir "$W/s5w" 2>"$W/log5s" & PID=$!; PIDS+=("$PID")
wait_for_line "$W/log5s" 'Started \(pid'
timeout 10 bash -c "until [ -e '$W/m5w/zswap_tuned.prom' ]; do sleep 0.05; done"
check "a sticky one (as /tmp) is used" test -e "$W/m5w/zswap_tuned.prom"
stop_daemon

# ---- issue 48 item 1: a cap never loosens a limit already set --------------
# Four batch cgroups sharing the room of a 204800000-byte pool (a cap of
# 37.6 MiB each): one at 0 and one at 4096000 keep their value and are
# never written; two at max are capped, then "systemd" (a write by hand here,
# as MemoryZSwapMax= or set-property would) rewrites them: the lower value
# is that cgroup's limit from then on and stays on exit, the higher one is
# the limit the cap stays under and what exit puts back.
CG=$W/root/sys/fs/cgroup
for c in zero small lower higher; do
	mkdir -p "$CG/$c.slice"; echo 0 >"$CG/$c.slice/memory.zswap.current"; echo max >"$CG/$c.slice/memory.zswap.max"
done
echo memory >"$CG/cgroup.controllers"
echo 0 >"$CG/zero.slice/memory.zswap.max"; echo 4096000 >"$CG/small.slice/memory.zswap.max"
printf '[Pool]\nSampleMs=100\nMinSampleMs=100\n[Batch]\nCgroups=zero.slice small.slice lower.slice higher.slice\n' \
	>"$W/ceil.conf"
"$ZT" --root "$W/root" -c "$W/ceil.conf" --state-dir "$W/s48" --record "$W/rec48" 2>"$W/log48" & PID=$!; PIDS+=("$PID")
wait_for_line "$W/log48" 'Capped the zswap use of higher.slice'
wait_for_line "$W/log48" 'Capped the zswap use of lower.slice'
CAP=$(cat "$CG/higher.slice/memory.zswap.max")
check "a batch cgroup at 0 stays 0, one at 4096000 stays there; the others are capped ($CAP)" bash -c \
	"test \"\$(cat '$CG/zero.slice/memory.zswap.max')\" = 0 && test \"\$(cat '$CG/small.slice/memory.zswap.max')\" = 4096000 &&
	test $CAP -gt 4096000 -a $CAP -lt 51200000 && test \"\$(cat '$CG/lower.slice/memory.zswap.max')\" = $CAP"
check "... each kept one said once, nothing saved for them" bash -c \
	"test \$(grep -c 'zero.slice/memory.zswap.max holds 0, a limit the daemon did not write; leaving it there' '$W/log48') -eq 1 &&
	test \$(grep -c 'small.slice/memory.zswap.max holds 4096000, a limit the daemon did not write' '$W/log48') -eq 1 &&
	! grep -q 'zero.slice\|small.slice' '$W/s48/original-knob' && ! grep -q 'Capped the zswap use of \(zero\|small\)' '$W/log48'"
echo 20480000 >"$CG/lower.slice/memory.zswap.max"
echo 204800000 >"$CG/higher.slice/memory.zswap.max"
wait_for_line "$W/log48" 'lower.slice/memory.zswap.max holds 20480000, a limit the daemon did not write; leaving it there'
wait_for_line "$W/log48" 'higher.slice/memory.zswap.max holds 204800000, not our cap'
timeout 10 bash -c "until [ \$(grep -c 'Capped the zswap use of higher.slice' '$W/log48') -ge 2 ]; do sleep 0.05; done"
# five more samples (the recording's S lines): nothing of ours goes back over either
n=$(grep -c '^S,' "$W/rec48")
timeout 10 bash -c "until [ \$(grep -c '^S,' '$W/rec48') -ge $((n + 5)) ]; do sleep 0.05; done"
check "another writer's lower value is kept as the limit, not written over" bash -c \
	"test \"\$(cat '$CG/lower.slice/memory.zswap.max')\" = 20480000 &&
	grep -q 'lower.slice/memory.zswap.max holds 20480000, not our cap .*: that is its limit from now on' '$W/log48'"
check "... a higher one gets the cap again, under it, and is saved as the original" bash -c \
	"test \"\$(cat '$CG/higher.slice/memory.zswap.max')\" = $CAP &&
	grep -qx 'ZSWAP_MAX=204800000 .*higher.slice/memory.zswap.max' '$W/s48/original-knob' &&
	! grep -q 'lower.slice' '$W/s48/original-knob'"
stop_daemon
check "on exit: 0, 4096000 and the lower value stay, the higher one is put back" bash -c \
	"test \"\$(cat '$CG/zero.slice/memory.zswap.max')\" = 0 && test \"\$(cat '$CG/small.slice/memory.zswap.max')\" = 4096000 &&
	test \"\$(cat '$CG/lower.slice/memory.zswap.max')\" = 20480000 &&
	test \"\$(cat '$CG/higher.slice/memory.zswap.max')\" = 204800000"
# A cap that falls below a limit from before is written, never above it:
# small.slice at 4096000 with ZswapMaxPercent=1 (2048000) is capped, and
# with the cap back above its limit it is at most 4096000 again.
printf '[Pool]\nSampleMs=100\nMinSampleMs=100\n[Batch]\nCgroups=small.slice\nZswapMaxPercent=1\n' >"$W/ceil1.conf"
"$ZT" --root "$W/root" -c "$W/ceil1.conf" --state-dir "$W/s48b" 2>"$W/log48b" & PID=$!; PIDS+=("$PID")
wait_for_line "$W/log48b" 'Capped the zswap use of small.slice at 1.9 MiB'
check "a cap below the limit from before is written, that limit saved first" bash -c \
	"test \"\$(cat '$CG/small.slice/memory.zswap.max')\" = 2048000 &&
	grep -qx 'ZSWAP_MAX=4096000 .*small.slice/memory.zswap.max' '$W/s48b/original-knob'"
kill -KILL "$PID"; wait "$PID" 2>/dev/null
"$ZT" --root "$W/root" -c "$W/ceil1.conf" --state-dir "$W/s48b" --restore 2>/dev/null
check "... and put back after SIGKILL by --restore" test "$(cat "$CG/small.slice/memory.zswap.max")" = 4096000

# ---- 8: names that do not fit are refused, never cut ----------------------
long=$(printf 'a%.0s' {1..200})/$(printf 'b%.0s' {1..200})/c.scope
printf '[Batch]\nCgroups=%s\n' "$long" > "$W/long.conf"
"$ZT" --root "$W/root" -c "$W/long.conf" --check-config >/dev/null 2>"$W/log8"; rc=$?
check "a 409-byte cgroup name is refused (exit $rc)" test $rc -eq 78
check "... with FILE:LINE" grep -q "$W/long.conf:2: Cgroups= path '$(printf 'a%.0s' {1..32})...' is 409 bytes long" "$W/log8"
printf '[Batch]\nCgroups=%s\n' "$(printf 'x%.0s' {1..256})" > "$W/comp.conf"
"$ZT" --root "$W/root" -c "$W/comp.conf" --check-config >/dev/null 2>"$W/log8c"; rc=$?
check "a component longer than NAME_MAX is refused (exit $rc)" test $rc -eq 78 -a -n "$(grep "$W/comp.conf:2:.*longer than 255" "$W/log8c")"
printf '[Metrics]\nTextfileDirectory=/%s\n' "$(printf 'd%.0s' {1..300})" > "$W/dir.conf"
"$ZT" --root "$W/root" -c "$W/dir.conf" --check-config >/dev/null 2>"$W/log8d"; rc=$?
check "a directory too long is refused (exit $rc)" test $rc -eq 78 -a -n "$(grep "$W/dir.conf:2: TextfileDirectory=.*too long" "$W/log8d")"

finish
