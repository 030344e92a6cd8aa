#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record (docs/cli/trev-record.md): a command started held (statically and dynamically
# linked), -e/-f/-T/-b/-C/-o, file versions 6 and 7 read by trace-cmd, losses that add up
# exactly, -p attach with the settings restored, call sites and stack frames named, and every
# error: one line, non-zero, nothing left behind (no output file, no temporary file, no
# command left running).
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
work=$T
chmod 755 "$work"
export TMPDIR="$work/tmp"	# the writer's per-CPU temporary files
mkdir "$TMPDIR"
out="$work/out"
errf="$work/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }

nothing_left() {	# nothing_left FILE: no output file, no temporary file
	[ ! -e "$1" ] || fail "$1 was left behind"
	[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"
}
summary_total() {	# the summary's "N events, M lost" line: print "N M"
	sed -nE 's/^trev: ([0-9]+) events, ([0-9]+) lost.*/\1 \2/p' "$errf"
}
valid() {	# valid FILE: trace-cmd accepts it
	trace-cmd dump -v -i "$1" >"$work/dump" 2>&1
	grep -q "is a valid trace-cmd file" "$work/dump" || fail "trace-cmd dump -v rejects $1"
}

# ---- -- COMMAND, dynamically linked (its events register after the library's start-up).
run 0 "$trev" record -e 'demo:*' -o "$work/demo.dat" -- "$B/examples/demo_events"
valid "$work/demo.dat"
trace-cmd report -i "$work/demo.dat" >"$out" 2>/dev/null || fail "trace-cmd report failed"
want=$(TREV_SOCKET=0 TREV_EVENTS='demo:*' TREV_OUTPUT=stdout "$B/examples/demo_events" |
	grep -cE ': demo_[a-z_]+:')
got=$(grep -cE ' demo_[a-z_]+: ' "$out")
[ "$want" -gt 0 ] && [ "$got" = "$want" ] || fail "demo: $got demo events in the file, $want in trace"
grep -qE '^\s*worker-1-[0-9]+\s+\[[0-9]{3}\]\s+[0-9]+\.[0-9]+:\s+demo_worker_start:\s+name=worker-1 id=1' "$out" ||
	fail "demo: no demo_worker_start of worker-1"
read -r n lost < <(summary_total)
[ "$n" -ge "$got" ] && [ "$lost" = 0 ] || fail "demo: summary says $n events, $lost lost"
err_has "^trev: wrote $work/demo.dat \(version 6, [0-9]+ bytes\)$"

# ---- -- COMMAND, static; -f, -T, -b, -C, version 7: only the filtered events, from both threads.
run 0 "$trev" record -e trev_test:tt_ints -f 'a < 100' -T 'stacktrace if a == 50' -b 256 -C mono \
	--file-version 7 -o "$work/f.dat" -- "$B/tests/rec_app" 5000 2
grep -q '^fired 10000$' "$out" || fail "rec_app's output did not pass through"
valid "$work/f.dat"
trace-cmd dump --summary -i "$work/f.dat" >"$out" 2>&1 || fail "trace-cmd dump --summary failed"
grep -qE '^\s+7\s+\[Version\]' "$out" || fail "dump --summary: not version 7"
grep -q '"mono" clock' "$out" || fail "dump --summary: trace clock mono not in the file"
trace-cmd report -i "$work/f.dat" >"$out" 2>/dev/null || fail "report f.dat failed"
[ "$(grep -c ' tt_ints: ' "$out")" = 200 ] || fail "filter: $(grep -c ' tt_ints: ' "$out") events, not 200"
grep ' tt_ints: ' "$out" | sed -E 's/.* a=([0-9]+) .*/\1/' | awk '$1 >= 100 { bad = 1 } END { exit bad }' ||
	fail "filter: an event with a >= 100"
[ "$(grep -cE '^\s*burst-0-[0-9]+\s.*\stt_ints:\s' "$out")" = 100 ] || fail "no 100 events of thread burst-0"
[ "$(grep -cE '^\s*burst-1-[0-9]+\s.*\stt_ints:\s' "$out")" = 100 ] || fail "no 100 events of thread burst-1"
[ "$(grep -c 'kernel_stack' "$out")" = 2 ] || fail "stacktrace if a == 50: not one stack per thread"

# ---- losses: a burst into 8 KB buffers. The file's drop markers, the summary and the
# process's own overrun counts agree exactly, and every fired event is recorded or lost.
run 0 "$trev" record -e trev_test:tt_ints -b 8 -o "$work/l.dat" -- "$B/tests/rec_app" 100000 2
fired=$(sed -n 's/^fired //p' "$out")
cp "$errf" "$work/l.err"
read -r n lost < <(summary_total)
valid "$work/l.dat"
trace-cmd report -i "$work/l.dat" >"$out" 2>/dev/null || fail "report l.dat failed"
in_file=$(grep -c ' tt_ints: ' "$out")
dropped=$(grep -oE '\[[0-9]+ EVENTS DROPPED\]' "$out" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s + 0 }')
[ "$lost" -gt 0 ] || fail "no losses with 8 KB buffers"
[ "$n" = "$in_file" ] || fail "summary: $n events, the file has $in_file"
[ "$lost" = "$dropped" ] || fail "summary: $lost lost, the file's markers say $dropped"
[ $((in_file + dropped)) = "$fired" ] || fail "$in_file recorded + $dropped lost != $fired fired"
grep -qE "^trev: $n events, $lost lost \(in the file; the process counted $lost overrun, 0 dropped\)" \
	"$work/l.err" || { cp "$work/l.err" "$errf"; fail "summary does not match the stats"; }

# ---- -p PID: record a running process, stop on SIGINT, its settings restored.
"$B/tests/ctl_app" 2 >"$work/app.out" &
pids+=($!)
wait_ready "$work/app.out"
before=""
for f in set_event buffer_size_kb trace_clock events/trev_test/tt_ints/filter \
	events/trev_test/tt_ints/trigger; do
	before+="$("$trev" cat -p "$app" "$f")"$'\n'
done
"$trev" record -e trev_test:tt_ints -f 'a & 1' -T 'stacktrace' -b 64 -C mono -o "$work/p.dat" \
	-p "$app" >"$out" 2>"$errf" &
rec=$!
wait_recording 10	# a stack and an odd a among them
kill -INT "$rec"
wait "$rec"; st=$?
[ $st = 0 ] || fail "trev record -p exited $st after SIGINT"
valid "$work/p.dat"
trace-cmd report -i "$work/p.dat" >"$out" 2>/dev/null || fail "report p.dat failed"
grep -qE '^\s*emitter-[0-9]+\s.*\stt_ints:\s+a=[0-9]+' "$out" || fail "-p: no tt_ints of emitter"
grep ' tt_ints: ' "$out" | sed -E 's/.* a=([0-9]+) .*/\1/' | awk '$1 % 2 == 0 { bad = 1 } END { exit bad }' ||
	fail "-p: the filter a & 1 let an even a through"
grep -q 'kernel_stack' "$out" || fail "-p: the stacktrace trigger left no stack"
after=""
for f in set_event buffer_size_kb trace_clock events/trev_test/tt_ints/filter \
	events/trev_test/tt_ints/trigger; do
	after+="$("$trev" cat -p "$app" "$f")"$'\n'
done
[ "$before" = "$after" ] || fail "-p: settings not restored: before [$before] after [$after]"

# -p: the process exits mid-recording; its last pages are drained, the file is written.
"$trev" record -e trev_test:tt_ints -o "$work/x.dat" -p "$app" >"$out" 2>"$errf" &
rec=$!
wait_recording 1
kill -TERM "$app"
wait "$app"
wait "$rec"; st=$?
[ $st = 0 ] || fail "trev record -p exited $st when the process exited"
err_has "^trev: process $app exited$"
valid "$work/x.dat"
trace-cmd report -i "$work/x.dat" >"$out" 2>/dev/null || fail "report x.dat failed"
grep -q ' tt_ints: ' "$out" || fail "x.dat has no events"

# ---- names: the functions of trace_printk() call sites, trace_marker's writer and stacktrace
# frames, from the process's maps and ELF files (sym_app is a PIE linked with libtrev.so; it
# dlopen()s sym_mod after trev record has read its maps). An address no symbol holds keeps its
# hex, never the name of the function listed below it.
only_hex_unknown() {
	# Each frame is "=> name (addr)", "=> 0xaddr (addr)" or "=> addr"; the addresses of one
	# name lie within 64 KiB (one named after a function below it would be far off).
	local -A lo=() hi=()
	local name addr a
	while read -r _ name addr; do
		[ -z "$addr" ] && [[ $name =~ ^[0-9a-f]+$ ]] && continue
		[[ $addr =~ ^\(([0-9a-f]+)\)$ ]] || fail "frame '$name $addr' has no address"
		addr=${BASH_REMATCH[1]}
		if [[ $name == 0x* ]]; then
			[ "$name" = "0x$addr" ] || fail "frame $name is not its own address $addr"
			continue
		fi
		a=$((16#$addr))
		: "${lo[$name]:=$a}" "${hi[$name]:=$a}"
		[ "$a" -ge "${lo[$name]}" ] || lo[$name]=$a
		[ "$a" -le "${hi[$name]}" ] || hi[$name]=$a
		[ $((hi[$name] - lo[$name])) -lt 65536 ] || fail "frames named $name lie far apart"
	done < <(grep -E '^=> ' "$out")
}
# -- COMMAND, exit: the exit hold keeps the process until the file is written.
run 0 "$trev" record -e trev_test:tt_ints -T stacktrace -o "$work/n.dat" -- "$B/tests/sym_app" exit
trace-cmd report -i "$work/n.dat" >"$out" 2>/dev/null || fail "report n.dat failed"
has ' bprint: +sym_app_printk: sym_app_printk 1$'
has ' print: +sym_app_printk: sym_app_print 1$'
has ' bprint: +sym_mod_printk: sym_mod_printk 1$'
has '^=> sym_app_fire \([0-9a-f]+\)$'
has '^=> main \([0-9a-f]+\)$'
only_hex_unknown
# -- COMMAND, killed once its pages are read: gone before the file is written (no exit hold),
# its names come from the maps read at the start. sym_mod, mapped after those, is named only
# if a snapshot looked it up while the process lived. trev record exits as it did: 128 + 9.
run 137 "$trev" record -e trev_test:tt_ints -T stacktrace -o "$work/k.dat" -- "$B/tests/sym_app" kill
err_has 'sym_app ended without exiting normally'
err_has 'sym_app was killed by signal 9 \(Killed\)$'
trace-cmd report -i "$work/k.dat" >"$out" 2>/dev/null || fail "report k.dat failed"
has ' print: +sym_app_printk: sym_app_print 1$'
has '^=> sym_app_fire \([0-9a-f]+\)$'
has '^=> main \([0-9a-f]+\)$'
has ' bprint: +(sym_mod_printk|0x[0-9a-f]+): '
only_hex_unknown
# -p, with a trace_marker write while recording.
"$B/tests/sym_app" wait >"$work/sym.out" &
pids+=($!)
wait_ready "$work/sym.out"
"$trev" record -e trev_test:tt_ints -T stacktrace -o "$work/np.dat" -p "$app" >"$out" 2>"$errf" &
rec=$!
wait_recording 10	# two rounds of sym_app's 5 records: a whole one since tracing was set up
"$trev" write -p "$app" trace_marker 'hello from the test' || fail "trev write trace_marker failed"
# A second recorder of the same process is refused before it changes anything.
filters_before=$("$trev" cat -p "$app" events/trev_test/tt_ints/enable)
"$trev" record -e trev_test:tt_ints -f 'a > 3' -o "$work/np2.dat" -p "$app" >"$work/np2.out" 2>"$work/np2.err"
st=$?
[ $st = 1 ] || fail "a second trev record -p exited $st, not 1"
grep -qx "trev: process $app is being recorded already (another trev record consumes its buffer)" \
	"$work/np2.err" || { cp "$work/np2.err" "$errf"; fail "the second recorder's message"; }
[ ! -e "$work/np2.dat" ] || fail "the second recorder wrote a file"
[ "$("$trev" cat -p "$app" events/trev_test/tt_ints/filter)" = none ] ||
	fail "the second recorder changed the filter"
[ "$("$trev" cat -p "$app" events/trev_test/tt_ints/enable)" = "$filters_before" ] ||
	fail "the second recorder changed enable"
kill -INT "$rec"	# the last pages are drained: the marker is in them
wait "$rec"; st=$?
[ $st = 0 ] || fail "trev record -p exited $st after SIGINT"
kill -TERM "$app"
wait "$app"
trace-cmd report -i "$work/np.dat" >"$out" 2>/dev/null || fail "report np.dat failed"
has ' bprint: +sym_app_printk: sym_app_printk [0-9]+$'
has ' print: +sym_app_printk: sym_app_print [0-9]+$'
has ' bprint: +sym_mod_printk: sym_mod_printk [0-9]+$'
has ' print: +tracing_mark_write: hello from the test$'
has '^=> sym_app_fire \([0-9a-f]+\)$'
has '^=> main \([0-9a-f]+\)$'
only_hex_unknown

# ---- errors: one line, status 1, nothing left behind.
o="$work/e.dat"
run 1 "$trev" record -e trev_test:tt_ints -o "$o" -p 999999999
err_has '^trev: no process 999999999$'
nothing_left "$o"
sleep infinity & pids+=($!)
run 1 "$trev" record -o "$o" -p $!
err_has "^trev: process $! does not serve trev"
nothing_left "$o"
"$B/tests/ctl_app" 5 >"$work/app2.out" &
pids+=($!)
wait_ready "$work/app2.out"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir -m 1777 "$work/pub"
	run 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$trev" record \
		-o "$work/pub/e.dat" -p "$app"
	err_has "^trev: process $app belongs to another user$"
	nothing_left "$work/pub/e.dat"
fi
run 1 "$trev" record -e nosuch:event -o "$o" -p "$app"
err_has "^trev: set_event: 'nosuch:event': Invalid argument$"
err_has 'No such event'
nothing_left "$o"
run 1 "$trev" record -e trev_test:tt_ints -f 'a == == 1' -o "$o" -p "$app"
err_has "^trev: events/trev_test/tt_ints/filter: 'a == == 1': Invalid argument$"
err_has '^  Command: a == == 1$'
grep -qE '^ +\^$' "$errf" || fail "bad filter: no caret line"
nothing_left "$o"
[ "$("$trev" cat -p "$app" events/trev_test/tt_ints/enable)" = 0 ] || fail "a failed -p left the event on"
# -- COMMAND: refused configuration kills the held command; nothing runs on.
run 1 "$trev" record -e nosuch:event -o "$o" -- "$B/tests/rec_app" 10
err_has "^trev: set_event: 'nosuch:event': Invalid argument$"
grep -q fired "$out" && fail "the command ran on after a refused configuration"
nothing_left "$o"
run 1 "$trev" record -e trev_test:tt_ints -o "$o" -- /nonexistent/cmd
err_has '^trev: /nonexistent/cmd: No such file or directory$'
nothing_left "$o"
run 1 "$trev" record -o "$o" -- true
err_has '^trev: true does not use trev, nor does any process it started$'
run 1 "$trev" record --no-follow -o "$o" -- true
err_has '^trev: true does not use trev \(it exited without a control socket\)$'
nothing_left "$o"
nothing_left "$o"
run 1 "$trev" record --no-follow --wait 1 -o "$o" -- sleep 2
err_has '^trev: sleep does not use trev \(no socket after 1 s\)$'
nothing_left "$o"
run 2 "$trev" record -f 'a == 1' -- true
err_has '^trev: -f needs an -e before it$'
run 2 "$trev" record --file-version 5 -- true
err_has "^trev: --file-version is 6 or 7, not '5'$"
# 2^32 + 1 is no 1 second.
run 2 "$trev" record --wait 4294967297 -- true
err_has "^trev: --wait takes 1..3600 seconds, not '4294967297'$"
run 1 "$trev" record -o /nonexistent/dir/t.dat -- true
err_has '^trev: /nonexistent/dir/t.dat: No such file or directory$'
echo "trev record: ok"
