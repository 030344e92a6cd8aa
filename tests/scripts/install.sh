#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# An installable tool (README.md, "Install"; docs/cli/trev.md): `trev --version`; `trev help
# CMD` is `trev CMD --help` for every command; each man page (tools/man/) is made and renders
# with neither man nor groff warning; `cmake --install` into a temporary PREFIX puts the
# library, headers, pkg-config file, CMake package, command and man pages there (man finds
# them by name); a tiny program builds and runs against the install tree with CMake and with
# pkg-config, and against the build tree with CMake (trev_DIR=BUILD); then the uninstall
# (make uninstall's cmake/trev_uninstall.cmake) leaves no file of ours in PREFIX.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR
T=$(mktemp -d)
. "$S/tests/scripts/lib/install_manifest.sh"
manifest_keep "$B" "$T"
restore() {
	manifest_put_back
	rm -rf "$T"
}
trap restore EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

TREV=$B/tools/trev/trev
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$B/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $B/CMakeCache.txt"

# ---- trev --version, trev help ------------------------------------------------------------
"$TREV" --version >"$T/v" 2>&1 || fail "trev --version: status $?: $(cat "$T/v")"
[ "$(head -1 "$T/v")" = "trev $version" ] || fail "trev --version's first line: $(head -1 "$T/v")"
grep -q '"trev X.Y.Z pid N": trev ps shows it' "$T/v" ||
	fail "trev --version does not say where a process's library version is seen: $(cat "$T/v")"

