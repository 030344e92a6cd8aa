#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record --stream (docs/cli/trev-record.md): the session's events as text on stdout
# while it runs. Every event is printed exactly once, the same lines trev report prints of
# a file of the same run (-o alongside): a multi-threaded burst, a burst into 8 KB buffers
# that loses events (the LOST lines and the summary agree with the file), a session of two
# processes; the function tracer's lines name the functions; a line shows while the program
# still runs (it ends only once the test has seen the line); the lines wait for a reader that
# does not read; a reader that goes away is said and counted, and the recording goes on;
# --stream alone writes no file.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
# libtracecmd 3.1.6 leaks a string when it opens a file (sscanf %ms), and libtraceevent 1.7.1
# some bytes parsing some formats (cli_report.sh): not ours to report in the ASan tree.
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err

# The lines of a report or a stream: no header, no buffer name ("comm-pid: " that
# trev report puts before another process's lines, --stream too), no padding; sorted.
lines_of() {
	grep -v '^#' "$1" | sed -E 's/^ *[^ ]+-[0-9]+: +//; s/^ +//' | sort
}
# same STREAM FILE: the stream printed exactly the records of FILE.
same() {
	"$trev" report --flat "$2" >"$T/report" 2>"$T/report.err" || fail "trev report $2: $(cat "$T/report.err")"
	lines_of "$T/report" >"$T/want"
	lines_of "$1" >"$T/got"
	[ -s "$T/want" ] || fail "$2 has no record"
	diff -u "$T/want" "$T/got" >"$T/diff" || fail "the stream and trev report of $2 differ: $(head -20 "$T/diff")"
}
# Events per thread, "COUNT COMM-PID", of stream lines.
per_thread() {
	grep -v '^#' "$1" | sed -E 's/^ *[^ ]+-[0-9]+: +//' | grep ' tt_ints: ' |
		awk '{ print $1 }' | sort | uniq -c | awk '{ print $1, $2 }'
}

# ---- a multi-threaded burst, with -o: the same records, each once, and the summary's count.
run 0 "$trev" record --stream -e trev_test:tt_ints -o "$T/burst.dat" -- "$B/tests/rec_app" 20000 4
has '^fired 80000$'
grep -v '^fired ' "$out" >"$T/burst.txt"
same "$T/burst.txt" "$T/burst.dat"
[ "$(grep -c ' tt_ints: ' "$T/burst.txt")" = 80000 ] || fail "not 80000 event lines"
per_thread "$T/burst.txt" | awk '{ print $1, $2 }' | sed -E 's/-[0-9]+$//' | sort -k2 >"$T/threads"
printf '20000 burst-0\n20000 burst-1\n20000 burst-2\n20000 burst-3\n' | diff -u - "$T/threads" >&2 ||
	fail "events per thread"
err_has '^trev: --stream: 80000 event lines, 0 lost-event lines printed$'
err_has "^trev: wrote $T/burst.dat "
echo "ok: a multi-threaded burst, every event once"

# ---- losses: 8 KB buffers. The stream's LOST lines are the file's, and sum to the summary's.
run 0 "$trev" record --stream -e trev_test:tt_ints -b 8 -o "$T/lost.dat" -- "$B/tests/rec_app" 100000 2
fired=$(sed -n 's/^fired //p' "$out")
grep -v '^fired ' "$out" >"$T/lost.txt"
same "$T/lost.txt" "$T/lost.dat"
lost=$(grep -oE '^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$' "$T/lost.txt" | tr -dc '0-9 \n' |
	awk '{ s += $2 } END { print s + 0 }')
n=$(grep -c ' tt_ints: ' "$T/lost.txt")
[ "$lost" -gt 0 ] || fail "no LOST line with 8 KB buffers"
[ $((n + lost)) = "$fired" ] || fail "$n printed + $lost lost != $fired fired"
err_has "^trev: $n events, $lost lost \(in the file; "
err_has "^trev: --stream: $n event lines, [1-9][0-9]* lost-event lines printed$"
echo "ok: losses shown as lines and in the summary"

# ---- a session of two processes (the second's lines behind its name), no file.
rm -f "$T/trace.dat"
(cd "$T" && "$trev" record --stream -e trev_test:tt_ints -- sh -c \
	"'$B/tests/rec_app' 300 2 >/dev/null; '$B/tests/rec_app' 200 1 >/dev/null") >"$out" 2>"$errf" ||
	fail "the session of two processes failed"
