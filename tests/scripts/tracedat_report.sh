#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trace.dat files read by trace-cmd 3.1.6, libtracecmd and libtraceevent's kbuffer: a known
# workload (tests/tracedat/dat_record.c) recorded to v6 and v7, in a plain run and in an
# overwrite run that loses events. For each file:
#   - trace-cmd dump -v says it is valid;
#   - trace-cmd report -t prints our own `trace` text, line for line, after the documented
#     differences are normalised (tests/tracedat/normalise.py), lost-event counts included;
#   - the libtracecmd reader and the kbuffer reader print the same records, as many as
#     the `trace` text has;
#   - v6 and v7 of the same pages read the same.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR/tests
S=$TREV_SOURCE_DIR/tests/tracedat
for tool in trace-cmd python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
for exe in dat_record dat_read_kbuf dat_read_tracecmd; do
	[ -x "$B/$exe" ] || { echo "SKIP: $exe was not built (libtraceevent/libtracecmd missing)"; exit 77; }
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check_file DAT TRACE_TEXT: every reader against the text; prints the normalised report.
check_file() {
	local dat=$1 txt=$2 events
	trace-cmd dump -v -i "$dat" >"$T/dump" 2>&1 || fail "$dat: trace-cmd dump -v failed: $(cat "$T/dump")"
	grep -q "is a valid trace-cmd file" "$T/dump" || fail "$dat: dump -v: $(cat "$T/dump")"
	trace-cmd report -t -i "$dat" >"$T/report" 2>"$T/report.err" || fail "$dat: report failed"
	[ ! -s "$T/report.err" ] || fail "$dat: report printed errors: $(cat "$T/report.err")"
	python3 "$S/normalise.py" trev "$txt" >"$T/want"
	python3 "$S/normalise.py" report "$T/report" >"$T/got"
	diff -u "$T/want" "$T/got" >&2 || fail "$dat: trace-cmd report differs from the trace text"
	events=$(grep -vc '^LOST' "$T/want" || true)
	[ "$events" -gt 0 ] || fail "$dat: no events"

	# libtracecmd 3.1.6 leaks a string of its own (sscanf %ms while opening): not ours to report.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		"$B/dat_read_tracecmd" "$dat" >"$T/tc" || fail "$dat: libtracecmd reader failed"
	"$B/dat_read_kbuf" "$dat" >"$T/kb" || fail "$dat: kbuffer reader failed"
	diff -u "$T/tc" "$T/kb" >&2 || fail "$dat: libtracecmd and kbuffer readers differ"
	[ "$(wc -l <"$T/tc")" -eq "$events" ] || fail "$dat: readers saw $(wc -l <"$T/tc") records, the text has $events"
	# Lost counts the readers attach to records equal the text's.
	[ "$(awk '{ sub("missed=", "", $6); if ($6 > 0) n += $6 } END { print n + 0 }' "$T/tc")" -eq \
	  "$(awk '/^LOST/ { n += $4 } END { print n + 0 }' "$T/want")" ] || fail "$dat: lost counts differ"
	cp "$T/got" "$dat.norm"
	cp "$T/tc" "$dat.records"
}

mkdir -p "$T/normal" "$T/lost"
"$B/dat_record" "$T/normal" normal
"$B/dat_record" "$T/lost" lost

for run in normal lost; do
	for v in v6 v7; do
		check_file "$T/$run/$v.dat" "$T/$run/trace.txt"
		echo "ok: $run $v"
	done
	cmp -s "$T/$run/v6.dat.norm" "$T/$run/v7.dat.norm" || fail "$run: v6 and v7 reports differ"
	cmp -s "$T/$run/v6.dat.records" "$T/$run/v7.dat.records" || fail "$run: v6 and v7 records differ"
done
check_file "$T/normal/one.dat" "$T/normal/one.txt"
echo "ok: trev_record_dat"

# What the normal run must hold: both CPUs, both thread names, every kind of record.
n=$T/normal/v6.dat.norm
grep -q '^worker-1-[0-9]* \[000\]' "$n" || fail "no worker-1 event on CPU 0"
grep -q '^worker-2-[0-9]* \[001\]' "$n" || [ "$(nproc)" -lt 2 ] || fail "no worker-2 event on CPU 1"
for pat in 'demo_request: GET path=/index.html' 'demo_batch: n=3 lat=10 20 30' \
	   'worker: worker 1 done' 'worker: a trace_puts line' 'tracing_mark_write: hello from the marker'; do
	grep -q "$pat" "$n" || fail "no line with '$pat'"
done
r=$T/normal/v6.dat.records
grep -q ' ftrace:bprint ' "$r" && grep -q ' ftrace:bputs ' "$r" && grep -q ' ftrace:print ' "$r" ||
	fail "the ftrace events are not all there"
# The lost run lost events on each CPU it ran on, and says so in the report and in CPUSTAT.
grep -q '^LOST CPU 0: [1-9]' "$T/lost/v6.dat.norm" || fail "no lost events reported for CPU 0"
grep -q '^overrun: [1-9]' <(trace-cmd report --stat -i "$T/lost/v7.dat") || fail "CPUSTAT shows no overrun"
echo "all trace.dat checks passed"
