#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record -- COMMAND exits as the command did (docs/cli/trev-record.md, "Exit status"):
# its exit status, or 128 + the signal that killed it, and its last stderr line says which;
# the trace file is written either way and trace-cmd reads it. trev's own errors stay 1.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
ulimit -c 0	# rec_app kills itself with SIGSEGV: no core file

app="$B/tests/rec_app"
# case STATUS HOW LAST: rec_app fires 500 events (2 threads), then ends as HOW says
# ("exit N" or "signal N"); trev record exits STATUS and its last stderr line is LAST.
case_() {
	local want=$1 how=$2 last=$3 dat n
	dat="$T/${how// /-}.dat"
	# shellcheck disable=SC2086
	run "$want" "$trev" record -e trev_test:tt_ints -o "$dat" -- "$app" 250 2 $how
	has '^fired 500$'
	[ "$(tail -n 1 "$errf")" = "$last" ] || fail "$how: the last line is not '$last'"
	err_has "^trev: wrote $dat \(version 6, [0-9]+ bytes\)$"
	trace-cmd report -i "$dat" >"$out" 2>&1 || fail "$how: trace-cmd report cannot read $dat"
	n=$(grep -c ' tt_ints: ' "$out")
	# The exit hold keeps an exiting process until its last page is read; a killed one
	# leaves its buffer mapped in trev record: every event is in the file either way.
	[ "$n" = 500 ] || fail "$how: $n events in the file, not 500"
	if [ "${how%% *}" != exit ]; then
		err_has "^trev: $app ended without exiting normally: every event it committed was read from its buffer$"
	fi
	echo "ok: $how: status $want, $n events in the file"
}
case_ 0 "exit 0" "trev: $app exited with status 0"
case_ 3 "exit 3" "trev: $app exited with status 3"
case_ 139 "signal 11" "trev: $app was killed by signal 11 (Segmentation fault)"
case_ 137 "signal 9" "trev: $app was killed by signal 9 (Killed)"
case_ 134 "signal 6" "trev: $app was killed by signal 6 (Aborted)"
case_ 130 "signal 2" "trev: $app was killed by signal 2 (Interrupt)"

# Killed while its threads are writing: each thread's events are in the file in order, from
# its first, without a gap, at least as many as it had committed (its count, kept in a
# shared file, is stored after each event's commit), and nothing is reported lost.
mid_case() {
	local sig=$1 want=$2 dat="$T/mid-$1.dat" counts="$T/mid-$1.counts"
	run "$want" "$trev" record -e trev_test:tt_ints -o "$dat" -- "$app" 2000 2 midsignal "$sig" "$counts"
	err_has "ended without exiting normally: every event it committed was read from its buffer$"
	trace-cmd report -i "$dat" >"$out" 2>&1 || fail "midsignal $sig: trace-cmd report cannot read $dat"
	grep -q 'EVENTS DROPPED' "$out" && fail "midsignal $sig: events lost"
	for k in 0 1; do
		committed=$(od -An -t d8 -j $((k * 8)) -N 8 "$counts" | tr -d ' ')
		grep -E "^\s*burst-$k-[0-9]+\s.*\stt_ints:\s" "$out" |
			sed -E 's/.* a=([0-9]+) .*/\1/' >"$T/mid-seq"
		awk -v want="$committed" '$1 != NR - 1 { print "gap at " NR - 1 ": " $1; bad = 1; exit }
			END { if (!bad && NR < want) { print NR " events, " want " committed"; bad = 1 }
			      exit bad }' "$T/mid-seq" >"$T/mid-why" ||
			fail "midsignal $sig: thread burst-$k: $(cat "$T/mid-why")"
		echo "ok: midsignal $sig: burst-$k: $(wc -l <"$T/mid-seq") events, $committed committed before the signal"
	done
}
mid_case 9 137
mid_case 11 139
mid_case 6 134

# trev's own errors keep status 1 (usage 2), whatever the command's status.
run 1 "$trev" record -o "$T/e.dat" -- sh -c 'exit 3'
err_has '^trev: sh does not use trev, nor does any process it started$'
[ ! -e "$T/e.dat" ] || fail "e.dat written for a command that does not use trev"
run 1 "$trev" record -e nosuch:event -o "$T/e.dat" -- "$app" 10 1 exit 3
err_has "^trev: set_event: 'nosuch:event': Invalid argument$"
grep -q fired "$out" && fail "the command ran on after a refused configuration"
run 2 "$trev" record --file-version 5 -- "$app" 10 1 exit 3
echo "trev record exit status: ok"
