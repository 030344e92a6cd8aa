#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record --probe DEF -- COMMAND on programs that do not link trev (docs/probes.md,
# "Programs that do not link trev"): pp_app, built with the function flags' patchable
# entries and without libtrev, gets libtrev preloaded and its probes before main():
#   - each call's arguments, return value and string, in trev report and trace-cmd report,
#     as the program printed them;
#   - through sh -c and a fork() child: each hit under its own pid, a buffer per process,
#     the shell (which holds no target) not recorded;
#   - a bad definition: the error_log entry with the caret under the word, naming the
#     process, exit status 1, no file, the program never ran; a later process that refuses
#     one: none of the probes there, it runs on untraced; a target no process holds: said,
#     exit status 1;
#   - trev probe, the short form: the hits on stdout;
#   - a program that links libtrev.so (ft_app) gets the probes once; one that holds
#     libtrev.a (run_app) keeps its own copy, the preloaded one stays idle;
#   - -p PID of a process that links trev: probed through its socket, the probes removed
#     at the end; -p of a process without trev: refused with the reason.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
pp="$B/tests/pp_app"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
# Sanitizer builds serve no socket in a fork() child (docs/sessions.md): no fork case there.
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt")
# The shell gets the sanitizer's runtime with the preloaded libtrev: its leaks are not ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

defs=(--probe 'p:app/add pp_add a=%di:s32 b=%si:s32'
	--probe 'r:app/addr pp_add rv=$retval:s32'
	--probe 'p:app/name pp_name s=+0(%di):string')

# hits FILE: "PID EVENT VALUES" of each probe hit, from trev report (REPORT=trace-cmd: its).
hits() {
	if [ "${REPORT:-trev}" = trev ]; then
		"$trev" report "$1" 2>/dev/null
	else
		trace-cmd report -i "$1" 2>/dev/null
	fi | grep -E ' (add|addr|name): ' | sed -E 's/^ *[^ ]+: +//' |
		sed -E 's/^.*-([0-9]+) +\[[0-9]+\].* (add|addr|name): +\([0-9a-f]+( <- [0-9a-f]+)?\) (.*)$/\1 \2 \4/'
}
# want_hits PID N: what pp_app's call of n = N in process PID makes the probes record.
want_hits() {
	printf '%s add a=%s b=1\n%s addr rv=%s\n%s name s="call-%s"\n' "$1" "$2" "$1" \
		$(($2 + 1)) "$1" "$2"
}

# ---- 1. One program, its arguments, return value and string, read by both readers.
run 0 "$trev" record "${defs[@]}" -o "$T/one.dat" -- "$pp" 7
has '^call [0-9]+ 7 1 call-7$'
pid=$(awk '/^call/ { print $2 }' "$out")
err_has "^trev: wrote $T/one.dat \(version 6, [0-9]+ bytes\)$"
err_has '^trev: 3 events, 0 lost '
want_hits "$pid" 7 >"$T/want"
hits "$T/one.dat" >"$T/got"
diff -u "$T/want" "$T/got" >&2 || fail "trev report: the hits differ from the calls"
REPORT=trace-cmd hits "$T/one.dat" >"$T/got"
diff -u "$T/want" "$T/got" >&2 || fail "trace-cmd report: the hits differ from the calls"
trace-cmd report -i "$T/one.dat" 2>&1 | grep >/dev/null "FAILED TO PARSE" &&
	fail "trace-cmd could not parse the records"
echo "ok: a program that does not link trev, probed from its first call"

