#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Function commands and func_stack_trace end to end (docs/function-tracer.md):
#   - TREV_WRITE sets a traceoff command at start-up: the trace of tests/ftrace/ft_app
#     stops at that function's own call (its record is made, then tracing goes off);
#   - `trev record` with options/func_stack_trace: trace-cmd report prints each traced
#     call's kernel_stack, the function first, then its callers up to main.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_app
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

want='ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_mix <-main'
TREV_SOCKET=0 TREV_WRITE='set_ftrace_filter=ft_mix:traceoff;current_tracer=function' \
	TREV_OUTPUT=stdout "$app" >"$T/trace" 2>"$T/err" || fail "ft_app failed: $(cat "$T/err")"
got=$(grep -v '^#' "$T/trace" | sed -E 's/^.*: //' | grep '^ft_')
[ "$got" = "$want" ] || fail "trace with ft_mix:traceoff:
$got
want:
$want"

command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_add;options/func_stack_trace=1;current_tracer=function' \
	"$B/tools/trev/trev" record -o "$T/s.dat" -- "$app") 2>"$T/rec.err" ||
	fail "trev record: $(cat "$T/rec.err")"
trace-cmd report -i "$T/s.dat" >"$T/report" 2>"$T/report.err" || fail "trace-cmd report failed"
grep -q "FAILED TO PARSE" "$T/report" && fail "trace-cmd could not parse the records"
[ "$(grep -c 'function: *ft_add$' "$T/report")" = 3 ] || fail "not 3 ft_add records:
$(cat "$T/report")"
[ "$(grep -c 'kernel_stack: *<stack trace *>' "$T/report")" = 3 ] || fail "not 3 stacks:
$(cat "$T/report")"
# After each record: => ft_add, => ft_outer, => main.
got=$(grep -A4 'function: *ft_add$' "$T/report" | sed -nE 's/^=> ([^ ]+) .*/\1/p' | paste -sd' ')
[ "$got" = "ft_add ft_outer main ft_add ft_outer main ft_add ft_outer main" ] ||
	fail "stacks: $got
$(cat "$T/report")"
echo "ok"
