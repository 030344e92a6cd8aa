#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sessions (docs/sessions.md): trev record -- COMMAND records every process of the run that uses
# trev, whatever starts it: fork() without exec (held in the fork handler until recorded),
# sh -c and a pipeline, posix_spawn, vfork, a double-forking daemon, 50 short-lived children;
# each process's events under its own pid and thread names, all in one version 7 file with a
# buffer per process that trace-cmd reads in one time line. --no-follow records COMMAND alone;
# -p takes several processes (repeated and PID,PID) and puts each one's settings back; --clear
# starts from an empty buffer; a stray join message is ignored and said; a process that joins a
# session whose recorder is gone runs on at once.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
app_bin="$B/tests/run_app"
rec_app="$B/tests/rec_app"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
# Sanitizer builds serve no socket in a fork() child (docs/control-socket.md, "Threads").
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt")

# The events of FILE, one "PID NAME B" line each (tt_ints' b: the process's number in the run).
events_of() {
	trace-cmd report -i "$1" 2>/dev/null | grep ' tt_ints: ' |
		sed -E 's/^ *([^ :]+: +)?//' |
		sed -E 's/^(.*)-([0-9]+) +\[[0-9]+\].* tt_ints: +a=[0-9]+ b=([0-9]+) c=.*/\2 \1 \3/'
}
valid() {
	trace-cmd dump -v -i "$1" >"$T/dump" 2>&1
	grep -q "is a valid trace-cmd file" "$T/dump" || fail "trace-cmd dump -v rejects $1"
}
# per_process FILE: "COUNT NAME B" per process, sorted by name.
per_process() {
	events_of "$1" | awk '{ n[$1 " " $2 " " $3]++ } END { for (k in n) { split(k, f, " "); print n[k], f[2], f[3] } }' |
		sort -k2
}

# ---- fork() without exec: the parent and three children, each with its own pid and name.
if [ -z "$san" ]; then
	run 0 "$trev" record -e trev_test:tt_ints -o "$T/fork.dat" -- "$app_bin" fork 3 200
	has '^fired 800$'
	valid "$T/fork.dat"
	per_process "$T/fork.dat" >"$T/fork.got"
	printf '200 child-1 1\n200 child-2 2\n200 child-3 3\n200 parent 0\n' >"$T/fork.want"
	diff -u "$T/fork.want" "$T/fork.got" >&2 || fail "fork: the events per process differ"
	# Each name under one pid, four pids in all, none the same.
	[ "$(events_of "$T/fork.dat" | awk '{ print $1 }' | sort -u | wc -l)" = 4 ] ||
		fail "fork: not 4 pids"
	err_has '^trev: 800 events, 0 lost \(in the file; the processes counted 0 overrun, 0 dropped\)$'
	err_has "^trev: wrote $T/fork.dat \(version 7, 4 processes, a buffer each, [0-9]+ bytes\)$"
	ls "$T" | grep >/dev/null '^fork\.dat\.' && fail "fork: the processes' parts were left: $(ls "$T")"
	# The buffers are the processes: trace-cmd prints the others under their names.
	trace-cmd report -i "$T/fork.dat" 2>/dev/null | grep -cE '^ *run_app-[0-9]+: ' >"$T/n"
	[ "$(cat "$T/n")" = 600 ] || fail "fork: $(cat "$T/n") lines under a process buffer, not 600"
	# trev report: every buffer, merged by time, the others' lines behind their names.
	run 0 "$trev" report "$T/fork.dat"
	[ "$(grep -c ' tt_ints: ' "$out")" = 800 ] || fail "trev report: $(grep -c ' tt_ints: ' "$out") events, not 800"
	[ "$(grep -cE '^ *run_app-[0-9]+: ' "$out")" = 600 ] || fail "trev report: not 600 lines behind a buffer's name"
	has '^# entries-in-buffer/entries-written: 800/800 '
	# trev convert: every buffer into the CPUs' streams, each event with its process.
	if command -v babeltrace2 >/dev/null; then
		run 0 "$trev" convert --to ctf "$T/fork.dat" "$T/fork.ctf"
		babeltrace2 "$T/fork.ctf" >"$T/ctf.txt" 2>/dev/null || fail "babeltrace2 rejects the CTF"
		[ "$(grep -c 'trev_test:tt_ints:' "$T/ctf.txt")" = 800 ] ||
			fail "trev convert: $(grep -c 'trev_test:tt_ints:' "$T/ctf.txt") events, not 800"
		[ "$(grep -o 'common_pid = [0-9]*' "$T/ctf.txt" | sort -u | wc -l)" = 4 ] ||
			fail "trev convert: not 4 processes"
	fi
	echo "ok: fork without exec"

	# 50 short-lived children, all at once: none missed.
	run 0 "$trev" record -e trev_test:tt_ints -o "$T/many.dat" -- "$app_bin" fork 50 20
	has '^fired 1020$'
	[ "$(events_of "$T/many.dat" | wc -l)" = 1020 ] ||
		fail "50 children: $(events_of "$T/many.dat" | wc -l) events, not 1020"
	[ "$(events_of "$T/many.dat" | awk '{ print $1 }' | sort -u | wc -l)" = 51 ] ||
		fail "50 children: not 51 processes"
	echo "ok: 50 short-lived children"

	# A double-forking daemon: recorded though its parents are gone; the run ends with it.
	run 0 "$trev" record -e trev_test:tt_ints -o "$T/daemon.dat" -- "$app_bin" daemon 300 "$T/daemon.done"
	[ -e "$T/daemon.done" ] || fail "daemon: the recording ended before the daemon"
	per_process "$T/daemon.dat" >"$T/daemon.got"
	echo '300 daemon 1' | diff -u - "$T/daemon.got" >&2 || fail "daemon: its events differ"
	echo "ok: a double-forking daemon"
