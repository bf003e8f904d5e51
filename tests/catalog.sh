#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The journal catalog (catalog/zswap-tuned.catalog) against the daemon's
# MESSAGE_IDs (daemon/log.h): every MESSAGE_ID_* has exactly one entry and
# every entry belongs to one; each entry has the headers journalctl -x shows;
# and, where journalctl is installed, it compiles (journalctl --root
# --update-catalog into a scratch tree) and lists every entry.
set -u
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

LOG_H=$abs_top_srcdir/daemon/log.h
CATALOG=$abs_top_srcdir/catalog/zswap-tuned.catalog

# "NAME ID" for every MESSAGE_ID_* define.
ids_h=$(sed -n 's/^#define[[:space:]]\{1,\}\(MESSAGE_ID_[A-Z_]*\)[[:space:]]\{1,\}"\([0-9a-f]*\)".*$/\1 \2/p' "$LOG_H")
# Every entry's ID, in file order (a "-- ID" line; a language suffix is not used).
ids_cat=$(sed -n 's/^-- \([0-9a-fA-F]*\)[[:space:]]*$/\1/p' "$CATALOG")

ids_well_formed() {
	local bad
	[ -n "$ids_h" ] || { echo "# no MESSAGE_ID_* defines found in $LOG_H"; return 1; }
	bad=$(cut -d' ' -f2 <<<"$ids_h" | grep -vxE '[0-9a-f]{32}'; grep -vxE '[0-9a-f]{32}' <<<"$ids_cat")
	[ -z "$bad" ] || { echo "# not 32 lower-case hex digits:"; sed 's/^/#   /' <<<"$bad"; return 1; }
}

each_id_one_entry() {
	local name id n rc=0
	while read -r name id; do
		n=$(grep -cxF "$id" <<<"$ids_cat")
		[ "$n" = 1 ] || { echo "# $name ($id): $n catalog entries, want 1"; rc=1; }
	done <<<"$ids_h"
	return "$rc"
}

each_entry_one_id() {
	local id n rc=0
	while read -r id; do
		[ -n "$id" ] || continue
		n=$(awk -v id="$id" '$2 == id' <<<"$ids_h" | wc -l)
		[ "$n" = 1 ] || { echo "# catalog entry $id: $n MESSAGE_ID_* defines in daemon/log.h, want 1"; rc=1; }
	done <<<"$ids_cat"
	return "$rc"
}

# Each entry: Subject:, Defined-By: zswap-tuned, Support:, Documentation:
# naming zswap-tuned(8), then an empty line and some text.
entries_complete() {
	awk '
	function check() {
		if (id == "") return
		if (!subject) { print "# " id ": no Subject:"; bad = 1 }
		if (!defined) { print "# " id ": no Defined-By: zswap-tuned"; bad = 1 }
		if (!support) { print "# " id ": no Support:"; bad = 1 }
		if (!doc) { print "# " id ": no Documentation: man:zswap-tuned(8)"; bad = 1 }
		if (!body) { print "# " id ": no text"; bad = 1 }
	}
	/^#/ { next }
	/^-- / { check(); id = $2; head = 1; subject = defined = support = doc = body = 0; next }
	head && /^$/ { head = 0; next }
	head && /^Subject: ./ { subject = 1 }
	head && /^Defined-By: zswap-tuned$/ { defined = 1 }
	head && /^Support: ./ { support = 1 }
	head && /^Documentation: .*man:zswap-tuned\(8\)/ { doc = 1 }
	!head && id != "" && NF { body = 1 }
	END { check(); exit bad }' "$CATALOG"
}

compiles() {
	local d out n rc=0
	command -v journalctl >/dev/null || { echo "# journalctl not installed; not compiled"; return 0; }
	d=$(mktemp -d) || return 1
	mkdir -p "$d/usr/lib/systemd/catalog" "$d/var/lib/systemd/catalog" &&
		cp "$CATALOG" "$d/usr/lib/systemd/catalog/" || rc=1
	if [ "$rc" = 0 ]; then
		out=$(journalctl --root="$d" --update-catalog 2>&1 && journalctl --root="$d" --list-catalog 2>&1) || rc=1
		n=$(grep -cE '^[0-9a-f]{32} zswap-tuned: ' <<<"$out")
		[ "$rc" = 0 ] && [ "$n" = "$(grep -c . <<<"$ids_cat")" ] || {
			echo "# journalctl --update-catalog/--list-catalog (exit $rc, $n entries):"
			sed 's/^/#   /' <<<"$out"
			rc=1
		}
	fi
	rm -rf "$d"
	return "$rc"
}

check "every MESSAGE_ID is 32 lower-case hex digits" ids_well_formed
check "every MESSAGE_ID_* in daemon/log.h has exactly one catalog entry" each_id_one_entry
check "every catalog entry is a MESSAGE_ID_* of daemon/log.h" each_entry_one_id
check "every entry has Subject:, Defined-By: zswap-tuned, Support:, Documentation: and text" entries_complete
check "journalctl --update-catalog compiles it, --list-catalog lists every entry" compiles
finish
