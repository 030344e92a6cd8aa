#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The kernel-header corpus test (docs/events.md, "The kernel-header corpus test"): every
# header in headers.list, taken from Debian's linux-source-6.1 at test time, compiled with
# trev with only its two include lines changed, against our stand-ins (standin/), its events
# fired; then compared:
#   - each event's format with the one the kernel's own stages make from the same header
#     (ref/, ref_main.c), line for line but "ID:";
#   - each line of trev's `trace` text with `trace-cmd report` of the same records in trace.dat.
# Prints a table (compiles as C / C++, formats equal N/M, text equal N/M) and fails when it
# differs from expected.txt, better or worse.
#
#   kernel_headers.sh            run, print the table, compare with expected.txt
#   kernel_headers.sh --update   run, print the table, write expected.txt
#   kernel_headers.sh NAME...    only these headers (no comparison with expected.txt)
#
# TREV_SOURCE_DIR / TREV_BUILD_DIR as ctest sets them (default: this tree and its build/).
# Work files stay in $TREV_BUILD_DIR/kernel_headers/ (out/<name>/ per header), the extracted
# kernel files in its linux/.
set -euo pipefail
export LC_ALL=C
# The source tree stays as checked out: no __pycache__ beside gen_fire.py.
export PYTHONDONTWRITEBYTECODE=1

KH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S=${TREV_SOURCE_DIR:-$(cd "$KH/../.." && pwd)}
B=${TREV_BUILD_DIR:-$S/build}
W=$B/kernel_headers
JOBS=${JOBS:-2}
CC=${CC:-cc}
CXX=${CXX:-c++}

