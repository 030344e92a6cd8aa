#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev report of a file of several buffers (a session's processes, docs/sessions.md):
#   - function_graph: `trev record -t function_graph -- sh -c 'ft_app; ft_app'` makes a
#     buffer per process; trev report's graph has every buffer's calls, each buffer's
#     lines behind its name (the top one's behind blanks), in time order (the first
#     process's before the second's), each nested and with its leaves as trace-cmd report
#     prints that buffer's records; the same with both processes running at once;
#   - --flat with lost events (8 KB buffers): each line has its buffer's name exactly once,
#     the LOST line as trace-cmd report prints it and the record after it too; a record
#     that -F leaves out leaves nothing behind.
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

# The instance buffers of $1 (trev record's summary in $errf names the processes).
buffers() { trace-cmd report -i "$1" 2>/dev/null | sed -nE 's/^([A-Za-z_][^ :]*-[0-9]+): .*/\1/p' | sort -u; }

# "DURATION|FUNCTION" of the graph lines of buffer $2 ("" for the top one) in trev report's
# output $1: the lines behind the name (or behind blanks), CPU column and name cut off.
trev_graph() {
	if [ -n "$2" ]; then
		sed -nE "s/^$2: +[0-9]+\) (.*)\$/\\1/p" "$1"
	else
		sed -nE 's/^ +[0-9]+\) (.*)$/\1/p' "$1"
	fi | sed -E 's/^ *([+!#*@$] )?//; s/ +\| /|/'
}
# The same of trace-cmd report's output $1: its funcgraph lines of buffer $2.
tc_graph() {
	if [ -n "$2" ]; then
		grep -E "^$2: " "$1"
	else
		grep -vE '^[^ ]+-[0-9]+: '  "$1"
	fi | sed -nE 's/.* funcgraph_(entry|exit): +(.*)$/\2/p' |
		sed -E 's/^ *([+!#*@$] )?//; s/ +\| /|/'
}

check_graph() {	# FILE WHAT: every buffer's graph as trace-cmd report's
	local f=$1 what=$2 b
	"$trev" report "$f" >"$T/g.txt" 2>"$errf" || fail "$what: trev report"
	[ ! -s "$errf" ] || fail "$what: trev report printed errors: $(cat "$errf")"
	trace-cmd report -i "$f" >"$T/g.tc" 2>/dev/null || fail "$what: trace-cmd report"
	buffers "$f" >"$T/names"
	[ "$(wc -l <"$T/names")" = 1 ] || fail "$what: not one instance buffer: $(cat "$T/names")"
	for b in "" $(cat "$T/names"); do
		trev_graph "$T/g.txt" "$b" >"$T/a"
		tc_graph "$T/g.tc" "$b" >"$T/b"
		[ "$(grep -c 'ft_outer() {' "$T/a")" = 3 ] ||
			fail "$what: buffer '$b': not 3 calls of ft_outer: $(cat "$T/g.txt")"
		grep -q 'ft_add();$' "$T/a" || fail "$what: buffer '$b': no leaf ft_add();"
		diff -u "$T/b" "$T/a" >"$T/diff" ||
			fail "$what: buffer '$b': trev report's graph is not trace-cmd report's: $(cat "$T/diff")"
	done
	# Every line after the header has a buffer's name or the top buffer's blanks.
	w=$(awk '{ print length($0) }' "$T/names")
	grep -v '^#' "$T/g.txt" | grep -vE "^($(cat "$T/names"): | {$w}  )" >"$T/bad"
	[ ! -s "$T/bad" ] || fail "$what: lines without a buffer's name: $(cat "$T/bad")"
}

# ---- function_graph, one process after the other ---------------------------------------
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-o "$T/seq.dat" -- sh -c "'$B/tests/ft_app' && '$B/tests/ft_app'") >"$out" 2>"$errf" ||
	fail "trev record -t function_graph of two processes"
