#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev stat -p PID reads the top instance's per-CPU statistics from the mapped ring buffer
# (MAP without consuming, issue 16): for a quiescent process every number equals what its own
# per_cpu/cpuN/stats says, with nothing read yet, and after its own per-CPU reader (cpu0's
# trace_pipe) consumed one CPU and staged the others' events in the process; trev stat moves
# nothing (run again, the same numbers; then trace_pipe reads every event left exactly once);
# while a trev cat of trace_pipe_raw holds the consuming position, trev stat reads over the
# socket, and still agrees.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
app_bin="$B/tests/integ_app"
check="$B/tests/integ_check"
raw="$B/tests/integ_raw"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "skip: one CPU, no other CPU's events to stage"; exit 77; }
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"

done_said() { grep -q '^done ' "$1"; }
stat_of() { "$trev" cat -p "$app" "per_cpu/cpu$1/stats" | sed -n "s/^$2: //p"; }
cpus() { "$trev" ls -p "$app" per_cpu | sed 's|/$||; s|^cpu||'; }

# The per-CPU rows per_cpu/cpuN/stats give, as trev stat prints them.
rows_of_files() {
	local c f
	for c in $(cpus); do
		f=$("$trev" cat -p "$app" "per_cpu/cpu$c/stats")
		printf '  %5d' "$c"
		for k in entries overrun 'commit overrun' 'dropped events' 'read events' bytes; do
			printf ' %11s' "$(sed -n "s/^$k: //p" <<<"$f")"
		done
		echo
	done
}
# trev stat's per-CPU rows of the top instance; $1: "mapped" or "socket", where they came from.
rows_of_stat() {
	"$trev" stat -p "$app" >"$T/stat.out" 2>"$errf" || fail "trev stat failed"
	local want='^  per CPU \(per_cpu/cpuN/stats, from the mapped buffer\):$'
	if [ "$1" = mapped ]; then
		grep -qE "$want" "$T/stat.out" || { cp "$T/stat.out" "$out"; fail "trev stat did not read the mapping"; }
	else
		grep -qE "$want" "$T/stat.out" && { cp "$T/stat.out" "$out"; fail "trev stat read a lent mapping"; }
	fi
	awk '/^instance top$/ { top = 1 } /^instance / && !/top/ { top = 0 }
	     top && /^  per CPU/ { rows = 1; getline; next } rows && /^  per thread/ { exit }
	     rows { print }' "$T/stat.out"
}
agree() {
	rows_of_stat "$1" >"$T/stat.rows"
	rows_of_files >"$T/file.rows"
	[ -s "$T/stat.rows" ] && cmp -s "$T/stat.rows" "$T/file.rows" ||
		{ diff "$T/file.rows" "$T/stat.rows" >"$out"; fail "$2: trev stat and per_cpu/cpuN/stats differ"; }
}

# integ_app, everything written and kept, on CPUs 0 and 1 both (started again if not).
for try in 1 2 3 4 5 6 7 8 9 10; do
	INTEG_PAUSE_US=20 INTEG_STAY=1 TREV_BUFFER_KB=4096 TREV_EVENTS=integ:integ_rec \
		"$app_bin" "$T/counts" kept 3 2000 200 >"$T/app" 2>"$errf" &
	pids+=($!)
	wait_ready "$T/app"
	WAIT_GUARD=120 wait_for "done_said $T/app" "integ_app said done"
	[ "$(stat_of 0 entries)" -gt 0 ] && [ "$(stat_of 1 entries)" -gt 0 ] && break
	kill -TERM "$app"
	[ $try = 10 ] && fail "10 runs of integ_app wrote on one CPU only"
done

agree mapped "nothing read"

# cpu0's trace_pipe, a reader of the process: it stages CPU 1's events in the process.
"$trev" cat -p "$app" per_cpu/cpu0/trace_pipe >"$T/p0" 2>"$errf" &
p=$!
pids+=($p)
wait_for '[ "$(stat_of 0 entries)" = 0 ] && [ "$(grep -c integ_rec: "$T/p0")" = "$(stat_of 0 "read events")" ]' \
	"cpu0's trace_pipe read every event of CPU 0"
kill -TERM "$p"
wait "$p"
agree mapped "cpu0 read, CPU 1 staged"
cp "$T/stat.rows" "$T/first.rows"
agree mapped "trev stat again"
cmp -s "$T/first.rows" "$T/stat.rows" || fail "a second trev stat saw other numbers: it moved something"

# trev cat of cpu1's raw pages holds the position: trev stat reads over the socket.
"$trev" cat -p "$app" per_cpu/cpu1/trace_pipe_raw >"$T/r1" 2>"$errf" &
p=$!
pids+=($p)
wait_for '[ "$(stat_of 1 entries)" = 0 ]' "trev cat cpu1 raw took CPU 1's events"
agree socket "lent to trev cat"
kill -TERM "$p"
wait "$p"
agree mapped "returned by trev cat"

# The statistics readers took nothing: cpu0's trace_pipe, cpu1's raw pages (decoded with
# kbuffer, when libtraceevent is here) and trace_pipe after them read every event once.
"$trev" cat -p "$app" trace_pipe >"$T/rest" 2>"$errf" &
p=$!
pids+=($p)
if [ -x "$raw" ]; then
	"$trev" cat -p "$app" events/integ/integ_rec/format >"$T/fmt" || fail "no format file"
	"$raw" "$T/fmt" "$T/r1" >"$T/r1.txt" || { cp "$T/r1.txt" "$out"; fail "integ_raw: malformed pages"; }
fi
sum_read() { local c n=0; for c in $(cpus); do n=$((n + $(stat_of "$c" 'read events'))); done; echo $n; }
wait_for '[ "$(stat_of 0 entries)" = 0 ] && [ "$(stat_of 1 entries)" = 0 ] &&
	[ $(($(grep -c integ_rec: "$T/rest") + $(grep -c integ_rec: "$T/p0") + $(stat_of 1 "read events"))) -ge $(sum_read) ]' \
	"trace_pipe read every event left"
kill -TERM "$p"
wait "$p"
if [ -x "$raw" ]; then
	"$check" -n stat_readers "$T/counts" "$T/p0" "$T/r1.txt" "$T/rest" >"$out" 2>"$errf" ||
		{ cat "$out"; fail "stat_readers: the checker failed"; }
	cat "$out"
fi
kill -TERM "$app"
echo "trev stat from the mapping agrees with per_cpu/cpuN/stats: ok"
