#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# "zswap-tuned status" advises while no batch cgroups are named or found (issue 25):
# the cgroups that hold the pool, those that stall, and the lines that would
# protect the latter, which --check-config takes and which then cap the
# holder. On a fake tree (--root).
set -u
. "$(dirname "$0")/lib.sh"

scratch advice

fake_tree "$W" N
CG=$W/root/sys/fs/cgroup
mkdir -p "$CG" && echo memory > "$CG/cgroup.controllers"
# the pool limit is 20% of 1000000 kB = 204800000 bytes: the backup holds 25%
mkdir -p "$CG/system.slice/backup.service" "$CG/system.slice/db.service" "$CG/system.slice/quiet.service"
printf 'anon 0\nzswap 51200000\nzswapped 153600000\n' > "$CG/system.slice/backup.service/memory.stat"
echo max > "$CG/system.slice/backup.service/memory.zswap.max"
echo 51200000 > "$CG/system.slice/backup.service/memory.zswap.current"
printf 'some avg10=0.00 avg60=0.10 avg300=0.20 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
	> "$CG/system.slice/backup.service/memory.pressure"
printf 'anon 0\nzswap 4096\n' > "$CG/system.slice/db.service/memory.stat"
printf 'some avg10=6.00 avg60=4.50 avg300=3.25 total=123456\nfull avg10=1.00 avg60=1.00 avg300=1.00 total=1\n' \
	> "$CG/system.slice/db.service/memory.pressure"
printf 'anon 0\nzswap 0\n' > "$CG/system.slice/quiet.service/memory.stat"
: > "$W/empty.conf"
zt() { "$ZT" --root "$W/root" --state-dir "$W/run" "$@"; }

# (not through zt: "$!" of a function would be a subshell, not the daemon)
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" 2>"$W/log" & PID=$!
wait_for_line "$W/log" 'Started \(pid'
zt status >"$W/st"
check "status names the cgroup that holds the pool" \
	grep -qF 'holds the pool: system.slice/backup.service, 48.8 MiB (25% of the limit)' "$W/st"
check "... and the one that stalls" grep -qF 'stalls on memory: system.slice/db.service, 3.2% of the time over 5 min' "$W/st"
check "... and not the quiet one" bash -c "! grep -q quiet.service '$W/st'"
check "... and prints the lines that would protect it" bash -c "grep -qx '              \[Batch\]' '$W/st' &&
	grep -qx '              Cgroups=system.slice/backup.service' '$W/st' &&
	grep -qx '              Cgroups=system.slice/db.service' '$W/st'"
zt status --json >"$W/st.json"
check "status --json has the advice" python3 -c "
import json; d = json.load(open('$W/st.json'))['advice']
assert d['holders'][0]['cgroup'] == 'system.slice/backup.service' and d['holders'][0]['percent_of_limit'] == 25.0, d
assert d['holders'][0]['cpu_idle'] is False, d
assert d['stalling'] == [{'cgroup': 'system.slice/db.service', 'some_avg300_percent': 3.25}], d
assert d['config'] == '[Batch]\nCgroups=system.slice/backup.service\n[Pressure]\nCgroups=system.slice/db.service\n', d"
check "... and no figure for the pool charged to no cgroup while no top-level cgroup has memory.stat" \
	python3 -c "import json; assert json.load(open('$W/st.json'))['pool']['uncharged_bytes'] is None"
# the advice, taken as it is
python3 -c "import json; print(json.load(open('$W/st.json'))['advice']['config'], end='')" > "$W/advised.conf"
# hostile top-level figures: two at the largest value saturate the sum, a FIFO is not read
mkdir -p "$CG/init.scope" "$CG/user.slice"
printf 'zswap 18446744073709551615\n' > "$CG/system.slice/memory.stat"
printf 'zswap 18446744073709551615\n' > "$CG/init.scope/memory.stat"
mkfifo "$CG/user.slice/memory.stat"
zt status --json >"$W/st-hostile.json"; rc=$?
check "status with hostile memory.stat files: exit $rc, charged saturates, nothing left uncharged, no hang" \
	python3 -c "import json; assert $rc == 0 and json.load(open('$W/st-hostile.json'))['pool']['uncharged_bytes'] == 0"
rm -f "$CG/system.slice/memory.stat" "$CG/init.scope/memory.stat" "$CG/user.slice/memory.stat"; rmdir "$CG/init.scope" "$CG/user.slice"
kill -TERM "$PID"; wait "$PID"; PID=
zt -c "$W/advised.conf" --check-config >/dev/null 2>"$W/cc"; rc=$?
check "--check-config takes the advised lines (exit $rc)" test $rc -eq 0
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/advised.conf" 2>"$W/log2" & PID=$!
wait_for_line "$W/log2" 'Started \(pid'
check "... and with them the holder is capped" bash -c "[ \"\$(cat '$CG/system.slice/backup.service/memory.zswap.max')\" != max ]"
zt status --json >"$W/st2.json"
check "configured, there is no advice" python3 -c "
import json; assert json.load(open('$W/st2.json'))['advice'] is None"
kill -TERM "$PID"; wait "$PID"; PID=
check "... and the cap is lifted on exit" test "$(cat "$CG/system.slice/backup.service/memory.zswap.max")" = max

