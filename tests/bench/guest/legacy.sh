#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The previous bed (issue 4), kept as a regression case: guest.sh runs this when
# bench.conf says BED=legacy. Runs inside the bench guest at boot (from the 9p share mounted on /out; started by
# bed-boot). Adapted from the shared qemu test bed's guest.sh.
#
# A batch hog writes SIZE of DATASET pages in cgroup bench-hog (memory.max=HOG_MAX);
# a latency probe touches random pages of its PROBE_WS working set in cgroup
# bench-probe (memory.max=PROBE_MAX < PROBE_WS, so part of it lives in zswap).
# Configurations:
#   N      shrinker_enabled=N, static
#   Y      shrinker_enabled=Y, static
#   cap    shrinker_enabled=N + memory.zswap.max=ZMAX_PCT% of the pool limit on bench-hog
#   cap0   shrinker_enabled=N + memory.zswap.max=0 on bench-hog (the hog never uses zswap)
#   zt     zswap-tuned (systemd service, shipped defaults; starts from N)
#   ztcg   zswap-tuned with [Pressure] System=no, Cgroups=bench-probe
#   ztcap  zswap-tuned with the probe's cgroup as its pressure source and the hog's
#          cgroup as a batch cgroup it may cap ([Batch] Cgroups=bench-hog,
#          ZswapMaxPercent=ZTCAP_PCT); the drop-in is ZTCAP_CONF below
#   ztcap0 the same with ZswapMaxPercent=0 (guest/zero-cap.conf runs it)
#   zt-NAME, ztcap-NAME, ...  the same with the settings in variable ZT_NAME (ZTCAP_NAME,
#          ...; '-' in NAME read as '_') added to the drop-in, e.g.
#          ZT_largest=$'[Batch]\nLargestHolder=yes' (guest/configs.sh)
#   NAME2  the configuration NAME again under another name when AA="NAME NAME2": the
#          A/A twin (issue 23)
# Runs are interleaved: for each round, for each data set, every configuration in a random
# order drawn from SEED every round (guest/order.sh, seed in env.txt), after WARMUP_RUNS
# discarded warm-up runs (run index w1, ...; the summary leaves them out).
# Settings: /out/bench.conf (sourced). Results: /out/results/ (results.csv + per-run files).
set -u
S=/out
[ -f $S/bench.conf ] && . $S/bench.conf
MODE=${MODE:-matrix}            # matrix | boot (boot: record the environment only)
RUNS=${RUNS:-3}
CONFIGS=${CONFIGS:-"N Y cap cap0 zt ztcap"}   # ztcg is selectable too
DATASETS=${DATASETS:-"mixed dense"}
SIZE=${SIZE:-1280M}             # hog bytes
HOG_MAX=${HOG_MAX:-512M}        # hog cgroup memory.max (on v2 this includes its zswap share)
POOL_PCT=${POOL_PCT:-7}         # zswap max_pool_percent
ACCEPT=${ACCEPT:-90}            # zswap accept_threshold_percent
ZMAX_PCT=${ZMAX_PCT:-70}        # cap config: hog memory.zswap.max in % of the pool limit
PROBE_WS=${PROBE_WS:-256M}
PROBE_MAX=${PROBE_MAX:-192M}
PROBE_I=${PROBE_I:-200}         # probe touch interval, us
PROBE_DS=${PROBE_DS:-mixed}
SAMPLE_MS=${SAMPLE_MS:-100}
SWAPSIZE_MB=${SWAPSIZE_MB:-4096}
AA=${AA:-}                      # the A/A pair, e.g. "N N2"
SEED=${SEED:-}                  # run order seed (empty: a fresh one)
WARMUP_RUNS=${WARMUP_RUNS:-1}
# ---- "zswap-tuned + batch cap" -----------------------------------------------------
# 60, not the 70 of the static cap: the probe keeps about 23 MiB (~26% of the 89 MiB
# limit) in the pool, so a 70% hog cap left the pool at ~96% of its limit; 60% + ~26%
# stays under the 95% mark with a few MiB of headroom.
ZTCAP_PCT=${ZTCAP_PCT:-70}
ZTCAP_CONF=${ZTCAP_CONF:-$(printf '[Pressure]\nSystem=no\nCgroups=bench-probe\n[Batch]\nCgroups=bench-hog\nZswapMaxPercent=%s' "$ZTCAP_PCT")}
ZTCAP0_CONF=$(printf '%s\n' "$ZTCAP_CONF" | sed 's/^ZswapMaxPercent=.*/ZswapMaxPercent=0/')
ZTCG_CONF=$(printf '[Pressure]\nSystem=no\nCgroups=bench-probe')
# ------------------------------------------------------------------------------------

