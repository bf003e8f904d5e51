#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The built man pages lint clean, and document every option and config key
# the code has.
set -u
. "$(dirname "$0")/lib.sh"

command -v mandoc >/dev/null || { echo "SKIP: mandoc not installed (apt-get install mandoc)"; exit 77; }
M8="$abs_top_builddir/man/zswap-tuned.8"
M5="$abs_top_builddir/man/zswap-tuned.conf.5"

for m in "$M8" "$M5"; do
	out=$(mandoc -Tlint -Wwarning "$m" 2>&1)
	check "$(basename "$m") lints clean${out:+: $out}" test -z "$out"
done

# Every long option in --help is in zswap-tuned(8).
for opt in $("$ZT" --help | grep -oE -- '--[a-z-]+' | sort -u); do
	check "zswap-tuned(8) documents $opt" grep -qF -- "${opt//-/\\-}" "$M8"
done
# Every key of the effective configuration is in zswap-tuned.conf(5).
for key in $("$ZT" --check-config --config /dev/null | sed -n 's/^\([A-Za-z]*\)=.*/\1/p' | sort -u); do
	check "zswap-tuned.conf(5) documents $key=" grep -qE "^\.(B|BR|TP|IP).*$key" "$M5"
done

# Every default is the same in the code (--check-config of an empty file),
# zswap-tuned.conf(5) ("Default: \fBvalue\fR." or "Default: empty." in the
# entry of each key) and conf/zswap-tuned.conf ("#Key=value" in its section).
# Each prints "Section.Key=value" lines; a " ; comment" after the value (an
# empty ReleasePercent= saying what it follows) is not part of it.
code_defaults() {
	"$ZT" --check-config --config /dev/null |
		awk '/^\[.*\]$/ { s = substr($0, 2, length($0) - 2); next }
		     /^[A-Za-z]+=/ { sub(/[ \t]+;.*$/, ""); print s "." $0 }'
}
man_defaults() {
	awk '/^\.SH \[[A-Za-z]+\] SECTION/ { s = substr($2, 2, length($2) - 2); key = ""; next }
	     /^\.SH/ { s = ""; key = ""; next }
	     /^\.TP/ { tag = 1; next }
	     tag { tag = 0; key = ""
		   if (s != "" && match($0, /^\.B[IR]? [A-Za-z]+=/)) key = substr($0, RSTART, RLENGTH)
		   sub(/^\.B[IR]? /, "", key); sub(/=$/, "", key); next }
	     /^Default/ { if (key == "") { print "?.?=default outside a key: " $0; next }
		          v = $0
		          if (v == "Default: empty.") v = ""
		          else if (!sub(/^Default: \\fB/, "", v) || !sub(/\\fR\.$/, "", v)) v = "malformed: " $0
		          print s "." key "=" v; key = "" }' "$M5"
}
conf_defaults() {
	awk '/^\[.*\]$/ { s = substr($0, 2, length($0) - 2); next }
	     /^#[A-Z][A-Za-z]*=/ { sub(/[ \t]+;.*$/, ""); print s "." substr($0, 2) }' "$abs_top_srcdir/conf/zswap-tuned.conf"
}
code=$(code_defaults | sort)
man=$(man_defaults | sort)
conf=$(conf_defaults | sort)
check "--check-config prints defaults" test -n "$code"
while IFS= read -r line; do
	key=${line%%=*}
	check "zswap-tuned.conf(5) gives the default $line" grep -qxF -- "$line" <<<"$man"
	check "conf/zswap-tuned.conf shows the default $line" grep -qxF -- "$line" <<<"$conf"
	check "zswap-tuned.conf(5) gives one default for $key" \
		test "$(grep -c -- "^${key//./\\.}=" <<<"$man")" -eq 1
done <<<"$code"
# ... and neither has a key the code does not have.
extra=$(comm -23 <(echo "$man") <(echo "$code") | tr '\n' ' ')
check "zswap-tuned.conf(5) has no other defaults${extra:+: $extra}" test -z "$extra"
extra=$(comm -23 <(echo "$conf") <(echo "$code") | tr '\n' ' ')
check "conf/zswap-tuned.conf has no other keys${extra:+: $extra}" test -z "$extra"
finish
