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
	"$bin" "$mnt" 20 "$@" >"$log" 2>&1 &
	app=$!
	for _ in $(seq 100); do
		grep -q '^mounted$' "$log" && return 0
		if grep -q '^mount ' "$log" || ! kill -0 "$app" 2>/dev/null; then
			wait "$app" 2>/dev/null
			app=""
			skip "trev_mount failed: $(cat "$log")"
		fi
		sleep 0.05
	done
	fail "no mount after 5 s"
}

# wait_gone PID SECONDS: true when the process ended in time; its exit status in $rc.
wait_gone() {
	local pid=$1 i
	for i in $(seq $(($2 * 20))); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			rc=$?
			return 0
		fi
		sleep 0.05
	done
	return 1
}

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
ls -l tracing_on | grep -q '^-rw-' || fail "ls -l tracing_on: $(ls -l tracing_on)"
ls -ld events | grep -q '^dr' || fail "events is not a directory"
ls events | grep -qx trev_test || fail "ls events: no trev_test"
ls events/trev_test | grep -qx tt_ints || fail "ls events/trev_test: no tt_ints"
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
sleep 0.2
grep -qE '^\s*emitter-[0-9]+\s+\[[0-9]{3}\]\s+\S{4}\s+[0-9]+\.[0-9]{6}: tt_ints: a=[0-9]+ b=[0-9]+ c=-?[0-9]+$' trace ||
	fail "cat trace shows no tt_ints line"
echo 0 >$ev/enable
echo >trace || fail "echo > trace"
[ "$(grep -c 'tt_ints:' trace)" -eq 0 ] || fail "echo > trace did not clear it"
: 2>/dev/null >trace_pipe && fail "trace_pipe is writable"

# Split writes: each write(2) is parsed on its own, as on tracefs: "1" is taken, a lone "\n"
# is not a number (kstrtoul), so the shell sees EINVAL and tracing_on stays 1.
echo 0 >tracing_on
msg=$( (printf 1; sleep .1; printf '\n') 2>&1 >tracing_on) && fail "split write: no error"
[[ "$msg" == *"Invalid argument"* ]] || fail "split write: [$msg]"
[ "$(cat tracing_on)" = 1 ] || fail "split write: tracing_on is $(cat tracing_on), not 1"
echo -n 0 >tracing_on && [ "$(cat tracing_on)" = 0 ] || fail "echo -n 0 > tracing_on"
echo 1 >tracing_on

# ---- instances
mkdir instances/foo || fail "mkdir instances/foo"
ls instances | grep -qx foo || fail "ls instances: no foo"
for f in trace trace_pipe tracing_on events set_event; do
	[ -e instances/foo/$f ] || fail "instances/foo/$f missing"
done
mkdir instances/foo 2>/dev/null && fail "mkdir instances/foo twice"
mkdir events/nodir 2>/dev/null && fail "mkdir outside instances/"
rmdir instances/foo || fail "rmdir instances/foo"
[ -e instances/foo ] && fail "instances/foo still there"
ls instances/foo >/dev/null 2>&1 && fail "ls instances/foo after rmdir"

# ---- trace_pipe: lines arrive as they are produced
timeout 0.3 cat trace_pipe >/dev/null	# drop the backlog
echo 1 >$ev/enable
cat trace_pipe >"$out" &
reader=$!
bg+=("$reader")
sleep 0.4
n1=$(grep -c 'tt_ints:' "$out")
sleep 0.4
n2=$(grep -c 'tt_ints:' "$out")
[ "$n1" -gt 0 ] && [ "$n2" -gt "$n1" ] || fail "trace_pipe does not stream ($n1 then $n2 lines)"
kill -TERM "$reader"
wait_gone "$reader" 2 || fail "cat trace_pipe survived SIGTERM"

# A blocked reader (nothing comes) is killable. Background jobs ignore SIGINT: perl resets it.
echo 0 >$ev/enable
timeout 0.3 cat trace_pipe >/dev/null
perl -e '$SIG{INT}="DEFAULT"; exec @ARGV' cat trace_pipe >/dev/null &
reader=$!
bg+=("$reader")
sleep 0.3
kill -0 "$reader" 2>/dev/null || fail "cat trace_pipe did not block"
kill -INT "$reader"
wait_gone "$reader" 2 || fail "blocked cat trace_pipe survived SIGINT"
[ "$rc" -eq 130 ] || fail "cat after SIGINT: exit $rc, not 130"
cat trace_pipe >/dev/null &
reader=$!
bg+=("$reader")
sleep 0.3
kill -KILL "$reader"
wait_gone "$reader" 2 || fail "blocked cat trace_pipe survived SIGKILL"
[ "$rc" -eq 137 ] || fail "cat after SIGKILL: exit $rc, not 137"
# Several blocked readers at once do not use up the FUSE worker threads.
bg=()
for i in $(seq 12); do
	timeout 0.8 cat trace_pipe >/dev/null &
	bg+=("$!")
done
sleep 0.3
[ "$(cat tracing_on)" = 1 ] || fail "12 blocked readers starve the mount"
for p in "${bg[@]}"; do
	wait "$p"
	[ $? -eq 124 ] || fail "a blocked reader did not end by timeout's SIGTERM"
done
bg=()

# ---- poll(2) and O_NONBLOCK
python3 - "$mnt" >"$out" 2>&1 <<'EOF' || fail "python poll test: $(cat "$out")"
import errno, os, select, sys, time
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
if p.poll(200):
    sys.exit("poll: readable while nothing is traced")
with open(ev, "w") as f:
    f.write("1")
t = time.monotonic()
r = p.poll(3000)
if not r or not r[0][1] & select.POLLIN:
    sys.exit("poll: not readable after 3 s of events")
if time.monotonic() - t > 1:
    sys.exit("poll: readable only after %.2f s" % (time.monotonic() - t))
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
sleep 0.2
kill -TERM "$app"
wait_gone "$app" 3 || fail "fuse_app survived SIGTERM"
[ "$rc" -eq 143 ] || fail "fuse_app after SIGTERM: exit $rc, not 143"
app=""
mounted && fail "SIGTERM left the mount in /proc/mounts"
wait_gone "$reader" 2 || fail "the reader of trace_pipe outlived the mount"

# A thread of the program itself blocked in its own trace_pipe: SIGTERM still ends it.
start_app selfread
sleep 0.2
kill -TERM "$app"
wait_gone "$app" 3 || fail "fuse_app reading its own mount survived SIGTERM (see docs/fuse.md)"
app=""
mounted && fail "SIGTERM (selfread) left the mount in /proc/mounts"

start_app
kill -KILL "$app"
wait_gone "$app" 2 || fail "fuse_app survived SIGKILL"
app=""
mounted || fail "after SIGKILL the mount is gone (expected stale)"
msg=$(ls "$mnt" 2>&1) && fail "ls of a stale mount succeeded"
[[ "$msg" == *"Transport endpoint is not connected"* ]] || fail "stale mount: [$msg]"
fusermount3 -u "$mnt" || fail "fusermount3 -u of the stale mount"
mounted && fail "fusermount3 -u left the mount"
echo "PASS"
