#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Start-up configuration through the tree: TREV_CLOCK, TREV_OPTIONS, TREV_WRITE (in order, for
# events that appear later, \; and \\ in a value), TREV_BUFFER_KB; bad values warn once and are
# ignored.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"
TFS_MODE=env
errfile=$(mktemp)
trap 'tfs_stop; rm -f "$errfile"' EXIT

start() {
	coproc TFS { exec "$TFS_DRIVER" api 2>"$errfile"; }
	TFS_DPID=$TFS_PID
	local first
	read -r first <&"${TFS[0]}" || fail "driver did not start: $(cat "$errfile")"
	[ "$first" = ready ] || fail "driver: $first"
}

# Good values.
TREV_CLOCK=mono TREV_OPTIONS='nocontext-info,sym-offset' TREV_BUFFER_KB=256 \
	TREV_WRITE='events/trev_test/tt_ints/enable=1;events/trev_test/tt_ints/filter=a > 0;synthetic_events=lat_ev u64 lat\; int id;trace_marker=back\\slash\;semi' \
	start
is $'lat_ev\tu64 lat; int id\n' read synthetic_events
ok read trace
has ' back\\slash;semi$'
is $'local [mono] mono_raw boot counter\n' read trace_clock
is $'0\n' read options/context-info
is $'1\n' read options/sym-offset
is $'256\n' read buffer_size_kb
is $'1\n' read events/trev_test/tt_ints/enable
is $'a > 0\n' read events/trev_test/tt_ints/filter
tfs_stop
[ ! -s "$errfile" ] || fail "warnings for good values: $(cat "$errfile")"

# Bad values: one warning each, and the program runs with the defaults.
TREV_CLOCK=sundial TREV_OPTIONS='raw,nosuch' TREV_BUFFER_KB=12lots \
	TREV_WRITE='tracing_on=maybe;noequals;events/nosys/nosuch/enable=1;trace_marker=hi' \
	start
is $'[local] mono mono_raw boot counter\n' read trace_clock
is $'1\n' read options/raw
is $'1408\n' read buffer_size_kb
is $'1\n' read tracing_on
ok read trace
has '^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ hi$'
tfs_stop
grep -q "TREV_CLOCK: 'sundial' to trace_clock refused: Invalid argument (ignored)" "$errfile" ||
	fail "no TREV_CLOCK warning: $(cat "$errfile")"
grep -q "TREV_OPTIONS: 'nosuch' to trace_options refused" "$errfile" || fail "TREV_OPTIONS warning"
grep -q "TREV_BUFFER_KB: '12lots' is not a size in KiB (ignored)" "$errfile" || fail "TREV_BUFFER_KB"
grep -q "TREV_WRITE: 'maybe' to tracing_on refused: Invalid argument" "$errfile" || fail "TREV_WRITE bad"
grep -q "TREV_WRITE: 'noequals' is not path=value" "$errfile" || fail "TREV_WRITE syntax"
grep -q "TREV_WRITE: events/nosys/nosuch/enable: no such file" "$errfile" || fail "TREV_WRITE missing"
[ "$(grep -c 'TREV_' "$errfile")" -eq 6 ] || fail "expected 6 warnings: $(cat "$errfile")"
echo "env: passed"