fi

# ---- sh -c with a pipeline of three programs: the shell does not use trev, its programs do.
run 0 "$trev" record -e trev_test:tt_ints -o "$T/sh.dat" -- \
	sh -c "'$rec_app' 100 1 | '$rec_app' 200 1 | '$rec_app' 300 1 >/dev/null"
valid "$T/sh.dat"
events_of "$T/sh.dat" | awk '{ n[$1]++ } END { for (p in n) print n[p] }' | sort -n >"$T/sh.got"
printf '100\n200\n300\n' | diff -u - "$T/sh.got" >&2 || fail "sh -c pipeline: events per process differ"
err_has '^trev: sh exited with status 0$'
echo "ok: sh -c pipeline"

# ---- A process killed mid-run (once it has traced 20 events): what it committed is kept, the
# run goes on.
cat >"$T/kill.sh" <<EOF
"$B/tests/ctl_app" 1 >"$T/ctl.out" &
p=\$!
until grep -q '^ready' "$T/ctl.out"; do sleep 0.01; done
until [ "\$("$trev" cat -p \$p trace | grep -c ' tt_ints: ')" -ge 20 ]; do sleep 0.01; done
"$rec_app" 100 1 >/dev/null
kill -KILL \$p
wait \$p
exit 0
EOF
run 0 "$trev" record -e trev_test:tt_ints -o "$T/kill.dat" -- sh "$T/kill.sh"
err_has '^rec_app-[0-9]+ +100 +0 '
err_has '^ctl_app-[0-9]+ +([2-9][0-9]|[1-9][0-9][0-9]+) '
valid "$T/kill.dat"
echo "ok: a process killed mid-run"

# ---- What one process refuses is said for it, and stops nothing: te_test has no trev_test events.
run 0 "$trev" record -e trev_test:tt_ints -o "$T/mixed.dat" -- \
	sh -c "'$rec_app' 10 1 >/dev/null; '$B/examples/te_test' >/dev/null"
err_has "^trev: process [0-9]+ \(te_test-[0-9]+\): set_event: 'trev_test:tt_ints': Invalid argument$"
err_has '^trev: process [0-9]+ \(te_test-[0-9]+\): recorded with the settings it took$'
err_has '^rec_app-[0-9]+ +10 +0 '
err_has '^trev: sh exited with status 0$'
echo "ok: a setting one process refuses"

