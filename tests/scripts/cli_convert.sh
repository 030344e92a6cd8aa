#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev convert --to ctf: trace.dat files of a known workload (tests/tracedat/dat_record.c),
# v6 and v7, with and without lost events, converted to CTF and read by babeltrace2: every
# event's name, time stamp (to the nanosecond), CPU, pid and field values equal trev report's
# (tests/tracedat/ctf_compare.py), and the lost events are babeltrace2's discarded-event
# counts; small packets read the same; and the errors: a bad --to, unreadable input, a DIR
# that exists and is not empty, with nothing half-written left behind.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR/tests/tracedat
trev=$B/tools/trev/trev
for tool in babeltrace2 python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# libtracecmd 3.1.6 leaks a string of its own when it opens a file (sscanf %ms), and
# libtraceevent 1.7.1 some bytes parsing formats (as in cli_report.sh).
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err
fail_stdout_lines=40
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"

# Nothing of a conversion left in $T but what the test made: no DIR.trev-tmp-* directory.
no_leftovers() {
	local left
	left=$(find "$T" -maxdepth 2 -name '*.trev-tmp-*')
	[ -z "$left" ] || fail "$1: left behind: $left"
}

mkdir -p "$T/normal" "$T/lost"
"$B/tests/dat_record" "$T/normal" normal >/dev/null || fail "dat_record normal"
"$B/tests/dat_record" "$T/lost" lost >/dev/null || fail "dat_record lost"

# convert_check DAT CTF [OPTIONS...]: convert, read with babeltrace2, compare with trev report.
convert_check() {
	local dat=$1 ctf=$2
	shift 2
	run 0 "$trev" convert --to ctf "$@" "$dat" "$ctf"
	[ -s "$errf" ] && fail "$dat: convert wrote to stderr"
	[ -s "$ctf/metadata" ] || fail "$ctf: no metadata"
	head -1 "$ctf/metadata" | grep >/dev/null -x '/\* CTF 1.8 \*/' || fail "$ctf/metadata: no CTF 1.8 mark"
	babeltrace2 --clock-seconds --no-delta "$ctf" >"$T/bt.out" 2>"$T/bt.err" ||
		{ cat "$T/bt.err" >&2; fail "babeltrace2 $ctf failed"; }
	"$trev" report "$dat" >"$T/rep" 2>"$errf" || fail "trev report $dat"
	"$trev" report --raw "$dat" >"$T/raw" 2>"$errf" || fail "trev report --raw $dat"
	python3 "$S/ctf_compare.py" "$T/bt.out" "$T/bt.err" "$T/rep" "$T/raw" >"$out" 2>"$errf" ||
		fail "$dat: babeltrace2 and trev report differ"
	cat "$out"
}

for run_ in normal lost; do
	for v in v6 v7; do
		convert_check "$T/$run_/$v.dat" "$T/$run_/$v.ctf"
		[ "$(grep -c . "$T/bt.out")" -gt 20 ] || fail "$run_ $v: too few events"
		if [ "$run_" = lost ]; then
			grep -q ' discarded (CPU 0: [1-9]' "$out" || fail "lost $v: no discarded events on CPU 0"
			grep -qE '^WARNING: Tracer discarded [1-9][0-9]* events between .*/stream_0"' "$T/bt.err" ||
				fail "lost $v: babeltrace2 printed no discarded-events message"
		else
			grep -q ' 0 discarded ' "$out" || fail "normal $v: discarded events"
		fi
		echo "ok: $run_ $v: babeltrace2 prints trev report's events"
	done
	# v6 and v7 of the same pages: the same streams.
	for f in stream_0 stream_1; do
		[ -e "$T/$run_/v6.ctf/$f" ] || continue
		cmp -s "$T/$run_/v6.ctf/$f" "$T/$run_/v7.ctf/$f" || fail "$run_: v6 and v7 $f differ"
	done
done

# Small packets: many per stream, the same events, the same discarded counts.
convert_check "$T/lost/v7.dat" "$T/lost/small.ctf" --packet-size 4096
# Packets start with the CTF magic, 0xc1fc1fc1 (little-endian here).
packets() { python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"\xc1\x1f\xfc\xc1"))' "$1"; }
[ "$(packets "$T/lost/small.ctf/stream_0")" -gt "$(packets "$T/lost/v7.ctf/stream_0")" ] ||
	fail "--packet-size 4096: no more packets than with the default"