# ---- one header: kernel_headers.sh --one NAME INCLUDE DIR [BEFORE] -----------------------------
# Leaves out/NAME/result: "NAME C C++ FORMATS TEXT" (yes/no, N/M), and the logs beside it.
run_one() {
	local name=$1 inc=$2 dir=$3 before=${4:--}
	local o=$W/out/$name
	rm -rf "$o"
	mkdir -p "$o/ref" "$o/trev"
	# An undeclared function is an error, as in the kernel's own build: otherwise a macro
	# trev lacks (__perf_task) compiles as a call and fails only at link time.
	local common=(-std=gnu11 -g -O1 -D_GNU_SOURCE -Werror=implicit-function-declaration
		-include "$KH/standin/kernel_types.h" "-DKH_HEADER=<$inc>")
	[ "$before" = - ] || common+=("-DKH_BEFORE=<$before>")
	local ref_inc=(-I"$KH/ref" -I"$KH/standin" -I"$W/linux/include" -I"$W/linux/$dir"
		-I"$W/stubs")
	local trev_inc=(-DKH_TREV -I"$S/include" -I"$KH/standin" -I"$W/trev/include"
		-I"$W/trev/$dir" -I"$W/stubs")
	# trev's default path is the kernel's <trace/events/SYSTEM.h>; the headers under include/
	# name it too, as a header may (the sample sets its own).
	[ "$dir" != include ] || trev_inc+=(-DTRACE_INCLUDE_PATH=trace/events)

	# The reference: the kernel's stages, the kernel's format printing.
	if ! "$CC" "${common[@]}" "${ref_inc[@]}" -c "$KH/tu.c" -o "$o/ref.o" >"$o/ref.log" 2>&1 ||
	   ! "$CC" -std=gnu11 -g -I"$KH/ref" -I"$KH/standin" "$KH/ref_main.c" "$o/ref.o" \
		-o "$o/ref_main" >>"$o/ref.log" 2>&1 ||
	   ! timeout 120 "$o/ref_main" "$o/ref" >>"$o/ref.log" 2>&1; then
		echo "$name REFERENCE-FAILED - - -" >"$o/result"
		return 0
	fi
	local total
	total=$(find "$o/ref" -name '*.format' | wc -l)

	# The calls that fire every event.
	"$CC" "${common[@]}" "${ref_inc[@]}" -DKH_FIRE_STAGE -E -P "$KH/tu.c" -o "$o/protos.i" \
		>"$o/fire.log" 2>&1 &&
	python3 "$KH/gen_fire.py" "$o/protos.i" "$KH/standin/kernel_types.h" >"$o/fire.h" \
		2>>"$o/fire.log" || { echo "$name FIRE-FAILED - - -" >"$o/result"; return 0; }

	# trev: C with the calls, C++ without.
	local c=no cxx=no
	"$CC" "${common[@]}" "${trev_inc[@]}" -DKH_FIRE="\"$o/fire.h\"" \
		-c "$KH/tu.c" -o "$o/trev.o" >"$o/trev_c.log" 2>&1 && c=yes
	local cxx_flags=(-x c++ -std=gnu++17 -g -O1 -D_GNU_SOURCE -include "$KH/standin/kernel_types.h"
		"-DKH_HEADER=<$inc>")
	[ "$before" = - ] || cxx_flags+=("-DKH_BEFORE=<$before>")
	"$CXX" "${cxx_flags[@]}" "${trev_inc[@]}" -c "$KH/tu.c" -o "$o/trev_cxx.o" \
		>"$o/trev_cxx.log" 2>&1 && cxx=yes

	local formats_eq=0 text_eq=0 text_total=0
	if [ $c = yes ] &&
	   "$CC" -std=gnu11 -g -O1 -D_GNU_SOURCE -I"$S/include" -I"$KH/standin" \
		"$KH/trev_main.c" "$KH/standin/standin.c" "$o/trev.o" "$B/libtrev.a" \
		$(pkg-config --libs liburcu-bp fuse3 libdw libelf capstone) -lpthread -o "$o/trev_main" \
		>"$o/trev_link.log" 2>&1 &&
	   timeout 120 "$o/trev_main" "$o" >"$o/trev_run.log" 2>&1; then
		local f ev
		for f in "$o"/ref/*.format; do
			ev=$(basename "$f")
			if [ -f "$o/trev/$ev" ] &&
			   diff <(grep -v '^ID: ' "$f") <(grep -v '^ID: ' "$o/trev/$ev") >/dev/null; then
				formats_eq=$((formats_eq + 1))
			else
				diff -u <(grep -v '^ID: ' "$f") <(grep -v '^ID: ' "$o/trev/$ev" 2>/dev/null) \
					>>"$o/formats.diff" || true
			fi
		done
		# The text: trev's trace lines against trace-cmd report's, pair by pair.
		python3 "$S/tests/tracedat/normalise.py" trev "$o/trace.txt" >"$o/trace.norm" \
			2>"$o/text.log" || true
		if trace-cmd report -t -i "$o/trace.dat" >"$o/report.txt" 2>>"$o/text.log"; then
			python3 "$S/tests/tracedat/normalise.py" report "$o/report.txt" \
				>"$o/report.norm" 2>>"$o/text.log" || true
		fi
		text_total=$(grep -vc '^LOST' "$o/trace.norm" || true)
		text_eq=$(python3 "$KH/compare_text.py" "$o/trace.norm" "$o/report.norm" "$o/text.diff")
	fi
	echo "$name $c $cxx $formats_eq/$total $text_eq/$text_total" >"$o/result"
}

if [ "${1:-}" = --one ]; then
	shift
	run_one "$@"
	exit 0
fi

# ---- the whole list ---------------------------------------------------------------------------
update=0
only=()
for arg in "$@"; do
	case $arg in
	--update) update=1 ;;
	-*) echo "usage: $0 [--update] [NAME...]" >&2; exit 2 ;;
	*) only+=("$arg") ;;
	esac
done

for tool in python3 trace-cmd pkg-config; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (make deps)"; exit 77; }
done
[ -f "$B/libtrev.a" ] || { echo "FAIL: $B/libtrev.a is not built" >&2; exit 1; }
# Only the normal tree: an instrumented libtrev.a would need these objects instrumented too.
if grep -q '^TREV_SANITIZE:STRING=.' "$B/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: $B is a sanitizer tree; run the corpus test on the normal build"
	exit 77
fi

mkdir -p "$W"
"$KH/extract.sh" "$W"

# trev's copies of the headers, and the stubs for what they include.
"$KH/prepare.sh" "$W"

mapfile -t list < <(grep -v '^#' "$KH/headers.list" | grep -v '^[[:space:]]*$')
sel=()
for line in "${list[@]}"; do
	read -r name _ _ <<<"$line"
	if [ ${#only[@]} -eq 0 ] || printf '%s\n' "${only[@]}" | grep >/dev/null -x "$name"; then
		sel+=("$line")
	fi
done
[ ${#sel[@]} -gt 0 ] || { echo "no such header: ${only[*]}" >&2; exit 2; }

printf '%s\n' "${sel[@]}" | xargs -P "$JOBS" -L 1 "$KH/kernel_headers.sh" --one

results=$W/results.txt
: >"$results"
for line in "${sel[@]}"; do
	read -r name _ _ <<<"$line"
	cat "$W/out/$name/result" >>"$results"
done

printf '%-14s %-4s %-4s %-9s %s\n' header C C++ formats text
awk '{ printf "%-14s %-4s %-4s %-9s %s\n", $1, $2, $3, $4, $5 }' "$results"

# What differs, first line per header (the whole diffs stay in out/NAME/).
for line in "${sel[@]}"; do
	read -r name _ _ <<<"$line"
	o=$W/out/$name
	if grep -q REFERENCE-FAILED "$o/result"; then
		echo "== $name: the reference did not build: $(grep -m1 -E 'error|Error' "$o/ref.log" || head -1 "$o/ref.log")"
		continue
	fi
	[ -s "$o/trev_c.log" ] && grep -q 'error' "$o/trev_c.log" &&
		echo "== $name: C: $(grep -m1 'error' "$o/trev_c.log")"
	[ -s "$o/trev_cxx.log" ] && grep -q 'error' "$o/trev_cxx.log" &&
		echo "== $name: C++: $(grep -m1 'error' "$o/trev_cxx.log")"
	[ -s "$o/formats.diff" ] &&
		echo "== $name: format: $(grep -m1 -E '^[-+][^-+]' "$o/formats.diff")"
	[ -s "$o/text.diff" ] &&
		echo "== $name: text: $(head -2 "$o/text.diff" | tr '\n' ' ')"
done

if [ ${#only[@]} -gt 0 ]; then
	exit 0
fi
if [ $update -eq 1 ]; then
	{
		echo "# Expected results of tests/kernel_headers/kernel_headers.sh: header, compiles as C,"
		echo "# compiles as C++, formats equal N/M, trace lines equal to trace-cmd report N/M."
		echo "# Regenerate with: tests/kernel_headers/kernel_headers.sh --update (or make kernel-headers-update)"
		cat "$results"
	} >"$KH/expected.txt"
	echo "expected.txt updated"
	exit 0
fi
if ! diff -u <(grep -v '^#' "$KH/expected.txt") "$results"; then
	echo "FAIL: results differ from tests/kernel_headers/expected.txt (- expected, + now);"
	echo "      if the change is an improvement, record it: tests/kernel_headers/kernel_headers.sh --update"
	exit 1
fi
echo "PASS: every header as expected.txt records"
