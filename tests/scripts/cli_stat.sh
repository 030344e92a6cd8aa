#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev stat -p PID on a program (tests/control/stat_app.c) whose threads wrote known numbers of
# events into small discard-mode buffers, in the top instance and in instances/small: per
# thread, entries + dropped == written exactly; per CPU, the sums agree; the settings are
# shown; every error case.
set -uo pipefail
export LC_ALL=C

app_bin="$TREV_BUILD_DIR/tests/stat_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

counts=(100 2000 5000)
"$app_bin" "${counts[@]}" >"$out.app" &
pids+=($!)
wait_ready "$out.app"

run 0 "$trev" stat -p "$app"
has "^process $app \(trev [0-9.]+ pid $app\)$"
has '^instance top$'
has '^instance small$'
has '^  tracing_on: 1$'
has '^  trace_clock: local$'
has '^  buffer_size_kb: 8 \(per thread\)$'
has '^\s*CPU\s+ENTRIES\s+OVERRUN\s+COMMIT_OVR\s+DROPPED\s+READ\s+BYTES$'
has '^\s*TID\s+COMM\s+ENTRIES\s+READ\s+OVERRUN\s+DROPPED$'

# Per thread, in each instance: entries + dropped == what the thread wrote, nothing read or
# overwritten; and the per-CPU rows add up to the same totals.
for inst in top small; do
	awk -v inst="$inst" '/^instance / { on = ($2 == inst) } on' "$out" >"$out.inst"
	total=0
	while read -r _ tid name n; do
		total=$((total + n))
		row=$(awk -v tid="$tid" '$1 == tid && NF == 6' "$out.inst")
		[ -n "$row" ] || fail "$inst: no per-thread row for $name ($tid)"
		set -- $row
		[ "$2" = "$name" ] || fail "$inst: thread $tid is named '$2', not $name"
		[ $(($3 + $6)) = "$n" ] ||
			fail "$inst: $name: entries $3 + dropped $6 != $n written"
		[ "$4" = 0 ] && [ "$5" = 0 ] || fail "$inst: $name: read $4 / overrun $5, expected 0"
	done < <(grep '^tid ' "$out.app")
	sum=$(awk '$1 ~ /^[0-9]+$/ && NF == 7 { s += $2 + $5 } END { print s + 0 }' "$out.inst")
	[ "$sum" = "$total" ] || fail "$inst: per-CPU entries + dropped = $sum, written $total"
done
rm -f "$out.inst"
# The smallest writer fit, the others lost events.
row=$(awk '$2 == "writer-1"' "$out" | head -1)
set -- $row
[ "$3" = 100 ] && [ "$6" = 0 ] || fail "writer-1: '$row', expected all 100 entries kept"

# Errors: one line, non-zero status.
run 1 "$trev" stat -p 999999999
err_has '^trev: no process 999999999$'
sleep infinity & pids+=($!)
run 1 "$trev" stat -p $!
err_has "^trev: process $! does not serve trev"
run 2 "$trev" stat -p abc
err_has "^trev: -p takes a process id, not 'abc'"
run 2 "$trev" stat
run 2 "$trev" stat -p "$app" extra
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	run 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$trev" stat -p "$app"
	err_has "belongs to another user"
fi
echo "PASS"
