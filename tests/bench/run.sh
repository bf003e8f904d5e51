#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zswap-tuned benchmark (issue 4): static shrinker N / Y / per-cgroup cap versus
# zswap-tuned, in a Debian 12 guest with Linux 6.12 and cgroup v2 under qemu TCG.
# Adapted from the shared qemu test bed recipe.
#
#   tests/bench/run.sh [all|deps|base|image|boot|report|clean]     (default: all)
#
#   deps   apt-get install what the host needs (Debian 12, root)
#   base   mmdebstrap the Debian base tree (cached; rebuilt only if its recipe changes)
#   image  VPATH-build the daemon (--prefix=/usr --sysconfdir=/etc), make install
#          DESTDIR=<copy of the base tree>, mke2fs the guest image (cached by the hash
#          of the installed files and of guest/; rebuilt whenever the daemon changes)
#   boot   build the static guest tools, boot the guest under qemu TCG (nice 19), which
#          runs guest/guest.sh from the 9p share and writes results/ there
#   report summary.md + timeline PNGs from the last boot's results
#   all    deps base image boot report
#
# Needs root (mmdebstrap into a directory, mke2fs -d keeps ownership), apt access to
# bookworm + bookworm-security (this host's own apt sources are used). No KVM needed.
#
# Environment:
#   abs_top_srcdir, abs_top_builddir   set by "make bench"; default: the tree around this script
#   BENCH_WORK   cache and output directory (default /var/tmp/zswap-tuned-bench)
#   BENCH_CONF   file with guest settings (default tests/bench/guest/matrix.conf); see guest.sh
#   BENCH_MEM    guest MiB (3072)        BENCH_SMP  guest CPUs (2)
#   BENCH_TIMEOUT guest wall limit in s (5400)
#   BENCH_OUT    where summary.md and the PNGs are copied (default $BENCH_WORK/results)
#   KERNEL_PKG   Debian kernel package (default: newest linux-image-6.12.*+deb12-amd64-unsigned)
#   APT_SOURCES  apt sources for the guest tree (default: this host's, which must carry
#                bookworm and bookworm-security)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$HERE/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
WORK=${BENCH_WORK:-/var/tmp/zswap-tuned-bench}
CONF=${BENCH_CONF:-$HERE/guest/matrix.conf}
MEM=${BENCH_MEM:-3072}
SMP=${BENCH_SMP:-2}
TIMEOUT=${BENCH_TIMEOUT:-5400}
IMG_SIZE=${BENCH_IMG_SIZE:-8G}
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	[ -s "$f" ] && { APT_SOURCES=${APT_SOURCES:-$f}; break; }
done
APT_SOURCES=${APT_SOURCES:?no apt sources file found; set APT_SOURCES}
SHARE=$WORK/share
OUT=${BENCH_OUT:-$SHARE/results}

# Packages in the guest: boot + systemd + the daemon's runtime libraries.
GUEST_PKGS=systemd,systemd-sysv,dbus,procps,kmod,udev,initramfs-tools,zstd,libsystemd0,libudev1,libinih1
HOST_PKGS="qemu-system-x86 mmdebstrap e2fsprogs gcc libc6-dev make autoconf automake pkg-config
	libsystemd-dev libudev-dev libinih-dev python3 gnuplot-nox git"

mkdir -p "$WORK"
ts() { date +%s.%N; }
stamp() { printf '%-24s %7.1f s\n' "$1" "$(echo "$(ts) - $2" | bc)" | tee -a "$WORK/timings.txt"; }
die() { echo "bench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, mke2fs -d with ownership)"

deps() {
	local missing=() p t
	t=$(ts)
	for p in $HOST_PKGS bc; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "bench: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
	stamp deps "$t"
}

pick_kernel() {
	[ -n "${KERNEL_PKG:-}" ] && { echo "$KERNEL_PKG"; return; }
	local k
	k=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -V | tail -1 || true)
	echo "${k:-linux-image-6.12-amd64}"
}

