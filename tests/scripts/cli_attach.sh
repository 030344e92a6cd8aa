#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A running program (tests/control/ctl_app.c) enabled, filtered and read from outside with the
# trev command over its control socket: the trace and trace_pipe show only the events the
# filter keeps; a refused filter leaves the old one in force; clearing it lets all through.
set -uo pipefail
export LC_ALL=C

app_bin="$TREV_BUILD_DIR/tests/ctl_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

# events MIN: at least MIN tt_ints lines in $out; their a values in $out.a
events() {
	grep -oE 'tt_ints: a=[0-9]+ ' "$out" | sed 's/.*a=//; s/ $//' >"$out.a"
	[ "$(wc -l <"$out.a")" -ge "$1" ]
}

# trace_events MIN: wait until `trev cat trace` shows at least MIN tt_ints events
trace_events() {
	wait_for "\"\$trev\" cat -p \$app trace >\"\$out\" 2>\"\$errf\" && events $1" \
		"trev cat trace shows $1 tt_ints events"
}

# settled: the emitter finished the round it was in (a change made now applies to all
# later events), for a clear of the trace to leave no event from before the change
settled() { wait_thread_ran "$app" emitter; }

"$app_bin" 10 >"$out.app" &
pids+=($!)
wait_ready "$out.app"
ev=events/trev_test/tt_ints

# Enabled from outside: events come.
run 0 "$trev" write -p "$app" "$ev/enable" 1
trace_events 5

# Filtered from outside: only odd a, in trace and in trace_pipe.
run 0 "$trev" write -p "$app" "$ev/filter" 'a & 1'
run 0 "$trev" cat -p "$app" "$ev/filter"
[ "$(cat "$out")" = 'a & 1' ] || fail "the filter reads back '$(cat "$out")'"
settled
run 0 "$trev" write -p "$app" trace ""
trace_events 5
grep -qv '[13579]$' "$out.a" && fail "trace has an even a under the filter 'a & 1'"
"$trev" cat -p "$app" trace_pipe >"$out" 2>"$errf" &
reader=$!
pids+=("$reader")
wait_for "events 5" "trev cat trace_pipe streamed 5 tt_ints events"
kill -TERM "$reader"
wait_gone "$reader" "trev cat trace_pipe ended on SIGTERM"
events 5
grep -qv '[13579]$' "$out.a" && fail "trace_pipe has an even a under the filter 'a & 1'"

# A refused filter: EINVAL, its error_log entry, and the old filter stays in force.
run 1 "$trev" write -p "$app" "$ev/filter" 'a >'
err_has "^trev: $ev/filter: Invalid argument"
run 0 "$trev" cat -p "$app" "$ev/filter"
[ "$(cat "$out")" = 'a & 1' ] || fail "a refused filter replaced the old one: '$(cat "$out")'"
run 0 "$trev" write -p "$app" trace ""
trace_events 5
grep -qv '[13579]$' "$out.a" && fail "an even a passed after a refused filter"

# Cleared: every event again, even and odd.
run 0 "$trev" write -p "$app" "$ev/filter" 0
run 0 "$trev" cat -p "$app" "$ev/filter"
[ "$(cat "$out")" = none ] || fail "a cleared filter reads '$(cat "$out")'"
settled
run 0 "$trev" write -p "$app" trace ""
trace_events 10
grep -q '[02468]$' "$out.a" || fail "no even a after the filter was cleared"
grep -q '[13579]$' "$out.a" || fail "no odd a after the filter was cleared"

# Disabled from outside: no more events, though the emitter goes on firing.
run 0 "$trev" write -p "$app" "$ev/enable" 0
settled
run 0 "$trev" write -p "$app" trace ""
settled
run 0 "$trev" cat -p "$app" trace
grep -q 'tt_ints:' "$out" && fail "events after the event was disabled"
rm -f "$out.a"
echo "PASS"
