#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev mount -p PID DIR: a running program's tree (tests/control/ctl_app.c) as a FUSE mount
# served by the trev command: ls, cat, echo (refused writes give the errno and an error_log
# entry), mkdir/rmdir of an instance, a streaming trace_pipe and poll(2) through the mount;
# the command ends on SIGINT and when the program exits, and leaves no mount; every error
# case. Exits 77 (skipped) when this machine cannot mount FUSE file systems.
set -uo pipefail
export LC_ALL=C

app_bin="$TREV_BUILD_DIR/tests/ctl_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -c /dev/fuse ] || skip "/dev/fuse is missing"
command -v fusermount3 >/dev/null || skip "fusermount3 is missing (apt-get install fuse3)"
if [ "$(id -u)" -ne 0 ] && ! { [ -r /dev/fuse ] && [ -w /dev/fuse ]; }; then
	skip "not root, and /dev/fuse ($(stat -c %A /dev/fuse)) is not readable and writable"
fi
command -v python3 >/dev/null || skip "python3 is missing"

. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
# The mount point stays out of $T, which is removed with rm -rf.
mnt=$(mktemp -d)
cli_cleanup_more() {
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
	rmdir "$mnt"
	rm -f "$mnt.file"
}

# fail shows trev mount's own output too.
fail_more() { echo "---- trev mount:"; cat "$out.mount" 2>/dev/null; }

mounted() { grep -q " $mnt fuse.trev " /proc/mounts; }

start_app() {
	"$app_bin" "$@" >"$out.app" &
	pids+=($!)
	wait_ready "$out.app"
}

# start_mount: trev mount -p $app $mnt in the background, wait for the mount.
start_mount() {
	: >"$out.mount"	# before the start: the shell looks at it before the child opens it
	"$trev" mount -p "$app" "$mnt" 2>"$out.mount" &
	mount_pid=$!
	pids+=($mount_pid)
	# The mount shows in /proc/mounts a moment before trev mount says so.
	wait_for '{ mounted && [ -s "$out.mount" ]; } || pid_gone $mount_pid' \
		"trev mount mounted $mnt or ended" 'cat "$out.mount"'
	mounted && [ -s "$out.mount" ] && return 0
	grep -qi 'FUSE is not available' "$out.mount" && skip "$(cat "$out.mount")"
	fail "no mount: $(cat "$out.mount")"
}

# trace_has REGEX: wait until cat trace (in $out) has a line matching REGEX
trace_has() {
	wait_for "cat '$mnt/trace' >\"\$out\" 2>\"\$errf\" && grep -qE -- '$1' \"\$out\"" \
		"cat trace shows a line matching /$1/"
}

tt_lines() { grep -c 'tt_ints: a=' "$out"; }

# settled: the emitter finished the round it was in (a change made now applies to all
# later events), for a clear of the trace to leave no event from before the change
settled() { wait_thread_ran "$app" emitter; }

start_app 10
start_mount
grep -q "^trev: process $app's tree mounted at $mnt" "$out.mount" || fail "no mount message"

# Listing, reading, writing.
run 0 ls "$mnt"
has '^trace$'
has '^trace_pipe$'
has '^events$'
has '^error_log$'
[ -d "$mnt/events/trev_test/tt_ints" ] || fail "events/trev_test/tt_ints is not a directory"
run 0 bash -c "echo 1 > '$mnt/events/trev_test/tt_ints/enable'"
[ "$(cat "$mnt/events/trev_test/tt_ints/enable")" = 1 ] || fail "enable does not read 1"
trace_has '^ +emitter-[0-9]+ +\[[0-9]{3}\] .{4} +[0-9]+\.[0-9]{6}: tt_ints: a=[0-9]+ b=[0-9]+'
has '^# tracer: nop'

# Refused writes: the tree's errno reaches the writer, and error_log has the entry.
run 1 bash -c "echo 'a > 5 &&' > '$mnt/events/trev_test/tt_ints/filter'"
err_has 'Invalid argument'
run 0 cat "$mnt/error_log"
has 'Meaningless filter expression'
has '^  Command: a > 5 &&$'
run 1 bash -c "echo nosuch:event >> '$mnt/set_event'"
err_has 'Invalid argument'
run 0 cat "$mnt/error_log"
has 'No such event'
run 1 bash -c "echo 1 > '$mnt/nosuchfile'"
err_has 'Permission denied'
run 1 rm -f "$mnt/trace"
err_has 'Operation not permitted'

# A filter through the mount: only odd a from now on.
run 0 bash -c "echo 'a & 1' > '$mnt/events/trev_test/tt_ints/filter'"
settled
run 0 bash -c "echo > '$mnt/trace'"
wait_for "cat '$mnt/trace' >\"\$out\" 2>\"\$errf\" && [ \"\$(tt_lines)\" -ge 3 ]" \
	"cat trace shows 3 events after the filter"