# ---- 2. sh -c and a fork() child: each hit under its own pid, the shell not recorded.
if [ -z "$san" ]; then
	run 3 "$trev" record "${defs[@]}" -o "$T/sh.dat" -- sh -c "\"$pp\" fork 7; exit 3"
	[ "$(grep -c '^call ' "$out")" = 2 ] || fail "sh -c: not two calls"
	parent=$(awk '/^call [0-9]+ 7 / { print $2 }' "$out")
	child=$(awk '/^call [0-9]+ 8 / { print $2 }' "$out")
	[ -n "$parent" ] && [ -n "$child" ] && [ "$parent" != "$child" ] || fail "no two pids"
	{ want_hits "$parent" 7; want_hits "$child" 8; } | sort >"$T/want"
	hits "$T/sh.dat" | sort >"$T/got"
	diff -u "$T/want" "$T/got" >&2 || fail "sh -c: the hits differ from the calls"
	REPORT=trace-cmd hits "$T/sh.dat" | sort >"$T/got"
	diff -u "$T/want" "$T/got" >&2 || fail "sh -c: trace-cmd's hits differ from the calls"
	err_has "^trev: wrote $T/sh.dat \(version 7, 2 processes, a buffer each, [0-9]+ bytes\)$"
	err_has "^pp_app-$child +3 "
	grep -qE '^sh-[0-9]+ ' "$errf" && fail "the shell was recorded"
	err_has '^trev: sh exited with status 3$'
	echo "ok: sh -c and a fork() child, each hit under its own pid"
fi

# ---- 3. A bad definition: refused by the first process, with the caret; nothing runs.
bad='p:app/add pp_add a=%zz:s32'
run 1 "$trev" record --probe "$bad" -o "$T/bad.dat" -- "$pp" 7
err_is 1 "trev: process $(sed -nE 's/^trev: process ([0-9]+) .*/\1/p' "$errf" | head -1) (pp_app-$(sed -nE 's/^trev: process ([0-9]+) .*/\1/p' "$errf" | head -1)): uprobe_events: '$bad': Invalid argument"
err_has '^\[ *[0-9.]+\] trace_uprobe: error: Invalid register name$'
err_is 3 "  Command: $bad"
# The caret under the argument's register: "  Command: " and the text before "%zz".
pre="  Command: p:app/add pp_add a="
err_is 4 "$(printf '%*s^' ${#pre} '')"
grep -q '^call' "$out" && fail "the program ran after its probe was refused"
[ -e "$T/bad.dat" ] && fail "a file was written"
ls "$T" | grep >/dev/null '^bad\.dat' && fail "a part was left: $(ls "$T")"
# The same through a shell, which holds no pp_add: the arguments are checked all the same.
run 1 "$trev" record --probe "$bad" -o "$T/bad.dat" -- sh -c "\"$pp\" 7"
err_has "^trev: process [0-9]+ \(sh-[0-9]+\): uprobe_events: '.*': Invalid argument$"
err_has '^\[ *[0-9.]+\] trace_uprobe: error: Invalid register name$'
grep -q '^call' "$out" && fail "sh -c: the program ran after its probe was refused"
[ -e "$T/bad.dat" ] && fail "sh -c: a file was written"
# A later process that refuses a probe its target is in (ft_app has main, but not pp_add,
# whose patchable entry @pp_add reads): named, with the caret; the probe it took before is
# removed (all or none), and with nothing left to record it runs on untraced; the first
# process (pp_app, which starts ft_app) keeps its probe.
later='p:app/m main x=@pp_add:u8'
run 0 "$trev" record --probe 'p:app/outer ft_outer i=%di:s32' --probe "$later" \
	-o "$T/later.dat" -- "$pp" 7 "$B/tests/ft_app"
err_has "^trev: process [0-9]+ \(ft_app-[0-9]+\): uprobe_events: '$later': Invalid argument$"
err_has '^\[ *[0-9.]+\] trace_uprobe: error: '
err_has "^  Command: $later$"
err_has "^trev: process [0-9]+ \(ft_app-[0-9]+\): the 1 probe made before the refusal was removed$"
err_has "^trev: process [0-9]+ \(ft_app-[0-9]+\): it has nothing left to record: it runs on, untraced$"
err_has "^trev: wrote $T/later.dat \(version 6, [0-9]+ bytes\)$"
pid=$(awk '/^call/ { print $2 }' "$out")
"$trev" report "$T/later.dat" | grep -v '^#' | sed -E 's/^ *pp_app-([0-9]+) .* m: \([0-9a-f]+\) x=[0-9]+$/\1 m/' \
	>"$T/got"
