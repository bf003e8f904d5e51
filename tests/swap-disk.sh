#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# "zswap-tuned status" tells when swap shares a disk with mounted file systems
# (a cap sends the batch's pages to that disk): a swap file, a partition beside
# the root file system, swap on LVM, zram, a disk of its own; hostile sysfs
# links, mountinfo lines and FIFOs. On a fake tree (--root): /proc/swaps,
# /proc/self/mountinfo and sysfs's block links as the kernel lays them out.
set -u
. "$(dirname "$0")/lib.sh"

scratch swap-disk

fake_tree "$W" N
R=$W/root
PCI=sys/devices/pci0000:00/0000:00:04.0/virtio1/block
VIRT=sys/devices/virtual/block
mkdir -p "$R/$PCI/vda/vda1" "$R/$PCI/vda/vda2" "$R/$PCI/vdb" "$R/$PCI/vdc/vdc1" \
	"$R/$VIRT/dm-0/slaves" "$R/$VIRT/dm-1/slaves" "$R/$VIRT/zram0" "$R/sys/class/block" "$R/sys/dev/block"
touch "$R/$PCI/vda/vda1/partition" "$R/$PCI/vda/vda2/partition" "$R/$PCI/vdc/vdc1/partition"
ln -s "../../../../pci0000:00/0000:00:04.0/virtio1/block/vdc/vdc1" "$R/$VIRT/dm-0/slaves/vdc1"
ln -s "../../../../pci0000:00/0000:00:04.0/virtio1/block/vdc/vdc1" "$R/$VIRT/dm-1/slaves/vdc1"
# name major:minor sysfs-directory
while read -r name dev dir; do
	ln -s "../../${dir#sys/}" "$R/sys/class/block/$name"
	ln -s "../../${dir#sys/}" "$R/sys/dev/block/$dev"
done <<EOF
vda 254:0 $PCI/vda
vda1 254:1 $PCI/vda/vda1
vda2 254:2 $PCI/vda/vda2
vdb 254:16 $PCI/vdb
vdc 254:32 $PCI/vdc
vdc1 254:33 $PCI/vdc/vdc1
dm-0 253:0 $VIRT/dm-0
dm-1 253:1 $VIRT/dm-1
zram0 252:0 $VIRT/zram0
EOF
# a link that leaves sysfs is not the kernel's
ln -s /etc "$R/sys/class/block/evil"
# a device that is its own slave, among a hundred: the walk is bounded
mkdir -p "$R/$VIRT/dm-9/slaves"
ln -s "../../${VIRT#sys/}/dm-9" "$R/sys/class/block/dm-9"
for i in $(seq 0 99); do ln -s ../../dm-9 "$R/$VIRT/dm-9/slaves/dm-9-$i"; done
ln -s ../../dm-9 "$R/$VIRT/dm-9/slaves/dm-9"
cat > "$R/proc/self/mountinfo" <<'EOF'
22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
1 0 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro
25 1 0:25 / /run rw,nosuid,nodev shared:13 - tmpfs tmpfs rw,mode=755
30 1 254:1 /home /home rw,relatime shared:1 - ext4 /dev/vda1 rw
31 1 254:16 / /srv rw,relatime shared:20 - xfs /dev/vdb rw
32 1 253:0 / /var/lib rw,relatime shared:21 - ext4 /dev/mapper/vg-lib rw
this line is not one
33 1 x:y / /broken rw - ext4 /dev/vdz rw
EOF
: > "$W/empty.conf"
zt() { "$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" "$@"; }
swaps() {
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' > "$R/proc/swaps"
	for s in "$@"; do printf '%s\t%s\t\t1048572\t\t0\t\t-2\n' $s >> "$R/proc/swaps"; done
}
# shared NAME.json PYTHON-EXPRESSION: host.swap_shares_disk of "status --json" now, as d
shared() {
	zt status --json > "$W/$1" 2>/dev/null
	python3 -c "import json; d = json.load(open('$W/$1'))['host']['swap_shares_disk']; assert $2, d"
}

swaps "/swapfile file"
check "a swap file shares its disk with the file system that holds it (and a bind mount is named once)" \
	shared file.json "d == {'area': '/swapfile', 'disk': 'vda', 'mounts': ['/'], 'more_mounts': 0}"
zt status > "$W/file.txt"
check "... and status says so on its Swap: line" grep -qxF '      Swap: 1 area, /swapfile shares disk vda with /' "$W/file.txt"
swaps "/srv/swap file"
check "a swap file on a disk of its own file system: that file system only" \
	shared srv.json "d == {'area': '/srv/swap', 'disk': 'vdb', 'mounts': ['/srv'], 'more_mounts': 0}"
swaps "/dev/vda2 partition"
check "a swap partition beside the root file system's shares the disk" \
	shared part.json "d == {'area': '/dev/vda2', 'disk': 'vda', 'mounts': ['/'], 'more_mounts': 0}"
swaps "/dev/dm-1 partition"
check "swap on LVM shares the disk under the volume group with /var/lib" \
	shared lvm.json "d == {'area': '/dev/dm-1', 'disk': 'vdc', 'mounts': ['/var/lib'], 'more_mounts': 0}"
