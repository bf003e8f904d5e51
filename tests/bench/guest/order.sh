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
order_mix() {
	local z=$1
	z=$(( (z ^ ((z >> 30) & 0x3ffffffff)) * -4658895280553007687 ))  # 0xbf58476d1ce4e5b9
	z=$(( (z ^ ((z >> 27) & 0x1fffffffff)) * -7723592293110705685 )) # 0x94d049bb133111eb
	echo $(( z ^ ((z >> 31) & 0x1ffffffff) ))
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
	s=$(order_mix $(( $(order_mix $(( seed + 1 ))) + round )))
	for (( i = ${#w[@]} - 1; i > 0; i-- )); do
		s=$(( s - 7046029254386353131 )) # + 0x9e3779b97f4a7c15, splitmix64's step
		z=$(order_mix $s)
		j=$(( ((z >> 33) & 0x7fffffff) % (i + 1) ))
		t=${w[i]}; w[i]=${w[j]}; w[j]=$t
	done
	echo "${w[@]}"
}

# order_seed: a fresh seed (guest.sh uses SEED= from the conf when set)
order_seed() {
	echo $(( $(od -An -N4 -tu4 /dev/urandom) & 0x7fffffff ))
}
