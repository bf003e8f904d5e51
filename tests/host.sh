# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the scripts that touch the host: a skip that fails under
# CI=true, stopping processes, and saving every zswap module parameter before
# a test touches one so that its EXIT trap can put back each that changed
# (enabled last). Sourced by the shell tests and the benchmark scripts.

# skip REASON: exit 77, or fail when CI says every test must run.
skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: would skip, but CI=true: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# gone PID: the process has exited (or is a zombie).
gone() {
	local st
	[ -n "$1" ] || return 0
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "$st" = Z ]
}

# stop_pid PID SIG: send SIG (EOF: none, it ends by itself), wait up to 10 s,
# then SIGKILL; its exit status lands in STOP_RC.
stop_pid() {
	local pid=$1 sig=$2 i
	STOP_RC=
	[ -n "$pid" ] || return 0
	[ "$sig" = EOF ] || kill "-$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		gone "$pid" && break
		sleep 0.05
	done
	gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
	STOP_RC=0
	wait "$pid" 2>/dev/null || STOP_RC=$?
}

ZP=${ZP:-/sys/module/zswap/parameters}
declare -A ZP_SAVED=()

# zswap_params_save: remember them all. (Not in a $(...): that is a subshell.)
zswap_params_save() {
	local f
	for f in "$ZP"/*; do
		ZP_SAVED[${f##*/}]=$(cat "$f")
	done
}

# zswap_params_saved: "name=value ..." of what was saved, for the log.
zswap_params_saved() {
	local k
	for k in "${!ZP_SAVED[@]}"; do printf '%s=%s ' "$k" "${ZP_SAVED[$k]}"; done
}

# zswap_params_restore: 0 when everything is as it was, else 1 (and says which).
zswap_params_restore() {
	local f name cur problems=0
	for f in "$ZP"/*; do
		name=${f##*/}
		[ "$name" = enabled ] && continue
		[ -n "${ZP_SAVED[$name]+x}" ] && [ -w "$f" ] || continue
		cur=$(cat "$f" 2>/dev/null)
		[ "$cur" = "${ZP_SAVED[$name]}" ] && continue
		echo "${ZP_SAVED[$name]}" >"$f" 2>/dev/null ||
			{ echo "# cleanup: could not restore $name=${ZP_SAVED[$name]} (now $cur)"; problems=1; }
	done
	if [ -n "${ZP_SAVED[enabled]+x}" ] && [ "$(cat "$ZP/enabled")" != "${ZP_SAVED[enabled]}" ]; then
		echo "${ZP_SAVED[enabled]}" >"$ZP/enabled" ||
			{ echo "# cleanup: could not restore enabled=${ZP_SAVED[enabled]}"; problems=1; }
	fi
	return "$problems"
}

# kernel_lock [--legacy]: one job that changes the host kernel's state (zswap
# parameters, swap, cgroups, the real knob) at a time, machine-wide. Takes an
# exclusive flock on $KERNEL_LOCK (/run/zswap-tuned-tests.lock) on fd 9 and
# keeps it until the caller exits (children that inherit fd 9, such as a
# daemon that is still running, keep it too). Waits up to $KERNEL_LOCK_WAIT
# seconds (1800), saying who holds it, then returns 1. --legacy also takes
# /run/zswap-tuned-test.lock (on fd 8), which tests/bench/overhead.sh and
# older copies of the kernel tests take; callers that take that one
# themselves must not pass it (a second flock on the same file from the same
# process waits for itself).
KERNEL_LOCK=${KERNEL_LOCK:-/run/zswap-tuned-tests.lock}
KERNEL_LOCK_LEGACY=/run/zswap-tuned-test.lock
KERNEL_LOCKED=
kernel_lock() {
	local wait=${KERNEL_LOCK_WAIT:-1800} f fd t0=$SECONDS holder
	[ -n "$KERNEL_LOCKED" ] && return 0
	for f in "$KERNEL_LOCK" ${1:+"$KERNEL_LOCK_LEGACY"}; do
		if [ "$f" = "$KERNEL_LOCK" ]; then
			fd=9
			exec 9<>"$f" || { echo "# kernel_lock: cannot open $f"; return 1; }
		else
			fd=8
			exec 8<>"$f" || { echo "# kernel_lock: cannot open $f"; return 1; }
		fi
		if ! flock -n "$fd"; then
			# who: each holder writes "pid N: script, since ..." into the file
			# (/proc/locks names flock(1)'s own, long gone pid)
			holder=$(head -c 200 "$f" 2>/dev/null | tr '\n' ' ')
			holder=${holder:-an unknown process}
			echo "# waiting for the kernel test lock held by ${holder% } ($f, up to $wait s)"
			if ! flock -w "$wait" "$fd"; then
				echo "# kernel_lock: $f still held after $wait s by ${holder% }; giving up"
				return 1
			fi
			echo "# got the kernel test lock $f after $((SECONDS - t0)) s"
		fi
		printf 'pid %s: %s, since %s\n' "$$" "${0##*/}" "$(date '+%F %T')" >"$f"
	done
	KERNEL_LOCKED=1
}

# skip_if_knob_driven: skip when another zswap-tuned drives the real knob
# (one run with --root, --dry-run, --check-config or --restore does not):
# two daemons writing one knob would fight, and the test would measure that.
skip_if_knob_driven() {
	local c p args
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = zswap-tuned ] || continue
		p=${c%/comm}
		args=$(tr '\0' '\n' <"$p/cmdline" 2>/dev/null) || continue
		grep -qE '^(--root(=.*)?|-n|--dry-run|--check-config|--restore)$' <<<"$args" && continue
		skip "another zswap-tuned (pid ${p#/proc/}) is already driving the knob"
	done
}
