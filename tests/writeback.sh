#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# [Pressure] ProtectWriteback= (daemon/protect.c) against a fake /proc and
# /sys (--root): while a pressure cgroup stalls its memory.zswap.writeback is
# 0, saved before it is written (fail closed), put back when calm, on
# SIGTERM, by --restore after SIGKILL and on a reload that drops the key;
# an admin's 0, a batch cgroup and a kernel without the file are never
# written. A new feature (issue 48 item 3): every case fails before it.
set -u
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d /tmp/zswap-tuned-writeback.XXXXXX)
PID= GEN=
cleanup() {
	[ -n "$GEN" ] && kill "$GEN" 2>/dev/null
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}
trap 'rc=$?; [ $rc = 0 ] || [ -z "${ZT_KEEP_TMP:-}" ] || { echo "# kept $W"; W=/nonexistent; }; cleanup' EXIT

fake_tree "$W"
CG=$W/root/sys/fs/cgroup
mkdir -p "$CG"; echo memory >"$CG/cgroup.controllers"
# db.service: the service, a pressure source; zero.service: an admin's
# MemoryZSwapWriteback=no; batch.slice: batch work (also named a pressure
# source below, by mistake)
for c in db.service zero.service batch.slice; do
	mkdir -p "$CG/$c"
	echo max >"$CG/$c/memory.zswap.max"; echo 0 >"$CG/$c/memory.zswap.current"; echo 1 >"$CG/$c/memory.zswap.writeback"
	echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" >"$CG/$c/memory.pressure"
done
echo 0 >"$CG/zero.service/memory.zswap.writeback"
wb() { cat "$CG/$1/memory.zswap.writeback"; }

# stall CGROUP...: 30% of wall time stalled, until stopped
stall() {
	local t=0 c
	while :; do t=$((t + 30000))
		for c in "$@"; do
			echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=$t" >"$CG/$c/memory.pressure.new"
			mv "$CG/$c/memory.pressure.new" "$CG/$c/memory.pressure"
		done
		sleep 0.1; done
}
start_stall() { stall "$@" & GEN=$!; }
stop_stall() { kill "$GEN"; wait "$GEN" 2>/dev/null; GEN=; }

conf() { # conf FILE [EXTRA]
	printf '[Daemon]\nLogLevel=info\n[Pressure]\nCgroups=db.service zero.service batch.slice\nHoldSec=1\n%s\n' \
		"${2:-ProtectWriteback=yes}" >"$1"
	printf '[Pool]\nSampleMs=100\nMinSampleMs=100\n[Flips]\nMinDwellSec=0\n[Batch]\nCgroups=batch.slice\n' >>"$1"
	printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom" >>"$1"
}
mkdir -m 0755 "$W/prom"
conf "$W/on.conf"
# start LOG STATE CONF [ARGS...]
start() { local log=$1 state=$2 c=$3; shift 3; "$ZT" --root "$W/root" -c "$c" --state-dir "$state" "$@" 2>"$log" & PID=$!; }
stop() { kill -TERM "$PID"; wait "$PID"; PID=; }

# ---- protected while it stalls, saved first, released when calm ----------
start "$W/log1" "$W/s1" "$W/on.conf"
wait_for_line "$W/log1" 'Started \(pid'
check "probed once at start: the kernel has memory.zswap.writeback" \
	test "$(grep -c 'memory.zswap.writeback: available' "$W/log1")" = 1
start_stall db.service zero.service batch.slice
wait_for_line "$W/log1" 'db.service: memory.zswap.writeback 0: its pressure'
check "a stalling pressure cgroup's writeback is 0" test "$(wb db.service)" = 0
check "... its original saved in the save file" \
	grep -qx "ZSWAP_WRITEBACK=1 /sys/fs/cgroup/db.service/memory.zswap.writeback" "$W/s1/original-knob"
check "an admin's 0 is left alone, said once, nothing saved" bash -c \
	"test \"\$(cat '$CG/zero.service/memory.zswap.writeback')\" = 0 &&
	test \$(grep -c 'zero.service/memory.zswap.writeback holds 0, a setting the daemon did not write' '$W/log1') -eq 1 &&
	! grep -q zero.service '$W/s1/original-knob'"
