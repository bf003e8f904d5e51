#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The bash completion (shell-completion/bash/zswap-tuned) parses, and
# completes in a bash without bash-completion (no _init_completion) and, when
# it is installed, with it. COMP_WORDS is split the way bash splits it at the
# "=" of COMP_WORDBREAKS.
# The zsh (shell-completion/zsh/_zswap-tuned, typed into an interactive zsh
# under zsh/zpty) and fish (shell-completion/fish/zswap-tuned.fish,
# "complete -C") completions: every command and every long option of --help
# in its context. Without zsh or fish those cases skip, and fail under CI=true.
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

# skip_case NAME REASON: "ok # SKIP", or a failure under CI=true
skip_case() {
	if [ "${CI:-}" = true ]; then
		not_ok "$1 (would skip, but CI=true: $2)"
	else
		T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"
	fi
}

# "WORDS WANT" cases: WORDS, then TAB, must give a line containing WANT.
# Every command, and every long option of --help in the command it belongs
# to ("status: ...", "replay: ...", "plot: ..." in its help line), typed
# but for its last letter; --lenient (replay) besides.
cases=("zswap-tuned st|status" "zswap-tuned rep|replay" "zswap-tuned pl|plot"
	"zswap-tuned --log-level=d|--log-level=debug" "zswap-tuned replay --lenien|--lenient")
while read -r opt cmd; do
	cases+=("zswap-tuned ${cmd:+$cmd }${opt%?}|$opt")
done < <("$ZT" --help | sed -nE 's/^ +(-[a-zA-Z], )?(--[a-z-]+)(=[A-Z]+)? +(status|replay|plot)?.*/\2 \4/p')

ZSH_DIR=$abs_top_srcdir/shell-completion/zsh
FISH_FILE=$abs_top_srcdir/shell-completion/fish/zswap-tuned.fish
# completes_zsh: every case at once (one zsh); prints the lines that fail.
completes_zsh() {
	local lines=() c got i rc=0
	for c in "${cases[@]}"; do lines+=("${c%%|*}"); done
	mapfile -t got < <(timeout 60 zsh -f "$abs_top_srcdir/tests/tools/zsh-complete.zsh" "$ZSH_DIR" "${lines[@]}")
	for i in "${!cases[@]}"; do
		c=${cases[i]}
		case "${got[i]:-} " in
		*" ${c#*|}"[=\ ]*) ;;
		*) echo "# zsh: '${c%%|*}<TAB>' gave '${got[i]:-nothing}', want ${c#*|}"; rc=1 ;;
		esac
	done
	return "$rc"
}
completes_fish() {
	local c got rc=0
	for c in "${cases[@]}"; do
		got=$(fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$FISH_FILE" "${c%%|*}" | cut -f1)
		# fish offers the word being completed: "st" -> "status", "--log-level=d" -> "--log-level=debug"
		grep -qxF -- "${c#*|}" <<<"$got" ||
			{ echo "# fish: complete -C '${c%%|*}' gave '${got//$'\n'/ }', want ${c#*|}"; rc=1; }
	done
	return "$rc"
}

if command -v zsh >/dev/null; then
	check "zsh -n: the zsh completion parses" zsh -n "$ZSH_DIR/_zswap-tuned"
	check "zsh: every command and every long option of --help (${#cases[@]} cases)" completes_zsh
else
	skip_case "zsh completion" "zsh is not installed (apt-get install zsh)"
fi
if command -v fish >/dev/null; then
	check "fish -n: the fish completion parses" fish --no-config -n "$FISH_FILE"
	check "fish: every command and every long option of --help (${#cases[@]} cases)" completes_fish
else
	skip_case "fish completion" "fish is not installed (apt-get install fish)"
fi
finish