# ---------------------------------------------------------------- base tree (cached)
# The base is keyed by the kernel package, the package list and the boot files; it does
# not contain the daemon. The generic amd64 flavour is needed (cloud-amd64 has no zswap).
base() {
	local t K key
	t=$(ts)
	K=$(pick_kernel)
	key=$( { echo "$K $GUEST_PKGS"; cat "$APT_SOURCES" "$HERE/guest/bed-boot" "$HERE/guest/bed.service"; } | sha256sum | cut -c1-16)
	if [ -f "$WORK/base/key" ] && [ "$(cat "$WORK/base/key")" = "$key" ]; then
		echo "bench: base tree cached ($K, key $key)"
		return
	fi
	rm -rf "$WORK/base"; mkdir -p "$WORK/base"
	echo "bench: mmdebstrap bookworm + $K"
	# small initramfs (MODULES=list): only what mounting the virtio ext4 root needs
	mmdebstrap --variant=apt --include="$GUEST_PKGS,$K" \
		--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d"; echo MODULES=list > "$1/etc/initramfs-tools/conf.d/bench.conf"' \
		--customize-hook='printf "virtio_pci\nvirtio_blk\ncrc32c_generic\next4\n" >> "$1/etc/initramfs-tools/modules"' \
		--customize-hook='chroot "$1" update-initramfs -u -k all' \
		bookworm "$WORK/base/rootfs" "$APT_SOURCES" \
		> "$WORK/base/mmdebstrap.log" 2>&1 || { tail -20 "$WORK/base/mmdebstrap.log"; die "mmdebstrap failed"; }
	local R=$WORK/base/rootfs
	install -m755 "$HERE/guest/bed-boot" "$R/usr/local/sbin/bed-boot"
	install -m644 "$HERE/guest/bed.service" "$R/etc/systemd/system/bed.service"
	mkdir -p "$R/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/bed.service "$R/etc/systemd/system/multi-user.target.wants/bed.service"
	# no login prompts; no udev coldplug (saves TCG time; nothing needed is autoloaded)
	ln -sf /dev/null "$R/etc/systemd/system/serial-getty@ttyS0.service"
	ln -sf /dev/null "$R/etc/systemd/system/getty@tty1.service"
	ln -sf /dev/null "$R/etc/systemd/system/systemd-udev-trigger.service"
	echo bench > "$R/etc/hostname"
	printf '9p\n9pnet_virtio\n' > "$R/etc/modules-load.d/bench.conf"
	cp "$R"/boot/vmlinuz-* "$WORK/base/vmlinuz"; cp "$R"/boot/initrd.img-* "$WORK/base/initrd.img"
	echo "$K" > "$WORK/base/kernel-pkg"
	echo "$key" > "$WORK/base/key"
	stamp "base (mmdebstrap)" "$t"
}

# ---------------------------------------------------------------- daemon + image
src_copy() { # a pristine copy of the source tree (the tree may be configured in place)
	local s=$WORK/daemon/src
	rm -rf "$s"; mkdir -p "$s"
	if git -C "$abs_top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
		# tracked files deleted in the work tree are left out, not an error
		(cd "$abs_top_srcdir" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
			tar --null -cf - -T -) | tar -xf - -C "$s"
	else
		cp -a "$abs_top_srcdir/." "$s/"
		[ -f "$s/Makefile" ] && make -C "$s" distclean >/dev/null 2>&1 || true
	fi
	[ -x "$s/configure" ] || (cd "$s" && ./autogen.sh >/dev/null 2>&1) || die "autogen.sh failed"
}

