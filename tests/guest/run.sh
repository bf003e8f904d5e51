#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zswap-tuned end to end on the kernels people run (issue 10): for each kernel,
# a Debian guest with systemd as PID 1, cgroup v2 with the memory controller, a
# swap disk and zswap on, booted under qemu (TCG: no KVM needed), with the
# daemon installed from this tree by "make install"; tests/guest/guest.sh runs
# the TAP cases inside and writes them back over a 9p share.
#
#   tests/guest/run.sh [KERNEL...]      (make check-guest)
#
# KERNEL (default: $GUEST_KERNELS, else "6.1 6.12 unstable"):
#   6.1       Debian 12's default kernel (linux-image-amd64 of bookworm/-security)
#   6.12      the newest linux-image-6.12.*+deb12-amd64-unsigned (bookworm-security)
#   unstable  the newest linux-image-amd64 of Debian unstable, in an unstable
#             guest tree (its kernel needs unstable's kmod/initramfs-tools);
#             unstable is reached through the mirror this host's own apt
#             sources name (the first URIs:/deb line), never a fixed address.
# 6.1 and 6.12 share one bookworm tree (both kernels installed, each with its
# own small initramfs).
#
# Cache (GUEST_CACHE, default /var/tmp/zswap-tuned-guest): a base tree per
# suite, keyed by its kernel packages' versions, the package list, the apt
# sources and the boot files baked into it; the daemon's VPATH build keyed by
# the hash of the source files "make install" uses; an image per (base,
# daemon). Warm runs rebuild only what changed. Guests boot with snapshot=on:
# the cached image is never written.
#
# A kernel whose packages apt cannot find (or that cannot be built) is a
# failure under CI=true and a skip, with the reason, otherwise.
# Exit: 0 all cases passed, 1 a case failed / a guest did not finish / a
# kernel was unavailable under CI=true, 77 everything skipped, 99 setup error.
#
# Environment:
#   GUEST_KERNELS   kernel list (see above)
#   GUEST_CACHE     cache directory
#   GUEST_TIMEOUT   wall-clock limit per guest boot in s (default 900)
#   GUEST_NICE      nice level for mmdebstrap, the build and qemu (default 0;
#                   19 next to a benchmark)
#   GUEST_MEM       guest MiB (2048)
#   GUEST_CPU       qemu's -cpu model (default max,-cx16: TCG mis-emulates SLUB's
#                   cmpxchg16b, the guest's "double fault" in kmem_cache_alloc;
#                   GUEST_CPU=max for the model of earlier runs)
#   GUEST_CASES     run only these case names (space-separated), for debugging
#   GUEST_BUILD_ONLY=1  build the trees, the daemon and the images; boot nothing
#   APT_SOURCES     apt sources file (default: this host's)
#   abs_top_srcdir, abs_top_builddir   set by make; default: the tree around this script
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/console.sh"
abs_top_srcdir=${abs_top_srcdir:-$(cd "$HERE/../.." && pwd)}
CACHE=${GUEST_CACHE:-/var/tmp/zswap-tuned-guest}
TIMEOUT=${GUEST_TIMEOUT:-900}
NICE=${GUEST_NICE:-0}
MEM=${GUEST_MEM:-2048}
KERNELS=${*:-${GUEST_KERNELS:-6.1 6.12 unstable}}
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	[ -s "$f" ] && { APT_SOURCES=${APT_SOURCES:-$f}; break; }
done
APT_SOURCES=${APT_SOURCES:-}
# What every guest carries: boot, systemd, the daemon's runtime libraries.
GUEST_PKGS=systemd,systemd-sysv,dbus,procps,kmod,udev,initramfs-tools,zstd,util-linux,mount,libsystemd0,libudev1,libinih1
# Bumped by hand when the tree recipe below changes in a way the hashed files do not show.
RECIPE=3

