#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The cases of the guest suite (issue 10). Runs inside the guest at boot, as
# root, from the 9p share mounted on /out (zt-guest-boot); the daemon is
# installed in the image by "make install" (unit in /usr/lib/systemd/system,
# not enabled). Writes TAP to /out/results/tap.txt, ending with "# guest done";
# details (journal, samples, interfaces) next to it. tests/guest/run.sh boots
# the guest and judges the TAP.
#
# Set-up: swap on /dev/vdb (1 GiB), zswap enabled with max_pool_percent=POOL_PCT,
# cgroups /sys/fs/cgroup/zt-batch (memory.max=HOG_MAX, the batch job) and
# zt-probe (memory.max=PROBE_MAX, a small re-writer: the latency-sensitive
# work), the daemon configured with [Pressure] Cgroups=zt-probe, [Batch]
# Cgroups=zt-batch and a 1 s trigger window.
#
# What differs per kernel is decided from the kernel itself (shrinker_enabled
# exists from 6.8 on) and checked against KERNEL_NAME from /out/params:
# 6.1 must have no knob, 6.12 and newer must have one.
# sysfs and cgroup file names are plain words, so ls is fine here; case " list " in is a membership test.
# shellcheck disable=SC2010,SC2045,SC2194
set -u
export LC_ALL=C SYSTEMD_PAGER='' SYSTEMD_COLORS=0
S=/out
R=$S/results
mkdir -p "$R"
KERNEL_NAME=unknown GUEST_CASES=
# shellcheck disable=SC1091
[ -f $S/params ] && . $S/params
TAP=$R/tap.txt
: > "$TAP"

P=/sys/module/zswap/parameters
CG=/sys/fs/cgroup
BATCH=$CG/zt-batch
BATCH2=$CG/zt-batch2
PROBE=$CG/zt-probe
UNIT=zswap-tuned.service
DROPDIR=/etc/zswap-tuned.conf.d
CONF=$DROPDIR/guest.conf
UNITDROP=/run/systemd/system/$UNIT.d/zz-guest.conf
FLIP_ID=5b0c2a4e6f8d4c1f9e3a7b2d1c0e9f84
CAP_ID=93e0e0673f74434ab5a4da1a8f8b7709
HOG=$S/bin/zt-hog
SAMPLER=$S/bin/zt-sample
DBG=/sys/kernel/debug/zswap
POOL_PCT=3          # pool limit: 3% of ~1.9 GiB, about 60 MiB
HOG_MB=400          # the batch job: 400 MiB of ~3:1 compressible pages ...
HOG_MAX=160M        # ... in a cgroup with memory.max=160M (on v2 it counts the job's zswap share)
PROBE_MB=48         # the probe: 48 MiB rewritten at 8 MiB/s in memory.max=32M
PROBE_MAX=32M
FULL_PCT=95         # "at the limit": the pool at >= 95% of it

log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*" | tee -a "$R/progress.log" > /dev/console; }
diag() { printf '%s\n' "$@" | sed 's/^/# /' >> "$TAP"; }
indent() { sed 's/^/    /'; }

N=0
run_case() { # run_case NAME FUNCTION
	local name=$1 t0 rc
	if [ -n "$GUEST_CASES" ] && ! grep -qw -- "$2" <<<"$GUEST_CASES"; then return; fi
	N=$((N + 1))
	t0=$(date +%s.%N)
	log "case $N: $name"
	"$2" > "$R/case-$N.log" 2>&1
	rc=$?
	local dt
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" = 0 ]; then
		echo "ok $N - $name (${dt} s)" >> "$TAP"
	elif [ "$rc" = 77 ]; then
		echo "ok $N - $name # SKIP $(tail -n 1 "$R/case-$N.log")" >> "$TAP"
	else
		echo "not ok $N - $name (${dt} s)" >> "$TAP"
		sed 's/^/# /' "$R/case-$N.log" | tail -n 40 >> "$TAP"
		{ echo "# systemctl status; journal tail:"
		  systemctl status --no-pager -n 0 "$UNIT" 2>&1 | sed 's/^/#   /'
		  journalctl -q --no-pager -u "$UNIT" -b -n 20 -o cat 2>&1 | sed 's/^/#   /'; } >> "$TAP"
	fi
	log "case $N: rc $rc ($dt s)"
}
fail() { echo "FAIL: $*"; return 1; }

