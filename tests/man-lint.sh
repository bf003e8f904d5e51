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
finish