"$TREV" --help >"$T/help" || fail "trev --help: status $?"
"$TREV" help >"$T/help2" || fail "trev help: status $?"
cmp -s "$T/help" "$T/help2" || fail "trev help differs from trev --help"
cmds=$(sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p' "$T/help")
[ "$(echo "$cmds" | wc -w)" -ge 12 ] || fail "trev --help lists: $cmds"
for c in $cmds; do
	st=0; "$TREV" help "$c" >"$T/h1" 2>&1 || st=$?
	st2=0; "$TREV" "$c" --help >"$T/h2" 2>&1 || st2=$?
	[ "$st" -eq 0 ] && [ "$st2" -eq 0 ] || fail "trev help $c: status $st, trev $c --help: $st2"
	grep -q "^usage: trev $c" "$T/h1" || fail "trev help $c: $(head -3 "$T/h1")"
	cmp -s "$T/h1" "$T/h2" || fail "trev help $c differs from trev $c --help"
	[ -f "$S/docs/cli/trev-$c.md" ] || fail "trev $c has no docs/cli/trev-$c.md"
	grep -q "^| \`$c\` | .* | trev-$c(1) |$" "$S/docs/cli/trev.md" ||
		fail "docs/cli/trev.md's table has no line for $c"
done
st=0; "$TREV" help nosuch >"$T/o" 2>&1 || st=$?
[ "$st" -eq 2 ] && grep -qx "trev: help: 'nosuch' is not a trev command; see trev --help" "$T/o" ||
	fail "trev help nosuch: status $st: $(cat "$T/o")"
st=0; "$TREV" help record report >"$T/o" 2>&1 || st=$?
[ "$st" -eq 2 ] && grep -q "help takes one command" "$T/o" ||
	fail "trev help record report: status $st: $(cat "$T/o")"

# ---- the man pages ------------------------------------------------------------------------
pages=()
if [ -f "$B/man-pages.txt" ]; then
	mapfile -t pages <"$B/man-pages.txt"
	command -v man >/dev/null && command -v groff >/dev/null ||
		fail "man and groff are needed to check the man pages (make deps: man-db)"
	want="trev.1 trev-events.7 trev-tracefs.5"
	for c in $cmds; do want="$want trev-$c.1"; done
	for w in $want; do
		printf '%s\n' "${pages[@]}" | grep >/dev/null "/$w\$" || fail "no man page $w is made"
	done
	[ "${#pages[@]}" -eq "$(echo "$want" | wc -w)" ] || fail "man pages: ${pages[*]}"
	for p in "${pages[@]}"; do
		[ -s "$p" ] || fail "$p was not made"
		MANWIDTH=80 man -l "$p" >"$T/man.out" 2>"$T/man.err" || fail "man -l $p: status $?"
		[ ! -s "$T/man.err" ] || fail "man -l $p warns: $(head -5 "$T/man.err")"
		name=$(basename "$p"); name=${name%.*}
		grep -A1 '^NAME$' "$T/man.out" | grep >/dev/null "^ *$name - ." || fail "$p: NAME: $(head -5 "$T/man.out")"
		groff -k -t -man -Tutf8 -ww -z "$p" 2>"$T/groff.err" || fail "groff $p: status $?"
		[ ! -s "$T/groff.err" ] || fail "groff -ww $p warns: $(head -5 "$T/groff.err")"
	done
	# The synopsis and a section of a command's page, the table of trev(1).
	MANWIDTH=80 man -l "$(printf '%s\n' "${pages[@]}" | grep '/trev-record\.1$')" >"$T/man.out"
	grep -q '^SYNOPSIS$' "$T/man.out" && grep -q '^EXIT STATUS$' "$T/man.out" &&
		grep -q '^ *trev record ' "$T/man.out" || fail "trev-record(1): $(head -20 "$T/man.out")"
	MANWIDTH=80 man -l "$(printf '%s\n' "${pages[@]}" | grep '/trev\.1$')" >"$T/man.out"
	grep -q '^ *|record *| record a program.s events into a *| trev-record(1) *|$' "$T/man.out" ||
		fail "trev(1)'s table of commands: $(grep -A8 '^ *+--' "$T/man.out" | head -20)"
else
	mode=$(sed -n 's/^TREV_MAN:STRING=//p' "$B/CMakeCache.txt")
	if [ "$mode" = OFF ] || { [ "$mode" = AUTO ] && ! command -v go-md2man >/dev/null; }; then
		echo "SKIP (man pages only): this tree builds none (TREV_MAN=$mode, go-md2man: $(command -v go-md2man || echo none))"
	else
		fail "TREV_MAN=$mode and go-md2man is there, but $B/man-pages.txt is missing"
	fi
fi

# ---- install into PREFIX ------------------------------------------------------------------
P=$T/prefix
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1 || fail "install: $(cat "$T/install.log")"
cp "$manifest" "$T/manifest"
libdir=$(dirname "$(find "$P" -name 'libtrev.so' | head -1)")
[ -d "$libdir" ] || fail "no libtrev.so installed: $(find "$P" | head -30)"
for f in bin/trev include/trev/trev.h include/trev/trace_printk.h include/trev/tracepoint.h; do
	[ -f "$P/$f" ] || fail "$f is not installed"
done
for f in libtrev.so.0 "libtrev.so.$version" libtrev.a pkgconfig/trev.pc cmake/trev/trevConfig.cmake \
	cmake/trev/trevConfigVersion.cmake cmake/trev/trevTargets.cmake; do
	[ -e "$libdir/$f" ] || fail "${libdir#"$P"/}/$f is not installed"
done
[ "$("$P/bin/trev" --version | head -1)" = "trev $version" ] || fail "the installed trev --version"
for p in "${pages[@]}"; do
	sec=${p##*.}
	cmp -s "$p" "$P/share/man/man$sec/$(basename "$p")" ||
		fail "$(basename "$p") is not installed in share/man/man$sec"
done
if [ "${#pages[@]}" -gt 0 ]; then
	found=$(MANPATH="$P/share/man" man -w trev-record) || fail "man -w trev-record: status $?"
	[ "$found" = "$P/share/man/man1/trev-record.1" ] || fail "man -w trev-record: $found"
	[ "$(MANPATH="$P/share/man" man -w 5 trev-tracefs)" = "$P/share/man/man5/trev-tracefs.5" ] ||
		fail "man -w 5 trev-tracefs"
fi
# Every file installed is in the manifest, and the manifest names only files installed.
(cd "$P" && find . ! -type d | sed "s|^\.|$P|" | sort) >"$T/files"
sort -u "$T/manifest" >"$T/listed"
cmp -s "$T/files" "$T/listed" || fail "installed files and install_manifest.txt differ:
$(diff "$T/listed" "$T/files" | head -10)"

# ---- programs built against it ------------------------------------------------------------
# A sanitizer tree's libtrev needs its runtime in the program (as ftrace_install.sh).
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt")
sanflags=${san:+-fsanitize=$san}
cat >"$T/app.c" <<'C'
#include <trev/trev.h>

int main(void)
{
	trace_printk("consumer %d\n", 42);
	return 0;
}
C
# $1: the program; prints what it traced.
run_app() {
	TREV_SOCKET=0 TREV_OUTPUT=stdout "$1" >"$T/app.out" 2>"$T/app.err" ||
		fail "$1: status $?: $(cat "$T/app.err")"
	grep -q ': consumer 42$' "$T/app.out" || fail "$1 traced: $(cat "$T/app.out")"
}
mkdir -p "$T/cm"
cp "$T/app.c" "$T/cm/app.c"
cat >"$T/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(trev $version REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE trev::trev)
if(NOT TREV_FUNCTION_CFLAGS MATCHES "/trev/fentry\\\\.h")
	message(FATAL_ERROR "TREV_FUNCTION_CFLAGS: \${TREV_FUNCTION_CFLAGS}")
endif()
file(WRITE "\${CMAKE_BINARY_DIR}/include_dir" "\${TREV_INCLUDE_DIR}")
CM
# $1: a name; the rest: how cmake finds trev.
build_cmake() {
	local name=$1
	shift
	cmake -S "$T/cm" -B "$T/cm-$name" -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS="$sanflags" "$@" \
		>"$T/cm.log" 2>&1 || fail "cmake against the $name tree: $(cat "$T/cm.log")"
	cmake --build "$T/cm-$name" >>"$T/cm.log" 2>&1 ||
		fail "cmake --build against the $name tree: $(cat "$T/cm.log")"
	run_app "$T/cm-$name/app"
}
build_cmake install -DCMAKE_PREFIX_PATH="$P"
[ "$(cat "$T/cm-install/include_dir")" = "$P/include" ] ||
	fail "TREV_INCLUDE_DIR from the install tree: $(cat "$T/cm-install/include_dir")"
build_cmake build -Dtrev_DIR="$B"
[ "$(cat "$T/cm-build/include_dir")" = "$S/include" ] ||
	fail "TREV_INCLUDE_DIR from the build tree: $(cat "$T/cm-build/include_dir")"
ldd "$T/cm-build/app" | grep >/dev/null "=> $B/libtrev.so" || fail "the build-tree program's libtrev: $(ldd "$T/cm-build/app")"

export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion trev)" = "$version" ] || fail "pkg-config --modversion trev"
# shellcheck disable=SC2046
gcc $sanflags "$T/app.c" -o "$T/app-pc" $(pkg-config --cflags --libs trev) -Wl,-rpath,"$libdir" \
	2>"$T/cc.err" || fail "gcc with pkg-config: $(cat "$T/cc.err")"
run_app "$T/app-pc"

# ---- uninstall ----------------------------------------------------------------------------
cmake -DTREV_MANIFEST="$T/manifest" -P "$S/cmake/trev_uninstall.cmake" >"$T/un.log" 2>&1 ||
	fail "uninstall: $(cat "$T/un.log")"
left=$(find "$P" ! -type d)
[ -z "$left" ] || fail "uninstall left: $left"
for d in include/trev "${libdir#"$P"/}/cmake/trev"; do
	[ ! -e "$P/$d" ] || fail "uninstall left the directory $d"
done
# Again: every file is said to be gone already, and that is no error.
cmake -DTREV_MANIFEST="$T/manifest" -P "$S/cmake/trev_uninstall.cmake" >"$T/un.log" 2>&1 ||
	fail "a second uninstall: $(cat "$T/un.log")"
[ "$(grep -c '^-- Not there: ' "$T/un.log")" -eq "$(wc -l <"$T/files")" ] ||
	fail "a second uninstall: $(head -5 "$T/un.log")"
st=0; cmake -DTREV_MANIFEST="$T/nosuch" -P "$S/cmake/trev_uninstall.cmake" >"$T/un.log" 2>&1 || st=$?
[ "$st" -ne 0 ] && grep -q "nosuch does not exist: nothing was installed" "$T/un.log" ||
	fail "uninstall without a manifest: status $st: $(cat "$T/un.log")"
echo "ok: --version, help for $(echo "$cmds" | wc -w) commands, ${#pages[@]} man pages, install, 3 programs built against it, uninstall"