# wait_until SECONDS COMMAND...: poll every 0.2 s
wait_until() {
	local end=$(( $(date +%s) + $1 ))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# ---------------------------------------------------------------- journal
jmark() { date +%s.%N; }
# jlog MARK [MATCH...]: the unit's messages since MARK
jlog() { local m=$1; shift; journalctl -q --no-pager -u "$UNIT" --since "@$m" -o cat "$@" 2>/dev/null; }
jcount() { local m=$1 re=$2; shift 2; jlog "$m" "$@" | grep -cE -- "$re"; }
jhas() { [ "$(jcount "$@")" -gt 0 ]; }
jwait() { wait_until "${JWAIT:-15}" jhas "$@" || { echo "journal: no /$2/ since $1"; jlog "$1" | tail -n 30 | indent; return 1; }; }
# jexport MARK MATCH...: matching entries, FIELD=value lines, entries separated by blank lines.
# Only the daemon's own text fields: export writes a field whose value holds a newline
# (_SELINUX_CONTEXT=unconfined\n in the guests) length-prefixed in binary, which cut a
# flip record short once the daemon flipped during case 3 (batch-full, 6.12).
JFIELDS=MESSAGE_ID,MESSAGE,CGROUP,UNIT,KNOB,KNOB_VALUE,PREVIOUS_VALUE,MODE,REASON,PRESSURE_PERCENT,POOL_PERCENT,DRY_RUN
jexport() {
	local m=$1; shift
	journalctl -q --no-pager -u "$UNIT" --since "@$m" -o export --output-fields="$JFIELDS" "$@" 2>/dev/null
}

# ---------------------------------------------------------------- kernel state
HAVE_KNOB=false
[ -e $P/shrinker_enabled ] && HAVE_KNOB=true
knob() { cat $P/shrinker_enabled 2>/dev/null; }
knob_is() { [ "$(knob)" = "$1" ]; }
zmax() { cat "$1/memory.zswap.max" 2>/dev/null; }
capped() { local v; v=$(zmax "$1") && [ -n "$v" ] && [ "$v" != max ]; }
uncapped() { [ "$(zmax "$1")" = max ]; }
pool_kb() { local k v _; while read -r k v _; do [ "$k" = Zswap: ] && { echo "$v"; return; }; done < /proc/meminfo; echo 0; }
limit_kb() { awk -v p="$(cat $P/max_pool_percent)" '$1 == "MemTotal:" { printf "%d", $2 * p / 100 }' /proc/meminfo; }
# Every memory.zswap.max on the machine, "path value" lines.
all_zmax() { find $CG -name memory.zswap.max -print0 | sort -z | xargs -0 grep -H . | sed 's/:/ /'; }

active() { [ "$(systemctl is-active "$UNIT")" = active ]; }
not_running() { local s; s=$(systemctl is-active "$UNIT"); [ "$s" = inactive ] || [ "$s" = failed ]; }
mainpid() { systemctl show -p MainPID --value "$UNIT"; }
stop_daemon() { systemctl stop "$UNIT" 2>/dev/null; systemctl reset-failed "$UNIT" 2>/dev/null; }

BATCH_LIST=zt-batch
write_conf() { # extra lines appended after the suite's settings; [Batch] Cgroups=$BATCH_LIST
	mkdir -p $DROPDIR
	{ echo "# written by tests/guest/guest.sh"
	  printf '%s\n' '[Pressure]' 'Cgroups=zt-probe' 'TriggerStallMs=100' 'TriggerWindowMs=1000' \
		'[Batch]' "Cgroups=$BATCH_LIST"
	  printf '%s\n' "$@"; } > $CONF
}
unit_dropin() { # unit_dropin LINE...: a drop-in for the unit ([Service] lines); none without arguments
	rm -f $UNITDROP
	if [ $# -gt 0 ]; then
		mkdir -p "$(dirname $UNITDROP)"
		printf '%s\n' '[Service]' "$@" > $UNITDROP
	fi
	systemctl daemon-reload
}

# ---------------------------------------------------------------- workloads
# in_cgroup CG CMD...: run CMD in cgroup CG, in the background; PID in $!
in_cgroup() { local cg=$1; shift; ( echo "$BASHPID" > "$cg/cgroup.procs" && exec "$@" ) & }
PROBE_PID=
probe_start() { in_cgroup $PROBE "$HOG" --size $PROBE_MB --ratio 2 --rate 8 --hold 100000 > "$R/probe.out" 2>&1; PROBE_PID=$!; }
probe_stop() { [ -n "$PROBE_PID" ] && { kill "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; }; PROBE_PID=; }
drain() { # until the pool is (nearly) empty again
	wait_until 60 eval '[ "$(pool_kb)" -le 2048 ]' || echo "warning: pool did not drain: $(pool_kb) kB"
}

# workload TAG: probe + batch job; zt-sample writes "t_ms pool_kB cap" every
# 100 ms into $R/samples-TAG (cap = the batch cgroup's memory.zswap.max).
# Sets MAXPCT (highest pool % of limit), MAXPCT_CAPPED (highest while capped),
# NCAPPED, NSAMPLES, MAXGAP (longest gap between samples, ms).
workload() {
	local tag=$1 lim hog smp f=$R/samples-$1 rc t0
	lim=$(limit_kb)
	# The probe first, until its share of the pool has settled (its fill takes
	# PROBE_MB / 8 s): the cap is then set against it. A probe that grows after
	# the batch job has filled its cap can take the pool to its limit (the cap
	# stops new stores only): that race is not what this case measures.
	probe_start
	sleep $((PROBE_MB / 8 + 3))
	echo "$tag: probe's memory.zswap.current before the job: $(cat $PROBE/memory.zswap.current), cap $(zmax $BATCH)"
	echo "t_ms pool_kB batch_zswap_max batch_zswap_current probe_zswap_current debugfs_pool_total_size debugfs_stored_pages" > "$f.columns"
	"$SAMPLER" 100 "$f" $BATCH/memory.zswap.max $BATCH/memory.zswap.current $PROBE/memory.zswap.current \
		$DBG/pool_total_size $DBG/stored_pages & smp=$!
	t0=$(date +%s)
	in_cgroup $BATCH "$HOG" --size $HOG_MB --ratio 3 --rate 0 --hold 2 > "$R/hog-$tag.out" 2>&1
	hog=$!
	wait "$hog"; rc=$?
	kill "$smp"; wait "$smp"
	probe_stop
	read -r MAXPCT MAXPCT_CAPPED NCAPPED NSAMPLES MAXGAP < <(awk -v lim="$lim" '
		{ p = 100 * $2 / lim; if (p > m) m = p; if ($3 != "max" && $3 != "-") { n++; if (p > mc) mc = p }
		  if (NR > 1 && $1 - t > g) g = $1 - t; t = $1 }
		END { printf "%.1f %.1f %d %d %d\n", m, mc, n, NR, g }' "$f")
	# the fullest sample, and (while capped) how the pool splits up there
	echo "$tag: fullest sample ($(cat "$f.columns")): $(sort -k2,2n "$f" | tail -n 1)"
	awk -v lim="$lim" -v f=$FULL_PCT '$3 != "max" && $3 != "-" && 100 * $2 / lim >= f' "$f" > "$f.over"
	[ ! -s "$f.over" ] || { echo "$tag: $(wc -l < "$f.over") capped samples at >= ${FULL_PCT}%, first ones:"; head -n 5 "$f.over" | indent; }
	echo "$tag: hog exit $rc ($(cat "$R/hog-$tag.out")) in $(( $(date +%s) - t0 )) s, pool limit $lim kB, $NSAMPLES samples (longest gap $MAXGAP ms), max pool ${MAXPCT}% of limit, $NCAPPED capped samples, max while capped ${MAXPCT_CAPPED}%"
	drain
}

# ---------------------------------------------------------------- setup
setup() {
	local d
	log "setup: kernel $(uname -r), expected $KERNEL_NAME"
	{ echo "kernel=$(uname -r)"; echo "kernel_packages=$KERNEL_PKG_VERSION"; echo "cmdline=$(cat /proc/cmdline)"
	  echo "systemd=$(systemctl --version | head -1)"; grep -E '^(MemTotal|SwapTotal):' /proc/meminfo
	  echo "cgroup_fs=$(stat -fc %T $CG)"; echo "controllers=$(cat $CG/cgroup.controllers)"
	  echo "daemon=$(/usr/sbin/zswap-tuned --version 2>&1 | head -1)"; } > "$R/env.txt"
	mkswap /dev/vdb > /dev/null && swapon /dev/vdb || echo "setup: no swap on /dev/vdb"
	echo Y > $P/enabled
	echo $POOL_PCT > $P/max_pool_percent
	$HAVE_KNOB && echo N > $P/shrinker_enabled
	grep -qw memory $CG/cgroup.subtree_control || echo +memory > $CG/cgroup.subtree_control
	for d in $BATCH $PROBE; do mkdir -p $d; done
	echo $HOG_MAX > $BATCH/memory.max
	echo $PROBE_MAX > $PROBE/memory.max
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	write_conf
	systemctl daemon-reload
	{ echo "swap: $(swapon --show --noheadings | tr '\n' ' ')"; echo "zswap: $(grep -H . $P/* | tr '\n' ' ')"; } >> "$R/env.txt"
	diag "$(uname -r) ($KERNEL_PKG_VERSION), $(systemctl --version | head -1)"
}

# Which kernel behaviour to expect: 6.1 has no knob, every newer one must.
expect_knob() {
	[ -z "${KERNEL_RELEASE:-}" ] || [ "$(uname -r)" = "$KERNEL_RELEASE" ] ||
		fail "booted $(uname -r), expected $KERNEL_RELEASE" || return 1
	[ -d "/lib/modules/$(uname -r)" ] || fail "no /lib/modules/$(uname -r) in this image" || return 1
	case $KERNEL_NAME in
	6.1) ! $HAVE_KNOB || fail "6.1 guest has $P/shrinker_enabled" ;;
	*) $HAVE_KNOB || fail "$KERNEL_NAME guest ($(uname -r)) has no $P/shrinker_enabled" ;;
	esac
}

# ---------------------------------------------------------------- 1
PID1=
MARK1=
case_enable() {
	local out rc pid log re n st json
	expect_knob || return 1
	stop_daemon; write_conf
	MARK1=$(jmark)
	out=$(systemctl enable --now "$UNIT" 2>&1); rc=$?
	[ "$rc" = 0 ] || { echo "systemctl enable --now failed ($rc):"; echo "$out" | indent; return 1; }
	[ "$(systemctl is-enabled "$UNIT")" = enabled ] || fail "not enabled" || return 1
	# Type=notify: "active" only after READY=1
	active || fail "not active after enable --now: $(systemctl is-active "$UNIT")" || return 1
	pid=$(mainpid); PID1=$pid; echo "main pid $PID1"
	JWAIT=20 jwait "$MARK1" '^Started \(pid [0-9]+\)' "_PID=$pid" || return 1
	log=$(jlog "$MARK1" "_PID=$pid")
	echo "startup lines:"; echo "$log" | indent
	if $HAVE_KNOB; then
		set -- '^Knob: shrinker_enabled = N$' '^Started \(pid [0-9]+\)$'
		st='^(Idle|Favouring stores|Protecting pool), shrinker_enabled=[YN], pressure [0-9]+\.[0-9]%( \(the rest: [^()]+\))?, pool [0-9]+% of limit$'
	else
		set -- '^Knob: neither shrinker_enabled \(Linux 6\.8\+\) nor shrink_enabled exists; monitoring only, batch caps still apply$' \
			'^Started \(pid [0-9]+\), monitoring only$'
		st='^(Idle|Favouring stores|Protecting pool), knob none, pressure [0-9]+\.[0-9]%( \(the rest: [^()]+\))?, pool [0-9]+% of limit$'
	fi
	for re in "$@" \
		"^zswap: enabled(, compressor [^,]+)?, max_pool_percent=$POOL_PCT \\(limit [^)]+\\)$" \
		'^Swap: 1 active device\(s\)' \
		'^debugfs: /sys/kernel/debug/zswap (available|not available)' \
		'^Batch: /sys/fs/cgroup/zt-batch/memory\.zswap\.max, zswap capped at most at [0-9.]+% of the pool limit'; do
		n=$(grep -cE -- "$re" <<<"$log")
		[ "$n" = 1 ] || fail "want one startup line /$re/, found $n" || return 1
	done
	! grep -q 'Memory controller is on cgroup v1' <<<"$log" || fail "cgroup v1 warning in a cgroup v2 guest" || return 1
	wait_until 10 eval '[ -n "$(systemctl show -p StatusText --value $UNIT)" ]'
	out=$(systemctl show -p StatusText --value "$UNIT")
	echo "STATUS: $out"
	grep -qE -- "$st" <<<"$out" || fail "STATUS /$st/ not matched" || return 1
	json=$(zswap-tuned status --json); rc=$?
	echo "status --json: $json"
	[ "$rc" = 0 ] || fail "zswap-tuned status --json exit $rc" || return 1
	grep -q "\"pid\":${pid}[,}]" <<<"$json" || fail "status --json has not pid $pid" || return 1
	if $HAVE_KNOB; then
		grep -q '"knob":"shrinker_enabled"' <<<"$json" || fail "status --json: knob is not shrinker_enabled" || return 1
	else
		grep -q '"knob":null' <<<"$json" || fail "status --json: knob is not null" || return 1
	fi
	grep -q '"cgroup":"zt-batch"' <<<"$json" || grep -q '"cgroup":"/sys/fs/cgroup/zt-batch"' <<<"$json" ||
		fail "status --json lists no batch cgroup zt-batch" || return 1
	diag "STATUS: $out"
}

# ---------------------------------------------------------------- 2
case_psi() {
	local log pid n re
	active || fail "daemon not running" || return 1
	pid=$(mainpid)
	log=$(jlog "$MARK1" "_PID=$pid")
	for re in '^PSI: /proc/pressure/memory, trigger "some 100000 1000000"$' \
		'^PSI: /sys/fs/cgroup/zt-probe/memory\.pressure, trigger "some 100000 1000000"$' \
		'^PSI: /sys/fs/cgroup/zt-batch/memory\.pressure, trigger "some 100000 1000000" \(batch: to look at the pool, not pressure\)$'; do
		n=$(grep -cE -- "$re" <<<"$log")
		[ "$n" = 1 ] || fail "want one line /$re/, found $n" || return 1
	done
	! grep -E 'needs CAP_SYS_RESOURCE|no trigger|cannot watch' <<<"$log" || fail "a PSI trigger fell back" || return 1
	grep -q psi-window-rounded <<<"$(zswap-tuned status --json)" && { fail "status --json warns psi-window-rounded"; return 1; }
	echo "CapEff of the daemon: $(awk '/^CapEff/ { print $2 }' /proc/"$pid"/status)"
}

# ---------------------------------------------------------------- 3
case_batch() {
	local mark entry e n f bad=0
	# Without the daemon: the same job must take the pool to its limit, else
	# the case proves nothing.
	stop_daemon
	uncapped $BATCH || fail "zt-batch still capped ($(zmax $BATCH)) with the daemon stopped" || return 1
	drain
	workload nodaemon
	local void_max=$MAXPCT
	awk -v m="$void_max" -v f=$FULL_PCT 'BEGIN { exit !(m >= f) }' ||
		fail "void: without the daemon the pool reached only ${void_max}% of its limit (< ${FULL_PCT}%)" || return 1
	# With the daemon: capped before the job starts, the pool stays below 95%.
	write_conf
	mark=$(jmark)
	systemctl start "$UNIT" || fail "systemctl start failed" || return 1
	wait_until 15 capped $BATCH || fail "zt-batch not capped within 15 s: memory.zswap.max=$(zmax $BATCH)" || return 1
	echo "cap before the job: $(zmax $BATCH) bytes"
	workload daemon
	[ "$NCAPPED" -gt 0 ] || fail "no sample with the cap in force" || return 1
	awk -v m="$MAXPCT_CAPPED" -v f=$FULL_PCT 'BEGIN { exit !(m < f) }' ||
		fail "with the cap in force the pool reached ${MAXPCT_CAPPED}% of its limit (>= ${FULL_PCT}%)" || return 1
	[ "$NCAPPED" = "$NSAMPLES" ] || echo "note: $((NSAMPLES - NCAPPED)) of $NSAMPLES samples without the cap"
	diag "pool max: ${void_max}% of the limit without the daemon, ${MAXPCT_CAPPED}% with the cap ($NCAPPED/$NSAMPLES samples capped)"
	# The cap records and the flips, each with its fields.
	jexport "$mark" "MESSAGE_ID=$CAP_ID" > "$R/cap-records"
	grep -q '^CGROUP=zt-batch$' "$R/cap-records" || fail "no cap record with CGROUP=zt-batch" || return 1
	jexport "$mark" "MESSAGE_ID=$FLIP_ID" > "$R/flip-records"
	n=$(grep -c '^MESSAGE_ID=' "$R/flip-records")
	if ! $HAVE_KNOB; then
		[ "$n" = 0 ] || fail "$n flip records on a kernel without a knob" || return 1
		return 0
	fi
	# every flip: KNOB, KNOB_VALUE, PREVIOUS_VALUE, MODE, REASON (a known value), PRESSURE_PERCENT, POOL_PCT
	awk -v RS= '{ print > ("'"$R"'/flip." NR) }' "$R/flip-records"
	for e in $(seq 1 "$n"); do
		entry=$(cat "$R/flip.$e")
		echo "flip $e: $(grep '^MESSAGE=' <<<"$entry")"
		for f in '^KNOB=shrinker_enabled$' '^KNOB_VALUE=[YN]$' '^PREVIOUS_VALUE=[YN]$' '^MODE=(protect|throughput|idle)$' \
			'^REASON=(pool-high|pool-rising|batch-full|pressure|pool-settled|calm|blind|zswap-disabled|retry|none)$' \
			'^PRESSURE_PERCENT=[0-9]+\.[0-9]$' '^POOL_PERCENT=[0-9]+$' '^DRY_RUN=0$'; do
			grep -qE -- "$f" <<<"$entry" || { echo "flip $e lacks /$f/:"; echo "$entry" | indent; bad=1; }
		done
	done
	diag "flips during the job: $n$( [ "$n" -gt 0 ] && echo ": $(grep -h '^REASON=' "$R"/flip.* | sort | uniq -c | tr -s ' \n' ' ')")"
	[ "$bad" = 0 ]
}

# ---------------------------------------------------------------- 4
# restore_case HOW: start with Baseline=on (the knob goes to Y) and a cap,
# end the daemon HOW, then the knob and every memory.zswap.max are as before.
restore_case() {
	local how=$1 before after pid mark res
	stop_daemon
	$HAVE_KNOB && echo N > $P/shrinker_enabled
	case $how in
	stop) unit_dropin ;;
	kill) unit_dropin 'Restart=no' ;;
	watchdog) unit_dropin 'Restart=no' 'WatchdogSec=2s' 'TimeoutAbortSec=10s' ;;
	esac
	write_conf '[Daemon]' 'Baseline=on'
	before=$(all_zmax)
	mark=$(jmark)
	systemctl start "$UNIT" || fail "systemctl start failed" || return 1
	wait_until 15 capped $BATCH || fail "zt-batch not capped: $(zmax $BATCH)" || return 1
	if $HAVE_KNOB; then wait_until 10 knob_is Y || fail "Baseline=on: knob is $(knob), not Y" || return 1; fi
	pid=$(mainpid)
	echo "running: pid $pid, knob $(knob), zt-batch memory.zswap.max=$(zmax $BATCH)"
	case $how in
	stop) systemctl stop "$UNIT" ;;
	kill) kill -9 "$pid" ;;
	watchdog) kill -STOP "$pid" ;;
	esac
	wait_until 40 not_running || fail "unit still $(systemctl is-active "$UNIT") after $how" || return 1
	res=$(systemctl show -p Result --value "$UNIT")
	echo "Result=$res"
	case $how in
	kill) [ "$res" = signal ] || fail "Result=$res, want signal" || return 1 ;;
	watchdog) [ "$res" = watchdog ] || fail "Result=$res, want watchdog" || return 1 ;;
	esac
	after=$(all_zmax)
	[ "$before" = "$after" ] || { echo "memory.zswap.max before:"; echo "$before" | indent; echo "after:"; echo "$after" | indent; fail "a memory.zswap.max was not restored"; return 1; }
	if $HAVE_KNOB; then
		knob_is N || fail "knob is $(knob) after $how, want N" || return 1
		[ "$how" = stop ] || jwait "$mark" '^Restored shrinker_enabled to its original value N$' || return 1
	fi
	[ ! -e /run/zswap-tuned/original-knob ] || fail "the save file is still there" || return 1
	unit_dropin
	stop_daemon
}
case_restore_stop() { restore_case stop; }
case_restore_kill() { restore_case kill; }
case_restore_watchdog() { restore_case watchdog; }