# IdleCgroups= is off by default: a holder marked CPUWeight=idle (cpu.idle 1)
# is left alone, and advised; with IdleCgroups=yes it is batch work and capped,
# and then there is no advice
echo 1 > "$CG/system.slice/backup.service/cpu.idle"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" 2>"$W/log3" & PID=$!
wait_for_line "$W/log3" 'Started \(pid'
zt status --json >"$W/st3d.json"
check "on built-in defaults, a cgroup with cpu.idle 1 is not capped, and advised" python3 -c "
import json; d = json.load(open('$W/st3d.json'))
assert d['advice']['holders'][0]['cgroup'] == 'system.slice/backup.service', d['advice']
assert not any(p['pattern'] == 'idle' for p in d['patterns']), d['patterns']"
check "... and its memory.zswap.max is as it was" test "$(cat "$CG/system.slice/backup.service/memory.zswap.max")" = max
check "... the advice says it is marked idle" python3 -c "
import json; assert json.load(open('$W/st3d.json'))['advice']['holders'][0]['cpu_idle'] is True"
zt status >"$W/st3d"
check "... in the text too, and that IdleCgroups=yes takes such cgroups" bash -c "
grep -qF 'holds the pool: system.slice/backup.service, 48.8 MiB (25% of the limit), marked idle (cpu.idle 1)' '$W/st3d' &&
grep -qF 'IdleCgroups=yes in [Batch]' '$W/st3d'"
check "... which the advice without it did not say" bash -c "! grep -qe 'marked idle' -e 'IdleCgroups=yes' '$W/st'"
kill -TERM "$PID"; wait "$PID"; PID=
printf '[Batch]\nIdleCgroups=yes\n' > "$W/idle.conf"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/idle.conf" 2>"$W/log3" & PID=$!
wait_for_line "$W/log3" 'Started \(pid'
check "with IdleCgroups=yes, a cgroup with cpu.idle 1 is capped" \
	bash -c "[ \"\$(cat '$CG/system.slice/backup.service/memory.zswap.max')\" != max ]"
zt status --json >"$W/st3.json"
check "... the idle pattern takes it, and there is no advice" python3 -c "
import json; d = json.load(open('$W/st3.json'))
assert d['advice'] is None, d['advice']
assert {'role': 'batch', 'pattern': 'idle', 'matches': 1} in d['patterns'], d['patterns']"
kill -TERM "$PID"; wait "$PID"; PID=
check "... and the cap is lifted on exit" test "$(cat "$CG/system.slice/backup.service/memory.zswap.max")" = max
rm "$CG/system.slice/backup.service/cpu.idle"

# Names read from the system reach the terminal escaped (issue 46): a cgroup
# named with an OSC title sequence (ESC ] 0 ; ... BEL) is printed as \x1b]0;...\x07
EVIL=$'evil\e]0;owned\a.service'
mkdir -p "$CG/evil.slice/$EVIL"
printf 'anon 0\nzswap 61200000\n' > "$CG/evil.slice/$EVIL/memory.stat"
echo max > "$CG/evil.slice/$EVIL/memory.zswap.max"
echo 61200000 > "$CG/evil.slice/$EVIL/memory.zswap.current"
: > "$CG/evil.slice/$EVIL/memory.pressure"
no_control_bytes() { ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" 2>"$W/log4" & PID=$!
wait_for_line "$W/log4" 'Started \(pid'
zt status >"$W/st4"
check "status: the advice prints a cgroup's name with its control bytes escaped" \
	grep -qF 'holds the pool: evil.slice/evil\x1b]0;owned\x07.service' "$W/st4"
check "... and no control byte reaches the terminal" no_control_bytes "$W/st4"
kill -TERM "$PID"; wait "$PID"; PID=
printf '[Batch]\nCgroups=evil.slice/*\n' > "$W/evil.conf"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/evil.conf" 2>"$W/log5" & PID=$!
wait_for_line "$W/log5" 'Started \(pid'
zt status >"$W/st5"
check "status: a batch cgroup's name with its control bytes escaped" \
	grep -qF 'Batch: /sys/fs/cgroup/evil.slice/evil\x1b]0;owned\x07.service' "$W/st5"
check "... and no control byte reaches the terminal" no_control_bytes "$W/st5"
kill -TERM "$PID"; wait "$PID"; PID=
rm -rf "$CG/evil.slice"

finish
