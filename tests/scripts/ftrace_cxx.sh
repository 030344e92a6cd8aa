#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# C++ names (docs/function-tracer.md, "C++ names"): tests/ftrace/ft_cxx's functions as
#   - the function tracer's lines (TREV_OUTPUT), with and without set_ftrace_filter globs;
#   - available_filter_functions;
#   - the kallsyms of a file `trev record` wrote, through `trace-cmd report`.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_cxx
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

want='ns::Foo::Foo <-main
ns::Foo::bar <-main
ns::Foo::baz <-main
ns::twice <-main
{anonymous}::helper <-main
main::{lambda#1}::_FUN <-main
ns::Foo::operator< <-main'

# The calls main makes, in order (the map's destructor, std::..., comes after them).
calls() { grep -v '^#' | sed -E 's/^ *ft_cxx-[0-9]+ +\[[0-9]{3}\] \.\.\.\. +[0-9]+\.[0-9]{6}: //' |
	grep -E '<-main$' | grep -v '^std::'; }

TREV_SOCKET=0 TREV_WRITE='current_tracer=function' TREV_OUTPUT=stdout "$app" >"$T/trace" ||
	fail "ft_cxx failed"
got=$(calls <"$T/trace")
[ "$got" = "$want" ] || fail "trace text:
$got
want:
$want"

# A glob over the demangled names selects them.
TREV_SOCKET=0 TREV_WRITE='current_tracer=function;set_ftrace_filter=ns::Foo::* {anonymous}::*' \
	TREV_OUTPUT=stdout "$app" >"$T/trace2" 2>"$T/err2" || fail "ft_cxx with a filter: $(cat "$T/err2")"
got=$(calls <"$T/trace2")
[ "$got" = "$(grep -E '^(ns::Foo|\{anonymous\})::' <<<"$want")" ] || fail "filtered: $got"

TREV_SOCKET=0 "$app" --list >"$T/list" || fail "ft_cxx --list failed"
for f in ns::Foo::Foo ns::Foo::bar ns::Foo::baz ns::Foo::operator\< ns::twice '{anonymous}::helper' \
	'main::{lambda#1}::_FUN' main; do
	grep -qxF "$f" "$T/list" || fail "available_filter_functions has no $f:
$(cat "$T/list")"
done
grep -q '_Z' "$T/list" && fail "a mangled name in available_filter_functions:
$(grep _Z "$T/list")"

command -v trace-cmd >/dev/null || { echo "SKIP (after the in-process checks): no trace-cmd"; exit 77; }
(cd "$T" && "$B/tools/trev/trev" record -t function -o "$T/f.dat" -- "$app") \
	2>"$T/rec.err" || fail "trev record: $(cat "$T/rec.err")"
trace-cmd report -O parent -i "$T/f.dat" >"$T/report" 2>"$T/report.err" || fail "trace-cmd report failed"
got=$(sed -nE 's/.* function: +([^ ]+) <-- ([^ ]+)$/\1 <-\2/p' "$T/report" | grep -E '<-main$' |
	grep -v '^std::')
[ "$got" = "$want" ] || fail "trace-cmd report:
$(cat "$T/report")
want:
$want"
echo "ok"