T_ALL=$(date +%s)
ts() { date +%s; }
say() { echo "# guest: $*"; }
die() { echo "Bail out! guest: $*"; exit 99; }
run_nice() { nice -n "$NICE" "$@"; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (mmdebstrap, mke2fs -d)"; [ "${CI:-}" = true ] && exit 1; exit 77; }
for t in mmdebstrap qemu-system-x86_64 mke2fs cc apt-cache sha256sum timeout; do
	command -v "$t" >/dev/null || {
		echo "1..0 # SKIP $t is not installed (apt-get install mmdebstrap qemu-system-x86 e2fsprogs gcc libc6-dev)"
		[ "${CI:-}" = true ] && exit 1; exit 77; }
done
[ -n "$APT_SOURCES" ] || die "no apt sources file found; set APT_SOURCES"
mkdir -p "$CACHE" || die "cannot create $CACHE"
exec {LOCKFD}>"$CACHE/lock"
flock -w 3600 "$LOCKFD" || die "another run holds $CACHE/lock"
TIMINGS=$CACHE/timings.txt
stamp() { printf '%s %-28s %5d s\n' "$(date -u +%FT%TZ)" "$1" "$(( $(ts) - $2 ))" | tee -a "$TIMINGS" | sed 's/^/# guest: time: /'; }

# ---------------------------------------------------------------- which packages
# The mirror of the host's own sources (first "URIs:" of a deb822 file, or the
# first "deb" line's URI): unstable is taken from the same place.
host_mirror() {
	local u
	u=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' "$APT_SOURCES")
	[ -n "$u" ] || u=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/ && $i !~ /^[a-z-]+=/) { print $i; exit } }' "$APT_SOURCES" | grep -v security | head -1)
	echo "$u"
}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# A private apt for unstable (the host's own apt state is not touched).
SID_APT=$CACHE/apt-unstable
sid_apt_opts() {
	printf '%s\n' -o "Dir::Etc::SourceList=$SID_APT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$SID_APT/lists" -o "Dir::Cache=$SID_APT/cache" -o Dir::State::status=/dev/null \
		-o Acquire::Check-Valid-Until=false -o APT::Get::List-Cleanup=0
}
SID_LINE=
sid_update() {
	local m opts
	m=$(host_mirror)
	[ -n "$m" ] || { REASON="no mirror URI in $APT_SOURCES"; return 1; }
	SID_LINE="deb [signed-by=$KEYRING] $m unstable main"
	mkdir -p "$SID_APT/lists/partial" "$SID_APT/cache/archives/partial"
	echo "$SID_LINE" > "$SID_APT/sources.list"
	mapfile -t opts < <(sid_apt_opts)
	apt-get -q "${opts[@]}" update > "$SID_APT/update.log" 2>&1 &&
		compgen -G "$SID_APT/lists/*unstable*Packages*" >/dev/null ||
		{ REASON="cannot reach unstable at $m: $(grep -E '^(E|W|Err):' "$SID_APT/update.log" | head -2 | tr '\n' ' ')"; return 1; }
}
sid_cache() { local opts; mapfile -t opts < <(sid_apt_opts); apt-cache "${opts[@]}" "$@"; }
cand() { "$@" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'; } # cand apt-cache policy PKG
dep_image() { "$@" 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'; }

# resolve KERNEL: sets SUITE, KPKG, KVER (or REASON and returns 1)
resolve() {
	REASON='' SUITE='' KPKG='' KVER=''
	case $1 in
	6.1)
		SUITE=bookworm
		KPKG=$(dep_image apt-cache depends linux-image-amd64)
		case $KPKG in linux-image-6.1.*) ;; *) REASON="host apt has no linux-image-amd64 depending on a 6.1 kernel (found '${KPKG:-nothing}'; apt-get update?)"; return 1 ;; esac ;;
	6.12)
		SUITE=bookworm
		KPKG=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
			grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -V | tail -1)
		[ -n "$KPKG" ] || { REASON="no linux-image-6.12.*+deb12-amd64-unsigned in the host's apt (bookworm-security in $APT_SOURCES? apt-get update?)"; return 1; } ;;
	unstable)
		SUITE=unstable
		sid_update || return 1
		KPKG=$(dep_image sid_cache depends linux-image-amd64)
		[ -n "$KPKG" ] || { REASON="unstable has no linux-image-amd64"; return 1; }
		KVER=$(cand sid_cache policy "$KPKG") ;;
	*) REASON="unknown kernel '$1' (6.1, 6.12 or unstable)"; return 1 ;;
	esac
	[ -n "$KVER" ] || KVER=$(cand apt-cache policy "$KPKG")
	[ -n "$KVER" ] && [ "$KVER" != "(none)" ] || { REASON="$KPKG has no installable version"; return 1; }
}

