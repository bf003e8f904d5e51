#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zswap-tuned benchmark (issues 4 and 9), in a Debian 12 guest with Linux 6.12 and cgroup
# v2 under qemu TCG. Adapted from the shared qemu test bed recipe.
#
# The phased bed (issue 9, default): PostgreSQL 15 + pgbench at a fixed rate as the
# latency-sensitive service, a re-reading batch job, swap on a disk with SSD-like latency
# (nbdkit + delay filter), phases in which the right static setting changes; static
# settings and zswap-tuned interleaved in one boot (guest/guest.sh). BED=legacy in the
# conf runs the previous bed (guest/legacy.sh: write-once hog, synthetic probe, swap
# file on the page-cached root disk), kept as a regression case.
#
#   tests/bench/run.sh [all|deps|base|image|boot|report|clean]     (default: all)
#
#   deps   apt-get install what the host needs (Debian 12, root)
#   base   mmdebstrap the Debian base tree with PostgreSQL and its pgbench database
#          (cached; rebuilt only if its recipe changes)
#   image  VPATH-build the daemon (--prefix=/usr --sysconfdir=/etc), make install
#          DESTDIR=<copy of the base tree>, mke2fs the guest image (cached by the hash
#          of the installed files and of guest/; rebuilt whenever the daemon changes)
#   boot   build the static guest tools, start nbdkit (swap disk), boot the guest under
#          qemu TCG (nice 19), which runs guest/guest.sh from the 9p share and writes
#          results/ there
#   report summary.md + timeline PNGs from the last boot's results; every run's raw data
#          packed into raw/<run>.tar.xz (summarize.py --pack, at most 10 MiB) and copied with
#          runs.txt, env.txt, calib*.txt, results.csv and summary.md to
#          $BENCH_OUT/<family>-<commit>/, from which "tests/bench/summarize.py DIR" gives
#          the same tables again (checked here)
#   all    deps base image boot report
#
# Needs root (mmdebstrap into a directory, mke2fs -d keeps ownership), apt access to
# bookworm + bookworm-security (this host's own apt sources are used). No KVM needed.
#
# Environment:
#   abs_top_srcdir, abs_top_builddir   set by "make bench"; default: the tree around this script
#   BENCH_WORK   cache and output directory (default /var/tmp/zswap-tuned-bench)
#   BENCH_CONF   file with guest settings (default tests/bench/guest/phased.conf, the default
#                family); see guest.sh. A family is a conf: phased, service-in-zswap, diurnal,
#                baseline-y, write-once, shared-disk (SHARED_DISK=1: swap and the service on one
#                disk); NAME-quick.conf is its quick profile (<= 25 min)
#   BENCH_MEM    guest MiB (default: GUEST_MEM from the conf, else 2048)   BENCH_SMP  guest CPUs (2)
#   BENCH_TIMEOUT guest wall limit in s (default: GUEST_TIMEOUT from the conf, else 6000)
#   BENCH_DISK   swap disk latency profile: nvme (1 ms per request, default), sata (3 ms) or
#                cloud (8 ms per request and a budget of 150 IOPS and 6.25 MB/s: a gp3-like
#                3000 IOPS / 125 MB/s volume at ~0.4 ms, scaled by the bed's factor of ~20, the
#                guest's zswap load against a native one); default: DISK_PROFILE= in the conf
#   BENCH_IOPS, BENCH_BPS  override the profile's budget (qemu -drive throttling.iops-total,
#                throttling.bps-total; 0 = none)
#   BENCH_DELAY  override the profile's per-request delay (nbdkit delay filter syntax: 2ms);
#                the guest's zswap loads slow down when the host is busy (TCG), so on a
#                shared host a longer delay may be needed to land the ratio in 30-100x
#   BENCH_SWAP_MB swap disk size (4096)
#   BENCH_CPU    qemu's -cpu model (default max,-cx16: without cmpxchg16b SLUB keeps off the
#                instruction TCG mis-emulated in the guest's "double fault" in kmem_cache_alloc
#                (docs/bench/guest-panic.txt); BENCH_CPU=max is the model of the boots before);
#                the model and every panic, oops and double fault in the boot's console logs are
#                counted in results/boot-panics.txt and the summary
#   BENCH_OUT    where the <family>-<commit>/ directory goes (default $BENCH_WORK/results);
#                the family is the conf's name (phased.conf: phased)
#   BENCH_REV    build the daemon from this commit (git archive) instead of the work tree
#   BENCH_PG_SCALE pgbench scale of the service's database (12 = 1.2M accounts, ~190 MiB)
#   KERNEL_PKG   Debian kernel package (default: newest linux-image-6.12.*+deb12-amd64-unsigned)
#   APT_SOURCES  apt sources for the guest tree (default: this host's, which must carry
#                bookworm and bookworm-security)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs_top_srcdir=${abs_top_srcdir:-$(cd "$HERE/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$abs_top_srcdir}
WORK=${BENCH_WORK:-/var/tmp/zswap-tuned-bench}
CONF=${BENCH_CONF:-$HERE/guest/phased.conf}
# a relative BENCH_CONF may be relative to the source tree (make bench in a build directory)
[ -f "$CONF" ] || [ ! -f "$abs_top_srcdir/$CONF" ] || CONF=$abs_top_srcdir/$CONF
confval() { sed -n "s/^$1=//p" "$CONF" | tail -1 | tr -d '"'; }
MEM=${BENCH_MEM:-$(confval GUEST_MEM)}; MEM=${MEM:-2048}
SMP=${BENCH_SMP:-2}
TIMEOUT=${BENCH_TIMEOUT:-$(confval GUEST_TIMEOUT)}; TIMEOUT=${TIMEOUT:-6000}
DISK=${BENCH_DISK:-$(confval DISK_PROFILE)}; DISK=${DISK:-nvme}
IOPS=0 BPS=0
case $DISK in
nvme) DELAY=1ms ;;
sata) DELAY=3ms ;;
cloud) DELAY=8ms IOPS=150 BPS=6553600 ;;
*) echo "bench: BENCH_DISK is nvme, sata or cloud" >&2; exit 2 ;;
esac
DELAY=${BENCH_DELAY:-$DELAY} IOPS=${BENCH_IOPS:-$IOPS} BPS=${BENCH_BPS:-$BPS}
# SHARED_DISK=1 in the conf (the shared-disk family): the second disk carries an ext4 file
# system (made here, SHARED_MB) for the guest's swap file and PostgreSQL's data and WAL
SHARED=$(confval SHARED_DISK); SHARED=${SHARED:-0}
SHARED_MB=${BENCH_SHARED_MB:-6144}
SWAP_MB=${BENCH_SWAP_MB:-4096}
CPU=${BENCH_CPU:-max,-cx16}
IMG_SIZE=${BENCH_IMG_SIZE:-8G}
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	[ -s "$f" ] && { APT_SOURCES=${APT_SOURCES:-$f}; break; }
done
APT_SOURCES=${APT_SOURCES:?no apt sources file found; set APT_SOURCES}
SHARE=$WORK/share
OUT=${BENCH_OUT:-$WORK/results}
FAMILY=$(basename "$CONF" .conf)
. "$abs_top_srcdir/tests/guest/console.sh"

