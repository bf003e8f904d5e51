#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The bash completion (shell-completion/bash/zswap-tuned) parses, and
# completes in a bash without bash-completion (no _init_completion) and, when
# it is installed, with it. COMP_WORDS is split the way bash splits it at the
# "=" of COMP_WORDBREAKS.
# Single quotes: bash -c scripts, expanded by the inner shell.
# shellcheck disable=SC2016
set -u
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

COMPLETION=$abs_top_srcdir/shell-completion/bash/zswap-tuned
BASH_COMPLETION=/usr/share/bash-completion/bash_completion

# complete [--with-bash-completion] WORD...: what _zswap_tuned offers for
# the last word, one per line, from a fresh bash.
complete_words() {
	local pre=
	if [ "$1" = --with-bash-completion ]; then
		pre=". $BASH_COMPLETION"
		shift
	fi
	env -i PATH="$PATH" bash --norc --noprofile -c '
		'"$pre"'
		. "$1" || exit 1
		shift
		complete -p zswap-tuned | grep -q -- "-F _zswap_tuned" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE=
		for w in "$@"; do
			case $w:$COMP_LINE in
			=:* | *:*=) COMP_LINE+=$w ;;
			*) COMP_LINE+=${COMP_LINE:+ }$w ;;
			esac
		done
		COMP_POINT=${#COMP_LINE}
		_zswap_tuned zswap-tuned "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETION" "$@"
}

# offers WANT WORD...: the completion of WORD... is exactly WANT (lines).
offers() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] && return 0
	echo "# completing '$*': got '${got//$'\n'/ }', want '${want//$'\n'/ }'"
	return 1
}

no_init_completion() {
	env -i PATH="$PATH" bash --norc --noprofile -c '. "$1"; ! declare -F _init_completion >/dev/null' bash "$COMPLETION"
}

# Every long option and command "zswap-tuned --help" names is offered somewhere.
knows_help() {
	local w rc=0
	[ -x "$ZT" ] || { echo "# no $ZT"; return 1; }
	for w in $("$ZT" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u) status replay plot; do
		grep -qE -- "(^|[ '])$w(=|[ ']|\$)" "$COMPLETION" || { echo "# the completion does not offer $w"; rc=1; }
	done
	return "$rc"
}

check "bash -n: the completion file parses" bash -n "$COMPLETION"
check "it offers every long option and command of zswap-tuned --help" knows_help
check "no _init_completion in a plain bash" no_init_completion
check "plain bash: --log-level=d completes to debug" offers debug zswap-tuned --log-level = d
check "plain bash: a first word completes to a subcommand (st: status)" offers status zswap-tuned st
check "plain bash: status --j completes to --json" offers --json zswap-tuned -n status --j
if [ -r "$BASH_COMPLETION" ]; then
	check "with bash-completion: --log-level=d completes to debug" \
		offers debug --with-bash-completion zswap-tuned --log-level = d
	check "with bash-completion: status --j completes to --json" \
		offers --json --with-bash-completion zswap-tuned status --j
else
	echo "# bash-completion is not installed: only the plain-bash cases ran"
fi
finish