# ---------------------------------------------------------------- base trees
# One per suite: bookworm carries both the 6.1 and the 6.12 kernel.
# base SUITE "PKG=VER ...": sets BASE (the directory) or REASON.
base() {
	local suite=$1 kpkgs=$2 key dir tmp log t src inc p
	local -a srcargs aptopts=()
	if [ "$suite" = unstable ]; then
		srcargs=("$SID_LINE"); aptopts=(--aptopt='Acquire::Check-Valid-Until "false"')
		src=$SID_LINE
	else
		srcargs=("$APT_SOURCES"); src=$(cat "$APT_SOURCES")
	fi
	key=$( { echo "$RECIPE $suite $kpkgs $GUEST_PKGS"; echo "$src"; cat "$HERE/zt-guest-boot" "$HERE/zt-guest.service"; } |
		sha256sum | cut -c1-16)
	dir=$CACHE/base-$suite-$key
	BASE=$dir
	[ -f "$dir/done" ] && { say "base tree $suite cached ($kpkgs)"; return 0; }
	t=$(ts)
	rm -rf "$CACHE/base-$suite-"*
	mkdir -p "$dir"; tmp=$dir/rootfs; log=$dir/mmdebstrap.log
	inc=$GUEST_PKGS
	for p in $kpkgs; do inc=$inc,${p%%=*}; done
	say "building the $suite tree: mmdebstrap $suite + $kpkgs (log $log)"
	# Small initramfs (MODULES=list): what mounting the virtio ext4 root needs;
	# no docs, man pages or locales.
	# shellcheck disable=SC2016
	if ! run_nice mmdebstrap --variant=apt --include="$inc" "${aptopts[@]}" \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d"; echo MODULES=list > "$1/etc/initramfs-tools/conf.d/zt-guest.conf"' \
		--customize-hook='printf "virtio_pci\nvirtio_blk\ncrc32c_generic\next4\n" >> "$1/etc/initramfs-tools/modules"' \
		--customize-hook='chroot "$1" update-initramfs -u -k all' \
		"$suite" "$tmp" "${srcargs[@]}" </dev/null >"$log" 2>&1; then
		REASON="mmdebstrap of $suite failed: $(grep -E '^(E|W):' "$log" | tail -3 | tr '\n' ' ')"
		tail -n 15 "$log" | sed 's/^/#   /'
		rm -rf "$tmp"
		return 1
	fi
	# The versions really installed are the ones asked for (else the key lies).
	for p in $kpkgs; do
		[ "$(chroot "$tmp" dpkg-query -W -f='${Version}' "${p%%=*}" 2>/dev/null)" = "${p#*=}" ] ||
			{ REASON="mmdebstrap installed another version of ${p%%=*} than ${p#*=}"; rm -rf "$tmp"; return 1; }
	done
	install -m755 "$HERE/zt-guest-boot" "$tmp/usr/local/sbin/zt-guest-boot"
	install -m644 "$HERE/zt-guest.service" "$tmp/etc/systemd/system/zt-guest.service"
	mkdir -p "$tmp/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/zt-guest.service "$tmp/etc/systemd/system/multi-user.target.wants/zt-guest.service"
	# No login prompts, no udev coldplug (TCG time; nothing needed is autoloaded).
	for u in serial-getty@ttyS0.service getty@tty1.service systemd-udev-trigger.service \
		apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer \
		systemd-timesyncd.service; do
		ln -sf /dev/null "$tmp/etc/systemd/system/$u"
	done
	echo zt-guest > "$tmp/etc/hostname"
	printf '9p\n9pnet_virtio\n' > "$tmp/etc/modules-load.d/zt-guest.conf"
	: > "$tmp/etc/machine-id"
	du -sm "$tmp" | awk '{ print $1 }' > "$dir/size-mb"
	touch "$dir/done"
	stamp "base $suite (mmdebstrap)" "$t"
}

