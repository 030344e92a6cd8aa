#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev report of a function_graph recording (docs/cli/trev-report.md, "function_graph
# recordings"):
#   - one run of ft_app (nested calls and leaves) leaves both its in-process `trace` text
#     (TREV_OUTPUT) and its flight recorder's buffer (TREV_FLIGHT); `trev report` of the
#     file `trev recover` makes of the buffer prints that text line for line, the function
#     names aside (the recovered file has no symbols: both become FN);
#   - `trev record -t function_graph` of ft_app: trev report names the functions, nests
#     and finds leaves as trace-cmd report does with the same file;
#   - --flat: one line per record; -F filters before leaves are found (only depth 0
#     shown: every outer call is a leaf); --cpu of a CPU without records: no graph.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
out="$T/out"
errf="$T/err"
# libtracecmd 3.1.6 and libtraceevent 1.7.1 leak a little of their own (cli_report.sh).
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# The graph lines of function_graph's text: the CPU column on.
graph_body() { grep -E '^ *[0-9]+\) ' "$1"; }
# The function column of graph lines: what follows the last "|  ".
func_column() { graph_body "$1" | sed -E 's/.*\|  //'; }
# Function names out: each "name(" or "0xADDR(" becomes "FN(".
no_names() { sed -E 's/(0x[0-9a-f]+|[A-Za-z_][A-Za-z_0-9]*)\(\)/FN()/g'; }

# ---- one run: the in-process text, and the report of its flight recorder's buffer --------
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*;current_tracer=function_graph' \
	TREV_FLIGHT="$T/fl" TREV_FLIGHT_KEEP=1 TREV_OUTPUT="$T/text" "$B/tests/ft_app") \
	>"$out" 2>"$errf" || fail "ft_app with TREV_FLIGHT and TREV_OUTPUT"
"$trev" recover -o "$T/fl.dat" "$T/fl" >"$out" 2>"$errf" || fail "trev recover"
"$trev" report "$T/fl.dat" >"$T/fl.txt" 2>"$errf" || fail "trev report of the recovered file"
[ ! -s "$errf" ] || fail "trev report printed errors: $(cat "$errf")"
head -4 "$T/fl.txt" >"$T/fl.head"
printf '# tracer: function_graph\n#\n# CPU  DURATION                  FUNCTION CALLS\n# |     |   |                     |   |   |   |\n' >"$T/want.head"
cmp -s "$T/fl.head" "$T/want.head" || fail "trev report's header: $(cat "$T/fl.head")"
grep -q '|  ft_outer() {$' "$T/text" || fail "the in-process text has no graph: $(cat "$T/text")"
grep -q '|    ft_add();$' "$T/text" || fail "the in-process text has no leaf: $(cat "$T/text")"
no_names <"$T/text" >"$T/text.fn"
no_names <"$T/fl.txt" >"$T/fl.fn"
diff "$T/text.fn" "$T/fl.fn" >"$T/diff" ||
	fail "trev report of the recovered buffer is not the in-process text:
$(cat "$T/diff")"

# ---- trev record: the same functions, nesting and leaves as trace-cmd report --------------
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-o "$T/g.dat" -- "$B/tests/ft_app") >"$out" 2>"$errf" || fail "trev record -t function_graph"
"$trev" report "$T/g.dat" >"$T/g.txt" 2>"$errf" || fail "trev report g.dat"
cp "$T/g.txt" "$out"
got=$(func_column "$T/g.txt")
want='ft_outer() {
  ft_add();
}
ft_outer() {
  ft_add();
}
ft_outer() {
  ft_add();
}
ft_mix();
ft_fma();
ft_spin();'
[ "$got" = "$want" ] || fail "trev report's graph:
$got
want:
$want"
# trace-cmd report's function column: after "funcgraph_entry:" or "funcgraph_exit:", the
# duration column, then "|  ".
trace-cmd report -i "$T/g.dat" 2>/dev/null |
	sed -nE 's/.* funcgraph_(entry|exit): .*\|  (.*)$/\2/p' >"$T/tc.col"
[ "$got" = "$(cat "$T/tc.col")" ] || fail "trace-cmd report's graph differs:
$(cat "$T/tc.col")"
# Each leaf and "}" has a duration, each "func() {" none.
[ "$(graph_body "$T/g.txt" | grep -cE '[0-9] us +\|  +(\}|[a-z_]+\(\);)$')" = 9 ] ||
	fail "durations: $(cat "$T/g.txt")"
[ "$(graph_body "$T/g.txt" | grep -cE '^ *[0-9]+\) +\|  +[a-z_]+\(\) \{$')" = 3 ] ||
	fail "entries with a duration: $(cat "$T/g.txt")"

# ---- --flat: the records' own lines ---------------------------------------------------------
run 0 "$trev" report --flat "$T/g.dat"
has '^# tracer: nop$'
[ "$(grep -c ': --> ft_' "$out")" = 9 ] || fail "--flat: not 9 entry lines"
[ "$(grep -c ': <-- ft_' "$out")" = 9 ] || fail "--flat: not 9 exit lines"
has ': --> ft_add \(1\)$'
grep -q '() {' "$out" && fail "--flat printed the graph"

# ---- -F: the records shown are those that pass, then leaves are found among them ---------
run 0 "$trev" report -F 'funcgraph_*:depth == 0' "$T/g.dat"
got=$(func_column "$out")
want='ft_outer();
ft_outer();
ft_outer();
ft_mix();
ft_fma();
ft_spin();'
[ "$got" = "$want" ] || fail "-F depth == 0:
$got"
# Entries only: no return follows any, so none is a leaf.
run 0 "$trev" report -F 'funcgraph_entry:depth >= 0' "$T/g.dat"
got=$(func_column "$out" | tr '\n' ' ')
[ "$got" = "ft_outer() {   ft_add() { ft_outer() {   ft_add() { ft_outer() {   ft_add() { ft_mix() { ft_fma() { ft_spin() { " ] ||
	fail "-F funcgraph_entry:depth >= 0: $got"

# ---- --cpu: a CPU whose records are not shown; the file's CPUs else ----------------------
cpu=$(graph_body "$T/g.txt" | head -1 | sed -E 's/^ *([0-9]+)\).*/\1/')
ncpu=$(sed -nE 's/^cpus: //p' <("$trev" report --stat "$T/g.dat"))
[ -n "$ncpu" ] || fail "--stat has no cpus line"
if [ "$ncpu" -gt 1 ]; then
	other=$(( cpu == 0 ? 1 : 0 ))
	run 0 "$trev" report --cpu "$other" "$T/g.dat"
	has '^# tracer: nop$'
	run 0 "$trev" report --cpu "$cpu" "$T/g.dat"
	[ "$(func_column "$out")" = "$(func_column "$T/g.txt")" ] || fail "--cpu $cpu"
fi
echo "ok"
