#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev convert --to json (docs/cli/trev-convert.md, "JSON"):
#   - golden: made-up files of known bytes (tests/tracedat/json_dat.c) joined as a session of
#     two processes, converted, and compared with tests/golden/json/session.json (escapes,
#     numbers beyond 2^53, lost events counted and not, an exit lost, an exit without its
#     entry, a call never ended, process and thread names);
#   - recorded: a multi-threaded program (and its lost events), a function_graph run and a
#     session of two programs under `sh -c`, each checked with jq, a JSON reader of its own:
#     the events per event equal trev report --stat's, B/E balanced and time stamps rising
#     per thread, every pid and tid named, the session's two pids both there;
#   - errors: unreadable, truncated and garbage files give one message, status 1, and
#     leave no OUT nor a temporary file; `-` writes to stdout.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
trev=$B/tools/trev/trev
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
# libtracecmd 3.1.6 and libtraceevent 1.7.1 leak in their own code (as in cli_convert.sh).
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err
fail_stdout_lines=40

no_leftovers() {
	local left
	left=$(find "$T" -maxdepth 2 -name '*.trev-tmp-*')
	[ -z "$left" ] || fail "$1: left behind: $left"
}

# ---- golden ---------------------------------------------------------------------------------
mkdir "$T/g"
"$B/tests/json_dat" golden "$T/g" || fail "json_dat golden"
run 0 "$trev" merge -o "$T/g/s.dat" "$T/g/app.dat" "$T/g/child.dat=child-200"
(cd "$T/g" && "$trev" convert --to json s.dat s.json) >"$out" 2>"$errf" || fail "convert s.dat"
[ -s "$errf" ] && fail "convert wrote to stderr"
grep -v '^"otherData"' "$T/g/s.json" | diff -u "$TREV_SOURCE_DIR/tests/golden/json/session.json" - ||
	fail "s.json differs from tests/golden/json/session.json"
jq -c '.otherData | del(.trev_version, .file_writer)' "$T/g/s.json" >"$T/other" ||
	fail "jq cannot read s.json"
want='{"source":"s.dat","clock":"local","file_version":7,"cpus":2,"buffers":2,"events":15,"lost_events":7,"lost_unknown":1,"unmatched_exits":1,"lost_exits":1,"unfinished":1,"too_deep":0,"pids":"process","top_pid":"smallest tid"}'
[ "$(cat "$T/other")" = "$want" ] || fail "otherData: $(cat "$T/other")"
# The same file to stdout: the same bytes.
(cd "$T/g" && "$trev" convert --to json s.dat -) >"$T/g/stdout.json" 2>"$errf" || fail "convert to -"
cmp -s "$T/g/s.json" "$T/g/stdout.json" || fail "OUT and stdout differ"
echo "ok: golden session, and stdout"

