#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev cat -p PID per_cpu/cpuN/trace_pipe_raw reads the process's ring buffer from the
# mapping (MAP), staging the other CPUs' events in its own memory; every event written is
# read exactly once across it and the readers that go on after it (issue 16):
#   - trev cat cpu0 raw, stopped by SIGTERM: it hands its staged events back (RESTAGE), and
#     the process's own trace_pipe reads the rest: written == read, nothing lost;
#   - trev cat cpu0 raw, then another client's trev cat cpu1 raw, then trace_pipe: the same;
#   - trev cat cpu0 raw killed (SIGKILL): the events it had staged are gone, and the
#     process counts them: written == read + the overrun and dropped events that
#     per_cpu/cpuN/stats show;
#   - trev cat cpu0 raw killed in the middle of its reading: nothing is read twice, and the
#     process's trace_pipe reads on;
#   - the process's own cpu0 trace_pipe stages CPU 1's events in the process; trev record -p
#     then takes them with the position (UNSTAGE) and records them: trace-cmd report of its
#     file and the cpu0 pipe hold every event once;
#   - a process whose buffer cannot be mapped (a flight recorder's file: MAP says EPERM):
#     trev cat reads the raw pages over the socket instead, with the same result.
# The pages are decoded with libtraceevent's kbuffer (integ_raw), every event checked by
# integ_check (payload, check, per-stream order, duplicates). integ_app writes everything
# into a big discard buffer first ("kept"), so the process is quiescent while it is read.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
app_bin="$B/tests/integ_app"
check="$B/tests/integ_check"
raw="$B/tests/integ_raw"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
[ -x "$raw" ] || { echo "skip: no libtraceevent (integ_raw not built)"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "skip: one CPU, no other CPU's events to stage"; exit 77; }
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"

done_said() { grep -q '^done ' "$1"; }
stat_of() { "$trev" cat -p "$app" "per_cpu/cpu$1/stats" | sed -n "s/^$2: //p"; }
# Events decoded from a page file.
raw_count() { "$raw" "$T/fmt" "$1" | grep -c 'integ_rec:'; }
# trev cat of cpu $1's raw pages into $2 has taken every event of that CPU: none left
# there, and every one it read is in its file (not just handed out to it).
raw_done() { [ "$(stat_of "$1" entries)" = 0 ] && [ "$(raw_count "$2")" = "$(stat_of "$1" 'read events')" ]; }
# The sum of a stats field over the CPUs.
stat_sum() {
	local c n=0
	for c in $("$trev" ls -p "$app" per_cpu | sed 's|/$||'); do
		n=$((n + $("$trev" cat -p "$app" "per_cpu/$c/stats" | sed -n "s/^$1: //p")))
	done
	echo "$n"
}

integ() {
	local name=$1
	shift
	"$check" -n "$name" "$@" >"$out" 2>"$errf"
	local st=$?
	cat "$out"
	[ $st = 0 ] || fail "$name: the checker failed"
}

# start NAME: integ_app, everything written and kept, events on CPUs 0 and 1 both (the
# writers pause between events, so the scheduler spreads them; a run that stayed on one CPU
# is started again); $app is its pid.
start() {
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		env ${START_ENV:-} INTEG_PAUSE_US=20 INTEG_STAY=1 TREV_BUFFER_KB=4096 TREV_EVENTS=integ:integ_rec \
			"$app_bin" "$T/$1.counts" kept 3 2000 200 >"$T/$1.app" 2>"$errf" &
		pids+=($!)
		wait_ready "$T/$1.app"
		WAIT_GUARD=120 wait_for "done_said $T/$1.app" "integ_app said done"
		[ "$(stat_of 0 entries)" -gt 0 ] && [ "$(stat_of 1 entries)" -gt 0 ] && break
		kill -TERM "$app"
		[ $try = 10 ] && fail "10 runs of integ_app wrote on one CPU only"
	done
	"$trev" cat -p "$app" events/integ/integ_rec/format >"$T/fmt" || fail "no format file"
}

# cat_raw CPU FILE: trev cat of that CPU's raw pages in the background; $cat_pid.
cat_raw() {
	"$trev" cat -p "$app" "per_cpu/cpu$1/trace_pipe_raw" >"$2" 2>"$T/cat.err" &
	cat_pid=$!
	pids+=($cat_pid)
	wait_for "raw_done $1 $2" "trev cat cpu$1 trace_pipe_raw took every event of CPU $1" \
		"cat $T/cat.err; stat_of $1 entries"
}

