#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The flight recorder (TREV_FLIGHT) and trev recover (docs/cli/trev-recover.md): a program
# killed while its threads write, nobody recording, leaves its buffer in a file; trev recover
# makes a trace.dat of it that trace-cmd reads, with each thread's events from its first,
# without a gap, at least as many as it had committed. A normal exit removes the files; a
# directory others could write to is refused; damaged files get an error, never a crash.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }
ulimit -c 0	# rec_app kills itself with SIGSEGV: no core file

app="$B/tests/rec_app"
# Big enough that the 20000 events of a midsignal thread overwrite nothing.
export TREV_BUFFER_KB=4096 TREV_EVENTS=trev_test:tt_ints
unset TREV_FLIGHT TREV_FLIGHT_KEEP

# check_seq DAT COUNTS WHAT: each thread's events in DAT are 0, 1, 2 ... with no gap, at
# least as many as its slot of COUNTS says it committed, and nothing is reported lost.
check_seq() {
	local dat=$1 counts=$2 what=$3 committed
	trace-cmd report -i "$dat" >"$out" 2>&1 || fail "$what: trace-cmd report cannot read $dat"
	grep -q 'EVENTS DROPPED' "$out" && fail "$what: events lost"
	for k in 0 1; do
		committed=$(od -An -t d8 -j $((k * 8)) -N 8 "$counts" | tr -d ' ')
		grep -E "^\s*burst-$k-[0-9]+\s.*\stt_ints:\s" "$out" |
			sed -E 's/.* a=([0-9]+) .*/\1/' >"$T/seq"
		awk -v want="$committed" '$1 != NR - 1 { print "gap at " NR - 1 ": " $1; bad = 1; exit }
			END { if (!bad && NR < want) { print NR " events, " want " committed"; bad = 1 }
			      exit bad }' "$T/seq" >"$T/why" ||
			fail "$what: thread burst-$k: $(cat "$T/why")"
		echo "ok: $what: burst-$k: $(wc -l <"$T/seq") events, $committed committed before the end"
	done
}

# Killed while writing (SIGKILL, SIGSEGV), nobody recording: the files stay, and trev
# recover finds every committed event. $T is the user's own directory (mode 700).
mid_case() {
	local sig=$1 want=$2 version=$3 f="$T/flight-$1" dat="$T/mid-$1.dat"
	run "$want" env TREV_FLIGHT="$f" "$app" 2000 2 midsignal "$sig" "$T/counts-$sig"
	[ -f "$f" ] && [ -f "$f.meta" ] || fail "signal $sig: $f or $f.meta is not left"
	[ "$(stat -c %a "$f")" = 600 ] || fail "signal $sig: $f is not mode 600"
	run 0 "$trev" recover --file-version "$version" -o "$dat" "$f"
	err_has "^trev: recovered [0-9]+ events of process [0-9]+ \(rec_app\) from $f; 0 lost, 0 overwritten$"
	err_has "^trev: process [0-9]+ is gone$"
	err_has "^trev: wrote $dat \(version $version, [0-9]+ bytes\)$"
	check_seq "$dat" "$T/counts-$sig" "signal $sig"
}
mid_case 9 137 6
mid_case 11 139 7

# A normal exit removes both files; TREV_FLIGHT=1 names them /dev/shm/trev-COMM-PID.
run 0 env TREV_FLIGHT="$T/normal" "$app" 100 2
has '^fired 200$'
[ ! -e "$T/normal" ] && [ ! -e "$T/normal.meta" ] || fail "a normal exit left $T/normal*"
if [ -d /dev/shm ] && [ -k /dev/shm ]; then
	TREV_FLIGHT=1 "$app" 100 2 >"$out" 2>"$errf" &
	p=$!
	wait "$p" || fail "rec_app with TREV_FLIGHT=1 failed"
	[ ! -e "/dev/shm/trev-rec_app-$p" ] || fail "a normal exit left /dev/shm/trev-rec_app-$p"
	TREV_FLIGHT=1 TREV_FLIGHT_KEEP=1 "$app" 100 2 >"$out" 2>"$errf" &
	p=$!
	wait "$p" || fail "rec_app with TREV_FLIGHT_KEEP=1 failed"
	f="/dev/shm/trev-rec_app-$p"
	[ -f "$f" ] && [ -f "$f.meta" ] || fail "TREV_FLIGHT_KEEP=1: $f is not kept"
	run 0 "$trev" recover -o "$T/keep.dat" "$f"
	rm -f "$f" "$f.meta"
	err_has "^trev: recovered 200 events of process $p \(rec_app\) from $f; 0 lost, 0 overwritten$"
	echo "ok: /dev/shm/trev-rec_app-PID removed at a normal exit, kept with TREV_FLIGHT_KEEP=1"
fi

# A process still running (stopped here) is read as a snapshot.
TREV_FLIGHT="$T/live" "$app" 2000 2 midsignal 19 "$T/counts-live" >/dev/null 2>&1 &
p=$!
pids+=("$p")
wait_for "grep -q '^[0-9]* ([^)]*) T' /proc/$p/stat" "rec_app stopping itself"
run 0 "$trev" recover -o "$T/live.dat" "$T/live"
err_has "^trev: process $p is still running: this is a snapshot of its buffer$"
check_seq "$T/live.dat" "$T/counts-live" "stopped process"
kill -KILL "$p"

# Its buffer cannot be sealed, so trev record reads the pages over the socket instead.
run 0 "$trev" record -e trev_test:tt_ints -o "$T/rec.dat" -- env TREV_FLIGHT="$T/rec" "$app" 250 2
err_has "its buffer cannot be mapped here \(Operation not permitted\); pages come over the socket"
[ "$(trace-cmd report -i "$T/rec.dat" 2>/dev/null | grep -c ' tt_ints: ')" = 500 ] ||
	fail "trev record of a flight-recorded program: not 500 events"