# ---------------------------------------------------------------- 5
# Removal: no error and no loop while the daemon runs on; exactly one "is gone;
# forgetting its cap" line at the next sample (the removal of its memory.pressure
# also wakes the daemon), not only at the next write of the cap; a reload changes
# nothing. A cgroup of that name created again starts uncapped and is capped afresh.
case_batch_gone() {
	local mark n
	stop_daemon
	mkdir -p $BATCH
	write_conf
	systemctl start "$UNIT" || fail "systemctl start failed" || return 1
	wait_until 15 capped $BATCH || fail "zt-batch not capped: $(zmax $BATCH)" || return 1
	mark=$(jmark)
	rmdir $BATCH || fail "rmdir $BATCH failed" || return 1
	JWAIT=20 jwait "$mark" '^Batch: /sys/fs/cgroup/zt-batch/memory\.zswap\.max is gone; forgetting its cap$' || return 1
	# the probe makes the pool move, so the daemon samples (and the cap may move)
	probe_start
	sleep 10
	probe_stop
	systemctl reload "$UNIT" || fail "systemctl reload failed" || return 1
	sleep 3
	jlog "$mark" > "$R/batch-gone.journal"
	echo "journal since the rmdir:"; indent < "$R/batch-gone.journal"
	n=$(grep -c 'is gone; forgetting its cap' "$R/batch-gone.journal")
	[ "$n" = 1 ] || fail "want one 'forgetting its cap' line, found $n" || return 1
	n=$(grep -c 'zt-batch/' "$R/batch-gone.journal")
	[ "$n" -le 4 ] || fail "$n lines about zt-batch after its removal: a loop?" || return 1
	n=$(jcount "$mark" . -p err)
	[ "$n" = 0 ] || fail "$n error lines after the removal" || return 1
	active || fail "daemon not running after the removal" || return 1
	# created again: capped afresh once the daemon samples (the probe makes it)
	mkdir -p $BATCH
	uncapped $BATCH || fail "a new zt-batch starts capped" || return 1
	probe_start
	wait_until 30 capped $BATCH; n=$?
	probe_stop
	[ "$n" = 0 ] || fail "zt-batch created again is not capped: $(zmax $BATCH)" || return 1
	echo "created again: memory.zswap.max=$(zmax $BATCH)"
	rmdir $BATCH
}