image() {
	local t D=$WORK/daemon key
	t=$(ts)
	[ -f "$WORK/base/key" ] || die "no base tree: run '$0 base' first"
	src_copy
	rm -rf "$D/build" "$D/dest"; mkdir -p "$D/build"
	(cd "$D/build" && "$D/src/configure" --prefix=/usr --sysconfdir=/etc \
		--with-systemdsystemunitdir=/usr/lib/systemd/system >"$D/configure.log" 2>&1) ||
		{ tail -20 "$D/configure.log"; die "configure failed"; }
	# configure.ac has no AC_PROG_SED, so $(SED) in Makefile.am's edit rule is empty: pass it
	local MAKE_SED=
	grep -q '^SED = .' "$D/build/Makefile" || MAKE_SED=SED=sed
	make -C "$D/build" -j"$(nproc)" $MAKE_SED >"$D/make.log" 2>&1 || { tail -20 "$D/make.log"; die "make failed"; }
	make -C "$D/build" install DESTDIR="$D/dest" $MAKE_SED >>"$D/make.log" 2>&1 || { tail -20 "$D/make.log"; die "make install failed"; }
	stamp "daemon build+install" "$t"; t=$(ts)
	key=$( { cat "$WORK/base/key"; echo "$IMG_SIZE";
		(cd "$D/dest" && find . -type f -print0 | sort -z | xargs -0 sha256sum);
		(cd "$HERE/guest" && sha256sum bed-boot bed.service); } | sha256sum | cut -c1-16)
	if [ -f "$WORK/vm.img" ] && [ -f "$WORK/vm.key" ] && [ "$(cat "$WORK/vm.key")" = "$key" ]; then
		echo "bench: guest image up to date (key $key)"
		return
	fi
	echo "bench: assembling guest image (daemon changed or first build)"
	rm -rf "$WORK/img-rootfs" "$WORK/vm.img" "$WORK/vm.key"
	cp -a "$WORK/base/rootfs" "$WORK/img-rootfs"
	cp -a "$D/dest/." "$WORK/img-rootfs/"
	# installed but not enabled: guest.sh starts and stops it per run
	mke2fs -q -t ext4 -F -d "$WORK/img-rootfs" "$WORK/vm.img" "$IMG_SIZE"
	rm -rf "$WORK/img-rootfs"
	echo "$key" > "$WORK/vm.key"
	stamp "image (mke2fs)" "$t"
}

# ---------------------------------------------------------------- boot
tools() {
	mkdir -p "$SHARE/bin"
	cc -O2 -Wall -static -o "$SHARE/bin/zbench" "$HERE/guest/zbench.c"
	cc -O2 -Wall -static -o "$SHARE/bin/zsample" "$HERE/guest/zsample.c"
}

boot() {
	local t rc=0
	t=$(ts)
	[ -f "$WORK/vm.img" ] || die "no guest image: run '$0 image' first"
	tools
	install -m755 "$HERE/guest/guest.sh" "$SHARE/guest.sh"
	cp "$CONF" "$SHARE/bench.conf"
	[ -d "$SHARE/results" ] && mv "$SHARE/results" "$SHARE/results.$(date +%Y%m%d-%H%M%S)"
	echo "bench: booting guest ($MEM MiB, $SMP CPUs, TCG); conf $(basename "$CONF"); serial log $WORK/serial.log"
	nice -n 19 timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-m "$MEM" -smp "$SMP" -nodefaults -display none -serial stdio -no-reboot \
		-kernel "$WORK/base/vmlinuz" -initrd "$WORK/base/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 zswap.enabled=1 zswap.shrinker_enabled=0 mitigations=off ${BENCH_APPEND:-}" \
		-drive file="$WORK/vm.img",if=virtio,format=raw,cache=unsafe \
		-virtfs local,path="$SHARE",mount_tag=out,security_model=none,id=out \
		> "$WORK/serial.log" 2>&1 || rc=$?
	[ $rc = 0 ] || echo "bench: qemu exit status $rc (124 = timeout)"
	stamp "guest run" "$t"
	cp "$WORK/serial.log" "$SHARE/results/" 2>/dev/null || true
	[ -f "$SHARE/results/boot.txt" ] || { tail -30 "$WORK/serial.log"; die "guest wrote no results"; }
	cat "$SHARE/results/boot.txt"
}

report() {
	local R=$SHARE/results
	[ -f "$R/results.csv" ] || die "no $R/results.csv"
	python3 "$HERE/summarize.py" "$R" > "$R/summary.md"
	"$HERE/plot.sh" "$R"
	if [ "$OUT" != "$R" ]; then
		mkdir -p "$OUT"; cp "$R/summary.md" "$R"/timeline-*.png "$OUT/"
	fi
	cat "$R/summary.md"
	echo "bench: results in $R (summary.md, timeline-*.png, results.csv, per-run files)"
}

case "${1:-all}" in
deps) deps ;;
base) base ;;
image) image ;;
boot) boot ;;
report) report ;;
all) T0=$(ts); deps; base; image; boot; report; stamp total "$T0" ;;
clean) rm -rf "$WORK" ;;
*) sed -n 3,30p "$0"; exit 2 ;;
esac
