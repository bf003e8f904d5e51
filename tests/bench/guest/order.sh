# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by guest.sh (and tests/bench-stats.sh): the run order of a bench matrix (issue 23).
# Every round runs the configurations in a fresh random order, drawn from a seed that
# guest.sh records in env.txt, so that no configuration always runs first in a boot (the
# first run after the calibration had the pool at its limit for half the run in 9 of 14
# boots), nor always after a given other one. Bash arithmetic only (64-bit, wrapping): the
# same seed gives the same order on any bash.

# order_shuffle SEED ROUND WORDS...: the words in the order of that round
order_shuffle() {
	local seed=$1 round=$2 i j t s
	shift 2
	local w=("$@")
	# an LCG (Knuth's MMIX constants) seeded from seed and round; the high bits are used
	s=$(( (seed * 1000003 + round * 7919 + 12345) & 0x7fffffffffffffff ))
	for i in 1 2 3 4; do s=$(( s * 6364136223846793005 + 1442695040888963407 )); done
	for (( i = ${#w[@]} - 1; i > 0; i-- )); do
		s=$(( s * 6364136223846793005 + 1442695040888963407 ))
		j=$(( ((s >> 33) & 0x7fffffff) % (i + 1) ))
		t=${w[i]}; w[i]=${w[j]}; w[j]=$t
	done
	echo "${w[@]}"
}

# order_seed: a fresh seed (guest.sh uses SEED= from the conf when set)
order_seed() {
	echo $(( $(od -An -N4 -tu4 /dev/urandom) & 0x7fffffff ))
}
