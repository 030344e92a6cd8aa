#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A trace.dat writer killed at any instant of its checkpoints leaves a valid file
# (docs/tracedat.md, "Checkpoints"): tests/tracedat/dat_ckpt_cut.c records a made-up
# workload whose metadata changes at each snapshot, and is SIGKILLed before piece N of its
# writes, each write cut into pieces at page boundaries as the kernel may cut one; for every
# N, v6 and v7, whatever is at the file's name then:
#   - trace-cmd dump -v says it is valid (it walks v7's chain of sections to the end);
#   - trace-cmd report reads it without a complaint, and libtracecmd (dat_read_tracecmd)
#     reads the same records;
#   - each CPU's events are its first ones, seq 0, 1, 2, ... with no gap;
#   - trev merge takes it, and its file holds the same events;
#   - no cut shows fewer events than the cut before it.
# The last run, not cut, shows every event (the pages of its last checkpoint).
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR/tests
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
trev=$TREV_BUILD_DIR/tools/trev/trev
for exe in dat_ckpt_cut dat_read_tracecmd; do
	[ -x "$B/$exe" ] || { echo "SKIP: $exe was not built (libtracecmd missing)"; exit 77; }
done

# trev merge maps its input whole: a file whose second CPU lies 1 TiB in is more than
# TSan's runtime maps shadow for, at times (mmap() fails with ENOMEM there).
merge=1
if [ "$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$TREV_BUILD_DIR/CMakeCache.txt" 2>/dev/null)" = thread ]; then
	merge=0
	echo "note: no trev merge check in the TSan tree (a 1 TiB mapping)"
fi

# A reader given a torn file may loop for ever (trace-cmd dump did, on a v7 metadata torn
# between two pages): this bound only ends a run that already failed.
guard="timeout 120"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check DAT WHAT: the file is valid and shows a gap-free start of each CPU's events; their
# number in $shown.
check() {
	local dat=$1 what=$2

	$guard trace-cmd dump -v -i "$dat" >"$T/dump" 2>&1 ||
		fail "$what: trace-cmd dump -v fails: $(tail -3 "$T/dump")"
	grep -q "is a valid trace-cmd file" "$T/dump" || fail "$what: dump -v: $(cat "$T/dump")"
	$guard trace-cmd report -i "$dat" >"$T/report" 2>"$T/report.err" ||
		fail "$what: trace-cmd report fails: $(head -3 "$T/report.err")"
	grep -v '^cpus=' "$T/report.err" | grep >/dev/null . &&
		fail "$what: trace-cmd report complains: $(head -3 "$T/report.err")"
	# libtracecmd 3.1.6 leaks a string of its own (sscanf %ms while opening): not ours to report.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		$guard "$B/dat_read_tracecmd" "$dat" >"$T/lib" 2>"$T/lib.err" ||
		fail "$what: libtracecmd cannot read it: $(cat "$T/lib.err")"
	grep -o 'cpu=[0-9]* seq=[0-9]*' "$T/report" >"$T/seen"
	grep -o 'cpu=[0-9]* seq=[0-9]*' "$T/lib" | sort >"$T/seen.lib"
	sort "$T/seen" | cmp -s - "$T/seen.lib" ||
		fail "$what: libtracecmd and trace-cmd report read different events"
	[ "$(grep -c ' tick: ' "$T/report")" = "$(wc -l <"$T/seen")" ] ||
		fail "$what: an event that is no ckpt:tick: $(grep -v ' tick: ' "$T/report" | head -3)"
	awk '{ split($1, c, "="); split($2, s, "=");
	       if (s[2] != n[c[2]]++) { print "cpu " c[2] ": seq " s[2] ", not " n[c[2]] - 1; exit 1 } }' \
		"$T/seen" >"$T/why" || fail "$what: $(cat "$T/why")"
	shown=$(wc -l <"$T/seen")
	[ "$merge" = 1 ] || return 0
	$guard "$trev" merge -o "$T/merged.dat" "$dat" >"$T/merge" 2>&1 ||
		fail "$what: trev merge fails: $(cat "$T/merge")"
	$guard trace-cmd report -i "$T/merged.dat" 2>/dev/null | grep -o 'cpu=[0-9]* seq=[0-9]*' |
		cmp -s - "$T/seen" || fail "$what: trev merge's file holds other events"
}

for v in 6 7; do
	dat="$T/cut-$v.dat"
	rm -f "$dat"
	"$B/dat_ckpt_cut" "$v" "$dat" 0 >"$T/full" || fail "v$v: dat_ckpt_cut exits $?"
	total=$(sed -n 's/^pieces //p' "$T/full")
	[ -n "$total" ] && [ "$total" -gt 0 ] || fail "v$v: no pieces: $(cat "$T/full")"
	check "$dat" "v$v, not cut"
	# 3 + 2 + 1 pages of CPU 0, 2 + 1 of CPU 1, 5 events each.
	[ "$shown" = 45 ] || fail "v$v, not cut: $shown events, not 45"
	last=0
	for ((n = 1; n <= total; n++)); do
		rm -f "$dat"
		# (the shell's "Killed" notice goes where the group's stderr goes)
		{ "$B/dat_ckpt_cut" "$v" "$dat" "$n" >"$T/out" 2>&1; rc=$?; } 2>/dev/null
		[ "$rc" = 137 ] || fail "v$v: dat_ckpt_cut cut at $n exits $rc: $(cat "$T/out")"
		# Nothing at the name until the first checkpoint is whole.
		[ -e "$dat" ] || { [ "$last" = 0 ] || fail "v$v, cut at $n: the file is gone"; continue; }
		check "$dat" "v$v, cut at piece $n of $total"
		[ "$shown" -ge "$last" ] || fail "v$v, cut at $n: $shown events, $last at the cut before"
		last=$shown
	done
	echo "ok: v$v: killed before each of $total pieces of writes: a valid file each time"
done
