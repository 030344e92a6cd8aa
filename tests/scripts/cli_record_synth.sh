#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record records synthetic events like any other (docs/hist.md, "Example: request
# latency"): a synthetic event and the two hist triggers that fire it, set at start-up with
# TREV_WRITE, in a program run by trev record -- COMMAND; trev report and trace-cmd report
# print each synthetic record, with its id and name, between the start and the end it joins,
# and only for a start matched by an end.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }

dat="$T/synth.dat"
def='req_latency u64 lat\; int id\; char name[16]'
start='hist:keys=id:ts0=common_timestamp.usecs'
end='hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(trev_test.tt_open).req_latency($lat,id,what)'
# tfs_driver fires one event per line of its input and exits at its end. The end of 9 has no
# start, and the second end of 1 finds its start consumed: neither fires req_latency.
printf '%s\n' 'fireclose 9 early' 'fireopen 1 one' 'fireopen 2 two' 'fireclose 2 two' \
	'fireclose 1 one' 'fireclose 1 again' >"$T/in"
TREV_WRITE="synthetic_events=$def;events/trev_test/tt_open/trigger=$start;events/trev_test/tt_close/trigger=$end" \
	"$trev" record -e synthetic:req_latency -e trev_test:tt_open -e trev_test:tt_close \
	-o "$dat" -- "$B/tests/tfs_driver" api <"$T/in" >"$out" 2>"$errf" ||
	fail "trev record failed"
err_has "^trev: 8 events, 0 lost"

# The file's events, in order, as each reader prints them (the lat values vary).
want=$'tt_close closed early (9)\ntt_open id=1 what=one\ntt_open id=2 what=two
req_latency lat=N, id=2, name=two\ntt_close closed two (2)
req_latency lat=N, id=1, name=one\ntt_close closed one (1)\ntt_close closed again (1)'
events() {	# the event name and its fields of each line of $out
	sed -nE 's/^ *tfs_driver-[0-9]+ +\[[0-9]+\] +([.a-zA-Z0-9]{4} +)?[0-9]+\.[0-9]+: +([a-z_]+): +(.*)$/\2 \3/p' "$out" |
		sed -E 's/lat=[0-9]+,/lat=N,/'
}
"$trev" report "$dat" >"$out" 2>"$errf" || fail "trev report failed"
[ "$(events)" = "$want" ] || fail "trev report: $(events)"
trace-cmd report -i "$dat" >"$out" 2>"$errf" || fail "trace-cmd report failed"
[ "$(events)" = "$want" ] || fail "trace-cmd report: $(events)"
echo "ok: 2 req_latency records between their starts and ends, in trev report and trace-cmd report"
