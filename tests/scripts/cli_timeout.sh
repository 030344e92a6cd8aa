#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every reply has a deadline (docs/control-socket.md, "Time-outs"): a process that accepts the
# connection and never answers, one that sends part of a header and stalls, one that answers
# HELLO but not OPEN, and one that never accepts (tests/control/fake_server.py, listening as
# the process itself) each end `trev cat`, `trev stat`, `trev ls` and `trev write` with one line
# naming the process and the request, and exit status 1, within TREV_TIMEOUT (or --timeout).
# `timeout` only detects a hang. A bad TREV_TIMEOUT or --timeout is a usage error.
set -uo pipefail
export LC_ALL=C

command -v python3 >/dev/null || { echo "cli_timeout: python3 is missing"; exit 77; }
trev="$TREV_BUILD_DIR/tools/trev/trev"
fake="$TREV_SOURCE_DIR/tests/control/fake_server.py"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

# fake HOW: a fake server serving $TREV_SOCKET_DIR/PID.sock as process PID ($app); HOW as in
# fake_server.py
fake() {
	: >"$T/fake.out"
	python3 "$fake" "$TREV_SOCKET_DIR" self "$T/fake.log" "$1" >"$T/fake.out" 2>&1 &
	pids+=($!)
	wait_ready "$T/fake.out"
}

# hangs_up STATUS LINE CMD...: CMD ends (not by the hang guard) with STATUS, LINE first on stderr
hangs_up() {
	local want=$1 line=$2
	shift 2
	run "$want" timeout "$WAIT_GUARD" "$@"
	err_is 1 "$line"
}

# ---- Accepts and never answers ------------------------------------------------------------------
fake silent
silent=$app
export TREV_TIMEOUT=1
hangs_up 1 "trev: process $silent did not answer HELLO within 1 s" "$trev" cat -p "$silent" tracing_on
[ -s "$out" ] && fail "something was printed"
hangs_up 1 "trev: process $silent did not answer HELLO within 1 s" "$trev" stat -p "$silent"
hangs_up 1 "trev: process $silent did not answer HELLO within 1 s" "$trev" ls -p "$silent" events
hangs_up 1 "trev: process $silent did not answer HELLO within 1 s" \
	"$trev" write -p "$silent" tracing_on 0
# The option wins over the environment; fractions of a second.
hangs_up 1 "trev: process $silent did not answer HELLO within 0.5 s" \
	"$trev" --timeout=0.5 cat -p "$silent" tracing_on
hangs_up 1 "trev: process $silent did not answer HELLO within 2 s" \
	"$trev" --timeout 2 cat -p "$silent" tracing_on
unset TREV_TIMEOUT

# ---- A partial header, then nothing ---------------------------------------------------------------
fake partial
partial=$app
hangs_up 1 "trev: process $partial did not answer HELLO within 1 s" \
	env TREV_TIMEOUT=1 "$trev" cat -p "$partial" tracing_on
hangs_up 1 "trev: process $partial did not answer HELLO within 1 s" \
	env TREV_TIMEOUT=1 "$trev" stat -p "$partial"

# ---- HELLO answered, OPEN not ---------------------------------------------------------------------
fake ""
liar=$app
run 0 env TREV_TIMEOUT=1 "$trev" cat -p "$liar" text
[ "$(cat "$out")" = "fake text from $liar" ] || fail "the fake server's text reads '$(cat "$out")'"
hangs_up 1 "trev: process $liar did not answer OPEN within 1 s" \
	env TREV_TIMEOUT=1 "$trev" cat -p "$liar" silent_open
err_is 2 "trev: silent_open: Connection timed out"
hangs_up 1 "trev: process $liar did not answer OPEN within 1 s" \
	env TREV_TIMEOUT=1 "$trev" write -p "$liar" silent_open 1

# ---- Never accepts: the first connection is queued (HELLO unanswered), the next wait in connect ----
fake noaccept
deaf=$app
hangs_up 1 "trev: process $deaf did not answer HELLO within 1 s" \
	env TREV_TIMEOUT=1 "$trev" cat -p "$deaf" tracing_on
hangs_up 1 "trev: process $deaf did not accept the connection within 1 s" \
	env TREV_TIMEOUT=1 "$trev" cat -p "$deaf" tracing_on
hangs_up 1 "trev: process $deaf did not accept the connection within 1 s" \
	env TREV_TIMEOUT=1 "$trev" stat -p "$deaf"

# ---- Bad values -----------------------------------------------------------------------------------
for bad in x -1 1e9 "" 1s; do
	run 2 "$trev" --timeout="$bad" cat -p "$liar" text
	err_is 1 "trev: --timeout: '$bad' is not a number of seconds from 0 (no time-out) to 86400"
done
run 2 env TREV_TIMEOUT=soon "$trev" cat -p "$liar" text
err_is 1 "trev: TREV_TIMEOUT: 'soon' is not a number of seconds from 0 (no time-out) to 86400"
run 2 "$trev" --timeout
run 2 "$trev" --timeoutx=1 cat -p "$liar" text
# 0 waits for ever: the well-formed exchange goes through.
run 0 "$trev" --timeout=0 cat -p "$liar" text
[ "$(cat "$out")" = "fake text from $liar" ] || fail "--timeout=0: the text reads '$(cat "$out")'"

echo "cli_timeout: ok"
