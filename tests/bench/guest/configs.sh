# SPDX-License-Identifier: GPL-2.0-or-later
# The names of a bench bed's configurations (sourced by guest.sh and legacy.sh, and by
# tests/bench-stats.sh): which configuration a name runs, whether it is the daemon, and
# the daemon's drop-in for it.
#
# A daemon configuration is "zt" or "ztBASE" (ztcfg, ztcap, ...), optionally followed by
# "-NAME" for a variant compared in the same boot. Its drop-in is the variable ZTBASE_CONF
# (set by the bed; zt, the shipped defaults, has none), followed by the variable
# ZTBASE_NAME ('-' in NAME read as '_'; ZT_largest for zt-largest), which must be set.
# The callers define log().

# base_cfg NAME: the configuration NAME runs (the A/A twin, second in AA, runs the first)
base_cfg() {
	set -- "$1" $AA
	if [ $# = 3 ] && [ "$1" = "$3" ]; then echo "$2"; else echo "$1"; fi
}

# is_daemon NAME: whether the configuration runs zswap-tuned
is_daemon() { case $1 in zt*) return 0 ;; esac; return 1; }

# dropin NAME: the daemon's drop-in for the configuration on stdout; fails, saying which
# variable is missing, for a name the bed does not define
dropin() {
	local base=${1%%-*} name= v
	[ "$base" = "$1" ] || name=${1#*-}
	v=${base^^}_CONF
	if [ -n "${!v+x}" ]; then
		printf '%s\n' "${!v}"
	elif [ "$base" != zt ]; then
		log "config $1: $v is not set"
		return 1
	fi
	[ -n "$name" ] || return 0
	v=${base^^}_${name//-/_}
	[ -n "${!v+x}" ] || { log "config $1: $v is not set"; return 1; }
	printf '%s\n' "${!v}"
}