# pipe_rest FILE [RAW1]: the process's own trace_pipe reads what is left; RAW1: the events
# a second raw reader took.
pipe_rest() {
	pipe_out=$1 other=${2:-0}
	"$trev" cat -p "$app" trace_pipe >"$pipe_out" 2>"$T/pipe.err" &
	local p=$!
	pids+=($p)
	wait_for '[ "$(stat_sum entries)" = 0 ]' "trace_pipe read every event left"
	wait_for '[ "$(grep -c integ_rec: "$pipe_out")" = $(($(stat_sum "read events") - $(raw_count "$T/r0") - other)) ]' \
		"trace_pipe's output has every event it read"
	kill -TERM "$p"
	wait "$p"
}

# ---- cpu0 from the mapping, stopped: its staged events go back; trace_pipe reads them.
start a
cat_raw 0 "$T/r0"
grep -q . "$T/cat.err" && { cp "$T/cat.err" "$errf"; fail "trev cat cpu0 raw complained"; }
kill -TERM "$cat_pid"
wait "$cat_pid"
n0=$(raw_count "$T/r0")
[ "$n0" -gt 0 ] || fail "trev cat cpu0 trace_pipe_raw read no event"
pipe_rest "$T/a.pipe"
[ "$(grep -c integ_rec: "$T/a.pipe")" -gt 0 ] || fail "no event of another CPU was staged and handed back"
"$raw" "$T/fmt" "$T/r0" >"$T/a.raw" || { cp "$T/a.raw" "$errf"; fail "integ_raw: malformed pages"; }
integ map_then_pipe "$T/a.counts" "$T/a.raw" "$T/a.pipe"
[ "$(stat_sum overrun)" = 0 ] || fail "events counted lost though every one was handed back"
kill -TERM "$app"

# ---- cpu0, then another client's cpu1, from the mapping; then trace_pipe.
start b
cat_raw 0 "$T/r0"
kill -TERM "$cat_pid"
wait "$cat_pid"
cat_raw 1 "$T/r1"
kill -TERM "$cat_pid"
wait "$cat_pid"
[ "$(raw_count "$T/r1")" -gt 0 ] || fail "trev cat cpu1 after cpu0 read no event"
pipe_rest "$T/b.pipe" "$(raw_count "$T/r1")"
"$raw" "$T/fmt" "$T/r0" >"$T/b.raw0" && "$raw" "$T/fmt" "$T/r1" >"$T/b.raw1" ||
	fail "integ_raw: malformed pages"
integ map_map_pipe "$T/b.counts" "$T/b.raw0" "$T/b.raw1" "$T/b.pipe"
kill -TERM "$app"

# ---- cpu0 from the mapping, killed: its staged events are lost, and counted.
start c
cat_raw 0 "$T/r0"
kill -KILL "$cat_pid"
wait "$cat_pid" 2>/dev/null
# The position comes back when the connection closes, with the loss counted.
wait_for '[ "$(stat_sum overrun)" -gt 0 ]' "trev cat, killed with other CPUs' events staged, left a loss counted"
# Lost in all: those, and the events writers' signal handlers had refused (dropped).
lost=$(($(stat_sum overrun) + $(stat_sum 'dropped events')))
pipe_rest "$T/c.pipe" 0
"$raw" "$T/fmt" "$T/r0" >"$T/c.raw" || fail "integ_raw: malformed pages"
# The final events may be among those lost, so the checker's exact relation (which wants
# them read) is checked here: nothing read twice or wrong (-a), written == read + the lost
# that stats count, and the losses trace_pipe reported in its stream are among them.
integ map_killed -a "$T/c.counts" "$T/c.raw" "$T/c.pipe"
w=$(sed -nE 's/.* written=([0-9]+) .*/\1/p' "$out")
r=$(sed -nE 's/.* read=([0-9]+) .*/\1/p' "$out")
l=$(sed -nE 's/.* lost=([0-9]+) .*/\1/p' "$out")
[ -n "$w" ] && [ "$w" = $((r + lost)) ] || fail "killed trev cat: written $w, read $r + lost $lost"
[ "$l" -le "$lost" ] || fail "trace_pipe reported $l lost, more than the $lost counted"
kill -TERM "$app"

# ---- cpu0 from the mapping, killed while it reads: its output is a FIFO nobody reads, so it
# blocks on a full pipe with pages taken and other CPUs' events staged; then SIGKILL. The
# position comes back; the process's trace_pipe reads on; nothing is read twice. (The page it
# was writing dies with it, as pages in a killed trace-cmd's pipe do: read + lost <= written.)
start f
# It must block: its output holds one page (the pipe at its smallest) and CPU 0 has more
# than one page of events (on a loaded machine the writers may have stayed off CPU 0).
for try in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(stat_of 0 bytes)" -gt 8192 ] && break
	[ $try = 10 ] && fail "10 runs of integ_app wrote a page or less on CPU 0"
	kill -TERM "$app"
	start f
