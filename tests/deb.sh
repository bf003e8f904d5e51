#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian package end to end (run by .ci/run as a step of its own, not
# by make check):
#   1. debian/changelog's upstream version is configure.ac's AC_INIT version;
#   2. "dpkg-buildpackage -us -uc -b" builds it, as nobody, in a scratch copy
#      of the tree (the results land in the copy's parent, never in the
#      tree), its make check included (the root-only tests skip);
#   3. lintian shows no errors and no warnings;
#   4. "apt-get install ./zswap-tuned_*.deb" in a clean Debian 12 runtime tree
#      (mmdebstrap, cached in /var/cache/zswap-tuned-test and shared with
#      tests/systemd/run.sh), with a drop-in setting [Daemon] Baseline= to the
#      opposite of the knob's current value;
#   5. booted under systemd-nspawn (tests/systemd/lib.sh): the unit is enabled
#      and active, it flipped the host's real knob, and journalctl -x shows
#      the catalog's text for that flip (systemd's dpkg trigger compiled it);
#   6. "apt-get purge -y zswap-tuned": the unit is stopped, the knob is back
#      at its original value, /etc/zswap-tuned.conf, the unit's enablement
#      and the metrics textfile (the drop-in put it in Debian's node
#      exporter directory; it outlives a stop) are gone;
#   7. the package's autopkgtest (debian/tests) in the same booted tree, with
#      autopkgtest-virt-null there (autopkgtest is installed into the tree's
#      overlay, its .debs cached in $APT_CACHE): it installs the .deb again,
#      starts the unit, reads "zswap-tuned status --json" and purges; then
#      caps a batch unit where the tree has memory.zswap.max (else that test
#      skips); the knob is back at its original value afterwards. Never on
#      this host.
# Steps 4-7 hold the kernel test lock, and every zswap parameter is saved
# first and restored in the EXIT trap, which also tears the container down.
#
# Needs root, dpkg-dev, debhelper, lintian, the build dependencies, mmdebstrap
# (or the cached tree), systemd-nspawn, zswap with shrinker_enabled, PSI and
# cgroup v2 (or hybrid). Skips (77) otherwise; with CI=true a skip fails.
# Prints "ok N - ..." lines and ends with "N passed, N failed".
# Environment: ZT_DEBIAN_MIRROR as for tests/systemd/run.sh.

# "A && B || fail" is the assertion idiom here; single quotes around text
# for the inner shell are meant.
# shellcheck disable=SC2015,SC2016
set -uo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
# check/finish, and (tests/host.sh) skip, kernel_lock, zswap_params_*.
# shellcheck source=lib.sh
. "$here/lib.sh"
# ct_overlay, ct_boot, C, ct_stop, ct_teardown, wait_until, diag, indent.
# shellcheck source=systemd/lib.sh
. "$here/systemd/lib.sh"

UNIT=zswap-tuned.service
APT_CACHE=/var/tmp/zswap-tuned-deb-autopkgtest
KNOB=$ZT_ZP/shrinker_enabled
FLIP_ID=5b0c2a4e6f8d4c1f9e3a7b2d1c0e9f84
PROM_DIR=/var/lib/prometheus/node-exporter
T_START=$SECONDS


# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn, mounts, cgroups, the zswap knob)"
for t in dpkg-buildpackage dh lintian apt-get systemd-nspawn nsenter flock systemd-id128 chroot runuser; do
	command -v "$t" >/dev/null ||
		skip "$t is not installed (packages dpkg-dev, debhelper, lintian, systemd-container)"
done
out=$(cd "$abs_top_srcdir" && dpkg-checkbuilddeps 2>&1) || skip "build dependencies missing: $out"
[ -e "$KNOB" ] || skip "kernel has no zswap shrinker_enabled knob (zswap missing, or older than 6.8)"
[ -e /proc/pressure/memory ] || skip "kernel has no PSI (/proc/pressure/memory missing; boot with psi=1)"
ct_cgroups || skip "neither cgroup v2 nor hybrid cgroups: systemd 252 cannot boot here"
BUILD_USER=nobody # builds and runs lintian
id "$BUILD_USER" >/dev/null 2>&1 || skip "no user $BUILD_USER to build as"

