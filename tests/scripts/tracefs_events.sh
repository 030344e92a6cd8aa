#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The event files: available_events, set_event (sys:ev, sys:*, *:ev, !, >> and >),
# events/enable with its mixed state, events/<sys>/{enable,filter},
# events/<sys>/<ev>/{enable,filter,trigger,format,id}, header_page and header_event.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

checks() {
	ok read available_events
	has '^trev_test:tt_ints$'
	has '^trev_test:tt_open$'
	hasnt '^ftrace:'
	ok ls events
	has '^trev_test$'
	has '^ftrace$'
	has '^enable$'
	has '^header_page$'
	ok ls events/trev_test
	has '^tt_ints$'
	has '^filter$'
	ok ls events/trev_test/tt_ints
	[ "$(printf '%s' "$TFS_OUT" | sort | tr '\n' ' ')" = "enable filter format hist hist_debug id trigger " ] ||
		fail "tt_ints files"
	ok ls events/ftrace/print
	[ "$(printf '%s' "$TFS_OUT" | sort | tr '\n' ' ')" = "format hist id trigger " ] ||
		fail "ftrace/print files"
	ok ls events/ftrace/raw_data
	[ "$(printf '%s' "$TFS_OUT" | sort | tr '\n' ' ')" = "format hist id " ] ||
		fail "ftrace/raw_data files"
	is $'5\n' read events/ftrace/print/id
	is $'18\n' read events/ftrace/raw_data/id
	ok read events/trev_test/tt_ints/id
	[ "${TFS_OUT%$'\n'}" -ge 1000 ] || fail "TRACE_EVENT ids start at 1000"
	ok read events/trev_test/tt_ints/format
	has '^name: tt_ints$'
	has '^	field:int a;	offset:8;	size:4;	signed:1;$'
	has '^print fmt: '
	ok read events/header_page
	has '^	field: u64 timestamp;	offset:0;	size:8;	signed:0;$'
	ok read events/header_event
	has 'type_len'
	err ENOENT read events/trev_test/nosuch/format
	err ENOENT read events/nosuch/enable

	# Nothing enabled yet.
	is "" read set_event
	is $'0\n' read events/enable
	is $'0\n' read events/trev_test/enable
	is $'0\n' read events/trev_test/tt_ints/enable

	# set_event: a term, a system, "*:ev", "!" and append.
	ok write set_event trev_test:tt_ints
	is $'trev_test:tt_ints\n' read set_event
	is $'1\n' read events/trev_test/tt_ints/enable
	is $'X\n' read events/trev_test/enable
	is $'X\n' read events/enable
	ok append set_event '*:tt_open'
	ok read set_event
	has '^trev_test:tt_ints$'
	has '^trev_test:tt_open$'
	ok append set_event '!trev_test:tt_ints'
	is $'trev_test:tt_open\n' read set_event
	ok write set_event 'trev_test:*'
	is $'1\n' read events/trev_test/enable
	is $'1\n' read events/enable
	ok write set_event tt_close
	is $'trev_test:tt_close\n' read set_event
	# Truncating (echo > set_event) disables everything.
	ok writen set_event ""
	is "" read set_event

	# A bad term: EINVAL, an error_log entry, and nothing changes.
	ok write set_event trev_test:tt_ints
	err EINVAL append set_event nosuch:event
	errlog_last 'set_event: error: No such event$' 0
	ok read error_log
	has '^  Command: nosuch:event$'
	err EINVAL append set_event '!nosuch'
	errlog_last 'set_event: error: No such event$' 1
	is $'trev_test:tt_ints\n' read set_event

	# Group enable files.
	ok write events/trev_test/enable 1
	is $'1\n' read events/trev_test/tt_flags/enable
	ok write events/enable 0
	is $'0\n' read events/trev_test/tt_flags/enable
	is "" read set_event
	err EINVAL write events/trev_test/enable 2
	errlog_last 'enable: error: Invalid value \(0 or 1\)$' 0
	err EINVAL write events/enable yes
	err EINVAL write events/trev_test/tt_ints/enable -1
	is $'0\n' read events/trev_test/tt_ints/enable
	ok write events/trev_test/tt_ints/enable 1
	is $'trev_test:tt_ints\n' read set_event
	ok write events/trev_test/tt_ints/enable 0

	# Enabled events record; disabled ones do not.
	ok write trace ""
	ok write events/trev_test/tt_ints/enable 1
	ok fire 3
	ok write events/trev_test/tt_ints/enable 0
	ok fire 2
	ok read trace
	[ "$(printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=')" -eq 3 ] || fail "3 events expected"

	# filter: compiled (tests/scripts/filter_events.sh checks what it keeps).
	is $'none\n' read events/trev_test/tt_ints/filter
	ok write events/trev_test/tt_ints/filter 'a > 1'
	is $'a > 1\n' read events/trev_test/tt_ints/filter
	ok write events/trev_test/tt_ints/filter 0
	is $'none\n' read events/trev_test/tt_ints/filter
	ok read events/trev_test/filter
	has '^### global filter ###$'
	ok write events/trev_test/filter 'common_pid != 0'
	is $'common_pid != 0\n' read events/trev_test/filter
	is $'common_pid != 0\n' read events/trev_test/tt_open/filter
	ok write events/trev_test/filter 0
	is $'none\n' read events/trev_test/tt_open/filter

	# trigger: the kernel's listing; commands added, removed with "!", cleared by O_TRUNC.
	ok read events/trev_test/tt_ints/trigger
	has '^# Available triggers:$'
	ok append events/trev_test/tt_ints/trigger traceoff
	ok append events/trev_test/tt_ints/trigger 'snapshot:1'
	is $'snapshot:count=1\ntraceoff:unlimited\n' read events/trev_test/tt_ints/trigger
	ok append events/trev_test/tt_ints/trigger '!traceoff'
	is $'snapshot:count=1\n' read events/trev_test/tt_ints/trigger
	err EINVAL append events/trev_test/tt_ints/trigger 'explode:now'
	errlog_last 'trigger: error: Unknown trigger command$' 0
	ok write events/trev_test/tt_ints/trigger traceon
	is $'traceon:unlimited\n' read events/trev_test/tt_ints/trigger
	ok writen events/trev_test/tt_ints/trigger ""
	ok read events/trev_test/tt_ints/trigger
	has '^# Available triggers:$'
}

tfs_main
