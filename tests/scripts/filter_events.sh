#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Event filters through the tree: events/<sys>/<ev>/filter keeps only the matching events in
# `trace`; a bad filter is refused with its error_log entry and caret and the old filter stays;
# instances filter independently; events/<sys>/filter goes to the events that have the fields.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

# The a= values of the tt_ints lines of the last `read trace`, space-separated.
ints_seen() {
	grep -oE 'tt_ints: a=-?[0-9]+' <<<"$TFS_OUT" | sed 's/.*a=//' | tr '\n' ' '
}

checks() {
	ok write trace ""
	ok write events/trev_test/tt_ints/enable 1
	ok write events/trev_test/tt_open/enable 1

	# Numbers (a=i b=2i c=-i), precedence, negation.
	ok write events/trev_test/tt_ints/filter 'a >= 2 && a < 5 || c == -7'
	is $'a >= 2 && a < 5 || c == -7\n' read events/trev_test/tt_ints/filter
	ok fire 9
	ok read trace
	[ "$(ints_seen)" = "2 3 4 7 " ] || fail "kept [$(ints_seen)]"
	ok write trace ""
	ok write events/trev_test/tt_ints/filter '!(b & 2) && (a == 1 || a == 4 || a == 0x6)'
	ok fire 8
	ok read trace
	[ "$(ints_seen)" = "4 6 " ] || fail "kept [$(ints_seen)]"

	# A bad filter: EINVAL, error_log with the caret, the old filter in force.
	err EINVAL write events/trev_test/tt_ints/filter 'a > 1 && nosuch == 3'
	errlog_last 'event filter parse error: error: Field not found$' 16
	ok read error_log
	has '^  Command: a > 1 && nosuch == 3$'
	err EINVAL write events/trev_test/tt_ints/filter 'a == 1)'
	errlog_last "event filter parse error: error: Too few '\\('$" 6
	err EINVAL write events/trev_test/tt_ints/filter 'a == "x"'
	errlog_last 'event filter parse error: error: Expecting numeric field$' 6
	is $'!(b & 2) && (a == 1 || a == 4 || a == 0x6)\n' read events/trev_test/tt_ints/filter
	ok write trace ""
	ok fire 8
	ok read trace
	[ "$(ints_seen)" = "4 6 " ] || fail "old filter not in force: [$(ints_seen)]"

	# Strings: __string with globs, COMM, common fields.
	ok write trace ""
	ok write events/trev_test/tt_open/filter 'what ~ "*.conf" && id != 2'
	ok fireopen 1 /etc/a.conf
	ok fireopen 2 /etc/b.conf
	ok fireopen 3 /etc/c.txt
	ok fireopen 4 'x.conf'
	ok read trace
	has 'tt_open: id=1 what=/etc/a.conf$'
	has 'tt_open: id=4 what=x.conf$'
	hasnt 'id=2 '
	hasnt 'id=3 '
	ok write trace ""
	ok write events/trev_test/tt_open/filter 'COMM == "tfs_driver" && common_pid > 0 && CPU >= 0'
	ok fireopen 5 yes
	ok write events/trev_test/tt_open/filter 'COMM ~ "bash*"'
	ok fireopen 6 no
	ok read trace
	has 'tt_open: id=5 what=yes$'
	hasnt 'id=6 '
	ok write events/trev_test/tt_open/filter 0
	is $'none\n' read events/trev_test/tt_open/filter

	# Instances have their own filters.
	ok mkdir instances/flt
	ok write instances/flt/events/trev_test/tt_ints/enable 1
	ok write instances/flt/events/trev_test/tt_ints/filter 'a == 3'
	is $'a == 3\n' read instances/flt/events/trev_test/tt_ints/filter
	is $'!(b & 2) && (a == 1 || a == 4 || a == 0x6)\n' read events/trev_test/tt_ints/filter
	ok write trace ""
	ok fire 8
	ok read trace
	[ "$(ints_seen)" = "4 6 " ] || fail "top kept [$(ints_seen)]"
	ok read instances/flt/trace
	[ "$(ints_seen)" = "3 " ] || fail "instance kept [$(ints_seen)]"
	err EINVAL write instances/flt/events/trev_test/tt_ints/filter 'a ='
	TFS_ROOT=instances/flt/ errlog_last 'event filter parse error: error: Invalid operator$' 3
	is $'a == 3\n' read instances/flt/events/trev_test/tt_ints/filter
	ok write instances/flt/events/trev_test/tt_ints/enable 0
	ok rmdir instances/flt

	# The system filter: set where the fields exist, the others named in error_log.
	ok write events/trev_test/filter 'id > 10'
	is $'id > 10\n' read events/trev_test/filter
	is $'id > 10\n' read events/trev_test/tt_open/filter
	is $'id > 10\n' read events/trev_test/tt_close/filter
	ok read error_log
	has 'event filter parse error: error: tt_ints: Field not found$'
	is $'!(b & 2) && (a == 1 || a == 4 || a == 0x6)\n' read events/trev_test/tt_ints/filter
	ok write trace ""
	ok fireopen 3 low
	ok fireopen 11 high
	ok read trace
	has 'tt_open: id=11 what=high$'
	hasnt 'id=3 '
	# No event has the field: EINVAL, the kernel's message, nothing changes.
	err EINVAL write events/trev_test/filter 'nosuch == 1'
	errlog_last "event filter parse error: error: Couldn't find or set field in one of a subsystem's events$" 0
	is $'id > 10\n' read events/trev_test/filter
	is $'id > 10\n' read events/trev_test/tt_open/filter
	# Common fields are everywhere.
	ok write events/trev_test/filter 'common_pid != 0'
	is $'common_pid != 0\n' read events/trev_test/tt_ints/filter
	ok write events/trev_test/filter 0
	ok read events/trev_test/filter
	has '^### global filter ###$'
	is $'none\n' read events/trev_test/tt_ints/filter
	is $'none\n' read events/trev_test/tt_open/filter

	ok write events/trev_test/tt_ints/enable 0
	ok write events/trev_test/tt_open/enable 0
}

tfs_main