W=$(mktemp -d /var/tmp/zt-deb.XXXXXX) || exit 99
LOCKED=
cleanup() {
	local rc=$? problems=0
	[ "$BASHPID" = "$$" ] || exit "$rc"
	set +e
	trap - EXIT INT TERM HUP
	if [ -n "$LOCKED" ]; then
		ct_teardown
		zswap_params_restore || problems=1
		diag "zswap parameters after: $(for f in "$ZT_ZP"/*; do printf '%s=%s ' "${f##*/}" "$(cat "$f")"; done)"
	fi
	rm -rf "$W" "$ZT_BASE"/console.*.log
	rmdir "$ZT_BASE" 2>/dev/null
	[ "$problems" = 0 ] || [ "$rc" != 0 ] || rc=1
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- 1-3: build
version_matches() {
	local ac deb
	ac=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$abs_top_srcdir/configure.ac")
	deb=$(cd "$abs_top_srcdir" && dpkg-parsechangelog -S Version)
	[ -n "$ac" ] && [ "${deb%-*}" = "$ac" ] && return 0
	diag "debian/changelog has $deb, configure.ac AC_INIT has ${ac:-nothing}"
	return 1
}

# The tree as a fresh clone would have it (tracked files and new ones not
# ignored; no build products), in $W/src; or all of it outside git.
copy_tree() {
	mkdir -p "$W/src" || return 1
	if git -C "$abs_top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$abs_top_srcdir" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$W/src"
	else
		cp -a "$abs_top_srcdir/." "$W/src/"
	fi
}

DEB=
build() {
	local t0=$SECONDS
	copy_tree || { diag "cannot copy the tree to $W/src"; return 1; }
	# As a user, as a package build should be (Rules-Requires-Root: no): the
	# tests that need root and the host's kernel (idle-wakeups, which waits
	# for the kernel lock) skip. CI's CI=true would turn those skips into
	# failures (debian/rules unexports it too).
	chown -R "$BUILD_USER:" "$W" || return 1
	if ! (cd "$W/src" && runuser -u "$BUILD_USER" -- env -u CI HOME="$W" dpkg-buildpackage -us -uc -b) \
		>"$W/build.log" 2>&1; then
		diag "dpkg-buildpackage -us -uc -b failed:"
		tail -n 40 "$W/build.log" | indent
		# Which tests failed, and the end of each one's log: the tail
		# above shows only make's summary.
		local t
		for t in $(sed -n 's/^FAIL: \([^ ]*\).*/\1/p' "$W/build.log" | sort -u); do
			diag "the package's make check: $t failed; the end of its log:"
			tail -n 40 "$W/src/$t.log" 2>/dev/null | indent
		done
		return 1
	fi
	local debs=("$W"/zswap-tuned_*.deb)
	[ -f "${debs[0]}" ] || { diag "no zswap-tuned_*.deb in $W"; return 1; }
	DEB=${debs[0]}
	diag "built ${DEB##*/} in $((SECONDS - t0)) s; the package's make check: $(grep -E '^# (PASS|SKIP|FAIL): ' "$W/build.log" | tr -s ' \n' ' ')"
}

lintian_clean() {
	local out
	out=$(runuser -u "$BUILD_USER" -- env HOME="$W" lintian --fail-on none "$W"/zswap-tuned_*.changes 2>&1)
	diag "lintian: ${out:-(nothing)}"
	! grep -qE '^[EW]: ' <<<"$out"
}

check "debian/changelog's upstream version is configure.ac's AC_INIT version" version_matches
check "dpkg-buildpackage -us -uc -b builds the package (its make check included)" build
if [ -z "$DEB" ]; then
	finish
	exit
fi
check "lintian: no errors, no warnings" lintian_clean

# ---------------------------------------------------------------- 4-6: install, boot, purge
kernel_lock --legacy || exit 1 # one job that changes the host kernel at a time (tests/host.sh)
# shellcheck disable=SC2034 # ct_boot keeps the container from inheriting it
LOCKFD=8
LOCKED=1
skip_if_knob_driven # tests/host.sh
ct_teardown # whatever a killed earlier run left (we hold the lock)
zswap_params_save
diag "zswap parameters before: $(zswap_params_saved)"
ORIG=$(cat "$KNOB")
case $ORIG in
Y) BASELINE=off WANT=N ;;
*) BASELINE=on WANT=Y ;;
esac

