#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every event read is the event written (issue 15), read from outside the process: integ_app's
# writers and signal handlers (tests/integrity/integ_app.c) read by
#   - TREV_OUTPUT (nobody consumes): a big discard buffer keeps every event, so
#     written == read + lost exactly (the losses are signal handlers refused inside a
#     reservation, each printed as a LOST line before the next event of its buffer); a
#     small overwrite buffer keeps the newest: read + lost <= written;
#   - trev cat -p PID trace_pipe, small discard buffers: written == read + lost;
#   - trev record -p PID and trev record -- integ_app, small buffers, the trace.dat read back
#     by trace-cmd report ("[N EVENTS DROPPED]" lines): written == read + lost, and trev
#     record's own summary ("N events, M lost") says the same N and M.
# integ_check checks each event's payload, check, COMM-PID, per-stream order and duplicates
# (tests/integrity/integ_check.h). Every wait is for a condition: integ_app says "done" once
# its buffers are drained, and the reader's output then holds each thread's final event.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
app_bin="$B/tests/integ_app"
check="$B/tests/integ_check"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"

done_said() { grep -q '^done ' "$1"; }
# The reader's output $1 has every final event the counts file $2 lists (streams 512 + thread).
ends_in() {
	[ -s "$2" ] &&
	[ "$(grep -cE 'integ_rec:\s+stream=51[0-9] seq=' "$1")" -ge \
	  "$(awk '$1 == "stream" && $2 >= 512 { n += $4 } END { print n + 0 }' "$2")" ]
}

# integ_check NAME ARGS...: the checker's verdict; its summary goes to the log.
integ() {
	local name=$1
	shift
	"$check" -n "$name" "$@" >"$out" 2>"$errf"
	local st=$?
	cat "$out"
	[ $st = 0 ] || fail "$name: the checker failed"
}

# summary_agrees ERRFILE: trev record's "N events, M lost" is what the checker read and counted lost.
summary_agrees() {
	local n lost r l
	read -r n lost < <(sed -nE 's/^trev: ([0-9]+) events, ([0-9]+) lost.*/\1 \2/p' "$1")
	r=$(sed -nE 's/.* read=([0-9]+) .*/\1/p' "$out")
	l=$(sed -nE 's/.* lost=([0-9]+) .*/\1/p' "$out")
	[ -n "$n" ] && [ "$n" = "$r" ] && [ "$lost" = "$l" ] ||
		{ cp "$1" "$errf"; fail "trev record says ${n:-?} events, ${lost:-?} lost; the file has $r, $l"; }
}

# ---- TREV_OUTPUT, big discard buffer: everything kept.
TREV_SOCKET=0 TREV_BUFFER_KB=4096 TREV_EVENTS=integ:integ_rec TREV_OUTPUT="$T/big.txt" \
	"$app_bin" "$T/big.counts" kept >"$out" 2>"$errf" || fail "integ_app (TREV_OUTPUT) failed"
integ output_big -c "$T/big.counts" "$T/big.txt"

# ---- TREV_OUTPUT, small overwrite buffer: the newest kept.
TREV_SOCKET=0 TREV_BUFFER_KB=16 TREV_WRITE='options/overwrite=1' TREV_EVENTS=integ:integ_rec \
	TREV_OUTPUT="$T/ow.txt" "$app_bin" "$T/ow.counts" kept >"$out" 2>"$errf" ||
	fail "integ_app (TREV_OUTPUT, overwrite) failed"
integ output_overwrite -a -c "$T/ow.counts" "$T/ow.txt"

# ---- trev cat -p PID trace_pipe, small discard buffers.
INTEG_STAY=1 TREV_BUFFER_KB=16 "$app_bin" "$T/cat.counts" consumed >"$T/cat.app" 2>"$errf" &
pids+=($!)
wait_ready "$T/cat.app"
"$trev" cat -p "$app" trace_pipe >"$T/cat.txt" 2>"$T/cat.err" &
cat_pid=$!
pids+=($cat_pid)
"$trev" write -p "$app" events/integ/integ_rec/enable 1 || fail "trev write enable failed"
WAIT_GUARD=120 wait_for 'done_said "$T/cat.app"' "integ_app said done"
wait_for 'ends_in "$T/cat.txt" "$T/cat.counts"' "trev cat trace_pipe showed the final events"
kill -TERM "$cat_pid"	# trev cat streams a pipe until a signal (SIGINT is ignored in the background)
wait "$cat_pid"
kill -TERM "$app"
integ trev_cat -c "$T/cat.counts" "$T/cat.txt"

# ---- trev record -p PID, small buffers; stopped with SIGINT once the process has drained.
INTEG_STAY=1 "$app_bin" "$T/p.counts" consumed >"$T/p.app" 2>"$errf" &
pids+=($!)
wait_ready "$T/p.app"
"$trev" record -e integ:integ_rec -b 16 -o "$T/p.dat" -p "$app" >"$T/p.out" 2>"$T/p.err" &
rec=$!
WAIT_GUARD=120 wait_for 'done_said "$T/p.app"' "integ_app said done"
kill -INT "$rec"
wait "$rec"
st=$?
[ $st = 0 ] || { cp "$T/p.err" "$errf"; fail "trev record -p exited $st"; }
kill -TERM "$app"
trace-cmd report -i "$T/p.dat" >"$T/p.txt" 2>"$errf" || fail "trace-cmd report p.dat failed"
integ record_p -c "$T/p.counts" "$T/p.txt"
summary_agrees "$T/p.err"

# ---- trev record -- integ_app: held at start until the events are on, held at exit until the
# last pages are copied.
"$trev" record -e integ:integ_rec -b 16 -o "$T/c.dat" -- "$app_bin" "$T/c.counts" consumed \
	>"$T/c.app" 2>"$T/c.err" || { cp "$T/c.err" "$errf"; fail "trev record -- integ_app failed"; }
done_said "$T/c.app" || fail "integ_app under trev record did not finish"
trace-cmd report -i "$T/c.dat" >"$T/c.txt" 2>"$errf" || fail "trace-cmd report c.dat failed"
integ record_cmd -c "$T/c.counts" "$T/c.txt"
summary_agrees "$T/c.err"
echo "integrity through trev cat, trev record and TREV_OUTPUT: ok"
