#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev merge (tools/trev/dat_merge.c, docs/sessions.md): two recordings of different programs,
# whose event ids collide, as the buffers of one version 7 file; trace-cmd accepts it and
# prints every event of both with its own format, the second under its buffer's name; a file
# that is not trev's is refused with its name and nothing is written.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }

events_of() {	# events_of FILE: the event lines trace-cmd prints, buffer prefix and all
	trace-cmd report -i "$1" 2>/dev/null | grep -E ': [a-z_]+: '
}

run 0 "$trev" record -e 'trev_test:tt_ints' -o "$T/a.dat" -- "$B/tests/rec_app" 300 2
run 0 "$trev" record -e 'demo:*' --file-version 7 -o "$T/b.dat" -- "$B/examples/demo_events"
events_of "$T/a.dat" | sed -E 's/^ +//' >"$T/a.want"
events_of "$T/b.dat" | sed -E 's/^ +//' >"$T/b.want"
[ "$(wc -l <"$T/a.want")" = 600 ] || fail "a.dat: $(wc -l <"$T/a.want") events, not 600"
[ -s "$T/b.want" ] || fail "b.dat has no events"

run 0 "$trev" merge -o "$T/m.dat" "$T/a.dat" "$T/b.dat=demo-1"
err_has "^trev: wrote $T/m.dat \(version 7, 2 buffers, [0-9]+ events, [0-9]+ pages, [1-9][0-9]* records renumbered\)$"
trace-cmd dump -v -i "$T/m.dat" >"$out" 2>&1
grep -q "is a valid trace-cmd file" "$out" || fail "trace-cmd dump -v rejects the merged file"
events_of "$T/m.dat" >"$T/m.got"
# The top buffer's lines as before; the other's behind "demo-1: ", each with its own format.
grep -v '^demo-1: ' "$T/m.got" | sed -E 's/^ +//' >"$T/m.top"
grep '^demo-1: ' "$T/m.got" | sed -E 's/^demo-1: +//' >"$T/m.demo"
diff -u "$T/a.want" "$T/m.top" >&2 || fail "the top buffer's events differ from a.dat's"
diff -u "$T/b.want" "$T/m.demo" >&2 || fail "buffer demo-1's events differ from b.dat's"
# One time line: trace-cmd merges the buffers by time stamp.
trace-cmd report -t -i "$T/m.dat" 2>/dev/null | grep -E ': [a-z_]+: ' |
	sed -E 's/^(demo-1: )? *//' | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; break }
		if (t < last) exit 1; last = t }' || fail "the merged lines are not in time order"

# A file that is not a trace.dat of trev's: refused, named, and no output left.
printf 'not a trace' >"$T/bad.dat"
run 1 "$trev" merge -o "$T/x.dat" "$T/a.dat" "$T/bad.dat"
err_is 1 "trev: merge: $T/bad.dat: not a trace.dat file of trev's writer"
[ ! -e "$T/x.dat" ] || fail "a refused merge left $T/x.dat"
run 2 "$trev" merge "$T/a.dat"
echo "cli_merge: ok"