# apt-get install ./zswap-tuned_*.deb in the tree, before it boots: enabled
# by the package's postinst, started by the boot.
install_deb() {
	local deps
	debian_tree "$W/mmdebstrap.log" || { diag "$DEB_TREE_ERR"; return 1; }
	ct_overlay "$DEB_TREE" || { diag "cannot mount the Debian tree"; return 1; }
	cp "$DEB" "$ROOT/tmp/" || return 1
	# and the metrics textfile in Debian's node exporter directory, which
	# the purge must remove
	mkdir -p "$ROOT/etc/zswap-tuned.conf.d" "$ROOT$PROM_DIR" &&
		printf '# tests/deb.sh: the opposite of the knob at start (%s)\n[Daemon]\nBaseline=%s\n[Metrics]\nTextfileDirectory=%s\n' \
			"$ORIG" "$BASELINE" "$PROM_DIR" >"$ROOT/etc/zswap-tuned.conf.d/test.conf" || return 1
	if ! chroot "$ROOT" apt-get install -y --no-install-recommends "/tmp/${DEB##*/}" >"$W/install.log" 2>&1 8>&- 9>&-; then
		diag "apt-get install ./${DEB##*/} in the tree failed:"
		tail -n 20 "$W/install.log" | indent
		return 1
	fi
	chroot "$ROOT" dpkg-query -W -f '${Status} ${Version}\n' zswap-tuned | grep -q '^install ok installed ' ||
		{ diag "dpkg says: $(chroot "$ROOT" dpkg-query -W -f '${Status}' zswap-tuned 2>&1)"; return 1; }
	[ -f "$ROOT/etc/zswap-tuned.conf" ] || { diag "no /etc/zswap-tuned.conf"; return 1; }
	grep -qx /etc/zswap-tuned.conf "$ROOT/var/lib/dpkg/info/zswap-tuned.conffiles" ||
		{ diag "/etc/zswap-tuned.conf is not a conffile"; return 1; }
	# the dashboard, the alerting rules and the status schema, uncompressed
	local f
	for f in examples/grafana/zswap-tuned.json examples/prometheus/zswap-tuned.rules.yml status-schema.json; do
		[ -f "$ROOT/usr/share/doc/zswap-tuned/$f" ] || { diag "no /usr/share/doc/zswap-tuned/$f"; return 1; }
	done
	# The runtime tree had every dependency already: nothing else came in.
	deps=$(grep -E '^(Unpacking|Setting up) ' "$W/install.log" | grep -v ' zswap-tuned ')
	[ -z "$deps" ] || { diag "the install pulled in more:"; indent <<<"$deps"; }
}

knob_is() { [ "$(cat "$KNOB")" = "$1" ]; }

# Booted: enabled, active (after READY=1), and it wrote the knob.
booted_running() {
	ct_boot P || return 1
	[ "$(C systemctl is-enabled "$UNIT")" = enabled ] || { diag "is-enabled: $(C systemctl is-enabled "$UNIT" 2>&1)"; return 1; }
	wait_until 10 eval '[ "$(C systemctl is-active "$UNIT")" = active ]' ||
		{ diag "is-active: $(C systemctl is-active "$UNIT")"; C systemctl status --no-pager "$UNIT" | indent; return 1; }
	wait_until 10 knob_is "$WANT" ||
		{ diag "the knob is $(cat "$KNOB"), want $WANT (Baseline=$BASELINE)"; C journalctl -q --no-pager -u "$UNIT" -b | indent; return 1; }
	wait_until 10 test -s "$ROOT$PROM_DIR/zswap_tuned.prom" ||
		{ diag "no $PROM_DIR/zswap_tuned.prom"; C journalctl -q --no-pager -u "$UNIT" -b | indent; return 1; }
}

# The flip's record under journalctl -x carries the catalog's text: the
# systemd package's dpkg trigger ran journalctl --update-catalog.
catalog_shown() {
	local out
	wait_until 10 eval 'C journalctl -q --no-pager -u "$UNIT" -b "MESSAGE_ID=$FLIP_ID" -o cat | grep -q .' ||
		{ diag "no flip record (MESSAGE_ID=$FLIP_ID) in the journal"; return 1; }
	out=$(C journalctl -q --no-pager -x -u "$UNIT" -b "MESSAGE_ID=$FLIP_ID")
	grep -qF "Subject: zswap shrinker shrinker_enabled set to $WANT (reason: none)" <<<"$out" &&
		grep -qF 'Defined-By: zswap-tuned' <<<"$out" ||
		{ diag "journalctl -x -u $UNIT MESSAGE_ID=$FLIP_ID:"; indent <<<"$out"; return 1; }
	diag "journalctl -x: $(grep -m1 -F 'Subject: ' <<<"$out" | sed 's/^[^S]*//')"
}

# apt-get purge: prerm stops the unit, ExecStopPost= restores the knob,
# dpkg removes the conffile, postrm the enablement.
purged() {
	local out rc=0 st
	out=$(C apt-get purge -y zswap-tuned 2>&1) || { diag "apt-get purge -y zswap-tuned failed:"; indent <<<"$out"; return 1; }
	st=$(C systemctl is-active "$UNIT")
	case $st in inactive | unknown) ;; *) diag "after purge the unit is $st"; rc=1 ;; esac
	knob_is "$ORIG" || { diag "after purge the knob is $(cat "$KNOB"), not its original $ORIG"; rc=1; }
	C dpkg-query -W -f '${Status}\n' zswap-tuned 2>/dev/null | grep -q '^install ok installed$' &&
		{ diag "dpkg still has zswap-tuned installed"; rc=1; }
	for f in /etc/zswap-tuned.conf /usr/sbin/zswap-tuned /lib/systemd/system/$UNIT \
		/etc/systemd/system/multi-user.target.wants/$UNIT /usr/lib/systemd/catalog/zswap-tuned.catalog \
		"$PROM_DIR/zswap_tuned.prom"; do
		[ ! -e "$ROOT$f" ] && [ ! -L "$ROOT$f" ] || { diag "$f is still there after purge"; rc=1; }
	done
	C journalctl -q --no-pager -u "$UNIT" -b -o cat | grep -qE "^Restored shrinker_enabled to its original value $ORIG\$" ||
		{ diag "no 'Restored shrinker_enabled ...' in the journal:"; C journalctl -q --no-pager -u "$UNIT" -b -n 15 | indent; rc=1; }
	return "$rc"
}