# ---------------------------------------------------------------- the daemon
# A pristine copy of the work tree (tracked and new files; it may be configured
# in place), VPATH-built with the prefixes of a package and installed into dest/.
DAEMON=
daemon() {
	local t src key d b make_sed=
	t=$(ts)
	src=$CACHE/src.$$
	rm -rf "$src"; mkdir -p "$src"
	if git -C "$abs_top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$abs_top_srcdir" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -cf - -T -) | tar -xf - -C "$src" || die "copying the source tree failed"
	else
		cp -a "$abs_top_srcdir/." "$src/" || die "copying the source tree failed"
	fi
	# The daemon's source hash: every file "make install" builds from (not the
	# tests, docs, packaging or CI).
	key=$( (cd "$src" && find . -type f ! -path './tests/*' ! -path './docs/*' ! -path './debian/*' \
		! -path './.ci/*' ! -path './.git/*' ! -name '*.md' -print0 | sort -z | xargs -0 sha256sum) |
		sha256sum | cut -c1-16)
	d=$CACHE/daemon-$key
	DAEMON=$d
	if [ -f "$d/done" ]; then
		rm -rf "$src"
		say "daemon build cached (source hash $key)"
		return 0
	fi
	rm -rf "$CACHE"/daemon-*
	mkdir -p "$d"; mv "$src" "$d/src"; b=$d/build; mkdir -p "$b"
	say "building the daemon (source hash $key): VPATH, --prefix=/usr --sysconfdir=/etc, make install DESTDIR=$d/dest"
	{ [ -x "$d/src/configure" ] || (cd "$d/src" && ./autogen.sh); } >"$d/build.log" 2>&1 &&
	(cd "$b" && run_nice "$d/src/configure" --prefix=/usr --sysconfdir=/etc \
		--with-systemdsystemunitdir=/usr/lib/systemd/system) >>"$d/build.log" 2>&1 ||
		{ tail -n 20 "$d/build.log"; die "configure failed"; }
	# configure.ac has no AC_PROG_SED; Makefile.am's edit rule uses $(SED).
	grep -q '^SED = .' "$b/Makefile" || make_sed=SED=sed
	run_nice make -C "$b" -j"$(nproc)" $make_sed >>"$d/build.log" 2>&1 &&
	run_nice make -C "$b" install DESTDIR="$d/dest" $make_sed >>"$d/build.log" 2>&1 ||
		{ tail -n 20 "$d/build.log"; die "make / make install failed"; }
	[ -x "$d/dest/usr/sbin/zswap-tuned" ] && [ -f "$d/dest/usr/lib/systemd/system/zswap-tuned.service" ] ||
		die "make install did not install /usr/sbin/zswap-tuned and the unit"
	rm -rf "$b"
	touch "$d/done"
	stamp "daemon build + install" "$t"
}

# ---------------------------------------------------------------- images
# image BASEDIR: sets IMG, the ext4 image of the base tree + the installed daemon.
image() {
	local base=$1 key t img tmp mb
	key=$(echo "$(basename "$base") $(basename "$DAEMON")" | sha256sum | cut -c1-16)
	img=$CACHE/img-$(basename "$base")-$key.img
	IMG=$img
	[ -f "$img" ] && { say "image cached ($(basename "$img"))"; return 0; }
	t=$(ts)
	rm -f "$CACHE/img-$(basename "$base")-"*.img
	tmp=$CACHE/img-rootfs.$$
	rm -rf "$tmp"
	cp -a "$base/rootfs" "$tmp" && cp -a "$DAEMON/dest/." "$tmp/" || die "assembling the image tree failed"
	mb=$(( $(cat "$base/size-mb") + 768 ))
	run_nice mke2fs -q -t ext4 -F -d "$tmp" "$img.tmp" "${mb}M" >/dev/null || { rm -rf "$tmp" "$img.tmp"; die "mke2fs failed"; }
	rm -rf "$tmp"
	mv "$img.tmp" "$img"
	stamp "image $(basename "$base")" "$t"
}

# ---------------------------------------------------------------- boot + report
N=0 NFAIL=0 NSKIP=0 NPANIC=0
tap() { # tap ok|not-ok|skip NAME [REASON]
	N=$((N + 1))
	case $1 in
	ok) echo "ok $N - $2" ;;
	skip) echo "ok $N - $2 # SKIP $3"; NSKIP=$((NSKIP + 1)) ;;
	*) echo "not ok $N - $2"; NFAIL=$((NFAIL + 1)) ;;
	esac
}
unavailable() { # NAME REASON
	if [ "${CI:-}" = true ]; then
		echo "# guest: $1: $2 (a failure under CI=true)"
		tap not-ok "$1: kernel available"
	else
		tap skip "$1: kernel available" "$2"
	fi
}

