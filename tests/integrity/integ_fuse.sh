#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every event read is the event written (issue 15), through the FUSE mount: integ_app
# (TREV_MOUNT, small discard buffers) read by `cat MOUNT/trace_pipe` while a shell loop reads
# per_thread_stats, per_cpu/cpuN/stats and trace through the mount; integ_check then requires
# every event intact, in order per stream, and written == read + lost (the LOST lines).
# Exits 77 (skipped) when this machine cannot mount FUSE file systems.
set -uo pipefail
export LC_ALL=C

skip() {
	echo "SKIP: $*"
	exit 77
}
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
command -v fusermount3 >/dev/null || skip "fusermount3 is missing (apt-get install fuse3)"
if [ "$(id -u)" -ne 0 ] && ! { [ -r /dev/fuse ] && [ -w /dev/fuse ]; }; then
	skip "not root, and /dev/fuse ($(stat -c %A /dev/fuse)) is not readable and writable"
fi

B="$TREV_BUILD_DIR"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"
mnt="$T/mnt"
mkdir "$mnt"
cli_cleanup_more() {
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
}

done_said() { grep -q '^done ' "$1"; }
ends_in() {	# the output $1 has every final event the counts file $2 lists
	[ -s "$2" ] &&
	[ "$(grep -cE 'integ_rec:\s+stream=51[0-9] seq=' "$1")" -ge \
	  "$(awk '$1 == "stream" && $2 >= 512 { n += $4 } END { print n + 0 }' "$2")" ]
}

TREV_MOUNT="$mnt" TREV_BUFFER_KB=16 INTEG_STAY=1 "$B/tests/integ_app" "$T/counts" consumed \
	>"$T/app.out" 2>"$T/app.err" &
pids+=($!)
wait_ready "$T/app.out"
wait_for 'test -e "$mnt/trace_pipe"' "the mount has trace_pipe"
cat "$mnt/trace_pipe" >"$T/pipe.txt" &
reader=$!
pids+=($reader)
(	# disturbers, through the mount, until the writers are done
	while ! grep -q '^done ' "$T/app.out"; do
		cat "$mnt/per_thread_stats" "$mnt/per_cpu/cpu0/stats" >/dev/null
		head -c 8192 "$mnt/trace" >/dev/null
	done
) &
pids+=($!)
echo 1 >"$mnt/events/integ/integ_rec/enable" || fail "enable through the mount failed"
WAIT_GUARD=120 wait_for 'done_said "$T/app.out"' "integ_app said done"
wait_for 'ends_in "$T/pipe.txt" "$T/counts"' "trace_pipe showed the final events"
kill -TERM "$reader"
wait "$reader"
kill -TERM "$app"
wait "$app"
"$B/tests/integ_check" -c -n fuse_trace_pipe "$T/counts" "$T/pipe.txt" >"$out" 2>"$errf"
st=$?
cat "$out"
[ $st = 0 ] || fail "the checker failed"
echo "integrity through the FUSE mount: ok"
