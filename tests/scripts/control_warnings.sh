#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The library's warnings are whole lines (src/base/log.c): a bad TREV_SOCKET, a bad
# TREV_ATTACH_WAIT and the start-up hold's time-out each print one line of its own, ended by a
# newline, so the next message does not run on after it. A TREV_OUTPUT text that a full disk
# cut short says so.
set -uo pipefail
export LC_ALL=C

rec_app="$TREV_BUILD_DIR/tests/rec_app"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

ends_with_newline() {
	[ -s "$errf" ] && [ "$(tail -c1 "$errf" | od -An -tx1 | tr -d ' ')" = 0a ]
}

# Two warnings at start-up: each alone on its line.
run 0 env TREV_SOCKET=2 TREV_ATTACH_WAIT=abc "$rec_app" 1
grep -qx 'trev: TREV_SOCKET=2: not 0 or 1; ignored' "$errf" ||
	fail "TREV_SOCKET=2's warning is not a line of its own"
grep -qx 'trev: TREV_ATTACH_WAIT=abc: not 1..3600 seconds; ignored' "$errf" ||
	fail "TREV_ATTACH_WAIT=abc's warning is not a line of its own"
ends_with_newline || fail "stderr does not end with a newline"

# The start-up hold ends without a recorder: its warning ends with a newline too.
run 0 env TREV_ATTACH_WAIT=1 "$rec_app" 1
grep -qx 'trev: TREV_ATTACH_WAIT: no RELEASE from a recorder within 1 s; running on' "$errf" ||
	fail "the hold's time-out warning is not a line of its own"
ends_with_newline || fail "stderr does not end with a newline"
has '^fired 1$'

# TREV_OUTPUT on a full disk (/dev/full): the text cut short is said, not hidden.
run 0 env TREV_SOCKET=0 TREV_EVENTS='trev_test:*' TREV_OUTPUT=/dev/full "$rec_app" 10 1
grep -qx 'trev: TREV_OUTPUT: writing /dev/full: No space left on device; the trace text is cut short' "$errf" ||
	fail "a TREV_OUTPUT that cannot be written is not said"
echo "control_warnings: ok"
