#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# TREV_USER_EVENTS=1 (docs/tracefs.md, "The kernel's user_events"): the program says once
# whether the kernel takes user_events registrations (/sys/kernel/tracing/user_events_data)
# and runs on with its events in trev's own buffers; another value warns and is ignored.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
data=/sys/kernel/tracing/user_events_data

fail() { echo "FAIL: $*"; echo "---- stderr:"; cat "$T/err"; exit 1; }

TREV_USER_EVENTS=1 TREV_EVENTS=trev_test:tt_ints TREV_OUTPUT=stdout "$B/tests/rec_app" 5 2 \
	>"$T/out" 2>"$T/err" || fail "rec_app exited $?"
if [ -e "$data" ]; then
	want="trev: TREV_USER_EVENTS: $data is there, but trev does not register events with the kernel yet: events stay in trev's own buffers"
else
	want="trev: TREV_USER_EVENTS: $data: No such file or directory (a kernel without CONFIG_USER_EVENTS, or no tracefs there): events stay in trev's own buffers"
fi
[ "$(cat "$T/err")" = "$want" ] || fail "stderr is not the one line: $want"
n=$(grep -c ' tt_ints: ' "$T/out")
[ "$n" = 10 ] || fail "$n events in the trace, not 10"
grep -q '^fired 10$' "$T/out" || fail "rec_app did not run to its end"
echo "ok: said once ($( [ -e "$data" ] && echo present || echo absent )), and the 10 events are in the trace"

TREV_USER_EVENTS=yes "$B/tests/rec_app" 1 1 >"$T/out" 2>"$T/err" || fail "rec_app exited $?"
[ "$(cat "$T/err")" = "trev: TREV_USER_EVENTS: 'yes' is not 1 (ignored)" ] ||
	fail "no warning for 'yes'"
echo "ok: TREV_USER_EVENTS=yes warns and is ignored"
