#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev_mount() through a real FUSE mount, with the tools people use on tracefs: ls, cat,
# echo, mkdir/rmdir, a blocked `cat trace_pipe` killed by SIGINT and SIGKILL, poll(2) and
# O_NONBLOCK from python3, split writes, and the end of the serving process: SIGTERM unmounts,
# SIGKILL leaves a stale mount that fusermount3 -u recovers. Exits 77 (skipped) when this
# machine cannot mount FUSE file systems.
set -uo pipefail
export LC_ALL=C

bin="$TREV_BUILD_DIR/tests/fuse_app"
# wait_for, wait_gone, blocked_on, drain (its fail is replaced below)
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"

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
command -v perl >/dev/null || skip "perl is missing"

mnt=$(mktemp -d)
log=$(mktemp)
out=$(mktemp)
app=""
bg=()

cleanup() {
	exec 2>/dev/null	# no "Killed" job notices
	for p in "${bg[@]}" $app; do
		kill -KILL "$p" && wait "$p"
	done
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
	rmdir "$mnt" 2>/dev/null
	rm -f "$log" "$out"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "---- fuse_app output:" >&2
	cat "$log" >&2
	exit 1
}

# Start fuse_app on $mnt; skip if it cannot mount at all.
start_app() {
	: >"$log"	# before the start: the shell looks at it before the child opens it
	"$bin" "$mnt" 20 "$@" >"$log" 2>&1 &
	app=$!
	wait_for "grep -q '^mounted\$\|^mount ' '$log' || ! kill -0 $app 2>/dev/null" \
		"fuse_app mounted or said why not"
	grep -q '^mounted$' "$log" && return 0
	wait "$app" 2>/dev/null
	app=""
	skip "trev_mount failed: $(cat "$log")"
}

tt_lines() { grep -c 'tt_ints:' "$out"; }

mounted() {
	grep -q " $mnt fuse.trev " /proc/mounts
}

ev=events/trev_test/tt_ints
start_app
cd "$mnt" || fail "cd $mnt"
mounted || fail "no fuse.trev entry in /proc/mounts"

# ---- the tree, read with ls and cat
ls >"$out" || fail "ls"
for f in available_events error_log events instances set_event trace trace_pipe tracing_on; do
	grep -qx "$f" "$out" || fail "ls: no $f"
done
ls -l tracing_on | grep >/dev/null '^-rw-' || fail "ls -l tracing_on: $(ls -l tracing_on)"
ls -ld events | grep >/dev/null '^dr' || fail "events is not a directory"
ls events | grep >/dev/null -x trev_test || fail "ls events: no trev_test"
ls events/trev_test | grep >/dev/null -x tt_ints || fail "ls events/trev_test: no tt_ints"
[ "$(ls -f events/trev_test | wc -l)" -eq "$(($(ls -A events/trev_test | wc -l) + 2))" ] ||
	fail "ls -f: . and .. missing"
cat $ev/format >"$out" || fail "cat format"
grep -q '^name: tt_ints$' "$out" || fail "format: no name line"
grep -qE '^	field:int a;	offset:[0-9]+;	size:4;	signed:1;$' "$out" || fail "format: no field a"
grep -qx 'trev_test:tt_ints' available_events || fail "available_events: no trev_test:tt_ints"
[ "$(stat -c %s trace)" -eq 0 ] || fail "st_size is not 0"

# ---- writes: values, errors and error_log
echo 1 >$ev/enable || fail "echo 1 > enable"
[ "$(cat $ev/enable)" = 1 ] || fail "enable does not read 1"
n=$(wc -l <error_log)
msg=$(echo 7 2>&1 >$ev/enable) && fail "echo 7 > enable succeeded"
[[ "$msg" == *"Invalid argument"* ]] || fail "echo 7 > enable: [$msg]"
[ "$(cat $ev/enable)" = 1 ] || fail "a bad value changed enable"
[ "$(wc -l <error_log)" -gt "$n" ] || fail "error_log has no new entry"
msg=$(echo 'x:y' 2>&1 >>set_event) && fail "echo x:y >> set_event succeeded"
[[ "$msg" == *"Invalid argument"* ]] || fail "echo x:y >> set_event: [$msg]"
echo >error_log || fail "echo > error_log"
[ -z "$(cat error_log)" ] || fail "error_log not cleared"
msg=$(echo x 2>&1 >newfile) && fail "a new file could be made"
[[ "$msg" == *"Permission denied"* ]] || fail "echo > newfile: [$msg]"
rm -f tracing_on 2>/dev/null && fail "rm tracing_on succeeded"