# Packages in the guest: boot + systemd + the daemon's runtime libraries + the service
# (PostgreSQL 15 and its pgbench client).
GUEST_PKGS=systemd,systemd-sysv,dbus,procps,kmod,udev,initramfs-tools,zstd,libsystemd0,libudev1,libinih1,postgresql-15,postgresql-client-15
HOST_PKGS="qemu-system-x86 mmdebstrap e2fsprogs gcc libc6-dev make autoconf automake pkg-config
	libsystemd-dev libudev-dev libinih-dev python3 gnuplot-nox git nbdkit"
# The service's database, built once into the base tree (native speed, in a chroot):
# pgbench scale (1 = 100k accounts, ~15 MiB) and the server settings.
PG_SCALE=${BENCH_PG_SCALE:-12}
PG_CONF="shared_buffers = 256MB
max_connections = 20
huge_pages = off
listen_addresses = ''
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
checkpoint_timeout = 1h
max_wal_size = 4GB
jit = off
logging_collector = off"

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
	key=$( { echo "$K $GUEST_PKGS $PG_SCALE $PG_CONF"; cat "$APT_SOURCES" "$HERE/guest/bed-boot" "$HERE/guest/bed.service"; } | sha256sum | cut -c1-16)
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
	# the bench starts PostgreSQL itself, in its own cgroup
	ln -sf /dev/null "$R/etc/systemd/system/postgresql.service"
	ln -sf /dev/null "$R/etc/systemd/system/postgresql@15-main.service"
	pg_build "$R"
	echo bench > "$R/etc/hostname"
	printf '9p\n9pnet_virtio\n' > "$R/etc/modules-load.d/bench.conf"
	cp "$R"/boot/vmlinuz-* "$WORK/base/vmlinuz"; cp "$R"/boot/initrd.img-* "$WORK/base/initrd.img"
	echo "$K" > "$WORK/base/kernel-pkg"
	echo "$key" > "$WORK/base/key"
	stamp "base (mmdebstrap)" "$t"
}