# ---- checks of a recorded file with jq -------------------------------------------------------
# events_of_json JSON: "COUNT SYSTEM:EVENT" for each event of the trace.dat file, from the
# JSON: instants by their cat and name, function_graph records by what they became.
events_of_json() {
	jq -r '[.traceEvents[] | select(.ph != "M" and .cat != "trev") |
		if .ph == "B" or .args._too_deep then "ftrace:funcgraph_entry"
		elif (.ph == "E" and .args.calltime != null) or .args._entry_lost then "ftrace:funcgraph_exit"
		elif .ph == "E" then empty
		elif .cat == "ftrace" and .args.parent_ip != null then "ftrace:function"
		else "\(.cat):\(.name)" end] | group_by(.) | .[] | "\(length) \(.[0])"' "$1" | sort
}
# check_json DAT JSON: the events per event are trev report --stat's; per thread, B/E
# balanced (never below zero) and time stamps never going back; every pid and tid named.
check_json() {
	local dat=$1 json=$2
	jq -e . "$json" >/dev/null || fail "$json: jq cannot parse it"
	"$trev" report --stat "$dat" >"$T/stat" 2>"$errf" || fail "trev report --stat $dat"
	sed -n '/^records per event:/,/^$/p' "$T/stat" | sed -nE 's/^ *([0-9]+) (.*)$/\1 \2/p' |
		sort >"$T/want_events"
	events_of_json "$json" >"$T/got_events"
	diff -u "$T/want_events" "$T/got_events" >&2 || fail "$json: events per event differ from trev report --stat"
	bad=$(jq '[.traceEvents[] | select(.ph != "M")] | group_by([.pid, .tid]) | map(
		reduce .[] as $e ({d: 0, ts: 0, bad: false};
			.bad = (.bad or $e.ts < .ts) | .ts = $e.ts |
			if $e.ph == "B" then .d += 1 elif $e.ph == "E" then .d -= 1 | .bad = (.bad or .d < 0)
			else . end) | select(.bad or .d != 0)) | length' "$json")
	[ "$bad" = 0 ] || fail "$json: $bad threads with unbalanced B/E or time going back"
	unnamed=$(jq '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | "\(.pid)/\(.tid)"] as $t |
		[.traceEvents[] | select(.ph == "M" and .name == "process_name") | .pid] as $p |
		[.traceEvents[] | select(.ph != "M") | select(("\(.pid)/\(.tid)" | IN($t[])) and (.pid | IN($p[])) | not)] | length' "$json")
	[ "$unnamed" = 0 ] || fail "$json: $unnamed events of a pid or tid without a name"
	total=$(awk '{ n += $1 } END { print n + 0 }' "$T/want_events")
	[ "$(jq .otherData.events "$json")" = "$total" ] || fail "$json: otherData.events is not $total"
}

# A multi-threaded program: dat_record's two named workers and its main thread.
mkdir "$T/normal" "$T/lost"
"$B/tests/dat_record" "$T/normal" normal >/dev/null || fail "dat_record normal"
"$B/tests/dat_record" "$T/lost" lost >/dev/null || fail "dat_record lost"
run 0 "$trev" convert --to json "$T/normal/v7.dat" "$T/normal.json"
check_json "$T/normal/v7.dat" "$T/normal.json"
[ "$(jq '[.traceEvents[] | select(.ph != "M") | .pid] | unique | length' "$T/normal.json")" = 1 ] ||
	fail "dat_record: not one pid"
jq -r '.traceEvents[] | select(.name == "thread_name") | .args.name' "$T/normal.json" | sort >"$T/names"
printf 'dat_record\nworker-1\nworker-2\n' | diff -u - "$T/names" >&2 || fail "dat_record: thread names"
# Its pid is its main thread's tid.
jq -e '[.traceEvents[] | select(.name == "process_name")][0] as $p |
	[.traceEvents[] | select(.name == "thread_name" and .args.name == "dat_record")][0].tid == $p.pid and
	$p.args.name == "dat_record"' "$T/normal.json" >/dev/null || fail "dat_record: process name and pid"
run 0 "$trev" convert --to json "$T/normal/v6.dat" "$T/normal6.json"
check_json "$T/normal/v6.dat" "$T/normal6.json"
echo "ok: a multi-threaded program, v6 and v7"

run 0 "$trev" convert --to json "$T/lost/v7.dat" "$T/lost.json"
check_json "$T/lost/v7.dat" "$T/lost.json"
lost=$(sed -nE 's/^total: [0-9]+ records, ([0-9]+) lost.*/\1/p' "$T/stat")
[ "${lost:-0}" -gt 0 ] || fail "dat_record lost: no lost events to see"
[ "$(jq .otherData.lost_events "$T/lost.json")" = "$lost" ] || fail "lost: otherData.lost_events is not $lost"
[ "$(jq '[.traceEvents[] | select(.cat == "trev" and .s == "g") | .args.count // 0] | add' "$T/lost.json")" = "$lost" ] ||
	fail "lost: the LOST markers do not add up to $lost"
jq -e '[.traceEvents[] | select(.name | test("^LOST [0-9]+ events$"))] | length > 0' "$T/lost.json" >/dev/null ||
	fail "lost: no LOST N events marker"
echo "ok: lost events: markers and the total ($lost)"

# function_graph: B/E slices named after the functions.
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
	-o "$T/fg.dat" -- "$B/tests/ft_app") >"$out" 2>"$errf" || fail "trev record -t function_graph"