# ---- the trace
echo 1 >tracing_on || fail "echo 1 > tracing_on"
wait_for "grep -qE '^\s*emitter-[0-9]+\s+\[[0-9]{3}\]\s+\S{4}\s+[0-9]+\.[0-9]{6}: tt_ints: a=[0-9]+ b=[0-9]+ c=-?[0-9]+\$' trace" \
	"cat trace shows a tt_ints line" "cat trace"
echo 0 >$ev/enable
echo >trace || fail "echo > trace"
[ "$(grep -c 'tt_ints:' trace)" -eq 0 ] || fail "echo > trace did not clear it"
: 2>/dev/null >trace_pipe && fail "trace_pipe is writable"

# Split writes: each write(2) is parsed on its own, as on tracefs: "1" is taken, a lone "\n"
# is not a number (kstrtoul), so the shell sees EINVAL and tracing_on stays 1.
echo 0 >tracing_on
msg=$( (printf 1; printf '\n') 2>&1 >tracing_on) && fail "split write: no error"
[[ "$msg" == *"Invalid argument"* ]] || fail "split write: [$msg]"
[ "$(cat tracing_on)" = 1 ] || fail "split write: tracing_on is $(cat tracing_on), not 1"
echo -n 0 >tracing_on && [ "$(cat tracing_on)" = 0 ] || fail "echo -n 0 > tracing_on"
echo 1 >tracing_on

# ---- instances
mkdir instances/foo || fail "mkdir instances/foo"
ls instances | grep >/dev/null -x foo || fail "ls instances: no foo"
for f in trace trace_pipe tracing_on events set_event; do
	[ -e instances/foo/$f ] || fail "instances/foo/$f missing"
done
mkdir instances/foo 2>/dev/null && fail "mkdir instances/foo twice"
mkdir events/nodir 2>/dev/null && fail "mkdir outside instances/"
rmdir instances/foo || fail "rmdir instances/foo"
[ -e instances/foo ] && fail "instances/foo still there"
ls instances/foo >/dev/null 2>&1 && fail "ls instances/foo after rmdir"
# rmdir right after its files were read and written: the kernel releases a closed FUSE file
# after close() returns, and rmdir waits for that; a file still open keeps it busy.
for i in $(seq 1 30); do
	mkdir instances/rel || fail "mkdir instances/rel ($i)"
	cat instances/rel/trace >/dev/null || fail "cat instances/rel/trace ($i)"
	echo 0 >instances/rel/tracing_on || fail "echo > instances/rel/tracing_on ($i)"
	msg=$(rmdir instances/rel 2>&1) || fail "rmdir right after close, round $i: $msg"
done
mkdir instances/rel || fail "mkdir instances/rel"
exec 7<instances/rel/trace_pipe
msg=$(rmdir instances/rel 2>&1) && fail "rmdir with trace_pipe open"
[[ "$msg" == *"busy"* ]] || fail "rmdir with trace_pipe open: [$msg]"
exec 7<&-
msg=$(rmdir instances/rel 2>&1) || fail "rmdir after trace_pipe closed: $msg"

# ---- trace_pipe: lines arrive as they are produced: the reader's output grows while it runs
drain "$mnt/trace_pipe"	# drop the backlog
echo 1 >$ev/enable
cat trace_pipe >"$out" &
reader=$!
bg+=("$reader")
wait_for '[ "$(tt_lines)" -gt 0 ]' "cat trace_pipe printed a tt_ints line"
n1=$(tt_lines)
wait_for '[ "$(tt_lines)" -gt "$n1" ]' "cat trace_pipe printed more than its first $n1 lines"
pid_gone "$reader" && fail "cat trace_pipe ended while events were coming"
kill -TERM "$reader"
wait_gone "$reader" "cat trace_pipe ended on SIGTERM"
[ "$rc" -eq 143 ] || fail "cat after SIGTERM: exit $rc, not 143"