echo "ok: --packet-size 4096"

# The type mapping, as the metadata states it (docs/cli/trev-convert.md).
m=$T/normal/v7.ctf/metadata
for want in \
	'name = "demo:demo_request";' \
	'string { encoding = UTF8; } _path;' \
	'integer { size = 32; align = 8; signed = true; base = 10; } _status;' \
	'enum : integer { size = 32; align = 8; signed = false; base = 10; } { "CACHED" = 1, "SYNC" = 2, "RETRY" = 4 } _flags;' \
	'string { encoding = UTF8; } _flags_str;' \
	'enum : integer { size = 32; align = 8; signed = true; base = 10; } { "GET" = 0, "PUT" = 1, "DELETE" = 2 } _method;' \
	'integer { size = 8; align = 8; signed = false; base = 10; } _digest[4];' \
	'string { encoding = UTF8; } _name;' \
	'uint32_t _lat_len;' \
	'integer { size = 32; align = 8; signed = true; base = 10; } _lat[_lat_len];' \
	'integer { size = 64; align = 8; signed = false; base = 10; } _cpus[_cpus_len];' \
	'integer { size = 64; align = 8; signed = false; base = 16; } _fmt;' \
	'integer { size = 32; align = 8; signed = true; base = 10; } _common_pid;' \
	'string { encoding = UTF8; } _text;' \
	'map = clock.local.value;' \
	'freq = 1000000000;'; do
	grep -qF -- "$want" "$m" || fail "metadata has no '$want'"
done
grep -q '_common_type' "$m" && fail "metadata: common_type is a field (it is the event id)"
echo "ok: metadata types"

# ---- errors: a clear message, a non-zero status, nothing half-written ----------------------
dat=$T/normal/v7.dat
run 2 "$trev" convert --to xml "$dat" "$T/e1"
err_is 1 "trev: convert: --to 'xml': unknown format (ctf and json are the ones there are)"
[ -e "$T/e1" ] && fail "--to xml made its DIR"
run 2 "$trev" convert "$dat" "$T/e1"
err_is 1 "trev: convert: --to FORMAT is required (ctf or json)"
run 2 "$trev" convert --to ctf "$dat"
has_usage() { grep -q '^usage: trev convert' "$errf" || fail "no usage text"; }
has_usage
run 2 "$trev" convert --to ctf --packet-size 100 "$dat" "$T/e1"
err_is 1 "trev: convert: --packet-size takes 4096 to 1073741824 bytes (K, M), not '100'"
run 2 "$trev" convert --to ctf --bogus "$dat" "$T/e1"
[ -e "$T/e1" ] && fail "a usage error made its DIR"

run 1 "$trev" convert --to ctf "$T/nosuch.dat" "$T/e1"
err_is 1 "trev: convert: $T/nosuch.dat: No such file or directory"
run 1 "$trev" convert --to ctf /etc/passwd "$T/e1"
err_is 1 "trev: convert: /etc/passwd: not a trace.dat file"
run 1 "$trev" convert --to ctf "$T/normal" "$T/e1"
err_has "^trev: convert: $T/normal: (Is a directory|not a trace.dat file)$"
printf '\027\010Dtracing9\0' >"$T/v9.dat"
run 1 "$trev" convert --to ctf "$T/v9.dat" "$T/e1"
err_is 1 "trev: convert: $T/v9.dat: trace.dat version '9' is not supported (6 and 7 are)"
[ -e "$T/e1" ] && fail "an unreadable input made its DIR"
# Cut: libtracecmd refuses it, or dies on it in the converting child; either way one
# message and no DIR, nor its temporary directory.
for v in v6 v7; do
	size=$(stat -c %s "$T/lost/$v.dat")
	for cut in 200 $((size / 2)) $((size - 5000)); do
		head -c "$cut" "$T/lost/$v.dat" >"$T/cut.dat"
		"$trev" convert --to ctf "$T/cut.dat" "$T/cut.ctf" >"$out" 2>"$errf"
		st=$?
		if [ "$st" = 0 ]; then
			# A v7 file cut in its trailing sections still has its data (cli_report.sh).
			babeltrace2 "$T/cut.ctf" >/dev/null 2>&1 || fail "$v cut at $cut: unreadable CTF"
			rm -rf "$T/cut.ctf"
			continue
		fi
		[ "$st" = 1 ] || fail "$v cut at $cut: exit status $st"
		grep -qE "^trev: convert: $T/cut.dat: (truncated or corrupt trace.dat|not a trace.dat file)" "$errf" ||
			fail "$v cut at $cut: $(cat "$errf")"
		[ -e "$T/cut.ctf" ] && fail "$v cut at $cut: DIR made"
		no_leftovers "$v cut at $cut"
	done
