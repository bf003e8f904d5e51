#!/usr/bin/env zsh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zsh-complete.zsh DIR LINE...: for each LINE, type it into an interactive
# zsh (under zsh/zpty) whose $fpath starts with DIR, press TAB once, and
# print the command line that results, one per LINE. Exit 77 without
# zsh/zpty. Completion runs only inside the line editor, hence the pty.
emulate -L zsh
zmodload zsh/zpty 2>/dev/null || { print -u2 "no zsh/zpty module"; exit 77 }
local dir=$1 line out
shift
zpty z zsh -f -i || exit 1
# The marker is printed by a widget bound to ^X after the TAB; written
# here so that the echo of these lines does not contain it.
zpty -w z "PS1='' PS2='' RPS1=''; unsetopt BEEP; fpath=(${(q)dir} \$fpath); autoload -Uz compinit && compinit -u -D"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; LISTMAX=1000"
zpty -w z '_zt_dump() { zle -I; print -r -- "<""<$BUFFER>"">"; BUFFER=; }; zle -N _zt_dump; bindkey "^X" _zt_dump'
for line in "$@"; do
	zpty -w -n z "$line"$'\t\x18'
	zpty -r -m z out '*<<*>>*' || { print -u2 "no answer for: $line"; exit 1 }
	out=${out##*<<}
	print -r -- "${out%%>>*}"
done
zpty -d z
