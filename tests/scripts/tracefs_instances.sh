#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# instances/: mkdir makes an instance with its own buffer, enables, options and files; rmdir
# frees it, refused while one of its files is open.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

checks() {
	is "" ls instances
	ok mkdir instances/foo
	is $'foo\n' ls instances
	is $'d 750\n' stat instances/foo
	err EEXIST mkdir instances/foo
	err EPERM mkdir events/mine
	ok ls instances/foo
	has '^trace_pipe$'
	has '^events$'
	hasnt '^instances$'
	hasnt '^saved_cmdlines$'
	err ENOENT ls instances/foo/instances
	# The function tracer's files of an instance (docs/function-tracer.md, "Instances").
	ok ls instances/foo
	for f in current_tracer set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
		 set_ftrace_notrace_pid; do
		has "^$f\$"
	done
	hasnt '^available_filter_functions$'
	hasnt '^set_graph_function$'
	is $'function nop\n' read instances/foo/available_tracers
	err EINVAL write instances/foo/current_tracer function_graph
	ok write instances/foo/current_tracer function
	is $'function\n' read instances/foo/current_tracer
	is $'nop\n' read current_tracer
	err EINVAL write instances/foo/set_ftrace_pid abc
	ok write instances/foo/set_ftrace_notrace_pid 7
	is $'7\n' read instances/foo/set_ftrace_notrace_pid
	is $'no pid\n' read set_ftrace_notrace_pid
	ok write instances/foo/current_tracer nop

	# Its own enables: the event records into the instance only.
	ok write trace ""
	ok write instances/foo/events/trev_test/tt_ints/enable 1
	is $'0\n' read events/trev_test/tt_ints/enable
	is $'trev_test:tt_ints\n' read instances/foo/set_event
	is "" read set_event
	ok fire 2
	ok read instances/foo/trace
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 2 ] || fail "instance holds 2"
	ok read trace
	hasnt 'tt_ints'

	# Both instances at once: each gets its copy.
	ok write events/trev_test/tt_ints/enable 1
	ok fire 1
	ok read trace
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 1 ] || fail "top holds 1"
	ok read instances/foo/trace
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 3 ] || fail "instance holds 3"
	ok write events/trev_test/tt_ints/enable 0

	# Its own options, clock, size, tracing_on, marker and error_log.
	ok write instances/foo/options/raw 1
	is $'0\n' read options/raw
	ok read instances/foo/trace
	has '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ a=|^ *[0-9]+ [0-9]+ [0-9]+ '
	ok write instances/foo/options/raw 0
	ok write instances/foo/trace_clock mono
	is $'[local] mono mono_raw boot counter\n' read trace_clock
	ok write instances/foo/buffer_size_kb 128
	is $'1408\n' read buffer_size_kb
	is $'128\n' read instances/foo/buffer_size_kb
	ok write instances/foo/tracing_on 0
	is $'1\n' read tracing_on
	ok write instances/foo/tracing_on 1
	ok write instances/foo/trace_marker "only in foo"
	ok read instances/foo/trace
	has 'tracing_mark_write: only in foo$'
	ok read trace
	hasnt 'only in foo'
	ok write error_log ""
	err EINVAL write instances/foo/tracing_on x
	is "" read error_log
	TFS_ROOT=instances/foo/ errlog_last 'tracing_on: error: Invalid number$' 0

	# A second instance, then removal: refused while a file is open.
	ok mkdir instances/bar
	ok ls instances
	[ "$(printf '%s' "$TFS_OUT" | sort | tr '\n' ' ')" = "bar foo " ] || fail "two instances"
	ok hold instances/foo/trace_pipe
	err EBUSY rmdir instances/foo
	ok release
	ok rmdir instances/foo
	err ENOENT ls instances/foo
	err ENOENT rmdir instances/foo
	err ENOENT rmdir instances/nosuch
	# The top instance's event stayed as it was; events still work.
	ok write events/trev_test/tt_ints/enable 1
	ok fire 1
	ok write events/trev_test/tt_ints/enable 0
	ok read trace
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 2 ] || fail "top holds 2"
	ok rmdir instances/bar
	is "" ls instances

	# The limit (docs/tracefs.md, "Instances"): 64 ring buffers, the top's one of them, so
	# 63 instances; the 64th mkdir is ENOSPC with an error_log entry that says so, and an
	# instance removed frees its place.
	for i in $(seq 1 63); do
		ok mkdir "instances/i$i"
	done
	err ENOSPC mkdir instances/i64
	errlog_last '^\[ *[0-9]+\.[0-9]{6}\] instances: error: At most 64 ring buffers at once: the top instance.s, one per instance and one per allocated snapshot$' 0
	has '^  Command: i64$'
	err ENOENT ls instances/i64
	ok rmdir instances/i63
	ok mkdir instances/i64
	ok rmdir instances/i64
	for i in $(seq 1 62); do
		ok rmdir "instances/i$i"
	done
	is "" ls instances
}

tfs_main
