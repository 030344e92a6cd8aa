#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev convert --to ctf says what the print fmts say (issue 35; docs/cli/trev-convert.md,
# "Names"): babeltrace2 prints a __print_symbolic() field as its symbol (a CTF enum), a
# __print_flags() field as its flag (an enum) and its flags' text in NAME_str, and the
# function tracers' code addresses (function's ip and parent_ip, function_graph's func:
# fields printed with %ps) with their functions' names in NAME_sym, as trev report names
# them. The program is tests/ftrace/ft_user (events with both helpers, built with the
# function flags), recorded with -t function and with -t function_graph.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_user
trev=$B/tools/trev/trev
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# libtracecmd 3.1.6 and libtraceevent 1.7.1 leak (as in cli_convert.sh).
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fail() { echo "FAIL: $*" >&2; exit 1; }

# has FILE TEXT: FILE has a line with TEXT, or fail showing it.
has() {
	grep -qF -- "$2" "$1" || fail "no '$2' in $1:
$(head -40 "$1")"
}

for tracer in function function_graph; do
	(cd "$T" && "$trev" record -t $tracer -e 'ft_user:*' -o "$T/$tracer.dat" -- "$app") \
		2>"$T/rec.err" || fail "trev record -t $tracer: $(cat "$T/rec.err")"
	"$trev" convert --to ctf "$T/$tracer.dat" "$T/$tracer.ctf" 2>"$T/cvt.err" ||
		fail "trev convert $tracer: $(cat "$T/cvt.err")"
	babeltrace2 --clock-seconds --no-delta "$T/$tracer.ctf" >"$T/$tracer.bt" \
		2>"$T/bt.err" || fail "babeltrace2 $tracer: $(cat "$T/bt.err")"
	"$trev" report "$T/$tracer.dat" >"$T/$tracer.report" 2>&1 || fail "trev report $tracer"

	# ft_user_work(0..2): state n%3, flags READ, READ|SYNC, WRITE|SYNC; odd: DONE, WRITE.
	has "$T/$tracer.bt" 'n = 0, s = "step", v_len = 1, v = [ [0] = 0 ], state = ( "IDLE" : container = 0 ), flags = ( "READ" : container = 1 ), flags_str = "READ" }'
	has "$T/$tracer.bt" 'state = ( "BUSY" : container = 1 ), flags = ( <unknown> : container = 5 ), flags_str = "READ|SYNC" }'
	has "$T/$tracer.bt" 'n = 1, s = "odd", v_len = 2, v = [ [0] = 0, [1] = 1 ], state = ( "DONE" : container = 2 ), flags = ( "WRITE" : container = 2 ), flags_str = "WRITE" }'
	has "$T/$tracer.bt" 'state = ( "DONE" : container = 2 ), flags = ( <unknown> : container = 6 ), flags_str = "WRITE|SYNC" }'
done

# function: "ip = N, ip_sym = "f", parent_ip = N, parent_ip_sym = "p"" and the empty args[], the pairs trev report
# prints as "f <-- p", main's caller (in libc) included.
sed -nE 's/^.*:  (\S+) <-- (\S+)$/\1 \2/p' "$T/function.report" >"$T/report.pairs"
sed -nE 's/^.* ftrace:function: .* ip_sym = "([^"]*)", parent_ip = [0-9]+, parent_ip_sym = "([^"]*)"(, args_len = [0-9]+, args = \[[^]]*\])? }$/\1 \2/p' \
	"$T/function.bt" >"$T/bt.pairs"
grep -qx 'ft_user_work main' "$T/bt.pairs" || fail "no ft_user_work <- main in CTF:
$(grep ftrace:function "$T/function.bt" | head)"
cmp -s "$T/report.pairs" "$T/bt.pairs" || fail "CTF's names differ from trev report's:
$(diff "$T/report.pairs" "$T/bt.pairs")"

# function_graph: funcgraph_entry and funcgraph_exit name their function.
has "$T/function_graph.bt" 'func_sym = "ft_user_work"'
grep -E 'ftrace:funcgraph_entry: .*func_sym = "main"' "$T/function_graph.bt" >/dev/null ||
	fail "no funcgraph_entry of main with func_sym:
$(grep funcgraph_entry "$T/function_graph.bt" | head -3)"
grep -E 'ftrace:funcgraph_exit: .*func_sym = "main"' "$T/function_graph.bt" >/dev/null ||
	fail "no funcgraph_exit of main with func_sym"
grep -F 'func_sym = "0x' "$T/function_graph.bt" && fail "a func_sym in hex"
echo "ok"
