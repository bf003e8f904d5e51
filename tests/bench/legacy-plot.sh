#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# plot.sh RESULTS_DIR: one timeline PNG per configuration, RESULTS_DIR/timeline-<cfg>.png.
# Columns = data sets, rows = pool fill in % of the pool limit, memory PSI "some" (system
# (lines) and the probe's cgroup (dots), % of wall time per 1 s), and shrinker_enabled (offset per run).
# Time 0 = start of the hog's write phase; every run of the configuration is overlaid.
# Needs python3 and gnuplot (Debian: gnuplot-nox).
set -euo pipefail
R=$1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 - "$R" "$T" <<'EOF'
import csv, glob, os, sys
R, T = sys.argv[1], sys.argv[2]
# the warm-up runs (run "w1", ...) are in no figure
rows = [r for r in csv.DictReader(open(os.path.join(R, 'results.csv'))) if r['run'].isdigit()]
cfgs, dss = [], []
for r in rows:
    if r['cfg'] not in cfgs: cfgs.append(r['cfg'])
    if r['dataset'] not in dss: dss.append(r['dataset'])
def kv(path):
    d = {}
    for l in open(path):
        if '=' in l:
            k, v = l.strip().split('=', 1); d[k] = v
    return d
for r in rows:
    n = f"{r['cfg']}.{r['dataset']}.r{r['run']}"
    try:
        t0 = int(kv(os.path.join(R, n + '.hog'))['write.t0_ms'])
        s = [list(map(int, l.split())) for l in open(os.path.join(R, n + '.samples')) if len(l.split()) >= 15]
    except (OSError, KeyError, ValueError):
        continue
    with open(os.path.join(T, n + '.dat'), 'w') as o:
        for i, x in enumerate(s):
            j = max(0, i - 10)  # PSI over the last ~1 s
            dt = (x[0] - s[j][0]) * 1000 or 1
            psys = 100 * (x[9] - s[j][9]) / dt if i else 0
            pprb = 100 * (x[10] - s[j][10]) / dt if i and x[10] >= 0 else 0
            pool = 100 * x[1] / x[3] if x[3] > 0 else 0
            o.write(f"{(x[0] - t0) / 1000:.2f} {pool:.1f} {psys:.1f} {pprb:.1f} {x[4]}\n")
with open(os.path.join(T, 'list'), 'w') as o:
    runs = sorted({r['run'] for r in rows}, key=int)
    for c in cfgs:
        o.write(c + ' ' + ','.join(dss) + ' ' + ','.join(runs) + '\n')
EOF
while read -r cfg dss runs; do
	IFS=, read -ra DS <<< "$dss"; IFS=, read -ra RU <<< "$runs"
	g=$T/$cfg.gp
	{
	# libgd png: palette images, a third of pngcairo's size
	echo "set terminal png small size $((400 * ${#DS[@]} + 40)),600"
	echo "set output '$R/timeline-$cfg.png'"
	echo "set multiplot layout 3,${#DS[@]} columnsfirst title '$cfg: pool, PSI, shrinker knob (runs overlaid; t=0 = hog start)'"
	echo "set termoption noenhanced; set grid; set key top left horizontal font ',7'; set xlabel 't (s)'; set xrange [-5:*]"
	for ds in "${DS[@]}"; do
		pl='' pp='' pk=''
		for i in "${!RU[@]}"; do
			f=$T/$cfg.$ds.r${RU[$i]}.dat
			[ -s "$f" ] || continue
			pl+="${pl:+, }'$f' u 1:2 w l lw 1 t 'r${RU[$i]}'"
			pp+="${pp:+, }'$f' u 1:3 w l lw 1 lc $((i + 1)) t 'sys r${RU[$i]}', '$f' u 1:4 w d lc $((i + 1)) t 'probe r${RU[$i]}'"
			pk+="${pk:+, }'$f' u 1:(\$5 + 1.5 * $i) w steps lw 1.5 t 'r${RU[$i]}'"
		done
		[ -n "$pl" ] || continue
		echo "set title '$ds: pool % of limit'; set yrange [0:110]; set ylabel '%'"
		echo "plot $pl, 95 w l dt 3 lc rgb 'gray' t '95%'"
		echo "set title '$ds: PSI some % (lines: system, dots: probe cgroup)'; set yrange [0:*]"
		echo "plot $pp"
		echo "set title '$ds: shrinker_enabled (0/1, runs offset by 1.5)'; set yrange [-0.2:$(echo "1.5 * ${#RU[@]}" | bc)]; set ylabel ''"
		echo "plot $pk"
	done
	echo "unset multiplot"
	} > "$g"
	gnuplot "$g"
done < "$T/list"
ls "$R"/timeline-*.png
