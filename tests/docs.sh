#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The docs match the code: every option, command and exit status that
# "zswap-tuned --help" prints is in docs/design.md and in zswap-tuned(8), and
# docs/architecture.md lists every daemon/*.c (and nothing that is gone).
set -u
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

DESIGN=$abs_top_srcdir/docs/design.md
ARCH=$abs_top_srcdir/docs/architecture.md
MAN=$abs_top_srcdir/man/zswap-tuned.8.in

HELP=$("$ZT" --help) || { echo "Bail out! $ZT --help failed"; exit 99; }
longs=$(grep -oE -- '--[a-z][a-z-]*' <<<"$HELP" | sort -u)
shorts=$(grep -oE -- '^  -[a-zA-Z],' <<<"$HELP" | tr -d ' ,' | sort -u)
# the words after the program name on the Usage lines that are not options or placeholders
commands=$(sed -n 's/^\(Usage:\)\{0,1\} *zswap-tuned \([a-z][a-z-]*\).*/\2/p' <<<"$HELP" | sort -u)
# "Exit status: 0 ...; 1 ...;" up to the blank line after it
codes=$(sed -n '/^Exit status:/,/^$/p' <<<"$HELP" | sed 's/^Exit status://' | grep -oE '(^|; *| )[0-9]+ [a-z]' |
	grep -oE '[0-9]+' | sort -un)

check "--help names options, commands and exit statuses" test -n "$longs" -a -n "$shorts" -a -n "$commands" -a -n "$codes"
check "--help names the commands status, replay and plot" bash -c \
	"grep -qx status <<<'$commands' && grep -qx replay <<<'$commands' && grep -qx plot <<<'$commands'"
check "--help names exit status 75" grep -qx 75 <<<"$codes"

# roff spells "-" as "\-"
roff() { sed 's/-/\\\\-/g' <<<"$1"; }
for o in $longs; do
	check "design.md documents $o" grep -qE -- "(\`|, )$o([=\` ]|, )" "$DESIGN"
	check "zswap-tuned(8) documents $o" grep -qE -- "^\.[BIR]+ .*$(roff "$o")( |=|\"|$)" "$MAN"
done
for o in $shorts; do
	check "design.md documents $o" grep -qE -- "\`$o, --" "$DESIGN"
	check "zswap-tuned(8) documents $o" grep -qE -- "^\.BR $(roff "$o") \", \"" "$MAN"
done
for c in $commands; do
	check "design.md documents the command $c" grep -qE -- "^\| \`$c( |\`)" "$DESIGN"
	check "zswap-tuned(8) documents the command $c" grep -qE -- "^\.BI? $c( |$)" "$MAN"
done
for n in $codes; do
	check "design.md documents exit status $n" grep -qE -- "^\| \`$n\` \|" "$DESIGN"
	check "zswap-tuned(8) documents exit status $n" bash -c \
		"sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' '$MAN' | grep -qx '.B $n'"
done

# docs/architecture.md: a "- `daemon/x.c`: ..." line for each daemon/*.c, none for a file that is gone
for f in "$abs_top_srcdir"/daemon/*.c; do
	f=daemon/${f##*/}
	check "architecture.md lists $f" grep -qE -- "^- \`$(sed 's/\./\\./g' <<<"$f")\`: ." "$ARCH"
done
for f in $(sed -n 's/^- `\(daemon\/[^`]*\.c\)`.*/\1/p' "$ARCH"); do
	check "architecture.md lists $f, which exists" test -f "$abs_top_srcdir/$f"
done
finish
