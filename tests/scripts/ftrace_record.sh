#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The function tracer end to end (docs/function-tracer.md):
#   - TREV_WRITE=current_tracer=function and TREV_OUTPUT print "func <-parent" lines for
#     every call of tests/ftrace/ft_app, in order;
#   - `trev record` of the same program, then `trace-cmd report -O parent` of the file,
#     prints the same functions and parents (the file's kallsyms names them);
#   - trev record -t function does the same, and an unknown tracer is refused
#     (function_graph: tests/scripts/fgraph_record.sh);
#   - with set_ftrace_filter in TREV_WRITE only the selected function is traced.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_app
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

want='ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_mix <-main
ft_fma <-main
ft_spin <-main'

TREV_SOCKET=0 TREV_WRITE='current_tracer=function' TREV_OUTPUT=stdout "$app" >"$T/trace" ||
	fail "ft_app failed"
grep -qx '# tracer: function' "$T/trace" || fail "no '# tracer: function' header"
# Only ft_*: a sanitizer's module constructors are traceable functions of the program too.
got=$(grep -v '^#' "$T/trace" | sed -E 's/^ *ft_app-[0-9]+ +\[[0-9]{3}\] \.\.\.\. +[0-9]+\.[0-9]{6}: //' |
	grep '^ft_')
[ "$got" = "$want" ] || fail "trace text:
$got
want:
$want"

(cd "$T" && TREV_WRITE='current_tracer=function' "$B/tools/trev/trev" record -o "$T/f.dat" -- "$app") \
	2>"$T/rec.err" || fail "trev record: $(cat "$T/rec.err")"
trace-cmd report -O parent -i "$T/f.dat" >"$T/report" 2>"$T/report.err" || fail "trace-cmd report failed"
[ ! -s "$T/report.err" ] || fail "trace-cmd report printed errors: $(cat "$T/report.err")"
grep -q "FAILED TO PARSE" "$T/report" && fail "trace-cmd could not parse the records"
# "function:  <indent by depth> ft_add <-- ft_outer": the plugin's text, same pairs.
got=$(sed -nE 's/.* function: +([^ ]+) <-- ([^ ]+)$/\1 <-\2/p' "$T/report" | grep '^ft_')
[ "$got" = "$want" ] || fail "trace-cmd report:
$(cat "$T/report")
want:
$want"

# trev record -t function, as trace-cmd record -p function: the same functions.
(cd "$T" && "$B/tools/trev/trev" record -t function -o "$T/t.dat" -- "$app") \
	2>"$T/rec2.err" || fail "trev record -t: $(cat "$T/rec2.err")"
got=$(trace-cmd report -O parent -i "$T/t.dat" 2>/dev/null |
	sed -nE 's/.* function: +([^ ]+) <-- ([^ ]+)$/\1 <-\2/p' | grep '^ft_')
[ "$got" = "$want" ] || fail "trev record -t function:
$got"
"$B/tools/trev/trev" record -t function_grap -o "$T/bad.dat" -- "$app" 2>"$T/bad.err" &&
	fail "trev record -t function_grap succeeded"
grep -q "current_tracer: 'function_grap': Invalid argument" "$T/bad.err" ||
	fail "no error for -t function_grap: $(cat "$T/bad.err")"

# A filter given at start-up selects before the program's entries are registered.
TREV_SOCKET=0 TREV_WRITE='current_tracer=function;set_ftrace_filter=ft_mix' TREV_OUTPUT=stdout \
	"$app" >"$T/trace2" 2>"$T/err2" || fail "ft_app with a filter failed: $(cat "$T/err2")"
got=$(grep -v '^#' "$T/trace2" | sed -E 's/^.*: //')
[ "$got" = "ft_mix <-main" ] || fail "filtered trace: $got ($(cat "$T/err2"))"
echo "ok"