# PostgreSQL: settings + pgbench -i -s PG_SCALE + pg_prewarm, once, in a chroot of the tree
pg_build() {
	local R=$1 rc=0 PGB=/usr/lib/postgresql/15/bin D=/var/lib/postgresql/15/main
	[ -d "$R$D" ] || die "no PostgreSQL cluster in the base tree (postgresql-common made none)"
	printf '%s\n' "$PG_CONF" > "$R/etc/postgresql/15/main/conf.d/bench.conf"
	mount -t proc proc "$R/proc"; mount -t tmpfs -o size=1g tmpfs "$R/dev/shm" 2>/dev/null || mkdir -p "$R/dev/shm"
	mkdir -p "$R/run/postgresql"; chroot "$R" chown postgres:postgres /run/postgresql
	chroot "$R" setpriv --reuid=postgres --regid=postgres --init-groups sh -c "
		$PGB/pg_ctl -D $D -o '-c config_file=/etc/postgresql/15/main/postgresql.conf' -w -l /tmp/pg-build.log start &&
		createdb bench && $PGB/pgbench -i -q -s $PG_SCALE bench && psql -q -d bench -c 'CREATE EXTENSION pg_prewarm' && psql -q -d bench -c 'VACUUM ANALYZE' &&
		psql -At -d bench -c \"SELECT 'db_bytes=' || pg_database_size('bench')\" &&
		$PGB/pg_ctl -D $D -m fast -w stop" > "$WORK/base/pg-build.log" 2>&1 || rc=$?
	[ $rc = 0 ] || chroot "$R" setpriv --reuid=postgres --regid=postgres --init-groups $PGB/pg_ctl -D $D -m immediate -w stop >/dev/null 2>&1 || true
	umount "$R/dev/shm" 2>/dev/null || true; umount "$R/proc"
	cat "$WORK/base/pg-build.log"
	[ $rc = 0 ] || { cat "$R/tmp/pg-build.log" 2>/dev/null | tail -20; die "PostgreSQL build in the base tree failed"; }
}

