#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev report: trace.dat files of a known workload (tests/tracedat/dat_record.c), v6 and v7,
# with and without lost events, printed as the `trace` text the process printed before
# recording (line for line, header and lost-event lines included); the same events, times,
# CPUs, tasks and field text as trace-cmd report; --cpu, --raw, -F (expectations computed
# from the full text), --stat; and every error case with its message and exit status.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR/tests/tracedat
trev=$B/tools/trev/trev
for tool in trace-cmd python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# libtracecmd 3.1.6 leaks a string of its own when it opens a file (sscanf %ms), and
# libtraceevent 1.7.1 some bytes parsing some kernel formats: in the ASan tree, those are not
# ours to report; every other leak still fails the test.
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err
fail_stdout_lines=40
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
# Events only: the lines after the header, LOST lines left out.
events() { grep -v -e '^#' -e '^CPU:' "$1"; }

mkdir -p "$T/normal" "$T/lost"
"$B/tests/dat_record" "$T/normal" normal >/dev/null || fail "dat_record normal"
"$B/tests/dat_record" "$T/lost" lost >/dev/null || fail "dat_record lost"

# ---- the text: ours, line for line; trace-cmd's, event for event ----------------------------
for run_ in normal lost; do
	for v in v6 v7; do
		dat=$T/$run_/$v.dat
		run 0 "$trev" report "$dat"
		[ -s "$errf" ] && fail "$dat: report wrote to stderr"
		cp "$out" "$T/$run_/$v.report"
		# libtraceevent 1.7.1 prints __print_array() as "10 20 30", the kernel (and we) as
		# "{0xa,0x14,0x1e}": demo_batch's lat= is the one field that differs
		# (docs/cli/trev-report.md). Everything else is the process's own trace text.
		sed -E 's/lat=.* cpus=/lat=* cpus=/' "$out" >"$T/got"
		sed -E 's/lat=.* cpus=/lat=* cpus=/' "$T/$run_/trace.txt" >"$T/want"
		diff -u "$T/want" "$T/got" >&2 || fail "$dat: report differs from the trace text"
		grep -q 'lat=10 20 30 ' "$out" || [ "$run_" = lost ] || fail "no demo_batch lat= text"

		trace-cmd report -t -i "$dat" >"$T/tc" 2>/dev/null || fail "$dat: trace-cmd report failed"
		python3 "$S/normalise.py" trev "$out" >"$T/a" || fail "normalise trev"
		python3 "$S/normalise.py" report "$T/tc" >"$T/b" || fail "normalise report"
		diff -u "$T/b" "$T/a" >&2 || fail "$dat: events differ from trace-cmd report's"
		[ "$(events "$out" | wc -l)" -gt 10 ] || fail "$dat: too few events"
		echo "ok: $run_ $v: the trace text, and trace-cmd report's events"
	done
	cmp -s "$T/$run_/v6.report" "$T/$run_/v7.report" || fail "$run_: v6 and v7 reports differ"
done
n=$T/normal/v6.report
ncpu=$("$trev" report --stat "$T/normal/v6.dat" | sed -n 's/^cpus: //p')
[ "$ncpu" -ge 1 ] || fail "--stat printed no cpus: line"
nev=$(events "$n" | wc -l)
head -3 "$n" | grep >/dev/null -x "# entries-in-buffer/entries-written: $nev/$nev   #P:$ncpu" ||
	fail "header counts: $(sed -n 3p "$n")"
grep -qE '^CPU:0 \[LOST [1-9][0-9]* EVENTS\]$' "$T/lost/v6.report" || fail "no LOST line for CPU 0"
lost_total=$(sed -nE 's/^CPU:[0-9]+ \[LOST ([0-9]+) EVENTS\]$/\1/p' "$T/lost/v6.report" |
	awk '{ n += $1 } END { print n + 0 }')
lost_events=$(events "$T/lost/v6.report" | wc -l)
head -3 "$T/lost/v6.report" | grep >/dev/null -x "# entries-in-buffer/entries-written: $lost_events/$((lost_events + lost_total))   #P:[0-9]*" ||
	fail "lost header: $(sed -n 3p "$T/lost/v6.report")"
