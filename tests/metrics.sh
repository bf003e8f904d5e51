#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The metrics textfile never goes stale (issue 26): an idle daemon rewrites
# it every [Metrics] IntervalSec= from a cheap read of the pool and the PSI
# totals, without sampling (deciding) more often. On 0.2 the file kept the
# pool it had when the daemon went idle, and its mtime did not move.
# What a fleet needs (issue 49): zswap_tuned_up, a file that outlives a stop,
# the warnings gauge, the kernel's counters, the cap's reason as its own
# series and cgroups named below the cgroup root.
set -u
. "$(dirname "$0")/lib.sh"

scratch metrics

fake_tree "$W" N
echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000" > "$W/root/proc/pressure/memory"
mkdir -p "$W/prom"
# a batch cgroup to cap, and debugfs's reject counters (some: a kernel tells what it has)
CG=$W/root/sys/fs/cgroup
mkdir -p "$CG/batch.slice" "$W/root/sys/kernel/debug/zswap"
echo memory > "$CG/cgroup.controllers"
echo max > "$CG/batch.slice/memory.zswap.max"; echo 409600 > "$CG/batch.slice/memory.zswap.current"
echo 7 > "$W/root/sys/kernel/debug/zswap/reject_compress_poor"
echo 3 > "$W/root/sys/kernel/debug/zswap/pool_limit_hit"
printf 'pswpout 0\nzswpout 120\nzswpwb 12\n' > "$W/root/proc/vmstat"
# no PSI trigger on a fake tree: an idle daemon polls at SampleMs, here once a minute
printf '[Pool]\nSampleMs=60000\n[Metrics]\nTextfileDirectory=%s\nIntervalSec=1\n[Batch]\nCgroups=batch.slice\n' "$W/prom" > "$W/m.conf"
M=$W/prom/zswap_tuned.prom
metric() { awk -v n="$1" '$1 == n { print $2 }' "$M" 2>/dev/null; }
# await_metric NAME VALUE SECONDS: the file says so before the deadline
await_metric() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt $end ]; do [ "$(metric "$1")" = "$2" ] && return 0; sleep 0.1; done
	return 1
}

"$ZT" --root "$W/root" -c "$W/m.conf" --state-dir "$W/run" 2>"$W/log" & PID=$!
wait_for_line "$W/log" 'Started \(pid'
check "the textfile is written at start" await_metric zswap_tuned_pool_bytes 1024000 5
sample0=$(metric zswap_tuned_last_sample_timestamp_seconds)
written0=$(metric zswap_tuned_metrics_written_timestamp_seconds)
# the pool grows to 60% of its limit while the daemon is idle
printf 'MemTotal: 1000000 kB\nZswap: 120000 kB\nZswapped: 360000 kB\n' > "$W/root/proc/meminfo.new"
mv "$W/root/proc/meminfo.new" "$W/root/proc/meminfo"
echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=1500000" > "$W/root/proc/pressure/memory.new"
mv "$W/root/proc/pressure/memory.new" "$W/root/proc/pressure/memory"
check "idle, the textfile follows the pool within IntervalSec" await_metric zswap_tuned_pool_bytes 122880000 5
check "... and the PSI counter" grep -qx 'zswap_tuned_pressure_stalled_seconds_total{source="/proc/pressure/memory",kind="some"} 1.500000' "$M"
check "... says when it was written" \
	awk -v a="$written0" -v b="$(metric zswap_tuned_metrics_written_timestamp_seconds)" 'BEGIN { exit !(b > a) }'
check "... without a sample (idle: nothing decided)" test "$(metric zswap_tuned_last_sample_timestamp_seconds)" = "$sample0"
check "... zswap_tuned_up 1 while it runs" test "$(metric zswap_tuned_up)" = 1
check "the warnings gauge: no_swap 1 (the fake tree has none), the others 0" bash -c "
	grep -qx 'zswap_tuned_warning{warning=\"no_swap\"} 1' '$M' &&
	test \$(grep -c '^zswap_tuned_warning{warning=\"\(cgroup_v1\|zswap_off\|knob_missing\|save_failed\|dry_run\)\"} 0\$' '$M') = 5"
check "the kernel's counters: stored and written back (vmstat), rejects and limit hits (debugfs)" bash -c "
	grep -qx 'zswap_tuned_stored_pages_total 120' '$M' && grep -qx 'zswap_tuned_written_back_pages_total 12' '$M' &&
	grep -qx 'zswap_tuned_rejects_total{reason=\"compress_poor\"} 7' '$M' &&
	grep -qx 'zswap_tuned_pool_limit_hit_total 3' '$M'"
check "... and none the kernel does not tell (zswpin, reject_alloc_fail)" bash -c "
	! grep -q '^zswap_tuned_loaded_pages_total' '$M' && ! grep -q 'alloc_fail' '$M'"
check "... which the journal names once at start" grep -q 'Metrics: the kernel does not tell zswpin, reject_compress_fail, reject_alloc_fail, reject_kmemcache_fail, reject_reclaim_fail (' "$W/log"
check "the cap: bytes without a reason label, the reason a series of its own, the cgroup below the root" bash -c "
	grep -qE '^zswap_tuned_batch_cap_bytes\{cgroup=\"batch.slice\"\} [0-9]+\$' '$M' &&
	grep -qx 'zswap_tuned_batch_cap_reason{cgroup=\"batch.slice\",reason=\"max-percent\"} 1' '$M' &&
	grep -qx 'zswap_tuned_batch_zswap_bytes{cgroup=\"batch.slice\"} 409600' '$M'"
# what promtool does not check: no series twice in the file
no_series_twice() { [ -z "$(grep -v '^#' "$M" | awk '{ print $1 }' | sort | uniq -d)" ]; }
check "no series twice in the file" no_series_twice
check "build_info names the version" grep -qE '^zswap_tuned_build_info\{version="[0-9][^"]*"\} 1$' "$M"
kill -TERM "$PID"; wait "$PID"; PID=
check "on exit the textfile stays: zswap_tuned_up 0" test "$(metric zswap_tuned_up)" = 0
check "... with no figure of the daemon that is gone" bash -c "! grep -q '^zswap_tuned_pool_bytes' '$M'"
if command -v promtool >/dev/null; then
	check "... and valid exposition format (promtool check metrics)" bash -c "promtool check metrics <'$M'"
fi

finish
