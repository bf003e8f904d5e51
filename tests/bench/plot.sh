#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# plot.sh RESULTS_DIR: one timeline PNG per configuration and batch kind of the phased bed,
# RESULTS_DIR/timeline-<cfg>[-<batch>].png, from the RESULTS_DIR/plot/<run>.dat files that
# summarize.py writes (run it first). Every run of the configuration is overlaid; t = 0 is
# the start of the first phase; the grey lines are the phase boundaries of run 1. Panels:
# pool fill in % of the pool limit; memory PSI "some" of the service and of the batch
# cgroup (% of wall time over the last 1 s); shrinker_enabled and the batch cgroup's
# memory.zswap.max in % of the pool limit; the service's p99 latency per second (ms, log).
# Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail
R=$1
[ -d "$R/plot" ] || { echo "plot.sh: no $R/plot (run summarize.py first)" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# cfg batch -> runs, in the order of runs.txt
awk '{ delete v; for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
       if (v["warmup"] == "1") next
       k = v["cfg"] " " v["batch"]; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
       runs[k] = runs[k] " " v["run"] }
     END { for (i = 1; i <= n; i++) print order[i] runs[order[i]] }' "$R/runs.txt" > "$T/list"
nb=$(awk '{print $2}' "$T/list" | sort -u | wc -l)
while read -r cfg bk runlist; do
	name=$cfg; [ "$nb" -gt 1 ] && name=$cfg-$bk
	g=$T/$name.gp
	read -ra RU <<< "$runlist"
	pl='' pp='' pk='' pl99=''
	i=0
	for run in "${RU[@]}"; do
		f=$R/plot/$run.dat
		[ -s "$f" ] || continue
		i=$((i + 1))
		pl+="${pl:+, }'$f' u 1:2 w l lw 1 lc $i t 'r$i'"
		pp+="${pp:+, }'$f' u 1:3 w l lw 1 lc $i t 'svc r$i', '$f' u 1:4 w l lw 1 dt 2 lc $i t 'batch r$i'"
		pk+="${pk:+, }'$f' u 1:(\$5 * 100) w steps lw 2 lc $i t 'knob r$i (100 = Y)', '$f' u 1:(\$6 >= 0 ? \$6 : 1/0) w steps dt 2 lc $i t 'cap r$i'"
		pl99+="${pl99:+, }'$f' u 1:(\$7 > 0 ? \$7 : 1/0) w p pt 7 ps 0.4 lc $i t 'r$i'"
	done
	[ -n "$pl" ] || continue
	marks=$R/plot/${RU[0]}.marks
	{
	echo "set terminal png small size 900,900"
	echo "set output '$R/timeline-$name.png'"
	echo "set multiplot layout 4,1 title '$cfg ($bk batch): runs overlaid, t = 0 at the first phase'"
	echo "set termoption noenhanced; set grid; set key top right horizontal font ',7'; set xrange [0:*]"
	[ -f "$marks" ] && while read -r t n; do
		echo "set arrow from $t, graph 0 to $t, graph 1 nohead lc rgb 'gray' dt 3"
		echo "set label '$n' at $t, graph 0.95 offset 0.3,0 font ',7' tc rgb 'gray40'"
	done < "$marks"
	echo "set title 'pool, % of its limit'; set yrange [0:110]; set ylabel '%'"
	echo "plot $pl, 95 w l dt 3 lc rgb 'gray' t '95%'"
	echo "set title 'memory PSI some, % of the last 1 s (solid: service cgroup, dashed: batch cgroup)'; set yrange [0:*]"
	echo "plot $pp"
	echo "set title 'shrinker_enabled (0/100) and batch memory.zswap.max, % of the pool limit (absent = max)'; set yrange [-5:110]"
	echo "plot $pk"
	echo "set title 'service p99 per second (ms, pgbench, from the scheduled start)'; set logscale y; set yrange [*:*]; set xlabel 't (s)'"
	echo "plot $pl99"
	echo "unset logscale y"
	echo "unset multiplot"
	} > "$g"
	gnuplot "$g"
done < "$T/list"
ls "$R"/timeline-*.png