R=$S/results; mkdir -p $R
P=/sys/module/zswap/parameters; CG=/sys/fs/cgroup; DBG=/sys/kernel/debug/zswap
HOGCG=$CG/bench-hog; PROBECG=$CG/bench-probe
BIN=$S/bin; CSV=$R/results.csv
DROPIN=/etc/zswap-tuned.conf.d/bench.conf

log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*" | tee -a $R/progress.log > /dev/console; }

setup() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	if ! swapon --show=NAME --noheadings | grep -qx /swapfile; then
		if [ ! -f /swapfile ]; then
			fallocate -l ${SWAPSIZE_MB}M /swapfile || dd if=/dev/zero of=/swapfile bs=1M count=$SWAPSIZE_MB
			chmod 600 /swapfile; mkswap /swapfile > /dev/null
		fi
		swapon /swapfile
	fi
	echo Y > $P/enabled
	grep -qw memory $CG/cgroup.subtree_control || echo +memory > $CG/cgroup.subtree_control
	mkdir -p $HOGCG $PROBECG
	echo $HOG_MAX > $HOGCG/memory.max
	echo $PROBE_MAX > $PROBECG/memory.max
	systemctl stop zswap-tuned 2>/dev/null
	mkdir -p /etc/zswap-tuned.conf.d
}

