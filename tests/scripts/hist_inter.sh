#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A request's latency as a synthetic event (docs/hist.md, "Example: request latency"): a hist
# variable saved on the request's start (tt_open), read by its end (tt_close) with the same id,
# an onmatch() that fires req_latency with the latency, the id and a string field, and the
# synthetic event's own hist; through the C API and a FUSE mount. Checked exactly: which
# synthetic records exist (one per start matched by an end, none for an end without a start or
# a second end), their ids and names, their hist; the trigger lines as the kernel prints them;
# error_log's text and caret; EBUSY for what a trigger references.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

OPEN=events/trev_test/tt_open
CLOSE=events/trev_test/tt_close
S=events/synthetic/req_latency
START='hist:keys=id:ts0=common_timestamp.usecs'
END='hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(trev_test.tt_open).req_latency($lat,id,what)'

checks() {
	ok write synthetic_events ''
	ok append synthetic_events 'req_latency u64 lat; int id; char name[16]'
	ok append $OPEN/trigger "$START"
	ok append $CLOSE/trigger "$END"
	ok append $S/trigger 'hist:keys=id,name:sort=id'
	ok write $S/enable 1

	ok fireclose 9 early		# an end with no start: nothing
	ok fireopen 1 one
	ok fireopen 2 two
	ok fireclose 2 two
	ok fireclose 1 one
	ok fireclose 1 again		# its start was consumed: nothing
	ok fireopen 1 three
	ok fireclose 1 three
	ok write $S/enable 0

	ok read trace
	[ "$(grep -c 'req_latency: ' <<<"$TFS_OUT")" = 3 ] || fail "not 3 synthetic records"
	[ "$(grep -oE 'req_latency: lat=[0-9]+ id=-?[0-9]+ name=[a-z]+$' <<<"$TFS_OUT" |
		sed -E 's/lat=[0-9]+ //')" = $'req_latency: id=2 name=two\nreq_latency: id=1 name=one\nreq_latency: id=1 name=three' ] ||
		fail "synthetic records"
	is $'# event histogram\n#\n# trigger info: hist:keys=id,name:vals=hitcount:sort=id:size=2048 [active]\n#\n\n{ id:          1, name: one                                                } hitcount:          1\n{ id:          1, name: three                                              } hitcount:          1\n{ id:          2, name: two                                                } hitcount:          1\n\nTotals:\n    Hits: 3\n    Entries: 3\n    Dropped: 0\n' read $S/hist

	# The trigger lines as the kernel prints them; the ends that found a start, per id.
	is "hist:keys=id:vals=hitcount:lat=common_timestamp.usecs-\$ts0:sort=hitcount:size=2048:onmatch(trev_test.tt_open).req_latency(\$lat,id,what) [active]"$'\n' read $CLOSE/trigger
	is "hist:keys=id:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048 [active]"$'\n' read $OPEN/trigger
	ok read $CLOSE/hist
	has '^\{ id:          2 \} hitcount:          1$'
	has '^\{ id:          1 \} hitcount:          2$'
	has '^    Hits: 3$'

	# Errors: the kernel's text, the caret where the kernel puts it; nothing changes.
	err EINVAL append $CLOSE/trigger 'hist:keys=id:x=id-$nope'
	errlog_last 'hist:trev_test:tt_close: error: Couldn.t find variable$' 19
	err EINVAL append $CLOSE/trigger 'hist:keys=id:onmatch(trev_test.tt_open).req_latency($ts0,id)'
	errlog_last 'hist:trev_test:tt_close: error: Param count doesn.t match synthetic event field count$' 57
	err EINVAL append $CLOSE/trigger 'hist:keys=id:x=common_timestamp.usecs-common_timestamp'
	errlog_last 'hist:trev_test:tt_close: error: Timestamp units in expression don.t match$' 0

	# What a trigger references stays: the synthetic event, the start's variable.
	err EBUSY append synthetic_events '!req_latency'
	err EBUSY append $OPEN/trigger "!$START"
	ok append $CLOSE/trigger "!$END"
	ok append $OPEN/trigger "!$START"
	ok append $S/trigger '!hist:keys=id,name:sort=id'
	ok append synthetic_events '!req_latency'
	is '' read synthetic_events
}

tfs_main