echo "ok: header counts, lost events"

# The default file is ./trace.dat.
cp "$T/normal/v7.dat" "$T/trace.dat"
(cd "$T" && "$trev" report >"$out" 2>"$errf") || fail "report with no FILE"
cmp -s "$out" "$n" || fail "report of ./trace.dat differs"

# ---- --cpu -------------------------------------------------------------------------------
cp "$T/normal/v6.dat" "$n.dat"
run 0 "$trev" report --cpu 1 "$n.dat"
grep -qv '\[001\]' <(events "$out") && fail "--cpu 1 printed another CPU"
[ "$(events "$out" | wc -l)" -eq "$(events "$n" | grep -c '\[001\]')" ] || fail "--cpu 1 count"
[ "$(events "$out" | wc -l)" -gt 0 ] || [ "$(nproc)" -lt 2 ] || fail "--cpu 1 printed nothing"
has "^# entries-in-buffer/entries-written: $(events "$n" | grep -c '\[001\]')/"
for arg in "--cpu 0,1" "--cpu 0-1" "--cpu 1 --cpu 0"; do
	# shellcheck disable=SC2086
	run 0 "$trev" report $arg "$n.dat"
	cmp -s "$out" "$n" || fail "$arg differs from the whole file"
done
run 0 "$trev" report --cpu 0 "$T/lost/v7.dat"
grep -q '^CPU:1 ' "$out" && fail "--cpu 0 printed CPU 1's lost events"
has '^CPU:0 \[LOST '
echo "ok: --cpu"

# ---- --raw ---------------------------------------------------------------------------------
run 0 "$trev" report --raw "$n.dat"
grep -q '^#' "$out" && fail "--raw printed a header"
[ "$(wc -l <"$out")" -eq "$(events "$n" | wc -l)" ] || fail "--raw: not one line per event"
grep -vqE '^[0-9]+ [0-9]+ [0-9]+ (type: [0-9]+|: [0-9a-f]+ : .*|# [0-9a-f]+ .*)$' "$out" &&
	fail "--raw: a line not in the raw format"
grep -qE '^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ hello from the marker$' "$out" || fail "--raw: print"
grep -qE '^[0-9]+ [0-9]+ [0-9]+ : [0-9a-f]+ : a trace_puts line$' "$out" || fail "--raw: bputs"
# PID, CPU and nanoseconds as trace-cmd reads them; each event's type its ID, one ID a name.
awk '{ print $1, $2, $3 }' "$out" >"$T/raw.ctx"
trace-cmd report -t -i "$n.dat" 2>/dev/null | grep -v '^cpus=' |
	sed -E 's/^\s*.*-([0-9]+)\s+\[0*([0-9]+)\]\s+([0-9]+)\.([0-9]{9}):.*/\1 \2 \3\4/' >"$T/tc.ctx"
diff -u "$T/tc.ctx" "$T/raw.ctx" >&2 || fail "--raw: pid/cpu/ts differ from trace-cmd report -t"
paste -d'|' <(events "$n" | sed -E 's/^.* [0-9]+\.[0-9]{6}: ([a-z_]+): .*/\1/') "$out" |
	awk -F'|' '$2 ~ / type: / { split($2, f, "type: "); if ((t = name[f[2]]) && t != $1) exit 1;
		if ((i = id[$1]) && i != f[2]) exit 1; name[f[2]] = $1; id[$1] = f[2]; n++ }
		END { exit n < 10 }' || fail "--raw: types are not the events' IDs"
echo "ok: --raw"

# ---- -F ------------------------------------------------------------------------------------
# filter ARGS... -- EXPECTED-FILE: the events printed with the -F options equal EXPECTED.
check_filter() {
	run 0 "$trev" report "$@" "$n.dat"
	events "$out" >"$T/f.got"
	diff -u "$T/f.want" "$T/f.got" >&2 || fail "report $* printed other events"
	[ -s "$T/f.want" ] || fail "report $*: the expectation is empty"
}
events "$n" | grep ': demo_request: ' | grep -E 'status=20[12] ' | grep -F 'path=/api/v1/items' \
	>"$T/f.want"
