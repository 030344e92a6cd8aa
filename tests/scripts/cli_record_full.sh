#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record whose file cannot be written (a full disk: a 2 MB tmpfs) stops recording and
# lets the program run on untraced, to its own end and exit status: it is never killed
# (docs/cli/trev-record.md, "When the file cannot be written"). It says so, exits 1, and the
# file keeps what was written: a trace.dat that trace-cmd reads, with the events it says.
# Root, in a mount namespace of its own (nothing leaks); skipped (77) where it cannot be had.
set -uo pipefail
export LC_ALL=C

if [ -z "${TREV_FULL_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "needs root (a tmpfs mount)"; exit 77; }
	command -v unshare >/dev/null || { echo "unshare is needed"; exit 77; }
	unshare -m --propagation private true 2>/dev/null || { echo "no mount namespace"; exit 77; }
	TREV_FULL_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
mkdir "$T/full"
mount -t tmpfs -o size=2m trev-full "$T/full" || { echo "cannot mount a tmpfs"; exit 77; }
cli_cleanup_more() { umount "$T/full"; }

app="$B/tests/rec_app"
for v in 6 7; do
	dat="$T/full/f$v.dat"
	rm -f "$T/full"/*
	# 20 M events from one thread (about 480 MB of pages): far more than 2 MB, whatever
	# part of them trev record copies on a loaded machine.
	run 1 "$trev" record --file-version "$v" -e trev_test:tt_ints -o "$dat" -- \
		"$app" 20000000 1 exit 3
	has '^fired 20000000$'
	err_has "^trev: writing $dat: No space left on device; recording stopped after [0-9]+ events; the program runs on untraced$"
	# Its own end, not a signal of ours: exit 3.
	err_has "^trev: $app exited with status 3$"
	grep -q 'killed by signal' "$errf" && fail "v$v: the program was killed"
	grep -q 'ended without exiting normally' "$errf" && fail "v$v: the program is blamed"
	err_has "^trev: $dat keeps the [0-9]+ events written before \(a valid trace.dat\)$"
	kept=$(sed -nE 's/^trev: .* keeps the ([0-9]+) events written before .*/\1/p' "$errf")
	[ "$kept" -gt 0 ] || fail "v$v: no event kept"
	trace-cmd report -i "$dat" >"$out" 2>"$T/report-err" || fail "v$v: trace-cmd report fails on $dat"
	grep -v '^cpus=' "$T/report-err" | grep >/dev/null . &&
		fail "v$v: trace-cmd report complains: $(cat "$T/report-err")"
	n=$(grep -c ' tt_ints: ' "$out")
	[ "$n" = "$kept" ] || fail "v$v: trace-cmd reads $n events, trev said $kept"
	echo "ok: v$v: the disk filled: $kept events kept, the program exited with its status 3"
done

# -p: the process runs on, and every setting trev record wrote is put back.
rm -f "$T/full"/*
dat="$T/full/p.dat"
"$B/tests/ctl_app" 0 >"$T/app.out" 2>/dev/null &
pids+=("$!")
wait_ready "$T/app.out"
old_kb=$("$trev" cat -p "$app" buffer_size_kb)
run 1 "$trev" record -b 96 -e trev_test:tt_ints -o "$dat" -p "$app"
err_has "^trev: writing $dat: No space left on device; recording stopped after [0-9]+ events; process $app runs on untraced$"
err_has "^trev: $dat keeps the [0-9]+ events written before \(a valid trace.dat\)$"
pid_gone "$app" && fail "-p: the process ended"
[ "$("$trev" cat -p "$app" buffer_size_kb)" = "$old_kb" ] || fail "-p: buffer_size_kb is not put back"
"$trev" cat -p "$app" set_event >"$out" 2>"$errf" || fail "trev cat set_event"
grep -q . "$out" && fail "-p: set_event is not put back: $(cat "$out")"
trace-cmd report -i "$dat" >"$out" 2>&1 || fail "-p: trace-cmd report fails on $dat"
echo "ok: -p: the disk filled: the process runs on, its settings put back"
