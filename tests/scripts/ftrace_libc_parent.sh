#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The function tracer names a caller in libc (issue 35; docs/function-tracer.md, "The output"):
# tests/ftrace/ft_user is built wholly with the function flags, so its main() is traced, and
# main's caller is libc's start code. Debian's libc has no .symtab, and that caller
# (__libc_start_call_main) is static, in no .dynsym: the parent is the nearest exported
# function below it with the offset, "NAME+0xOFF", not the raw 0x7f... address. The same
# text in
#   - the trace text (TREV_OUTPUT), the library's own lookup;
#   - trev report and trace-cmd report -O parent of a trev record -t function file
#     (trev record names the process's addresses from /proc/PID/maps and the files);
#   - trace-cmd report of a file the program wrote itself (trev_record_dat()).
# NAME must be a function of the libc the program runs with (.symtab or .dynsym); with a
# libc that has its .symtab the parent is the function itself, without an offset.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_user
TREV=$B/tools/trev/trev
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
command -v readelf >/dev/null || { echo "SKIP: readelf is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

libc=$(ldd "$app" | sed -nE 's/^\s*libc\.so\.6 => (\S+) .*/\1/p')
[ -n "$libc" ] || fail "no libc.so.6 in ldd $app: $(ldd "$app")"
# Every function symbol of libc, from both tables, without its version.
readelf -Ws --dyn-syms "$libc" | awk '$4 == "FUNC" && $7 != "UND" { sub(/@.*/, "", $8); print $8 }' |
	sort -u >"$T/libc_funcs"
[ -s "$T/libc_funcs" ] || fail "readelf lists no function of $libc"

# check WHERE PARENT: PARENT names a function of libc, as NAME or NAME+0xOFF.
check() {
	local where=$1 parent=$2 name

	[ -n "$parent" ] || fail "$where: no 'main <-PARENT' line"
	case $parent in
	0x*) fail "$where: main's parent is a raw address: $parent" ;;
	esac
	[[ $parent =~ ^([A-Za-z_][A-Za-z0-9_.]*)(\+0x[0-9a-f]+)?$ ]] ||
		fail "$where: main's parent '$parent' is not NAME or NAME+0xOFF"
	name=${BASH_REMATCH[1]}
	grep -qxF "$name" "$T/libc_funcs" || fail "$where: '$name' is not a function of $libc"
}

TREV_SOCKET=0 TREV_WRITE='current_tracer=function' TREV_OUTPUT=stdout "$app" >"$T/trace" \
	2>"$T/err" || fail "ft_user failed: $(cat "$T/err")"
text=$(sed -nE 's/.*: main <-(\S+)$/\1/p' "$T/trace")
check "trace text" "$text"

(cd "$T" && "$TREV" record -t function -o "$T/f.dat" -- "$app") 2>"$T/rec.err" ||
	fail "trev record -t function: $(cat "$T/rec.err")"
"$TREV" report "$T/f.dat" >"$T/report" 2>"$T/report.err" ||
	fail "trev report: $(cat "$T/report.err")"
got=$(sed -nE 's/.*:  main <-- (\S+)$/\1/p' "$T/report")
[ "$got" = "$text" ] || fail "trev report says main <-- '$got', the trace text '$text':
$(cat "$T/report")"
trace-cmd report -O parent -i "$T/f.dat" >"$T/tc" 2>"$T/tc.err" ||
	fail "trace-cmd report: $(cat "$T/tc.err")"
got=$(sed -nE 's/.* function: +main <-- (\S+)$/\1/p' "$T/tc")
[ "$got" = "$text" ] || fail "trace-cmd report says main <-- '$got', the trace text '$text':
$(cat "$T/tc")"

# The file the program writes itself: its names are the library's.
(cd "$T" && TREV_SOCKET=0 TREV_WRITE='current_tracer=function' "$app" dat "$T/l.dat") \
	2>"$T/l.err" || fail "ft_user dat: $(cat "$T/l.err")"
got=$(trace-cmd report -O parent -i "$T/l.dat" 2>/dev/null |
	sed -nE 's/.* function: +main <-- (\S+)$/\1/p')
[ "$got" = "$text" ] || fail "trace-cmd report of trev_record_dat's file says main <-- '$got', \
the trace text '$text'"
echo "ok: main <-$text"
