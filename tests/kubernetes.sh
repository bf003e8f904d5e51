#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zswap-tuned.conf(5)'s Kubernetes recipe, taken from the man page as it is
# written, on fake trees (--root) laid out as a kubelet node's cgroups under
# each cgroup driver:
#   systemd:  kubepods.slice/kubepods-pod<uid>.slice                 (Guaranteed)
#             kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice
#             kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod<uid>.slice
#   cgroupfs: kubepods/pod<uid>, kubepods/burstable/pod<uid>, kubepods/besteffort/pod<uid>
# Under LimitedSwap only Burstable pods may swap: they are the batch work
# capped, their containers are not capped on their own, Guaranteed pods are
# the pressure sources, BestEffort pods are left alone; pods that come later
# are followed, and the caps are lifted on exit.
set -u
. "$(dirname "$0")/lib.sh"

scratch kubernetes

# The recipe: the first example after "A Kubernetes node" in RECIPES.
awk '/^\.SH RECIPES/ { r = 1 } r && /Kubernetes node/ { k = 1 } k && /^\.EE/ { exit }
	k && e { print } k && /^\.EX/ { e = 1 }' "$abs_top_srcdir/man/zswap-tuned.conf.5.in" |
	sed 's/\\-/-/g' > "$W/recipe.conf"
check "zswap-tuned.conf(5) has a Kubernetes recipe with [Batch] and [Pressure]" \
	bash -c "grep -qx '\[Batch\]' '$W/recipe.conf' && grep -qx '\[Pressure\]' '$W/recipe.conf'"
sed 's/^/# recipe: /' "$W/recipe.conf"
"$ZT" --root "$W/root0" --state-dir "$W/run" -c "$W/recipe.conf" --check-config >/dev/null 2>"$W/cc"
check "--check-config takes the recipe" test $? -eq 0

# pod CG PATH: a pod's (or a container's) cgroup, uncapped, calm
pod() {
	mkdir -p "$1/$2"
	echo max > "$1/$2/memory.zswap.max"
	echo 0 > "$1/$2/memory.zswap.current"
	printf 'anon 0\nzswap 0\n' > "$1/$2/memory.stat"
	printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
		> "$1/$2/memory.pressure"
}
zswap_max() { cat "$CG/$1/memory.zswap.max"; }
capped() { [ "$(zswap_max "$1")" != max ]; }
uncapped() { [ "$(zswap_max "$1")" = max ]; }

# node DRIVER GUARANTEED BURSTABLE CONTAINER BESTEFFORT NEW_BURSTABLE NEW_GUARANTEED
node() {
	local driver=$1 g=$2 b=$3 c=$4 e=$5 nb=$6 ng=$7 log
	fake_tree "$W/$driver" N
	CG=$W/$driver/root/sys/fs/cgroup
	mkdir -p "$CG" && echo memory > "$CG/cgroup.controllers"
	pod "$CG" "$g"; pod "$CG" "$b"; pod "$CG" "$c"; pod "$CG" "$e"
	log=$W/$driver.log
	"$ZT" --root "$W/$driver/root" --state-dir "$W/$driver/run" -c "$W/recipe.conf" 2>"$log" & PID=$!
	wait_for_line "$log" 'Started \(pid'
	check "$driver driver: the Burstable pod is capped ($b)" capped "$b"
	check "$driver driver: ... its container is not capped on its own" uncapped "$c"
	check "$driver driver: the Guaranteed pod is a pressure source, not capped ($g)" \
		bash -c "grep -qF 'PSI: /sys/fs/cgroup/$g appeared; a pressure source from now on' '$log' && [ \"\$(cat '$CG/$g/memory.zswap.max')\" = max ]"
	check "$driver driver: the BestEffort pod is left alone ($e)" \
		bash -c "[ \"\$(cat '$CG/$e/memory.zswap.max')\" = max ] && ! grep -qF '$e' '$log'"
	# pods scheduled later
	pod "$CG" "$nb"
	wait_for_line "$log" "Capped the zswap use of /sys/fs/cgroup/$nb "
	check "$driver driver: a Burstable pod that comes later is capped ($nb)" capped "$nb"
	pod "$CG" "$ng"
	wait_for_line "$log" "PSI: /sys/fs/cgroup/$ng appeared; a pressure source from now on"
	check "$driver driver: a Guaranteed pod that comes later is a pressure source ($ng)" \
		bash -c "grep -qF 'PSI: /sys/fs/cgroup/$ng appeared; a pressure source from now on' '$log' && [ \"\$(cat '$CG/$ng/memory.zswap.max')\" = max ]"
	kill -TERM "$PID"; wait "$PID"; PID=
	check "$driver driver: on exit the caps are lifted" bash -c "[ \"\$(cat '$CG/$b/memory.zswap.max')\" = max ] && [ \"\$(cat '$CG/$nb/memory.zswap.max')\" = max ]"
}

# The kubelet's systemd cgroup driver (a pod's UID with "_" for "-")
node systemd \
	kubepods.slice/kubepods-pod0b1f2a3c_4d5e_4f60_8a71_92b3c4d5e6f7.slice \
	kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1c2d3e4f_5a6b_4c7d_8e9f_a0b1c2d3e4f5.slice \
	kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1c2d3e4f_5a6b_4c7d_8e9f_a0b1c2d3e4f5.slice/cri-containerd-3f4e5d6c7b8a.scope \
	kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod2d3e4f5a_6b7c_4d8e_9fa0_b1c2d3e4f5a6.slice \
	kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3e4f5a6b_7c8d_4e9f_a0b1_c2d3e4f5a6b7.slice \
	kubepods.slice/kubepods-pod4f5a6b7c_8d9e_4fa0_b1c2_d3e4f5a6b7c8.slice
# ... and its cgroupfs driver
node cgroupfs \
	kubepods/pod0b1f2a3c-4d5e-4f60-8a71-92b3c4d5e6f7 \
	kubepods/burstable/pod1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5 \
	kubepods/burstable/pod1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5/3f4e5d6c7b8a \
	kubepods/besteffort/pod2d3e4f5a-6b7c-4d8e-9fa0-b1c2d3e4f5a6 \
	kubepods/burstable/pod3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7 \
	kubepods/pod4f5a6b7c-8d9e-4fa0-b1c2-d3e4f5a6b7c8

finish
