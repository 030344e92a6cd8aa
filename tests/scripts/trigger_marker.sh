#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Triggers on ftrace/print, fired by writes to trace_marker (the kernel's tracing_mark_write()):
# hist keyed on buf (a string) and on common_pid, checked exactly; a filter on buf; traceoff,
# snapshot and stacktrace; trace_printk() fires none; a refused line changes nothing and is in
# error_log; an instance's trace_marker fires that instance's triggers only.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

P=events/ftrace/print

# hist_is FILE ROW... - FILE holds one histogram: its trigger info line, then exactly ROWs.
hist_is() {
	local file=$1 info=$2 hits=$3 entries=$4
	shift 4
	local want rows=""
	for r in "$@"; do rows+="$r"$'\n'; done
	want=$'# event histogram\n#\n'"# trigger info: $info"$'\n#\n\n'"$rows"
	want+=$'\nTotals:\n'"    Hits: $hits"$'\n'"    Entries: $entries"$'\n    Dropped: 0\n'
	is "$want" read "$file"
}

# key VALUE - a string key's column as hist prints it (%-50s).
key() {
	printf 'buf: %-50s' "$1"
}

checks() {
	ok ls $P
	[ "$(printf '%s' "$TFS_OUT" | sort | tr '\n' ' ')" = "format hist id trigger " ] ||
		fail "ftrace/print files"
	ok read $P/trigger
	has '^# Available triggers:$'
	is "" read $P/hist

	# hist:keys=buf - each marker's text, as written (no newline added), is a key.
	ok write $P/trigger 'hist:keys=buf'
	is $'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]\n' read $P/trigger
	for m in alpha beta alpha gamma alpha beta; do ok writen trace_marker "$m"; done
	hist_is $P/hist 'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]' 6 3 \
		"{ $(key gamma) } hitcount:          1" \
		"{ $(key beta) } hitcount:          2" \
		"{ $(key alpha) } hitcount:          3"
	# trace_printk() records ftrace/print too, but runs no trigger (nor does the kernel's).
	ok printk alpha
	ok read $P/hist
	has 'Hits: 6$'
	# The record in the buffer has its newline, as before.
	ok read trace
	has 'tracing_mark_write: gamma$'

	# A refused line: error_log names it, the trigger there stays, nothing is added.
	err EINVAL append $P/trigger 'hist:keys=nosuch'
	errlog_last 'hist:ftrace:print: error: Couldn.t find field$' 10
	err EINVAL append $P/trigger 'hist:keys=buf.hex'
	errlog_last 'hist:ftrace:print: error: Invalid field modifier$' 14
	err EINVAL append $P/trigger 'traceoff if nosuch == 1'
	errlog_last 'trigger: error: Field not found$' 19
	err EEXIST append $P/trigger 'hist:keys=buf'
	is $'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]\n' read $P/trigger
	ok writen trace_marker alpha
	ok read $P/hist
	has "^\{ $(key alpha) \} hitcount:          4$"
	has 'Hits: 7$'

	# hist:keys=common_pid - one writer's markers are one key, whichever thread of the process
	# serves each open (through the mount: the process's pid, docs/tracefs.md).
	ok write $P/trigger 'hist:keys=common_pid'
	for i in 1 2 3; do ok write trace_marker "hello"; done
	ok read $P/hist
	has '^\{ common_pid: +[0-9]+ \} hitcount:          3$'
	has 'Entries: 1$'
	ok append $P/trigger '!hist:keys=common_pid'

	# A filter on buf (what the -synthetic ftracetest cases start with); '!' removes.
	ok write $P/trigger 'hist:keys=buf if buf ~ "*ll*"'
	is $'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 if buf ~ "*ll*" [active]\n' \
		read $P/trigger
	for m in hello yellow nope hello; do ok writen trace_marker "$m"; done
	hist_is $P/hist 'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 if buf ~ "*ll*" [active]' \
		3 2 "{ $(key yellow) } hitcount:          1" "{ $(key hello) } hitcount:          2"
	ok append $P/trigger '!hist:keys=buf if buf ~ "*ll*"'
	ok read $P/trigger
	has '^# Available triggers:$'

	# traceoff if buf == "stop": a post trigger, so the marker that stops is recorded.
	ok write trace ""
	ok write $P/trigger 'traceoff if buf == "stop"'
	ok writen trace_marker go
	is $'1\n' read tracing_on
	ok writen trace_marker stop
	is $'0\n' read tracing_on
	err EBADF writen trace_marker after
	ok read trace
	has 'tracing_mark_write: go$'
	has 'tracing_mark_write: stop$'
	hasnt 'after'
	ok write tracing_on 1

	# snapshot: the marker is reserved before its triggers run (the kernel's order), so each
	# swap takes the record being written with it: odd ones end in trace, even in snapshot.
	ok write $P/trigger 'snapshot'
	ok read snapshot
	has 'Snapshot is allocated'
	ok write trace ""
	for i in 1 2 3 4; do ok write trace_marker "m>$i<"; done
	ok read trace
	has 'm>1<$'
	has 'm>3<$'
	hasnt 'm>[24]<'
	ok read snapshot
	has 'm>2<$'
	has 'm>4<$'
	hasnt 'm>[13]<'

	# stacktrace:1 - one ftrace:kernel_stack record after the marker's.
	ok write $P/trigger 'stacktrace:1'
	is $'stacktrace:count=1\n' read $P/trigger
	ok write trace ""
	ok writen trace_marker s1
	ok writen trace_marker s2
	ok read trace
	[ "$(grep -c '<stack trace>' <<<"$TFS_OUT")" -eq 1 ] || fail "one stack for stacktrace:1"
	[ "$(grep -A1 'tracing_mark_write: s1$' <<<"$TFS_OUT" | tail -n 1 | grep -c '<stack trace>')" \
		-eq 1 ] || fail "the stack follows the marker"
	ok write $P/trigger ""
	ok write snapshot 0

	# An instance's trace_marker fires its own ftrace/print triggers, not the top's.
	ok mkdir instances/mk
	ok write instances/mk/$P/trigger 'hist:keys=buf'
	ok write $P/trigger 'hist:keys=buf'
	ok writen instances/mk/trace_marker inst
	ok writen instances/mk/trace_marker inst
	ok writen trace_marker top
	hist_is instances/mk/$P/hist 'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]' \
		2 1 "{ $(key inst) } hitcount:          2"
	hist_is $P/hist 'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]' \
		1 1 "{ $(key top) } hitcount:          1"
	err EINVAL append instances/mk/$P/trigger 'hist:keys=bogus'
	TFS_ROOT=instances/mk/ errlog_last 'hist:ftrace:print: error: Couldn.t find field$' 10
	is $'hist:keys=buf:vals=hitcount:sort=hitcount:size=2048 [active]\n' \
		read instances/mk/$P/trigger
	ok rmdir instances/mk
	ok write $P/trigger ""
	is "" read $P/hist
}

tfs_main
