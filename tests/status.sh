#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# "zswap-tuned status" with no daemon running (issue 49): what the kernel
# offers (zswap on or off, the pool, swap, the cgroup version, PSI, the knob),
# what the daemon would do with the configuration (-c), and the advice, from
# one scan; exit 3 kept. On fake trees (--root), one condition at a time.
# On 0.2 it printed one line, "not running".
set -u
. "$(dirname "$0")/lib.sh"

scratch status

# tree NAME: a fresh fake tree in $W/NAME (zswap on, no swap, cgroup v2 with
# the memory controller, shrinker_enabled=Y); R is its root
tree() {
	fake_tree "$W/$1" Y
	R=$W/$1/root
	mkdir -p "$R/sys/fs/cgroup"
	echo "cpu memory" > "$R/sys/fs/cgroup/cgroup.controllers"
	echo /dev/sda2 partition 1048572 0 -2 >> "$R/proc/swaps"
}
: > "$W/empty.conf"
st() { "$ZT" --root "$R" --state-dir "$W/run" -c "$W/empty.conf" status "$@"; }

tree ok
st >"$W/ok.txt"; rc=$?
check "no daemon: exit 3 still" test $rc -eq 3
check "... it says so, and then what it finds" grep -q '^zswap-tuned: not running (no status in the state directory); what it would find:$' "$W/ok.txt"
check "... zswap on, its pool, one swap area, cgroup v2, PSI, the knob and its value" bash -c "
	grep -qx '     Zswap: on' '$W/ok.txt' && grep -q '^      Pool: 1000.0 KiB of 195.3 MiB' '$W/ok.txt' &&
	grep -qx '      Swap: 1 area' '$W/ok.txt' && grep -qx '   Cgroups: v2, with the memory controller' '$W/ok.txt' &&
	grep -qx '       PSI: available' '$W/ok.txt' && grep -qx '      Knob: shrinker_enabled=Y' '$W/ok.txt'"
check "... what the daemon would do: steer the knob" grep -qx "            steer shrinker_enabled on pressure and the pool's fill" "$W/ok.txt"
check "... and no warning" bash -c "! grep -q Warning '$W/ok.txt'"
st --json >"$W/ok.json"
check "... and --json: config_missing false" python3 -c "
import json; d = json.load(open('$W/ok.json')); assert d['would']['config_missing'] is False, d"
# -c names a file that is not there: the daemon refuses to start then (exit
# 78), and status says so (0.3.0 before this said it would start)
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/typo.conf" status >"$W/typo.txt"
check "-c with a file that is not there: the daemon would not start (exit 78)" \
	grep -q "^     Would: not start: .*typo.conf.*(exit 78)\$" "$W/typo.txt"
# no -c and no file at the default path: the built-in defaults, said
DEFAULT_CONF=$("$ZT" --help | sed -n 's/.*configuration file (default \(.*\));$/\1/p')
if [ -n "$DEFAULT_CONF" ] && [ ! -e "$DEFAULT_CONF" ]; then
	"$ZT" --root "$R" --state-dir "$W/run" status >"$W/default.txt"
	check "no -c and no $DEFAULT_CONF: the built-in defaults, said" \
		grep -qx "    Config: $DEFAULT_CONF (not there: the built-in defaults apply, and any drop-ins)" "$W/default.txt"
	"$ZT" --root "$R" --state-dir "$W/run" status --json >"$W/default.json"
	check "... and --json: config_missing true, config_error null" python3 -c "
import json; d = json.load(open('$W/default.json'))
assert d['would']['config_missing'] is True and d['would']['config_error'] is None, d"
else
	echo "# skip: the default configuration file $DEFAULT_CONF is there (or --help does not name it)"
fi

tree off
echo N > "$P/enabled"
st >"$W/off.txt"; rc=$?
check "zswap off: exit 3, and it says zswap is off" bash -c "test $rc -eq 3 && grep -q '^     Zswap: zswap is off (enabled=N)' '$W/off.txt'"
st --json >"$W/off.json"
check "... and --json: zswap enabled false, warning zswap-disabled" python3 -c "
import json; d = json.load(open('$W/off.json'))
assert d['schema'] == 2 and d['running'] is False and d['error'] == 'no-status', d
assert d['host']['zswap'] == {'available': True, 'enabled': False, 'compressor': None, 'zpool': None, 'max_pool_percent': 20}, d
assert d['host']['warnings'] == ['zswap-disabled'], d"

tree noswap
printf 'Filename Type Size Used Priority\n' > "$R/proc/swaps"
st >"$W/noswap.txt"
check "no swap: it says so" grep -qx '      Swap: no swap: zswap stores nothing without a swap area' "$W/noswap.txt"
st --json >"$W/noswap.json"
check "... and --json: swap_areas 0, warning no-swap" python3 -c "
import json; d = json.load(open('$W/noswap.json'))
assert d['host']['swap_areas'] == 0 and d['host']['warnings'] == ['no-swap'], d"