# ---- A recording with no event says so, and exits as the command did.
run 0 "$trev" record -o "$T/none.dat" -- "$rec_app" 5 1
err_has '^trev: warning: no event was recorded '

# ---- posix_spawn and vfork + exec: exec'd programs join as they start.
for how in spawn vfork; do
	run 0 "$trev" record -e trev_test:tt_ints -o "$T/$how.dat" -- "$app_bin" $how 3 100
	has '^fired 400$'
	[ "$(events_of "$T/$how.dat" | wc -l)" = 400 ] || fail "$how: $(events_of "$T/$how.dat" | wc -l) events, not 400"
	[ "$(events_of "$T/$how.dat" | awk '{ print $1 }' | sort -u | wc -l)" = 4 ] || fail "$how: not 4 processes"
	echo "ok: $how"
done

# ---- --no-follow: COMMAND alone, its children untraced.
run 0 "$trev" record --no-follow -e trev_test:tt_ints -o "$T/nf.dat" -- "$app_bin" spawn 2 100
[ "$(events_of "$T/nf.dat" | wc -l)" = 100 ] || fail "--no-follow: $(events_of "$T/nf.dat" | wc -l) events, not 100"
err_has "^trev: wrote $T/nf.dat \(version 6, [0-9]+ bytes\)$"
echo "ok: --no-follow"

# ---- A stray connection to the session's socket: said, ignored; the run is still recorded.
if command -v python3 >/dev/null; then
	cat >"$T/stray.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["TREV_SESSION"])
s.sendall(b"\xff" * 16)
s.close()
PY
	run 0 "$trev" record -e trev_test:tt_ints -o "$T/stray.dat" -- \
		sh -c "python3 '$T/stray.py' && '$rec_app' 50 1"
	err_has '^trev: session: process [0-9]+ sent no well-formed join: ignored$'
	[ "$(events_of "$T/stray.dat" | wc -l)" = 50 ] || fail "stray: the program's events are missing"
	echo "ok: a stray join"
fi

# ---- A session whose recorder is gone: the program does not wait.
run 0 env TREV_SESSION="$T/nobody/join.sock" "$rec_app" 5 1
has '^fired 5$'
[ ! -s "$errf" ] || fail "a session without a recorder: the program said something"

