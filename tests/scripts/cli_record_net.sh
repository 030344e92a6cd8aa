#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record -N HOST:PORT (tools/trev/net_listen.c, docs/streaming.md) against Debian's
# trace-cmd listen on the loopback, and against a hostile fake listener:
#   - a multi-threaded program: the listener's trace.HOST:PORT.dat, read by trace-cmd report,
#     has every event of the local -o file of the same run, line for line;
#   - a session of three processes: a listener file each, their events those of the local
#     merged file, and trev merge joins them;
#   - function_graph: the listener's file names the functions as the local one does;
#   - -N without -o leaves no file here;
#   - the listener killed mid-run: trev record -p stops with a message, keeps the local file,
#     and the program runs on;
#   - replies that break the protocol, and a listener that never answers: a clear error,
#     and the held command never runs untraced.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
command -v ss >/dev/null || { echo "ss (iproute2) is needed"; exit 77; }

events_of() {	# events_of FILE: the event lines trace-cmd prints
	trace-cmd report -i "$1" 2>/dev/null | grep -E ': [a-z_]+: '
}

# The listener's files named by trev record's "from port N" lines.
sent_files() {
	local p
	for p in $(sed -nE 's/.* from port ([0-9]+) .*/\1/p' "$errf"); do
		ls "$T"/ldir/trace.*:"$p".dat 2>/dev/null || echo "$T/ldir/missing-$p"
	done
}

# 1. A multi-threaded program, -N beside -o: the same events in both files.
start_listener "$T/ldir"
run 0 "$trev" record -N "127.0.0.1:$lport" -o "$T/local.dat" -e 'trev_test:tt_ints' \
	-- "$B/tests/rec_app" 2000 4
err_has "^trev: sent [0-9]+ bytes to 127.0.0.1:$lport \(1 file of the listener's, "
files=$(sent_files)
[ -f "$files" ] || fail "no listener file for the process: $files; $(ls "$T/ldir")"
events_of "$T/local.dat" >"$T/want"
events_of "$files" >"$T/got"
[ "$(wc -l <"$T/want")" = 8000 ] || fail "local.dat: $(wc -l <"$T/want") events, not 8000"
diff -u "$T/want" "$T/got" >&2 || fail "the listener's file differs from the local one"
# Every thread by its name, not "<...>": the metadata went last, with every name.
grep -c ' burst-[0-3]-[0-9]* ' "$T/got" | grep >/dev/null -x 8000 || fail "threads unnamed in the listener's file"

# 2. A session of three processes: a file each, their events those of the merged local file.
start_listener "$T/ldir"
run 0 "$trev" record -N "127.0.0.1:$lport" -o "$T/s.dat" -e 'trev_test:tt_ints' \
	-- "$B/tests/run_app" spawn 2 300
err_has "\(3 files of the listener's, "
mapfile -t sfiles < <(sent_files)
[ "${#sfiles[@]}" = 3 ] || fail "${#sfiles[@]} listener files, not 3"
for f in "${sfiles[@]}"; do [ -f "$f" ] || fail "listener file $f missing"; done
events_of "$T/s.dat" | sed -E 's/^[a-z_]+-[0-9]+: //; s/^ +//' | sort >"$T/want"
for f in "${sfiles[@]}"; do events_of "$f"; done | sed -E 's/^ +//' | sort >"$T/got"
[ "$(wc -l <"$T/want")" = 900 ] || fail "s.dat: $(wc -l <"$T/want") events, not 900"
diff -u "$T/want" "$T/got" >&2 || fail "the listener's files differ from the local merged one"
run 0 "$trev" merge -o "$T/joined.dat" "${sfiles[@]}"
[ "$(events_of "$T/joined.dat" | wc -l)" = 900 ] || fail "trev merge of the listener's files"

# 3. function_graph: functions named in the listener's file as in the local one.
start_listener "$T/ldir"
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-N "127.0.0.1:$lport" -o "$T/g.dat" -- "$B/tests/ft_app") >"$out" 2>"$errf" ||
	fail "trev record -t function_graph -N"
trace-cmd report -i "$T/g.dat" 2>/dev/null | grep funcgraph >"$T/want"
trace-cmd report -i "$(sent_files)" 2>/dev/null | grep funcgraph >"$T/got"
grep -q 'funcgraph_entry: .*ft_' "$T/want" || fail "g.dat has no ft_ function entries"
diff -u "$T/want" "$T/got" >&2 || fail "function_graph: the listener's file differs"

# 4. -N alone: sent, and nothing left here or in TMPDIR.
start_listener "$T/ldir"
mkdir -p "$T/tmp" "$T/cwd"
(cd "$T/cwd" && TMPDIR="$T/tmp" "$trev" record -N "127.0.0.1:$lport" -e 'trev_test:tt_ints' \
	-- "$B/tests/rec_app" 100 1) >"$out" 2>"$errf" || fail "trev record -N alone"
