#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A file size limit (ulimit -f, the unit's LimitFSIZE=) never kills the
# daemon (issue 46): SIGXFSZ is ignored, so a write past the limit fails with
# EFBIG, and every write path handles that: the recording stops after its
# last whole line, a save file that cannot be written changes nothing (fail
# closed), the status file and the metrics textfile are said once and leave
# no temporary behind; SIGTERM still restores everything. On a31205f the
# first write past the limit killed the daemon (SIGXFSZ, exit 153), leaving
# a partial recording line and the knob and the caps as it had set them.
# The daemon runs in a subshell that lowers its own limit (bash's ulimit -f,
# in KiB, or prlimit(1) for a limit in bytes); its stderr goes through a pipe
# to a cat without the limit.
set -u
. "$(dirname "$0")/lib.sh"

scratch fsize

fake_tree "$W" Y
CG=$W/root/sys/fs/cgroup/batch.slice
mkdir -p "$CG"
echo max > "$CG/memory.zswap.max"
echo 61440000 > "$CG/memory.zswap.current"
cap() { cat "$CG/memory.zswap.max"; }
# Baseline=off: the knob is written (Y -> N) at start, and the batch cgroup
# capped; a fake tree has no PSI trigger: a sample every SampleMs, each
# one a recording line
printf '[Daemon]\nBaseline=off\n[Pool]\nSampleMs=20\nMinSampleMs=10\n[Batch]\nCgroups=/sys/fs/cgroup/batch.slice\n' \
	> "$W/f.conf"
# and a metrics textfile (some 5 KiB)
mkdir -m 0755 "$W/prom"
printf '[Metrics]\nTextfileDirectory=%s\n' "$W/prom" | cat "$W/f.conf" - > "$W/m.conf"

# limit BYTES: this (sub)shell's RLIMIT_FSIZE
limit() {
	if (($1 % 1024 == 0)); then ulimit -f $(($1 / 1024)); else prlimit --pid "$BASHPID" --fsize="$1:"; fi
}
# start BYTES CONF STATE LOG ARGS...: the daemon with files limited to BYTES; $PID
start() {
	local bytes=$1 conf=$2 state=$3 log=$4; shift 4
	(limit "$bytes" && exec "$ZT" --root "$W/root" -c "$conf" --state-dir "$state" "$@") \
		2> >(exec cat > "$log") &
	PID=$!
}
# samples LOG N: N more samples logged (--log-level=debug) while it runs
samples() {
	local l
	l=$(wc -l < "$1")
	timeout 10 grep -m"$2" -c 'sample:' <(tail -n +$((l + 1)) -F "$1") > /dev/null && alive
}
# stop: SIGTERM, then the exit status
stop() {
	local rc
	kill -TERM "$PID" 2>/dev/null
	wait "$PID"
	rc=$?
	PID=
	return $rc
}
alive() { kill -0 "$PID" 2>/dev/null; }
# temporaries() DIR: what an interrupted atomic write left there
temporaries() { (cd "$1" && ls -A | grep -E '\.[A-Za-z0-9]{6}$'); }

# ---- the recording reaches the limit while the daemon runs -----------------
REC=$W/rec
start 4096 "$W/f.conf" "$W/s1" "$W/log1" --record="$REC" --log-level=debug
wait_for_line "$W/log1" 'Started \(pid'
check "the daemon steers under ulimit -f 4 (4 KiB)" test "$(knob)" = N -a "$(cap)" != max
wait_for_line "$W/log1" "record=$REC: .*recording stopped" 20
check "the recording is stopped at the limit, saying why" \
	grep -q -- "--record=$REC: File too large; recording stopped (the file size limit: ulimit -f, LimitFSIZE=)" "$W/log1"
check "... once" test "$(grep -c 'recording stopped' "$W/log1")" = 1
check "... and the daemon goes on sampling (not killed by SIGXFSZ)" samples "$W/log1" 3
check "the recording ends with a whole line" test "$(tail -c 1 "$REC" | od -An -c | tr -d ' ')" = '\n'
check "... near the limit ($(stat -c %s "$REC") bytes)" test "$(stat -c %s "$REC")" -gt 3800
check "... and replays (every line whole)" "$ZT" replay "$REC" --quiet > /dev/null
stop; rc=$?
check "SIGTERM: exit 0 (was $rc; 153 is death by SIGXFSZ)" test $rc -eq 0
check "... with the knob restored" test "$(knob)" = Y
check "... and the cap" test "$(cap)" = max
check "... and the state directory empty" test -z "$(cd "$W/s1" && ls -A | grep -vx lock)"

# ---- no file of ours can be written: fail closed ---------------------------
# 16 bytes: the fake knob and cap files (a few bytes) take their writes, the
# save file (30 bytes), the status file, the metrics and the recording's
# first line (26 bytes: a partial write, then EFBIG) do not
start 16 "$W/m.conf" "$W/s2" "$W/log2" --record="$W/rec0" --log-level=debug
wait_for_line "$W/log2" 'Started \(pid'
# each sample tries the status file again
check "with a limit of 16 bytes the daemon runs, sampling" samples "$W/log2" 5
check "... the originals unsaved, so the knob is not written" test "$(knob)" = Y
check "... nor the cap" test "$(cap)" = max
check "... saying so once: monitoring only" test "$(grep -c 'changing nothing (monitoring only)' "$W/log2")" = 1
check "... naming the error" grep -q "original-knob: File too large" "$W/log2"
check "the status file is said once" test "$(grep -c "Cannot write $W/s2/status: File too large" "$W/log2")" = 1
check "the metrics textfile is said once" \
	test "$(grep -c "Cannot write $W/prom/zswap_tuned.prom: File too large" "$W/log2")" = 1
check "the recording is refused once, its torn first line cut off" \
	test "$(grep -c 'recording stopped' "$W/log2")" = 1 -a ! -s "$W/rec0"
stop; rc=$?
# looked at once it has stopped: while it runs, each sample tries the status
# file again, and may be caught between its temporary and the failed write
check "no temporary is left behind" test -z "$(temporaries "$W/s2")$(temporaries "$W/prom")"
check "SIGTERM: exit 0 (was $rc)" test $rc -eq 0
check "... the knob and the cap as they were" test "$(knob)" = Y -a "$(cap)" = max

# ---- the status file comes back with the room ------------------------------
# a dry run: nothing it says changes, yet the status file it could not write
# is written once the limit is raised (from outside, by prlimit: the soft
# limit up to the hard one, which the 16 bytes left as it was)
start 16 "$W/f.conf" "$W/s3" "$W/log3" --dry-run --log-level=debug
wait_for_line "$W/log3" "Cannot write $W/s3/status: File too large"
check "a dry run goes on sampling" samples "$W/log3" 5
check "... without its status file" test ! -e "$W/s3/status"
prlimit --pid "$PID" --fsize="$(prlimit --pid "$PID" --fsize --output HARD --noheadings | tr -d ' '):"
check "with the limit raised, it is written at a later sample" wait_for_line "$W/log3" "Wrote $W/s3/status again"
check "... and says what the daemon does" grep -q '^DRY_RUN=1$' "$W/s3/status"
stop; rc=$?
check "SIGTERM: exit 0 (was $rc)" test $rc -eq 0

finish
