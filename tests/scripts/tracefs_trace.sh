#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The buffer files: trace (and clearing it), trace_pipe (consuming, blocking, O_NONBLOCK),
# trace_marker and trace_marker_raw, snapshot (0/1/2), saved_cmdlines, printk_formats,
# per_cpu/cpuN/trace.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

line_re='^\s*\S+-[0-9]+\s+\[[0-9]{3}\]\s+\.\.\.\.\s+[0-9]+\.[0-9]{6}: '

checks() {
	ok write trace ""
	ok read trace
	has '^# tracer: nop$'
	has '^# entries-in-buffer/entries-written: 0/0   #P:[0-9]+$'
	has '^#           TASK-PID   CPU#  \|\|\|\|    TIMESTAMP  FUNCTION$'

	# Events, trace_printk and a marker, in the kernel's line format.
	ok write events/trev_test/tt_ints/enable 1
	ok fire 2
	ok printk hello from printk
	ok write trace_marker hello marker
	ok read trace
	has '^# entries-in-buffer/entries-written: 4/4 '
	has "${line_re}tt_ints: a=0 b=0 c=0\$"
	has "${line_re}tt_ints: a=1 b=2 c=-1\$"
	has "${line_re}main: hello from printk\$"
	has "${line_re}tracing_mark_write: hello marker\$"
	# Reading `trace` consumes nothing; writing to it is ignored.
	ok read trace
	has '^# entries-in-buffer/entries-written: 4/4 '
	ok append trace whatever
	ok read trace
	has 'tt_ints: a=1'

	# trace_marker_raw: an id, then bytes.
	ok rawwrite trace_marker_raw 2a000000deadbeef
	ok read trace
	has "${line_re}# 2a buf: de ad be ef\$"
	err EINVAL rawwrite trace_marker_raw 0102

	# trace_pipe consumes, oldest first, then blocks: here it gives up after the time-out.
	# (60000 ms where data is waiting: a hang guard only; 200 ms where none comes.)
	ok pipe trace_pipe 60000
	has "${line_re}tt_ints: a=0 b=0 c=0\$"
	has 'tracing_mark_write: hello marker$'
	hasnt '^#'
	ok read trace
	has '^# entries-in-buffer/entries-written: 0/5 '
	err ETIMEDOUT pipe trace_pipe 200
	ok read trace_pipe
	[ -z "$TFS_OUT" ] || fail "O_NONBLOCK trace_pipe read returned data"
	ok fire 1
	ok pipe trace_pipe 60000
	has 'tt_ints: a=0 b=0 c=0$'

	# Recording off: events are refused, a marker write fails as the kernel's does.
	ok write tracing_on 0
	ok fire 3
	err EBADF write trace_marker nothing
	ok write tracing_on 1
	ok read trace
	hasnt 'tt_ints'

	# Clearing with "echo > trace".
	ok fire 2
	ok write trace ""
	ok read trace
	has '^# entries-in-buffer/entries-written: 0/0 '

	# snapshot: freed, then 1 swaps the buffers, 2 clears, 0 frees.
	ok read snapshot
	has '^# \* Snapshot is freed \*$'
	has '^# echo 0 > snapshot : Clears and frees snapshot buffer$'
	ok fire 3
	ok write snapshot 1
	ok read snapshot
	has '^# entries-in-buffer/entries-written: 3/3 '
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 3 ] || fail "snapshot holds 3"
	ok read trace
	has '^# entries-in-buffer/entries-written: 0/0 '
	ok fire 1
	ok read trace
	has 'tt_ints: a=0'
	ok write snapshot 2
	ok read snapshot
	has '^# \* Snapshot is allocated \*$'
	ok write snapshot 0
	ok read snapshot
	has '^# \* Snapshot is freed \*$'
	err EINVAL write snapshot x
	errlog_last 'snapshot: error: Invalid number$' 0
	ok read trace
	has 'tt_ints: a=0'

	# saved_cmdlines: thread id and name of each thread that wrote.
	ok read saved_cmdlines
	has '^[0-9]+ tfs_driver$'

	# printk_formats: the address and text of each trace_printk format.
	ok read printk_formats
	has '^0x[0-9a-f]+ : "%s\\n"$'

	# per_cpu/cpuN/trace: the events that ran on that CPU.
	ok ls per_cpu
	has '^cpu0$'
	err ENOENT ls per_cpu/cpu9999
	err ENOENT ls per_cpu/cpu01
	ok ls per_cpu
	total=0
	for d in $(printf '%s' "$TFS_OUT"); do
		ok read "per_cpu/$d/trace"
		total=$((total + $(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: ' || true)))
	done
	[ "$total" -eq 1 ] || fail "per-CPU traces hold $total events, expected 1"

	# per_cpu/cpuN/trace_pipe consumes that CPU's events; stats count them.
	ok write trace ""
	ok fire 50
	ok ls per_cpu
	cpus=$(printf '%s' "$TFS_OUT")
	total=0
	for d in $cpus; do
		ok read "per_cpu/$d/stats"
		has '^entries: [0-9]+$'
		has '^commit overrun: 0$'
		has '^oldest event ts: +[0-9]+\.[0-9]{6}$'
		has '^read events: 0$'
		n=$(sed -n 's/^entries: //p' <<<"$TFS_OUT")
		ok read "per_cpu/$d/trace_pipe"
		[ "$(grep -c 'tt_ints: ' <<<"$TFS_OUT" || true)" -eq "$n" ] || fail "$d: $n entries"
		total=$((total + n))
		ok read "per_cpu/$d/stats"
		has "^read events: $n\$"
		has '^entries: 0$'
	done
	[ "$total" -eq 50 ] || fail "per-CPU trace_pipes gave $total events, expected 50"

	# per_cpu/cpuN/trace_pipe_raw: whole kernel pages holding that CPU's records.
	ok fire 300
	total=0
	for d in $cpus; do
		ok pages "per_cpu/$d/trace_pipe_raw"
		total=$((total + $(sed -n 's/^[0-9]* pages, \([0-9]*\) events$/\1/p' <<<"$TFS_OUT")))
	done
	[ "$total" -eq 300 ] || fail "trace_pipe_raw pages held $total events, expected 300"
	ok write events/trev_test/tt_ints/enable 0
}

tfs_main