[ "$(events_of "$(sent_files)" | wc -l)" = 100 ] || fail "-N alone: not 100 events sent"
left=$(find "$T/tmp" "$T/cwd" -mindepth 1)
[ -z "$left" ] || fail "-N alone left files: $left"
grep -q '^trev: wrote' "$errf" && fail "-N alone says it wrote a file"

# 5. The listener killed mid-run: trev record -p stops, says why, keeps -o; the program runs on.
start_listener "$T/ldir"
: >"$T/app.out"
"$B/tests/ctl_app" 1 >"$T/app.out" 2>&1 &
pids+=($!)
wait_ready "$T/app.out"
"$trev" record -N "127.0.0.1:$lport" -o "$T/k.dat" -e trev_test:tt_ints -p "$app" >"$out" 2>"$errf" &
rec=$!
pids+=("$rec")
wait_for "grep -q ' from port ' '$errf' && ls '$T'/ldir/*.cpu* >/dev/null 2>&1 &&
	[ \$(cat '$T'/ldir/*.cpu* | wc -c) -gt 0 ]" "a page at the listener" "cat '$errf'"
kill -KILL -- "-$lpid"
wait_gone "$rec" "trev record after its listener died"
[ "$rc" = 1 ] || fail "trev record exited $rc after its listener died, not 1"
err_has "^trev: ctl_app-$app: sending to 127.0.0.1:$lport: .*; recording stopped$"
kill -0 "$app" 2>/dev/null || fail "the program did not run on"
[ "$(events_of "$T/k.dat" | wc -l)" -gt 0 ] || fail "k.dat keeps no event"

# 6. Hostile listeners: each refused with what it did; the held command never runs.
hostile() {	# hostile MODE REGEX: trev record -N to a fake listener in MODE
	: >"$T/fake.out"
	python3 "$TREV_SOURCE_DIR/tests/control/fake_listener.py" "$1" >"$T/fake.out" 2>&1 &
	pids+=($!)
	wait_for "grep -q '^port ' '$T/fake.out'" "the fake listener's port" "cat '$T/fake.out'"
	fport=$(sed -n 's/^port //p' "$T/fake.out")
	TREV_TIMEOUT=2 "$trev" record -N "127.0.0.1:$fport" -o "$T/h.dat" -e 'trev_test:tt_ints' \
		-- "$B/tests/rec_app" 10 1 >"$out" 2>"$errf"
	rc=$?
	[ "$rc" != 0 ] || fail "$1: trev record succeeded"
	err_has "^trev: -N 127.0.0.1:$fport: $2"
	grep -q '^fired' "$out" && fail "$1: the command ran untraced"
	true
}
hostile greeting 'the peer is not trace-cmd listen'
hostile v1 'the listener speaks only protocol version 1'
hostile silent 'agreeing on protocol version 3: no answer in time'
hostile no-ok 'the listener did not accept protocol version 3'
hostile big 'the listener.s reply claims 1048576 bytes'
hostile notsupp 'the listener refused the recording \(NOT_SUPP\)'
hostile cpus 'the listener gave ports for [0-9]+ CPUs; [0-9]+ were asked for'
hostile port 'the listener.s port for CPU 0 is not a port number'
hostile junk 'the listener.s port list has 1 bytes after the [0-9]+ ports'

# Nobody listening, -N alone: that one line, no summary, and the command never ran.
run 1 "$trev" record -N 127.0.0.1:1 -e 'trev_test:tt_ints' -- "$B/tests/rec_app" 10 1
err_is 1 "trev: -N connecting to 127.0.0.1:1: Connection refused"
[ "$(wc -l <"$errf")" = 1 ] || fail "more than the one line after a refused connection"
grep -q '^fired' "$out" && fail "the command ran untraced"

# A listener that ends the transfer mid-run: noticed, reported, the program runs on.
: >"$T/app.out"
"$B/tests/ctl_app" 1 >"$T/app.out" 2>&1 &
pids+=($!)
wait_ready "$T/app.out"
: >"$T/fake.out"
python3 "$TREV_SOURCE_DIR/tests/control/fake_listener.py" midrun >"$T/fake.out" 2>&1 &
pids+=($!)
wait_for "grep -q '^port ' '$T/fake.out'" "the fake listener's port" "cat '$T/fake.out'"
fport=$(sed -n 's/^port //p' "$T/fake.out")
run 1 "$trev" record -N "127.0.0.1:$fport" -o "$T/m.dat" -e trev_test:tt_ints -p "$app"
err_has "^trev: ctl_app-$app: sending to 127.0.0.1:$fport: the listener ended the transfer"
kill -0 "$app" 2>/dev/null || fail "midrun: the program did not run on"
echo "cli_record_net: ok"
