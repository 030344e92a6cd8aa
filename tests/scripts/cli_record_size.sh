#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record copies pages when they are full, and partial ones only at a flush or at the end
# (docs/cli/trev-record.md, "Page size"), so a program that writes events at a moderate rate
# gets a file the size of its events. integ_app's writer sleeps 300 us after each event (its
# events: 40 to 240 bytes); recorded by `trev record -- CMD` and by `trev record -p PID`:
#
#   file size <= 1.25 * (R + 16 * ceil(R / 4096)) + F
#
#   R   the bytes of the records in the file: each integ_rec event has 33 + len bytes of
#       payload (len as trace-cmd report prints it), rounded up to 4, behind a 4-byte record
#       header (8 bytes above 112 bytes of payload)
#   16  a page header per 4 KB of records
#   F   the file's fixed part (headers, formats, cmdlines, kallsyms, alignment), measured: the
#       size of a recording of the same program in which a filter lets no event through
#   1.25  room for the unused ends of full pages (records do not straddle pages) and for the
#       partial pages: one per CPU with events at each flush (--flush, every second) and at
#       the end. The writer is pinned to one CPU, so that is one partial page per flush and
#       one at the end; 25 % of R is over 40 pages, far more flushes than the run lasts
#       seconds on any machine. Before full-page reads the files were 4 times as big.
#
# and trace-cmd report reads every event written (integ_check: written == read, none lost).
# Then a flush without a full page: `trev record -p` of a process that writes a few events
# and is then killed (no exit hold, no final drain) still has them, copied by a flush.
# Sizes and counts only; every wait is for a condition.
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
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
command -v taskset >/dev/null || { echo "taskset is needed"; exit 77; }

EVENTS=4000
export INTEG_PAUSE_US=300
cpu=$(taskset -pc $$ | sed -E 's/.*: *//; s/[-,].*//')	# the first CPU we may use
[ -n "$cpu" ] || fail "no CPU from taskset -pc"

# bytes DAT: the file's size
bytes() { stat -c %s "$1"; }

# records DAT: "N R", the integ_rec events in DAT and their records' bytes (R above)
records() {
	trace-cmd report -i "$1" 2>/dev/null | awk '
		/ integ_rec: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^len=/) {
					p = int((33 + substr($i, 5) + 3) / 4) * 4
					r += (p <= 112 ? 4 : 8) + p
					n++
				}
		}
		END { print n + 0, r + 0 }'
}

# integ NAME COUNTS DAT [-c]: every event written is in DAT, none lost, each one as written
# (-c: and the COMM-PID column names its thread)
integ() {
	trace-cmd report -i "$3" >"$T/$1.txt" 2>"$errf" || fail "$1: trace-cmd report failed"
	"$check" -n "$1" ${4:-} "$2" "$T/$1.txt" >"$out" 2>"$errf" || fail "$1: the checker failed"
	cat "$out"
	grep -qE ' lost=0 ' "$out" || fail "$1: events lost"
}

# sized NAME DAT: the size bound above
sized() {
	local n r size limit
	read -r n r < <(records "$2")
	size=$(bytes "$2")
	limit=$((125 * (r + 16 * ((r + 4095) / 4096)) / 100 + F))
	echo "$1: $n events, R=$r bytes, F=$F: file $size bytes, limit $limit"
	[ "$n" -gt 0 ] || fail "$1: no events in the file"
	[ "$size" -le "$limit" ] ||
		fail "$1: $size bytes, more than 1.25 * ($r + 16 per 4 KB) + $F = $limit"
}

# ---- F: the same program and options, no event passes the filter.
"$trev" record -e integ:integ_rec -f 'stream == 999999' -o "$T/zero.dat" -- \
	taskset -c "$cpu" "$app_bin" "$T/zero.counts" kept 1 "$EVENTS" 0 >"$out" 2>"$errf" ||
	fail "trev record of no event failed"
F=$(bytes "$T/zero.dat")
read -r n _ < <(records "$T/zero.dat")
[ "$n" = 0 ] || fail "the recording of no event has $n"
echo "fixed part F: $F bytes"

# ---- trev record -- COMMAND
"$trev" record -e integ:integ_rec -o "$T/cmd.dat" -- \
	taskset -c "$cpu" "$app_bin" "$T/cmd.counts" kept 1 "$EVENTS" 0 >"$T/cmd.app" 2>"$errf" ||
	fail "trev record -- integ_app failed"
grep -q '^done ' "$T/cmd.app" || fail "integ_app under trev record did not finish"
integ record_cmd "$T/cmd.counts" "$T/cmd.dat" -c
sized record_cmd "$T/cmd.dat"

# ---- trev record -p PID, stopped once the process has written everything.
: >"$T/p.app"
INTEG_STAY=1 taskset -c "$cpu" "$app_bin" "$T/p.counts" kept 1 "$EVENTS" 0 >"$T/p.app" 2>"$errf" &
pids+=($!)
wait_ready "$T/p.app"
"$trev" record -e integ:integ_rec -o "$T/p.dat" -p "$app" >"$T/p.out" 2>"$T/p.err" &
rec=$!
WAIT_GUARD=120 wait_for 'grep -q "^done " "$T/p.app"' "integ_app said done"
kill -INT "$rec"
wait "$rec"
st=$?
[ $st = 0 ] || { cp "$T/p.err" "$errf"; fail "trev record -p exited $st"; }
kill -TERM "$app"
integ record_p "$T/p.counts" "$T/p.dat" -c
sized record_p "$T/p.dat"

# ---- A flush: 10 events (at most 2.4 KB: no page fills), copied within --flush 100 ms; the
# process is then killed, so no final drain reads them. The per-CPU stats count an event
# read once a page holding it is handed out.
read_events() {
	local c n=0
	for c in $("$trev" ls -p "$app" per_cpu | sed 's|/$||'); do
		n=$((n + $("$trev" cat -p "$app" "per_cpu/$c/stats" | sed -n 's/^read events: //p')))
	done
	echo "$n"
}
: >"$T/k.app"
INTEG_STAY=1 "$app_bin" "$T/k.counts" kept 1 10 0 >"$T/k.app" 2>"$errf" &
pids+=($!)
wait_ready "$T/k.app"
"$trev" record -e integ:integ_rec --flush 100 -o "$T/k.dat" -p "$app" >"$T/k.out" 2>"$T/k.err" &
rec=$!
wait_for 'grep -q "^done " "$T/k.app"' "integ_app said done"
total=$(sed -nE 's/^total written=([0-9]+)/\1/p' "$T/k.counts")
[ -n "$total" ] || fail "no total in $T/k.counts"
wait_for '[ "$(read_events)" -ge "$total" ]' "the recorder read the $total events of partial pages"
kill -KILL "$app"
wait "$app" 2>/dev/null	# (bash would say "Killed")
wait "$rec"
st=$?
[ $st = 0 ] || { cp "$T/k.err" "$errf"; fail "trev record -p exited $st when the process was killed"; }
grep -q "ended without exiting normally" "$T/k.err" || { cp "$T/k.err" "$errf"; fail "no word of the kill"; }
# Its thread's name may have come after the last metadata snapshot: no COMM check.
integ record_killed "$T/k.counts" "$T/k.dat"
echo "trev record file sizes: ok"