tree v1
rm -r "$R/sys/fs/cgroup"
printf '12:memory:/user.slice\n0::/user.slice\n' > "$R/proc/self/cgroup"
printf '[Batch]\nCgroups=batch.slice\n' > "$W/batch.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/batch.conf" status >"$W/v1.txt"
check "cgroup v1: it says so" grep -q '^   Cgroups: the memory controller is on cgroup v1' "$W/v1.txt"
check "... and that flips would have no effect there" grep -q 'steer shrinker_enabled .*(to no effect: the memory controller is on cgroup v1)' "$W/v1.txt"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/batch.conf" status --json >"$W/v1.json"
check "... and --json: cgroup v1, warning cgroup-v1, nothing to cap" python3 -c "
import json; d = json.load(open('$W/v1.json'))
assert d['host']['cgroup'] == 'v1' and d['host']['warnings'] == ['cgroup-v1'], d
assert d['would']['batch'] == [] and d['would']['knob'] == 'shrinker_enabled', d"

tree noknob
rm "$P/shrinker_enabled"
st >"$W/noknob.txt"
check "knob missing: it says so" grep -q '^      Knob: none (neither shrinker_enabled, Linux 6.8+, nor shrink_enabled)' "$W/noknob.txt"
check "... and that the daemon would only observe" grep -qx '            only observe: no knob to steer and no batch cgroup to cap' "$W/noknob.txt"
st --json >"$W/noknob.json"
check "... and --json: knob null, warning knob-missing, only_observe" python3 -c "
import json; d = json.load(open('$W/noknob.json'))
assert d['host']['knob'] is None and d['host']['knob_value'] is None and d['host']['warnings'] == ['knob-missing'], d
assert d['would']['only_observe'] is True and d['would']['knob'] is None, d"

tree nopsi
rm "$R/proc/pressure/memory"
st >"$W/nopsi.txt"
check "no PSI: it says so, and that the daemon would not start" bash -c "
	grep -q '^       PSI: not available' '$W/nopsi.txt' && grep -q '^     Would: not start: no PSI in the kernel (exit 69)' '$W/nopsi.txt'"

# what the configuration would take: Cgroups= and IdleCgroups= matches, from one scan
tree would
CG=$R/sys/fs/cgroup
mkdir -p "$CG/batch.slice/a.scope" "$CG/batch.slice/b.scope" "$CG/system.slice/idle.service" "$CG/system.slice/db.service"
for d in batch.slice/a.scope batch.slice/b.scope system.slice/idle.service system.slice/db.service; do
	echo max > "$CG/$d/memory.zswap.max"; echo 0 > "$CG/$d/cpu.idle"
done
echo 1 > "$CG/system.slice/idle.service/cpu.idle"
printf '[Batch]\nCgroups=batch.slice/*\n' > "$W/glob.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/glob.conf" status >"$W/glob.txt"
check "IdleCgroups= off by default: no idle cgroup would be capped" bash -c "
	grep -q '^            cap (\[Batch\] Cgroups=): ' '$W/glob.txt' && ! grep -q 'IdleCgroups' '$W/glob.txt'"
printf '[Batch]\nCgroups=batch.slice/*\nIdleCgroups=yes\n' > "$W/glob.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/glob.conf" status >"$W/would.txt"; rc=$?
check "the batch cgroups the configuration would cap, and the idle ones found (exit $rc)" bash -c "test $rc -eq 3 &&
	grep -qE '^            cap \(\[Batch\] Cgroups=\): batch.slice/(a|b).scope, batch.slice/(a|b).scope$' '$W/would.txt' &&
	grep -qx '            cap idle cgroups found (\[Batch\] IdleCgroups=, cpu.idle 1): system.slice/idle.service' '$W/would.txt'"
check "... and nothing is written: a scan" bash -c "! grep -rlv '^max$' '$CG'/*/*/memory.zswap.max"
printf '[Batch]\nCgroups=batch.slice/*\n[Pool]\nHighPercent=200\n' > "$W/bad.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/bad.conf" status >"$W/bad.txt" 2>&1; rc=$?
check "an invalid configuration: the daemon would not start, and why (exit $rc)" bash -c "test $rc -eq 3 &&
	grep -q '^     Would: not start: $W/bad.conf:4: ' '$W/bad.txt'"

