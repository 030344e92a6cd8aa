#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What a tracepoint guard compiles to (docs/jump-labels.md), with gcc, g++, clang and clang++
# at -O0 and -O2, as PIE (the default) and -fPIC:
#   -DTREV_JUMP_LABEL=1: every entry of __trev_jump_table names a site that is the 5-byte nop
#     0f 1f 44 00 00 and the tracepoint by an absolute R_X86_64_64; the USDT note has no
#     semaphore;
#   without it: no __trev_jump_table, and the guard reads the key word of
#     __tracepoint_jl_tick, as before; with it, the guard's code does not name the
#     tracepoint at all.
set -uo pipefail
export LC_ALL=C

src=${TREV_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

case "$(uname -m)" in
x86_64) ;;
*)	echo "SKIP: jump labels are x86-64 only (docs/jump-labels.md)"; exit 77 ;;
esac
command -v objdump >/dev/null && command -v readelf >/dev/null ||
	{ echo "SKIP: no objdump/readelf (binutils)"; exit 77; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cat >"$T/t.c" <<'EOF'
#define CREATE_TRACE_POINTS
#include "jl_events.h"
#ifdef __cplusplus
extern "C"
#endif
void jl_loop(int n);
void jl_loop(int n)
{
	for (int i = 0; i < n; i++)
		trace_jl_tick(i);
}
EOF
cp "$T/t.c" "$T/t.cpp"

# The 5 bytes at offset 0x$2 of section $3 of object $1, as "0f 1f 44 00 00".
bytes_at() {
	objdump -s -j "$3" --start-address=$((0x$2)) --stop-address=$((0x$2 + 5)) "$1" |
		awk '/^ [0-9a-f]+ / { print $2 $3 }' | tr -d '\n' | sed -E 's/(..)/\1 /g; s/ $//'
}

# The relocations against __tracepoint_jl_tick in the guard's code: jl_loop() and, where it
# is not inlined (-O0), trace_jl_tick() (C++: _ZL13trace_jl_ticki).
guard_refs() {
	objdump -dr --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2 }
		/R_X86_64_/ && /__tracepoint_jl_tick/ && (fn ~ /jl_loop|trace_jl_tick/) { print fn, $0 }'
}

checked=0
for cc in gcc g++ clang clang++; do
	command -v "$cc" >/dev/null || { echo "no $cc: skipped"; continue; }
	case "$cc" in *++) file=t.cpp ;; *) file=t.c ;; esac
	for opt in -O0 -O2; do
		for pic in "" -fPIC; do
			what="$cc $opt${pic:+ $pic}"
			flags=(-D_GNU_SOURCE $opt $pic -I"$src/include" -I"$src/tests/jump_label" -c)
			"$cc" "${flags[@]}" -DTREV_JUMP_LABEL=1 "$T/$file" -o "$T/jl.o" ||
				fail "$what -DTREV_JUMP_LABEL=1 does not compile"
			"$cc" "${flags[@]}" "$T/$file" -o "$T/nojl.o" || fail "$what does not compile"

			# With the macro: each entry is {site, target, tracepoint}, 16 bytes.
			readelf -rW "$T/jl.o" | awk '
				/^Relocation section/ { on = ($3 == "'"'"'.rela__trev_jump_table'"'"'") }
				on && /R_X86_64/ { print $1, $3, $5, $7 }' >"$T/rel"
			[ -s "$T/rel" ] || fail "$what -DTREV_JUMP_LABEL=1: no __trev_jump_table"
			sites=0
			while read -r off type sym addend; do
				case $(( 0x$off % 16 )) in
				0)	[ "$type" = R_X86_64_PC32 ] || fail "$what: entry $off: site is $type"
					b=$(bytes_at "$T/jl.o" "$addend" "$sym")
					[ "$b" = "0f 1f 44 00 00" ] ||
						fail "$what: the site at $sym+0x$addend is '$b', not a nop5"
					sites=$((sites + 1)) ;;
				8)	[ "$type $sym" = "R_X86_64_64 __tracepoint_jl_tick" ] ||
						fail "$what: entry $off: key is '$type $sym', not an absolute __tracepoint_jl_tick" ;;
				esac
			done <"$T/rel"
			[ "$sites" -ge 1 ] || fail "$what: no site in the table"
			if grep -q '__trev_usdt_sem_jl_tick' <(readelf -rW "$T/jl.o"); then
				fail "$what -DTREV_JUMP_LABEL=1: the USDT note names a semaphore"
			fi
			grep -q . <(guard_refs "$T/jl.o") &&
				fail "$what -DTREV_JUMP_LABEL=1: the guard still reads the tracepoint"

			# Without: the load of the key word and a test of it.
			grep -q __trev_jump_table <(readelf -SW "$T/nojl.o") &&
				fail "$what: __trev_jump_table without the macro"
			grep -q . <(guard_refs "$T/nojl.o") ||
				fail "$what: the guard does not read the key word without the macro"
			checked=$((checked + 1))
			echo "ok: $what ($sites site(s) with the macro)"
		done
	done
done
[ "$checked" -gt 0 ] || { echo "SKIP: no compiler"; exit 77; }
echo "jump_label_objdump: $checked builds checked"
