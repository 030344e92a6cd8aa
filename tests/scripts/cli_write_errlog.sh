#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A refused `trev write` prints the error_log entries that write made, and no older one
# (issue 31, item 7): after `trace_clock bogus` (its "Unknown clock" entry), a refused
# buffer_total_size_kb (EACCES) and buffer_size_kb 4194304 (EINVAL), which log nothing, print
# their errno line alone; a second bad filter prints its own entry again, once; an instance's
# refusal shows its own log's new entry, and a refusal in the top instance does not show it.
set -uo pipefail
export LC_ALL=C

trev="$TREV_BUILD_DIR/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

# stat_app (tests/control/stat_app.c): a program with instances/small, serving until killed.
"$TREV_BUILD_DIR/tests/stat_app" 10 >"$T/app.out" &
pids+=($!)
wait_ready "$T/app.out"

# lines N: stderr has N lines
lines() { [ "$(wc -l <"$errf")" = "$1" ] || fail "stderr has $(wc -l <"$errf") lines, not $1"; }

run 1 "$trev" write -p "$app" trace_clock bogus
err_is 1 "trev: trace_clock: Invalid argument"
err_has '^\[ *[0-9]+\.[0-9]{6}\] trace_clock: error: Unknown clock$'
err_is 3 "  Command: bogus"
lines 4

run 1 "$trev" write -p "$app" buffer_total_size_kb 5
err_is 1 "trev: buffer_total_size_kb: Permission denied"
lines 1
run 1 "$trev" write -p "$app" buffer_size_kb 4194304
err_is 1 "trev: buffer_size_kb: Invalid argument"
lines 1

# The same refusal twice: each write shows its own entry, not the one before it.
for i in 1 2; do
	run 1 "$trev" write -p "$app" events/trev_test/tt_ints/filter 'a >'
	err_is 1 "trev: events/trev_test/tt_ints/filter: Invalid argument"
	err_has '^\[ *[0-9]+\.[0-9]{6}\] event filter parse error: error: '
	err_is 3 "  Command: a >"
	lines 4
done
run 0 "$trev" cat -p "$app" error_log
[ "$(grep -c 'event filter parse error' "$out")" = 2 ] || fail "error_log has not 2 filter entries"

# An instance has its own log: its new entry is shown; the top's refusal shows none of it.
run 1 "$trev" write -p "$app" instances/small/trace_clock nosuch
err_is 1 "trev: instances/small/trace_clock: Invalid argument"
err_has '^\[ *[0-9]+\.[0-9]{6}\] trace_clock: error: Unknown clock$'
err_is 3 "  Command: nosuch"
lines 4
run 1 "$trev" write -p "$app" buffer_size_kb 4194304
lines 1

echo "cli_write_errlog: ok"