# the advice without a daemon: who holds the pool, who stalls
printf 'anon 0\nzswap 51200000\n' > "$CG/batch.slice/a.scope/memory.stat"
printf 'some avg10=6.00 avg60=4.50 avg300=3.25 total=123456\n' > "$CG/system.slice/db.service/memory.pressure"
: > "$CG/batch.slice/a.scope/memory.pressure"
printf '[Batch]\nIdleCgroups=no\n' > "$W/noidle.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/noidle.conf" status >"$W/advice.txt"
check "with nothing named, the advice, no daemon needed" bash -c "
	grep -qF 'holds the pool: batch.slice/a.scope, 48.8 MiB (25% of the limit)' '$W/advice.txt' &&
	grep -qF 'stalls on memory: system.slice/db.service, 3.2% of the time over 5 min' '$W/advice.txt'"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/noidle.conf" status --json >"$W/advice.json"
check "... and in --json" python3 -c "
import json; d = json.load(open('$W/advice.json'))
assert d['advice']['holders'][0]['cgroup'] == 'batch.slice/a.scope', d"
echo 1 > "$CG/batch.slice/a.scope/cpu.idle"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/noidle.conf" status >"$W/advice-idle.txt"
check "... a holder marked idle is said to be, and IdleCgroups=yes offered" bash -c "
	grep -qF 'holds the pool: batch.slice/a.scope, 48.8 MiB (25% of the limit), marked idle (cpu.idle 1)' '$W/advice-idle.txt' &&
	grep -qF 'IdleCgroups=yes in [Batch]' '$W/advice-idle.txt'"
echo 0 > "$CG/batch.slice/a.scope/cpu.idle"
# a name with control bytes, from a scan with no daemon
EVIL=$'evil\e]0;owned\a.scope'
mkdir -p "$CG/batch.slice/$EVIL"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/glob.conf" status >"$W/evil.txt"
check "a cgroup's name with control bytes is escaped" grep -qF 'batch.slice/evil\x1b]0;owned\x07.scope' "$W/evil.txt"
check "... and no control byte reaches the terminal" bash -c "! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' '$W/evil.txt'"

# [Metrics] TextfileDirectory= that the daemon would refuse: said here, and by --check-config
mkdir -m 0777 "$W/prom-open"
printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom-open" > "$W/prom.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom.conf" status >"$W/prom.txt"
check "a TextfileDirectory= writable by others: a status warning with FILE:LINE" \
	grep -qF "   Warning: $W/prom.conf:2: TextfileDirectory=$W/prom-open: writable by group or others (mode 0777, not sticky)" "$W/prom.txt"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom.conf" --check-config >/dev/null 2>"$W/prom.err"; rc=$?
check "... and --check-config refuses it (exit $rc), with FILE:LINE" bash -c "test $rc -eq 78 &&
	grep -qF '$W/prom.conf:2: TextfileDirectory=$W/prom-open: writable by group or others' '$W/prom.err'"
printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom-missing" > "$W/prom2.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom2.conf" --check-config >/dev/null 2>"$W/prom2.err"; rc=$?
check "... and one that does not exist (exit $rc)" bash -c "test $rc -eq 78 &&
	grep -qF '$W/prom2.conf:2: TextfileDirectory=$W/prom-missing: does not exist' '$W/prom2.err'"
if [ "$(id -u)" = 0 ]; then
	mkdir -m 0755 "$W/prom-user"; chown 65534 "$W/prom-user"
	printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom-user" > "$W/prom3.conf"
	"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom3.conf" --check-config >/dev/null 2>"$W/prom3.err"; rc=$?
	check "... and one not owned by root (exit $rc)" bash -c "test $rc -eq 78 &&
		grep -qF '$W/prom3.conf:2: TextfileDirectory=$W/prom-user: owned by uid 65534, not root' '$W/prom3.err'"
fi
# ... and by a running daemon's status
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom.conf" 2>"$W/prom.log" & PID=$!
wait_for_line "$W/prom.log" 'Started \(pid'
"$ZT" --root "$R" --state-dir "$W/run" status >"$W/prom-running.txt"; rc=$?
check "... and a running daemon's status shows it as a warning (exit $rc)" bash -c "test $rc -eq 0 &&
	grep -qx '   Warning: \[Metrics\] TextfileDirectory= is refused (see the journal or --check-config): no metrics are written' '$W/prom-running.txt'"
"$ZT" --root "$R" --state-dir "$W/run" status --json >"$W/prom-running.json"
check "... and in --json: metrics-dir" python3 -c "
import json; d = json.load(open('$W/prom-running.json'))
assert d['running'] is True and 'metrics-dir' in d['warnings'], d"
kill -TERM "$PID"; wait "$PID"; PID=
mkdir -m 0755 "$W/prom-ok"
printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom-ok" > "$W/prom4.conf"
"$ZT" --root "$R" --state-dir "$W/run" -c "$W/prom4.conf" --check-config >/dev/null 2>&1; rc=$?
check "... a fine one passes (exit $rc)" test $rc -eq 0

# every --json output above, against docs/status-schema.json (schema 2)
check_status_schema "$W"/*.json

finish
