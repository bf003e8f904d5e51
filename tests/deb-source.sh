#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian source package, and a binary build from it in a clean chroot
# (run by .ci/run as a step of its own, not by make check; debian/README.source
# says how to do the same by hand):
#   1. "git archive" of HEAD (with uncommitted changes to tracked files, not
#      untracked ones), without debian/ and without docs/bench (the
#      benchmark's raw data, in git only, as "make dist" leaves it out), is
#      zswap-tuned_<upstream>.orig.tar.gz, under 5 MiB;
#   2. "dpkg-buildpackage -S -us -uc", as nobody, in that tree with debian/
#      added, gives the .dsc, the .debian.tar.xz and the _source.changes;
#   3. lintian on the _source.changes shows no errors and no warnings;
#   4. "dpkg-source -x" of the .dsc gives back exactly the tree git has
#      (docs/bench aside);
#   5. in a clean Debian 12 chroot (mmdebstrap --variant=buildd: Essential,
#      apt and build-essential only; the tarball cached in $CACHE), "apt-get
#      build-dep ./<dsc>" installs the Build-Depends and nothing else, and
#      "dpkg-buildpackage -b" builds the .deb from the .dsc as nobody, its
#      make check included: Build-Depends are complete.
# The chroot has no /sys and the build runs as nobody: nothing in it can touch
# the host's zswap knob, so no kernel lock is taken.
#
# Needs root (chroot, mounts), git, dpkg-dev, debhelper, lintian, the build
# dependencies (for the clean target of -S), mmdebstrap (or the cached
# tarball) and a Debian mirror. Skips (77) otherwise; with CI=true a skip
# fails. Prints "ok N - ..." lines and ends with "N passed, N failed".
# Environment: ZT_DEBIAN_MIRROR as for tests/systemd/run.sh; ZT_CHROOT_SUITE
# (bookworm) builds in another suite's chroot, from ZT_CHROOT_MIRROR (for a
# suite other than bookworm: deb.debian.org), e.g. ZT_CHROOT_SUITE=trixie to
# check that Build-Depends resolve there too; ZT_CHROOT_LINTIAN=1 also runs that
# suite's lintian on the result (which then must show no E: or W:).

# "A && B || fail" is the assertion idiom here.
# shellcheck disable=SC2015
set -uo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$here/.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
# check/finish, and (tests/host.sh) skip.
# shellcheck source=lib.sh
. "$here/lib.sh"
# DEB_SUITE (bookworm), DEB_MIRROR (the host's apt sources), diag, indent.
# shellcheck source=systemd/lib.sh
. "$here/systemd/lib.sh"

CACHE=/var/tmp/zswap-tuned-deb-chroot
SUITE=${ZT_CHROOT_SUITE:-$DEB_SUITE}
if [ "$SUITE" = "$DEB_SUITE" ]; then
	MIRROR=${ZT_CHROOT_MIRROR:-$DEB_MIRROR}