# boot NAME BASEDIR IMAGE KERNELRELEASE: runs guest.sh in a fresh snapshot of IMAGE.
boot() {
	local name=$1 base=$2 img=$3 krel=$4 run share t rc=0 line
	run=$CACHE/run-$name; share=$run/share
	rm -rf "$run"; mkdir -p "$share/results" "$share/bin"
	{ cc -O2 -static -o "$share/bin/zt-hog" "$abs_top_srcdir/tests/tools/zt-hog.c" &&
	  cc -O2 -static -o "$share/bin/zt-sample" "$HERE/zt-sample.c"; } 2>"$run/cc.log" ||
		{ cat "$run/cc.log"; die "cannot build the static guest tools (libc6-dev?)"; }
	install -m755 "$HERE/guest.sh" "$share/guest.sh"
	{ echo "KERNEL_NAME=$name"; echo "KERNEL_RELEASE=$krel"; echo "KERNEL_PKG_VERSION='$(cat "$base/kernels.txt" 2>/dev/null | tr '\n' ' ')'"
	  echo "GUEST_CASES='${GUEST_CASES:-}'"; } > "$share/params"
	t=$(ts)
	local attempt panic
	for attempt in 1 2; do
		rc=0
		truncate -s 1G "$run/swap.img"
		say "$name: booting $krel ($MEM MiB, 2 CPUs, TCG, nice $NICE, limit $TIMEOUT s); serial log $run/serial.log"
		run_nice timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu "${GUEST_CPU:-max,-cx16}" -m "$MEM" -smp 2 \
			-nodefaults -display none -serial stdio -no-reboot \
			-kernel "$base/rootfs/boot/vmlinuz-$krel" -initrd "$base/rootfs/boot/initrd.img-$krel" \
			-append "root=/dev/vda rw console=ttyS0 zswap.enabled=1 mitigations=off panic=-1 systemd.show_status=0" \
			-drive file="$img",if=virtio,format=raw,cache=unsafe,snapshot=on \
			-drive file="$run/swap.img",if=virtio,format=raw,cache=unsafe \
			-virtfs local,path="$share",mount_tag=out,security_model=none,id=out \
			</dev/null >"$run/serial.log" 2>&1 || rc=$?
		rm -f "$run/swap.img"
		# A panic before userspace started tested nothing (under TCG: an "Oops: int3" in
		# sched_clock_cpu in early boot, now and then): boot once more, keep the log, count it.
		# A panic after userspace started is a failure, as is a second early one.
		panic=$(console_early_panic "$run/serial.log") || break
		NPANIC=$((NPANIC + 1))
		cp "$run/serial.log" "$run/serial-panic$attempt.log"
		echo "# guest: $name: panicked before userspace started ($panic); console log kept in $run/serial-panic$attempt.log"
		[ "$attempt" = 1 ] && { echo "# guest: $name: booting once more"; rm -rf "$share/results"; mkdir -p "$share/results"; }
	done
	stamp "boot $name" "$t"
	if [ ! -f "$share/results/tap.txt" ]; then
		echo "# guest: $name: no results (qemu exit $rc$([ "$rc" = 124 ] && echo ", timed out after $TIMEOUT s")); serial log tail:"
		tail -n 40 "$run/serial.log" | sed 's/^/#   /'
		tap not-ok "$name: guest finished within $TIMEOUT s"
		return
	fi
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) tap skip "$name: $(sed -E 's/^ok [0-9]+ - //; s/ # SKIP.*//' <<<"$line")" "${line##*# SKIP }" ;;
		"ok "*) tap ok "$name: ${line#ok * - }" ;;
		"not ok "*) tap not-ok "$name: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$share/results/tap.txt"
	if ! grep -q '^# guest done' "$share/results/tap.txt"; then
		echo "# guest: $name: the case script did not finish (qemu exit $rc$([ "$rc" = 124 ] && echo ", timed out after $TIMEOUT s")); serial log tail:"
		tail -n 40 "$run/serial.log" | sed 's/^/#   /'
		tap not-ok "$name: guest finished within $TIMEOUT s"
	else
		tap ok "$name: guest finished within $TIMEOUT s ($(( $(ts) - t )) s)"
	fi
}

