#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The zswap-tuned binary against a fake /proc and /sys (--root): options,
# exit codes, config errors, signals, the save file and --restore.
set -u
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d /tmp/zswap-tuned-cli.XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

P=$W/root/sys/module/zswap/parameters
mkdir -p "$P" "$W/root/proc/pressure" "$W/root/proc/self" "$W/run"
echo Y > "$P/enabled"; echo 20 > "$P/max_pool_percent"; echo Y > "$P/shrinker_enabled"
echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" > "$W/root/proc/pressure/memory"
printf 'MemTotal: 1000000 kB\nZswap: 1000 kB\nZswapped: 3000 kB\n' > "$W/root/proc/meminfo"
printf 'pswpout 0\nzswpout 0\nzswpwb 0\n' > "$W/root/proc/vmstat"
printf 'Filename Type Size Used Priority\n' > "$W/root/proc/swaps"
echo "0::/" > "$W/root/proc/self/cgroup"
knob() { cat "$P/shrinker_enabled"; }
RUN=("$ZT" --root "$W/root" --state-dir "$W/run")
run() { "${RUN[@]}" "$@"; }

check "--help exits 0 and names the options" bash -c "'$ZT' --help | grep -q -- --check-config"
check "--version prints the version" bash -c "'$ZT' --version | grep -qE '^zswap-tuned [0-9]'"
"$ZT" --bogus 2>/dev/null; check "an unknown option exits 2" test $? -eq 2
"$ZT" extra 2>/dev/null; check "a stray argument exits 2" test $? -eq 2
"$ZT" --log-level=loud 2>/dev/null; check "a bad --log-level exits 2" test $? -eq 2

printf '[Pool]\nSampleMs=250\n' > "$W/good.conf"
out=$(run -c "$W/good.conf" --check-config)
check "--check-config prints the effective configuration" \
	bash -c "grep -q '^SampleMs=250$' <<<'$out' && grep -q '^HighPercent=85$' <<<'$out'"

printf '[Pool]\nSampleMs=250\n\nHighPercent=150\n' > "$W/bad.conf"
err=$(run -c "$W/bad.conf" --check-config 2>&1 >/dev/null); rc=$?
check "--check-config on a bad file exits 78" test $rc -eq 78
check "... and says FILE:LINE: what is wrong" \
	grep -qF "$W/bad.conf:4: HighPercent=150: expected a percentage from 1 to 100" <<<"$err"

err=$(run -c "$W/bad.conf" 2>&1); rc=$?
check "the daemon refuses a bad config with exit 78" test $rc -eq 78
check "... naming the line" grep -qF "$W/bad.conf:4:" <<<"$err"
check "... and leaves the knob alone" test "$(knob)" = Y

mv "$W/root/proc/pressure/memory" "$W/psi.away"
err=$(run -c "$W/good.conf" 2>&1); rc=$?
mv "$W/psi.away" "$W/root/proc/pressure/memory"
check "no PSI: exit 69" test $rc -eq 69
check "... telling to boot with psi=1" grep -q "boot with psi=1" <<<"$err"

# A running daemon: Baseline=off makes it write the knob at start.
printf '[Daemon]\nBaseline=off\n' > "$W/off.conf"
"${RUN[@]}" -c "$W/off.conf" 2>"$W/log" & PID=$!
wait_for_line "$W/log" 'Started \(pid'
check "at start the knob goes to Baseline=off" test "$(knob)" = N
check "the original value is saved first" grep -qx 'VALUE=Y' "$W/run/original-knob"
check "the startup probes are logged" bash -c "grep -q 'Knob: shrinker_enabled = Y' '$W/log' &&
	grep -q 'Swap: none active' '$W/log' && grep -q 'PSI: /proc/pressure/memory, no trigger' '$W/log'"

# SIGHUP with a broken file: keeps running with the old configuration.
printf '[Daemon]\nBaseline=off\nWhat\n' > "$W/off.conf"
kill -HUP "$PID"
wait_for_line "$W/log" 'keeping the old configuration'
check "a failed reload names FILE:LINE" grep -qF "$W/off.conf:3: syntax error" "$W/log"
check "... and the daemon keeps running" kill -0 "$PID"
printf '[Daemon]\nBaseline=off\n[Pool]\nSampleMs=300\n' > "$W/off.conf"
kill -HUP "$PID"
wait_for_line "$W/log" 'Reloaded configuration'
check "a good reload is applied" grep -q "Reloaded configuration from $W/off.conf" "$W/log"

kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
check "SIGTERM exits 0" test $rc -eq 0
check "... after restoring the knob" test "$(knob)" = Y
check "... and removing the save file" test ! -e "$W/run/original-knob"

# SIGKILL leaves the knob changed; --restore (ExecStopPost=) puts it back.
"${RUN[@]}" -c "$W/off.conf" 2>"$W/log2" & PID=$!
wait_for_line "$W/log2" 'Started \(pid'
kill -KILL "$PID"; wait "$PID" 2>/dev/null; PID=
check "after SIGKILL the knob is still changed" test "$(knob)" = N
run --restore 2>"$W/log3"; rc=$?
check "--restore exits 0" test $rc -eq 0
check "--restore puts the original back" test "$(knob)" = Y
check "--restore says so" grep -q "Restored shrinker_enabled to its original value Y" "$W/log3"
check "--restore removes the save file" test ! -e "$W/run/original-knob"
run --restore; check "--restore with nothing saved is a no-op" test $? -eq 0 -a "$(knob)" = Y

# --dry-run never writes.
"${RUN[@]}" -c "$W/off.conf" --dry-run 2>"$W/log4" & PID=$!
wait_for_line "$W/log4" 'Started \(pid'
kill -TERM "$PID"; wait "$PID"; PID=
check "--dry-run logs what it would do" grep -q "Would set shrinker_enabled=N" "$W/log4"
check "--dry-run leaves the knob alone" test "$(knob)" = Y

finish
