#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The function tracer from an installed trev (docs/function-tracer.md, "Building a program for
# it"): `pkg-config --variable=function_cflags trev` and CMake's TREV_FUNCTION_CFLAGS name the
# installed fentry.h; a program built with them by gcc (five 1-byte nops) and by clang (one
# 5-byte nop), at -O0 (where gcc calls local functions with the stack misaligned: the
# trampoline must align it) and -O2, traces its calls with the right results.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR
T=$(mktemp -d)
# cmake --install rewrites the tree's install_manifest.txt: the one of `make install` is put
# back, so that `make uninstall` still removes what it installed (as install.sh).
[ -f "$B/install_manifest.txt" ] && cp "$B/install_manifest.txt" "$T/manifest.saved"
trap 'if [ -f "$T/manifest.saved" ]; then cp "$T/manifest.saved" "$B/install_manifest.txt"; else rm -f "$B/install_manifest.txt"; fi; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A sanitizer tree's libtrev needs its runtime in the program: gcc with the same -fsanitize
# (clang's runtime is another one, so clang is left out there).
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
flags=$(pkg-config --variable=function_cflags trev)
[ "$flags" = "-fpatchable-function-entry=5 -include $T/prefix/include/trev/fentry.h" ] ||
	fail "function_cflags: '$flags'"
[ -f "$T/prefix/include/trev/fentry.h" ] || fail "fentry.h is not installed"

cat >"$T/fn.c" <<'C'
#include <stdio.h>
double scale(double x, int k);
int twice(int x);
long sum6(long a, long b, long c, long d, long e, long f);
long caller(long x);

/* Not static, inputs volatile: no compiler may drop or fold a call. */
__attribute__((noinline)) double scale(double x, int k) { return x * k; }
__attribute__((noinline)) int twice(int x) { return 2 * x; }
__attribute__((noinline)) long sum6(long a, long b, long c, long d, long e, long f)
{
	return a + b + c + d + e + f;
}
/* At -O0 gcc may enter sum6 with rsp % 16 == 0: the trampoline aligns. */
__attribute__((noinline)) long caller(long x)
{
	volatile char pad[8];

	pad[0] = 1;
	return sum6(x, 1, 2, 3, 4, 5) + pad[0];
}
int main(void)
{
	volatile int n = 21;
	volatile double d = 1.5;
	volatile long l = 10;

	if (twice(n) != 42 || scale(d, 4) != 6.0 || caller(l) != 26) {
		fprintf(stderr, "wrong result\n");
		return 1;
	}
	return 0;
}
C
want='twice <-main
scale <-main
caller <-main
sum6 <-caller'

for cc in $compilers; do
	command -v $cc >/dev/null || { echo "SKIP: no $cc"; continue; }
	for opt in -O0 -O2; do
		# shellcheck disable=SC2086
		$cc $opt $sanflags $flags $(pkg-config --cflags trev) "$T/fn.c" -o "$T/fn" \
			-Wl,-rpath,"$T/prefix/lib" -L"$T/prefix/lib" -ltrev 2>"$T/cc.err" ||
			fail "$cc $opt: $(cat "$T/cc.err")"
		TREV_SOCKET=0 TREV_WRITE='set_ftrace_notrace=main;current_tracer=function' \
			TREV_OUTPUT=stdout "$T/fn" \
			>"$T/out" 2>"$T/err" || fail "$cc $opt: the program failed: $(cat "$T/err")"
		# gcc -O2 names its clones foo.constprop.0 (the kernel prints them so too).
		got=$(grep -v '^#' "$T/out" | sed -E 's/^.*: //; s/\.(constprop|isra|part)\.[0-9]+//g' |
			grep -Ev '^_sub_|^frame_dummy|^register_tm|^deregister_tm|^__do_global' || true)
		[ "$got" = "$want" ] || fail "$cc $opt: trace:
$got
want:
$want"
	done
done

# CMake: find_package(trev) and TREV_FUNCTION_CFLAGS.
mkdir -p "$T/cm"
cp "$T/fn.c" "$T/cm/fn.c"
cat >"$T/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(fn C)
find_package(trev REQUIRED)
add_executable(fn fn.c)
target_compile_options(fn PRIVATE ${TREV_FUNCTION_CFLAGS})
target_link_libraries(fn PRIVATE trev::trev)
CM
cmake -S "$T/cm" -B "$T/cm/build" -DCMAKE_PREFIX_PATH="$T/prefix" -DCMAKE_C_COMPILER=gcc \
	-DCMAKE_C_FLAGS="$sanflags" >"$T/cm.log" 2>&1 ||
	fail "cmake: $(cat "$T/cm.log")"
cmake --build "$T/cm/build" >>"$T/cm.log" 2>&1 || fail "cmake build: $(cat "$T/cm.log")"
TREV_SOCKET=0 TREV_WRITE='current_tracer=function;set_ftrace_filter=sum6*' TREV_OUTPUT=stdout \
	LD_LIBRARY_PATH="$T/prefix/lib" "$T/cm/build/fn" >"$T/out" || fail "the CMake-built program failed"
got=$(grep -v '^#' "$T/out" | sed -E 's/^.*: //; s/\.(constprop|isra|part)\.[0-9]+//g')
[ "$got" = "sum6 <-caller" ] || fail "CMake-built program's trace: $got"
echo ok
