# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by tests/guest/run.sh and tests/bench/run.sh: reading a guest's serial console log.
#
# Under TCG a guest now and then dies in the kernel before userspace starts (an "Oops:
# int3" in sched_clock_cpu during early boot of 7.2; a double fault). Such a boot tested
# nothing: it is booted once more, and the panic is kept in the log and counted. A panic
# after userspace started (the kernel's "Run /... as init process") stays a failure.

CONSOLE_PANIC_RE='Kernel panic|Oops: |PANIC: |BUG: |general protection fault|kernel BUG at'
# userspace markers: the kernel starting init, systemd, and the bench guest's own log lines
# ("[1149.14] run ... start": uptime with two decimals, where printk has six)
CONSOLE_USERSPACE_RE='Run /[^ ]* as init process|systemd\[1\]: |Welcome to |^\[[0-9]+\.[0-9][0-9]\] '

# console_early_panic LOG: status 0 and the first panic line on stdout when LOG has a panic
# line before the first userspace marker; status 1 otherwise (no panic, or a later one)
console_early_panic() {
	awk -v p="$CONSOLE_PANIC_RE" -v u="$CONSOLE_USERSPACE_RE" '
		$0 ~ u { exit 1 }
		$0 ~ p { sub(/\r$/, ""); print; found = 1; exit 0 }
		END { if (!found) exit 1 }' "$1"
}

# console_late_panic LOG: status 0 and the first panic line when LOG has one after userspace started
console_late_panic() {
	awk -v p="$CONSOLE_PANIC_RE" -v u="$CONSOLE_USERSPACE_RE" '
		$0 ~ u { user = 1 }
		user && $0 ~ p { sub(/\r$/, ""); print; found = 1; exit 0 }
		END { if (!found) exit 1 }' "$1"
}