check_filter -F 'demo/demo_request:status >= 201 && path ~ "*items"'
events "$n" | grep -E ': demo_worker_(start|stop): ' | grep -E 'id=2$|\(2\) done$' >"$T/f.want"
check_filter -F 'id == 2'
events "$n" | grep -E '^\s*worker-2-[0-9]+\s+\[001\]' >"$T/f.want"
[ "$(nproc)" -lt 2 ] || check_filter -F 'comm == "worker-2" && CPU == 1'
events "$n" | grep -E ': demo_worker_start: .*id=1$|: demo_worker_stop: ' >"$T/f.want"
check_filter -F 'demo_worker_start:id == 1' -F 'demo_worker_stop:common_pid > 0'
# A system: the events that have the fields (demo_request alone has flags).
events "$n" | grep -E ': demo_request: ' | grep -v 'flags=SYNC status' >"$T/f.want"
check_filter -F 'demo:!(flags == 2)'
# A filter of "0" is no filter: every record of the events it names.
events "$n" | grep -E ': demo_batch: ' >"$T/f.want"
check_filter -F 'demo_batch:0'
# The event alone, as trev record -e names it (sys:event) and as trace-cmd report -F
# (sys/event, event): every record of it; sys:event:FILTER as EVENTS:FILTER.
check_filter -F 'demo:demo_batch'
check_filter -F 'demo/demo_batch'
check_filter -F 'demo_batch'
events "$n" | grep -E ': demo_worker_(start|stop): ' >"$T/f.want"
check_filter -F 'demo:demo_worker_*'
events "$n" | grep -E ': demo_worker_start: .*id=1$' >"$T/f.want"
check_filter -F 'demo:demo_worker_start:id == 1'
# Lost-event lines stay, whatever the filter.
run 0 "$trev" report -F 'demo_request:status == 200' "$T/lost/v6.dat"
has '^CPU:0 \[LOST '
grep -qv 'demo_request: .* status=200 ' <(events "$out") && fail "-F on the lost file"
echo "ok: -F"

# Bad filters: the kernel's message, and the caret under the column (one past the fault,
# as the kernel's parse_pred() reports it) marked in the command line shown.
run 1 "$trev" report -F 'demo_request:status == 1 && bogus == 2' "$n.dat"
err_is 1 "trev: report: -F 'demo_request:status == 1 && bogus == 2': demo:demo_request: Field not found"
err_is 2 "  Command: status == 1 && bogus == 2"
err_is 3 "                                ^"
run 1 "$trev" report -F 'bogus == 1' "$n.dat"
err_is 1 "trev: report: -F 'bogus == 1': Field not found"
err_is 3 "                 ^"
run 1 "$trev" report -F 'demo_request:path == "x' "$n.dat"
err_is 1 "trev: report: -F 'demo_request:path == \"x': demo:demo_request: Missing matching quote"
err_is 3 "                   ^"
run 1 "$trev" report -F 'demo_request:status == "200"' "$n.dat"
err_is 1 "trev: report: -F 'demo_request:status == \"200\"': demo:demo_request: Expecting numeric field"
run 1 "$trev" report -F 'demo_request:(status == 1' "$n.dat"
err_is 1 "trev: report: -F 'demo_request:(status == 1': demo:demo_request: Too many '('"
run 1 "$trev" report -F 'nosuch/event:status == 1' "$n.dat"
err_is 1 "trev: report: -F 'nosuch/event:status == 1': no event in $n.dat matches 'nosuch/event'"
[ -s "$out" ] && fail "a bad filter printed events"
echo "ok: -F errors"

# ---- --stat --------------------------------------------------------------------------------
run 0 "$trev" report --stat "$T/lost/v7.dat"
l=$T/lost/v6.report
for cpu in 0 1; do
	recs=$(events "$l" | grep -c "\[00$cpu\]")
	lost=$(sed -nE "s/^CPU:$cpu \[LOST ([0-9]+) EVENTS\]$/\1/p" "$l" | awk '{ n += $1 } END { print n + 0 }')
	has "^CPU $cpu: $recs records, $lost lost$"