case_reload_adds() {
	local mark st want
	active || fail "daemon not running" || return 1
	mkdir -p $BATCH2
	uncapped $BATCH2 || fail "zt-batch2 starts capped" || return 1
	mark=$(jmark)
	BATCH_LIST="zt-batch zt-batch2" write_conf
	cat $CONF
	systemctl reload "$UNIT" || fail "systemctl reload failed" || return 1
	wait_until 15 capped $BATCH2 || fail "zt-batch2 not capped after the reload: $(zmax $BATCH2)" || return 1
	jwait "$mark" '^Capped the zswap use of zt-batch2 ' || return 1
	echo "zt-batch2 memory.zswap.max=$(zmax $BATCH2)"
	jlog "$mark" | indent
	# status tells the incompressible pages (stored whole since 6.18) where
	# the kernel has the figures, null where it has not
	st=$(zswap-tuned status --json) || fail "zswap-tuned status --json failed" || return 1
	echo "status --json: $st"
	if grep -q '^zswap_incomp ' $BATCH2/memory.stat; then want='"incompressible_bytes":[0-9]'
	else want='"incompressible_bytes":null'; fi
	grep -q "$want" <<<"$st" || fail "status --json: want $want" || return 1
	if [ -r $DBG/stored_incompressible_pages ]; then want='"incompressible_pages":[0-9]'
	else want='"incompressible_pages":null'; fi
	grep -q "$want" <<<"$st" || fail "status --json: want $want" || return 1
	stop_daemon
	uncapped $BATCH2 || fail "zt-batch2 still capped after stop: $(zmax $BATCH2)" || return 1
	rmdir $BATCH2
	mkdir -p $BATCH; echo $HOG_MAX > $BATCH/memory.max
}