err_has '^trev: wrote .*seq\.dat \(version 7, 2 processes, a buffer each'
check_graph "$T/seq.dat" "one after the other"
# Time order: all of the first process's lines, then the second's.
name=$(cat "$T/names")
grep -nE "^$name: " "$T/g.txt" | head -1 | cut -d: -f1 >"$T/first2"
grep -nE '^ +[0-9]+\) ' "$T/g.txt" | tail -1 | cut -d: -f1 >"$T/last1"
[ "$(cat "$T/last1")" -lt "$(cat "$T/first2")" ] ||
	fail "the second process's lines are not after the first's: $(cat "$T/g.txt")"
echo "ok: function_graph of two processes: both buffers' graphs, in time order"

# ---- function_graph, both at once --------------------------------------------------------
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-o "$T/par.dat" -- sh -c "'$B/tests/ft_app' & '$B/tests/ft_app'; wait") >"$out" 2>"$errf" ||
	fail "trev record -t function_graph of two processes at once"
check_graph "$T/par.dat" "at once"
echo "ok: function_graph of two processes at once: each buffer's own nesting and leaves"

# ---- --flat with lost events: one name per line -----------------------------------------
run 0 "$trev" record -e trev_test:tt_ints -b 8 -o "$T/lost.dat" -- \
	sh -c "'$B/tests/rec_app' 20000 1 && '$B/tests/rec_app' 20000 1"
"$trev" report --flat "$T/lost.dat" >"$T/flat" 2>"$errf" || fail "trev report --flat"
name=$(buffers "$T/lost.dat")
[ "$(echo "$name" | wc -l)" = 1 ] || fail "lost: not one instance buffer: $name"
w=${#name}
grep -qE "^$name: CPU:[0-9]+ \[LOST [1-9][0-9]* EVENTS\]$" "$T/flat" ||
	fail "lost: no LOST line of the second process: $(grep LOST "$T/flat")"
grep -qE "^ {$w}  CPU:[0-9]+ \[LOST [1-9][0-9]* EVENTS\]$" "$T/flat" ||
	fail "lost: no LOST line of the first process: $(grep LOST "$T/flat")"
# Each record line: one name (or blanks), then the task right-aligned in 16 columns.
grep -v '^#' "$T/flat" | grep -v ' \[LOST ' |
	grep -vE "^($name: | {$w}  )[ ]*[^ ]+-[0-9]+ +\[[0-9]{3}\] " >"$T/bad"
[ ! -s "$T/bad" ] || fail "lost: record lines without their buffer's name: $(head -3 "$T/bad")"
awk -v w=$w '!/^#/ && !/ \[LOST / { print index(substr($0, w + 3), "[") }' "$T/flat" |
	sort -u >"$T/cols"
[ "$(wc -l <"$T/cols")" = 1 ] || fail "lost: the CPU column moves: $(cat "$T/cols")"
# The LOST lines are trace-cmd report's ("EVENTS DROPPED" there), each behind its name.
sed -nE 's/^(.*CPU:[0-9]+) \[LOST ([0-9]+) EVENTS\]$/\1 \2/p' "$T/flat" >"$T/a"
trace-cmd report -i "$T/lost.dat" 2>/dev/null |
	sed -nE 's/^(.*CPU:[0-9]+) \[([0-9]+) EVENTS DROPPED\]$/\1 \2/p' >"$T/b"
[ -s "$T/a" ] || fail "lost: no LOST line"
diff -u "$T/b" "$T/a" >"$T/diff" || fail "lost: LOST lines differ from trace-cmd report's: $(cat "$T/diff")"
# -F: the records it leaves out leave no name behind.
"$trev" report --flat -F 'a > 19990' "$T/lost.dat" >"$T/flt" 2>"$errf" || fail "trev report -F"
grep -v '^#' "$T/flt" | grep -vE "^($name: | {$w}  )([ ]*[^ ]+-[0-9]+ +\[[0-9]{3}\] .* tt_ints: a=1999[1-9] |CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$)" >"$T/bad"
[ ! -s "$T/bad" ] || fail "-F: lines other than records and LOST lines: $(head -3 "$T/bad" | cat -A)"
[ "$(grep -c ' tt_ints: ' "$T/flt")" = 18 ] || fail "-F: not 9 records of each process: $(cat "$T/flt")"
echo "ok: --flat: the LOST lines and every record behind their buffer's name, once"
exit 0
