#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# "make fuzz": build the libFuzzer harnesses with clang, straight from the
# daemon's sources, and run each for FUZZ_SECONDS on a scratch copy of its seed
# corpus (new inputs never land in the source tree). Prints one line per target
# and exits non-zero on any crash, leak, timeout or failed invariant.
#
# From make: abs_top_srcdir, abs_top_builddir, FUZZ_SOURCES (the library's
# sources, relative to the source dir), FUZZ_CPPFLAGS, FUZZ_LIBS.
# Knobs: FUZZ_SECONDS (60), FUZZ_TARGETS (all), FUZZ_CC (clang),
# FUZZ_MAX_LEN (16384), FUZZ_ARGS (more libFuzzer flags).
set -u
src=${abs_top_srcdir:?}/tests/fuzz
out=${abs_top_builddir:?}/tests/fuzz/build
cc=${FUZZ_CC:-clang}
secs=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-psi meminfo vmstat swaps knob cgroup savefile conf replay snapshot glob units mountinfo}
san="address,undefined,float-cast-overflow"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all -Wall -Wno-unused-parameter"
cppflags="-include $abs_top_builddir/config.h -I$abs_top_srcdir/daemon -I$src ${FUZZ_CPPFLAGS:-}"

if ! command -v "$cc" >/dev/null; then
	echo "make fuzz: $cc not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi
mkdir -p "$out/obj" || exit 1

# The daemon's objects, instrumented, in an archive: each harness links only
# what it uses.
echo "  CC      daemon sources (clang -fsanitize=fuzzer-no-link,$san)"
objs=()
for f in ${FUZZ_SOURCES:?}; do
	case "$f" in *.c) ;; *) continue ;; esac
	o=$out/obj/$(basename "${f%.c}").o
	objs+=("$o")
	# rebuilt when older than its source, a daemon header or config.h
	if [ -f "$o" ] && [ -z "$(find "$abs_top_srcdir/$f" "$abs_top_srcdir"/daemon/*.h \
		"$abs_top_builddir/config.h" -newer "$o" 2>/dev/null)" ]; then
		continue
	fi
	$cc $cflags -fsanitize=fuzzer-no-link,$san $cppflags -c "$abs_top_srcdir/$f" -o "$o" || exit 1
done
rm -f "$out/libdaemon-fuzz.a"
ar rcs "$out/libdaemon-fuzz.a" "${objs[@]}" || exit 1

for t in $targets; do
	echo "  CCLD    fuzz-$t"
	$cc $cflags -fsanitize=fuzzer,$san $cppflags "$src/fuzz-$t.c" "$out/libdaemon-fuzz.a" ${FUZZ_LIBS:-} \
		-o "$out/fuzz-$t" || exit 1
done

final_stat() { sed -n "s/^stat::$1: *//p" "$w/log" | tail -n 1; }

rc=0
printf '%-9s %12s %9s %9s %7s %7s %8s %8s  %s\n' target executions exec/s new-units cov ft corpus crashes result
for t in $targets; do
	w=$out/work/$t
	rm -rf "$w" && mkdir -p "$w/corpus" "$w/artifacts" || exit 1
	cp "$src/corpus/$t"/* "$w/corpus/" || exit 1
	(cd "$w" && "$out/fuzz-$t" -max_total_time="$secs" -max_len="${FUZZ_MAX_LEN:-16384}" -timeout=5 \
		-rss_limit_mb=2048 -print_final_stats=1 -dict="$src/$t.dict" -artifact_prefix="$w/artifacts/" \
		${FUZZ_ARGS:-} corpus >"$w/log" 2>&1)
	r=$?
	last=$(grep -E '^#[0-9]+' "$w/log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	crashes=$(find "$w/artifacts" -type f | wc -l)
	result=ok
	if [ "$r" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		result="FAILED (exit $r)"
		rc=1
	fi
	printf '%-9s %12s %9s %9s %7s %7s %8s %8s  %s\n' "$t" "$(final_stat number_of_executed_units)" \
		"$(final_stat average_exec_per_sec)" "$(final_stat new_units_added)" "${cov:-?}" "${ft:-?}" \
		"$(find "$w/corpus" -type f | wc -l)" "$crashes" "$result"
	if [ "$result" != ok ]; then
		echo "----- $w/log (last 60 lines)"
		tail -n 60 "$w/log"
		find "$w/artifacts" -type f -printf '  reproducer: %p\n'
		echo "  reproduce: $out/fuzz-$t <file>; minimize: $out/fuzz-$t -minimize_crash=1 -runs=100000 <file>"
		echo "-----"
	fi
done
exit $rc