# ---------------------------------------------------------------- 7
# Followed cgroups and units (issue 24): transient units started after the
# daemon, found by a Cgroups= glob, by Units= over sd-bus, and by cpu.idle=1
# (IdleCgroups=yes); stopped ones forgotten; SIGKILL then --restore lifts every
# followed cap. Each transient unit is "systemd-run --unit=NAME ... sleep 600".
FOLLOW_UNITS="zt-batch-1 zt-batch-2 zt-idle-1 zt-idle-2 zt-idle-3 zt-plain-1"
FOLLOW_WAIT=3   # s from "systemd-run returned" to the cap in the file (inotify or a bus signal, then one sample)
trun() { # trun NAME [systemd-run options...]: the transient service NAME.service, started
	local u=$1; shift
	systemd-run --quiet --unit="$u" "$@" sleep 600 || fail "systemd-run --unit=$u $* failed"
}
ucg() { local c; c=$(systemctl show -p ControlGroup --value "$1.service") && [ -n "$c" ] && echo "$CG$c"; }
follow_reset() { # no transient unit, no daemon, no unit drop-in, the suite's conf
	local u
	for u in $FOLLOW_UNITS; do
		systemctl stop "$u.service" 2>/dev/null; systemctl reset-failed "$u.service" 2>/dev/null
	done
	stop_daemon
	[ ! -e $UNITDROP ] || unit_dropin
	mkdir -p $BATCH; echo $HOG_MAX > $BATCH/memory.max
	write_conf
}
# follow_start [CONF LINE...]: the daemon started with the suite's conf plus the lines;
# once zt-batch (the fixed one) is capped, a cap is in force and a new match gets its share at once.
follow_start() {
	write_conf "$@"
	echo "conf:"; indent < $CONF
	systemctl start "$UNIT" || fail "systemctl start failed" || return 1
	wait_until 15 capped $BATCH || fail "zt-batch not capped within 15 s: $(zmax $BATCH)" || return 1
}
# capped_soon NAME: NAME.service's cgroup gets a memory.zswap.max cap within FOLLOW_WAIT s
capped_soon() {
	local c t0
	c=$(ucg "$1") || fail "$1.service has no ControlGroup" || return 1
	t0=$(date +%s.%N)
	if ! wait_until $FOLLOW_WAIT capped "$c"; then
		echo "$1: $c/memory.zswap.max=$(zmax "$c") after $FOLLOW_WAIT s"
		echo "  parent subtree_control: $(cat "$(dirname "$c")/cgroup.subtree_control" 2>&1)"
		echo "  files: $(ls "$c" 2>&1 | grep -E '^(memory\.zswap|cpu\.idle)' | tr '\n' ' ')"
		fail "$1 ($c) not capped within $FOLLOW_WAIT s"; return 1
	fi
	echo "$1: $c capped at $(zmax "$c") after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}
# unit_gone_once MARK NAME: after "systemctl stop NAME" of a capped unit, exactly one line
# saying its cgroup and cap are gone (or, should the cgroup outlive the match, the cap lifted)
unit_gone_once() {
	local re="^Batch: (/sys/fs/cgroup/)?[^ ]*/$2\\.service (is gone; forgetting its cap|no longer matches; lifting its cap)\$" n
	jwait "$1" "$re" || return 1
	n=$(jcount "$1" "$re")
	[ "$n" = 1 ] || { jlog "$1" | indent; fail "want one 'gone' line for $2, found $n"; return 1; }
	jlog "$1" | grep -E -- "$re"
}
# entries MARK ERE: the journal entries (export format) since MARK whose MESSAGE matches ERE
# (the ERE through the environment: awk -v would eat its backslashes)
entries() {
	jexport "$1" | RE=$2 awk -v RS= -v FS='\n' -v ORS='\n\n' \
		'{ for (i = 1; i <= NF; i++) if ($i ~ /^MESSAGE=/ && substr($i, 9) ~ ENVIRON["RE"]) { print; next } }'
}

case_follow_glob() {
	local mark c1 c2 json n
	follow_reset
	mark=$(jmark)
	BATCH_LIST="zt-batch batch.slice/zt-batch-*.service" follow_start || return 1
	trun zt-batch-1 --slice=batch.slice || return 1
	trun zt-batch-2 --slice=batch.slice || return 1
	c1=$(ucg zt-batch-1); c2=$(ucg zt-batch-2)
	[ "$c1" = $CG/batch.slice/zt-batch-1.service ] || fail "zt-batch-1.service is in $c1, not batch.slice" || return 1
	capped_soon zt-batch-1 || return 1
	capped_soon zt-batch-2 || return 1
	jwait "$mark" '^Batch: (/sys/fs/cgroup/)?batch\.slice/zt-batch-1\.service appeared' || return 1
	json=$(zswap-tuned status --json)
	echo "status --json: $json"
	grep -qF '"pattern":"batch.slice/zt-batch-*.service","matches":2' <<<"$json" ||
		fail "status --json does not list the pattern with its 2 matches" || return 1
	# stopped: forgotten, with one line; the other keeps its cap
	mark=$(jmark)
	systemctl stop zt-batch-1.service || fail "systemctl stop zt-batch-1 failed" || return 1
	[ ! -d "$c1" ] || fail "$c1 still there after the stop" || return 1
	unit_gone_once "$mark" zt-batch-1 || return 1
	capped "$c2" || fail "zt-batch-2 lost its cap when zt-batch-1 stopped: $(zmax "$c2")" || return 1
	wait_until 5 eval '! zswap-tuned status --json | grep -q "zt-batch-1\.service"' ||
		fail "status --json still lists zt-batch-1 after its stop: $(zswap-tuned status --json)" || return 1
	n=$(jcount "$mark" . -p err); [ "$n" = 0 ] || fail "$n error lines after the stop" || return 1
	# started again under the same name: capped afresh
	trun zt-batch-1 --slice=batch.slice || return 1
	capped_soon zt-batch-1 || return 1
	# the daemon stopped: every followed cap lifted
	stop_daemon
	uncapped "$c1" && uncapped "$c2" || fail "after stop: zt-batch-1 $(zmax "$c1"), zt-batch-2 $(zmax "$c2")" || return 1
	follow_reset
}

case_follow_units() {
	local mark c1 c2 e u n
	follow_reset
	mark=$(jmark)
	follow_start 'Units=zt-batch-*.service' || return 1
	! jhas "$mark" '^Units=: (no system bus|cannot)' || { jlog "$mark" | indent; fail "Units= did not reach the bus"; return 1; }
	# in system.slice, where no Cgroups= path points: found over the bus alone
	trun zt-batch-1 || return 1
	trun zt-batch-2 || return 1
	trun zt-plain-1 || return 1
	c1=$(ucg zt-batch-1); c2=$(ucg zt-batch-2)
	capped_soon zt-batch-1 || return 1
	capped_soon zt-batch-2 || return 1
	uncapped "$(ucg zt-plain-1)" || fail "zt-plain-1 (not matching) is capped: $(zmax "$(ucg zt-plain-1)")" || return 1
	zswap-tuned status --json | grep -qF '"pattern":"unit:zt-batch-*.service","matches":2' ||
		fail "status --json does not list unit:zt-batch-*.service with 2 matches: $(zswap-tuned status --json)" || return 1
	for u in zt-batch-1 zt-batch-2; do
		e=$(entries "$mark" "^Batch: .*/$u\\.service appeared")
		echo "$e"
		grep -qx "UNIT=$u.service" <<<"$e" || fail "no 'appeared' entry for $u with UNIT=$u.service" || return 1
	done
	mark=$(jmark)
	systemctl stop zt-batch-1.service || fail "systemctl stop zt-batch-1 failed" || return 1
	unit_gone_once "$mark" zt-batch-1 || return 1
	e=$(entries "$mark" '^Batch: .*/zt-batch-1\.service (is gone|no longer matches)')
	echo "$e"
	grep -qx 'UNIT=zt-batch-1.service' <<<"$e" || fail "the 'gone' entry lacks UNIT=zt-batch-1.service" || return 1
	capped "$c2" || fail "zt-batch-2 lost its cap when zt-batch-1 stopped: $(zmax "$c2")" || return 1
	n=$(jcount "$mark" . -p err); [ "$n" = 0 ] || fail "$n error lines after the stop" || return 1
	# the daemon stopped while zt-batch-2 runs: its cap lifted
	stop_daemon
	uncapped "$c2" || fail "zt-batch-2 still capped after the daemon stopped: $(zmax "$c2")" || return 1
	follow_reset
}

# systemd mkdirs a unit's cgroup and writes cpu.idle a moment later: three
# idle units one after the other, so that the daemon's read racing that
# write shows up here rather than on someone's machine.
case_follow_idle() {
	local mark c p i
	follow_reset
	mark=$(jmark)
	follow_start 'IdleCgroups=yes' || return 1
	trun zt-plain-1 || return 1
	p=$(ucg zt-plain-1)
	for i in 1 2 3; do
		trun zt-idle-$i -p CPUWeight=idle || return 1
		c=$(ucg zt-idle-$i)
		if [ ! -e "$c/cpu.idle" ]; then
			echo "system.slice subtree_control: $(cat $CG/system.slice/cgroup.subtree_control)"
			fail "$c has no cpu.idle: this kernel/systemd ($(uname -r), $(systemctl --version | head -1)) cannot mark a unit idle"
			return 1
		fi
		[ "$(cat "$c/cpu.idle")" = 1 ] || fail "CPUWeight=idle left cpu.idle=$(cat "$c/cpu.idle") in $c" || return 1
		capped_soon zt-idle-$i || return 1
	done
	echo "cpu.idle: zt-idle-1 $(cat "$(ucg zt-idle-1)/cpu.idle"), zt-plain-1 $(cat "$p/cpu.idle" 2>&1)"
	uncapped "$p" || fail "zt-plain-1 (cpu.idle 0) is capped: $(zmax "$p")" || return 1
	jwait "$mark" '^Batch: (/sys/fs/cgroup/)?system\.slice/zt-idle-1\.service appeared' || return 1
	mark=$(jmark)
	systemctl stop zt-idle-1.service || fail "systemctl stop zt-idle-1 failed" || return 1
	unit_gone_once "$mark" zt-idle-1 || return 1
	capped "$(ucg zt-idle-2)" || fail "zt-idle-2 lost its cap when zt-idle-1 stopped" || return 1
	follow_reset
}

case_follow_kill() {
	local mark c1 c2 pid res re
	follow_reset
	unit_dropin 'Restart=no'
	follow_start 'Units=zt-batch-*.service' || return 1
	trun zt-batch-1 || return 1
	trun zt-batch-2 --slice=batch.slice || return 1
	c1=$(ucg zt-batch-1); c2=$(ucg zt-batch-2)
	capped_soon zt-batch-1 || return 1
	capped_soon zt-batch-2 || return 1
	pid=$(mainpid)
	echo "saved: $(tr '\n' ' ' < /run/zswap-tuned/original-knob 2>&1)"
	mark=$(jmark)
	systemctl kill -s KILL "$UNIT" || fail "systemctl kill -s KILL failed" || return 1
	wait_until 40 not_running || fail "unit still $(systemctl is-active "$UNIT") after SIGKILL" || return 1
	res=$(systemctl show -p Result --value "$UNIT")
	echo "pid $pid killed; Result=$res"
	[ "$res" = signal ] || fail "Result=$res, want signal" || return 1
	# ExecStopPost=zswap-tuned --restore; the units still run, their cgroups are there
	for c in "$c1" "$c2"; do
		[ -d "$c" ] || fail "$c went away: the case needs the units running" || return 1
		uncapped "$c" || fail "$c/memory.zswap.max is $(zmax "$c") after SIGKILL and --restore, want max" || return 1
		re="^Restored ${c//./\\.}/memory\\.zswap\\.max to max\$"
		jwait "$mark" "$re" || return 1
	done
	jlog "$mark" | indent
	[ ! -e /run/zswap-tuned/original-knob ] || fail "the save file is still there" || return 1
	follow_reset
}

# ---------------------------------------------------------------- 6
# What the daemon uses, and what the kernel offers around it.
case_interfaces() {
	local f miss=0 known new='' gone=''
	{ echo "## /sys/module/zswap/parameters"; grep -H . $P/* | sed "s|$P/||"
	  echo "## /proc/meminfo"; grep -E '^Zswap' /proc/meminfo
	  echo "## /proc/vmstat"; grep -E '^(zswp|pswp)' /proc/vmstat
	  echo "## memory.zswap.* (zt-probe)"; ls $PROBE | grep -E '^memory\.zswap' | while read -r f; do echo "$f=$(cat $PROBE/$f)"; done
	  echo "## memory.stat zswap fields"; grep -E 'zsw' $PROBE/memory.stat
	  echo "## debugfs"; ls /sys/kernel/debug/zswap 2>/dev/null | tr '\n' ' '; echo; } > "$R/interfaces.txt"
	cat "$R/interfaces.txt"
	# What the daemon reads or writes: must exist on every kernel ...
	for f in $P/enabled $P/max_pool_percent /proc/pressure/memory $PROBE/memory.pressure \
		$PROBE/memory.zswap.max $PROBE/memory.zswap.current /proc/swaps; do
		[ -e "$f" ] || { echo "missing: $f"; miss=1; }
	done
	for f in Zswap: Zswapped:; do grep -q "^$f" /proc/meminfo || { echo "missing: /proc/meminfo $f"; miss=1; }; done
	for f in zswpout pswpout; do grep -q "^$f " /proc/vmstat || { echo "missing: /proc/vmstat $f"; miss=1; }; done
	# ... and from 6.8 on, the knob and the writeback counter.
	if $HAVE_KNOB; then
		grep -q '^zswpwb ' /proc/vmstat || { echo "missing: /proc/vmstat zswpwb"; miss=1; }
	else
		! grep -q '^zswpwb ' /proc/vmstat || echo "note: zswpwb without shrinker_enabled"
	fi
	# Anything not in the 6.1/6.12 lists is new: reported, for the README and the daemon.
	known=" enabled max_pool_percent accept_threshold_percent shrinker_enabled compressor zpool same_filled_pages_enabled non_same_filled_pages_enabled exclusive_loads "
	for f in $P/*; do
		f=${f##*/}; case $known in *" $f "*) ;; *) new+=" parameters/$f" ;; esac
	done
	for f in $(awk '$1 ~ /^zsw/ { print $1 }' /proc/vmstat); do
		case " zswpin zswpout zswpwb " in *" $f "*) ;; *) new+=" vmstat/$f" ;; esac
	done
	for f in $(ls $PROBE | grep -E '^memory\.zswap'); do
		case " memory.zswap.current memory.zswap.max memory.zswap.writeback " in *" $f "*) ;; *) new+=" cgroup/$f" ;; esac
	done
	for f in $(awk '$1 ~ /zsw/ { print $1 }' $PROBE/memory.stat); do
		case " zswap zswapped zswpin zswpout zswpwb " in *" $f "*) ;; *) new+=" memory.stat/$f" ;; esac
	done
	for f in $(ls $DBG 2>/dev/null); do
		case " pool_limit_hit pool_total_size reject_alloc_fail reject_compress_fail reject_compress_poor reject_kmemcache_fail reject_reclaim_fail stored_pages written_back_pages same_filled_pages duplicate_entry " in
		*" $f "*) ;; *) new+=" debugfs/$f" ;; esac
	done
	for f in $known; do [ -e $P/$f ] || gone+=" parameters/$f"; done
	diag "interfaces: params $(ls $P | tr '\n' ' ')| vmstat $(awk '$1 ~ /^zsw/ { printf "%s ", $1 }' /proc/vmstat)| cgroup $(ls $PROBE | grep -E '^memory\.zswap' | tr '\n' ' ')"
	[ -z "$new" ] || diag "interfaces new since 6.12:$new"
	diag "parameters absent here:$gone"
	[ "$miss" = 0 ]
}

