#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# function_graph end to end (docs/function-tracer.md, "function_graph"):
#   - `trev record -t function_graph -- ft_app` writes funcgraph_entry/funcgraph_exit
#     records; `trace-cmd report` of the file prints the graph of what ft_app did: the
#     same functions, nested as they called each other, each caller's duration at least
#     its callee's;
#   - `trev record -t function_graph -p PID` of a running ft_app (patched while it runs,
#     and unpatched with calls in flight when the recording stops) does the same, and the
#     program's results stay right after.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
out="$T/out"
errf="$T/err"

# "entry|duration|text" of each graph line of trace-cmd report's output in $out.
graph_lines() {
	sed -nE 's/.* funcgraph_(entry|exit): +([+!#*@$ ]*[0-9.]+ us)? +\| (.*)$/\1|\2|\3/p' "$1" |
		sed -E 's/\|[+!#*@$ ]+([0-9])/|\1/; s/ us\|/|/'
}

# In trace-cmd report's output $1, each caller's duration is at least each of its callees':
# the calls open in each thread on a stack, each with the longest callee seen in it. Where
# records were dropped the stacks start again (an exit whose entry was lost opens nothing).
durations_nest() {
	awk '
		/EVENTS DROPPED\]|LOST [0-9]+ EVENTS\]/ { split("", depth); next }
		/ funcgraph_(entry|exit): / {
			t = $1
			d = ""
			if (match($0, /[0-9]+\.[0-9]+ us +\|/))
				d = substr($0, RSTART, RLENGTH) + 0
			n = depth[t] + 0
			if ($0 ~ / funcgraph_entry: / && d == "") {	# "func() {"
				depth[t] = n + 1
				longest[t, n + 1] = 0
			} else if ($0 ~ / funcgraph_entry: /) {	# a leaf "func();"
				if (n && d > longest[t, n])
					longest[t, n] = d
			} else if (n) {				# "}" of an open call
				if (d < longest[t, n]) {
					print "exit " d " < callee " longest[t, n] ": " $0
					bad = 1
				}
				depth[t] = --n
				if (n && d > longest[t, n])
					longest[t, n] = d
			}
		}
		END { exit bad }' "$1"
}

(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-o "$T/g.dat" -- "$B/tests/ft_app") >"$out" 2>"$errf" || fail "trev record -t function_graph"
trace-cmd report -i "$T/g.dat" >"$out" 2>"$T/report.err" || fail "trace-cmd report failed"
[ ! -s "$T/report.err" ] || fail "trace-cmd report printed errors: $(cat "$T/report.err")"
grep -q "FAILED TO PARSE" "$out" && fail "trace-cmd could not parse the records"
graph_lines "$out" >"$T/lines"
got=$(cut -d'|' -f3 "$T/lines")
want=' ft_outer() {
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
[ "$got" = "$want" ] || fail "trace-cmd report's graph:
$got
want:
$want"
# Every leaf and every "}" has a duration.
[ "$(cut -d'|' -f2 "$T/lines" | grep -c .)" = 9 ] || fail "durations missing: $(cat "$T/lines")"
durations_nest "$out" || fail "a caller shorter than its callee: $(cat "$T/lines")"

# -p: a running program, patched and recorded, then unpatched while it calls.
: >"$T/app.out"
"$B/tests/ft_app" loop >"$T/app.out" 2>"$T/app.err" &
pids+=($!)
wait_ready "$T/app.out"
"$trev" record -t function_graph -o "$T/p.dat" -p "$app" >"$out" 2>"$errf" &
rec=$!
wait_recording 200
kill -INT "$rec"
wait "$rec"; st=$?
[ $st = 0 ] || fail "trev record -p exited $st"
[ "$("$trev" cat -p "$app" current_tracer)" = nop ] || fail "-p: current_tracer not restored"
trace-cmd report -i "$T/p.dat" >"$out" 2>/dev/null || fail "report p.dat failed"
graph_lines "$out" >"$T/plines"
# Whole calls only, past a first one the recording may have cut.
body=$(cut -d'|' -f3 "$T/plines" | sed -n '/^ ft_outer() {$/,$p' | head -30)
want3=$(for i in 1 2 3 4 5 6 7 8 9 10; do printf ' ft_outer() {\n   ft_add();\n }\n'; done)
[ "$body" = "$want3" ] || fail "-p graph:
$body"
durations_nest "$out" || fail "-p: a caller shorter than its callee"
kill -TERM "$app"
wait "$app"; st=$?
[ $st = 0 ] || fail "ft_app exited $st after the recording: $(cat "$T/app.err")"
echo "ok"