echo "ok: trev record of a flight-recorded program"

# Directories others could write to (not sticky) and names that exist are refused; the
# program runs on with its buffer in memory.
mkdir "$T/open" && chmod 777 "$T/open"
run 0 env TREV_FLIGHT="$T/open/f" "$app" 10 1
err_has "^trev: TREV_FLIGHT: $T/open/f: its directory is writable by others and not sticky \(ignored\)$"
[ ! -e "$T/open/f" ] || fail "a file was made in a directory others can write to"
ln -s "$T/elsewhere" "$T/link"
run 0 env TREV_FLIGHT="$T/link" "$app" 10 1
err_has "^trev: TREV_FLIGHT: cannot create $T/link: File exists \(the buffer stays in memory only\)$"
[ ! -e "$T/elsewhere" ] || fail "TREV_FLIGHT followed a symbolic link"
run 0 env TREV_FLIGHT=relative "$app" 10 1
err_has "^trev: TREV_FLIGHT: 'relative' is neither 1 nor an absolute path \(ignored\)$"
echo "ok: unsafe places refused"

# Damaged files: an error that says what, exit status 1, no crash.
f="$T/flight-9"
bad() {
	local what=$1 regex=$2
	run 1 "$trev" recover -o "$T/bad.dat" "$T/bad"
	err_has "$regex"
	[ ! -e "$T/bad.dat" ] || fail "$what: $T/bad.dat written"
	echo "ok: $what"
}
cp "$f.meta" "$T/bad.meta"
head -c 8192 "$f" >"$T/bad"
bad "truncated region" "^trev: $T/bad: not a trev ring buffer region of this version \(or a damaged one\)$"
head -c 100 /dev/urandom >"$T/bad"
bad "short region" "^trev: $T/bad: not a ring buffer region \(a regular file of 4 KiB to [0-9]+ GiB\)$"
cp --sparse=always "$f" "$T/bad"
printf 'XXXX' | dd of="$T/bad" conv=notrunc status=none
bad "region without its magic" "^trev: $T/bad: not a trev ring buffer region"
cp --sparse=always "$f" "$T/bad"
head -c 100 "$f.meta" >"$T/bad.meta"
bad "metadata cut at its start" "^trev: $T/bad.meta: [0-9]+ entries do not fit in 100 bytes$"
head -c $(($(stat -c %s "$f.meta") - 10)) "$f.meta" >"$T/bad.meta"
bad "metadata cut at its end" "^trev: $T/bad.meta: offset [0-9]+: entry [0-9]+: name of [0-9]+ and data of [0-9]+ bytes do not fit$"
printf 'tvfm\001\000\000\000\377\377\377\377\000\000\000\000' >"$T/bad.meta"
bad "metadata with too many entries" "^trev: $T/bad.meta: 4294967295 entries do not fit in 16 bytes$"
printf 'tvfm\001\000\000\000\002\000\000\000\000\000\000\000\004\000\000\000\001\000\000\000@pid1\004\000\000\000\001\000\000\000@pid2' >"$T/bad.meta"
bad "metadata naming an entry twice" "^trev: $T/bad.meta: entries 0 and 1 have the same name, @pid$"
printf 'nope' >"$T/bad.meta"
bad "not metadata" "^trev: $T/bad.meta: not a trev flight recorder metadata file$"

# A region whose buffer 0 says its oldest page is one no slot holds (byte 6 of its tail_seq
# changed; both buffers wrapped): the reader once looked for that page again for every event
# it staged, for minutes. Now the error says which buffer, page and offset, and what is wrong.
# It takes milliseconds; the timeout only ends a reader that hangs.
run 0 env TREV_BUFFER_KB=8 TREV_FLIGHT="$T/wrap" TREV_FLIGHT_KEEP=1 "$app" 600 2
run 0 "$trev" recover -o "$T/wrap.dat" "$T/wrap"
err_has "^trev: recovered [0-9]+ events of process [0-9]+ \(rec_app\) from $T/wrap; [1-9][0-9]* lost, [1-9][0-9]* overwritten$"
desc_off=$(od -An -t u8 -j 16 -N 8 "$T/wrap" | tr -d ' ')
cp --sparse=always "$T/wrap" "$T/bad"
cp "$T/wrap.meta" "$T/bad.meta"
printf '\043' | dd of="$T/bad" bs=1 seek=$((desc_off + 86)) conv=notrunc status=none
timeout 120 "$trev" recover -o "$T/bad.dat" "$T/bad" >"$out" 2>"$errf"
st=$?
[ "$st" != 124 ] || fail "damaged tail_seq: trev recover still ran after 120 s (a hang)"
[ "$st" = 1 ] || fail "damaged tail_seq: trev recover exited $st, expected 1"
err_has "^trev: $T/bad: damaged: buffer 0 \(thread [0-9]+\), CPU [0-9]+, page [0-9]+ \(region page [0-9]+\), offset 0: its oldest page \(the last is [0-9]+, the first [0-9]+, of 2\): its slot holds page [0-9]+$"
[ ! -e "$T/bad.dat" ] || fail "damaged tail_seq: $T/bad.dat written"
echo "ok: damaged tail_seq: an error naming the place, no hang"

rm "$T/bad.meta"
bad "no metadata" "^trev: $T/bad.meta: No such file or directory$"
run 2 "$trev" recover
run 2 "$trev" recover --file-version 5 "$f"
run 0 "$trev" recover --help
has '^usage: trev recover '
echo "trev recover: ok"
