#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Jump labels from an installed trev (docs/jump-labels.md, "Building with jump labels"):
# `pkg-config --variable=jump_label_cflags trev` and CMake's TREV_JUMP_LABEL_CFLAGS give
# -DTREV_JUMP_LABEL=1; a program built with it by gcc and clang (-O0, -O2) has its guards in
# __trev_jump_table and records its event when TREV_EVENTS enables it, and nothing otherwise.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
T=$(mktemp -d)
# cmake --install rewrites the tree's install_manifest.txt: the one of `make install` is put
# back, so that `make uninstall` still removes what it installed (as install.sh).
[ -f "$B/install_manifest.txt" ] && cp "$B/install_manifest.txt" "$T/manifest.saved"
trap 'if [ -f "$T/manifest.saved" ]; then cp "$T/manifest.saved" "$B/install_manifest.txt"; else rm -f "$B/install_manifest.txt"; fi; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$(uname -m)" in
x86_64) ;;
*)	echo "SKIP: jump labels are x86-64 only (docs/jump-labels.md)"; exit 77 ;;
esac

# A sanitizer tree's libtrev needs its runtime in the program (as in ftrace_install.sh).
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null || true)
compilers="gcc clang"
sanflags=""
if [ -n "$san" ]; then
	compilers=gcc
	sanflags="-fsanitize=$san"
fi

cmake --install "$B" --prefix "$T/prefix" >"$T/install.log" 2>&1 || fail "install: $(cat "$T/install.log")"
pc=$(find "$T/prefix" -name trev.pc | head -1)
[ -n "$pc" ] || fail "no trev.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --variable=jump_label_cflags trev)
[ "$flags" = "-DTREV_JUMP_LABEL=1" ] || fail "jump_label_cflags: '$flags'"
[ -f "$T/prefix/include/trev/jump_label.h" ] || fail "jump_label.h is not installed"

cat >"$T/app_events.h" <<'H'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM app
#if !defined(_APP_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _APP_EVENTS_H
#include <trev/tracepoint.h>
TRACE_EVENT(app_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(int, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%d", __entry->n)
);
#endif
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE app_events
#include <trev/define_trace.h>
H
cat >"$T/app.c" <<'C'
#define CREATE_TRACE_POINTS
#include "app_events.h"
#ifndef TREV_JUMP_LABEL_ON
#error "no jump labels"
#endif
int main(void)
{
	for (int i = 0; i < 5; i++)
		trace_app_tick(i);
	return 0;
}
C

# Run $1 with TREV_EVENTS=$2; print the n= of its app_tick records.
ticks() {
	TREV_SOCKET=0 TREV_EVENTS="$2" TREV_OUTPUT=stdout "$1" >"$T/out" 2>"$T/err" ||
		fail "$1 failed: $(cat "$T/err")"
	{ grep -o 'app_tick: n=[0-9]*' "$T/out" || true; } | sed 's/.*n=//' | tr '\n' ' '
}

for cc in $compilers; do
	command -v $cc >/dev/null || { echo "SKIP: no $cc"; continue; }
	for opt in -O0 -O2; do
		# shellcheck disable=SC2086
		$cc $opt $sanflags $flags $(pkg-config --cflags trev) -I"$T" "$T/app.c" -o "$T/app" \
			-Wl,-rpath,"$T/prefix/lib" $(pkg-config --libs trev) 2>"$T/cc.err" ||
			fail "$cc $opt: $(cat "$T/cc.err")"
		grep -q __trev_jump_table <(readelf -SW "$T/app") || fail "$cc $opt: no __trev_jump_table"
		got=$(ticks "$T/app" app:app_tick)
		[ "$got" = "0 1 2 3 4 " ] || fail "$cc $opt enabled: '$got'"
		got=$(ticks "$T/app" "")
		[ -z "$got" ] || fail "$cc $opt disabled: '$got'"
	done
done

# CMake: find_package(trev) and TREV_JUMP_LABEL_CFLAGS.
mkdir -p "$T/cm"
cp "$T/app.c" "$T/app_events.h" "$T/cm/"
cat >"$T/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(trev REQUIRED)
add_executable(app app.c)
target_include_directories(app PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
target_compile_options(app PRIVATE ${TREV_JUMP_LABEL_CFLAGS})
target_link_libraries(app PRIVATE trev::trev)
CM
cmake -S "$T/cm" -B "$T/cm/build" -DCMAKE_PREFIX_PATH="$T/prefix" -DCMAKE_C_COMPILER=gcc \
	-DCMAKE_C_FLAGS="$sanflags" >"$T/cm.log" 2>&1 || fail "cmake: $(cat "$T/cm.log")"
cmake --build "$T/cm/build" >>"$T/cm.log" 2>&1 || fail "cmake build: $(cat "$T/cm.log")"
export LD_LIBRARY_PATH="$T/prefix/lib"
got=$(ticks "$T/cm/build/app" app:app_tick)
[ "$got" = "0 1 2 3 4 " ] || fail "CMake-built program: '$got'"
echo ok
