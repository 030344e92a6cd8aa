#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Thread churn beyond the memory cap (tests/control/churn_app.c: short-lived threads, a few
# alive at once, one event each; 16 MB buffers make the 256 MB cap hold 16 of them): every
# event is read or counted lost, exactly, by every reader. In the process's own `trace` text
# (TREV_OUTPUT), in overwrite and in discard mode: lines == entries-in-buffer, and lines +
# the header's "lost events no event reports" == events fired. By trev record: events in the
# file + losses in the file == events fired == events + the process's overrun + dropped;
# trev report and trace-cmd report agree with the file.
# Then the events are kept: 1000 threads' single pages fit under the cap, 1000 whole buffers do
# not (a dead buffer shrinks to its unread pages), so every reader reads all 1000, none lost.
set -uo pipefail
export LC_ALL=C

app_bin="$TREV_BUILD_DIR/tests/churn_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
# libtracecmd 3.1.6 leaks a string of its own when it opens a file (sscanf %ms): in the ASan
# tree, not ours to report (as tests/scripts/cli_report.sh); every other leak still fails.
printf 'leak:isoc99_vsscanf\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err
threads=2000
alive=4
export TREV_BUFFER_KB=16384

# ---- the process's own reader -----------------------------------------------------------
for mode in 1 0; do
	TREV_EVENTS=trev_test:tt_ints TREV_WRITE="options/overwrite=$mode" TREV_OUTPUT="$T/trace" \
		run 0 "$app_bin" $threads $alive
	has "^fired $threads$"
	lines=$(grep -c ' tt_ints: ' "$T/trace")
	hdr=$(grep -m1 '^# entries-in-buffer/entries-written: ' "$T/trace") ||
		fail "overwrite=$mode: no header"
	entries=$(sed -E 's|^# entries-in-buffer/entries-written: ([0-9]+)/.*|\1|' <<<"$hdr")
	orphans=$(sed -nE 's/^# lost events no event reports: ([0-9]+) .*/\1/p' "$T/trace")
	orphans=${orphans:-0}
	[ "$lines" = "$entries" ] || fail "overwrite=$mode: $lines lines, header '$hdr'"
	[ $((lines + orphans)) = $threads ] ||
		fail "overwrite=$mode: $lines lines + $orphans lost != $threads fired ($(head -5 "$T/trace"))"
	# The cap forced losses here: they must show.
	[ "$orphans" -gt 0 ] || fail "overwrite=$mode: no loss with $threads threads over the cap"
	echo "ok: overwrite=$mode, in the process: $lines read + $orphans lost == $threads"
done

# ---- trev record --------------------------------------------------------------------------
run 0 "$trev" record -e trev_test:tt_ints -o "$T/churn.dat" -- "$app_bin" $threads $alive
has "^fired $threads$"
sum=$(grep -E '^trev: [0-9]+ events, [0-9]+ lost \(in the file; the process counted [0-9]+ overrun, [0-9]+ dropped\)' "$errf") ||
	fail "no summary"
read -r ev lost ovr drp < <(sed -E 's/^trev: ([0-9]+) events, ([0-9]+) lost \(in the file; the process counted ([0-9]+) overrun, ([0-9]+) dropped\).*/\1 \2 \3 \4/' <<<"$sum")
[ $((ev + lost)) = $threads ] || fail "record: $ev events + $lost lost in the file != $threads"
[ $((ev + ovr + drp)) = $threads ] ||
	fail "record: $ev events + $ovr overrun + $drp dropped (the process's count) != $threads"
run 0 "$trev" report "$T/churn.dat"
n=$(grep -c ' tt_ints: ' "$out")
[ "$n" = "$ev" ] || fail "trev report shows $n events, the summary said $ev"
echo "ok: trev record: $ev read + $lost lost == $threads"

if command -v trace-cmd >/dev/null; then
	trace-cmd report "$T/churn.dat" >"$out" 2>"$errf" || fail "trace-cmd report failed"
	n=$(grep -c ' tt_ints: ' "$out")
	dropped=$(grep -oE '\[[0-9]+ EVENTS DROPPED\]' "$out" | tr -dc '0-9\n' |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$n" = "$ev" ] || fail "trace-cmd report shows $n events, the summary said $ev"
	# A loss no later event of its CPU carries is on a page of no events: trace-cmd
	# shows none of those; every other loss it shows.
	[ "$dropped" -le "$lost" ] || fail "trace-cmd shows $dropped dropped, the file has $lost"
	echo "ok: trace-cmd report: $n events, $dropped shown dropped"
fi

# ---- kept: 1000 threads (fewer than the 1024 buffers), one page each fits; 16 buffers do ----------
kept=1000
for mode in 1 0; do
	TREV_EVENTS=trev_test:tt_ints TREV_WRITE="options/overwrite=$mode" TREV_OUTPUT="$T/trace" \
		run 0 "$app_bin" $kept $alive
	has "^fired $kept$"
	lines=$(grep -c ' tt_ints: ' "$T/trace")
	orphans=$(sed -nE 's/^# lost events no event reports: ([0-9]+) .*/\1/p' "$T/trace")
	[ "$lines" = $kept ] && [ -z "$orphans" ] ||
		fail "overwrite=$mode: $lines of $kept kept, ${orphans:-0} lost ($(head -5 "$T/trace"))"
	echo "ok: overwrite=$mode, in the process: all $kept kept"
done
run 0 "$trev" record -e trev_test:tt_ints -o "$T/kept.dat" -- "$app_bin" $kept $alive
has "^fired $kept$"
grep -qE "^trev: $kept events, 0 lost \(in the file; the process counted 0 overrun, 0 dropped\)" "$errf" ||
	fail "record: not all $kept kept: $(grep '^trev: [0-9]* events' "$errf")"
run 0 "$trev" report "$T/kept.dat"
n=$(grep -c ' tt_ints: ' "$out")
[ "$n" = $kept ] || fail "trev report shows $n events of $kept"
echo "ok: trev record: all $kept kept"
