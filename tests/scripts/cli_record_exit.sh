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
	# The exit hold keeps an exiting process until its last page is read: every event is
	# in the file. A killed one has its last events lost, and the file says so on stderr.
	if [ "${how%% *}" = exit ]; then
		[ "$n" = 500 ] || fail "$how: $n events in the file, not 500"
	else
		err_has "^trev: $app ended without exiting normally: its last events are lost$"
	fi
	echo "ok: $how: status $want, $n events in the file"
}
case_ 0 "exit 0" "trev: $app exited with status 0"
case_ 3 "exit 3" "trev: $app exited with status 3"
case_ 139 "signal 11" "trev: $app was killed by signal 11 (Segmentation fault)"
case_ 137 "signal 9" "trev: $app was killed by signal 9 (Killed)"

# trev's own errors keep status 1 (usage 2), whatever the command's status.
run 1 "$trev" record -o "$T/e.dat" -- sh -c 'exit 3'
err_has '^trev: sh does not use trev \(it exited without a control socket\)$'
[ ! -e "$T/e.dat" ] || fail "e.dat written for a command that does not use trev"
run 1 "$trev" record -e nosuch:event -o "$T/e.dat" -- "$app" 10 1 exit 3
err_has "^trev: set_event: 'nosuch:event': Invalid argument$"
grep -q fired "$out" && fail "the command ran on after a refused configuration"
run 2 "$trev" record --file-version 5 -- "$app" 10 1 exit 3
echo "trev record exit status: ok"