else
	MIRROR=${ZT_CHROOT_MIRROR:-http://deb.debian.org/debian}
fi
BUILD_USER=nobody
T_START=$SECONDS

# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" = 0 ] || skip "needs root (chroot, mounts)"
for t in git dpkg-buildpackage dpkg-source dh lintian unshare setpriv; do
	command -v "$t" >/dev/null || skip "$t is not installed (packages git, dpkg-dev, debhelper, lintian, util-linux)"
done
git -C "$abs_top_srcdir" rev-parse --git-dir >/dev/null 2>&1 || skip "$abs_top_srcdir is not a git checkout"
out=$(cd "$abs_top_srcdir" && dpkg-checkbuilddeps 2>&1) || skip "build dependencies missing: $out"
id "$BUILD_USER" >/dev/null 2>&1 || skip "no user $BUILD_USER to build as"

SRC=$(cd "$abs_top_srcdir" && dpkg-parsechangelog -S Source)
VERSION=$(cd "$abs_top_srcdir" && dpkg-parsechangelog -S Version)
UPSTREAM=${VERSION%-*}
UPSTREAM=${UPSTREAM#*:}
ORIG=${SRC}_$UPSTREAM.orig.tar.gz
DSC=${SRC}_${VERSION#*:}.dsc

W=$(mktemp -d /var/tmp/zt-deb-source.XXXXXX) || exit 99
CHROOT=$W/chroot
cleanup() {
	local rc=$?
	[ "$BASHPID" = "$$" ] || exit "$rc"
	trap - EXIT INT TERM HUP
	# the mounts live in the chroot's own mount namespace; none is left here
	rm -rf --one-file-system "$W"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- 1-4: source
# HEAD, or HEAD with the uncommitted changes to tracked files.
REV=$(git -C "$abs_top_srcdir" stash create 2>/dev/null)
REV=${REV:-HEAD}

orig_tarball() {
	mkdir -p "$W/src" || return 1
	git -C "$abs_top_srcdir" archive --format=tar.gz --prefix="$SRC-$UPSTREAM/" \
		-o "$W/src/$ORIG" "$REV" -- . ':(exclude)debian' ':(exclude)docs/bench' || return 1
	diag "$ORIG: $(tar -tzf "$W/src/$ORIG" | grep -vc '/$') files, $(du -k "$W/src/$ORIG" | cut -f1) KiB"
	! tar -tzf "$W/src/$ORIG" | grep -q "^$SRC-$UPSTREAM/debian/" ||
		{ diag "debian/ is in the orig tarball"; return 1; }
	! tar -tzf "$W/src/$ORIG" | grep -q "^$SRC-$UPSTREAM/docs/bench/" ||
		{ diag "docs/bench (the benchmark's raw data) is in the orig tarball"; return 1; }
	[ "$(du -k "$W/src/$ORIG" | cut -f1)" -lt 5120 ] || { diag "$ORIG is 5 MiB or more"; return 1; }
}

SOURCE_OK=
source_build() {
	local t0=$SECONDS
	tar -xzf "$W/src/$ORIG" -C "$W/src" &&
		git -C "$abs_top_srcdir" archive "$REV" -- debian | tar -xf - -C "$W/src/$SRC-$UPSTREAM" || return 1
	chown "$BUILD_USER:" "$W" && chown -R "$BUILD_USER:" "$W/src" || return 1
	if ! (cd "$W/src/$SRC-$UPSTREAM" && setpriv --reuid="$BUILD_USER" --regid="$(id -g "$BUILD_USER")" --clear-groups \
		env -u CI HOME="$W/src" dpkg-buildpackage -S -us -uc) >"$W/source.log" 2>&1; then
		diag "dpkg-buildpackage -S -us -uc failed:"
		tail -n 30 "$W/source.log" | indent
		return 1
	fi
	[ -f "$W/src/$DSC" ] || { diag "no $DSC"; return 1; }
	# the orig tarball is the one made above, not one dpkg-source made
	grep -qF " $ORIG" "$W/src/$DSC" || { diag "$DSC does not list $ORIG"; return 1; }
	diag "source package in $((SECONDS - t0)) s: $(cd "$W/src" && ls "${SRC}_"* | tr '\n' ' ')"
	SOURCE_OK=1
}

lintian_source_clean() {
	local out
	out=$(setpriv --reuid="$BUILD_USER" --regid="$(id -g "$BUILD_USER")" --clear-groups \
		env HOME="$W/src" lintian --fail-on none "$W/src/${SRC}_${VERSION#*:}_source.changes" 2>&1)
	diag "lintian: ${out:-(nothing)}"
	! grep -qE '^[EW]: ' <<<"$out"
}

# dpkg-source -x gives back the tree git has, file for file.
unpacks_to_tree() {
	local out
	mkdir "$W/x" "$W/git" || return 1
	(cd "$W/x" && dpkg-source --no-check -x "$W/src/$DSC" "$SRC") >"$W/x.log" 2>&1 ||
		{ diag "dpkg-source -x failed:"; indent <"$W/x.log"; return 1; }
	git -C "$abs_top_srcdir" archive "$REV" -- . ':(exclude)docs/bench' | tar -xf - -C "$W/git" || return 1
	# dpkg-source -x makes debian/patches and .pc for 3.0 (quilt); none here
	rm -rf "$W/x/$SRC/.pc"
	out=$(diff -r "$W/git" "$W/x/$SRC" 2>&1) || { diag "the unpacked source differs from git:"; head -n 20 <<<"$out" | indent; return 1; }
}

check "git archive: $ORIG, without debian/ and docs/bench, under 5 MiB" orig_tarball &&
	check "dpkg-buildpackage -S -us -uc builds the source package ($DSC)" source_build
if [ -z "$SOURCE_OK" ]; then
	finish
	exit
fi
check "lintian on the source package: no errors, no warnings" lintian_source_clean
check "dpkg-source -x of $DSC gives back the git tree (docs/bench aside)" unpacks_to_tree

# ---------------------------------------------------------------- 5: clean chroot
# The buildd base tarball, made once per suite, mirror and architecture;
# sets BASE. Rebuilt when older than a week, so that its packages stay
# installable from the mirror.
base_tarball() {
	local key tmp
	key=$( { printf '%s\n' "$SUITE" buildd "$MIRROR" "$(dpkg --print-architecture)"
		[ -f "$MIRROR" ] && cat "$MIRROR"; } | sha256sum | cut -c1-12)
	BASE=$CACHE/$SUITE-buildd-$key.tar
	[ -s "$BASE" ] && [ -z "$(find "$BASE" -mtime +7)" ] && { diag "base: $BASE (cached)"; return 0; }
	command -v mmdebstrap >/dev/null || { diag "mmdebstrap is not installed"; return 1; }
	mkdir -p "$CACHE" && rm -f "$CACHE/$SUITE-buildd-"*.tar "$CACHE"/*.tmp.* || return 1
	tmp=$BASE.tmp.$$.tar
	local t0=$SECONDS
	if ! mmdebstrap --quiet --variant=buildd "$SUITE" "$tmp" ${MIRROR:+"$MIRROR"} \
		</dev/null >"$W/mmdebstrap.log" 2>&1; then
		rm -f "$tmp"
		diag "mmdebstrap --variant=buildd $SUITE failed:"
		tail -n 20 "$W/mmdebstrap.log" | indent
		return 1
	fi
	mv "$tmp" "$BASE" || return 1
	diag "base: made $BASE in $((SECONDS - t0)) s ($(du -m "$BASE" | cut -f1) MiB)"
}

# What runs in the chroot, as root: the Build-Depends from the .dsc, then the
# build as nobody. $1 is the .dsc's name. The .debs land in /build.
# shellcheck disable=SC2016
IN_CHROOT='
set -eu
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
cd /build
t0=$(date +%s)
apt-get -q update >/build/apt.log 2>&1 || { tail -n 20 /build/apt.log; exit 1; }
echo "# packages before build-dep: $(dpkg-query -W -f "." | wc -c) (apt-get update: $(($(date +%s) - t0)) s)"
t0=$(date +%s)
apt-get -q -y -o APT::Install-Recommends=false build-dep "./$1" >>/build/apt.log 2>&1 ||
	{ tail -n 30 /build/apt.log; exit 1; }
echo "# packages after build-dep: $(dpkg-query -W -f "." | wc -c) (build-dep: $(($(date +%s) - t0)) s)"
chown -R nobody: /build
t0=$(date +%s)
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/build sh -c "
	dpkg-source -x \"/build/$1\" /build/tree >/build/dpkg-source.log 2>&1 &&
	cd /build/tree && dpkg-buildpackage -us -uc -b"
echo "# dpkg-buildpackage took $(($(date +%s) - t0)) s"
echo "# systemd.pc from $(dpkg -S /usr/share/pkgconfig/systemd.pc 2>/dev/null | cut -d: -f1); the unit at $(dpkg-deb -c /build/zswap-tuned_*_$(dpkg --print-architecture).deb | grep -o "[^ ]*/zswap-tuned.service")"
if [ -n "${ZT_CHROOT_LINTIAN:-}" ]; then
	apt-get -q -y -o APT::Install-Recommends=false install lintian >>/build/apt.log 2>&1 ||
		{ tail -n 30 /build/apt.log; exit 1; }
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/build \
		lintian --fail-on none /build/*.changes /build/*.dsc >/build/lintian.log 2>&1
	sed "s/^/# lintian $(dpkg-query -W -f "\${Version}" lintian): /" /build/lintian.log
	echo "# lintian done"
fi
'

CHROOT_DEB=
chroot_build() {
	local t0=$SECONDS t1 rc
	mkdir -p "$CHROOT" "$CACHE/$SUITE-archives/partial" "$CACHE/$SUITE-lists/partial" || return 1
	tar -xf "$BASE" -C "$CHROOT" || { diag "cannot unpack $BASE"; return 1; }
	mkdir -p "$CHROOT/build" && cp "$W/src/$DSC" "$W/src/$ORIG" "$W/src/${SRC}_${VERSION#*:}".debian.tar.* "$CHROOT/build/" ||
		return 1
	cp -L /etc/resolv.conf "$CHROOT/etc/resolv.conf" 2>/dev/null
	t1=$SECONDS
	# Its own mount namespace: /proc, /dev and apt's cached downloads and
	# package lists (kept in $CACHE between runs) are gone with it. No /sys:
	# nothing in there can reach the zswap knob.
	timeout 1800 unshare --mount --propagation private -- sh -c '
		set -e
		c=$1 cache=$2; shift 2
		mount -t proc proc "$c/proc"
		mount --rbind /dev "$c/dev"
		mount --bind "$cache-archives" "$c/var/cache/apt/archives"
		mount --bind "$cache-lists" "$c/var/lib/apt/lists"
		exec chroot "$c" sh -c "$@"' sh "$CHROOT" "$CACHE/$SUITE" "$IN_CHROOT" sh "$DSC" \
		>"$W/chroot.log" 2>&1 </dev/null
	rc=$?
	grep -E '^# (packages|systemd.pc|lintian) ' "$W/chroot.log"
	diag "dpkg-buildpackage -b in the chroot: $(sed -n 's/^# dpkg-buildpackage took //p' "$W/chroot.log")"
	if [ "$rc" != 0 ]; then
		diag "the build in the chroot failed ($rc):"
		grep -vE '^# ' "$W/chroot.log" | tail -n 40 | indent
		return 1
	fi
	local debs=("$CHROOT"/build/"${SRC}"_*.deb)
	[ -f "${debs[0]}" ] || { diag "no ${SRC}_*.deb in the chroot's /build"; return 1; }
	CHROOT_DEB=${debs[0]}
	diag "built ${CHROOT_DEB##*/} in the chroot: $((SECONDS - t0)) s in all, $((t1 - t0)) s unpacking the base, $((SECONDS - t1)) s for build-dep and build"
	diag "the package's make check: $(grep -E '^# (PASS|SKIP|FAIL): ' "$W/chroot.log" | tr -s ' \n' ' ')"
}

# The make check of the build ran and nothing in it skipped but what needs
# root (idle-wakeups): a missing test tool would have shown up as a skip.
chroot_tests_ran() {
	local skips
	grep -qE '^# PASS: +[1-9]' "$W/chroot.log" || { diag "no PASS count in the build log"; return 1; }
	skips=$(grep -E '^SKIP: tests/' "$W/chroot.log" | grep -v '^SKIP: tests/idle-wakeups.sh$')
	[ -z "$skips" ] || { diag "skipped in the chroot:"; indent <<<"$skips"; return 1; }
}

BASE=
check "a clean Debian $SUITE buildd tarball (mmdebstrap --variant=buildd, cached in $CACHE)" base_tarball
if [ -n "$BASE" ] && [ -s "$BASE" ]; then
	check "in it, apt-get build-dep ./$DSC and dpkg-buildpackage -b as $BUILD_USER build the .deb" chroot_build
	[ -z "$CHROOT_DEB" ] ||
		check "... and the package's make check ran its tests (only root-only ones skipped)" chroot_tests_ran
	[ -z "$CHROOT_DEB" ] || [ -z "${ZT_CHROOT_LINTIAN:-}" ] ||
		check "... and $SUITE's lintian on the .deb and the .dsc: no errors, no warnings" \
			eval 'grep -q "^# lintian done" "$W/chroot.log" && ! grep -qE "^# lintian [^:]*: [EW]: " "$W/chroot.log"'
fi
diag "tests/deb-source.sh took $((SECONDS - T_START)) s"
finish