done
has "^total: $lost_events records, $lost_total lost$"
for ev in demo_request demo_batch; do
	has "^\s*$(events "$l" | grep -c ": $ev: ")\s+demo:$ev$"
done
has '^CPU statistics stored in the file:$'
has '^overrun: [1-9]'
run 0 "$trev" report --stat --cpu 0 "$n.dat"
grep -q '^CPU 1:' "$out" && fail "--stat --cpu 0 printed CPU 1"
has "^CPU 0: $(events "$n" | grep -c '\[000\]') records, 0 lost$"
echo "ok: --stat"

# ---- errors ---------------------------------------------------------------------------------
run 1 "$trev" report "$T/nosuch.dat"
err_is 1 "trev: report: $T/nosuch.dat: No such file or directory"
(cd "$T/normal" && "$trev" report >"$out" 2>"$errf"); [ $? = 1 ] || fail "no ./trace.dat: status"
err_is 1 "trev: report: trace.dat: No such file or directory"
run 1 "$trev" report /etc/passwd
err_is 1 "trev: report: /etc/passwd: not a trace.dat file"
: >"$T/empty.dat"
run 1 "$trev" report "$T/empty.dat"
err_is 1 "trev: report: $T/empty.dat: not a trace.dat file"
printf '\027\010Dtracing9\0' >"$T/v9.dat"
run 1 "$trev" report "$T/v9.dat"
err_is 1 "trev: report: $T/v9.dat: trace.dat version '9' is not supported (6 and 7 are)"
# Cut anywhere: a clear error (or, cut in v7's trailing sections, what is left), never a crash.
for v in v6 v7; do
	size=$(stat -c %s "$T/lost/$v.dat")
	for cut in 20 200 $((size / 3)) $((size - 5000)) $((size - 100)); do
		head -c "$cut" "$T/lost/$v.dat" >"$T/cut.dat"
		"$trev" report "$T/cut.dat" >"$out" 2>"$errf"
		st=$?
		[ "$st" -le 1 ] || fail "$v cut at $cut: exit status $st"
		[ "$st" = 0 ] || grep -qE "^trev: report: $T/cut.dat: (truncated or corrupt trace.dat|not a trace.dat file)" "$errf" ||
			fail "$v cut at $cut: $(cat "$errf")"
	done
done
head -c $(($(stat -c %s "$n.dat") / 2)) "$n.dat" >"$T/half.dat"
run 1 "$trev" report "$T/half.dat"
err_is 1 "trev: report: $T/half.dat: truncated or corrupt trace.dat (libtracecmd or libtraceevent cannot read it)"
# That file crashes libtracecmd itself (3.1.6: tracecmd_open() fails, and its own error path
# calls tracecmd_close() on a handle it has half freed): what the report's child contains
# (docs/cli/trev-report.md, "What the libraries cannot take").
"$B/tests/dat_read_tracecmd" "$T/half.dat" >/dev/null 2>&1
st=$?
if [ "$st" -ge 128 ]; then
	echo "ok: libtracecmd dies of signal $((st - 128)) on half.dat; trev report says it is corrupt"
else
	echo "note: this libtracecmd reads half.dat without crashing (status $st)"
fi
run 2 "$trev" report --cpu x "$n.dat"
err_is 1 "trev: report: --cpu takes CPU numbers such as 0,2-3, not 'x'"
run 2 "$trev" report --cpu 1-0 "$n.dat"
run 2 "$trev" report --cpu=-1 "$n.dat"
run 1 "$trev" report --cpu $((ncpu + 5)) "$n.dat"
err_is 1 "trev: report: --cpu $((ncpu + 5)): $n.dat has CPUs 0-$((ncpu - 1))"
run 2 "$trev" report --bogus "$n.dat"
run 2 "$trev" report "$n.dat" "$n.dat"
run 0 "$trev" report --help
has '^usage: trev report'
echo "ok: errors"

