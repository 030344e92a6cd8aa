#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Probe events end to end (docs/probes.md), on tests/ftrace/ft_app's functions built with
# the function tracer's flags:
#   - defined in TREV_WRITE at start-up (uprobe_events, then enable), the trace text shows
#     each call of ft_add with the arguments the program passed, and its return value;
#   - `trev record` of the same program, then `trace-cmd report` of the file prints the
#     same values with the kernel's print fmt (libtraceevent parses it);
#   - a bad definition in TREV_WRITE is refused and the program still runs.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_app
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Both definitions in one write of uprobe_events (TREV_WRITE writes each file as `>`).
defs=$'uprobe_events=p:app/add ft_add a=%di:s32 b=%si:s32 s=$stack0:symbol\nr:app/addr ft_add rv=$retval:s32;events/app/enable=1'
want='add: a=0 b=1
addr: rv=1
add: a=1 b=1
addr: rv=2
add: a=2 b=1
addr: rv=3'

defs1='uprobe_events=p:app/add ft_add a=%di:s32 b=%si:s32'
TREV_SOCKET=0 TREV_WRITE="$defs1;events/app/enable=1" TREV_OUTPUT=stdout "$app" >"$T/trace" ||
	fail "ft_app failed"
got=$(grep -v '^#' "$T/trace" | sed -nE 's/.* (add): \(ft_add\+0x[0-9a-f]+\/0x[0-9a-f]+\) (a=[0-9]+ b=[0-9]+)$/\1: \2/p')
[ "$got" = "add: a=0 b=1
add: a=1 b=1
add: a=2 b=1" ] || fail "trace text:
$(cat "$T/trace")"

(cd "$T" && TREV_WRITE="$defs" "$B/tools/trev/trev" record -o "$T/p.dat" -- "$app") \
	2>"$T/rec.err" || fail "trev record: $(cat "$T/rec.err")"
trace-cmd report -i "$T/p.dat" >"$T/report" 2>"$T/report.err" || fail "trace-cmd report failed"
grep -q "FAILED TO PARSE" "$T/report" && fail "trace-cmd could not parse the records:
$(cat "$T/report")"
# "add: (55d0c1e2a1b4) a=0 b=1": the print fmt's "(%lx)", then the arguments.
got=$(sed -nE 's/.* (addr?): +\([0-9a-f]+( <- [0-9a-f]+)?\) (a=[0-9]+ b=[0-9]+|rv=[0-9]+).*$/\1: \3/p' "$T/report")
[ "$got" = "$want" ] || fail "trace-cmd report:
$(cat "$T/report")
want:
$want"

# A bad definition: refused with its error, the program runs and exits 0.
TREV_SOCKET=0 TREV_WRITE='uprobe_events=p:app/bad ft_add %zz' "$app" >/dev/null 2>"$T/bad.err" ||
	fail "ft_app with a bad definition failed: $(cat "$T/bad.err")"
echo "ok"