run 0 "$trev" convert --to json "$T/fg.dat" "$T/fg.json"
check_json "$T/fg.dat" "$T/fg.json"
jq -r '.traceEvents[] | select(.ph == "B") | .name' "$T/fg.json" | tr '\n' ' ' >"$T/slices"
[ "$(cat "$T/slices")" = "ft_outer ft_add ft_outer ft_add ft_outer ft_add ft_mix ft_fma ft_spin " ] ||
	fail "function_graph: slices $(cat "$T/slices")"
[ "$(jq '[.traceEvents[] | select(.ph == "E" and .args.calltime != null)] | length' "$T/fg.json")" = 9 ] ||
	fail "function_graph: not 9 exits"
echo "ok: function_graph as slices"

# A session of two programs under sh -c: both pids, named.
rec_app=$B/tests/rec_app
run 0 "$trev" record -e trev_test:tt_ints -o "$T/sh.dat" -- \
	sh -c "'$rec_app' 100 1 >/dev/null & echo \$! >'$T/p1'; wait; '$rec_app' 200 1 >/dev/null & echo \$! >'$T/p2'; wait"
run 0 "$trev" convert --to json "$T/sh.dat" "$T/sh.json"
check_json "$T/sh.dat" "$T/sh.json"
p1=$(cat "$T/p1") p2=$(cat "$T/p2")
jq -r '[.traceEvents[] | select(.name == "tt_ints")] | group_by(.pid) | .[] | "\(.[0].pid) \(length)"' \
	"$T/sh.json" | sort -k2n >"$T/per_pid"
