#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record -p puts back exactly what it found (docs/cli/trev-record.md, "-p: nothing is
# left behind"): a program (tests/control/ctl_app.c) gets a state of its own (events enabled
# with and without filters of their own, others not, one in soft mode, a trigger, a clock and
# a buffer size), trev record -p changes all of it (-e of a subsystem with a subsystem
# filter, of an event by its name alone and of one event; -f, -T, -b, -C), is stopped with
# SIGINT once it records, and every file it may have touched reads back byte for byte as
# before; also with a subsystem filter set before, and when the configuration fails
# half-way.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }

# start_app: a fresh ctl_app (tt_ints every 10 ms), its pid in $app. The file is emptied
# first: the background shell truncates it only when it gets to run, and wait_ready would
# take the previous program's "ready PID" meanwhile.
start_app() {
	: >"$T/app.out"
	"$B/tests/ctl_app" 10 >>"$T/app.out" &
	pids+=($!)
	wait_ready "$T/app.out"
}

w() {	# w [-a] FILE TEXT: write to the process's file, or fail
	"$trev" write -p "$app" "$@" 2>"$errf" || fail "trev write $*"
}

# The files trev record -p may change, and those it must not: each is copied, as trev cat
# prints it, to DIR/<its path>.
touched_files() {
	local e o
	echo tracing_on buffer_size_kb trace_clock trace_options current_tracer set_event
	echo events/enable events/trev_test/enable events/trev_test/filter
	for o in $("$trev" ls -p "$app" options); do echo "options/$o"; done
	for e in $("$trev" ls -p "$app" events/trev_test | sed -n 's|/$||p'); do
		echo "events/trev_test/$e/enable events/trev_test/$e/filter events/trev_test/$e/trigger"
	done
}
snapshot() {	# snapshot DIR
	local f
	for f in $(touched_files); do
		mkdir -p "$1/$(dirname "$f")"
		"$trev" cat -p "$app" "$f" >"$1/$f" 2>"$errf" || fail "trev cat $f"
	done
}
# same_as_before: every file of $T/before reads the same now.
same_as_before() {
	local f
	rm -rf "$T/after"
	snapshot "$T/after"
	[ "$(touched_files | wc -w)" -gt 30 ] || fail "only $(touched_files | wc -w) files to compare"
	for f in $(touched_files); do
		cmp -s "$T/before/$f" "$T/after/$f" ||
			fail "$1: $f is not put back: before [$(cat "$T/before/$f")] after [$(cat "$T/after/$f")]"
	done
}
is() {	# is FILE TEXT: the process's FILE reads TEXT (while recording)
	[ "$("$trev" cat -p "$app" "$1")" = "$2" ] ||
		fail "while recording, $1 reads [$("$trev" cat -p "$app" "$1")], not [$2]"
}
# record_start ARGS...: trev record -p with ARGS in the background ($rec), until it says it
# records and the program has written 3 events since.
record_start() {
	"$trev" record -o "$T/r.dat" -p "$app" "$@" >"$out" 2>"$errf" &
	rec=$!
	wait_recording 3
}
# record_stop: SIGINT; it exits 0, has put everything back, and its file reads.
record_stop() {
	kill -INT "$rec"
	wait "$rec"
	st=$?
	[ "$st" = 0 ] || fail "trev record -p exited $st after SIGINT"
	grep -q 'restored\|put back' "$errf" && fail "trev record -p says it could not restore"
	trace-cmd report -i "$T/r.dat" >"$out" 2>&1 || fail "trace-cmd report cannot read r.dat"
}

# ---- 1. Events with filters of their own, enabled or not, one soft-disabled by a trigger;
# the subsystem filter never written; a clock and a buffer size not the defaults.
start_app
w trace_clock boot
w buffer_size_kb 96
w options/sym-offset 1
w events/trev_test/tt_ints/filter 'a > 1'
w events/trev_test/tt_ints/enable 1
w events/trev_test/tt_open/filter 'id > 3'
w events/trev_test/tt_hooked/enable 1
# A trigger on tt_types (never fired) keeps tt_close soft-disabled (0*).
w -a events/trev_test/tt_types/trigger 'enable_event:trev_test:tt_close'
snapshot "$T/before"
[ "$(cat "$T/before/events/trev_test/tt_close/enable")" = '0*' ] || fail "tt_close is not soft-disabled"
[ "$(sort "$T/before/set_event")" = $'trev_test:tt_hooked\ntrev_test:tt_ints' ] ||
	fail "set_event before: $(cat "$T/before/set_event")"

record_start -e 'trev_test:*' -f 'common_pid > 0' -e tt_open -f 'id > 1' \
	-e trev_test:tt_ints -f 'a & 1' -T 'stacktrace' -b 64 -C mono
# All of it changed (else the comparison below proves nothing).
is buffer_size_kb 64
is trace_clock 'local [mono] mono_raw boot counter'
is events/trev_test/filter 'common_pid > 0'
is events/trev_test/enable 1
is events/trev_test/tt_ints/filter 'a & 1'
is events/trev_test/tt_open/filter 'id > 1'
is events/trev_test/tt_odd/filter 'common_pid > 0'
is events/trev_test/tt_close/filter 'common_pid > 0'
is events/trev_test/tt_close/enable '1*'
is events/trev_test/tt_open/enable 1
is events/trev_test/tt_ints/trigger 'stacktrace:unlimited'
record_stop
grep -q 'kernel_stack' "$out" || fail "1: no stack of the stacktrace trigger in the file"
same_as_before "1"

# ---- 2. A subsystem filter written before (it shows its text), one event with its own.
start_app
w events/trev_test/filter 'common_pid > 0'
w events/trev_test/tt_ints/filter 'a > 1'
w events/trev_test/tt_ints/enable 1
rm -rf "$T/before"
snapshot "$T/before"
[ "$(cat "$T/before/events/trev_test/tt_open/filter")" = 'common_pid > 0' ] || fail "2: setup"
record_start -e 'trev_test:*' -f 'common_pid != 1' -e trev_test:tt_ints -f 'a < 1000000'
is events/trev_test/filter 'common_pid != 1'
is events/trev_test/tt_open/filter 'common_pid != 1'
is events/trev_test/tt_ints/filter 'a < 1000000'
record_stop
same_as_before "2"

# ---- 3. The configuration fails half-way: what was done is undone, exit status 1.
# A trigger that is there already is refused (EEXIST) and stays.
w -a events/trev_test/tt_ints/trigger 'stacktrace'
rm -rf "$T/before"
snapshot "$T/before"
run 1 "$trev" record -e 'trev_test:*' -f 'common_pid > 5' -e trev_test:tt_ints -T stacktrace \
	-b 32 -C counter -o "$T/e.dat" -p "$app"
err_has "^trev: events/trev_test/tt_ints/trigger: 'stacktrace': File exists$"
grep -q 'restored\|put back' "$errf" && fail "3: restoring failed"
[ ! -e "$T/e.dat" ] || fail "3: e.dat was written"
same_as_before "3 (EEXIST)"
# An unknown event after a subsystem's events were enabled and filtered.
run 1 "$trev" record -e 'trev_test:*' -f 'common_pid > 5' -e nosuch:event -b 32 -C counter \
	-o "$T/e.dat" -p "$app"
err_has "^trev: set_event: 'nosuch:event': Invalid argument$"
same_as_before "3 (unknown event)"
echo "trev record -p restore: ok"