# ---- a kernel trace.dat, where this machine lets us record one ------------------------------
# The kernel's own `trace` text of a few sched_switch events, then `trace-cmd extract` of the
# same buffer (a v7 file, compressed by trace-cmd 3.1.6): trev report prints the same events.
# The kernel's format differs from ours (docs/formats.md, "The trace text") in two documented
# ways, which the comparison allows: a 7-wide pid column and a fifth flag character. Time
# stamps are rounded to the microsecond by both (the kernel's ns2usecs()) and must match.
# Needs root, tracefs and trace-cmd; skipped (with a note) otherwise. The tracing state is put
# back afterwards.
kernel_check() {
	local tfs=$T/tracefs on
	mkdir -p "$tfs"
	mount -t tracefs nodev "$tfs" 2>/dev/null || { echo "note: no tracefs here: no kernel file"; return; }
	# The top instance is the machine's: another run of a test that drives it (another
	# build tree) waits until this one is done.
	exec 9>/tmp/trev-test-kernel-tracing.lock
	flock 9
	on=$(cat "$tfs/tracing_on")
	if echo 0 >"$tfs/tracing_on" 2>/dev/null && echo >"$tfs/trace" &&
	   echo sched:sched_switch >"$tfs/set_event" 2>/dev/null; then
		echo 1 >"$tfs/tracing_on"
		# Until two events are in (any machine switches tasks; 60 s only guard a hang).
		for _ in $(seq 3000); do
			[ "$(grep -vc '^#' "$tfs/trace")" -ge 2 ] && break
			sleep 0.02
		done
		echo 0 >"$tfs/tracing_on"
		cp "$tfs/trace" "$T/kernel.txt"
		trace-cmd extract -o "$T/kernel.dat" >/dev/null 2>&1
	fi
	echo >"$tfs/set_event"
	echo >"$tfs/trace"
	echo "${on:-1}" >"$tfs/tracing_on"
	exec 9>&-
	umount "$tfs"
	if [ ! -s "$T/kernel.dat" ] || [ "$(grep -vc '^#' "$T/kernel.txt")" -lt 2 ]; then
		echo "note: the kernel's tracing cannot be driven here: no kernel file"
		return
	fi
	run 0 "$trev" report "$T/kernel.dat"
	python3 - "$T/kernel.txt" "$out" <<'PY' || fail "kernel file: events differ from the kernel's trace"
import re, sys
LINE = re.compile(r'^\s*(.+)-(\d+)\s+\[(\d{3,})\]\s+(\S{4,5})\s+(\d+)\.(\d{6}): (.*)$')
def load(path):
    out = []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('#'):
            continue
        m = LINE.match(line)
        if not m:
            out.append(line)
            continue
        comm, pid, cpu, flags, sec, usec, text = m.groups()
        out.append((comm.strip(), pid, cpu, flags[:4], int(sec) * 10**6 + int(usec), text))
    return out
kernel, ours = load(sys.argv[1]), load(sys.argv[2])
# A busy machine may fill the kernel's buffer before tracing stops: its `trace` text then
# starts at the oldest page left, with no word of the loss, while the extracted pages carry
# the lost-events flag, which trev report prints as trace-cmd does. Only then is such a line
# ours alone.
counts = re.search(r'entries-in-buffer/entries-written: (\d+)/(\d+)', open(sys.argv[1]).read())
if counts and int(counts.group(1)) < int(counts.group(2)):
    ours = [o for o in ours if not (isinstance(o, str) and re.fullmatch(r'CPU:\d+ \[LOST (\d+ )?EVENTS\]', o))]
if len(kernel) != len(ours):
    sys.exit('%d kernel lines, %d of ours' % (len(kernel), len(ours)))
for k, o in zip(kernel, ours):
    same = k == o if isinstance(k, str) or isinstance(o, str) else \
        k[:4] == o[:4] and k[4] == o[4] and k[5] == o[5]
    if not same:
        sys.exit('kernel: %r\nours:   %r' % (k, o))
PY
	echo "ok: a kernel trace.dat ($(grep -vc '^#' "$T/kernel.txt") events): the kernel's own trace text"
}
if command -v trace-cmd >/dev/null && [ "$(id -u)" = 0 ]; then
	kernel_check
fi
echo "all trev report checks passed"