# ---------------------------------------------------------------- main
declare -A KP
WANT_BOOKWORM='' WANT_UNSTABLE=''
# The bookworm tree always carries both bookworm kernels (one cache key,
# whichever of them this run boots).
RESOLVE=$KERNELS
case " $KERNELS " in *" 6.1 "* | *" 6.12 "*) RESOLVE="6.1 6.12 $KERNELS" ;; esac
for k in $(printf '%s\n' $RESOLVE | awk '!seen[$0]++'); do
	wanted=false
	case " $KERNELS " in *" $k "*) wanted=true ;; esac
	if resolve "$k"; then
		KP[$k]=$KPKG
		$wanted && say "$k: $KPKG $KVER ($SUITE)"
		case $SUITE in bookworm) WANT_BOOKWORM+=" $KPKG=$KVER" ;; unstable) WANT_UNSTABLE+=" $KPKG=$KVER" ;; esac
	else
		KP[$k]=''
		$wanted && unavailable "$k" "$REASON"
	fi
done

daemon
sortpk() { printf '%s\n' $1 | sort -u | tr '\n' ' ' | sed 's/ $//'; }
# The two trees are built side by side (mmdebstrap waits on the mirror and
# dpkg as much as on the CPU); the unstable one in the background.
BGPID=
if [ -n "${WANT_BOOKWORM// /}" ] && [ -n "${WANT_UNSTABLE// /}" ]; then
	rm -f "$CACHE/base-unstable.reason"
	( base unstable "$(sortpk "$WANT_UNSTABLE")" || echo "$REASON" > "$CACHE/base-unstable.reason" ) \
		> "$CACHE/base-unstable.out" 2>&1 &
	BGPID=$!
fi
declare -A BASEOF IMGOF
for suite in bookworm unstable; do
	[ "$suite" = bookworm ] && pk=$WANT_BOOKWORM || pk=$WANT_UNSTABLE
	[ -n "${pk// /}" ] || continue
	pk=$(sortpk "$pk")
	if [ "$suite" = unstable ] && [ -n "$BGPID" ]; then
		wait "$BGPID"
		cat "$CACHE/base-unstable.out"
	fi
	if [ "$suite" = unstable ] && [ -s "$CACHE/base-unstable.reason" ]; then
		REASON=$(cat "$CACHE/base-unstable.reason")
		ok=false
	elif base "$suite" "$pk"; then
		ok=true
	else
		ok=false
	fi
	if $ok; then
		BASEOF[$suite]=$BASE
		printf '%s\n' $pk > "$BASE/kernels.txt"
		image "$BASE"
		IMGOF[$suite]=$IMG
	else
		BASEOF[$suite]=
		for k in $KERNELS; do
			[ -n "${KP[$k]}" ] || continue
			case $k in unstable) s=unstable ;; *) s=bookworm ;; esac
			[ "$s" = "$suite" ] && { unavailable "$k" "$REASON"; KP[$k]=; }
		done
	fi
done

[ -z "${GUEST_BUILD_ONLY:-}" ] || { stamp "total (build only)" "$T_ALL"; exit 0; }
for k in $KERNELS; do
	[ -n "${KP[$k]}" ] || continue
	case $k in unstable) s=unstable ;; *) s=bookworm ;; esac
	b=${BASEOF[$s]}
	krel=${KP[$k]#linux-image-}; krel=${krel%-unsigned}
	[ -n "$krel" ] && [ -f "$b/rootfs/boot/vmlinuz-$krel" ] && [ -f "$b/rootfs/boot/initrd.img-$krel" ] || {
		echo "# guest: $k: no vmlinuz/initrd.img for ${KP[$k]} in $b/rootfs/boot: $(ls "$b/rootfs/boot" | tr '\n' ' ')"
		tap not-ok "$k: kernel and initramfs in the tree"; continue; }
	boot "$k" "$b" "${IMGOF[$s]}" "$krel"
done

echo "1..$N"
stamp total "$T_ALL"
echo "# guest: $N cases, $NFAIL failed, $NSKIP skipped, $NPANIC boots panicked before userspace (booted again)"
[ "$NFAIL" = 0 ] || exit 1
[ "$N" -gt 0 ] && [ "$NSKIP" = "$N" ] && exit 77
exit 0
