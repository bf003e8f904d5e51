# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Container helpers for tests/systemd/run.sh: boot a directory tree (this
# machine's own / or a cached Debian tree) under systemd-nspawn with systemd
# as PID 1. The tree is the lower layer of an overlay whose upper layer is a
# tmpfs, so nothing is written to it. The container sees the host's /proc
# (PSI, meminfo), and /sys/module/zswap/parameters is bound read-write: the
# daemon inside drives the real knob.
#
# Only one container exists at a time, and every name is fixed (machine
# $ZT_MACHINE, mounts and cgroups named after it), so ct_teardown can also
# clear what a killed earlier run left behind. The caller holds the lock on
# fd $LOCKFD; the container does not inherit it.

# The clean Debian tree (case 10 of run.sh, and tests/deb.sh): Debian 12 with
# runtime packages only. mmdebstrap pastes an existing file in as the tree's
# sources.list: use the host's own apt sources, so the tree comes from
# wherever this host's packages do.
DEB_SUITE=bookworm
DEB_PKGS=systemd,systemd-sysv,dbus,procps,libsystemd0,libudev1,libinih1
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	[ -s "$f" ] && { DEB_MIRROR_DEFAULT=$f; break; }
done
DEB_MIRROR=${ZT_DEBIAN_MIRROR:-${DEB_MIRROR_DEFAULT:-}}
DEB_CACHE=/var/cache/zswap-tuned-test

ZT_MACHINE=zt-systemd
ZT_BASE=/var/tmp/$ZT_MACHINE
ZT_ZP=/sys/module/zswap/parameters

ROOT=       # the container's / (the overlay), set by ct_overlay
NSP_PID=    # systemd-nspawn, a child of ours
LEADER=     # the container's PID 1, as a host PID
CONSOLE=    # the console log of the current boot
CG_DIRS=()  # the container's cgroup in each hierarchy
NSP_ENV=()

now_us() { echo "${EPOCHREALTIME/./}"; }
ms_since() { echo $((($(now_us) - $1) / 1000)); }

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds; 1 on timeout.
wait_until() {
	local end=$(($(now_us) + $1 * 1000000))
	shift
	until "$@"; do
		[ "$(now_us)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

diag() { printf '# %s\n' "$*"; }
# Indent a command's output as TAP diagnostics.
indent() { sed 's/^/#   /'; }

# Which cgroup layout: pure cgroup v2, or hybrid (v2 on /sys/fs/cgroup/unified
# plus the named v1 "systemd" hierarchy), which systemd 252 in the container
# can use as unified. Sets CG_DIRS; 1 when neither.
ct_cgroups() {
	if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		CG_DIRS=("/sys/fs/cgroup/$ZT_MACHINE")
		NSP_ENV=()
	elif [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] &&
		[ "$(stat -fc %T /sys/fs/cgroup/systemd 2>/dev/null)" = cgroupfs ]; then
		CG_DIRS=("/sys/fs/cgroup/unified/$ZT_MACHINE" "/sys/fs/cgroup/systemd/$ZT_MACHINE")
		NSP_ENV=(SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1)
	else
		return 1
	fi
}

# ct_overlay LOWER: a fresh container root, LOWER below a tmpfs; sets ROOT.
ct_overlay() {
	local ov=$ZT_BASE/ov
	mkdir -p "$ov" || return 1
	mount -t tmpfs -o size=4g,mode=0755 "$ZT_MACHINE" "$ov" || return 1
	mkdir "$ov/upper" "$ov/work" "$ov/merged" || return 1
	mount -t overlay -o "lowerdir=$1,upperdir=$ov/upper,workdir=$ov/work" "$ZT_MACHINE" "$ov/merged" ||
		return 1
	ROOT=$ov/merged
	# A machine of its own: journal, boot IDs.
	systemd-id128 new >"$ROOT/etc/machine-id"
}

# Run a command inside the container.
C() {
	[ -n "$LEADER" ] || { echo "C: no container is running" >&2; return 125; }
	nsenter -t "$LEADER" -a "$@"
}

ct_leader() {
	kill -0 "$NSP_PID" 2>/dev/null || return 2
	LEADER=$(ps -o pid= --ppid "$NSP_PID" | tr -d ' ')
	[ -n "$LEADER" ] && [ -S "/proc/$LEADER/root/run/systemd/private" ]
}

# ct_boot TAG: boot $ROOT; returns once the manager is up and startup is
# finished (running or degraded). The console goes to $ZT_BASE/console.TAG.log.
ct_boot() {
	local h dbg=() state t0
	t0=$(now_us)
	CONSOLE=$ZT_BASE/console.$1.log
	LEADER=
	for h in "${CG_DIRS[@]}"; do
		mkdir -p "$h" || return 1
	done
	mountpoint -q /sys/kernel/debug && dbg=(--bind-ro=/sys/kernel/debug)
	# --keep-unit --register=no: no machined/bus on this host; the payload
	# stays in the cgroups made above. CAP_SYS_RESOURCE, which nspawn drops by
	# default, as on a real host: the unit keeps it for PSI trigger windows.
	(
		for h in "${CG_DIRS[@]}"; do
			echo "$BASHPID" >"$h/cgroup.procs" || exit 1
		done
		exec env "${NSP_ENV[@]}" systemd-nspawn --quiet -D "$ROOT" --machine="$ZT_MACHINE" \
			--boot --console=read-only --register=no --keep-unit \
			--capability=CAP_SYS_RESOURCE --bind="$ZT_ZP" "${dbg[@]}"
	) </dev/null >"$CONSOLE" 2>&1 {LOCKFD}>&- &
	NSP_PID=$!
	if ! wait_until 30 ct_leader; then
		diag "container $1 did not come up; console:"
		tail -n 30 "$CONSOLE" | indent
		ct_stop
		return 1
	fi
	state=$(timeout 60 nsenter -t "$LEADER" -a systemctl is-system-running --wait 2>&1)
	diag "container $1 booted ($state) in $(ms_since "$t0") ms"
	case $state in
	running) ;;
	degraded)
		diag "container $1 booted degraded; failed units:"
		C systemctl --failed --no-legend --plain | indent
		;;
	*)
		diag "container $1: is-system-running says '$state'"
		tail -n 30 "$CONSOLE" | indent
		return 1
		;;
	esac
}