swaps "/dev/zram0 partition"
check "zram shares no disk" shared zram.json "d is None"
zt status > "$W/zram.txt"
check "... and the Swap: line says only how many areas" grep -qxF '      Swap: 1 area' "$W/zram.txt"
swaps "/dev/evil partition" "/dev/zram0 partition"
check "a sysfs link out of /sys is not followed" shared evil.json "d is None"
swaps "/dev/dm-9 partition"
timeout 10 "$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" status --json > "$W/loop.json"; rc=$?
check "a device that is its own slave: the walk ends, nothing shared (exit $rc)" python3 -c "
import json; assert $rc == 3 and json.load(open('$W/loop.json'))['host']['swap_shares_disk'] is None"
swaps "/dev/zram0 partition" "/swap\\040file file"
check "the first area that shares wins, its name as the kernel escapes it" \
	shared escaped.json "d['area'] == '/swap\\\\040file' and d['disk'] == 'vda'"

# hostile files: a FIFO for mountinfo is not read (no hang), swaps as a FIFO neither
mv "$R/proc/self/mountinfo" "$W/mountinfo"
mkfifo "$R/proc/self/mountinfo"
swaps "/dev/vda2 partition"
timeout 10 "$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" status --json > "$W/fifo.json"; rc=$?
check "mountinfo a FIFO: nothing mounted to tell of, no hang (exit $rc)" python3 -c "
import json; assert $rc == 3 and json.load(open('$W/fifo.json'))['host']['swap_shares_disk'] is None"
rm "$R/proc/self/mountinfo" && mv "$W/mountinfo" "$R/proc/self/mountinfo"
mv "$R/proc/swaps" "$W/swaps" && mkfifo "$R/proc/swaps"
timeout 10 "$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" status --json > "$W/fifo2.json"; rc=$?
check "/proc/swaps a FIFO: status exits 3 and says nothing shared (exit $rc)" python3 -c "
import json; assert $rc == 3 and json.load(open('$W/fifo2.json'))['host']['swap_shares_disk'] is None"
rm "$R/proc/swaps" && mv "$W/swaps" "$R/proc/swaps"

# the advice: a holder and a staller, swap on the service's disk
CG=$R/sys/fs/cgroup
mkdir -p "$CG/system.slice/backup.service" "$CG/system.slice/db.service"
echo memory > "$CG/cgroup.controllers"
printf 'anon 0\nzswap 51200000\n' > "$CG/system.slice/backup.service/memory.stat"
echo max > "$CG/system.slice/backup.service/memory.zswap.max"
printf 'some avg10=6.00 avg60=4.50 avg300=3.25 total=123456\nfull avg10=1.00 avg60=1.00 avg300=1.00 total=1\n' \
	> "$CG/system.slice/db.service/memory.pressure"
printf 'anon 0\nzswap 4096\n' > "$CG/system.slice/db.service/memory.stat"
swaps "/swapfile file"
zt status > "$W/advice.txt"
check "the advice names the disk and what is on it" bash -c "
grep -qxF '            but only if the latter write to none of the file systems on' '$W/advice.txt' &&
grep -qxF '            swap'\"'\"'s disk: /swapfile shares disk vda with /;' '$W/advice.txt'"
swaps "/dev/zram0 partition"
zt status > "$W/advice-zram.txt"
check "... and not where swap has a device of its own" bash -c "grep -q 'Cgroups=system.slice/db.service' '$W/advice-zram.txt' && ! grep -q 'only if the latter' '$W/advice-zram.txt'"

# a running daemon with batch work named: a note under its status
printf '[Batch]\nCgroups=system.slice/backup.service\n' > "$W/batch.conf"
swaps "/swapfile file"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/batch.conf" 2>"$W/log" & PID=$!
wait_for_line "$W/log" 'Started \(pid'
"$ZT" --root "$W/root" --state-dir "$W/run" status > "$W/running.txt"
check "running with batch work named: a note says where the caps send its pages" \
	grep -qxF '      Note: /swapfile shares disk vda with /;' "$W/running.txt"
swaps "/dev/zram0 partition"
"$ZT" --root "$W/root" --state-dir "$W/run" status > "$W/running-zram.txt"
check "... and no note where swap shares no disk" bash -c "! grep -q 'Note:' '$W/running-zram.txt'"
kill -TERM "$PID"; wait "$PID"; PID=
# ... and with nothing named and nothing to advise (nothing stalls): what a cap would do
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' > "$CG/system.slice/db.service/memory.pressure"
swaps "/swapfile file"
"$ZT" --root "$W/root" --state-dir "$W/run" -c "$W/empty.conf" 2>"$W/log2" & PID=$!
wait_for_line "$W/log2" 'Started \(pid'
"$ZT" --root "$W/root" --state-dir "$W/run" status > "$W/running-none.txt"
check "running with nothing named: the note says what a cap would do" bash -c "
grep -qxF '      Note: /swapfile shares disk vda with /;' '$W/running-none.txt' &&
grep -qF 'a cap on batch work would send its pages to that disk' '$W/running-none.txt'"
kill -TERM "$PID"; wait "$PID"; PID=

# every --json output above, against docs/status-schema.json (schema 2)
check_status_schema "$W"/*.json

finish