check "a batch cgroup is never protected, said" bash -c \
	"test \"\$(cat '$CG/batch.slice/memory.zswap.writeback')\" = 1 &&
	grep -q 'batch.slice is, lies in or holds a batch cgroup' '$W/log1' &&
	! grep -q batch.slice/memory.zswap.writeback '$W/s1/original-knob'"
for ((i = 0; i < 100; i++)); do grep -q '^PROTECTED=' "$W/s1/status" 2>/dev/null && break; sleep 0.05; done
"$ZT" --root "$W/root" -c "$W/on.conf" --state-dir "$W/s1" status >"$W/st1"
check "status lists the protected cgroup" grep -q 'Protected: /sys/fs/cgroup/db.service: zswap writeback 0' "$W/st1"
"$ZT" --root "$W/root" -c "$W/on.conf" --state-dir "$W/s1" status --json >"$W/st1.json"
check "... and status --json" python3 -c "
import json; d = json.load(open('$W/st1.json'))
assert d['writeback_protected'] == ['/sys/fs/cgroup/db.service'], d['writeback_protected']"
check "... and the metrics" timeout 10 bash -c \
	"until grep -qx 'zswap_tuned_writeback_protected{cgroup=\"db.service\"} 1' '$W/prom/zswap_tuned.prom'; do sleep 0.05; done"
stop_stall
wait_for_line "$W/log1" 'db.service: memory.zswap.writeback 1: its pressure below'
check "calm for HoldSec: back to 1, nothing left saved" bash -c \
	"grep -q 'db.service: memory.zswap.writeback 1: its pressure below 2% for 1 s' '$W/log1' && test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 && ! grep -qs ZSWAP_WRITEBACK '$W/s1/original-knob'"

# ---- someone else's write while we hold it: theirs -----------------------
start_stall db.service
n=$(grep -c 'db.service: memory.zswap.writeback 0' "$W/log1")
timeout 10 bash -c "until [ \$(grep -c 'db.service: memory.zswap.writeback 0' '$W/log1') -gt $n ]; do sleep 0.05; done"
echo 1 >"$CG/db.service/memory.zswap.writeback"
wait_for_line "$W/log1" 'db.service/memory.zswap.writeback holds 1, not our 0: someone else wrote it'
check "another writer's value while held is theirs: the saved original forgotten" bash -c \
	"grep -q 'holds 1, not our 0: someone else wrote it' '$W/log1' &&
	test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 && ! grep -qs ZSWAP_WRITEBACK '$W/s1/original-knob'"
stop_stall
stop
check "... nothing of it put back on exit; the admin's 0 stays" bash -c \
	"test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 -a \"\$(cat '$CG/zero.service/memory.zswap.writeback')\" = 0 &&
	! grep -q 'memory.zswap.writeback 1: put back' '$W/log1' && grep -q 'holds 1, not our 0' '$W/log1'"

# ---- SIGTERM --------------------------------------------------------------
start "$W/log2" "$W/s2" "$W/on.conf"
start_stall db.service
wait_for_line "$W/log2" 'db.service: memory.zswap.writeback 0'
before=$(wb db.service)
stop
stop_stall
check "SIGTERM puts it back (0 before)" test "$before" = 0 -a "$(wb db.service)" = 1
check "... said with MESSAGE_ID_RESTORE's line, the save file gone" bash -c \
	"grep -q 'db.service: memory.zswap.writeback 1: put back' '$W/log2' && test ! -e '$W/s2/original-knob'"

# ---- SIGKILL, then --restore (ExecStopPost=), or the next start ----------
start "$W/log3" "$W/s3" "$W/on.conf"
start_stall db.service
wait_for_line "$W/log3" 'db.service: memory.zswap.writeback 0'
kill -KILL "$PID"; wait "$PID" 2>/dev/null; PID=
stop_stall
check "after SIGKILL it is still 0, saved" bash -c \
	"test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 0 && grep -q ZSWAP_WRITEBACK '$W/s3/original-knob'"