# True when pid has exited (gone, or a zombie not yet reaped).
cgroup_empty() { [ -z "$(find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null)" ]; }
# Remove a cgroup and its children, leaves first; true once it is gone.
rmdir_tree() {
	find "$1" -depth -type d -exec rmdir {} + 2>/dev/null
	[ ! -d "$1" ]
}

# Ask the container to power off; kill it if it does not within 30 s. Either
# way systemd-nspawn is reaped and the cgroups are gone afterwards.
ct_stop() {
	local h pid
	# A container of a killed earlier run: not our child, but its PID 1 is
	# in init.scope; power it off too, so that its services stop cleanly.
	if [ -z "$NSP_PID" ] && [ -d "${CG_DIRS[0]}" ]; then
		pid=$(head -n 1 "${CG_DIRS[0]}/init.scope/cgroup.procs" 2>/dev/null)
		if [ -n "$pid" ] && [ -S "/proc/$pid/root/run/systemd/private" ]; then
			timeout 10 nsenter -t "$pid" -a systemctl poweroff --no-block >/dev/null 2>&1 &&
				wait_until 30 cgroup_empty "${CG_DIRS[0]}"
		fi
	fi
	if [ -n "$NSP_PID" ]; then
		if kill -0 "$NSP_PID" 2>/dev/null; then
			[ -n "$LEADER" ] && timeout 10 nsenter -t "$LEADER" -a systemctl poweroff --no-block >/dev/null 2>&1
			if ! wait_until 30 gone "$NSP_PID"; then
				diag "container did not power off within 30 s; killing it"
				ct_kill
			fi
		fi
		wait "$NSP_PID" 2>/dev/null
	fi
	NSP_PID=
	LEADER=
	ct_kill
	for h in "${CG_DIRS[@]}"; do
		[ -d "$h" ] || continue
		wait_until 5 rmdir_tree "$h" ||
			diag "could not remove cgroup $h"
	done
}

# SIGKILL everything in the container's cgroups (nspawn included).
ct_kill() {
	local h pids
	for h in "${CG_DIRS[@]}"; do
		[ -d "$h" ] || continue
		for _ in 1 2 3 4 5; do
			pids=$(find "$h" -name cgroup.procs -exec cat {} + 2>/dev/null)
			[ -n "$pids" ] || break
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
			sleep 0.2
		done
	done
	if [ -n "$NSP_PID" ]; then
		kill -KILL "$NSP_PID" 2>/dev/null
		wait "$NSP_PID" 2>/dev/null
	fi
}

# Unmount a container root made by ct_overlay.
ct_unmount() {
	local m
	ROOT=
	for m in "$ZT_BASE/ov/merged" "$ZT_BASE/ov"; do
		mountpoint -q "$m" || continue
		umount "$m" 2>/dev/null || wait_until 5 umount "$m" 2>/dev/null || umount -l "$m" ||
			diag "could not unmount $m"
	done
}

# Everything: the container, its cgroups, its mounts. Idempotent; also run
# before the first boot to clear what a killed run left.
ct_teardown() {
	ct_cgroups || return 0
	ct_stop
	ct_unmount
	rmdir "$ZT_BASE/ov" 2>/dev/null
	return 0
}

# debian_tree LOG: build the Debian tree once (mmdebstrap, log in LOG) and
# cache it in $DEB_CACHE by suite, packages and mirror; sets DEB_TREE. On
# failure returns 1 with DEB_TREE_ERR saying why.
debian_tree() {
	local log=$1 key dir tmp
	DEB_TREE_ERR=
	key=$( { printf '%s\n' "$DEB_SUITE" apt "$DEB_PKGS" "$DEB_MIRROR" "$(dpkg --print-architecture 2>/dev/null)"
		[ -f "$DEB_MIRROR" ] && cat "$DEB_MIRROR"; } |
		sha256sum | cut -c1-12)
	dir=$DEB_CACHE/$DEB_SUITE-runtime-$key
	DEB_TREE=$dir
	[ -x "$dir/lib/systemd/systemd" ] && return 0
	command -v mmdebstrap >/dev/null || { DEB_TREE_ERR="mmdebstrap is not installed"; return 1; }
	mkdir -p "$DEB_CACHE" && rm -rf "$dir" "$dir".tmp.*
	tmp=$dir.tmp.$$
	diag "building $dir (mmdebstrap --variant=apt --include=$DEB_PKGS $DEB_SUITE, once)"
	# neither the test's lock nor the kernel lock (fd 9) goes to mmdebstrap
	if ! mmdebstrap --quiet --variant=apt --include="$DEB_PKGS" "$DEB_SUITE" "$tmp" ${DEB_MIRROR:+"$DEB_MIRROR"} \
		</dev/null >"$log" 2>&1 {LOCKFD}>&- 9>&-; then
		rm -rf "$tmp"
		diag "mmdebstrap failed:"
		tail -n 20 "$log" | indent
		DEB_TREE_ERR="mmdebstrap failed (no mirror at ${DEB_MIRROR:-the default mirror}?)"
		return 1
	fi
	mv "$tmp" "$dir"
}