done
mkfifo "$T/fifo"
exec 3<>"$T/fifo"
python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)	# F_SETPIPE_SZ: the pipe, kept open by fd 3, holds one page
os.close(fd)' "$T/fifo" || fail "cannot make the FIFO one page"
"$trev" cat -p "$app" per_cpu/cpu0/trace_pipe_raw >"$T/fifo" 2>"$T/cat.err" &
cat_pid=$!
pids+=($cat_pid)
wait_for 'blocked_on "$cat_pid" "$T/fifo"' "trev cat cpu0 raw blocked on its full output"
kill -KILL "$cat_pid"
wait "$cat_pid" 2>/dev/null
python3 - "$T/fifo" "$T/f.r0" <<'PY' || fail "reading the FIFO failed"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
data = b""
try:
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        data += b
except BlockingIOError:
    pass
with open(sys.argv[2], "wb") as f:
    f.write(data[:len(data) // 4096 * 4096])	# the page cut in the middle died with it
PY
exec 3>&-
[ -s "$T/f.r0" ] || fail "trev cat cpu0 raw wrote no whole page before it blocked"
"$trev" cat -p "$app" trace_pipe >"$T/f.pipe" 2>"$T/pipe.err" &
p=$!
pids+=($p)
wait_for '[ "$(stat_sum entries)" = 0 ] && [ "$(grep -c integ_rec: "$T/f.pipe")" -gt 0 ]' \
	"trace_pipe read on after the killed trev cat" "cat $T/pipe.err"
kill -TERM "$p"
wait "$p"
"$raw" "$T/fmt" "$T/f.r0" >"$T/f.raw" || fail "integ_raw: malformed pages"
integ map_killed_midway -a "$T/f.counts" "$T/f.raw" "$T/f.pipe"
kill -0 "$app" || fail "integ_app died with the killed trev cat"
kill -TERM "$app"

# ---- staged in the process by its cpu0 trace_pipe, then recorded by trev record -p.
start e
"$trev" cat -p "$app" per_cpu/cpu0/trace_pipe >"$T/e.p0" 2>"$T/pipe.err" &
p=$!
pids+=($p)
wait_for '[ "$(stat_of 0 entries)" = 0 ] && [ "$(grep -c integ_rec: "$T/e.p0")" = "$(stat_of 0 "read events")" ]' \
	"cpu0's trace_pipe read every event of CPU 0"
kill -TERM "$p"
wait "$p"
[ "$(stat_of 1 entries)" -gt 0 ] || fail "nothing of CPU 1 left to record"
"$trev" record -e integ:integ_rec -o "$T/e.dat" -p "$app" >"$T/e.out" 2>"$errf" &
rec=$!
pids+=($rec)
wait_for 'grep -q "^trev: recording process $app; Ctrl-C to stop$" "$errf"' "trev record -p started"
kill -INT "$rec"
wait "$rec" || fail "trev record -p failed"
trace-cmd report -i "$T/e.dat" >"$T/e.txt" 2>"$T/e.rep.err" || { cp "$T/e.rep.err" "$errf"; fail "trace-cmd report e.dat failed"; }
integ staged_then_record "$T/e.counts" "$T/e.p0" "$T/e.txt"
kill -TERM "$app"

# ---- no mapping (a flight recorder's file cannot be sealed): over the socket, the same.
START_ENV="TREV_FLIGHT=$T/flight" start d
"$trev" stat -p "$app" >"$T/d.stat" 2>"$errf" || fail "trev stat failed"
grep -q 'from the mapped buffer' "$T/d.stat" && fail "trev stat says it mapped a flight recorder's buffer"
cat_raw 0 "$T/r0"
kill -TERM "$cat_pid"
wait "$cat_pid"
grep -q . "$T/cat.err" && { cp "$T/cat.err" "$errf"; fail "trev cat cpu0 raw (socket) complained"; }
pipe_rest "$T/d.pipe"
"$raw" "$T/fmt" "$T/r0" >"$T/d.raw" || fail "integ_raw: malformed pages"
integ socket_then_pipe "$T/d.counts" "$T/d.raw" "$T/d.pipe"
kill -TERM "$app"
echo "trace_pipe_raw from the mapping, then other readers: every event once: ok"