[ ! -e "$T/trace.dat" ] || fail "--stream without -o wrote trace.dat"
err_has '^trev: 800 events, 0 lost \(in the pages read; the processes counted 0 overrun, 0 dropped\)$'
[ "$(grep -cE '^rec_app-[0-9]+: +burst-0-[0-9]+ .* tt_ints: ' "$out")" = 200 ] ||
	fail "the second process: not 200 lines behind its name"
[ "$(grep -cE '^ +burst-[01]-[0-9]+ .* tt_ints: ' "$out")" = 600 ] ||
	fail "the first process: not 600 lines"
[ "$(per_thread "$out" | wc -l)" = 3 ] || fail "not 3 threads: $(per_thread "$out")"
# The same run with -o: the version 7 file of two buffers holds the lines printed.
run 0 "$trev" record --stream -e trev_test:tt_ints -o "$T/two.dat" -- sh -c \
	"'$B/tests/rec_app' 300 2 >/dev/null; '$B/tests/rec_app' 200 1 >/dev/null"
same "$out" "$T/two.dat"
err_has "^trev: wrote $T/two.dat \(version 7, 2 processes"
echo "ok: a session of two processes"

# ---- the function tracer: the process's own function names.
run 0 "$trev" record --stream -t function -- "$B/tests/ft_app"
got=$(sed -nE 's/.*: +([^ ]+) <-- ([^ ]+)$/\1 <-\2/p' "$out" | grep '^ft_')
want='ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_outer <-main
ft_add <-ft_outer
ft_mix <-main
ft_fma <-main
ft_spin <-main'
[ "$got" = "$want" ] || fail "function names:
$got
want:
$want"
echo "ok: function tracer names"

# ---- live: sym_app fires every 20 ms until SIGTERM, which comes only once a line was seen.
"$trev" record --stream -e trev_test:tt_ints -- "$B/tests/sym_app" wait >"$T/live.out" 2>"$T/live.err" &
rec_pid=$!
pids+=("$rec_pid")
wait_for "grep -q ' tt_ints: ' '$T/live.out'" "a tt_ints line shows" "cat '$T/live.err'"
app=$(sed -n 's/^ready //p' "$T/live.out")
[ -n "$app" ] && kill -0 "$app" || fail "sym_app is not running"
# The program still runs (it ends on our SIGTERM alone): the line came while it ran.
kill -TERM "$app"
wait "$rec_pid"
st=$?
pids=()
[ "$st" = 0 ] || fail "trev record --stream exited $st: $(cat "$T/live.err")"
grep -qE '^ +sym_app-[0-9]+ +\[[0-9]{3}\] .* tt_ints: a=0 ' "$T/live.out" || fail "no first event line"
echo "ok: a line shows while the program runs"

# ---- a reader that does not read: the lines wait for it, none is dropped. The program's
# 10000 lines (750 KB) do not fit in the pipe (64 KB): the program ends and trev record
# still waits, until the test reads.
mkfifo "$T/fifo"
"$trev" record --stream -e trev_test:tt_ints -- sh -c "exec '$B/tests/rec_app' 5000 2 >'$T/fired'" \
	>"$T/fifo" 2>"$errf" &
rec_pid=$!
pids+=("$rec_pid")
exec 3<"$T/fifo"
wait_for "grep -q '^fired 10000$' '$T/fired'" "rec_app ended" "cat '$errf'"
kill -0 "$rec_pid" 2>/dev/null || fail "trev record ended with its lines not read"
cat <&3 >"$out"
exec 3<&-
wait "$rec_pid"
st=$?
pids=()
[ "$st" = 0 ] || fail "with a slow reader: exit $st"
[ "$(grep -c ' tt_ints: ' "$out")" = 10000 ] || fail "the slow reader got $(grep -c ' tt_ints: ' "$out") lines, not 10000"
err_has '^trev: --stream: 10000 event lines, 0 lost-event lines printed$'
echo "ok: a reader that does not read"

# ---- a reader that goes: said and counted; the recording goes on to its end (the file whole).
"$trev" record --stream -e trev_test:tt_ints -o "$T/pipe.dat" -- sh -c \
	"exec '$B/tests/rec_app' 20000 2 >/dev/null" 2>"$errf" | true
st=${PIPESTATUS[0]}
[ "$st" = 0 ] || fail "with its reader gone: exit $st"
err_has '^trev: --stream: stdout: Broken pipe; the events are no longer printed'
err_has '^trev: --stream: [0-9]+ lines printed, [1-9][0-9]* not \(Broken pipe\)$'
"$trev" report "$T/pipe.dat" | grep -c ' tt_ints: ' >"$T/n"
[ "$(cat "$T/n")" = 40000 ] || fail "the file has $(cat "$T/n") events, not 40000"
echo "ok: a reader that goes"
exit 0