# ---------------------------------------------------------------- daemon + image
src_copy() { # a pristine copy of the source tree (the tree may be configured in place)
	local s=$WORK/daemon/src
	rm -rf "$s"; mkdir -p "$s"
	if [ -n "${BENCH_REV:-}" ]; then # a commit, not the work tree (which others may be editing)
		git -C "$abs_top_srcdir" archive --format=tar "$BENCH_REV" | tar -xf - -C "$s" ||
			die "git archive $BENCH_REV failed"
	elif git -C "$abs_top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
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
	# which daemon this image carries (the tree may change under a running matrix)
	if [ -n "${BENCH_REV:-}" ]; then
		{ echo "commit=$(git -C "$abs_top_srcdir" rev-parse --short "$BENCH_REV")"; echo "tree_dirty_files=(built from the commit)"; }
	else
		{ echo "commit=$(git -C "$abs_top_srcdir" rev-parse --short HEAD 2>/dev/null || echo none)"
		  echo "tree_dirty_files=$(git -C "$abs_top_srcdir" status --porcelain -- daemon conf units configure.ac Makefile.am 2>/dev/null | awk '{printf "%s ", $2}')"; }
	fi > "$D/tree.txt"
	echo "image_built=$(date -u +%FT%TZ)" >> "$D/tree.txt"
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
	cc -O2 -Wall -Wextra -static -o "$SHARE/bin/zbench" "$HERE/guest/zbench.c" -lm
	cc -O2 -Wall -Wextra -static -o "$SHARE/bin/zsample" "$HERE/guest/zsample.c"
}

# A guest that panics before userspace starts (tests/guest/console.sh) tested nothing: it
# is booted once more, its console log kept as serial-panic<N>.log and the panic counted
# in results/boot-panics.txt (the summary prints it). A panic after userspace started is
# a failure of the boot as before.
boot() {
	local t panics=0 line
	t=$(ts)
	[ -f "$WORK/vm.img" ] || die "no guest image: run '$0 image' first"
	tools
	install -m755 "$HERE/guest/guest.sh" "$SHARE/guest.sh"
	install -m755 "$HERE/guest/legacy.sh" "$SHARE/legacy.sh"
	install -m644 "$HERE/guest/order.sh" "$SHARE/order.sh"
	install -m644 "$HERE/guest/configs.sh" "$SHARE/configs.sh"
	cp "$CONF" "$SHARE/bench.conf"
	echo "$DISK rdelay=$DELAY wdelay=$DELAY iops=$IOPS bps=$BPS shared=$SHARED" > "$SHARE/profile"
	cp "$WORK/daemon/tree.txt" "$SHARE/tree.txt" 2>/dev/null || true
	# the bed's own commit: with BENCH_REV the daemon's commit says nothing about guest.sh
	{ echo "bed_commit=$(git -C "$abs_top_srcdir" rev-parse --short HEAD 2>/dev/null || echo none)"
	  echo "bed_dirty_files=$(git -C "$abs_top_srcdir" status --porcelain -- tests/bench 2>/dev/null | awk '{printf "%s ", $2}')"
	} >> "$SHARE/tree.txt"
	[ -d "$SHARE/results" ] && mv "$SHARE/results" "$SHARE/results.$(date +%Y%m%d-%H%M%S)"
	rm -f "$WORK"/serial-panic*.log
	while :; do
		boot_once
		line=$(console_early_panic "$WORK/serial.log") || break
		panics=$((panics + 1))
		cp "$WORK/serial.log" "$WORK/serial-panic$panics.log"
		echo "bench: the guest panicked before userspace started: $line"
		[ $panics -lt 2 ] || break
		echo "bench: booting it once more"
		rm -rf "$SHARE/results"
	done
	stamp "guest run" "$t"
	mkdir -p "$SHARE/results"
	cp "$WORK/serial.log" "$WORK"/serial-panic*.log "$SHARE/results/" 2>/dev/null || true
	{ echo "panics_before_userspace=$panics"
	  line=$(console_late_panic "$WORK/serial.log") && echo "panic_after_userspace=$line"
	  panic_count "$WORK/serial.log" "$WORK"/serial-panic*.log; } > "$SHARE/results/boot-panics.txt"
	if line=$(console_late_panic "$WORK/serial.log"); then
		echo "bench: the guest panicked after userspace started (a failure): $line"
	fi
	[ -f "$SHARE/results/boot.txt" ] || { tail -30 "$WORK/serial.log"; die "guest wrote no results"; }
	cat "$SHARE/results/boot.txt"
}

