#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The control files at the top of the tree: tracing_on, trace_clock, trace_options and
# options/, buffer_size_kb, buffer_total_size_kb, the tracers, error_log; each bad write's
# errno, its error_log entry, and the state left as it was.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

checks() {
	# The tree's root.
	ok ls ""
	for f in available_events available_filter_functions available_tracers buffer_size_kb buffer_total_size_kb \
		 current_tracer error_log events instances max_graph_depth options per_cpu printk_formats \
		 saved_cmdlines set_event set_ftrace_filter set_ftrace_notrace set_ftrace_notrace_pid set_ftrace_pid set_graph_function \
		 set_graph_notrace snapshot trace trace_clock trace_marker \
		 trace_marker_raw trace_options trace_pipe tracing_on tracing_thresh; do
		has "^$f\$"
	done
	is $'d 750\n' stat events
	is $'f 640\n' stat tracing_on
	is $'f 220\n' stat trace_marker
	err ENOENT read nosuchfile
	err ENOENT stat events/nosuchsystem
	err EISDIR read events
	err EACCES read trace_marker
	err EACCES write available_events 1

	# tracing_on
	is $'1\n' read tracing_on
	ok write tracing_on 0
	is $'0\n' read tracing_on
	ok writen tracing_on 1
	is $'1\n' read tracing_on
	err EINVAL write tracing_on abc
	is $'1\n' read tracing_on
	errlog_last '^\[ *[0-9]+\.[0-9]{6}\] tracing_on: error: Invalid number$' 0
	ok read error_log
	has '^  Command: abc$'

	# trace_clock: the kernel's [selected] display
	is $'[local] mono mono_raw boot counter\n' read trace_clock
	ok write trace_clock mono
	is $'local [mono] mono_raw boot counter\n' read trace_clock
	err EINVAL write trace_clock sundial
	is $'local [mono] mono_raw boot counter\n' read trace_clock
	errlog_last 'trace_clock: error: Unknown clock$' 0
	# The counter is no time: trace shows the count, 12 wide, as the kernel shows a clock that
	# does not count ns; a ns clock shows seconds.microseconds.
	ok write trace_clock counter
	ok write events/trev_test/tt_ints/enable 1
	ok fire 2
	ok read trace
	has '^\s*\S+-[0-9]+\s+\[[0-9]{3}\]\s+\S{4} [ 0-9]{11}[0-9]: tt_ints: a=1 '
	hasnt '\]\s+\S{4}\s+[0-9]+\.[0-9]{6}: tt_ints'
	ok write trace_clock local
	ok fire 1
	ok write events/trev_test/tt_ints/enable 0
	ok read trace
	has '^\s*\S+-[0-9]+\s+\[[0-9]{3}\]\s+\S{4}\s+[0-9]+\.[0-9]{6}: tt_ints: a=0 '
	ok write trace ""

	# trace_options and options/
	ok read trace_options
	has '^print-parent$'
	has '^nohex$'
	has '^context-info$'
	has '^overwrite$'
	ok write trace_options hex
	ok read trace_options
	has '^hex$'
	is $'1\n' read options/hex
	ok write options/hex 0
	is $'0\n' read options/hex
	ok write trace_options nooverwrite
	is $'0\n' read options/overwrite
	ok write options/overwrite 1
	err EINVAL write trace_options nosuchoption
	errlog_last 'trace_options: error: Unknown option$' 0
	err EINVAL write options/raw 2
	is $'0\n' read options/raw
	err ENOENT read options/nosuch
	ok ls options
	has '^sym-offset$'

	# buffer_size_kb
	is $'1408\n' read buffer_size_kb
	ok write buffer_size_kb 64
	is $'64\n' read buffer_size_kb
	err EINVAL write buffer_size_kb 0
	err EINVAL write buffer_size_kb -5
	err EINVAL write buffer_size_kb 12k
	is $'64\n' read buffer_size_kb
	errlog_last 'buffer_size_kb: error: Invalid size$' 0
	# A buffer exists once a thread has written.
	ok write events/trev_test/tt_ints/enable 1
	ok fire 1
	ok write events/trev_test/tt_ints/enable 0
	ok read buffer_total_size_kb
	[ "${TFS_OUT%$'\n'}" -ge 64 ] || fail "buffer_total_size_kb below one buffer"
	ok write buffer_size_kb 1408

	# tracers
	is $'function_graph function nop\n' read available_tracers
	is $'nop\n' read current_tracer
	ok write current_tracer nop
	err EINVAL write current_tracer function_grap
	errlog_last 'current_tracer: error: No such tracer$' 0

	# error_log: truncating clears it; the kernel keeps the last 16 entries
	for i in $(seq 20); do err EINVAL write tracing_on "bad$i"; done
	ok read error_log
	[ "$(printf '%s\n' "$TFS_OUT" | grep -c 'error:')" -eq 16 ] || fail "error_log keeps 16"
	has '^  Command: bad20$'
	hasnt '^  Command: bad4$'
	ok write error_log ""
	is "" read error_log
}

tfs_main
