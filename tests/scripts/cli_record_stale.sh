#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A `trev record -a` that was killed leaves record-all.sock in the user's socket directory
# (docs/sessions.md). Every later process of the user sees it, tries to join, is refused:
# that must leave it as if there were no session. `trev record --no-follow -- CMD` holds CMD
# with TREV_ATTACH_WAIT: the hold must still be kept, and CMD recorded from its first event.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"

# The socket a dead recorder leaves: bound, then its process gone (nobody listens).
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$TREV_SOCKET_DIR/record-all.sock" || fail "could not make the stale socket"
[ -S "$TREV_SOCKET_DIR/record-all.sock" ] || fail "no stale socket"

run 0 "$trev" record --no-follow -e trev_test:tt_ints -o "$T/s.dat" -- "$B/tests/rec_app" 300 1
grep -q '^fired 300$' "$out" || fail "rec_app did not run to its end: $(cat "$out")"
read -r n lost < <(sed -nE 's/^trev: ([0-9]+) events, ([0-9]+) lost.*/\1 \2/p' "$errf")
[ "${n:-0}" = 300 ] && [ "${lost:-1}" = 0 ] ||
	fail "--no-follow beside a stale record-all.sock: '${n:-} events, ${lost:-} lost', not 300 and 0: $(cat "$errf")"

# Followed: TREV_SESSION is the recorder's own; the stale socket is not looked at.
run 0 "$trev" record -e trev_test:tt_ints -o "$T/f.dat" -- sh -c "'$B/tests/rec_app' 200 1"
read -r n lost < <(sed -nE 's/^trev: ([0-9]+) events, ([0-9]+) lost.*/\1 \2/p' "$errf")
[ "${n:-0}" = 200 ] && [ "${lost:-1}" = 0 ] || fail "followed: '${n:-} events, ${lost:-} lost', not 200 and 0"
echo PASS
