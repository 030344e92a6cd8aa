#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The other threads' events when the program dies while they flood (issue 31): integ_crash's
# three writers (tests/integrity/integ_crash.c, flood-segv and flood-abort) write integ:integ_rec
# events without a pause into buffers of 256 KB in overwrite mode (the default: each writer
# overwrites its oldest events long before the end); once each has written 5000, main notes
# what each has committed (its floor) and dies of SIGSEGV, or abort(), while they go on. Five
# times each, and each time:
#   - the process dies of its signal, with nothing on stderr, and TREV_OUTPUT holds one trace;
#   - every writer's events are in it: for each writer, its events read are exactly seq
#     L .. k - 1, intact, in order, none twice, where L is the count of its LOST line (its
#     oldest events, overwritten before the signal), and k >= its floor, k <= what it began
#     (integ_check -a -c -o -p); no LOST count comes after a writer's last event;
#   - the header agrees with the lines: entries-in-buffer is the number of events printed,
#     entries-written that plus the LOST counts.
# Before the fix the writers ran on while the child read, lapped it and overwrote its pages: a
# writer's events went missing without a LOST line (none of them at all, some runs), and the
# header counted events that the text did not show.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
app_bin="$B/tests/integ_crash"
check="$B/tests/integ_check"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"
runs=5
floor=5000

sanitize=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
if [ "$sanitize" = thread ]; then
	# As in integ_crash.sh: the child that writes the trace is left out of TSan's reports,
	# and TSan's own fault handlers are off.
	printf '%s:crash_child_main\n' race mutex signal >"$T/tsan.supp"
	export TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$T/tsan.supp:print_suppressions=0
	TSAN_OPTIONS+=:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
	# The child formats for about 3 s here, against the writers that go on (refused):
	# two runs of each; the normal tree runs the five.
	runs=2
fi
if [ "$sanitize" = address ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:disable_coredump=1
	ASAN_OPTIONS+=:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
fi

# flood NAME HOW SIG: integ_crash HOW in $T/NAME, dying of SIG while its writers flood; checked.
flood() {
	local name=$1 how=$2 sig=$3 dir="$T/$1" want st printed lost entries written s n

	want=$((128 + $(kill -l "$sig")))
	rm -rf "$dir"
	mkdir -p "$dir"
	# The group's 2>/dev/null: the shell's own "Segmentation fault" line. No core files.
	{
		(
			cd "$dir" || exit 125
			ulimit -c 0
			exec env TREV_SOCKET=0 TREV_BUFFER_KB=256 TREV_EVENTS=integ:integ_rec \
				TREV_OUTPUT="$dir/trace.txt" \
				"$app_bin" "$dir/counts.bin" "$how" 3 "$floor"
		) >"$dir/app.out" 2>"$dir/app.err"
	} 2>/dev/null
	st=$?
	cp "$dir/app.err" "$errf"
	cp "$dir/app.out" "$out"
	[ "$st" = "$want" ] || fail "$name: exit status $st, not $want (SIG$sig)"
	grep -q "^written $floor\$" "$dir/app.out" || fail "$name: the writers did not write $floor each"
	grep -q . "$dir/app.err" && fail "$name: unexpected messages on stderr"
	[ -s "$dir/trace.txt" ] || fail "$name: TREV_OUTPUT is empty"
	[ "$(grep -c '^# tracer: nop$' "$dir/trace.txt")" = 1 ] || fail "$name: not one trace header"
	"$app_bin" --counts "$dir/counts.bin" >"$dir/counts" || fail "$name: no counts"
	"$app_bin" --floors "$dir/counts.bin" >"$dir/floors" || fail "$name: no floors"
	for s in 0 1 2; do
		n=$(sed -n "s/^stream $s written //p" "$dir/floors")
		[ -n "$n" ] && [ "$n" -ge "$floor" ] || fail "$name: writer $s's floor '$n' < $floor"
	done
	"$check" -a -c -o -p "$dir/floors" -n "$name" "$dir/counts" "$dir/trace.txt" >"$out" 2>"$errf" ||
		{ cat "$out"; fail "$name: the checker failed"; }
	# The newest events of each writer stay in its buffer: each one is in the text.
	for s in 0 1 2; do
		grep -q " integ_rec: stream=$s " "$dir/trace.txt" ||
			{ cat "$out"; fail "$name: no event of writer $s in the text"; }
	done
	printed=$(grep -c ' integ_rec: ' "$dir/trace.txt")
	lost=$(sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' "$dir/trace.txt" |
		awk '{ n += $1 } END { print n + 0 }')
	read -r entries written < <(sed -n \
		's|^# entries-in-buffer/entries-written: \([0-9]*\)/\([0-9]*\) .*|\1 \2|p' "$dir/trace.txt")
	[ "$entries" = "$printed" ] ||
		fail "$name: the header says entries-in-buffer $entries, the text has $printed events"
	[ "$written" = $((printed + lost)) ] ||
		fail "$name: the header says entries-written $written, the text has $printed events and $lost lost"
	echo "$name: SIG$sig, status $st: $printed events printed, $lost lost (header $entries/$written): $(head -1 "$out")"
}

for i in $(seq 1 $runs); do
	flood "segv_$i" flood-segv SEGV
	flood "abort_$i" flood-abort ABRT
done
echo "every event the other threads committed is in the text or counted: ok"