# The second program is a buffer "rec_app-PID": its pid exactly. The first is the top buffer,
# whose pid and name the file holds in a PROCMAPS option: $p1 exactly (rec_app's main thread
# records nothing: the smallest thread id that recorded would be one of its threads').
[ "$(wc -l <"$T/per_pid")" = 2 ] || fail "session: not two pids: $(cat "$T/per_pid")"
[ "$(sed -n 2p "$T/per_pid")" = "$p2 200" ] || fail "session: the second process is not $p2 with 200 events"
[ "$(sed -n 1p "$T/per_pid")" = "$p1 100" ] || fail "session: the first process is not $p1 with 100 events: $(sed -n 1p "$T/per_pid")"
[ "$(jq -r .otherData.top_pid "$T/sh.json")" = procmaps ] || fail "session: the top pid not from PROCMAPS"
for p in $p1 $p2; do
	[ "$(jq -r ".traceEvents[] | select(.name == \"process_name\" and .pid == $p) | .args.name" "$T/sh.json")" = rec_app ] ||
		fail "session: process $p is not named rec_app"
done
# The file's PROCMAPS options, as trace-cmd dump prints them: "PID COUNT COMM" in hex, the
# top buffer's process first; each with rec_app's own mapping.
trace-cmd dump --options "$T/sh.dat" 2>/dev/null | grep -A1 'Option PROCMAPS' | grep -v PROCMAPS |
	grep -v '^--' | awk '{ print $1, $3 }' >"$T/procmaps"
printf '%x rec_app\n%x rec_app\n' "$p1" "$p2" | diff -u - "$T/procmaps" ||
	fail "session: the PROCMAPS options are not the two processes'"
[ "$(trace-cmd dump --options "$T/sh.dat" 2>/dev/null | grep -c " $rec_app\$")" = 2 ] ||
	fail "session: rec_app's mapping is not in both PROCMAPS options"
echo "ok: a session of two processes"

# ---- errors ------------------------------------------------------------------------------------
dat=$T/normal/v7.dat
run 1 "$trev" convert --to json "$T/nosuch.dat" "$T/e.json"
err_is 1 "trev: convert: $T/nosuch.dat: No such file or directory"
run 1 "$trev" convert --to json /etc/passwd "$T/e.json"
err_is 1 "trev: convert: /etc/passwd: not a trace.dat file"
head -c 4000 /dev/urandom >"$T/garbage.dat"
printf '\027\010Dtracing7\0' | dd of="$T/garbage.dat" conv=notrunc status=none
run 1 "$trev" convert --to json "$T/garbage.dat" "$T/e.json"
err_is 1 "trev: convert: $T/garbage.dat: truncated or corrupt trace.dat (libtracecmd cannot read it)"
[ -e "$T/e.json" ] && fail "an unreadable input made OUT"
for v in v6 v7; do
	size=$(stat -c %s "$T/lost/$v.dat")
	for cut in 200 $((size / 2)) $((size - 5000)); do
		head -c "$cut" "$T/lost/$v.dat" >"$T/cut.dat"
		"$trev" convert --to json "$T/cut.dat" "$T/cut.json" >"$out" 2>"$errf"
		st=$?
		if [ "$st" = 0 ]; then
			# A v7 file cut in its trailing sections still has its data (cli_report.sh).
			jq -e . "$T/cut.json" >/dev/null || fail "$v cut at $cut: invalid JSON"
			rm -f "$T/cut.json"
			continue
		fi
		[ "$st" = 1 ] || fail "$v cut at $cut: exit status $st"
		grep -qE "^trev: convert: $T/cut.dat: (truncated or corrupt trace.dat|not a trace.dat file)" "$errf" ||
			fail "$v cut at $cut: $(cat "$errf")"
		[ -e "$T/cut.json" ] && fail "$v cut at $cut: OUT made"
		no_leftovers "$v cut at $cut"
	done
done
# A record shorter than its fields: the conversion stops there, naming file, CPU, time, event.
"$B/tests/json_dat" short "$T/short.dat" || fail "json_dat short"
run 1 "$trev" convert --to json "$T/short.dat" "$T/e.json"
err_is 1 "trev: convert: $T/short.dat: CPU 0, record at 1000000100 ns, ftrace:function: field ip at 8, 8 bytes, is outside the record (12 bytes)"
[ -e "$T/e.json" ] && fail "a corrupt record made OUT"
# The reader of stdout goes away: said, status 1 (not a corrupt file). The JSON of 20000
# records (megabytes) cannot all go into the pipe before head exits.
"$B/tests/json_dat" flood "$T/big.dat" 20000 || fail "json_dat flood"
"$trev" convert --to json "$T/big.dat" - 2>"$errf" | head -c 10 >/dev/null
st=${PIPESTATUS[0]}
[ "$st" = 1 ] || fail "stdout closed: exit status $st"
err_is 1 "trev: convert: stdout: Broken pipe"
echo keep >"$T/old.json"
run 1 "$trev" convert --to json "$T/garbage.dat" "$T/old.json"
[ "$(cat "$T/old.json")" = keep ] || fail "a failed conversion changed an existing OUT"
no_leftovers "garbage"
mkdir "$T/dir.json"
run 1 "$trev" convert --to json "$dat" "$T/dir.json"
err_is 1 "trev: convert: $T/dir.json: is a directory (--to json writes a file)"
run 1 "$trev" convert --to json "$dat" "$T/nosuch/e.json"
err_is 1 "trev: convert: $T/nosuch/e.json: cannot make a file beside it: No such file or directory"
run 2 "$trev" convert --to json --packet-size 8192 "$dat" "$T/e.json"
err_is 1 "trev: convert: --packet-size is for --to ctf"
run 2 "$trev" convert --to json "$dat"
grep -q '^usage: trev convert' "$errf" || fail "no usage text"
# An existing OUT is replaced, with the mode a new file gets.
(umask 022 && "$trev" convert --to json "$dat" "$T/old.json") || fail "convert over an existing OUT"
[ "$(stat -c %a "$T/old.json")" = 644 ] || fail "OUT mode $(stat -c %a "$T/old.json"), not 644"
jq -e .traceEvents "$T/old.json" >/dev/null || fail "OUT not replaced"
no_leftovers "errors"
echo "ok: errors"
echo "all trev convert --to json checks passed"