case_no_knob_writes() {
	local starts says n
	starts=$(jcount 0 '^Started \(pid [0-9]+\)')
	says=$(jcount 0 '^Knob: neither shrinker_enabled \(Linux 6\.8\+\) nor shrink_enabled exists; monitoring only, batch caps still apply$')
	echo "$starts starts, $says 'no knob' lines"
	[ "$starts" -gt 0 ] && [ "$says" = "$starts" ] || fail "want the 'no knob' line once per start ($starts starts), found $says" || return 1
	n=$(jexport 0 "MESSAGE_ID=$FLIP_ID" | grep -c '^MESSAGE_ID=')
	[ "$n" = 0 ] || fail "$n knob flip records" || return 1
	n=$(jcount 0 'Would set|Cannot write /sys/module|shrinker_enabled=|Restored shrink')
	[ "$n" = 0 ] || fail "$n lines about writing a knob" || return 1
	[ ! -e $P/shrinker_enabled ] && [ ! -e $P/shrink_enabled ] || fail "a knob appeared" || return 1
}

# ---------------------------------------------------------------- main
T0=$(date +%s)
setup
run_case "systemctl enable --now reaches READY; STATUS and startup lines match the kernel" case_enable
run_case "PSI triggers arm with the configured 1 s window (system, pressure cgroup, batch cgroup), no fallback" case_psi
run_case "batch cap written; pool < ${FULL_PCT}% of its limit while capped; without the daemon it reaches the limit; flips carry their fields" case_batch
run_case "systemctl stop restores the knob and every memory.zswap.max" case_restore_stop
run_case "kill -9 of the main PID: ExecStopPost --restore restores the knob and every memory.zswap.max" case_restore_kill
run_case "watchdog abort (SIGSTOP, WatchdogSec=2s): the knob and every memory.zswap.max restored" case_restore_watchdog
run_case "a capped batch cgroup removed: no error loop, one 'is gone; forgetting its cap' line at once; created again, capped again" case_batch_gone
run_case "a reload that adds a batch cgroup caps it; status --json has the incompressible figures the kernel offers" case_reload_adds
run_case "[Batch] Cgroups=batch.slice/zt-batch-*.service: systemd-run units started later capped within ${FOLLOW_WAIT} s; a stopped one forgotten with one line, the other keeps its cap; started again, capped again" case_follow_glob
run_case "[Batch] Units=zt-batch-*.service over sd-bus: started units capped, others not; lines carry UNIT=; a stopped one forgotten" case_follow_units
run_case "[Batch] IdleCgroups=yes: a systemd-run -p CPUWeight=idle unit (cpu.idle 1) capped, a plain one not; stopped, forgotten" case_follow_idle
run_case "SIGKILL while two followed units hold caps: ExecStopPost --restore lifts both" case_follow_kill
run_case "every knob, counter and cgroup file the daemon uses exists; new ones reported" case_interfaces
$HAVE_KNOB || run_case "no knob (6.1): never writes one, says why once per start" case_no_knob_writes
stop_daemon
journalctl -q --no-pager -u "$UNIT" -b -o short-monotonic > "$R/journal.txt" 2>&1
echo "1..$N" >> "$TAP"
echo "# guest done in $(( $(date +%s) - T0 )) s" >> "$TAP"
log "done"