# The autopkgtest, run by autopkgtest-virt-null inside the booted container:
# a testbed with systemd as PID 1 and the real knob. Its Restrictions ask
# for needs-root, isolation-machine and breaks-testbed: this container is
# booted for the test alone and holds the kernel lock (a machine's worth of
# isolation for what the tests touch), and it is an overlay on a tmpfs,
# thrown away after the test (the null runner cannot revert a testbed), so
# isolation-machine and breaks-testbed are ignored here. Its apt downloads
# are kept in $APT_CACHE between runs. "service" must pass; "cap" passes
# where the container has the memory controller on cgroup v2, and skips
# (autopkgtest exits 2) where it has not.
autopkgtest_null() {
	local t0=$SECONDS rc=0 a=/srv/zt-autopkgtest out
	mkdir -p "$APT_CACHE" "$ROOT$a/src" && cp "$DEB" "$ROOT$a/" && cp -a "$W/src/debian" "$ROOT$a/src/" || return 1
	find "$APT_CACHE" -maxdepth 1 -name '*.deb' -exec cp -t "$ROOT/var/cache/apt/archives/" {} + 2>/dev/null
	if ! { C apt-get -q update && C apt-get -q install -y --no-install-recommends autopkgtest; } >"$W/autopkgtest-install.log" 2>&1; then
		diag "installing autopkgtest in the tree failed:"
		tail -n 20 "$W/autopkgtest-install.log" | indent
		return 1
	fi
	find "$ROOT/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -nt "$APT_CACHE/" {} + 2>/dev/null
	diag "autopkgtest installed in the tree in $((SECONDS - t0)) s"
	t0=$SECONDS
	C env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		timeout 600 autopkgtest --ignore-restrictions=breaks-testbed,isolation-machine \
		--output-dir "$a/out" "$a/${DEB##*/}" "$a/src/" -- null \
		>"$W/autopkgtest.log" 2>&1 || rc=$?
	diag "autopkgtest took $((SECONDS - t0)) s and exited $rc; its summary:"
	[ -f "$ROOT$a/out/summary" ] && indent <"$ROOT$a/out/summary"
	if { [ "$rc" != 0 ] && [ "$rc" != 2 ]; } || ! grep -qE '^service +PASS' "$ROOT$a/out/summary" 2>/dev/null ||
		! grep -qE '^cap +(PASS|SKIP)' "$ROOT$a/out/summary" 2>/dev/null ||
		{ [ "$rc" = 2 ] && ! grep -qE '^cap +SKIP' "$ROOT$a/out/summary"; }; then
		diag "autopkgtest's output:"
		tail -n 40 "$W/autopkgtest.log" | indent
		return 1
	fi
	out=$(grep -hE '^(status --json|purged|capped|restored|SKIP): ' "$ROOT$a/out/service-stdout" "$ROOT$a/out/cap-stdout" 2>/dev/null)
	[ -n "$out" ] && indent <<<"$out"
	knob_is "$ORIG" || { diag "after the autopkgtest the knob is $(cat "$KNOB"), not its original $ORIG"; return 1; }
	C dpkg-query -W -f '${Status}\n' zswap-tuned 2>/dev/null | grep -q '^install ok installed$' &&
		{ diag "the autopkgtest left zswap-tuned installed"; return 1; }
	return 0
}

if check "apt-get install ./${DEB##*/} in a clean Debian $DEB_SUITE tree; /etc/zswap-tuned.conf a conffile, the examples there" install_deb &&
	check "booted: the unit is enabled and active, and set the knob to $WANT (Baseline=$BASELINE)" booted_running; then
	check "journalctl -x shows the catalog's text for the flip" catalog_shown
	check "apt-get purge: unit stopped, knob back at $ORIG, conffile and enablement gone" purged &&
		check "autopkgtest (debian/tests) in the booted tree with autopkgtest-virt-null: PASS, knob back at $ORIG" autopkgtest_null
fi
diag "tests/deb.sh took $((SECONDS - T_START)) s"
finish
