# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by guest.sh (and tests/bench-stats.sh): the run order of a bench matrix (issue 23).
# Every round runs the configurations in a fresh random order, drawn from a seed that
# guest.sh records in env.txt, so that no configuration always runs first in a boot (the
# first run after the calibration had the pool at its limit for half the run in 9 of 14
# boots), nor always after a given other one. Bash arithmetic only (64-bit, wrapping): the
# same seed gives the same order on any bash.

# splitmix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
# generators", OOPSLA 2014), a bijection of 64-bit words in which every input bit changes
# about half the output bits; logical right shifts, as bash's are arithmetic
order_mix() { # sets ORDER_Z (no subshell: order_plan draws thousands of rounds)
	local z=$1
	z=$(( (z ^ ((z >> 30) & 0x3ffffffff)) * -4658895280553007687 ))  # 0xbf58476d1ce4e5b9
	z=$(( (z ^ ((z >> 27) & 0x1fffffffff)) * -7723592293110705685 )) # 0x94d049bb133111eb
	ORDER_Z=$(( z ^ ((z >> 31) & 0x1ffffffff) ))
}

# order_shuffle SEED ROUND WORDS...: the words in the order of that round
# (Fisher-Yates). Each round's generator starts from a hash of (seed, round), so that the
# rounds of one seed are independent: an earlier version stepped one LCG from
# seed * 1000003 + round * 7919, whose rounds were an arithmetic progression of states, and
# with three configurations one of them ran last in at least 4 of 5 rounds for 53% of
# seeds (13% for independent rounds).
order_shuffle() {
	local seed=$1 round=$2 i j t s z
	shift 2
	local w=("$@")
	order_mix $(( seed + 1 )); order_mix $(( ORDER_Z + round )); s=$ORDER_Z
	for (( i = ${#w[@]} - 1; i > 0; i-- )); do
		s=$(( s - 7046029254386353131 )) # + 0x9e3779b97f4a7c15, splitmix64's step
		order_mix $s; z=$ORDER_Z
		j=$(( ((z >> 33) & 0x7fffffff) % (i + 1) ))
		t=${w[i]}; w[i]=${w[j]}; w[j]=$t
	done
	echo "${w[@]}"
}

# order_seed: a fresh seed (guest.sh uses SEED= from the conf when set)
order_seed() {
	echo $(( $(od -An -N4 -tu4 /dev/urandom) & 0x7fffffff ))
}

# order_plan SEED RUNS FIRST TWIN TWIN2 WORDS...: the rounds of a boot, one line each, every
# line a permutation of WORDS, chosen so that the run just before each configuration is
# spread over the others (FIRST is the warm-up run, the one before round 1). The first
# default matrices of `baseline-y` failed their A/A check twice (14 and 16 flags of about
# 105) with per-round shuffles that let a configuration follow the same other one in 3 of 5
# rounds, and in both boots the runs after `ztcfg` had more batch ops and swap-ins than
# their configuration's mean (+0.46 and +0.39 standard deviations): what a run leaves
# behind reaches the next one. So each round is the best of ORDER_CANDIDATES shuffles
# (from SEED, round and candidate: reproducible) by a cost that is the sum, over every
# ordered pair of configurations, of the square of how often the one ran just before the
# other (a configuration twice in a row costs 1000), plus 4 times the squared difference
# between the A/A twins' counts of each predecessor (the twin's twin counting as the
# same): the twins should follow the same configurations as often, so that what a run
# inherits cancels in the A/A check. Then ORDER_SWAPS swaps of two configurations in one
# round (drawn from SEED), each kept when the whole plan's cost does not grow. Candidate 0 is
# order_shuffle's round, so ORDER_CANDIDATES=1 ORDER_SWAPS=0 gives the per-round shuffle of
# earlier boots. About 1 s of bash for 7 configurations and 5 rounds.
# Positions (issue 47): with three configurations the twins' predecessor term alone put the
# twin first in every round of every such boot (a warm-up of the twin's first, then the twin,
# then the others, each round). So the cost also holds ORDER_POS_WEIGHT times the sum, over
# every configuration and place in a round, of the square of how often it ran there: the
# places spread as in a Latin square (with RUNS rounds of k configurations each one first in
# at most ceil(RUNS / k) rounds), the order within that still drawn from SEED.
ORDER_CANDIDATES=${ORDER_CANDIDATES:-16}
ORDER_SWAPS=${ORDER_SWAPS:-1500}
ORDER_POS_WEIGHT=${ORDER_POS_WEIGHT:-1}
order_plan() {
	local seed=$1 runs=$2 first=$3 t1=$4 t2=$5 prev r k i j n x y cand best bestcost
	shift 5
	local -A P=() Q=()
	local -a R=() w=()
	prev=$first
	for (( r = 1; r <= runs; r++ )); do
		best='' bestcost=''
		for (( k = 0; k < ORDER_CANDIDATES; k++ )); do
			cand=$(order_shuffle "$seed" $(( r + k * 1000003 )) "$@")
			order_arcs 1 "$prev" $cand; order_pos 1 $cand
			order_cost "$t1" "$t2" "$@"
			order_arcs -1 "$prev" $cand; order_pos -1 $cand
			if [ -z "$bestcost" ] || [ "$ORDER_COST" -lt "$bestcost" ]; then
				best=$cand bestcost=$ORDER_COST
			fi
		done
		order_arcs 1 "$prev" $best; order_pos 1 $best
		R[r]=$best
		prev=${best##* }
	done
	# a greedy round cannot see the rounds after it: swaps
	n=$#
	order_mix $(( seed + 7 )); k=$ORDER_Z
	for (( i = 0; i < ORDER_SWAPS && runs > 0 && n > 1; i++ )); do
		order_mix $(( k + i )); j=$(( (ORDER_Z >> 33) & 0x7fffffff ))
		r=$(( j % runs + 1 )); j=$(( j / runs ))
		read -r -a w <<< "${R[r]}"
		x=$(( j % n )) y=$(( (j / n) % (n - 1) ))
		[ $y -ge $x ] && y=$(( y + 1 ))
		cand=${w[x]}; w[x]=${w[y]}; w[y]=$cand
		cand=${R[r]}; R[r]="${w[*]}"
		order_plan_cost "$first" "$t1" "$t2" "$@"
		if [ "$ORDER_COST" -le "$bestcost" ]; then bestcost=$ORDER_COST; else R[r]=$cand; fi
	done
	for (( r = 1; r <= runs; r++ )); do echo "${R[r]}"; done
}
# order_plan_cost FIRST TWIN TWIN2 WORDS...: ORDER_COST of the rounds in R after FIRST
order_plan_cost() {
	local r
	P=() Q=()
	# shellcheck disable=SC2068 # the rounds' words, one argument each
	order_arcs 1 "$1" ${R[@]}
	# shellcheck disable=SC2086 # a round's words
	for r in "${R[@]}"; do order_pos 1 $r; done
	shift
	order_cost "$@"
}
# order_arcs D PREV WORDS...: add D to P[a>b] for each run b right after a
order_arcs() {
	local d=$1 a=$2 b
	shift 2
	for b; do P[$a>$b]=$(( ${P[$a>$b]:-0} + d )); a=$b; done
}
# order_pos D WORDS...: add D to Q[i:w] for the word w at place i of a round
order_pos() {
	local d=$1 i=0 w
	shift
	for w; do Q[$i:$w]=$(( ${Q[$i:$w]:-0} + d )); i=$(( i + 1 )); done
}
# order_cost TWIN TWIN2 WORDS...: ORDER_COST of the arcs in P and the places in Q (see order_plan)
order_cost() {
	local t1=$1 t2=$2 k x y d c=0
	shift 2
	for k in "${!P[@]}"; do
		if [ "${k%%>*}" = "${k#*>}" ]; then c=$(( c + 1000 * P[$k] )); else c=$(( c + P[$k] * P[$k] )); fi
	done
	if [ -n "$t1" ] && [ -n "$t2" ]; then
		for x; do
			[ "$x" = "$t1" ] && continue
			y=$x; [ "$x" = "$t2" ] && y=$t1
			d=$(( ${P[$x>$t1]:-0} - ${P[$y>$t2]:-0} ))
			c=$(( c + 4 * d * d ))
		done
	fi
	for k in "${!Q[@]}"; do c=$(( c + ORDER_POS_WEIGHT * Q[$k] * Q[$k] )); done
	ORDER_COST=$c
}
