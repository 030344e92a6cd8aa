#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev report and trev convert read a file's records as a stream (tools/trev/dat_stream.c:
# each CPU's pages a chunk at a time, docs/cli/trev-report.md "Speed and memory"):
#   - the stream gives what libtracecmd's iterators give: every command, on files with and
#     without lost events, v6 and v7, a session of two buffers and a function_graph
#     recording, prints the same bytes with TREV_DAT_READER=stream as with
#     TREV_DAT_READER=tracecmd (and the stream is used: "stream" refuses to fall back);
#   - memory is flat in the file's size: the peak RSS (ru_maxrss, from wait4) of each
#     command on a file of 400 000 records is within a sixteenth of the files' difference in
#     size of its peak on a file of 50 000 (libtracecmd keeps the pages it read mapped:
#     there the peak grows with the file).
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
trev=$B/tools/trev/trev
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf 'leak:isoc99_vsscanf\nleak:tep_parse_event\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$T/out
errf=$T/err
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"

# ---- the same bytes from both readers ---------------------------------------------------
mkdir -p "$T/normal" "$T/lost" "$T/g"
"$B/tests/dat_record" "$T/normal" normal >/dev/null || fail "dat_record normal"
"$B/tests/dat_record" "$T/lost" lost >/dev/null || fail "dat_record lost"
"$B/tests/json_dat" flood "$T/fg.dat" 20000 || fail "json_dat flood"
"$B/tests/json_dat" golden "$T/g" || fail "json_dat golden"
run 0 "$trev" merge -o "$T/session.dat" "$T/g/app.dat" "$T/g/child.dat=child-200"

# same NAME CMD...: CMD (FILE in its words) prints the same with both readers.
same() {
	local name=$1 st
	shift
	for reader in stream tracecmd; do
		TREV_DAT_READER=$reader "$@" >"$T/$reader.out" 2>"$errf"
		st=$?
		cp "$T/$reader.out" "$out"
		[ "$st" = 0 ] || fail "$name: TREV_DAT_READER=$reader $*: exit status $st"
	done
	[ -s "$T/stream.out" ] || fail "$name: $*: no output"
	cmp -s "$T/stream.out" "$T/tracecmd.out" || {
		diff -u "$T/tracecmd.out" "$T/stream.out" | head -20 >&2
		fail "$name: $*: the stream and libtracecmd differ"
	}
}

files=("$T/normal/v6.dat" "$T/normal/v7.dat" "$T/lost/v6.dat" "$T/lost/v7.dat" "$T/fg.dat"
       "$T/session.dat")
for f in "${files[@]}"; do
	same "$f" "$trev" report "$f"
	same "$f" "$trev" report --flat "$f"
	same "$f" "$trev" report --raw "$f"
	same "$f" "$trev" report --cpu 1 "$f"
	same "$f" "$trev" report --stat "$f"
	same "$f" "$trev" report -F 'CPU == 0' "$f"
	same "$f" "$trev" convert --to json "$f" -
	for reader in stream tracecmd; do
		TREV_DAT_READER=$reader "$trev" convert --to ctf "$f" "$T/ctf.$reader" >"$out" 2>"$errf" ||
			fail "$f: TREV_DAT_READER=$reader convert --to ctf"
	done
	diff -r "$T/ctf.stream" "$T/ctf.tracecmd" >&2 || fail "$f: the CTF differs"
	rm -rf "$T/ctf.stream" "$T/ctf.tracecmd"
	echo "ok: ${f#"$T"/}: report (plain, --flat, --raw, --cpu, --stat, -F), convert json and ctf: the stream prints what libtracecmd does"
done
run 0 env TREV_DAT_READER=stream "$trev" report "$T/lost/v6.dat"
has '^CPU:[0-9] \[LOST [0-9]+ EVENTS\]$'

# ---- memory flat in the file's size -----------------------------------------------------
# A sanitizer's allocator moves the peak by megabytes of its own (its quarantine, its
# chunks' reuse: 3-6 MB more for 350 000 more records even with a quarantine of 0, where
# the normal tree's peak does not move): measured in the normal tree only.
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
if [ -n "$san" ]; then
	echo "note: the peak RSS is not compared in a $san sanitizer tree"
	exit 0
fi
# The peak RSS in KB of CMD... (stdout to /dev/null): ru_maxrss of its process tree.
peak_kb() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
if r.returncode != 0:
    sys.exit("exit status %d" % r.returncode)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
"$B/tests/json_dat" flood "$T/small.dat" 50000 || fail "json_dat flood 50000"
"$B/tests/json_dat" flood "$T/big.dat" 400000 || fail "json_dat flood 400000"
small_kb=$(( $(stat -c %s "$T/small.dat") / 1024 ))
big_kb=$(( $(stat -c %s "$T/big.dat") / 1024 ))
bound=$(( (big_kb - small_kb) / 16 ))
for cmd in "report" "report --flat" "convert --to json" "convert --to ctf"; do
	peaks=()
	for f in small big; do
		rm -rf "$T/ctf"
		dest=()
		case $cmd in
		"convert --to json") dest=(-) ;;
		"convert --to ctf") dest=("$T/ctf") ;;
		esac
		# shellcheck disable=SC2086 # $cmd is words
		kb=$(peak_kb "$trev" $cmd "$T/$f.dat" "${dest[@]}") || fail "trev $cmd $f.dat failed"
		peaks+=("$kb")
	done
	grow=$(( peaks[1] - peaks[0] ))
	echo "trev $cmd: peak RSS ${peaks[0]} KB on $small_kb KB of file, ${peaks[1]} KB on $big_kb KB"
	[ "$grow" -le "$bound" ] ||
		fail "trev $cmd: the peak RSS grew by $grow KB for $((big_kb - small_kb)) KB more file (at most $bound)"
done
echo "ok: memory flat in the file's size"