"$ZT" --root "$W/root" -c "$W/on.conf" --state-dir "$W/s3" --restore 2>"$W/log3r"; rc=$?
check "--restore puts it back (exit $rc), saying so" bash -c \
	"test $rc = 0 -a \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 -a ! -e '$W/s3/original-knob' &&
	grep -q 'Restored /sys/fs/cgroup/db.service/memory.zswap.writeback to 1' '$W/log3r'"
start "$W/log4" "$W/s4" "$W/on.conf"
start_stall db.service
wait_for_line "$W/log4" 'db.service: memory.zswap.writeback 0'
kill -KILL "$PID"; wait "$PID" 2>/dev/null; PID=
stop_stall
start "$W/log4b" "$W/s4" "$W/on.conf"
wait_for_line "$W/log4b" 'Started \(pid'
check "the next start after a crash puts it back first" bash -c \
	"grep -q 'Restored /sys/fs/cgroup/db.service/memory.zswap.writeback to 1' '$W/log4b' &&
	test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1"
stop

# ---- a reload that drops the key ------------------------------------------
cp "$W/on.conf" "$W/reload.conf"
start "$W/log5" "$W/s5" "$W/reload.conf" --record "$W/rec5"
start_stall db.service
wait_for_line "$W/log5" 'db.service: memory.zswap.writeback 0'
before=$(wb db.service)
conf "$W/reload.conf" "ProtectWriteback=no"
kill -HUP "$PID"
wait_for_line "$W/log5" 'Reloaded configuration'
check "a reload that drops ProtectWriteback= puts it back (0 before)" bash -c \
	"test $before = 0 && grep -q 'Reloaded configuration' '$W/log5' && test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 && ! grep -qs ZSWAP_WRITEBACK '$W/s5/original-knob'"
n=$(grep -c '' "$W/log5")
# five more samples (the recording's S lines), still stalling
s=$(grep -c '^S,' "$W/rec5")
timeout 10 bash -c "until [ \$(grep -c '^S,' '$W/rec5') -ge $((s + 5)) ]; do sleep 0.05; done"
check "... and it stays so while the cgroup stalls" bash -c \
	"test \$(grep -c '^S,' '$W/rec5') -ge $((s + 5)) && test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1 && ! tail -n +$((n + 1)) '$W/log5' | grep -q 'writeback 0'"
stop_stall
stop

# ---- fail closed: no write whose original is not saved -------------------
mkdir -p "$W/s6/original-knob/x" # a save file that cannot be replaced
start "$W/log6" "$W/s6" "$W/on.conf"
start_stall db.service
wait_for_line "$W/log6" 'changing nothing \(monitoring only\)'
timeout 10 bash -c "until grep -q '^PRESSURE=[1-9]' '$W/s6/status' 2>/dev/null; do sleep 0.05; done"
check "with the original unsaved, the writeback is not written" bash -c \
	"grep -q 'changing nothing (monitoring only)' '$W/log6' && test \"\$(cat '$CG/db.service/memory.zswap.writeback')\" = 1"
check "... and nothing said of protecting it" bash -c \
	"grep -q '^PRESSURE=[1-9]' '$W/s6/status' && ! grep -q 'db.service: memory.zswap.writeback 0' '$W/log6'"
stop_stall
stop

# ---- a kernel without memory.zswap.writeback (before 6.8) -----------------
rm -f "$CG"/*/memory.zswap.writeback
start "$W/log7" "$W/s7" "$W/on.conf"
start_stall db.service
wait_for_line "$W/log7" 'ProtectWriteback=yes, but this kernel has no memory.zswap.writeback'
timeout 10 bash -c "until grep -q '^PRESSURE=[1-9]' '$W/s7/status' 2>/dev/null; do sleep 0.05; done"
stop_stall
stop
check "without the file, nothing is written and no file created" bash -c \
	"grep -q 'ProtectWriteback=yes, but this kernel has no' '$W/log7' && ! ls '$CG'/*/memory.zswap.writeback 2>/dev/null && ! grep -q 'writeback 0' '$W/log7'"
check "... said once" test "$(grep -c 'no memory.zswap.writeback' "$W/log7")" = 1

finish