grep -qE 'a=[0-9]*[02468] ' <(grep 'tt_ints: a=' "$out") && fail "an even a passed the filter 'a & 1'"
run 0 bash -c "echo 0 > '$mnt/events/trev_test/tt_ints/filter'"

# Instances.
run 0 mkdir "$mnt/instances/foo"
[ -f "$mnt/instances/foo/trace" ] || fail "instances/foo/trace missing after mkdir"
run 1 mkdir "$mnt/instances/foo"
err_has 'File exists'
run 0 ls "$mnt/instances"
has '^foo$'
run 0 rmdir "$mnt/instances/foo"
[ ! -e "$mnt/instances/foo" ] || fail "instances/foo still there after rmdir"

# trace_pipe streams through the mount until the reader is stopped; poll(2) wakes.
cat "$mnt/trace_pipe" >"$out" 2>"$errf" &
reader=$!
pids+=($reader)
wait_for '[ "$(tt_lines)" -ge 5 ] || pid_gone $reader' "cat trace_pipe streamed 5 events"
pid_gone "$reader" && fail "cat trace_pipe through the mount ended instead of streaming"
kill -TERM "$reader"
wait_gone "$reader" "cat trace_pipe through the mount ended on SIGTERM"
run 0 python3 - "$mnt/trace_pipe" <<'EOF'
import os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
while True:			# drain what is there
	try:
		if not os.read(fd, 65536):
			break
	except BlockingIOError:
		break
r, _, _ = select.select([fd], [], [], 60)	# 60 s only guard against a hang
assert r == [fd], "select did not wake on trace_pipe in 60 s"
assert b"tt_ints" in os.read(fd, 65536)
os.close(fd)
print("poll ok")
EOF
has '^poll ok$'

# Errors: each one line, non-zero status, and nothing mounted.
run 1 "$trev" mount -p "$app" "$mnt"
err_has "^trev: $mnt: already a mount point$"
touch "$mnt.file"
run 1 "$trev" mount -p "$app" "$mnt.file"
err_has "^trev: $mnt.file: not a directory$"
run 1 "$trev" mount -p "$app" "$mnt.nosuch"
err_has "^trev: $mnt.nosuch: No such file or directory$"
run 2 "$trev" mount -p "$app"
run 2 "$trev" mount "$mnt.file"
run 2 "$trev" mount -p x "$mnt.file"
err_has "^trev: -p takes a process id, not 'x'"

# SIGINT: the command unmounts and exits 0.
kill -INT "$mount_pid"
wait_gone "$mount_pid" "trev mount ended on SIGINT"
[ "$rc" = 0 ] || fail "trev mount exited $rc on SIGINT"
mounted && fail "still mounted after SIGINT"
grep -q "^trev: unmounted $mnt: Interrupt" "$out.mount" || fail "no unmount message on SIGINT"

# Errors that need the directory free.
run 1 "$trev" mount -p 999999999 "$mnt"
err_has '^trev: no process 999999999$'
sleep infinity & pids+=($!)
run 1 "$trev" mount -p $! "$mnt"
err_has "^trev: process $! does not serve trev"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$mnt"
	run 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$trev" mount -p "$app" "$mnt"
	err_has "belongs to another user"
fi
if command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
	# No /dev/fuse in a mount name space of its own.
	run 1 unshare -m bash -c "mount -t tmpfs none /dev && exec '$trev' mount -p '$app' '$mnt'"
	err_has '^trev: FUSE is not available: /dev/fuse: No such file or directory$'
fi
mounted && fail "an error case left a mount"

# The program exits: the command unmounts and exits with a message.
start_mount
cat "$mnt/trace_pipe" >/dev/null 2>&1 &
reader=$!
pids+=($reader)
wait_for "blocked_on $reader '$mnt/trace_pipe' || pid_gone $reader" "cat trace_pipe blocked in a read"
pid_gone "$reader" && fail "cat trace_pipe through the mount did not block"
kill -TERM "$app"
wait_gone "$mount_pid" "trev mount ended when the process exited"
[ "$rc" = 0 ] || fail "trev mount exited $rc after the process exited"
grep -q "^trev: unmounted $mnt: process $app exited" "$out.mount" ||
	fail "no message about the process's exit"
wait_gone "$reader" "a reader of trace_pipe ended with the unmount"
mounted && fail "still mounted after the process exited"
grep -q "fuse.trev" /proc/mounts && grep " $mnt" /proc/mounts && fail "a stale trev mount"
echo "PASS"