envinfo() {
	{
	echo "kernel=$(uname -r)"; echo "cmdline=$(cat /proc/cmdline)"
	echo "nproc=$(nproc)"; grep -E '^(MemTotal|SwapTotal):' /proc/meminfo
	echo "cgroup_fs=$(stat -fc %T $CG)"; echo "cgroup.controllers=$(cat $CG/cgroup.controllers)"
	for f in $P/*; do echo "zswap.$(basename $f)=$(cat $f)"; done
	swapon --show --noheadings
	cat $S/tree.txt 2>/dev/null # the daemon's commit: names the results directory
	echo "daemon=$(/usr/sbin/zswap-tuned --version 2>&1 | head -1)"
	echo "daemon_sha256=$(sha256sum /usr/sbin/zswap-tuned | cut -c1-16)"
	echo "## zswap-tuned --check-config (ztcap drop-in)"
	mkdir -p /etc/zswap-tuned.conf.d; printf '%s\n' "$ZTCAP_CONF" > $DROPIN
	/usr/sbin/zswap-tuned --check-config 2>&1; rm -f $DROPIN
	echo "## end check-config"
	echo "systemd=$(systemctl --version | head -1)"
	echo "seed=$SEED"
	echo "bench.conf: RUNS=$RUNS CONFIGS='$CONFIGS' AA='$AA' WARMUP_RUNS=$WARMUP_RUNS DATASETS='$DATASETS' SIZE=$SIZE HOG_MAX=$HOG_MAX POOL_PCT=$POOL_PCT ACCEPT=$ACCEPT ZMAX_PCT=$ZMAX_PCT ZTCAP_PCT=$ZTCAP_PCT PROBE_WS=$PROBE_WS PROBE_MAX=$PROBE_MAX PROBE_I=$PROBE_I PROBE_DS=$PROBE_DS"
	} > $R/env.txt
}

snap() { # counters before/after the hog
	awk '/^(zswpout|zswpin|zswpwb|pswpout|pswpin) /{print $1"="$2}' /proc/vmstat
	[ -r $DBG/pool_limit_hit ] && echo "pool_limit_hit=$(cat $DBG/pool_limit_hit)"
	[ -r $DBG/reject_reclaim_fail ] && echo "reject_reclaim_fail=$(cat $DBG/reject_reclaim_fail)"
	awk '/^some/{split($5,a,"="); print "psi_some="a[2]}' /proc/pressure/memory
	local g
	for g in hog probe; do
		awk -v g=$g '/^some/{split($5,a,"="); print g"_psi_some="a[2]}' $CG/bench-$g/memory.pressure
		awk -v g=$g '$1 ~ /^(zswpout|zswpin|zswpwb)$/ {print g"_"$1"="$2}' $CG/bench-$g/memory.stat
	done
}
kv() { echo "$1" | awk -F= -v k="$2" '$1==k{print $2; exit}'; }
fk() { awk -F= -v k="$2" '$1==k{print $2; exit}' "$1" 2>/dev/null; }

wait_drain() { # previous run's pages must be gone from zswap
	local _
	for _ in $(seq 300); do
		[ "$(awk '/^Zswap:/{print $2}' /proc/meminfo)" -le 1024 ] && return 0
		sleep 0.2
	done
	log "warn: pool did not drain ($(grep ^Zswap: /proc/meminfo))"
}

daemon_start() { # cfg
	dropin $1 > $DROPIN || return 1
	systemctl start zswap-tuned || log "warn: zswap-tuned did not start: $(systemctl status zswap-tuned --no-pager 2>&1 | tail -5)"
	INVOCATION=$(systemctl show -p InvocationID --value zswap-tuned)
}

daemon_stop() { # run name -> sets DCPU_MS (daemon process), UCPU_MS (whole unit), FLIPS
	local n=$1 pid t
	pid=$(systemctl show -p MainPID --value zswap-tuned)
	DCPU_MS=; UCPU_MS=
	if [ -n "$pid" ] && [ "$pid" != 0 ] && [ -r /proc/$pid/stat ]; then
		t=$(awk '{print $14 + $15}' /proc/$pid/stat)
		DCPU_MS=$(( t * 1000 / $(getconf CLK_TCK) ))
	fi
	systemctl stop zswap-tuned
	# the unit's cgroup: includes start-up and ExecStopPost=zswap-tuned --restore
	local ns; ns=$(systemctl show -p CPUUsageNSec --value zswap-tuned 2>/dev/null)
	case $ns in ''|*[!0-9]*) ;; *) UCPU_MS=$(( ns / 1000000 )) ;; esac
	journalctl -q _SYSTEMD_INVOCATION_ID=$INVOCATION -o short-monotonic --no-pager > $R/$n.daemon 2>&1
	# knob flips: the daemon's flip messages (MESSAGE_ID), with their monotonic time for the plots
	journalctl -q _SYSTEMD_INVOCATION_ID=$INVOCATION MESSAGE_ID=5b0c2a4e6f8d4c1f9e3a7b2d1c0e9f84 \
		-o export --no-pager 2>/dev/null | awk -F= '/^__MONOTONIC_TIMESTAMP=/{t=$2} /^KNOB_VALUE=/{print int(t/1000), $2}' > $R/$n.flips
	FLIPS=$(grep -c . $R/$n.flips || true)
	rm -f $DROPIN
	[ "$(cat $P/shrinker_enabled)" = N ] || log "warn: knob not restored to N after stop: $(cat $P/shrinker_enabled)"
	ZMAX_AFTER=$(cat $HOGCG/memory.zswap.max)
	[ "$ZMAX_AFTER" = max ] || log "warn: bench-hog memory.zswap.max not restored after stop: $ZMAX_AFTER"
}

run_one() { # cfg dataset idx (w1...: a warm-up run)
	local cn=$1 c ds=$2 i=$3 n=$1.$2.r$3 pre post ppid spid limit_kb zmax_kb
	c=$(base_cfg $cn)
	case $i in w*) n=$1.$2.$3 ;; esac
	echo $POOL_PCT > $P/max_pool_percent
	echo $ACCEPT > $P/accept_threshold_percent
	echo N > $P/shrinker_enabled
	echo max > $HOGCG/memory.zswap.max
	limit_kb=$(( $(awk '/^MemTotal:/{print $2}' /proc/meminfo) * POOL_PCT / 100 ))
	wait_drain
	DCPU_MS=""; UCPU_MS=""; FLIPS=0
	case $c in
	N) ;;
	Y) echo Y > $P/shrinker_enabled ;;
	cap) zmax_kb=$(( limit_kb * ZMAX_PCT / 100 )); echo $(( zmax_kb * 1024 )) > $HOGCG/memory.zswap.max ;;
	cap0) echo 0 > $HOGCG/memory.zswap.max ;;
	zt*) daemon_start $c || return ;;
	*) log "unknown config $c"; return ;;
	esac
	log "run $n start"
	$BIN/zsample -i $SAMPLE_MS -o $R/$n.samples -P $PROBECG -H $HOGCG &
	spid=$!
	bash -c "echo \$\$ > $PROBECG/cgroup.procs; exec $BIN/zbench probe -w $PROBE_WS -i $PROBE_I -d $PROBE_DS" > $R/$n.probe 2>&1 &
	ppid=$!
	for _ in $(seq 600); do grep -q "^probe.ready" $R/$n.probe && break; sleep 0.2; done
	sleep 2
	pre=$(snap)
	bash -c "echo \$\$ > $HOGCG/cgroup.procs; exec $BIN/zbench hog -s $SIZE -d $ds" > $R/$n.hog 2>&1
	post=$(snap)
	sleep 1 # one more second of samples after the hog
	kill -TERM $ppid; wait $ppid
	kill -TERM $spid; wait $spid
	is_daemon $c && daemon_stop $n
	{ echo "## pre"; echo "$pre"; echo "## post"; echo "$post"; } > $R/$n.snap
	d() { local a b; a=$(kv "$pre" "$1"); b=$(kv "$post" "$1"); [ -n "$a" ] && [ -n "$b" ] && echo $(( b - a )) || echo ""; }
	local t0 t1 ps
	t0=$(fk $R/$n.hog write.t0_ms); t1=$(fk $R/$n.hog write.t1_ms)
	# over the hog's write phase: fraction of samples with pool >= 95% of limit, knob changes seen,
	# max pool, time of first pool-full, PSI some (system / probe / hog) in % of wall time
	ps=$(awk -v t0=${t0:-0} -v t1=${t1:-0} '
		$1 < t0 || $1 > t1 { next }
		{ n++; if ($2 >= 0.95 * $4) near++; if ($2 > max) max = $2
		  if (n > 1 && $5 != k) ch++; k = $5
		  if (!full && $2 >= 0.95 * $4) { full = 1; tf = $1 - t0 } }
		END { printf "frac_ge95=%.3f knob_changes=%d maxpool_kB=%d t_full_ms=%s", n ? near / n : 0, ch, max, full ? tf : "never" }' $R/$n.samples)
	pv() { echo "$ps" | tr ' ' '\n' | awk -F= -v k=$1 '$1==k{print $2}'; }
	local wall_us=$(( (${t1:-0} - ${t0:-0}) * 1000 ))
	pcts() { local v; v=$(d $1); [ -n "$v" ] && [ $wall_us -gt 0 ] && awk -v a=$v -v w=$wall_us 'BEGIN{printf "%.1f", 100*a/w}'; }
	[ -f $CSV ] || echo "cfg,dataset,run,limit_kB,hog_kbps,hog_write_s,hog_stime_s,probe_samples,probe_p50_us,probe_p99_us,probe_p999_us,probe_max_us,probe_over1ms,zswpout,zswpwb,pswpout,pswpin,zswpin,rejected,pool_limit_hit,frac_ge95,maxpool_kB,t_full_ms,flips,knob_changes,daemon_cpu_ms,daemon_unit_cpu_ms,psi_sys_pct,psi_probe_pct,psi_hog_pct,hog_zswpout,hog_zswpwb,probe_zswpwb" > $CSV
	local zo zw po
	zo=$(d zswpout); zw=$(d zswpwb); po=$(d pswpout)
	echo "$cn,$ds,$i,$limit_kb,$(fk $R/$n.hog write.kbps),$(awk -F= '$1=="write.usecs"{printf "%.1f",$2/1e6}' $R/$n.hog),$(fk $R/$n.hog write.stime_s),$(fk $R/$n.probe probe.samples),$(fk $R/$n.probe probe.p50_us),$(fk $R/$n.probe probe.p99_us),$(fk $R/$n.probe probe.p999_us),$(fk $R/$n.probe probe.max_us),$(fk $R/$n.probe probe.over1ms),$zo,$zw,$po,$(d pswpin),$(d zswpin),$(( po - zw )),$(d pool_limit_hit),$(pv frac_ge95),$(pv maxpool_kB),$(pv t_full_ms),$FLIPS,$(pv knob_changes),$DCPU_MS,$UCPU_MS,$(pcts psi_some),$(pcts probe_psi_some),$(pcts hog_psi_some),$(d hog_zswpout),$(d hog_zswpwb),$(d probe_zswpwb)" >> $CSV
	grep -q '^write.kbps=' $R/$n.hog || log "WARN: hog of $n did not finish: $(grep -E '^(oom|oom_kill) ' $HOGCG/memory.events | tr '\n' ' ')"
	log "run $n done: $(tail -1 $CSV)"
}

log "guest.sh start mode=$MODE"
. $S/order.sh
. $S/configs.sh # base_cfg, is_daemon, dropin
[ -n "$SEED" ] || SEED=$(order_seed)
setup
envinfo
log "env: $(grep -E '^(kernel|MemTotal|zswap.compressor|zswap.zpool|daemon)' $R/env.txt | tr '\n' ' ')"
case $MODE in
boot) ;;
matrix)
	first=$(order_shuffle $SEED 0 $CONFIGS); first=$(base_cfg ${first%% *})
	aa=($AA); mapfile -t ROUNDS < <(order_plan $SEED $RUNS $first "${aa[0]:-}" "${aa[1]:-}" $CONFIGS)
	log "run order seed $SEED: warm-up $first, then $(printf '%s | ' "${ROUNDS[@]}")"
	for w in $(seq 1 $WARMUP_RUNS); do run_one $first ${DATASETS%% *} w$w; done
	for i in $(seq 1 $RUNS); do
		for ds in $DATASETS; do
			for c in ${ROUNDS[i - 1]}; do run_one $c $ds $i; done
		done
	done ;;
esac
echo N > $P/shrinker_enabled
log "guest.sh end"
