#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev list --functions FILE (docs/cli/trev-list.md): the functions of a program and of a
# library with their DWARF parameters, one a line, filtered by --filter and --exclude
# globs; NAME(?) for a function without DWARF (tests/probe/pr_nodie.c, built with -g0, and
# the library libpr_nodw.so, which has none); a missing file, a file that is not ELF and
# -f without --functions are refused.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
trev=$B/tools/trev/trev
prog=$B/tests/test_probe
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$trev" list --functions -f 'pr_dw_*' -f pr_nodie -x 'pr_dw_f*' "$prog" >"$T/out" ||
	fail "trev list --functions failed"
want='pr_dw_ints(int a, long int b, short unsigned int c, signed char d, long unsigned int e, int f, long int g) -> long int
pr_dw_str(const char *path, int n) -> int
pr_dw_req(struct pr_req *req, int flags) -> long int
pr_dw_void(int x) -> void
pr_dw_ret(struct pr_req *r) -> struct pr_req *
pr_dw_none(void) -> int
pr_nodie(?)'
# Address order is the link order of pr_dwarf.c's functions, then pr_nodie.c's.
[ "$(cat "$T/out")" = "$want" ] || fail "functions of test_probe:
$(cat "$T/out")"

# A library path; a function without DWARF in a library without any.
got=$("$trev" list --functions "$B/tests/libpr_nodw.so" | grep '^pr_')
[ "$got" = 'pr_nodw(?)' ] || fail "libpr_nodw.so: $got"

# Every function of the program is listed without a filter: main among them.
"$trev" list --functions "$prog" | grep >/dev/null -x 'main(void) -> int' ||
	"$trev" list --functions "$prog" | grep >/dev/null '^main(int ' || fail "no main"

# Errors: the file and what is wrong with it; a usage error exits 2.
if "$trev" list --functions "$T/none" 2>"$T/err"; then fail "a missing file listed"; fi
grep -q "list: $T/none: No such file or directory" "$T/err" || fail "$(cat "$T/err")"
echo 'not an ELF' >"$T/text"
if "$trev" list --functions "$T/text" 2>"$T/err"; then fail "a text file listed"; fi
grep -q "list: $T/text: not an ELF file" "$T/err" || fail "$(cat "$T/err")"
rc=0
"$trev" list -f 'pr_*' "$prog" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "-f without --functions: exit $rc"
echo PASS