# A blocked reader (nothing comes) is killable. Background jobs ignore SIGINT: perl resets it.
# Blocked: it sleeps in a read of trace_pipe (blocked_on), not merely still alive.
echo 0 >$ev/enable
drain "$mnt/trace_pipe"
perl -e '$SIG{INT}="DEFAULT"; exec @ARGV' cat trace_pipe >/dev/null &
reader=$!
bg+=("$reader")
wait_for "blocked_on $reader '$mnt/trace_pipe' || pid_gone $reader" "cat trace_pipe blocked in a read"
pid_gone "$reader" && fail "cat trace_pipe did not block"
kill -INT "$reader"
wait_gone "$reader" "blocked cat trace_pipe ended on SIGINT"
[ "$rc" -eq 130 ] || fail "cat after SIGINT: exit $rc, not 130"
cat trace_pipe >/dev/null &
reader=$!
bg+=("$reader")
wait_for "blocked_on $reader '$mnt/trace_pipe' || pid_gone $reader" "cat trace_pipe blocked in a read"
pid_gone "$reader" && fail "cat trace_pipe did not block"
kill -KILL "$reader"
wait_gone "$reader" "blocked cat trace_pipe ended on SIGKILL"
[ "$rc" -eq 137 ] || fail "cat after SIGKILL: exit $rc, not 137"
# Several blocked readers at once do not use up the FUSE worker threads: with all 12 asleep
# in their reads, another file still answers (timeout only guards against a hang).
bg=()
for i in $(seq 12); do
	cat trace_pipe >/dev/null &
	bg+=("$!")
done
for p in "${bg[@]}"; do
	wait_for "blocked_on $p '$mnt/trace_pipe' || pid_gone $p" "reader $p blocked in a read"
	pid_gone "$p" && fail "reader $p of trace_pipe did not block"
done
on=$(timeout "$WAIT_GUARD" cat tracing_on) || fail "cat tracing_on with 12 blocked readers: no answer"
[ "$on" = 1 ] || fail "cat tracing_on with 12 blocked readers reads '$on'"
for p in "${bg[@]}"; do
	kill -TERM "$p"
	wait_gone "$p" "blocked reader $p ended on SIGTERM"
	[ "$rc" -eq 143 ] || fail "a blocked reader after SIGTERM: exit $rc, not 143"
done
bg=()

# ---- poll(2) and O_NONBLOCK
python3 - "$mnt" >"$out" 2>&1 <<'EOF' || fail "python poll test: $(cat "$out")"
import errno, os, select, sys
mnt = sys.argv[1]
ev = mnt + "/events/trev_test/tt_ints/enable"
fd = os.open(mnt + "/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
try:
    while os.read(fd, 65536):
        pass
    sys.exit("O_NONBLOCK read of an empty trace_pipe did not fail")
except OSError as e:
    if e.errno != errno.EAGAIN:
        sys.exit("O_NONBLOCK read: %s, not EAGAIN" % errno.errorcode[e.errno])
p = select.poll()
p.register(fd, select.POLLIN)
if p.poll(0):
    sys.exit("poll: readable while nothing is traced")
with open(ev, "w") as f:
    f.write("1")
# Readable once an event comes; 60 s only guard against a hang.
r = p.poll(60000)
if not r or not r[0][1] & select.POLLIN:
    sys.exit("poll: not readable after 60 s of events")
if b"tt_ints:" not in os.read(fd, 65536):
    sys.exit("read after poll: no event")
with open(ev, "w") as f:
    f.write("0")
os.close(fd)
print("poll ok")
EOF

# ---- the end of the process: SIGTERM unmounts, SIGKILL leaves a stale mount
cd / || fail "cd /"
cat "$mnt/trace_pipe" >/dev/null 2>&1 &
reader=$!
bg+=("$reader")
wait_for "blocked_on $reader '$mnt/trace_pipe' || pid_gone $reader" "cat trace_pipe blocked in a read"
pid_gone "$reader" && fail "cat trace_pipe did not block"
kill -TERM "$app"
wait_gone "$app" "fuse_app ended on SIGTERM"
[ "$rc" -eq 143 ] || fail "fuse_app after SIGTERM: exit $rc, not 143"
app=""
mounted && fail "SIGTERM left the mount in /proc/mounts"
wait_gone "$reader" "the reader of trace_pipe ended with the mount"

# A thread of the program itself blocked in its own trace_pipe: SIGTERM still ends it.
start_app selfread
wait_for "blocked_on $app '$mnt/trace_pipe'" "fuse_app's own reader blocked in a read of its mount"
kill -TERM "$app"
wait_gone "$app" "fuse_app reading its own mount ended on SIGTERM (see docs/fuse.md)"
app=""
mounted && fail "SIGTERM (selfread) left the mount in /proc/mounts"

start_app
kill -KILL "$app"
wait_gone "$app" "fuse_app ended on SIGKILL"
app=""
mounted || fail "after SIGKILL the mount is gone (expected stale)"
msg=$(ls "$mnt" 2>&1) && fail "ls of a stale mount succeeded"
[[ "$msg" == *"Transport endpoint is not connected"* ]] || fail "stale mount: [$msg]"
fusermount3 -u "$mnt" || fail "fusermount3 -u of the stale mount"
mounted && fail "fusermount3 -u left the mount"
echo "PASS"