# keep_console RESULTS DIR: the guest's console log, compressed, in the directory to commit:
# the only record of what the guest's kernel and guest.sh said during the boot (a job
# SIGKILLed in reclaim, an OOM report, a late panic)
keep_console() {
	[ -f "$1/serial.log" ] || return 0
	xz -9c "$1/serial.log" > "$2/serial.log.xz" || echo "bench: WARNING: could not keep the console log"
}

# panic_count LOG...: the boot's guest panics (issue 47: count them per boot, with and without
# cx16): the qemu CPU model, the console logs read (one per guest boot), the kernel panics
# ("Kernel panic - not syncing", its "---[ end" line not counted again), the oopses and the
# double faults among them
panic_count() {
	local f logs=()
	for f; do [ -f "$f" ] && logs+=("$f"); done # serial-panic*.log: none, as a rule
	echo "cpu=$CPU"
	[ ${#logs[@]} -gt 0 ] || { echo "console_logs=0"; return 0; }
	awk 'FNR == 1 { boots++ }
		/Kernel panic - not syncing/ && !/---\[ end/ { panics++ }
		/Oops: / { oopses++ }
		/PANIC: double fault/ { df++ }
		END { printf "console_logs=%d\nkernel_panics=%d\noopses=%d\ndouble_faults=%d\n", boots, panics, oopses, df }' "${logs[@]}"
}

boot_once() {
	local rc=0
	# the swap disk: a fresh sparse file behind nbdkit's delay filter (every request waits
	# DELAY, as on an SSD, instead of hitting the host's page cache at memory speed)
	# The shared disk: a fresh ext4 file system (the guest has no mke2fs); flushes are
	# dropped (nbdkit's fua filter, fuamode=discard), as a cloud volume acknowledges a
	# write once it is durable: an fsync costs its writes' delay, not the host's fdatasync
	local SOCK=$WORK/nbd.sock NBDPID FUA=()
	rm -f "$SOCK" "$WORK/swap.img"
	if [ "$SHARED" = 1 ]; then
		truncate -s "${SHARED_MB}M" "$WORK/swap.img"
		mke2fs -q -t ext4 -F -L bench-shared -E lazy_itable_init=0,lazy_journal_init=0 "$WORK/swap.img" || die "mke2fs of the shared disk failed"
		FUA=(--filter=fua)
	else
		truncate -s "${SWAP_MB}M" "$WORK/swap.img"
	fi
	nbdkit -f -U "$SOCK" "${FUA[@]}" --filter=delay file "$WORK/swap.img" rdelay=$DELAY wdelay=$DELAY \
		${FUA:+fuamode=discard} > "$WORK/nbdkit.log" 2>&1 &
	NBDPID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
	[ -S "$SOCK" ] || die "nbdkit did not start: $(cat "$WORK/nbdkit.log")"
	local DRIVES=(-drive file="$WORK/vm.img",if=virtio,format=raw,cache=unsafe)
	local THR=
	[ "$IOPS" = 0 ] || THR+=",throttling.iops-total=$IOPS"
	[ "$BPS" = 0 ] || THR+=",throttling.bps-total=$BPS"
	grep -q '^BED=legacy' "$CONF" ||
		DRIVES+=(-drive "file=nbd+unix:///?socket=$SOCK,format=raw,if=virtio,cache=none$THR")
	echo "bench: booting guest ($MEM MiB, $SMP CPUs, TCG, -cpu $CPU); conf $(basename "$CONF"); swap disk $DISK ($DELAY${THR:+$THR}${FUA:+, shared with the service}); serial log $WORK/serial.log"
	nice -n 19 timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu "$CPU" \
		-m "$MEM" -smp "$SMP" -nodefaults -display none -serial stdio -no-reboot \
		-kernel "$WORK/base/vmlinuz" -initrd "$WORK/base/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 zswap.enabled=1 zswap.shrinker_enabled=0 mitigations=off panic=-1 ${BENCH_APPEND:-}" \
		"${DRIVES[@]}" \
		-virtfs local,path="$SHARE",mount_tag=out,security_model=none,id=out \
		> "$WORK/serial.log" 2>&1 || rc=$?
	kill "$NBDPID" 2>/dev/null; wait "$NBDPID" 2>/dev/null || true
	rm -f "$SOCK" "$WORK/swap.img"
	[ $rc = 0 ] || echo "bench: qemu exit status $rc (124 = timeout)"
}

report() {
	local R=${BENCH_RESULTS:-$SHARE/results} rc=0
	if [ -f "$R/results.csv" ] && [ ! -f "$R/runs.txt" ]; then # the previous bed
		python3 "$HERE/legacy-summarize.py" "$R" > "$R/summary.md"
		"$HERE/legacy-plot.sh" "$R"
		# the directory to commit: docs/bench/<family>-<commit>/, every run's files in raw/
		local commit D
		commit=$(sed -n 's/^commit=//p' "$R/env.txt" | head -1)
		D=$OUT/$FAMILY-${commit:-unknown}
		rm -rf "$D"; mkdir -p "$D/raw"
		cp "$R"/summary.md "$R"/results.csv "$R"/env.txt "$R"/timeline-*.png "$R"/boot-panics.txt "$D/" 2>/dev/null || true
		keep_console "$R" "$D"
		(cd "$R" && find . -maxdepth 1 -type f -regex '.*\.[rw][0-9]+\..*' -printf '%f\n' | sort | tar -cJf "$D/raw/runs.tar.xz" -T -)
		echo "bench: to commit: cp -r $D docs/bench/"
	else
		[ -f "$R/runs.txt" ] || die "no $R/runs.txt"
		python3 "$HERE/summarize.py" "$R" > "$R/summary.md" || rc=$?
		"$HERE/plot.sh" "$R"
		python3 "$HERE/summarize.py" --pack "$R" || echo "bench: WARNING: the raw data is over its budget"
		# the directory to commit: docs/bench/<family>-<commit>/
		local commit D
		commit=$(sed -n 's/^commit=//p' "$R/env.txt" | head -1)
		D=$OUT/$FAMILY-${commit:-unknown}
		rm -rf "$D"; mkdir -p "$D"
		cp -r "$R"/raw "$D/"
		cp "$R"/runs.txt "$R"/env.txt "$R"/results.csv "$R"/summary.md "$R"/timeline-*.png "$D/"
		cp "$R"/calib.txt "$R"/calib-end.txt "$R"/boot-panics.txt "$R"/serial-panic*.log "$D/" 2>/dev/null || true
		keep_console "$R" "$D"
		# the tables again, from the packed raw data alone
		if python3 "$HERE/summarize.py" "$D" > "$D/summary.check" 2>&1 &&
			diff <(grep -v '^Source:' "$R/summary.md") <(grep -v '^Source:' "$D/summary.check") > /dev/null; then
			echo "bench: $D reproduces summary.md from its raw data"
		else
			echo "bench: WARNING: $D does not reproduce summary.md from its raw data"
		fi
		rm -rf "$D/summary.check" "$D/plot"
		echo "bench: to commit: cp -r $D docs/bench/"
	fi
	cat "$R/summary.md"
	echo "bench: results in $R (summary.md, timeline-*.png, results.csv, per-run files)"
	[ $rc = 0 ] || die "CALIBRATION OUT OF RANGE or no usable runs: see the top of $R/summary.md"
}

case "${1:-all}" in
deps) deps ;;
base) base ;;
image) image ;;
boot) boot ;;
report) report ;;
all) T0=$(ts); deps; base; image; boot; rc=0; (report) || rc=$?; stamp total "$T0"; exit $rc ;;
clean) rm -rf "$WORK" ;;
*) sed -n 3,30p "$0"; exit 2 ;;
esac