# ---- -p with two processes, given both ways; each one's settings put back; --clear.
start_ctl() {	# start_ctl N: a ctl_app (tt_ints every 5 ms), its pid in $ctl
	"$B/tests/ctl_app" 5 >"$T/ctl$1.out" 2>&1 &
	pids+=($!)
	wait_for "grep -q '^ready' '$T/ctl$1.out'" "ctl_app $1 started"
	ctl=$(awk '/^ready/ { print $2 }' "$T/ctl$1.out")
}
read_events() {	# read_events PID: the events the consumer has read, every CPU
	local c n=0
	for c in $("$trev" ls -p "$1" per_cpu | sed 's|/$||'); do
		n=$((n + $("$trev" cat -p "$1" "per_cpu/$c/stats" | sed -n 's/^read events: //p')))
	done
	echo "$n"
}
start_ctl 1
p1=$ctl
start_ctl 2
p2=$ctl
"$trev" write -p "$p1" events/trev_test/tt_ints/enable 1 || fail "enable in $p1"
# Events in $p1's buffer before the recording: --clear leaves them out.
wait_for "[ \$(\"$trev\" cat -p $p1 trace | grep -c ' tt_ints: ') -ge 10 ]" "$p1 has 10 events"
last_a() {	# the a= of the last tt_ints of $p1's trace now
	"$trev" cat -p "$p1" trace | sed -n 's/.* tt_ints: a=\([0-9]*\) .*/\1/p' | tail -1
}
# trev ps: both listed, tt_ints enabled in $p1 only, nobody recording yet.
ps_line() {	# ps_line PID: its line of trev ps
	"$trev" ps | awk -v p="$1" '$1 == p'
}
run 0 "$trev" ps -e
has '^ +PID +UID TREV +RECORDED EVENTS  COMMAND$'
grep -qE "^ +$p1 +[0-9]+ [0-9.]+ +no +1  .*ctl_app 5$" "$out" || fail "trev ps: $p1's line"
grep -qE "^ +$p2 +[0-9]+ [0-9.]+ +no +0  .*ctl_app 5$" "$out" || fail "trev ps: $p2's line"
grep -qE '^ {40}trev_test:tt_ints$' "$out" || fail "trev ps -e: the enabled event"
for form in twice comma; do
	if [ $form = twice ]; then args=(-p "$p1" -p "$p2"); else args=(-p "$p1,$p2"); fi
	before=$(last_a)
	"$trev" record --clear -e trev_test:tt_ints -o "$T/pp.dat" "${args[@]}" >"$out" 2>"$errf" &
	rec=$!
	pids+=($rec)
	wait_for "grep -q '^trev: recording 2 processes; Ctrl-C to stop$' '$errf'" "-p $form: recording"
	# Until the recorder has read events of each (statistics show its position).
	wait_for "[ \$(read_events $p1) -gt 0 ] && [ \$(read_events $p2) -gt 0 ]" \
		"-p $form: events of both read"
	[ $form = comma ] || ps_line "$p2" | grep >/dev/null -E '^ +[0-9]+ +[0-9]+ [0-9.]+ +yes +1 ' ||
		fail "trev ps: $p2 not shown recorded: $(ps_line "$p2")"
	kill -INT "$rec"
	wait "$rec"
	st=$?
	[ "$st" = 0 ] || fail "-p $form: trev record exited $st"
	# A buffer per process, named after it; the events of two emitter threads.
	err_has "^ctl_app-$p1 +[1-9][0-9]* "
	err_has "^ctl_app-$p2 +[1-9][0-9]* "
	[ "$(events_of "$T/pp.dat" | awk '$2 == "emitter" { print $1 }' | sort -u | wc -l)" = 2 ] ||
		fail "-p $form: not the events of both processes"
	first=$(trace-cmd report -i "$T/pp.dat" 2>/dev/null | grep ' tt_ints: ' | grep -vE '^ *ctl_app-[0-9]+: ' |
		sed -n 's/.* a=\([0-9]*\) .*/\1/p' | head -1)
	[ -n "$first" ] && [ "$first" -gt "$before" ] ||
		fail "-p $form --clear: $p1's first event a=$first, its buffer had a=$before before"
	# Put back: tt_ints stays enabled in $p1 (it was), is disabled again in $p2.
	[ "$("$trev" cat -p "$p1" events/trev_test/tt_ints/enable)" = 1 ] || fail "-p $form: $p1's enable not kept"
	[ "$("$trev" cat -p "$p2" events/trev_test/tt_ints/enable)" = 0 ] || fail "-p $form: $p2's enable not put back"