[ "$(cat "$T/got")" = "$pid m" ] || fail "the first process's probe on main: $(cat "$T/got")"
# A target that no process of the run holds: said, status 1, no file.
run 1 "$trev" record --probe 'p:app/x pp_no_such_function' -o "$T/none.dat" -- "$pp" 7
err_has "^trev: no process of the run holds the target of a --probe .*nothing was recorded$"
[ -e "$T/none.dat" ] && fail "no target: a file was written"
echo "ok: a bad definition and a missing target"

# ---- 4. trev probe: the hits on stdout as they happen.
run 0 "$trev" probe 'p:app/add pp_add a=%di:s32 b=%si:s32' -- "$pp" 5
pid=$(awk '/^call/ { print $2 }' "$out")
has "^ *pp_app-$pid +\[[0-9]+\] .{4,5} [0-9.]+: add: +\([0-9a-f]+\) a=5 b=1$"
err_has '^trev: --stream: 1 event lines, 0 lost-event lines printed$'
run 2 "$trev" probe -- "$pp" 5
err_has '^trev: probe: give a probe definition$'
echo "ok: trev probe"

# ---- 5. Programs that link trev: libtrev.so (ft_app) once; libtrev.a (run_app) its own copy.
run 0 "$trev" record --probe 'p:app/outer ft_outer i=%di:s32' -o "$T/ft.dat" -- "$B/tests/ft_app"
"$trev" report "$T/ft.dat" | sed -nE 's/.* outer: \([0-9a-f]+\) (i=[0-9]+)$/\1/p' >"$T/got"
printf 'i=0\ni=1\ni=2\n' | diff -u - "$T/got" >&2 || fail "ft_app: not three calls of ft_outer"
# run_app holds libtrev.a: the preloaded libtrev.so does not start, its own copy prints.
# (A sanitizer tree's libtrev needs its runtime loaded first, as trev record puts it.)
san_rt=$(ldd "$B/libtrev.so.0" | awk '/lib[at]san\.so/ { print $3 ":" }')
LD_PRELOAD="$san_rt$B/libtrev.so.0" TREV_SOCKET=0 TREV_EVENTS=trev_test:tt_ints TREV_OUTPUT=stdout \
	"$B/tests/run_app" fork 0 2 >"$out" 2>"$errf" || fail "run_app with a preloaded libtrev failed"
[ "$(grep -c ' tt_ints: ' "$out")" = 2 ] || fail "run_app: its events are not in its trace text"
# One copy started: one trace text, and no copy without the program's events.
[ "$(grep -c '^# tracer: ' "$out")" = 1 ] || fail "run_app: two copies of libtrev printed"
[ -s "$errf" ] && fail "run_app with a preloaded libtrev warned"
echo "ok: programs that link trev"

# ---- 6. -p: a running process that links trev, through its socket; one that does not.
"$B/tests/ft_app" loop >"$T/app.out" 2>&1 &
pids+=($!)
wait_ready "$T/app.out"
"$trev" record --probe 'p:app/outer ft_outer i=%di:s32' -o "$T/p.dat" -p "$app" >"$out" 2>"$errf" &
rec=$!
wait_for "grep -q '^trev: recording process $app; Ctrl-C to stop\$' $errf" "trev record -p recorded"
hits_now() { "$trev" cat -p "$app" uprobe_profile | awk '$2 == "outer" { print $3 }'; }
wait_for "[ \"\$(hits_now)\" -ge 100 ] 2>/dev/null" "the probe on ft_outer was hit 100 times"
kill -INT "$rec"
wait "$rec" || fail "trev record -p exited $? after SIGINT"
n=$("$trev" report "$T/p.dat" | grep -cE ' outer: \([0-9a-f]+\) i=[0-9]+$')
[ "$n" -ge 100 ] || fail "-p: $n hits recorded, not 100 or more"
[ -z "$("$trev" cat -p "$app" uprobe_events)" ] || fail "-p: the probe was left in the process"
[ -z "$("$trev" cat -p "$app" set_event)" ] || fail "-p: an event was left enabled"
sleep 1000 &
pids+=($!)
run 1 "$trev" record --probe 'p:app/outer ft_outer' -p $!
err_has "^trev: process $! does not serve trev \(no socket .*\)$"
echo "ok: -p"
echo "ok"