done
head -c $(($(stat -c %s "$dat") / 2)) "$dat" >"$T/half.dat"
run 1 "$trev" convert --to ctf "$T/half.dat" "$T/e1"
err_has "^trev: convert: $T/half.dat: truncated or corrupt trace.dat"
[ -e "$T/e1" ] && fail "a corrupt input made its DIR"
no_leftovers "half.dat"
# A record whose __data_loc field points out of it (its length made 252): the conversion
# stops there, naming the file, CPU, record, event and field. The first demo_batch record
# of CPU 0 is the first place where lat's location (12 bytes at 20) is followed by cpus'
# (8 bytes at 32), in the v6 file's raw pages.
python3 - "$T/normal/v6.dat" "$T/bad.dat" <<'PY' || fail "no demo_batch record found to damage"
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(bytes([0x14, 0, 0x0c, 0, 0x20, 0, 0x08, 0]))
if i < 0:
    sys.exit(1)
d[i + 2] = 0xfc
open(sys.argv[2], 'wb').write(d)
PY
# Its time: the first record of CPU 0 of demo_batch's id (trev report --raw: PID CPU NS type: ID).
id=$(grep -A1 -F 'name = "demo:demo_batch";' "$T/normal/v6.ctf/metadata" | sed -n 's/.*id = \([0-9]*\);$/\1/p')
"$trev" report --raw "$T/normal/v6.dat" >"$T/raw6" || fail "report --raw v6"
ts=$(awk -v id="$id" '$2 == 0 && $4 == "type:" && $5 == id { print $3; exit }' "$T/raw6")
[ -n "$ts" ] || fail "no demo_batch record on CPU 0"
run 1 "$trev" convert --to ctf "$T/bad.dat" "$T/e1"
err_is 1 "trev: convert: $T/bad.dat: CPU 0, record at $ts ns, demo:demo_batch: field lat: its data at 20, 252 bytes, is outside the record (40 bytes)"
[ -e "$T/e1" ] && fail "a corrupt record made its DIR"
no_leftovers "corrupt record"
echo "ok: bad --to, usage, unreadable input, a corrupt record"

mkdir "$T/full"
echo keep >"$T/full/mine"
run 1 "$trev" convert --to ctf "$dat" "$T/full"
err_is 1 "trev: convert: $T/full: exists and is not empty (the trace is written to a new or empty directory)"
[ "$(ls "$T/full")" = mine ] && [ "$(cat "$T/full/mine")" = keep ] || fail "a non-empty DIR changed"
run 1 "$trev" convert --to ctf "$dat" "$T/full/mine"
err_is 1 "trev: convert: $T/full/mine: exists and is not a directory"
no_leftovers "non-empty DIR"
run 1 "$trev" convert --to ctf "$dat" "$T/nosuch/dir"
err_is 1 "trev: convert: $T/nosuch/dir: cannot make a directory beside it: No such file or directory"
# An empty DIR is used, and a new one gets the mode mkdir gives it.
mkdir "$T/empty"
run 0 "$trev" convert --to ctf "$dat" "$T/empty/"
[ -s "$T/empty/metadata" ] || fail "an empty DIR was not written"
(umask 022 && "$trev" convert --to ctf "$dat" "$T/mode.ctf") || fail "convert into a new DIR"
[ "$(stat -c %a "$T/mode.ctf")" = 755 ] || fail "DIR mode $(stat -c %a "$T/mode.ctf"), not 755"
no_leftovers "empty DIR"
run 0 "$trev" convert --help
has '^usage: trev convert'
echo "ok: DIR checks"
echo "all trev convert checks passed"