done
ps_line "$p1" | grep >/dev/null -E '^ +[0-9]+ +[0-9]+ [0-9.]+ +no +1 ' || fail "trev ps: $p1 still shown recorded"
# trev stat of both, one after the other.
run 0 "$trev" stat -p "$p1,$p2"
[ "$(grep -cE "^process ($p1|$p2) \(trev " "$out")" = 2 ] || fail "trev stat -p $p1,$p2: not both"
echo "ok: -p twice, -p PID,PID, --clear, trev ps"
run 2 "$trev" record --clear -o "$T/x.dat" -- true
err_is 1 'trev: --clear is for -p and -a (a command starts with an empty buffer)'
run 2 "$trev" record -a -p "$p1" -o "$T/x.dat"
err_is 1 'trev: -p, -a and a COMMAND: give one'

# ---- -a: the processes there ($p1, $p2) and one that starts later, from its first event; a
# second -a refused while one runs; a socket a killed -a left is replaced; settings put back.
"$trev" record -a -e trev_test:tt_ints -o "$T/all.dat" >"$out" 2>"$errf" &
rec=$!
pids+=($rec)
wait_for "grep -q '^trev: recording every process of uid [0-9]* that serves trev (2 now); Ctrl-C to stop$' '$errf'" "-a: recording"
"$trev" record -a -o "$T/y.dat" >"$T/a2.out" 2>"$T/a2.err"
[ $? = 1 ] && grep -q 'another trev record -a records this user' "$T/a2.err" || fail "a second -a: $(cat "$T/a2.err")"
"$rec_app" 150 2 >"$T/late.out" || fail "rec_app under -a failed"
kill -INT "$rec"
wait "$rec"
[ $? = 0 ] || fail "-a: trev record exited non-zero"
err_has "^ctl_app-$p1 "
err_has "^ctl_app-$p2 "
err_has '^rec_app-[0-9]+ +300 +0 '
[ "$(trace-cmd report -i "$T/all.dat" 2>/dev/null | grep -cE '^ *rec_app-[0-9]+: .* tt_ints: ')" = 300 ] ||
	fail "-a: the late process's 300 events are not all in the file"
[ "$("$trev" cat -p "$p2" events/trev_test/tt_ints/enable)" = 0 ] || fail "-a: $p2's enable not put back"
[ "$("$trev" cat -p "$p1" events/trev_test/tt_ints/enable)" = 1 ] || fail "-a: $p1's enable not kept"
[ ! -e "$sockdir/record-all.sock" ] || fail "-a left its socket"
# Killed, it leaves its socket: processes that start do not wait for it, the next -a replaces it.
"$trev" record -a -o "$T/k.dat" >/dev/null 2>"$T/k.err" &
rec=$!
wait_for "[ -S '$sockdir/record-all.sock' ] && grep -q '^trev: recording every' '$T/k.err'" "-a: its socket"
kill -KILL "$rec"
wait "$rec"
[ -S "$sockdir/record-all.sock" ] || fail "the killed -a's socket is gone (the test needs it)"
run 0 "$rec_app" 5 1
has '^fired 5$'
[ ! -s "$errf" ] || fail "a stale -a socket: the program said something"
"$trev" record -a -o "$T/z.dat" >/dev/null 2>"$T/z.err" &
rec=$!
wait_for "grep -q '^trev: recording every' '$T/z.err'" "-a over a stale socket"
kill -INT "$rec"
wait "$rec"
echo "ok: -a"
# ---- -a -u USER (root): another user's processes, those there and one that starts later.
nobody_runs() {	# nobody can reach and run the test programs (not under a private home)
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$B/tests/ctl_app" 2>/dev/null
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && ! nobody_runs; then
	echo "note: -a -u not run: user nobody cannot run $B/tests/ctl_app"
elif [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	ud="$T/nobody-socks"
	mkdir -m 700 "$ud" && chown 65534 "$ud"
	as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env TREV_SOCKET_DIR="$ud")
	"${as_nobody[@]}" "$B/tests/ctl_app" 5 >"$T/nb.out" 2>&1 &
	pids+=($!)
	wait_for "grep -q '^ready' '$T/nb.out'" "nobody's ctl_app started"
	nb=$(awk '/^ready/ { print $2 }' "$T/nb.out")
	TREV_SOCKET_DIR="$ud" "$trev" record -a -u nobody -e trev_test:tt_ints -o "$T/u.dat" \
		>"$out" 2>"$errf" &
	rec=$!
	pids+=($rec)
	wait_for "grep -q '^trev: recording every process of uid 65534 that serves trev (1 now); Ctrl-C to stop$' '$errf'" "-a -u: recording"
	"${as_nobody[@]}" "$rec_app" 50 1 >"$T/nb2.out" || fail "nobody's rec_app failed"
	kill -INT "$rec"
	wait "$rec"
	[ $? = 0 ] || fail "-a -u: trev record exited non-zero"
	err_has "^ctl_app-$nb +[1-9][0-9]* "
	err_has '^rec_app-[0-9]+ +50 +0 '
	run 2 "$trev" record -u nobody -p "$nb" -o "$T/x.dat"
	err_is 1 'trev: -u is for -a'
	echo "ok: -a -u"
fi
echo "cli_session: ok"
