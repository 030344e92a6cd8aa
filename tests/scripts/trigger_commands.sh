#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# events/<sys>/<ev>/trigger: the kernel's commands written with echo, listed the kernel's way,
# acting on the events fired (traceoff with a condition and a count, enable_event and soft
# mode, snapshot, stacktrace), refused with EEXIST/EINVAL and an error_log column, removed
# with '!' and by O_TRUNC, per instance.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

T=events/trev_test/tt_ints/trigger

checks() {
	ok read $T
	has '^# Available triggers:$'
	has '^# traceon traceoff snapshot stacktrace enable_event disable_event'

	# traceoff:1 if a == 3 - soft mode first (0*), then enabled (1*); a post trigger.
	ok write $T 'traceoff:1 if a == 3'
	is $'traceoff:count=1 if a == 3\n' read $T
	is $'0*\n' read events/trev_test/tt_ints/enable
	ok write events/trev_test/tt_ints/enable 1
	is $'1*\n' read events/trev_test/tt_ints/enable
	ok write trace ""
	ok fire 5
	is $'0\n' read tracing_on
	ok read trace
	has 'tt_ints: a=3 '
	hasnt 'tt_ints: a=4 '
	is $'traceoff:count=0 if a == 3\n' read $T
	ok write tracing_on 1

	# Duplicates and bad lines leave everything as it was.
	err EEXIST append $T traceon
	err EINVAL append $T 'snapshot:x'
	errlog_last 'trigger: error: Invalid count$' 9
	err EINVAL append $T 'explode:now'
	errlog_last 'trigger: error: Unknown trigger command$' 0
	err EINVAL append $T 'enable_event:trev_test:nosuch'
	errlog_last 'trigger: error: Event not found$' 13
	is $'traceoff:count=0 if a == 3\n' read $T

	# enable_event puts its target in soft mode and enables it when the event fires.
	ok append $T 'enable_event:trev_test:tt_open'
	is $'0*\n' read events/trev_test/tt_open/enable
	ok fire 1
	is $'1*\n' read events/trev_test/tt_open/enable
	ok append $T '!enable_event:trev_test:tt_open'
	is $'1\n' read events/trev_test/tt_open/enable
	ok write events/trev_test/tt_open/enable 0

	# snapshot:1 if a == 1 - what was recorded before a=1 goes to the snapshot.
	ok append $T '!traceoff'
	ok write trace ""
	ok append $T 'snapshot:1 if a == 1'
	ok fire 3
	ok read snapshot
	has 'tt_ints: a=0 '
	hasnt 'tt_ints: a=2 '
	ok read trace
	has 'tt_ints: a=2 '
	hasnt 'tt_ints: a=0 '
	err EBUSY write snapshot 0

	# stacktrace - an ftrace:kernel_stack record after the event.
	ok append $T 'stacktrace:1'
	is $'stacktrace:count=1\nsnapshot:count=0 if a == 1\n' read $T
	ok write trace ""
	ok fire 2
	ok read trace
	has '<stack trace>$'
	has '^ => '
	[ "$(grep -c '<stack trace>' <<<"$TFS_OUT")" -eq 1 ] || fail "one stack for stacktrace:1"
	is $'12\n' read events/ftrace/kernel_stack/id

	# O_TRUNC removes every trigger; the event leaves soft mode.
	ok write $T ""
	ok read $T
	has '^# Available triggers:$'
	is $'1\n' read events/trev_test/tt_ints/enable
	ok write events/trev_test/tt_ints/enable 0
	ok write snapshot 0

	# An instance's triggers are its own, and go with it.
	ok mkdir instances/trig
	ok write instances/trig/$T 'enable_event:trev_test:tt_open'
	is $'enable_event:trev_test:tt_open:unlimited\n' read instances/trig/$T
	is $'0*\n' read instances/trig/events/trev_test/tt_open/enable
	is $'0\n' read events/trev_test/tt_open/enable
	ok read $T
	has '^# Available triggers:$'
	ok rmdir instances/trig
	is $'0\n' read events/trev_test/tt_ints/enable
}

tfs_main
